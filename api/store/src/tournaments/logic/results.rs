//! What the games came to: each game's result as the schedule shows it,
//! judged once when it ends, and the standings.

use sternhalma::solve::Tablebases;

use super::*;

/// A finished game's result naming entrants, with every seat's result.
pub(super) fn game_result(
    connection: &Db,
    match_id: i64,
    seats_entrants: &[usize],
    entrants: &[EntrantRow],
    forfeited: &[bool],
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
    let name = |seat: usize| {
        seats_entrants
            .get(seat)
            .and_then(|&e| entrants.get(e))
            .map_or_else(|| format!("seat {seat}"), |e| e.name.clone())
    };
    // The match's places, by seat name; the entrant of each seat added.
    let places: Vec<PlaceView> = result
        .places
        .iter()
        .map(|p| PlaceView {
            place: p.place,
            seat: p.seat,
            entrant: seats_entrants.get(p.seat).copied().unwrap_or(p.seat),
            name: name(p.seat),
            result: p.result,
        })
        .collect();
    let mut summary = if places.iter().all(|p| p.place == 1) {
        format!(
            "draw between {}",
            places
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if places.len() == 2 {
        format!("{} beat {}", places[0].name, places[1].name)
    } else {
        places
            .iter()
            .map(|p| format!("{}. {}", p.place, p.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let forfeits: Vec<String> = (0..seats_entrants.len())
        .filter(|&s| forfeited.get(s).copied().unwrap_or(false))
        .map(name)
        .collect();
    if !forfeits.is_empty() {
        summary.push_str(&format!(" ({} forfeited)", forfeits.join(", ")));
    } else if result.ending == Ending::Resignation {
        summary.push_str(&format!(
            " ({} resigned)",
            name(result.resigned_seat.unwrap_or(0))
        ));
    }
    Ok(Some((
        GameResult {
            ending: result.ending,
            summary,
            places,
        },
        result.results,
    )))
}

/// Tournament `id`'s schedule with every game's state and result.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn games(connection: &Db, id: i64) -> Result<TournamentGames, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut games = Vec::new();
    for game in storage::load_games(connection, id)? {
        games.push(tournament_game(connection, &row, &entrants, &game)?.view);
    }
    Ok(TournamentGames {
        tournament_id: id,
        games,
    })
}

/// A game's outcome as [`settle`] records it when the game is over: what
/// [`tournament_game`] would derive from the match, kept so that it is
/// derived once.
#[derive(Serialize, Deserialize)]
pub(super) struct Outcome {
    pub(super) seats: Vec<GameSeat>,
    pub(super) result: Option<GameResult>,
    pub(super) results: Option<Vec<f64>>,
    /// Each seat's moves judged against perfect play, when a table covered
    /// the game as it was recorded (absent from outcomes recorded before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) judged: Option<Vec<Judged>>,
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
    /// The game as the schedule shows it.
    pub(super) view: TournamentGame,
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
        return Ok(GameRead {
            view: TournamentGame {
                game: game.game,
                status,
                match_id: game.match_id,
                seats: outcome.seats,
                result: outcome.result,
            },
            results: outcome.results,
            judged: outcome.judged,
        });
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
            match game_result(connection, match_id, &game.entrants, entrants, &forfeited)? {
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
        view: TournamentGame {
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

/// The game `game` of tournament `id` as the schedule shows it.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn one_game(connection: &Db, id: i64, game: usize) -> Result<TournamentGame, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let games = storage::load_games(connection, id)?;
    let game = games
        .get(game)
        .ok_or_else(|| Error::NotFound(format!("tournament {id} has no game {game}")))?;
    Ok(tournament_game(connection, &row, &entrants, game)?.view)
}

/// Tournament `id`'s standings, computed from the stored results.
///
/// # Errors
/// 404 for an unknown tournament; database failures.
pub fn standings(connection: &Db, id: i64) -> Result<Standings, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let mut finished = Vec::new();
    let mut live = Vec::new();
    for game in storage::load_games(connection, id)? {
        let status = game_status(&game);
        if status == GameStatus::InProgress {
            let view = tournament_game(connection, &row, &entrants, &game)?.view;
            live.push(LiveGame {
                entrants: game.entrants.clone(),
                timeouts: view.seats.iter().map(|s| s.timeouts).collect(),
                forfeited: view.seats.iter().map(|s| s.forfeited).collect(),
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
                timeouts: read.view.seats.iter().map(|s| s.timeouts).collect(),
                forfeited: read.view.seats.iter().map(|s| s.forfeited).collect(),
                judged: read.judged,
            });
        }
    }
    let refs: Vec<EntrantRef> = entrants
        .iter()
        .map(|e| EntrantRef {
            entrant: e.entrant,
            name: e.name.clone(),
            kind: if e.bot.is_some() {
                SeatKind::Bot
            } else {
                SeatKind::Open
            },
        })
        .collect();
    let mut standings = standings::compute(&refs, &finished, row.points);
    standings.count_live(&live);
    Ok(standings)
}
