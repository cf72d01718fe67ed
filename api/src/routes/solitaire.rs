//! The solitaire crossing: a shortest move list for one set alone on the
//! board, proven shortest.

use std::time::Duration;

use actix_web::{post, web};
use serde::{Deserialize, Serialize};
use sternhalma::Board;
use sternhalma::solitaire::{self, Method, Problem as Crossing, SolveError, SolveOptions};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, BodyErrors, Problem};
use crate::limits::{DEFAULT_SOLVE_NODES, MAX_SOLVE_NODES, MAX_SOLVE_TABLE_STATES};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(solve);
}

/// Which crossing to solve.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"board": "rhombus5x2", "hops_only": false, "max_nodes": 1000000}))]
pub struct SolveRequest {
    /// The board: a rhombus (`rhombus5x2`, `rhombus9x3`, ...) or a star
    /// (`star2`; the side triangles are empty and may be used).
    #[schema(example = "rhombus5x2")]
    pub board: String,
    /// Hop chains only, no steps. Default false.
    #[serde(default)]
    pub hops_only: bool,
    /// Give up after visiting this many positions (at most 5,000,000;
    /// default 1,000,000).
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 5000000, example = 1000000)]
    pub max_nodes: Option<u64>,
}

/// A shortest crossing.
#[derive(Debug, Serialize, ToSchema)]
pub struct SolveResponse {
    /// The board, by its canonical name.
    #[schema(example = "rhombus5x2")]
    pub board: String,
    /// Whether only hop chains were allowed.
    pub hops_only: bool,
    /// Number of moves.
    #[schema(example = 11)]
    pub length: usize,
    /// Whether no shorter crossing exists (always true: the search proved
    /// every shorter bound impossible).
    pub optimal: bool,
    /// The move texts, legal in turn from the start (layout `1`, `classic`
    /// rules: `POST /v1/positions` with `{"board": ..., "layout": "1"}`).
    #[schema(example = json!(["24-19", "22-20", "23-16"]))]
    pub moves: Vec<String>,
    /// Positions the search visited.
    pub nodes: u64,
    /// Milliseconds the solve took.
    pub millis: u64,
}

/// Solves a solitaire crossing: one set alone, from the south triangle to the
/// north one, every other hole empty, in the fewest moves (IDA* with an
/// admissible bound, so the answer is proven shortest). The search is limited
/// by `max_nodes`; if that is not enough the answer is a 422 `node_limit`
/// problem carrying the lower bound proven so far. The first solve on a board
/// builds its lower-bound tables (once per server process), only those of at
/// most 4,000,000 positions: all of star4's and rhombus9x4's, in about a
/// second. Bigger projections (on rhombus10x4, rhombus11x4 and most rhombi
/// with 15 or more pegs) are left out, so those boards get a weaker bound
/// rather than a first solve that waits many seconds for a table; an answer
/// is still proven shortest.
#[utoipa::path(
    tag = "solitaire",
    request_body = SolveRequest,
    responses(
        (status = 200, description = "A shortest crossing, proven shortest", body = SolveResponse),
        BodyErrors,
        (status = 422, description = "Unknown board, `max_nodes` out of range (`max_nodes_out_of_range`), no crossing exists (`unsolvable`), or the node limit was reached first (`node_limit`, with `lower_bound` and `nodes`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/solitaire/solve")]
pub async fn solve(
    body: web::Json<Object<SolveRequest>>,
) -> Result<web::Json<SolveResponse>, ApiError> {
    let request = body.into_inner().0;
    let board: Board = request.board.parse()?;
    let max_nodes = request.max_nodes.unwrap_or(DEFAULT_SOLVE_NODES);
    if !(1..=MAX_SOLVE_NODES).contains(&max_nodes) {
        return Err(ApiError::unprocessable(
            "max_nodes_out_of_range",
            format!("max_nodes must be 1 to {MAX_SOLVE_NODES}, not {max_nodes}"),
        ));
    }
    let crossing = Crossing::new(board, request.hops_only);
    // Off the worker thread: the search is CPU-bound for up to seconds.
    let result = web::block(move || {
        solitaire::solve(
            &crossing,
            SolveOptions {
                // IDA*: its memory is the table below, whatever the limit.
                method: Method::Ida,
                max_nodes: Some(max_nodes),
                progress_interval: Duration::from_secs(3600),
                table_bits: 20,
                perimeter_states: 50_000,
                max_table_states: MAX_SOLVE_TABLE_STATES,
                ..SolveOptions::default()
            },
        )
    })
    .await
    .map_err(|e| {
        ApiError::new(
            actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            e.to_string(),
        )
    })?;
    match result {
        Ok(solution) => Ok(web::Json(SolveResponse {
            board: board.to_string(),
            hops_only: request.hops_only,
            length: solution.length,
            optimal: solution.optimal,
            moves: solution.moves.iter().map(ToString::to_string).collect(),
            nodes: solution.nodes,
            millis: u64::try_from(solution.elapsed.as_millis()).unwrap_or(u64::MAX),
        })),
        Err(
            error @ (SolveError::NodeLimit { lower_bound, nodes }
            | SolveError::Interrupted { lower_bound, nodes }),
        ) => {
            Err(ApiError::unprocessable("node_limit", error.to_string())
                .with_bound(lower_bound, nodes))
        }
        Err(error @ SolveError::Unsolvable) => {
            Err(ApiError::unprocessable("unsolvable", error.to_string()))
        }
    }
}
