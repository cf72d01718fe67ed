//! Bots: the kinds on offer, and a bot's move on a stateless position.

use actix_web::{get, post, web};
use serde::{Deserialize, Serialize};
use sternhalma::IllegalMove;
use sternhalma::search::perfect::PerfectBot;
use sternhalma::search::{self, BotConfig, BotKind, Budget, BudgetTooLarge};
use sternhalma::solve::Tablebases;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{MoveView, PositionInput};
use crate::error::{ApiError, BodyErrors, HeavyErrors, Problem};
use crate::heavy::{Cost, HeavyClient};
use crate::limits::{MAX_BOT_DEPTH, MAX_BOT_MILLIS, MAX_BOT_NODES, MAX_BOT_PLAYOUTS};
use crate::routes::tablebases::perfect_refused;
use sternhalma::wire::whole::Object;

/// The largest seed (JSON Schema integers stop at 2^63 - 1).
pub const MAX_SEED: u64 = i64::MAX as u64;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(list_bots).service(bot_move);
}

/// A budget: positions (or playouts), milliseconds and plies; a limit that
/// is null does not apply.
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
#[schema(example = json!({"kind": "mcts", "description": "Monte Carlo tree search", "default_budget": {"nodes": 1000, "millis": null, "depth": null}, "max_budget": {"nodes": 4000, "millis": 1000, "depth": 64}}))]
pub struct BotKindView {
    /// The name to ask for.
    #[schema(example = "alphabeta", value_type = sternhalma::search::BotKind)]
    pub kind: String,
    /// What it does.
    pub description: String,
    /// The budget it runs with when the request sets none.
    pub default_budget: BudgetView,
    /// The largest budget a request may ask of it (`budget_too_large`
    /// beyond); a request with a depth or time budget but no `nodes` gets
    /// `max_budget.nodes`.
    pub max_budget: BudgetView,
}

/// The bots on offer, simplest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BotList {
    /// Every kind.
    pub bots: Vec<BotKindView>,
    /// The largest budgets of any kind: alpha-beta's and paranoid's
    /// `nodes`; each kind's own caps are its `max_budget` (MCTS runs at
    /// most 4,000 playouts).
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
                max_budget: max_budget(kind).into(),
            })
            .collect(),
        max: max_budget(BotKind::AlphaBeta).into(),
    })
}

/// The largest node (playout) budget of `kind` over HTTP: each is about a
/// second of search on the slowest position measured (`crate::limits`).
pub fn max_nodes(kind: BotKind) -> u64 {
    match kind {
        BotKind::Mcts => MAX_BOT_PLAYOUTS,
        BotKind::Random
        | BotKind::Greedy
        | BotKind::AlphaBeta
        | BotKind::Paranoid
        | BotKind::Perfect => MAX_BOT_NODES,
    }
}

/// What a search of `config` costs the heavy-work pool: the share of its
/// kind's cap it may search (its node or playout budget, or its time
/// budget's share of [`MAX_BOT_MILLIS`] if that is less). Random, greedy and
/// perfect look at each move once: the least.
pub fn search_cost(config: &BotConfig) -> Cost {
    match config.kind {
        BotKind::Random | BotKind::Greedy | BotKind::Perfect => Cost::LEAST,
        BotKind::AlphaBeta | BotKind::Paranoid | BotKind::Mcts => {
            let max = max_nodes(config.kind);
            let nodes = Cost::share(config.budget.nodes.unwrap_or(max), max);
            let millis = config
                .budget
                .millis
                .map_or(Cost::FULL, |millis| Cost::share(millis, MAX_BOT_MILLIS));
            nodes.min(millis)
        }
    }
}

fn max_budget(kind: BotKind) -> Budget {
    Budget {
        nodes: Some(max_nodes(kind)),
        millis: Some(MAX_BOT_MILLIS),
        depth: Some(MAX_BOT_DEPTH),
    }
}

/// Which bot, with which budget and seed.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "alphabeta", "seed": 1, "nodes": 20000, "millis": null, "depth": null}))]
pub struct BotRequest {
    /// `random`, `greedy`, `alphabeta`, `paranoid`, `mcts` or `perfect`
    /// (`GET /v1/bots`; `perfect` only on a game an installed table with
    /// depths covers, `GET /v1/tablebases`).
    #[schema(example = "alphabeta", value_type = sternhalma::search::BotKind)]
    pub kind: String,
    /// The seed of the bot's random choices, 0 to 2^63 - 1; default 0.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 9_223_372_036_854_775_807_i64)]
    pub seed: Option<u64>,
    /// Node budget: positions for `alphabeta` and `paranoid` (at most
    /// 400,000), playouts for `mcts` (at most 4,000); unused by `random` and
    /// `greedy`. Left out, it is the kind's default if no other budget is
    /// given, and the kind's cap otherwise, so every search is bounded.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 400_000)]
    pub nodes: Option<u64>,
    /// Time budget in milliseconds, at most 1,000: the search also stops
    /// when it runs out, so the answer depends on the machine and its load
    /// (`reproducible` is false). Leave it out for answers that replay.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 1_000)]
    pub millis: Option<u64>,
    /// Depth budget in plies, at most 64 (the node budget applies too).
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    #[schema(value_type = Option<u32>, minimum = 0, maximum = 64)]
    pub depth: Option<u32>,
}

impl BotRequest {
    /// The bot's configuration, within the caps: a 422 for an unknown kind
    /// or a budget over the limits. Every search it makes has a node (or
    /// playout) limit: the request's, or else the kind's default when the
    /// request gives no budget, or else the kind's cap.
    ///
    /// # Errors
    /// 422 `unknown_bot`, `budget_too_large` (naming the cap) or
    /// `invalid_seed`.
    pub fn config(&self) -> Result<BotConfig, ApiError> {
        let kind: BotKind = self.kind.parse()?;
        let over = |what: &str, value: u64, max: u64| -> ApiError {
            BudgetTooLarge {
                what: what.to_owned(),
                value,
                max,
            }
            .into()
        };
        let max_nodes = max_nodes(kind);
        if let Some(nodes) = self.nodes.filter(|&n| n > max_nodes) {
            return Err(over(&format!("{kind}'s nodes"), nodes, max_nodes));
        }
        if let Some(millis) = self.millis.filter(|&m| m > MAX_BOT_MILLIS) {
            return Err(over("millis", millis, MAX_BOT_MILLIS));
        }
        if let Some(depth) = self.depth.filter(|&d| d > MAX_BOT_DEPTH) {
            return Err(over("depth", u64::from(depth), u64::from(MAX_BOT_DEPTH)));
        }
        if let Some(seed) = self.seed.filter(|&s| s > MAX_SEED) {
            return Err(ApiError::unprocessable(
                "invalid_seed",
                format!("seed = {seed} is over the limit of {MAX_SEED}"),
            ));
        }
        let requested = Budget {
            nodes: self.nodes,
            millis: self.millis,
            depth: self.depth,
        };
        let budget = if requested.is_unlimited() {
            Budget::default_for(kind)
        } else {
            // A depth or a time alone would not bound the work.
            Budget {
                nodes: Some(self.nodes.unwrap_or(max_nodes)),
                ..requested
            }
        };
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
    /// The budget the search ran with, defaults and caps filled in.
    pub budget: BudgetView,
    /// Whether the same request always gets this answer, on any machine:
    /// true unless a searching bot had a `millis` budget, which stops it by
    /// the clock.
    pub reproducible: bool,
}

/// A bot's move on a position: the move, its evaluation, the principal
/// variation, nodes searched and time. Budgets are counted in work (positions
/// or playouts), capped per kind at about a second of search (`GET /v1/bots`
/// gives the caps), so the same request with the same seed gets the same
/// answer on any machine, unless it sets `millis` (then `reproducible` is
/// false). The search runs on the heavy-work pool: 503 `busy` with
/// `Retry-After` when it is full, 429 `too_many_heavy_requests` when this
/// client already has as many heavy requests running or waiting as it may.
/// The pool serves the clients in turn, so another client's backlog delays
/// a move by one of its tasks at most.
#[utoipa::path(
    tag = "bots",
    request_body = BotMoveRequest,
    responses(
        (status = 200, description = "The bot's move", body = BotMove),
        BodyErrors,
        (status = 422, description = "Invalid position, unknown bot kind (`unknown_bot`), a budget over the limits (`budget_too_large`, naming the cap), or a finished game (`game_over`); `perfect` on a game no installed table with depths covers (`no_tablebase`, `tablebase_other_game`, `tablebase_without_depths`: the detail names the tables installed and how a server gets one); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
    )
)]
#[post("/v1/bots/move")]
pub async fn bot_move(
    body: web::Json<Object<BotMoveRequest>>,
    heavy: HeavyClient,
    tables: web::Data<Tablebases>,
) -> Result<web::Json<BotMove>, ApiError> {
    let request = body.into_inner().0;
    let position = request.position.resolve()?;
    let config = request.bot.0.config()?;
    if position.legal_moves().is_empty() {
        return Err(IllegalMove::GameOver.into());
    }
    // Asked of the tables the bot plays from: with a table of its game it
    // plays from it, and without one it is refused here, never played.
    if config.kind == BotKind::Perfect {
        PerfectBot::covers(&tables, &position).map_err(|e| perfect_refused(&e))?;
    }
    let tables = tables.into_inner();
    let searched = position.clone();
    let result = heavy
        .run(search_cost(&config), move || {
            search::new_bot(&config, Some(&tables)).search(&searched)
        })
        .await?;
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
        budget: config.budget.into(),
        reproducible: config.is_reproducible(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(
        kind: &str,
        nodes: Option<u64>,
        millis: Option<u64>,
        depth: Option<u32>,
    ) -> BotRequest {
        BotRequest {
            kind: kind.to_owned(),
            seed: None,
            nodes,
            millis,
            depth,
        }
    }

    #[test]
    fn every_budget_is_bounded_in_work() {
        let budget = |r: BotRequest| r.config().unwrap().budget;
        // No budget: the kind's default.
        assert_eq!(
            budget(request("alphabeta", None, None, None)),
            Budget::nodes(20_000)
        );
        assert_eq!(
            budget(request("mcts", None, None, None)),
            Budget::nodes(1_000)
        );
        // A depth or a time alone: the kind's cap on nodes.
        let deep = budget(request("paranoid", None, None, Some(9)));
        assert_eq!((deep.nodes, deep.depth), (Some(MAX_BOT_NODES), Some(9)));
        let timed = budget(request("mcts", None, Some(500), None));
        assert_eq!(
            (timed.nodes, timed.millis),
            (Some(MAX_BOT_PLAYOUTS), Some(500))
        );
        // Never a time limit the request did not give.
        assert_eq!(
            budget(request("alphabeta", Some(5), None, None)).millis,
            None
        );
    }

    #[test]
    fn caps_are_per_kind_and_named_in_the_refusal() {
        let refusal = |r: BotRequest| r.config().unwrap_err().problem().clone();
        let mcts = refusal(request("mcts", Some(MAX_BOT_PLAYOUTS + 1), None, None));
        assert_eq!(mcts.code, "budget_too_large");
        assert!(mcts.detail.contains("4000"), "{}", mcts.detail);
        let alphabeta = refusal(request("alphabeta", Some(MAX_BOT_NODES + 1), None, None));
        assert!(alphabeta.detail.contains("400000"), "{}", alphabeta.detail);
        assert!(
            request("alphabeta", Some(MAX_BOT_NODES), None, None)
                .config()
                .is_ok()
        );
        assert!(
            request("mcts", Some(MAX_BOT_PLAYOUTS), None, None)
                .config()
                .is_ok()
        );
        assert_eq!(
            refusal(request("greedy", None, Some(MAX_BOT_MILLIS + 1), None)).code,
            "budget_too_large"
        );
    }

    #[test]
    fn only_a_clock_makes_an_answer_unreproducible() {
        let clock = |kind: &str, millis| {
            !request(kind, None, millis, None)
                .config()
                .unwrap()
                .is_reproducible()
        };
        assert!(clock("alphabeta", Some(100)));
        assert!(clock("mcts", Some(100)));
        assert!(!clock("alphabeta", None));
        assert!(
            !clock("greedy", Some(100)),
            "greedy never looks at the clock"
        );
    }
}
