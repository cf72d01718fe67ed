//! Limits the server enforces.

/// The largest request body accepted: 1 MiB, room for a replay of tens of
/// thousands of moves.
pub const MAX_BODY_BYTES: usize = 1 << 20;
