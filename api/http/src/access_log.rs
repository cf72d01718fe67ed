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
//! - [`LogSink`]: the log's writer. Worker threads append each formatted
//!   line to a buffer in memory; one thread writes the buffer to stderr a
//!   batch at a time (at most [`FLUSH_INTERVAL`] after a line was logged, at
//!   once when the buffer is large), so a busy server makes tens of writes a
//!   second instead of one system call per request, and its workers never
//!   wait for each other on the stderr lock. A request never waits for the
//!   log: when [`MAX_PENDING`] bytes are already waiting (stderr drained
//!   slower than lines come), a line is dropped and counted
//!   ([`dropped_lines`], `sternhalma_log_lines_dropped_total` in
//!   `/metrics`); dropping the [`LogFlush`] guard writes everything left.
//! - A request line is cut to [`MAX_LOGGED_URI`] bytes, its length said:
//!   a client cannot make the log write 64 KiB a request.

use std::future::{Ready, ready};
use std::io::Write;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::Error;
use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::{Method, Uri, Version};
use actix_web::web::Bytes;

/// The log target of the access log.
pub const TARGET: &str = "sternhalma::http";

/// The middleware that writes the access log (see the module's summary).
/// Wrap it outermost, so that its time and size are the whole request's.
#[derive(Clone, Copy, Debug, Default)]
pub struct AccessLog;

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
        ready(Ok(AccessLogService { service }))
    }
}

/// [`AccessLog`] around a service.
pub struct AccessLogService<S> {
    service: S,
}

/// What one line says about its request, kept from its start.
struct Entry {
    started: Instant,
    peer: Option<IpAddr>,
    method: Method,
    uri: Uri,
    version: Version,
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

/// How long a logged line may wait in memory before it is written.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(20);

/// Bytes of log lines that may wait for the writer; beyond them a line is
/// dropped and counted ([`dropped_lines`]): warnings and errors too, since
/// every line of the process goes through the sink.
pub const MAX_PENDING: usize = 4 << 20;

/// Above this many bytes waiting the writer is woken at once.
const WAKE_AT: usize = 64 << 10;

/// The log's writer for `tracing_subscriber` (a `MakeWriter`): lines go to
/// a buffer, written to stderr by one thread (see the module's summary).
/// Clones share the buffer.
#[derive(Clone)]
pub struct LogSink {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// The writer waits here for lines (or the end).
    wake_writer: Condvar,
}

/// Log lines dropped because the log's buffer was full, by every sink of
/// the process.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Log lines dropped so far because stderr could not keep up (the
/// buffer held [`MAX_PENDING`] bytes).
pub fn dropped_lines() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

#[derive(Default)]
struct State {
    pending: Vec<u8>,
    /// The writer is asleep with nothing to write: wake it for a line.
    idle: bool,
    closing: bool,
}

/// Writes what is left and stops the writer thread when dropped: keep it
/// alive as long as anything may log.
#[must_use = "the log is written only while the guard lives"]
pub struct LogFlush {
    shared: Arc<Shared>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl LogSink {
    /// A sink writing to stderr, its writer thread started.
    pub fn stderr() -> (LogSink, LogFlush) {
        LogSink::new(std::io::stderr())
    }

    /// A sink writing to `out` (the tests write to memory).
    pub fn new(mut out: impl Write + Send + 'static) -> (LogSink, LogFlush) {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake_writer: Condvar::new(),
        });
        let writer = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("log-writer".to_owned())
                .spawn(move || shared.write_until_closed(&mut out))
                .expect("the log writer thread starts")
        };
        (
            LogSink {
                shared: Arc::clone(&shared),
            },
            LogFlush {
                shared,
                writer: Some(writer),
            },
        )
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_until_closed(&self, out: &mut impl Write) {
        let mut batch = Vec::new();
        loop {
            let closing = {
                let mut state = self.lock();
                while state.pending.is_empty() && !state.closing {
                    state.idle = true;
                    state = self
                        .wake_writer
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                state.idle = false;
                std::mem::swap(&mut batch, &mut state.pending);
                state.closing
            };
            // A log that cannot be written (stderr closed) is lost, as
            // with a direct write; the server goes on.
            let _ = out.write_all(&batch).and_then(|()| out.flush());
            batch.clear();
            if closing && self.lock().pending.is_empty() {
                return;
            }
            // Let lines gather, unless there are many or the end comes.
            let state = self.lock();
            let _ = self
                .wake_writer
                .wait_timeout_while(state, FLUSH_INTERVAL, |state| {
                    state.pending.len() < WAKE_AT && !state.closing
                })
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn append(&self, line: &[u8]) {
        let mut state = self.lock();
        if state.pending.len() >= MAX_PENDING && !state.closing {
            // The sink is slower than the lines: drop this one rather than
            // make a request wait for stderr.
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        }
        state.pending.extend_from_slice(line);
        let wake = state.idle || state.pending.len() >= WAKE_AT;
        if wake {
            state.idle = false;
        }
        drop(state);
        if wake {
            self.wake_writer.notify_one();
        }
    }
}

impl Drop for LogFlush {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.wake_writer.notify_one();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// One event's writer, handed out by [`LogSink`].
pub struct SinkWriter<'a> {
    shared: &'a Shared,
}

impl Write for SinkWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.shared.append(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogSink {
    type Writer = SinkWriter<'a>;

    fn make_writer(&'a self) -> SinkWriter<'a> {
        SinkWriter {
            shared: &self.shared,
        }
    }
}

#[cfg(test)]
mod tests {
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
        let (sink, flush) = LogSink::new(memory.clone());
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
        let (sink, flush) = LogSink::new(memory.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_writer(sink)
            .with_ansi(false)
            .without_time()
            .finish();
        let _default = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(App::new().wrap(AccessLog).route(
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
        let (sink, _flush) = LogSink::new(memory.clone());
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
        let (sink, flush) = LogSink::new(Stuck(stuck, memory.clone()));
        let line = vec![b'x'; 1023];
        let line = [line.as_slice(), b"\n"].concat();
        // Far more than the buffer holds while nothing is written: every
        // call returns (a worker never waits), the excess is counted.
        let before = dropped_lines();
        let lines = 3 * MAX_PENDING / line.len();
        for _ in 0..lines {
            let mut writer = tracing_subscriber::fmt::MakeWriter::make_writer(&sink);
            writer.write_all(&line).unwrap();
        }
        let dropped = dropped_lines() - before;
        // Released before any assertion: a failing one must not leave the
        // writer stuck while the guard waits for it.
        drop(release);
        drop(flush);
        // The writer took at most one buffer before it stuck, and the
        // buffer then held at most MAX_PENDING bytes: the rest was dropped.
        let held = MAX_PENDING / line.len() + 1;
        assert!(dropped as usize >= lines - 2 * held, "{dropped} of {lines}");
        assert!((dropped as usize) < lines);
        let written = memory.0.lock().unwrap().len() / line.len();
        assert_eq!(
            written + dropped as usize,
            lines,
            "each line written or counted"
        );
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
}
