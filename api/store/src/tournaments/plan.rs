//! A tournament as its creator asks for it, checked and turned into a
//! [`Plan`]: the game, the format, the settings within their ranges, the
//! entrants (bots checked, seeds drawn, a token minted for each open one)
//! and the schedule. Nothing is stored here; [`super::logic::create`]
//! stores the plan.

use sternhalma::wire::whole::Object;

use crate::bots::BotSpec;
use crate::error::{Error, Invalid};
use crate::matches::dto::MAX_NAME_CHARS;
use crate::matches::tokens::{new_token, random_u64};
use crate::names;
use crate::tournaments::dto::{
    DEFAULT_CONCURRENCY, DEFAULT_MAX_TIMEOUTS, DEFAULT_MOVE_MS, EntrantToken, MAX_CONCURRENCY,
    MAX_ENTRANTS, MAX_GAMES, MAX_MOVE_MS, MIN_MOVE_MS, NewTournamentRequest, TournamentStatus,
};
use crate::tournaments::logic::Plan;
use crate::tournaments::schedule::{self, Format};
use crate::tournaments::storage::EntrantRow;

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

/// Validates a creation request into a plan and the open entrants'
/// tokens.
pub fn plan(request: NewTournamentRequest) -> Result<(Plan, Vec<EntrantToken>), Error> {
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
    let max_plies = match request.max_plies {
        None => game.program_move_limit(),
        Some(limit) => limit,
    };
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
        let mut reference = request.reference.map_or_else(
            || BotSpec {
                kind: "greedy".to_owned(),
                seed: None,
                nodes: None,
                millis: None,
                depth: None,
            },
            |Object(spec)| spec,
        );
        reference.validate()?;
        reference.seed = Some(reference.seed.map_or_else(random_u64, Ok)?);
        entrants.push(EntrantRow {
            entrant: 0,
            name: format!("reference ({})", reference.kind),
            bot: Some(reference),
            token_hash: None,
            reference: true,
        });
    } else if request.reference.is_some() {
        return Err(Error::invalid(
            Invalid::ReferenceNotAllowed,
            "only a gauntlet has a reference bot",
        ));
    }
    if request.entrants.len() > MAX_ENTRANTS {
        return Err(Error::invalid(
            Invalid::TooManyEntrants,
            format!(
                "a tournament has at most {MAX_ENTRANTS} entrants, not {}",
                request.entrants.len()
            ),
        ));
    }
    // The skeletons of the names so far: two names that look alike on the
    // projector are one name too many.
    let mut looks: Vec<(String, String)> = Vec::new();
    for Object(mut entrant) in request.entrants {
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
            Some(Object(mut spec)) => {
                spec.validate()?;
                spec.seed = Some(spec.seed.map_or_else(random_u64, Ok)?);
                entrants.push(EntrantRow {
                    entrant: number,
                    name: entrant.name,
                    bot: Some(spec),
                    token_hash: None,
                    reference: false,
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
    if count > MAX_GAMES {
        return Err(Error::invalid(
            Invalid::TooManyGames,
            format!(
                "the schedule would have {count} games; at most {MAX_GAMES}: fewer entrants or fewer games per pairing"
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
            status: if request.start == Some(true) {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(body: serde_json::Value) -> NewTournamentRequest {
        serde_json::from_value(body).unwrap()
    }

    fn refusal(body: serde_json::Value) -> (&'static str, String) {
        let error = plan(request(body)).unwrap_err();
        (error.code(), error.to_string())
    }

    #[test]
    fn defaults_fill_the_settings_and_open_entrants_get_tokens() {
        let (plan, tokens) = plan(request(json!({
            "board": "star2",
            "layout": "2",
            "entrants": [{"name": "Ada"}, {"name": "Greedy", "bot": {"kind": "greedy"}}],
        })))
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
        let (plan, _) = plan(request(json!({
            "name": "  Cup ",
            "board": "star2",
            "layout": "2",
            "entrants": [{"name": "Ame\u{301}lie"}, {"name": "Bob"}],
        })))
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
}
