//! Limits the server enforces.

/// The largest request body accepted: 1 MiB, room for a replay of tens of
/// thousands of moves.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The most positions one solitaire solve may visit (a few seconds of work),
/// so a request cannot hold a worker thread for long.
pub const MAX_SOLVE_NODES: u64 = 5_000_000;

/// The node limit of a solitaire solve that names none.
pub const DEFAULT_SOLVE_NODES: u64 = 1_000_000;

/// The largest lower-bound table a solitaire solve builds, in positions (one
/// byte each; the library's default is 64,000,000). Every line projection of
/// star4 and rhombus9x4 fits (3.3 million); bigger ones (rhombus10x4,
/// rhombus11x4 and most rhombi with 15 or more pegs) are left out and those
/// boards get a weaker bound. So the first solve on any board, which builds
/// its tables, stays within about 2 s with the default node limit on a busy
/// 2-core machine (BENCHMARKS.md).
pub const MAX_SOLVE_TABLE_STATES: u64 = 4_000_000;
