//! Wire types of tournaments.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::bots::BotSpec;
use crate::matches::dto::{Ending, SeatKind};
use crate::tournaments::schedule::Format;
use crate::tournaments::standings::{Points, Standings};
use sternhalma::wire::schema::PlyCount;
use sternhalma::wire::view::{MoveView, PositionView, RulesInput};
use sternhalma::wire::whole::Object;

/// The per-move time limit of an open entrant when none is given.
pub const DEFAULT_MOVE_MS: u32 = 10_000;
/// The longest per-move time limit.
pub const MAX_MOVE_MS: u32 = 600_000;
/// The shortest per-move time limit.
pub const MIN_MOVE_MS: u32 = 100;
/// Timeouts in one game after which an entrant forfeits it, by default.
pub const DEFAULT_MAX_TIMEOUTS: u32 = 3;
/// Games played at once, by default.
pub const DEFAULT_CONCURRENCY: u32 = 4;
/// The most games played at once.
pub const MAX_CONCURRENCY: u32 = 64;
/// The most entrants in a tournament.
pub const MAX_ENTRANTS: usize = 64;
/// The most games in a tournament's schedule.
pub const MAX_GAMES: usize = 10_000;

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

impl TournamentStatus {
    /// The name stored and shown.
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

/// An entrant in the creation request: a name, and a bot for a built-in
/// bot (without one, an open entrant that plays through its token).
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "ada"}))]
pub struct EntrantRequest {
    /// Display name, 1 to 40 characters, unique in the tournament.
    #[schema(example = "ada")]
    pub name: String,
    /// A built-in bot (its `seed` is drawn at random when absent).
    #[schema(value_type = Option<BotSpec>)]
    pub bot: Option<Object<BotSpec>>,
}

/// What `POST /v1/tournaments` reads (the game fields are taken by the
/// core's reader, as for matches).
#[derive(Clone, Debug, Deserialize)]
pub struct NewTournamentRequest {
    /// Display name.
    pub name: Option<String>,
    /// The format.
    pub format: Option<Format>,
    /// Games per group of entrants.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub games_per_pairing: Option<u32>,
    /// The gauntlet's reference bot.
    pub reference: Option<Object<BotSpec>>,
    /// Per-move time limit.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub move_ms: Option<u32>,
    /// Timeouts before a forfeit.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub max_timeouts: Option<u32>,
    /// Games at once.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub concurrency: Option<u32>,
    /// Points per opponent.
    pub points: Option<Points>,
    /// The entrants.
    pub entrants: Vec<Object<EntrantRequest>>,
    /// Start at once.
    pub start: Option<bool>,
    /// The move limit (`null`: none; absent: the program's default).
    #[serde(default, deserialize_with = "sternhalma::wire::whole::nullable")]
    pub max_plies: Option<Option<u32>>,
    /// Board, layout, rules, first player.
    #[serde(flatten)]
    pub game: serde_json::Map<String, serde_json::Value>,
}

/// A new tournament: the game as for `POST /v1/positions` (board, layout,
/// rules, first player) and `max_plies` as for matches, the format, the
/// entrants, and the clock. The layout's player count is the number of
/// players per game (2 to 6).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({
    "name": "Class 3B",
    "board": "star4",
    "layout": "2",
    "rules": "classic",
    "format": "round_robin",
    "games_per_pairing": 2,
    "move_ms": 10000,
    "entrants": [{"name": "ada"}, {"name": "grace"}, {"name": "greedy", "bot": {"kind": "greedy"}}]
}))]
pub struct NewTournament {
    /// Display name (default `tournament`).
    #[schema(example = "Class 3B")]
    pub name: Option<String>,
    /// Board name (default `star4`).
    #[schema(example = "star4")]
    pub board: Option<String>,
    /// Layout (default `2`): its player count is the players per game.
    #[schema(example = "2")]
    pub layout: Option<String>,
    /// Rules: a preset name, an object of options, or a preset with
    /// overrides (default `classic`).
    pub rules: Option<RulesInput>,
    /// The first player (default 0).
    pub first_player: Option<usize>,
    /// The move limit per game: `null` for none; absent, the program's
    /// default for the board and layout (as for matches).
    #[schema(value_type = Option<u64>, nullable, minimum = 0, maximum = 4294967295.0, example = 400)]
    pub max_plies: Option<u64>,
    /// `round_robin` (default): every group of entrants plays
    /// `games_per_pairing` games, seats rotated; `gauntlet`: every entrant
    /// plays `games_per_pairing` games against `reference`.
    pub format: Option<Format>,
    /// Games per group (per entrant for a gauntlet); default: the players
    /// per game, so that every entrant plays every start position once.
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1000)]
    pub games_per_pairing: Option<u32>,
    /// The gauntlet's reference bot (default `{"kind": "greedy"}`); it
    /// takes every seat but the entrant's. Only for a gauntlet.
    pub reference: Option<BotSpec>,
    /// An open entrant's time per move, in milliseconds (default 10000,
    /// 100 to 600000). Missed: a timeout, and the greedy bot's move is
    /// played for it.
    #[schema(value_type = Option<u64>, minimum = 100, maximum = 600000)]
    pub move_ms: Option<u32>,
    /// Timeouts in one game after which the entrant forfeits it (default 3,
    /// 1 to 100).
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 100)]
    pub max_timeouts: Option<u32>,
    /// Games played at once (default 4, 1 to 64).
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 64)]
    pub concurrency: Option<u32>,
    /// Points per opponent (default win 1, draw 0.5, loss 0).
    pub points: Option<Points>,
    /// Start at once (default false: the admin token starts it).
    pub start: Option<bool>,
    /// The entrants (2 to 64; at least the players per game for a round
    /// robin).
    pub entrants: Vec<EntrantRequest>,
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

/// Where a game of the schedule stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Not started.
    Pending,
    /// Its match is under way.
    InProgress,
    /// Over with a result.
    Finished,
    /// Over without a result.
    Abandoned,
}

/// A seat of a tournament game.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GameSeat {
    /// The seat (player index).
    pub seat: usize,
    /// The entrant in it.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Timeouts it had in this game.
    pub timeouts: u32,
    /// Whether it forfeited this game (too many timeouts).
    pub forfeited: bool,
}

/// A place in a game's result, by entrant.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PlaceView {
    /// 1 for the best; equal results share a place.
    pub place: usize,
    /// The seat.
    pub seat: usize,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// The seat's result (as in the match's `result.results`).
    pub result: f64,
}

/// A game's result, naming entrants.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GameResult {
    /// How the match ended.
    pub ending: Ending,
    /// In words, with names.
    #[schema(example = "ada won")]
    pub summary: String,
    /// Every seat, best first.
    pub places: Vec<PlaceView>,
}

/// A game of the schedule.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentGame {
    /// Its number in the schedule.
    pub game: usize,
    /// Where it stands.
    pub status: GameStatus,
    /// The match that plays it, once started (`/v1/matches/{id}`).
    pub match_id: Option<i64>,
    /// The seats.
    pub seats: Vec<GameSeat>,
    /// The result, once finished.
    pub result: Option<GameResult>,
}

/// A tournament's schedule.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentGames {
    /// The tournament.
    pub tournament_id: i64,
    /// Every game, in schedule order.
    pub games: Vec<TournamentGame>,
}

/// A game waiting for an entrant's move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Turn {
    /// The match: post the move to `/v1/matches/{match_id}/moves` with the
    /// entrant token.
    pub match_id: i64,
    /// The game's number in the schedule.
    pub game: usize,
    /// The entrant's seat.
    pub seat: usize,
    /// The ply to name in the move.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// The position.
    pub position: PositionView,
    /// Every legal move.
    pub legal_moves: Vec<MoveView>,
    /// Milliseconds left before a timeout, as the server counts them.
    pub deadline_ms: Option<u64>,
    /// Timeouts the entrant has had in this game.
    pub timeouts: u32,
}

/// An entrant's games waiting for its move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantTurns {
    /// The tournament.
    pub tournament_id: i64,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Where the tournament stands.
    pub status: TournamentStatus,
    /// True when the entrant has no game left to play (or the tournament
    /// is over): stop polling.
    pub done: bool,
    /// The games waiting for its move now (empty at a timeout).
    pub turns: Vec<Turn>,
}

/// A seat of a game that starts, for events.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventSeat {
    /// The seat.
    pub seat: usize,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
}

/// An event of `GET /v1/tournaments/{id}/events`: the SSE `event` field is
/// its `type`, the `data` field this object as JSON.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentEvent {
    /// The tournament's state: the first event of every stream, and again
    /// at each change of status.
    Tournament {
        /// The tournament.
        tournament: Box<TournamentView>,
    },
    /// A game started.
    GameStarted {
        /// Its number.
        game: usize,
        /// Its match.
        match_id: i64,
        /// Who sits where.
        seats: Vec<EventSeat>,
    },
    /// A move was stored.
    Move {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// The ply it was played at.
        ply: u32,
        /// The seat that played it.
        seat: usize,
        /// The entrant in that seat.
        entrant: usize,
        /// Its path (`95-75-57`) or `pass`.
        #[serde(rename = "move")]
        text: String,
    },
    /// An entrant missed its deadline.
    Timeout {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// The ply.
        ply: u32,
        /// The seat.
        seat: usize,
        /// The entrant.
        entrant: usize,
        /// Its timeouts in this game so far.
        timeouts: u32,
        /// Whether it forfeited the game with this one.
        forfeited: bool,
    },
    /// A game ended.
    GameOver {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// `finished` or `abandoned`.
        status: GameStatus,
        /// The result (none for an abandoned game).
        result: Option<GameResult>,
    },
    /// The standings after a game ended.
    Standings {
        /// The standings.
        standings: Box<Standings>,
    },
    /// An open entrant connected (began asking for its turns), went away
    /// (its last long-poll ended), came back from being absent, or was
    /// marked absent.
    Presence {
        /// The entrant.
        entrant: usize,
        /// Its presence now.
        presence: Presence,
    },
    /// The stream fell behind and skipped events: read the state again.
    Lagged {
        /// Events skipped.
        skipped: u64,
    },
}

impl TournamentEvent {
    /// The SSE `event` name.
    pub fn name(&self) -> &'static str {
        match self {
            TournamentEvent::Tournament { .. } => "tournament",
            TournamentEvent::GameStarted { .. } => "game_started",
            TournamentEvent::Move { .. } => "move",
            TournamentEvent::Timeout { .. } => "timeout",
            TournamentEvent::GameOver { .. } => "game_over",
            TournamentEvent::Standings { .. } => "standings",
            TournamentEvent::Presence { .. } => "presence",
            TournamentEvent::Lagged { .. } => "lagged",
        }
    }
}

/// One event of the stream as SSE frames it: `event: <type>` and
/// `data: <the JSON of a TournamentEvent>`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[allow(dead_code)]
#[schema(example = json!({"event": "move", "data": "{\"type\":\"move\",\"game\":0,\"match_id\":7,\"ply\":0,\"seat\":0,\"entrant\":1,\"move\":\"22-19\"}"}))]
pub struct TournamentSseEvent {
    /// The event's type: `tournament`, `game_started`, `move`, `timeout`,
    /// `game_over`, `standings` or `lagged`.
    #[schema(example = "move")]
    pub event: String,
    /// The event as JSON: a `TournamentEvent` whose `type` is `event`.
    pub data: String,
}
