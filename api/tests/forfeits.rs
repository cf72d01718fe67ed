//! Forfeits over a real socket on a real database file: a tournament
//! entrant that never moves forfeits its games, and each of them is stored
//! and shown as a forfeit (not a resignation): the match's result, a
//! long-poll on it, its list entry, its board picture's legend, the
//! tournament's games, events and standings. Also the legend of a match
//! resigned or abandoned.

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{Reply, agent, finish};
use serde_json::{Value, json};

fn server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| common::start_server("forfeits", 2))
}

fn get(path: &str) -> Reply {
    finish(agent().get(format!("{}{path}", server())).call().unwrap())
}

fn post(path: &str, token: Option<&str>, body: Value) -> Value {
    let mut request = agent().post(format!("{}{path}", server()));
    if let Some(token) = token {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    let reply = finish(request.send_json(body).unwrap());
    assert!(
        reply.status < 300,
        "{path}: {} {}",
        reply.status,
        reply.body
    );
    reply.json()
}

/// A tournament played to its end: its id, every event of its stream, and
/// the state of its first game's match as the last long-poll on it
/// answered (the match over).
struct Played {
    id: i64,
    events: Vec<Value>,
    long_polled: Value,
}

/// Reads tournament `id`'s event stream until the server ends it, saying
/// so on `opened` once the first event is in (subscribed from then on).
fn follow(id: i64, opened: std::sync::mpsc::Sender<()>) -> Vec<Value> {
    use std::io::{BufRead, BufReader};
    let response = agent()
        .get(format!("{}/v1/tournaments/{id}/events", server()))
        .call()
        .unwrap();
    let mut reader = BufReader::new(response.into_body().into_reader());
    let mut events = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap() == 0 {
            return events;
        }
        if let Some(data) = line.strip_prefix("data: ") {
            events.push(serde_json::from_str(data).unwrap());
            let _ = opened.send(());
        }
    }
}

/// Starts tournament `body` and follows it to its end (its games are
/// short: the entrant that never moves forfeits each of them): its event
/// stream, and its first game's match by long-polls until it is over.
fn play_tournament(body: Value) -> Played {
    let created = post("/v1/tournaments", None, body);
    let id = created["tournament"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap();
    let (opened, subscribed) = std::sync::mpsc::channel();
    let follower = std::thread::spawn(move || follow(id, opened));
    subscribed.recv().unwrap();
    post(
        &format!("/v1/tournaments/{id}/start"),
        Some(admin),
        json!({}),
    );
    // Bounds on the waits only, never an assertion on time.
    let give_up = Instant::now() + Duration::from_secs(120);
    let match_id = loop {
        let games = get(&format!("/v1/tournaments/{id}/games")).json();
        if let Some(match_id) = games["games"][0]["match_id"].as_i64() {
            break match_id;
        }
        assert!(Instant::now() < give_up, "no game started: {games}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut long_polled = get(&format!("/v1/matches/{match_id}")).json();
    while long_polled["status"] == "in_progress" {
        assert!(Instant::now() < give_up, "still {long_polled}");
        let ply = &long_polled["ply"];
        long_polled = get(&format!(
            "/v1/matches/{match_id}?wait_ply={ply}&timeout_ms=30000"
        ))
        .json();
    }
    Played {
        id,
        events: follower.join().unwrap(),
        long_polled,
    }
}

/// The text of a picture's legend.
fn legend(svg: &str) -> &str {
    let start = svg.find("class=\"legend\"").expect("a legend");
    let text = &svg[start..];
    let open = text.find('>').unwrap() + 1;
    let close = text.find("</text>").unwrap();
    &text[open..close]
}

// One game each, the sleeper first to move in one and second in the other
// (a second game of the same sleeper would be forfeited at once, its
// entrant being absent by then).
#[test]
fn a_two_player_forfeit_is_stored_and_shown_as_a_forfeit() {
    let sleeper = json!({"name": "sleeper"});
    let greedy = json!({"name": "greedy", "bot": {"kind": "greedy", "seed": 1}});
    let mut games = Vec::new();
    for entrants in [[&sleeper, &greedy], [&greedy, &sleeper]] {
        let Played {
            id,
            events,
            long_polled,
        } = play_tournament(json!({
            "board": "rhombus5p3",
            "move_ms": 100,
            "max_timeouts": 2,
            "games_per_pairing": 1,
            "entrants": entrants,
        }));
        // A long-poll on the match wakes to the forfeit, and the event
        // stream's end of the game names it.
        assert_eq!(long_polled["result"]["ending"], "forfeit", "{long_polled}");
        let over: Vec<&Value> = events.iter().filter(|e| e["type"] == "game_over").collect();
        assert_eq!(over.len(), 1);
        assert_eq!(over[0]["result"]["ending"], "forfeit", "{}", over[0]);
        let forfeited: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "timeout" && e["forfeited"] == true)
            .collect();
        assert_eq!(forfeited.len(), 1);
        assert_eq!(forfeited[0]["timeouts"], 2);
        let schedule = get(&format!("/v1/tournaments/{id}/games")).json();
        assert_eq!(schedule["games"].as_array().unwrap().len(), 1);
        games.push(schedule["games"][0].clone());
        let standings = get(&format!("/v1/tournaments/{id}/standings")).json();
        let row = standings["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "sleeper")
            .unwrap()
            .clone();
        assert_eq!(
            (row["forfeits"].as_u64(), row["points"].as_f64()),
            (Some(1), Some(0.0)),
            "{standings}"
        );
    }
    let mut sleeper_seats = Vec::new();
    for game in &games {
        let sleeper = game["seats"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| s["name"] == "sleeper")
            .unwrap();
        let winner = 1 - sleeper;
        sleeper_seats.push(sleeper);
        assert_eq!(game["result"]["ending"], "forfeit", "{game}");
        assert!(
            game["result"]["summary"]
                .as_str()
                .unwrap()
                .ends_with("(sleeper forfeited)"),
            "{game}"
        );

        let match_id = game["match_id"].as_i64().unwrap();
        let state = get(&format!("/v1/matches/{match_id}")).json();
        assert_eq!(state["status"], "finished");
        let result = &state["result"];
        assert_eq!(result["ending"], "forfeit", "{state}");
        assert_eq!(result["forfeited_seat"], sleeper);
        assert!(result.get("resigned_seat").is_none(), "{result}");
        assert_eq!(
            result["forfeits"],
            json!([{"seat": sleeper, "ply": state["ply"], "reason": "timeouts", "timeouts": 2}])
        );
        assert_eq!(result["winners"], json!([winner]));
        assert_eq!(
            result["summary"],
            format!("seat {sleeper} (sleeper) forfeited (2 timeouts)")
        );
        assert_eq!(result["places"][0]["name"], "greedy");
        // The sleeper timed out on its first two turns; the second ended it.
        assert_eq!(state["ply"], 2 + sleeper as u64);

        // The list shows the same ending.
        let list = get("/v1/matches?status=finished&limit=200").json();
        let listed = list["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == match_id)
            .unwrap()
            .clone();
        assert_eq!(listed["ending"], "forfeit");
        assert_eq!(listed["result"]["forfeits"], result["forfeits"]);

        // The picture says how the match ended, not whose turn it was.
        let svg = get(&format!("/v1/matches/{match_id}/board.svg")).body;
        assert_eq!(
            legend(&svg),
            format!("finished: seat {winner} won; seat {sleeper} forfeited (2 timeouts)")
        );
        // An earlier ply is still the position as it was then.
        let earlier = get(&format!("/v1/matches/{match_id}/board.svg?ply=1")).body;
        assert_eq!(legend(&earlier), "player 1 to move, ply 1");
    }
    sleeper_seats.sort_unstable();
    assert_eq!(sleeper_seats, [0, 1]);
}

// With three players the forfeiter leaves the game as a resignation does,
// the others play on, and the result names the forfeit when it ends.
#[test]
fn a_forfeit_in_a_three_player_game_is_in_its_result() {
    let Played { id, .. } = play_tournament(json!({
        "board": "star2",
        "layout": "3",
        "rules": "classic,finish=ranking",
        "max_plies": 30,
        "move_ms": 100,
        "max_timeouts": 1,
        "games_per_pairing": 1,
        "entrants": [
            {"name": "sleeper"},
            {"name": "g1", "bot": {"kind": "greedy", "seed": 1}},
            {"name": "g2", "bot": {"kind": "greedy", "seed": 2}},
        ],
    }));
    let games = get(&format!("/v1/tournaments/{id}/games")).json();
    let game = &games["games"][0];
    assert_eq!(game["seats"][0]["name"], "sleeper");
    let match_id = game["match_id"].as_i64().unwrap();
    let state = get(&format!("/v1/matches/{match_id}")).json();
    let result = &state["result"];
    assert_eq!(result["ending"], "outcome", "the others played it out");
    assert!(result.get("forfeited_seat").is_none(), "{result}");
    assert_eq!(
        result["forfeits"],
        json!([{"seat": 0, "ply": 0, "reason": "timeouts", "timeouts": 1}])
    );
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .ends_with("; seat 0 (sleeper) forfeited (1 timeout)"),
        "{result}"
    );
    let svg = get(&format!("/v1/matches/{match_id}/board.svg")).body;
    assert!(
        legend(&svg).starts_with("finished: ")
            && legend(&svg).ends_with("; seat 0 forfeited (1 timeout)"),
        "{}",
        legend(&svg)
    );
}

#[test]
fn the_picture_of_a_resigned_or_abandoned_match_says_so() {
    let created = post(
        "/v1/matches",
        None,
        json!({"board": "rhombus5p3", "seats": [{"name": "Ada"}, {"name": "Grace"}]}),
    );
    let id = created["match"]["id"].as_i64().unwrap();
    let grace = created["seat_tokens"][1]["token"].as_str().unwrap();
    let svg = get(&format!("/v1/matches/{id}/board.svg")).body;
    assert_eq!(legend(&svg), "player 0 to move, ply 0");
    let state = post(&format!("/v1/matches/{id}/resign"), Some(grace), json!({}));
    assert_eq!(state["result"]["ending"], "resignation");
    assert!(state["result"].get("forfeits").is_none(), "{state}");
    let svg = get(&format!("/v1/matches/{id}/board.svg")).body;
    assert_eq!(legend(&svg), "finished: seat 0 won; seat 1 resigned");

    let created = post(
        "/v1/matches",
        None,
        json!({"board": "rhombus5p3", "seats": [{"name": "Ada"}, {"name": "Grace"}]}),
    );
    let id = created["match"]["id"].as_i64().unwrap();
    let admin = created["admin_token"].as_str().unwrap();
    post(&format!("/v1/matches/{id}/abandon"), Some(admin), json!({}));
    let svg = get(&format!("/v1/matches/{id}/board.svg")).body;
    assert_eq!(legend(&svg), "abandoned by its creator");
}
