//! Every store command tells its changes after its commit, and a command
//! that fails tells nothing: what a long-poll, the tournament director and
//! the bot runner rely on, checked command by command on a real database
//! (SQLite; PostgreSQL when the suite names a server).
//!
//! The store tells a command's changes on its writer thread, after the
//! commit and before the caller's answer: once a command has answered, its
//! events are in the listener's channel, so each test reads them with
//! `try_recv` and needs no wait.

use std::future::Future;

use serde_json::json;
use sternhalma::solve::Tablebases;
use sternhalma::{Layout, Position, Rules};
use sternhalma_store::bots::BotSpec;
use sternhalma_store::matches::game;
use sternhalma_store::matches::storage::SeatPlan;
use sternhalma_store::matches::tokens::{Authority, TokenHash};
use sternhalma_store::tournaments::logic::{self, Action};
use sternhalma_store::tournaments::plan::{
    self, EntrantRequest, TournamentLimits, TournamentRequest,
};
use sternhalma_store::{Conflict, Error, Event, Store};
use tokio::sync::mpsc::UnboundedReceiver;

fn run<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn open(name: &str) -> (Store, UnboundedReceiver<Event>) {
    let database = sternhalma_store::db::scratch(&format!("commands_{name}")).unwrap();
    // Tables of its own: none.
    let (store, _) = Store::open(&database, std::sync::Arc::default()).unwrap();
    let events = store.events();
    (store, events)
}

/// The events told so far, in order.
fn told(events: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    std::iter::from_fn(|| events.try_recv().ok()).collect()
}

fn here(id: i64, version: i64) -> Event {
    Event::Match {
        id,
        version,
        here: true,
        by_bot: false,
    }
}

/// A change the bot runner made (it is not kicked by its own writes).
fn by_bot(id: i64, version: i64) -> Event {
    Event::Match {
        id,
        version,
        here: true,
        by_bot: true,
    }
}

fn open_seat(seat: u8) -> SeatPlan {
    SeatPlan {
        name: format!("open {seat}"),
        bot: None,
        token_hash: Some(token(seat)),
    }
}

fn token(seat: u8) -> TokenHash {
    [seat + 1; 32]
}

fn bot_seat() -> SeatPlan {
    SeatPlan {
        name: "randy".to_owned(),
        bot: Some(BotSpec {
            kind: "random".to_owned(),
            seed: Some(7),
            nodes: None,
            millis: None,
            depth: None,
        }),
        token_hash: None,
    }
}

fn start() -> Position {
    Position::start(
        "star4".parse().unwrap(),
        Layout::standard(2).unwrap(),
        "classic".parse::<Rules>().unwrap(),
    )
    .unwrap()
}

/// The version a fresh read connection sees: the change is committed.
async fn stored_version(store: &Store, id: i64) -> i64 {
    store
        .read(move |c| game::view(c, id))
        .await
        .unwrap()
        .version
}

async fn first_legal(store: &Store, id: i64) -> sternhalma::MoveText {
    let view = store.read(move |c| game::view(c, id)).await.unwrap();
    let mv = view.position.legal_moves()[0];
    sternhalma::wire::view::MoveView::new(&view.position, mv)
        .text
        .parse()
        .unwrap()
}

fn conflict(error: &Error) -> Option<&Conflict> {
    match error {
        Error::Conflict(conflict, _) => Some(conflict),
        _ => None,
    }
}

#[test]
fn match_commands_tell_their_changes_after_the_commit_and_nothing_when_refused() {
    let (store, mut events) = open("matches");
    run(async {
        // Created: the bot runner hears of it.
        let created = store
            .create_match(start(), vec![open_seat(0), open_seat(1)], [9; 32], None)
            .await
            .unwrap();
        let id = created.id;
        assert_eq!(told(&mut events), [Event::Created(id)]);

        // A move: told once, at the version a fresh reader sees.
        let mv = first_legal(&store, id).await;
        let version = store
            .submit_move(id, token(0), 0, mv.clone())
            .await
            .unwrap();
        assert_eq!(version, created.version + 1);
        assert_eq!(told(&mut events), [here(id, version)]);
        assert_eq!(stored_version(&store, id).await, version);

        // Refused (a stale ply, a wrong token, not its turn): nothing told.
        let stale = store.submit_move(id, token(1), 0, mv).await.unwrap_err();
        assert_eq!(conflict(&stale), Some(&Conflict::StalePly));
        let mv = first_legal(&store, id).await;
        let wrong = store
            .submit_move(id, [99; 32], 1, mv.clone())
            .await
            .unwrap_err();
        assert!(matches!(wrong, Error::WrongToken(_)), "{wrong:?}");
        let turn = store.submit_move(id, token(0), 1, mv).await.unwrap_err();
        assert_eq!(conflict(&turn), Some(&Conflict::NotYourTurn));
        assert_eq!(told(&mut events), []);
        assert_eq!(stored_version(&store, id).await, version);

        // A resignation with two seats ends the match: told; a second is
        // refused and tells nothing.
        let resigned = store.resign(id, token(1)).await.unwrap();
        assert_eq!(told(&mut events), [here(id, resigned.version)]);
        assert_eq!(stored_version(&store, id).await, resigned.version);
        let again = store.resign(id, token(1)).await.unwrap_err();
        assert_eq!(conflict(&again), Some(&Conflict::MatchClosed));
        assert_eq!(told(&mut events), []);

        // Abandoned by the operator: told; a closed match refuses, and a
        // wrong admin token is refused before anything is written.
        let other = store
            .create_match(start(), vec![open_seat(0), open_seat(1)], [9; 32], None)
            .await
            .unwrap()
            .id;
        assert_eq!(told(&mut events), [Event::Created(other)]);
        let wrong = store
            .abandon(other, Authority::Token([1; 32]))
            .await
            .unwrap_err();
        assert!(matches!(wrong, Error::WrongToken(_)), "{wrong:?}");
        assert_eq!(told(&mut events), []);
        let abandoned = store
            .abandon(other, Authority::Token([9; 32]))
            .await
            .unwrap();
        assert_eq!(told(&mut events), [here(other, abandoned.version)]);
        let closed = store.abandon(other, Authority::Operator).await.unwrap_err();
        assert_eq!(conflict(&closed), Some(&Conflict::MatchClosed));
        assert_eq!(told(&mut events), []);
    });
}

#[test]
fn a_bots_move_is_told_and_a_move_for_a_match_that_moved_on_is_not() {
    let (store, mut events) = open("bots");
    run(async {
        let id = store
            .create_match(start(), vec![open_seat(0), bot_seat()], [9; 32], None)
            .await
            .unwrap()
            .id;
        let mv = first_legal(&store, id).await;
        let version = store.submit_move(id, token(0), 0, mv).await.unwrap();
        assert_eq!(told(&mut events), [Event::Created(id), here(id, version)]);

        let turn = store
            .read(move |c| game::bot_turn(c, id))
            .await
            .unwrap()
            .expect("the bot is to move");
        let stale = turn.clone();
        let played = store
            .play_bot(turn.clone(), turn.choose(store.tables()).unwrap())
            .await
            .unwrap();
        assert_eq!(played, Some(version + 1));
        assert_eq!(told(&mut events), [by_bot(id, version + 1)]);
        assert_eq!(stored_version(&store, id).await, version + 1);

        // The same turn again: the match has moved on; nothing stored,
        // nothing told.
        let dropped = store
            .play_bot(stale.clone(), stale.choose(store.tables()).unwrap())
            .await
            .unwrap();
        assert_eq!(dropped, None);
        assert_eq!(told(&mut events), []);
        assert_eq!(stored_version(&store, id).await, version + 1);
    });
}

fn tournament(name: &str, start: bool) -> logic::Plan {
    let entrant = |name: &str| EntrantRequest {
        name: name.to_owned(),
        bot: None,
    };
    let game = json!({"board": "star2", "layout": "2"});
    let request = TournamentRequest {
        name: Some(name.to_owned()),
        game: game.as_object().unwrap().clone(),
        move_ms: Some(60_000),
        max_timeouts: Some(2),
        entrants: vec![entrant("ada"), entrant("grace")],
        start,
        ..TournamentRequest::default()
    };
    plan::plan(
        request,
        TournamentLimits::classroom(),
        &Tablebases::default(),
    )
    .unwrap()
    .0
}

#[test]
fn tournament_commands_tell_their_changes_after_the_commit_and_nothing_when_refused() {
    let (store, mut events) = open("tournaments");
    run(async {
        // Created and started: every director hears of each.
        let id = store
            .create_tournament(tournament("cup", false), [5; 32], None)
            .await
            .unwrap();
        assert_eq!(told(&mut events), [Event::Tournament(id)]);
        store
            .act_on_tournament(id, Authority::Token([5; 32]), Action::Start)
            .await
            .unwrap();
        assert_eq!(told(&mut events), [Event::Tournament(id)]);
        let again = store
            .act_on_tournament(id, Authority::Operator, Action::Start)
            .await
            .unwrap_err();
        assert_eq!(conflict(&again), Some(&Conflict::AlreadyRunning));
        let wrong = store
            .act_on_tournament(id, Authority::Token([6; 32]), Action::Pause)
            .await
            .unwrap_err();
        assert!(matches!(wrong, Error::WrongToken(_)), "{wrong:?}");
        assert_eq!(told(&mut events), []);

        // The director's settle starts the first game: told to the other
        // replicas only (this one's director has the answer), so nothing
        // here.
        let settled = store.settle_games(id, Vec::new()).await.unwrap();
        let game = settled
            .scheduled
            .started
            .first()
            .expect("a game started")
            .clone();
        assert_eq!(told(&mut events), []);

        // A missed deadline: the timeout's move is told; the same deadline
        // again (the match moved on) stores and tells nothing.
        let match_id = game.match_id;
        let version = stored_version(&store, match_id).await;
        let (position, ply) = store
            .read(move |c| logic::timeout_position(c, match_id, version, 0))
            .await
            .unwrap()
            .expect("seat 0 is to move");
        let mv = logic::timeout_move(match_id, &position, ply);
        let record = store
            .record_timeout(match_id, version, 0, mv, game.max_timeouts)
            .await
            .unwrap()
            .expect("the timeout is recorded");
        assert_eq!(record.version, version + 1);
        assert_eq!(told(&mut events), [here(match_id, version + 1)]);
        assert_eq!(stored_version(&store, match_id).await, version + 1);
        let late = store
            .record_timeout(match_id, version, 0, mv, game.max_timeouts)
            .await
            .unwrap();
        assert!(late.is_none());
        assert_eq!(told(&mut events), []);

        // Present again while never absent: nothing anyone listens for.
        assert!(!store.mark_present(id, 0).await.unwrap());
        assert_eq!(told(&mut events), []);

        // Withdrawn: its game under way is forfeited (told), and the
        // tournament's change is told; a second withdrawal is refused.
        store
            .withdraw_entrant(id, 0, Authority::Operator)
            .await
            .unwrap();
        let forfeited = stored_version(&store, match_id).await;
        assert_eq!(forfeited, version + 2);
        assert_eq!(
            told(&mut events),
            [here(match_id, forfeited), Event::Tournament(id)]
        );
        let twice = store
            .withdraw_entrant(id, 0, Authority::Operator)
            .await
            .unwrap_err();
        assert_eq!(conflict(&twice), Some(&Conflict::AlreadyWithdrawn));
        let nobody = store
            .withdraw_entrant(id, 7, Authority::Operator)
            .await
            .unwrap_err();
        assert!(matches!(nobody, Error::NotFound(_)), "{nobody:?}");
        assert_eq!(told(&mut events), []);
    });
}

#[test]
fn abandoning_a_tournament_tells_every_game_it_ends() {
    let (store, mut events) = open("abandon");
    run(async {
        let id = store
            .create_tournament(tournament("league", true), [5; 32], None)
            .await
            .unwrap();
        let settled = store.settle_games(id, Vec::new()).await.unwrap();
        let match_id = settled.scheduled.started[0].match_id;
        assert_eq!(told(&mut events), [Event::Tournament(id)]);
        let before = stored_version(&store, match_id).await;
        store
            .act_on_tournament(id, Authority::Operator, Action::Abandon)
            .await
            .unwrap();
        assert_eq!(
            told(&mut events),
            [here(match_id, before + 1), Event::Tournament(id)]
        );
        let over = store
            .act_on_tournament(id, Authority::Operator, Action::Abandon)
            .await
            .unwrap_err();
        assert!(matches!(over, Error::Conflict(..)), "{over:?}");
        assert_eq!(told(&mut events), []);
    });
}

#[test]
fn a_settle_that_starts_games_is_recorded_for_the_other_replicas() {
    // On one SQLite file there are no other replicas to hear it: the
    // command's own record of its changes shows what the bus is told.
    let database = sternhalma_store::db::scratch("commands_settle").unwrap();
    let (mut db, _) = sternhalma_store::db::open(&database).unwrap();
    let id = logic::create(
        &mut db,
        &tournament("open", true),
        &[5; 32],
        &Default::default(),
    )
    .unwrap()
    .into_value();
    let settled = logic::settle(&mut db, &Tablebases::default(), id, &[]).unwrap();
    assert_eq!(settled.changes().scheduled(), [id]);
    assert!(settled.changes().tournaments().is_empty());
    assert_eq!(settled.value().scheduled.started.len(), 1);
    // Nothing left to start: nothing recorded.
    let idle = logic::settle(&mut db, &Tablebases::default(), id, &[]).unwrap();
    assert!(idle.changes().is_empty(), "{:?}", idle.changes());
}

#[test]
fn a_bot_that_cannot_move_ends_its_match_saying_why_and_no_other_bot_plays() {
    // A `perfect` seat, as stored by a server that had the table, on one
    // that has none (the store's tables are empty).
    let (store, mut events) = open("unavailable");
    run(async {
        let mut oracle = bot_seat();
        oracle.name = "oracle".to_owned();
        oracle.bot.as_mut().unwrap().kind = "perfect".to_owned();
        let id = store
            .create_match(start(), vec![open_seat(0), oracle], [9; 32], None)
            .await
            .unwrap()
            .id;
        let mv = first_legal(&store, id).await;
        let version = store.submit_move(id, token(0), 0, mv).await.unwrap();
        assert_eq!(told(&mut events), [Event::Created(id), here(id, version)]);

        let turn = store
            .read(move |c| game::bot_turn(c, id))
            .await
            .unwrap()
            .expect("the perfect bot is to move");
        let why = turn
            .choose(store.tables())
            .expect_err("no table: it cannot move");
        assert_eq!(why.code, "no_tablebase");
        let ended = store.bot_unavailable(turn.clone()).await.unwrap();
        assert_eq!(ended, Some(version + 1));
        assert_eq!(told(&mut events), [by_bot(id, version + 1)]);

        let view = store.read(move |c| game::view(c, id)).await.unwrap();
        assert_eq!(view.ply, 1, "nobody played for it");
        let result = view.result.expect("over");
        assert_eq!(result.ending.as_str(), "bot_unavailable");
        assert_eq!(result.unavailable_seat, Some(1), "the seat is named");
        assert_eq!(result.results, [0.0, 0.0]);

        // Told once: the same turn again finds the match over.
        assert_eq!(store.bot_unavailable(turn).await.unwrap(), None);
        assert_eq!(told(&mut events), []);
    });
}

/// A client's games are counted against its quota inside the creating
/// transaction: its matches and its tournaments' planned games. Past the
/// quota a creation is refused with `storage_quota_exceeded`, tells
/// nothing and touches nothing stored; another client, and the operator
/// (no owner), are not held to it.
#[test]
fn a_creation_past_the_clients_quota_is_refused_and_loses_nothing() {
    use sternhalma_store::Owner;
    use sternhalma_store::quota::stored_games;
    let (store, mut events) = open("quota");
    let student = || Some(Owner::new("127.0.0.2"));
    let cup = tournament("cup", false);
    let games = cup.schedule.len() as u64;
    assert!(games >= 2, "{games}");
    store.set_games_per_owner(Some(games + 1));
    assert_eq!(store.games_per_owner(), Some(games + 1));
    run(async {
        let first = store
            .create_match(
                start(),
                vec![open_seat(0), open_seat(1)],
                [9; 32],
                student(),
            )
            .await
            .unwrap();
        let cup = store
            .create_tournament(cup, [5; 32], student())
            .await
            .unwrap();
        told(&mut events);
        let count =
            |owner: &'static str| store.read(move |db| stored_games(db, &Owner::new(owner)));
        assert_eq!(count("127.0.0.2").await.unwrap(), games + 1);

        // At its quota: a match and a tournament are refused.
        let refused = store
            .create_match(
                start(),
                vec![open_seat(0), open_seat(1)],
                [9; 32],
                student(),
            )
            .await
            .unwrap_err();
        assert_eq!(refused.code(), "storage_quota_exceeded");
        let detail = refused.to_string();
        assert!(
            detail.contains(&format!("has stored {} games", games + 1)),
            "{detail}"
        );
        assert!(detail.contains("--stored-games-per-client"), "{detail}");
        let again = store
            .create_tournament(tournament("again", false), [6; 32], student())
            .await
            .unwrap_err();
        assert_eq!(again.code(), "storage_quota_exceeded");
        assert_eq!(told(&mut events), []);
        assert_eq!(count("127.0.0.2").await.unwrap(), games + 1);

        // What it stored plays on.
        let mv = first_legal(&store, first.id).await;
        store.submit_move(first.id, token(0), 0, mv).await.unwrap();
        let view = store.read(move |c| logic::view(c, cup)).await.unwrap();
        assert_eq!(view.id, cup);

        // Another client, and the operator, are not held to it.
        store
            .create_match(
                start(),
                vec![open_seat(0), open_seat(1)],
                [9; 32],
                Some(Owner::new("127.0.0.3")),
            )
            .await
            .unwrap();
        store
            .create_match(start(), vec![open_seat(0), open_seat(1)], [9; 32], None)
            .await
            .unwrap();
        assert_eq!(count("127.0.0.3").await.unwrap(), 1);

        // Without a quota, the client stores again.
        store.set_games_per_owner(None);
        store
            .create_match(
                start(),
                vec![open_seat(0), open_seat(1)],
                [9; 32],
                student(),
            )
            .await
            .unwrap();
        assert_eq!(count("127.0.0.2").await.unwrap(), games + 2);
    });
}
