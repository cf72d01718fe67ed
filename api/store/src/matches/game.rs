//! The match logic: what each `/v1/matches` operation checks and does,
//! over a [`Db`] connection and the SQL of [`storage`].
//!
//! A write loads the match, checks (token, status, ply, turn, legality),
//! stores the move and the new state, all inside one [`Db::write`]; on any
//! error nothing is stored. Built-in bots
//! never search inside a write: [`bot_turn`] reads what a bot must answer,
//! the bot searches elsewhere (the server's bot runner, on the heavy-work
//! pool), and [`play_bot`] stores its move only if the
//! match has not changed meanwhile (its version), so a concurrent change
//! means a new search, never a lost or doubled move. Results come from
//! [`Outcome`]: the board's, or a resignation's (a forfeit is scored as
//! one, and stored and shown as a forfeit).

use sternhalma::search::eval::progress_ranking;
use sternhalma::solve::analysis::{self, Analysis};
use sternhalma::solve::installed;
use sternhalma::{Cell, DrawReason, MoveText, Outcome, Played, Position};

use crate::bots::{CannotMove, SeatBot};
use crate::committed::Committed;
use crate::error::{Conflict, Error, Invalid};
use crate::matches::dto::{
    Ending, ExportedGame, Forfeit, History, MatchList, MatchResult, MatchStatus, MatchView,
    MoveRecord, Place,
};
use crate::matches::storage::{self, MatchRow, MoveRow, SeatPlan, SeatRow, corrupt};
use crate::matches::tokens::{Authority, TokenHash};
use crate::matches::views;
use crate::page::Page;
use crate::sql::Db;

/// The most plies built-in bots play in a row, since the last move of an
/// open seat (or the start): reached only when no open seat is left to move
/// (every open seat finished in a ranking game, or resigned) in a game
/// without a move limit; past it the match is abandoned (`bot_limit`).
pub const MAX_BOT_PLIES: u32 = 5_000;

pub(crate) fn load_match(store: &Db, id: i64) -> Result<MatchRow, Error> {
    storage::load_match(store, id)?.ok_or_else(|| Error::NotFound(format!("no match {id}")))
}

pub(crate) fn parse_position(text: &str) -> Result<Position, Error> {
    text.parse::<Position>().map_err(corrupt)
}

/// The text a move is stored as: its full path (`95-75-57`) or `pass`.
fn path_text(path: &[Cell]) -> String {
    if path.is_empty() {
        MoveText::Pass
    } else {
        MoveText::Path(path.iter().map(|c| c.id()).collect())
    }
    .to_string()
}

/// The result of a match that is over: the board's outcome, a
/// resignation's or a forfeit's, or none for an abandoned match.
pub(crate) fn result(
    row: &MatchRow,
    seats: &[SeatRow],
    position: &Position,
) -> Option<MatchResult> {
    let ending = row.ending?;
    let players = seats.len();
    let mut result = match ending {
        Ending::Outcome => {
            let outcome = position.outcome();
            // A game that reached its move limit with nobody finished: a
            // draw, or with resignations a ranking with the resigners last;
            // either way the limit ended it.
            let limit_reached = position
                .rules()
                .max_plies
                .is_some_and(|limit| position.ply() >= limit)
                && position.finishers().is_empty();
            let reason = match outcome {
                Outcome::Draw { reason } => Some(reason),
                _ if limit_reached => Some(DrawReason::MoveLimit),
                _ => None,
            };
            let mut summary = match reason {
                Some(DrawReason::MoveLimit) => format!(
                    "{outcome} ({} plies)",
                    position.rules().max_plies.unwrap_or(u32::MAX)
                ),
                _ => outcome.to_string(),
            };
            // Seats that left by a forfeit while the others played on.
            for forfeit in &row.forfeits {
                summary.push_str(&format!(
                    "; seat {}{} {}",
                    forfeit.seat,
                    named(seats, forfeit.seat),
                    forfeit.words()
                ));
            }
            MatchResult {
                ending,
                resigned_seat: None,
                forfeited_seat: None,
                forfeits: Vec::new(),
                winners: outcome.winners(),
                results: position.results(),
                summary,
                reason,
                by_progress: (reason == Some(DrawReason::MoveLimit))
                    .then(|| progress_ranking(position)),
                places: Vec::new(),
            }
        }
        Ending::Resignation | Ending::Forfeit => {
            // A forfeit is scored as a resignation of the seat.
            let left = row.resigned_seat.unwrap_or(0);
            let outcome = Outcome::resignation(players, left);
            let results = outcome.results(players);
            let name = named(seats, left);
            let forfeited = ending == Ending::Forfeit;
            let how = match row.forfeits.iter().find(|f| f.seat == left) {
                Some(forfeit) if forfeited => forfeit.words(),
                _ if forfeited => "forfeited".to_owned(),
                _ => "resigned".to_owned(),
            };
            MatchResult {
                ending,
                resigned_seat: (!forfeited).then_some(left),
                forfeited_seat: forfeited.then_some(left),
                forfeits: Vec::new(),
                winners: outcome.winners(),
                results,
                summary: format!("seat {left}{name} {how}"),
                reason: None,
                by_progress: None,
                places: Vec::new(),
            }
        }
        Ending::Abandoned | Ending::BotLimit | Ending::BotUnavailable => MatchResult {
            ending,
            resigned_seat: None,
            forfeited_seat: None,
            forfeits: Vec::new(),
            winners: Vec::new(),
            results: vec![0.0; players],
            reason: None,
            by_progress: None,
            places: Vec::new(),
            summary: match ending {
                Ending::BotLimit => {
                    format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
                }
                Ending::BotUnavailable => match row.resigned_seat {
                    Some(seat) => format!(
                        "abandoned: the bot of seat {seat}{} could not move (its table is not installed on this server)",
                        named(seats, seat)
                    ),
                    None => "abandoned: a bot could not move".to_owned(),
                },
                _ => "abandoned by its creator".to_owned(),
            },
        },
    };
    if ending.status() != MatchStatus::Abandoned {
        result.places = places(&result.results, seats);
    }
    result.forfeits = row.forfeits.clone();
    Some(result)
}

/// ` (name)` of seat `seat`, or nothing for a seat the match lacks.
fn named(seats: &[SeatRow], seat: usize) -> String {
    seats
        .get(seat)
        .map_or_else(String::new, |s| format!(" ({})", s.name))
}

/// The legend under the picture of a match that is over, at its last
/// position: how it ended (`finished: seat 1 won; seat 0 forfeited (3
/// timeouts)`), where the position alone would still name a player to
/// move after a resignation, a forfeit or an abandonment. Seats by number
/// (the winners' colours lead it), so that names do not widen the picture.
pub fn legend(result: &MatchResult, position: &Position) -> sternhalma::Legend {
    if result.ending.status() == MatchStatus::Abandoned {
        return sternhalma::Legend {
            players: Vec::new(),
            text: result.summary.clone(),
        };
    }
    let mut parts = Vec::new();
    match result.winners.as_slice() {
        [] if result.ending == Ending::Outcome => parts.push(position.outcome().to_string()),
        [] => {}
        [winner] => parts.push(format!("seat {winner} won")),
        winners => parts.push(format!(
            "seats {} share first place",
            winners
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    if let Some(seat) = result.resigned_seat {
        parts.push(format!("seat {seat} resigned"));
    }
    if result.ending == Ending::Outcome {
        // Seats that resigned a game of three or more (forfeits below).
        for resignation in position.resignations() {
            if !result.forfeits.iter().any(|f| f.seat == resignation.player) {
                parts.push(format!("seat {} resigned", resignation.player));
            }
        }
    }
    for forfeit in &result.forfeits {
        parts.push(format!("seat {} {}", forfeit.seat, forfeit.words()));
    }
    sternhalma::Legend {
        players: result.winners.clone(),
        text: format!("finished: {}", parts.join("; ")),
    }
}

/// Every seat by place (1 the best; equal results share a place), named.
fn places(results: &[f64], seats: &[SeatRow]) -> Vec<Place> {
    let mut places: Vec<Place> = results
        .iter()
        .enumerate()
        .map(|(seat, &value)| Place {
            place: 1 + results.iter().filter(|&&other| other > value).count(),
            seat,
            name: seats.get(seat).map_or_else(String::new, |s| s.name.clone()),
            result: value,
        })
        .collect();
    places.sort_by_key(|place| (place.place, place.seat));
    places
}

fn state_of(row: &MatchRow, seats: &[SeatRow]) -> Result<MatchView, Error> {
    let position = parse_position(&row.position)?;
    let result = result(row, seats, &position);
    Ok(views::state(row, seats, &position, result))
}

/// The state of match `id`.
///
/// # Errors
/// 404 for an unknown match.
pub fn view(store: &Db, id: i64) -> Result<MatchView, Error> {
    let row = load_match(store, id)?;
    let seats = storage::load_seats(store, id)?;
    state_of(&row, &seats)
}

/// The ply and status of match `id` (what a long-poll compares).
///
/// # Errors
/// 404 for an unknown match.
pub fn progress(store: &Db, id: i64) -> Result<(u32, MatchStatus, i64), Error> {
    let row = load_match(store, id)?;
    Ok((row.ply, row.status, row.version))
}

/// A match while a request plays moves on it: the position, the ply, and
/// the moves this request has stored.
struct Progress {
    position: Position,
    ply: u32,
    played: Vec<MoveRecord>,
}

impl Progress {
    fn new(position: Position, ply: u32) -> Progress {
        Progress {
            position,
            ply,
            played: Vec::new(),
        }
    }

    /// Stores `played`, a move of the current position, and plays it. The
    /// stored path is the move's canonical one (the fewest hops,
    /// [`Position::played`]), not whatever chain the client typed: what a
    /// move takes in the database is bounded by the board.
    fn record(&mut self, store: &Db, id: i64, played: &Played, now: &str) -> Result<(), Error> {
        let played = &self.position.played(played.mv);
        storage::insert_move(
            store,
            id,
            &MoveRow {
                ply: self.ply,
                seat: played.player,
                path: path_text(&played.path),
                played_at: now.to_owned(),
            },
        )?;
        self.played.push(views::record(
            self.ply,
            played.player,
            played,
            now.to_owned(),
        ));
        self.position = self.position.after(played);
        self.ply += 1;
        Ok(())
    }

    /// Stores the state after the moves; `ending` closes the match.
    fn save(&self, store: &Db, id: i64, ending: Option<Ending>, now: &str) -> Result<(), Error> {
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
/// caller) and answers its state. Built-in bots to move first are not
/// played here: see [`bot_turn`] (the creation is told, and the server's
/// bot runner hears of it).
///
/// # Errors
/// Only database failures.
pub fn create(
    store: &mut Db,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
) -> Result<Committed<MatchView>, Error> {
    store.transaction(|store| {
        let id = insert(store, start, seats, admin_token_hash)?;
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
    let id = storage::insert_match(store, &start.to_string(), admin_token_hash.as_slice(), &now)?;
    for (seat, plan) in seats.iter().enumerate() {
        storage::insert_seat(store, id, seat, plan)?;
    }
    Ok(id)
}

/// The ending of a match whose position is `position`, if the board has
/// decided it.
fn board_ending(position: &Position) -> Option<Ending> {
    (position.outcome() != Outcome::InProgress).then_some(Ending::Outcome)
}

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
    /// The bot to move (with its seed).
    pub bot: SeatBot,
    /// Plies the bots have played in a row before this one.
    pub bot_plies: u32,
    /// Whether an open seat still takes turns, and so waits for this move;
    /// if not, only bots are left to play (a background continuation).
    pub open_seat_waits: bool,
}

impl BotTurn {
    /// The bot's move: the search, reproducible from the seat's seed and
    /// the ply. CPU-bound; run it off the writer and off actix's workers.
    /// Past [`MAX_BOT_PLIES`] there is no search ([`play_bot`] abandons the
    /// match): a pass.
    ///
    /// # Errors
    /// The bot cannot move ([`SeatBot::choose`]: a `perfect` bot whose
    /// table is not installed); [`bot_unavailable`] ends the match then.
    pub fn choose(&self) -> Result<sternhalma::Move, CannotMove> {
        if self.bot_plies >= MAX_BOT_PLIES {
            return Ok(sternhalma::Move::Pass);
        }
        self.bot.choose(&self.position, self.ply)
    }
}

/// The built-in bot to move in match `id`, if the match is in progress and
/// a bot seat is to move.
///
/// # Errors
/// 404 for an unknown match; database failures.
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
    // a bot is an error, never another bot.
    let bot = SeatBot::new(spec).map_err(|e| {
        corrupt(format!(
            "the stored bot of seat {seat} of match {id} cannot be made: {e}"
        ))
    })?;
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
        let row = load_match(store, turn.id)?;
        if row.version != turn.version || row.status != MatchStatus::InProgress {
            return Ok(None);
        }
        let now = store.now()?;
        if turn.bot_plies >= MAX_BOT_PLIES {
            let ending = Ending::BotLimit;
            storage::close(store, turn.id, ending.status(), ending, None, &now)?;
            return Ok(Some(row.version + 1));
        }
        if !turn.position.is_legal(mv) {
            // A bot plays only legal moves; never store anything else.
            return Err(Error::Internal(format!(
                "the bot of match {} chose an illegal move {mv}",
                turn.id
            )));
        }
        play_checked(store, turn.id, &turn.position, turn.ply, mv, &now)?;
        Ok(Some(row.version + 1))
    })
}

/// The bot of `turn` cannot move (`why`): the match ends
/// (`bot_unavailable`, abandoned, no result) if it is still at
/// `turn.version`, rather than wait for ever or see another bot play in
/// its place. Answers the match's new version, or `None` when it had
/// changed meanwhile.
///
/// # Errors
/// Database failures.
pub fn bot_unavailable(
    store: &mut Db,
    turn: &BotTurn,
    why: &CannotMove,
) -> Result<Committed<Option<i64>>, Error> {
    store.transaction(|store| {
        let row = load_match(store, turn.id)?;
        if row.version != turn.version || row.status != MatchStatus::InProgress {
            return Ok(None);
        }
        tracing::warn!(
            match_id = turn.id,
            seat = turn.position.side_to_move(),
            code = why.code,
            "a built-in bot cannot move; the match ends: {why}"
        );
        let now = store.now()?;
        let ending = Ending::BotUnavailable;
        let seat = turn.position.side_to_move();
        storage::close(store, turn.id, ending.status(), ending, Some(seat), &now)?;
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
    now: &str,
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
/// 404 for an unknown match; database failures.
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
/// thread (for tests and tools).
///
/// # Errors
/// Database failures.
pub fn play_bots(store: &mut Db, id: i64) -> Result<(), Error> {
    while let Some(turn) = bot_turn(store, id)? {
        // Nobody listens here: a tool's or a test's own thread.
        let _ = match turn.choose() {
            Ok(mv) => play_bot(store, &turn, mv)?,
            Err(why) => bot_unavailable(store, &turn, &why)?,
        };
    }
    Ok(())
}

fn seat_of(seats: &[SeatRow], token: &TokenHash) -> Result<usize, Error> {
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

fn ensure_open(row: &MatchRow) -> Result<(), Error> {
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
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`, `stale_ply` or
/// `not_your_turn`, 422 illegal move.
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
        progress.record(store, id, &played, &now)?;
        progress.save(store, id, board_ending(&progress.position), &now)?;
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
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`, 409
/// `already_resigned`.
pub fn resign(store: &mut Db, id: i64, token: &TokenHash) -> Result<Committed<MatchView>, Error> {
    store.transaction(|store| {
        let row = load_match(store, id)?;
        let seats = storage::load_seats(store, id)?;
        let seat = seat_of(&seats, token)?;
        ensure_open(&row)?;
        let now = store.now()?;
        resign_seat(store, &row, seats.len(), seat, &now)?;
        view(store, id)
    })
}

/// Seat `seat` of match `row` (in progress, with `players` seats) resigns,
/// inside the caller's write: the match ends with two seats or fewer, the
/// seat leaves the game with more.
///
/// # Errors
/// 409 `already_resigned`, or `cannot_resign` for a seat that finished;
/// database failures.
pub fn resign_seat(
    store: &Db,
    row: &MatchRow,
    players: usize,
    seat: usize,
    now: &str,
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
/// 409 `already_resigned`, or `cannot_resign` for a seat that finished;
/// database failures.
pub fn forfeit_seat(
    store: &Db,
    row: &MatchRow,
    players: usize,
    forfeit: &Forfeit,
    now: &str,
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
fn leave(store: &Db, row: &MatchRow, seat: usize, now: &str) -> Result<(), Error> {
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
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`.
pub fn abandon(store: &mut Db, id: i64, by: &Authority) -> Result<Committed<MatchView>, Error> {
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
        storage::close(store, id, ending.status(), ending, None, &now)?;
        view(store, id)
    })
}

/// Every move of match `id`, replayed from its start (so each carries its
/// kind and path).
///
/// # Errors
/// 404 for an unknown match.
pub fn history(store: &Db, id: i64) -> Result<History, Error> {
    let (row, _, played) = replay(store, id)?;
    Ok(History {
        match_id: id,
        start_position: row.start_position,
        moves: played
            .into_iter()
            .map(|(stored, played)| {
                views::record(stored.ply, stored.seat, &played, stored.played_at)
            })
            .collect(),
    })
}

/// A stored move and the legal move it is where it was played.
type Replayed = (MoveRow, Played);

/// Match `id`'s row, its start, and each stored move with the legal move
/// it is, replayed from the start.
fn replay(store: &Db, id: i64) -> Result<(MatchRow, Position, Vec<Replayed>), Error> {
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
/// table installed in this process for its game, or `None` when no table
/// covers its game (another board, other rules, or no table installed).
///
/// # Errors
/// 404 for an unknown match; a stored move that does not replay.
pub fn analysed(store: &Db, id: i64) -> Result<Option<Analysis>, Error> {
    let (_, start, played) = replay(store, id)?;
    let Ok(table) = installed().for_position(&start) else {
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
    /// is over ([`legend`]); `None` otherwise (the position's own legend).
    pub legend: Option<sternhalma::Legend>,
}

/// Match `id` after `ply` plies ([`BoardAt`]).
///
/// # Errors
/// 404 for an unknown match; 422 `no_such_ply` past the match's ply.
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
        let legend = match row.status {
            MatchStatus::InProgress => None,
            _ => result(&row, &storage::load_seats(store, id)?, &current)
                .map(|result| legend(&result, &current)),
        };
        return Ok(BoardAt {
            position: current,
            last_path,
            current: true,
            version: row.version,
            legend,
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
        legend: None,
    })
}

/// The moves of match `id` from `ply` on, as [`history`] shows them.
///
/// # Errors
/// 404 for an unknown match.
pub fn moves_since(store: &Db, id: i64, ply: u32) -> Result<Vec<MoveRecord>, Error> {
    let mut moves = history(store, id)?.moves;
    moves.retain(|record| record.ply >= ply);
    Ok(moves)
}

/// Match `id` as a game record for `POST /v1/replay`.
///
/// # Errors
/// 404 for an unknown match.
pub fn export(store: &Db, id: i64) -> Result<ExportedGame, Error> {
    let row = load_match(store, id)?;
    Ok(ExportedGame {
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
pub fn list(store: &Db, status: Option<MatchStatus>, page: Page) -> Result<MatchList, Error> {
    let ids = storage::list_ids(store, status, page.before, page.fetch())?;
    let (ids, next_before) = page.split(ids);
    let mut matches = Vec::new();
    for id in ids {
        let row = load_match(store, id)?;
        let seats = storage::load_seats(store, id)?;
        let result = match row.status {
            MatchStatus::InProgress => None,
            _ => result(&row, &seats, &parse_position(&row.position)?),
        };
        matches.push(views::summary(row, &seats, result));
    }
    Ok(MatchList {
        next_before,
        matches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::BotSpec;
    use crate::sql::Db;
    use sternhalma::{Layout, Rules};

    /// A fresh database: SQLite, or PostgreSQL when the suite names a
    /// server ([`crate::db::TEST_POSTGRES`]).
    fn scratch(name: &str) -> Db {
        let database = crate::db::scratch(&format!("storage_{name}")).unwrap();
        crate::db::open(&database).unwrap().0
    }

    fn bot(seed: u64) -> SeatPlan {
        SeatPlan {
            name: format!("bot {seed}"),
            bot: Some(BotSpec {
                kind: "random".to_owned(),
                seed: Some(seed),
                nodes: None,
                millis: None,
                depth: None,
            }),
            token_hash: None,
        }
    }

    fn open(seat: u8) -> SeatPlan {
        SeatPlan {
            name: format!("open {seat}"),
            bot: None,
            token_hash: Some([seat + 1; 32]),
        }
    }

    fn start_with(players: usize, rules: &str) -> Position {
        Position::start(
            "star4".parse().unwrap(),
            Layout::standard(players).unwrap(),
            rules.parse::<Rules>().unwrap(),
        )
        .unwrap()
    }

    fn start(rules: &str) -> Position {
        start_with(2, rules)
    }

    /// Creates a match and plays its bots as the server's runner does.
    fn create_and_play(connection: &mut Db, start: &Position, seats: &[SeatPlan]) -> MatchView {
        let id = create(connection, start, seats, &[0; 32])
            .unwrap()
            .into_value()
            .id;
        play_bots(connection, id).unwrap();
        view(connection, id).unwrap()
    }

    // The routes refuse matches without an open seat; the match logic
    // plays whatever bots are to move, so two bots show how a bot chain
    // ends.
    #[test]
    fn bots_play_to_the_outcome() {
        let mut connection = scratch("outcome");
        let state = create_and_play(
            &mut connection,
            &start("classic,max_plies=6"),
            &[bot(1), bot(2)],
        );
        assert_eq!(state.status, MatchStatus::Finished);
        assert_eq!(state.ply, 6);
        let result = state.result.unwrap();
        assert_eq!(result.ending, Ending::Outcome);
        assert_eq!(result.results, [0.0, 0.0], "a draw by the move limit");
        assert_eq!(history(&connection, state.id).unwrap().moves.len(), 6);
        assert!(bot_turn(&connection, state.id).unwrap().is_none());
    }

    // The README's own match under the defaults, with both seats random
    // bots: the default move limit (NewGame::program_move_limit, as the
    // create route applies it) ends it, well inside the bots' own limit.
    #[test]
    fn two_random_bots_under_the_defaults_end_by_the_move_limit() {
        let mut connection = scratch("defaults");
        let game = sternhalma::NewGame::default();
        let start = game
            .clone()
            .with_max_plies(game.program_move_limit())
            .start()
            .unwrap();
        let state = create_and_play(&mut connection, &start, &[bot(21), bot(22)]);
        assert_eq!(state.status, MatchStatus::Finished);
        assert_eq!(state.ply, 400);
        let result = state.result.unwrap();
        assert_eq!(result.ending, Ending::Outcome);
        assert_eq!(result.reason, Some(DrawReason::MoveLimit));
        assert_eq!(result.results, [0.0, 0.0]);
        let by_progress = result.by_progress.unwrap();
        assert_eq!(by_progress.concat().len(), 2, "{by_progress:?}");
    }

    // Bot plies in a row are counted from the last open seat's move; at
    // the limit the match is abandoned instead of searched.
    #[test]
    fn bots_that_do_not_finish_are_stopped_at_the_limit() {
        let mut connection = scratch("limit");
        let id = create(
            &mut connection,
            &start("classic"),
            &[bot(3), bot(4)],
            &[0; 32],
        )
        .unwrap()
        .into_value()
        .id;
        for _ in 0..3 {
            let turn = bot_turn(&connection, id).unwrap().unwrap();
            play_bot(&mut connection, &turn, turn.choose().unwrap())
                .unwrap()
                .into_value()
                .unwrap();
        }
        let mut turn = bot_turn(&connection, id).unwrap().unwrap();
        assert_eq!(turn.bot_plies, 3);
        turn.bot_plies = MAX_BOT_PLIES;
        assert_eq!(turn.choose(), Ok(sternhalma::Move::Pass), "no search");
        play_bot(&mut connection, &turn, turn.choose().unwrap())
            .unwrap()
            .into_value()
            .unwrap();
        let state = view(&connection, id).unwrap();
        assert_eq!(state.status, MatchStatus::Abandoned);
        assert_eq!(state.ply, 3);
        assert_eq!(state.result.unwrap().ending, Ending::BotLimit);
        assert!(state.legal_moves.is_empty());
        assert_eq!(export(&connection, id).unwrap().moves.len(), 3);
        assert!(bot_turn(&connection, id).unwrap().is_none());
    }

    // A bot's move searched for a version the match has left (another
    // change came first) is not stored: nothing lost, nothing doubled.
    #[test]
    fn a_bot_move_for_a_stale_version_is_dropped() {
        let mut connection = scratch("stale");
        let seats = [open(0), bot(5), open(2)];
        let id = create(&mut connection, &start_with(3, "classic"), &seats, &[0; 32])
            .unwrap()
            .into_value()
            .id;
        let first = view(&connection, id).unwrap().legal_moves[0].text.clone();
        let version = submit(&mut connection, id, &[1; 32], 0, &first.parse().unwrap())
            .unwrap()
            .into_value();
        let turn = bot_turn(&connection, id).unwrap().unwrap();
        assert_eq!((turn.version, turn.ply), (version, 1));
        let searched = turn.choose().unwrap();
        // Meanwhile seat 2 resigns: the bot's search is for a stale state.
        resign(&mut connection, id, &[3; 32]).unwrap().into_value();
        assert_eq!(
            play_bot(&mut connection, &turn, searched)
                .unwrap()
                .into_value(),
            None
        );
        assert_eq!(export(&connection, id).unwrap().moves.len(), 1);
        // Searched again, it is stored once, and the history replays.
        let again = bot_turn(&connection, id).unwrap().unwrap();
        assert!(again.version > version);
        play_bot(&mut connection, &again, again.choose().unwrap())
            .unwrap()
            .into_value()
            .unwrap();
        let moves = history(&connection, id).unwrap().moves;
        assert_eq!(
            moves.iter().map(|m| (m.ply, m.seat)).collect::<Vec<_>>(),
            [(0, 0), (1, 1)]
        );
        assert!(!waits_for_bots(&connection, id).unwrap(), "seat 0 to move");
    }

    // The stored path is the move's canonical one, whatever chain the
    // client sent.
    #[test]
    fn a_move_is_stored_with_its_canonical_path() {
        let mut connection = scratch("canonical");
        let id = create(
            &mut connection,
            &start("classic"),
            &[open(0), open(1)],
            &[0; 32],
        )
        .unwrap()
        .into_value()
        .id;
        // 115-104 is a hop over 110; the chain may come back and hop again.
        let long = "115-104-115-104".parse().unwrap();
        submit(&mut connection, id, &[1; 32], 0, &long)
            .unwrap()
            .into_value();
        assert_eq!(export(&connection, id).unwrap().moves, ["115-104"]);
        let moves = history(&connection, id).unwrap().moves;
        assert_eq!(moves[0].mv.path, [115, 104]);
    }

    // With one or two seats a resignation ends the match: the resigner -1,
    // the other +1 (`Outcome::resignation`).
    #[test]
    fn a_resignation_with_one_or_two_seats_ends_the_match() {
        let mut connection = scratch("resign");
        for (players, resigner, winners, results) in
            [(1, 0, vec![], vec![-1.0]), (2, 1, vec![0], vec![1.0, -1.0])]
        {
            let seats: Vec<SeatPlan> = (0..players as u8).map(open).collect();
            let id = create(
                &mut connection,
                &start_with(players, "classic"),
                &seats,
                &[0; 32],
            )
            .unwrap()
            .into_value()
            .id;
            let state = resign(&mut connection, id, &[resigner as u8 + 1; 32])
                .unwrap()
                .into_value();
            let result = state.result.unwrap();
            assert_eq!(state.status, MatchStatus::Finished);
            assert_eq!(result.ending, Ending::Resignation);
            assert_eq!(result.resigned_seat, Some(resigner));
            assert_eq!(result.winners, winners, "{players} players");
            assert_eq!(result.results, results, "{players} players");
            assert_eq!(
                result.summary,
                format!("seat {resigner} (open {resigner}) resigned")
            );
        }
    }

    // A forfeit is scored as a resignation and stored as a forfeit: with
    // two seats it ends the match; with three the seat leaves, once.
    #[test]
    fn a_forfeit_is_stored_as_a_forfeit() {
        let mut connection = scratch("forfeit");
        let forfeit = |seat, ply| Forfeit {
            seat,
            ply,
            reason: crate::matches::dto::ForfeitReason::Timeouts,
            timeouts: Some(3),
        };
        let id = create(
            &mut connection,
            &start("classic"),
            &[open(0), open(1)],
            &[0; 32],
        )
        .unwrap()
        .into_value()
        .id;
        connection
            .write(|store| {
                let row = load_match(store, id)?;
                forfeit_seat(store, &row, 2, &forfeit(0, 0), "2026-03-01T10:00:00.000Z")
            })
            .unwrap();
        let state = view(&connection, id).unwrap();
        assert_eq!(state.status, MatchStatus::Finished);
        let result = state.result.unwrap();
        assert_eq!(result.ending, Ending::Forfeit);
        assert_eq!(
            (result.forfeited_seat, result.resigned_seat),
            (Some(0), None)
        );
        assert_eq!(result.forfeits, [forfeit(0, 0)]);
        assert_eq!((result.winners, result.results), (vec![1], vec![-1.0, 1.0]));
        assert_eq!(result.summary, "seat 0 (open 0) forfeited (3 timeouts)");
        let legend = board_at(&connection, id, None).unwrap().legend.unwrap();
        assert_eq!(
            (legend.players, legend.text.as_str()),
            (
                vec![1],
                "finished: seat 1 won; seat 0 forfeited (3 timeouts)"
            )
        );
        let listed = list(
            &connection,
            None,
            Page {
                limit: 10,
                before: i64::MAX,
            },
        )
        .unwrap()
        .matches;
        assert_eq!(listed[0].ending, Some(Ending::Forfeit));

        let seats: Vec<SeatPlan> = (0..3).map(open).collect();
        let id = create(&mut connection, &start_with(3, "classic"), &seats, &[0; 32])
            .unwrap()
            .into_value()
            .id;
        let leave = |connection: &mut Db| {
            connection.write(|store| {
                let row = load_match(store, id)?;
                forfeit_seat(store, &row, 3, &forfeit(1, 0), "2026-03-01T10:00:00.000Z")
            })
        };
        leave(&mut connection).unwrap();
        let state = view(&connection, id).unwrap();
        assert_eq!(state.status, MatchStatus::InProgress);
        assert_eq!(state.position.position.resigned.len(), 1);
        let refused = leave(&mut connection).unwrap_err();
        assert_eq!(refused.code(), "already_resigned");
        assert_eq!(
            storage::load_forfeits(&connection, id).unwrap(),
            [forfeit(1, 0)]
        );
    }

    // With three or more the resigner leaves and the others play on; when
    // one is left the match is over, resigners last (`Position::resign`).
    #[test]
    fn a_resignation_with_three_seats_leaves_the_others_playing() {
        let mut connection = scratch("resign3");
        let seats: Vec<SeatPlan> = (0..3).map(open).collect();
        let id = create(&mut connection, &start_with(3, "classic"), &seats, &[0; 32])
            .unwrap()
            .into_value()
            .id;
        let state = resign(&mut connection, id, &[1; 32]).unwrap().into_value();
        assert_eq!(state.status, MatchStatus::InProgress);
        assert!(state.result.is_none());
        assert_eq!(state.to_move, Some(1), "seat 0 resigned on its turn");
        let refused = resign(&mut connection, id, &[1; 32]).unwrap_err();
        assert_eq!(refused.code(), "already_resigned");
        let state = resign(&mut connection, id, &[3; 32]).unwrap().into_value();
        assert_eq!(state.status, MatchStatus::Finished);
        let result = state.result.unwrap();
        assert_eq!(result.ending, Ending::Outcome);
        assert_eq!(result.winners, [1]);
        assert_eq!(
            result.results,
            [-1.0, 1.0, 0.0],
            "the later resigner ranks higher"
        );
    }
}
