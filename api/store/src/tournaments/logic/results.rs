//! What the games came to: each game's result as the schedule shows it,
//! judged once when it ends, and the standings.

use serde::{Deserialize, Serialize};
use sternhalma::solve::Tablebases;

use super::*;

/// A finished game's result by entrant, with every seat's result.
pub(super) fn game_result(
    connection: &Db,
    match_id: i64,
    seats_entrants: &[usize],
    entrants: &[EntrantRow],
) -> Result<Option<(GameResult, Vec<f64>)>, Error> {
    let row = game::load_match(connection, match_id)?;
    let seats = match_storage::load_seats(connection, match_id)?;
    let position = game::parse_position(&row.position)?;
    let Some(result) = game::result(&row, &seats, &position) else {
        return Ok(None);
    };
    if result.ending.status() == MatchStatus::Abandoned {
        return Ok(None);
    }
    // The match's places; the entrant of each seat added, and its name.
    let places: Vec<Place> = result
        .places
        .iter()
        .map(|p| Place {
            place: p.place,
            seat: p.seat,
            entrant: seats_entrants.get(p.seat).copied().unwrap_or(p.seat),
            name: seats_entrants
                .get(p.seat)
                .and_then(|&e| entrants.get(e))
                .map_or_else(|| format!("seat {}", p.seat), |e| e.name.clone()),
            result: p.result,
        })
        .collect();
    Ok(Some((
        GameResult {
            ending: result.ending,
            resigned_seat: resigner(result.ending, &places),
            places,
        },
        result.results,
    )))
}

/// The seat that resigned a game that ended by a resignation: the one in
/// last place (a resigner is last, every other seat shares first place).
fn resigner(ending: Ending, places: &[Place]) -> Option<usize> {
    (ending == Ending::Resignation)
        .then(|| places.last().map(|p| p.seat))
        .flatten()
}

/// Tournament `id`'s schedule with every game's state and result.
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament; database failures.
pub fn games(connection: &Db, id: i64) -> Result<Vec<TournamentGame>, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut games = Vec::new();
    for game in storage::load_games(connection, id)? {
        games.push(tournament_game(connection, &row, &entrants, &game)?.game);
    }
    Ok(games)
}

/// A game's outcome as [`settle`] records it when the game is over (as
/// JSON, in its row): what [`tournament_game`] would derive from the
/// match, kept so that it is derived once.
#[derive(Serialize, Deserialize)]
pub(super) struct Outcome {
    seats: Vec<RecordedSeat>,
    result: Option<RecordedResult>,
    results: Option<Vec<f64>>,
    /// Each seat's moves judged against perfect play, when a table covered
    /// the game as it was recorded (absent from outcomes recorded before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    judged: Option<Vec<Judged>>,
}

/// A seat as an [`Outcome`] records it.
#[derive(Serialize, Deserialize)]
struct RecordedSeat {
    seat: usize,
    entrant: usize,
    name: String,
    timeouts: u32,
    forfeited: bool,
}

/// A result as an [`Outcome`] records it. (Outcomes recorded before the
/// words were the server's also hold a `summary`, read no more.)
#[derive(Serialize, Deserialize)]
struct RecordedResult {
    #[serde(with = "ending_name")]
    ending: Ending,
    places: Vec<RecordedPlace>,
}

/// A place as an [`Outcome`] records it.
#[derive(Serialize, Deserialize)]
struct RecordedPlace {
    place: usize,
    seat: usize,
    entrant: usize,
    name: String,
    result: f64,
}

/// An ending recorded by its name ([`Ending::as_str`]).
mod ending_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::matches::status::Ending;

    pub(super) fn serialize<S: Serializer>(ending: &Ending, to: S) -> Result<S::Ok, S::Error> {
        to.serialize_str(ending.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Ending, D::Error> {
        let name = String::deserialize(from)?;
        Ending::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown ending {name:?}")))
    }
}

impl Outcome {
    /// The outcome of `game` to record.
    fn of(
        game: &TournamentGame,
        results: Option<Vec<f64>>,
        judged: Option<Vec<Judged>>,
    ) -> Outcome {
        Outcome {
            seats: game
                .seats
                .iter()
                .map(|s| RecordedSeat {
                    seat: s.seat,
                    entrant: s.entrant,
                    name: s.name.clone(),
                    timeouts: s.timeouts,
                    forfeited: s.forfeited,
                })
                .collect(),
            result: game.result.as_ref().map(|r| RecordedResult {
                ending: r.ending,
                places: r
                    .places
                    .iter()
                    .map(|p| RecordedPlace {
                        place: p.place,
                        seat: p.seat,
                        entrant: p.entrant,
                        name: p.name.clone(),
                        result: p.result,
                    })
                    .collect(),
            }),
            results,
            judged,
        }
    }

    /// Game `game` (where it stands: `status`; its match: `match_id`)
    /// with the seats and result recorded.
    fn read(self, game: usize, status: GameStatus, match_id: Option<i64>) -> GameRead {
        let seats = self
            .seats
            .into_iter()
            .map(|s| GameSeat {
                seat: s.seat,
                entrant: s.entrant,
                name: s.name,
                timeouts: s.timeouts,
                forfeited: s.forfeited,
            })
            .collect();
        let result = self.result.map(|r| {
            let places: Vec<Place> = r
                .places
                .into_iter()
                .map(|p| Place {
                    place: p.place,
                    seat: p.seat,
                    entrant: p.entrant,
                    name: p.name,
                    result: p.result,
                })
                .collect();
            GameResult {
                ending: r.ending,
                resigned_seat: resigner(r.ending, &places),
                places,
            }
        });
        GameRead {
            game: TournamentGame {
                game,
                status,
                match_id,
                seats,
                result,
            },
            results: self.results,
            judged: self.judged,
        }
    }
}

/// The JSON of `game`'s outcome, as [`settle`] records it.
pub(super) fn recorded(
    game: &TournamentGame,
    results: Option<Vec<f64>>,
    judged: Option<Vec<Judged>>,
) -> Result<String, Error> {
    serde_json::to_string(&Outcome::of(game, results, judged))
        .map_err(|e| Error::Internal(format!("an outcome as JSON: {e}")))
}

/// Match `match_id`'s moves judged against perfect play by a table of
/// `tables` ([`game::analysed`]), per seat; `None` when no table covers
/// its game. Only extra information for the standings: a failure to
/// replay the match leaves the game unjudged rather than stopping the
/// tournament.
pub(super) fn judge(connection: &Db, tables: &Tablebases, match_id: i64) -> Option<Vec<Judged>> {
    let analysis = game::analysed(connection, tables, match_id)
        .ok()
        .flatten()?;
    Some(
        analysis
            .seats
            .iter()
            .map(|seat| Judged {
                moves: seat.moves,
                kept: seat.kept,
                mistakes: seat.mistakes,
            })
            .collect(),
    )
}

/// A game of the schedule as [`tournament_game`] reads it.
pub(super) struct GameRead {
    /// The game.
    pub(super) game: TournamentGame,
    /// Its seats' results, once finished.
    pub(super) results: Option<Vec<f64>>,
    /// Its seats' moves judged against perfect play, once recorded.
    pub(super) judged: Option<Vec<Judged>>,
}

/// One game of the schedule, and its seats' results once finished: from
/// its recorded outcome once there is one, else from its match.
pub(super) fn tournament_game(
    connection: &Db,
    row: &TournamentRow,
    entrants: &[EntrantRow],
    game: &GameRow,
) -> Result<GameRead, Error> {
    let status = game_status(game);
    if let Some(json) = &game.outcome {
        let outcome: Outcome = serde_json::from_str(json)
            .map_err(|e| corrupt(format!("the outcome of game {}: {e}", game.game)))?;
        return Ok(outcome.read(game.game, status, game.match_id));
    }
    let (timeouts, forfeits) = match game.match_id {
        Some(match_id) => (
            per_seat_timeouts(connection, match_id, game.entrants.len())?,
            match_storage::load_forfeits(connection, match_id)?,
        ),
        None => (vec![0; game.entrants.len()], Vec::new()),
    };
    // Forfeited for its timeouts, because it was absent, or withdrawn (the
    // match's forfeits; a game stored before they were kept: by its
    // timeouts).
    let forfeited: Vec<bool> = timeouts
        .iter()
        .enumerate()
        .map(|(seat, &n)| n >= row.max_timeouts || forfeits.iter().any(|f| f.seat == seat))
        .collect();
    let (result, results) = match (game.match_id, status) {
        (Some(match_id), GameStatus::Finished) => {
            match game_result(connection, match_id, &game.entrants, entrants)? {
                Some((result, results)) => (Some(result), Some(results)),
                None => (None, None),
            }
        }
        _ => (None, None),
    };
    let seats = game
        .entrants
        .iter()
        .enumerate()
        .map(|(seat, &e)| GameSeat {
            seat,
            entrant: e,
            name: entrants.get(e).map_or_else(String::new, |e| e.name.clone()),
            timeouts: timeouts[seat],
            forfeited: forfeited[seat],
        })
        .collect();
    Ok(GameRead {
        game: TournamentGame {
            game: game.game,
            status,
            match_id: game.match_id,
            seats,
            result,
        },
        results,
        judged: None,
    })
}

/// The game `game` of tournament `id`.
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament; database failures.
pub fn one_game(connection: &Db, id: i64, game: usize) -> Result<TournamentGame, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let games = storage::load_games(connection, id)?;
    let game = games
        .get(game)
        .ok_or_else(|| Error::NotFound(format!("tournament {id} has no game {game}")))?;
    Ok(tournament_game(connection, &row, &entrants, game)?.game)
}

/// Tournament `id`'s standings, computed from the stored results.
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament; database failures.
pub fn standings(connection: &Db, id: i64) -> Result<Standings, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut finished = Vec::new();
    let mut live = Vec::new();
    for game in storage::load_games(connection, id)? {
        let status = game_status(&game);
        if status == GameStatus::InProgress {
            let read = tournament_game(connection, &row, &entrants, &game)?.game;
            live.push(LiveGame {
                entrants: game.entrants.clone(),
                timeouts: read.seats.iter().map(|s| s.timeouts).collect(),
                forfeited: read.seats.iter().map(|s| s.forfeited).collect(),
            });
            continue;
        }
        if status != GameStatus::Finished {
            continue;
        }
        let read = tournament_game(connection, &row, &entrants, &game)?;
        if let Some(results) = read.results {
            finished.push(FinishedGame {
                game: game.game,
                entrants: game.entrants.clone(),
                results,
                timeouts: read.game.seats.iter().map(|s| s.timeouts).collect(),
                forfeited: read.game.seats.iter().map(|s| s.forfeited).collect(),
                judged: read.judged,
            });
        }
    }
    let refs: Vec<EntrantRef> = entrants
        .iter()
        .map(|e| EntrantRef {
            entrant: e.entrant,
            name: e.name.clone(),
            bot: e.bot.is_some(),
        })
        .collect();
    let mut standings = standings::compute(&refs, &finished, row.points);
    standings.count_live(&live);
    Ok(standings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An outcome as recorded before the words were the server's: with
    /// its `summary`, and no seat named as the resigner.
    const RECORDED_WITH_WORDS: &str = r#"{"seats":[{"seat":0,"entrant":1,"name":"grace","timeouts":0,"forfeited":false},{"seat":1,"entrant":0,"name":"ada","timeouts":1,"forfeited":false}],"result":{"ending":"resignation","summary":"grace beat ada (ada resigned)","places":[{"place":1,"seat":0,"entrant":1,"name":"grace","result":1.0},{"place":2,"seat":1,"entrant":0,"name":"ada","result":-1.0}]},"results":[1.0,-1.0]}"#;

    #[test]
    fn an_outcome_recorded_with_its_words_reads_as_before_and_is_recorded_without() {
        let outcome: Outcome = serde_json::from_str(RECORDED_WITH_WORDS).unwrap();
        let read = outcome.read(0, GameStatus::Finished, Some(7));
        let (seats, results, judged) = (read.game.seats, read.results, read.judged);
        let result = read.game.result.expect("a result");
        assert_eq!(result.ending, Ending::Resignation);
        assert_eq!(result.resigned_seat, Some(1), "the resigner is last");
        let names: Vec<(usize, usize, &str)> = result
            .places
            .iter()
            .map(|p| (p.place, p.entrant, p.name.as_str()))
            .collect();
        assert_eq!(names, [(1, 1, "grace"), (2, 0, "ada")]);
        assert_eq!(seats[1].timeouts, 1);
        assert_eq!(results, Some(vec![1.0, -1.0]));
        assert_eq!(judged, None);

        let game = TournamentGame {
            game: 0,
            status: GameStatus::Finished,
            match_id: Some(7),
            seats,
            result: Some(result),
        };
        let again = recorded(&game, results, None).unwrap();
        assert!(!again.contains("summary"), "{again}");
        assert!(again.contains(r#""ending":"resignation""#), "{again}");
        let back =
            serde_json::from_str::<Outcome>(&again)
                .unwrap()
                .read(0, GameStatus::Finished, Some(7));
        assert_eq!(back.game, game);
    }
}
