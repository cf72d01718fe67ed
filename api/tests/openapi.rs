//! The committed OpenAPI document is the one the code generates.

#[test]
fn committed_document_matches_the_code() {
    let generated = sternhalma_api::openapi()
        .to_pretty_json()
        .expect("the document serialises");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed.trim_end() == generated.trim_end(),
        "openapi/openapi.json is out of date; regenerate it with\n    cargo run --release -p sternhalma-api -- openapi > openapi/openapi.json"
    );
}

#[test]
fn every_operation_documents_its_errors() {
    let document: serde_json::Value =
        serde_json::from_str(&sternhalma_api::openapi().to_json().unwrap()).unwrap();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            assert!(
                responses.keys().any(|status| status.starts_with('2')),
                "{method} {path} documents no success"
            );
            // Operations with a JSON body answer the body errors; resign
            // and abandon take none.
            if operation.get("requestBody").is_some() {
                for status in ["400", "413", "415"] {
                    assert!(
                        responses.contains_key(status),
                        "{method} {path} lacks {status}"
                    );
                }
            }
            // Operations behind a token answer 401 and 403.
            if operation.get("security").is_some() {
                for status in ["401", "403"] {
                    assert!(
                        responses.contains_key(status),
                        "{method} {path} lacks {status}"
                    );
                }
            }
            // Operations on one match answer 404 for an unknown one.
            if path.starts_with("/v1/matches/") {
                assert!(responses.contains_key("404"), "{method} {path} lacks 404");
            }
            // Solves run on the heavy-work pool, which may be full: 503
            // with the seconds to wait.
            if path.starts_with("/v1/solitaire/") && method == "post" {
                let retry_after = responses
                    .get("503")
                    .and_then(|busy| busy.get("headers"))
                    .and_then(|headers| headers.get("Retry-After"));
                assert!(
                    retry_after.is_some(),
                    "{method} {path} lacks 503 with Retry-After"
                );
            }
            // Heavy work may be refused for its client: the rate, and the
            // cap of heavy work in flight (pictures too, by their cost);
            // both 429 with the seconds to wait.
            let heavy = [
                "/v1/bots/move",
                "/v1/replay",
                "/v1/analysis",
                "/v1/solitaire/solve",
                "/v1/solitaire/jobs",
                "/v1/render",
            ];
            let counted =
                (heavy.contains(&path.as_str()) && method == "post") || path == "/v1/render.svg";
            if counted {
                let refused = &responses["429"];
                assert!(
                    refused["headers"].get("Retry-After").is_some(),
                    "{method} {path} lacks 429 with Retry-After"
                );
                let described = refused["description"].as_str().unwrap();
                assert!(described.contains("`rate_limited`"), "{method} {path}");
                assert!(
                    described.contains("`too_many_heavy_requests`"),
                    "{method} {path}: {described}"
                );
            }
        }
    }
}
