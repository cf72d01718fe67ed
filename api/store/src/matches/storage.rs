//! The SQL of stored matches: rows in and out, as functions on a [`Db`]
//! connection (SQLite or PostgreSQL), like the tournaments' storage. No
//! rules here: a position is stored as its string and a move as its path
//! text; the checks, the bots and the results are in [`super::game`].
//!
//! Every function is synchronous: writes run on the store's writer thread
//! inside [`Db::write`] (so each runs in that job's transaction), reads on
//! the blocking pool.

use jiff::Timestamp;

use crate::bots::BotSpec;
use crate::error::Error;
pub use crate::error::corrupt;
use crate::matches::model::Forfeit;
use crate::matches::status::{Ending, ForfeitReason, MatchStatus};
use crate::matches::tokens::TokenHash;
use crate::sql::{Db, params};

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

/// A stored match.
#[derive(Clone, Debug)]
pub struct MatchRow {
    /// The match id.
    pub id: i64,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// The start position string.
    pub start_position: String,
    /// The current position string.
    pub position: String,
    /// Plies played.
    pub ply: u32,
    /// Grows by one with every change.
    pub version: i64,
    /// Where it stands.
    pub status: MatchStatus,
    /// How it ended, once over.
    pub ending: Option<Ending>,
    /// The seat that resigned or forfeited, for a resignation or a
    /// forfeit.
    pub resigned_seat: Option<usize>,
    /// The hash of the creator's token.
    pub admin_token_hash: Vec<u8>,
    /// Its forfeits, once it is over (what its result names); not read
    /// while it is in progress.
    pub forfeits: Vec<Forfeit>,
}

/// A stored seat.
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// The seat number (the player index).
    pub seat: usize,
    /// Display name.
    pub name: String,
    /// The bot, or `None` for an open seat.
    pub bot: Option<BotSpec>,
    /// The token hash of an open seat.
    pub token_hash: Option<Vec<u8>>,
}

/// A stored move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The ply it was played at.
    pub ply: u32,
    /// The seat that played it.
    pub seat: usize,
    /// Its full path (`95-75-57`) or `pass`.
    pub path: String,
    /// When it was stored.
    pub played_at: Timestamp,
}

fn count<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, Error> {
    T::try_from(value).map_err(|_| corrupt(format!("{what} {value}")))
}

/// Match `id`, if there is one.
///
/// # Errors
/// A database failure or a row that does not read back.
pub fn load_match(db: &Db, id: i64) -> Result<Option<MatchRow>, Error> {
    // Inside a write the row is locked (PostgreSQL): the checks that
    // follow (ply, version, status) hold until the commit.
    let sql = format!(
        "SELECT id, created_at, updated_at, start_position, position, ply, version, status,
                ending, resigned_seat, admin_token_hash
         FROM matches WHERE id = ?1{}",
        db.for_update()
    );
    let Some(row) = db.query_opt(&sql, params![id])? else {
        return Ok(None);
    };
    let status = row.text("status")?;
    let status =
        MatchStatus::from_name(&status).ok_or_else(|| corrupt(format!("status {status:?}")))?;
    let forfeits = if status == MatchStatus::InProgress {
        Vec::new()
    } else {
        load_forfeits(db, id)?
    };
    Ok(Some(MatchRow {
        id: row.int("id")?,
        created_at: row.time("created_at")?,
        updated_at: row.time("updated_at")?,
        start_position: row.text("start_position")?,
        position: row.text("position")?,
        ply: count(row.int("ply")?, "ply")?,
        version: row.int("version")?,
        status,
        ending: row
            .opt_text("ending")?
            .map(|text| Ending::from_name(&text).ok_or_else(|| corrupt(format!("ending {text:?}"))))
            .transpose()?,
        resigned_seat: row
            .opt_int("resigned_seat")?
            .map(|s| count(s, "seat"))
            .transpose()?,
        admin_token_hash: row.blob("admin_token_hash")?,
        forfeits,
    }))
}

/// The forfeits of match `id`, in the order they happened.
///
/// # Errors
/// A database failure or a row that does not read back.
pub fn load_forfeits(db: &Db, id: i64) -> Result<Vec<Forfeit>, Error> {
    let rows = db.query(
        "SELECT seat, ply, reason, timeouts FROM forfeits WHERE match_id = ?1 ORDER BY ply, seat",
        params![id],
    )?;
    rows.iter()
        .map(|row| {
            let reason = row.text("reason")?;
            Ok(Forfeit {
                seat: count(row.int("seat")?, "seat")?,
                ply: count(row.int("ply")?, "ply")?,
                reason: ForfeitReason::from_name(&reason)
                    .ok_or_else(|| corrupt(format!("forfeit reason {reason:?}")))?,
                timeouts: row
                    .opt_int("timeouts")?
                    .map(|n| count(n, "timeouts"))
                    .transpose()?,
            })
        })
        .collect()
}

/// Stores the forfeit of a seat of match `id`.
///
/// # Errors
/// A database failure.
pub fn insert_forfeit(db: &Db, id: i64, forfeit: &Forfeit, now: Timestamp) -> Result<(), Error> {
    db.execute(
        "INSERT INTO forfeits (match_id, seat, ply, reason, timeouts, recorded_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            id,
            forfeit.seat,
            forfeit.ply,
            forfeit.reason.as_str(),
            forfeit.timeouts,
            now
        ],
    )?;
    Ok(())
}

/// The seats of match `id`, in seat order.
///
/// # Errors
/// A database failure or a row that does not read back.
pub fn load_seats(db: &Db, id: i64) -> Result<Vec<SeatRow>, Error> {
    let rows = db.query(
        "SELECT seat, name, bot, token_hash FROM seats WHERE match_id = ?1 ORDER BY seat",
        params![id],
    )?;
    rows.iter()
        .map(|row| {
            Ok(SeatRow {
                seat: count(row.int("seat")?, "seat")?,
                name: row.text("name")?,
                bot: row
                    .opt_text("bot")?
                    .map(|json| serde_json::from_str::<BotSpec>(&json).map_err(corrupt))
                    .transpose()?,
                token_hash: row.opt_blob("token_hash")?,
            })
        })
        .collect()
}

/// The moves of match `id` from ply `ply` on, in ply order.
///
/// # Errors
/// A database failure or a row that does not read back.
pub fn load_moves_from(db: &Db, id: i64, ply: u32) -> Result<Vec<MoveRow>, Error> {
    let rows = db.query(
        "SELECT ply, seat, path, played_at FROM moves WHERE match_id = ?1 AND ply >= ?2
         ORDER BY ply",
        params![id, ply],
    )?;
    rows.iter()
        .map(|row| {
            Ok(MoveRow {
                ply: count(row.int("ply")?, "ply")?,
                seat: count(row.int("seat")?, "seat")?,
                path: row.text("path")?,
                played_at: row.time("played_at")?,
            })
        })
        .collect()
}

/// The moves of match `id`, in ply order.
///
/// # Errors
/// A database failure or a row that does not read back.
pub fn load_moves(db: &Db, id: i64) -> Result<Vec<MoveRow>, Error> {
    load_moves_from(db, id, 0)
}

/// The ids of at most `limit` matches below `before`, newest first;
/// only those with `status`, if given.
///
/// # Errors
/// A database failure.
pub fn list_ids(
    db: &Db,
    status: Option<MatchStatus>,
    before: i64,
    limit: u32,
) -> Result<Vec<i64>, Error> {
    db.query(
        "SELECT id FROM matches WHERE (CAST(?1 AS TEXT) IS NULL OR status = ?1) AND id < ?2
         ORDER BY id DESC LIMIT ?3",
        params![status.map(MatchStatus::as_str), before, limit],
    )?
    .iter()
    .map(|row| row.int("id"))
    .collect()
}

/// The last ply an open seat (not a built-in bot) played in match
/// `id`, if any.
///
/// # Errors
/// A database failure.
pub fn last_open_seat_ply(db: &Db, id: i64) -> Result<Option<u32>, Error> {
    db.query_one(
        "SELECT MAX(moves.ply) AS ply FROM moves
         JOIN seats ON seats.match_id = moves.match_id AND seats.seat = moves.seat
         WHERE moves.match_id = ?1 AND seats.bot IS NULL",
        params![id],
    )?
    .opt_int("ply")?
    .map(|ply| count(ply, "ply"))
    .transpose()
}

/// Stores a new match, in progress at its start position; answers its
/// id.
///
/// # Errors
/// A database failure.
pub fn insert_match(
    db: &Db,
    start_position: &str,
    admin_token_hash: &[u8],
    now: Timestamp,
) -> Result<i64, Error> {
    db.query_one(
        "INSERT INTO matches (created_at, updated_at, start_position, position, admin_token_hash)
         VALUES (?1, ?1, ?2, ?2, ?3) RETURNING id",
        params![now, start_position, admin_token_hash],
    )?
    .int("id")
}

/// Records the client that created match `id` ([`crate::quota`]).
///
/// # Errors
/// A database failure.
pub fn set_owner(db: &Db, id: i64, owner: &str) -> Result<(), Error> {
    db.execute(
        "UPDATE matches SET owner = ?1 WHERE id = ?2",
        params![owner, id],
    )?;
    Ok(())
}

/// Stores seat `seat` of match `id`.
///
/// # Errors
/// A database failure.
pub fn insert_seat(db: &Db, id: i64, seat: usize, plan: &SeatPlan) -> Result<(), Error> {
    let bot = plan
        .bot
        .as_ref()
        .map(|spec| serde_json::to_string(spec).expect("bot specs serialise"));
    db.execute(
        "INSERT INTO seats (match_id, seat, name, bot, token_hash) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            id,
            seat,
            &plan.name,
            bot,
            plan.token_hash.as_ref().map(|h| h.as_slice())
        ],
    )?;
    Ok(())
}

/// Stores a move of match `id`.
///
/// # Errors
/// A database failure.
pub fn insert_move(db: &Db, id: i64, row: &MoveRow) -> Result<(), Error> {
    db.execute(
        "INSERT INTO moves (match_id, ply, seat, path, played_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, row.ply, row.seat, &row.path, &row.played_at],
    )?;
    Ok(())
}

/// Stores match `id`'s position, ply, status and ending after moves;
/// the version grows by one, and the change is recorded for the
/// listeners ([`crate::committed`]).
///
/// # Errors
/// A database failure.
pub fn save_state(
    db: &Db,
    id: i64,
    position: &str,
    ply: u32,
    status: MatchStatus,
    ending: Option<Ending>,
    now: Timestamp,
) -> Result<(), Error> {
    let changed = db.query_opt(
        "UPDATE matches SET position = ?2, ply = ?3, status = ?4, ending = ?5,
                version = version + 1, updated_at = ?6
         WHERE id = ?1
         RETURNING version",
        params![
            id,
            position,
            ply,
            status.as_str(),
            ending.map(Ending::as_str),
            now
        ],
    )?;
    if let Some(row) = changed {
        // Told after the commit (crate::committed).
        db.match_changed(id, row.int("version")?);
    }
    Ok(())
}

/// Closes match `id` without a move (a resignation, a forfeit or an
/// abandonment); the version grows by one, and the change is recorded for
/// the listeners ([`crate::committed`]).
///
/// # Errors
/// A database failure.
pub fn close(
    db: &Db,
    id: i64,
    status: MatchStatus,
    ending: Ending,
    resigned_seat: Option<usize>,
    now: Timestamp,
) -> Result<(), Error> {
    // Only a match still in progress closes: on PostgreSQL another
    // replica may have finished it since the caller looked.
    let changed = db.query_opt(
        "UPDATE matches SET status = ?2, ending = ?3, resigned_seat = ?4,
                version = version + 1, updated_at = ?5
         WHERE id = ?1 AND status = 'in_progress'
         RETURNING version",
        params![id, status.as_str(), ending.as_str(), resigned_seat, now],
    )?;
    if let Some(row) = changed {
        db.match_changed(id, row.int("version")?);
    }
    Ok(())
}
