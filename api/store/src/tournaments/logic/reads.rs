//! What a tournament looks like to its readers: the tournament with its
//! entrants, the list, and an open entrant's turns.

use super::*;
use crate::clock::stored;

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

pub(super) fn entrant_view(row: &EntrantRow, reveal: bool) -> EntrantView {
    let (kind, bot) = views::shown_bot(row.bot.as_ref(), reveal);
    EntrantView {
        entrant: row.entrant,
        name: row.name.clone(),
        kind,
        bot,
        reference: row.reference,
        withdrawn_at: row.withdrawn_at.map(stored),
        presence: row.bot.is_none().then(|| Presence {
            absent_since: row.absent_since.map(stored),
            ..Presence::default()
        }),
    }
}

pub(super) fn view_of(connection: &Db, row: TournamentRow) -> Result<TournamentView, Error> {
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
    let reveal = row.status.is_over();
    Ok(TournamentView {
        id: row.id,
        name: row.name,
        status: row.status,
        version: row.version,
        created_at: stored(row.created_at),
        updated_at: stored(row.updated_at),
        players: start.layout().player_count(),
        start_position: row.start_position,
        format: row.format,
        games_per_pairing: row.games_per_pairing,
        move_ms: row.move_ms,
        max_timeouts: row.max_timeouts,
        concurrency: row.concurrency,
        points: row.points,
        entrants: entrants.iter().map(|e| entrant_view(e, reveal)).collect(),
        games: counts,
    })
}

/// Tournament `id`.
///
/// # Errors
/// [`Error::NotFound`] for an unknown tournament.
pub fn view(connection: &Db, id: i64) -> Result<TournamentView, Error> {
    view_of(connection, load(connection, id)?)
}

/// A page of tournaments, newest first.
///
/// # Errors
/// Database failures.
pub fn list(
    connection: &Db,
    status: Option<TournamentStatus>,
    page: Page,
) -> Result<TournamentList, Error> {
    let ids = storage::list_ids(connection, status, page.before, page.fetch())?;
    let (ids, next_before) = page.split(ids);
    let mut tournaments = Vec::new();
    for id in ids {
        tournaments.push(view(connection, id)?);
    }
    Ok(TournamentList {
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
/// holding `token`, each with the whole `move_ms` left (the server's
/// director knows the time left once it has seen the turn, and the route
/// says so).
///
/// # Errors
/// [`Error::NotFound`] (an unknown tournament), [`Error::WrongToken`];
/// database failures.
pub fn turns(connection: &Db, id: i64, token: &TokenHash) -> Result<(EntrantTurns, bool), Error> {
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
                    legal_moves: position
                        .legal_moves()
                        .into_iter()
                        .map(|mv| MoveView::new(&position, mv))
                        .collect(),
                    position: PositionView::from(&position),
                    // Until the director has seen the turn its clock has
                    // not started: the whole time is left.
                    deadline_ms: Some(u64::from(row.move_ms)),
                    timeouts: timeouts[seat],
                });
            }
            _ => {}
        }
    }
    Ok((
        EntrantTurns {
            tournament_id: id,
            entrant: entrant.entrant,
            name: entrant.name,
            status: row.status,
            done: row.status.is_over() || !left,
            turns,
        },
        absent,
    ))
}
