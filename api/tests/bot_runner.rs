//! Stored matches' built-in bots off the database writer, over a real
//! socket: a bot searches on the heavy-work pool while the match changes
//! under it (a resignation), and its stale move is dropped and searched
//! again, never lost or doubled; moves out of turn are refused meanwhile;
//! bots left alone play on in the background, one stored ply at a time.
//!
//! Nothing here waits on the clock: the test holds the pool's only worker
//! with a gate and reads the pool's counters and the match's long-poll
//! until what it waits for has happened.

mod common;

use common::{Reply, agent, finish};
use serde_json::{Value, json};
use sternhalma_api::{Heavy, HeavyPool};

fn get(base: &str, path: &str) -> Reply {
    finish(agent().get(format!("{base}{path}")).call().unwrap())
}

/// A long-poll of match `id` from the version of `state` (its ETag): it
/// answers as soon as the match differs from that version.
fn poll(base: &str, id: u64, state: &Value) -> Reply {
    let ply = &state["ply"];
    let tag = format!("\"{id}-{}\"", state["version"]);
    finish(
        agent()
            .get(format!(
                "{base}/v1/matches/{id}?wait_ply={ply}&timeout_ms=30000"
            ))
            .header("If-None-Match", tag)
            .call()
            .unwrap(),
    )
}

fn post(base: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Reply {
    let mut request = agent().post(format!("{base}{path}"));
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    finish(match body {
        Some(body) => request.send_json(body).unwrap(),
        None => request.send_empty().unwrap(),
    })
}

/// The match's state once `done` holds, long-polling from the state's
/// version on (each poll ends when the match changes). A test that waits
/// for something that never happens fails after 20 polls that saw no
/// change.
fn wait_until(base: &str, id: u64, done: impl Fn(&Value) -> bool) -> Value {
    let mut unchanged = 0;
    loop {
        let state = get(base, &format!("/v1/matches/{id}")).json();
        if done(&state) {
            return state;
        }
        if poll(base, id, &state).status == 304 {
            unchanged += 1;
            assert!(
                unchanged < 20,
                "never happened; the match at ply {}, version {}, {} to move, resigned {}",
                state["ply"],
                state["version"],
                state["to_move"],
                state["position"]["position"]["resigned"]
            );
        }
    }
}

fn token(created: &Value, seat: u64) -> String {
    created["seat_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["seat"] == seat)
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn a_change_during_a_bots_search_means_a_new_search_never_a_lost_or_doubled_move() {
    // One heavy-work thread, held by a gate until the test opens it.
    let pool = HeavyPool::new(1, 1);
    let held = pool.occupy().unwrap();
    let base = common::start_server_with("bot-runner-race", 4, Heavy::new(pool.clone()));

    let created = post(
        &base,
        "/v1/matches",
        None,
        Some(json!({
            "board": "star2",
            "layout": "3",
            "seats": [{"name": "ada"}, {"name": "randy", "bot": {"kind": "random"}}, {"name": "grace"}]
        })),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let created = created.json();
    let id = created["match"]["id"].as_u64().unwrap();
    let first = created["match"]["legal_moves"][0]["text"].clone();

    // Seat 0 moves; its answer waits for the bot's reply, so it runs aside.
    let (ada, grace) = (token(&created, 0), token(&created, 2));
    let mover = {
        let (base, ada) = (base.clone(), ada.clone());
        std::thread::spawn(move || {
            post(
                &base,
                &format!("/v1/matches/{id}/moves"),
                Some(&ada),
                Some(json!({"ply": 0, "move": first})),
            )
        })
    };
    let state = wait_until(&base, id, |s| s["ply"] == 1);
    assert_eq!(state["to_move"], 1, "the bot is to move");
    // The bot has read its turn and waits for the pool's thread.
    while pool.urgent_outstanding() == 0 {
        std::thread::yield_now();
    }

    // Meanwhile nobody else may move...
    for (seat_token, seat) in [(&ada, 0), (&grace, 2)] {
        let refused = post(
            &base,
            &format!("/v1/matches/{id}/moves"),
            Some(seat_token),
            Some(json!({"ply": 1, "move": "pass"})),
        );
        assert_eq!(refused.status, 409, "seat {seat}: {}", refused.body);
        assert_eq!(refused.json()["code"], "not_your_turn");
    }
    // ...but seat 2 may resign: the match changes under the bot's search.
    let resigner = {
        let base = base.clone();
        std::thread::spawn(move || {
            post(
                &base,
                &format!("/v1/matches/{id}/resign"),
                Some(&grace),
                None,
            )
        })
    };
    let resigned = wait_until(&base, id, |s| {
        s["position"]["position"]["resigned"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    });
    assert_eq!(resigned["ply"], 1, "a resignation is not a move");

    // The bot's search (for the state before the resignation) finishes;
    // its move is dropped, searched again, and stored once.
    held.release();
    let answer = mover.join().unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    let resign_answer = resigner.join().unwrap();
    assert_eq!(resign_answer.status, 200, "{}", resign_answer.body);
    let state = wait_until(&base, id, |s| s["ply"] == 2);
    assert_eq!(state["to_move"], 0, "seat 2 resigned, so seat 0 is next");
    let played = answer.json()["played"].clone();
    assert_eq!(played[0]["seat"], 0);
    // The history replays every stored move (each legal where it was
    // played, the resignation where it happened): one move per ply.
    let history = get(&base, &format!("/v1/matches/{id}/moves"));
    assert_eq!(history.status, 200, "{}", history.body);
    let moves: Vec<(u64, u64)> = history.json()["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["ply"].as_u64().unwrap(), m["seat"].as_u64().unwrap()))
        .collect();
    assert_eq!(moves, [(0, 0), (1, 1)]);
    // The answer holds the bot's reply as stored (unless the bots took
    // longer than the server waits for them, which the gate here does not
    // decide: then it holds only seat 0's move).
    let answered = played.as_array().unwrap();
    assert!(answered.len() <= 2);
    if let Some(reply) = answered.get(1) {
        assert_eq!(reply["seat"], 1);
        assert_eq!(reply["move"], history.json()["moves"][1]["move"]);
    }
    assert_eq!(pool.urgent_outstanding(), 0);
}

#[test]
fn bots_left_alone_play_on_in_the_background_to_the_end() {
    let base = common::start_server("bot-runner-alone", 2);
    let created = post(
        &base,
        "/v1/matches",
        None,
        Some(json!({
            "board": "star2",
            "layout": "3",
            "max_plies": 60,
            "seats": [{"name": "ada"}, {"bot": {"kind": "random"}}, {"bot": {"kind": "greedy"}}]
        })),
    )
    .json();
    let id = created["match"]["id"].as_u64().unwrap();
    // The only open seat resigns: nobody waits for the two bots, which play
    // the game to its move limit by themselves, one stored ply at a time.
    let resigned = post(
        &base,
        &format!("/v1/matches/{id}/resign"),
        Some(&token(&created, 0)),
        None,
    );
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let state = wait_until(&base, id, |s| s["status"] != "in_progress");
    assert_eq!(state["status"], "finished");
    assert_eq!(state["result"]["ending"], "outcome");
    let plies = state["ply"].as_u64().unwrap();
    assert!(plies <= 60, "the move limit holds");
    let history = get(&base, &format!("/v1/matches/{id}/moves")).json();
    let moves = history["moves"].as_array().unwrap();
    assert_eq!(moves.len() as u64, plies);
    for (ply, record) in moves.iter().enumerate() {
        assert_eq!(record["ply"], ply);
        assert_ne!(record["seat"], 0, "the resigned seat never moves");
    }
}
