use std::sync::Arc;

use super::*;
use crate::bots::BotSpec;
use crate::sql::Db;

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}
use sternhalma::{Layout, Rules};

/// A fresh database: SQLite, or PostgreSQL when the suite names a
/// server ([`crate::db::TEST_POSTGRES`]).
fn scratch(name: &str) -> Db {
    let database = crate::db::scratch(&format!("storage_{name}")).unwrap();
    crate::db::open(&database).unwrap().0
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

fn open(seat: u8) -> SeatPlan {
    SeatPlan {
        name: format!("open {seat}"),
        bot: None,
        token_hash: Some([seat + 1; 32]),
    }
}

fn start_with(players: usize, rules: &str) -> Position {
    Position::start(
        "star4".parse().unwrap(),
        Layout::standard(players).unwrap(),
        rules.parse::<Rules>().unwrap(),
    )
    .unwrap()
}

fn start(rules: &str) -> Position {
    start_with(2, rules)
}

/// Creates a match and plays its bots as the server's runner does.
/// The first legal move of `state`, as a client would type it.
fn first_legal(state: &Match) -> MoveText {
    let mv = state.position.legal_moves()[0];
    sternhalma::wire::view::MoveView::new(&state.position, mv)
        .text
        .parse()
        .unwrap()
}

fn create_and_play(connection: &mut Db, start: &Position, seats: &[SeatPlan]) -> Match {
    let id = create(connection, start, seats, &[0; 32], &Creator::default())
        .unwrap()
        .into_value()
        .id;
    play_bots(connection, &Arc::default(), id).unwrap();
    view(connection, id).unwrap()
}

// The routes refuse matches without an open seat; the match logic
// plays whatever bots are to move, so two bots show how a bot chain
// ends.
#[test]
fn bots_play_to_the_outcome() {
    let mut connection = scratch("outcome");
    let state = create_and_play(
        &mut connection,
        &start("classic,max_plies=6"),
        &[bot(1), bot(2)],
    );
    assert_eq!(state.status, MatchStatus::Finished);
    assert_eq!(state.ply, 6);
    let result = state.result.unwrap();
    assert_eq!(result.ending, Ending::Outcome);
    assert_eq!(result.results, [0.0, 0.0], "a draw by the move limit");
    assert_eq!(history(&connection, state.id).unwrap().moves.len(), 6);
    assert!(bot_turn(&connection, state.id).unwrap().is_none());
}

// The README's own match under the defaults, with both seats random
// bots: the default move limit (NewGame::program_move_limit, as the
// create route applies it) ends it, well inside the bots' own limit.
#[test]
fn two_random_bots_under_the_defaults_end_by_the_move_limit() {
    let mut connection = scratch("defaults");
    let game = sternhalma::NewGame::default();
    let start = game
        .clone()
        .with_max_plies(game.program_move_limit())
        .start()
        .unwrap();
    let state = create_and_play(&mut connection, &start, &[bot(21), bot(22)]);
    assert_eq!(state.status, MatchStatus::Finished);
    assert_eq!(state.ply, 400);
    let result = state.result.unwrap();
    assert_eq!(result.ending, Ending::Outcome);
    assert_eq!(result.reason, Some(DrawReason::MoveLimit));
    assert_eq!(result.results, [0.0, 0.0]);
    let by_progress = result.by_progress.unwrap();
    assert_eq!(by_progress.concat().len(), 2, "{by_progress:?}");
}

// Bot plies in a row are counted from the last open seat's move; at
// the limit the match is abandoned instead of searched.
#[test]
fn bots_that_do_not_finish_are_stopped_at_the_limit() {
    let mut connection = scratch("limit");
    let id = create(
        &mut connection,
        &start("classic"),
        &[bot(3), bot(4)],
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value()
    .id;
    for _ in 0..3 {
        let turn = bot_turn(&connection, id).unwrap().unwrap();
        play_bot(
            &mut connection,
            &turn,
            turn.choose(&Arc::default()).unwrap(),
        )
        .unwrap()
        .into_value()
        .unwrap();
    }
    let mut turn = bot_turn(&connection, id).unwrap().unwrap();
    assert_eq!(turn.bot_plies, 3);
    turn.bot_plies = MAX_BOT_PLIES;
    assert_eq!(
        turn.choose(&Arc::default()),
        Ok(sternhalma::Move::Pass),
        "no search"
    );
    play_bot(
        &mut connection,
        &turn,
        turn.choose(&Arc::default()).unwrap(),
    )
    .unwrap()
    .into_value()
    .unwrap();
    let state = view(&connection, id).unwrap();
    assert_eq!(state.status, MatchStatus::Abandoned);
    assert_eq!(state.ply, 3);
    assert_eq!(state.result.as_ref().unwrap().ending, Ending::BotLimit);
    assert_eq!(state.to_move(), None);
    assert_eq!(export(&connection, id).unwrap().moves.len(), 3);
    assert!(bot_turn(&connection, id).unwrap().is_none());
}

// A bot's move searched for a version the match has left (another
// change came first) is not stored: nothing lost, nothing doubled.
#[test]
fn a_bot_move_for_a_stale_version_is_dropped() {
    let mut connection = scratch("stale");
    let seats = [open(0), bot(5), open(2)];
    let id = create(
        &mut connection,
        &start_with(3, "classic"),
        &seats,
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value()
    .id;
    let first = first_legal(&view(&connection, id).unwrap());
    let version = submit(&mut connection, id, &[1; 32], 0, &first)
        .unwrap()
        .into_value();
    let turn = bot_turn(&connection, id).unwrap().unwrap();
    assert_eq!((turn.version, turn.ply), (version, 1));
    let searched = turn.choose(&Arc::default()).unwrap();
    // Meanwhile seat 2 resigns: the bot's search is for a stale state.
    resign(&mut connection, id, &[3; 32]).unwrap().into_value();
    assert_eq!(
        play_bot(&mut connection, &turn, searched)
            .unwrap()
            .into_value(),
        None
    );
    assert_eq!(export(&connection, id).unwrap().moves.len(), 1);
    // Searched again, it is stored once, and the history replays.
    let again = bot_turn(&connection, id).unwrap().unwrap();
    assert!(again.version > version);
    play_bot(
        &mut connection,
        &again,
        again.choose(&Arc::default()).unwrap(),
    )
    .unwrap()
    .into_value()
    .unwrap();
    let moves = history(&connection, id).unwrap().moves;
    assert_eq!(
        moves.iter().map(|m| (m.ply, m.seat)).collect::<Vec<_>>(),
        [(0, 0), (1, 1)]
    );
    assert!(!waits_for_bots(&connection, id).unwrap(), "seat 0 to move");
}

// The stored path is the move's canonical one, whatever chain the
// client sent.
#[test]
fn a_move_is_stored_with_its_canonical_path() {
    let mut connection = scratch("canonical");
    let id = create(
        &mut connection,
        &start("classic"),
        &[open(0), open(1)],
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value()
    .id;
    // 115-104 is a hop over 110; the chain may come back and hop again.
    let long = "115-104-115-104".parse().unwrap();
    submit(&mut connection, id, &[1; 32], 0, &long)
        .unwrap()
        .into_value();
    assert_eq!(export(&connection, id).unwrap().moves, ["115-104"]);
    let moves = history(&connection, id).unwrap().moves;
    let path: Vec<usize> = moves[0].played.path.iter().map(|c| c.id()).collect();
    assert_eq!(path, [115, 104]);
}

// With one or two seats a resignation ends the match: the resigner -1,
// the other +1 (`Outcome::resignation`).
#[test]
fn a_resignation_with_one_or_two_seats_ends_the_match() {
    let mut connection = scratch("resign");
    for (players, resigner, winners, results) in
        [(1, 0, vec![], vec![-1.0]), (2, 1, vec![0], vec![1.0, -1.0])]
    {
        let seats: Vec<SeatPlan> = (0..players as u8).map(open).collect();
        let id = create(
            &mut connection,
            &start_with(players, "classic"),
            &seats,
            &[0; 32],
            &Creator::default(),
        )
        .unwrap()
        .into_value()
        .id;
        let state = resign(&mut connection, id, &[resigner as u8 + 1; 32])
            .unwrap()
            .into_value();
        let result = state.result.unwrap();
        assert_eq!(state.status, MatchStatus::Finished);
        assert_eq!(result.ending, Ending::Resignation);
        assert_eq!(result.resigned_seat, Some(resigner));
        assert_eq!(result.winners, winners, "{players} players");
        assert_eq!(result.results, results, "{players} players");
    }
}

// A forfeit is scored as a resignation and stored as a forfeit: with
// two seats it ends the match; with three the seat leaves, once.
#[test]
fn a_forfeit_is_stored_as_a_forfeit() {
    let mut connection = scratch("forfeit");
    let forfeit = |seat, ply| Forfeit {
        seat,
        ply,
        reason: crate::matches::model::ForfeitReason::Timeouts,
        timeouts: Some(3),
    };
    let id = create(
        &mut connection,
        &start("classic"),
        &[open(0), open(1)],
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value()
    .id;
    connection
        .write(|store| {
            let row = load_match(store, id)?;
            forfeit_seat(store, &row, 2, &forfeit(0, 0), at("2026-03-01T10:00:00Z"))
        })
        .unwrap();
    let state = view(&connection, id).unwrap();
    assert_eq!(state.status, MatchStatus::Finished);
    let result = state.result.unwrap();
    assert_eq!(result.ending, Ending::Forfeit);
    assert_eq!(
        (result.forfeited_seat, result.resigned_seat),
        (Some(0), None)
    );
    assert_eq!(result.forfeits, [forfeit(0, 0)]);
    assert_eq!(
        (&result.winners, &result.results),
        (&vec![1], &vec![-1.0, 1.0])
    );
    let board = board_at(&connection, id, None).unwrap();
    assert_eq!(
        board.result,
        Some(result.clone()),
        "the last board shows it"
    );
    let names: Vec<&str> = board.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["open 0", "open 1"]);
    let listed = list(
        &connection,
        None,
        Page {
            limit: 10,
            before: i64::MAX,
        },
    )
    .unwrap()
    .matches;
    assert_eq!(listed[0].ending, Some(Ending::Forfeit));

    let seats: Vec<SeatPlan> = (0..3).map(open).collect();
    let id = create(
        &mut connection,
        &start_with(3, "classic"),
        &seats,
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value()
    .id;
    let leave = |connection: &mut Db| {
        connection.write(|store| {
            let row = load_match(store, id)?;
            forfeit_seat(store, &row, 3, &forfeit(1, 0), at("2026-03-01T10:00:00Z"))
        })
    };
    leave(&mut connection).unwrap();
    let state = view(&connection, id).unwrap();
    assert_eq!(state.status, MatchStatus::InProgress);
    assert_eq!(state.position.resignations().len(), 1);
    let refused = leave(&mut connection).unwrap_err();
    assert_eq!(refused.code(), "already_resigned");
    assert_eq!(
        storage::load_forfeits(&connection, id).unwrap(),
        [forfeit(1, 0)]
    );
}

// With three or more the resigner leaves and the others play on; when
// one is left the match is over, resigners last (`Position::resign`).
#[test]
fn a_resignation_with_three_seats_leaves_the_others_playing() {
    let mut connection = scratch("resign3");
    let seats: Vec<SeatPlan> = (0..3).map(open).collect();
    let id = create(
        &mut connection,
        &start_with(3, "classic"),
        &seats,
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value()
    .id;
    let state = resign(&mut connection, id, &[1; 32]).unwrap().into_value();
    assert_eq!(state.status, MatchStatus::InProgress);
    assert!(state.result.is_none());
    assert_eq!(state.to_move(), Some(1), "seat 0 resigned on its turn");
    let refused = resign(&mut connection, id, &[1; 32]).unwrap_err();
    assert_eq!(refused.code(), "already_resigned");
    let state = resign(&mut connection, id, &[3; 32]).unwrap().into_value();
    assert_eq!(state.status, MatchStatus::Finished);
    let result = state.result.unwrap();
    assert_eq!(result.ending, Ending::Outcome);
    assert_eq!(result.winners, [1]);
    assert_eq!(
        result.results,
        [-1.0, 1.0, 0.0],
        "the later resigner ranks higher"
    );
}

// A full disk (here SQLite's page limit, which fails a write as a full
// disk does): the write is refused and rolled back, everything stored
// before reads back the same, and writes go on once there is room.
#[test]
fn a_full_database_refuses_a_write_and_loses_nothing() {
    let folder = crate::db::scratch_root().join("full");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("full.sqlite3");
    let _ = std::fs::remove_file(&file);
    let database = crate::sql::Database::Sqlite(file.clone());
    let mut connection = crate::db::open(&database).unwrap().0;
    let start = start("classic");
    let first = create(
        &mut connection,
        &start,
        &[open(0), open(1)],
        &[0; 32],
        &Creator::default(),
    )
    .unwrap()
    .into_value();
    let moved = first_legal(&first);
    let _ = submit(&mut connection, first.id, &[1; 32], 0, &moved).unwrap();
    let before = view(&connection, first.id).unwrap();
    let pages = connection
        .query_one("PRAGMA page_count", &[])
        .unwrap()
        .int("page_count")
        .unwrap();
    connection
        .batch(&format!("PRAGMA max_page_count = {pages}"))
        .unwrap();
    let mut stored = vec![first.id];
    let refused = loop {
        match create(
            &mut connection,
            &start,
            &[open(0), open(1)],
            &[0; 32],
            &Creator::default(),
        ) {
            Ok(created) => stored.push(created.into_value().id),
            Err(error) => break error,
        }
        assert!(stored.len() < 10_000, "the page limit never filled");
    };
    assert_eq!(refused.code(), "disk_full");
    // The match under way reads back as it was, and so does every match
    // stored before the refusal.
    let after = view(&connection, first.id).unwrap();
    assert_eq!(
        (after.ply, after.version, after.position.to_string()),
        (before.ply, before.version, before.position.to_string())
    );
    for id in &stored {
        assert!(view(&connection, *id).is_ok(), "match {id}");
    }
    // Room again: writes go on.
    connection
        .batch("PRAGMA max_page_count = 1073741823")
        .unwrap();
    let again = create(
        &mut connection,
        &start,
        &[open(0), open(1)],
        &[0; 32],
        &Creator::default(),
    )
    .unwrap();
    assert!(again.into_value().id > *stored.last().unwrap());
    drop(connection);
    let _ = std::fs::remove_dir_all(&folder);
}
