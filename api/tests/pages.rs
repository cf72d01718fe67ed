//! The web board's pages and the match picture over a real socket: every
//! page and asset is served from the binary with its security headers,
//! every asset a page names exists, no page has an inline script, and a
//! match's board picture is the core's SVG at any ply.

mod common;

use std::sync::OnceLock;

use common::{agent, finish};
use serde_json::{Value, json};
use sternhalma::{Triangle, triangle_colour};
use sternhalma_api::pages::{CONTENT_SECURITY_POLICY, PAGES};

fn server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| common::start_server("pages", 2))
}

/// Status, the headers asked for, and the body.
fn fetch(path: &str, headers: &[(&str, &str)]) -> (u16, Vec<Option<String>>, String) {
    let mut request = agent().get(format!("{}{path}", server()));
    for &(name, value) in headers {
        request = request.header(name, value);
    }
    let mut response = request.call().unwrap();
    let wanted = [
        "content-type",
        "content-security-policy",
        "x-content-type-options",
        "etag",
        "cache-control",
    ];
    let values = common::header_values(&response, &wanted);
    let body = response.body_mut().read_to_string().unwrap_or_default();
    (response.status().as_u16(), values, body)
}

/// The values of `attribute="..."` in an HTML or JS text.
fn attribute_values<'a>(text: &'a str, attribute: &str) -> Vec<&'a str> {
    let needle = format!("{attribute}=\"");
    text.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &text[i + needle.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn every_page_is_served_with_its_security_headers_and_no_inline_script() {
    for &(pattern, file) in PAGES {
        let path = pattern.replace("{id}", "1");
        let (status, headers, body) = fetch(&path, &[]);
        assert_eq!(status, 200, "{path}");
        assert_eq!(
            headers[0].as_deref(),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        assert_eq!(headers[1].as_deref(), Some(CONTENT_SECURITY_POLICY));
        assert_eq!(headers[2].as_deref(), Some("nosniff"));
        assert!(body.starts_with("<!doctype html>"), "{file}");
        assert!(body.contains("<html lang=\"en\">"), "{file}");
        // Scripts only from files: each <script> has a src, and no
        // element carries an inline style or an event handler.
        assert_eq!(
            body.matches("<script").count(),
            attribute_values(&body, "src").len(),
            "{file}"
        );
        assert!(!body.contains(" style=\""), "{file}");
        assert!(!body.contains(" onclick="), "{file}");
        // Everything a page links to on this server is there.
        for link in attribute_values(&body, "src")
            .into_iter()
            .chain(attribute_values(&body, "href"))
            .filter(|l| l.starts_with("/assets/"))
        {
            let (status, headers, _) = fetch(link, &[]);
            assert_eq!(status, 200, "{file} links {link}");
            assert_eq!(headers[1].as_deref(), Some(CONTENT_SECURITY_POLICY));
        }
    }
}

#[test]
fn every_module_import_resolves_to_an_asset() {
    let mut modules: Vec<String> = PAGES
        .iter()
        .flat_map(|&(pattern, _)| {
            let (_, _, body) = fetch(&pattern.replace("{id}", "1"), &[]);
            attribute_values(&body, "src")
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut seen = Vec::new();
    while let Some(module) = modules.pop() {
        if seen.contains(&module) {
            continue;
        }
        let (status, headers, body) = fetch(&module, &[]);
        assert_eq!(status, 200, "{module}");
        assert_eq!(
            headers[0].as_deref(),
            Some("text/javascript; charset=utf-8")
        );
        for line in body.lines().filter(|l| l.starts_with("import ")) {
            let target = line
                .rsplit_once("from \"./")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(name, _)| format!("/assets/js/{name}"))
                .unwrap_or_else(|| panic!("{module}: unexpected import {line}"));
            modules.push(target);
        }
        seen.push(module);
    }
    assert!(seen.len() > 3, "{seen:?}");
}

#[test]
fn assets_revalidate_and_stay_inside_their_folder() {
    let (status, headers, _) = fetch("/assets/site.css", &[]);
    assert_eq!(status, 200);
    assert_eq!(headers[0].as_deref(), Some("text/css; charset=utf-8"));
    assert_eq!(headers[4].as_deref(), Some("no-cache"));
    let tag = headers[3].clone().expect("an ETag");
    let (status, _, body) = fetch("/assets/site.css", &[("If-None-Match", &tag)]);
    assert_eq!((status, body.as_str()), (304, ""));
    for path in [
        "/assets/nothing.js",
        "/assets/../Cargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/assets/",
    ] {
        let reply = finish(agent().get(format!("{}{path}", server())).call().unwrap());
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.content_type, "application/problem+json");
    }
    // A page path with another method is a known route: 405.
    let reply = finish(
        agent()
            .post(format!("{}/explorer", server()))
            .send_empty()
            .unwrap(),
    );
    assert_eq!(reply.status, 405);
}

#[test]
fn the_palette_is_the_cores() {
    let (status, headers, body) = fetch("/assets/palette.css", &[]);
    assert_eq!(status, 200);
    assert_eq!(headers[0].as_deref(), Some("text/css; charset=utf-8"));
    for triangle in Triangle::ALL {
        let class = format!(
            ".set-{} {{ --set: {}; }}",
            triangle.name().replace('_', "-"),
            triangle_colour(triangle)
        );
        assert!(body.contains(&class), "{class}");
    }
}

fn post(path: &str, body: &Value, token: Option<&str>) -> Value {
    let mut request = agent().post(format!("{}{path}", server()));
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let reply = finish(request.send_json(body).unwrap());
    assert!(reply.status < 300, "{path}: {}", reply.body);
    reply.json()
}

/// The `cy` of a hole in a picture.
fn hole_y(svg: &str, hole: usize) -> f64 {
    let start = svg
        .find(&format!("class=\"hole\" data-hole=\"{hole}\" "))
        .unwrap();
    let rest = &svg[start..];
    attribute_values(rest, "cy")[0].parse().unwrap()
}

#[test]
fn a_matchs_board_is_drawn_at_any_ply_with_the_last_move() {
    let created = post(
        "/v1/matches",
        &json!({"seats": [{"name": "Ada"}, {"name": "Grace"}]}),
        None,
    );
    let id = created["match"]["id"].as_i64().unwrap();
    let tokens: Vec<String> = created["seat_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["token"].as_str().unwrap().to_owned())
        .collect();
    post(
        &format!("/v1/matches/{id}/moves"),
        &json!({"ply": 0, "move": "115-104"}),
        Some(&tokens[0]),
    );
    post(
        &format!("/v1/matches/{id}/moves"),
        &json!({"ply": 1, "move": "5-16"}),
        Some(&tokens[1]),
    );
    let board = |query: &str, headers: &[(&str, &str)]| {
        fetch(&format!("/v1/matches/{id}/board.svg{query}"), headers)
    };

    let (status, headers, start) = board("?ply=0", &[]);
    assert_eq!(status, 200);
    assert_eq!(headers[0].as_deref(), Some("image/svg+xml"));
    assert_eq!(
        headers[4].as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    assert!(start.contains("<title>star4 classic"));
    assert_eq!(start.matches("data-hole=").count(), 121 + 20);
    assert!(!start.contains("path-segment"));

    let (_, _, first) = board("?ply=1", &[]);
    assert!(first.contains(" south:104,"), "{first}");
    assert_eq!(first.matches("class=\"path-segment\"").count(), 1);
    assert!(first.contains(">player 1 to move, ply 1</text>"));

    let (status, headers, now) = board("", &[]);
    assert_eq!(status, 200);
    assert_eq!(headers[4].as_deref(), Some("no-cache"));
    assert!(now.contains(">player 0 to move, ply 2</text>"));
    assert_eq!(now.matches("class=\"path-segment\"").count(), 1);
    assert_eq!(board("?ply=2", &[]).2, now);
    let tag = headers[3].clone().expect("an ETag on the current picture");
    let (status, _, body) = board("", &[("If-None-Match", &tag)]);
    assert_eq!((status, body.as_str()), (304, ""));

    // Turned for the north player: hole 0 (north's tip) is now lowest.
    let (_, _, turned) = board("?bottom=north&size=300&ids=true", &[]);
    assert!(hole_y(&turned, 0) > hole_y(&turned, 120));
    assert!(hole_y(&now, 0) < hole_y(&now, 120));
    assert!(turned.contains("width=\"300\""));
    assert!(turned.contains("class=\"hole-id\""));

    for (query, status, code) in [
        ("?ply=3", 422, "no_such_ply"),
        ("?size=10", 422, "invalid_size"),
        ("?bottom=up", 400, "malformed_query"),
        ("?colour=red", 400, "malformed_query"),
    ] {
        let reply = finish(
            agent()
                .get(format!("{}/v1/matches/{id}/board.svg{query}", server()))
                .call()
                .unwrap(),
        );
        assert_eq!(reply.status, status, "{query}: {}", reply.body);
        assert_eq!(reply.json()["code"], code, "{query}");
    }
    let missing = finish(
        agent()
            .get(format!("{}/v1/matches/999999/board.svg", server()))
            .call()
            .unwrap(),
    );
    assert_eq!(missing.status, 404);
}
