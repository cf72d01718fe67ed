//! The solved game over a real socket: the tables installed, probes
//! checked against the positions their moves lead to, analyses of a
//! record and of a stored match, the `perfect` bot refused where no table
//! covers the game (stateless, a match's seat, a tournament's entrant) and
//! winning where one does; and `sternhalma serve --tablebases DIR
//! --build-tablebases` as an operator runs it.
//!
//! The in-process server's tables are this test program's own, given to it
//! when it starts: 7×7 with 2 pegs, no other (7×7 with 1 peg is the board
//! no table covers). Another server of the program, given none, sees none
//! of them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use common::{Reply, agent, finish};
use serde_json::{Value, json};
use sternhalma::search::Rng;
use sternhalma::solve::{Game, Tablebase, Tablebases};
use sternhalma::{Layout, Position, Rules};

const START: &str = "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -";
const UNCOVERED: &str = "rhombus7p1 sturtevant south:48/north:0 0 0 -";

/// One server shared by the tests: its base URL and its tables, which
/// hold the table of 7×7 with 2 pegs.
fn shared() -> &'static (String, Arc<Tablebases>) {
    static SERVER: OnceLock<(String, Arc<Tablebases>)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let game = Game::new(7, 2).unwrap();
        let tables = Arc::new(Tablebases::default());
        tables.install(Arc::new(Tablebase::build(&game, 2, &|_| {}).unwrap()));
        let url = common::start_server_with_tables("tablebases", 2, Arc::clone(&tables));
        (url, tables)
    })
}

/// The shared server's base URL.
fn server() -> &'static str {
    &shared().0
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

/// A problem-details reply with this status and code; its detail.
fn assert_problem(reply: &Reply, status: u16, code: &str) -> String {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.content_type, "application/problem+json");
    let problem = reply.json();
    assert_eq!(problem["code"], code, "{problem}");
    problem["detail"].as_str().unwrap().to_owned()
}

fn probe(position: &str) -> Value {
    let reply = post("/v1/tablebase/probe", None, json!({"position": position}));
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

/// Positions of 7×7 with 2 pegs reached by seeded random play, in
/// progress.
fn sample(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let start: Position = START.parse().unwrap();
    let mut out = Vec::new();
    while out.len() < count {
        let mut position = start.clone();
        for _ in 0..rng.below(30) {
            if position.is_game_over() {
                break;
            }
            let moves = position.legal_moves();
            position = position.play(moves[rng.below(moves.len())]).unwrap();
        }
        if !position.is_game_over() {
            out.push(position);
        }
    }
    out
}

#[test]
fn the_installed_tables_are_listed_with_table_1s_counts() {
    let list = get("/v1/tablebases");
    assert_eq!(list.status, 200, "{}", list.body);
    let tables = list.json()["tablebases"].as_array().unwrap().clone();
    let table = tables
        .iter()
        .find(|t| t["board"] == "rhombus7p2")
        .unwrap_or_else(|| panic!("{tables:?}"));
    assert_eq!(
        (table["side"].as_u64(), table["pegs"].as_u64()),
        (Some(7), Some(2))
    );
    assert_eq!(table["rules"], "sturtevant");
    // Table 1 of Sturtevant (2019): positions, first-player wins, draws,
    // illegal.
    let counts: Vec<u64> = ["positions", "wins", "draws", "illegal"]
        .iter()
        .map(|k| table[k].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [2_542_512, 1_265_851, 0, 10_810]);
    assert_eq!(table["depths"], true);
    // A byte a position, one side to move.
    assert_eq!(table["bytes"], 2_542_512 / 2);
    assert_eq!(table["start_position"], START);
    let start = probe(START);
    assert_eq!(
        table["start"],
        json!({"value": start["value"], "depth": start["depth"], "text": start["text"]})
    );
}

/// The list costs a lookup, not a scan: four clients asking it 250 times
/// each (a burst like the one that once held every worker for seconds) get
/// the same answer every time, and no installed table is read whole for
/// its counts again after it was installed (`Tablebases::install` counts
/// it, once). Nothing installs tables in the server's set after its
/// start, so the answer cannot change meanwhile.
#[test]
fn the_list_is_a_lookup_that_never_scans_a_table_again() {
    let first = get("/v1/tablebases");
    assert_eq!(first.status, 200, "{}", first.body);
    assert!(first.body.contains("rhombus7p2"), "{}", first.body);
    let url = format!("{}/v1/tablebases", server());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                let client = agent();
                for _ in 0..250 {
                    let reply = finish(client.get(&url).call().unwrap());
                    assert_eq!(reply.status, 200, "{}", reply.body);
                    assert_eq!(reply.body, first.body);
                }
            });
        }
    });
    let tables = shared().1.list();
    assert!(!tables.is_empty());
    for table in tables {
        assert_eq!(table.count_scans(), 1, "{table:?}");
    }
}

#[test]
fn a_won_position_is_probed_and_every_move_agrees_with_the_position_it_leads_to() {
    let start = probe(START);
    assert_eq!(start["board"], "rhombus7p2");
    assert_eq!(start["value"], "win");
    assert_eq!(start["side_to_move"], 0);
    let depth = start["depth"].as_u64().unwrap();
    assert_eq!(start["text"], format!("win in {depth}"));
    assert_eq!(depth % 2, 1, "the side to move makes the last move");
    // The best move keeps the win in the position's depth, and comes first.
    let moves = start["moves"].as_array().unwrap();
    assert_eq!(moves[0]["move"], start["best_move"]);
    assert_eq!(moves[0]["value"], "win");
    assert_eq!(moves[0]["depth"], depth);
    assert_eq!(moves[0]["best"], true);
    // The same move views as /v1/legal-moves, as a set.
    let legal = post("/v1/legal-moves", None, json!({"position": START})).json();
    let mut listed: Vec<String> = moves.iter().map(|m| m["move"].to_string()).collect();
    let mut generated: Vec<String> = legal["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    listed.sort();
    generated.sort();
    assert_eq!(listed, generated);

    let mut won = 0;
    for position in sample(12, 7) {
        let text = position.to_string();
        let answer = probe(&text);
        let moves = answer["moves"].as_array().unwrap();
        assert_eq!(moves.len(), position.legal_moves().len(), "{text}");
        if answer["value"] == "win" {
            won += 1;
            assert_eq!(moves[0]["value"], "win", "{text}");
            assert_eq!(moves[0]["depth"], answer["depth"], "{text}");
        }
        // Best first: wins by fewest plies, then draws, then losses by most.
        let rank = |m: &Value| -> (u8, i64) {
            let depth = m["depth"].as_i64().unwrap_or(0);
            match m["value"].as_str().unwrap() {
                "win" => (3, -depth),
                "draw" => (2, 0),
                _ => (1, depth),
            }
        };
        for pair in moves.windows(2) {
            assert!(rank(&pair[0]) >= rank(&pair[1]), "{text}: {pair:?}");
        }
        for m in moves {
            assert_eq!(m["best"], rank(m) == rank(&moves[0]), "{text}: {m}");
            // The mover's value after the move is the other side's value of
            // the position it leads to, turned over, one ply longer.
            let applied = post(
                "/v1/apply",
                None,
                json!({"position": text, "move": m["move"]["text"]}),
            );
            assert_eq!(applied.status, 200, "{}", applied.body);
            let next = applied.json()["position"]["position_string"]
                .as_str()
                .unwrap()
                .to_owned();
            let after = probe(&next);
            let turned = match after["value"].as_str().unwrap() {
                "win" => "loss",
                "loss" => "win",
                other => other,
            };
            assert_eq!(m["value"], turned, "{text} then {}", m["move"]["text"]);
            assert_eq!(
                m["depth"].as_u64(),
                after["depth"].as_u64().map(|d| d + 1),
                "{text} then {}",
                m["move"]["text"]
            );
            assert_eq!(
                m["text"],
                match m["depth"].as_u64() {
                    Some(d) => format!("{} in {d}", m["value"].as_str().unwrap()),
                    None => m["value"].as_str().unwrap().to_owned(),
                }
            );
        }
    }
    assert!(won > 0, "the sample holds won positions");
}

#[test]
fn a_game_over_is_a_loss_in_0_with_no_move() {
    // Play the best moves to the end.
    let mut position = START.to_owned();
    loop {
        let answer = probe(&position);
        if answer["moves"].as_array().unwrap().is_empty() {
            assert_eq!(answer["text"], "loss in 0");
            assert_eq!(answer["best_move"], Value::Null);
            break;
        }
        let applied = post(
            "/v1/apply",
            None,
            json!({"position": position, "move": answer["best_move"]["text"]}),
        );
        position = applied.json()["position"]["position_string"]
            .as_str()
            .unwrap()
            .to_owned();
    }
}

#[test]
fn probes_that_no_table_answers_are_refused_with_their_reason() {
    // No table of the board: the detail names those installed and how to
    // get one.
    let detail = assert_problem(
        &post("/v1/tablebase/probe", None, json!({"position": UNCOVERED})),
        422,
        "no_tablebase",
    );
    assert!(detail.contains("rhombus7p2"), "{detail}");
    assert!(detail.contains("--tablebases DIR"), "{detail}");
    assert!(detail.contains("--build-tablebases"), "{detail}");
    // The board's table, other rules.
    let classic = START.replace("sturtevant", "classic");
    let detail = assert_problem(
        &post("/v1/tablebase/probe", None, json!({"position": classic})),
        422,
        "tablebase_other_game",
    );
    assert!(detail.contains("rules"), "{detail}");
    // A move limit is not another game.
    let limited = Position::start(
        "rhombus7p2".parse().unwrap(),
        Layout::standard(2).unwrap(),
        "sturtevant,max_plies=300".parse::<Rules>().unwrap(),
    )
    .unwrap();
    assert_eq!(probe(&limited.to_string())["value"], "win");
    // Malformed bodies and invalid positions, as every route answers them.
    assert_problem(
        &post("/v1/tablebase/probe", None, json!({"position": 3})),
        400,
        "malformed_json",
    );
    assert_problem(
        &post(
            "/v1/tablebase/probe",
            None,
            json!({"position": START, "x": 1}),
        ),
        400,
        "malformed_json",
    );
    assert_problem(
        &post("/v1/tablebase/probe", None, json!({})),
        422,
        "missing_field",
    );
    let two_on_one = "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -";
    let reply = post("/v1/tablebase/probe", None, json!({"position": two_on_one}));
    assert_eq!(reply.status, 422, "{}", reply.body);
}

fn mainline(position: &str) -> Value {
    let reply = post(
        "/v1/tablebase/mainline",
        None,
        json!({"position": position}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

#[test]
fn the_mainline_plays_the_best_moves_to_the_end() {
    let mut positions = vec![START.to_owned()];
    positions.extend(sample(12, 50).iter().map(ToString::to_string));
    for start in &positions {
        let line = mainline(start);
        let probed = probe(start);
        assert_eq!(line["board"], "rhombus7p2");
        for key in ["value", "depth", "text", "side_to_move"] {
            assert_eq!(line[key], probed[key], "{start}: {key}");
        }
        let depth = line["depth"].as_u64().unwrap();
        let plies = line["mainline"].as_array().unwrap();
        assert_eq!(plies.len() as u64, depth, "{start}");
        // Each ply is the probe's best move there, the mover's value and
        // depth the position's, one ply nearer the end each time, played
        // by the route every client plays with.
        let mut position = start.clone();
        for (i, ply) in plies.iter().enumerate() {
            let here = probe(&position);
            assert_eq!(ply["move"], here["best_move"], "{start} ply {i}");
            assert_eq!(ply["side_to_move"], here["side_to_move"]);
            assert_eq!(ply["value"], here["value"]);
            assert_eq!(ply["depth"], json!(depth - i as u64));
            assert_eq!(ply["text"], here["text"]);
            let applied = post(
                "/v1/apply",
                None,
                json!({"position": position, "move": ply["move"]["text"]}),
            );
            assert_eq!(applied.status, 200, "{}", applied.body);
            position = applied.json()["position"]["position_string"]
                .as_str()
                .unwrap()
                .to_owned();
        }
        assert_eq!(line["end_position"], position.as_str(), "{start}");
        let end = probe(&position);
        assert_eq!(end["text"], "loss in 0");
        assert_eq!(end["moves"], json!([]));
    }
    // The start is a win in 33: south's moves are wins, north's losses.
    let line = mainline(START);
    assert_eq!(line["text"], "win in 33");
    let first = &line["mainline"][0];
    assert_eq!(
        (&first["text"], &first["value"], &first["side_to_move"]),
        (&json!("win in 33"), &json!("win"), &json!(0))
    );
    let second = &line["mainline"][1];
    assert_eq!(
        (&second["text"], &second["value"], &second["side_to_move"]),
        (&json!("loss in 32"), &json!("loss"), &json!(1))
    );
}

#[test]
fn a_game_over_has_an_empty_mainline_and_a_move_limit_is_set_aside() {
    let end = mainline(START)["end_position"].as_str().unwrap().to_owned();
    let over = mainline(&end);
    assert_eq!(over["text"], "loss in 0");
    assert_eq!(over["mainline"], json!([]));
    assert_eq!(over["end_position"], end.as_str());
    // A position at its move limit is over for play, not for the table:
    // the line is the unlimited game's.
    let limited = "rhombus7p2 sturtevant,max_plies=0 south:47,48/north:0,1 0 0 -";
    assert_eq!(probe(limited)["moves"], json!([]));
    let line = mainline(limited);
    assert_eq!(line["text"], "win in 33");
    assert_eq!(line["mainline"].as_array().unwrap().len(), 33);
}

#[test]
fn mainlines_that_no_table_answers_are_refused_with_their_reason() {
    let ask = |body: Value| post("/v1/tablebase/mainline", None, body);
    let detail = assert_problem(&ask(json!({"position": UNCOVERED})), 422, "no_tablebase");
    assert!(detail.contains("--tablebases DIR"), "{detail}");
    let classic = START.replace("sturtevant", "classic");
    assert_problem(
        &ask(json!({"position": classic})),
        422,
        "tablebase_other_game",
    );
    assert_problem(&ask(json!({"position": 3})), 400, "malformed_json");
    assert_problem(
        &ask(json!({"position": START, "x": 1})),
        400,
        "malformed_json",
    );
    assert_problem(&ask(json!({})), 422, "missing_field");
    let two_on_one = "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -";
    assert_problem(
        &ask(json!({"position": two_on_one})),
        422,
        "invalid_position",
    );

    // A table of values only has no depths to find a line by.
    let game = Game::new(7, 1).unwrap();
    let (values, _) = sternhalma::solve::solve(&game, 1);
    let tables = Arc::new(Tablebases::default());
    tables.install(Arc::new(Tablebase::from_solved(game, values, None)));
    let values_only = common::start_server_with_tables("tablebases_values_only", 1, tables);
    let reply = finish(
        agent()
            .post(format!("{values_only}/v1/tablebase/mainline"))
            .send_json(json!({"position": UNCOVERED}))
            .unwrap(),
    );
    let detail = assert_problem(&reply, 422, "tablebase_without_depths");
    assert!(detail.contains("--depth on"), "{detail}");
    // Its probe still answers, without depths.
    let reply = finish(
        agent()
            .post(format!("{values_only}/v1/tablebase/probe"))
            .send_json(json!({"position": UNCOVERED}))
            .unwrap(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["depth"], Value::Null);
}

#[test]
fn the_probe_is_not_heavy_work_nor_a_write() {
    use sternhalma_http::clients::classify;
    let post = actix_web::http::Method::POST;
    assert_eq!(classify(&post, "/v1/tablebase/probe"), None);
    assert_eq!(classify(&post, "/v1/tablebase/mainline"), None);
    assert!(classify(&post, "/v1/analysis").is_some());
}

/// Creates a match of the perfect bot (seat 0) against an open seat on 7×7
/// with 2 pegs; the open seat plays seeded random moves to the end.
/// Answers the match id and its final state.
fn perfect_against_random(seed: u64) -> (i64, Value) {
    let created = post(
        "/v1/matches",
        None,
        json!({
            "board": "rhombus7p2",
            "rules": "sturtevant",
            "seats": [{"name": "perfect", "bot": {"kind": "perfect", "seed": seed}}, {"name": "random"}]
        }),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let created = created.json();
    let id = created["match"]["id"].as_i64().unwrap();
    let token = created["seat_tokens"][0]["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut view = created["match"].clone();
    let mut rng = Rng::new(seed);
    while view["status"] == "in_progress" {
        assert_eq!(view["to_move"], 1, "the bot never waits");
        let moves = view["legal_moves"].as_array().unwrap();
        let choice = &moves[rng.below(moves.len())];
        let reply = post(
            &format!("/v1/matches/{id}/moves"),
            Some(&token),
            json!({"ply": view["ply"], "move": choice["text"]}),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        view = reply.json()["match"].clone();
    }
    (id, view)
}

#[test]
fn the_perfect_bot_wins_a_match_which_the_analysis_finds_perfect() {
    let (id, view) = perfect_against_random(3);
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["winners"], json!([0]), "{view}");

    let analysed = post("/v1/analysis", None, json!({"match": id}));
    assert_eq!(analysed.status, 200, "{}", analysed.body);
    let analysed = analysed.json();
    assert_eq!(analysed["board"], "rhombus7p2");
    // The match's start, with the program's move limit in its rules.
    let export = get(&format!("/v1/matches/{id}/export"));
    assert_eq!(export.status, 200);
    let export = export.json();
    assert_eq!(analysed["start"], export["start"]);
    assert!(
        export["start"]
            .as_str()
            .unwrap()
            .starts_with("rhombus7p2 sturtevant,max_plies=")
    );
    let plies = analysed["plies"].as_array().unwrap();
    assert_eq!(plies.len() as u64, view["ply"].as_u64().unwrap());
    for (index, ply) in plies.iter().enumerate() {
        assert_eq!(ply["ply"], index);
        assert_eq!(ply["seat"], index % 2);
        assert_eq!(ply["best"]["value"], ply["before"]["value"]);
        assert_eq!(ply["best"]["depth"], ply["before"]["depth"]);
        if index % 2 == 0 {
            // The perfect bot: the best move, a win one ply shorter each time.
            assert_eq!(ply["verdict"], "best", "{ply}");
            assert_eq!(ply["before"]["value"], "win", "{ply}");
            assert_eq!(ply["after"], ply["before"], "{ply}");
        }
    }
    let seats = analysed["seats"].as_array().unwrap();
    assert_eq!(seats[0]["seat"], 0);
    assert_eq!(seats[0]["mistakes"], 0);
    assert_eq!(seats[0]["accuracy"], 1.0);
    assert_eq!(seats[0]["moves"], seats[0]["best"]);
    let moved: u64 = seats.iter().map(|s| s["moves"].as_u64().unwrap()).sum();
    assert_eq!(moved, plies.len() as u64);
    // The winner made the last move: the loser is to move, lost in 0.
    assert_eq!(analysed["end"]["text"], "loss in 0");

    // The match's export, as a record: the same analysis.
    let from_record = post("/v1/analysis", None, export);
    assert_eq!(from_record.status, 200, "{}", from_record.body);
    assert_eq!(from_record.json(), analysed);
}

#[test]
fn a_record_is_analysed_and_its_faults_refused() {
    // 48-45 is the best first move; 0-2 loses faster than 0-3.
    let analysed = post(
        "/v1/analysis",
        None,
        json!({"start": START, "moves": ["48-45", "0-2"]}),
    );
    assert_eq!(analysed.status, 200, "{}", analysed.body);
    let analysed = analysed.json();
    let plies = analysed["plies"].as_array().unwrap();
    assert_eq!(plies[0]["verdict"], "best");
    assert_eq!(plies[0]["move"]["text"], "48-45");
    assert_eq!(plies[1]["seat"], 1);
    assert_eq!(plies[1]["before"]["value"], "loss");
    assert_eq!(plies[1]["verdict"], "slower");
    assert!(
        plies[1]["after"]["depth"].as_u64() < plies[1]["before"]["depth"].as_u64(),
        "{}",
        plies[1]
    );
    assert_eq!(analysed["seats"][1]["kept"], 1);
    assert_eq!(analysed["seats"][1]["best"], 0);
    assert_eq!(analysed["seats"][1]["accuracy"], 1.0);
    // No moves: the start alone, seats without accuracy.
    let empty = post("/v1/analysis", None, json!({"start": START, "moves": []})).json();
    assert_eq!(empty["plies"], json!([]));
    assert_eq!(empty["seats"][0]["accuracy"], Value::Null);
    assert_eq!(
        empty["end"],
        json!({"value": "win", "depth": 33, "text": "win in 33"})
    );

    // A move that cannot be played names its ply.
    let reply = post(
        "/v1/analysis",
        None,
        json!({"start": START, "moves": ["48-45", "0-40"]}),
    );
    let detail = assert_problem(&reply, 422, "illegal_move");
    assert!(detail.starts_with("move 1"), "{detail}");
    assert_eq!(reply.json()["move_index"], 1);
    assert_problem(
        &post(
            "/v1/analysis",
            None,
            json!({"start": START, "moves": ["48-45", "nonsense"]}),
        ),
        422,
        "illegal_move",
    );
    // No table; other rules; no such match; the body's shape.
    assert_problem(
        &post(
            "/v1/analysis",
            None,
            json!({"start": UNCOVERED, "moves": []}),
        ),
        422,
        "no_tablebase",
    );
    assert_problem(
        &post(
            "/v1/analysis",
            None,
            json!({"start": START.replace("sturtevant", "classic"), "moves": []}),
        ),
        422,
        "tablebase_other_game",
    );
    assert_problem(
        &post("/v1/analysis", None, json!({"match": 999_999})),
        404,
        "not_found",
    );
    assert_problem(&post("/v1/analysis", None, json!({})), 422, "missing_field");
    assert_problem(
        &post("/v1/analysis", None, json!({"start": START})),
        422,
        "missing_field",
    );
    assert_problem(
        &post(
            "/v1/analysis",
            None,
            json!({"start": START, "moves": [], "match": 1}),
        ),
        400,
        "malformed_json",
    );
    assert_problem(
        &post("/v1/analysis", None, json!({"match": "one"})),
        400,
        "malformed_json",
    );
    let too_many = vec!["48-45"; 10_001];
    assert_problem(
        &post(
            "/v1/analysis",
            None,
            json!({"start": START, "moves": too_many}),
        ),
        422,
        "too_long",
    );
}

#[test]
fn the_perfect_bot_is_refused_where_no_table_covers_the_game() {
    let perfect = json!({"kind": "perfect", "seed": 1});
    // Stateless.
    let detail = assert_problem(
        &post(
            "/v1/bots/move",
            None,
            json!({"position": UNCOVERED, "bot": perfect}),
        ),
        422,
        "no_tablebase",
    );
    assert!(detail.contains("perfect bot"), "{detail}");
    assert!(detail.contains("tables opened: rhombus7p2"), "{detail}");
    assert!(detail.contains("--build-tablebases"), "{detail}");
    assert_problem(
        &post(
            "/v1/bots/move",
            None,
            json!({"position": START.replace("sturtevant", "classic"), "bot": perfect}),
        ),
        422,
        "tablebase_other_game",
    );
    // A match's seat.
    let detail = assert_problem(
        &post(
            "/v1/matches",
            None,
            json!({"board": "rhombus7p1", "rules": "sturtevant", "seats": [{"bot": perfect}, {}]}),
        ),
        422,
        "no_tablebase",
    );
    assert!(detail.contains("--build-tablebases"), "{detail}");
    assert_problem(
        &post(
            "/v1/matches",
            None,
            json!({"board": "star2", "seats": [{}, {"bot": perfect}]}),
        ),
        422,
        "no_tablebase",
    );
    // A tournament's entrant, and a gauntlet's reference.
    assert_problem(
        &post(
            "/v1/tournaments",
            None,
            json!({"board": "rhombus7p1", "rules": "sturtevant", "entrants": [{"name": "p", "bot": perfect}, {"name": "q"}]}),
        ),
        422,
        "no_tablebase",
    );
    assert_problem(
        &post(
            "/v1/tournaments",
            None,
            json!({"board": "rhombus7p2", "rules": "classic", "format": "gauntlet", "reference": perfect, "entrants": [{"name": "q"}]}),
        ),
        422,
        "tablebase_other_game",
    );
}

#[test]
fn a_server_sees_only_the_tables_it_was_given() {
    // The shared server has its table; this one, in the same process,
    // was given none and sees none of it.
    assert_eq!(probe(START)["board"], "rhombus7p2");
    let alone = common::start_server_with_tables("tablebases_alone", 1, Arc::default());
    let reply = finish(
        agent()
            .get(format!("{alone}/v1/tablebases"))
            .call()
            .unwrap(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json()["tablebases"], json!([]));
    let ask = |path: &str, body: Value| {
        finish(
            agent()
                .post(format!("{alone}{path}"))
                .send_json(body)
                .unwrap(),
        )
    };
    let perfect = json!({"kind": "perfect", "seed": 1});
    for (path, body) in [
        ("/v1/tablebase/probe", json!({"position": START})),
        ("/v1/bots/move", json!({"position": START, "bot": perfect})),
        ("/v1/analysis", json!({"start": START, "moves": ["48-45"]})),
        (
            "/v1/matches",
            json!({"board": "rhombus7p2", "rules": "sturtevant", "seats": [{}, {"bot": perfect}]}),
        ),
    ] {
        let detail = assert_problem(&ask(path, body), 422, "no_tablebase");
        assert!(detail.contains("tables opened: none"), "{path}: {detail}");
    }
}

#[test]
fn the_perfect_bot_plays_where_a_table_covers_the_game() {
    // Stateless: the best move, a proven win as far as the end.
    let reply = post(
        "/v1/bots/move",
        None,
        json!({"position": START, "bot": {"kind": "perfect", "seed": 4}}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["evaluation"], 1.0);
    let start = probe(START);
    assert_eq!(answer["depth"], start["depth"]);
    let best: Vec<&Value> = start["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["best"] == true)
        .map(|m| &m["move"])
        .collect();
    assert!(best.contains(&&answer["move"]), "{answer}");
    // A tournament of the perfect bot and the random bot: the perfect bot
    // wins every game, from either seat.
    let created = post(
        "/v1/tournaments",
        None,
        json!({
            "board": "rhombus7p2",
            "rules": "sturtevant",
            "games_per_pairing": 2,
            "start": true,
            "entrants": [
                {"name": "perfect", "bot": {"kind": "perfect", "seed": 1}},
                {"name": "random", "bot": {"kind": "random", "seed": 2}}
            ]
        }),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["tournament"]["id"].as_i64().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let state = get(&format!("/v1/tournaments/{id}")).json();
        if state["status"] == "finished" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{state}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let standings = get(&format!("/v1/tournaments/{id}/standings")).json();
    let perfect = standings["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == "perfect")
        .unwrap()
        .clone();
    assert_eq!(perfect["rank"], 1, "{standings}");
    assert_eq!(
        (perfect["wins"].as_u64(), perfect["losses"].as_u64()),
        (Some(2), Some(0))
    );
    // Each entrant's accuracy is its moves judged by the analysis of each
    // game's match, summed over the games: the perfect bot's all kept.
    let games = get(&format!("/v1/tournaments/{id}/games")).json();
    let mut tally = std::collections::BTreeMap::<String, (u64, u64, u64)>::new();
    for game in games["games"].as_array().unwrap() {
        let report = post(
            "/v1/analysis",
            None,
            json!({"match": game["match_id"].as_i64().unwrap()}),
        );
        assert_eq!(report.status, 200, "{}", report.body);
        let report = report.json();
        for seat in game["seats"].as_array().unwrap() {
            let summary = &report["seats"][seat["seat"].as_u64().unwrap() as usize];
            let entry = tally
                .entry(seat["name"].as_str().unwrap().to_owned())
                .or_default();
            entry.0 += summary["moves"].as_u64().unwrap();
            entry.1 += summary["kept"].as_u64().unwrap();
            entry.2 += summary["mistakes"].as_u64().unwrap();
        }
    }
    for row in standings["rows"].as_array().unwrap() {
        let (moves, kept, mistakes) = tally[row["name"].as_str().unwrap()];
        assert!(moves > 0, "{standings}");
        assert_eq!(row["judged_moves"], moves, "{row}");
        assert_eq!(row["mistakes"], mistakes, "{row}");
        assert_eq!(row["accuracy"], kept as f64 / moves as f64, "{row}");
    }
    assert_eq!(perfect["accuracy"], 1.0, "{perfect}");
    assert_eq!(perfect["mistakes"], 0, "{perfect}");
    // The CSV carries the same accuracy.
    let csv = get(&format!("/v1/tournaments/{id}/standings.csv")).body;
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .contains(",uncertainty,accuracy,"),
        "{csv}"
    );
    assert!(csv.contains(",1.000,"), "{csv}");
}

// ---- `sternhalma serve --tablebases` ----------------------------------

fn folder(name: &str) -> PathBuf {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sternhalma"))
}

/// `sternhalma serve` with `args` that must fail to start: its stderr.
fn refused_start(args: &[&str], database: &Path) -> String {
    let output = binary()
        .args(["serve", "--port", "0", "--log-level", "warn"])
        .args(args)
        .env("STERNHALMA_DATABASE", database)
        .output()
        .unwrap();
    assert!(!output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn serve_installs_the_tables_of_a_folder_and_builds_the_small_ones() {
    let dir = folder("serve-tablebases");
    let tables = dir.join("tables");
    // 7×7 with 1 peg solved without depths; an unfinished solve beside it.
    let solved = binary()
        .args([
            "solve-game",
            "--board",
            "rhombus7x7",
            "--pegs",
            "1",
            "--depth",
            "off",
            "--quiet",
            "--out",
        ])
        .arg(&tables)
        .output()
        .unwrap();
    assert!(
        solved.status.success(),
        "{}",
        String::from_utf8_lossy(&solved.stderr)
    );
    std::fs::write(tables.join("rhombus7p3.checkpoint"), b"half a table").unwrap();
    std::fs::write(tables.join("rhombus7p4.values.partial"), b"being written").unwrap();

    let database = dir.join("serve.sqlite3");
    let args = [
        "--tablebases",
        tables.to_str().unwrap(),
        "--build-tablebases",
    ];
    let (_server, url) = common::serve_binary(&args, &database);
    let list: Value = agent()
        .get(format!("{url}/v1/tablebases"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let boards: Vec<(String, bool)> = list["tablebases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["board"].as_str().unwrap().to_owned(), t["depths"] == true))
        .collect();
    assert_eq!(
        boards,
        [
            ("rhombus4p6".to_owned(), true),
            ("rhombus7p1".to_owned(), false),
            ("rhombus7p2".to_owned(), true),
        ]
    );
    for built in ["rhombus7p2.depths", "rhombus4p6.depths"] {
        assert!(
            tables.join(built).is_file(),
            "{built} written for next time"
        );
    }
    // Without depths: a value, no depth; and no perfect bot.
    let seven_one = UNCOVERED;
    let answer = finish(
        agent()
            .post(format!("{url}/v1/tablebase/probe"))
            .send_json(json!({"position": seven_one}))
            .unwrap(),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let answer = answer.json();
    assert_eq!(
        (answer["text"].as_str(), answer["depth"].as_u64()),
        (Some("win"), None)
    );
    let refused = finish(
        agent()
            .post(format!("{url}/v1/bots/move"))
            .send_json(json!({"position": seven_one, "bot": {"kind": "perfect"}}))
            .unwrap(),
    );
    assert_eq!(refused.status, 422);
    assert_eq!(refused.json()["code"], "tablebase_without_depths");
    drop(_server);

    // Started again without building: the files are read.
    let (_again, url) =
        common::serve_binary(&["--tablebases", tables.to_str().unwrap()], &database);
    let list: Value = agent()
        .get(format!("{url}/v1/tablebases"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(list["tablebases"].as_array().unwrap().len(), 3);
    drop(_again);

    // A file an older engine wrote stops a start that reads only, saying
    // so; with --build-tablebases its small game is solved again over it.
    let path = tables.join("rhombus4p6.depths");
    let good = std::fs::read(&path).unwrap();
    let header = String::from_utf8_lossy(&good[..4096]).into_owned();
    let current = format!("format: {}\n", sternhalma::solve::file::FORMAT_VERSION);
    assert!(header.contains(&current), "{header}");
    let older = header.replace(
        &current,
        &format!("format: {}\n", sternhalma::solve::file::FORMAT_VERSION - 1),
    );
    let mut bytes = older.into_bytes();
    bytes.extend_from_slice(&good[4096..]);
    std::fs::write(&path, &bytes).unwrap();
    let stderr = refused_start(&["--tablebases", tables.to_str().unwrap()], &database);
    assert!(stderr.contains("rhombus4p6.depths"), "{stderr}");
    assert!(stderr.contains("older engine"), "{stderr}");
    let (_rebuilt, _) = common::serve_binary(&args, &database);
    assert_eq!(std::fs::read(&path).unwrap(), good);
    drop(_rebuilt);

    // A damaged file stops the start, naming it.
    let bytes = std::fs::read(tables.join("rhombus7p2.depths")).unwrap();
    std::fs::write(tables.join("rhombus7p2.depths"), &bytes[..bytes.len() - 10]).unwrap();
    let stderr = refused_start(&["--tablebases", tables.to_str().unwrap()], &database);
    assert!(stderr.contains("rhombus7p2.depths"), "{stderr}");
    assert!(stderr.contains("cannot open a table file"), "{stderr}");
    // A folder that is not there, unless it is to be built.
    let missing = dir.join("nowhere");
    let stderr = refused_start(&["--tablebases", missing.to_str().unwrap()], &database);
    assert!(stderr.contains("--tablebases"), "{stderr}");
    // Building needs a folder to build into.
    let stderr = refused_start(&["--build-tablebases"], &database);
    assert!(stderr.contains("--tablebases"), "{stderr}");
}

// ---- Tables shipped: `/downloads/tables/` and `--tablebases-from` -----

/// A file's SHA-256 digest in hex.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// A server that answers `/downloads/tables/` with `listing` and
/// `/downloads/tables/{name}` with the bytes of `files` by name: a server
/// whose listing lies.
fn lying_server(listing: impl FnOnce(&str) -> Value, files: Vec<(String, Vec<u8>)>) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let listing = listing(&url);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("").to_owned();
            let body = match path
                .strip_prefix("/downloads/tables/")
                .filter(|n| !n.is_empty())
            {
                Some(name) => files
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, b)| b.clone())
                    .unwrap_or_default(),
                None => listing.to_string().into_bytes(),
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    url
}

#[test]
fn a_server_offers_its_tables_files_and_another_installs_them_checked() {
    let dir = folder("tables-shipped");
    let served = dir.join("served");
    let (_teacher, url) = common::serve_binary(
        &[
            "--tablebases",
            served.to_str().unwrap(),
            "--build-tablebases",
        ],
        &dir.join("teacher.sqlite3"),
    );
    // A file in the folder that is no installed table is not offered.
    std::fs::write(served.join("notes.depths"), b"not a table").unwrap();
    let listing = finish(
        agent()
            .get(format!("{url}/downloads/tables/"))
            .call()
            .unwrap(),
    );
    assert_eq!(listing.status, 200, "{}", listing.body);
    let listing = listing.json();
    let files = listing["files"].as_array().unwrap();
    let mut names: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    let mut on_disk: Vec<String> = std::fs::read_dir(&served)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "notes.depths")
        .collect();
    on_disk.sort_unstable();
    assert_eq!(names, on_disk);
    assert_eq!(files.len(), 3);
    for file in files {
        let name = file["name"].as_str().unwrap();
        let bytes = std::fs::read(served.join(name)).unwrap();
        assert_eq!(file["size"], bytes.len() as u64, "{file}");
        assert_eq!(file["sha256"], sha256_hex(&bytes), "{file}");
        assert_eq!(file["depths"], true);
        let board: sternhalma::Board = file["board"].as_str().unwrap().parse().unwrap();
        assert_eq!(format!("{board}.depths"), name);
        assert_eq!(file["url"], format!("{url}/downloads/tables/{name}"));
        let mut response = agent().get(file["url"].as_str().unwrap()).call().unwrap();
        assert_eq!(response.status(), 200);
        let body = response
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_vec()
            .unwrap();
        assert!(body == bytes, "{name}: the bytes on disk");
        // A cut download goes on where it stopped.
        let mut rest = agent()
            .get(file["url"].as_str().unwrap())
            .header("Range", "bytes=1000-")
            .call()
            .unwrap();
        assert_eq!(rest.status(), 206);
        let rest = rest
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_vec()
            .unwrap();
        assert!(rest == bytes[1000..]);
    }
    assert!(listing["python"].as_str().unwrap().contains(&url));
    for name in [
        "notes.depths",
        "teacher.sqlite3",
        "..%2Fteacher.sqlite3",
        "rhombus9p10.depths",
    ] {
        let refused = finish(
            agent()
                .get(format!("{url}/downloads/tables/{name}"))
                .call()
                .unwrap(),
        );
        assert_problem(&refused, 404, "not_found");
    }

    // A folder an older engine filled, its files named by home rows: read,
    // each renamed to its board's one name.
    let older = dir.join("older");
    std::fs::create_dir_all(&older).unwrap();
    // Its header names the board as that engine did (the same length).
    let mut bytes = std::fs::read(served.join("rhombus4p6.depths")).unwrap();
    let at = bytes
        .windows(10)
        .position(|w| w == b"rhombus4p6")
        .expect("the header names the board");
    bytes[at..at + 10].copy_from_slice(b"rhombus4x3");
    std::fs::write(older.join("rhombus4x3.depths"), &bytes).unwrap();
    let (old_server, old_url) = common::serve_binary(
        &["--tablebases", older.to_str().unwrap()],
        &dir.join("older.sqlite3"),
    );
    let listed = finish(
        agent()
            .get(format!("{old_url}/downloads/tables/"))
            .call()
            .unwrap(),
    )
    .json();
    assert_eq!(listed["files"][0]["name"], "rhombus4p6.depths", "{listed}");
    assert_eq!(listed["files"][0]["board"], "rhombus4p6", "{listed}");
    assert!(!older.join("rhombus4x3.depths").exists());
    assert!(older.join("rhombus4p6.depths").is_file());
    drop(old_server);

    // Another server takes them from the first at start, checked.
    let copy = dir.join("copy");
    let args = [
        "--tablebases",
        copy.to_str().unwrap(),
        "--tablebases-from",
        url.as_str(),
    ];
    let (student, copy_url) = common::serve_binary(&args, &dir.join("copy.sqlite3"));
    for name in &names {
        assert!(
            std::fs::read(copy.join(name)).unwrap() == std::fs::read(served.join(name)).unwrap()
        );
    }
    let installed: Value = agent()
        .get(format!("{copy_url}/v1/tablebases"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let original: Value = agent()
        .get(format!("{url}/v1/tablebases"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(installed, original);
    drop(student);
    // Started again: the files there, with the same digests, are kept.
    let written = std::fs::metadata(copy.join(names[0]))
        .unwrap()
        .modified()
        .unwrap();
    let (again, _) = common::serve_binary(&args, &dir.join("copy.sqlite3"));
    assert_eq!(
        std::fs::metadata(copy.join(names[0]))
            .unwrap()
            .modified()
            .unwrap(),
        written
    );
    drop(again);

    // A listing whose digest does not match what arrives stops the start,
    // naming the file, and installs nothing.
    let name = names[0].to_owned();
    let bytes = std::fs::read(served.join(&name)).unwrap();
    let liar = lying_server(
        |base| {
            json!({"files": [{
                "name": name, "board": "rhombus7p2", "pegs": 2, "depths": true,
                "size": bytes.len(), "sha256": "0".repeat(64),
                "url": format!("{base}/downloads/tables/{name}"),
            }], "python": "", "serve": ""})
        },
        vec![(name.clone(), bytes.clone())],
    );
    let lied = dir.join("lied");
    let stderr = refused_start(
        &[
            "--tablebases",
            lied.to_str().unwrap(),
            "--tablebases-from",
            &liar,
        ],
        &dir.join("lied.sqlite3"),
    );
    assert!(
        stderr.contains(&name) && stderr.contains("not installed"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&lied).unwrap().count(), 0, "no file left");
    // A server that cannot be reached stops the start too.
    let stderr = refused_start(
        &[
            "--tablebases",
            lied.to_str().unwrap(),
            "--tablebases-from",
            "http://127.0.0.1:9",
        ],
        &dir.join("lied.sqlite3"),
    );
    assert!(stderr.contains("--tablebases-from"), "{stderr}");
}

/// `tablebase pack` writes a packed table (issue 50, item 2) that `verify`
/// finds equal to its values entry by entry, and unequal to a table that
/// differs in one entry; `serve --tablebases` installs it rather than the
/// values beside it, answers every probe and move as the values do, and
/// offers it for download.
#[test]
fn a_packed_table_is_written_checked_and_served_as_its_values_are() {
    use sternhalma::solve::{Table, Value as Outcome, file};
    let dir = folder("packed");
    let tables = dir.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    let game = Game::new(7, 2).unwrap();
    let (values, _) = sternhalma::solve::solve(&game, 2);
    let values_path = tables.join("rhombus7p2.values");
    file::write_values(&values_path, &game, &values, 0, true).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        let output = binary().args(args).output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let (ok, out, err) = run(&[&os("tablebase"), &os("pack"), values_path.as_os_str()]);
    assert!(ok, "{err}");
    assert!(out.contains("every entry checked"), "{out}");
    let packed = tables.join("rhombus7p2.packed");
    assert!(packed.is_file(), "{out}");
    let (ok, out, err) = run(&[
        &os("tablebase"),
        &os("verify"),
        packed.as_os_str(),
        &os("--against"),
        values_path.as_os_str(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("counts equal to those it holds"), "{out}");
    assert!(out.contains("entries equal to"), "{out}");
    // A table one entry off: the comparison finds it.
    let mut words: Vec<u64> = values.words().collect();
    let (mover, other) = game.start();
    let start = game.ranking().index(mover, other);
    assert_eq!(values.get(start), Outcome::Win);
    words[(start / 32) as usize] ^= 3 << (2 * (start % 32)); // win → loss
    let altered = Table::from_words(words, values.len());
    let altered_path = dir.join("altered.values");
    file::write_values(&altered_path, &game, &altered, 0, true).unwrap();
    let (ok, _, err) = run(&[
        &os("tablebase"),
        &os("verify"),
        packed.as_os_str(),
        &os("--against"),
        altered_path.as_os_str(),
    ]);
    assert!(!ok);
    assert!(
        err.contains(&format!("1 of {} entries differ", values.len())),
        "{err}"
    );
    // The researcher's tools read it as they read the values: the export
    // whole, and a batch probe.
    let tool = |args: &[&str], file: &Path, input: &str| -> String {
        use std::io::Write as _;
        let mut child = binary()
            .args(&args[..2])
            .arg(file)
            .args(&args[2..])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let exported = tool(&["tablebase", "export", "--format", "text"], &packed, "");
    assert_eq!(exported.lines().count(), 2_542_512 - 10_810);
    assert!(
        exported
            == tool(
                &["tablebase", "export", "--format", "text"],
                &values_path,
                ""
            )
    );
    let lines: String = sample(200, 51).iter().map(|p| format!("{p}\n")).collect();
    let probed = tool(&["tablebase", "probe"], &packed, &lines);
    assert_eq!(probed.lines().count(), 200);
    assert_eq!(probed, tool(&["tablebase", "probe"], &values_path, &lines));
    assert_eq!(
        probed,
        tool(&["tablebase", "probe", "--unpack"], &packed, &lines)
    );
    // A packed file is not packed again.
    let (ok, _, err) = run(&[&os("tablebase"), &os("pack"), packed.as_os_str()]);
    assert!(!ok && err.contains("already packed"), "{err}");

    let database = dir.join("serve.sqlite3");
    let (_server, url) =
        common::serve_binary(&["--tablebases", tables.to_str().unwrap()], &database);
    let list: Value = agent()
        .get(format!("{url}/v1/tablebases"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let listed = &list["tablebases"].as_array().unwrap()[0];
    let opened = Tablebase::open(&packed).unwrap();
    assert_eq!(listed["board"], "rhombus7p2");
    assert_eq!(
        listed["bytes"],
        opened.bytes(),
        "the packed table installed"
    );
    assert_eq!(listed["depths"], false);
    assert_eq!(listed["wins"], 1_265_851);
    let plain = Tablebase::from_solved(game.clone(), values.clone(), None);
    for position in sample(150, 50) {
        let text = position.to_string();
        let reply = finish(
            agent()
                .post(format!("{url}/v1/tablebase/probe"))
                .send_json(json!({"position": text}))
                .unwrap(),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let answer = reply.json();
        let expected = plain.probe(&position).unwrap();
        assert_eq!(answer["value"], expected.value.name(), "{text}");
        let moves = answer["moves"].as_array().unwrap();
        let expected_moves = plain.moves(&position).unwrap();
        assert_eq!(moves.len(), expected_moves.len(), "{text}");
        for (got, want) in moves.iter().zip(&expected_moves) {
            assert_eq!(got["value"], want.value.name(), "{text}");
        }
    }
    let downloads: Value = agent()
        .get(format!("{url}/downloads/tables/"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let names: Vec<&str> = downloads["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["rhombus7p2.packed"]);
    drop(_server);
    std::fs::remove_dir_all(&dir).unwrap();
}
