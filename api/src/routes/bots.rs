//! Bots: the kinds on offer, and a bot's move on a stateless position.

use actix_web::{get, post, web};
use serde::{Deserialize, Serialize};
use sternhalma::IllegalMove;
use sternhalma::search::{self, BotConfig, BotKind, Budget};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::bots;
use crate::dto::{MoveView, PositionInput};
use crate::error::{ApiError, BodyErrors, Problem};
use sternhalma::wire::whole::Object;

/// The largest node (or playout) budget a request may ask for.
pub const MAX_NODES: u64 = 10_000_000;
/// The longest time budget a request may ask for, in milliseconds; also
/// the limit of every search that sets none.
pub const MAX_MILLIS: u64 = 10_000;
/// The largest seed (JSON Schema integers stop at 2^63 - 1).
pub const MAX_SEED: u64 = i64::MAX as u64;
/// The deepest depth budget a request may ask for.
pub const MAX_DEPTH: u32 = 64;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(list_bots).service(bot_move);
}

/// A budget: any limit left out does not apply; none at all means the
/// kind's default.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct BudgetView {
    /// Positions searched (alpha-beta, paranoid) or playouts (MCTS).
    #[schema(example = 20000)]
    pub nodes: Option<u64>,
    /// Milliseconds.
    pub millis: Option<u64>,
    /// Plies (alpha-beta and paranoid).
    pub depth: Option<u32>,
}

impl From<Budget> for BudgetView {
    fn from(budget: Budget) -> BudgetView {
        BudgetView {
            nodes: budget.nodes,
            millis: budget.millis,
            depth: budget.depth,
        }
    }
}

/// One kind of bot.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"kind": "mcts", "description": "Monte Carlo tree search", "default_budget": {"nodes": 1000, "millis": null, "depth": null}}))]
pub struct BotKindView {
    /// The name to ask for.
    #[schema(example = "alphabeta", value_type = sternhalma::search::BotKind)]
    pub kind: String,
    /// What it does.
    pub description: String,
    /// The budget it runs with when the request sets none.
    pub default_budget: BudgetView,
}

/// The bots on offer, simplest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BotList {
    /// Every kind.
    pub bots: Vec<BotKindView>,
    /// The largest budgets a request may ask for (a search with no time
    /// limit stops after `max.millis` anyway).
    pub max: BudgetView,
}

/// The bots on offer, with their default budgets.
#[utoipa::path(
    tag = "bots",
    responses((status = 200, description = "Every kind of bot, simplest first", body = BotList))
)]
#[get("/v1/bots")]
pub async fn list_bots() -> web::Json<BotList> {
    web::Json(BotList {
        bots: BotKind::ALL
            .iter()
            .map(|&kind| BotKindView {
                kind: kind.name().to_owned(),
                description: kind.description().to_owned(),
                default_budget: Budget::default_for(kind).into(),
            })
            .collect(),
        max: Budget {
            nodes: Some(MAX_NODES),
            millis: Some(MAX_MILLIS),
            depth: Some(MAX_DEPTH),
        }
        .into(),
    })
}

/// Which bot, with which budget and seed.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "alphabeta", "seed": 1, "nodes": 20000, "millis": null, "depth": null}))]
pub struct BotRequest {
    /// `random`, `greedy`, `alphabeta`, `paranoid` or `mcts` (`GET /v1/bots`).
    #[schema(example = "alphabeta", value_type = sternhalma::search::BotKind)]
    pub kind: String,
    /// The seed of the bot's random choices, 0 to 2^63 - 1; default 0.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 9_223_372_036_854_775_807_i64)]
    pub seed: Option<u64>,
    /// Node (or playout) budget, at most 10 000 000.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 10_000_000)]
    pub nodes: Option<u64>,
    /// Time budget in milliseconds, at most 10 000.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 10_000)]
    pub millis: Option<u64>,
    /// Depth budget in plies, at most 64.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u32>, minimum = 0, maximum = 64)]
    pub depth: Option<u32>,
}

impl BotRequest {
    /// The bot's configuration, within the caps: a 422 for an unknown kind
    /// or a budget over the limits.
    pub fn config(&self) -> Result<BotConfig, ApiError> {
        let kind = bots::parse_kind(&self.kind)?;
        let over = bots::budget_too_large;
        if let Some(nodes) = self.nodes.filter(|&n| n > MAX_NODES) {
            return Err(over("nodes", nodes, MAX_NODES));
        }
        if let Some(millis) = self.millis.filter(|&m| m > MAX_MILLIS) {
            return Err(over("millis", millis, MAX_MILLIS));
        }
        if let Some(depth) = self.depth.filter(|&d| d > MAX_DEPTH) {
            return Err(over("depth", u64::from(depth), u64::from(MAX_DEPTH)));
        }
        if let Some(seed) = self.seed.filter(|&s| s > MAX_SEED) {
            return Err(ApiError::unprocessable(
                "invalid_seed",
                format!("seed = {seed} is over the limit of {MAX_SEED}"),
            ));
        }
        let mut budget = Budget {
            nodes: self.nodes,
            millis: self.millis,
            depth: self.depth,
        };
        if budget.is_unlimited() {
            budget = Budget::default_for(kind);
        }
        // No search holds a worker thread longer than the cap.
        budget.millis = Some(budget.millis.unwrap_or(MAX_MILLIS));
        Ok(BotConfig {
            kind,
            budget,
            seed: self.seed.unwrap_or(0),
        })
    }
}

/// A position and a bot to move in it.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "position": "star4 classic south:111-120/north:0-9 0 0 -",
    "bot": {"kind": "alphabeta", "seed": 1, "nodes": 20000, "millis": null, "depth": null}
}))]
pub struct BotMoveRequest {
    /// The position, as a string or as JSON.
    pub position: PositionInput,
    /// The bot.
    #[schema(value_type = BotRequest)]
    pub bot: Object<BotRequest>,
}

/// The bot's move and what its search found.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BotMove {
    /// The move to play.
    #[serde(rename = "move")]
    pub best_move: MoveView,
    /// The position's value after the move, from the mover's view, on
    /// [-1, 1]: +1 a proven win, -1 a proven loss; MCTS gives its mean
    /// playout result, the others a squashed distance lead (`docs/bots.md`).
    #[schema(example = 0.05)]
    pub evaluation: f64,
    /// The expected line, starting with the move, as move texts.
    #[schema(example = json!(["115-104", "5-16"]))]
    pub principal_variation: Vec<String>,
    /// Positions searched (playouts for MCTS).
    pub nodes: u64,
    /// Time spent searching, in milliseconds.
    pub millis: f64,
    /// Depth reached (completed iterations for alpha-beta and paranoid, the
    /// deepest tree node for MCTS, 1 for greedy, 0 for random).
    pub depth: u32,
}

/// A bot's move on a position: the move, its evaluation, the principal
/// variation, nodes searched and time. Deterministic under the same seed
/// and a node or depth budget.
#[utoipa::path(
    tag = "bots",
    request_body = BotMoveRequest,
    responses(
        (status = 200, description = "The bot's move", body = BotMove),
        BodyErrors,
        (status = 422, description = "Invalid position, unknown bot kind (`unknown_bot`), a budget over the limits (`budget_too_large`), or a finished game (`game_over`); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/bots/move")]
pub async fn bot_move(
    body: web::Json<Object<BotMoveRequest>>,
) -> Result<web::Json<BotMove>, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    let config = request.bot.0.config()?;
    if position.legal_moves().is_empty() {
        return Err(IllegalMove::GameOver.into());
    }
    let searched = position.clone();
    let result = web::block(move || search::new_bot(&config).search(&searched))
        .await
        .map_err(|e| {
            ApiError::new(
                actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "Internal error",
                format!("the search failed: {e}"),
            )
        })?;
    Ok(web::Json(BotMove {
        best_move: MoveView::new(&position, result.best_move),
        evaluation: result.score,
        principal_variation: result
            .principal_variation
            .iter()
            .map(ToString::to_string)
            .collect(),
        nodes: result.nodes,
        millis: result.elapsed.as_secs_f64() * 1000.0,
        depth: result.depth,
    }))
}
