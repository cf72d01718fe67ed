//! Sternhalma's storage and domain: stored matches and tournaments, kept in
//! SQLite (one file, the default) or PostgreSQL (several replicas on one
//! database), with the rules of stored play: who may move, when a move is
//! stale, how a tournament is planned, scheduled and ranked, and what the
//! director decides at each change and deadline.
//!
//! No web framework: every operation answers a typed [`Error`] with a
//! stable code, which the HTTP edge maps to a status. Who reacts to a
//! committed change (long-polls, the tournament director, the bot runner)
//! subscribes to the store's [`Event`]s; the store knows none of them.
//!
//! - [`sql`]: one face for SQLite and PostgreSQL; [`db`]: schemas and
//!   migrations; [`bus`]: changes told between replicas (LISTEN/NOTIFY);
//!   [`store`]: the writer thread, the readers and the change events.
//! - [`mod@matches`]: stored matches; [`tournaments`]: tournaments; [`bots`]:
//!   the built-in bots a seat or an entrant may be.

pub mod bots;
pub mod bus;
pub mod clock;
pub mod commands;
pub mod committed;
pub mod db;
pub mod disk;
pub mod error;
pub mod matches;
pub mod names;
pub mod page;
pub mod quota;
pub mod sql;
pub mod store;
pub mod tournaments;
pub mod writer;

pub use committed::{Changes, Committed};
pub use error::{Conflict, Error, Invalid, Unavailable};
pub use quota::Owner;
pub use store::{Event, Store};
