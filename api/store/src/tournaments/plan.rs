//! A tournament as its creator asks for it ([`TournamentRequest`]),
//! checked and turned into a [`Plan`]: the game, the format, the settings
//! within their ranges, the entrants (bots checked, seeds drawn, a token
//! minted for each open one) and the schedule. Nothing is stored here;
//! [`super::logic::create`] stores the plan.

use crate::bots::BotSpec;
use crate::error::{Error, Invalid};
use crate::matches::game::MAX_BOT_PLIES;
use crate::matches::model::MAX_NAME_CHARS;
use crate::matches::tokens::{new_token, random_u64};
use crate::names;
use crate::tournaments::logic::Plan;
use crate::tournaments::model::TournamentStatus;
use crate::tournaments::schedule::{self, Format};
use crate::tournaments::standings::Points;
use crate::tournaments::storage::EntrantRow;
use sternhalma::search::{BotKind, Budget};
use sternhalma::solve::Tablebases;

/// The per-move time limit of an open entrant when none is given.
pub const DEFAULT_MOVE_MS: u32 = 10_000;
/// The longest per-move time limit.
pub const MAX_MOVE_MS: u32 = 600_000;
/// The shortest per-move time limit.
pub const MIN_MOVE_MS: u32 = 100;
/// Timeouts in one game after which an entrant forfeits it, by default.
pub const DEFAULT_MAX_TIMEOUTS: u32 = 3;
/// Games played at once, by default.
pub const DEFAULT_CONCURRENCY: u32 = 4;
/// The most games played at once.
pub const MAX_CONCURRENCY: u32 = 64;
/// The most entrants in a tournament.
pub const MAX_ENTRANTS: usize = 64;
/// The most games in a tournament's schedule.
pub const MAX_GAMES: usize = 10_000;

/// A tournament as its creator asks for it: each setting as given, `None`
/// for its default. The game's fields (board, layout, rules, first
/// player) are left to the core's reader (`sternhalma::wire::new_game`),
/// as for matches.
#[derive(Clone, Debug, Default)]
pub struct TournamentRequest {
    /// Display name.
    pub name: Option<String>,
    /// Board, layout, rules, first player, as the core's reader takes them.
    pub game: serde_json::Map<String, serde_json::Value>,
    /// The move limit: `None` for the program's default, `Some(None)` for
    /// none.
    pub max_plies: Option<Option<u32>>,
    /// The format.
    pub format: Option<Format>,
    /// Games per group of entrants.
    pub games_per_pairing: Option<u32>,
    /// The gauntlet's reference bot.
    pub reference: Option<BotSpec>,
    /// Per-move time limit.
    pub move_ms: Option<u32>,
    /// Timeouts before a forfeit.
    pub max_timeouts: Option<u32>,
    /// Games at once.
    pub concurrency: Option<u32>,
    /// Points per opponent.
    pub points: Option<Points>,
    /// The entrants.
    pub entrants: Vec<EntrantRequest>,
    /// Start at once.
    pub start: bool,
}

/// An entrant as its creator asks for it.
#[derive(Clone, Debug)]
pub struct EntrantRequest {
    /// Display name.
    pub name: String,
    /// A built-in bot (its seed drawn when absent); `None` for an open
    /// entrant.
    pub bot: Option<BotSpec>,
}

/// An open entrant's token, minted by [`plan`]: given to the creator
/// once, only its hash kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrantToken {
    /// The entrant's number.
    pub entrant: usize,
    /// Display name.
    pub name: String,
    /// The token's text.
    pub token: String,
}

/// The longest name of a tournament.
pub const MAX_TOURNAMENT_NAME_CHARS: usize = 80;
/// The most games per group.
pub const MAX_GAMES_PER_PAIRING: u32 = 1_000;
/// The most timeouts before a forfeit.
pub const MAX_MAX_TIMEOUTS: u32 = 100;
fn setting(name: &str, value: Option<u32>, default: u32, range: (u32, u32)) -> Result<u32, Error> {
    let value = value.unwrap_or(default);
    if !(range.0..=range.1).contains(&value) {
        return Err(Error::invalid(
            Invalid::Setting,
            format!("{name} must be {} to {}, not {value}", range.0, range.1),
        ));
    }
    Ok(value)
}

/// How big a tournament one request may make: what a class's server
/// allows anyone ([`TournamentLimits::classroom`]) and what its operator
/// may ask for with the server's admin key ([`TournamentLimits::operator`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TournamentLimits {
    /// The most entrants.
    pub entrants: usize,
    /// The most games in the schedule.
    pub games: usize,
    /// The most search the built-in bots may do in all, as [`work`]
    /// bounds it; `None`: no bound.
    pub work: Option<u64>,
}

impl TournamentLimits {
    /// Anyone's tournament on a server without an admin key: a class of
    /// forty, a thousand games, and at most five billion positions of bot
    /// search in all: between three quarters of an hour and two hours of
    /// both cores at the rates BENCHMARKS.md's "Seat caps" measured
    /// (200,000 positions in 0.21 to 0.53 s of one thread).
    pub const fn classroom() -> TournamentLimits {
        TournamentLimits {
            entrants: 40,
            games: 1_000,
            work: Some(5_000_000_000),
        }
    }

    /// The operator's (the server's admin key): the schema's own maxima,
    /// no bound on the bots' work.
    pub const fn operator() -> TournamentLimits {
        TournamentLimits {
            entrants: MAX_ENTRANTS,
            games: MAX_GAMES,
            work: None,
        }
    }
}

/// An upper bound of the search the built-in bots of a schedule do, in the
/// units their budgets count (positions for alpha-beta and paranoid,
/// playouts for MCTS): per game, for each seat a bot holds, its share of
/// the game's plies (`ply_bound / players`, the ply bound being the move
/// limit, or when the game has none the limit after which a game of bots
/// only is abandoned) times its budget for a move (1 for the bots that do
/// not search). Open entrants cost the server nothing.
pub fn work(games: &[Vec<usize>], entrants: &[EntrantRow], ply_bound: u32, players: usize) -> u64 {
    let per_move = |entrant: usize| -> u64 {
        let Some(bot) = entrants.get(entrant).and_then(|e| e.bot.as_ref()) else {
            return 0;
        };
        match bot.kind.parse::<BotKind>() {
            Ok(BotKind::Random | BotKind::Greedy | BotKind::Perfect) | Err(_) => 1,
            Ok(kind) => bot.nodes.or(Budget::default_for(kind).nodes).unwrap_or(1),
        }
    };
    let share = u64::from(ply_bound).div_ceil(players.max(1) as u64);
    games
        .iter()
        .flatten()
        .map(|&entrant| share.saturating_mul(per_move(entrant)))
        .fold(0_u64, u64::saturating_add)
}

/// What a refusal by `limits` adds: how to get more, where there is more.
fn raise_hint(limits: TournamentLimits) -> &'static str {
    if limits == TournamentLimits::operator() {
        ""
    } else {
        " (the server's admin key allows more)"
    }
}

/// Validates a creation request into a plan and the open entrants'
/// tokens, within `limits`; a `perfect` bot is checked against `tables`
/// ([`BotSpec::validate_at`]).
pub fn plan(
    request: TournamentRequest,
    limits: TournamentLimits,
    tables: &Tablebases,
) -> Result<(Plan, Vec<EntrantToken>), Error> {
    let name = request.name.unwrap_or_else(|| "tournament".to_owned());
    let name = names::normalize(&name, MAX_TOURNAMENT_NAME_CHARS).map_err(|problem| {
        Error::invalid(
            Invalid::Name,
            format!(
                "the tournament's name: {}",
                problem.describe(MAX_TOURNAMENT_NAME_CHARS)
            ),
        )
    })?;
    let game = sternhalma::wire::new_game(&serde_json::Value::Object(request.game))?;
    let max_plies = game.requested_move_limit(request.max_plies);
    let start = game.with_max_plies(max_plies).start()?;
    let players = start.layout().player_count();
    if !(2..=6).contains(&players) {
        return Err(Error::invalid(
            Invalid::PlayersPerGame,
            format!("a tournament game has 2 to 6 players; this layout has {players}"),
        ));
    }
    let format = request.format.unwrap_or(Format::RoundRobin);
    let games_per_pairing = setting(
        "games_per_pairing",
        request.games_per_pairing,
        players as u32,
        (1, MAX_GAMES_PER_PAIRING),
    )?;
    let move_ms = setting(
        "move_ms",
        request.move_ms,
        DEFAULT_MOVE_MS,
        (MIN_MOVE_MS, MAX_MOVE_MS),
    )?;
    let max_timeouts = setting(
        "max_timeouts",
        request.max_timeouts,
        DEFAULT_MAX_TIMEOUTS,
        (1, MAX_MAX_TIMEOUTS),
    )?;
    let concurrency = setting(
        "concurrency",
        request.concurrency,
        DEFAULT_CONCURRENCY,
        (1, MAX_CONCURRENCY),
    )?;
    let points = request.points.unwrap_or_default();
    if ![points.win, points.draw, points.loss]
        .iter()
        .all(|p| p.is_finite())
    {
        return Err(Error::invalid(
            Invalid::Setting,
            "points must be finite numbers",
        ));
    }
    let mut entrants = Vec::new();
    let mut tokens = Vec::new();
    if format == Format::Gauntlet {
        if players != 2 {
            return Err(Error::invalid(
                Invalid::GauntletPlayers,
                format!(
                    "a gauntlet is played one against one (a two-player layout), not {players} players"
                ),
            ));
        }
        let mut reference = request.reference.unwrap_or_else(|| BotSpec {
            kind: "greedy".to_owned(),
            seed: None,
            nodes: None,
            millis: None,
            depth: None,
        });
        reference.validate_at(&start, tables)?;
        reference.seed = Some(reference.seed.map_or_else(random_u64, Ok)?);
        entrants.push(EntrantRow {
            entrant: 0,
            name: format!("reference ({})", reference.kind),
            bot: Some(reference),
            token_hash: None,
            reference: true,
            withdrawn_at: None,
            absent_since: None,
        });
    } else if request.reference.is_some() {
        return Err(Error::invalid(
            Invalid::ReferenceNotAllowed,
            "only a gauntlet has a reference bot",
        ));
    }
    if request.entrants.len() > limits.entrants {
        return Err(Error::invalid(
            Invalid::TooManyEntrants,
            format!(
                "a tournament has at most {} entrants on this server, not {}{}",
                limits.entrants,
                request.entrants.len(),
                raise_hint(limits)
            ),
        ));
    }
    // The skeletons of the names so far: two names that look alike on the
    // projector are one name too many.
    let mut looks: Vec<(String, String)> = Vec::new();
    for mut entrant in request.entrants {
        let number = entrants.len();
        entrant.name = names::normalize(&entrant.name, MAX_NAME_CHARS).map_err(|problem| {
            Error::invalid(
                Invalid::EntrantName,
                format!("entrant {number}: {}", problem.describe(MAX_NAME_CHARS)),
            )
        })?;
        let look = names::skeleton(&entrant.name);
        if let Some((other, _)) = looks.iter().find(|(_, seen)| *seen == look) {
            let detail = if *other == entrant.name {
                format!(
                    "two entrants are named {:?}; names must differ",
                    entrant.name
                )
            } else {
                format!(
                    "entrants {other:?} and {:?} look the same; names must differ at a glance",
                    entrant.name
                )
            };
            return Err(Error::invalid(Invalid::DuplicateEntrantName, detail));
        }
        looks.push((entrant.name.clone(), look));
        match entrant.bot {
            Some(mut spec) => {
                spec.validate_at(&start, tables)?;
                spec.seed = Some(spec.seed.map_or_else(random_u64, Ok)?);
                entrants.push(EntrantRow {
                    entrant: number,
                    name: entrant.name,
                    bot: Some(spec),
                    token_hash: None,
                    reference: false,
                    withdrawn_at: None,
                    absent_since: None,
                });
            }
            None => {
                let (token, hash) = new_token()?;
                tokens.push(EntrantToken {
                    entrant: number,
                    name: entrant.name.clone(),
                    token,
                });
                entrants.push(EntrantRow {
                    entrant: number,
                    name: entrant.name,
                    bot: None,
                    token_hash: Some(hash.to_vec()),
                    reference: false,
                    withdrawn_at: None,
                    absent_since: None,
                });
            }
        }
    }
    let (playing, reference): (Vec<usize>, Option<usize>) = match format {
        Format::Gauntlet => ((1..entrants.len()).collect(), Some(0)),
        Format::RoundRobin => ((0..entrants.len()).collect(), None),
    };
    let needed = if format == Format::Gauntlet {
        1
    } else {
        players
    };
    if playing.len() < needed {
        return Err(Error::invalid(
            Invalid::TooFewEntrants,
            format!(
                "this tournament needs at least {needed} entrants, not {}",
                playing.len()
            ),
        ));
    }
    let count = schedule::count(format, playing.len(), players, games_per_pairing as usize);
    if count > limits.games {
        return Err(Error::invalid(
            Invalid::TooManyGames,
            format!(
                "the schedule would have {count} games; at most {} on this server: fewer entrants or fewer games per pairing{}",
                limits.games,
                raise_hint(limits)
            ),
        ));
    }
    let games = schedule::games(
        format,
        &playing,
        reference,
        players,
        games_per_pairing as usize,
    );
    if let Some(most) = limits.work {
        let bound = max_plies.unwrap_or(MAX_BOT_PLIES);
        let needed = work(&games, &entrants, bound, players);
        if needed > most {
            return Err(Error::invalid(
                Invalid::TooMuchWork,
                format!(
                    "the bots could search up to {needed} positions in all ({count} games of up to {bound} plies), over this server's {most}: fewer games, smaller `nodes` budgets or a move limit{}",
                    raise_hint(limits)
                ),
            ));
        }
    }
    Ok((
        Plan {
            name,
            start,
            format,
            games_per_pairing,
            move_ms,
            max_timeouts,
            concurrency,
            points,
            status: if request.start {
                TournamentStatus::Running
            } else {
                TournamentStatus::Waiting
            },
            entrants,
            schedule: games,
        },
        tokens,
    ))
}

/// A request written as the JSON of `POST /v1/tournaments`, for the
/// tests (the server's wire reads the real ones).
#[cfg(test)]
pub(crate) fn request(body: serde_json::Value) -> TournamentRequest {
    use serde_json::Value;
    let Value::Object(mut fields) = body else {
        panic!("a request is an object");
    };
    let spec = |value: Value| -> BotSpec { serde_json::from_value(value).unwrap() };
    let number =
        |value: Option<Value>| value.map(|value| u32::try_from(value.as_u64().unwrap()).unwrap());
    let name = fields.remove("name");
    let format = fields.remove("format");
    let games_per_pairing = fields.remove("games_per_pairing");
    let reference = fields.remove("reference");
    let move_ms = fields.remove("move_ms");
    let max_timeouts = fields.remove("max_timeouts");
    let concurrency = fields.remove("concurrency");
    let points = fields.remove("points");
    let entrants = fields.remove("entrants");
    let start = fields.remove("start");
    let max_plies = fields.remove("max_plies");
    TournamentRequest {
        name: name.map(|name| name.as_str().unwrap().to_owned()),
        max_plies: max_plies.map(|limit| limit.as_u64().map(|n| u32::try_from(n).unwrap())),
        format: format.map(|format| Format::from_name(format.as_str().unwrap()).unwrap()),
        games_per_pairing: number(games_per_pairing),
        reference: reference.map(spec),
        move_ms: number(move_ms),
        max_timeouts: number(max_timeouts),
        concurrency: number(concurrency),
        points: points.map(|points| serde_json::from_value(points).unwrap()),
        entrants: entrants
            .and_then(|list| list.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .map(|entrant| EntrantRequest {
                name: entrant["name"].as_str().unwrap().to_owned(),
                bot: entrant.get("bot").cloned().map(spec),
            })
            .collect(),
        start: start == Some(Value::Bool(true)),
        game: fields,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn class(body: serde_json::Value) -> Result<(Plan, Vec<EntrantToken>), Error> {
        plan(
            request(body),
            TournamentLimits::classroom(),
            &Tablebases::default(),
        )
    }

    fn refusal(body: serde_json::Value) -> (&'static str, String) {
        let error = plan(
            request(body),
            TournamentLimits::classroom(),
            &Tablebases::default(),
        )
        .unwrap_err();
        (error.code(), error.to_string())
    }

    #[test]
    fn defaults_fill_the_settings_and_open_entrants_get_tokens() {
        let (plan, tokens) = class(json!({
            "board": "star2",
            "layout": "2",
            "entrants": [{"name": "Ada"}, {"name": "Greedy", "bot": {"kind": "greedy"}}],
        }))
        .unwrap();
        assert_eq!(plan.name, "tournament");
        assert_eq!(plan.format, Format::RoundRobin);
        assert_eq!(plan.games_per_pairing, 2, "one game per seat rotation");
        assert_eq!(plan.move_ms, DEFAULT_MOVE_MS);
        assert_eq!(plan.max_timeouts, DEFAULT_MAX_TIMEOUTS);
        assert_eq!(plan.status, TournamentStatus::Waiting);
        assert_eq!(plan.schedule.len(), 2);
        assert_eq!(tokens.len(), 1, "only the open entrant has a token");
        assert_eq!(tokens[0].name, "Ada");
        assert!(
            plan.entrants[1].bot.as_ref().unwrap().seed.is_some(),
            "a seed is drawn"
        );
    }

    #[test]
    fn names_are_normalised_and_look_alikes_refused() {
        let (plan, _) = class(json!({
            "name": "  Cup ",
            "board": "star2",
            "layout": "2",
            "entrants": [{"name": "Ame\u{301}lie"}, {"name": "Bob"}],
        }))
        .unwrap();
        assert_eq!(plan.name, "Cup");
        assert_eq!(plan.entrants[0].name, "Am\u{e9}lie");
        let body = |a: &str, b: &str| json!({"board": "star2", "layout": "2", "entrants": [{"name": a}, {"name": b}]});
        let (code, detail) = refusal(body("ada", "\u{430}da"));
        assert_eq!(code, "duplicate_entrant_name");
        assert!(detail.contains("look the same"), "{detail}");
        assert_eq!(refusal(body("ada", "ada")).0, "duplicate_entrant_name");
        let (code, detail) = refusal(body("ada", "\u{202e}bob"));
        assert_eq!(code, "invalid_entrant_name");
        assert!(detail.starts_with("entrant 1:"), "{detail}");
        assert_eq!(refusal(body("\u{200b}", "bob")).0, "invalid_entrant_name");
        assert_eq!(refusal(body(" ", "bob")).0, "invalid_entrant_name");
    }

    #[test]
    fn each_refusal_has_its_code() {
        let two = json!([{"name": "A"}, {"name": "B"}]);
        let cases = [
            (
                json!({"board": "star2", "layout": "2", "entrants": two, "move_ms": 1}),
                "invalid_setting",
            ),
            (
                json!({"board": "star2", "layout": "2", "entrants": [{"name": "A"}]}),
                "too_few_entrants",
            ),
            (
                json!({"board": "star2", "layout": "3", "format": "gauntlet", "entrants": two}),
                "gauntlet_players",
            ),
            (
                json!({"board": "star2", "layout": "2", "entrants": two,
                       "reference": {"kind": "greedy"}}),
                "reference_not_allowed",
            ),
            (
                json!({"board": "star2", "layout": "2", "entrants": two,
                       "points": {"win": 1.0, "draw": 0.5, "loss": 0.0}, "name": ""}),
                "invalid_name",
            ),
            (
                json!({"board": "star2", "layout": "2",
                       "entrants": [{"name": "A", "bot": {"kind": "alphazero"}}, {"name": "B"}]}),
                "unknown_bot",
            ),
        ];
        for (body, code) in cases {
            assert_eq!(refusal(body.clone()).0, code, "{body}");
        }
    }

    /// The big tournament of the issue: 64 alpha-beta bots at their cap.
    fn big() -> serde_json::Value {
        let entrants: Vec<serde_json::Value> = (0..64)
            .map(|i| json!({"name": format!("bot {i}"), "bot": {"kind": "alphabeta", "nodes": 200_000}}))
            .collect();
        json!({"board": "star2", "layout": "2", "games_per_pairing": 4, "entrants": entrants})
    }

    #[test]
    fn a_class_tournament_is_bounded_in_size_and_work_and_the_operator_is_not() {
        // 64 entrants: over a class's 40.
        assert_eq!(refusal(big()).0, "too_many_entrants");
        // 20 alpha-beta bots at their cap: 760 games of up to 400 plies.
        let mut body = big();
        body["entrants"].as_array_mut().unwrap().truncate(20);
        body["games_per_pairing"] = json!(2);
        let (code, detail) = refusal(body.clone());
        assert_eq!(code, "too_much_work", "{detail}");
        assert!(detail.contains("admin key"), "{detail}");
        // Greedy bots search nothing: the same schedule is a class's.
        for entrant in body["entrants"].as_array_mut().unwrap() {
            entrant["bot"] = json!({"kind": "greedy"});
        }
        assert!(class(body).is_ok());
        // The operator's limits take the big one (8,064 games).
        let (plan, _) = plan(
            request(big()),
            TournamentLimits::operator(),
            &Tablebases::default(),
        )
        .unwrap();
        assert_eq!(plan.schedule.len(), 64 * 63 * 2);
    }

    #[test]
    fn work_counts_each_bots_share_of_the_plies_times_its_budget() {
        let bot = |kind: &str, nodes: Option<u64>| EntrantRow {
            entrant: 0,
            name: String::new(),
            bot: Some(BotSpec {
                kind: kind.to_owned(),
                seed: Some(1),
                nodes,
                millis: None,
                depth: None,
            }),
            token_hash: None,
            reference: false,
            withdrawn_at: None,
            absent_since: None,
        };
        let open = EntrantRow {
            bot: None,
            token_hash: Some(vec![0; 32]),
            ..bot("random", None)
        };
        let entrants = vec![
            open,
            bot("alphabeta", Some(1000)),
            bot("random", None),
            bot("mcts", None),
        ];
        // Two players, 100 plies: 50 moves a seat.
        assert_eq!(work(&[vec![0, 1]], &entrants, 100, 2), 50 * 1000);
        assert_eq!(work(&[vec![0, 2]], &entrants, 100, 2), 50);
        assert_eq!(
            work(&[vec![1, 3], vec![3, 1]], &entrants, 100, 2),
            2 * 50 * (1000 + 1000)
        );
        assert_eq!(
            work(&[vec![0, 0]], &entrants, 100, 2),
            0,
            "open entrants cost nothing"
        );
    }
}
