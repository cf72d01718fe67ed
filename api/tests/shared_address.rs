//! A class behind one address cannot spoil the server, and is not spoilt
//! by it: connections are capped per address (the rest shut at once) and a
//! body that does not come ends in a 408, so two addresses cannot take
//! every file of the server; writes with a real token are counted per
//! token, so students behind one NAT each have their own rate, while
//! made-up tokens stay counted against the address. Each over a real
//! socket, with clients told apart by their source address (127.0.0.2,
//! 127.0.0.3, ...). Every assertion is decided by counts and states: a
//! rate is a burst refilled once an hour, and read timeouts only bound a
//! wait that should never come.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::num::NonZeroU32;
use std::time::Duration;

use common::{agent, connect_from, finish, serve_binary};
use serde_json::{Value, json};
use sternhalma_api::{ClientLimits, CorsPolicy, RateLimit, ServerConfig};

const CROWD: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const OTHER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// Longer than any answer should take: a read that waits this long has
/// found a connection held open that should not be.
const NEVER: Duration = Duration::from_secs(120);

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Reads one HTTP/1.1 response (its head and a body of `content-length`
/// bytes) from a connection that stays open; the status and the body.
fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut raw = Vec::new();
    let mut byte = [0_u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "the head ended early");
        raw.push(byte[0]);
    }
    let head = String::from_utf8(raw).unwrap();
    let status = head[9..12].parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("a content-length");
    let mut body = vec![0_u8; length];
    stream.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

/// One request on a connection of its own from `source`, closed after the
/// answer; the whole answer as text.
fn request_from(source: Ipv4Addr, base: &str, path: &str) -> String {
    let mut stream = connect_from(source, base);
    stream.set_read_timeout(Some(NEVER)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: sternhalma\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn metrics(base: &str) -> String {
    agent()
        .get(format!("{base}/metrics"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap()
}

#[test]
fn connections_over_a_clients_cap_are_shut_while_its_others_are_served() {
    let dir = scratch_dir("connections");
    // Two workers, so the count is shared between them; no body timeout
    // within the test.
    let (server, base) = serve_binary(
        &[
            "--connections-per-client",
            "3",
            "--workers",
            "2",
            "--body-timeout-seconds",
            "3600",
        ],
        &dir.join("connections.sqlite3"),
    );
    // The connections: a request head announcing a body that does
    // not come. With `Expect: 100-continue` the server says when it has
    // accepted the connection and read the head (and counted it).
    let body = json!({"board": "rhombus5p3", "layout": "2"}).to_string();
    let head = format!(
        "POST /v1/positions HTTP/1.1\r\nHost: sternhalma\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        body.len()
    );
    let continued = b"HTTP/1.1 100 Continue\r\n\r\n";
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = connect_from(CROWD, &base);
        stream.set_read_timeout(Some(NEVER)).unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let mut answer = [0_u8; 25];
        stream.read_exact(&mut answer).unwrap();
        assert_eq!(&answer, continued);
        held.push(stream);
    }
    // The client holds its three: any more is shut at once, unanswered.
    for _ in 0..3 {
        let mut stream = connect_from(CROWD, &base);
        stream.set_read_timeout(Some(NEVER)).unwrap();
        // The shutdown may be there before the head: writing it may fail.
        let _ = stream.write_all(head.as_bytes());
        let mut answer = [0_u8; 64];
        match stream.read(&mut answer) {
            Ok(0) => {}
            Err(e) if matches!(e.kind(), ErrorKind::ConnectionReset | ErrorKind::BrokenPipe) => {}
            other => panic!(
                "a connection over the cap was kept: {other:?} {:?}",
                String::from_utf8_lossy(&answer)
            ),
        }
    }
    // Another client is served as ever.
    let health = request_from(OTHER, &base, "/healthz");
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    // The three held are still open: each sends its body and is answered.
    for stream in &mut held {
        stream.write_all(body.as_bytes()).unwrap();
        let (status, answer) = read_response(stream);
        assert_eq!(status, 200, "{answer}");
        let position: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(position["side_to_move"], 0, "{answer}");
    }
    let text = metrics(&base);
    assert!(
        text.lines()
            .any(|l| l == "sternhalma_connections_refused_total 3"),
        "{text}"
    );
    // Once they are closed, the client is let in again (counted in
    // attempts: the server notices the closes as it reads them).
    drop(held);
    let mut attempts = 0;
    loop {
        attempts += 1;
        let answer = request_from(CROWD, &base, "/healthz");
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(answer.is_empty(), "{answer}");
        assert!(
            attempts < 1000,
            "the closed connections were never released"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_body_that_does_not_arrive_is_answered_408_and_its_connection_closed() {
    let dir = scratch_dir("body-timeout");
    let (server, base) = serve_binary(
        &["--body-timeout-seconds", "1"],
        &dir.join("body-timeout.sqlite3"),
    );
    let mut stream = connect_from(CROWD, &base);
    stream.set_read_timeout(Some(NEVER)).unwrap();
    // A thousand bytes announced, ten sent.
    write!(
        stream,
        "POST /v1/positions HTTP/1.1\r\nHost: sternhalma\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"board\": "
    )
    .unwrap();
    let mut answer = String::new();
    // Read to the end: the server closes the connection after the answer.
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("content-type: application/problem+json"),
        "{answer}"
    );
    let problem: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(problem["code"], "body_timeout");
    assert_eq!(problem["status"], 408);
    assert_eq!(problem["type"], "urn:sternhalma:problem:body_timeout");
    // A body sent whole is answered as ever.
    let reply = finish(
        agent()
            .post(format!("{base}/v1/positions"))
            .send_json(json!({"board": "rhombus5p3", "layout": "2"}))
            .unwrap(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let text = metrics(&base);
    assert!(
        text.lines()
            .any(|l| l == "sternhalma_request_body_timeouts_total 1"),
        "{text}"
    );
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Write limits of `burst` writes once an hour, per address and per token,
/// with at most `tokens` tokens counted apart per address.
fn server_with_writes(name: &str, burst: u32, tokens: usize) -> String {
    let writes = RateLimit {
        burst: NonZeroU32::new(burst).unwrap(),
        period: Duration::from_secs(3600),
    };
    common::start_server_configured(
        name,
        2,
        ServerConfig {
            limits: ClientLimits::new(Some(writes), None, None)
                .with_write_tokens_per_client(Some(tokens)),
            ..ServerConfig::unlimited(CorsPolicy::Off)
        },
    )
}

fn post(url: &str, token: Option<&str>, body: &Value) -> common::Reply {
    let mut request = agent().post(url);
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    finish(request.send_json(body).unwrap())
}

/// A 429 `rate_limited` whose detail names who sent too much.
fn assert_rate_limited(reply: &common::Reply, who: &str) {
    assert_eq!(reply.status, 429, "{}", reply.body);
    let problem = reply.json();
    assert_eq!(problem["code"], "rate_limited", "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().starts_with(who),
        "{problem}"
    );
    assert!(reply.retry_after.is_some());
}

/// A student's match against a built-in bot: its id, the student's token
/// and the state.
struct Game {
    id: i64,
    token: String,
    state: Value,
}

impl Game {
    fn create(base: &str, seed: u64) -> Game {
        let created = post(
            &format!("{base}/v1/matches"),
            None,
            &json!({"board": "rhombus5p3", "seats": [
                {"name": "student"},
                {"name": "randy", "bot": {"kind": "random", "seed": seed}},
            ]}),
        );
        assert_eq!(created.status, 201, "{}", created.body);
        let created = created.json();
        Game {
            id: created["match"]["id"].as_i64().unwrap(),
            token: created["seat_tokens"][0]["token"]
                .as_str()
                .unwrap()
                .to_owned(),
            state: created["match"].clone(),
        }
    }

    /// Sends the student's next move (the first legal one); the answer.
    fn play(&mut self, base: &str) -> common::Reply {
        // The bot's reply comes with the answer; should it not have, the
        // state is waited for (reads are not limited).
        while self.state["status"] == "in_progress" && self.state["to_move"] != 0 {
            let url = format!(
                "{base}/v1/matches/{}?wait_ply={}&timeout_ms=25000",
                self.id, self.state["ply"]
            );
            self.state = finish(agent().get(url).call().unwrap()).json();
        }
        assert_eq!(self.state["status"], "in_progress", "{}", self.state);
        let reply = post(
            &format!("{base}/v1/matches/{}/moves", self.id),
            Some(&self.token),
            &json!({"ply": self.state["ply"], "move": self.state["legal_moves"][0]["text"]}),
        );
        if reply.status == 200 {
            self.state = reply.json()["match"].clone();
        }
        reply
    }
}

#[test]
fn writes_with_real_tokens_are_counted_per_token_behind_one_address() {
    // Six writes per address, six per token, up to three tokens apart.
    let base = server_with_writes("shared-tokens", 6, 3);
    // Three students behind one address (every request here comes from
    // 127.0.0.1), each with a match: creating them costs the address three
    // of its six writes.
    let mut games: Vec<Game> = (0..3).map(|seed| Game::create(&base, seed)).collect();
    // Each student's first move is counted against the address too (a
    // token counts apart once it has been answered with success), the six
    // after it against the student's own token.
    for round in 0..7 {
        for game in &mut games {
            let reply = game.play(&base);
            assert_eq!(reply.status, 200, "round {round}: {}", reply.body);
        }
    }
    // Each token has spent its own six, whatever the others did.
    for game in &mut games {
        assert_rate_limited(&game.play(&base), "this token");
    }
    // The address has spent its six too: three matches and three first
    // moves. Writes without a token, or with tokens it never played with,
    // are refused.
    let created = post(
        &format!("{base}/v1/matches"),
        None,
        &json!({"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]}),
    );
    assert_rate_limited(&created, "this client");
    let made_up = "0123456789abcdef".repeat(4);
    let forged = post(
        &format!("{base}/v1/matches/{}/moves", games[0].id),
        Some(&made_up),
        &json!({"ply": games[0].state["ply"], "move": games[0].state["legal_moves"][0]["text"]}),
    );
    assert_rate_limited(&forged, "this client");
    let text = metrics(&base);
    assert!(
        text.contains("sternhalma_refused_total{limit=\"writes\"} 5"),
        "{text}"
    );
}

#[test]
fn made_up_tokens_are_counted_against_the_address() {
    let base = server_with_writes("shared-forged", 3, 64);
    let mut game = Game::create(&base, 1);
    let url = format!("{base}/v1/matches/{}/moves", game.id);
    let body = json!({"ply": 0, "move": game.state["legal_moves"][0]["text"]});
    // Each new token would be a new bucket, were tokens taken at their
    // word: they are counted against the address until one is answered
    // with success, which a made-up one never is.
    for seed in 0..2 {
        let forged = format!("{seed:064x}");
        let refused = post(&url, Some(&forged), &body);
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert_eq!(refused.json()["code"], "wrong_token");
    }
    // The match and the two forgeries spent the address's three writes.
    for forged in [
        format!("{:064x}", 2),
        format!("{:064x}", 0),
        "not-a-token".to_owned(),
    ] {
        assert_rate_limited(&post(&url, Some(&forged), &body), "this client");
    }
    // The student's real token has not been answered with success from
    // here yet: its first move is counted against the address as well.
    assert_rate_limited(&game.play(&base), "this client");
}

// A route that does not check tokens answers with success whatever bearer
// it carries (creating a match on a server without an admin key): that
// does not give the bearer a bucket of its own. Only a handler that checked
// the token and accepted it does.
#[test]
fn a_token_a_route_did_not_check_gets_no_bucket_of_its_own() {
    let base = server_with_writes("shared-unchecked", 3, 64);
    let forged = format!("{:064x}", 7);
    let body = json!({"board": "rhombus5p3", "seats": [
        {"name": "a"}, {"name": "b", "bot": {"kind": "random", "seed": 1}},
    ]});
    let url = format!("{base}/v1/matches");
    for _ in 0..3 {
        let created = post(&url, Some(&forged), &body);
        assert_eq!(created.status, 201, "{}", created.body);
    }
    // Had the 201s given it a bucket, this write would pass.
    assert_rate_limited(&post(&url, Some(&forged), &body), "this client");
}

/// A POST of `body` on a connection of its own from `source`; the status
/// and the body.
fn post_from(source: Ipv4Addr, base: &str, path: &str, body: &Value) -> (u16, String) {
    let mut stream = connect_from(source, base);
    stream.set_read_timeout(Some(NEVER)).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: sternhalma\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    read_response(&mut stream)
}

/// What one address may store is capped: past its quota of games (its
/// matches and its tournaments' games) a new match or tournament is refused
/// with 403 `storage_quota_exceeded`, naming the flag, while what it stored
/// plays on, and another address still creates.
#[test]
fn an_address_past_its_storage_quota_is_refused_and_plays_on() {
    let dir = scratch_dir("quota");
    let (_server, base) = serve_binary(
        &["--stored-games-per-client", "2"],
        &dir.join("quota.sqlite3"),
    );
    let new_match = json!({"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]});
    let (status, first) = post_from(CROWD, &base, "/v1/matches", &new_match);
    assert_eq!(status, 201, "{first}");
    let (status, body) = post_from(CROWD, &base, "/v1/matches", &new_match);
    assert_eq!(status, 201, "{body}");
    let (status, body) = post_from(CROWD, &base, "/v1/matches", &new_match);
    assert_eq!(status, 403, "{body}");
    let refused: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(refused["code"], "storage_quota_exceeded");
    let detail = refused["detail"].as_str().unwrap();
    assert!(detail.contains("has stored 2 games"), "{detail}");
    assert!(detail.contains("--stored-games-per-client"), "{detail}");
    let tournament =
        json!({"board": "star2", "layout": "2", "entrants": [{"name": "x"}, {"name": "y"}]});
    let (status, body) = post_from(CROWD, &base, "/v1/tournaments", &tournament);
    assert_eq!(status, 403, "{body}");
    // What it stored plays on: a move in its first match.
    let first: Value = serde_json::from_str(&first).unwrap();
    let id = first["match"]["id"].as_i64().unwrap();
    let token = first["seat_tokens"][0]["token"].as_str().unwrap();
    let mv = first["match"]["legal_moves"][0]["text"].clone();
    let played = finish(
        agent()
            .post(format!("{base}/v1/matches/{id}/moves"))
            .header("Authorization", &format!("Bearer {token}"))
            .send_json(json!({"move": mv, "ply": 0}))
            .unwrap(),
    );
    assert_eq!(played.status, 200, "{}", played.body);
    // Another address still creates.
    let (status, body) = post_from(OTHER, &base, "/v1/matches", &new_match);
    assert_eq!(status, 201, "{body}");
}

/// `sternhalma_connections_open`, from `/metrics` (the scrape's own
/// connection included).
fn connections_open(base: &str) -> u64 {
    metrics(base)
        .lines()
        .find_map(|line| line.strip_prefix("sternhalma_connections_open "))
        .expect("the gauge")
        .trim()
        .parse()
        .unwrap()
}

/// A client that pipelines requests and never reads the answers no longer
/// holds its connection for ever: once the answers it left unread have
/// waited the send timeout (its window shut), the server closes the
/// connection and frees what it held, while another client is served
/// throughout. Decided by the server's count of open connections, waited
/// for, never by a clock.
#[test]
fn a_client_that_never_reads_its_answers_loses_its_connection() {
    use socket2::{Domain, Protocol, Socket, Type};
    let dir = scratch_dir("send-timeout");
    let (_server, base) = serve_binary(
        &["--send-timeout-seconds", "1"],
        &dir.join("send-timeout.sqlite3"),
    );
    let idle = connections_open(&base);
    // A small receive buffer, so its window shuts after a few kilobytes.
    let address: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket
        .bind(&std::net::SocketAddr::from((CROWD, 0)).into())
        .unwrap();
    socket.connect(&address.into()).unwrap();
    let mut slow = TcpStream::from(socket);
    // 64 requests for the OpenAPI document (about 185 kB each): far more
    // than the kernel's buffers hold.
    let request = "GET /openapi.json HTTP/1.1\r\nHost: sternhalma\r\n\r\n".repeat(64);
    slow.write_all(request.as_bytes()).unwrap();
    common::wait_until("the slow reader's connection to count", || {
        (connections_open(&base) > idle).then_some(())
    });
    // Served meanwhile, and until the slow connection is gone.
    let polite = request_from(OTHER, &base, "/healthz");
    assert!(polite.starts_with("HTTP/1.1 200"), "{polite}");
    common::wait_until("the server to close the unread connection", || {
        (connections_open(&base) <= idle).then_some(())
    });
    let polite = request_from(OTHER, &base, "/healthz");
    assert!(polite.starts_with("HTTP/1.1 200"), "{polite}");
    // What the client reads now ends early: far fewer than 64 answers.
    slow.set_read_timeout(Some(NEVER)).unwrap();
    let mut received = Vec::new();
    let _ = slow.read_to_end(&mut received);
    assert!(received.len() < 64 * 150_000, "{} bytes", received.len());
}

/// Near its budget of connections the server makes the address holding
/// the most give way: that address's new connections are shut at once, and
/// another address's new connection shuts its oldest. With an open-file
/// limit of 200 and one worker the budget is 100 connections (100 files
/// kept for the rest), crowded from 90: the crowd holds 90 (each a request
/// head whose body never comes), its next ten are shut, and a polite
/// client is still served, in the place of the crowd's oldest. Without it
/// the crowd would hold all 100 and the polite client would wait in the
/// listen queue. Decided by what each socket reads, never by a clock.
#[test]
fn near_the_budget_the_address_holding_the_most_gives_way() {
    use std::os::unix::process::CommandExt;
    let dir = scratch_dir("crowded");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sternhalma"));
    command
        .args([
            "serve",
            "--port",
            "0",
            "--log-level",
            "warn",
            "--workers",
            "1",
        ])
        .args(["--body-timeout-seconds", "3600"])
        .env("STERNHALMA_DATABASE", dir.join("crowded.sqlite3"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // SAFETY: only a system call between fork and exec.
    unsafe {
        command.pre_exec(|| rlimit::setrlimit(rlimit::Resource::NOFILE, 200, 200));
    }
    let mut child = command.spawn().unwrap();
    let base = common::listening_url(&mut child);
    let _server = common::ServerProcess(child);

    let body = json!({"board": "rhombus5p3", "layout": "2"}).to_string();
    let head = format!(
        "POST /v1/positions HTTP/1.1\r\nHost: sternhalma\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        body.len()
    );
    let continued = b"HTTP/1.1 100 Continue\r\n\r\n";
    let mut held = Vec::new();
    let mut shut = 0;
    for _ in 0..100 {
        let mut stream = connect_from(CROWD, &base);
        stream.set_read_timeout(Some(NEVER)).unwrap();
        let _ = stream.write_all(head.as_bytes());
        let mut answer = [0_u8; 25];
        match stream.read(&mut answer) {
            Ok(25) if &answer == continued => held.push(stream),
            Ok(0) => shut += 1,
            Err(e) if matches!(e.kind(), ErrorKind::ConnectionReset | ErrorKind::BrokenPipe) => {
                shut += 1;
            }
            other => panic!("{other:?} {:?}", String::from_utf8_lossy(&answer)),
        }
    }
    assert_eq!((held.len(), shut), (90, 10));

    // A polite client is served: the crowd's oldest connection gave way.
    let polite = request_from(OTHER, &base, "/healthz");
    assert!(polite.starts_with("HTTP/1.1 200"), "{polite}");
    let ended: Vec<usize> = held
        .iter_mut()
        .enumerate()
        .filter_map(|(n, stream)| {
            stream.set_nonblocking(true).unwrap();
            let mut byte = [0_u8; 1];
            match stream.read(&mut byte) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => None,
                _ => Some(n),
            }
        })
        .collect();
    assert_eq!(ended, [0], "the crowd's oldest connection, and only it");
    let metrics = metrics(&base);
    assert!(
        metrics.contains("sternhalma_connections_closed_for_others_total "),
        "{metrics}"
    );
}
