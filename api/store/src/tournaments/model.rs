//! Tournaments as the store answers them: domain values with typed times
//! and the entrants' bots whole. How a client sees them (the JSON, the
//! words, which seeds are shown) is the server's (`api/src/wire`).

use jiff::Timestamp;
use sternhalma::Position;

use crate::bots::BotSpec;
use crate::matches::status::Ending;
use crate::tournaments::schedule::Format;
use crate::tournaments::standings::Points;

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentStatus {
    /// Created; no game starts until the admin token starts it.
    Waiting,
    /// Games start as entrants are free.
    Running,
    /// No new game starts; games under way play on.
    Paused,
    /// Every game has been played.
    Finished,
    /// Stopped by the admin token: games under way were abandoned.
    Abandoned,
}

impl TournamentStatus {
    /// The name stored.
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Waiting => "waiting",
            TournamentStatus::Running => "running",
            TournamentStatus::Paused => "paused",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Abandoned => "abandoned",
        }
    }

    /// The status named `name` ([`TournamentStatus::as_str`]).
    pub fn from_name(name: &str) -> Option<TournamentStatus> {
        [
            TournamentStatus::Waiting,
            TournamentStatus::Running,
            TournamentStatus::Paused,
            TournamentStatus::Finished,
            TournamentStatus::Abandoned,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
    }

    /// Finished or abandoned: nothing more happens.
    pub fn is_over(self) -> bool {
        matches!(
            self,
            TournamentStatus::Finished | TournamentStatus::Abandoned
        )
    }
}

/// An entrant of a tournament.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// The entrant's number.
    pub entrant: usize,
    /// Display name.
    pub name: String,
    /// Its bot, whole (its seed too), for a built-in one; `None` for an
    /// open entrant, which plays through its token.
    pub bot: Option<BotSpec>,
    /// The gauntlet's reference bot.
    pub reference: bool,
    /// When the organiser withdrew it, if it did.
    pub withdrawn_at: Option<Timestamp>,
    /// Since when an open entrant is absent (it missed its deadline
    /// `max_timeouts` times in a row), if it is.
    pub absent_since: Option<Timestamp>,
}

/// How many games stand where.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameCounts {
    /// Every game of the schedule.
    pub total: usize,
    /// Not started.
    pub pending: usize,
    /// Under way.
    pub in_progress: usize,
    /// Over, with a result.
    pub finished: usize,
    /// Over, without a result.
    pub abandoned: usize,
}

/// A tournament: its settings, entrants and how many games stand where.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// Its id.
    pub id: i64,
    /// Display name.
    pub name: String,
    /// Where it stands.
    pub status: TournamentStatus,
    /// Grows with every change of status.
    pub version: i64,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its status last changed.
    pub updated_at: Timestamp,
    /// Every game's start position string.
    pub start_position: String,
    /// Players per game.
    pub players: usize,
    /// The format.
    pub format: Format,
    /// Games per group (per entrant for a gauntlet).
    pub games_per_pairing: u32,
    /// An open entrant's time per move, in milliseconds.
    pub move_ms: u32,
    /// Timeouts in one game after which the entrant forfeits it.
    pub max_timeouts: u32,
    /// Games played at once.
    pub concurrency: u32,
    /// Points per opponent.
    pub points: Points,
    /// The entrants.
    pub entrants: Vec<Entrant>,
    /// Games by status.
    pub games: GameCounts,
}

/// A page of tournaments.
#[derive(Clone, Debug)]
pub struct TournamentPage {
    /// Newest first.
    pub tournaments: Vec<Tournament>,
    /// The `before` of the next page; `None` on the last.
    pub next_before: Option<i64>,
}

/// Where a game of the schedule stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    /// Not started.
    Pending,
    /// Its match is under way.
    InProgress,
    /// Over with a result.
    Finished,
    /// Over without a result (abandoned, or unplayed: an entrant of it
    /// was withdrawn before it started).
    Abandoned,
}

/// A seat of a tournament game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSeat {
    /// The seat (player index).
    pub seat: usize,
    /// The entrant in it.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Timeouts it had in this game.
    pub timeouts: u32,
    /// Whether it forfeited this game (its timeouts, its absence, or its
    /// withdrawal).
    pub forfeited: bool,
}

/// A seat's place in a game's result, with its entrant.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// 1 for the best; equal results share a place.
    pub place: usize,
    /// The seat.
    pub seat: usize,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// The seat's result (as the match's results).
    pub result: f64,
}

/// A finished game's result, by entrant.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// How the match ended.
    pub ending: Ending,
    /// Every seat, best first.
    pub places: Vec<Place>,
    /// The seat that resigned, for a resignation (it is last).
    pub resigned_seat: Option<usize>,
}

/// A game of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentGame {
    /// Its number in the schedule.
    pub game: usize,
    /// Where it stands.
    pub status: GameStatus,
    /// The match that plays it, once started.
    pub match_id: Option<i64>,
    /// The seats, in seat order.
    pub seats: Vec<GameSeat>,
    /// The result, once finished.
    pub result: Option<GameResult>,
}

/// A game waiting for an open entrant's move.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The match.
    pub match_id: i64,
    /// The game's number in the schedule.
    pub game: usize,
    /// The entrant's seat.
    pub seat: usize,
    /// The ply to name in the move.
    pub ply: u32,
    /// The position, the entrant to move.
    pub position: Position,
    /// Timeouts the entrant has had in this game.
    pub timeouts: u32,
}

/// An open entrant's games waiting for its move.
#[derive(Clone, Debug)]
pub struct EntrantTurns {
    /// The tournament.
    pub tournament_id: i64,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Where the tournament stands.
    pub status: TournamentStatus,
    /// The entrant has no game left to play (or the tournament is over).
    pub done: bool,
    /// The tournament's time per move: what a turn has left until the
    /// director has seen it (its clock has not started).
    pub move_ms: u32,
    /// The games waiting for its move now.
    pub turns: Vec<Turn>,
    /// Whether the entrant was absent (its turns forfeited at once) when
    /// it asked.
    pub absent: bool,
}
