//! The stateless surface alone, over a real socket: no database is opened
//! and no background thread started; every answer comes from the rules
//! crate.

use std::net::TcpListener;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};
use sternhalma::solve::Tablebases;
use sternhalma_http::Heavy;

const START: &str = "star4 classic south:111-120/north:0-9 0 0 -";

fn server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        // No solved table: this server's own set, empty.
        let tables = Arc::new(Tablebases::default());
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                actix_web::HttpServer::new(move || {
                    sternhalma_http::app(Heavy::process_default(), Arc::clone(&tables))
                })
                .workers(1)
                .listen(listener)
                .unwrap()
                .run()
                .await
            })
        });
        format!("http://{address}")
    })
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// The status and the JSON body of a POST.
fn post(path: &str, body: Value) -> (u16, Value) {
    let mut response = agent()
        .post(format!("{}{path}", server()))
        .send_json(body)
        .unwrap();
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn legal_moves_and_a_move_played_without_a_database() {
    let (status, legal) = post("/v1/legal-moves", json!({"position": START}));
    assert_eq!(status, 200, "{legal}");
    let moves = legal["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 14, "the 2-player start has 14 moves");
    let text = moves[0]["text"].as_str().unwrap();
    let (status, applied) = post("/v1/apply", json!({"position": START, "move": text}));
    assert_eq!(status, 200, "{applied}");
    assert_eq!(applied["position"]["side_to_move"], 1);
}

#[test]
fn a_bot_move_is_searched_on_the_heavy_pool() {
    let (status, answer) = post(
        "/v1/bots/move",
        json!({"position": START, "bot": {"kind": "alphabeta", "seed": 1, "nodes": 500}}),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(answer["move"]["text"].is_string());
    assert!(answer["nodes"].as_u64().unwrap() <= 500);
}

#[test]
fn errors_are_problem_details() {
    let (status, problem) = post("/v1/legal-moves", json!({"position": "star4 classic"}));
    assert_eq!(status, 422);
    assert_eq!(problem["type"], "urn:sternhalma:problem:malformed_position");
    let (status, problem) = post("/v1/apply", json!({"position": START, "move": "111-112"}));
    assert_eq!(status, 422, "{problem}");
    assert_eq!(problem["status"], 422);
    let (status, problem) = post(
        "/v1/bots/move",
        json!({"position": START, "bot": {"kind": "alphazero"}}),
    );
    assert_eq!(
        (status, problem["code"].as_str()),
        (422, Some("unknown_bot"))
    );
}

#[test]
fn the_tables_are_the_apps_own_here_none() {
    let mut response = agent()
        .get(format!("{}/v1/tablebases", server()))
        .call()
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let list: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(list["tablebases"], json!([]), "{list}");
    let start = "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -";
    let (status, problem) = post("/v1/tablebase/probe", json!({"position": start}));
    assert_eq!(
        (status, problem["code"].as_str()),
        (422, Some("no_tablebase"))
    );
    let (status, problem) = post(
        "/v1/bots/move",
        json!({"position": start, "bot": {"kind": "perfect"}}),
    );
    assert_eq!(
        (status, problem["code"].as_str()),
        (422, Some("no_tablebase")),
        "{problem}"
    );
}

#[test]
fn metrics_count_requests_without_a_writer_queue() {
    post("/v1/legal-moves", json!({"position": START}));
    let mut response = agent().get(format!("{}/metrics", server())).call().unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let text = response.body_mut().read_to_string().unwrap();
    assert!(text.contains("sternhalma_http_requests_total"), "{text}");
    assert!(
        text.lines()
            .any(|line| line == "sternhalma_writer_pending 0"),
        "no database, an empty writer queue"
    );
}
