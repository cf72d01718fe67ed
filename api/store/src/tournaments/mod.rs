//! Tournaments: a class enters its bots, the server plays every pairing
//! and ranks them.
//!
//! - [`model`]: tournaments, their games, turns and results as the store
//!   answers them (the server's wire shows them).
//! - [`schedule`]: who plays whom (round robin, gauntlet), seats rotated.
//! - [`storage`]: the SQL.
//! - [`plan`]: a creation request checked into a plan.
//! - [`logic`]: the checks and changes, and what the director reads.
//! - [`referee`]: the director's decisions (events, deadlines, timeouts,
//!   game over, stalls) as a pure step over its state and a given time.
//! - [`standings`]: points, cross-table and ratings from the results.

pub mod logic;
pub mod model;
pub mod plan;
pub mod referee;
pub mod schedule;
pub mod standings;
pub mod storage;
