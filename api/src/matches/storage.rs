//! The SQL of stored matches, and the checks each write makes inside its
//! transaction. Every function here is synchronous and takes a connection:
//! writes run on the store's writer thread, reads on the blocking pool.
//!
//! A write loads the match, checks (token, status, ply, turn, legality),
//! writes the moves and the new state, and commits; on any error the
//! transaction is dropped, so a refused request changes nothing.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use sternhalma::{Move, Outcome, Position};

use crate::bots::{self, BotSpec};
use crate::dto::{MoveInput, MoveView, OutcomeView, PositionView};
use crate::error::ApiError;
use crate::matches::dto::{
    Ending, ExportedGame, History, MatchList, MatchResult, MatchStatus, MatchSummary, MatchView,
    MoveRecord, MovesAccepted, SeatKind, SeatView,
};
use crate::matches::tokens::TokenHash;
use crate::routes::play::play;

/// The most plies built-in bots play in one request when no open seat is
/// left to move (for instance when every open seat has finished in a
/// ranking game); past it the match is abandoned (`bot_limit`).
pub const MAX_BOT_PLIES: u32 = 5_000;

/// A seat as stored, before the match exists.
#[derive(Clone, Debug)]
pub struct SeatPlan {
    /// Display name.
    pub name: String,
    /// The bot (with its seed), or `None` for an open seat.
    pub bot: Option<BotSpec>,
    /// The token hash of an open seat.
    pub token_hash: Option<TokenHash>,
}

struct MatchRow {
    id: i64,
    created_at: String,
    updated_at: String,
    start_position: String,
    position: String,
    ply: u32,
    version: i64,
    status: MatchStatus,
    ending: Option<Ending>,
    resigned_seat: Option<usize>,
    admin_token_hash: Vec<u8>,
}

struct SeatRow {
    seat: usize,
    name: String,
    bot: Option<BotSpec>,
    token_hash: Option<Vec<u8>>,
}

impl SeatRow {
    fn view(&self) -> SeatView {
        SeatView {
            seat: self.seat,
            name: self.name.clone(),
            kind: if self.bot.is_some() {
                SeatKind::Bot
            } else {
                SeatKind::Open
            },
            bot: self.bot.clone(),
        }
    }
}

/// A stored value that does not read back: the file was damaged or written
/// by something else. Logged; the client sees a 500 without details.
fn corrupt(what: impl std::fmt::Display) -> ApiError {
    tracing::error!(%what, "stored match does not read back");
    ApiError::new(
        actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
        "storage_error",
        "Internal server error",
        "a stored match could not be read",
    )
}

fn not_found(id: i64) -> ApiError {
    ApiError::not_found(format!("no match {id}"))
}

fn parse_status(text: &str) -> Result<MatchStatus, ApiError> {
    Ok(match text {
        "in_progress" => MatchStatus::InProgress,
        "finished" => MatchStatus::Finished,
        "abandoned" => MatchStatus::Abandoned,
        other => return Err(corrupt(format!("status {other:?}"))),
    })
}

fn parse_ending(text: Option<String>) -> Result<Option<Ending>, ApiError> {
    Ok(match text.as_deref() {
        None => None,
        Some("outcome") => Some(Ending::Outcome),
        Some("resignation") => Some(Ending::Resignation),
        Some("abandoned") => Some(Ending::Abandoned),
        Some("bot_limit") => Some(Ending::BotLimit),
        Some(other) => return Err(corrupt(format!("ending {other:?}"))),
    })
}

fn count<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, ApiError> {
    T::try_from(value).map_err(|_| corrupt(format!("{what} {value}")))
}

fn now(connection: &Connection) -> Result<String, ApiError> {
    Ok(
        connection.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')", [], |row| {
            row.get(0)
        })?,
    )
}

fn load_match(connection: &Connection, id: i64) -> Result<MatchRow, ApiError> {
    let row = connection
        .query_row(
            "SELECT id, created_at, updated_at, start_position, position, ply, version, status,
                    ending, resigned_seat, admin_token_hash
             FROM matches WHERE id = ?1",
            [id],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, i64>(5)?,
                    row.get::<_, i64>(6)?,
                    row.get::<_, String>(7)?,
                    row.get::<_, Option<String>>(8)?,
                    row.get::<_, Option<i64>>(9)?,
                    row.get::<_, Vec<u8>>(10)?,
                ))
            },
        )
        .optional()?
        .ok_or_else(|| not_found(id))?;
    Ok(MatchRow {
        id: row.0,
        created_at: row.1,
        updated_at: row.2,
        start_position: row.3,
        position: row.4,
        ply: count(row.5, "ply")?,
        version: row.6,
        status: parse_status(&row.7)?,
        ending: parse_ending(row.8)?,
        resigned_seat: row.9.map(|s| count(s, "seat")).transpose()?,
        admin_token_hash: row.10,
    })
}

fn load_seats(connection: &Connection, id: i64) -> Result<Vec<SeatRow>, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT seat, name, bot, token_hash FROM seats WHERE match_id = ?1 ORDER BY seat",
    )?;
    let rows = statement.query_map([id], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, Option<String>>(2)?,
            row.get::<_, Option<Vec<u8>>>(3)?,
        ))
    })?;
    let mut seats = Vec::new();
    for row in rows {
        let (seat, name, bot, token_hash) = row?;
        seats.push(SeatRow {
            seat: count(seat, "seat")?,
            name,
            bot: bot
                .map(|json| serde_json::from_str::<BotSpec>(&json).map_err(corrupt))
                .transpose()?,
            token_hash,
        });
    }
    Ok(seats)
}

fn parse_position(text: &str) -> Result<Position, ApiError> {
    text.parse::<Position>().map_err(corrupt)
}

/// The text a move is stored as: its full path (`95-75-57`) or `pass`.
fn path_text(view: &MoveView) -> String {
    if view.path.is_empty() {
        "pass".to_owned()
    } else {
        view.path
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join("-")
    }
}

fn result(row: &MatchRow, seats: &[SeatRow], position: &Position) -> Option<MatchResult> {
    let ending = row.ending?;
    let players = seats.len();
    Some(match ending {
        Ending::Outcome => {
            let outcome = OutcomeView::from(position);
            let winners = match position.outcome() {
                Outcome::Won { winner } => vec![winner],
                Outcome::Tie { winners } => winners,
                Outcome::Ranking { ranks } => ranks.first().cloned().unwrap_or_default(),
                Outcome::Draw { .. } | Outcome::InProgress => Vec::new(),
            };
            MatchResult {
                ending,
                resigned_seat: None,
                winners,
                results: outcome.results,
                summary: outcome.summary,
            }
        }
        Ending::Resignation => {
            let resigned = row.resigned_seat.unwrap_or(0);
            // Last for the resigner, first shared by the others: the
            // outcome's ranking formula with two ranks.
            let share = if players > 1 {
                1.0 / (players - 1) as f64
            } else {
                0.0
            };
            let results = (0..players)
                .map(|seat| if seat == resigned { -1.0 } else { share })
                .collect();
            let name = seats
                .get(resigned)
                .map_or_else(String::new, |s| format!(" ({})", s.name));
            MatchResult {
                ending,
                resigned_seat: Some(resigned),
                winners: (0..players).filter(|&seat| seat != resigned).collect(),
                results,
                summary: format!("seat {resigned}{name} resigned"),
            }
        }
        Ending::Abandoned | Ending::BotLimit => MatchResult {
            ending,
            resigned_seat: None,
            winners: Vec::new(),
            results: vec![0.0; players],
            summary: if ending == Ending::Abandoned {
                "abandoned by its creator".to_owned()
            } else {
                format!("abandoned: the bots did not finish within {MAX_BOT_PLIES} plies")
            },
        },
    })
}

fn view_of(row: &MatchRow, seats: &[SeatRow]) -> Result<MatchView, ApiError> {
    let position = parse_position(&row.position)?;
    let in_progress = row.status == MatchStatus::InProgress;
    let legal_moves = if in_progress {
        position
            .legal_moves()
            .into_iter()
            .map(|mv| MoveView::new(&position, mv))
            .collect()
    } else {
        Vec::new()
    };
    Ok(MatchView {
        id: row.id,
        status: row.status,
        version: row.version,
        created_at: row.created_at.clone(),
        updated_at: row.updated_at.clone(),
        seats: seats.iter().map(SeatRow::view).collect(),
        ply: row.ply,
        to_move: in_progress.then(|| position.side_to_move()),
        start_position: row.start_position.clone(),
        position: PositionView::from(&position),
        legal_moves,
        result: result(row, seats, &position),
    })
}

/// The state of match `id`.
///
/// # Errors
/// 404 for an unknown match.
pub fn view(connection: &Connection, id: i64) -> Result<MatchView, ApiError> {
    let row = load_match(connection, id)?;
    let seats = load_seats(connection, id)?;
    view_of(&row, &seats)
}

/// The status and version of match `id` (what a long-poll compares).
///
/// # Errors
/// 404 for an unknown match.
pub fn progress(connection: &Connection, id: i64) -> Result<(u32, MatchStatus), ApiError> {
    let row = load_match(connection, id)?;
    Ok((row.ply, row.status))
}

fn insert_move(
    transaction: &Transaction<'_>,
    id: i64,
    ply: u32,
    seat: usize,
    path: &str,
    now: &str,
) -> Result<(), ApiError> {
    transaction
        .prepare_cached(
            "INSERT INTO moves (match_id, ply, seat, path, played_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![id, i64::from(ply), seat as i64, path, now])?;
    Ok(())
}

/// A match while a request plays moves on it: the position, the ply, and
/// the moves this request has stored.
struct Progress {
    position: Position,
    ply: u32,
    played: Vec<MoveRecord>,
}

/// Plays the built-in bots' moves while a bot seat is to move. Answers the
/// ending when the game ends or the bots reach `limit` plies
/// ([`MAX_BOT_PLIES`]).
fn advance_bots(
    transaction: &Transaction<'_>,
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
        let ply = progress.ply;
        let mv: Move =
            bots::choose_move(spec, position, bots::ply_seed(spec.seed.unwrap_or(0), ply));
        let view = MoveView::new(position, mv);
        let next = position.play(mv).map_err(corrupt)?;
        insert_move(transaction, id, ply, seat, &path_text(&view), now)?;
        progress.played.push(MoveRecord {
            ply,
            seat,
            mv: view,
            played_at: now.to_owned(),
        });
        progress.position = next;
        progress.ply += 1;
        bot_plies += 1;
    }
}

/// Writes the state after moves; `ending` closes the match.
fn save_state(
    transaction: &Transaction<'_>,
    id: i64,
    position: &Position,
    ply: u32,
    ending: Option<Ending>,
    now: &str,
) -> Result<(), ApiError> {
    let status = match ending {
        None => MatchStatus::InProgress,
        Some(Ending::Outcome | Ending::Resignation) => MatchStatus::Finished,
        Some(Ending::Abandoned | Ending::BotLimit) => MatchStatus::Abandoned,
    };
    transaction.execute(
        "UPDATE matches SET position = ?2, ply = ?3, status = ?4, ending = ?5,
                version = version + 1, updated_at = ?6
         WHERE id = ?1",
        params![
            id,
            position.to_string(),
            i64::from(ply),
            status.as_str(),
            ending.map(Ending::as_str),
            now
        ],
    )?;
    Ok(())
}

/// Creates a match from its start position and seats (validated by the
/// caller), plays the bots' moves if a bot moves first, and answers its
/// state.
///
/// # Errors
/// Only database failures.
pub fn create(
    connection: &mut Connection,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
) -> Result<MatchView, ApiError> {
    create_with_bot_limit(connection, start, seats, admin_token_hash, MAX_BOT_PLIES)
}

fn create_with_bot_limit(
    connection: &mut Connection,
    start: &Position,
    seats: &[SeatPlan],
    admin_token_hash: &TokenHash,
    bot_limit: u32,
) -> Result<MatchView, ApiError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let now = now(&transaction)?;
    transaction.execute(
        "INSERT INTO matches (created_at, updated_at, start_position, position, admin_token_hash)
         VALUES (?1, ?1, ?2, ?2, ?3)",
        params![now, start.to_string(), admin_token_hash.as_slice()],
    )?;
    let id = transaction.last_insert_rowid();
    for (seat, plan) in seats.iter().enumerate() {
        let bot = plan
            .bot
            .as_ref()
            .map(|spec| serde_json::to_string(spec).expect("bot specs serialise"));
        transaction.execute(
            "INSERT INTO seats (match_id, seat, name, bot, token_hash) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                id,
                seat as i64,
                plan.name,
                bot,
                plan.token_hash.as_ref().map(|h| h.as_slice())
            ],
        )?;
    }
    let seat_rows = load_seats(&transaction, id)?;
    let mut progress = Progress {
        position: start.clone(),
        ply: 0,
        played: Vec::new(),
    };
    let ending = advance_bots(&transaction, id, &seat_rows, &mut progress, &now, bot_limit)?;
    if progress.ply > 0 || ending.is_some() {
        save_state(
            &transaction,
            id,
            &progress.position,
            progress.ply,
            ending,
            &now,
        )?;
    }
    transaction.commit()?;
    view(connection, id)
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

/// Plays `input` for the seat holding `token` at `ply`, then the bots'
/// replies; all stored in one transaction. Answers the stored moves and the
/// new state.
///
/// # Errors
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`, `stale_ply` or
/// `not_your_turn`, 422 malformed or illegal move.
pub fn submit(
    connection: &mut Connection,
    id: i64,
    token: &TokenHash,
    ply: u32,
    input: &MoveInput,
) -> Result<MovesAccepted, ApiError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let row = load_match(&transaction, id)?;
    let seats = load_seats(&transaction, id)?;
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
    let (played_move, position) = play(&position, input)?;
    let now = now(&transaction)?;
    insert_move(
        &transaction,
        id,
        row.ply,
        seat,
        &path_text(&played_move.mv),
        &now,
    )?;
    let mut progress = Progress {
        position,
        ply: row.ply + 1,
        played: vec![MoveRecord {
            ply: row.ply,
            seat,
            mv: played_move.mv,
            played_at: now.clone(),
        }],
    };
    let ending = advance_bots(&transaction, id, &seats, &mut progress, &now, MAX_BOT_PLIES)?;
    save_state(
        &transaction,
        id,
        &progress.position,
        progress.ply,
        ending,
        &now,
    )?;
    transaction.commit()?;
    Ok(MovesAccepted {
        played: progress.played,
        state: view(connection, id)?,
    })
}

/// The seat holding `token` resigns: the match is over.
///
/// # Errors
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`.
pub fn resign(
    connection: &mut Connection,
    id: i64,
    token: &TokenHash,
) -> Result<MatchView, ApiError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let row = load_match(&transaction, id)?;
    let seats = load_seats(&transaction, id)?;
    let seat = seat_of(&seats, token)?;
    ensure_open(&row)?;
    let now = now(&transaction)?;
    transaction.execute(
        "UPDATE matches SET status = 'finished', ending = 'resignation', resigned_seat = ?2,
                version = version + 1, updated_at = ?3
         WHERE id = ?1",
        params![id, seat as i64, now],
    )?;
    transaction.commit()?;
    view(connection, id)
}

/// The creator (admin token) abandons the match.
///
/// # Errors
/// 404 unknown match, 403 `wrong_token`, 409 `match_closed`.
pub fn abandon(
    connection: &mut Connection,
    id: i64,
    token: &TokenHash,
) -> Result<MatchView, ApiError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let row = load_match(&transaction, id)?;
    if row.admin_token_hash.as_slice() != token.as_slice() {
        return Err(ApiError::forbidden(
            "wrong_token",
            "this token is not the admin token of this match",
        ));
    }
    ensure_open(&row)?;
    let now = now(&transaction)?;
    transaction.execute(
        "UPDATE matches SET status = 'abandoned', ending = 'abandoned',
                version = version + 1, updated_at = ?2
         WHERE id = ?1",
        params![id, now],
    )?;
    transaction.commit()?;
    view(connection, id)
}

fn stored_moves(
    connection: &Connection,
    id: i64,
) -> Result<Vec<(u32, usize, String, String)>, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT ply, seat, path, played_at FROM moves WHERE match_id = ?1 ORDER BY ply",
    )?;
    let rows = statement.query_map([id], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, String>(3)?,
        ))
    })?;
    let mut moves = Vec::new();
    for row in rows {
        let (ply, seat, path, played_at) = row?;
        moves.push((count(ply, "ply")?, count(seat, "seat")?, path, played_at));
    }
    Ok(moves)
}

/// Every move of match `id`, replayed from its start (so each carries its
/// kind and path).
///
/// # Errors
/// 404 for an unknown match.
pub fn history(connection: &Connection, id: i64) -> Result<History, ApiError> {
    let row = load_match(connection, id)?;
    let mut position = parse_position(&row.start_position)?;
    let mut moves = Vec::new();
    for (ply, seat, path, played_at) in stored_moves(connection, id)? {
        let (played, next) = play(&position, &MoveInput(serde_json::Value::String(path)))
            .map_err(|e| corrupt(format!("move {ply}: {e}")))?;
        moves.push(MoveRecord {
            ply,
            seat,
            mv: played.mv,
            played_at,
        });
        position = next;
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
pub fn export(connection: &Connection, id: i64) -> Result<ExportedGame, ApiError> {
    let row = load_match(connection, id)?;
    Ok(ExportedGame {
        start: row.start_position,
        moves: stored_moves(connection, id)?
            .into_iter()
            .map(|(_, _, path, _)| path)
            .collect(),
    })
}

/// A page of matches, newest first.
///
/// # Errors
/// Only database failures.
pub fn list(
    connection: &Connection,
    status: Option<MatchStatus>,
    limit: u32,
    before: i64,
) -> Result<MatchList, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT id FROM matches WHERE (?1 IS NULL OR status = ?1) AND id < ?2
         ORDER BY id DESC LIMIT ?3",
    )?;
    let ids = statement
        .query_map(
            params![
                status.map(MatchStatus::as_str),
                before,
                i64::from(limit) + 1
            ],
            |row| row.get::<_, i64>(0),
        )?
        .collect::<Result<Vec<i64>, _>>()?;
    let more = ids.len() > limit as usize;
    let mut matches = Vec::new();
    for &id in ids.iter().take(limit as usize) {
        let row = load_match(connection, id)?;
        let seats = load_seats(connection, id)?;
        matches.push(MatchSummary {
            id,
            status: row.status,
            ending: row.ending,
            ply: row.ply,
            seats: seats.iter().map(SeatRow::view).collect(),
            start_position: row.start_position,
            created_at: row.created_at,
            updated_at: row.updated_at,
        });
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

    fn start(rules: &str) -> Position {
        Position::start(
            "star4".parse().unwrap(),
            Layout::standard(2).unwrap(),
            rules.parse::<Rules>().unwrap(),
        )
        .unwrap()
    }

    // The routes refuse matches without an open seat; storage plays
    // whatever bots are to move, so two bots show both ways a bot chain
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
}
