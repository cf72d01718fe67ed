//! A game checked against perfect play (`sternhalma::solve::analysis`): a
//! game record, or a stored match, move by move against the server's
//! table of its board (the app's [`Tablebases`], the store's set). Here
//! because a stored match is one of its inputs; the views of values and
//! moves are the probe's (`sternhalma-http`).

use actix_web::{post, web};
use serde::{Deserialize, Serialize};
use sternhalma::Position;
use sternhalma::solve::Tablebases;
use sternhalma::solve::analysis::{self, Verdict};
use sternhalma::wire::whole::Object;
use sternhalma_http::dto::{MoveInput, MoveView, PlayerIndex, PlyCount, PositionInput};
use sternhalma_http::error::{ApiError, BodyErrors, HeavyErrors, Problem, StorageErrors};
use sternhalma_http::heavy::{Cost, HeavyClient};
use sternhalma_http::limits::MAX_REPLAY_MOVES;
use sternhalma_http::routes::tablebases::{ProbeView, SolvedValue};
use sternhalma_store::matches::game;
use sternhalma_store::store::Store;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(analyse_game);
}

/// The game to analyse: a game record, or a stored match.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum AnalysisInput {
    /// A start and the moves played from it: what `GET
    /// /v1/matches/{id}/export` answers.
    Record(GameRecord),
    /// A stored match, as it stands.
    Match(StoredMatch),
}

/// A game record.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"start": "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -", "moves": ["48-45", "0-3"]}))]
pub struct GameRecord {
    /// The start position, as a string or as JSON.
    start: PositionInput,
    /// The moves, in order: at most 10,000 (`too_long` beyond).
    moves: Vec<MoveInput>,
}

/// A stored match.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({"match": 1}))]
pub struct StoredMatch {
    /// The match id.
    #[serde(rename = "match")]
    #[schema(minimum = 0)]
    match_id: u64,
}

/// The body of `POST /v1/analysis` as read: either form's fields, one
/// form checked to be whole (the schema, [`AnalysisInput`], says so for
/// clients).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisRequest {
    start: Option<PositionInput>,
    moves: Option<Vec<MoveInput>>,
    #[serde(
        rename = "match",
        default,
        deserialize_with = "sternhalma::wire::whole::optional"
    )]
    match_id: Option<u64>,
}

/// What [`AnalysisRequest`] asks for.
enum Asked {
    Record(PositionInput, Vec<MoveInput>),
    Match(u64),
}

impl AnalysisRequest {
    fn asked(self) -> Result<Asked, ApiError> {
        let missing = |field: &str| {
            ApiError::unprocessable(
                "missing_field",
                format!(
                    "{field}: this field is required and missing (give `start` and `moves`, a game record, or `match`, a stored match's id)"
                ),
            )
        };
        match (self.start, self.moves, self.match_id) {
            (None, None, Some(id)) => Ok(Asked::Match(id)),
            (Some(start), Some(moves), None) => Ok(Asked::Record(start, moves)),
            (None, None, None) => Err(missing("start")),
            (Some(_), None, None) => Err(missing("moves")),
            (None, Some(_), None) => Err(missing("start")),
            (_, _, Some(_)) => Err(ApiError::bad_request(
                "malformed_json",
                "the JSON body does not fit: give either `start` and `moves` (a game record) or `match` (a stored match's id), not both",
            )),
        }
    }
}

/// What a move did to the mover's value.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerdictView {
    /// The value and depth of the best move.
    Best,
    /// The value kept, but a win made longer or a loss shorter.
    Slower,
    /// A worse value: a win thrown to a draw or a loss, a draw to a loss.
    Mistake,
}

impl From<Verdict> for VerdictView {
    fn from(verdict: Verdict) -> VerdictView {
        match verdict {
            Verdict::Best => VerdictView::Best,
            Verdict::Slower => VerdictView::Slower,
            Verdict::Mistake => VerdictView::Mistake,
        }
    }
}

/// The best move of a position and what it leads to, for the mover.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BestMoveView {
    /// The move (one of the best, if several are equal).
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// The mover's value after it: the position's.
    pub value: SolvedValue,
    /// Plies to the end; null for a draw or without depths.
    #[schema(minimum = 0)]
    pub depth: Option<u32>,
    /// The same in words (`win in 7`).
    pub text: String,
}

/// One ply of the game, judged.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlyView {
    /// The ply, from 0.
    #[schema(value_type = PlyCount)]
    pub ply: u32,
    /// The seat (player) that moved.
    #[schema(value_type = PlayerIndex)]
    pub seat: usize,
    /// The move played.
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// The position's value for the mover, before the move.
    pub before: ProbeView,
    /// The mover's value after the move.
    pub after: ProbeView,
    /// The best move there and its value (which `before` is).
    pub best: BestMoveView,
    /// `best` (the best move's value and depth), `slower` (the value kept,
    /// a win made longer or a loss shorter) or `mistake` (a win thrown to
    /// a draw or a loss, a draw to a loss).
    pub verdict: VerdictView,
}

/// One seat's moves, summed up.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatSummary {
    /// The seat (player).
    #[schema(value_type = PlayerIndex)]
    pub seat: usize,
    /// Moves it made.
    pub moves: u32,
    /// Moves that kept the value (best or slower).
    pub kept: u32,
    /// Moves among the best.
    pub best: u32,
    /// Mistakes.
    pub mistakes: u32,
    /// The share of its moves that kept the value (`kept / moves`), 0 to
    /// 1; null if it made none.
    #[schema(example = 0.9)]
    pub accuracy: Option<f64>,
}

/// A game analysed.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AnalysisView {
    /// The board of the table that judged it.
    #[schema(example = "rhombus7p2")]
    pub board: String,
    /// The start position string.
    pub start: String,
    /// Each ply, in order.
    pub plies: Vec<PlyView>,
    /// Seat 0 and seat 1.
    pub seats: Vec<SeatSummary>,
    /// The last position's value for its side to move (a loss in 0 when
    /// the game was won).
    pub end: ProbeView,
}

/// A game checked move by move against perfect play, from the installed
/// table of its board: per ply the mover's value before and after the move
/// (`win in 7`, `draw`, `loss in 12`), the best move, and a verdict (`best`,
/// `slower`: the value kept but a win made longer or a loss shorter,
/// `mistake`: a win thrown to a draw or a loss, a draw to a loss); per seat
/// its moves, mistakes and accuracy (the share of its moves that kept the
/// value). The game is a record (`start` and `moves`, what `GET
/// /v1/matches/{id}/export` answers) or a stored match (`match`), as it
/// stands. At most 10,000 moves. It runs on the heavy-work pool: 503
/// `busy` with `Retry-After` when it is full, 429 `too_many_heavy_requests`
/// when this client already has as many heavy requests running or waiting
/// as it may.
#[utoipa::path(
    tag = "tablebases",
    request_body(content = AnalysisInput, example = json!({"start": "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -", "moves": ["48-45", "0-3"]})),
    responses(
        (status = 200, description = "The game analysed", body = AnalysisView),
        BodyErrors,
        (status = 404, description = "No such match (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid start; no installed table of its board (`no_tablebase`: the detail names the tables installed and how a server gets one); a table of the board, but the game is not its game: other rules than `sturtevant` (a `max_plies` aside) or other sets (`tablebase_other_game`); a move that cannot be played where it is (`illegal_move`, `move_index` and the detail naming the ply); more than 10,000 moves (`too_long`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
        StorageErrors,
    )
)]
#[post("/v1/analysis")]
pub async fn analyse_game(
    store: web::Data<Store>,
    tables: web::Data<Tablebases>,
    heavy: HeavyClient,
    body: web::Json<Object<AnalysisRequest>>,
) -> Result<web::Json<AnalysisView>, ApiError> {
    let (start, moves) = match body.into_inner().0.asked()? {
        Asked::Record(start, moves) => (start.resolve()?, moves),
        Asked::Match(id) => {
            let id =
                i64::try_from(id).map_err(|_| ApiError::not_found(format!("no match {id}")))?;
            let record = store.read(move |c| game::export(c, id)).await?;
            let start: Position = record.start.parse().map_err(|e| {
                ApiError::internal(format!("match {id}'s start does not read back: {e}"))
            })?;
            let moves = record
                .moves
                .into_iter()
                .map(|text| MoveInput(serde_json::Value::String(text)))
                .collect();
            (start, moves)
        }
    };
    if moves.len() > MAX_REPLAY_MOVES {
        return Err(ApiError::unprocessable(
            "too_long",
            format!(
                "{} moves are more than the limit of {MAX_REPLAY_MOVES}",
                moves.len()
            ),
        ));
    }
    let table = tables.for_position(&start)?;
    let cost = Cost::share(moves.len() as u64, MAX_REPLAY_MOVES as u64);
    let analysed = heavy
        .run(cost, move || -> Result<AnalysisView, ApiError> {
            // Each move read against the position it is played in, as a
            // replay reads it; a move that cannot be played there names its
            // ply.
            let mut positions = Vec::with_capacity(moves.len() + 1);
            let mut played = Vec::with_capacity(moves.len());
            let mut position = start.clone();
            for (ply, input) in moves.iter().enumerate() {
                let resolved = input
                    .text()
                    .map_err(ApiError::from)
                    .and_then(|text| Ok(position.resolve(&text)?))
                    .map_err(|e| {
                        ApiError::unprocessable(
                            "illegal_move",
                            format!("move {ply}: {}", e.problem().detail),
                        )
                        .at_move(ply)
                    })?;
                let next = position.after(&resolved);
                positions.push(position);
                played.push(resolved.mv);
                position = next;
            }
            let report = analysis::analyse(&table, &start, &played)?;
            Ok(AnalysisView {
                board: table.game().board().to_string(),
                start: start.to_string(),
                plies: report
                    .plies
                    .iter()
                    .zip(&positions)
                    .map(|(ply, before)| PlyView {
                        ply: ply.ply,
                        seat: ply.seat,
                        mv: MoveView::new(before, ply.mv),
                        before: ply.before.into(),
                        after: ply.after.into(),
                        best: BestMoveView {
                            mv: MoveView::new(before, ply.best.mv),
                            value: ply.best.value.into(),
                            depth: ply.best.depth,
                            text: ply.best.probe().to_string(),
                        },
                        verdict: ply.verdict.into(),
                    })
                    .collect(),
                seats: report
                    .seats
                    .iter()
                    .enumerate()
                    .map(|(seat, tally)| SeatSummary {
                        seat,
                        moves: tally.moves,
                        kept: tally.kept,
                        best: tally.best,
                        mistakes: tally.mistakes,
                        accuracy: tally.accuracy(),
                    })
                    .collect(),
                end: report.end.into(),
            })
        })
        .await??;
    Ok(web::Json(analysed))
}
