//! The SQL of tournaments: rows in and out. No rules here; what they mean
//! is in [`super::logic`]. Every function runs on the connection it is
//! given (SQLite or PostgreSQL): inside a write job on the writer thread, or on a read connection.

use jiff::Timestamp;

use crate::bots::BotSpec;
use crate::error::Error;
use crate::matches::status::MatchStatus;
use crate::matches::storage::corrupt;
use crate::sql::{Db, params};
use crate::tournaments::model::TournamentStatus;
use crate::tournaments::schedule::Format;
use crate::tournaments::standings::Points;

/// A stored tournament.
#[derive(Clone, Debug)]
pub struct TournamentRow {
    /// Its id.
    pub id: i64,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its status last changed.
    pub updated_at: Timestamp,
    /// Display name.
    pub name: String,
    /// Every game's start position string.
    pub start_position: String,
    /// The format.
    pub format: Format,
    /// Games per group.
    pub games_per_pairing: u32,
    /// Time per move of an open entrant.
    pub move_ms: u32,
    /// Timeouts before a forfeit.
    pub max_timeouts: u32,
    /// Games at once.
    pub concurrency: u32,
    /// Points per opponent.
    pub points: Points,
    /// Where it stands.
    pub status: TournamentStatus,
    /// Grows with every change of status.
    pub version: i64,
    /// The admin token's hash.
    pub admin_token_hash: Vec<u8>,
}

/// A stored entrant.
#[derive(Clone, Debug)]
pub struct EntrantRow {
    /// Its number.
    pub entrant: usize,
    /// Display name.
    pub name: String,
    /// The bot, or `None` for an open entrant.
    pub bot: Option<BotSpec>,
    /// An open entrant's token hash.
    pub token_hash: Option<Vec<u8>>,
    /// The gauntlet's reference bot.
    pub reference: bool,
    /// When it was withdrawn, if it was.
    pub withdrawn_at: Option<Timestamp>,
    /// Since when an open entrant is absent, if it is.
    pub absent_since: Option<Timestamp>,
}

/// A game of the schedule, with its match's status once started.
#[derive(Clone, Debug)]
pub struct GameRow {
    /// Its number.
    pub game: usize,
    /// The entrant of every seat.
    pub entrants: Vec<usize>,
    /// Its match, once started.
    pub match_id: Option<i64>,
    /// Its match's status, once started.
    pub match_status: Option<MatchStatus>,
    /// Its outcome as recorded when it ended (JSON), if it was
    /// ([`set_outcome`]).
    pub outcome: Option<String>,
    /// Not to be played: an entrant of it was withdrawn before it started.
    pub unplayed: bool,
}

fn count<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, Error> {
    T::try_from(value).map_err(|_| corrupt(format!("{what} {value}")))
}

/// Records the client that created tournament `id` ([`crate::quota`]).
///
/// # Errors
/// A database failure.
pub fn set_owner(db: &Db, id: i64, owner: &str) -> Result<(), Error> {
    db.execute(
        "UPDATE tournaments SET owner = ?1 WHERE id = ?2",
        params![owner, id],
    )?;
    Ok(())
}

/// Stores a tournament; answers its id.
#[allow(clippy::too_many_arguments)]
pub fn insert_tournament(
    db: &Db,
    name: &str,
    start_position: &str,
    format: Format,
    games_per_pairing: u32,
    move_ms: u32,
    max_timeouts: u32,
    concurrency: u32,
    points: Points,
    status: TournamentStatus,
    admin_token_hash: &[u8],
    now: Timestamp,
) -> Result<i64, Error> {
    db.query_one(
        "INSERT INTO tournaments (created_at, updated_at, name, start_position, format,
             games_per_pairing, move_ms, max_timeouts, concurrency, points, status, admin_token_hash)
         VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
        params![
            now,
            name,
            start_position,
            format.as_str(),
            games_per_pairing,
            move_ms,
            max_timeouts,
            concurrency,
            serde_json::to_string(&points).expect("points serialise"),
            status.as_str(),
            admin_token_hash
        ],
    )?
    .int("id")
}

/// Stores an entrant of tournament `id`.
pub fn insert_entrant(db: &Db, id: i64, row: &EntrantRow) -> Result<(), Error> {
    db.execute(
        "INSERT INTO entrants (tournament_id, entrant, name, bot, token_hash, reference)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            id,
            row.entrant,
            &row.name,
            row.bot
                .as_ref()
                .map(|spec| serde_json::to_string(spec).expect("bot specs serialise")),
            row.token_hash.as_ref(),
            row.reference
        ],
    )?;
    Ok(())
}

/// Stores game `game` of tournament `id`.
pub fn insert_game(db: &Db, id: i64, game: usize, entrants: &[usize]) -> Result<(), Error> {
    db.execute(
        "INSERT INTO tournament_games (tournament_id, game, entrants) VALUES (?1, ?2, ?3)",
        params![
            id,
            game,
            serde_json::to_string(entrants).expect("numbers serialise")
        ],
    )?;
    Ok(())
}

/// Tournament `id`, if there is one. Inside a write its row is locked
/// (PostgreSQL): one replica at a time schedules or changes it.
pub fn load_tournament(db: &Db, id: i64) -> Result<Option<TournamentRow>, Error> {
    let sql = format!(
        "SELECT id, created_at, updated_at, name, start_position, format, games_per_pairing,
                move_ms, max_timeouts, concurrency, points, status, version, admin_token_hash
         FROM tournaments WHERE id = ?1{}",
        db.for_update()
    );
    let Some(row) = db.query_opt(&sql, params![id])? else {
        return Ok(None);
    };
    let format = row.text("format")?;
    let status = row.text("status")?;
    Ok(Some(TournamentRow {
        id: row.int("id")?,
        created_at: row.time("created_at")?,
        updated_at: row.time("updated_at")?,
        name: row.text("name")?,
        start_position: row.text("start_position")?,
        format: Format::from_name(&format).ok_or_else(|| corrupt(format!("format {format:?}")))?,
        games_per_pairing: count(row.int("games_per_pairing")?, "games_per_pairing")?,
        move_ms: count(row.int("move_ms")?, "move_ms")?,
        max_timeouts: count(row.int("max_timeouts")?, "max_timeouts")?,
        concurrency: count(row.int("concurrency")?, "concurrency")?,
        points: serde_json::from_str(&row.text("points")?).map_err(corrupt)?,
        status: TournamentStatus::from_name(&status)
            .ok_or_else(|| corrupt(format!("tournament status {status:?}")))?,
        version: row.int("version")?,
        admin_token_hash: row.blob("admin_token_hash")?,
    }))
}

/// The entrants of tournament `id`, in order.
pub fn load_entrants(db: &Db, id: i64) -> Result<Vec<EntrantRow>, Error> {
    db.query(
        "SELECT entrant, name, bot, token_hash, reference, withdrawn_at, absent_since FROM entrants
         WHERE tournament_id = ?1 ORDER BY entrant",
        params![id],
    )?
    .iter()
    .map(|row| {
        Ok(EntrantRow {
            entrant: count(row.int("entrant")?, "entrant")?,
            name: row.text("name")?,
            bot: row
                .opt_text("bot")?
                .map(|json| serde_json::from_str::<BotSpec>(&json).map_err(corrupt))
                .transpose()?,
            token_hash: row.opt_blob("token_hash")?,
            reference: row.bool("reference")?,
            withdrawn_at: row.opt_time("withdrawn_at")?,
            absent_since: row.opt_time("absent_since")?,
        })
    })
    .collect()
}

/// The games of tournament `id` in schedule order, with their matches'
/// status.
pub fn load_games(db: &Db, id: i64) -> Result<Vec<GameRow>, Error> {
    db.query(
        "SELECT g.game, g.entrants, g.match_id, m.status AS match_status, g.outcome, g.unplayed
         FROM tournament_games g
         LEFT JOIN matches m ON m.id = g.match_id
         WHERE g.tournament_id = ?1 ORDER BY g.game",
        params![id],
    )?
    .iter()
    .map(|row| {
        Ok(GameRow {
            game: count(row.int("game")?, "game")?,
            entrants: serde_json::from_str(&row.text("entrants")?).map_err(corrupt)?,
            match_id: row.opt_int("match_id")?,
            match_status: row
                .opt_text("match_status")?
                .map(|s| MatchStatus::from_name(&s).ok_or_else(|| corrupt(format!("status {s:?}"))))
                .transpose()?,
            outcome: row.opt_text("outcome")?,
            unplayed: row.bool("unplayed")?,
        })
    })
    .collect()
}

/// Records the outcome of game `game` of tournament `id` (JSON), once: an
/// outcome already recorded (by another replica) is kept.
pub fn set_outcome(db: &Db, id: i64, game: usize, outcome: &str) -> Result<(), Error> {
    db.execute(
        "UPDATE tournament_games SET outcome = ?3
         WHERE tournament_id = ?1 AND game = ?2 AND outcome IS NULL",
        params![id, game, outcome],
    )?;
    Ok(())
}

/// Entrant `entrant` of tournament `id` withdrawn at `now`: its games not
/// started are marked unplayed. Answers whether it was taking part.
pub fn withdraw(db: &Db, id: i64, entrant: usize, now: Timestamp) -> Result<bool, Error> {
    let changed = db.execute(
        "UPDATE entrants SET withdrawn_at = ?3, absent_since = NULL
         WHERE tournament_id = ?1 AND entrant = ?2 AND withdrawn_at IS NULL",
        params![id, entrant, now],
    )?;
    if changed == 0 {
        return Ok(false);
    }
    for game in load_games(db, id)? {
        if game.match_id.is_none() && game.entrants.contains(&entrant) {
            db.execute(
                "UPDATE tournament_games SET unplayed = 1 WHERE tournament_id = ?1 AND game = ?2",
                params![id, game.game],
            )?;
        }
    }
    Ok(true)
}

/// Marks open entrant `entrant` of tournament `id` absent since `now`, or
/// present again (`None`). Answers whether that changed anything.
pub fn set_absent(db: &Db, id: i64, entrant: usize, now: Option<Timestamp>) -> Result<bool, Error> {
    let changed = match now {
        Some(now) => db.execute(
            "UPDATE entrants SET absent_since = ?3
             WHERE tournament_id = ?1 AND entrant = ?2 AND absent_since IS NULL
               AND withdrawn_at IS NULL",
            params![id, entrant, now],
        )?,
        None => db.execute(
            "UPDATE entrants SET absent_since = NULL, returned_at = ?3
             WHERE tournament_id = ?1 AND entrant = ?2 AND absent_since IS NOT NULL",
            params![id, entrant, db.now()?],
        )?,
    };
    Ok(changed > 0)
}

/// When entrant `entrant` of tournament `id` last came back from being
/// absent, if it did.
pub fn returned_at(db: &Db, id: i64, entrant: usize) -> Result<Option<Timestamp>, Error> {
    db.query_one(
        "SELECT returned_at FROM entrants WHERE tournament_id = ?1 AND entrant = ?2",
        params![id, entrant],
    )?
    .opt_time("returned_at")
}

/// Whether entrant `entrant` of tournament `id` is absent or withdrawn:
/// its turns get no time.
pub fn gone(db: &Db, id: i64, entrant: usize) -> Result<bool, Error> {
    Ok(db
        .query_opt(
            "SELECT 1 AS gone FROM entrants
             WHERE tournament_id = ?1 AND entrant = ?2
               AND (absent_since IS NOT NULL OR withdrawn_at IS NOT NULL)",
            params![id, entrant],
        )?
        .is_some())
}

/// When seat `seat` of match `match_id` last moved itself (a move that is
/// not a timeout's), if it did.
pub fn last_own_move_at(db: &Db, match_id: i64, seat: usize) -> Result<Option<Timestamp>, Error> {
    db.query_one(
        "SELECT MAX(m.played_at) AS at FROM moves m
         WHERE m.match_id = ?1 AND m.seat = ?2
           AND NOT EXISTS (SELECT 1 FROM timeouts t
                           WHERE t.match_id = m.match_id AND t.ply = m.ply AND t.seat = m.seat)",
        params![match_id, seat],
    )?
    .opt_time("at")
}

/// When each timeout of seat `seat` of match `match_id` was recorded.
pub fn timeout_times(db: &Db, match_id: i64, seat: usize) -> Result<Vec<Timestamp>, Error> {
    db.query(
        "SELECT recorded_at FROM timeouts WHERE match_id = ?1 AND seat = ?2",
        params![match_id, seat],
    )?
    .iter()
    .map(|row| row.time("recorded_at"))
    .collect()
}

/// The tournament and game number of match `match_id`, if it is a
/// tournament game.
pub fn game_of_match(db: &Db, match_id: i64) -> Result<Option<(i64, usize)>, Error> {
    db.query_opt(
        "SELECT tournament_id, game FROM tournament_games WHERE match_id = ?1",
        params![match_id],
    )?
    .map(|row| Ok((row.int("tournament_id")?, count(row.int("game")?, "game")?)))
    .transpose()
}

/// Links game `game` of tournament `id` to the match that plays it.
pub fn link_game(db: &Db, id: i64, game: usize, match_id: i64) -> Result<(), Error> {
    db.execute(
        "UPDATE tournament_games SET match_id = ?3 WHERE tournament_id = ?1 AND game = ?2",
        params![id, game, match_id],
    )?;
    Ok(())
}

/// Sets tournament `id`'s status; the version grows by one.
pub fn set_status(db: &Db, id: i64, status: TournamentStatus, now: Timestamp) -> Result<(), Error> {
    db.execute(
        "UPDATE tournaments SET status = ?2, version = version + 1, updated_at = ?3 WHERE id = ?1",
        params![id, status.as_str(), now],
    )?;
    Ok(())
}

/// The ids of at most `limit` tournaments below `before`, newest first;
/// only those with `status`, if given.
pub fn list_ids(
    db: &Db,
    status: Option<TournamentStatus>,
    before: i64,
    limit: u32,
) -> Result<Vec<i64>, Error> {
    db.query(
        "SELECT id FROM tournaments WHERE (CAST(?1 AS TEXT) IS NULL OR status = ?1) AND id < ?2
         ORDER BY id DESC LIMIT ?3",
        params![status.map(TournamentStatus::as_str), before, limit],
    )?
    .iter()
    .map(|row| row.int("id"))
    .collect()
}

/// The ids of the tournaments with one of `statuses`, oldest first.
pub fn ids_with_status(db: &Db, statuses: &[TournamentStatus]) -> Result<Vec<i64>, Error> {
    let mut ids = Vec::new();
    for status in statuses {
        for row in db.query(
            "SELECT id FROM tournaments WHERE status = ?1 ORDER BY id",
            params![status.as_str()],
        )? {
            ids.push(row.int("id")?);
        }
    }
    ids.sort_unstable();
    Ok(ids)
}

/// Records a timeout of `seat` at `ply` in match `match_id`.
pub fn insert_timeout(
    db: &Db,
    match_id: i64,
    ply: u32,
    seat: usize,
    now: Timestamp,
) -> Result<(), Error> {
    db.execute(
        "INSERT INTO timeouts (match_id, ply, seat, recorded_at) VALUES (?1, ?2, ?3, ?4)",
        params![match_id, ply, seat, now],
    )?;
    Ok(())
}

/// The timeouts of every seat of match `match_id` (seats without any are
/// left out).
pub fn timeouts(db: &Db, match_id: i64) -> Result<Vec<(usize, u32)>, Error> {
    db.query(
        "SELECT seat, COUNT(*) AS timeouts FROM timeouts WHERE match_id = ?1 GROUP BY seat ORDER BY seat",
        params![match_id],
    )?
    .iter()
    .map(|row| Ok((count(row.int("seat")?, "seat")?, count(row.int("timeouts")?, "timeouts")?)))
    .collect()
}

/// Every timeout of match `match_id` as (ply, seat), in the order they
/// were played.
pub fn timeout_list(db: &Db, match_id: i64) -> Result<Vec<(u32, usize)>, Error> {
    db.query(
        "SELECT ply, seat FROM timeouts WHERE match_id = ?1 ORDER BY ply, seat",
        params![match_id],
    )?
    .iter()
    .map(|row| {
        Ok((
            count(row.int("ply")?, "ply")?,
            count(row.int("seat")?, "seat")?,
        ))
    })
    .collect()
}
