//! The wire-format conformance fixture (`tests/fixtures/wire.json`) run
//! against the API over a real socket: the same cases the core
//! (`tests/wire.rs`) and the Python module (`tests/python/test_wire_fixture.py`)
//! run, so the three surfaces cannot drift.

mod common;

use serde_json::{Value, json};

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/wire.json"
    ))
    .expect("the fixture is there");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// POSTs `body` to `path`: `Ok(answer)` for a 200, else `Err(code)` of the
/// problem, after checking that the problem's status fits the code (400
/// only for JSON of the wrong shape).
fn post(base: &str, path: &str, body: &Value) -> Result<Value, String> {
    let mut response = common::agent()
        .post(format!("{base}{path}"))
        .send_json(body)
        .unwrap();
    let status = response.status().as_u16();
    let answer: Value = response.body_mut().read_json().unwrap();
    if status == 200 {
        return Ok(answer);
    }
    let code = answer["code"].as_str().unwrap().to_owned();
    let expected_status = if code == "malformed_json" { 400 } else { 422 };
    assert_eq!(status, expected_status, "{path} {body}: {answer}");
    assert!(
        !answer["detail"].as_str().unwrap().is_empty(),
        "a problem says what went wrong"
    );
    Err(code)
}

fn expected(case: &Value, key: &str) -> Result<String, String> {
    match case.get("code") {
        Some(code) => Err(code.as_str().unwrap().to_owned()),
        None => Ok(case[key].as_str().unwrap().to_owned()),
    }
}

#[test]
fn every_case_of_the_fixture_over_http() {
    let base = common::start_server("wire", 2);
    let fixture = fixture();
    let mut checked = 0;
    for case in fixture["positions"].as_array().unwrap() {
        let got = post(
            &base,
            "/v1/positions/validate",
            &json!({"position": case["input"]}),
        )
        .map(|view| view["position_string"].as_str().unwrap().to_owned());
        assert_eq!(got, expected(case, "position_string"), "{}", case["name"]);
        checked += 1;
    }
    for case in fixture["rules"].as_array().unwrap() {
        let got = post(&base, "/v1/positions", &json!({"rules": case["input"]}))
            .map(|view| view["rules"]["text"].as_str().unwrap().to_owned());
        assert_eq!(got, expected(case, "text"), "{}", case["name"]);
        checked += 1;
    }
    for case in fixture["new_games"].as_array().unwrap() {
        let got = post(&base, "/v1/positions", &case["input"])
            .map(|view| view["position_string"].as_str().unwrap().to_owned());
        assert_eq!(got, expected(case, "position_string"), "{}", case["name"]);
        checked += 1;
    }
    for case in fixture["moves"].as_array().unwrap() {
        let got = post(
            &base,
            "/v1/apply",
            &json!({"position": case["position"], "move": case["move"]}),
        );
        match (got, case.get("code")) {
            (Ok(applied), None) => {
                let played = &applied["played"];
                let view = json!({
                    "text": played["move"]["text"],
                    "kind": played["move"]["kind"],
                    "path": played["move"]["path"],
                    "player": played["player"],
                    "swapped": played["swapped"],
                });
                assert_eq!(view, case["played"], "{}", case["name"]);
                assert_eq!(
                    applied["position"]["position_string"], case["after"],
                    "{}",
                    case["name"]
                );
            }
            (Err(code), Some(expected)) => assert_eq!(code, *expected, "{}", case["name"]),
            (got, _) => panic!("{}: got {got:?}", case["name"]),
        }
        checked += 1;
    }
    assert!(checked > 60, "only {checked} cases");
}
