//! `POST /v1/tournaments`: the body as read ([`NewTournamentRequest`]),
//! its schema ([`NewTournament`]), and the store's request made from it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use sternhalma::wire::view::RulesInput;
use sternhalma::wire::whole::Object;
use sternhalma_store::tournaments::plan;

use super::{Format, Points};
use crate::wire::bots::BotSpec;

/// An entrant in the creation request: a name, and a bot for a built-in
/// bot (without one, an open entrant that plays through its token).
#[derive(Clone, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "ada"}))]
pub struct EntrantRequest {
    /// Display name, 1 to 40 characters, unique in the tournament.
    #[schema(example = "ada")]
    pub name: String,
    /// A built-in bot (its `seed` is drawn at random when absent).
    #[schema(value_type = Option<BotSpec>)]
    pub bot: Option<Object<BotSpec>>,
}

/// What `POST /v1/tournaments` reads (the game fields are taken by the
/// core's reader, as for matches).
#[derive(Clone, Debug, Deserialize)]
pub struct NewTournamentRequest {
    /// Display name.
    pub name: Option<String>,
    /// The format.
    pub format: Option<Format>,
    /// Games per group of entrants.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub games_per_pairing: Option<u32>,
    /// The gauntlet's reference bot.
    pub reference: Option<Object<BotSpec>>,
    /// Per-move time limit.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub move_ms: Option<u32>,
    /// Timeouts before a forfeit.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub max_timeouts: Option<u32>,
    /// Games at once.
    #[serde(default, deserialize_with = "sternhalma::wire::whole::optional")]
    pub concurrency: Option<u32>,
    /// Points per opponent.
    pub points: Option<Points>,
    /// The entrants.
    pub entrants: Vec<Object<EntrantRequest>>,
    /// Start at once.
    pub start: Option<bool>,
    /// The move limit (`null`: none; absent: the program's default).
    #[serde(default, deserialize_with = "sternhalma::wire::whole::nullable")]
    pub max_plies: Option<Option<u32>>,
    /// Board, layout, rules, first player.
    #[serde(flatten)]
    pub game: serde_json::Map<String, serde_json::Value>,
}

impl From<NewTournamentRequest> for plan::TournamentRequest {
    fn from(request: NewTournamentRequest) -> plan::TournamentRequest {
        plan::TournamentRequest {
            name: request.name,
            game: request.game,
            max_plies: request.max_plies,
            format: request.format.map(Into::into),
            games_per_pairing: request.games_per_pairing,
            reference: request.reference.map(|Object(spec)| spec.into()),
            move_ms: request.move_ms,
            max_timeouts: request.max_timeouts,
            concurrency: request.concurrency,
            points: request.points.map(Into::into),
            entrants: request
                .entrants
                .into_iter()
                .map(|Object(entrant)| plan::EntrantRequest {
                    name: entrant.name,
                    bot: entrant.bot.map(|Object(spec)| spec.into()),
                })
                .collect(),
            start: request.start == Some(true),
        }
    }
}

/// A new tournament: the game as for `POST /v1/positions` (board, layout,
/// rules, first player) and `max_plies` as for matches, the format, the
/// entrants, and the clock. The layout's player count is the number of
/// players per game (2 to 6).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
#[schema(example = json!({
    "name": "Class 3B",
    "board": "star4",
    "layout": "2",
    "rules": "classic",
    "format": "round_robin",
    "games_per_pairing": 2,
    "move_ms": 10000,
    "entrants": [{"name": "ada"}, {"name": "grace"}, {"name": "greedy", "bot": {"kind": "greedy"}}]
}))]
pub struct NewTournament {
    /// Display name (default `tournament`).
    #[schema(example = "Class 3B")]
    pub name: Option<String>,
    /// Board name (default `star4`).
    #[schema(example = "star4")]
    pub board: Option<String>,
    /// Layout (default `2`): its player count is the players per game.
    #[schema(example = "2")]
    pub layout: Option<String>,
    /// Rules: a preset name, an object of options, or a preset with
    /// overrides (default `classic`).
    pub rules: Option<RulesInput>,
    /// The first player (default 0).
    pub first_player: Option<usize>,
    /// The move limit per game: `null` for none; absent, the program's
    /// default for the board and layout (as for matches).
    #[schema(value_type = Option<u64>, nullable, minimum = 0, maximum = 4294967295.0, example = 400)]
    pub max_plies: Option<u64>,
    /// `round_robin` (default): every group of entrants plays
    /// `games_per_pairing` games, seats rotated; `gauntlet`: every entrant
    /// plays `games_per_pairing` games against `reference`.
    pub format: Option<Format>,
    /// Games per group (per entrant for a gauntlet); default: the players
    /// per game, so that every entrant plays every start position once.
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 1000)]
    pub games_per_pairing: Option<u32>,
    /// The gauntlet's reference bot (default `{"kind": "greedy"}`); it
    /// takes every seat but the entrant's. Only for a gauntlet.
    pub reference: Option<BotSpec>,
    /// An open entrant's time per move, in milliseconds (default 10000,
    /// 100 to 600000). Missed: a timeout, and the greedy bot's move is
    /// played for it.
    #[schema(value_type = Option<u64>, minimum = 100, maximum = 600000)]
    pub move_ms: Option<u32>,
    /// Timeouts in one game after which the entrant forfeits it (default 3,
    /// 1 to 100).
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 100)]
    pub max_timeouts: Option<u32>,
    /// Games played at once (default 4, 1 to 64).
    #[schema(value_type = Option<u64>, minimum = 1, maximum = 64)]
    pub concurrency: Option<u32>,
    /// Points per opponent (default win 1, draw 0.5, loss 0).
    pub points: Option<Points>,
    /// Start at once (default false: the admin token starts it).
    pub start: Option<bool>,
    /// The entrants (2 to 64; at least the players per game for a round
    /// robin).
    pub entrants: Vec<EntrantRequest>,
}
