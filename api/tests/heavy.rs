//! Heavy routes on a full pool, over a real socket: a bot's search, a
//! replay and a picture are refused with 503 `busy` and `Retry-After` while
//! the pool's one thread is held by the test, and served once it is free.
//! The pool is held by a gate the test opens, never by a clock.

mod common;

use common::{Reply, agent, finish};
use serde_json::{Value, json};
use sternhalma_api::{Heavy, HeavyPool};

const START: &str = "star4 classic south:111-120/north:0-9 0 0 -";

fn get_at(base: &str, path: &str) -> Reply {
    finish(agent().get(format!("{base}{path}")).call().unwrap())
}

fn post_at(base: &str, path: &str, body: &Value) -> Reply {
    finish(
        agent()
            .post(format!("{base}{path}"))
            .send_json(body)
            .unwrap(),
    )
}

#[test]
fn heavy_routes_answer_503_with_retry_after_while_the_pool_is_full() {
    // One heavy thread and no queue; the test's task holds the thread.
    let pool = HeavyPool::new(1, 0);
    let base = common::start_server_with("heavy-busy", 2, Heavy::new(pool.clone()));
    let held = pool.occupy().unwrap();
    let bot = json!({"position": START, "bot": {"kind": "alphabeta", "seed": 1, "nodes": 2000}});
    let render_query = format!(
        "/v1/render.svg?position={}",
        START
            .replace(' ', "%20")
            .replace('/', "%2F")
            .replace(':', "%3A")
    );
    let refused = [
        post_at(&base, "/v1/bots/move", &bot),
        post_at(
            &base,
            "/v1/replay",
            &json!({"start": START, "moves": ["115-104"]}),
        ),
        post_at(&base, "/v1/render", &json!({"position": START})),
        get_at(&base, &render_query),
    ];
    for busy in &refused {
        assert_eq!(busy.status, 503, "{}", busy.body);
        assert_eq!(busy.content_type, "application/problem+json");
        assert_eq!(busy.json()["code"], "busy", "{}", busy.body);
        assert_eq!(busy.retry_after.as_deref(), Some("5"), "{}", busy.body);
    }
    // A request refused before the pool is refused for what it is.
    let over = post_at(
        &base,
        "/v1/bots/move",
        &json!({"position": START, "bot": {"kind": "mcts", "nodes": 4001}}),
    );
    assert_eq!(over.status, 422, "{}", over.body);
    // Cheap requests do not wait for the pool.
    let legal = post_at(&base, "/v1/legal-moves", &json!({"position": START}));
    assert_eq!(legal.status, 200, "{}", legal.body);
    held.release();
    pool.wait_until_idle();
    let first = post_at(&base, "/v1/bots/move", &bot);
    assert_eq!(first.status, 200, "{}", first.body);
    // The answer came after its task was counted out: the next request,
    // made at once, finds the one thread free.
    let second = post_at(&base, "/v1/bots/move", &bot);
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(first.json()["move"], second.json()["move"]);
    assert_eq!(first.json()["reproducible"], true);
    let replayed = post_at(
        &base,
        "/v1/replay",
        &json!({"start": START, "moves": ["115-104"]}),
    );
    assert_eq!(replayed.status, 200, "{}", replayed.body);
    let drawn = post_at(&base, "/v1/render", &json!({"position": START}));
    assert_eq!(drawn.status, 200, "{}", drawn.body);
    assert_eq!(get_at(&base, &render_query).status, 200);
}
