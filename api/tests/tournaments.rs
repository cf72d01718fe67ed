//! Tournaments over a real socket on a real database file: round robins of
//! built-in bots with four and six players played to the end (standings,
//! seats, events checked against the games themselves), a gauntlet, an
//! entrant that never moves (timeouts, forfeits), the admin actions and
//! every refusal, and that a refusal changes nothing.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::sync::OnceLock;

use common::{Reply, agent, finish};
use serde_json::{Value, json};

fn server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| common::start_server("tournaments", 4))
}

fn get(path: &str, token: Option<&str>) -> Reply {
    let mut request = agent().get(format!("{}{path}", server()));
    if let Some(token) = token {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    finish(request.call().unwrap())
}

fn post(path: &str, token: Option<&str>, body: Value) -> Reply {
    let mut request = agent().post(format!("{}{path}", server()));
    if let Some(token) = token {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    finish(request.send_json(body).unwrap())
}

fn create(body: Value) -> Value {
    let reply = post("/v1/tournaments", None, body);
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.json()
}

fn code(reply: &Reply) -> String {
    reply.json()["code"].as_str().unwrap_or_default().to_owned()
}

/// Reads tournament `id`'s event stream until the server ends it (after
/// the tournament ends), calling `opened` once the first event is in (the
/// stream is subscribed from then on). Answers every event as JSON.
fn follow(id: i64, opened: impl FnOnce()) -> Vec<Value> {
    let response = agent()
        .get(format!("{}/v1/tournaments/{id}/events", server()))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut reader = BufReader::new(response.into_body().into_reader());
    let mut events = Vec::new();
    let mut opened = Some(opened);
    let mut name = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            return events;
        }
        if let Some(rest) = line.strip_prefix("event: ") {
            name = rest.trim().to_owned();
        } else if let Some(data) = line.strip_prefix("data: ") {
            let event: Value = serde_json::from_str(data).unwrap();
            assert_eq!(event["type"], name.as_str(), "the SSE name is the type");
            events.push(event);
            if let Some(opened) = opened.take() {
                opened();
            }
        }
    }
}

/// Points per opponent with the defaults, recomputed from a game's places.
fn points_from_places(places: &[Value]) -> BTreeMap<u64, f64> {
    let mut points = BTreeMap::new();
    for a in places {
        for b in places {
            if a["seat"] == b["seat"] {
                continue;
            }
            let (pa, pb) = (a["place"].as_u64().unwrap(), b["place"].as_u64().unwrap());
            let gained = match pa.cmp(&pb) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
            *points.entry(a["entrant"].as_u64().unwrap()).or_insert(0.0) += gained;
        }
    }
    points
}

/// A round robin of built-in bots with `players` per game, played to the
/// end, checked against its own games.
fn round_robin_of_bots(players: usize) {
    let kinds = ["greedy", "random", "greedy", "random", "greedy", "random"];
    let entrants: Vec<Value> = (0..players)
        .map(|i| json!({"name": format!("bot{i}"), "bot": {"kind": kinds[i], "seed": i}}))
        .collect();
    let created = create(json!({
        "name": format!("{players} players"),
        "board": "star2",
        "layout": players.to_string(),
        "max_plies": 60,
        "entrants": entrants,
        "concurrency": 3,
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap().to_owned();
    assert_eq!(created["tournament"]["status"], "waiting");
    assert_eq!(created["tournament"]["players"], players);
    assert!(created["entrant_tokens"].as_array().unwrap().is_empty());
    // Nothing starts before the admin token says so.
    assert_eq!(created["tournament"]["games"]["in_progress"], 0);
    let events = follow(id, || {
        let started = post(
            &format!("/v1/tournaments/{id}/start"),
            Some(&admin),
            json!({}),
        );
        assert_eq!(started.status, 200, "{}", started.body);
    });
    let state = get(&format!("/v1/tournaments/{id}"), None).json();
    assert_eq!(state["status"], "finished");
    // One group of `players` entrants, `players` games (the default): each
    // entrant sat in every seat once.
    let games = get(&format!("/v1/tournaments/{id}/games"), None).json();
    let games = games["games"].as_array().unwrap();
    assert_eq!(games.len(), players);
    let mut seats = BTreeSet::new();
    let mut plies = 0;
    let mut expected_points: BTreeMap<u64, f64> = BTreeMap::new();
    for game in games {
        assert_eq!(game["status"], "finished", "{game}");
        for seat in game["seats"].as_array().unwrap() {
            assert!(seats.insert((seat["entrant"].as_u64(), seat["seat"].as_u64())));
        }
        let places = game["result"]["places"].as_array().unwrap();
        assert_eq!(places.len(), players);
        for (entrant, points) in points_from_places(places) {
            *expected_points.entry(entrant).or_insert(0.0) += points;
        }
        let match_id = game["match_id"].as_i64().unwrap();
        let state = get(&format!("/v1/matches/{match_id}"), None).json();
        assert_eq!(state["status"], "finished");
        // The match's seats are named after the entrants.
        for seat in game["seats"].as_array().unwrap() {
            let s = seat["seat"].as_u64().unwrap() as usize;
            assert_eq!(state["seats"][s]["name"], seat["name"]);
        }
        // The game's outcome, recorded when it ended, is the match's.
        assert_eq!(game["result"]["ending"], state["result"]["ending"]);
        for place in places {
            let s = place["seat"].as_u64().unwrap() as usize;
            assert_eq!(place["result"], state["result"]["results"][s], "{game}");
        }
        plies += state["ply"].as_u64().unwrap();
    }
    assert_eq!(
        seats.len(),
        players * players,
        "every entrant in every seat"
    );
    // Standings: the pairwise points add up, per entrant and in total.
    let standings = get(&format!("/v1/tournaments/{id}/standings"), None).json();
    let rows = standings["rows"].as_array().unwrap();
    assert_eq!(rows.len(), players);
    let pairs = players * (players - 1) / 2;
    let total: f64 = rows.iter().map(|r| r["points"].as_f64().unwrap()).sum();
    assert_eq!(
        total,
        (players * pairs) as f64,
        "each pair of seats hands out 1 point"
    );
    for row in rows {
        assert_eq!(row["games"], players);
        let entrant = row["entrant"].as_u64().unwrap();
        assert_eq!(row["points"].as_f64().unwrap(), expected_points[&entrant]);
        assert!(row["uncertainty"].as_f64().unwrap() < 25.0 / 3.0);
        assert_eq!(row["timeouts"], 0);
        // No table covers this board: no move judged.
        assert_eq!(
            (&row["judged_moves"], &row["accuracy"]),
            (&json!(0), &Value::Null)
        );
    }
    let ranks: Vec<f64> = rows.iter().map(|r| r["points"].as_f64().unwrap()).collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "ranked by points");
    // The events tell the same story: every game started and ended, every
    // move, the standings, and the end.
    let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(events[0]["type"], "tournament");
    assert_eq!(count("game_started"), players);
    assert_eq!(count("game_over"), players);
    assert_eq!(count("move") as u64, plies);
    assert!(count("standings") >= 1);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "tournament");
    assert_eq!(last["tournament"]["status"], "finished");
    // CSV: a header and a row per entrant.
    let csv = get(&format!("/v1/tournaments/{id}/standings.csv"), None);
    assert!(csv.content_type.starts_with("text/csv"));
    assert_eq!(csv.body.lines().count(), players + 1);
    // The match list carries results naming the seats.
    let listed = get("/v1/matches?status=finished&limit=200", None).json();
    let first_match = games[0]["match_id"].as_i64().unwrap();
    let entry = listed["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == first_match)
        .unwrap()
        .clone();
    assert_eq!(entry["result"]["places"].as_array().unwrap().len(), players);
}

#[test]
fn a_four_player_round_robin_of_bots_is_played_to_the_end() {
    round_robin_of_bots(4);
}

#[test]
fn a_six_player_round_robin_of_bots_is_played_to_the_end() {
    round_robin_of_bots(6);
}

#[test]
fn a_gauntlet_puts_every_entrant_against_the_reference() {
    let created = create(json!({
        "board": "rhombus5p3",
        "format": "gauntlet",
        "reference": {"kind": "greedy", "seed": 3},
        "start": true,
        "entrants": [
            {"name": "r1", "bot": {"kind": "random", "seed": 1}},
            {"name": "r2", "bot": {"kind": "random", "seed": 2}},
        ],
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    assert_eq!(created["tournament"]["entrants"][0]["reference"], true);
    follow(id, || {});
    let games = get(&format!("/v1/tournaments/{id}/games"), None).json();
    let games = games["games"].as_array().unwrap();
    assert_eq!(games.len(), 4, "two entrants, two games each");
    for game in games {
        let entrants: Vec<u64> = game["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["entrant"].as_u64().unwrap())
            .collect();
        assert!(entrants.contains(&0), "the reference in every game");
        assert_eq!(game["status"], "finished");
    }
}

#[test]
fn an_entrant_that_never_moves_times_out_and_forfeits() {
    let created = create(json!({
        "board": "rhombus5p3",
        "move_ms": 100,
        "max_timeouts": 2,
        "entrants": [{"name": "sleeper"}, {"name": "greedy", "bot": {"kind": "greedy", "seed": 1}}],
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap().to_owned();
    let token = created["entrant_tokens"][0]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let events = follow(id, || {
        assert_eq!(
            post(
                &format!("/v1/tournaments/{id}/start"),
                Some(&admin),
                json!({})
            )
            .status,
            200
        );
    });
    // Its first game is forfeited at its second timeout; by then it has
    // missed two turns in a row, so it is absent and its second game is
    // forfeited at its first turn (an_entrant_that_stops_is_absent_...).
    let games = get(&format!("/v1/tournaments/{id}/games"), None).json();
    let mut timeouts_per_game = Vec::new();
    for game in games["games"].as_array().unwrap() {
        let sleeper = game["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "sleeper")
            .unwrap()
            .clone();
        timeouts_per_game.push(sleeper["timeouts"].as_u64().unwrap());
        assert_eq!(sleeper["forfeited"], true);
        assert_eq!(game["result"]["places"][0]["name"], "greedy");
        assert!(
            game["result"]["summary"]
                .as_str()
                .unwrap()
                .contains("forfeited")
        );
    }
    assert_eq!(timeouts_per_game, [2, 1]);
    let timeouts: Vec<&Value> = events.iter().filter(|e| e["type"] == "timeout").collect();
    assert_eq!(
        timeouts.len(),
        3,
        "two in the first game, one in the second"
    );
    assert_eq!(
        timeouts.iter().filter(|e| e["forfeited"] == true).count(),
        2
    );
    let standings = get(&format!("/v1/tournaments/{id}/standings"), None).json();
    let sleeper = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "sleeper")
        .unwrap()
        .clone();
    assert_eq!(sleeper["timeouts"], 3);
    assert_eq!(sleeper["forfeits"], 2);
    assert_eq!(sleeper["points"], 0.0);
    assert_eq!(sleeper["rank"], 2);
    let turns = get(&format!("/v1/tournaments/{id}/turns"), Some(&token)).json();
    assert_eq!(turns["done"], true);
    assert!(turns["turns"].as_array().unwrap().is_empty());
}

#[test]
fn entrants_play_only_their_own_games_and_the_admin_token_runs_the_tournament() {
    let created = create(json!({
        "board": "rhombus5p3",
        "move_ms": 600000,
        "entrants": [{"name": "ada"}, {"name": "bea"}, {"name": "greedy", "bot": {"kind": "greedy"}}],
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap().to_owned();
    let ada = created["entrant_tokens"][0]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bea = created["entrant_tokens"][1]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = |action: &str| format!("/v1/tournaments/{id}/{action}");
    // Admin actions: token checks and states.
    assert_eq!(
        code(&post(&path("start"), None, json!({}))),
        "missing_token"
    );
    assert_eq!(
        code(&post(&path("start"), Some(&ada), json!({}))),
        "wrong_token"
    );
    assert_eq!(
        code(&post(&path("pause"), Some(&admin), json!({}))),
        "not_running"
    );
    // Waiting: no turn yet, not done.
    let waiting = get(&format!("{}?timeout_ms=0", path("turns")), Some(&ada)).json();
    assert_eq!(
        (waiting["status"].as_str(), waiting["done"].as_bool()),
        (Some("waiting"), Some(false))
    );
    assert_eq!(post(&path("start"), Some(&admin), json!({})).status, 200);
    assert_eq!(
        code(&post(&path("start"), Some(&admin), json!({}))),
        "already_running"
    );
    // Another tournament's entrant token, the admin token: not entrants.
    assert_eq!(code(&get(&path("turns"), Some(&admin))), "wrong_token");
    assert_eq!(
        get(&format!("/v1/tournaments/{}/turns", id + 1000), Some(&ada)).status,
        404
    );
    // Game 0 is ada (seat 0) against bea: ada's turn at once.
    let turns = get(&path("turns"), Some(&ada)).json();
    let turn = turns["turns"][0].clone();
    assert_eq!(
        (turn["game"].as_u64(), turn["seat"].as_u64()),
        (Some(0), Some(0))
    );
    let deadline = turn["deadline_ms"].as_u64().unwrap();
    assert!(deadline <= 600_000 && deadline > 0, "{deadline}");
    let match_id = turn["match_id"].as_i64().unwrap();
    let text = turn["legal_moves"][0]["text"].as_str().unwrap().to_owned();
    let moves = format!("/v1/matches/{match_id}/moves");
    let version = get(&format!("/v1/matches/{match_id}"), None).json()["version"].clone();
    // bea may not move on ada's turn; a token of no seat of this match is
    // refused; neither changes anything.
    assert_eq!(
        code(&post(&moves, Some(&bea), json!({"ply": 0, "move": text}))),
        "not_your_turn"
    );
    let other = create(json!({"board": "rhombus5p3", "entrants": [{"name": "x"}, {"name": "y"}]}));
    let stranger = other["entrant_tokens"][0]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        code(&post(
            &moves,
            Some(&stranger),
            json!({"ply": 0, "move": text})
        )),
        "wrong_token"
    );
    assert_eq!(
        get(&format!("/v1/matches/{match_id}"), None).json()["version"],
        version
    );
    // bea has no turn yet (its only game under way waits for ada).
    let none = get(&format!("{}?timeout_ms=0", path("turns")), Some(&bea)).json();
    assert!(none["turns"].as_array().unwrap().is_empty());
    assert_eq!(none["done"], false);
    // ada moves with its entrant token: now it is bea's turn.
    assert_eq!(
        post(&moves, Some(&ada), json!({"ply": 0, "move": text})).status,
        200
    );
    let bea_turns = get(&path("turns"), Some(&bea)).json();
    assert_eq!(bea_turns["turns"][0]["match_id"], match_id);
    assert_eq!(bea_turns["turns"][0]["ply"], 1);
    // Pause, then abandon: the game under way is abandoned.
    assert_eq!(
        post(&path("pause"), Some(&admin), json!({})).json()["status"],
        "paused"
    );
    let abandoned = post(&path("abandon"), Some(&admin), json!({}));
    assert_eq!(abandoned.json()["status"], "abandoned");
    assert_eq!(
        get(&format!("/v1/matches/{match_id}"), None).json()["status"],
        "abandoned"
    );
    assert_eq!(
        code(&post(&path("start"), Some(&admin), json!({}))),
        "tournament_closed"
    );
    let done = get(&path("turns"), Some(&ada)).json();
    assert_eq!(done["done"], true);
    let games = get(&path("games"), None).json();
    assert_eq!(games["games"][0]["status"], "abandoned");
    assert_eq!(games["games"][1]["status"], "pending");
    // The standings count no abandoned game.
    assert_eq!(get(&path("standings"), None).json()["games_counted"], 0);
}

#[test]
fn bad_tournaments_are_refused_with_their_reason() {
    let two = [json!({"name": "a"}), json!({"name": "b"})];
    for (body, expected) in [
        (json!({"entrants": [{"name": "a"}]}), "too_few_entrants"),
        (
            json!({"entrants": [{"name": "a"}, {"name": "a"}]}),
            "duplicate_entrant_name",
        ),
        (json!({"entrants": two, "move_ms": 5}), "invalid_setting"),
        (
            json!({"entrants": two, "concurrency": 0}),
            "invalid_setting",
        ),
        (
            json!({"entrants": two, "layout": "3", "format": "gauntlet"}),
            "gauntlet_players",
        ),
        (
            json!({"entrants": two, "reference": {"kind": "greedy"}}),
            "reference_not_allowed",
        ),
        (json!({"entrants": two, "layout": "1"}), "players_per_game"),
        (
            json!({"entrants": two, "games_per_pairing": 1000, "layout": "2", "name": ""}),
            "invalid_name",
        ),
        (
            json!({"entrants": [{"name": "a", "bot": {"kind": "nope"}}, {"name": "b"}]}),
            "unknown_bot",
        ),
        (
            json!({"entrants": [{"name": ""}, {"name": "b"}]}),
            "invalid_entrant_name",
        ),
    ] {
        let reply = post("/v1/tournaments", None, body.clone());
        assert_eq!(reply.status, 422, "{body} -> {}", reply.body);
        assert_eq!(code(&reply), expected, "{body}");
    }
    let many: Vec<Value> = (0..40).map(|i| json!({"name": format!("e{i}")})).collect();
    let reply = post(
        "/v1/tournaments",
        None,
        json!({"entrants": many, "layout": "6", "board": "star2"}),
    );
    assert_eq!(code(&reply), "too_many_games");
    assert_eq!(get("/v1/tournaments/99999", None).status, 404);
    assert_eq!(
        code(&get("/v1/tournaments?limit=0", None)),
        "malformed_query"
    );
    let listed = get("/v1/tournaments?limit=1", None).json();
    assert!(listed["tournaments"].as_array().unwrap().len() <= 1);
}

#[test]
fn a_server_with_an_admin_key_requires_it_to_create_a_tournament() {
    let mut config = sternhalma_api::ServerConfig::unlimited(sternhalma_api::CorsPolicy::Any);
    config.admin_key =
        Some(sternhalma_api::admin::AdminKey::new("class-key-7f3a9c2e4b1d8f6a").unwrap());
    let url = common::start_server_configured("tournaments-key", 2, config);
    let body = json!({"entrants": [{"name": "a"}, {"name": "b"}]});
    let send = |token: Option<&str>| {
        let mut request = agent().post(format!("{url}/v1/tournaments"));
        if let Some(token) = token {
            request = request.header("Authorization", &format!("Bearer {token}"));
        }
        finish(request.send_json(body.clone()).unwrap())
    };
    assert_eq!(code(&send(None)), "missing_token");
    assert_eq!(code(&send(Some("other"))), "wrong_admin_key");
    assert_eq!(send(Some("class-key-7f3a9c2e4b1d8f6a")).status, 201);
}

// With three or more players a forfeit is a resignation: the entrant
// leaves the game and the others play it to its end. Under the `ranking`
// finish it ranks last (docs/rules.md, "Resigning"; under `first` a
// finisher wins and the others share the loss).
#[test]
fn a_forfeit_in_a_three_player_game_leaves_the_others_playing() {
    let created = create(json!({
        "board": "star2",
        "layout": "3",
        "rules": "classic,finish=ranking",
        "max_plies": 60,
        "move_ms": 100,
        "max_timeouts": 1,
        "games_per_pairing": 1,
        "entrants": [
            {"name": "sleeper"},
            {"name": "g1", "bot": {"kind": "greedy", "seed": 1}},
            {"name": "g2", "bot": {"kind": "greedy", "seed": 2}},
        ],
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap().to_owned();
    let events = follow(id, || {
        assert_eq!(
            post(
                &format!("/v1/tournaments/{id}/start"),
                Some(&admin),
                json!({})
            )
            .status,
            200
        );
    });
    let games = get(&format!("/v1/tournaments/{id}/games"), None).json();
    let game = games["games"][0].clone();
    assert_eq!(game["status"], "finished");
    assert_eq!(game["seats"][0]["name"], "sleeper");
    assert_eq!(game["seats"][0]["timeouts"], 1);
    assert_eq!(game["seats"][0]["forfeited"], true);
    let places = game["result"]["places"].as_array().unwrap();
    assert_eq!(places.last().unwrap()["name"], "sleeper");
    assert_eq!(places.last().unwrap()["place"], 3);
    // The others played on after the forfeit: the game went past ply 0.
    let match_id = game["match_id"].as_i64().unwrap();
    let state = get(&format!("/v1/matches/{match_id}"), None).json();
    assert!(state["ply"].as_u64().unwrap() > 0);
    assert_eq!(
        state["position"]["position"]["resigned"][0]["player"], 0,
        "the sleeper's seat is recorded as resigned: {state}"
    );
    let timeouts: Vec<&Value> = events.iter().filter(|e| e["type"] == "timeout").collect();
    assert_eq!(timeouts.len(), 1);
    assert_eq!(timeouts[0]["forfeited"], true);
    let standings = get(&format!("/v1/tournaments/{id}/standings"), None).json();
    let sleeper = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "sleeper")
        .unwrap()
        .clone();
    assert_eq!(
        (sleeper["points"].as_f64(), sleeper["forfeits"].as_u64()),
        (Some(0.0), Some(1))
    );
}

#[test]
fn the_servers_admin_key_pauses_and_abandons_any_tournament_and_match() {
    let mut config = sternhalma_api::ServerConfig::unlimited(sternhalma_api::CorsPolicy::Any);
    config.admin_key =
        Some(sternhalma_api::admin::AdminKey::new("class-key-7f3a9c2e4b1d8f6a").unwrap());
    let url = common::start_server_configured("tournaments-operator", 2, config);
    let send = |path: &str, token: &str, body: Value| {
        finish(
            agent()
                .post(format!("{url}{path}"))
                .header("Authorization", &format!("Bearer {token}"))
                .send_json(body)
                .unwrap(),
        )
    };
    // A student's tournament of bots that would play on for a long time.
    let created = send(
        "/v1/tournaments",
        "class-key-7f3a9c2e4b1d8f6a",
        json!({
            "board": "star2", "layout": "2", "start": true, "move_ms": 600000,
            "entrants": [
                {"name": "a", "bot": {"kind": "random", "seed": 1}},
                {"name": "b", "bot": {"kind": "random", "seed": 2}},
                {"name": "c"},
            ],
        }),
    )
    .json();
    let id = created["tournament"]["id"].as_i64().unwrap();
    // Another token than the tournament's own: refused.
    let stranger = "ab".repeat(32);
    let refused = send(&format!("/v1/tournaments/{id}/pause"), &stranger, json!({}));
    assert_eq!(
        (refused.status, code(&refused).as_str()),
        (403, "wrong_token")
    );
    // The operator pauses it, then stops it, without its admin token.
    let paused = send(
        &format!("/v1/tournaments/{id}/pause"),
        "class-key-7f3a9c2e4b1d8f6a",
        json!({}),
    );
    assert_eq!(paused.status, 200, "{}", paused.body);
    assert_eq!(paused.json()["status"], "paused");
    let abandoned = send(
        &format!("/v1/tournaments/{id}/abandon"),
        "class-key-7f3a9c2e4b1d8f6a",
        json!({}),
    );
    assert_eq!(abandoned.status, 200, "{}", abandoned.body);
    assert_eq!(abandoned.json()["status"], "abandoned");
    // A match someone else created: the operator abandons it too.
    let made = send(
        "/v1/matches",
        "class-key-7f3a9c2e4b1d8f6a",
        json!({"board": "star2", "layout": "2", "seats": [{"name": "x"}, {"name": "y"}]}),
    )
    .json();
    let match_id = made["match"]["id"].as_i64().unwrap();
    let refused = send(
        &format!("/v1/matches/{match_id}/abandon"),
        &stranger,
        json!({}),
    );
    assert_eq!(refused.status, 403);
    let over = send(
        &format!("/v1/matches/{match_id}/abandon"),
        "class-key-7f3a9c2e4b1d8f6a",
        json!({}),
    );
    assert_eq!(over.status, 200, "{}", over.body);
    assert_eq!(over.json()["status"], "abandoned");
}

/// Polls tournament `id` until it is over; answers its view.
fn until_over(id: i64) -> Value {
    common::wait_until(&format!("tournament {id} to be over"), || {
        let state = get(&format!("/v1/tournaments/{id}"), None).json();
        (state["status"] == "finished" || state["status"] == "abandoned").then_some(state)
    })
}

// One tournament cannot hold up another. Beside a round robin of 30 random
// bots playing 64 games at once (435 games, watched on its event stream),
// a gauntlet of two bots and a game whose open entrant never moves (its
// deadlines must fire on time for it to forfeit) are both played to the
// end while the big one has played less than half of its games. The big
// tournament's games, bot searches, writes, game overs and standings are
// served in turn with the neighbours', not ahead of them. (Before, one
// director served every tournament's changes in arrival order, each game
// over with a write and the standings read again: a neighbour's game
// started only once the big tournament was nearly over.) Counted in games:
// a busier machine slows the big tournament and the gauntlet alike. The one
// thing that takes real time is the sleeper's three 200 ms deadlines; in
// 0.6 s the big tournament played about 10 games here, far from the 218
// that fail the test.
#[test]
fn a_big_tournament_does_not_hold_up_its_neighbours() {
    let entrants: Vec<Value> = (0..30)
        .map(|i| json!({"name": format!("r{i}"), "bot": {"kind": "random", "seed": i}}))
        .collect();
    let big = create(json!({
        "name": "big",
        "board": "star1",
        "entrants": entrants,
        "games_per_pairing": 1,
        "concurrency": 64,
    }));
    let big_id = big["tournament"]["id"].as_i64().unwrap();
    let big_admin = big["admin_token"].as_str().unwrap().to_owned();
    let total = big["tournament"]["games"]["total"].as_u64().unwrap();
    assert_eq!(total, 435, "{big}");
    let (opened, watching) = std::sync::mpsc::channel();
    let watcher = std::thread::spawn(move || {
        follow(big_id, move || opened.send(()).unwrap())
            .iter()
            .filter(|e| e["type"] == "standings")
            .count()
    });
    watching.recv().unwrap();
    let started = post(
        &format!("/v1/tournaments/{big_id}/start"),
        Some(&big_admin),
        json!({}),
    );
    assert_eq!(started.status, 200, "{}", started.body);
    // Under way, its first games ending (and the next ones starting).
    common::wait_until("the big tournament's first game over", || {
        (get(&format!("/v1/tournaments/{big_id}"), None).json()["games"]["finished"] != 0)
            .then_some(())
    });
    let gauntlet = create(json!({
        "name": "gauntlet",
        "board": "star1",
        "format": "gauntlet",
        "reference": {"kind": "greedy", "seed": 1},
        "entrants": [{"name": "g", "bot": {"kind": "greedy", "seed": 2}}],
        "games_per_pairing": 1,
        "start": true,
    }));
    let sleeper = create(json!({
        "name": "sleeper",
        "board": "star1",
        "move_ms": 200,
        "max_timeouts": 3,
        "games_per_pairing": 1,
        "entrants": [{"name": "sleeper"}, {"name": "greedy", "bot": {"kind": "greedy", "seed": 1}}],
        "start": true,
    }));
    for neighbour in [&gauntlet, &sleeper] {
        let id = neighbour["tournament"]["id"].as_i64().unwrap();
        let state = until_over(id);
        assert_eq!(state["status"], "finished", "{state}");
        let big_now = get(&format!("/v1/tournaments/{big_id}"), None).json();
        let done = big_now["games"]["finished"].as_u64().unwrap();
        assert!(
            done < total / 2,
            "the neighbour {} finished only after {done} of the big tournament's {total} games",
            state["name"]
        );
    }
    let games = get(
        &format!("/v1/tournaments/{}/games", sleeper["tournament"]["id"]),
        None,
    )
    .json();
    for game in games["games"].as_array().unwrap() {
        let seat = game["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "sleeper")
            .unwrap()
            .clone();
        assert_eq!(seat["timeouts"], 3, "its deadlines fired: {game}");
        assert_eq!(seat["forfeited"], true);
    }
    let abandoned = post(
        &format!("/v1/tournaments/{big_id}/abandon"),
        Some(&big_admin),
        json!({}),
    );
    assert_eq!(abandoned.status, 200, "{}", abandoned.body);
    let standings_sent = watcher.join().unwrap();
    assert!(standings_sent >= 1, "the watcher was sent the standings");
}

/// The games of tournament `id` in schedule order with the seat of entrant
/// `name` in each: (game, its seat, the match's state).
fn games_of(id: i64, name: &str) -> Vec<(Value, Value, Value)> {
    let games = get(&format!("/v1/tournaments/{id}/games"), None).json();
    games["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|game| {
            let seat = game["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)?
                .clone();
            let state = match game["match_id"].as_i64() {
                Some(match_id) => get(&format!("/v1/matches/{match_id}"), None).json(),
                None => Value::Null,
            };
            Some((game.clone(), seat, state))
        })
        .collect()
}

fn entrant_view(id: i64, name: &str) -> Value {
    let state = get(&format!("/v1/tournaments/{id}"), None).json();
    state["entrants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap()
        .clone()
}

// A crashed bot costs its own games, not everyone's time. An entrant that
// never moves misses its `max_timeouts` turns in a row in its first game
// (forfeited for its timeouts) and is then absent: its next games are
// forfeited at its first turn, with no time given (reason `absent`), so
// the tournament goes on at the pace of the others. Once it asks for its
// turns again it is present, and shown connected.
#[test]
fn an_entrant_that_stops_is_absent_until_it_asks_for_its_turns_again() {
    let created = create(json!({
        "board": "rhombus5p3",
        "move_ms": 100,
        "max_timeouts": 2,
        "games_per_pairing": 2,
        "concurrency": 1,
        "entrants": [{"name": "crashed"}, {"name": "greedy", "bot": {"kind": "greedy", "seed": 1}}],
        "start": true,
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let token = created["entrant_tokens"][0]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let fresh = entrant_view(id, "crashed");
    assert_eq!(fresh["presence"]["connected"], false, "{fresh}");
    assert!(fresh["presence"]["seen_ms_ago"].is_null(), "{fresh}");
    assert!(entrant_view(id, "greedy").get("presence").is_none());
    let events = follow(id, || {});
    let games = games_of(id, "crashed");
    assert_eq!(games.len(), 2);
    let reasons: Vec<Value> = games
        .iter()
        .map(|(_, _, state)| state["result"]["forfeits"][0]["reason"].clone())
        .collect();
    assert_eq!(reasons, ["timeouts", "absent"], "{games:?}");
    assert_eq!(games[0].1["timeouts"], 2);
    assert_eq!(games[1].1["timeouts"], 1, "forfeited at its first turn");
    assert_eq!(games[1].1["forfeited"], true);
    let absent = entrant_view(id, "crashed");
    assert!(absent["presence"]["absent_since"].is_string(), "{absent}");
    let told: Vec<&Value> = events.iter().filter(|e| e["type"] == "presence").collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["entrant"], 0);
    assert!(told[0]["presence"]["absent_since"].is_string());
    // It asks for its turns: present again, and connected.
    let turns = get(
        &format!("/v1/tournaments/{id}/turns?timeout_ms=0"),
        Some(&token),
    );
    assert_eq!(turns.status, 200, "{}", turns.body);
    let back = entrant_view(id, "crashed");
    assert!(back["presence"].get("absent_since").is_none(), "{back}");
    assert_eq!(back["presence"]["connected"], true, "{back}");
    assert!(back["presence"]["seen_ms_ago"].is_u64(), "{back}");
}

// The organiser withdraws an entrant: its game under way is forfeited at
// once (reason `withdrawn`), its games not started are left unplayed (shown
// abandoned, counted for no one), the others' games are played, and the
// tournament finishes. Only the admin token (or the server's admin key)
// may; twice is a conflict; an unknown entrant is not found.
#[test]
fn a_withdrawn_entrant_forfeits_its_game_and_its_others_are_not_played() {
    let created = create(json!({
        "board": "rhombus5p3",
        "move_ms": 600_000,
        "games_per_pairing": 1,
        "concurrency": 1,
        "entrants": [
            {"name": "gone"},
            {"name": "g1", "bot": {"kind": "greedy", "seed": 1}},
            {"name": "g2", "bot": {"kind": "greedy", "seed": 2}},
        ],
        "start": true,
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap().to_owned();
    let token = created["entrant_tokens"][0]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    // Wait until the entrant has a turn: a game of its under way.
    common::wait_until("a turn of the entrant", || {
        let turns = get(&format!("/v1/tournaments/{id}/turns"), Some(&token)).json();
        (!turns["turns"].as_array().unwrap().is_empty()).then_some(())
    });
    let path = format!("/v1/tournaments/{id}/entrants/0/withdraw");
    let refused = post(&path, Some(&token), json!({}));
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(code(&refused), "wrong_token");
    let unknown = post(
        &format!("/v1/tournaments/{id}/entrants/7/withdraw"),
        Some(&admin),
        json!({}),
    );
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    let withdrawn = post(&path, Some(&admin), json!({}));
    assert_eq!(withdrawn.status, 200, "{}", withdrawn.body);
    assert!(withdrawn.json()["entrants"][0]["withdrawn_at"].is_string());
    let again = post(&path, Some(&admin), json!({}));
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(code(&again), "already_withdrawn");
    let state = until_over(id);
    assert_eq!(state["status"], "finished", "{state}");
    let games = games_of(id, "gone");
    assert_eq!(games.len(), 2);
    let played: Vec<_> = games
        .iter()
        .filter(|(g, _, _)| g["match_id"].is_i64())
        .collect();
    assert_eq!(played.len(), 1, "one game under way when it was withdrawn");
    let (game, seat, match_state) = played[0];
    assert_eq!(game["status"], "finished");
    assert_eq!(seat["forfeited"], true, "{game}");
    assert_eq!(match_state["result"]["forfeits"][0]["reason"], "withdrawn");
    let unplayed: Vec<_> = games
        .iter()
        .filter(|(g, _, _)| g["match_id"].is_null())
        .collect();
    assert_eq!(unplayed.len(), 1);
    assert_eq!(unplayed[0].0["status"], "abandoned");
    assert_eq!(state["games"]["finished"], 2, "{state}");
    assert_eq!(state["games"]["abandoned"], 1, "{state}");
    // Its turns are over; the standings count its forfeit, not the game it
    // never played.
    let turns = get(&format!("/v1/tournaments/{id}/turns"), Some(&token)).json();
    assert_eq!(turns["done"], true);
    let standings = get(&format!("/v1/tournaments/{id}/standings"), None).json();
    let gone = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "gone")
        .unwrap()
        .clone();
    assert_eq!(gone["games"], 1, "{gone}");
    assert_eq!(gone["forfeits"], 1, "{gone}");
}

// Withdrawing an entrant that has already left a game of three (forfeited
// there for its timeouts) leaves that game to the others, and withdraws it
// from the rest: not a conflict that can never succeed.
#[test]
fn an_entrant_that_left_a_three_player_game_can_still_be_withdrawn() {
    let created = create(json!({
        "board": "star2",
        "layout": "3",
        "max_plies": 60,
        "move_ms": 100,
        "max_timeouts": 1,
        "games_per_pairing": 3,
        "concurrency": 1,
        "entrants": [
            {"name": "gone"},
            {"name": "g1", "bot": {"kind": "greedy", "seed": 1}},
            {"name": "g2", "bot": {"kind": "greedy", "seed": 2}},
        ],
        "start": true,
    }));
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap().to_owned();
    // Its first game: forfeited at its first timeout, the bots play on.
    common::wait_until("the first game forfeited", || {
        let games = games_of(id, "gone");
        games
            .iter()
            .any(|(_, seat, _)| seat["forfeited"] == true)
            .then_some(())
    });
    let withdrawn = post(
        &format!("/v1/tournaments/{id}/entrants/0/withdraw"),
        Some(&admin),
        json!({}),
    );
    assert_eq!(withdrawn.status, 200, "{}", withdrawn.body);
    let state = until_over(id);
    assert_eq!(state["status"], "finished", "{state}");
    assert!(state["entrants"][0]["withdrawn_at"].is_string(), "{state}");
}
