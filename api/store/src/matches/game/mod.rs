//! The match logic: what each `/v1/matches` operation checks and does,
//! over a [`Db`] connection and the SQL of [`storage`].
//!
//! A write loads the match, checks (token, status, ply, turn, legality),
//! stores the move and the new state, all inside one [`Db::transaction`]
//! (a store command's, [`crate::commands`]); on any error nothing is
//! stored or told. Its parts: `play` (an open seat's and its creator's
//! writes), `bot_turns` (built-in bots), `reads`, `results`. Built-in bots
//! never search inside a write: [`bot_turn`] reads what a bot must answer,
//! the bot searches elsewhere (the server's bot runner, on the heavy-work
//! pool), and [`play_bot`] stores its move only if the
//! match has not changed meanwhile (its version), so a concurrent change
//! means a new search, never a lost or doubled move. Results come from
//! [`Outcome`]: the board's, or a resignation's (a forfeit is scored as
//! one, and stored and shown as a forfeit).

use jiff::Timestamp;
use sternhalma::search::eval::progress_ranking;
use sternhalma::solve::Tablebases;
use sternhalma::solve::analysis::{self, Analysis};
use sternhalma::{Cell, DrawReason, MoveText, Outcome, Played, Position};

use crate::bots::{CannotMove, SeatBot};
use crate::committed::Committed;
use crate::error::{Conflict, Error, Invalid};
use crate::matches::model::{
    Ending, Forfeit, GameRecord, History, Match, MatchPage, MatchResult, MatchStatus, Place,
    PlayedMove, Seat,
};
use crate::matches::storage::{self, MatchRow, MoveRow, SeatPlan, SeatRow, corrupt};
use crate::matches::tokens::{Authority, TokenHash};
use crate::page::Page;
use crate::quota::Creator;
use crate::sql::Db;

/// The most plies built-in bots play in a row, since the last move of an
/// open seat (or the start): reached only when no open seat is left to move
/// (every open seat finished in a ranking game, or resigned) in a game
/// without a move limit; past it the match is abandoned (`bot_limit`).
pub const MAX_BOT_PLIES: u32 = 5_000;

pub(crate) fn load_match(store: &Db, id: i64) -> Result<MatchRow, Error> {
    storage::load_match(store, id)?.ok_or_else(|| Error::NotFound(format!("no match {id}")))
}

pub(crate) fn parse_position(text: &str) -> Result<Position, Error> {
    text.parse::<Position>().map_err(corrupt)
}

/// The text a move is stored as: its full path (`95-75-57`) or `pass`.
pub(super) fn path_text(path: &[Cell]) -> String {
    if path.is_empty() {
        MoveText::Pass
    } else {
        MoveText::Path(path.iter().map(|c| c.id()).collect())
    }
    .to_string()
}

mod bot_turns;
mod play;
mod reads;
mod results;
#[cfg(test)]
mod tests;

pub use bot_turns::*;
pub use play::*;
pub use reads::*;
pub(crate) use results::*;
