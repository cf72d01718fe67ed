//! Tournaments: a class enters its bots, the server plays every pairing
//! and ranks them.
//!
//! - [`dto`]: what the `/v1/tournaments` routes take and answer.
//! - [`schedule`]: who plays whom (round robin, gauntlet), seats rotated.
//! - [`storage`]: the SQL.
//! - [`plan`]: a creation request checked into a plan.
//! - [`logic`]: the checks and changes, and what the director reads.
//! - [`director`]: the background task that starts games as entrants are
//!   free, enforces the deadlines and sends the events.
//! - [`standings`]: points, cross-table and ratings from the results.

pub mod dto;
pub mod logic;
pub mod plan;
pub mod schedule;
pub mod standings;
pub mod storage;
