//! Playing: legal moves, applying a move, the outcome, replaying a game.

use actix_web::{post, web};
use serde::{Deserialize, Serialize};
use sternhalma::{Cell, MoveText, Position};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{
    HoleId, MoveInput, MoveView, OutcomeView, Played, PositionInput, PositionRequest, PositionView,
    hole,
};
use crate::error::{ApiError, BodyErrors, HeavyErrors, Problem};
use crate::heavy::HeavyPool;
use crate::limits::{MAX_REPLAY_MOVES, MAX_REPLAY_RESIGNATIONS};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(legal_moves)
        .service(apply)
        .service(outcome)
        .service(replay);
}

/// A position, and optionally one peg.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": "star4 classic south:111-120/north:0-9 0 0 -"}))]
pub struct LegalMovesRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
    /// Only the moves of the peg on this hole.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<HoleId>)]
    pub from: Option<usize>,
}

/// The legal moves of a position.
#[derive(Debug, Serialize, ToSchema)]
pub struct LegalMoves {
    /// Every legal move (or the chosen peg's), ordered by start then end
    /// hole; `[pass]` when the player to move has no other; empty when the
    /// game is over.
    pub moves: Vec<MoveView>,
    /// How many.
    pub count: usize,
    /// The player to move.
    pub side_to_move: usize,
    /// The state of the game.
    pub outcome: OutcomeView,
}

/// Every legal move of a position, each with its kind and one path.
#[utoipa::path(
    tag = "play",
    request_body = LegalMovesRequest,
    responses(
        (status = 200, description = "The legal moves", body = LegalMoves),
        BodyErrors,
        (status = 422, description = "Invalid position (every problem listed), or `from` not on the board; or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/legal-moves")]
pub async fn legal_moves(
    body: web::Json<Object<LegalMovesRequest>>,
) -> Result<web::Json<LegalMoves>, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    let moves = match request.from {
        None => position.legal_moves(),
        Some(id) => position.legal_moves_from(hole(&position, id)?),
    };
    let moves: Vec<MoveView> = moves
        .iter()
        .map(|&mv| MoveView::new(&position, mv))
        .collect();
    Ok(web::Json(LegalMoves {
        count: moves.len(),
        moves,
        side_to_move: position.side_to_move(),
        outcome: (&position).into(),
    }))
}

/// A position and a move to play.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"position": "star4 classic south:111-120/north:0-9 0 0 -", "move": "115-104"}))]
pub struct ApplyRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
    /// The move: text, ends or full path.
    #[serde(rename = "move")]
    pub mv: MoveInput,
}

/// The result of playing a move.
#[derive(Debug, Serialize, ToSchema)]
pub struct Applied {
    /// What happened.
    pub played: Played,
    /// The new position, with its outcome.
    pub position: PositionView,
}

/// Plays a move given by a client, checked once: what was played (with the
/// path as given, when a full path was) and the position after it.
///
/// # Errors
/// 422: malformed move text, or an illegal move (the reason in `code`).
pub fn play(position: &Position, input: &MoveInput) -> Result<(Played, Position), ApiError> {
    let played = position.resolve(&input.text()?)?;
    Ok(((&played).into(), position.after(&played)))
}

/// Plays one move: the new position and outcome, or exactly why not.
#[utoipa::path(
    tag = "play",
    request_body = ApplyRequest,
    responses(
        (status = 200, description = "The move was played", body = Applied),
        BodyErrors,
        (status = 422, description = "Invalid position, malformed move text, or an illegal move; `code` gives the reason (`hole_occupied`, `leaves_target`, `not_your_peg`, ...); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/apply")]
pub async fn apply(body: web::Json<Object<ApplyRequest>>) -> Result<web::Json<Applied>, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    let (played, next) = play(&position, &request.mv)?;
    Ok(web::Json(Applied {
        played,
        position: (&next).into(),
    }))
}

/// Whether the game is over, who won, and each player's result.
#[utoipa::path(
    tag = "play",
    request_body = PositionRequest,
    responses(
        (status = 200, description = "The outcome", body = OutcomeView),
        BodyErrors,
        (status = 422, description = "Invalid position; or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/outcome")]
pub async fn outcome(
    body: web::Json<Object<PositionRequest>>,
) -> Result<web::Json<OutcomeView>, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    Ok(web::Json((&position).into()))
}

/// A start and the moves played from it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"start": "star4 classic south:111-120/north:0-9 0 0 -", "moves": ["115-104", "4-15"]}))]
pub struct ReplayRequest {
    /// The start position, as a string or as JSON.
    pub start: PositionInput,
    /// The moves, in order: at most 10,000 (`too_long` beyond), each path
    /// at most the board's holes (`path_too_long`).
    pub moves: Vec<MoveInput>,
    /// Players who resigned a game of three or more, each made at its ply
    /// (as `GET /v1/matches/{id}/export` gives them); at most 6.
    #[serde(default)]
    #[schema(value_type = Vec<sternhalma::Resignation>)]
    pub resigned: Vec<Object<sternhalma::Resignation>>,
}

/// One move of a replay.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplayStep {
    /// What happened.
    pub played: Played,
    /// The position after it.
    pub position_string: String,
    /// The state of the game after it.
    pub outcome: OutcomeView,
}

/// A replayed game.
#[derive(Debug, Serialize, ToSchema)]
pub struct Replay {
    /// Every move, with the position and outcome after it.
    pub steps: Vec<ReplayStep>,
    /// The last position.
    #[serde(rename = "final")]
    pub last: PositionView,
}

/// Plays a list of moves from a start, checking each; answers every
/// intermediate position and outcome. A game record is valid if this
/// succeeds. At most 10,000 moves (a game under the program move limit has
/// at most 1,200) and 6 resignations: 422 `too_long` beyond. The moves are
/// played on the heavy-work pool: 503 `busy` with `Retry-After` when it is
/// full.
#[utoipa::path(
    tag = "play",
    request_body = ReplayRequest,
    responses(
        (status = 200, description = "Every step", body = Replay),
        BodyErrors,
        (status = 422, description = "Invalid start, or an illegal or malformed move (`move_index` says which); more than 10,000 moves or 6 resignations (`too_long`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
    )
)]
#[post("/v1/replay")]
pub async fn replay(
    body: web::Json<Object<ReplayRequest>>,
    pool: web::Data<HeavyPool>,
) -> Result<web::Json<Replay>, ApiError> {
    let request = body.into_inner().0;
    if request.moves.len() > MAX_REPLAY_MOVES {
        return Err(too_long("moves", request.moves.len(), MAX_REPLAY_MOVES));
    }
    if request.resigned.len() > MAX_REPLAY_RESIGNATIONS {
        let count = request.resigned.len();
        return Err(too_long("resignations", count, MAX_REPLAY_RESIGNATIONS));
    }
    let start = request.start.resolve()?;
    let replayed = pool.run(move || replay_from(start, &request)).await??;
    Ok(web::Json(replayed))
}

/// A 422 `too_long`: `count` `what` are more than `max`.
fn too_long(what: &str, count: usize, max: usize) -> ApiError {
    ApiError::unprocessable(
        "too_long",
        format!("{count} {what} are more than the limit of {max}"),
    )
}

/// Plays `request`'s moves from `position`, its start.
fn replay_from(mut position: Position, request: &ReplayRequest) -> Result<Replay, ApiError> {
    let mut steps = Vec::with_capacity(request.moves.len());
    let resigned: Vec<sternhalma::Resignation> =
        request.resigned.iter().map(|Object(r)| *r).collect();
    for (index, input) in request.moves.iter().enumerate() {
        position = position
            .resign_due(&resigned)
            .map_err(|e| ApiError::from(e).at_move(index))?;
        let (played, next) = play(&position, input).map_err(|e| e.at_move(index))?;
        position = next;
        steps.push(ReplayStep {
            played,
            position_string: position.to_string(),
            outcome: (&position).into(),
        });
    }
    // Resignations after the last move.
    let position = position
        .resign_due(&resigned)
        .map_err(|e| ApiError::from(e).at_move(request.moves.len()))?;
    Ok(Replay {
        steps,
        last: (&position).into(),
    })
}

/// The holes of a path written as a move text: all on the board, and at
/// most as many as it has (`path_too_long`).
pub fn path_cells(position: &Position, text: &str) -> Result<Vec<Cell>, ApiError> {
    Ok(position.path_cells(&text.parse::<MoveText>()?)?)
}
