//! The SQLite database: opened (and created) at start, schema migrated by
//! the service itself.
//!
//! The stateless API does not use it yet; stored matches do. Opening it at
//! start means a bad path or a locked file is reported before the server
//! takes requests.

use std::path::Path;

use rusqlite::Connection;

/// The schema, one migration per version, applied in order. Never edit an
/// applied migration: add a new one.
const MIGRATIONS: &[&str] = &[
    // 1: the version table itself is created by `migrate`; nothing else yet.
    "SELECT 1;",
];

/// Opens (creating if needed) the database file and brings its schema up to
/// date. Returns the connection and the schema version.
///
/// # Errors
/// The file cannot be opened or written, or a migration fails.
pub fn open(path: &Path) -> rusqlite::Result<(Connection, usize)> {
    let mut connection = Connection::open(path)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    // FULL: a committed transaction survives power loss, not only a crash.
    connection.pragma_update(None, "synchronous", "FULL")?;
    let version = migrate(&mut connection)?;
    Ok((connection, version))
}

fn migrate(connection: &mut Connection) -> rusqlite::Result<usize> {
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
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        let transaction = connection.transaction()?;
        transaction.execute_batch(sql)?;
        transaction.execute(
            "INSERT INTO schema_migrations (version) VALUES (?1)",
            [index as i64 + 1],
        )?;
        transaction.commit()?;
    }
    Ok(MIGRATIONS.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_and_reopens_a_database_file() {
        let dir = std::env::temp_dir().join(format!("sternhalma-db-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("test.sqlite3");
        let _ = std::fs::remove_file(&path);
        let (connection, version) = open(&path).unwrap();
        assert_eq!(version, MIGRATIONS.len());
        let mode: String = connection
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
