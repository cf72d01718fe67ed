//! Stored matches over a real socket on a real database file: a full match
//! between two HTTP clients and a bot, every refusal (and that it changes
//! nothing), the long-poll, ETags, resignation, abandonment, export then
//! replay, and a race of many clients for one ply.

mod common;

use common::agent;
use std::cell::RefCell;
use std::sync::{Arc, Barrier, OnceLock};

use serde_json::{Value, json};

/// One server on a fresh database file, shared by the tests; or, on a
/// thread that chose one ([`on`]), that thread's own.
fn server() -> String {
    static URL: OnceLock<String> = OnceLock::new();
    OWN.with(|own| own.borrow().clone()).unwrap_or_else(|| {
        URL.get_or_init(|| common::start_server("matches", 4))
            .clone()
    })
}

thread_local! {
    static OWN: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Sends this thread's requests to `base` (a server of the test's own).
fn on(base: &str) {
    OWN.with(|own| *own.borrow_mut() = Some(base.to_owned()));
}

/// A server of the test's alone: its long-poll gauge counts this test's
/// waiters only, so the test can wait until its waiter is waiting.
fn own_server(name: &str) -> String {
    let base = common::start_server(name, 2);
    on(&base);
    base
}

/// Waits until the server at `base` holds `n` long-polls open.
fn until_waiting(base: &str, n: u64) {
    common::wait_until(&format!("{n} long-polls waiting"), || {
        (common::long_polls_open(base) == n).then_some(())
    });
}

struct Reply {
    status: u16,
    etag: Option<String>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

fn finish(mut response: ureq::http::Response<ureq::Body>) -> Reply {
    let etag = response
        .headers()
        .get("etag")
        .map(|v| v.to_str().unwrap().to_owned());
    Reply {
        status: response.status().as_u16(),
        etag,
        body: response.body_mut().read_to_string().unwrap(),
    }
}

fn get(path: &str) -> Reply {
    finish(agent().get(format!("{}{path}", server())).call().unwrap())
}

fn post(path: &str, token: Option<&str>, body: Value) -> Reply {
    let mut request = agent().post(format!("{}{path}", server()));
    if let Some(token) = token {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    finish(request.send_json(body).unwrap())
}

fn post_empty(path: &str, token: Option<&str>) -> Reply {
    let mut request = agent().post(format!("{}{path}", server()));
    if let Some(token) = token {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    finish(request.send_empty().unwrap())
}

fn assert_problem(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.json()["code"], code, "{}", reply.body);
}

/// A created match: its id, admin token and the seat tokens by seat.
struct Created {
    id: i64,
    admin: String,
    tokens: Vec<(usize, String)>,
    state: Value,
}

impl Created {
    fn token(&self, seat: usize) -> &str {
        &self.tokens.iter().find(|(s, _)| *s == seat).unwrap().1
    }
}

fn create(body: Value) -> Created {
    let reply = post("/v1/matches", None, body);
    assert_eq!(reply.status, 201, "{}", reply.body);
    let created = reply.json();
    Created {
        id: created["match"]["id"].as_i64().unwrap(),
        admin: created["admin_token"].as_str().unwrap().to_owned(),
        tokens: created["seat_tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["seat"].as_u64().unwrap() as usize,
                    t["token"].as_str().unwrap().to_owned(),
                )
            })
            .collect(),
        state: created["match"].clone(),
    }
}

fn two_open_seats() -> Created {
    create(json!({"board": "rhombus5p3", "seats": [{"name": "north-star"}, {"name": "south-paw"}]}))
}

fn state(id: i64) -> Value {
    let reply = get(&format!("/v1/matches/{id}"));
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

/// Plays the open seat of `id` with a seeded random chooser until the match
/// is over; answers the final state.
fn play_out(created: &Created, seat: usize) -> Value {
    let mut view = created.state.clone();
    let mut choice = 0_usize;
    while view["status"] == "in_progress" {
        assert_eq!(view["to_move"], seat, "the bot never waits for a client");
        let moves = view["legal_moves"].as_array().unwrap();
        choice = (choice * 7 + 3) % moves.len();
        let reply = post(
            &format!("/v1/matches/{}/moves", created.id),
            Some(created.token(seat)),
            json!({"ply": view["ply"], "move": moves[choice]["text"]}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        view = reply.json()["match"].clone();
    }
    view
}

#[test]
fn a_random_game_under_the_defaults_ends_by_the_move_limit() {
    // classic on the standard star, a random bot against random moves: a peg
    // parked in a target can block it forever, so matches get a move limit
    // by default (200 turns a player) and the result ranks by progress.
    let created = create(json!({
        "seats": [{"name": "coin"}, {"name": "randy", "bot": {"kind": "random", "seed": 5}}]
    }));
    assert_eq!(
        created.state["position"]["rules"]["max_plies"], 400,
        "{}",
        created.state
    );
    let view = play_out(&created, 0);
    assert_eq!(view["status"], "finished");
    assert_eq!(view["ply"], 400);
    let result = &view["result"];
    assert_eq!(result["ending"], "outcome");
    assert_eq!(result["reason"], "move_limit", "{result}");
    assert_eq!(result["results"], json!([0.0, 0.0]));
    assert_eq!(result["summary"], "draw by the move limit (400 plies)");
    // The tie-break names every seat once.
    let mut ranked: Vec<u64> = result["by_progress"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|rank| rank.as_array().unwrap().iter().map(|s| s.as_u64().unwrap()))
        .collect();
    ranked.sort_unstable();
    assert_eq!(ranked, [0, 1]);
}

#[test]
fn the_move_limit_can_be_set_or_removed() {
    let set =
        create(json!({"max_plies": 12, "seats": [{}, {"bot": {"kind": "random", "seed": 1}}]}));
    assert_eq!(set.state["position"]["rules"]["max_plies"], 12);
    let view = play_out(&set, 0);
    assert_eq!(
        (view["ply"].as_u64(), view["result"]["reason"].as_str()),
        (Some(12), Some("move_limit"))
    );
    let none = create(json!({"max_plies": null, "seats": [{}, {}]}));
    assert_eq!(none.state["position"]["rules"]["max_plies"], Value::Null);
    assert_eq!(none.state["position"]["rules"]["text"], "classic");
    // The rules' own limit is kept; the board stays the preset's.
    let research = create(json!({"rules": "research", "seats": [{}, {}]}));
    assert_eq!(research.state["position"]["rules"]["max_plies"], 200);
    let fill = create(json!({"rules": {"anti_spoiling": "fill_available"}, "seats": [{}, {}]}));
    assert!(
        fill.state["position"]["position_string"]
            .as_str()
            .unwrap()
            .starts_with("star4 "),
        "a default limit does not move the game to the research board: {}",
        fill.state["position"]["position_string"]
    );
}

#[test]
fn a_full_match_between_two_clients_and_a_bot() {
    // Three players on the small star: seats 0 and 2 are remote clients
    // (two HTTP agents), seat 1 a seeded random bot; a move limit bounds it.
    let created = create(json!({
        "board": "star2",
        "layout": "3",
        "rules": {"preset": "classic", "max_plies": 300},
        "seats": [{"name": "ada"}, {"name": "randy", "bot": {"kind": "random", "seed": 11}}, {"name": "grace"}]
    }));
    assert_eq!(created.tokens.len(), 2, "a token per open seat only");
    assert_eq!(created.state["seats"][1]["kind"], "bot");
    assert_eq!(created.state["seats"][1]["bot"]["kind"], "random");
    assert!(
        created.state["seats"][1]["bot"].get("seed").is_none(),
        "a bot's seed is hidden while the match is in progress"
    );
    let id = created.id;
    let mut view = created.state.clone();
    let mut submitted = 0;
    let mut choice = 0_usize;
    while view["status"] == "in_progress" {
        let seat = view["to_move"].as_u64().unwrap() as usize;
        assert_ne!(seat, 1, "the bot never waits for a client");
        let moves = view["legal_moves"].as_array().unwrap();
        choice = (choice * 7 + 3) % moves.len();
        let ply = view["ply"].as_u64().unwrap();
        let reply = post(
            &format!("/v1/matches/{id}/moves"),
            Some(created.token(seat)),
            json!({"ply": ply, "move": moves[choice]["text"]}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let accepted = reply.json();
        let played = accepted["played"].as_array().unwrap();
        assert_eq!(played[0]["seat"], seat);
        assert_eq!(played[0]["ply"], ply);
        for (offset, bot_move) in played.iter().enumerate().skip(1) {
            assert_eq!(bot_move["seat"], 1, "only the bot replies");
            assert_eq!(bot_move["ply"], ply + offset as u64);
        }
        view = accepted["match"].clone();
        submitted += 1;
    }
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["ending"], "outcome");
    assert!(view["legal_moves"].as_array().unwrap().is_empty());
    assert!(submitted > 10);
    assert_eq!(view["seats"][1]["bot"]["seed"], 11, "shown once over");
    // The history has every move, each with seat and time; seats take turns.
    let history = get(&format!("/v1/matches/{id}/moves")).json();
    let moves = history["moves"].as_array().unwrap();
    assert_eq!(moves.len() as u64, view["ply"].as_u64().unwrap());
    for (ply, record) in moves.iter().enumerate() {
        assert_eq!(record["ply"], ply);
        assert!(record["played_at"].as_str().unwrap().ends_with('Z'));
    }
    // Export, then replay through the stateless endpoint: same outcome.
    let export = get(&format!("/v1/matches/{id}/export"));
    assert_eq!(export.status, 200);
    let replay = post("/v1/replay", None, export.json());
    assert_eq!(replay.status, 200, "{}", replay.body);
    let replay = replay.json();
    assert_eq!(replay["final"]["outcome"], view["position"]["outcome"]);
    assert_eq!(
        replay["final"]["position_string"],
        view["position"]["position_string"]
    );
    // Closed: no more moves.
    let closed = post(
        &format!("/v1/matches/{id}/moves"),
        Some(created.token(0)),
        json!({"ply": view["ply"], "move": "pass"}),
    );
    assert_problem(&closed, 409, "match_closed");
    // The list filters by status.
    let finished = get("/v1/matches?status=finished&limit=200").json();
    assert!(
        finished["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == id)
    );
    let in_progress = get("/v1/matches?status=in_progress&limit=200").json();
    assert!(
        in_progress["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["id"] != id && m["status"] == "in_progress")
    );
}

#[test]
fn every_refusal_changes_nothing() {
    let created = two_open_seats();
    let other = two_open_seats();
    let id = created.id;
    let path = format!("/v1/matches/{id}/moves");
    let before = state(id);
    let first = before["legal_moves"][0]["text"].clone();
    let good = json!({"ply": 0, "move": first});
    assert_problem(&post(&path, None, good.clone()), 401, "missing_token");
    assert_problem(
        &post(&path, Some("not-a-token"), good.clone()),
        401,
        "malformed_token",
    );
    assert_problem(
        &post(&path, Some(other.token(0)), good.clone()),
        403,
        "wrong_token",
    );
    assert_problem(
        &post(&path, Some(&created.admin), good.clone()),
        403,
        "wrong_token",
    );
    assert_problem(
        &post(&path, Some(created.token(1)), good.clone()),
        409,
        "not_your_turn",
    );
    assert_problem(
        &post(
            &path,
            Some(created.token(0)),
            json!({"ply": 1, "move": first}),
        ),
        409,
        "stale_ply",
    );
    assert_problem(
        &post(
            &path,
            Some(created.token(0)),
            json!({"ply": 0, "move": "0-1"}),
        ),
        422,
        "not_your_peg",
    );
    assert_problem(
        &post(
            &path,
            Some(created.token(0)),
            json!({"ply": 0, "move": "x"}),
        ),
        422,
        "malformed_move",
    );
    assert_problem(
        &post(&path, Some(created.token(0)), json!({"ply": 0})),
        422,
        "missing_field",
    );
    assert_problem(
        &post(
            "/v1/matches/999999/moves",
            Some(created.token(0)),
            good.clone(),
        ),
        404,
        "not_found",
    );
    assert_problem(&get("/v1/matches/999999"), 404, "not_found");
    assert_problem(&get("/v1/matches/-1"), 404, "not_found");
    assert_problem(&get("/v1/matches/999999/moves"), 404, "not_found");
    assert_problem(&get("/v1/matches/999999/export"), 404, "not_found");
    assert_problem(
        &post_empty(&format!("/v1/matches/{id}/abandon"), Some(created.token(0))),
        403,
        "wrong_token",
    );
    assert_problem(
        &post_empty(&format!("/v1/matches/{id}/resign"), Some(&created.admin)),
        403,
        "wrong_token",
    );
    assert_problem(
        &post_empty(&format!("/v1/matches/{id}/resign"), None),
        401,
        "missing_token",
    );
    let after = state(id);
    assert_eq!(
        after["version"], before["version"],
        "refusals change nothing"
    );
    assert_eq!(after["ply"], 0);
    assert!(
        get(&format!("/v1/matches/{id}/moves")).json()["moves"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // The right request still works afterwards.
    let ok = post(&path, Some(created.token(0)), good);
    assert_eq!(ok.status, 200, "{}", ok.body);
}

#[test]
fn creation_is_checked() {
    let seats = |n: usize| (0..n).map(|_| json!({})).collect::<Vec<_>>();
    for (body, code) in [
        (
            json!({"board": "rhombus5p3", "seats": seats(3)}),
            "seat_count",
        ),
        (
            json!({"board": "rhombus5p3", "seats": [{"bot": {"kind": "random"}}, {"bot": {"kind": "random"}}]}),
            "no_open_seat",
        ),
        (
            json!({"board": "rhombus5p3", "seats": [{}, {"bot": {"kind": "deep_thought"}}]}),
            "unknown_bot",
        ),
        (
            json!({"board": "rhombus5p3", "seats": [{}, {"bot": {"kind": "alphabeta", "millis": 50}}]}),
            "budget_not_allowed",
        ),
        (
            json!({"board": "rhombus5p3", "seats": [{}, {"bot": {"kind": "mcts", "nodes": 1_000_000}}]}),
            "budget_too_large",
        ),
        (
            json!({"board": "rhombus5p3", "seats": [{"name": ""}, {}]}),
            "invalid_seat_name",
        ),
        (
            json!({"board": "rhombus5p3", "seats": [{"name": "a\u{7}b"}, {}]}),
            "invalid_seat_name",
        ),
        (
            json!({"board": "hexagon", "seats": seats(2)}),
            "invalid_board",
        ),
    ] {
        assert_problem(&post("/v1/matches", None, body.clone()), 422, code);
    }
    // A bot that moves first has moved when the answer comes; default names.
    let created = create(json!({
        "board": "rhombus5p3",
        "seats": [{"bot": {"kind": "random"}}, {}]
    }));
    assert_eq!(created.state["ply"], 1);
    assert_eq!(created.state["to_move"], 1);
    assert_eq!(created.state["seats"][1]["name"], "seat 1");
    assert!(created.state["seats"][0]["bot"].get("seed").is_none());
    let abandoned = post_empty(
        &format!("/v1/matches/{}/abandon", created.id),
        Some(&created.admin),
    );
    assert_eq!(abandoned.status, 200, "{}", abandoned.body);
    assert!(
        abandoned.json()["seats"][0]["bot"]["seed"].is_u64(),
        "a seed is chosen, stored, and shown once the match is over"
    );
}

#[test]
fn long_poll_wakes_when_the_other_side_moves() {
    let base = own_server("long-poll-move");
    let created = two_open_seats();
    let id = created.id;
    let first = created.state["legal_moves"][0]["text"].clone();
    // The waiter sends the ETag it holds: a change since then answers 200,
    // the timeout 304. The move is sent once the server counts the waiter
    // as waiting, so the wake path is the one tested, and "woken by the
    // move" is told by the status, never by a clock.
    let tag = get(&format!("/v1/matches/{id}")).etag.unwrap();
    let waiter = {
        let base = base.clone();
        std::thread::spawn(move || {
            on(&base);
            poll(id, 0, &tag, 30000)
        })
    };
    until_waiting(&base, 1);
    let moved = post(
        &format!("/v1/matches/{id}/moves"),
        Some(created.token(0)),
        json!({"ply": 0, "move": first}),
    );
    assert_eq!(moved.status, 200, "{}", moved.body);
    let woken = waiter.join().unwrap();
    assert_eq!(woken.status, 200, "woken by the move, not the timeout");
    assert_eq!(woken.json()["ply"], 1, "woken with the new state");
    // Already past the ply: answered with the state.
    assert_eq!(
        get(&format!("/v1/matches/{id}?wait_ply=0")).json()["ply"],
        1
    );
    // Nothing happens: the timeout answers the unchanged state, or 304
    // to a client that sent the state's ETag.
    let timed_out = get(&format!("/v1/matches/{id}?wait_ply=1&timeout_ms=300"));
    assert_eq!(timed_out.status, 200);
    assert_eq!(timed_out.json()["ply"], 1);
    let tag = timed_out.etag.unwrap();
    let unchanged = poll(id, 1, &tag, 300);
    assert_eq!(unchanged.status, 304);
    assert_eq!(unchanged.etag.as_deref(), Some(tag.as_str()));
    assert_problem(
        &get(&format!("/v1/matches/{id}?wait_ply=1&timeout_ms=30001")),
        400,
        "malformed_query",
    );
    // A resignation wakes waiters too.
    let tag = get(&format!("/v1/matches/{id}")).etag.unwrap();
    let resigner = created.token(1).to_owned();
    let waiter = {
        let base = base.clone();
        std::thread::spawn(move || {
            on(&base);
            poll(id, 5, &tag, 30000)
        })
    };
    until_waiting(&base, 1);
    assert_eq!(
        post_empty(&format!("/v1/matches/{id}/resign"), Some(&resigner)).status,
        200
    );
    let woken = waiter.join().unwrap();
    assert_eq!(woken.status, 200, "woken by the resignation");
    assert_eq!(woken.json()["status"], "finished");
}

/// A long-poll of match `id` past `ply`, from the version `tag` (its ETag):
/// 200 as soon as the match differs from it, 304 at the timeout.
fn poll(id: i64, ply: u64, tag: &str, timeout_ms: u32) -> Reply {
    finish(
        agent()
            .get(format!(
                "{}/v1/matches/{id}?wait_ply={ply}&timeout_ms={timeout_ms}",
                server()
            ))
            .header("If-None-Match", tag)
            .call()
            .unwrap(),
    )
}

#[test]
fn etags_answer_304_until_the_state_changes() {
    let created = two_open_seats();
    let id = created.id;
    let first = get(&format!("/v1/matches/{id}"));
    let tag = first.etag.clone().expect("an ETag");
    let again = finish(
        agent()
            .get(format!("{}/v1/matches/{id}", server()))
            .header("If-None-Match", &tag)
            .call()
            .unwrap(),
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.etag.as_deref(), Some(tag.as_str()));
    let mv = first.json()["legal_moves"][0]["text"].clone();
    assert_eq!(
        post(
            &format!("/v1/matches/{id}/moves"),
            Some(created.token(0)),
            json!({"ply": 0, "move": mv})
        )
        .status,
        200
    );
    let changed = finish(
        agent()
            .get(format!("{}/v1/matches/{id}", server()))
            .header("If-None-Match", &tag)
            .call()
            .unwrap(),
    );
    assert_eq!(changed.status, 200);
    assert_ne!(changed.etag.unwrap(), tag);
}

#[test]
fn with_four_seats_a_resigner_leaves_and_the_others_play_on() {
    let base = own_server("four-seats-resign");
    // Four open seats on the small star; seat 1 resigns at ply 1.
    let created = create(json!({
        "board": "star2", "layout": "4", "max_plies": 40,
        "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]
    }));
    let id = created.id;
    let moves = created.state["legal_moves"].as_array().unwrap().clone();
    let first = post(
        &format!("/v1/matches/{id}/moves"),
        Some(created.token(0)),
        json!({"ply": 0, "move": moves[0]["text"]}),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    // Seat 2 waits for a move after ply 1; the resignation passes the turn
    // to it without a move, and wakes it (200, not the timeout's 304).
    let tag = get(&format!("/v1/matches/{id}")).etag.unwrap();
    let waiter = {
        let base = base.clone();
        std::thread::spawn(move || {
            on(&base);
            poll(id, 1, &tag, 30000)
        })
    };
    until_waiting(&base, 1);
    let resigned = post_empty(&format!("/v1/matches/{id}/resign"), Some(created.token(1)));
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let woken = waiter.join().unwrap();
    assert_eq!(woken.status, 200, "woken by the resignation");
    assert_eq!(woken.json()["to_move"], 2, "woken with the new state");
    let view = resigned.json();
    assert_eq!(view["status"], "in_progress", "the others play on");
    assert_eq!(view["ply"], 1, "a resignation is not a move");
    assert_eq!(view["to_move"], 2, "seat 1's turn passes on");
    assert!(
        view["position"]["position_string"]
            .as_str()
            .unwrap()
            .ends_with(" 1@1")
    );
    assert_eq!(
        view["position"]["position"]["resigned"],
        json!([{"player": 1, "ply": 1}])
    );
    // Twice is refused, and the resigned seat never moves again.
    assert_problem(
        &post_empty(&format!("/v1/matches/{id}/resign"), Some(created.token(1))),
        409,
        "already_resigned",
    );
    let mut view = view;
    while view["status"] == "in_progress" {
        let seat = view["to_move"].as_u64().unwrap() as usize;
        assert_ne!(seat, 1);
        let moves = view["legal_moves"].as_array().unwrap();
        let reply = post(
            &format!("/v1/matches/{id}/moves"),
            Some(created.token(seat)),
            json!({"ply": view["ply"], "move": moves[0]["text"]}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        view = reply.json()["match"].clone();
    }
    // The history replays around the resignation, and the export replays
    // to the same final position.
    let history = get(&format!("/v1/matches/{id}/moves"));
    assert_eq!(history.status, 200, "{}", history.body);
    assert_eq!(
        history.json()["moves"].as_array().unwrap().len() as u64,
        view["ply"].as_u64().unwrap()
    );
    let export = get(&format!("/v1/matches/{id}/export")).json();
    assert_eq!(export["resigned"], json!([{"player": 1, "ply": 1}]));
    let replay = post("/v1/replay", None, export);
    assert_eq!(replay.status, 200, "{}", replay.body);
    assert_eq!(
        replay.json()["final"]["position_string"],
        view["position"]["position_string"]
    );
    // However it ended, seat 1 ranks last, alone.
    let result = &view["result"];
    assert_eq!(result["ending"], "outcome", "{result}");
    let results = result["results"].as_array().unwrap();
    assert_eq!(results[1], -1.0, "{result}");
    if view["ply"] == 40 {
        // Ended by the move limit: said so, and the tie-break has seat 1 last.
        assert_eq!(result["reason"], "move_limit", "{result}");
        assert_eq!(
            result["by_progress"].as_array().unwrap().last().unwrap(),
            &json!([1])
        );
    }
    assert!(
        results
            .iter()
            .enumerate()
            .all(|(seat, r)| seat == 1 || r.as_f64().unwrap() > -1.0)
    );
}

#[test]
fn resign_and_abandon_record_the_outcome() {
    let created = two_open_seats();
    let id = created.id;
    let resigned = post_empty(&format!("/v1/matches/{id}/resign"), Some(created.token(1)));
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let resigned = resigned.json();
    assert_eq!(resigned["status"], "finished");
    assert_eq!(resigned["result"]["ending"], "resignation");
    assert_eq!(resigned["result"]["resigned_seat"], 1);
    assert_eq!(resigned["result"]["winners"], json!([0]));
    assert_eq!(resigned["result"]["results"], json!([1.0, -1.0]));
    assert_problem(
        &post_empty(&format!("/v1/matches/{id}/abandon"), Some(&created.admin)),
        409,
        "match_closed",
    );
    assert_problem(
        &post_empty(&format!("/v1/matches/{id}/resign"), Some(created.token(0))),
        409,
        "match_closed",
    );

    let created = two_open_seats();
    let id = created.id;
    let abandoned = post_empty(&format!("/v1/matches/{id}/abandon"), Some(&created.admin));
    assert_eq!(abandoned.status, 200, "{}", abandoned.body);
    let abandoned = abandoned.json();
    assert_eq!(abandoned["status"], "abandoned");
    assert_eq!(abandoned["result"]["ending"], "abandoned");
    assert_eq!(abandoned["result"]["results"], json!([0.0, 0.0]));
    let listed = get("/v1/matches?status=abandoned&limit=200").json();
    assert!(
        listed["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == id)
    );
    assert_problem(&get("/v1/matches?status=lost"), 400, "malformed_query");
    assert_problem(&get("/v1/matches?limit=0"), 400, "malformed_query");
}

#[test]
fn of_many_clients_racing_for_one_ply_exactly_one_wins() {
    let created = two_open_seats();
    let id = created.id;
    let token = created.token(0).to_owned();
    let moves: Vec<Value> = created.state["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].clone())
        .collect();
    let racers = 16;
    let barrier = Arc::new(Barrier::new(racers));
    let handles: Vec<_> = (0..racers)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            let token = token.clone();
            let mv = moves[i % moves.len()].clone();
            std::thread::spawn(move || {
                let agent = agent();
                barrier.wait();
                finish(
                    agent
                        .post(format!("{}/v1/matches/{id}/moves", server()))
                        .header("Authorization", &format!("Bearer {token}"))
                        .send_json(json!({"ply": 0, "move": mv}))
                        .unwrap(),
                )
            })
        })
        .collect();
    let replies: Vec<Reply> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let accepted = replies.iter().filter(|r| r.status == 200).count();
    assert_eq!(accepted, 1, "exactly one wins");
    for reply in replies.iter().filter(|r| r.status != 200) {
        assert_problem(reply, 409, "stale_ply");
    }
    let history = get(&format!("/v1/matches/{id}/moves")).json();
    assert_eq!(history["moves"].as_array().unwrap().len(), 1);
    assert_eq!(state(id)["ply"], 1);
}

#[test]
fn a_searching_bot_seat_beats_a_random_client_and_replays_the_same() {
    // The alpha-beta seat answers within each request; the client plays
    // random legal moves from a fixed sequence.
    let body = json!({
        "board": "rhombus5p3",
        "rules": "research,max_plies=80",
        "seats": [{"name": "client"}, {"name": "searcher", "bot": {"kind": "alphabeta", "seed": 5, "nodes": 3000}}]
    });
    let play_out = |created: &Created| -> Vec<String> {
        let mut current = created.state.clone();
        let mut choice = 0usize;
        while current["status"] == "in_progress" {
            let moves = current["legal_moves"].as_array().unwrap();
            choice = (choice * 7 + 3) % moves.len();
            let reply = post(
                &format!("/v1/matches/{}/moves", created.id),
                Some(created.token(0)),
                json!({"ply": current["ply"], "move": moves[choice]["text"]}),
            );
            assert_eq!(reply.status, 200, "{}", reply.body);
            current = reply.json()["match"].clone();
        }
        assert_eq!(current["result"]["winners"], json!([1]), "{current}");
        let history = get(&format!("/v1/matches/{}/moves", created.id)).json();
        history["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"]["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = play_out(&create(body.clone()));
    let second = play_out(&create(body));
    assert_eq!(
        first, second,
        "the same seed and node budget replay the same game"
    );
}
