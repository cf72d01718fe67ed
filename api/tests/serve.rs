//! The real `sternhalma serve` as a class meets it: the access log names
//! every client and no secret (the admin key, seat and admin tokens travel
//! in headers, which are not logged); a long-poll whose client went away
//! frees its slot at once.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{ServerProcess, agent, serve_binary};
use serde_json::{Value, json};

#[test]
fn the_access_log_names_the_client_and_no_secret() {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-access-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = "teacher-key-5f1c0e9a7b3d";
    let mut server = ServerProcess(
        Command::new(env!("CARGO_BIN_EXE_sternhalma"))
            .args(["serve", "--port", "0", "--log-level", "info"])
            .env("STERNHALMA_DATABASE", dir.join("log.sqlite3"))
            .env("STERNHALMA_ADMIN_KEY", key)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut server.0;
    let url = common::listening_url(child);
    let agent = agent();
    let created: Value = agent
        .post(format!("{url}/v1/matches"))
        .header("Authorization", format!("Bearer {key}"))
        .send_json(json!({"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]}))
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let id = created["match"]["id"].as_i64().unwrap();
    let seat_token = created["seat_tokens"][0]["token"].as_str().unwrap();
    let admin_token = created["admin_token"].as_str().unwrap();
    let first_move = created["match"]["legal_moves"][0]["text"].clone();
    let moved = agent
        .post(format!("{url}/v1/matches/{id}/moves"))
        .header("Authorization", format!("Bearer {seat_token}"))
        .send_json(json!({"ply": 0, "move": first_move}))
        .unwrap();
    assert_eq!(moved.status(), 200);
    let wrong = agent
        .post(format!("{url}/v1/matches"))
        .header("Authorization", format!("Bearer {seat_token}"))
        .send_json(json!({}))
        .unwrap();
    assert_eq!(wrong.status(), 403);
    let abandoned = agent
        .post(format!("{url}/v1/matches/{id}/abandon"))
        .header("Authorization", format!("Bearer {admin_token}"))
        .send_empty()
        .unwrap();
    assert_eq!(abandoned.status(), 200);
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let access: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("sternhalma::http"))
        .collect();
    assert_eq!(access.len(), 4, "one line a request:\n{log}");
    for line in &access {
        assert!(line.contains("127.0.0.1 \""), "no client address: {line}");
    }
    assert!(access[1].contains(&format!("\"POST /v1/matches/{id}/moves HTTP/1.1\" 200")));
    for secret in [key, seat_token, admin_token] {
        assert!(!log.contains(secret), "a secret is in the log:\n{log}");
    }
    assert!(
        log.contains("admin_key=true"),
        "the key's presence is logged:\n{log}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Reads `/metrics` until `line` is in it (the server reached that state);
/// fails if it never does in 1,500 reads (15 s at the very least: half the
/// long-poll's timeout, so a slot freed only by the timeout fails).
fn wait_for_metric(url: &str, line: &str) {
    for _ in 0..1500 {
        let text = agent()
            .get(format!("{url}/metrics"))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        if text.lines().any(|l| l == line) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("/metrics never showed {line}");
}

#[test]
fn a_long_poll_left_by_its_client_frees_its_slot() {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-left-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (server, url) = serve_binary(&["--long-polls-per-client", "1"], &dir.join("left.sqlite3"));
    let created: Value = agent()
        .post(format!("{url}/v1/matches"))
        .send_json(json!({"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]}))
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let id = created["match"]["id"].as_i64().unwrap();
    let wait = format!("/v1/matches/{id}?wait_ply=0&timeout_ms=30000");
    let address = url.strip_prefix("http://").unwrap();
    let mut socket = TcpStream::connect(address).unwrap();
    write!(socket, "GET {wait} HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    wait_for_metric(&url, "sternhalma_long_polls_open 1");
    let refused = agent().get(format!("{url}{wait}")).call().unwrap();
    assert_eq!(refused.status(), 429, "the one slot is taken");
    // The client goes away 30 s before its timeout: the slot is free again.
    drop(socket);
    wait_for_metric(&url, "sternhalma_long_polls_open 0");
    let answered = agent()
        .get(format!("{url}/v1/matches/{id}?wait_ply=0&timeout_ms=0"))
        .call()
        .unwrap();
    assert_eq!(answered.status(), 200);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every log file of `folder` (the current one and the rotated ones):
/// their text together, and their size in all.
fn log_files(folder: &std::path::Path) -> (String, u64) {
    let mut text = String::new();
    let mut size = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        size += bytes.len() as u64;
        text.push_str(&String::from_utf8_lossy(&bytes));
    }
    (text, size)
}

#[test]
fn one_address_flooding_the_log_is_left_out_and_counted_and_the_file_stays_small() {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-log-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A long request line: each would log over 500 bytes.
    let long = format!("/healthz?{}", "a".repeat(4000));
    let flood = |url: &str| {
        let agent = agent();
        for _ in 0..1500 {
            assert_eq!(
                agent.get(format!("{url}{long}")).call().unwrap().status(),
                200
            );
        }
    };

    // Within a budget of 5 lines a second (25 at once): most of the flood
    // is left out, and a later line says how much.
    let budgeted = dir.join("budgeted");
    let file = budgeted.join("server.log");
    let (server, url) = common::serve_binary_logging(
        "info",
        &[
            "--log-file",
            file.to_str().unwrap(),
            "--log-lines-per-second",
            "5",
        ],
        &dir.join("budgeted.sqlite3"),
    );
    let flooding = std::time::Instant::now();
    flood(&url);
    let took = flooding.elapsed().as_secs_f64();
    let told = common::wait_until("a line counting what the budget left out", || {
        agent().get(format!("{url}/healthz")).call().unwrap();
        let (text, _) = log_files(&budgeted);
        text.lines()
            .find(|l| l.contains("access-log lines suppressed"))
            .map(str::to_owned)
    });
    assert!(told.contains("127.0.0.1 - "), "{told}");
    let (text, _) = log_files(&budgeted);
    let written = text.lines().filter(|l| l.contains("GET /healthz?")).count();
    // The burst, then 5 a second for as long as the flood took (however
    // busy the machine made it), and a second's more for the edges.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let allowed = 25 + (5.0 * (took + 1.0)).ceil() as usize;
    assert!(
        (25..=allowed).contains(&written),
        "{written} of 1500 flood lines written in {took:.1} s, at most {allowed}"
    );
    drop(server);

    // Without a budget, the file rotates: 50 kB in all, however much is
    // written.
    let rotated = dir.join("rotated");
    let (server, url) = common::serve_binary_logging(
        "info",
        &[
            "--log-file",
            rotated.join("server.log").to_str().unwrap(),
            "--log-file-max-mb",
            "0.05",
            "--log-lines-per-second",
            "0",
        ],
        &dir.join("rotated.sqlite3"),
    );
    flood(&url);
    drop(server);
    let (text, size) = log_files(&rotated);
    let files = std::fs::read_dir(&rotated).unwrap().count();
    assert!(files <= 5, "{files} files");
    // Each file may pass its share by one write of the log's buffer.
    assert!(size <= 50_000 + 5 * 65_536, "{size} bytes kept");
    assert!(
        text.lines().filter(|l| l.contains("GET /healthz?")).count() < 1500,
        "older lines were removed"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_nearly_full_disk_refuses_new_matches_keeps_the_games_going_and_loses_nothing() {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-disk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let database = dir.join("class.sqlite3");
    let create = |url: &str| {
        agent()
            .post(format!("{url}/v1/matches"))
            .send_json(json!({"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]}))
            .unwrap()
    };
    let (server, url) = serve_binary(&[], &database);
    let created: Value = create(&url).body_mut().read_json().unwrap();
    drop(server);
    let id = created["match"]["id"].as_i64().unwrap();
    let token = created["seat_tokens"][0]["token"].as_str().unwrap();

    // More free space asked for than any disk has: the disk is "full".
    let (server, url) = serve_binary(&["--min-free-disk-mb", "1000000000000"], &database);
    let mut refused = create(&url);
    assert_eq!(refused.status(), 507);
    let problem: Value = refused.body_mut().read_json().unwrap();
    assert_eq!(problem["code"], "disk_full");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("nothing stored before is lost"),
        "{problem}"
    );
    // The game under way goes on, and what was stored reads back.
    let moved = agent()
        .post(format!("{url}/v1/matches/{id}/moves"))
        .header("Authorization", format!("Bearer {token}"))
        .send_json(json!({"ply": 0, "move": created["match"]["legal_moves"][0]["text"]}))
        .unwrap();
    assert_eq!(moved.status(), 200);
    let state: Value = agent()
        .get(format!("{url}/v1/matches/{id}"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(state["ply"], 1);
    drop(server);

    // Space again: new matches are taken.
    let (_server, url) = serve_binary(&[], &database);
    assert_eq!(create(&url).status(), 201);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small filesystem of its own (a 4 MB tmpfs), mounted for the test, or
/// `None` where mounting is not allowed (not root): the test says so and
/// checks nothing there. As root (as the suite runs in CI) a failed mount
/// fails the test.
fn small_filesystem(name: &str) -> Option<std::path::PathBuf> {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(&dir)
        .status()
        .is_ok_and(|status| status.success());
    // /proc/self belongs to the process's user.
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    if !mounted {
        assert!(!root, "as root, a tmpfs must mount at {}", dir.display());
        eprintln!("not root: no small filesystem to fill, nothing checked");
        return None;
    }
    Some(dir)
}

/// The disk really full: a SQLite database on a 4 MB filesystem, filled
/// up by another file. Every write is refused cleanly (507 `disk_full`,
/// nothing half-stored), reads go on, and once the space is back the
/// server takes writes again, with every move acknowledged before still
/// there.
#[test]
fn a_full_filesystem_refuses_writes_cleanly_and_recovers_when_space_returns() {
    let Some(dir) = small_filesystem("full-fs") else {
        return;
    };
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
            let _ = std::fs::remove_dir(&self.0);
        }
    }
    let _unmount = Unmount(dir.clone());
    let database = dir.join("class.sqlite3");
    // No free space kept: SQLite meets the full disk itself.
    let (_server, url) = serve_binary(&["--min-free-disk-mb", "0"], &database);
    let create = || {
        agent()
            .post(format!("{url}/v1/matches"))
            .send_json(json!({"board": "rhombus5p3", "seats": [{"name": "a"}, {"name": "b"}]}))
            .unwrap()
    };
    let created: Value = create().body_mut().read_json().unwrap();
    let id = created["match"]["id"].as_i64().unwrap();
    let tokens = [
        created["seat_tokens"][0]["token"]
            .as_str()
            .unwrap()
            .to_owned(),
        created["seat_tokens"][1]["token"]
            .as_str()
            .unwrap()
            .to_owned(),
    ];
    let play = |ply: u64| {
        let state: Value = agent()
            .get(format!("{url}/v1/matches/{id}"))
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        let mv = state["legal_moves"][0]["text"].clone();
        let seat = usize::try_from(state["position"]["side_to_move"].as_u64().unwrap()).unwrap();
        agent()
            .post(format!("{url}/v1/matches/{id}/moves"))
            .header("Authorization", format!("Bearer {}", tokens[seat]))
            .send_json(json!({"ply": ply, "move": mv}))
            .unwrap()
    };
    assert_eq!(play(0).status(), 200);

    // Another file takes every byte left.
    let filler = dir.join("filler");
    {
        use std::io::Write;
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0_u8; 64 * 1024];
        loop {
            match file.write(&block) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        let _ = file.sync_all();
    }
    // Writes until the disk refuses one: each answered 200 or 201 (stored,
    // and acknowledged) or 507 (refused, nothing stored); never a 500.
    let mut acknowledged = 1;
    let mut refused = None;
    for _ in 0..200 {
        let mut answer = play(acknowledged);
        match answer.status().as_u16() {
            200 => acknowledged += 1,
            507 => {
                refused = Some(answer.body_mut().read_json::<Value>().unwrap());
                break;
            }
            other => panic!("a move on a full disk answered {other}"),
        }
    }
    let refused = refused.expect("the full disk refused a write");
    assert_eq!(refused["code"], "disk_full", "{refused}");
    assert_eq!(create().status(), 507);
    // Reads go on, and show every acknowledged move.
    let state: Value = agent()
        .get(format!("{url}/v1/matches/{id}"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(state["ply"], acknowledged);

    // Space again: writes are taken, and nothing acknowledged was lost.
    std::fs::remove_file(&filler).unwrap();
    assert_eq!(play(acknowledged).status(), 200);
    assert_eq!(create().status(), 201);
    let state: Value = agent()
        .get(format!("{url}/v1/matches/{id}"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(state["ply"], acknowledged + 1);
}
