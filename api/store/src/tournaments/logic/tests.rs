//! The tournament logic on a scratch database (SQLite, or PostgreSQL when
//! the suite names a server) with a clock moved by hand: what depends on
//! stored times (turns missed in a row, an entrant's return) is checked
//! at times the test chose.

use std::time::Duration;

use sternhalma::solve::Tablebases;

use super::*;
use crate::clock::Clock;
use crate::clock::stored;
use crate::matches::tokens;
use crate::tournaments::plan::{self, TournamentLimits};

const START: &str = "2026-03-01T10:00:00Z";

fn scratch(name: &str, clock: &Clock) -> Db {
    let database = crate::db::scratch(&format!("logic_{name}")).unwrap();
    let mut db = crate::db::open(&database).unwrap().0;
    db.set_clock(clock.clone());
    db
}

/// A running tournament of two open entrants on star2, `games` games per
/// pairing, one game at a time; its id and each entrant's token hash.
fn two_entrants(db: &mut Db, games: u32, max_timeouts: u32) -> (i64, Vec<TokenHash>) {
    let request = plan::request(serde_json::json!({
        "board": "star2",
        "layout": "2",
        "games_per_pairing": games,
        "move_ms": 60_000,
        "max_timeouts": max_timeouts,
        "entrants": [{"name": "ada"}, {"name": "grace"}],
        "start": true,
    }));
    let (plan, entrant_tokens) = plan::plan(
        request,
        TournamentLimits::classroom(),
        &Tablebases::default(),
    )
    .unwrap();
    let id = create(db, &plan, &[5; 32], &Creator::default())
        .unwrap()
        .into_value();
    let hashes = entrant_tokens
        .iter()
        .map(|entrant| tokens::parse(&entrant.token).unwrap())
        .collect();
    (id, hashes)
}

/// The one game settle starts now.
fn start_one(db: &mut Db, id: i64) -> Tracked {
    let settled = settle(db, &Tablebases::default(), id, &[])
        .unwrap()
        .into_value();
    assert_eq!(settled.scheduled.started.len(), 1, "one game at a time");
    settled.scheduled.started[0].clone()
}

/// The timeout of whoever is to move in `game`, at the clock's time.
fn time_out(db: &mut Db, game: &Tracked, max_timeouts: u32) -> TimeoutRecord {
    let row = game::load_match(db, game.match_id).unwrap();
    let position = game::parse_position(&row.position).unwrap();
    let seat = position.side_to_move();
    let mv = timeout_move(game.match_id, &position, row.ply);
    record_timeout(db, game.match_id, row.version, seat, mv, max_timeouts)
        .unwrap()
        .into_value()
        .expect("the match had not moved on")
}

/// The entrant to move in `game` moves itself (its first legal move).
fn moves_itself(db: &mut Db, game: &Tracked, tokens: &[TokenHash]) {
    let view = game::view(db, game.match_id).unwrap();
    let seat = view.to_move().unwrap();
    let mv = view.position.legal_moves()[0];
    let text = sternhalma::wire::view::MoveView::new(&view.position, mv)
        .text
        .parse()
        .unwrap();
    let entrant = game.entrants[seat];
    let _ = game::submit(db, game.match_id, &tokens[entrant], view.ply, &text).unwrap();
}

fn entrant_to_move(db: &Db, game: &Tracked) -> usize {
    let view = game::view(db, game.match_id).unwrap();
    game.entrants[view.to_move().unwrap()]
}

#[test]
fn turns_missed_in_a_row_make_an_entrant_absent_until_it_asks_again() {
    let clock = Clock::at(START).unwrap();
    let mut db = scratch("absent", &clock);
    let (id, tokens) = two_entrants(&mut db, 2, 2);
    let game = start_one(&mut db, id);
    let late = entrant_to_move(&db, &game);

    // Its first missed turn: the greedy move is played for it.
    clock.advance(Duration::from_secs(60));
    let first = time_out(&mut db, &game, 2);
    assert_eq!(
        (first.timeouts, first.forfeited, first.absent),
        (1, false, None)
    );
    // The other entrant moves itself; then the late one misses again: its
    // second timeout in the game forfeits it, and its second in a row over
    // its games makes it absent, since the clock's time.
    clock.advance(Duration::from_secs(5));
    moves_itself(&mut db, &game, &tokens);
    clock.advance(Duration::from_secs(60));
    let second = time_out(&mut db, &game, 2);
    assert!(second.forfeited);
    assert_eq!(
        second.absent,
        Some((late, "2026-03-01T10:02:05Z".parse().unwrap()))
    );
    let turns_now = turns(&db, id, &tokens[late]).unwrap();
    assert!(turns_now.absent, "{turns_now:?}");
    assert!(storage::gone(&db, id, late).unwrap());

    // The forfeited game settled, the second starts.
    let settled = settle(&mut db, &Tablebases::default(), id, &[game.game])
        .unwrap()
        .into_value();
    assert_eq!(settled.over[0].status, GameStatus::Finished);
    let next = settled.scheduled.started[0].clone();

    // It asks for its turns again: back, at the clock's time.
    clock.advance(Duration::from_secs(600));
    assert!(present(&mut db, id, late).unwrap().into_value());
    assert!(
        !present(&mut db, id, late).unwrap().into_value(),
        "back once"
    );
    assert_eq!(
        storage::returned_at(&db, id, late)
            .unwrap()
            .map(stored)
            .as_deref(),
        Some("2026-03-01T10:12:05.000Z")
    );
    assert!(!turns(&db, id, &tokens[late]).unwrap().absent);
    // Missed turns are counted from its return: one more is not two in a
    // row.
    if entrant_to_move(&db, &next) != late {
        clock.advance(Duration::from_secs(1));
        moves_itself(&mut db, &next, &tokens);
    }
    clock.advance(Duration::from_secs(60));
    let after = time_out(&mut db, &next, 2);
    assert_eq!((after.timeouts, after.absent), (1, None));
}

#[test]
fn a_withdrawn_entrant_forfeits_its_game_under_way_and_leaves_the_rest_unplayed() {
    let clock = Clock::at(START).unwrap();
    let mut db = scratch("withdrawn", &clock);
    let (id, _) = two_entrants(&mut db, 2, 3);
    let game = start_one(&mut db, id);
    clock.advance(Duration::from_secs(30));
    let leaving = game.entrants[0];
    let _ = withdraw(&mut db, id, leaving, &Authority::Operator).unwrap();

    let forfeited = game::view(&db, game.match_id).unwrap();
    let result = forfeited.result.expect("over");
    assert_eq!(result.ending, Ending::Forfeit);
    assert_eq!(result.forfeited_seat, Some(0));
    // Its outcome recorded; the other game is never played, and the
    // tournament is over.
    let settled = settle(&mut db, &Tablebases::default(), id, &[game.game])
        .unwrap()
        .into_value();
    assert!(settled.scheduled.started.is_empty());
    assert!(settled.scheduled.finished);
    assert_eq!(
        status_and_version(&db, id).unwrap().0,
        TournamentStatus::Finished
    );
    let view = view(&db, id).unwrap();
    assert_eq!(
        view.entrants[leaving].withdrawn_at.map(stored).as_deref(),
        Some("2026-03-01T10:00:30.000Z")
    );
    let table = standings(&db, id).unwrap();
    assert_eq!(
        table.games_counted, 1,
        "the unplayed game counts for no one"
    );
    let winner = &table.rows[0];
    assert_eq!((winner.entrant, winner.wins), (1 - leaving, 1));
}

#[test]
fn only_a_tournament_not_over_is_started_paused_or_abandoned() {
    let clock = Clock::at(START).unwrap();
    let mut db = scratch("lifecycle", &clock);
    let (id, _) = two_entrants(&mut db, 1, 3);
    let code = |error: Error| error.code();
    let by = Authority::Token([5; 32]);
    assert_eq!(
        code(act(&mut db, id, &by, Action::Start).unwrap_err()),
        "already_running"
    );
    let _ = act(&mut db, id, &by, Action::Pause).unwrap();
    assert_eq!(
        code(act(&mut db, id, &by, Action::Pause).unwrap_err()),
        "not_running"
    );
    // Paused: nothing starts.
    assert!(
        settle(&mut db, &Tablebases::default(), id, &[])
            .unwrap()
            .into_value()
            .scheduled
            .started
            .is_empty()
    );
    let _ = act(&mut db, id, &by, Action::Start).unwrap();
    let game = start_one(&mut db, id);
    let wrong = act(&mut db, id, &Authority::Token([6; 32]), Action::Abandon).unwrap_err();
    assert_eq!(code(wrong), "wrong_token");
    let _ = act(&mut db, id, &by, Action::Abandon).unwrap();
    assert_eq!(
        game::view(&db, game.match_id).unwrap().status,
        MatchStatus::Abandoned
    );
    assert_eq!(
        code(act(&mut db, id, &by, Action::Start).unwrap_err()),
        "tournament_closed"
    );
}
