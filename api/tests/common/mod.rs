//! What the socket tests share: a real server on a free port, over a fresh
//! database (a SQLite file, or a PostgreSQL database when
//! `STERNHALMA_TEST_POSTGRES` names a server), and an HTTP client that
//! hands back every status.

// Each test file uses the part it needs.
#![allow(dead_code)]

use std::net::TcpListener;
use std::sync::Arc;

use sternhalma::solve::Tablebases;
use sternhalma_api::{Background, CorsPolicy, Heavy, ServerConfig, Store, app_configured};

/// Starts the app on `127.0.0.1` (a free port) with a fresh database
/// ([`sternhalma_store::db::scratch`]) named after `name` and the process, on `workers` threads; answers its
/// base URL. The server lives as long as the test process. Heavy work runs
/// on the process's default pool; it has no solved table (a set of its
/// own, empty).
pub fn start_server(name: &str, workers: usize) -> String {
    start_server_with(name, workers, Heavy::process_default())
}

/// [`start_server`] with heavy work on `heavy` (e.g. a pool the test fills).
pub fn start_server_with(name: &str, workers: usize, heavy: Heavy) -> String {
    start(
        name,
        workers,
        ServerConfig::unlimited(CorsPolicy::Any),
        heavy,
        Arc::default(),
    )
}

/// [`start_server`] configured by `config` (limits, admin key, CORS).
pub fn start_server_configured(name: &str, workers: usize, config: ServerConfig) -> String {
    start(
        name,
        workers,
        config,
        Heavy::process_default(),
        Arc::default(),
    )
}

/// [`start_server`] with the solved tables `tables` (the test's own), as
/// `sternhalma serve --tablebases` starts with its folder's.
pub fn start_server_with_tables(name: &str, workers: usize, tables: Arc<Tablebases>) -> String {
    start(
        name,
        workers,
        ServerConfig::unlimited(CorsPolicy::Any),
        Heavy::process_default(),
        tables,
    )
}

fn start(
    name: &str,
    workers: usize,
    config: ServerConfig,
    heavy: Heavy,
    tables: Arc<Tablebases>,
) -> String {
    let database = sternhalma_store::db::scratch(name).unwrap();
    let (store, _) = Store::open(&database, tables).unwrap();
    // Once per server, as `sternhalma serve` starts it.
    let background = Background::start(&store, heavy.pool());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            actix_web::HttpServer::new(move || {
                app_configured(
                    config.clone(),
                    store.clone(),
                    heavy.clone(),
                    background.clone(),
                )
            })
            .workers(workers)
            .listen(listener)
            .unwrap()
            .run()
            .await
        })
    });
    format!("http://{address}")
}

/// The base URL a `sternhalma serve --port 0` child prints as its first
/// line of standard output (which must be piped).
pub fn listening_url(child: &mut std::process::Child) -> String {
    use std::io::{BufRead, BufReader};
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped"))
        .read_line(&mut line)
        .unwrap();
    line.trim()
        .strip_prefix("sternhalma listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned()
}

/// A client that reports 4xx and 5xx as answers, not errors.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// A reply as the tests read it: the status, the headers they look at, and
/// the body.
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub allow: Option<String>,
    pub location: Option<String>,
    pub retry_after: Option<String>,
    pub body: String,
}

impl Reply {
    /// The body as JSON (a panic naming the body if it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Reads a whole response.
pub fn finish(mut response: ureq::http::Response<ureq::Body>) -> Reply {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    Reply {
        status: response.status().as_u16(),
        content_type: header("content-type").unwrap_or_default(),
        allow: header("allow"),
        location: header("location"),
        retry_after: header("retry-after"),
        body: response.body_mut().read_to_string().unwrap(),
    }
}

/// The values of the headers `names` of `response`, in their order.
pub fn header_values(
    response: &ureq::http::Response<ureq::Body>,
    names: &[&str],
) -> Vec<Option<String>> {
    names
        .iter()
        .map(|name| {
            response
                .headers()
                .get(*name)
                .map(|v| v.to_str().unwrap().to_owned())
        })
        .collect()
}

/// A `sternhalma serve` process, killed when dropped (also when a test
/// panics, so that no server outlives its test).
pub struct ServerProcess(pub std::process::Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary with `args` on a free port over the SQLite file
/// `database`; the process and its base URL.
pub fn serve_binary(args: &[&str], database: &std::path::Path) -> (ServerProcess, String) {
    serve_binary_logging("warn", args, database)
}

/// [`serve_binary`] logging at `level` (`info` writes the access log).
pub fn serve_binary_logging(
    level: &str,
    args: &[&str],
    database: &std::path::Path,
) -> (ServerProcess, String) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_sternhalma"))
        .args(["serve", "--port", "0", "--log-level", level])
        .args(args)
        .env("STERNHALMA_DATABASE", database)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = listening_url(&mut child);
    (ServerProcess(child), url)
}

/// A connection to the server at `base` from `source`, an address of
/// 127.0.0.0/8 (all of which the loopback answers), so that the server
/// counts it as that client's: HTTP clients cannot choose the address they
/// connect from.
pub fn connect_from(source: std::net::Ipv4Addr, base: &str) -> std::net::TcpStream {
    use socket2::{Domain, Protocol, Socket, Type};
    let server: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
    socket
        .bind(&std::net::SocketAddr::from((source, 0)).into())
        .unwrap();
    socket.connect(&server.into()).unwrap();
    std::net::TcpStream::from(socket)
}

/// How long [`wait_until`] waits before it calls the wait a failure: a
/// guard against a test that would hang, far beyond what any state the
/// tests wait for takes on a busy machine (nothing is asserted on time).
pub const WAIT_GUARD: std::time::Duration = std::time::Duration::from_secs(300);

/// Asks `check` every 10 ms until it answers `Some`, and answers that; a
/// panic naming `what` (and how long it waited) past [`WAIT_GUARD`].
pub fn wait_until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let started = std::time::Instant::now();
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(
            started.elapsed() < WAIT_GUARD,
            "gave up waiting for {what} after {:?}",
            started.elapsed()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The long-polls the server at `base` holds open now (its
/// `sternhalma_long_polls_open` gauge, from `/metrics`).
pub fn long_polls_open(base: &str) -> u64 {
    let mut response = agent().get(format!("{base}/metrics")).call().unwrap();
    let text = response.body_mut().read_to_string().unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("sternhalma_long_polls_open "))
        .unwrap_or_else(|| panic!("no sternhalma_long_polls_open in /metrics:\n{text}"))
        .trim()
        .parse::<f64>()
        .expect("a number") as u64
}
