//! A built-in bot as a request names it and a state shows it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use sternhalma_store::bots::BotSpec as Spec;

/// A built-in bot: its kind and settings. Settings a kind does not use are
/// kept (and ignored).
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "random", "seed": 7}))]
pub struct BotSpec {
    /// The kind of bot: `random`, `greedy`, `alphabeta`, `paranoid`,
    /// `mcts` or `perfect` (`GET /v1/bots` describes them; `perfect` only
    /// on a game an installed table with depths covers).
    #[schema(example = "random", value_type = sternhalma::search::BotKind)]
    pub kind: String,
    /// The seed of its choices; a random one is chosen (and stored) when
    /// absent. The same seed replays the same choices. A match's state
    /// shows it only once the match is over.
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 18446744073709551615.0)]
    pub seed: Option<u64>,
    /// Search budget per move: positions for `alphabeta` and `paranoid`
    /// (default 20000, at most 200000), playouts for `mcts` (default 1000,
    /// at most 5000); unused by `random` and `greedy`.
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 18446744073709551615.0)]
    pub nodes: Option<u64>,
    /// Not allowed for a seat (a 422 `budget_not_allowed`): a seat's moves
    /// must replay the same from its seed, which a clock would break. Use
    /// `nodes`.
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 18446744073709551615.0)]
    pub millis: Option<u64>,
    /// Search depth limit in plies, at most 64 (the node budget applies
    /// too).
    #[serde(
        default,
        deserialize_with = "sternhalma::wire::whole::optional",
        skip_serializing_if = "Option::is_none"
    )]
    #[schema(value_type = Option<u64>, minimum = 0, maximum = 4294967295.0)]
    pub depth: Option<u32>,
}

impl From<BotSpec> for Spec {
    fn from(wire: BotSpec) -> Spec {
        Spec {
            kind: wire.kind,
            seed: wire.seed,
            nodes: wire.nodes,
            millis: wire.millis,
            depth: wire.depth,
        }
    }
}

impl BotSpec {
    /// `spec` as a state shows it: its seed only when `reveal` (once the
    /// game is over: with it anyone could compute the bot's next move).
    pub fn shown(spec: &Spec, reveal: bool) -> BotSpec {
        BotSpec {
            kind: spec.kind.clone(),
            seed: spec.seed.filter(|_| reveal),
            nodes: spec.nodes,
            millis: spec.millis,
            depth: spec.depth,
        }
    }
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

/// A seat's (or an entrant's) kind and bot as shown: the seed only when
/// `reveal` ([`BotSpec::shown`]).
pub fn shown_bot(bot: Option<&Spec>, reveal: bool) -> (SeatKind, Option<BotSpec>) {
    match bot {
        Some(spec) => (SeatKind::Bot, Some(BotSpec::shown(spec, reveal))),
        None => (SeatKind::Open, None),
    }
}
