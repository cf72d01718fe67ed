//! Stored matches: games that outlive a request, played by remote clients
//! (each holding a seat's secret token) and built-in bots, with their
//! history, in the SQLite database.
//!
//! - [`dto`]: what the `/v1/matches` routes take and answer.
//! - [`storage`]: the SQL, and the checks made inside each transaction
//!   (token, turn, ply, legality).
//! - [`tokens`]: seat and admin tokens, stored only as SHA-256 hashes.

pub mod dto;
pub mod storage;
pub mod tokens;
