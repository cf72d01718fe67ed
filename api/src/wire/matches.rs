//! What the `/v1/matches` routes take and answer, built from the store's
//! matches (`sternhalma_store::matches::model`): the JSON, a result's
//! words, the legend under a finished match's picture.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire::bots::{BotSpec, SeatKind, shown_bot};
use crate::wire::time;
use sternhalma::wire::schema::{PlayerIndex, PlyCount};
use sternhalma::wire::view::{MoveInput, MoveView, PositionView, RulesInput};
use sternhalma::wire::whole::Object;
use sternhalma::{DrawReason, Position};
use sternhalma_store::matches::game::MAX_BOT_PLIES;
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

impl MatchResult {
    /// `result`, of a match with `seats` whose last position is
    /// `position`, with its words.
    pub fn new(result: &model::MatchResult, seats: &[Seat], position: &Position) -> MatchResult {
        MatchResult {
            ending: result.ending.into(),
            resigned_seat: result.resigned_seat,
            forfeited_seat: result.forfeited_seat,
            forfeits: result.forfeits.iter().map(Forfeit::from).collect(),
            winners: result.winners.clone(),
            results: result.results.clone(),
            reason: result.reason,
            by_progress: result.by_progress.clone(),
            summary: summary(result, seats, position),
            places: result.places.iter().map(Place::from).collect(),
        }
    }
}

/// ` (name)` of seat `seat`, or nothing for a seat the match lacks.
fn named(seats: &[Seat], seat: usize) -> String {
    seats
        .get(seat)
        .map_or_else(String::new, |s| format!(" ({})", s.name))
}

/// What a forfeit says after the seat's name: `forfeited (3 timeouts)`.
pub fn forfeit_words(forfeit: &model::Forfeit) -> String {
    match (forfeit.reason, forfeit.timeouts) {
        (stored::ForfeitReason::Timeouts, Some(1)) => "forfeited (1 timeout)".to_owned(),
        (stored::ForfeitReason::Timeouts, Some(n)) => format!("forfeited ({n} timeouts)"),
        (stored::ForfeitReason::Timeouts, None) => "forfeited (timeouts)".to_owned(),
        (stored::ForfeitReason::Withdrawn, _) => "forfeited (withdrawn)".to_owned(),
        (stored::ForfeitReason::Absent, _) => "forfeited (absent)".to_owned(),
    }
}

/// A result in words: the board's outcome (`player 0 won`, with the move
/// limit of a draw by it, and the seats that left by a forfeit), a
/// resignation's or a forfeit's (`seat 1 (ada) forfeited (3 timeouts)`),
/// or why the match was abandoned.
pub fn summary(result: &model::MatchResult, seats: &[Seat], position: &Position) -> String {
    match result.ending {
        stored::Ending::Outcome => {
            let outcome = position.outcome();
            let mut summary = match result.reason {
                Some(DrawReason::MoveLimit) => format!(
                    "{outcome} ({} plies)",
                    position.rules().max_plies.unwrap_or(u32::MAX)
                ),
                _ => outcome.to_string(),
            };
            // Seats that left by a forfeit while the others played on.
            for forfeit in &result.forfeits {
                summary.push_str(&format!(
                    "; seat {}{} {}",
                    forfeit.seat,
                    named(seats, forfeit.seat),
                    forfeit_words(forfeit)
                ));
            }
            summary
        }
        stored::Ending::Resignation | stored::Ending::Forfeit => {
            let left = result.resigned_seat.or(result.forfeited_seat).unwrap_or(0);
            let how = match result.forfeits.iter().find(|f| f.seat == left) {
                _ if result.ending == stored::Ending::Resignation => "resigned".to_owned(),
                Some(forfeit) => forfeit_words(forfeit),
                None => "forfeited".to_owned(),
            };
            format!("seat {left}{} {how}", named(seats, left))
        }
        stored::Ending::BotLimit => {
            format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
        }
        stored::Ending::BotUnavailable => match result.unavailable_seat {
            Some(seat) => format!(
                "abandoned: the bot of seat {seat}{} could not move on this server",
                named(seats, seat)
            ),
            None => "abandoned: a bot could not move".to_owned(),
        },
        stored::Ending::Abandoned => "abandoned by its creator".to_owned(),
    }
}

/// The legend under the picture of a match that is over, at its last
/// position: how it ended (`finished: seat 1 won; seat 0 forfeited (3
/// timeouts)`), where the position alone would still name a player to
/// move after a resignation, a forfeit or an abandonment. Seats by number
/// (the winners' colours lead it), so that names do not widen the picture.
pub fn legend(
    result: &model::MatchResult,
    seats: &[Seat],
    position: &Position,
) -> sternhalma::Legend {
    if result.ending.status() == stored::MatchStatus::Abandoned {
        return sternhalma::Legend {
            players: Vec::new(),
            text: summary(result, seats, position),
        };
    }
    let mut parts = Vec::new();
    match result.winners.as_slice() {
        [] if result.ending == stored::Ending::Outcome => {
            parts.push(position.outcome().to_string());
        }
        [] => {}
        [winner] => parts.push(format!("seat {winner} won")),
        winners => parts.push(format!(
            "seats {} share first place",
            winners
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    if let Some(seat) = result.resigned_seat {
        parts.push(format!("seat {seat} resigned"));
    }
    if result.ending == stored::Ending::Outcome {
        // Seats that resigned a game of three or more (forfeits below).
        for resignation in position.resignations() {
            if !result.forfeits.iter().any(|f| f.seat == resignation.player) {
                parts.push(format!("seat {} resigned", resignation.player));
            }
        }
    }
    for forfeit in &result.forfeits {
        parts.push(format!("seat {} {}", forfeit.seat, forfeit_words(forfeit)));
    }
    sternhalma::Legend {
        players: result.winners.clone(),
        text: format!("finished: {}", parts.join("; ")),
    }
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

impl From<&model::Forfeit> for Forfeit {
    fn from(forfeit: &model::Forfeit) -> Forfeit {
        Forfeit {
            seat: forfeit.seat,
            ply: forfeit.ply,
            reason: forfeit.reason.into(),
            timeouts: forfeit.timeouts,
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

impl From<&model::Place> for Place {
    fn from(place: &model::Place) -> Place {
        Place {
            place: place.place,
            seat: place.seat,
            name: place.name.clone(),
            result: place.result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sternhalma_store::matches::model::{Forfeit as StoredForfeit, MatchResult as Stored};

    fn seats(names: &[&str]) -> Vec<Seat> {
        names
            .iter()
            .enumerate()
            .map(|(seat, name)| Seat {
                seat,
                name: (*name).to_owned(),
                bot: None,
            })
            .collect()
    }

    fn ended(ending: stored::Ending) -> Stored {
        Stored {
            ending,
            resigned_seat: None,
            forfeited_seat: None,
            unavailable_seat: None,
            forfeits: Vec::new(),
            winners: Vec::new(),
            results: vec![0.0, 0.0],
            reason: None,
            by_progress: None,
            places: Vec::new(),
        }
    }

    fn start() -> Position {
        "rhombus5x2 classic south:22-24/north:0-2 0 0 -"
            .parse()
            .unwrap()
    }

    fn timeouts(seat: usize, n: u32) -> StoredForfeit {
        StoredForfeit {
            seat,
            ply: 4,
            reason: stored::ForfeitReason::Timeouts,
            timeouts: Some(n),
        }
    }

    #[test]
    fn a_resignation_and_a_forfeit_name_the_seat_that_left() {
        let names = seats(&["ada", "bea"]);
        let resigned = Stored {
            resigned_seat: Some(1),
            winners: vec![0],
            results: vec![1.0, -1.0],
            ..ended(stored::Ending::Resignation)
        };
        assert_eq!(
            summary(&resigned, &names, &start()),
            "seat 1 (bea) resigned"
        );
        let shown = legend(&resigned, &names, &start());
        assert_eq!(
            (shown.players, shown.text.as_str()),
            (vec![0], "finished: seat 0 won; seat 1 resigned")
        );

        let forfeited = Stored {
            forfeited_seat: Some(0),
            forfeits: vec![timeouts(0, 3)],
            winners: vec![1],
            results: vec![-1.0, 1.0],
            ..ended(stored::Ending::Forfeit)
        };
        assert_eq!(
            summary(&forfeited, &names, &start()),
            "seat 0 (ada) forfeited (3 timeouts)"
        );
        assert_eq!(
            legend(&forfeited, &names, &start()).text,
            "finished: seat 1 won; seat 0 forfeited (3 timeouts)"
        );
        let one = Stored {
            forfeits: vec![timeouts(0, 1)],
            ..forfeited.clone()
        };
        assert_eq!(
            summary(&one, &names, &start()),
            "seat 0 (ada) forfeited (1 timeout)"
        );
        let unrecorded = Stored {
            forfeits: Vec::new(),
            ..forfeited
        };
        assert_eq!(
            summary(&unrecorded, &names, &start()),
            "seat 0 (ada) forfeited"
        );
    }

    #[test]
    fn an_abandoned_match_says_why_under_its_picture_too() {
        let names = seats(&["ada", "oracle"]);
        let unavailable = Stored {
            unavailable_seat: Some(1),
            ..ended(stored::Ending::BotUnavailable)
        };
        let why = "abandoned: the bot of seat 1 (oracle) could not move on this server";
        assert_eq!(summary(&unavailable, &names, &start()), why);
        let shown = legend(&unavailable, &names, &start());
        assert_eq!((shown.players, shown.text.as_str()), (vec![], why));
        assert_eq!(
            summary(&ended(stored::Ending::BotLimit), &names, &start()),
            format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
        );
        assert_eq!(
            summary(&ended(stored::Ending::Abandoned), &names, &start()),
            "abandoned by its creator"
        );
    }

    #[test]
    fn an_outcome_names_the_forfeits_of_those_who_left() {
        let names = seats(&["ada", "bea"]);
        let over = Stored {
            forfeits: vec![timeouts(1, 2)],
            ..ended(stored::Ending::Outcome)
        };
        let position = start();
        assert_eq!(
            summary(&over, &names, &position),
            format!(
                "{}; seat 1 (bea) forfeited (2 timeouts)",
                position.outcome()
            )
        );
    }

    #[test]
    fn wire_names_are_the_stored_names() {
        for ending in [
            stored::Ending::Outcome,
            stored::Ending::Resignation,
            stored::Ending::Forfeit,
            stored::Ending::Abandoned,
            stored::Ending::BotLimit,
            stored::Ending::BotUnavailable,
        ] {
            let wire = serde_json::to_value(Ending::from(ending)).unwrap();
            assert_eq!(wire, ending.as_str());
        }
        for status in [
            stored::MatchStatus::InProgress,
            stored::MatchStatus::Finished,
            stored::MatchStatus::Abandoned,
        ] {
            let wire = MatchStatus::from(status);
            assert_eq!(serde_json::to_value(wire).unwrap(), status.as_str());
            assert_eq!(stored::MatchStatus::from(wire), status);
        }
        for reason in [
            stored::ForfeitReason::Timeouts,
            stored::ForfeitReason::Withdrawn,
            stored::ForfeitReason::Absent,
        ] {
            let wire = serde_json::to_value(ForfeitReason::from(reason)).unwrap();
            assert_eq!(wire, reason.as_str());
        }
    }
}
