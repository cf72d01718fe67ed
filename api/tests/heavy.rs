//! Heavy routes on a full pool, over a real socket: a bot's search, a
//! replay and a picture are refused with 503 `busy` and `Retry-After` while
//! the pool's one thread is held by the test, and served once it is free;
//! and one client flooding the pool does not keep another waiting (clients
//! served in turn, a cap per client). The pool is held by gates the test
//! opens, never by a clock.

mod common;

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};

use common::{Reply, agent, finish};
use serde_json::{Value, json};
use socket2::{Domain, Protocol, Socket, Type};
use sternhalma_api::{Heavy, HeavyPool};
use sternhalma_http::heavy::Cost;

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

/// Sends one request over a connection of its own from `source` (an
/// address of 127.0.0.0/8, all of which the loopback answers), so that the
/// server counts it as that client's: ureq cannot choose the address it
/// connects from.
fn send_from(
    source: Ipv4Addr,
    base: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Reply {
    let server: SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
    socket.bind(&SocketAddr::from((source, 0)).into()).unwrap();
    socket.connect(&server.into()).unwrap();
    let mut stream = TcpStream::from(socket);
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {server}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse_response(&raw)
}

/// A whole HTTP/1.1 response, its body de-chunked if need be.
fn parse_response(raw: &[u8]) -> Reply {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = std::str::from_utf8(&raw[..end]).unwrap();
    let mut rest = &raw[end + 4..];
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.clone())
    };
    let mut body = Vec::new();
    if header("transfer-encoding").as_deref() == Some("chunked") {
        loop {
            let line = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let size = std::str::from_utf8(&rest[..line]).unwrap();
            let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&rest[line + 2..line + 2 + size]);
            rest = &rest[line + 2 + size + 2..];
        }
    } else {
        body.extend_from_slice(rest);
    }
    Reply {
        status,
        content_type: header("content-type").unwrap_or_default(),
        allow: header("allow"),
        location: header("location"),
        retry_after: header("retry-after"),
        body: String::from_utf8(body).unwrap(),
    }
}

/// A bot move at the node cap (a request's worth of the pool), answered in
/// a moment (one ply deep).
fn full_bot() -> Value {
    json!({"position": START, "bot": {"kind": "alphabeta", "seed": 1, "nodes": 400_000, "depth": 1}})
}

/// Waits until `pool` holds `n` tasks waiting: the state decides, the
/// polling interval only spares the CPU.
fn until_waiting(pool: &HeavyPool, n: usize) {
    common::wait_until(&format!("{n} heavy tasks waiting"), || {
        (pool.waiting() >= n).then_some(())
    });
}

/// The issue's flood: one address sends solve jobs on rhombus11p36 as fast
/// as its rate allows, and every other address used to get 503 on bot moves
/// and pictures for as long as its backlog lasted (45 s; one solve alone
/// ran 40 s). Now a job's budget is capped (a few seconds of a thread),
/// the flooding client is capped (429 beyond its tasks in flight), and the
/// pool serves the clients in turn: a polite client's bot move is taken
/// and answered after at most one of the flooder's jobs, while the rest of
/// the flood still waits. The pool has one thread, and the test decides
/// when it is free (tasks it holds), so the order is asserted by the jobs'
/// states and the pool's counters, never by a clock.
#[test]
fn one_client_filling_the_pool_does_not_keep_another_waiting() {
    // One thread and a queue of five; three heavy requests in flight per
    // client.
    let pool = HeavyPool::new(1, 5).per_client_cap(Some(3));
    let base = common::start_server_with("heavy-fair", 2, Heavy::new(pool.clone()));
    let flooder = Ipv4Addr::new(127, 0, 0, 2);
    let polite = Ipv4Addr::new(127, 0, 0, 3);
    let latecomer = Ipv4Addr::new(127, 0, 0, 4);
    let post =
        |from: Ipv4Addr, path: &str, body: &Value| send_from(from, &base, "POST", path, Some(body));
    let held = pool.occupy().unwrap();

    // The issue's request is refused before it is queued: its budget
    // would hold a thread for half a minute.
    let issue = post(
        flooder,
        "/v1/solitaire/jobs",
        &json!({"board": "rhombus11p36", "max_nodes": 5_000_000, "max_memory_mb": 1024}),
    );
    assert_eq!(issue.status, 422, "{}", issue.body);
    assert_eq!(issue.json()["code"], "max_nodes_out_of_range");
    assert!(
        issue.json()["detail"]
            .as_str()
            .unwrap()
            .contains("1 to 1000000"),
        "{}",
        issue.body
    );
    assert_eq!(pool.outstanding(), 1, "only the test's task");

    // The flood, within the caps: three jobs at the largest budget are
    // queued (each a request's worth), the rest refused with 429 (this
    // client's doing), not 503, though the pool has room. (rhombus4p6 is
    // solved in a few thousand nodes: the jobs cost their budget, and
    // take a moment.)
    let flood = json!({"board": "rhombus4p6", "max_nodes": 1_000_000});
    let mut jobs = Vec::new();
    for _ in 0..3 {
        let created = post(flooder, "/v1/solitaire/jobs", &flood);
        assert_eq!(created.status, 202, "{}", created.body);
        assert_eq!(created.json()["status"], "queued");
        jobs.push(created.location.clone().unwrap());
    }
    for _ in 0..3 {
        let refused = post(flooder, "/v1/solitaire/jobs", &flood);
        assert_eq!(refused.status, 429, "{}", refused.body);
        assert_eq!(refused.content_type, "application/problem+json");
        assert_eq!(refused.json()["code"], "too_many_heavy_requests");
        assert_eq!(refused.retry_after.as_deref(), Some("5"));
    }
    // The flooder's cap counts its bot moves too.
    let bot = full_bot();
    assert_eq!(post(flooder, "/v1/bots/move", &bot).status, 429);
    assert_eq!(pool.client_outstanding(IpAddr::V4(flooder)), 3);
    assert_eq!((pool.outstanding(), pool.waiting()), (4, 3));

    // The polite client's bot move is taken, behind the flood in time.
    let asked = {
        let (base, bot) = (base.clone(), bot.clone());
        std::thread::spawn(move || send_from(polite, &base, "POST", "/v1/bots/move", Some(&bot)))
    };
    until_waiting(&pool, 4);
    // Then a task of the test's own (no address) after it: once it runs it
    // holds the thread, so what ran before it can be read off the jobs.
    let gate = pool.hold(None).unwrap();
    assert_eq!((pool.outstanding(), pool.waiting()), (6, 5));
    // Now the pool is full: a third client hears 503, the server's own
    // refusal (it is nobody's cap).
    let full = post(latecomer, "/v1/render", &json!({"position": START}));
    assert_eq!(full.status, 503, "{}", full.body);
    assert_eq!(full.json()["code"], "busy");

    // Free the thread: it takes the polite client's move (a question asked
    // alone goes ahead of a backlog), then the flooder's first job and the
    // test's gate in turn, and only then the rest of the flood. First
    // come, first served would have run the whole flood before the move.
    held.release();
    let answered = asked.join().unwrap();
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert!(answered.json()["move"].is_object(), "{}", answered.body);
    gate.wait_running();
    let agent = common::agent();
    let view = |url: &str| finish(agent.get(format!("{base}{url}")).call().unwrap()).json();
    let first = view(&jobs[0]);
    assert_eq!(first["status"], "done", "{first}");
    for url in &jobs[1..] {
        let waiting = view(url);
        assert_eq!(waiting["status"], "queued", "{waiting}");
    }
    assert_eq!(pool.client_outstanding(IpAddr::V4(flooder)), 2);
    assert_eq!(pool.client_outstanding(IpAddr::V4(polite)), 0);
    assert_eq!((pool.outstanding(), pool.waiting()), (3, 2));

    // The flood drains once the gate opens; the flooder is served again.
    gate.release();
    pool.wait_until_idle();
    for url in &jobs[1..] {
        assert_eq!(view(url)["status"], "done");
    }
    let again = post(flooder, "/v1/solitaire/jobs", &flood);
    assert_eq!(again.status, 202, "{}", again.body);
    pool.wait_until_idle();
    // Every refusal of the cap is counted, apart from the rates'.
    let metrics = finish(agent.get(format!("{base}/metrics")).call().unwrap()).body;
    assert!(
        metrics.contains("sternhalma_refused_total{limit=\"heavy_per_client\"} 4"),
        "{metrics}"
    );
}

/// The issue's heavy mix from three addresses: each keeps its cap of bot
/// searches in the pool, so the pool's queue is full. A polite client
/// asking for one small bot move is still taken (it holds nothing; an
/// attacker's newest waiting search gives its place, 429 to that
/// attacker), and answered first once the thread is free: ahead of every
/// attacker's backlog. Nobody hears 503.
#[test]
fn a_polite_client_is_served_while_three_addresses_fill_the_pool() {
    // One thread and a queue of six: three attackers at two each fill it.
    let pool = HeavyPool::new(1, 6).per_client_cap(Some(2));
    let base = common::start_server_with("heavy-three", 2, Heavy::new(pool.clone()));
    let held = pool.occupy().unwrap();
    let bot = full_bot();
    let mut attacks = Vec::new();
    for (n, attacker) in [2, 3, 4].into_iter().enumerate() {
        for k in 0..2 {
            let (base, bot) = (base.clone(), bot.clone());
            let from = Ipv4Addr::new(127, 0, 0, attacker);
            attacks.push(std::thread::spawn(move || {
                send_from(from, &base, "POST", "/v1/bots/move", Some(&bot))
            }));
            until_waiting(&pool, 2 * n + k + 1);
        }
    }
    assert_eq!((pool.outstanding(), pool.waiting()), (7, 6), "full");
    // An attacker asking for more is at its cap: 429, its own doing.
    let more = send_from(
        Ipv4Addr::new(127, 0, 0, 2),
        &base,
        "POST",
        "/v1/bots/move",
        Some(&bot),
    );
    assert_eq!(more.status, 429, "{}", more.body);

    let polite = {
        let (base, bot) = (base.clone(), bot.clone());
        std::thread::spawn(move || {
            send_from(
                Ipv4Addr::new(127, 0, 0, 9),
                &base,
                "POST",
                "/v1/bots/move",
                Some(&bot),
            )
        })
    };
    common::wait_until("the polite move to take a place", || {
        (pool.displaced() == 1).then_some(())
    });
    assert_eq!((pool.outstanding(), pool.waiting()), (7, 6));
    // Then a task of the test's own, behind everything: once it runs, what
    // ran before it is over.
    let gate = pool.hold(None);
    assert!(gate.is_err(), "the pool is full for work of no client");
    held.release();
    let answered = polite.join().unwrap();
    assert_eq!(answered.status, 200, "{}", answered.body);
    let replies: Vec<Reply> = attacks.into_iter().map(|a| a.join().unwrap()).collect();
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let refused: Vec<&Reply> = replies.iter().filter(|r| r.status != 200).collect();
    assert_eq!(
        refused.len(),
        1,
        "one attacker's search gave its place: {statuses:?}"
    );
    assert_eq!(refused[0].status, 429, "{}", refused[0].body);
    assert_eq!(refused[0].json()["code"], "too_many_heavy_requests");
    assert_eq!(refused[0].retry_after.as_deref(), Some("5"));
    assert!(
        refused[0].json()["detail"]
            .as_str()
            .unwrap()
            .contains("gave its place"),
        "{}",
        refused[0].body
    );
    pool.wait_until_idle();
}

/// Pictures count by their cost: a thousandth of a search at its cap. A
/// client holding its two searches' worth is refused a picture (429, its
/// own doing); one holding a search and a half still gets its pictures,
/// and a search at a tenth of the cap; the pool counts each at its cost.
#[test]
fn pictures_and_small_budgets_count_by_their_cost() {
    let pool = HeavyPool::new(1, 20).per_client_cap(Some(2));
    let base = common::start_server_with("heavy-cost", 2, Heavy::new(pool.clone()));
    let held = pool.occupy().unwrap();
    let full = Ipv4Addr::new(127, 0, 0, 2);
    let half = Ipv4Addr::new(127, 0, 0, 3);
    let asked = |from: Ipv4Addr, path: &'static str, body: Value| {
        let base = base.clone();
        std::thread::spawn(move || send_from(from, &base, "POST", path, Some(&body)))
    };
    let mut answers = Vec::new();
    for n in 0..2 {
        answers.push(asked(full, "/v1/bots/move", full_bot()));
        until_waiting(&pool, n + 1);
    }
    assert_eq!(pool.client_cost(IpAddr::V4(full)), Cost::requests(2));
    let picture = json!({"position": START});
    let refused = send_from(full, &base, "POST", "/v1/render", Some(&picture));
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.json()["code"], "too_many_heavy_requests");
    assert!(
        refused.json()["detail"]
            .as_str()
            .unwrap()
            .contains("worth 2 requests"),
        "{}",
        refused.body
    );
    // A search at half the cap, then pictures and a tenth: all taken.
    let mut half_bot = full_bot();
    half_bot["bot"]["nodes"] = json!(200_000);
    answers.push(asked(half, "/v1/bots/move", half_bot));
    until_waiting(&pool, 3);
    for n in 0..3 {
        answers.push(asked(half, "/v1/render", picture.clone()));
        until_waiting(&pool, 4 + n);
    }
    let mut tenth = full_bot();
    tenth["bot"]["nodes"] = json!(40_000);
    answers.push(asked(half, "/v1/bots/move", tenth));
    until_waiting(&pool, 7);
    assert_eq!(pool.client_cost(IpAddr::V4(half)).units(), 500 + 3 + 100);
    assert_eq!(pool.outstanding_cost().units(), 1000 + 2000 + 603);
    held.release();
    for answer in answers {
        let answer = answer.join().unwrap();
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    pool.wait_until_idle();
    assert_eq!(pool.outstanding_cost(), Cost::default());
}
