//! The SQL of tournaments: rows in and out. No rules here; what they mean
//! is in [`super::logic`]. Every function runs on the connection it is
//! given: inside a write job on the writer thread, or on a read connection.

use rusqlite::{Connection, OptionalExtension, params};

use crate::bots::BotSpec;
use crate::error::ApiError;
use crate::matches::dto::MatchStatus;
use crate::matches::storage::corrupt;
use crate::tournaments::dto::TournamentStatus;
use crate::tournaments::schedule::Format;
use crate::tournaments::standings::Points;

/// A stored tournament.
#[derive(Clone, Debug)]
pub struct TournamentRow {
    /// Its id.
    pub id: i64,
    /// When it was created.
    pub created_at: String,
    /// When its status last changed.
    pub updated_at: String,
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
}

fn count<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, ApiError> {
    T::try_from(value).map_err(|_| corrupt(format!("{what} {value}")))
}

/// Stores a tournament; answers its id.
#[allow(clippy::too_many_arguments)]
pub fn insert_tournament(
    connection: &Connection,
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
    now: &str,
) -> Result<i64, ApiError> {
    connection.execute(
        "INSERT INTO tournaments (created_at, updated_at, name, start_position, format,
             games_per_pairing, move_ms, max_timeouts, concurrency, points, status, admin_token_hash)
         VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
    )?;
    Ok(connection.last_insert_rowid())
}

/// Stores an entrant of tournament `id`.
pub fn insert_entrant(connection: &Connection, id: i64, row: &EntrantRow) -> Result<(), ApiError> {
    connection.execute(
        "INSERT INTO entrants (tournament_id, entrant, name, bot, token_hash, reference)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            id,
            row.entrant as i64,
            row.name,
            row.bot
                .as_ref()
                .map(|spec| serde_json::to_string(spec).expect("bot specs serialise")),
            row.token_hash,
            row.reference
        ],
    )?;
    Ok(())
}

/// Stores game `game` of tournament `id`.
pub fn insert_game(
    connection: &Connection,
    id: i64,
    game: usize,
    entrants: &[usize],
) -> Result<(), ApiError> {
    connection
        .prepare_cached(
            "INSERT INTO tournament_games (tournament_id, game, entrants) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![
            id,
            game as i64,
            serde_json::to_string(entrants).expect("numbers serialise")
        ])?;
    Ok(())
}

/// Tournament `id`, if there is one.
pub fn load_tournament(
    connection: &Connection,
    id: i64,
) -> Result<Option<TournamentRow>, ApiError> {
    let Some(row) = connection
        .query_row(
            "SELECT id, created_at, updated_at, name, start_position, format, games_per_pairing,
                    move_ms, max_timeouts, concurrency, points, status, version, admin_token_hash
             FROM tournaments WHERE id = ?1",
            [id],
            |row| {
                Ok((
                    (
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, String>(4)?,
                        row.get::<_, String>(5)?,
                        row.get::<_, i64>(6)?,
                    ),
                    (
                        row.get::<_, i64>(7)?,
                        row.get::<_, i64>(8)?,
                        row.get::<_, i64>(9)?,
                        row.get::<_, String>(10)?,
                        row.get::<_, String>(11)?,
                        row.get::<_, i64>(12)?,
                        row.get::<_, Vec<u8>>(13)?,
                    ),
                ))
            },
        )
        .optional()?
    else {
        return Ok(None);
    };
    let (a, b) = row;
    Ok(Some(TournamentRow {
        id: a.0,
        created_at: a.1,
        updated_at: a.2,
        name: a.3,
        start_position: a.4,
        format: Format::from_name(&a.5).ok_or_else(|| corrupt(format!("format {:?}", a.5)))?,
        games_per_pairing: count(a.6, "games_per_pairing")?,
        move_ms: count(b.0, "move_ms")?,
        max_timeouts: count(b.1, "max_timeouts")?,
        concurrency: count(b.2, "concurrency")?,
        points: serde_json::from_str(&b.3).map_err(corrupt)?,
        status: TournamentStatus::from_name(&b.4)
            .ok_or_else(|| corrupt(format!("tournament status {:?}", b.4)))?,
        version: b.5,
        admin_token_hash: b.6,
    }))
}

/// The entrants of tournament `id`, in order.
pub fn load_entrants(connection: &Connection, id: i64) -> Result<Vec<EntrantRow>, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT entrant, name, bot, token_hash, reference FROM entrants
         WHERE tournament_id = ?1 ORDER BY entrant",
    )?;
    let rows = statement.query_map([id], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, Option<String>>(2)?,
            row.get::<_, Option<Vec<u8>>>(3)?,
            row.get::<_, bool>(4)?,
        ))
    })?;
    let mut entrants = Vec::new();
    for row in rows {
        let (entrant, name, bot, token_hash, reference) = row?;
        entrants.push(EntrantRow {
            entrant: count(entrant, "entrant")?,
            name,
            bot: bot
                .map(|json| serde_json::from_str::<BotSpec>(&json).map_err(corrupt))
                .transpose()?,
            token_hash,
            reference,
        });
    }
    Ok(entrants)
}

/// The games of tournament `id` in schedule order, with their matches'
/// status.
pub fn load_games(connection: &Connection, id: i64) -> Result<Vec<GameRow>, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT g.game, g.entrants, g.match_id, m.status FROM tournament_games g
         LEFT JOIN matches m ON m.id = g.match_id
         WHERE g.tournament_id = ?1 ORDER BY g.game",
    )?;
    let rows = statement.query_map([id], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, Option<i64>>(2)?,
            row.get::<_, Option<String>>(3)?,
        ))
    })?;
    let mut games = Vec::new();
    for row in rows {
        let (game, entrants, match_id, status) = row?;
        games.push(GameRow {
            game: count(game, "game")?,
            entrants: serde_json::from_str(&entrants).map_err(corrupt)?,
            match_id,
            match_status: status
                .map(|s| MatchStatus::from_name(&s).ok_or_else(|| corrupt(format!("status {s:?}"))))
                .transpose()?,
        });
    }
    Ok(games)
}

/// The tournament and game number of match `match_id`, if it is a
/// tournament game.
pub fn game_of_match(
    connection: &Connection,
    match_id: i64,
) -> Result<Option<(i64, usize)>, ApiError> {
    let found = connection
        .prepare_cached("SELECT tournament_id, game FROM tournament_games WHERE match_id = ?1")?
        .query_row([match_id], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
        })
        .optional()?;
    found
        .map(|(id, game)| Ok((id, count(game, "game")?)))
        .transpose()
}

/// Links game `game` of tournament `id` to the match that plays it.
pub fn link_game(
    connection: &Connection,
    id: i64,
    game: usize,
    match_id: i64,
) -> Result<(), ApiError> {
    connection.execute(
        "UPDATE tournament_games SET match_id = ?3 WHERE tournament_id = ?1 AND game = ?2",
        params![id, game as i64, match_id],
    )?;
    Ok(())
}

/// Sets tournament `id`'s status; the version grows by one.
pub fn set_status(
    connection: &Connection,
    id: i64,
    status: TournamentStatus,
    now: &str,
) -> Result<(), ApiError> {
    connection.execute(
        "UPDATE tournaments SET status = ?2, version = version + 1, updated_at = ?3 WHERE id = ?1",
        params![id, status.as_str(), now],
    )?;
    Ok(())
}

/// The ids of at most `limit` tournaments below `before`, newest first;
/// only those with `status`, if given.
pub fn list_ids(
    connection: &Connection,
    status: Option<TournamentStatus>,
    before: i64,
    limit: u32,
) -> Result<Vec<i64>, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT id FROM tournaments WHERE (?1 IS NULL OR status = ?1) AND id < ?2
         ORDER BY id DESC LIMIT ?3",
    )?;
    Ok(statement
        .query_map(
            params![
                status.map(TournamentStatus::as_str),
                before,
                i64::from(limit)
            ],
            |row| row.get::<_, i64>(0),
        )?
        .collect::<Result<Vec<i64>, _>>()?)
}

/// The ids of the tournaments with one of `statuses`, oldest first.
pub fn ids_with_status(
    connection: &Connection,
    statuses: &[TournamentStatus],
) -> Result<Vec<i64>, ApiError> {
    let mut ids = Vec::new();
    let mut statement =
        connection.prepare_cached("SELECT id FROM tournaments WHERE status = ?1 ORDER BY id")?;
    for status in statuses {
        for id in statement.query_map([status.as_str()], |row| row.get::<_, i64>(0))? {
            ids.push(id?);
        }
    }
    ids.sort_unstable();
    Ok(ids)
}

/// Records a timeout of `seat` at `ply` in match `match_id`.
pub fn insert_timeout(
    connection: &Connection,
    match_id: i64,
    ply: u32,
    seat: usize,
    now: &str,
) -> Result<(), ApiError> {
    connection.execute(
        "INSERT INTO timeouts (match_id, ply, seat, recorded_at) VALUES (?1, ?2, ?3, ?4)",
        params![match_id, i64::from(ply), seat as i64, now],
    )?;
    Ok(())
}

/// The timeouts of every seat of match `match_id` (seats without any are
/// left out).
pub fn timeouts(connection: &Connection, match_id: i64) -> Result<Vec<(usize, u32)>, ApiError> {
    let mut statement = connection.prepare_cached(
        "SELECT seat, COUNT(*) FROM timeouts WHERE match_id = ?1 GROUP BY seat ORDER BY seat",
    )?;
    let rows = statement.query_map([match_id], |row| {
        Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
    })?;
    let mut counts = Vec::new();
    for row in rows {
        let (seat, n) = row?;
        counts.push((count(seat, "seat")?, count(n, "timeouts")?));
    }
    Ok(counts)
}
