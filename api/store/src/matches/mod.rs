//! Stored matches: games that outlive a request, played by remote clients
//! (each holding a seat's secret token) and built-in bots, with their
//! history, in the SQLite database.
//!
//! - [`model`]: matches as the store answers them (no wire form: the
//!   server's crate makes that).
//! - [`game`]: the match logic: the checks made inside each write
//!   (token, status, ply, turn, legality), the bots' replies, the results.
//! - [`status`]: where a match stands and how it ended.
//! - [`storage`]: the SQL, rows in and out, behind the
//!   functions on a [`crate::sql::Db`], as the tournaments' storage.
//! - [`tokens`]: seat and admin tokens, stored only as SHA-256 hashes.

pub mod game;
pub mod model;
pub mod status;
pub mod storage;
pub mod tokens;
