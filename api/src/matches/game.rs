//! The match logic: what each `/v1/matches` operation checks and does,
//! over any [`MatchStore`].
//!
//! A write loads the match, checks (token, status, ply, turn, legality),
//! plays the built-in bots' replies, stores the moves and the new state,
//! all inside one [`MatchStore::write`]; on any error nothing is stored.
//! Results come from [`Outcome`]: the board's, or a resignation's.

use sternhalma::search::eval::progress_ranking;
use sternhalma::{Cell, DrawReason, MoveText, Outcome, Played, Position};

use crate::bots;
use crate::error::ApiError;
use crate::matches::dto::{
    Ending, ExportedGame, History, MatchList, MatchResult, MatchStatus, MatchView, MoveRecord,
    MovesAccepted,
};
use crate::matches::storage::{MatchRow, MatchStore, MoveRow, SeatPlan, SeatRow, corrupt};
use crate::matches::tokens::TokenHash;
use crate::matches::views;

/// The most plies built-in bots play in one request when no open seat is
/// left to move (for instance when every open seat has finished in a
/// ranking game); past it the match is abandoned (`bot_limit`).
pub const MAX_BOT_PLIES: u32 = 5_000;

fn load_match<S: MatchStore>(store: &S, id: i64) -> Result<MatchRow, ApiError> {
    store
        .load_match(id)?
        .ok_or_else(|| ApiError::not_found(format!("no match {id}")))
}

fn parse_position(text: &str) -> Result<Position, ApiError> {
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
/// resignation's, or none for an abandoned match.
fn result(row: &MatchRow, seats: &[SeatRow], position: &Position) -> Option<MatchResult> {
    let ending = row.ending?;
    let players = seats.len();
    Some(match ending {
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
            MatchResult {
                ending,
                resigned_seat: None,
                winners: outcome.winners(),
                results: position.results(),
                summary: match reason {
                    Some(DrawReason::MoveLimit) => format!(
                        "{outcome} ({} plies)",
                        position.rules().max_plies.unwrap_or(u32::MAX)
                    ),
                    _ => outcome.to_string(),
                },
                reason,
                by_progress: (reason == Some(DrawReason::MoveLimit))
                    .then(|| progress_ranking(position)),
            }
        }
        Ending::Resignation => {
            let resigned = row.resigned_seat.unwrap_or(0);
            let outcome = Outcome::resignation(players, resigned);
            let results = outcome.results(players);
            let name = seats
                .get(resigned)
                .map_or_else(String::new, |s| format!(" ({})", s.name));
            MatchResult {
                ending,
                resigned_seat: Some(resigned),
                winners: outcome.winners(),
                results,
                summary: format!("seat {resigned}{name} resigned"),
                reason: None,
                by_progress: None,
            }
        }
        Ending::Abandoned | Ending::BotLimit => MatchResult {
            ending,
            resigned_seat: None,
            winners: Vec::new(),
            results: vec![0.0; players],
            reason: None,
            by_progress: None,
            summary: if ending == Ending::Abandoned {
                "abandoned by its creator".to_owned()
            } else {
                format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
            },
        },
    })
}

fn state_of(row: &MatchRow, seats: &[SeatRow]) -> Result<MatchView, ApiError> {
    let position = parse_position(&row.position)?;
    let result = result(row, seats, &position);
    Ok(views::state(row, seats, &position, result))
}

/// The state of match `id`.
///
/// # Errors
/// 404 for an unknown match.
pub fn view<S: MatchStore>(store: &S, id: i64) -> Result<MatchView, ApiError> {
    let row = load_match(store, id)?;
    let seats = store.load_seats(id)?;
    state_of(&row, &seats)
}

/// The ply and status of match `id` (what a long-poll compares).
///
/// # Errors
/// 404 for an unknown match.
pub fn progress<S: MatchStore>(store: &S, id: i64) -> Result<(u32, MatchStatus, i64), ApiError> {
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

    /// Stores `played`, a move of the current position, and plays it.
    fn record<S: MatchStore>(
        &mut self,
        store: &S,
        id: i64,
        played: &Played,
        now: &str,
    ) -> Result<(), ApiError> {
        store.insert_move(
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
    fn save<S: MatchStore>(
        &self,
        store: &S,
        id: i64,
        ending: Option<Ending>,
        now: &str,
    ) -> Result<(), ApiError> {
        store.save_state(
            id,
            &self.position.to_string(),
            self.ply,
            ending.map_or(MatchStatus::InProgress, Ending::status),
            ending,
            now,
        )
    }
}

/// Plays the built-in bots' moves while a bot seat is to move. Answers the
/// ending when the game ends or the bots reach `limit` plies
/// ([`MAX_BOT_PLIES`]).
fn advance_bots<S: MatchStore>(
    store: &S,
    id: i64,
    seats: &[SeatRow],
    progress: &mut Progress,
    now: &str,
    limit: u32,
) -> Result<Option<Ending>, ApiError> {
    let mut bot_plies = 0;
    loop {
        let position = &progress.position;
        if position.outcome() != Outcome::InProgress {
            return Ok(Some(Ending::Outcome));
        }
        let seat = position.side_to_move();
        let Some(spec) = seats.get(seat).and_then(|s| s.bot.as_ref()) else {
            return Ok(None);
        };
        if bot_plies == limit {
            return Ok(Some(Ending::BotLimit));
        }
        let seed = bots::ply_seed(spec.seed.unwrap_or(0), progress.ply);
        let played = position.played(bots::choose_move(spec, position, seed));
        progress.record(store, id, &played, now)?;
        bot_plies += 1;
    }
}

/// Creates a match from its start position and seats (validated by the
/// caller), plays the bots' moves if a bot moves first, and answers its
/// state.
///
/// # Errors
/// Only database failures.
pub fn create<S: MatchStore>(
    store: &mut S,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
) -> Result<MatchView, ApiError> {
    create_with_bot_limit(store, start, seats, admin_token_hash, MAX_BOT_PLIES)
}

fn create_with_bot_limit<S: MatchStore>(
    store: &mut S,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
    bot_limit: u32,
) -> Result<MatchView, ApiError> {
    let id = store.write(|store| {
        let now = store.now()?;
        let id = store.insert_match(&start.to_string(), admin_token_hash.as_slice(), &now)?;
        for (seat, plan) in seats.iter().enumerate() {
            store.insert_seat(id, seat, plan)?;
        }
        let seat_rows = store.load_seats(id)?;
        let mut progress = Progress::new(start.clone(), 0);
        let ending = advance_bots(store, id, &seat_rows, &mut progress, &now, bot_limit)?;
        if progress.ply > 0 || ending.is_some() {
            progress.save(store, id, ending, &now)?;
        }
        Ok(id)
    })?;
    view(store, id)
}

fn seat_of(seats: &[SeatRow], token: &TokenHash) -> Result<usize, ApiError> {
    seats
        .iter()
        .find(|seat| seat.token_hash.as_deref() == Some(token.as_slice()))
        .map(|seat| seat.seat)
        .ok_or_else(|| {
            ApiError::forbidden(
                "wrong_token",
                "this token is not the token of any open seat of this match",
            )
        })
}

fn ensure_open(row: &MatchRow) -> Result<(), ApiError> {
    if row.status == MatchStatus::InProgress {
        Ok(())
    } else {
        Err(ApiError::conflict(
            "match_closed",
            format!(
                "match {} is {}; it takes no more moves",
                row.id,
                row.status.as_str().replace('_', " ")
            ),
        ))
    }
}

/// Plays `text` for the seat holding `token` at `ply`, then the bots'
/// replies; all stored in one transaction. Answers the stored moves and the
/// new state.
///
/// # Errors
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`, `stale_ply` or
/// `not_your_turn`, 422 illegal move.
pub fn submit<S: MatchStore>(
    store: &mut S,
    id: i64,
    token: &TokenHash,
    ply: u32,
    text: &MoveText,
) -> Result<MovesAccepted, ApiError> {
    let played = store.write(|store| {
        let row = load_match(store, id)?;
        let seats = store.load_seats(id)?;
        let seat = seat_of(&seats, token)?;
        ensure_open(&row)?;
        if ply != row.ply {
            return Err(ApiError::conflict(
                "stale_ply",
                format!(
                    "the match is at ply {}, not {ply}; read the state and try again",
                    row.ply
                ),
            ));
        }
        let position = parse_position(&row.position)?;
        if position.side_to_move() != seat {
            return Err(ApiError::conflict(
                "not_your_turn",
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
        let ending = advance_bots(store, id, &seats, &mut progress, &now, MAX_BOT_PLIES)?;
        progress.save(store, id, ending, &now)?;
        Ok(progress.played)
    })?;
    Ok(MovesAccepted {
        played,
        state: view(store, id)?,
    })
}

/// The seat holding `token` resigns. With two seats (or one) the match is
/// over: the resigner loses. With three or more the seat leaves the game
/// (`Position::resign`: its pegs stay as obstacles, its turns are skipped,
/// it ranks last) and the others play on; built-in bots to move then move.
/// The match ends when one seat is left or the game ends by the rules.
///
/// # Errors
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`, 409
/// `already_resigned`.
pub fn resign<S: MatchStore>(
    store: &mut S,
    id: i64,
    token: &TokenHash,
) -> Result<MatchView, ApiError> {
    store.write(|store| {
        let row = load_match(store, id)?;
        let seats = store.load_seats(id)?;
        let seat = seat_of(&seats, token)?;
        ensure_open(&row)?;
        let now = store.now()?;
        if seats.len() < 3 {
            let ending = Ending::Resignation;
            return store.close(id, ending.status(), ending, Some(seat), &now);
        }
        let position = parse_position(&row.position)?;
        if position.is_resigned(seat) {
            return Err(ApiError::conflict(
                "already_resigned",
                format!("seat {seat} has resigned already"),
            ));
        }
        // A seat that has finished cannot resign: a conflict with the
        // match's state, like a closed match.
        let resigned = position
            .resign(seat)
            .map_err(|e| ApiError::conflict(e.code(), e.to_string()))?;
        let mut progress = Progress::new(resigned, row.ply);
        let ending = advance_bots(store, id, &seats, &mut progress, &now, MAX_BOT_PLIES)?;
        progress.save(store, id, ending, &now)
    })?;
    view(store, id)
}

/// The creator (admin token) abandons the match.
///
/// # Errors
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`.
pub fn abandon<S: MatchStore>(
    store: &mut S,
    id: i64,
    token: &TokenHash,
) -> Result<MatchView, ApiError> {
    store.write(|store| {
        let row = load_match(store, id)?;
        if row.admin_token_hash.as_slice() != token.as_slice() {
            return Err(ApiError::forbidden(
                "wrong_token",
                "this token is not the admin token of this match",
            ));
        }
        ensure_open(&row)?;
        let now = store.now()?;
        let ending = Ending::Abandoned;
        store.close(id, ending.status(), ending, None, &now)
    })?;
    view(store, id)
}

/// Every move of match `id`, replayed from its start (so each carries its
/// kind and path).
///
/// # Errors
/// 404 for an unknown match.
pub fn history<S: MatchStore>(store: &S, id: i64) -> Result<History, ApiError> {
    let row = load_match(store, id)?;
    let mut position = parse_position(&row.start_position)?;
    // Resignations are not moves: the current position records them with
    // their plies, and the replay makes them where they happened.
    let resignations = parse_position(&row.position)?.resignations();
    let mut moves = Vec::new();
    for stored in store.load_moves(id)? {
        position = position.resign_due(&resignations).map_err(corrupt)?;
        let played = stored
            .path
            .parse::<MoveText>()
            .map_err(|e| e.to_string())
            .and_then(|text| position.resolve(&text).map_err(|e| e.to_string()))
            .map_err(|e| corrupt(format!("move {}: {e}", stored.ply)))?;
        position = position.after(&played);
        moves.push(views::record(
            stored.ply,
            stored.seat,
            &played,
            stored.played_at,
        ));
    }
    Ok(History {
        match_id: id,
        start_position: row.start_position,
        moves,
    })
}

/// Match `id` as a game record for `POST /v1/replay`.
///
/// # Errors
/// 404 for an unknown match.
pub fn export<S: MatchStore>(store: &S, id: i64) -> Result<ExportedGame, ApiError> {
    let row = load_match(store, id)?;
    Ok(ExportedGame {
        resigned: parse_position(&row.position)?.resignations(),
        start: row.start_position,
        moves: store
            .load_moves(id)?
            .into_iter()
            .map(|stored| stored.path)
            .collect(),
    })
}

/// A page of matches, newest first.
///
/// # Errors
/// Only database failures.
pub fn list<S: MatchStore>(
    store: &S,
    status: Option<MatchStatus>,
    limit: u32,
    before: i64,
) -> Result<MatchList, ApiError> {
    // One more than asked: whether there is a next page.
    let ids = store.list_ids(status, before, limit.saturating_add(1))?;
    let more = ids.len() > limit as usize;
    let mut matches = Vec::new();
    for &id in ids.iter().take(limit as usize) {
        let row = load_match(store, id)?;
        let seats = store.load_seats(id)?;
        matches.push(views::summary(row, &seats));
    }
    Ok(MatchList {
        next_before: if more {
            matches.last().map(|m| m.id)
        } else {
            None
        },
        matches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::BotSpec;
    use rusqlite::Connection;
    use sternhalma::{Layout, Rules};

    fn scratch(name: &str) -> Connection {
        let dir =
            std::env::temp_dir().join(format!("sternhalma-storage-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        crate::db::open(&dir.join("storage.sqlite3")).unwrap().0
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

    // The routes refuse matches without an open seat; the match logic
    // plays whatever bots are to move, so two bots show both ways a bot chain
    // ends.
    #[test]
    fn bots_play_to_the_outcome_within_one_request() {
        let mut connection = scratch("outcome");
        let state = create_with_bot_limit(
            &mut connection,
            &start("classic,max_plies=6"),
            &[bot(1), bot(2)],
            &[0; 32],
            100,
        )
        .unwrap();
        assert_eq!(state.status, MatchStatus::Finished);
        assert_eq!(state.ply, 6);
        let result = state.result.unwrap();
        assert_eq!(result.ending, Ending::Outcome);
        assert_eq!(result.results, [0.0, 0.0], "a draw by the move limit");
        assert_eq!(history(&connection, state.id).unwrap().moves.len(), 6);
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
        let state = create(&mut connection, &start, &[bot(21), bot(22)], &[0; 32]).unwrap();
        assert_eq!(state.status, MatchStatus::Finished);
        assert_eq!(state.ply, 400);
        let result = state.result.unwrap();
        assert_eq!(result.ending, Ending::Outcome);
        assert_eq!(result.reason, Some(DrawReason::MoveLimit));
        assert_eq!(result.results, [0.0, 0.0]);
        let by_progress = result.by_progress.unwrap();
        assert_eq!(by_progress.concat().len(), 2, "{by_progress:?}");
    }

    #[test]
    fn bots_that_do_not_finish_are_stopped_at_the_limit() {
        let mut connection = scratch("limit");
        let state = create_with_bot_limit(
            &mut connection,
            &start("classic"),
            &[bot(3), bot(4)],
            &[0; 32],
            10,
        )
        .unwrap();
        assert_eq!(state.status, MatchStatus::Abandoned);
        assert_eq!(state.ply, 10);
        assert_eq!(state.result.unwrap().ending, Ending::BotLimit);
        assert!(state.legal_moves.is_empty());
        assert_eq!(export(&connection, state.id).unwrap().moves.len(), 10);
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
            .id;
            let state = resign(&mut connection, id, &[resigner as u8 + 1; 32]).unwrap();
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

    // With three or more the resigner leaves and the others play on; when
    // one is left the match is over, resigners last (`Position::resign`).
    #[test]
    fn a_resignation_with_three_seats_leaves_the_others_playing() {
        let mut connection = scratch("resign3");
        let seats: Vec<SeatPlan> = (0..3).map(open).collect();
        let id = create(&mut connection, &start_with(3, "classic"), &seats, &[0; 32])
            .unwrap()
            .id;
        let state = resign(&mut connection, id, &[1; 32]).unwrap();
        assert_eq!(state.status, MatchStatus::InProgress);
        assert!(state.result.is_none());
        assert_eq!(state.to_move, Some(1), "seat 0 resigned on its turn");
        let refused = resign(&mut connection, id, &[1; 32]).unwrap_err();
        assert_eq!(refused.problem().code, "already_resigned");
        let state = resign(&mut connection, id, &[3; 32]).unwrap();
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
