//! The database: opened (a SQLite file created if missing) at start, its
//! schema migrated by the service itself, on SQLite or PostgreSQL.
//!
//! Every SQLite connection runs in WAL mode with foreign keys on and
//! `synchronous = FULL`, so a committed transaction (an accepted move) is on
//! disk before the client hears about it, and survives power loss, not only
//! a crash of the process.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::Error;
use crate::sql::{Database, Db, params};

/// The SQLite schema, one migration per version (`schema/sqlite/`, a file
/// each), applied in order, each in its own transaction, with foreign keys
/// off and checked before the commit (so a migration may rebuild a table
/// that others reference). Never edit an applied migration: add a new one,
/// to both dialects.
pub const MIGRATIONS: &[&str] = &[
    include_str!("../schema/sqlite/0001_version_table.sql"),
    include_str!("../schema/sqlite/0002_matches.sql"),
    include_str!("../schema/sqlite/0003_tournaments.sql"),
    include_str!("../schema/sqlite/0004_forfeits.sql"),
    include_str!("../schema/sqlite/0005_tournament_progress.sql"),
    include_str!("../schema/sqlite/0006_entrant_returned.sql"),
    include_str!("../schema/sqlite/0007_bot_unavailable.sql"),
    include_str!("../schema/sqlite/0008_owners.sql"),
];

/// The same schema for PostgreSQL (`schema/postgres/`), version for
/// version: every integer is 64-bit (`BIGINT`), ids are identity columns,
/// token hashes `BYTEA`. A test compares the two schemas column by column.
pub const POSTGRES_MIGRATIONS: &[&str] = &[
    include_str!("../schema/postgres/0001_version_table.sql"),
    include_str!("../schema/postgres/0002_matches.sql"),
    include_str!("../schema/postgres/0003_tournaments.sql"),
    include_str!("../schema/postgres/0004_forfeits.sql"),
    include_str!("../schema/postgres/0005_tournament_progress.sql"),
    include_str!("../schema/postgres/0006_entrant_returned.sql"),
    include_str!("../schema/postgres/0007_bot_unavailable.sql"),
    include_str!("../schema/postgres/0008_owners.sql"),
];

/// The schema version this code writes.
pub const CURRENT_VERSION: usize = MIGRATIONS.len();

/// How long a SQLite connection waits for another's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The PostgreSQL advisory lock a server holds while it migrates, so that
/// replicas starting together apply each migration once.
const MIGRATION_LOCK: i64 = 0x5374_6572_6e00_0001;

/// Opens (creating a SQLite file if needed) the database and brings its
/// schema up to date. Returns the connection and the schema version.
///
/// # Errors
/// The database cannot be opened or written, a migration fails, or it was
/// written by a newer version of the service.
pub fn open(database: &Database) -> Result<(Db, usize), String> {
    open_with_version(database, CURRENT_VERSION)
}

/// Opens the database with the schema brought up to `version` only (no
/// further): how tests make a database as an older release left it.
///
/// # Errors
/// As [`open`]; also when `version` is beyond the known migrations.
pub fn open_with_version(database: &Database, version: usize) -> Result<(Db, usize), String> {
    let mut db = connect(database)?;
    let version = migrate(&mut db, version).map_err(|e| e.to_string())?;
    Ok((db, version))
}

/// Opens another connection to an already migrated database, with the
/// same settings; used for reads beside the writer.
///
/// # Errors
/// The database cannot be opened.
pub fn connect(database: &Database) -> Result<Db, String> {
    match database {
        Database::Sqlite(path) => connect_sqlite(path)
            .map(Db::sqlite)
            .map_err(|e| e.to_string()),
        Database::Postgres(url) => Db::postgres(url).map_err(|e| {
            // The driver's own message names the cause (refused, no such
            // database, authentication); its source says more.
            match std::error::Error::source(&e) {
                Some(source) => format!("{e}: {source}"),
                None => e.to_string(),
            }
        }),
    }
}

/// The variable that points the test suite at a PostgreSQL server: a URL
/// without a database (`postgres://user@127.0.0.1:5432`).
pub const TEST_POSTGRES: &str = "STERNHALMA_TEST_POSTGRES";

/// A fresh, empty database for a test named `name`: a new PostgreSQL
/// database on the server [`TEST_POSTGRES`] names when it is set (dropped
/// first if a previous run left it), else a new SQLite file in a folder of
/// its own under [`scratch_root`] for this process.
///
/// # Errors
/// The PostgreSQL server cannot be reached or refuses to create it.
pub fn scratch(name: &str) -> Result<Database, String> {
    let tag: String = format!("{name}_{}", std::process::id())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    match std::env::var(TEST_POSTGRES) {
        Ok(base) if !base.is_empty() => {
            let base = base.trim_end_matches('/');
            let name: String = format!("t_{tag}").chars().take(63).collect();
            let admin = Db::postgres(&format!("{base}/postgres")).map_err(|e| e.to_string())?;
            // Two statements: neither may run inside a transaction block.
            for sql in [
                format!("DROP DATABASE IF EXISTS {name}"),
                format!("CREATE DATABASE {name}"),
            ] {
                admin.batch(&sql).map_err(|e| e.to_string())?;
            }
            Ok(Database::Postgres(format!("{base}/{name}")))
        }
        _ => {
            let dir = scratch_root().join(tag.clone());
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            Ok(Database::Sqlite(dir.join(format!("{tag}.sqlite3"))))
        }
    }
}

/// Where this process's scratch SQLite files go:
/// `sternhalma-scratch/<pid>` under the system's temporary folder. A test
/// process's servers live until it exits, so its files cannot be removed
/// by the test; instead, the first call of each process removes the
/// folders of processes that no longer run (on Linux, where `/proc` says
/// so): each test program sweeps up after the ones before it, and a run of
/// the suite leaves its last program's folder, not one per test.
pub fn scratch_root() -> PathBuf {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    let parent = std::env::temp_dir().join("sternhalma-scratch");
    SWEPT.call_once(|| {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            return;
        };
        for entry in entries.flatten() {
            let gone = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<u32>().ok())
                .is_some_and(|pid| {
                    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
                });
            if gone {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    });
    parent.join(std::process::id().to_string())
}

fn connect_sqlite(path: &Path) -> rusqlite::Result<rusqlite::Connection> {
    let connection = rusqlite::Connection::open(path)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    // FULL: a committed transaction survives power loss, not only a crash.
    connection.pragma_update(None, "synchronous", "FULL")?;
    Ok(connection)
}

fn migrate(db: &mut Db, target: usize) -> Result<usize, Error> {
    let migrations = if db.is_postgres() {
        POSTGRES_MIGRATIONS
    } else {
        MIGRATIONS
    };
    if target > migrations.len() {
        return Err(Error::Internal(format!(
            "schema version {target} does not exist (the latest is {})",
            migrations.len()
        )));
    }
    if db.is_postgres() {
        // Replicas starting together: one migrates, the others wait and
        // then find the work done. Released when the session ends too.
        db.execute("SELECT pg_advisory_lock(?1)", params![MIGRATION_LOCK])?;
        let result = migrate_locked(db, migrations, target);
        db.execute("SELECT pg_advisory_unlock(?1)", params![MIGRATION_LOCK])?;
        result
    } else {
        migrate_locked(db, migrations, target)
    }
}

fn migrate_locked(db: &mut Db, migrations: &[&str], target: usize) -> Result<usize, Error> {
    db.batch(if db.is_postgres() {
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY,
            applied_at TEXT NOT NULL
                DEFAULT (to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))
        );"
    } else {
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        );"
    })?;
    let applied = db
        .query_one(
            "SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations",
            &[],
        )?
        .int("version")?;
    let applied = usize::try_from(applied).unwrap_or(0);
    if applied > migrations.len() {
        // Written by a newer release: refuse rather than misread it.
        return Err(Error::Internal(format!(
            "the database has schema version {applied}, newer than this program's {}; upgrade the program",
            migrations.len()
        )));
    }
    for (index, sql) in migrations.iter().enumerate().take(target).skip(applied) {
        if db.is_postgres() {
            apply(db, sql, index + 1)?;
        } else {
            // SQLite changes a table's constraints by rebuilding it (new
            // table, copy, drop, rename), which must not cascade the drop
            // to the rows that reference it: foreign keys are off for the
            // migration (a no-op inside a transaction, so around it) and
            // checked before its commit.
            db.batch("PRAGMA foreign_keys = OFF")?;
            let done = apply(db, sql, index + 1);
            db.batch("PRAGMA foreign_keys = ON")?;
            done?;
        }
    }
    Ok(applied.max(target))
}

/// Applies migration `sql` as schema version `version`, in one
/// transaction; on SQLite it fails if the rows broke a foreign key.
fn apply(db: &mut Db, sql: &str, version: usize) -> Result<(), Error> {
    db.write(|db| {
        db.batch(sql)?;
        if !db.is_postgres() {
            let broken = db.query("PRAGMA foreign_key_check", &[])?;
            if let Some(row) = broken.first() {
                return Err(Error::Internal(format!(
                    "migration {version} broke {} foreign key references (the first in table {})",
                    broken.len(),
                    row.text("table")?
                )));
            }
        }
        db.execute(
            "INSERT INTO schema_migrations (version) VALUES (?1)",
            params![version],
        )?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> Database {
        let dir = scratch_root().join(format!("sternhalma-db-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Database::Sqlite(dir.join("test.sqlite3"))
    }

    fn folder(database: &Database) -> &Path {
        match database {
            Database::Sqlite(path) => path.parent().unwrap(),
            Database::Postgres(_) => unreachable!(),
        }
    }

    #[test]
    fn both_backends_have_every_version() {
        assert_eq!(POSTGRES_MIGRATIONS.len(), MIGRATIONS.len());
    }

    #[test]
    fn creates_and_reopens_a_database_file() {
        let path = scratch("reopen");
        let (db, version) = open(&path).unwrap();
        let connection = db.as_sqlite().unwrap();
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
        drop(db);
        let (db, again) = open(&path).unwrap();
        let connection = db.as_sqlite().unwrap();
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
        std::fs::remove_dir_all(folder(&path)).unwrap();
    }

    #[test]
    fn a_file_from_a_newer_release_is_refused() {
        let path = scratch("newer");
        let (db, _) = open(&path).unwrap();
        db.as_sqlite()
            .unwrap()
            .execute(
                "INSERT INTO schema_migrations (version) VALUES (?1)",
                [MIGRATIONS.len() as i64 + 1],
            )
            .unwrap();
        drop(db);
        let error = open(&path).err().unwrap();
        assert!(error.contains("newer"), "{error}");
        std::fs::remove_dir_all(folder(&path)).unwrap();
    }
}
