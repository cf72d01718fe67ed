//! Stored matches as the store answers them: domain values with typed
//! times and positions, no wire form. The server's crate makes what a
//! client reads of them (`api/src/wire/matches.rs`): the JSON, the words
//! of a result, the legend under a picture.

use jiff::Timestamp;
use sternhalma::{DrawReason, Played, Position, Resignation};

use crate::bots::BotSpec;
pub use crate::matches::status::{Ending, ForfeitReason, MatchStatus};

/// The longest seat name, in characters.
pub const MAX_NAME_CHARS: usize = 40;

/// A seat of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct Seat {
    /// The seat number, which is the player index.
    pub seat: usize,
    /// Its display name.
    pub name: String,
    /// Its bot (with its seed), or `None` for an open seat.
    pub bot: Option<BotSpec>,
}

/// A stored match: its seats, where it stands, its current position and,
/// once over, its result.
#[derive(Clone, Debug)]
pub struct Match {
    /// The match id.
    pub id: i64,
    /// Where it stands.
    pub status: MatchStatus,
    /// Grows by one with every change.
    pub version: i64,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Its seats, in player order.
    pub seats: Vec<Seat>,
    /// Plies played so far.
    pub ply: u32,
    /// The start position string.
    pub start_position: String,
    /// The current position.
    pub position: Position,
    /// How it ended, once over.
    pub ending: Option<Ending>,
    /// The result, once over.
    pub result: Option<MatchResult>,
}

impl Match {
    /// Whether moves are still being played.
    pub fn in_progress(&self) -> bool {
        self.status == MatchStatus::InProgress
    }

    /// The seat to move, while in progress.
    pub fn to_move(&self) -> Option<usize> {
        self.in_progress().then(|| self.position.side_to_move())
    }
}

/// The result of a match that is over.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    /// How it ended.
    pub ending: Ending,
    /// The seat that resigned, for a resignation.
    pub resigned_seat: Option<usize>,
    /// The seat that forfeited, for a forfeit.
    pub forfeited_seat: Option<usize>,
    /// The seat whose bot could not move, for `bot_unavailable`.
    pub unavailable_seat: Option<usize>,
    /// Every seat that forfeited: the forfeiter of a `forfeit` ending, and
    /// in a game of three or more those that left by a forfeit while the
    /// others played on.
    pub forfeits: Vec<Forfeit>,
    /// The seats in first place (empty for a draw or an abandoned match).
    pub winners: Vec<usize>,
    /// Each seat's result: +1 best, -1 worst.
    pub results: Vec<f64>,
    /// For a draw, why.
    pub reason: Option<DrawReason>,
    /// For a draw by the move limit, the seats ranked by progress, best
    /// first; seats in one entry share the rank.
    pub by_progress: Option<Vec<Vec<usize>>>,
    /// Every seat by place, best first (empty for an abandoned match).
    pub places: Vec<Place>,
}

/// A seat's forfeit of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The seat.
    pub seat: usize,
    /// Plies played when it forfeited.
    pub ply: u32,
    /// Why.
    pub reason: ForfeitReason,
    /// For `timeouts`, how many it had in the game.
    pub timeouts: Option<u32>,
}

/// A seat's place in a match's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// 1 for the best; equal results share a place.
    pub place: usize,
    /// The seat.
    pub seat: usize,
    /// The seat's name (in a tournament, the entrant's).
    pub name: String,
    /// The seat's result.
    pub result: f64,
}

/// A stored move, replayed: the legal move it is, where it was played.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    /// The ply it was played at (0 for the first move).
    pub ply: u32,
    /// The seat that played it.
    pub seat: usize,
    /// The move, with its path.
    pub played: Played,
    /// When the server stored it.
    pub played_at: Timestamp,
}

/// Every move of a match, replayed from its start.
#[derive(Clone, Debug)]
pub struct History {
    /// The match id.
    pub match_id: i64,
    /// The start position string.
    pub start_position: String,
    /// Every move, in order.
    pub moves: Vec<PlayedMove>,
}

/// A match as a game record: its start, its moves' texts, and the seats
/// that resigned a game of three or more.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The start position string.
    pub start: String,
    /// The move texts, in order (full paths for hops).
    pub moves: Vec<String>,
    /// Who resigned, at which ply.
    pub resigned: Vec<Resignation>,
}

/// A page of matches, newest first.
#[derive(Clone, Debug)]
pub struct MatchPage {
    /// The matches.
    pub matches: Vec<Match>,
    /// The id to list from for the next page; `None` on the last page.
    pub next_before: Option<i64>,
}
