//! What the `/v1/tournaments` routes take and answer, with their OpenAPI
//! schemas, built from the store's tournaments
//! (`sternhalma_store::tournaments::model`): a tournament with its
//! entrants ([`TournamentView`]), the creation request
//! ([`requests`]), the schedule, its results in words and an entrant's
//! turns ([`games`]), the event stream ([`events`]) and the standings
//! ([`standings`], and as CSV [`standings_csv`]).

pub mod events;
pub mod games;
pub mod requests;
pub mod standings;
pub mod standings_csv;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use sternhalma_store::tournaments::model as stored;
use sternhalma_store::tournaments::plan;
use sternhalma_store::tournaments::schedule;
use sternhalma_store::tournaments::standings as scored;

use crate::wire::bots::{BotSpec, SeatKind, shown_bot};
use crate::wire::time;

pub use events::{EventSeat, TournamentEvent, TournamentSseEvent};
pub use games::{
    EntrantTurns, GameResult, GameSeat, GameStatus, PlaceView, TournamentGame, TournamentGames,
    Turn,
};
pub use requests::{EntrantRequest, NewTournament, NewTournamentRequest};
pub use standings::{CrossCell, CrossRow, StandingRow, Standings};

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
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

impl From<stored::TournamentStatus> for TournamentStatus {
    fn from(status: stored::TournamentStatus) -> TournamentStatus {
        match status {
            stored::TournamentStatus::Waiting => TournamentStatus::Waiting,
            stored::TournamentStatus::Running => TournamentStatus::Running,
            stored::TournamentStatus::Paused => TournamentStatus::Paused,
            stored::TournamentStatus::Finished => TournamentStatus::Finished,
            stored::TournamentStatus::Abandoned => TournamentStatus::Abandoned,
        }
    }
}

impl From<TournamentStatus> for stored::TournamentStatus {
    fn from(status: TournamentStatus) -> stored::TournamentStatus {
        match status {
            TournamentStatus::Waiting => stored::TournamentStatus::Waiting,
            TournamentStatus::Running => stored::TournamentStatus::Running,
            TournamentStatus::Paused => stored::TournamentStatus::Paused,
            TournamentStatus::Finished => stored::TournamentStatus::Finished,
            TournamentStatus::Abandoned => stored::TournamentStatus::Abandoned,
        }
    }
}

impl TournamentStatus {
    /// Finished or abandoned: nothing more happens (as the store's
    /// status says).
    pub fn is_over(self) -> bool {
        stored::TournamentStatus::from(self).is_over()
    }
}

/// A tournament's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Every group of entrants plays every other, seats rotated.
    RoundRobin,
    /// Every entrant plays the reference bot, seats rotated.
    Gauntlet,
}

impl From<schedule::Format> for Format {
    fn from(format: schedule::Format) -> Format {
        match format {
            schedule::Format::RoundRobin => Format::RoundRobin,
            schedule::Format::Gauntlet => Format::Gauntlet,
        }
    }
}

impl From<Format> for schedule::Format {
    fn from(format: Format) -> schedule::Format {
        match format {
            Format::RoundRobin => schedule::Format::RoundRobin,
            Format::Gauntlet => schedule::Format::Gauntlet,
        }
    }
}

/// Points per opponent: a game is scored pairwise, seat against seat, and
/// each seat earns these for each other seat it beat, drew or lost to.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"win": 1.0, "draw": 0.5, "loss": 0.0}))]
pub struct Points {
    /// For each opponent with a lower result; default 1.
    #[schema(example = 1.0)]
    pub win: f64,
    /// For each opponent with an equal result; default 0.5.
    #[schema(example = 0.5)]
    pub draw: f64,
    /// For each opponent with a higher result; default 0.
    #[schema(example = 0.0)]
    pub loss: f64,
}

impl Default for Points {
    /// Win 1, draw 0.5, loss 0 (the store's default).
    fn default() -> Points {
        Points::from(scored::Points::default())
    }
}

impl From<scored::Points> for Points {
    fn from(points: scored::Points) -> Points {
        Points {
            win: points.win,
            draw: points.draw,
            loss: points.loss,
        }
    }
}

impl From<Points> for scored::Points {
    fn from(points: Points) -> scored::Points {
        scored::Points {
            win: points.win,
            draw: points.draw,
            loss: points.loss,
        }
    }
}

/// An entrant as shown.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantView {
    /// The entrant's number.
    pub entrant: usize,
    /// Display name.
    #[schema(example = "ada")]
    pub name: String,
    /// `open` (plays through its token) or `bot` (built in).
    pub kind: SeatKind,
    /// The bot, for a built-in one (its seed only once the tournament is
    /// over).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
    /// The gauntlet's reference bot.
    pub reference: bool,
    /// When the organiser withdrew it (its games under way forfeited,
    /// those not started left unplayed); absent while it takes part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withdrawn_at: Option<String>,
    /// An open entrant's presence: whether it is asking for its turns now,
    /// when it last did, whether it is absent. Absent for a built-in bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence: Option<Presence>,
}

impl EntrantView {
    /// `entrant` as shown: its bot's seed only when `reveal` (once the
    /// tournament is over), its presence as the store knows it (absent or
    /// not; the server's director adds the rest).
    pub fn shown(entrant: &stored::Entrant, reveal: bool) -> EntrantView {
        let (kind, bot) = shown_bot(entrant.bot.as_ref(), reveal);
        EntrantView {
            entrant: entrant.entrant,
            name: entrant.name.clone(),
            kind,
            bot,
            reference: entrant.reference,
            withdrawn_at: entrant.withdrawn_at.map(time),
            presence: entrant.bot.is_none().then(|| Presence {
                absent_since: entrant.absent_since.map(time),
                ..Presence::default()
            }),
        }
    }
}

/// An open entrant's presence, as the server that answers sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
pub struct Presence {
    /// Whether it is waiting for its turns now: a long-poll of
    /// `GET /v1/tournaments/{id}/turns` with its token is open on this
    /// server.
    pub connected: bool,
    /// Milliseconds since it last asked for its turns on this server;
    /// absent if it has not since the server started.
    pub seen_ms_ago: Option<u64>,
    /// Since when it is absent: it missed its deadline `max_timeouts`
    /// times in a row, so its turns are forfeited at once (no time given)
    /// until it asks for its turns again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absent_since: Option<String>,
}

/// How many games stand where.
#[derive(Clone, Copy, Debug, Default, Serialize, ToSchema)]
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

impl From<stored::GameCounts> for GameCounts {
    fn from(counts: stored::GameCounts) -> GameCounts {
        GameCounts {
            total: counts.total,
            pending: counts.pending,
            in_progress: counts.in_progress,
            finished: counts.finished,
            abandoned: counts.abandoned,
        }
    }
}

/// A tournament.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentView {
    /// Its id.
    #[schema(example = 1)]
    pub id: i64,
    /// Display name.
    #[schema(example = "Class 3B")]
    pub name: String,
    /// Where it stands.
    pub status: TournamentStatus,
    /// Grows with every change of status.
    pub version: i64,
    /// When it was created (UTC, RFC 3339).
    pub created_at: String,
    /// When its status last changed (UTC, RFC 3339).
    pub updated_at: String,
    /// Every game's start position.
    #[schema(example = "star4 classic,max_plies=400 south:111-120/north:0-9 0 0 -")]
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
    pub entrants: Vec<EntrantView>,
    /// Games by status.
    pub games: GameCounts,
}

impl From<stored::Tournament> for TournamentView {
    /// The tournament as shown: its bots' seeds only once it is over.
    fn from(tournament: stored::Tournament) -> TournamentView {
        let reveal = tournament.status.is_over();
        TournamentView {
            id: tournament.id,
            name: tournament.name,
            status: tournament.status.into(),
            version: tournament.version,
            created_at: time(tournament.created_at),
            updated_at: time(tournament.updated_at),
            start_position: tournament.start_position,
            players: tournament.players,
            format: tournament.format.into(),
            games_per_pairing: tournament.games_per_pairing,
            move_ms: tournament.move_ms,
            max_timeouts: tournament.max_timeouts,
            concurrency: tournament.concurrency,
            points: tournament.points.into(),
            entrants: tournament
                .entrants
                .iter()
                .map(|entrant| EntrantView::shown(entrant, reveal))
                .collect(),
            games: tournament.games.into(),
        }
    }
}

/// An open entrant's token, shown once.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantToken {
    /// The entrant's number.
    pub entrant: usize,
    /// Display name.
    pub name: String,
    /// 64 hexadecimal digits: `Authorization: Bearer <token>` for
    /// `GET /v1/tournaments/{id}/turns` and for moves in its games.
    #[schema(example = "3f1a9c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a")]
    pub token: String,
}

impl From<plan::EntrantToken> for EntrantToken {
    fn from(token: plan::EntrantToken) -> EntrantToken {
        EntrantToken {
            entrant: token.entrant,
            name: token.name,
            token: token.token,
        }
    }
}

/// A created tournament with its tokens: shown only this once.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedTournament {
    /// The tournament.
    pub tournament: TournamentView,
    /// Starts, pauses, abandons the tournament and abandons its games.
    pub admin_token: String,
    /// One token per open entrant.
    pub entrant_tokens: Vec<EntrantToken>,
}

/// A page of tournaments.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentList {
    /// Newest first.
    pub tournaments: Vec<TournamentView>,
    /// Pass as `before` for the next page; `null` on the last.
    pub next_before: Option<i64>,
}

impl From<stored::TournamentPage> for TournamentList {
    fn from(page: stored::TournamentPage) -> TournamentList {
        TournamentList {
            tournaments: page.tournaments.into_iter().map(Into::into).collect(),
            next_before: page.next_before,
        }
    }
}
