//! Limits the server enforces.

/// The largest request body accepted: 1 MiB, room for a replay of tens of
/// thousands of moves.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The most positions (moves made, quiescence included) an `alphabeta` or
/// `paranoid` search of `POST /v1/bots/move` may visit: about a second of one
/// heavy-work thread on the slowest position measured (rhombus11p55 under
/// `super`: 1.3 s on the loaded 2-core machine, about 400,000 a second of
/// one core; star4 with six players runs 0.7 to 2.7 million a second;
/// `examples/bot_budgets.rs`, BENCHMARKS.md). Counted in work, not time, so
/// the same request gets the same move on any machine.
pub const MAX_BOT_NODES: u64 = 400_000;

/// The most playouts an `mcts` search of `POST /v1/bots/move` may run: about
/// a second on the slowest position measured (star4, six players, `super`,
/// after 60 plies: 1.3 s on the loaded 2-core machine, 3,200 a second; a
/// playout plays five rounds, 30 plies with six players).
pub const MAX_BOT_PLAYOUTS: u64 = 4_000;

/// The longest time budget of `POST /v1/bots/move`, in milliseconds. A time
/// budget can only stop a search before its node cap, which is about a
/// second of work anyway; an answer it shaped is marked not reproducible.
pub const MAX_BOT_MILLIS: u64 = 1_000;

/// The deepest depth budget of `POST /v1/bots/move` (the node cap applies
/// too).
pub const MAX_BOT_DEPTH: u32 = 64;

/// The most moves `POST /v1/replay` plays. A game under the program move
/// limit has at most 200 turns a player, 1,200 plies with six players
/// (`NewGame::PROGRAM_TURNS_PER_PLAYER`); rules may set a longer
/// `max_plies` or none, so a record may be longer, and 10,000 leaves room
/// for eight times that. Each move answers a position string and an
/// outcome, so the answer stays under about 3 MB.
pub const MAX_REPLAY_MOVES: usize = 10_000;

/// The most resignations `POST /v1/replay` takes: a game has at most six
/// players, and each resigns once.
pub const MAX_REPLAY_RESIGNATIONS: usize = sternhalma::MAX_SETS;

/// The most positions one solitaire solve (or job) may expand, the same as
/// the default: a few seconds of one heavy-work thread on the slowest board,
/// so that no request holds a thread longer (rhombus9p21 with steps: 3.6 s
/// in one run on the busy 2-core machine, 7 to 8 s in another; 0.98 s for
/// rhombus9p6, 1.8 s for it with hops only; BENCHMARKS.md, "The HTTP
/// route"). It was 5,000,000, and rhombus11p36 then held a thread 31 to
/// 40 s: a client could keep the pool busy for minutes within its rate.
/// Half of it (rhombus9p21: 2.3 s) would no longer prove rhombus9p6 with
/// hops only (849,435 nodes). A larger request is refused before it is
/// queued (422 `max_nodes_out_of_range`, naming the cap).
pub const MAX_SOLVE_NODES: u64 = 1_000_000;

/// The node limit of a solitaire solve that names none: enough to prove
/// rhombus9p6, with steps (366,866 nodes) and with hops only (849,435).
pub const DEFAULT_SOLVE_NODES: u64 = MAX_SOLVE_NODES;

/// The largest memory budget of a solitaire solve's meeting search, in MiB
/// (counted: 16 bytes a position held). No board reaches it before
/// `MAX_SOLVE_NODES` (none reaches even the default, 256 MiB;
/// BENCHMARKS.md), so it never cuts a search the node cap allows; it bounds
/// what one heavy-work thread can hold.
pub const MAX_SOLVE_MEMORY_MB: u64 = 1024;

/// The memory budget of a solitaire solve that names none, in MiB: the
/// node limit (default and cap) always comes first.
pub const DEFAULT_SOLVE_MEMORY_MB: u64 = 256;

/// The largest lower-bound table a solitaire solve builds, in positions (one
/// byte each; the library's default is 64,000,000). Every line projection of
/// star4 and rhombus9p10 fits (3.3 million); bigger ones (rhombus10p10,
/// rhombus11p10 and most rhombi with 15 or more pegs) are left out and those
/// boards get a weaker bound. So the first solve on any board, which builds
/// its tables, stays within about 2 s with the default node limit on a busy
/// 2-core machine (BENCHMARKS.md).
pub const MAX_SOLVE_TABLE_STATES: u64 = 4_000_000;

/// IDA*'s transposition table over HTTP: 2^20 entries of 24 bytes (24 MiB).
pub const SOLVE_TABLE_BITS: u8 = 20;

/// The positions near the goal IDA* keeps over HTTP (about 70 bytes each
/// with the hash map's slack). With fewer, the IDA* that finishes
/// rhombus9p6 with hops only (the meeting search proves 34 without the
/// target lock; the lock makes it 35) needs 4.6 million nodes at 200,000
/// and 11.6 million at 50,000, against 0.45 million here.
pub const SOLVE_PERIMETER_STATES: usize = 1_000_000;

/// How long a solve job's answer is kept after it finished, in seconds.
pub const JOB_KEEP_SECONDS: u64 = 600;

/// How many finished solve jobs are kept at most: beyond, the oldest of
/// the client keeping the most go first. Unfinished ones are bounded by
/// the heavy-work pool and its queue.
pub const MAX_FINISHED_JOBS: usize = 256;

/// How many finished solve jobs of one client are kept at most (its oldest
/// go first): a notebook polls its job's answer within seconds, and a
/// client sending jobs without end pushes out its own answers, not
/// another's.
pub const MAX_FINISHED_JOBS_PER_CLIENT: usize = 16;

/// The longest a `GET /v1/solitaire/jobs/{id}` waits for its job to finish.
pub const MAX_JOB_WAIT_MS: u32 = 30_000;
