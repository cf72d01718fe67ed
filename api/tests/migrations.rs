//! Upgrades keep data: a file made by an older schema version opens under
//! the current one with everything in it.

use std::path::PathBuf;

use rusqlite::params;
use sternhalma::Position;
use sternhalma_api::db::{self, CURRENT_VERSION};
use sternhalma_api::matches::game;

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
    let (connection, version) = db::open_with_version(&path, 1).unwrap();
    assert_eq!(version, 1);
    assert_eq!(tables(&connection), ["schema_migrations"]);
    // What the first release stored: its migration record.
    connection
        .execute(
            "UPDATE schema_migrations SET applied_at = '2026-01-01T00:00:00.000Z' WHERE version = 1",
            [],
        )
        .unwrap();
    drop(connection);

    let (connection, version) = db::open(&path).unwrap();
    assert_eq!(version, CURRENT_VERSION);
    assert_eq!(
        tables(&connection),
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
    let (connection, version) = db::open_with_version(&path, 2).unwrap();
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
    drop(connection);

    let (mut connection, version) = db::open(&path).unwrap();
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
