//! Following a game under way: its progress since the director last
//! read it, and the deadline an open entrant missed (the greedy bot's move
//! played for it, or its game forfeited; absent after too many in a row).

use super::*;

/// A tournament game as the director reads it after a change.
#[derive(Clone, Debug)]
pub struct GameProgress {
    /// The match's version.
    pub version: i64,
    /// Plies played.
    pub ply: u32,
    /// Where it stands.
    pub status: MatchStatus,
    /// The moves from the ply asked for.
    pub moves: Vec<MoveRow>,
    /// The open entrant's seat to move, if one is.
    pub open_to_move: Option<usize>,
    /// Every timeout of the game so far as (ply, seat), in order.
    pub timeouts: Vec<(u32, usize)>,
    /// The game's forfeits as (ply, seat): a timeout there forfeited the
    /// game, whatever the count (an absent entrant's).
    pub forfeits: Vec<(u32, usize)>,
    /// Whether the open entrant to move is absent or withdrawn: its turn
    /// gets no time.
    pub gone_to_move: bool,
}

/// Match `tracked.match_id` since ply `since`.
///
/// # Errors
/// [`Error::NotFound`] for an unknown match; database failures.
pub fn progress(connection: &Db, tracked: &Tracked, since: u32) -> Result<GameProgress, Error> {
    let row = game::load_match(connection, tracked.match_id)?;
    let moves = match_storage::load_moves_from(connection, tracked.match_id, since)?;
    let open_to_move = if row.status == MatchStatus::InProgress {
        let side = game::parse_position(&row.position)?.side_to_move();
        tracked
            .open
            .get(side)
            .copied()
            .unwrap_or(false)
            .then_some(side)
    } else {
        None
    };
    let gone_to_move = match open_to_move.and_then(|seat| tracked.entrants.get(seat)) {
        Some(&entrant) => storage::gone(connection, tracked.tournament, entrant)?,
        None => false,
    };
    let timeouts = storage::timeout_list(connection, tracked.match_id)?;
    // Read only when a timeout may be one: the move read after every ply
    // of every game does not pay for it.
    let forfeits = if timeouts.is_empty() {
        Vec::new()
    } else {
        match_storage::load_forfeits(connection, tracked.match_id)?
            .into_iter()
            .map(|forfeit| (forfeit.ply, forfeit.seat))
            .collect()
    };
    Ok(GameProgress {
        version: row.version,
        ply: row.ply,
        status: row.status,
        moves,
        open_to_move,
        timeouts,
        forfeits,
        gone_to_move,
    })
}

/// The position of match `match_id` if it is still at `version`, in
/// progress, with `seat` to move: what a missed deadline plays in.
///
/// # Errors
/// [`Error::NotFound`] for an unknown match; database failures.
pub fn timeout_position(
    connection: &Db,
    match_id: i64,
    version: i64,
    seat: usize,
) -> Result<Option<(Position, u32)>, Error> {
    let row = game::load_match(connection, match_id)?;
    if row.version != version || row.status != MatchStatus::InProgress {
        return Ok(None);
    }
    let position = game::parse_position(&row.position)?;
    Ok((position.side_to_move() == seat).then_some((position, row.ply)))
}

/// The move played for an entrant that missed its deadline: the greedy
/// bot's, seeded by the match and the ply (so it is reproducible).
pub fn timeout_move(match_id: i64, position: &Position, ply: u32) -> sternhalma::Move {
    // Only the perfect bot can be unable to move; the greedy one always
    // moves (a pass once the game is over), and reads no table.
    SeatBot::greedy(match_id as u64)
        .choose(position, ply, None)
        .unwrap_or(sternhalma::Move::Pass)
}

/// A recorded timeout.
#[derive(Clone, Debug)]
pub struct TimeoutRecord {
    /// The match's new version.
    pub version: i64,
    /// The ply it happened at.
    pub ply: u32,
    /// The seat's timeouts in the match, this one included.
    pub timeouts: u32,
    /// Whether the seat forfeited (by the server, at its last timeout).
    pub forfeited: bool,
    /// The seat's entrant, and since when it is absent if this timeout
    /// made it so (its `max_timeouts`-th in a row over its games).
    pub absent: Option<(usize, Timestamp)>,
}

/// Seat `seat` of match `match_id` missed its deadline at `version`:
/// records the timeout and plays `mv` for it, or, at its `max_timeouts`-th
/// timeout, forfeits the game for it (stored as a forfeit, scored as a
/// resignation). Nothing happens if
/// the match has moved on (the move came in time after all).
///
/// # Errors
/// Database failures.
pub fn record_timeout(
    connection: &mut Db,
    match_id: i64,
    version: i64,
    seat: usize,
    mv: sternhalma::Move,
    max_timeouts: u32,
) -> Result<Committed<Option<TimeoutRecord>>, Error> {
    connection.transaction(|connection| {
        let row = game::load_match(connection, match_id)?;
        if row.version != version || row.status != MatchStatus::InProgress {
            return Ok(None);
        }
        let position = game::parse_position(&row.position)?;
        if position.side_to_move() != seat {
            return Ok(None);
        }
        if !position.is_legal(mv) {
            // The greedy bot plays only legal moves; never store another.
            return Err(Error::Internal(format!(
                "the timeout move {mv} of match {match_id} is illegal"
            )));
        }
        let now = connection.now()?;
        storage::insert_timeout(connection, match_id, row.ply, seat, now)?;
        let timeouts = storage::timeouts(connection, match_id)?
            .into_iter()
            .find_map(|(s, n)| (s == seat).then_some(n))
            .unwrap_or(0);
        // The seat's entrant: absent (or withdrawn) already, its turn is
        // forfeited at once.
        let entrant = match storage::game_of_match(connection, match_id)? {
            Some((tournament, number)) => {
                let games = storage::load_games(connection, tournament)?;
                games
                    .iter()
                    .find(|g| g.game == number)
                    .and_then(|g| g.entrants.get(seat).copied())
                    .map(|entrant| (tournament, entrant, games))
            }
            None => None,
        };
        let gone = match &entrant {
            Some((tournament, entrant, _)) => storage::gone(connection, *tournament, *entrant)?,
            None => false,
        };
        let forfeited = gone || timeouts >= max_timeouts;
        if forfeited {
            let players = position.layout().player_count();
            let forfeit = if gone {
                Forfeit {
                    seat,
                    ply: row.ply,
                    reason: ForfeitReason::Absent,
                    timeouts: None,
                }
            } else {
                Forfeit {
                    seat,
                    ply: row.ply,
                    reason: ForfeitReason::Timeouts,
                    timeouts: Some(timeouts),
                }
            };
            game::forfeit_seat(connection, &row, players, &forfeit, now)?;
        } else {
            game::play_checked(connection, match_id, &position, row.ply, mv, now)?;
        }
        let mut absent = None;
        if let (false, Some((tournament, entrant, games))) = (gone, &entrant) {
            let back = storage::returned_at(connection, *tournament, *entrant)?;
            if timeouts_in_a_row(connection, games, *entrant, back)? >= max_timeouts
                && storage::set_absent(connection, *tournament, *entrant, Some(now))?
            {
                absent = Some((*entrant, now));
            }
        }
        Ok(Some(TimeoutRecord {
            version: row.version + 1,
            ply: row.ply,
            timeouts,
            forfeited,
            absent,
        }))
    })
}

/// The timeouts of `entrant` since its last own move (or since it came
/// `back` from being absent, if later), over its games of the tournament
/// (`games`): how many turns it missed in a row.
pub(super) fn timeouts_in_a_row(
    connection: &Db,
    games: &[GameRow],
    entrant: usize,
    back: Option<Timestamp>,
) -> Result<u32, Error> {
    let mut last_own: Option<Timestamp> = back;
    let mut timeouts = Vec::new();
    for game in games {
        let (Some(match_id), Some(seat)) = (
            game.match_id,
            game.entrants.iter().position(|&e| e == entrant),
        ) else {
            continue;
        };
        if let Some(at) = storage::last_own_move_at(connection, match_id, seat)? {
            last_own = last_own.max(Some(at));
        }
        timeouts.extend(storage::timeout_times(connection, match_id, seat)?);
    }
    let in_a_row = timeouts
        .iter()
        .filter(|&&at| last_own.is_none_or(|own| at > own))
        .count();
    Ok(u32::try_from(in_a_row).unwrap_or(u32::MAX))
}

pub(super) fn per_seat_timeouts(
    connection: &Db,
    match_id: i64,
    seats: usize,
) -> Result<Vec<u32>, Error> {
    let mut counts = vec![0; seats];
    for (seat, n) in storage::timeouts(connection, match_id)? {
        if let Some(slot) = counts.get_mut(seat) {
            *slot = n;
        }
    }
    Ok(counts)
}
