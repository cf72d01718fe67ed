//! What a tournament looks like to its readers: the tournament with its
//! entrants, the list, and an open entrant's turns.

use super::*;

pub(super) fn game_status(row: &GameRow) -> GameStatus {
    if row.unplayed {
        return GameStatus::Abandoned;
    }
    match row.match_status {
        None => GameStatus::Pending,
        Some(MatchStatus::InProgress) => GameStatus::InProgress,
        Some(MatchStatus::Finished) => GameStatus::Finished,
        Some(MatchStatus::Abandoned) => GameStatus::Abandoned,
    }
}

pub(super) fn entrant(row: &EntrantRow) -> Entrant {
    Entrant {
        entrant: row.entrant,
        name: row.name.clone(),
        bot: row.bot.clone(),
        reference: row.reference,
        withdrawn_at: row.withdrawn_at,
        absent_since: row.absent_since,
    }
}

pub(super) fn tournament_of(connection: &Db, row: TournamentRow) -> Result<Tournament, Error> {
    let entrants = storage::load_entrants(connection, row.id)?;
    let games = storage::load_games(connection, row.id)?;
    let mut counts = GameCounts {
        total: games.len(),
        ..GameCounts::default()
    };
    for game in &games {
        match game_status(game) {
            GameStatus::Pending => counts.pending += 1,
            GameStatus::InProgress => counts.in_progress += 1,
            GameStatus::Finished => counts.finished += 1,
            GameStatus::Abandoned => counts.abandoned += 1,
        }
    }
    let start = game::parse_position(&row.start_position)?;
    Ok(Tournament {
        id: row.id,
        name: row.name,
        status: row.status,
        version: row.version,
        created_at: row.created_at,
        updated_at: row.updated_at,
        players: start.layout().player_count(),
        start_position: row.start_position,
        format: row.format,
        games_per_pairing: row.games_per_pairing,
        move_ms: row.move_ms,
        max_timeouts: row.max_timeouts,
        concurrency: row.concurrency,
        points: row.points,
        entrants: entrants.iter().map(entrant).collect(),
        games: counts,
    })
}

/// Tournament `id`.
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament.
pub fn view(connection: &Db, id: i64) -> Result<Tournament, Error> {
    tournament_of(connection, load(connection, id)?)
}

/// A page of tournaments, newest first.
///
/// # Errors
/// Database failures.
pub fn list(
    connection: &Db,
    status: Option<TournamentStatus>,
    page: Page,
) -> Result<TournamentPage, Error> {
    let ids = storage::list_ids(connection, status, page.before, page.fetch())?;
    let (ids, next_before) = page.split(ids);
    let mut tournaments = Vec::new();
    for id in ids {
        tournaments.push(view(connection, id)?);
    }
    Ok(TournamentPage {
        next_before,
        tournaments,
    })
}

/// The entrant of tournament `id` holding `token`.
pub(super) fn entrant_by_token(
    entrants: &[EntrantRow],
    id: i64,
    token: &TokenHash,
) -> Result<EntrantRow, Error> {
    entrants
        .iter()
        .find(|e| e.token_hash.as_deref() == Some(token.as_slice()))
        .cloned()
        .ok_or_else(|| {
            Error::WrongToken(format!(
                "this token is not the token of any open entrant of tournament {id}"
            ))
        })
}

/// The games of tournament `id` waiting for the move of the entrant
/// holding `token`, and whether it was absent. Each has the whole
/// `move_ms` left until the server's director has seen the turn (it knows
/// the time left then).
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament, [`Error::WrongToken`];
/// database failures.
pub fn turns(connection: &Db, id: i64, token: &TokenHash) -> Result<EntrantTurns, Error> {
    let row = load(connection, id)?;
    let entrants = storage::load_entrants(connection, id)?;
    let entrant = entrant_by_token(&entrants, id, token)?;
    let absent = entrant.absent_since.is_some();
    let mut turns = Vec::new();
    let mut left = false;
    for game in storage::load_games(connection, id)? {
        if !game.entrants.contains(&entrant.entrant) {
            continue;
        }
        match (game.match_id, game.match_status) {
            (None, _) => left |= !game.unplayed,
            (Some(match_id), Some(MatchStatus::InProgress)) => {
                left = true;
                let state = game::load_match(connection, match_id)?;
                let position = game::parse_position(&state.position)?;
                let seat = position.side_to_move();
                if state.status != MatchStatus::InProgress
                    || game.entrants.get(seat) != Some(&entrant.entrant)
                {
                    continue;
                }
                let timeouts = per_seat_timeouts(connection, match_id, game.entrants.len())?;
                turns.push(Turn {
                    match_id,
                    game: game.game,
                    seat,
                    ply: state.ply,
                    position,
                    timeouts: timeouts[seat],
                });
            }
            _ => {}
        }
    }
    Ok(EntrantTurns {
        tournament_id: id,
        entrant: entrant.entrant,
        name: entrant.name,
        status: row.status,
        done: row.status.is_over() || !left,
        move_ms: row.move_ms,
        turns,
        absent,
    })
}
