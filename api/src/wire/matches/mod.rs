//! What the `/v1/matches` routes take and answer, built from the store's
//! matches (`sternhalma_store::matches::model`): the JSON here, a result
//! with its words and the legend under a finished match's picture in
//! `results.rs`.

mod results;

pub use results::{Forfeit, MatchResult, Place, forfeit_words, legend, summary};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire::bots::{BotSpec, SeatKind, shown_bot};
use crate::wire::time;
use sternhalma::wire::schema::{PlayerIndex, PlyCount};
use sternhalma::wire::view::{MoveInput, MoveView, PositionView, RulesInput};
use sternhalma::wire::whole::Object;
use sternhalma_store::matches::model::{self as model, Seat};
use sternhalma_store::matches::status as stored;

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Moves are being played.
    InProgress,
    /// Over: the game reached its outcome, or a seat resigned or forfeited.
    Finished,
    /// Stopped by its creator (admin token), or by the server when its
    /// bots could not finish the game.
    Abandoned,
}

impl From<MatchStatus> for stored::MatchStatus {
    fn from(status: MatchStatus) -> stored::MatchStatus {
        match status {
            MatchStatus::InProgress => stored::MatchStatus::InProgress,
            MatchStatus::Finished => stored::MatchStatus::Finished,
            MatchStatus::Abandoned => stored::MatchStatus::Abandoned,
        }
    }
}

impl From<stored::MatchStatus> for MatchStatus {
    fn from(status: stored::MatchStatus) -> MatchStatus {
        match status {
            stored::MatchStatus::InProgress => MatchStatus::InProgress,
            stored::MatchStatus::Finished => MatchStatus::Finished,
            stored::MatchStatus::Abandoned => MatchStatus::Abandoned,
        }
    }
}

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The game reached its outcome on the board (won, tie, ranking, draw).
    Outcome,
    /// A seat resigned: it is last, every other seat shares first place.
    Resignation,
    /// A seat forfeited (in a tournament: too many timeouts in the game,
    /// or its entrant was withdrawn): scored as a resignation, it is last
    /// and every other seat shares first place. (With three or more seats
    /// a forfeiter leaves the game as a resigner does and the others play
    /// on; the match then ends by its `outcome`, with the forfeit in the
    /// result's `forfeits`.)
    Forfeit,
    /// The creator abandoned it: no result (every result 0).
    Abandoned,
    /// Only bots were left to move and they did not finish within the
    /// server's limit of plies per request: abandoned, every result 0.
    BotLimit,
    /// The built-in bot to move could not (a `perfect` seat on a server
    /// that no longer has its game's table): abandoned, every result 0;
    /// `resigned_seat` names the bot's seat. No other bot plays in its
    /// place.
    BotUnavailable,
}

impl From<stored::Ending> for Ending {
    fn from(ending: stored::Ending) -> Ending {
        match ending {
            stored::Ending::Outcome => Ending::Outcome,
            stored::Ending::Resignation => Ending::Resignation,
            stored::Ending::Forfeit => Ending::Forfeit,
            stored::Ending::Abandoned => Ending::Abandoned,
            stored::Ending::BotLimit => Ending::BotLimit,
            stored::Ending::BotUnavailable => Ending::BotUnavailable,
        }
    }
}

/// Why a seat forfeited a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// It missed its deadline the tournament's `max_timeouts` times in the
    /// game.
    Timeouts,
    /// Its entrant was withdrawn from the tournament by the organiser.
    Withdrawn,
    /// Its entrant is absent (it missed its deadline `max_timeouts` times
    /// in a row, over its games, and has not asked for its turns since):
    /// its turn was forfeited at once.
    Absent,
}

impl From<stored::ForfeitReason> for ForfeitReason {
    fn from(reason: stored::ForfeitReason) -> ForfeitReason {
        match reason {
            stored::ForfeitReason::Timeouts => ForfeitReason::Timeouts,
            stored::ForfeitReason::Withdrawn => ForfeitReason::Withdrawn,
            stored::ForfeitReason::Absent => ForfeitReason::Absent,
        }
    }
}

/// One seat of a new match, in turn order (seat `n` plays player `n`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "randy", "bot": {"kind": "random", "seed": 7}}))]
pub struct SeatRequest {
    /// A display name for leaderboards (not a person's name is needed): 1
    /// to 40 characters, no control characters; default `seat <n>`.
    #[schema(example = "alice")]
    pub name: Option<String>,
    /// A built-in bot plays this seat. Absent: an open seat, played by a
    /// remote client holding the seat's token.
    #[schema(value_type = Option<BotSpec>)]
    pub bot: Option<Object<BotSpec>>,
}

/// A match to create, as read: the seats, and the game's fields (read by
/// `sternhalma::wire::new_game`, which refuses unknown fields).
#[derive(Clone, Debug, Deserialize)]
pub struct NewMatchRequest {
    /// One seat per player of the layout.
    pub seats: Vec<Object<SeatRequest>>,
    /// The move limit: absent for the default, `null` for none.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::nullable")]
    pub max_plies: Option<Option<u32>>,
    /// `board`, `layout`, `rules`, `first_player`.
    #[serde(flatten)]
    pub game: serde_json::Map<String, serde_json::Value>,
}

/// A match to create: the game (as `POST /v1/positions` takes it) and one
/// entry per player. (The schema of the body; `NewMatchRequest` reads it.)
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({
    "board": "rhombus5p3",
    "layout": "2",
    "rules": "classic",
    "seats": [{"name": "alice"}, {"name": "randy", "bot": {"kind": "random", "seed": 7}}]
}))]
pub struct NewMatch {
    /// The board; by default that of the rules' preset.
    #[schema(example = "rhombus5p3")]
    pub board: Option<String>,
    /// The players and their sets (`2`, `3`, `2x3`, ...); default `2`.
    #[schema(example = "2")]
    pub layout: Option<String>,
    /// The rules (preset plus overrides); default `classic`.
    pub rules: Option<RulesInput>,
    /// Who moves first (0-based); default 0.
    #[schema(value_type = Option<PlayerIndex>)]
    pub first_player: Option<usize>,
    /// The move limit in plies, after which the game is a draw (the
    /// result ranks the seats by progress as a tie-break). Absent: the
    /// rules' own limit, or else 200 turns for each player, so that a game
    /// between bots always ends; `null`: no limit.
    #[schema(value_type = Option<u64>, nullable, minimum = 0, maximum = 4294967295.0, example = 400)]
    pub max_plies: Option<u64>,
    /// One seat per player of the layout, in player order; at least one
    /// open (not a bot).
    #[schema(value_type = Vec<SeatRequest>)]
    pub seats: Vec<Object<SeatRequest>>,
}

/// A seat of a match.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat number, which is the player index (0-based).
    pub seat: usize,
    /// Its display name.
    #[schema(example = "alice")]
    pub name: String,
    /// Who plays it.
    pub kind: SeatKind,
    /// The bot, for a bot seat. Its `seed` is shown only once the match is
    /// over: with it, anyone could compute the bot's next move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
}

impl SeatView {
    /// `seat` as shown: its bot's seed only when `reveal` (the match is
    /// over).
    pub fn new(seat: &Seat, reveal: bool) -> SeatView {
        let (kind, bot) = shown_bot(seat.bot.as_ref(), reveal);
        SeatView {
            seat: seat.seat,
            name: seat.name.clone(),
            kind,
            bot,
        }
    }
}

/// The state of a stored match: seats, the current position, its legal
/// moves, and the result once over.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchView {
    /// The match id.
    #[schema(example = 1)]
    pub id: i64,
    /// Where it stands.
    pub status: MatchStatus,
    /// Grows by one with every change (move, resignation, abandonment); the
    /// `ETag` is made from it.
    #[schema(example = 3)]
    pub version: i64,
    /// When it was created (UTC, RFC 3339).
    #[schema(example = "2026-11-22T09:00:00.000Z")]
    pub created_at: String,
    /// When it last changed (UTC, RFC 3339).
    #[schema(example = "2026-11-22T09:00:05.250Z")]
    pub updated_at: String,
    /// Its seats, in player order.
    pub seats: Vec<SeatView>,
    /// Plies played so far: the `ply` the next move must name.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// The seat to move, while in progress.
    pub to_move: Option<usize>,
    /// The start position string (the `start` of the export).
    #[schema(example = "rhombus5p3 classic south:20-24/north:0-4 0 0 -")]
    pub start_position: String,
    /// The current position, with the board's outcome (which stays
    /// `in_progress` after a resignation or abandonment: see `result`).
    pub position: PositionView,
    /// The legal moves of the seat to move (empty once over).
    pub legal_moves: Vec<MoveView>,
    /// The result, once the match is over.
    pub result: Option<MatchResult>,
}

impl From<&model::Match> for MatchView {
    fn from(stored: &model::Match) -> MatchView {
        let position = &stored.position;
        let in_progress = stored.in_progress();
        MatchView {
            id: stored.id,
            status: stored.status.into(),
            version: stored.version,
            created_at: time(stored.created_at),
            updated_at: time(stored.updated_at),
            seats: stored
                .seats
                .iter()
                .map(|s| SeatView::new(s, !in_progress))
                .collect(),
            ply: stored.ply,
            to_move: stored.to_move(),
            start_position: stored.start_position.clone(),
            position: PositionView::from(position),
            legal_moves: if in_progress {
                position
                    .legal_moves()
                    .into_iter()
                    .map(|mv| MoveView::new(position, mv))
                    .collect()
            } else {
                Vec::new()
            },
            result: stored
                .result
                .as_ref()
                .map(|r| MatchResult::new(r, &stored.seats, position)),
        }
    }
}

/// A seat's secret token, given once.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatToken {
    /// The seat.
    pub seat: usize,
    /// Its name.
    pub name: String,
    /// The token: send it as `Authorization: Bearer <token>` to play the
    /// seat. Shown only in this answer; the server keeps only its hash.
    #[schema(example = "3f1a9c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a")]
    pub token: String,
}

/// A new match: its state and, once only, its tokens.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedMatch {
    /// The match.
    #[serde(rename = "match")]
    pub state: MatchView,
    /// The creator's token: it can abandon the match.
    #[schema(example = "9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a3f1a9c0e5b7d2f4a6c8e0b1d3f5a7c")]
    pub admin_token: String,
    /// One token per open seat.
    pub seat_tokens: Vec<SeatToken>,
}

/// A move submitted for the caller's seat.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"ply": 0, "move": "20-15"}))]
pub struct MoveSubmission {
    /// The ply the client expects to play: the match's current `ply`. Any
    /// other value is a 409 `stale_ply` (someone else moved first).
    #[serde(deserialize_with = "sternhalma::wire::whole::one")]
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// The move: text, ends or full path.
    #[serde(rename = "move")]
    pub mv: MoveInput,
}

/// One stored move.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MoveRecord {
    /// The ply it was played at (0 for the first move).
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// The seat that played it.
    pub seat: usize,
    /// The move, with the path as stored.
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// When the server stored it (UTC, RFC 3339).
    #[schema(example = "2026-11-22T09:00:05.250Z")]
    pub played_at: String,
}

impl From<&model::PlayedMove> for MoveRecord {
    fn from(stored: &model::PlayedMove) -> MoveRecord {
        MoveRecord {
            ply: stored.ply,
            seat: stored.seat,
            mv: MoveView::from(&stored.played),
            played_at: time(stored.played_at),
        }
    }
}

/// An accepted move: what was played (the caller's move, then any bot
/// replies) and the new state.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MovesAccepted {
    /// The moves stored by this request, in order.
    pub played: Vec<MoveRecord>,
    /// The match after them.
    #[serde(rename = "match")]
    pub state: MatchView,
}

/// The full move history of a match.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct History {
    /// The match id.
    pub match_id: i64,
    /// The start position string.
    pub start_position: String,
    /// Every move, in order.
    pub moves: Vec<MoveRecord>,
}

impl From<&model::History> for History {
    fn from(stored: &model::History) -> History {
        History {
            match_id: stored.match_id,
            start_position: stored.start_position.clone(),
            moves: stored.moves.iter().map(MoveRecord::from).collect(),
        }
    }
}

/// A match as a game record: exactly the body `POST /v1/replay` takes.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"start": "rhombus5p3 classic south:20-24/north:0-4 0 0 -", "moves": ["20-15", "4-9"]}))]
pub struct ExportedGame {
    /// The start position string.
    pub start: String,
    /// The move texts, in order (full paths for hops).
    pub moves: Vec<String>,
    /// Seats that resigned a game of three or more, with the ply at which
    /// each did (absent when none did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resigned: Vec<sternhalma::Resignation>,
}

impl From<model::GameRecord> for ExportedGame {
    fn from(record: model::GameRecord) -> ExportedGame {
        ExportedGame {
            start: record.start,
            moves: record.moves,
            resigned: record.resigned,
        }
    }
}

/// A match in the list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchSummary {
    /// The match id.
    pub id: i64,
    /// Where it stands.
    pub status: MatchStatus,
    /// How it ended, once over.
    pub ending: Option<Ending>,
    /// Plies played.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// Its seats.
    pub seats: Vec<SeatView>,
    /// The start position string.
    pub start_position: String,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// The result, once over (as in the match's state; seat names in
    /// `seats`).
    pub result: Option<MatchResult>,
}

impl From<&model::Match> for MatchSummary {
    fn from(stored: &model::Match) -> MatchSummary {
        let reveal = !stored.in_progress();
        MatchSummary {
            id: stored.id,
            status: stored.status.into(),
            ending: stored.ending.map(Ending::from),
            ply: stored.ply,
            seats: stored
                .seats
                .iter()
                .map(|s| SeatView::new(s, reveal))
                .collect(),
            start_position: stored.start_position.clone(),
            created_at: time(stored.created_at),
            updated_at: time(stored.updated_at),
            result: stored
                .result
                .as_ref()
                .map(|r| MatchResult::new(r, &stored.seats, &stored.position)),
        }
    }
}

/// A page of matches, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchList {
    /// The matches.
    pub matches: Vec<MatchSummary>,
    /// Pass as `before` for the next page; absent on the last page.
    pub next_before: Option<i64>,
}

impl From<&model::MatchPage> for MatchList {
    fn from(page: &model::MatchPage) -> MatchList {
        MatchList {
            matches: page.matches.iter().map(MatchSummary::from).collect(),
            next_before: page.next_before,
        }
    }
}
