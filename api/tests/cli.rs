//! The `sternhalma` command itself: serve on a real port with a real SQLite
//! file, stop gracefully on SIGTERM; print the OpenAPI document; solve a
//! solitaire crossing.

mod common;

use std::process::{Command, Stdio};

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sternhalma"))
}

#[test]
fn serve_creates_the_database_answers_and_stops_on_sigterm() {
    let dir =
        sternhalma_store::db::scratch_root().join(format!("sternhalma-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let database = dir.join("class.sqlite3");
    let mut child = binary()
        .args(["serve", "--port", "0", "--log-level", "warn"])
        .env("STERNHALMA_DATABASE", &database)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let url = common::listening_url(&mut child);
    assert!(database.exists(), "the database file is created at start");
    let health: serde_json::Value = ureq::get(format!("{url}/healthz"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(health["status"], "ok");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "graceful shutdown exits 0, got {status}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unreachable_postgres_database_is_a_clear_error_without_its_password() {
    // Port 1 on the loopback: nothing listens there.
    let output = binary()
        .args([
            "serve",
            "--port",
            "0",
            "--database",
            "postgres://ann:s3cret@127.0.0.1:1/ladder",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot open database postgres://ann:***@127.0.0.1:1/ladder"),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cret"), "{stderr}");
}

#[test]
fn a_bad_database_path_is_a_clear_error() {
    let output = binary()
        .args([
            "serve",
            "--port",
            "0",
            "--database",
            "/nonexistent/dir/x.sqlite3",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot open database"), "{stderr}");
}

#[test]
fn openapi_subcommand_prints_the_committed_document() {
    let output = binary().arg("openapi").output().unwrap();
    assert!(output.status.success());
    let printed = String::from_utf8(output.stdout).unwrap();
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../openapi/openapi.json"
    ))
    .unwrap();
    assert_eq!(printed.trim_end(), committed.trim_end());
}

#[test]
fn solve_prints_an_optimal_crossing_and_progress() {
    let output = binary()
        .args(["solve", "--board", "rhombus5p3", "--progress-seconds", "0"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines = stdout.lines();
    let summary = lines.next().unwrap();
    assert!(summary.starts_with("length 11 optimal nodes "), "{summary}");
    let moves: Vec<&str> = lines.next().unwrap().split(' ').collect();
    assert_eq!(moves.len(), 11);
    // The moves replay through the rules and finish the crossing.
    let problem = sternhalma::solitaire::Problem::new("rhombus5p3".parse().unwrap(), false);
    let mut position = problem.start_position();
    for text in moves {
        position = position.play_text(text).unwrap();
    }
    assert!(position.is_home(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("solving rhombus5p3: layout 1, rules classic"),
        "{stderr}"
    );
}

#[test]
fn solve_reports_the_lower_bound_at_the_node_limit() {
    let output = binary()
        .args([
            "solve",
            "--board",
            "rhombus9p6",
            "--max-nodes",
            "40000",
            "--progress-seconds",
            "0",
            "--perimeter-states",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("no solution proven: at least "),
        "{stdout}"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("nodes ") && stderr.contains(" bound "),
        "{stderr}"
    );
    assert!(stderr.contains("node limit reached"), "{stderr}");
}

#[test]
fn a_guessable_admin_key_is_refused_and_admin_key_prints_a_good_one() {
    let serve = |key: &str| {
        binary()
            .args([
                "serve",
                "--port",
                "0",
                "--database",
                "/nonexistent/x.sqlite3",
            ])
            .env("STERNHALMA_ADMIN_KEY", key)
            .output()
            .unwrap()
    };
    let refused = serve("teacher");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("invalid --admin-key") && stderr.contains("sternhalma admin-key"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("teacher"),
        "the key is never printed: {stderr}"
    );

    let printed = binary().arg("admin-key").output().unwrap();
    assert!(printed.status.success());
    let key = String::from_utf8(printed.stdout).unwrap();
    let key = key.trim_end();
    assert!(
        key.len() == 64 && key.chars().all(|c| c.is_ascii_hexdigit()),
        "{key}"
    );
    // Accepted: the start goes on to the database, which does not exist.
    let stderr = String::from_utf8_lossy(&serve(key).stderr).into_owned();
    assert!(
        !stderr.contains("--admin-key") && stderr.contains("cannot open database"),
        "{stderr}"
    );
}

#[test]
fn serve_help_says_what_the_admin_key_and_the_proxies_guard() {
    let output = binary().args(["serve", "--help"]).output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("creating a match or a tournament needs"),
        "{help}"
    );
    assert!(
        flat.contains("at least 128 bits of randomness")
            && flat.contains("`sternhalma admin-key` prints a new one"),
        "{help}"
    );
    assert!(flat.contains("--trusted-proxy"), "{help}");
    assert!(flat.contains("--base-path <PREFIX>"), "{help}");
    assert!(flat.contains("[env: STERNHALMA_BASE_PATH="), "{help}");
}

#[test]
fn a_bad_base_path_is_refused_with_the_reason() {
    for (value, reason) in [
        ("services/game", "a base path starts with /"),
        ("/services/../game", "a base path has no . or .. segment"),
        ("/services//game", "a base path has no empty segment"),
        (
            "/services/game?x",
            "a base path holds only letters, digits, -, ., _, ~ and /, not '?'",
        ),
    ] {
        let output = binary()
            .args(["serve", "--port", "0", "--base-path", value])
            .env("STERNHALMA_DATABASE", "/nonexistent/never-opened.sqlite3")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "invalid value '{value}' for '--base-path <PREFIX>'"
            )),
            "{stderr}"
        );
        assert!(stderr.contains(reason), "{stderr}");
    }
}

#[test]
fn serve_answers_under_its_base_path_from_the_flag_or_the_environment() {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-cli-base-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
    // A trailing slash is dropped.
    let (_server, url) = common::serve_binary(
        &["--base-path", "/services/game/"],
        &dir.join("flag.sqlite3"),
    );
    let status = |url: String| agent.get(url).call().unwrap().status().as_u16();
    assert_eq!(status(format!("{url}/services/game/healthz")), 200);
    assert_eq!(status(format!("{url}/healthz")), 200);
    let docs = agent
        .get(format!("{url}/services/game/docs"))
        .call()
        .unwrap();
    assert_eq!(docs.status().as_u16(), 308);
    assert_eq!(docs.headers()["location"], "/services/game/docs/");
    let mut server = common::ServerProcess(
        binary()
            .args(["serve", "--port", "0", "--log-level", "warn"])
            .env("STERNHALMA_DATABASE", dir.join("env.sqlite3"))
            .env("STERNHALMA_BASE_PATH", "/game")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let url = common::listening_url(&mut server.0);
    assert_eq!(status(format!("{url}/game/v1/catalogue")), 200);
    assert_eq!(status(format!("{url}/gamex/v1/catalogue")), 404);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_operator_restarts_without_resuming_and_stops_a_runaway_tournament() {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-cli-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let database = dir.join("class.sqlite3");
    let serve = |extra: &[&str]| {
        binary()
            .args(["serve", "--port", "0", "--log-level", "info"])
            .args(extra)
            .env("STERNHALMA_DATABASE", &database)
            .env("STERNHALMA_ADMIN_KEY", "class-key-7f3a9c2e4b1d8f6a")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let post = |url: &str, path: &str, body: serde_json::Value| -> serde_json::Value {
        common::agent()
            .post(format!("{url}{path}"))
            .header("Authorization", "Bearer class-key-7f3a9c2e4b1d8f6a")
            .send_json(body)
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap()
    };
    let mut first = serve(&[]);
    let url = common::listening_url(&mut first);
    // Two tournaments waiting for a student who never moves.
    let tournament = || {
        post(
            &url,
            "/v1/tournaments",
            serde_json::json!({
                "board": "star2", "layout": "2", "start": true,
                "move_ms": 3000, "max_timeouts": 1, "games_per_pairing": 1,
                "entrants": [
                    {"name": "a", "bot": {"kind": "random", "seed": 1}},
                    {"name": "student"},
                ],
            }),
        )["tournament"]["id"]
            .as_i64()
            .unwrap()
    };
    let (runaway, later) = (tournament(), tournament());
    first.kill().unwrap();
    first.wait().unwrap();
    // Restarted without resuming: it says so; the operator stops one
    // tournament with the server's admin key.
    let mut second = serve(&["--no-resume"]);
    let url = common::listening_url(&mut second);
    let stopped = post(
        &url,
        &format!("/v1/tournaments/{runaway}/abandon"),
        serde_json::json!({}),
    );
    assert_eq!(stopped["status"], "abandoned", "{stopped}");
    // The other, paused and started again, plays on from where it was
    // left: its game under way is followed again, the student times out
    // and forfeits, the tournament finishes.
    let paused = post(
        &url,
        &format!("/v1/tournaments/{later}/pause"),
        serde_json::json!({}),
    );
    assert_eq!(paused["status"], "paused", "{paused}");
    let started = post(
        &url,
        &format!("/v1/tournaments/{later}/start"),
        serde_json::json!({}),
    );
    assert_eq!(started["status"], "running", "{started}");
    // A bound on the wait, not a measure: the answer is the final state.
    let mut status = String::new();
    for _ in 0..600 {
        let view: serde_json::Value = common::agent()
            .get(format!("{url}/v1/tournaments/{later}"))
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        status = view["status"].as_str().unwrap().to_owned();
        if status == "finished" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(status, "finished", "the left game was followed again");
    let killed = Command::new("kill")
        .args(["-TERM", &second.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = second.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        log.contains("nothing left under way is resumed (--no-resume)"),
        "{log}"
    );
    assert!(
        log.contains("tournaments left running are not resumed"),
        "{log}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
