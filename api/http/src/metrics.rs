//! `GET /metrics`: the server's counters in Prometheus' text format.
//!
//! - `sternhalma_http_requests_total` and
//!   `sternhalma_http_requests_duration_seconds` (a histogram), labelled by
//!   `endpoint` (the route's *pattern*, e.g. `/v1/matches/{id}`, so match
//!   ids do not make a series each; every unknown path is `UNMATCHED`),
//!   `method` and `status` ([`RequestMetrics`], the series and labels
//!   `actix-web-prom` made before it); refusals by a per-client limit count
//!   there as 429s, and by limit in `sternhalma_refused_total` (`writes`,
//!   `heavy` and `long_polls`, from [`ClientLimits`]; `heavy_per_client`,
//!   the heavy-work pool's cap of a client's tasks in flight, and its
//!   refusals of a client holding a share of a full queue;
//!   `heavy_displaced`, waiting tasks that gave their place in a full
//!   queue to a client with fewer).
//! - Gauges read at each scrape: `sternhalma_heavy_outstanding` (heavy
//!   tasks running or waiting), `sternhalma_heavy_outstanding_cost` (what
//!   they cost, in thousandths of a request at its largest budget: the
//!   pool's bound is the workers and the queue in requests),
//!   `sternhalma_heavy_waiting` (the heavy
//!   queue's depth), `sternhalma_heavy_urgent` (stored matches' bot moves
//!   searching or waiting in the urgent lane), `sternhalma_heavy_background`
//!   (those of matches only bots are left to play, in the background lane),
//!   `sternhalma_writer_pending` (database writes queued or
//!   running on the writer thread), `sternhalma_long_polls_open`,
//!   `sternhalma_connections_open` (counted where the server accepts them:
//!   `sternhalma serve`).
//! - `sternhalma_connections_refused_total`: connections shut at once over
//!   their client's cap, or from the client holding the most when the
//!   server nears its budget ([`crate::connections`]);
//!   `sternhalma_connections_closed_for_others_total`: connections of the
//!   client holding the most shut to make room for another;
//!   `sternhalma_request_body_timeouts_total`: requests answered 408
//!   `body_timeout` ([`crate::body_timeout`]).
//! - `sternhalma_log_lines_dropped_total`: log lines dropped because stderr
//!   could not keep up (the log never makes a request wait).

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::{Ready, ready};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use actix_web::body::{BodySize, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::web::Bytes;
use actix_web::{Error, HttpRequest, HttpResponse, get, web};
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts,
    Registry, TextEncoder,
};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::body_timeout::BodyTimeout;
use crate::clients::ClientLimits;
use crate::error::ApiError;
use crate::heavy::HeavyPool;

/// The endpoint label of every request that matched no route.
pub const UNMATCHED: &str = "UNMATCHED";

/// The metrics of one server: build once per server and clone into every
/// worker's app (clones share the registry).
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    requests: RequestMetrics,
    gauges: Arc<Gauges>,
}

struct Gauges {
    heavy_outstanding: IntGauge,
    heavy_outstanding_cost: IntGauge,
    heavy_waiting: IntGauge,
    heavy_urgent: IntGauge,
    heavy_background: IntGauge,
    writer_pending: IntGauge,
    long_polls_open: IntGauge,
    connections_open: IntGauge,
    refused: IntCounterVec,
    connections_refused: IntCounter,
    connections_closed_for_others: IntCounter,
    body_timeouts: IntCounter,
    log_dropped: IntCounter,
    /// Two scrapes at once must not both add the same refusals.
    refused_lock: Mutex<()>,
}

impl Metrics {
    /// A fresh registry with the request counters and the gauges.
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let labels = ["endpoint", "method", "status"];
        let requests = RequestMetrics {
            total: IntCounterVec::new(
                Opts::new("http_requests_total", "Total number of HTTP requests")
                    .namespace("sternhalma"),
                &labels,
            )
            .expect("a valid counter"),
            durations: HistogramVec::new(
                HistogramOpts::new(
                    "http_requests_duration_seconds",
                    "HTTP request duration in seconds for all requests",
                )
                .namespace("sternhalma")
                .buckets(prometheus::DEFAULT_BUCKETS.to_vec()),
                &labels,
            )
            .expect("a valid histogram"),
        };
        registry
            .register(Box::new(requests.total.clone()))
            .expect("the request counter registers once");
        registry
            .register(Box::new(requests.durations.clone()))
            .expect("the request histogram registers once");
        let gauge = |name: &str, help: &str| {
            let gauge = IntGauge::with_opts(Opts::new(name, help).namespace("sternhalma"))
                .expect("a valid gauge");
            registry
                .register(Box::new(gauge.clone()))
                .expect("the gauge registers once");
            gauge
        };
        let counter = |name: &str, help: &str| {
            let counter = IntCounter::with_opts(Opts::new(name, help).namespace("sternhalma"))
                .expect("a valid counter");
            registry
                .register(Box::new(counter.clone()))
                .expect("the counter registers once");
            counter
        };
        let gauges = Gauges {
            heavy_outstanding: gauge(
                "heavy_outstanding",
                "Heavy tasks accepted and not finished (running or waiting)",
            ),
            heavy_outstanding_cost: gauge(
                "heavy_outstanding_cost",
                "What the heavy tasks running or waiting cost, in thousandths of a request at its largest budget",
            ),
            heavy_waiting: gauge(
                "heavy_waiting",
                "Heavy tasks waiting for a thread (the heavy queue's depth)",
            ),
            heavy_urgent: gauge(
                "heavy_urgent",
                "Stored matches' bot moves searching or waiting in the heavy pool's urgent lane",
            ),
            heavy_background: gauge(
                "heavy_background",
                "Bot moves of matches only bots are left to play, searching or waiting in the background lane",
            ),
            writer_pending: gauge(
                "writer_pending",
                "Database writes queued or running on the writer thread",
            ),
            long_polls_open: gauge("long_polls_open", "Long-polls open now, over all clients"),
            connections_open: gauge(
                "connections_open",
                "Connections open now, over all clients",
            ),
            connections_refused: counter(
                "connections_refused_total",
                "Connections shut at once because their client held as many as it may",
            ),
            connections_closed_for_others: counter(
                "connections_closed_for_others_total",
                "Connections of the client holding the most shut, near the server's budget, to make room for another",
            ),
            body_timeouts: counter(
                "request_body_timeouts_total",
                "Requests answered 408 because their body did not arrive within the body timeout",
            ),
            refused: IntCounterVec::new(
                Opts::new("refused_total", "Requests refused by a per-client limit")
                    .namespace("sternhalma"),
                &["limit"],
            )
            .expect("a valid counter"),
            log_dropped: IntCounter::with_opts(
                Opts::new(
                    "log_lines_dropped_total",
                    "Log lines dropped because stderr could not keep up (no request waits for the log)",
                )
                .namespace("sternhalma"),
            )
            .expect("a valid counter"),
            refused_lock: Mutex::new(()),
        };
        registry
            .register(Box::new(gauges.log_dropped.clone()))
            .expect("the counter registers once");
        registry
            .register(Box::new(gauges.refused.clone()))
            .expect("the counter registers once");
        Metrics {
            registry,
            requests,
            gauges: Arc::new(gauges),
        }
    }

    /// The middleware that counts and times every request.
    pub fn middleware(&self) -> RequestMetrics {
        self.requests.clone()
    }

    /// The text exposition of every metric, the gauges read now.
    fn render(
        &self,
        writer: Option<&WriterQueue>,
        heavy: &HeavyPool,
        limits: &ClientLimits,
        body_timeout: Option<&BodyTimeout>,
    ) -> String {
        let gauges = &self.gauges;
        let as_gauge = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        gauges.heavy_outstanding.set(as_gauge(heavy.outstanding()));
        gauges
            .heavy_outstanding_cost
            .set(i64::try_from(heavy.outstanding_cost().units()).unwrap_or(i64::MAX));
        gauges.heavy_waiting.set(as_gauge(heavy.waiting()));
        gauges
            .heavy_urgent
            .set(as_gauge(heavy.urgent_outstanding()));
        gauges
            .heavy_background
            .set(as_gauge(heavy.background_outstanding()));
        gauges
            .writer_pending
            .set(as_gauge(writer.map_or(0, |queue| (queue.0)())));
        gauges
            .long_polls_open
            .set(as_gauge(limits.long_polls().open()));
        gauges
            .connections_open
            .set(as_gauge(limits.connections().open()));
        {
            let _one_at_a_time = gauges
                .refused_lock
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let refused = limits.refused();
            for (limit, total) in [
                ("writes", refused.writes),
                ("heavy", refused.heavy),
                ("long_polls", refused.long_polls),
                ("heavy_per_client", heavy.refused_per_client()),
                ("heavy_displaced", heavy.displaced()),
            ] {
                let counter = gauges.refused.with_label_values(&[limit]);
                counter.inc_by(total.saturating_sub(counter.get()));
            }
            for (counter, total) in [
                (&gauges.connections_refused, refused.connections),
                (
                    &gauges.connections_closed_for_others,
                    limits.connections().closed_for_others(),
                ),
                (
                    &gauges.body_timeouts,
                    body_timeout.map_or(0, BodyTimeout::timeouts),
                ),
                (&gauges.log_dropped, crate::access_log::dropped_lines()),
            ] {
                counter.inc_by(total.saturating_sub(counter.get()));
            }
        }
        let mut text = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut text)
            .expect("metrics encode as text");
        String::from_utf8(text).expect("the text format is UTF-8")
    }
}

/// The depth of the database writer's queue, as the server that has a
/// database reads it (`sternhalma_writer_pending`; 0 without one): given
/// to the app as data, so this crate needs no database.
#[derive(Clone)]
pub struct WriterQueue(Arc<dyn Fn() -> usize + Send + Sync>);

impl WriterQueue {
    /// The gauge read by calling `depth` at each scrape.
    pub fn new(depth: impl Fn() -> usize + Send + Sync + 'static) -> WriterQueue {
        WriterQueue(Arc::new(depth))
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

/// Registers `/metrics`.
pub fn configure(config: &mut ServiceConfig) {
    config.service(metrics);
}

/// The server's counters in Prometheus' text format: requests and their
/// latency per route pattern, method and status; refusals per limit; the
/// heavy-work queue, the database writer's queue, the open long-polls and
/// connections, the connections refused and the bodies that came too late.
#[utoipa::path(
    tag = "meta",
    responses(
        (status = 200, description = "Prometheus text exposition format 0.0.4", body = String,
         content_type = "text/plain; version=0.0.4; charset=utf-8"),
    )
)]
#[get("/metrics")]
pub async fn metrics(
    metrics: web::Data<Metrics>,
    writer: Option<web::Data<WriterQueue>>,
    heavy: web::Data<HeavyPool>,
    limits: web::Data<ClientLimits>,
    body_timeout: Option<web::Data<BodyTimeout>>,
) -> Result<HttpResponse, ApiError> {
    let text = metrics.render(
        writer.as_ref().map(|queue| queue.as_ref()),
        &heavy,
        &limits,
        body_timeout.as_ref().map(|timeout| timeout.get_ref()),
    );
    Ok(HttpResponse::Ok()
        .insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        ))
        .body(text))
}

/// The middleware that counts every request and times it, from its start
/// to the last byte of its answer, by route pattern, method and status
/// (`sternhalma_http_requests_total`,
/// `sternhalma_http_requests_duration_seconds`).
///
/// The route pattern is actix's `match_pattern` (the path matched again
/// against the routes), or [`UNMATCHED`]. Each worker remembers, per path
/// it has seen (at most [`MAX_REMEMBERED_PATHS`], then it starts again),
/// the pattern and the series of each method and status, so a request
/// costs a lookup, not a second routing and a look-up by label strings.
#[derive(Clone)]
pub struct RequestMetrics {
    total: IntCounterVec,
    durations: HistogramVec,
}

/// Paths a worker remembers the series of (see [`RequestMetrics`]).
pub const MAX_REMEMBERED_PATHS: usize = 1024;

impl<S, B> Transform<S, ServiceRequest> for RequestMetrics
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<Counted<B>>;
    type Error = Error;
    type Transform = RequestMetricsService<S>;
    type InitError = ();
    type Future = Ready<Result<RequestMetricsService<S>, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestMetricsService {
            service,
            series: Rc::new(RefCell::new(SeriesByPath {
                metrics: self.clone(),
                paths: HashMap::new(),
            })),
        }))
    }
}

/// [`RequestMetrics`] around a service (one per worker).
pub struct RequestMetricsService<S> {
    service: S,
    series: Rc<RefCell<SeriesByPath>>,
}

/// One worker's memory of the series of the paths it has answered.
struct SeriesByPath {
    metrics: RequestMetrics,
    paths: HashMap<Box<str>, PathSeries>,
}

struct PathSeries {
    /// The `endpoint` label: the route pattern, or [`UNMATCHED`].
    endpoint: String,
    by_answer: Vec<(Method, StatusCode, Series)>,
}

/// The series one request counts in.
#[derive(Clone)]
struct Series {
    total: IntCounter,
    duration: Histogram,
}

impl SeriesByPath {
    fn series(&mut self, request: &HttpRequest, status: StatusCode) -> Series {
        let path = request.path();
        if !self.paths.contains_key(path) {
            if self.paths.len() >= MAX_REMEMBERED_PATHS {
                self.paths.clear();
            }
            let endpoint = request
                .match_pattern()
                .unwrap_or_else(|| UNMATCHED.to_owned());
            self.paths.insert(
                path.into(),
                PathSeries {
                    endpoint,
                    by_answer: Vec::new(),
                },
            );
        }
        let known = self.paths.get_mut(path).expect("inserted above");
        let method = request.method();
        if let Some((_, _, series)) = known
            .by_answer
            .iter()
            .find(|(m, s, _)| m == method && *s == status)
        {
            return series.clone();
        }
        let labels = [known.endpoint.as_str(), method.as_str(), status.as_str()];
        let series = Series {
            total: self.metrics.total.with_label_values(&labels),
            duration: self.metrics.durations.with_label_values(&labels),
        };
        known
            .by_answer
            .push((method.clone(), status, series.clone()));
        series
    }
}

impl<S, B> Service<ServiceRequest> for RequestMetricsService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    B: MessageBody,
{
    type Response = ServiceResponse<Counted<B>>;
    type Error = Error;
    type Future = CountedResponse<S::Future>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        CountedResponse {
            started: Instant::now(),
            future: self.service.call(request),
            series: Rc::clone(&self.series),
        }
    }
}

pin_project_lite::pin_project! {
    /// The response of [`RequestMetricsService`].
    pub struct CountedResponse<F> {
        #[pin]
        future: F,
        started: Instant,
        series: Rc<RefCell<SeriesByPath>>,
    }
}

impl<F, B> std::future::Future for CountedResponse<F>
where
    F: std::future::Future<Output = Result<ServiceResponse<B>, Error>>,
    B: MessageBody,
{
    type Output = Result<ServiceResponse<Counted<B>>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.future.poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            Poll::Ready(Ok(response)) => response,
        };
        let series = this
            .series
            .borrow_mut()
            .series(response.request(), response.status());
        let started = *this.started;
        Poll::Ready(Ok(response.map_body(move |_, body| Counted {
            body,
            series: Some(series),
            started,
        })))
    }
}

pin_project_lite::pin_project! {
    /// A response body that counts its request once it has been sent (or
    /// dropped).
    pub struct Counted<B> {
        #[pin]
        body: B,
        series: Option<Series>,
        started: Instant,
    }

    impl<B> PinnedDrop for Counted<B> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let Some(series) = this.series.take() {
                series.duration.observe(this.started.elapsed().as_secs_f64());
                series.total.inc();
            }
        }
    }
}

impl<B: MessageBody> MessageBody for Counted<B> {
    type Error = B::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        self.project().body.poll_next(cx)
    }
}
