//! The writes of an open seat and its creator: a match created, a move,
//! a resignation, a forfeit, an abandonment; each checks, then stores in
//! one transaction.

use super::*;

/// A match while a request plays moves on it: the position and the ply.
pub(super) struct Progress {
    pub(super) position: Position,
    pub(super) ply: u32,
}

impl Progress {
    pub(super) fn new(position: Position, ply: u32) -> Progress {
        Progress { position, ply }
    }

    /// Stores `played`, a move of the current position, and plays it. The
    /// stored path is the move's canonical one (the fewest hops,
    /// [`Position::played`]), not whatever chain the client typed: what a
    /// move takes in the database is bounded by the board.
    pub(super) fn record(
        &mut self,
        store: &Db,
        id: i64,
        played: &Played,
        now: Timestamp,
    ) -> Result<(), Error> {
        let played = &self.position.played(played.mv);
        storage::insert_move(
            store,
            id,
            &MoveRow {
                ply: self.ply,
                seat: played.player,
                path: path_text(&played.path),
                played_at: now,
            },
        )?;
        self.position = self.position.after(played);
        self.ply += 1;
        Ok(())
    }

    /// Stores the state after the moves; `ending` closes the match.
    pub(super) fn save(
        &self,
        store: &Db,
        id: i64,
        ending: Option<Ending>,
        now: Timestamp,
    ) -> Result<(), Error> {
        storage::save_state(
            store,
            id,
            &self.position.to_string(),
            self.ply,
            ending.map_or(MatchStatus::InProgress, Ending::status),
            ending,
            now,
        )
    }
}

/// Creates a match from its start position and seats (validated by the
/// caller), stored as its creator's, and answers its state. Built-in bots
/// to move first are not played here: see [`bot_turn`] (the creation is
/// told, and the server's bot runner hears of it).
///
/// # Errors
/// [`Error::Quota`] when the creator has stored as many games as it may;
/// database failures.
pub fn create(
    store: &mut Db,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
    creator: &Creator,
) -> Result<Committed<Match>, Error> {
    store.transaction(|store| {
        creator.may_store(store, 1)?;
        let id = insert(store, start, seats, admin_token_hash)?;
        if let Some(owner) = creator.owner() {
            storage::set_owner(store, id, owner)?;
        }
        store.match_created(id);
        view(store, id)
    })
}

/// Stores a new match inside the caller's write ([`create`] without its
/// own transaction); answers its id.
///
/// # Errors
/// Only database failures.
pub fn insert(
    store: &Db,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
) -> Result<i64, Error> {
    let now = store.now()?;
    let id = storage::insert_match(store, &start.to_string(), admin_token_hash.as_slice(), now)?;
    for (seat, plan) in seats.iter().enumerate() {
        storage::insert_seat(store, id, seat, plan)?;
    }
    Ok(id)
}

/// The ending of a match whose position is `position`, if the board has
/// decided it.
pub(super) fn board_ending(position: &Position) -> Option<Ending> {
    (position.outcome() != Outcome::InProgress).then_some(Ending::Outcome)
}

pub(super) fn seat_of(seats: &[SeatRow], token: &TokenHash) -> Result<usize, Error> {
    seats
        .iter()
        .find(|seat| seat.token_hash.as_deref() == Some(token.as_slice()))
        .map(|seat| seat.seat)
        .ok_or_else(|| {
            Error::WrongToken(
                "this token is not the token of any open seat of this match".to_owned(),
            )
        })
}

pub(super) fn ensure_open(row: &MatchRow) -> Result<(), Error> {
    if row.status == MatchStatus::InProgress {
        Ok(())
    } else {
        Err(Error::conflict(
            Conflict::MatchClosed,
            format!(
                "match {} is {}; it takes no more moves",
                row.id,
                row.status.as_str().replace('_', " ")
            ),
        ))
    }
}

/// Plays `text` for the seat holding `token` at `ply`, stored in one
/// transaction. Answers the match's new version (the bots' replies come
/// after, from [`bot_turn`] and [`play_bot`]).
///
/// # Errors
/// [`Error::NotFound`] (an unknown match), [`Error::WrongToken`], a
/// [`Conflict`] (`match_closed`, `stale_ply`, `not_your_turn`), an
/// [`Error::Move`] (an illegal move).
pub fn submit(
    store: &mut Db,
    id: i64,
    token: &TokenHash,
    ply: u32,
    text: &MoveText,
) -> Result<Committed<i64>, Error> {
    store.transaction(|store| {
        let row = load_match(store, id)?;
        let seats = storage::load_seats(store, id)?;
        let seat = seat_of(&seats, token)?;
        ensure_open(&row)?;
        if ply != row.ply {
            return Err(Error::conflict(
                Conflict::StalePly,
                format!(
                    "the match is at ply {}, not {ply}; read the state and try again",
                    row.ply
                ),
            ));
        }
        let position = parse_position(&row.position)?;
        if position.side_to_move() != seat {
            return Err(Error::conflict(
                Conflict::NotYourTurn,
                format!(
                    "seat {} is to move, not seat {seat}",
                    position.side_to_move()
                ),
            ));
        }
        let played = position.resolve(text)?;
        let now = store.now()?;
        let mut progress = Progress::new(position, row.ply);
        progress.record(store, id, &played, now)?;
        progress.save(store, id, board_ending(&progress.position), now)?;
        Ok(row.version + 1)
    })
}

/// The seat holding `token` resigns. With two seats (or one) the match is
/// over: the resigner loses. With three or more the seat leaves the game
/// (`Position::resign`: its pegs stay as obstacles, its turns are skipped,
/// it ranks last) and the others play on. The match ends when one seat is
/// left or the game ends by the rules.
///
/// # Errors
/// [`Error::NotFound`] (an unknown match), [`Error::WrongToken`], a
/// [`Conflict`] (`match_closed`,
/// `already_resigned`.
pub fn resign(store: &mut Db, id: i64, token: &TokenHash) -> Result<Committed<Match>, Error> {
    store.transaction(|store| {
        let row = load_match(store, id)?;
        let seats = storage::load_seats(store, id)?;
        let seat = seat_of(&seats, token)?;
        ensure_open(&row)?;
        let now = store.now()?;
        resign_seat(store, &row, seats.len(), seat, now)?;
        view(store, id)
    })
}

/// Seat `seat` of match `row` (in progress, with `players` seats) resigns,
/// inside the caller's write: the match ends with two seats or fewer, the
/// seat leaves the game with more.
///
/// # Errors
/// A [`Conflict`]: `already_resigned`, or `cannot_resign` for a seat that finished;
/// database failures.
pub fn resign_seat(
    store: &Db,
    row: &MatchRow,
    players: usize,
    seat: usize,
    now: Timestamp,
) -> Result<(), Error> {
    if players < 3 {
        let ending = Ending::Resignation;
        return storage::close(store, row.id, ending.status(), ending, Some(seat), now);
    }
    leave(store, row, seat, now)
}

/// A seat of match `row` (in progress, with `players` seats) forfeits,
/// inside the caller's write (a tournament's director: too many timeouts,
/// or a withdrawn entrant): stored as a forfeit, scored as a resignation.
/// The match ends with two seats or fewer; with more the seat leaves the
/// game as a resigner does and the others play on. `forfeit.ply` is the
/// match's ply (`row.ply`).
///
/// # Errors
/// A [`Conflict`]: `already_resigned`, or `cannot_resign` for a seat that finished;
/// database failures.
pub fn forfeit_seat(
    store: &Db,
    row: &MatchRow,
    players: usize,
    forfeit: &Forfeit,
    now: Timestamp,
) -> Result<(), Error> {
    if players < 3 {
        let ending = Ending::Forfeit;
        storage::close(
            store,
            row.id,
            ending.status(),
            ending,
            Some(forfeit.seat),
            now,
        )?;
    } else {
        leave(store, row, forfeit.seat, now)?;
    }
    storage::insert_forfeit(store, row.id, forfeit, now)
}

/// Seat `seat` leaves match `row`, a game of three or more that goes on
/// without it (`Position::resign`), inside the caller's write.
pub(super) fn leave(store: &Db, row: &MatchRow, seat: usize, now: Timestamp) -> Result<(), Error> {
    let position = parse_position(&row.position)?;
    if position.is_resigned(seat) {
        return Err(Error::conflict(
            Conflict::AlreadyResigned,
            format!("seat {seat} has resigned already"),
        ));
    }
    // A seat that has finished cannot resign: a conflict with the
    // match's state, like a closed match.
    let resigned = position
        .resign(seat)
        .map_err(|e| Error::conflict(Conflict::CannotResign(e.code()), e.to_string()))?;
    let progress = Progress::new(resigned, row.ply);
    progress.save(store, row.id, board_ending(&progress.position), now)
}

/// The creator (admin token) or the server's operator abandons the match.
///
/// # Errors
/// [`Error::NotFound`] (an unknown match), [`Error::WrongToken`], a
/// [`Conflict`] (`match_closed`).
pub fn abandon(store: &mut Db, id: i64, by: &Authority) -> Result<Committed<Match>, Error> {
    store.transaction(|store| {
        let row = load_match(store, id)?;
        if !by.allows(&row.admin_token_hash) {
            return Err(Error::WrongToken(
                "this token is not the admin token of this match".to_owned(),
            ));
        }
        ensure_open(&row)?;
        let now = store.now()?;
        let ending = Ending::Abandoned;
        storage::close(store, id, ending.status(), ending, None, now)?;
        view(store, id)
    })
}
