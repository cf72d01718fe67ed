//! Per-client limits, the admin key, CORS and `/metrics`, each over a real
//! socket on a server of its own. No assertion depends on time: a rate is a
//! burst of one refilled once an hour, so the second request is refused
//! whatever the machine's speed.

mod common;

use std::num::NonZeroU32;
use std::time::Duration;

use common::{agent, finish};
use serde_json::{Value, json};
use sternhalma_api::{AdminKey, ClientLimits, CorsPolicy, RateLimit, ServerConfig};

const MATCH: &str = r#"{"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]}"#;

fn once_an_hour() -> Option<RateLimit> {
    Some(RateLimit {
        burst: NonZeroU32::MIN,
        period: Duration::from_secs(3600),
    })
}

fn unlimited() -> ServerConfig {
    ServerConfig::unlimited(CorsPolicy::Off)
}

fn with_limits(limits: ClientLimits) -> ServerConfig {
    ServerConfig {
        limits,
        ..unlimited()
    }
}

fn post(url: &str, body: &str, token: Option<&str>) -> ureq::http::Response<ureq::Body> {
    let mut request = agent().post(url).header("Content-Type", "application/json");
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    request.send(body).unwrap()
}

fn get(url: &str) -> common::Reply {
    finish(agent().get(url).call().unwrap())
}

/// A 429 problem with `code` and a `Retry-After` of at least a second.
fn assert_refused(reply: &common::Reply, code: &str) -> u64 {
    assert_eq!(reply.status, 429, "{}", reply.body);
    assert_eq!(reply.content_type, "application/problem+json");
    let problem = reply.json();
    assert_eq!(problem["code"], code);
    assert_eq!(problem["status"], 429);
    assert_eq!(problem["type"], format!("urn:sternhalma:problem:{code}"));
    let seconds: u64 = reply
        .retry_after
        .as_deref()
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!(seconds >= 1);
    seconds
}

#[test]
fn writes_over_the_rate_are_429_with_retry_after() {
    let base = common::start_server_configured(
        "limits-writes",
        1,
        with_limits(ClientLimits::new(once_an_hour(), None, None)),
    );
    let created = finish(post(&format!("{base}/v1/matches"), MATCH, None));
    assert_eq!(created.status, 201, "{}", created.body);
    let created = created.json();
    let token = created["seat_tokens"][0]["token"].as_str().unwrap();
    let id = created["match"]["id"].as_i64().unwrap();
    // Any other write of this client now waits for the bucket: about an hour.
    let refused = finish(post(
        &format!("{base}/v1/matches/{id}/resign"),
        "",
        Some(token),
    ));
    let seconds = assert_refused(&refused, "rate_limited");
    assert!(seconds > 60, "the bucket refills once an hour: {seconds}");
    assert_refused(
        &finish(post(&format!("{base}/v1/matches"), MATCH, None)),
        "rate_limited",
    );
    // Reads, stateless computations and heavy work are not writes.
    assert_eq!(get(&format!("{base}/v1/matches/{id}")).status, 200);
    let position = created["match"]["position"]["position_string"].clone();
    let body = json!({ "position": position }).to_string();
    for _ in 0..3 {
        let legal = finish(post(&format!("{base}/v1/legal-moves"), &body, None));
        assert_eq!(legal.status, 200, "{}", legal.body);
    }
    let render = finish(post(&format!("{base}/v1/render"), &body, None));
    assert_eq!(render.status, 200, "{}", render.body);
    let metrics = get(&format!("{base}/metrics")).body;
    assert!(
        metrics.contains("sternhalma_refused_total{limit=\"writes\"} 2"),
        "{metrics}"
    );
}

#[test]
fn heavy_work_over_the_rate_is_429_and_leaves_writes_alone() {
    let base = common::start_server_configured(
        "limits-heavy",
        1,
        with_limits(ClientLimits::new(None, once_an_hour(), None)),
    );
    let svg = format!(
        "{base}/v1/render.svg?position=star4%20classic%20south:111-120/north:0-9%200%200%20-"
    );
    let first = get(&svg);
    assert_eq!(first.status, 200, "{}", first.body);
    assert_refused(&get(&svg), "rate_limited");
    // Every heavy operation shares the one bucket.
    let bot = json!({"position": "star4 classic south:111-120/north:0-9 0 0 -", "bot": {"kind": "random", "seed": 1}});
    assert_refused(
        &finish(post(
            &format!("{base}/v1/bots/move"),
            &bot.to_string(),
            None,
        )),
        "rate_limited",
    );
    assert_refused(
        &finish(post(
            &format!("{base}/v1/solitaire/jobs"),
            r#"{"board": "rhombus5p3"}"#,
            None,
        )),
        "rate_limited",
    );
    // A path spelt with escapes is the route the router finds: still heavy.
    assert_refused(
        &finish(post(
            &format!("{base}/v1/bots/mov%65"),
            &bot.to_string(),
            None,
        )),
        "rate_limited",
    );
    // Writes are not heavy.
    for _ in 0..2 {
        let created = finish(post(&format!("{base}/v1/matches"), MATCH, None));
        assert_eq!(created.status, 201, "{}", created.body);
    }
}

/// Reads `/metrics` until `line` is in it: the server has reached the state
/// the test waits for (a long-poll is open). Fails only if it never does.
fn wait_for_metric(base: &str, line: &str) {
    for _ in 0..3000 {
        if get(&format!("{base}/metrics"))
            .body
            .lines()
            .any(|l| l == line)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("/metrics never showed {line}");
}

#[test]
fn long_polls_beyond_the_cap_are_429_too_many_waits() {
    let base = common::start_server_configured(
        "limits-waits",
        2,
        with_limits(ClientLimits::new(None, None, Some(1))),
    );
    let created = finish(post(&format!("{base}/v1/matches"), MATCH, None)).json();
    let id = created["match"]["id"].as_i64().unwrap();
    let token = created["seat_tokens"][0]["token"].as_str().unwrap();
    let first_move = created["match"]["legal_moves"][0]["text"].clone();
    let waiting = {
        let url = format!("{base}/v1/matches/{id}?wait_ply=0&timeout_ms=30000");
        std::thread::spawn(move || get(&url))
    };
    wait_for_metric(&base, "sternhalma_long_polls_open 1");
    let refused = get(&format!(
        "{base}/v1/matches/{id}?wait_ply=0&timeout_ms=30000"
    ));
    assert_refused(&refused, "too_many_waits");
    let job = get(&format!("{base}/v1/solitaire/jobs/1?wait_ms=1000"));
    assert_refused(&job, "too_many_waits");
    // A read that does not wait is not a long-poll.
    assert_eq!(get(&format!("{base}/v1/matches/{id}")).status, 200);
    assert_eq!(get(&format!("{base}/v1/solitaire/jobs/1")).status, 404);
    // The move wakes the long-poll; its slot is free once it has answered.
    let moved = finish(post(
        &format!("{base}/v1/matches/{id}/moves"),
        &json!({"ply": 0, "move": first_move}).to_string(),
        Some(token),
    ));
    assert_eq!(moved.status, 200, "{}", moved.body);
    let woken = waiting.join().unwrap();
    assert_eq!(woken.status, 200);
    assert_eq!(woken.json()["ply"], 1);
    let metrics = get(&format!("{base}/metrics")).body;
    assert!(
        metrics.lines().any(|l| l == "sternhalma_long_polls_open 0"),
        "{metrics}"
    );
    assert!(
        metrics.contains("sternhalma_refused_total{limit=\"long_polls\"} 2"),
        "{metrics}"
    );
    assert_eq!(
        get(&format!("{base}/v1/matches/{id}?wait_ply=0&timeout_ms=0")).status,
        200
    );
}

#[test]
fn the_admin_key_guards_match_creation() {
    let key = "a-class-key-0123456789";
    let base = common::start_server_configured(
        "limits-admin",
        1,
        ServerConfig {
            admin_key: Some(AdminKey::new(key).unwrap()),
            ..unlimited()
        },
    );
    let url = format!("{base}/v1/matches");
    let missing = post(&url, MATCH, None);
    assert_eq!(missing.headers().get("www-authenticate").unwrap(), "Bearer");
    let missing = finish(missing);
    assert_eq!(missing.status, 401);
    assert_eq!(missing.json()["code"], "missing_token");
    let wrong = finish(post(&url, MATCH, Some("another-key")));
    assert_eq!(wrong.status, 403);
    assert_eq!(wrong.json()["code"], "wrong_admin_key");
    // Checked before the body: a bad body without the key is still a 401.
    assert_eq!(finish(post(&url, "{", None)).status, 401);
    let created = finish(post(&url, MATCH, Some(key)));
    assert_eq!(created.status, 201, "{}", created.body);
    // Playing needs the seat's token, not the admin key.
    let created = created.json();
    let id = created["match"]["id"].as_i64().unwrap();
    let token = created["seat_tokens"][0]["token"].as_str().unwrap();
    let first_move = created["match"]["legal_moves"][0]["text"].clone();
    let moved = finish(post(
        &format!("{base}/v1/matches/{id}/moves"),
        &json!({"ply": 0, "move": first_move}).to_string(),
        Some(token),
    ));
    assert_eq!(moved.status, 200, "{}", moved.body);
}

fn allow_origin(base: &str, origin: &str) -> Option<String> {
    let response = agent()
        .get(format!("{base}/healthz"))
        .header("Origin", origin)
        .call()
        .unwrap();
    assert_eq!(response.status(), 200);
    response
        .headers()
        .get("access-control-allow-origin")
        .map(|v| v.to_str().unwrap().to_owned())
}

#[test]
fn cors_is_same_origin_unless_origins_are_configured() {
    let same_origin =
        common::start_server_configured("limits-cors-off", 1, ServerConfig::default());
    assert_eq!(allow_origin(&same_origin, "http://elsewhere.example"), None);
    let listed = common::start_server_configured(
        "limits-cors-list",
        1,
        ServerConfig::unlimited(CorsPolicy::Origins(vec!["http://class.example".to_owned()])),
    );
    assert_eq!(
        allow_origin(&listed, "http://class.example").as_deref(),
        Some("http://class.example")
    );
    assert_eq!(allow_origin(&listed, "http://elsewhere.example"), None);
}

#[test]
fn metrics_count_requests_by_route_pattern() {
    let base = common::start_server_configured("limits-metrics", 1, unlimited());
    // The same agent (one kept-alive connection, one worker): each answer
    // is counted before the next request is read.
    let agent = agent();
    let call = |path: &str| finish(agent.get(format!("{base}{path}")).call().unwrap());
    assert_eq!(call("/v1/matches/12345").status, 404);
    assert_eq!(call("/v1/boards/rhombus5p3").status, 200);
    assert_eq!(call("/no/such/route/98765").status, 404);
    let wanted = [
        r#"sternhalma_http_requests_total{endpoint="/v1/matches/{id}",method="GET",status="404"} 1"#,
        r#"sternhalma_http_requests_total{endpoint="/v1/boards/{board}",method="GET",status="200"} 1"#,
        r#"sternhalma_http_requests_total{endpoint="UNMATCHED",method="GET",status="404"} 1"#,
        "sternhalma_heavy_outstanding 0",
        "sternhalma_heavy_waiting 0",
        "sternhalma_heavy_urgent 0",
        "sternhalma_heavy_background 0",
        "sternhalma_writer_pending 0",
        "sternhalma_long_polls_open 0",
    ];
    // A request is counted when its answer is done; should that come after
    // the next request is read, a later scrape shows it (counted in
    // scrapes, not time).
    let mut scrapes = 0;
    let text = loop {
        let metrics = call("/metrics");
        assert_eq!(metrics.status, 200);
        assert!(
            metrics
                .content_type
                .starts_with("text/plain; version=0.0.4")
        );
        scrapes += 1;
        let text = metrics.body;
        if wanted.iter().all(|line| text.lines().any(|l| l == *line)) {
            break text;
        }
        assert!(scrapes < 100, "not every line of {wanted:?} in\n{text}");
    };
    assert!(
        text.contains(
            r#"sternhalma_http_requests_duration_seconds_bucket{endpoint="/v1/boards/{board}""#
        ),
        "{text}"
    );
    assert!(
        !text.contains("12345") && !text.contains("98765"),
        "ids are not labels"
    );
}

#[test]
fn the_document_states_every_limit() {
    let api: Value = serde_json::from_str(&sternhalma_api::openapi().to_json().unwrap()).unwrap();
    let responses = |method: &str, path: &str| api["paths"][path][method]["responses"].clone();
    for (method, path) in [
        ("post", "/v1/matches"),
        ("post", "/v1/matches/{id}/moves"),
        ("post", "/v1/matches/{id}/resign"),
        ("post", "/v1/matches/{id}/abandon"),
        ("post", "/v1/bots/move"),
        ("post", "/v1/replay"),
        ("post", "/v1/render"),
        ("get", "/v1/render.svg"),
        ("post", "/v1/solitaire/solve"),
        ("post", "/v1/solitaire/jobs"),
        ("get", "/v1/matches/{id}"),
        ("get", "/v1/solitaire/jobs/{id}"),
    ] {
        let answer = &responses(method, path)["429"];
        assert!(answer.is_object(), "{method} {path} documents no 429");
        assert!(
            answer["headers"]["Retry-After"].is_object(),
            "{method} {path}"
        );
    }
    for (method, path) in [
        ("post", "/v1/apply"),
        ("get", "/v1/catalogue"),
        ("get", "/healthz"),
    ] {
        assert!(responses(method, path).is_object(), "{method} {path}");
        assert!(responses(method, path)["429"].is_null(), "{method} {path}");
    }
    assert_eq!(
        api["components"]["securitySchemes"]["admin_key"]["scheme"],
        "bearer"
    );
    assert_eq!(
        api["paths"]["/v1/matches"]["post"]["security"],
        json!([{}, {"admin_key": []}])
    );
    assert!(api["paths"]["/metrics"]["get"].is_object());
}

// A method HTTP does not define is answered like the fallback (405 on a
// known path) before the metrics count it: made-up names add no series.
#[test]
fn made_up_methods_are_refused_before_the_metrics() {
    let base = common::start_server_configured("limits-methods", 1, unlimited());
    // HTTP clients refuse such methods: the request is written by hand.
    use std::io::{Read, Write};
    let address = base.trim_start_matches("http://");
    let mut socket = std::net::TcpStream::connect(address).unwrap();
    write!(
        socket,
        "FROB /v1/bots HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    socket.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");
    assert!(
        answer.contains("\"code\":\"method_not_allowed\""),
        "{answer}"
    );
    let metrics = get(&format!("{base}/metrics")).body;
    assert!(!metrics.contains("FROB"), "{metrics}");
}
