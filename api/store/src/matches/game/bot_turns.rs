//! Built-in bots' turns: what a bot must answer, read outside any write;
//! its move stored only if the match has not changed meanwhile; a bot that
//! cannot move ends the match.

use std::sync::Arc;

use super::*;

/// What a built-in bot must answer in a match: read outside any write,
/// searched outside the writer, stored by [`play_bot`] if the match is
/// still at `version`.
#[derive(Clone, Debug)]
pub struct BotTurn {
    /// The match.
    pub id: i64,
    /// The match's version when this was read.
    pub version: i64,
    /// The ply the bot's move is for.
    pub ply: u32,
    /// The position to move in.
    pub position: Position,
    /// The bot to move (with its seed), or why the seat's stored spec no
    /// longer makes one (the server's caps changed since it was stored).
    pub bot: Result<SeatBot, CannotMove>,
    /// Plies the bots have played in a row before this one.
    pub bot_plies: u32,
    /// Whether an open seat still takes turns, and so waits for this move;
    /// if not, only bots are left to play (a background continuation).
    pub open_seat_waits: bool,
}

impl BotTurn {
    /// The bot's move: the search, reproducible from the seat's seed and
    /// the ply; a `perfect` bot plays from `tables` (the store's,
    /// [`crate::Store::tables`]). CPU-bound; run it off the writer and off
    /// actix's workers. Past [`MAX_BOT_PLIES`] there is no search
    /// ([`play_bot`] abandons the match): a pass.
    ///
    /// # Errors
    /// The bot cannot move ([`SeatBot::choose`]: a `perfect` bot whose
    /// table is not in `tables`; or the seat's stored spec no longer makes
    /// a bot); [`bot_unavailable`] ends the match then.
    pub fn choose(&self, tables: &Arc<Tablebases>) -> Result<sternhalma::Move, CannotMove> {
        if self.bot_plies >= MAX_BOT_PLIES {
            return Ok(sternhalma::Move::Pass);
        }
        match &self.bot {
            Ok(bot) => bot.choose(&self.position, self.ply, Some(tables)),
            Err(why) => Err(why.clone()),
        }
    }
}

/// The built-in bot to move in match `id`, if the match is in progress and
/// a bot seat is to move.
///
/// # Errors
/// [`Error::NotFound`] for an unknown match; database failures.
pub fn bot_turn(store: &Db, id: i64) -> Result<Option<BotTurn>, Error> {
    let row = load_match(store, id)?;
    if row.status != MatchStatus::InProgress {
        return Ok(None);
    }
    let position = parse_position(&row.position)?;
    if position.outcome() != Outcome::InProgress {
        return Ok(None);
    }
    let seats = storage::load_seats(store, id)?;
    let seat = position.side_to_move();
    let Some(spec) = seats.get(seat).and_then(|seat| seat.bot.as_ref()) else {
        return Ok(None);
    };
    // Checked when the match was made: a stored spec that no longer makes
    // a bot (the caps changed since) cannot move, and the match ends
    // saying so; no other bot plays in its place.
    let bot = SeatBot::new(spec).map_err(|e| CannotMove {
        code: e.code(),
        message: format!("the stored bot of seat {seat} cannot be made: {e}"),
    });
    let since = storage::last_open_seat_ply(store, id)?.map_or(0, |ply| ply + 1);
    let open_seat_waits = seats
        .iter()
        .any(|seat| seat.bot.is_none() && position.takes_turns(seat.seat));
    Ok(Some(BotTurn {
        open_seat_waits,
        id,
        version: row.version,
        ply: row.ply,
        position,
        bot,
        bot_plies: row.ply.saturating_sub(since),
    }))
}

/// Stores `mv`, the move `turn`'s bot chose, if the match is still at
/// `turn.version`; past [`MAX_BOT_PLIES`] bot plies in a row it abandons
/// the match (`bot_limit`) instead. Answers the match's new version, or
/// `None` when the match changed meanwhile (nothing stored: read the turn
/// again and search again).
///
/// # Errors
/// Database failures.
pub fn play_bot(
    store: &mut Db,
    turn: &BotTurn,
    mv: sternhalma::Move,
) -> Result<Committed<Option<i64>>, Error> {
    store.transaction(|store| {
        store.played_by_bot();
        let row = load_match(store, turn.id)?;
        if row.version != turn.version || row.status != MatchStatus::InProgress {
            return Ok(None);
        }
        let now = store.now()?;
        if turn.bot_plies >= MAX_BOT_PLIES {
            let ending = Ending::BotLimit;
            storage::close(store, turn.id, ending.status(), ending, None, now)?;
            return Ok(Some(row.version + 1));
        }
        if !turn.position.is_legal(mv) {
            // A bot plays only legal moves; never store anything else.
            return Err(Error::Internal(format!(
                "the bot of match {} chose an illegal move {mv}",
                turn.id
            )));
        }
        play_checked(store, turn.id, &turn.position, turn.ply, mv, now)?;
        Ok(Some(row.version + 1))
    })
}

/// The bot of `turn` cannot move ([`BotTurn::choose`]): the match ends
/// (`bot_unavailable`, abandoned, no result) if it is still at
/// `turn.version`, rather than wait for ever or see another bot play in
/// its place. Answers the match's new version, or `None` when it had
/// changed meanwhile.
///
/// # Errors
/// Database failures.
pub fn bot_unavailable(store: &mut Db, turn: &BotTurn) -> Result<Committed<Option<i64>>, Error> {
    store.transaction(|store| {
        let row = load_match(store, turn.id)?;
        if row.version != turn.version || row.status != MatchStatus::InProgress {
            return Ok(None);
        }
        store.played_by_bot();
        let now = store.now()?;
        let ending = Ending::BotUnavailable;
        let seat = turn.position.side_to_move();
        storage::close(store, turn.id, ending.status(), ending, Some(seat), now)?;
        Ok(Some(row.version + 1))
    })
}

/// Stores `mv`, a legal move of `position` (match `id`'s current position,
/// at `ply`), and the state after it, inside the caller's write. The
/// caller has checked the match is in progress at the version it read.
///
/// # Errors
/// Database failures.
pub fn play_checked(
    store: &Db,
    id: i64,
    position: &Position,
    ply: u32,
    mv: sternhalma::Move,
    now: Timestamp,
) -> Result<(), Error> {
    let mut progress = Progress::new(position.clone(), ply);
    progress.record(store, id, &position.played(mv), now)?;
    progress.save(store, id, board_ending(&progress.position), now)
}

/// Whether match `id` waits for its built-in bots before an open seat
/// moves again: in progress, a bot to move, and some open seat still
/// taking turns. (When no open seat takes turns any more, the bots play on
/// by themselves and nobody waits for them.)
///
/// # Errors
/// [`Error::NotFound`] for an unknown match; database failures.
pub fn waits_for_bots(store: &Db, id: i64) -> Result<bool, Error> {
    Ok(bot_turn(store, id)?.is_some_and(|turn| turn.open_seat_waits))
}

/// The matches in progress with a built-in bot to move: what a server
/// resumes when it starts.
///
/// # Errors
/// Database failures.
pub fn with_bot_to_move(store: &Db) -> Result<Vec<i64>, Error> {
    let mut ids = Vec::new();
    for id in storage::list_ids(store, Some(MatchStatus::InProgress), i64::MAX, u32::MAX)? {
        if bot_turn(store, id)?.is_some() {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// Plays match `id`'s built-in bots, one stored move at a time, until no
/// bot is to move: the same steps as the server's runner, on the caller's
/// thread (for tests and tools), a `perfect` bot from `tables`.
///
/// # Errors
/// Database failures.
pub fn play_bots(store: &mut Db, tables: &Arc<Tablebases>, id: i64) -> Result<(), Error> {
    while let Some(turn) = bot_turn(store, id)? {
        // Nobody listens here: a tool's or a test's own thread.
        let _ = match turn.choose(tables) {
            Ok(mv) => play_bot(store, &turn, mv)?,
            Err(_) => bot_unavailable(store, &turn)?,
        };
    }
    Ok(())
}
