//! The access log of `sternhalma serve`, and where its log lines go.
//!
//! - [`AccessLog`]: one line a request at `info` on the target
//!   `sternhalma::http`: the client's address as the socket sees it, the
//!   request line, the status, the size of the body sent and the time, e.g.
//!   `127.0.0.1 "POST /v1/legal-moves HTTP/1.1" 200 1106 0.093125ms`; never a
//!   header (tokens and the admin key travel in headers). The same line as
//!   actix-web's `Logger` with the format `%a "%r" %s %b %Dms`, without its
//!   costs per request: it keeps the few facts it needs (the peer's address,
//!   method, URI, version, a start time) instead of rendering strings and
//!   parsing the forwarding headers up front, and it formats the line once,
//!   straight into the log event.
//! - [`stderr`]: the log's writer, `tracing-appender`'s non-blocking
//!   writer in its lossy mode. Worker threads hand each formatted line to a
//!   bounded channel; one thread (`log-writer`) writes them to stderr, as
//!   many as are waiting through one buffer and one `write(2)`, so a busy
//!   server makes a write per batch instead of one a request, and its
//!   workers never wait for each other on the stderr lock. A request never
//!   waits for the log: when [`MAX_PENDING_LINES`] lines are already
//!   waiting (stderr drained slower than lines come), a line is dropped and
//!   counted ([`dropped_lines`], `sternhalma_log_lines_dropped_total` in
//!   `/metrics`); dropping the [`WorkerGuard`] writes what is left (it waits
//!   for that about a second at most, `tracing-appender`'s bound; a writer
//!   still stuck then, stderr not drained at all, makes `tracing-appender`
//!   print `Failed to send shutdown signal to logging worker` on stdout).
//! - A request line is cut to [`MAX_LOGGED_URI`] bytes, its length said:
//!   a client cannot make the log write 64 KiB a request.
//! - Each client (its address; an IPv6 one by its /64, as the per-client
//!   limits count it) has a budget of lines ([`LogBudget`]: so many a second,
//!   with a burst); past it its lines are counted, not written, and one
//!   line says how many were left out (`203.0.113.7 - 1520 access-log
//!   lines suppressed`) when the address is within its budget again, or
//!   at the next sweep (every 10 s). One student's flood writes a few
//!   kilobytes a second, not megabytes.
//! - [`file()`]: the log in a file instead of stderr (`serve --log-file`),
//!   rotated by size: a few files of bounded size in all, the oldest
//!   removed.

use std::collections::HashMap;
use std::future::{Ready, ready};
use std::io::{BufWriter, Write};
use std::net::IpAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::Error;
use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::{Method, Uri, Version};
use actix_web::web::Bytes;
use tracing_appender::non_blocking::{ErrorCounter, NonBlockingBuilder};
pub use tracing_appender::non_blocking::{NonBlocking, WorkerGuard};

/// The log target of the access log.
pub const TARGET: &str = "sternhalma::http";

/// The middleware that writes the access log (see the module's summary).
/// Wrap it outermost, so that its time and size are the whole request's.
#[derive(Clone, Debug, Default)]
pub struct AccessLog {
    budget: Option<Arc<LogBudget>>,
}

impl AccessLog {
    /// The access log with each address's lines within `budget`.
    pub fn with_budget(budget: Arc<LogBudget>) -> AccessLog {
        AccessLog {
            budget: Some(budget),
        }
    }
}

/// The lines an address may write to the access log: `per_second` on
/// average, `burst` at once; past it they are counted and left out, and
/// the count written in one line. Addresses are forgotten once idle (at a
/// sweep, every [`SWEEP_EVERY`]), so its memory holds the addresses of the
/// last few seconds.
#[derive(Debug)]
pub struct LogBudget {
    per_second: f64,
    burst: f64,
    state: Mutex<BudgetState>,
}

#[derive(Debug)]
struct BudgetState {
    addresses: HashMap<Option<IpAddr>, Bucket>,
    swept: Instant,
}

#[derive(Debug)]
struct Bucket {
    lines: f64,
    at: Instant,
    suppressed: u64,
}

/// How often the budget writes the counts of addresses still over it and
/// forgets idle ones.
pub const SWEEP_EVERY: Duration = Duration::from_secs(10);

/// Lines a second an address may write, by default.
pub const DEFAULT_LINES_PER_SECOND: u32 = 20;

/// What the budget says of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Write it, after a line saying this many of the address's lines were
    /// left out before it (when not 0).
    Write { suppressed: u64 },
    /// Leave it out (counted).
    Suppress,
}

impl LogBudget {
    /// `per_second` lines a second for each address, `5 * per_second` at
    /// once (at least 1).
    pub fn new(per_second: u32) -> LogBudget {
        LogBudget {
            per_second: f64::from(per_second),
            burst: f64::from(per_second.saturating_mul(5).max(1)),
            state: Mutex::new(BudgetState {
                addresses: HashMap::new(),
                swept: Instant::now(),
            }),
        }
    }

    /// Whether `peer` may write a line at `now`.
    pub fn admit(&self, peer: Option<IpAddr>, now: Instant) -> Admit {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let bucket = state.addresses.entry(peer).or_insert(Bucket {
            lines: self.burst,
            at: now,
            suppressed: 0,
        });
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.lines = (bucket.lines + elapsed * self.per_second).min(self.burst);
        bucket.at = now;
        if bucket.lines >= 1.0 {
            bucket.lines -= 1.0;
            Admit::Write {
                suppressed: std::mem::take(&mut bucket.suppressed),
            }
        } else {
            bucket.suppressed += 1;
            Admit::Suppress
        }
    }

    /// Every [`SWEEP_EVERY`]: the addresses with lines left out and their
    /// counts (to be written now; the counts start again), and idle
    /// addresses forgotten. Empty between sweeps.
    pub fn sweep(&self, now: Instant) -> Vec<(Option<IpAddr>, u64)> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if now.saturating_duration_since(state.swept) < SWEEP_EVERY {
            return Vec::new();
        }
        state.swept = now;
        let full = self.burst;
        let rate = self.per_second;
        let mut counts = Vec::new();
        state.addresses.retain(|peer, bucket| {
            if bucket.suppressed > 0 {
                counts.push((*peer, std::mem::take(&mut bucket.suppressed)));
            }
            let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
            bucket.lines + elapsed * rate < full
        });
        counts.sort_unstable();
        counts
    }

    /// Addresses it remembers.
    pub fn addresses(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .addresses
            .len()
    }
}

/// The line that says `count` lines of `peer` were left out.
fn log_suppressed(peer: Option<IpAddr>, count: u64) {
    tracing::info!(
        target: TARGET,
        "{} - {count} access-log lines suppressed",
        Peer(peer)
    );
}

impl<S, B> Transform<S, ServiceRequest> for AccessLog
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<Logged<B>>;
    type Error = Error;
    type Transform = AccessLogService<S>;
    type InitError = ();
    type Future = Ready<Result<AccessLogService<S>, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(AccessLogService {
            service,
            budget: self.budget.clone(),
        }))
    }
}

/// [`AccessLog`] around a service.
pub struct AccessLogService<S> {
    service: S,
    budget: Option<Arc<LogBudget>>,
}

/// What one line says about its request, kept from its start.
struct Entry {
    started: Instant,
    peer: Option<IpAddr>,
    method: Method,
    uri: Uri,
    version: Version,
    budget: Option<Arc<LogBudget>>,
}

impl<S, B> Service<ServiceRequest> for AccessLogService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<Logged<B>>;
    type Error = Error;
    type Future = LoggedResponse<S::Future>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        let entry = tracing::enabled!(target: TARGET, tracing::Level::INFO).then(|| {
            let head = request.head();
            Entry {
                started: Instant::now(),
                peer: head.peer_addr.map(|address| address.ip()),
                method: head.method.clone(),
                uri: head.uri.clone(),
                version: head.version,
                budget: self.budget.clone(),
            }
        });
        LoggedResponse {
            future: self.service.call(request),
            entry,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response of [`AccessLogService`]: its body logs the line once it
    /// has been sent (or dropped).
    pub struct LoggedResponse<F> {
        #[pin]
        future: F,
        entry: Option<Entry>,
    }
}

impl<F, B> std::future::Future for LoggedResponse<F>
where
    F: std::future::Future<Output = Result<ServiceResponse<B>, Error>>,
    B: MessageBody,
{
    type Output = Result<ServiceResponse<Logged<B>>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.future.poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            Poll::Ready(Ok(response)) => response,
        };
        if let Some(error) = response.response().error() {
            tracing::debug!(target: "actix_web::middleware::logger", "Error in response: {error:?}");
        }
        let status = response.status().as_u16();
        let entry = this.entry.take();
        Poll::Ready(Ok(response.map_body(move |_, body| Logged {
            body,
            entry,
            status,
            size: 0,
        })))
    }
}

pin_project_lite::pin_project! {
    /// A response body that counts the bytes sent and writes the access
    /// log line when it is dropped (sent, or abandoned by the client).
    pub struct Logged<B> {
        #[pin]
        body: B,
        entry: Option<Entry>,
        status: u16,
        size: usize,
    }

    impl<B> PinnedDrop for Logged<B> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let Some(entry) = this.entry.take() {
                entry.log(*this.status, *this.size);
            }
        }
    }
}

impl<B: MessageBody> MessageBody for Logged<B> {
    type Error = B::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.project();
        let chunk = this.body.poll_next(cx);
        if let Poll::Ready(Some(Ok(bytes))) = &chunk {
            *this.size += bytes.len();
        }
        chunk
    }
}

impl Entry {
    fn log(&self, status: u16, size: usize) {
        if let Some(budget) = &self.budget {
            let now = Instant::now();
            for (peer, count) in budget.sweep(now) {
                log_suppressed(peer, count);
            }
            // Keyed as the per-client limits key a client: an IPv6 one
            // by its /64.
            let client = self.peer.map(crate::peers::client_key);
            match budget.admit(client, now) {
                Admit::Suppress => return,
                Admit::Write { suppressed: 0 } => {}
                Admit::Write { suppressed } => log_suppressed(client, suppressed),
            }
        }
        // `%D`: milliseconds with six decimals, from whole nanoseconds.
        let nanos = self.started.elapsed().as_nanos();
        tracing::info!(
            target: TARGET,
            "{} \"{} {} {}\" {status} {size} {}.{:06}ms",
            Peer(self.peer),
            self.method,
            LoggedUri(&self.uri),
            HttpVersion(self.version),
            nanos / 1_000_000,
            nanos % 1_000_000,
        );
    }
}

/// The longest request URI the log writes whole, in bytes; a longer one is
/// cut there (at a character boundary) and its length added.
pub const MAX_LOGGED_URI: usize = 512;

/// The request's path and query as actix's `%r` writes them (the `?` only
/// with a query), cut to [`MAX_LOGGED_URI`] bytes.
struct LoggedUri<'a>(&'a Uri);

impl std::fmt::Display for LoggedUri<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.0.path();
        let query = self.0.query().filter(|q| !q.is_empty());
        let whole = path.len() + query.map_or(0, |q| q.len() + 1);
        if whole <= MAX_LOGGED_URI {
            return match query {
                Some(query) => write!(f, "{path}?{query}"),
                None => f.write_str(path),
            };
        }
        let text = match query {
            Some(query) => format!("{path}?{query}"),
            None => path.to_owned(),
        };
        let mut end = MAX_LOGGED_URI;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        write!(f, "{}...[{whole} bytes]", &text[..end])
    }
}

/// The client's address, `-` when unknown (as actix's `%a`).
struct Peer(Option<IpAddr>);

impl std::fmt::Display for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(address) => address.fmt(f),
            None => f.write_str("-"),
        }
    }
}

/// The version as `http::Version`'s Debug writes it (`HTTP/1.1`).
struct HttpVersion(Version);

impl std::fmt::Display for HttpVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = [
            (Version::HTTP_09, "HTTP/0.9"),
            (Version::HTTP_10, "HTTP/1.0"),
            (Version::HTTP_11, "HTTP/1.1"),
            (Version::HTTP_2, "HTTP/2.0"),
            (Version::HTTP_3, "HTTP/3.0"),
        ];
        match known.iter().find(|(version, _)| *version == self.0) {
            Some((_, text)) => f.write_str(text),
            None => write!(f, "{:?}", self.0),
        }
    }
}

/// Log lines that may wait for the writer; beyond them a line is dropped
/// and counted ([`dropped_lines`]): warnings and errors too, since every
/// line of the process goes through the sink. Access lines are about 130
/// bytes (a request line is cut to [`MAX_LOGGED_URI`]), so this holds about
/// 4 MiB of them, some 20 MiB of the longest.
pub const MAX_PENDING_LINES: usize = 32 * 1024;

/// The bytes the writer gathers before it writes: the lines waiting are
/// written through one buffer, flushed once none is left.
const WRITE_BUFFER: usize = 64 << 10;

/// The stderr sink's count of dropped lines, once [`stderr`] has made it.
static SINK_DROPPED: OnceLock<ErrorCounter> = OnceLock::new();

/// Log lines dropped so far because stderr could not keep up (the
/// [`stderr`] sink held [`MAX_PENDING_LINES`] lines); 0 before it exists.
pub fn dropped_lines() -> u64 {
    SINK_DROPPED
        .get()
        .map_or(0, |counter| counter.dropped_lines() as u64)
}

/// The process's log writer for `tracing_subscriber` (a `MakeWriter`):
/// lines go to stderr through one thread, dropped and counted
/// ([`dropped_lines`]) rather than waited for (see the module's summary).
/// Keep the guard alive as long as anything may log: dropping it writes
/// what is left.
pub fn stderr() -> (NonBlocking, WorkerGuard) {
    let (sink, guard) = sink(std::io::stderr());
    // The first stderr sink is the one `/metrics` reports.
    let _ = SINK_DROPPED.set(sink.error_counter());
    (sink, guard)
}

/// Files a log file keeps (the current one and the older ones).
pub const LOG_FILES: usize = 5;

/// The process's log writer into `path`, rotated by size: at most
/// `max_bytes` in all, over [`LOG_FILES`] files (`path`, `path.1`, ...,
/// the oldest removed), otherwise as [`stderr`].
///
/// # Errors
/// The file's folder cannot be made or the file opened.
pub fn file(path: &Path, max_bytes: u64) -> std::io::Result<(NonBlocking, WorkerGuard)> {
    use file_rotate::compression::Compression;
    use file_rotate::suffix::AppendCount;
    use file_rotate::{ContentLimit, FileRotate};
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)?;
    }
    // Opened here, so that a path that cannot be written is an error now.
    drop(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?,
    );
    let per_file = usize::try_from(max_bytes / LOG_FILES as u64)
        .unwrap_or(usize::MAX)
        .max(1);
    let rotating = FileRotate::new(
        path,
        AppendCount::new(LOG_FILES - 1),
        ContentLimit::BytesSurpassed(per_file),
        Compression::None,
        None,
    );
    let (sink, guard) = sink(rotating);
    let _ = SINK_DROPPED.set(sink.error_counter());
    Ok((sink, guard))
}

/// A lossy, non-blocking sink writing to `out` (the tests write to memory);
/// its own count of dropped lines is `sink.error_counter()`.
pub fn sink(out: impl Write + Send + 'static) -> (NonBlocking, WorkerGuard) {
    NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(MAX_PENDING_LINES)
        .thread_name("log-writer")
        .finish(BufWriter::with_capacity(WRITE_BUFFER, out))
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;

    #[derive(Clone, Default)]
    struct Memory(Arc<Mutex<Vec<u8>>>);

    impl Write for Memory {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_is_written_in_order_by_the_time_the_guard_is_dropped() {
        let memory = Memory::default();
        let (sink, flush) = sink(memory.clone());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let sink = sink.clone();
                std::thread::spawn(move || {
                    for i in 0..5000 {
                        let mut writer = tracing_subscriber::fmt::MakeWriter::make_writer(&sink);
                        writer
                            .write_all(format!("thread {t} line {i}\n").as_bytes())
                            .unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        drop(flush);
        let text = String::from_utf8(memory.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 20_000);
        for t in 0..4 {
            let mine: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with(&format!("thread {t} ")))
                .collect();
            let expected: Vec<String> = (0..5000).map(|i| format!("thread {t} line {i}")).collect();
            assert_eq!(mine, expected);
        }
    }

    /// The line of actix's `Logger` with `%a "%r" %s %b %Dms`: the peer's
    /// address, the request line (the query when there is one), the status,
    /// the body's bytes as sent, the milliseconds with six decimals.
    #[actix_web::test]
    async fn one_line_a_request_as_actix_logger_wrote_it() {
        use actix_web::{App, HttpResponse, test, web};
        let memory = Memory::default();
        let (sink, flush) = sink(memory.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_writer(sink)
            .with_ansi(false)
            .without_time()
            .finish();
        let _default = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(App::new().wrap(AccessLog::default()).route(
            "/x",
            web::get().to(|| async { HttpResponse::Ok().body("hello") }),
        ))
        .await;
        for uri in ["/x?a=1&b=%20", "/x?", "/missing"] {
            let request = test::TestRequest::get()
                .uri(uri)
                .peer_addr("10.1.2.3:4567".parse().unwrap())
                .to_request();
            let _ = test::read_body(test::call_service(&app, request).await).await;
        }
        let request = test::TestRequest::get().uri("/x").to_request();
        let _ = test::read_body(test::call_service(&app, request).await).await;
        drop(flush);
        let text = String::from_utf8(memory.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let expected = [
            r#" INFO sternhalma::http: 10.1.2.3 "GET /x?a=1&b=%20 HTTP/1.1" 200 5 "#,
            r#" INFO sternhalma::http: 10.1.2.3 "GET /x HTTP/1.1" 200 5 "#,
            r#" INFO sternhalma::http: 10.1.2.3 "GET /missing HTTP/1.1" 404 0 "#,
            r#" INFO sternhalma::http: - "GET /x HTTP/1.1" 200 5 "#,
        ];
        assert_eq!(lines.len(), expected.len(), "{text}");
        for (line, start) in lines.iter().zip(expected) {
            let time = line
                .strip_prefix(start)
                .and_then(|rest| rest.strip_suffix("ms"))
                .unwrap_or_else(|| panic!("{line:?} is not {start:?}...ms"));
            let (whole, decimals) = time.split_once('.').expect("a decimal point");
            assert!(
                whole.parse::<u64>().is_ok() && decimals.len() == 6,
                "{line}"
            );
        }
    }

    #[test]
    fn a_lone_line_is_written_without_waiting_for_the_end() {
        let memory = Memory::default();
        let (sink, _flush) = sink(memory.clone());
        let mut writer = tracing_subscriber::fmt::MakeWriter::make_writer(&sink);
        writer.write_all(b"one line\n").unwrap();
        for _ in 0..500 {
            if memory.0.lock().unwrap().as_slice() == b"one line\n" {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the line was not written within 5 s");
    }

    /// A writer that takes nothing until the test lets it: stderr drained
    /// at no speed at all.
    struct Stuck(std::sync::mpsc::Receiver<()>, Memory);

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.recv();
            self.1.write(buf)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_buffer_drops_lines_and_counts_them_instead_of_waiting() {
        let (release, stuck) = std::sync::mpsc::channel();
        let memory = Memory::default();
        let (sink, flush) = sink(Stuck(stuck, memory.clone()));
        let counter = sink.error_counter();
        let line = [[b'x'; 63].as_slice(), b"\n"].concat();
        // Far more lines than the channel holds while nothing is written:
        // every call returns (a worker never waits), the excess is counted.
        let lines = 3 * MAX_PENDING_LINES;
        for _ in 0..lines {
            let mut writer = tracing_subscriber::fmt::MakeWriter::make_writer(&sink);
            writer.write_all(&line).unwrap();
        }
        let dropped = counter.dropped_lines();
        // Released before any assertion: a failing one must not leave the
        // writer stuck while the guard waits for it.
        drop(release);
        drop(flush);
        // The writer took at most a buffer's worth of lines before it
        // stuck, and the channel then held at most MAX_PENDING_LINES: the
        // rest was dropped.
        let held = MAX_PENDING_LINES + WRITE_BUFFER / line.len() + 2;
        assert!(dropped >= lines - held, "{dropped} of {lines}");
        assert!(dropped < lines);
        let written = memory.0.lock().unwrap().len() / line.len();
        assert_eq!(written + dropped, lines, "each line written or counted");
    }

    #[test]
    fn a_long_request_line_is_cut_with_its_length() {
        let long: Uri = format!("/healthz?{}", "a".repeat(60_000)).parse().unwrap();
        let text = LoggedUri(&long).to_string();
        assert!(text.len() < MAX_LOGGED_URI + 32, "{}", text.len());
        assert!(text.starts_with("/healthz?aaa"));
        assert!(
            text.ends_with(&format!("...[{} bytes]", 9 + 60_000)),
            "{}",
            &text[text.len() - 30..]
        );
        let short: Uri = "/x?a=1".parse().unwrap();
        assert_eq!(LoggedUri(&short).to_string(), "/x?a=1");
        let empty: Uri = "/x?".parse().unwrap();
        assert_eq!(LoggedUri(&empty).to_string(), "/x");
        // Cut at a character boundary (a path of two-byte characters).
        let wide: Uri = format!("/{}", "%C3%A9".repeat(200)).parse().unwrap();
        assert!(LoggedUri(&wide).to_string().contains("...["));
    }

    fn at(start: Instant, millis: u64) -> Instant {
        start + Duration::from_millis(millis)
    }

    #[test]
    fn an_address_over_its_budget_is_counted_then_told_in_one_line() {
        let budget = LogBudget::new(10);
        let start = Instant::now();
        let flooder = Some("10.0.0.7".parse().unwrap());
        let polite = Some("10.0.0.8".parse().unwrap());
        // A burst of 50 lines at once, then nothing more this instant.
        let written = (0..1000)
            .filter(|_| budget.admit(flooder, start) != Admit::Suppress)
            .count();
        assert_eq!(written, 50);
        // Another address is not charged for it.
        assert_eq!(budget.admit(polite, start), Admit::Write { suppressed: 0 });
        // A tenth of a second later: one line, after the 950 left out.
        assert_eq!(
            budget.admit(flooder, at(start, 100)),
            Admit::Write { suppressed: 950 }
        );
        assert_eq!(budget.admit(flooder, at(start, 100)), Admit::Suppress);
        // Within a sweep's time nothing is swept; after it, the counts of
        // those still over are told, and idle addresses forgotten.
        assert!(budget.sweep(at(start, 5_000)).is_empty());
        // Full again by then: its burst, and ten more left out.
        for _ in 0..60 {
            budget.admit(flooder, at(start, 9_999));
        }
        let told = budget.sweep(at(start, 10_000));
        assert_eq!(told, [(flooder, 10)]);
        assert_eq!(budget.addresses(), 1, "the polite address is forgotten");
        assert!(budget.sweep(at(start, 10_001)).is_empty());
        assert_eq!(budget.sweep(at(start, 60_000)), []);
        assert_eq!(budget.addresses(), 0, "idle: forgotten");
    }

    #[test]
    fn a_log_file_rotates_and_stays_within_its_size() {
        let dir = std::env::temp_dir().join(format!("sternhalma-log-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("logs/server.log");
        let max = 200_000;
        let (sink, flush) = file(&path, max).unwrap();
        let line = [[b'x'; 99].as_slice(), b"\n"].concat();
        // Ten times what it may keep.
        for _ in 0..(10 * max / 100) {
            let mut writer = tracing_subscriber::fmt::MakeWriter::make_writer(&sink);
            writer.write_all(&line).unwrap();
        }
        drop(flush);
        let files: Vec<_> = std::fs::read_dir(dir.join("logs"))
            .unwrap()
            .map(|entry| entry.unwrap())
            .collect();
        assert!(files.len() <= LOG_FILES, "{} files", files.len());
        let total: u64 = files.iter().map(|f| f.metadata().unwrap().len()).sum();
        // Each file may pass its share by the last write (a buffer).
        let bound = max + LOG_FILES as u64 * WRITE_BUFFER as u64;
        assert!(total <= bound, "{total} bytes kept, at most {bound}");
        assert!(total >= max / 2, "the newest lines are kept: {total}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
