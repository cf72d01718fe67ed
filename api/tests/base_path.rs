//! A server under a base path (`sternhalma serve --base-path
//! /services/game`, behind a proxy that keeps the prefix), over a real
//! socket: it answers under the prefix and at its root, names the prefix
//! in every address it gives (`Location`, redirects, the pages' links,
//! Swagger UI's document, the OpenAPI servers, the downloads listing), and
//! counts and routes the path without it.

mod common;

use std::sync::OnceLock;

use common::{Reply, agent, finish};
use serde_json::json;
use sternhalma_api::pages::PAGES;
use sternhalma_api::{CorsPolicy, ServerConfig};

const BASE: &str = "/services/game";

/// The server under [`BASE`].
fn server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        common::start_server_configured(
            "base-path",
            2,
            ServerConfig {
                base_path: BASE.parse().unwrap(),
                ..ServerConfig::unlimited(CorsPolicy::Off)
            },
        )
    })
}

/// `GET path` on the server, redirects not followed.
fn get(path: &str) -> Reply {
    get_accepting(path, "application/json")
}

fn get_accepting(path: &str, accept: &str) -> Reply {
    finish(
        agent()
            .get(format!("{}{path}", server()))
            .header("Accept", accept)
            .config()
            .max_redirects(0)
            .build()
            .call()
            .unwrap(),
    )
}

/// The values of `attribute="..."` in an HTML text.
fn attribute_values<'a>(text: &'a str, attribute: &str) -> Vec<&'a str> {
    let needle = format!(" {attribute}=\"");
    text.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &text[i + needle.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

#[test]
fn the_api_answers_under_the_prefix_and_at_the_root() {
    for path in [
        "/services/game/v1/catalogue",
        "/v1/catalogue",
        "/services/game/healthz",
        "/services/game/openapi.json",
        "/services/game/metrics",
    ] {
        let reply = get(path);
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    }
    // The query string goes through with the path.
    for _ in 0..2 {
        let reply = finish(
            agent()
                .post(format!("{}{BASE}/v1/matches", server()))
                .send_json(json!({"seats": [{"name": "Ada"}, {"name": "Grace"}]}))
                .unwrap(),
        );
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let listed = get("/services/game/v1/matches?limit=1").json();
    assert_eq!(listed["matches"].as_array().unwrap().len(), 1, "{listed}");
}

#[test]
fn a_path_that_only_starts_like_the_prefix_is_no_route() {
    for path in ["/services/gamex/v1/catalogue", "/services/v1/catalogue"] {
        let reply = get(path);
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.content_type, "application/problem+json", "{path}");
        assert_eq!(reply.json()["code"], "not_found", "{path}");
    }
    // Under the prefix, an unknown route and a known one with another
    // method are told apart as at the root.
    assert_eq!(get("/services/game/v1/nothing").status, 404);
    let reply = finish(
        agent()
            .post(format!("{}{BASE}/v1/catalogue", server()))
            .send_empty()
            .unwrap(),
    );
    assert_eq!(reply.status, 405);
    assert_eq!(reply.allow.as_deref(), Some("GET"));
}

#[test]
fn created_matches_and_tournaments_are_located_under_the_prefix() {
    // Through the proxy, and at the root (a kernel on the same machine):
    // both are told the address under the prefix, which the server also
    // answers, so it is right for a client on either side of the proxy.
    for root in [BASE, ""] {
        let reply = finish(
            agent()
                .post(format!("{}{root}/v1/matches", server()))
                .send_json(json!({"seats": [{"name": "Ada"}, {"name": "Grace"}]}))
                .unwrap(),
        );
        assert_eq!(reply.status, 201, "{}", reply.body);
        let id = reply.json()["match"]["id"].as_i64().unwrap();
        let location = reply.location.clone().unwrap();
        assert_eq!(location, format!("{BASE}/v1/matches/{id}"));
        assert_eq!(get(&location).status, 200);
        let reply = finish(
            agent()
                .post(format!("{}{root}/v1/tournaments", server()))
                .send_json(json!({
                    "name": "Class 3B",
                    "board": "star2",
                    "layout": "2",
                    "entrants": [{"name": "Ada"}, {"name": "Grace"}],
                }))
                .unwrap(),
        );
        assert_eq!(reply.status, 201, "{}", reply.body);
        let id = reply.json()["tournament"]["id"].as_i64().unwrap();
        let location = reply.location.clone().unwrap();
        assert_eq!(location, format!("{BASE}/v1/tournaments/{id}"));
        assert_eq!(get(&location).status, 200);
    }
}

#[test]
fn redirects_stay_under_the_prefix() {
    for (path, target) in [
        ("/services/game/docs", "/services/game/docs/"),
        ("/services/game/downloads", "/services/game/downloads/"),
        ("/docs", "/services/game/docs/"),
        ("/services/game", "/services/game/"),
        ("/services/game?x=1&y=%20", "/services/game/?x=1&y=%20"),
    ] {
        let reply = get(path);
        assert_eq!(reply.status, 308, "{path}");
        assert_eq!(reply.location.as_deref(), Some(target), "{path}");
    }
}

#[test]
fn swagger_ui_reads_the_document_through_the_prefix_and_tries_it_out_there() {
    let page = get_accepting("/services/game/docs/", "text/html");
    assert_eq!(page.status, 200);
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );
    let initializer = get("/services/game/docs/swagger-initializer.js");
    assert_eq!(initializer.status, 200);
    assert!(
        initializer
            .body
            .contains("\"url\": \"/services/game/openapi.json\""),
        "{}",
        initializer.body
    );
    let document = get("/services/game/openapi.json").json();
    assert_eq!(document["servers"][0]["url"], BASE);
    assert_eq!(document["servers"][1]["url"], "/");
    // The routes are named as at the root: the server is where the prefix goes.
    assert!(document["paths"]["/v1/catalogue"].is_object());
}

#[test]
fn every_page_names_its_links_and_assets_under_the_prefix_and_they_load() {
    for &(pattern, file) in PAGES {
        let path = format!("{BASE}{}", pattern.replace("{id}", "1"));
        let page = get_accepting(&path, "text/html");
        assert_eq!(page.status, 200, "{path}");
        assert!(
            page.body.contains(&format!(
                "<meta name=\"sternhalma-base\" content=\"{BASE}\">"
            )),
            "{file}"
        );
        let links: Vec<&str> = attribute_values(&page.body, "href")
            .into_iter()
            .chain(attribute_values(&page.body, "src"))
            .filter(|link| link.starts_with('/'))
            .collect();
        assert!(links.len() >= 8, "{file}: {links:?}");
        for link in links {
            assert!(link.starts_with(&format!("{BASE}/")), "{file} names {link}");
            let reply = get_accepting(link, "text/html");
            assert_eq!(reply.status, 200, "{file} names {link}");
        }
    }
    // The home page itself, at the prefix with its slash.
    let home = get_accepting("/services/game/", "text/html");
    assert!(home.body.contains("<title>Matches and tournaments"));
    // At the root, the same page: it names the prefix too.
    let root = get_accepting("/", "text/html");
    assert_eq!(root.body, home.body);
}

#[test]
fn a_rewritten_page_revalidates_by_its_own_tag() {
    let tag = |reply: &ureq::http::Response<ureq::Body>| {
        reply
            .headers()
            .get("etag")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap()
    };
    let first = agent()
        .get(format!("{}{BASE}/explorer", server()))
        .call()
        .unwrap();
    let etag = tag(&first);
    let again = agent()
        .get(format!("{}{BASE}/explorer", server()))
        .header("If-None-Match", &etag)
        .call()
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);
    // Without a prefix the page is the file as it is, with the file's tag.
    let plain = plain_server();
    let reply = agent().get(format!("{plain}/explorer")).call().unwrap();
    assert_ne!(tag(&reply), etag);
}

/// A server without a base path.
fn plain_server() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        common::start_server_configured(
            "base-path-none",
            1,
            ServerConfig::unlimited(CorsPolicy::Off),
        )
    })
}

#[test]
fn without_a_prefix_the_pages_are_the_files_byte_for_byte() {
    for (path, text) in [
        ("/", include_str!("../web/index.html")),
        ("/explorer", include_str!("../web/explorer.html")),
        ("/matches/1", include_str!("../web/match.html")),
        ("/tournaments/1", include_str!("../web/tournament.html")),
    ] {
        let body = agent()
            .get(format!("{}{path}", plain_server()))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        assert_eq!(body, text, "{path}");
    }
    let reply = finish(
        agent()
            .get(format!("{}/docs", plain_server()))
            .config()
            .max_redirects(0)
            .build()
            .call()
            .unwrap(),
    );
    assert_eq!(reply.location.as_deref(), Some("/docs/"));
}

#[test]
fn the_downloads_listing_names_the_prefix() {
    let listing = get("/services/game/downloads/").json();
    let find_links = listing["find_links"].as_str().unwrap();
    assert!(
        find_links.ends_with("/services/game/downloads/"),
        "{find_links}"
    );
    for example in listing["examples"].as_array().unwrap() {
        let url = example["url"].as_str().unwrap();
        assert!(url.contains("/services/game/downloads/examples/"), "{url}");
        let run = example["run"].as_str().unwrap();
        assert!(run.contains("/services/game "), "{run}");
    }
    let page = get_accepting("/services/game/downloads/", "text/html");
    assert_eq!(page.status, 200);
    for link in attribute_values(&page.body, "href")
        .into_iter()
        .filter(|link| link.starts_with('/'))
    {
        assert!(link.starts_with(&format!("{BASE}/")), "{link}");
    }
    for link in attribute_values(&page.body, "href")
        .into_iter()
        .filter(|link| link.starts_with("examples/"))
    {
        let reply = get(&format!("{BASE}/downloads/{link}"));
        assert_eq!(reply.status, 200, "{link}");
    }
}

#[test]
fn metrics_count_routes_without_the_prefix() {
    assert_eq!(get("/services/game/v1/boards/star2").status, 200);
    assert_eq!(get("/v1/boards/star2").status, 200);
    let metrics = get("/metrics").body;
    let line = r#"sternhalma_http_requests_total{endpoint="/v1/boards/{board}",method="GET",status="200"}"#;
    let count: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix(line))
        .unwrap_or_else(|| panic!("{metrics}"))
        .trim()
        .parse()
        .unwrap();
    assert!(count >= 2, "{count}");
    assert!(!metrics.contains("endpoint=\"/services"), "{metrics}");
}
