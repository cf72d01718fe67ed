//! Playing: legal moves, applying a move, the outcome, replaying a game.

use actix_web::{HttpResponse, post, web};
use serde::{Deserialize, Serialize};
use sternhalma::{Cell, Move, MoveText, Position};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{
    HoleId, MoveInput, MoveView, MoveViews, OutcomeView, Played, PositionInput, PositionRequest,
    PositionView, hole, json_answer,
};
use crate::error::{ApiError, BodyErrors, HeavyErrors, Problem};
use crate::heavy::{Cost, HeavyClient};
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
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    let moves = match request.from {
        None => position.legal_moves(),
        Some(id) => position.legal_moves_from(hole(&position, id)?),
    };
    Ok(json_answer(legal_moves_json(&position, &moves)))
}

/// The JSON of [`LegalMoves`] for `moves` of `position`, written straight
/// into bytes: the moves by [`MoveViews`], the rest by `serde_json`, in the
/// fields' order.
fn legal_moves_json(position: &Position, moves: &[Move]) -> Vec<u8> {
    use std::io::Write as _;
    let views = MoveViews { position, moves };
    let mut body = Vec::with_capacity(256 + views.size_hint());
    body.extend_from_slice(br#"{"moves":"#);
    views.write_json(&mut body);
    let _ = write!(
        body,
        r#","count":{},"side_to_move":{},"outcome":"#,
        moves.len(),
        position.side_to_move()
    );
    serde_json::to_writer(&mut body, &OutcomeView::from(position)).expect("an outcome serialises");
    body.push(b'}');
    body
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
/// full, 429 `too_many_heavy_requests` when this client already has as many
/// heavy requests running or waiting as it may.
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
    heavy: HeavyClient,
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
    let cost = Cost::share(request.moves.len() as u64, MAX_REPLAY_MOVES as u64);
    let replayed = heavy
        .run(cost, move || replay_from(start, &request))
        .await??;
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

#[cfg(test)]
mod tests {
    use super::*;
    use sternhalma::MoveKind;

    /// `legal_moves_json` of `moves` is the JSON of [`LegalMoves`] built from
    /// [`MoveView`]s, as the route answered it before.
    fn assert_same_json(position: &Position, moves: &[Move]) {
        let views: Vec<MoveView> = moves
            .iter()
            .map(|&mv| MoveView::new(position, mv))
            .collect();
        let built = LegalMoves {
            count: views.len(),
            moves: views,
            side_to_move: position.side_to_move(),
            outcome: position.into(),
        };
        assert_eq!(
            String::from_utf8(legal_moves_json(position, moves)).unwrap(),
            serde_json::to_string(&built).unwrap(),
            "{position}"
        );
    }

    /// Every legal move of `position`, each peg's, and a pass (no ends, an
    /// empty path): how many lists were compared, and the kinds seen.
    fn compare_all(position: &Position, kinds: &mut std::collections::HashSet<MoveKind>) -> usize {
        let all = position.legal_moves();
        let pegs: Vec<Cell> = all.iter().filter_map(|mv| mv.from()).collect();
        let mut compared = 0;
        for moves in [all.clone(), vec![Move::Pass]]
            .into_iter()
            .chain(pegs.iter().map(|&peg| position.legal_moves_from(peg)))
        {
            kinds.extend(moves.iter().map(|mv| mv.kind()));
            assert_same_json(position, &moves);
            compared += 1;
        }
        compared
    }

    /// The answer written from the position is the JSON of [`LegalMoves`]
    /// built from [`MoveView`]s, as it was: along seeded random games of
    /// several boards, layouts and rules, and on positions with swaps (one
    /// by a chain of five hops), for all moves and for each peg.
    #[test]
    fn legal_moves_answer_is_the_json_of_legal_moves() {
        use sternhalma::{Board, Layout, Rules};
        let mut compared = 0;
        let mut kinds = std::collections::HashSet::new();
        for text in [
            "star2 masters south:2,18,20/north:0,16,36 0 50 -",
            "star4 masters south:61,66,78,82,93,94,103,104,112,119/north:0,1,4,5,16,19,24,40,50,102 0 72 -",
        ] {
            compared += compare_all(&text.parse().unwrap(), &mut kinds);
        }
        assert!(kinds.contains(&MoveKind::Swap), "{kinds:?}");
        for (board, players, rules) in [
            (Board::STANDARD, 2, Rules::classic()),
            (Board::STANDARD, 6, Rules::classic()),
            (Board::STANDARD, 3, Rules::super_chinese_checkers()),
            ("star2".parse().unwrap(), 2, Rules::masters()),
            ("rhombus5p3".parse().unwrap(), 2, Rules::research()),
        ] {
            for seed in 1..=3_u64 {
                let mut position =
                    Position::start(board, Layout::standard(players).unwrap(), rules).unwrap();
                let mut rng = sternhalma::search::Rng::new(seed);
                for _ in 0..120 {
                    compared += compare_all(&position, &mut kinds);
                    let all = position.legal_moves();
                    if all.is_empty() {
                        break;
                    }
                    position.make_move(all[rng.below(all.len())]);
                }
            }
        }
        assert!(compared > 5_000, "{compared}");
        assert_eq!(kinds.len(), 4, "every kind of move compared: {kinds:?}");
    }
}
