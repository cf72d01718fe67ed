//! `/downloads/` over a real socket: the listing (JSON and HTML) with the
//! commands that install from the server alone, the bytes of each wheel, a
//! wheelhouse's hundreds of real wheel names, the JavaScript examples, and
//! every name that must not be served: unknown, hidden, not a wheel, a
//! link, a folder, and path traversal sent raw.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use common::{Reply, agent, finish};
use sha2::{Digest, Sha256};
use sternhalma_api::routes::downloads::{DownloadsDir, TrustedProxies};
use sternhalma_api::{CorsPolicy, ServerConfig};

const WHEEL: &str = "sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl";
const OTHER: &str = "sternhalma-0.1.0-cp311-abi3-macosx_11_0_arm64.whl";
/// A wheel-named file next to the folder, not in it: traversal's target.
const OUTSIDE: &str = "secret-0.1.0-py3-none-any.whl";
const SECRET: &[u8] = b"not for download";

/// A fresh folder for one test, under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = sternhalma_store::db::scratch_root()
        .join(format!("sternhalma-wheels-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A server offering the wheels of `dir`.
fn serve(name: &str, dir: &Path) -> String {
    common::start_server_configured(
        name,
        1,
        ServerConfig {
            downloads: DownloadsDir::new(dir),
            ..ServerConfig::unlimited(CorsPolicy::Off)
        },
    )
}

fn get(url: &str, accept: Option<&str>) -> (Reply, Vec<u8>, Option<String>, Option<String>) {
    let mut request = agent().get(url);
    if let Some(accept) = accept {
        request = request.header("Accept", accept);
    }
    let mut response = request.call().unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let (length, vary) = (header("content-length"), header("vary"));
    if response.status() == 200
        && header("content-type").as_deref() == Some("application/octet-stream")
    {
        let status = response.status().as_u16();
        let content_type = header("content-type").unwrap();
        let bytes = response.body_mut().read_to_vec().unwrap();
        let reply = Reply {
            status,
            content_type,
            allow: None,
            location: None,
            retry_after: None,
            body: String::new(),
        };
        return (reply, bytes, length, vary);
    }
    (finish(response), Vec::new(), length, vary)
}

/// The status line and the whole answer to `GET <path>` written on the
/// socket as it is: no client library gets to normalise `..` or `%2F`.
fn raw_get(base: &str, path: &str) -> (u16, String) {
    let address = base.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"));
    (status, answer)
}

/// A folder with two wheels and everything that must not be offered.
fn stocked(name: &str) -> (PathBuf, Vec<u8>) {
    let parent = scratch(name);
    let dir = parent.join("dist");
    std::fs::create_dir_all(&dir).unwrap();
    let wheel: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(dir.join(WHEEL), &wheel).unwrap();
    std::fs::write(dir.join(OTHER), b"another platform").unwrap();
    std::fs::write(parent.join(OUTSIDE), SECRET).unwrap();
    std::fs::write(dir.join(".hidden-0.1.0-py3-none-any.whl"), SECRET).unwrap();
    std::fs::write(dir.join("notes.txt"), SECRET).unwrap();
    std::fs::write(dir.join("sternhalma-0.1.0.tar.gz"), SECRET).unwrap();
    std::fs::create_dir_all(dir.join("folder-0.1.0-py3-none-any.whl")).unwrap();
    std::os::unix::fs::symlink(
        parent.join(OUTSIDE),
        dir.join("link-0.1.0-py3-none-any.whl"),
    )
    .unwrap();
    (dir, wheel)
}

fn sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

#[test]
fn the_listing_offers_each_wheel_with_its_size_digest_and_pip_command() {
    let (dir, wheel) = stocked("listing");
    let base = serve("downloads-listing", &dir);
    let (reply, _, _, vary) = get(&format!("{base}/downloads/"), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.content_type, "application/json");
    assert_eq!(vary.as_deref(), Some("Accept"));
    let listing = reply.json();
    let files = listing["files"].as_array().unwrap();
    let names: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    // Sorted by name; hidden files, other files, folders and links left out.
    assert_eq!(names, [OTHER, WHEEL]);
    let entry = &files[1];
    assert_eq!(entry["size"], wheel.len());
    assert_eq!(entry["sha256"], sha256(&wheel));
    let url = format!("{base}/downloads/{WHEEL}");
    assert_eq!(entry["url"], url);
    assert_eq!(entry["pip"], format!("pip install {url}"));
    // The commands that install from this server alone, with its address.
    let address = base.strip_prefix("http://").unwrap();
    let offline =
        format!("pip install --no-index --find-links {base}/downloads/ --trusted-host {address}");
    assert_eq!(listing["find_links"], format!("{base}/downloads/"));
    assert_eq!(listing["offline"]["plain"], format!("{offline} sternhalma"));
    assert_eq!(
        listing["offline"]["notebooks"],
        format!("{offline} \"sternhalma[notebooks]\"")
    );
    assert_eq!(entry["tags"]["python"], "cp311");
    assert_eq!(entry["tags"]["abi"], "abi3");
    assert_eq!(
        entry["tags"]["platform"],
        "manylinux2014_x86_64.manylinux_2_17_x86_64"
    );
    // A browser's Accept asks for JSON too when it ranks it first.
    let (reply, ..) = get(
        &format!("{base}/downloads/"),
        Some("application/json, text/html;q=0.9"),
    );
    assert_eq!(reply.content_type, "application/json");
    // Without the slash: redirected.
    let reply = finish(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .new_agent()
            .get(format!("{base}/downloads"))
            .call()
            .unwrap(),
    );
    assert_eq!(reply.status, 308);
    assert_eq!(reply.location.as_deref(), Some("/downloads/"));
}

#[test]
fn a_browser_gets_a_page_of_links_that_pip_can_follow() {
    let (dir, wheel) = stocked("page");
    let base = serve("downloads-page", &dir);
    let accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let (reply, _, _, vary) = get(&format!("{base}/downloads/"), Some(accept));
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type, "text/html; charset=utf-8");
    assert_eq!(vary.as_deref(), Some("Accept"));
    let page = &reply.body;
    assert!(page.starts_with("<!doctype html>"));
    // Relative links with the digest, as pip's --find-links reads them.
    assert!(page.contains(&format!("href=\"{WHEEL}#sha256={}\"", sha256(&wheel))));
    assert!(page.contains(&format!("pip install {base}/downloads/{WHEEL}")));
    // The commands that install from this server alone, the examples.
    let address = base.strip_prefix("http://").unwrap();
    let offline =
        format!("pip install --no-index --find-links {base}/downloads/ --trusted-host {address}");
    // (askama escapes with numeric character references: `&#34;` is `"`.)
    assert!(page.contains(&format!("{offline} &#34;sternhalma[notebooks]&#34;")));
    assert!(page.contains(&format!("{offline} sternhalma<")));
    // No dependencies here yet: the page says what the commands need.
    assert!(page.contains("scripts/wheelhouse"));
    assert!(page.contains("This folder holds no dependencies yet"));
    assert!(page.contains("href=\"examples/random_bot.js\""));
    assert!(page.contains(&format!(
        "python -m sternhalma.examples.random_bot {base} MATCH_ID SEAT TOKEN"
    )));
    assert!(!page.contains("notes.txt") && !page.contains(".hidden"));
    assert!(!page.contains("<script"));
    // A Host header is the client's to choose: it is escaped, not markup.
    let address = base.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET /downloads/ HTTP/1.1\r\nHost: <b>x</b>\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(!answer.contains("<b>x</b>"));
    assert!(answer.contains("&#60;b&#62;x&#60;/b&#62;"));
}

#[test]
fn a_download_is_the_file_byte_for_byte() {
    let (dir, wheel) = stocked("bytes");
    let base = serve("downloads-bytes", &dir);
    let (reply, bytes, length, _) = get(&format!("{base}/downloads/{WHEEL}"), None);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type, "application/octet-stream");
    assert_eq!(length, Some(wheel.len().to_string()));
    assert_eq!(bytes, wheel);
    // A wheel replaced on disk is served new at once: nothing is cached.
    let newer = b"rebuilt".repeat(1000);
    std::fs::write(dir.join(WHEEL), &newer).unwrap();
    let (_, bytes, ..) = get(&format!("{base}/downloads/{WHEEL}"), None);
    assert_eq!(bytes, newer);
    let (reply, ..) = get(&format!("{base}/downloads/"), None);
    assert_eq!(reply.json()["files"][1]["sha256"], sha256(&newer));
    // A wheel removed is gone at once, though it was read before.
    std::fs::remove_file(dir.join(WHEEL)).unwrap();
    let (reply, ..) = get(&format!("{base}/downloads/{WHEEL}"), None);
    assert_eq!(reply.status, 404);
    let (reply, ..) = get(&format!("{base}/downloads/"), None);
    assert_eq!(reply.json()["files"].as_array().unwrap().len(), 1);
}

/// The status, the named headers and the body of `GET url` with `headers`.
fn get_with(
    url: &str,
    headers: &[(&str, &str)],
    wanted: &[&str],
) -> (u16, Vec<Option<String>>, Vec<u8>) {
    let mut request = agent().get(url);
    for &(name, value) in headers {
        request = request.header(name, value);
    }
    let mut response = request.call().unwrap();
    let found = common::header_values(&response, wanted);
    let status = response.status().as_u16();
    (status, found, response.body_mut().read_to_vec().unwrap())
}

#[test]
fn a_download_goes_on_from_a_range_and_revalidates_with_its_etag() {
    let (dir, wheel) = stocked("ranges");
    let base = serve("downloads-ranges", &dir);
    let url = format!("{base}/downloads/{WHEEL}");
    let (status, found, bytes) = get_with(&url, &[], &["etag", "last-modified", "accept-ranges"]);
    assert_eq!(status, 200);
    assert_eq!(bytes, wheel);
    let [Some(etag), Some(_), Some(ranges)] = &found[..] else {
        panic!("{found:?}");
    };
    assert_eq!(ranges, "bytes");
    // One range: those bytes only, with the headers of the whole file.
    let wanted = [
        "content-range",
        "content-length",
        "content-type",
        "content-disposition",
        "x-content-type-options",
    ];
    let (status, found, bytes) = get_with(&url, &[("Range", "bytes=1000-1999")], &wanted);
    assert_eq!(status, 206);
    assert_eq!(bytes, wheel[1000..2000]);
    let size = wheel.len();
    assert_eq!(
        found,
        [
            Some(format!("bytes 1000-1999/{size}")),
            Some("1000".to_owned()),
            Some("application/octet-stream".to_owned()),
            Some(format!("attachment; filename=\"{WHEEL}\"")),
            Some("nosniff".to_owned()),
        ]
        .to_vec()
    );
    // Going on after a cut: from a byte to the end.
    let (status, _, bytes) = get_with(&url, &[("Range", &format!("bytes={}-", size - 10))], &[]);
    assert_eq!((status, bytes.as_slice()), (206, &wheel[size - 10..]));
    // The copy the client has is the file: 304, no body.
    let (status, found, bytes) = get_with(&url, &[("If-None-Match", etag)], &["etag"]);
    assert_eq!(status, 304);
    assert!(bytes.is_empty());
    assert_eq!(found, [Some(etag.clone())]);
    let (status, _, bytes) = get_with(&url, &[("If-None-Match", "\"other\"")], &[]);
    assert_eq!((status, bytes.len()), (200, size));
    // A range out of the file, a condition that fails: problem details.
    let (status, found, bytes) = get_with(
        &url,
        &[("Range", &format!("bytes={size}-"))],
        &["content-range", "content-type"],
    );
    assert_eq!(status, 416);
    assert_eq!(
        found,
        [
            Some(format!("bytes */{size}")),
            Some("application/problem+json".to_owned())
        ]
    );
    let problem: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(problem["code"], "range_not_satisfiable");
    let (status, _, bytes) = get_with(&url, &[("If-Match", "\"other\"")], &[]);
    assert_eq!(status, 412);
    let problem: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(problem["code"], "precondition_failed");
    // A wheel rebuilt is another version: the old ETag gets the new bytes.
    let newer = b"rebuilt".repeat(1000);
    std::fs::write(dir.join(WHEEL), &newer).unwrap();
    let (status, found, bytes) = get_with(&url, &[("If-None-Match", etag)], &["etag"]);
    assert_eq!((status, bytes), (200, newer));
    assert_ne!(found[0].as_ref(), Some(etag));
}

#[test]
fn only_listed_wheels_are_served_and_no_path_leaves_the_folder() {
    let (dir, _) = stocked("refusals");
    let base = serve("downloads-refusals", &dir);
    for name in [
        "sternhalma-9.9.9-cp311-abi3-manylinux_2_17_x86_64.whl",
        ".hidden-0.1.0-py3-none-any.whl",
        "notes.txt",
        "sternhalma-0.1.0.tar.gz",
        "folder-0.1.0-py3-none-any.whl",
        "link-0.1.0-py3-none-any.whl",
    ] {
        let (reply, ..) = get(&format!("{base}/downloads/{name}"), None);
        assert_eq!(reply.status, 404, "{name}");
        assert_eq!(reply.content_type, "application/problem+json", "{name}");
        assert_eq!(reply.json()["code"], "not_found", "{name}");
    }
    for path in [
        format!("/downloads/../{OUTSIDE}"),
        format!("/downloads/..%2F{OUTSIDE}"),
        format!("/downloads/..%2f{OUTSIDE}"),
        format!("/downloads/%2e%2e%2F{OUTSIDE}"),
        format!("/downloads/..%5C{OUTSIDE}"),
        format!(
            "/downloads/%2F{}",
            dir.parent().unwrap().join(OUTSIDE).display()
        ),
        "/downloads/..".to_owned(),
        "/downloads/%2e%2e".to_owned(),
        "/downloads/.".to_owned(),
        "/downloads/..%2F..%2F..%2Fetc%2Fpasswd".to_owned(),
        "/downloads/%00".to_owned(),
    ] {
        let (status, answer) = raw_get(&base, &path);
        assert_eq!(status, 404, "{path}: {answer}");
        assert!(!answer.contains("not for download"), "{path}");
        assert!(!answer.contains("root:"), "{path}");
    }
    // Other methods are refused as on every route.
    let reply = finish(
        agent()
            .post(format!("{base}/downloads/{WHEEL}"))
            .send_empty()
            .unwrap(),
    );
    assert_eq!(reply.status, 405);
    assert_eq!(reply.allow.as_deref(), Some("GET"));
}

#[test]
fn an_empty_or_missing_folder_offers_nothing() {
    let empty = scratch("empty");
    let base = serve("downloads-empty", &empty);
    let (reply, ..) = get(&format!("{base}/downloads/"), None);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["files"], serde_json::json!([]));
    let (reply, ..) = get(&format!("{base}/downloads/"), Some("text/html"));
    assert_eq!(reply.status, 200);
    assert!(reply.body.contains("No wheels here yet"));

    let missing = scratch("missing").join("not-built-yet");
    let base = serve("downloads-missing", &missing);
    let (reply, ..) = get(&format!("{base}/downloads/"), None);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["files"], serde_json::json!([]));
    let (reply, ..) = get(&format!("{base}/downloads/{WHEEL}"), None);
    assert_eq!(reply.status, 404);
    // Built later, served at once.
    std::fs::create_dir_all(&missing).unwrap();
    std::fs::write(missing.join(WHEEL), b"late").unwrap();
    let (reply, bytes, ..) = get(&format!("{base}/downloads/{WHEEL}"), None);
    assert_eq!(reply.status, 200);
    assert_eq!(bytes, b"late");
}

/// The pip command of a listing asked for by `base`, with `headers`.
fn pip_command(base: &str, headers: &[(&str, &str)]) -> String {
    let mut request = agent().get(format!("{base}/downloads/"));
    for &(name, value) in headers {
        request = request.header(name, value);
    }
    let listing = finish(request.call().unwrap()).json();
    listing["files"][0]["pip"].as_str().unwrap().to_owned()
}

#[test]
fn forwarding_headers_count_only_from_a_trusted_proxy() {
    let (dir, _) = stocked("proxies");
    let forged = [
        ("X-Forwarded-Host", "evil.example"),
        ("X-Forwarded-Proto", "https"),
        ("Forwarded", "host=evil.example;proto=https"),
    ];
    // No proxy configured: the headers are ignored, the pip command names
    // this server as the client reached it.
    let base = serve("downloads-untrusted", &dir);
    let pip = pip_command(&base, &forged);
    assert_eq!(pip, format!("pip install {base}/downloads/{OTHER}"));
    // Behind a configured proxy (here the test itself, on 127.0.0.1), the
    // proxy says which host and scheme its clients see.
    let behind = common::start_server_configured(
        "downloads-trusted",
        1,
        ServerConfig {
            downloads: DownloadsDir::new(&dir),
            trusted_proxies: TrustedProxies::new(vec!["127.0.0.1".parse().unwrap()]),
            ..ServerConfig::unlimited(CorsPolicy::Off)
        },
    );
    let pip = pip_command(
        &behind,
        &[
            ("X-Forwarded-Host", "class.example"),
            ("X-Forwarded-Proto", "https"),
        ],
    );
    assert_eq!(
        pip,
        format!("pip install https://class.example/downloads/{OTHER}")
    );
    // Over HTTPS pip trusts the page without being told to.
    let listing = finish(
        agent()
            .get(format!("{behind}/downloads/"))
            .header("X-Forwarded-Host", "class.example")
            .header("X-Forwarded-Proto", "https")
            .call()
            .unwrap(),
    )
    .json();
    assert_eq!(
        listing["offline"]["notebooks"],
        "pip install --no-index --find-links https://class.example/downloads/ \"sternhalma[notebooks]\""
    );
    assert_eq!(
        listing["examples"][0]["url"],
        "https://class.example/downloads/examples/random_bot.js"
    );
}

/// Real names of a wheelhouse (scripts/wheelhouse for Pythons 3.11 to
/// 3.14): pure and compiled wheels, several platform tags, a build number,
/// capitals, a local version with `+`.
const WHEELHOUSE: [&str; 14] = [
    "jupyterlab-4.4.9-py3-none-any.whl",
    "numpy-2.3.3-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "numpy-2.3.3-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "numpy-2.2.6-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "charset_normalizer-3.4.3-cp313-cp313-manylinux1_x86_64.manylinux_2_28_x86_64.manylinux_2_5_x86_64.whl",
    "psutil-7.1.0-cp36-abi3-manylinux2010_x86_64.manylinux_2_12_x86_64.manylinux_2_28_x86_64.whl",
    "pyzmq-27.1.0-cp312-abi3-manylinux_2_26_x86_64.manylinux_2_28_x86_64.whl",
    "debugpy-1.8.17-py2.py3-none-any.whl",
    "MarkupSafe-3.0.2-cp314-cp314-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "prompt_toolkit-3.0.52-py3-none-any.whl",
    "certifi-2025.8.3.post1-py3-none-any.whl",
    "torch-2.8.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl",
    "widgetsnbextension-4.0.14-2-py3-none-any.whl",
    "sternhalma-0.1.0-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
];

#[test]
fn a_wheelhouse_of_hundreds_of_wheels_is_listed_whole_and_served() {
    let dir = scratch("wheelhouse");
    let mut names: Vec<String> = WHEELHOUSE.iter().map(|n| (*n).to_owned()).collect();
    // Hundreds more, as a wheelhouse for four Pythons holds.
    for i in 0..400 {
        names.push(format!(
            "package{i}-1.{i}.0-cp31{}-cp31{}-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            i % 4 + 1,
            i % 4 + 1
        ));
    }
    for (i, name) in names.iter().enumerate() {
        std::fs::write(dir.join(name), format!("wheel {i}").repeat(100 + i)).unwrap();
    }
    names.sort();
    let base = serve("downloads-wheelhouse", &dir);
    let listed = |accept: Option<&str>| {
        let started = std::time::Instant::now();
        let (reply, ..) = get(&format!("{base}/downloads/"), accept);
        (reply, started.elapsed())
    };
    let (reply, _) = listed(None);
    let listing = reply.json();
    let files = listing["files"].as_array().unwrap();
    let listed_names: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(listed_names, names);
    let torch = files.iter().find(|f| f["name"] == WHEELHOUSE[11]).unwrap();
    assert_eq!(torch["tags"]["python"], "cp311");
    assert_eq!(torch["tags"]["platform"], "manylinux_2_28_x86_64");
    // Each is served (the `+` sent as is, and percent-encoded), its digest
    // the listing's.
    for name in WHEELHOUSE {
        let entry = files.iter().find(|f| f["name"] == name).unwrap();
        for path in [name.to_owned(), name.replace('+', "%2B")] {
            let (reply, bytes, ..) = get(&format!("{base}/downloads/{path}"), None);
            assert_eq!(reply.status, 200, "{path}");
            assert_eq!(entry["sha256"], sha256(&bytes), "{name}");
            assert_eq!(entry["size"], bytes.len(), "{name}");
        }
    }
    // The page: every wheel a link pip follows; the module's own first,
    // with its command, the dependencies under a summary.
    let (reply, _) = listed(Some("text/html"));
    let page = &reply.body;
    for file in files {
        let link = format!(
            "href=\"{}#sha256={}\"",
            file["name"].as_str().unwrap(),
            file["sha256"].as_str().unwrap()
        );
        assert!(page.contains(&link), "{link}");
    }
    assert!(page.contains("The dependencies: 413 wheels"));
    assert!(!page.contains("This folder holds no dependencies yet"));
    let module = page.find(&format!(">{}<", WHEELHOUSE[13])).unwrap();
    assert!(module < page.find("<details>").unwrap());
    // Read once, the digests are kept: listing again reads only the folder.
    // (A bound far above the time, against hashing every file again on
    // each listing of a real wheelhouse, hundreds of megabytes.)
    let (_, again) = listed(None);
    assert!(again < std::time::Duration::from_secs(5), "{again:?}");
}

#[test]
fn the_javascript_examples_are_offered_by_their_names_only() {
    let dir = scratch("examples");
    let base = serve("downloads-examples", &dir);
    let listing = finish(agent().get(format!("{base}/downloads/")).call().unwrap()).json();
    let examples = listing["examples"].as_array().unwrap();
    let names: Vec<&str> = examples
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["random_bot.js", "tournament_entrant.js"]);
    let repository = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/clients");
    for example in examples {
        let name = example["name"].as_str().unwrap();
        let url = example["url"].as_str().unwrap();
        assert_eq!(url, format!("{base}/downloads/examples/{name}"));
        let reply = finish(agent().get(url).call().unwrap());
        assert_eq!(reply.status, 200, "{name}");
        assert_eq!(reply.content_type, "text/javascript; charset=utf-8");
        let text = std::fs::read_to_string(format!("{repository}/{name}")).unwrap();
        assert_eq!(reply.body, text, "{name}: the repository's copy");
        assert_eq!(example["sha256"], sha256(text.as_bytes()));
        assert_eq!(example["size"], text.len());
        assert!(
            example["run"]
                .as_str()
                .unwrap()
                .starts_with(&format!("node {name} {base} "))
        );
    }
    for path in [
        "/downloads/examples/random_bot.py",
        "/downloads/examples/RANDOM_BOT.JS",
        "/downloads/examples/",
        "/downloads/examples/..%2Frandom_bot.js",
        "/downloads/examples/..%2F..%2FCargo.toml",
        "/downloads/examples/%2e%2e",
        "/downloads/examples/random_bot.js%00",
        "/downloads/examples/x/random_bot.js",
        "/downloads/examples/../examples/tournament_entrant.js.map",
    ] {
        let (status, answer) = raw_get(&base, path);
        assert_eq!(status, 404, "{path}: {answer}");
        assert!(!answer.contains("fetch("), "{path}");
    }
    // A wheel folder's file cannot be reached through the examples' path.
    std::fs::write(dir.join(WHEEL), b"a wheel").unwrap();
    let (status, _) = raw_get(&base, &format!("/downloads/examples/{WHEEL}"));
    assert_eq!(status, 404);
    let (status, _) = raw_get(&base, &format!("/downloads/examples/..%2F{WHEEL}"));
    assert_eq!(status, 404);
}
