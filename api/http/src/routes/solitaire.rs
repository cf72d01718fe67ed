//! The solitaire crossing: a shortest move list for one set alone on the
//! board, proven shortest, answered while the client waits. Long solves can
//! run as jobs instead (`routes::solitaire_jobs`); both run on the
//! heavy-work pool with the same request and the same budgets.

use std::time::Duration;

use actix_web::{post, web};
use serde::{Deserialize, Serialize};
use sternhalma::Board;
use sternhalma::solitaire::{
    self, Method, Problem as Crossing, ProgressCallback, SolveError, SolveOptions,
};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::{ApiError, BodyErrors, HeavyErrors, Problem};
use crate::heavy::{Cost, HeavyClient};
use crate::limits::{
    DEFAULT_SOLVE_MEMORY_MB, DEFAULT_SOLVE_NODES, MAX_SOLVE_MEMORY_MB, MAX_SOLVE_NODES,
    MAX_SOLVE_TABLE_STATES, SOLVE_PERIMETER_STATES, SOLVE_TABLE_BITS,
};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(solve);
}

/// Which search proves the crossing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SolveMethod {
    /// Breadth first from both ends, meeting in the middle: the fastest
    /// proof, holding its levels in memory (bounded by `max_memory_mb`).
    #[default]
    Meet,
    /// IDA*: a fixed, small memory, but far slower to prove long crossings
    /// (rhombus9p6 needs more than the node cap).
    Ida,
}

/// Which crossing to solve, and the budgets of the search.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"board": "rhombus5p3", "hops_only": false, "method": "meet", "max_nodes": 1000000, "max_memory_mb": 256}))]
pub struct SolveRequest {
    /// The board: a rhombus (`rhombus5p3`, `rhombus9p6`, ...) or a star
    /// (`star2`; the side triangles are empty and may be used).
    #[schema(example = "rhombus5p3")]
    pub board: String,
    /// Hop chains only, no steps. Default false.
    #[serde(default)]
    pub hops_only: bool,
    /// The search (default `meet`).
    #[serde(default)]
    pub method: SolveMethod,
    /// Give up after expanding this many positions (at most 1,000,000, the
    /// default: a few seconds of a heavy-work thread on the slowest board).
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1000000, example = 1000000)]
    pub max_nodes: Option<u64>,
    /// Give up when the meeting search would hold more than this many MiB
    /// of positions (at most 1024; default 256). Counted, not measured: 16
    /// bytes a position of the levels kept, and twice those of the level
    /// being built, so the same request stops at the same place on any
    /// machine. IDA* (`method: "ida"`, and `meet` when its shortest
    /// crossing breaks the target lock, as on rhombus9p6 with hops only)
    /// holds a fixed 24 MiB table and at most 1,000,000 positions near the
    /// goal instead.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1024, example = 256)]
    pub max_memory_mb: Option<u64>,
}

/// A request checked against the caps, with every default filled in.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SolveSettings {
    /// The board, by its canonical name.
    #[schema(example = "rhombus9p6")]
    pub board: String,
    /// Whether only hop chains are allowed.
    pub hops_only: bool,
    /// The search.
    pub method: SolveMethod,
    /// The node limit.
    #[schema(example = 1000000)]
    pub max_nodes: u64,
    /// The memory budget of the meeting search, in MiB.
    #[schema(example = 256)]
    pub max_memory_mb: u64,
}

impl SolveSettings {
    /// What the solve costs the heavy-work pool: its node limit's share of
    /// the cap ([`MAX_SOLVE_NODES`]).
    pub fn cost(&self) -> Cost {
        Cost::share(self.max_nodes, MAX_SOLVE_NODES)
    }

    /// Checks `request` against the caps.
    ///
    /// # Errors
    /// 422: an unknown board (the board's code), or a budget out of range
    /// (`max_nodes_out_of_range`, `max_memory_out_of_range`, naming the
    /// cap).
    pub fn new(request: SolveRequest) -> Result<SolveSettings, ApiError> {
        let board: Board = request.board.parse()?;
        let max_nodes = request.max_nodes.unwrap_or(DEFAULT_SOLVE_NODES);
        if !(1..=MAX_SOLVE_NODES).contains(&max_nodes) {
            return Err(ApiError::unprocessable(
                "max_nodes_out_of_range",
                format!("max_nodes must be 1 to {MAX_SOLVE_NODES}, not {max_nodes}"),
            ));
        }
        let max_memory_mb = request.max_memory_mb.unwrap_or(DEFAULT_SOLVE_MEMORY_MB);
        if !(1..=MAX_SOLVE_MEMORY_MB).contains(&max_memory_mb) {
            return Err(ApiError::unprocessable(
                "max_memory_out_of_range",
                format!(
                    "max_memory_mb must be 1 to {MAX_SOLVE_MEMORY_MB} (MiB), not {max_memory_mb}"
                ),
            ));
        }
        Ok(SolveSettings {
            board: board.to_string(),
            hops_only: request.hops_only,
            method: request.method,
            max_nodes,
            max_memory_mb,
        })
    }

    /// Runs the solve on the calling thread; `progress`, if given, is
    /// called after every step of the search (a chunk of a level, or 16,384
    /// IDA* nodes), at points that depend only on the request.
    ///
    /// # Errors
    /// 422 `node_limit` or `memory_limit` (with the lower bound proven and
    /// the nodes visited), or 422 `unsolvable`.
    pub fn solve(&self, progress: Option<ProgressCallback<'_>>) -> Result<SolveResponse, ApiError> {
        let board: Board = self.board.parse()?;
        let crossing = Crossing::new(board, self.hops_only);
        let max_memory_bytes = self.max_memory_mb << 20;
        let result = solitaire::solve(
            &crossing,
            SolveOptions {
                method: match self.method {
                    SolveMethod::Meet => Method::Meet,
                    SolveMethod::Ida => Method::Ida,
                },
                max_nodes: Some(self.max_nodes),
                max_memory_bytes: Some(max_memory_bytes),
                progress_interval: if progress.is_some() {
                    Duration::ZERO
                } else {
                    Duration::from_secs(3600)
                },
                progress,
                table_bits: SOLVE_TABLE_BITS,
                perimeter_states: SOLVE_PERIMETER_STATES,
                max_table_states: MAX_SOLVE_TABLE_STATES,
                ..SolveOptions::default()
            },
        );
        match result {
            Ok(solution) => Ok(SolveResponse {
                board: self.board.clone(),
                hops_only: self.hops_only,
                method: self.method,
                length: solution.length,
                optimal: solution.optimal,
                moves: solution.moves.iter().map(ToString::to_string).collect(),
                nodes: solution.nodes,
                memory_bytes: solution.memory_bytes,
                millis: u64::try_from(solution.elapsed.as_millis()).unwrap_or(u64::MAX),
            }),
            Err(
                error @ (SolveError::NodeLimit { lower_bound, nodes }
                | SolveError::Interrupted { lower_bound, nodes }),
            ) => Err(ApiError::unprocessable(
                "node_limit",
                format!("{error} (max_nodes {})", self.max_nodes),
            )
            .with_bound(lower_bound, nodes)),
            Err(
                error @ SolveError::MemoryLimit {
                    lower_bound, nodes, ..
                },
            ) => Err(ApiError::unprocessable(
                "memory_limit",
                format!("{error} (max_memory_mb {})", self.max_memory_mb),
            )
            .with_bound(lower_bound, nodes)),
            Err(error @ SolveError::Unsolvable) => {
                Err(ApiError::unprocessable("unsolvable", error.to_string()))
            }
        }
    }
}

/// A shortest crossing.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SolveResponse {
    /// The board, by its canonical name.
    #[schema(example = "rhombus5p3")]
    pub board: String,
    /// Whether only hop chains were allowed.
    pub hops_only: bool,
    /// The search that proved it.
    pub method: SolveMethod,
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
    /// Positions the search expanded.
    pub nodes: u64,
    /// The most bytes the meeting search held, counted as for
    /// `max_memory_mb` (0 for IDA*): any budget of at least this much
    /// proves the same crossing.
    pub memory_bytes: u64,
    /// Milliseconds the solve took.
    pub millis: u64,
}

/// Solves a solitaire crossing: one set alone, from the south triangle to the
/// north one, every other hole empty, in the fewest moves, proven shortest.
/// The default search meets in the middle (`method: "meet"`); the search runs
/// on the heavy-work pool (503 `busy` with `Retry-After` when it is full, 429
/// `too_many_heavy_requests` when this client already has as many heavy
/// requests running or waiting as it may) while the client waits; for a long solve with progress, use `POST
/// /v1/solitaire/jobs`. If a budget runs out first the answer is a 422
/// `node_limit` or `memory_limit` problem carrying the lower bound proven so
/// far; the same request always gets the same answer. Within the default
/// budgets it proves rhombus9p6 (23 moves, 366,866 nodes, 4.8 MiB) and
/// rhombus9p6 with hops only (35 moves, 849,435 nodes). The default node
/// limit is also the cap (`max_nodes` 1,000,000: a few seconds of a
/// heavy-work thread on the slowest board, so no request holds one longer;
/// `max_memory_mb` at most 1024). Within it it proves, with steps, star1 to
/// star3, every rhombus with homes of one or two rows, rhombus4p6, 5x3,
/// 5x4, 6x3, 6x4, 7x3, 8x3, 9x3 and 10x3; with hops only, star3,
/// rhombus5p6, 5x4, 7x3 and 9x3, and that none exists on star1, star2,
/// every rhombus with homes of one or two rows, 4x3, 6x3 to 6x5, 8x3 to
/// 8x7 and 10x3 to 10x5. Not proven within the cap: star4, rhombus6p15 and
/// 11x3, and with steps every rhombus of side 7 or more with homes of four
/// rows or more; with hops only rhombus7p10 to 7x6, 9x4 to 9x8, 10x6 to 10x9
/// and 11x3 to 11x10 (docs/solitaire.md; the command line has no cap). The
/// first solve on a
/// board builds its lower-bound tables (once per server process), only those
/// of at most 4,000,000 positions: all of star4's and rhombus9p10's, in about
/// a second. Bigger projections (on rhombus10p10, rhombus11p10 and most rhombi
/// with 15 or more pegs) are left out, so those boards get a weaker bound
/// rather than a first solve that waits many seconds for a table; an answer
/// is still proven shortest.
#[utoipa::path(
    tag = "solitaire",
    request_body = SolveRequest,
    responses(
        (status = 200, description = "A shortest crossing, proven shortest", body = SolveResponse),
        BodyErrors,
        (status = 422, description = "Unknown board, `max_nodes` out of range (`max_nodes_out_of_range`: 1 to 1,000,000), `max_memory_mb` out of range (`max_memory_out_of_range`: 1 to 1024), each refused before anything runs, no crossing exists (`unsolvable`), or a budget ran out first (`node_limit`, `memory_limit`, with `lower_bound` and `nodes`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
    )
)]
#[post("/v1/solitaire/solve")]
pub async fn solve(
    body: web::Json<Object<SolveRequest>>,
    heavy: HeavyClient,
) -> Result<web::Json<SolveResponse>, ApiError> {
    let settings = SolveSettings::new(body.into_inner().0)?;
    let answer = heavy
        .run(settings.cost(), move || settings.solve(None))
        .await??;
    Ok(web::Json(answer))
}
