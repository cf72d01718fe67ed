//! The SQLite database: opened (and created) at start, schema migrated by
//! the service itself.
//!
//! Every connection runs in WAL mode with foreign keys on and
//! `synchronous = FULL`, so a committed transaction (an accepted move) is on
//! disk before the client hears about it, and survives power loss, not only
//! a crash of the process.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

/// The schema, one migration per version, applied in order, each in its own
/// transaction. Never edit an applied migration: add a new one.
pub const MIGRATIONS: &[&str] = &[
    // 1: the version table itself is created by `migrate`; nothing else.
    "SELECT 1;",
    // 2: stored matches. A match is its start position plus its moves; the
    // `position`, `ply` and `status` columns are the state after the last
    // move, written in the same transaction as the move (a cache that
    // replaying the moves reproduces). Tokens are SHA-256 hashes only.
    "CREATE TABLE matches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        start_position TEXT NOT NULL,
        position TEXT NOT NULL,
        ply INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
        version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
        status TEXT NOT NULL DEFAULT 'in_progress'
            CHECK (status IN ('in_progress', 'finished', 'abandoned')),
        ending TEXT CHECK (ending IN ('outcome', 'resignation', 'abandoned', 'bot_limit')),
        resigned_seat INTEGER,
        admin_token_hash BLOB NOT NULL CHECK (length(admin_token_hash) = 32),
        CHECK ((status = 'in_progress') = (ending IS NULL))
    );
    CREATE INDEX matches_by_status ON matches (status, id);
    CREATE TABLE seats (
        match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL CHECK (seat >= 0),
        name TEXT NOT NULL,
        bot TEXT,
        token_hash BLOB CHECK (token_hash IS NULL OR length(token_hash) = 32),
        PRIMARY KEY (match_id, seat),
        CHECK ((bot IS NULL) = (token_hash IS NOT NULL))
    );
    CREATE TABLE moves (
        match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply >= 0),
        seat INTEGER NOT NULL,
        path TEXT NOT NULL,
        played_at TEXT NOT NULL,
        PRIMARY KEY (match_id, ply),
        FOREIGN KEY (match_id, seat) REFERENCES seats (match_id, seat)
    );",
    // 3: tournaments. A tournament is its settings, its entrants and its
    // schedule (one row per game, with the entrant of each seat); a game
    // that has started links to the match that plays it. An open entrant's
    // token hash is also its seats' token hash in every match it plays, so
    // one token plays all its games. Timeouts are stored one row each;
    // deadlines themselves are derived (see `tournaments::director`).
    "CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        name TEXT NOT NULL,
        start_position TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('round_robin', 'gauntlet')),
        games_per_pairing INTEGER NOT NULL CHECK (games_per_pairing >= 1),
        move_ms INTEGER NOT NULL CHECK (move_ms >= 1),
        max_timeouts INTEGER NOT NULL CHECK (max_timeouts >= 1),
        concurrency INTEGER NOT NULL CHECK (concurrency >= 1),
        points TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'waiting'
            CHECK (status IN ('waiting', 'running', 'paused', 'finished', 'abandoned')),
        version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
        admin_token_hash BLOB NOT NULL CHECK (length(admin_token_hash) = 32)
    );
    CREATE INDEX tournaments_by_status ON tournaments (status, id);
    CREATE TABLE entrants (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        entrant INTEGER NOT NULL CHECK (entrant >= 0),
        name TEXT NOT NULL,
        bot TEXT,
        token_hash BLOB CHECK (token_hash IS NULL OR length(token_hash) = 32),
        reference INTEGER NOT NULL DEFAULT 0 CHECK (reference IN (0, 1)),
        PRIMARY KEY (tournament_id, entrant),
        CHECK ((bot IS NULL) = (token_hash IS NOT NULL))
    );
    CREATE UNIQUE INDEX entrants_by_token ON entrants (token_hash) WHERE token_hash IS NOT NULL;
    CREATE TABLE tournament_games (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        game INTEGER NOT NULL CHECK (game >= 0),
        entrants TEXT NOT NULL,
        match_id INTEGER UNIQUE REFERENCES matches (id),
        PRIMARY KEY (tournament_id, game)
    );
    CREATE TABLE timeouts (
        match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply >= 0),
        seat INTEGER NOT NULL CHECK (seat >= 0),
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (match_id, ply, seat)
    );",
];

/// The schema version this code writes.
pub const CURRENT_VERSION: usize = MIGRATIONS.len();

/// How long a connection waits for another's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Opens (creating if needed) the database file and brings its schema up to
/// date. Returns the connection and the schema version.
///
/// # Errors
/// The file cannot be opened or written, a migration fails, or the file was
/// written by a newer version of the service.
pub fn open(path: &Path) -> rusqlite::Result<(Connection, usize)> {
    open_with_version(path, CURRENT_VERSION)
}

/// Opens the database file with the schema brought up to `version` only
/// (no further): how tests make a file as an older release left it.
///
/// # Errors
/// As [`open`]; also when `version` is beyond the known migrations.
pub fn open_with_version(path: &Path, version: usize) -> rusqlite::Result<(Connection, usize)> {
    let mut connection = connect(path)?;
    let version = migrate(&mut connection, version)?;
    Ok((connection, version))
}

/// Opens another connection to an already migrated file, with the same
/// settings; used for reads beside the writer.
///
/// # Errors
/// The file cannot be opened.
pub fn connect(path: &Path) -> rusqlite::Result<Connection> {
    let connection = Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    // FULL: a committed transaction survives power loss, not only a crash.
    connection.pragma_update(None, "synchronous", "FULL")?;
    Ok(connection)
}

fn migrate(connection: &mut Connection, target: usize) -> rusqlite::Result<usize> {
    if target > MIGRATIONS.len() {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "schema version {target} does not exist (the latest is {})",
            MIGRATIONS.len()
        )));
    }
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        );",
    )?;
    let applied: i64 = connection.query_row(
        "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
        [],
        |row| row.get(0),
    )?;
    let applied = usize::try_from(applied).unwrap_or(0);
    if applied > MIGRATIONS.len() {
        // Written by a newer release: refuse rather than misread it.
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "the file has schema version {applied}, newer than this program's {}; upgrade the program",
            MIGRATIONS.len()
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().take(target).skip(applied) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.execute(
            "INSERT INTO schema_migrations (version) VALUES (?1)",
            [index as i64 + 1],
        )?;
        transaction.commit()?;
    }
    Ok(applied.max(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sternhalma-db-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("test.sqlite3")
    }

    #[test]
    fn creates_and_reopens_a_database_file() {
        let path = scratch("reopen");
        let (connection, version) = open(&path).unwrap();
        assert_eq!(version, MIGRATIONS.len());
        let mode: String = connection
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let synchronous: i64 = connection
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .unwrap();
        assert_eq!(synchronous, 2, "FULL");
        let foreign_keys: i64 = connection
            .query_row("PRAGMA foreign_keys", [], |row| row.get(0))
            .unwrap();
        assert_eq!(foreign_keys, 1);
        drop(connection);
        let (connection, again) = open(&path).unwrap();
        assert_eq!(again, version);
        let rows: i64 = connection
            .query_row("SELECT COUNT(*) FROM schema_migrations", [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(
            rows as usize,
            MIGRATIONS.len(),
            "migrations are applied once"
        );
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_file_from_a_newer_release_is_refused() {
        let path = scratch("newer");
        let (connection, _) = open(&path).unwrap();
        connection
            .execute(
                "INSERT INTO schema_migrations (version) VALUES (?1)",
                [MIGRATIONS.len() as i64 + 1],
            )
            .unwrap();
        drop(connection);
        let error = open(&path).unwrap_err().to_string();
        assert!(error.contains("newer"), "{error}");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
