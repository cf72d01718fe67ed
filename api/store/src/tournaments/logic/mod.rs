//! What the `/v1/tournaments` operations check and do, and what the
//! director needs to run tournaments: start the games whose entrants are
//! free, follow them, record timeouts.
//!
//! A tournament game is an ordinary stored match (so every match route
//! works on it: the state, the long-poll, the history, the export), linked
//! from the tournament's schedule. An open entrant's seats carry its token
//! hash, so its one token plays all its games through
//! `POST /v1/matches/{id}/moves`.

use std::collections::HashSet;

use jiff::Timestamp;

use crate::page::Page;
use crate::quota::Creator;
use crate::sql::Db;
use sternhalma::Position;

use crate::bots::{self, SeatBot};
use crate::committed::Committed;
use crate::error::{Conflict, Error};
use crate::matches::game;
use crate::matches::model::Forfeit;
use crate::matches::status::{Ending, ForfeitReason, MatchStatus};
use crate::matches::storage::{self as match_storage, MoveRow, SeatPlan, corrupt};
use crate::matches::tokens::{Authority, TokenHash};
use crate::tournaments::model::{
    Entrant, EntrantTurns, GameCounts, GameResult, GameSeat, GameStatus, Place, Tournament,
    TournamentGame, TournamentPage, TournamentStatus, Turn,
};
use crate::tournaments::schedule::Format;
use crate::tournaments::standings::{
    self, EntrantRef, FinishedGame, Judged, LiveGame, Points, Standings,
};
use crate::tournaments::storage::{self, EntrantRow, GameRow, TournamentRow};

mod following;
mod lifecycle;
mod reads;
mod results;
mod scheduling;
#[cfg(test)]
mod tests;

pub use following::*;
pub use lifecycle::*;
pub use reads::*;
pub use results::*;
pub use scheduling::*;

fn load(connection: &Db, id: i64) -> Result<TournamentRow, Error> {
    storage::load_tournament(connection, id)?
        .ok_or_else(|| Error::NotFound(format!("no tournament {id}")))
}
