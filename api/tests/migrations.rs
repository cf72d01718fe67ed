//! Upgrades keep data: a file made by an older schema version opens under
//! the current one with everything in it.

use std::path::PathBuf;

use rusqlite::params;
use sternhalma::Position;
use sternhalma_store::db::{self, CURRENT_VERSION};
use sternhalma_store::matches::game;
use sternhalma_store::sql::{Database, Db};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "sternhalma-migrations-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("old.sqlite3")
}

fn tables(connection: &rusqlite::Connection) -> Vec<String> {
    let mut statement = connection
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_version_1_file_is_upgraded_and_keeps_its_history() {
    let path = scratch("v1");
    let database = Database::Sqlite(path.clone());
    let (db, version) = db::open_with_version(&database, 1).unwrap();
    let connection = db.as_sqlite().unwrap();
    assert_eq!(version, 1);
    assert_eq!(tables(connection), ["schema_migrations"]);
    // What the first release stored: its migration record.
    connection
        .execute(
            "UPDATE schema_migrations SET applied_at = '2026-01-01T00:00:00.000Z' WHERE version = 1",
            [],
        )
        .unwrap();
    drop(db);

    let (db, version) = db::open(&database).unwrap();
    let connection = db.as_sqlite().unwrap();
    assert_eq!(version, CURRENT_VERSION);
    assert_eq!(
        tables(connection),
        [
            "entrants",
            "matches",
            "moves",
            "schema_migrations",
            "seats",
            "timeouts",
            "tournament_games",
            "tournaments"
        ]
    );
    let applied: Vec<(i64, String)> = connection
        .prepare("SELECT version, applied_at FROM schema_migrations ORDER BY version")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(applied.len(), CURRENT_VERSION);
    assert_eq!(applied[0], (1, "2026-01-01T00:00:00.000Z".to_owned()));
    let integrity: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn matches_stored_by_the_first_matches_schema_open_under_the_current_one() {
    let path = scratch("v2");
    let database = Database::Sqlite(path.clone());
    let (db, version) = db::open_with_version(&database, 2).unwrap();
    let connection = db.as_sqlite().unwrap();
    assert_eq!(version, 2);
    // A match as schema version 2 stores it, written with plain SQL (not
    // with the current code): an open seat, a bot seat, two moves.
    let start = "rhombus5x2 classic south:22-24/north:0-2 0 0 -";
    let after: Position = start.parse::<Position>().unwrap();
    let after = after.play_text("22-19").unwrap().play_text("1-4").unwrap();
    connection
        .execute(
            "INSERT INTO matches (id, created_at, updated_at, start_position, position, ply, version,
                                  status, ending, resigned_seat, admin_token_hash)
             VALUES (7, '2026-02-01T10:00:00.000Z', '2026-02-01T10:00:05.000Z', ?1, ?2, 2, 3,
                     'in_progress', NULL, NULL, ?3)",
            params![start, after.to_string(), [1_u8; 32].as_slice()],
        )
        .unwrap();
    connection
        .execute_batch(
            "INSERT INTO seats (match_id, seat, name, bot, token_hash)
                 VALUES (7, 0, 'ada', NULL, X'0202020202020202020202020202020202020202020202020202020202020202');
             INSERT INTO seats (match_id, seat, name, bot, token_hash)
                 VALUES (7, 1, 'randy', '{\"kind\":\"random\",\"seed\":7}', NULL);
             INSERT INTO moves (match_id, ply, seat, path, played_at)
                 VALUES (7, 0, 0, '22-19', '2026-02-01T10:00:05.000Z');
             INSERT INTO moves (match_id, ply, seat, path, played_at)
                 VALUES (7, 1, 1, '1-4', '2026-02-01T10:00:05.000Z');",
        )
        .unwrap();
    drop(db);

    let (mut connection, version) = db::open(&database).unwrap();
    assert_eq!(version, CURRENT_VERSION);
    let state = game::view(&connection, 7).unwrap();
    assert_eq!(state.ply, 2);
    assert_eq!(state.version, 3);
    assert_eq!(state.seats[0].name, "ada");
    // The seed is kept, and shown only once the match is over.
    assert_eq!(state.seats[1].bot.as_ref().unwrap().seed, None);
    assert_eq!(state.to_move, Some(0));
    assert_eq!(state.created_at, "2026-02-01T10:00:00.000Z");
    let history = game::history(&connection, 7).unwrap();
    let texts: Vec<&str> = history.moves.iter().map(|m| m.mv.text.as_str()).collect();
    assert_eq!(texts, ["22-19", "1-4"]);
    assert_eq!(
        game::export(&connection, 7).unwrap().moves,
        ["22-19", "1-4"]
    );
    // And the upgraded match goes on: seat 0's token still plays.
    game::submit(
        &mut connection,
        7,
        &[2_u8; 32],
        2,
        &state.legal_moves[0].text.parse().unwrap(),
    )
    .unwrap();
    // The bot seat replies with its stored seed.
    let turn = game::bot_turn(&connection, 7).unwrap().unwrap();
    assert_eq!((turn.ply, turn.spec.seed), (3, Some(7)));
    game::play_bots(&mut connection, 7).unwrap();
    assert_eq!(game::view(&connection, 7).unwrap().ply, 4);
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// A fresh PostgreSQL database, or `None` (the test is skipped, saying so)
/// when the suite names no server.
fn postgres(name: &str) -> Option<Database> {
    if std::env::var(db::TEST_POSTGRES).is_err() {
        eprintln!("{} is not set: skipped on PostgreSQL", db::TEST_POSTGRES);
        return None;
    }
    Some(db::scratch(&format!("migrations_{name}")).unwrap())
}

/// Every table's columns with their nullability, as `table.column`
/// (`?` when it may be null).
fn columns(db: &Db) -> Vec<String> {
    let sql = if db.is_postgres() {
        "SELECT table_name || '.' || column_name || CASE WHEN is_nullable = 'YES' THEN '?' ELSE '' END AS col
         FROM information_schema.columns WHERE table_schema = 'public'"
    } else {
        "SELECT m.name || '.' || p.name || CASE WHEN p.\"notnull\" OR p.pk > 0 THEN '' ELSE '?' END AS col
         FROM sqlite_schema m JOIN pragma_table_info(m.name) p
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"
    };
    let mut all: Vec<String> = db
        .query(sql, &[])
        .unwrap()
        .iter()
        .map(|row| row.text("col").unwrap())
        .collect();
    all.sort();
    all
}

#[test]
fn the_postgres_schema_has_the_same_tables_and_columns_as_sqlites() {
    let Some(database) = postgres("same") else {
        return;
    };
    let (pg, version) = db::open(&database).unwrap();
    assert_eq!(version, CURRENT_VERSION);
    let path = scratch("same");
    let (lite, _) = db::open(&Database::Sqlite(path.clone())).unwrap();
    let pg_columns = columns(&pg);
    assert!(
        pg_columns.contains(&"moves.path".to_owned()),
        "{pg_columns:?}"
    );
    assert_eq!(pg_columns, columns(&lite));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_postgres_database_from_a_newer_release_is_refused() {
    let Some(database) = postgres("newer") else {
        return;
    };
    let (db, _) = db::open(&database).unwrap();
    db.execute(
        "INSERT INTO schema_migrations (version) VALUES (?1)",
        &[(CURRENT_VERSION as i64 + 1).into()],
    )
    .unwrap();
    drop(db);
    let error = db::open(&database).err().unwrap();
    assert!(error.contains("newer"), "{error}");
}

#[test]
fn replicas_starting_together_apply_each_migration_once() {
    let Some(database) = postgres("together") else {
        return;
    };
    let starts: Vec<_> = (0..3)
        .map(|_| {
            let database = database.clone();
            std::thread::spawn(move || db::open(&database).map(|(_, version)| version))
        })
        .collect();
    for start in starts {
        assert_eq!(start.join().unwrap().unwrap(), CURRENT_VERSION);
    }
    let (db, _) = db::open(&database).unwrap();
    let versions: Vec<i64> = db
        .query(
            "SELECT version FROM schema_migrations ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.int("version").unwrap())
        .collect();
    assert_eq!(versions, (1..=CURRENT_VERSION as i64).collect::<Vec<_>>());
}

#[test]
fn a_version_2_postgres_database_is_upgraded_and_keeps_its_matches() {
    let Some(database) = postgres("v2") else {
        return;
    };
    let (db, version) = db::open_with_version(&database, 2).unwrap();
    assert_eq!(version, 2);
    let start = "rhombus5x2 classic south:22-24/north:0-2 0 0 -";
    let after: Position = start.parse::<Position>().unwrap();
    let after = after.play_text("22-19").unwrap();
    db.execute(
        "INSERT INTO matches (id, created_at, updated_at, start_position, position, ply, version,
                              status, admin_token_hash)
         VALUES (7, '2026-02-01T10:00:00.000Z', '2026-02-01T10:00:05.000Z', ?1, ?2, 1, 2,
                 'in_progress', ?3)",
        &[
            start.into(),
            after.to_string().into(),
            [1_u8; 32].as_slice().into(),
        ],
    )
    .unwrap();
    db.batch(
        "INSERT INTO seats (match_id, seat, name, bot, token_hash)
             VALUES (7, 0, 'ada', NULL, decode(repeat('02', 32), 'hex'));
         INSERT INTO seats (match_id, seat, name, bot, token_hash)
             VALUES (7, 1, 'bea', NULL, decode(repeat('03', 32), 'hex'));
         INSERT INTO moves (match_id, ply, seat, path, played_at)
             VALUES (7, 0, 0, '22-19', '2026-02-01T10:00:05.000Z');",
    )
    .unwrap();
    drop(db);
    let (mut db, version) = db::open(&database).unwrap();
    assert_eq!(version, CURRENT_VERSION);
    let state = game::view(&db, 7).unwrap();
    assert_eq!((state.ply, state.version, state.to_move), (1, 2, Some(1)));
    assert_eq!(game::export(&db, 7).unwrap().moves, ["22-19"]);
    game::submit(
        &mut db,
        7,
        &[3_u8; 32],
        1,
        &state.legal_moves[0].text.parse().unwrap(),
    )
    .unwrap();
    assert_eq!(game::view(&db, 7).unwrap().ply, 2);
}
