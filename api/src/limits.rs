//! Limits the server enforces.

/// The largest request body accepted: 1 MiB, room for a replay of tens of
/// thousands of moves.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The most positions one solitaire solve may visit (a few seconds of work),
/// so a request cannot hold a worker thread for long.
pub const MAX_SOLVE_NODES: u64 = 5_000_000;

/// The node limit of a solitaire solve that names none.
pub const DEFAULT_SOLVE_NODES: u64 = 1_000_000;
