//! What a match's readers see: its state, its progress, its history, its
//! export, its picture at a ply, its analysis, the list.

use super::*;

/// Match `row` with its `seats`, as the store answers it.
pub(super) fn match_of(row: MatchRow, seats: &[SeatRow]) -> Result<Match, Error> {
    let position = parse_position(&row.position)?;
    let result = result(&row, seats, &position);
    Ok(Match {
        id: row.id,
        status: row.status,
        version: row.version,
        created_at: row.created_at,
        updated_at: row.updated_at,
        seats: seats
            .iter()
            .map(|s| Seat {
                seat: s.seat,
                name: s.name.clone(),
                bot: s.bot.clone(),
            })
            .collect(),
        ply: row.ply,
        start_position: row.start_position,
        position,
        ending: row.ending,
        result,
    })
}

/// Match `id`.
///
/// # Errors
/// [`Error::NotFound`] for an unknown match.
pub fn view(store: &Db, id: i64) -> Result<Match, Error> {
    let row = load_match(store, id)?;
    let seats = storage::load_seats(store, id)?;
    match_of(row, &seats)
}

/// The ply and status of match `id` (what a long-poll compares).
///
/// # Errors
/// [`Error::NotFound`] for an unknown match.
pub fn progress(store: &Db, id: i64) -> Result<(u32, MatchStatus, i64), Error> {
    let row = load_match(store, id)?;
    Ok((row.ply, row.status, row.version))
}

/// Every move of match `id`, replayed from its start (so each carries its
/// kind and path).
///
/// # Errors
/// [`Error::NotFound`] for an unknown match.
pub fn history(store: &Db, id: i64) -> Result<History, Error> {
    let (row, _, played) = replay(store, id)?;
    Ok(History {
        match_id: id,
        start_position: row.start_position,
        moves: played
            .into_iter()
            .map(|(stored, played)| PlayedMove {
                ply: stored.ply,
                seat: stored.seat,
                played,
                played_at: stored.played_at,
            })
            .collect(),
    })
}

/// A stored move and the legal move it is where it was played.
pub(super) type Replayed = (MoveRow, Played);

/// Match `id`'s row, its start, and each stored move with the legal move
/// it is, replayed from the start.
pub(super) fn replay(store: &Db, id: i64) -> Result<(MatchRow, Position, Vec<Replayed>), Error> {
    let row = load_match(store, id)?;
    let start = parse_position(&row.start_position)?;
    // Resignations are not moves: the current position records them with
    // their plies, and the replay makes them where they happened.
    let resignations = parse_position(&row.position)?.resignations();
    let mut position = start.clone();
    let mut moves = Vec::new();
    for stored in storage::load_moves(store, id)? {
        position = position.resign_due(&resignations).map_err(corrupt)?;
        let played = stored
            .path
            .parse::<MoveText>()
            .map_err(|e| e.to_string())
            .and_then(|text| position.resolve(&text).map_err(|e| e.to_string()))
            .map_err(|e| corrupt(format!("move {}: {e}", stored.ply)))?;
        position = position.after(&played);
        moves.push((stored, played));
    }
    Ok((row, start, moves))
}

/// Match `id` judged against perfect play ([`analysis::analyse`]) by the
/// table of `tables` for its game, or `None` when none covers its game
/// (another board, other rules, or no table of the board).
///
/// # Errors
/// [`Error::NotFound`] for an unknown match; [`Error::Corrupt`] for a
/// stored move that does not replay.
pub fn analysed(store: &Db, tables: &Tablebases, id: i64) -> Result<Option<Analysis>, Error> {
    let (_, start, played) = replay(store, id)?;
    let Ok(table) = tables.for_position(&start) else {
        return Ok(None);
    };
    let moves: Vec<_> = played.iter().map(|(_, played)| played.mv).collect();
    Ok(analysis::analyse(&table, &start, &moves).ok())
}

/// A match's position after `ply` plies (the current one when `None` or
/// `ply` is the match's ply), with the path of the move that led there:
/// what its board picture shows.
pub struct BoardAt {
    /// The position.
    pub position: Position,
    /// The last move's path (empty at the start or after a pass).
    pub last_path: Vec<Cell>,
    /// Whether this is the match's current position, which may still
    /// change; an earlier one never does.
    pub current: bool,
    /// The match's version.
    pub version: i64,
    /// How the match ended, for the legend under its last position once it
    /// is over; `None` otherwise (the position's own legend).
    pub result: Option<MatchResult>,
    /// The match's seats, with `result` (empty without it).
    pub seats: Vec<Seat>,
}

/// Match `id` after `ply` plies ([`BoardAt`]).
///
/// # Errors
/// [`Error::NotFound`] for an unknown match; [`Invalid::NoSuchPly`] past
/// the match's ply.
pub fn board_at(store: &Db, id: i64, ply: Option<u32>) -> Result<BoardAt, Error> {
    let row = load_match(store, id)?;
    let target = ply.unwrap_or(row.ply);
    if target > row.ply {
        return Err(Error::invalid(
            Invalid::NoSuchPly,
            format!("match {id} is at ply {}, not {target}", row.ply),
        ));
    }
    let current = parse_position(&row.position)?;
    // The current position is stored: only the move that led there is
    // read (a live board is fetched at every ply). An earlier one is
    // replayed from the start.
    let first = if target == row.ply {
        target.saturating_sub(1)
    } else {
        0
    };
    let moves = storage::load_moves_from(store, id, first)?;
    let path_of = |stored: &MoveRow| -> Result<Vec<Cell>, Error> {
        match stored.path.parse::<MoveText>().map_err(corrupt)? {
            MoveText::Pass => Ok(Vec::new()),
            MoveText::Path(holes) => holes
                .into_iter()
                .map(|h| {
                    current
                        .geometry()
                        .cell(h)
                        .ok_or_else(|| corrupt(format!("move {}: no hole {h}", stored.ply)))
                })
                .collect(),
        }
    };
    let last_path = match target
        .checked_sub(1)
        .and_then(|ply| moves.get((ply - first) as usize))
    {
        Some(stored) => path_of(stored)?,
        None => Vec::new(),
    };
    if target == row.ply {
        if row.status == MatchStatus::InProgress {
            return Ok(BoardAt {
                position: current,
                last_path,
                current: true,
                version: row.version,
                result: None,
                seats: Vec::new(),
            });
        }
        let version = row.version;
        let over = match_of(row, &storage::load_seats(store, id)?)?;
        return Ok(BoardAt {
            position: over.position,
            last_path,
            current: true,
            version,
            result: over.result,
            seats: over.seats,
        });
    }
    let resignations = current.resignations();
    let mut position = parse_position(&row.start_position)?;
    for stored in moves.iter().take(target as usize) {
        position = position.resign_due(&resignations).map_err(corrupt)?;
        position = stored
            .path
            .parse::<MoveText>()
            .map_err(|e| e.to_string())
            .and_then(|text| position.resolve(&text).map_err(|e| e.to_string()))
            .map(|played| position.after(&played))
            .map_err(|e| corrupt(format!("move {}: {e}", stored.ply)))?;
    }
    Ok(BoardAt {
        position,
        last_path,
        current: false,
        version: row.version,
        result: None,
        seats: Vec::new(),
    })
}

/// The moves of match `id` from `ply` on, as [`history`] shows them.
///
/// # Errors
/// [`Error::NotFound`] for an unknown match.
pub fn moves_since(store: &Db, id: i64, ply: u32) -> Result<Vec<PlayedMove>, Error> {
    let mut moves = history(store, id)?.moves;
    moves.retain(|played| played.ply >= ply);
    Ok(moves)
}

/// Match `id` as a game record for `POST /v1/replay`.
///
/// # Errors
/// [`Error::NotFound`] for an unknown match.
pub fn export(store: &Db, id: i64) -> Result<GameRecord, Error> {
    let row = load_match(store, id)?;
    Ok(GameRecord {
        resigned: parse_position(&row.position)?.resignations(),
        start: row.start_position,
        moves: storage::load_moves(store, id)?
            .into_iter()
            .map(|stored| stored.path)
            .collect(),
    })
}

/// A page of matches, newest first.
///
/// # Errors
/// Only database failures.
pub fn list(store: &Db, status: Option<MatchStatus>, page: Page) -> Result<MatchPage, Error> {
    let ids = storage::list_ids(store, status, page.before, page.fetch())?;
    let (ids, next_before) = page.split(ids);
    let mut matches = Vec::new();
    for id in ids {
        let row = load_match(store, id)?;
        let seats = storage::load_seats(store, id)?;
        matches.push(match_of(row, &seats)?);
    }
    Ok(MatchPage {
        next_before,
        matches,
    })
}
