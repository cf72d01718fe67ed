//! The solitaire solver over a real socket: the meeting search proves
//! rhombus9p6 (23 moves) both while the client waits and as a job polled for
//! its progress; the memory budget and its cap; the heavy-work pool refusing
//! work when full.

mod common;

use std::sync::OnceLock;

use common::{Reply, finish};

use serde_json::{Value, json};
use sternhalma_api::{Heavy, HeavyPool};

/// The base URL of one server shared by most tests (the default pool).
fn server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| common::start_server("solitaire", 2))
}

fn get_at(base: &str, path: &str) -> Reply {
    finish(common::agent().get(format!("{base}{path}")).call().unwrap())
}

fn post_at(base: &str, path: &str, body: &Value) -> Reply {
    finish(
        common::agent()
            .post(format!("{base}{path}"))
            .send_json(body)
            .unwrap(),
    )
}

fn get(path: &str) -> Reply {
    get_at(server(), path)
}

fn post(path: &str, body: &Value) -> Reply {
    post_at(server(), path, body)
}

/// A problem-details reply with this status and code.
fn assert_problem(reply: &Reply, status: u16, code: &str) -> Value {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(
        reply.content_type, "application/problem+json",
        "{}",
        reply.body
    );
    let problem = reply.json();
    assert_eq!(problem["code"], code, "{problem}");
    problem
}

/// Polls a job (long-polls of the longest wait, answered as soon as the job
/// finishes) until it is finished; its last state. Every state seen on the
/// way must be a consistent one.
fn until_finished(base: &str, url: &str) -> Value {
    let mut last_nodes = 0;
    for _ in 0..100 {
        let reply = get_at(base, &format!("{url}?wait_ms=30000"));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let view = reply.json();
        match view["status"].as_str().unwrap() {
            "queued" => assert!(view.get("progress").is_none(), "{view}"),
            "running" => {
                let nodes = view["progress"]["nodes"].as_u64().unwrap();
                assert!(nodes >= last_nodes, "{view}");
                last_nodes = nodes;
            }
            "done" | "failed" => return view,
            other => panic!("{other}: {view}"),
        }
    }
    panic!("{url} did not finish in 100 polls");
}

/// The moves replay over HTTP from the one-player start and win.
fn assert_replays_to_a_win(board: &str, moves: &Value) {
    let start = post("/v1/positions", &json!({"board": board, "layout": "1"})).json();
    let replay = post(
        "/v1/replay",
        &json!({"start": start["position_string"], "moves": moves}),
    );
    assert_eq!(replay.status, 200, "{}", replay.body);
    assert!(replay.body.contains("\"won\""), "{}", replay.body);
}

#[test]
fn the_meeting_search_proves_23_on_rhombus9x3_while_the_client_waits() {
    for request in [
        json!({"board": "rhombus9p6", "method": "meet"}),
        // The default method is the meeting search.
        json!({"board": "rhombus9p6"}),
    ] {
        let reply = post("/v1/solitaire/solve", &request);
        assert_eq!(reply.status, 200, "{}", reply.body);
        let answer = reply.json();
        assert_eq!(answer["length"], 23, "{answer}");
        assert_eq!(answer["optimal"], true);
        assert_eq!(answer["method"], "meet");
        // Nodes and memory are counted, the same on every machine.
        assert_eq!(answer["nodes"], 366_866, "{answer}");
        assert_eq!(answer["memory_bytes"], 5_050_496, "{answer}");
        assert_eq!(answer["moves"].as_array().unwrap().len(), 23);
        assert_replays_to_a_win("rhombus9p6", &answer["moves"]);
    }
}

#[test]
fn hops_only_on_rhombus9x3_is_proven_within_the_default_budgets() {
    let reply = post(
        "/v1/solitaire/solve",
        &json!({"board": "rhombus9p6", "hops_only": true}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["length"], 35, "{answer}");
    assert_eq!(answer["optimal"], true);
    assert!(answer["nodes"].as_u64().unwrap() <= 1_000_000, "{answer}");
    assert_replays_to_a_win("rhombus9p6", &answer["moves"]);
}

#[test]
fn ida_is_still_offered() {
    let reply = post(
        "/v1/solitaire/solve",
        &json!({"board": "rhombus5p3", "method": "ida"}),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(answer["length"], 11);
    assert_eq!(answer["method"], "ida");
    assert_eq!(answer["memory_bytes"], 0);
    let unknown = post(
        "/v1/solitaire/solve",
        &json!({"board": "rhombus5p3", "method": "dijkstra"}),
    );
    assert_problem(&unknown, 400, "malformed_json");
}

#[test]
fn a_job_proves_23_on_rhombus9x3_and_reports_its_progress() {
    let created = post("/v1/solitaire/jobs", &json!({"board": "rhombus9p6"}));
    assert_eq!(created.status, 202, "{}", created.body);
    let job = created.json();
    let id = job["id"].as_str().unwrap();
    let url = format!("/v1/solitaire/jobs/{id}");
    assert_eq!(job["url"], url);
    assert_eq!(created.location.as_deref(), Some(url.as_str()));
    assert_eq!(job["settings"]["board"], "rhombus9p6");
    assert_eq!(job["settings"]["method"], "meet");
    assert_eq!(job["settings"]["max_nodes"], 1_000_000);
    assert_eq!(job["settings"]["max_memory_mb"], 256);

    let done = until_finished(server(), &url);
    assert_eq!(done["status"], "done", "{done}");
    let solution = &done["solution"];
    assert_eq!(solution["length"], 23, "{done}");
    assert_eq!(solution["optimal"], true);
    assert_eq!(solution["nodes"], 366_866);
    assert_replays_to_a_win("rhombus9p6", &solution["moves"]);
    // The progress it reported while running: each lower bound from the
    // start's (17) to 22, proven before the crossing of 23 was found, with
    // the nodes expanded when it was first reported. Reports come after
    // every step of the search, so these are the same on every run.
    let bounds: Vec<(u64, u64)> = done["bounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["bound"].as_u64().unwrap(), b["nodes"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        bounds.iter().map(|b| b.0).collect::<Vec<_>>(),
        (17..=22).collect::<Vec<_>>(),
        "{done}"
    );
    assert!(bounds.windows(2).all(|w| w[0].1 < w[1].1), "{done}");
    assert!(bounds.last().unwrap().1 < 366_866);
    assert_eq!(done["progress"]["bound"], 22);
    // The same request, the same progress.
    let again = post("/v1/solitaire/jobs", &json!({"board": "rhombus9p6"})).json();
    let again = until_finished(server(), again["url"].as_str().unwrap());
    assert_eq!(again["bounds"], done["bounds"]);
}

#[test]
fn a_job_that_runs_out_of_budget_fails_with_the_bound_proven() {
    let created = post(
        "/v1/solitaire/jobs",
        &json!({"board": "rhombus9p6", "max_nodes": 1000}),
    );
    assert_eq!(created.status, 202, "{}", created.body);
    let url = created.json()["url"].as_str().unwrap().to_owned();
    let failed = until_finished(server(), &url);
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["problem"]["code"], "node_limit");
    assert_eq!(failed["problem"]["status"], 422);
    assert_eq!(failed["problem"]["nodes"], 1000);
    let bound = failed["problem"]["lower_bound"].as_u64().unwrap();
    assert!((17..=22).contains(&bound), "{failed}");
    assert!(failed.get("solution").is_none());
}

#[test]
fn memory_budgets_are_capped_and_a_small_one_stops_with_a_lower_bound() {
    for max_memory_mb in [0_u64, 1025, 1 << 40] {
        for path in ["/v1/solitaire/solve", "/v1/solitaire/jobs"] {
            let refused = assert_problem(
                &post(
                    path,
                    &json!({"board": "rhombus9p6", "max_memory_mb": max_memory_mb}),
                ),
                422,
                "max_memory_out_of_range",
            );
            assert!(
                refused["detail"].as_str().unwrap().contains("1 to 1024"),
                "{refused}"
            );
        }
    }
    // rhombus9p6 holds 4.8 MiB at most: 1 MiB is not enough. The answer is
    // counted, so it is the same every time.
    let request = json!({"board": "rhombus9p6", "max_memory_mb": 1});
    let limited = assert_problem(&post("/v1/solitaire/solve", &request), 422, "memory_limit");
    let bound = limited["lower_bound"].as_u64().unwrap();
    assert!((17..=22).contains(&bound), "{limited}");
    assert!(limited["nodes"].as_u64().unwrap() > 0);
    assert!(
        limited["detail"]
            .as_str()
            .unwrap()
            .contains("max_memory_mb 1"),
        "{limited}"
    );
    let again = assert_problem(&post("/v1/solitaire/solve", &request), 422, "memory_limit");
    assert_eq!(again["lower_bound"], limited["lower_bound"]);
    assert_eq!(again["nodes"], limited["nodes"]);
    // 5 MiB is.
    let enough = post(
        "/v1/solitaire/solve",
        &json!({"board": "rhombus9p6", "max_memory_mb": 5}),
    );
    assert_eq!(enough.json()["length"], 23, "{}", enough.body);
}

#[test]
fn unknown_jobs_are_404_and_waits_are_capped() {
    assert_problem(&get("/v1/solitaire/jobs/987654321"), 404, "not_found");
    assert_problem(&get("/v1/solitaire/jobs/12x"), 404, "not_found");
    // Well-formed, and never given.
    assert_problem(
        &get(&format!("/v1/solitaire/jobs/{}", "0".repeat(32))),
        404,
        "not_found",
    );
    assert_problem(
        &get("/v1/solitaire/jobs/3f9c2a7e51b04d8e9a6c0b1d2e3f4a5b?wait_ms=10"),
        404,
        "not_found",
    );
    let job = post("/v1/solitaire/jobs", &json!({"board": "rhombus5p3"})).json();
    let url = job["url"].as_str().unwrap();
    assert_problem(
        &get(&format!("{url}?wait_ms=30001")),
        400,
        "malformed_query",
    );
    assert_problem(
        &post("/v1/solitaire/jobs", &json!({"board": "hexagon"})),
        422,
        "invalid_board",
    );
}

/// The issue: job ids were counted from 1, so anyone could read anyone's
/// job. Now an id is 128 random bits, and knowing it is the right to read.
#[test]
fn job_ids_are_128_random_bits_that_cannot_be_counted() {
    // One at a time, each run to its end: the other tests share the pool.
    let ids: Vec<String> = (0..3)
        .map(|_| {
            let created = post("/v1/solitaire/jobs", &json!({"board": "rhombus5p3"}));
            assert_eq!(created.status, 202, "{}", created.body);
            let job = created.json();
            let id = job["id"].as_str().unwrap().to_owned();
            assert_eq!(job["url"], format!("/v1/solitaire/jobs/{id}"));
            assert_eq!(
                until_finished(server(), &format!("/v1/solitaire/jobs/{id}"))["status"],
                "done"
            );
            id
        })
        .collect();
    let numbers: Vec<u128> = ids
        .iter()
        .map(|id| {
            assert_eq!(id.len(), 32, "{id}");
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{id}"
            );
            u128::from_str_radix(id, 16).unwrap()
        })
        .collect();
    for pair in numbers.windows(2) {
        assert_ne!(pair[0], pair[1]);
        assert_ne!(pair[1], pair[0].wrapping_add(1), "counted ids: {ids:?}");
    }
    // 128 bits drawn: three ids that all fit in 64 bits would mean fewer
    // (the chance is 2^-192).
    assert!(numbers.iter().any(|n| *n > u128::from(u64::MAX)), "{ids:?}");
    // Each readable by whoever has it; a neighbour of one is no job.
    for id in &ids {
        let job = get(&format!("/v1/solitaire/jobs/{id}"));
        assert_eq!(job.status, 200, "{}", job.body);
        assert_eq!(job.json()["id"], id.as_str());
    }
    let neighbour = format!("{:032x}", numbers[0] ^ 1);
    assert_problem(
        &get(&format!("/v1/solitaire/jobs/{neighbour}")),
        404,
        "not_found",
    );
}

#[test]
fn a_full_pool_answers_503_with_retry_after_and_cheap_requests_still_pass() {
    // One heavy thread, no queue: a task the test holds fills it.
    let pool = HeavyPool::new(1, 0);
    let base = common::start_server_with("solitaire-busy", 2, Heavy::new(pool.clone()));
    let held = pool.occupy().unwrap();
    let request = json!({"board": "rhombus5p3"});
    for path in ["/v1/solitaire/solve", "/v1/solitaire/jobs"] {
        let busy = post_at(&base, path, &request);
        let problem = assert_problem(&busy, 503, "busy");
        assert_eq!(problem["status"], 503);
        assert_eq!(busy.retry_after.as_deref(), Some("5"), "{}", busy.body);
    }
    // A refused job was never created.
    assert_problem(&get_at(&base, "/v1/solitaire/jobs/1"), 404, "not_found");
    // Requests that are not heavy do not wait for the pool.
    assert_eq!(get_at(&base, "/v1/catalogue").status, 200);
    assert_eq!(
        post_at(
            &base,
            "/v1/positions",
            &json!({"board": "rhombus5p3", "layout": "1"})
        )
        .status,
        200
    );
    held.release();
    pool.wait_until_idle();
    let solved = post_at(&base, "/v1/solitaire/solve", &request);
    assert_eq!(solved.status, 200, "{}", solved.body);
    assert_eq!(solved.json()["length"], 11);
}

#[test]
fn a_job_waits_in_the_queue_while_the_pool_is_busy() {
    let pool = HeavyPool::new(1, 1);
    let base = common::start_server_with("solitaire-queue", 2, Heavy::new(pool.clone()));
    let held = pool.occupy().unwrap();
    let created = post_at(&base, "/v1/solitaire/jobs", &json!({"board": "rhombus5p3"}));
    assert_eq!(created.status, 202, "{}", created.body);
    let url = created.json()["url"].as_str().unwrap().to_owned();
    // Held behind the test's task: queued, with no progress yet, however
    // long it is polled.
    for _ in 0..3 {
        let view = get_at(&base, &format!("{url}?wait_ms=50")).json();
        assert_eq!(view["status"], "queued", "{view}");
        assert!(view.get("progress").is_none());
        assert_eq!(view["bounds"], json!([]));
    }
    // The queue (one) is full now. The pool has no cap per client (as a
    // server without limits, whose clients may share one address), so no
    // client's share is counted: the server's own refusal.
    assert_problem(
        &post_at(&base, "/v1/solitaire/jobs", &json!({"board": "rhombus5p3"})),
        503,
        "busy",
    );
    held.release();
    let done = until_finished(&base, &url);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["solution"]["length"], 11);
}
