//! Upgrades keep data: a file made by an older schema version opens under
//! the current one with everything in it.

use std::path::PathBuf;

use rusqlite::params;
use sternhalma::Position;
use sternhalma_api::wire::matches::{History, MatchView};
use sternhalma_store::db::{self, CURRENT_VERSION};
use sternhalma_store::matches::game;
use sternhalma_store::sql::{Database, Db};

fn scratch(name: &str) -> PathBuf {
    let dir = sternhalma_store::db::scratch_root().join(format!(
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
            "forfeits",
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
    let state = MatchView::from(&game::view(&connection, 7).unwrap());
    assert_eq!(state.ply, 2);
    assert_eq!(state.version, 3);
    assert_eq!(state.seats[0].name, "ada");
    // The seed is kept, and shown only once the match is over.
    assert_eq!(state.seats[1].bot.as_ref().unwrap().seed, None);
    assert_eq!(state.to_move, Some(0));
    assert_eq!(state.created_at, "2026-02-01T10:00:00.000Z");
    let history = History::from(&game::history(&connection, 7).unwrap());
    let texts: Vec<&str> = history.moves.iter().map(|m| m.mv.text.as_str()).collect();
    assert_eq!(texts, ["22-19", "1-4"]);
    assert_eq!(
        game::export(&connection, 7).unwrap().moves,
        ["22-19", "1-4"]
    );
    // And the upgraded match goes on: seat 0's token still plays.
    let _ = game::submit(
        &mut connection,
        7,
        &[2_u8; 32],
        2,
        &state.legal_moves[0].text.parse().unwrap(),
    )
    .unwrap();
    // The bot seat replies with its stored seed.
    let turn = game::bot_turn(&connection, 7).unwrap().unwrap();
    assert_eq!((turn.ply, turn.bot.as_ref().unwrap().seed()), (3, 7));
    game::play_bots(&mut connection, &std::sync::Arc::default(), 7).unwrap();
    assert_eq!(game::view(&connection, 7).unwrap().ply, 4);
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

/// A fresh PostgreSQL database on the server `STERNHALMA_TEST_POSTGRES`
/// names. The tests that need one are ignored by default (`needs
/// PostgreSQL`); `scripts/test` runs them with `--include-ignored` against
/// its cluster, and one run without the variable fails, saying why.
fn postgres(name: &str) -> Database {
    assert!(
        std::env::var(db::TEST_POSTGRES).is_ok(),
        "this test needs PostgreSQL: set {} to a server's URL (scripts/test starts one)",
        db::TEST_POSTGRES
    );
    db::scratch(&format!("migrations_{name}")).unwrap()
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
#[ignore = "needs PostgreSQL"]
fn the_postgres_schema_has_the_same_tables_and_columns_as_sqlites() {
    let database = postgres("same");
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
#[ignore = "needs PostgreSQL"]
fn a_postgres_database_from_a_newer_release_is_refused() {
    let database = postgres("newer");
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
#[ignore = "needs PostgreSQL"]
fn replicas_starting_together_apply_each_migration_once() {
    let database = postgres("together");
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
#[ignore = "needs PostgreSQL"]
fn a_version_2_postgres_database_is_upgraded_and_keeps_its_matches() {
    let database = postgres("v2");
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
    let state = MatchView::from(&game::view(&db, 7).unwrap());
    assert_eq!((state.ply, state.version, state.to_move), (1, 2, Some(1)));
    assert_eq!(game::export(&db, 7).unwrap().moves, ["22-19"]);
    let _ = game::submit(
        &mut db,
        7,
        &[3_u8; 32],
        1,
        &state.legal_moves[0].text.parse().unwrap(),
    )
    .unwrap();
    assert_eq!(game::view(&db, 7).unwrap().ply, 2);
}

/// What schema version 3 stored for a tournament whose entrant "ada" never
/// moved (`max_timeouts` 2), written with plain SQL (not with the current
/// code), on `db` at version 3:
/// - match 7, two seats: ada timed out at plies 0 and 2 and forfeited at
///   the second, stored as her resignation;
/// - match 8, two seats: bea timed out once, then resigned by herself;
/// - match 9, three seats: ada timed out at plies 0 and 3 and left the
///   game at the second (a resignation in the position); the others play
///   on;
/// - match 10, not a tournament game: a plain resignation.
///
/// The matches' id counter is at 20 (later matches were deleted).
fn version_3_with_forfeits(db: &Db) {
    let two = "rhombus5x2 classic south:22-24/north:0-2 0 0 -";
    let after_two: Position = two.parse::<Position>().unwrap();
    let after_two = after_two
        .play_text("22-19")
        .unwrap()
        .play_text("1-4")
        .unwrap()
        .to_string();
    let three = Position::start(
        "star2".parse().unwrap(),
        sternhalma::Layout::standard(3).unwrap(),
        sternhalma::Rules::classic(),
    )
    .unwrap();
    let mut position = three.clone();
    let mut paths = Vec::new();
    for _ in 0..3 {
        let view = sternhalma::wire::view::MoveView::new(&position, position.legal_moves()[0]);
        let path: Vec<String> = view.path.iter().map(ToString::to_string).collect();
        paths.push(path.join("-"));
        position = position.play_text(&view.text).unwrap();
    }
    let after_three = position.resign(0).unwrap().to_string();

    let at = |minute: u32| format!("2026-03-01T10:{minute:02}:00.000Z");
    let exec = |sql: &str, values: Vec<sternhalma_store::sql::Value>| {
        db.execute(sql, &values).unwrap();
    };
    exec(
        "INSERT INTO tournaments (id, created_at, updated_at, name, start_position, format,
             games_per_pairing, move_ms, max_timeouts, concurrency, points, status, version,
             admin_token_hash)
         VALUES (3, ?1, ?1, 'class', ?2, 'round_robin', 1, 100, 2, 4, '{}', 'running', 5, ?3)",
        vec![at(0).into(), two.into(), [9_u8; 32].as_slice().into()],
    );
    for (id, start, position, ply, version, status, ending, resigned) in [
        (
            7,
            two,
            after_two.as_str(),
            2,
            4,
            "finished",
            Some("resignation"),
            Some(0),
        ),
        (
            8,
            two,
            after_two.as_str(),
            2,
            4,
            "finished",
            Some("resignation"),
            Some(1),
        ),
        (
            9,
            three.to_string().leak() as &str,
            after_three.as_str(),
            3,
            5,
            "in_progress",
            None,
            None,
        ),
        (10, two, two, 0, 2, "finished", Some("resignation"), Some(0)),
    ] {
        exec(
            "INSERT INTO matches (id, created_at, updated_at, start_position, position, ply,
                                  version, status, ending, resigned_seat, admin_token_hash)
             VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            vec![
                i64::from(id).into(),
                at(id).into(),
                start.into(),
                position.into(),
                i64::from(ply).into(),
                i64::from(version).into(),
                status.into(),
                ending.into(),
                resigned.map(i64::from).into(),
                [1_u8; 32].as_slice().into(),
            ],
        );
        let names: &[&str] = if id == 9 {
            &["ada", "bea", "cy"]
        } else {
            &["ada", "bea"]
        };
        for (seat, name) in names.iter().enumerate() {
            exec(
                "INSERT INTO seats (match_id, seat, name, bot, token_hash)
                 VALUES (?1, ?2, ?3, NULL, ?4)",
                vec![
                    i64::from(id).into(),
                    seat.into(),
                    (*name).into(),
                    [seat as u8 + 2; 32].as_slice().into(),
                ],
            );
        }
    }
    let moves: Vec<(i64, usize, String)> = [7, 8]
        .into_iter()
        .flat_map(|id| [(id, 0, "22-19".to_owned()), (id, 1, "1-4".to_owned())])
        .chain(
            paths
                .iter()
                .enumerate()
                .map(|(ply, path)| (9, ply, path.clone())),
        )
        .collect();
    for (id, ply, path) in moves {
        let seat = if id == 9 { ply % 3 } else { ply % 2 };
        exec(
            "INSERT INTO moves (match_id, ply, seat, path, played_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            vec![
                id.into(),
                ply.into(),
                seat.into(),
                path.into(),
                at(30).into(),
            ],
        );
    }
    for (game, id, entrants) in [(0, 7, "[0,1]"), (1, 8, "[1,0]"), (2, 9, "[0,1,2]")] {
        exec(
            "INSERT INTO tournament_games (tournament_id, game, entrants, match_id)
             VALUES (3, ?1, ?2, ?3)",
            vec![
                i64::from(game).into(),
                entrants.into(),
                i64::from(id).into(),
            ],
        );
    }
    for (id, ply, seat, minute) in [
        (7, 0, 0, 40),
        (7, 2, 0, 41),
        (8, 1, 1, 42),
        (9, 0, 0, 43),
        (9, 3, 0, 44),
    ] {
        exec(
            "INSERT INTO timeouts (match_id, ply, seat, recorded_at) VALUES (?1, ?2, ?3, ?4)",
            vec![
                i64::from(id).into(),
                i64::from(ply).into(),
                i64::from(seat).into(),
                at(minute).into(),
            ],
        );
    }
}

/// How many rows each table of the matches holds.
fn row_counts(db: &Db) -> Vec<i64> {
    ["matches", "seats", "moves", "timeouts", "tournament_games"]
        .iter()
        .map(|table| {
            db.query_one(&format!("SELECT COUNT(*) AS n FROM {table}"), &[])
                .unwrap()
                .int("n")
                .unwrap()
        })
        .collect()
}

/// Upgrades `database` (at version 3, [`version_3_with_forfeits`]) and
/// checks what it became.
fn upgrade_version_3_with_forfeits(database: &Database) {
    use sternhalma_api::wire::matches::{Ending, Forfeit as WireForfeit, legend};
    use sternhalma_store::matches::model::{Forfeit, ForfeitReason};
    use sternhalma_store::matches::storage;

    let (db, version) = db::open_with_version(database, 3).unwrap();
    assert_eq!(version, 3);
    version_3_with_forfeits(&db);
    let before = row_counts(&db);
    assert_eq!(before, [4, 9, 7, 5, 3]);
    if let Some(connection) = db.as_sqlite() {
        connection
            .execute(
                "UPDATE sqlite_sequence SET seq = 20 WHERE name = 'matches'",
                [],
            )
            .unwrap();
    }
    drop(db);

    let (mut db, version) = db::open(database).unwrap();
    assert_eq!(version, CURRENT_VERSION);
    assert_eq!(row_counts(&db), before, "nothing cascaded, nothing lost");

    // The forfeit stored as a resignation is a forfeit now.
    let forfeited = MatchView::from(&game::view(&db, 7).unwrap());
    let result = forfeited.result.unwrap();
    assert_eq!(result.ending, Ending::Forfeit);
    assert_eq!(
        (result.forfeited_seat, result.resigned_seat),
        (Some(0), None)
    );
    let forfeit = Forfeit {
        seat: 0,
        ply: 2,
        reason: ForfeitReason::Timeouts,
        timeouts: Some(2),
    };
    assert_eq!(result.forfeits, [WireForfeit::from(&forfeit)]);
    assert_eq!(result.summary, "seat 0 (ada) forfeited (2 timeouts)");
    assert_eq!(result.winners, [1]);
    assert_eq!((forfeited.ply, forfeited.version), (2, 4));
    assert_eq!(game::export(&db, 7).unwrap().moves, ["22-19", "1-4"]);

    // A resignation after fewer timeouts stays one.
    let result = MatchView::from(&game::view(&db, 8).unwrap())
        .result
        .unwrap();
    assert_eq!(result.ending, Ending::Resignation);
    assert_eq!((result.resigned_seat, result.forfeits.len()), (Some(1), 0));
    let result = MatchView::from(&game::view(&db, 10).unwrap())
        .result
        .unwrap();
    assert_eq!(
        (result.ending, result.resigned_seat),
        (Ending::Resignation, Some(0))
    );

    // A forfeit in a game of three, which goes on: on record, and named by
    // the result once the game is over.
    assert_eq!(
        storage::load_forfeits(&db, 9).unwrap(),
        [Forfeit {
            ply: 3,
            ..forfeit.clone()
        }]
    );
    let state = MatchView::from(&game::view(&db, 9).unwrap());
    assert_eq!((state.to_move, state.ply), (Some(1), 3));
    let _ = game::submit(
        &mut db,
        9,
        &[3_u8; 32],
        3,
        &state.legal_moves[0].text.parse().unwrap(),
    )
    .unwrap();
    // Cy resigns: bea is left, the game is over.
    let state = game::resign(&mut db, 9, &[4_u8; 32]).unwrap().into_value();
    let result = MatchView::from(&state).result.unwrap();
    assert_eq!(result.ending, Ending::Outcome);
    assert_eq!(result.winners, [1]);
    assert_eq!(
        result.forfeits,
        [WireForfeit::from(&Forfeit { ply: 3, ..forfeit })]
    );
    assert!(
        result
            .summary
            .ends_with("; seat 0 (ada) forfeited (2 timeouts)"),
        "{}",
        result.summary
    );
    let at = game::board_at(&db, 9, None).unwrap();
    let legend = legend(at.result.as_ref().unwrap(), &at.seats, &at.position);
    assert_eq!(
        legend.text,
        "finished: seat 1 won; seat 2 resigned; seat 0 forfeited (2 timeouts)"
    );

    // Ids go on from the counter, never reused.
    let start: Position = "rhombus5x2 classic south:22-24/north:0-2 0 0 -"
        .parse()
        .unwrap();
    let seats: Vec<storage::SeatPlan> = (0..2)
        .map(|seat| storage::SeatPlan {
            name: format!("s{seat}"),
            bot: None,
            token_hash: Some([seat + 20; 32]),
        })
        .collect();
    let creator = sternhalma_store::quota::Creator::default();
    let created = game::create(&mut db, &start, &seats, &[5_u8; 32], &creator)
        .unwrap()
        .into_value();
    assert_eq!(created.id, if db.is_postgres() { created.id } else { 21 });

    // The new ending is allowed, a made-up one is not.
    let bogus = db.execute("UPDATE matches SET ending = 'bogus' WHERE id = 7", &[]);
    assert!(bogus.is_err());
    if let Some(connection) = db.as_sqlite() {
        let check: Vec<String> = connection
            .prepare("PRAGMA foreign_key_check")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(check.is_empty(), "{check:?}");
        let integrity: String = connection
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .unwrap();
        assert_eq!(integrity, "ok");
        let on: i64 = connection
            .query_row("PRAGMA foreign_keys", [], |row| row.get(0))
            .unwrap();
        assert_eq!(on, 1, "foreign keys are back on after the migration");
        let index: i64 = connection
            .query_row(
                "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND name = 'matches_by_status' AND tbl_name = 'matches'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(index, 1);
        // The references to `matches` still hold: a seat of no match is
        // refused, and deleting a match still takes its rows with it.
        assert!(
            connection
                .execute(
                    "INSERT INTO seats (match_id, seat, name, token_hash) VALUES (999, 0, 'x', zeroblob(32))",
                    [],
                )
                .is_err()
        );
    }
}

#[test]
fn a_version_3_file_with_forfeits_stored_as_resignations_is_upgraded() {
    let path = scratch("v3");
    upgrade_version_3_with_forfeits(&Database::Sqlite(path.clone()));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_version_3_postgres_database_with_forfeits_stored_as_resignations_is_upgraded() {
    let database = postgres("v3");
    upgrade_version_3_with_forfeits(&database);
}
