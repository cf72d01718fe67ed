//! Wire types of stored matches.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::bots::BotSpec;
pub use crate::matches::status::{Ending, ForfeitReason, MatchStatus};
use sternhalma::wire::schema::{PlayerIndex, PlyCount};
use sternhalma::wire::view::{MoveInput, MoveView, PositionView, RulesInput};
use sternhalma::wire::whole::Object;

/// The longest seat name, in characters.
pub const MAX_NAME_CHARS: usize = 40;

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
    "board": "rhombus5x2",
    "layout": "2",
    "rules": "classic",
    "seats": [{"name": "alice"}, {"name": "randy", "bot": {"kind": "random", "seed": 7}}]
}))]
pub struct NewMatch {
    /// The board; by default that of the rules' preset.
    #[schema(example = "rhombus5x2")]
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

/// Who holds a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// A remote client with the seat's token.
    Open,
    /// A built-in bot of the server.
    Bot,
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

/// The result of a match that is over.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchResult {
    /// How it ended.
    pub ending: Ending,
    /// The seat that resigned, for a resignation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resigned_seat: Option<usize>,
    /// The seat that forfeited, for a forfeit (its details in `forfeits`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeited_seat: Option<usize>,
    /// Every seat that forfeited, with when and why: the forfeiter of a
    /// `forfeit` ending, and in a game of three or more those that left it
    /// by a forfeit while the others played on (absent when none did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<Forfeit>,
    /// The seats in first place (empty for a draw or an abandoned match).
    pub winners: Vec<usize>,
    /// Each seat's result, as the outcome's `results`: +1 best, -1 worst.
    pub results: Vec<f64>,
    /// For a draw, why: `move_limit` (the game reached `max_plies`) or
    /// `no_moves`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<sternhalma::DrawReason>,
    /// For a draw by the move limit, the tie-break: the seats ranked by
    /// progress, best first (finished first, then more pegs home, then less
    /// distance to their targets); seats in one entry share the rank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_progress: Option<Vec<Vec<usize>>>,
    /// The result in words.
    #[schema(example = "player 0 won")]
    pub summary: String,
    /// Every seat by place, best first, with its name (empty for an
    /// abandoned match).
    pub places: Vec<Place>,
}

/// A seat's forfeit of a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 0, "ply": 17, "reason": "timeouts", "timeouts": 3}))]
pub struct Forfeit {
    /// The seat.
    pub seat: usize,
    /// Plies played when it forfeited.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// Why.
    pub reason: ForfeitReason,
    /// For `timeouts`, how many it had in the game (the tournament's
    /// `max_timeouts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<u32>,
}

impl Forfeit {
    /// What it says after the seat's name: `forfeited (3 timeouts)`.
    pub fn words(&self) -> String {
        match (self.reason, self.timeouts) {
            (ForfeitReason::Timeouts, Some(1)) => "forfeited (1 timeout)".to_owned(),
            (ForfeitReason::Timeouts, Some(n)) => format!("forfeited ({n} timeouts)"),
            (ForfeitReason::Timeouts, None) => "forfeited (timeouts)".to_owned(),
            (ForfeitReason::Withdrawn, _) => "forfeited (withdrawn)".to_owned(),
            (ForfeitReason::Absent, _) => "forfeited (absent)".to_owned(),
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
    #[schema(example = "rhombus5x2 classic south:20-24/north:0-4 0 0 -")]
    pub start_position: String,
    /// The current position, with the board's outcome (which stays
    /// `in_progress` after a resignation or abandonment: see `result`).
    pub position: PositionView,
    /// The legal moves of the seat to move (empty once over).
    pub legal_moves: Vec<MoveView>,
    /// The result, once the match is over.
    pub result: Option<MatchResult>,
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

/// A match as a game record: exactly the body `POST /v1/replay` takes.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"start": "rhombus5x2 classic south:20-24/north:0-4 0 0 -", "moves": ["20-15", "4-9"]}))]
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

/// A page of matches, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchList {
    /// The matches.
    pub matches: Vec<MatchSummary>,
    /// Pass as `before` for the next page; absent on the last page.
    pub next_before: Option<i64>,
}

/// A seat's place in a match's result.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Place {
    /// 1 for the best; equal results share a place.
    pub place: usize,
    /// The seat.
    pub seat: usize,
    /// The seat's name (in a tournament, the entrant's).
    #[schema(example = "ada")]
    pub name: String,
    /// The seat's result (as in `results`).
    pub result: f64,
}
