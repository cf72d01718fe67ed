//! Limits the server enforces.

/// The largest request body accepted: 1 MiB, room for a replay of tens of
/// thousands of moves.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The most positions one solitaire solve may expand: at most about 30 s of
/// one heavy-work thread on the busy 2-core machine (rhombus11x8;
/// BENCHMARKS.md).
pub const MAX_SOLVE_NODES: u64 = 5_000_000;

/// The node limit of a solitaire solve that names none: enough to prove
/// rhombus9x3, with steps (366,866 nodes) and with hops only (849,435).
pub const DEFAULT_SOLVE_NODES: u64 = 1_000_000;

/// The largest memory budget of a solitaire solve's meeting search, in MiB
/// (counted: 16 bytes a position held). No board reaches it before
/// `MAX_SOLVE_NODES` (BENCHMARKS.md), so it never cuts a search the node cap
/// allows; it bounds what one heavy-work thread can hold.
pub const MAX_SOLVE_MEMORY_MB: u64 = 1024;

/// The memory budget of a solitaire solve that names none, in MiB: the
/// default node limit always comes first; with the node cap, rhombus7x6,
/// 8x7 and 9x5 stop at this budget.
pub const DEFAULT_SOLVE_MEMORY_MB: u64 = 256;

/// The largest lower-bound table a solitaire solve builds, in positions (one
/// byte each; the library's default is 64,000,000). Every line projection of
/// star4 and rhombus9x4 fits (3.3 million); bigger ones (rhombus10x4,
/// rhombus11x4 and most rhombi with 15 or more pegs) are left out and those
/// boards get a weaker bound. So the first solve on any board, which builds
/// its tables, stays within about 2 s with the default node limit on a busy
/// 2-core machine (BENCHMARKS.md).
pub const MAX_SOLVE_TABLE_STATES: u64 = 4_000_000;

/// IDA*'s transposition table over HTTP: 2^20 entries of 24 bytes (24 MiB).
pub const SOLVE_TABLE_BITS: u8 = 20;

/// The positions near the goal IDA* keeps over HTTP (about 70 bytes each
/// with the hash map's slack). With fewer, the IDA* that finishes
/// rhombus9x3 with hops only (the meeting search proves 34 without the
/// target lock; the lock makes it 35) needs 4.6 million nodes at 200,000
/// and 11.6 million at 50,000, against 0.45 million here.
pub const SOLVE_PERIMETER_STATES: usize = 1_000_000;

/// How long a solve job's answer is kept after it finished, in seconds.
pub const JOB_KEEP_SECONDS: u64 = 600;

/// How many finished solve jobs are kept at most (the oldest go first).
/// Unfinished ones are bounded by the heavy-work pool and its queue.
pub const MAX_FINISHED_JOBS: usize = 256;

/// The longest a `GET /v1/solitaire/jobs/{id}` waits for its job to finish.
pub const MAX_JOB_WAIT_MS: u32 = 30_000;
