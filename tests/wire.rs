//! The wire-format conformance fixture (`tests/fixtures/wire.json`) run
//! against the core. The HTTP API (`api/tests/wire.rs`) and the Python
//! module (`tests/python/test_wire_fixture.py`) run the same file.

use serde_json::{Value, json};
use sternhalma::{Cell, ParseErrorKind, Position, wire};

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/wire.json"
    ))
    .expect("the fixture is there");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

fn cases<'a>(fixture: &'a Value, section: &str) -> &'a [Value] {
    fixture[section].as_array().expect("a list of cases")
}

/// What a case expects: the normal form (`key`) or an error `code`.
fn expected(case: &Value, key: &str) -> Result<String, String> {
    match case.get("code") {
        Some(code) => Err(code.as_str().unwrap().to_owned()),
        None => Ok(case[key].as_str().unwrap().to_owned()),
    }
}

#[test]
fn positions() {
    let fixture = fixture();
    for case in cases(&fixture, "positions") {
        let got = wire::position(&case["input"])
            .map(|p| p.to_string())
            .map_err(|e| e.code().to_owned());
        assert_eq!(got, expected(case, "position_string"), "{}", case["name"]);
    }
}

#[test]
fn rules() {
    let fixture = fixture();
    for case in cases(&fixture, "rules") {
        let got = wire::rules(&case["input"])
            .map(|r| r.to_string())
            .map_err(|e| e.code().to_owned());
        assert_eq!(got, expected(case, "text"), "{}", case["name"]);
    }
}

#[test]
fn new_games() {
    let fixture = fixture();
    for case in cases(&fixture, "new_games") {
        let got = match wire::new_game(&case["input"]) {
            Err(e) => Err(e.code().to_owned()),
            Ok(game) => game
                .start()
                .map(|p| p.to_string())
                .map_err(|e| e.code().to_owned()),
        };
        assert_eq!(got, expected(case, "position_string"), "{}", case["name"]);
    }
}

#[test]
fn moves() {
    let fixture = fixture();
    for case in cases(&fixture, "moves") {
        let position: Position = case["position"].as_str().unwrap().parse().unwrap();
        let got = wire::move_text(&case["move"])
            .map_err(|e| e.code().to_owned())
            .and_then(|text| position.resolve(&text).map_err(|e| e.code().to_owned()))
            .map(|played| {
                let ids = |cells: &[Cell]| cells.iter().map(|c| c.id()).collect::<Vec<_>>();
                let view = json!({
                    "text": played.mv.to_string(),
                    "kind": played.mv.kind(),
                    "path": ids(&played.path),
                    "player": played.player,
                    "swapped": played.swapped.map(|s| json!({
                        "player": s.player, "from": s.from.id(), "to": s.to.id()
                    })),
                });
                (view, position.after(&played).to_string())
            });
        match (got, case.get("code")) {
            (Ok((view, after)), None) => {
                assert_eq!(view, case["played"], "{}", case["name"]);
                assert_eq!(after, case["after"].as_str().unwrap(), "{}", case["name"]);
            }
            (Err(code), Some(expected)) => assert_eq!(code, *expected, "{}", case["name"]),
            (got, _) => panic!("{}: got {got:?}", case["name"]),
        }
    }
}

/// Every code a wire-format error can have appears in the fixture, so every
/// surface is checked on every code.
#[test]
fn the_fixture_covers_every_parse_error_code() {
    let text = serde_json::to_string(&fixture()).unwrap();
    for kind in ParseErrorKind::ALL {
        assert!(
            text.contains(&format!("\"code\":\"{}\"", kind.code())),
            "no case with code {}",
            kind.code()
        );
    }
    assert!(text.contains("\"code\":\"invalid_position\""));
}

/// `wire::outcome` reads back every outcome as the views write it (the
/// status with its detail, as serde tags it, and the results), and names
/// what is wrong with another shape.
#[test]
fn outcomes_read_back() {
    use sternhalma::{DrawReason, Outcome};
    let outcomes = [
        (Outcome::InProgress, 2),
        (Outcome::Won { winner: 1 }, 2),
        (
            Outcome::Tie {
                winners: vec![0, 2],
            },
            3,
        ),
        (
            Outcome::Ranking {
                ranks: vec![vec![3], vec![0, 1], vec![2]],
            },
            4,
        ),
        (
            Outcome::Draw {
                reason: DrawReason::MoveLimit,
            },
            2,
        ),
        (
            Outcome::Draw {
                reason: DrawReason::NoMoves,
            },
            6,
        ),
    ];
    for (outcome, players) in outcomes {
        let mut view = serde_json::to_value(&outcome).unwrap();
        view["results"] = json!(outcome.results(players));
        view["summary"] = json!(outcome.to_string());
        view["finished"] = json!([]);
        assert_eq!(wire::outcome(&view), Ok((outcome, players)), "{view}");
    }
    for (view, says) in [
        (
            json!({"status": "lost", "results": []}),
            "no outcome status",
        ),
        (json!({"status": "won", "results": [0, 0]}), "winner"),
        (
            json!({"status": "won", "winner": 2, "results": [0, 0]}),
            "player 2",
        ),
        (json!({"status": "tie", "winners": [0, 1]}), "results"),
        (
            json!({"status": "ranking", "ranks": [0], "results": [0, 0]}),
            "ranks[0]",
        ),
        (
            json!({"status": "draw", "reason": "rain", "results": [0, 0]}),
            "no draw reason",
        ),
        (
            json!({"status": "in_progress", "results": [], "extra": 1}),
            "extra",
        ),
    ] {
        let error = wire::outcome(&view).unwrap_err();
        assert!(error.to_string().contains(says), "{view}: {error}");
        assert!(matches!(
            error.kind(),
            ParseErrorKind::Json | ParseErrorKind::MissingField
        ));
    }
}
