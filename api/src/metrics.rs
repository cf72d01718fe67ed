//! `GET /metrics`: the server's counters in Prometheus' text format.
//!
//! - `sternhalma_http_requests_total` and
//!   `sternhalma_http_requests_duration_seconds` (a histogram), labelled by
//!   `endpoint` (the route's *pattern*, e.g. `/v1/matches/{id}`, so match
//!   ids do not make a series each; every unknown path is `UNMATCHED`),
//!   `method` and `status` (the `actix-web-prom` middleware); refusals by a
//!   per-client limit count there as 429s, and by limit in
//!   `sternhalma_refused_total`.
//! - Gauges read at each scrape: `sternhalma_heavy_outstanding` (heavy
//!   tasks running or waiting), `sternhalma_heavy_waiting` (the heavy
//!   queue's depth), `sternhalma_heavy_urgent` (stored matches' bot moves
//!   searching or waiting in the urgent lane), `sternhalma_heavy_background`
//!   (those of matches only bots are left to play, in the background lane),
//!   `sternhalma_writer_pending` (database writes queued or
//!   running on the writer thread), `sternhalma_long_polls_open`.

use std::sync::{Arc, Mutex, PoisonError};

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, get, web};
use actix_web_prom::{PrometheusMetrics, PrometheusMetricsBuilder};
use prometheus::{Encoder, IntCounterVec, IntGauge, Opts, TextEncoder};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::clients::ClientLimits;
use crate::error::ApiError;
use crate::heavy::HeavyPool;
use crate::store::Store;

/// The endpoint label of every request that matched no route.
pub const UNMATCHED: &str = "UNMATCHED";

/// The metrics of one server: build once per server and clone into every
/// worker's app (clones share the registry).
#[derive(Clone)]
pub struct Metrics {
    middleware: PrometheusMetrics,
    gauges: Arc<Gauges>,
}

struct Gauges {
    heavy_outstanding: IntGauge,
    heavy_waiting: IntGauge,
    heavy_urgent: IntGauge,
    heavy_background: IntGauge,
    writer_pending: IntGauge,
    long_polls_open: IntGauge,
    refused: IntCounterVec,
    /// Two scrapes at once must not both add the same refusals.
    refused_lock: Mutex<()>,
}

impl Metrics {
    /// A fresh registry with the request counters and the gauges.
    pub fn new() -> Metrics {
        let middleware = PrometheusMetricsBuilder::new("sternhalma")
            .mask_unmatched_patterns(UNMATCHED)
            .build()
            .expect("the request metrics register");
        let gauge = |name: &str, help: &str| {
            let gauge = IntGauge::with_opts(Opts::new(name, help).namespace("sternhalma"))
                .expect("a valid gauge");
            middleware
                .registry
                .register(Box::new(gauge.clone()))
                .expect("the gauge registers once");
            gauge
        };
        let gauges = Gauges {
            heavy_outstanding: gauge(
                "heavy_outstanding",
                "Heavy tasks accepted and not finished (running or waiting)",
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
            refused: IntCounterVec::new(
                Opts::new("refused_total", "Requests refused by a per-client limit")
                    .namespace("sternhalma"),
                &["limit"],
            )
            .expect("a valid counter"),
            refused_lock: Mutex::new(()),
        };
        middleware
            .registry
            .register(Box::new(gauges.refused.clone()))
            .expect("the counter registers once");
        Metrics {
            middleware,
            gauges: Arc::new(gauges),
        }
    }

    /// The middleware that counts and times every request.
    pub fn middleware(&self) -> PrometheusMetrics {
        self.middleware.clone()
    }

    /// The text exposition of every metric, the gauges read now.
    fn render(&self, store: &Store, heavy: &HeavyPool, limits: &ClientLimits) -> String {
        let gauges = &self.gauges;
        let as_gauge = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        gauges.heavy_outstanding.set(as_gauge(heavy.outstanding()));
        gauges.heavy_waiting.set(as_gauge(heavy.waiting()));
        gauges
            .heavy_urgent
            .set(as_gauge(heavy.urgent_outstanding()));
        gauges
            .heavy_background
            .set(as_gauge(heavy.background_outstanding()));
        gauges.writer_pending.set(as_gauge(store.pending_writes()));
        gauges
            .long_polls_open
            .set(as_gauge(limits.long_polls().open()));
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
            ] {
                let counter = gauges.refused.with_label_values(&[limit]);
                counter.inc_by(total.saturating_sub(counter.get()));
            }
        }
        let mut text = Vec::new();
        TextEncoder::new()
            .encode(&self.middleware.registry.gather(), &mut text)
            .expect("metrics encode as text");
        String::from_utf8(text).expect("the text format is UTF-8")
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
/// heavy-work queue, the database writer's queue and the open long-polls.
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
    store: web::Data<Store>,
    heavy: web::Data<HeavyPool>,
    limits: web::Data<ClientLimits>,
) -> Result<HttpResponse, ApiError> {
    let text = metrics.render(&store, &heavy, &limits);
    Ok(HttpResponse::Ok()
        .insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        ))
        .body(text))
}
