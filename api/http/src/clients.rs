//! Limits per client, so that one careless bot cannot make a shared server
//! unavailable to the rest of a class.
//!
//! A client is its IP address as the socket sees it (IPv6 addresses by
//! their /64 prefix, which one machine holds whole), never a header: a
//! client cannot claim to be another. Behind a reverse proxy, or for every
//! notebook of one JupyterHub, all requests come from one address; raise
//! the limits or turn them off there.
//!
//! - **Writes**: `POST` operations that store something (matches, moves,
//!   resignations, and any later ones) share one rate per client. They
//!   queue on the database's single writer thread and each waits for its
//!   commit to reach the disk.
//! - **Heavy work** (bot searches, replays, renders, solitaire solves and
//!   jobs) has its own, tighter rate: each costs milliseconds to seconds of
//!   a core.
//! - The stateless computations (`/v1/positions`, `/v1/legal-moves`,
//!   `/v1/apply`, `/v1/outcome`, ...) are `POST` only because they carry a
//!   body: they cost microseconds, like a `GET`, and a student's search over
//!   HTTP sends hundreds a second on purpose. They are not limited, nor are
//!   the `GET`s.
//! - **Long-polls** (`wait_ply`, `wait_ms`) cost a socket each, not a
//!   thread: a client may hold a few at once ([`LongPolls`]).
//! - **Heavy work in flight**: the heavy-work pool serves the clients in
//!   turn and caps the tasks one client has running or waiting
//!   (`crate::heavy`, `too_many_heavy_requests`); a rate counts requests,
//!   not what they cost, and a burst of long solves fits in any rate.
//!
//! Over a limit the answer is 429 problem details (`rate_limited`,
//! `too_many_waits`, `too_many_heavy_requests`) with `Retry-After`. Rates are token buckets (the
//! `governor` crate): `burst` requests at once, then one per `period`.

use std::collections::HashMap;
use std::future::{Ready, ready};
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpRequest, ResponseError, web};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use utoipa::openapi::{OpenApi, PathItem};

use crate::error::ApiError;

/// Writes a client may send per minute by default: 300 (five a second,
/// after a burst of [`DEFAULT_WRITE_BURST`]). A bot playing a stored match
/// sends one write a move, so a game of 100 moves against a built-in bot
/// takes 20 s at worst; thirty students at this rate ask the writer for 150
/// commits a second, about what one disk's `fsync`s give.
pub const DEFAULT_WRITES_PER_MINUTE: u32 = 300;

/// Writes a client may send at once by default: a notebook cell that
/// creates a few matches and plays their first moves is never refused.
pub const DEFAULT_WRITE_BURST: u32 = 60;

/// Heavy requests a client may send per minute by default: 60 (one a
/// second, after a burst of [`DEFAULT_HEAVY_BURST`]). A bot search at the
/// default budget takes about 50 ms, so thirty students at this rate keep
/// the heavy pool of a two-core laptop about three-quarters busy, and one
/// student alone never fills its queue.
pub const DEFAULT_HEAVY_PER_MINUTE: u32 = 60;

/// Heavy requests a client may send at once by default: a page of twenty
/// rendered positions (`<img src=/v1/render.svg...>`) loads whole.
pub const DEFAULT_HEAVY_BURST: u32 = 20;

/// Long-polls a client may hold open at once by default: a script watching
/// a handful of matches, or a browser (which opens at most six connections
/// per server) with room to spare. Thirty clients at the cap hold 480
/// sockets, far below the open-file limit the server raises at start.
pub const DEFAULT_LONG_POLLS_PER_CLIENT: usize = 16;

/// Seconds a client refused a long-poll is asked to wait: by then one of
/// its own has usually answered.
pub const LONG_POLL_RETRY_AFTER_SECONDS: u32 = 5;

/// One rate: `burst` requests at once, then one each `period`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed at once (at least one).
    pub burst: NonZeroU32,
    /// Time after which one more request is allowed (not zero).
    pub period: Duration,
}

impl RateLimit {
    /// `per_minute` requests a minute after a burst of `burst`; `None` (no
    /// limit) when `per_minute` is 0. A burst of 0 counts as 1.
    pub fn per_minute(per_minute: u32, burst: u32) -> Option<RateLimit> {
        (per_minute > 0).then(|| RateLimit {
            burst: NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN),
            period: Duration::from_secs(60) / per_minute,
        })
    }

    fn quota(self) -> Quota {
        Quota::with_period(self.period.max(Duration::from_nanos(1)))
            .expect("the period is not zero")
            .allow_burst(self.burst)
    }
}

/// Which limit an operation falls under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limited {
    /// A `POST` that stores something.
    Write,
    /// CPU-heavy work.
    Heavy,
}

/// The heavy operations, as the OpenAPI document writes them.
const HEAVY: &[(&str, &str)] = &[
    ("POST", "/v1/bots/move"),
    ("POST", "/v1/replay"),
    ("POST", "/v1/render"),
    ("GET", "/v1/render.svg"),
    ("POST", "/v1/solitaire/solve"),
    ("POST", "/v1/solitaire/jobs"),
];

/// The `POST`s that only compute (they store nothing and cost microseconds).
/// Every other `POST` counts as a write, so a new route is limited unless
/// it is listed here.
const STATELESS_POSTS: &[&str] = &[
    "/v1/positions",
    "/v1/positions/validate",
    "/v1/legal-moves",
    "/v1/apply",
    "/v1/outcome",
];

/// The long-poll operations, and the query parameter that makes them wait.
const LONG_POLLS: &[(&str, &str)] = &[
    ("/v1/matches/{id}", "wait_ply"),
    ("/v1/solitaire/jobs/{id}", "wait_ms"),
];

/// The limit `method` on `path` (a request path, or a path pattern of the
/// OpenAPI document) falls under, if any.
pub fn classify(method: &Method, path: &str) -> Option<Limited> {
    if HEAVY
        .iter()
        .any(|(m, p)| method.as_str() == *m && path == *p)
    {
        Some(Limited::Heavy)
    } else if method == Method::POST && !STATELESS_POSTS.contains(&path) {
        Some(Limited::Write)
    } else {
        None
    }
}

/// The limits of one server and their state: build once per server and
/// clone into every worker's app (clones share the counts).
#[derive(Clone)]
pub struct ClientLimits {
    inner: Arc<Inner>,
}

struct Inner {
    writes: Option<(RateLimit, DefaultKeyedRateLimiter<IpAddr>)>,
    heavy: Option<(RateLimit, DefaultKeyedRateLimiter<IpAddr>)>,
    long_polls: LongPolls,
    /// Checks since the buckets of idle clients were last forgotten.
    checks: AtomicU64,
    refused_writes: AtomicU64,
    refused_heavy: AtomicU64,
}

/// After this many checks the limiters forget the clients whose buckets are
/// full again, so their memory stays as small as the set of active clients.
const FORGET_EVERY: u64 = 4096;

impl ClientLimits {
    /// Limits with these rates (`None`: no limit) and at most
    /// `long_polls_per_client` long-polls open per client (`None`: no cap).
    pub fn new(
        writes: Option<RateLimit>,
        heavy: Option<RateLimit>,
        long_polls_per_client: Option<usize>,
    ) -> ClientLimits {
        let limiter = |rate: RateLimit| (rate, RateLimiter::keyed(rate.quota()));
        ClientLimits {
            inner: Arc::new(Inner {
                writes: writes.map(limiter),
                heavy: heavy.map(limiter),
                long_polls: LongPolls::new(long_polls_per_client),
                checks: AtomicU64::new(0),
                refused_writes: AtomicU64::new(0),
                refused_heavy: AtomicU64::new(0),
            }),
        }
    }

    /// The defaults of `sternhalma serve`, sized for a class of about thirty
    /// on one laptop (see the constants).
    pub fn classroom() -> ClientLimits {
        ClientLimits::new(
            RateLimit::per_minute(DEFAULT_WRITES_PER_MINUTE, DEFAULT_WRITE_BURST),
            RateLimit::per_minute(DEFAULT_HEAVY_PER_MINUTE, DEFAULT_HEAVY_BURST),
            Some(DEFAULT_LONG_POLLS_PER_CLIENT),
        )
    }

    /// No limit at all (long-polls are still counted).
    pub fn off() -> ClientLimits {
        ClientLimits::new(None, None, None)
    }

    /// The long-polls and their cap.
    pub fn long_polls(&self) -> &LongPolls {
        &self.inner.long_polls
    }

    /// Requests refused so far, by limit.
    pub fn refused(&self) -> Refused {
        Refused {
            writes: self.inner.refused_writes.load(Ordering::Relaxed),
            heavy: self.inner.refused_heavy.load(Ordering::Relaxed),
            long_polls: self.inner.long_polls.refused.load(Ordering::Relaxed),
        }
    }

    /// Counts a request of `client` against the limit of `method` on `path`.
    ///
    /// # Errors
    /// 429 `rate_limited` with `Retry-After` when the client is over it.
    pub fn check(&self, client: IpAddr, method: &Method, path: &str) -> Result<(), ApiError> {
        let Some(class) = classify(method, path) else {
            return Ok(());
        };
        let (limit, refused, what) = match class {
            Limited::Write => (&self.inner.writes, &self.inner.refused_writes, "writes"),
            Limited::Heavy => (
                &self.inner.heavy,
                &self.inner.refused_heavy,
                "heavy requests",
            ),
        };
        let Some((rate, limiter)) = limit else {
            return Ok(());
        };
        if self.inner.checks.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
            limiter.retain_recent();
        }
        let key = client_key(client);
        limiter.check_key(&key).map_err(|not_until| {
            refused.fetch_add(1, Ordering::Relaxed);
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let seconds = u32::try_from(wait.as_secs().saturating_add(1)).unwrap_or(u32::MAX);
            ApiError::too_many_requests(
                "rate_limited",
                format!(
                    "this client has sent too many {what}: {} at once, then one every {:.1} s; try again in {seconds} s",
                    rate.burst,
                    rate.period.as_secs_f64()
                ),
                seconds,
            )
        })
    }
}

/// Requests refused since the server started, by limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refused {
    /// `rate_limited` writes.
    pub writes: u64,
    /// `rate_limited` heavy requests.
    pub heavy: u64,
    /// `too_many_waits` long-polls.
    pub long_polls: u64,
}

/// The key a client is counted under: its IP address, an IPv6 address by
/// its /64 prefix (one machine may use any address in it).
pub fn client_key(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// The middleware that enforces the rates: a request over its client's
/// limit is answered 429 before it reaches its handler.
pub async fn enforce<B: MessageBody>(
    limits: ClientLimits,
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if let Some(peer) = request.peer_addr() {
        // The decoded path, as the router matches it: `/v1/bots/mov%65`
        // is `/v1/bots/move` here too.
        let path = request.match_info().as_str();
        if let Err(refused) = limits.check(peer.ip(), request.method(), path) {
            let response = refused.error_response();
            return Ok(request.into_response(response).map_into_right_body());
        }
    }
    Ok(next.call(request).await?.map_into_left_body())
}

/// Open long-polls, counted per client, with an optional cap.
pub struct LongPolls {
    cap: Option<usize>,
    open: Arc<Counts>,
    refused: AtomicU64,
}

#[derive(Default)]
struct Counts {
    per_client: Mutex<HashMap<IpAddr, usize>>,
    total: AtomicUsize,
}

impl LongPolls {
    fn new(cap: Option<usize>) -> LongPolls {
        LongPolls {
            cap,
            open: Arc::default(),
            refused: AtomicU64::new(0),
        }
    }

    /// Long-polls open now, over all clients.
    pub fn open(&self) -> usize {
        self.open.total.load(Ordering::Relaxed)
    }

    /// Opens a long-poll for `client`; it stays counted until the guard is
    /// dropped: when the handler answers, or when actix drops the handler
    /// because the client closed its connection (`sternhalma serve` turns
    /// off HTTP/1 half-closed connections so that actix does).
    ///
    /// # Errors
    /// 429 `too_many_waits` with `Retry-After` when the client holds as many
    /// as the cap allows.
    pub fn enter(&self, client: IpAddr) -> Result<LongPollGuard, ApiError> {
        let key = client_key(client);
        let mut per_client = self
            .open
            .per_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let count = per_client.entry(key).or_insert(0);
        if let Some(cap) = self.cap {
            if *count >= cap {
                self.refused.fetch_add(1, Ordering::Relaxed);
                return Err(ApiError::too_many_requests(
                    "too_many_waits",
                    format!(
                        "this client already holds {count} long-polls, the most it may: wait for one to answer, or try again in {LONG_POLL_RETRY_AFTER_SECONDS} s"
                    ),
                    LONG_POLL_RETRY_AFTER_SECONDS,
                ));
            }
        }
        *count += 1;
        self.open.total.fetch_add(1, Ordering::Relaxed);
        Ok(LongPollGuard {
            counts: Arc::clone(&self.open),
            key,
        })
    }
}

/// One open long-poll; dropping it closes it.
#[must_use = "the long-poll is counted only while the guard lives"]
pub struct LongPollGuard {
    counts: Arc<Counts>,
    key: IpAddr,
}

impl std::fmt::Debug for LongPollGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LongPollGuard")
            .field("client", &self.key)
            .finish()
    }
}

impl Drop for LongPollGuard {
    fn drop(&mut self) {
        let mut per_client = self
            .counts
            .per_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = per_client.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                per_client.remove(&self.key);
            }
        }
        self.counts.total.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A handler's access to the long-poll cap (an extractor): call
/// [`LongPollSlot::enter`] only when the request will wait. Never fails to
/// extract; on an app without limits, or a request without a peer address
/// (in-process tests), entering always succeeds and counts nothing.
pub struct LongPollSlot {
    limits: Option<ClientLimits>,
    client: Option<IpAddr>,
}

impl LongPollSlot {
    /// Counts this request as a long-poll of its client until the guard is
    /// dropped.
    ///
    /// # Errors
    /// 429 `too_many_waits` as [`LongPolls::enter`].
    pub fn enter(&self) -> Result<Option<LongPollGuard>, ApiError> {
        match (&self.limits, self.client) {
            (Some(limits), Some(client)) => limits.long_polls().enter(client).map(Some),
            _ => Ok(None),
        }
    }
}

impl FromRequest for LongPollSlot {
    type Error = actix_web::Error;
    type Future = Ready<Result<LongPollSlot, actix_web::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(LongPollSlot {
            limits: request
                .app_data::<web::Data<ClientLimits>>()
                .map(|data| data.get_ref().clone()),
            client: request.peer_addr().map(|peer| peer.ip()),
        }))
    }
}

/// Adds the 429 answers to every operation of `api` that a limit can
/// refuse, from the same tables that enforce them, so that the document
/// cannot forget one (unless the operation documents its 429 itself).
pub fn document(api: &mut OpenApi) {
    use utoipa::IntoResponses;
    let rate_limited = crate::error::RateLimited::responses();
    let too_many_waits = crate::error::TooManyWaits::responses();
    for (path, item) in &mut api.paths.paths {
        for (method, operation) in operations(item) {
            let answers = if classify(&method, path).is_some() {
                &rate_limited
            } else if method == Method::GET && LONG_POLLS.iter().any(|(p, _)| p == path) {
                &too_many_waits
            } else {
                continue;
            };
            // An operation that documents its own 429 (the heavy ones
            // counted against the client's cap: `HeavyErrors`) names every
            // code it can answer there; it is kept.
            for (status, response) in answers {
                operation
                    .responses
                    .responses
                    .entry(status.clone())
                    .or_insert_with(|| response.clone());
            }
        }
    }
}

fn operations(item: &mut PathItem) -> Vec<(Method, &mut utoipa::openapi::path::Operation)> {
    [
        (Method::GET, item.get.as_mut()),
        (Method::POST, item.post.as_mut()),
        (Method::PUT, item.put.as_mut()),
        (Method::DELETE, item.delete.as_mut()),
        (Method::PATCH, item.patch.as_mut()),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.map(|operation| (method, operation)))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn operations_fall_under_the_right_limit() {
        assert_eq!(classify(&Method::POST, "/v1/matches"), Some(Limited::Write));
        assert_eq!(
            classify(&Method::POST, "/v1/matches/7/moves"),
            Some(Limited::Write)
        );
        assert_eq!(
            classify(&Method::GET, "/v1/render.svg"),
            Some(Limited::Heavy)
        );
        assert_eq!(
            classify(&Method::POST, "/v1/solitaire/jobs"),
            Some(Limited::Heavy)
        );
        assert_eq!(classify(&Method::POST, "/v1/apply"), None);
        assert_eq!(classify(&Method::GET, "/v1/matches/7"), None);
    }

    #[test]
    fn a_burst_of_one_refuses_the_second_request_until_the_period_ends() {
        let hour = RateLimit {
            burst: NonZeroU32::MIN,
            period: Duration::from_secs(3600),
        };
        let limits = ClientLimits::new(Some(hour), None, None);
        let post = Method::POST;
        limits.check(ip("10.0.0.1"), &post, "/v1/matches").unwrap();
        let refused = limits
            .check(ip("10.0.0.1"), &post, "/v1/matches/1/moves")
            .unwrap_err();
        assert_eq!(refused.problem().code, "rate_limited");
        assert_eq!(refused.problem().status, 429);
        let seconds = refused.retry_after().unwrap();
        assert!((3000..=3601).contains(&seconds), "{seconds}");
        // Another client, and the unlimited classes, are untouched.
        limits.check(ip("10.0.0.2"), &post, "/v1/matches").unwrap();
        limits.check(ip("10.0.0.1"), &post, "/v1/render").unwrap();
        limits.check(ip("10.0.0.1"), &post, "/v1/apply").unwrap();
        assert_eq!(
            limits.refused(),
            Refused {
                writes: 1,
                ..Refused::default()
            }
        );
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_prefix() {
        assert_eq!(
            client_key(ip("2001:db8:1:2:3:4:5:6")),
            client_key(ip("2001:db8:1:2:ffff::1"))
        );
        assert_ne!(
            client_key(ip("2001:db8:1:2::1")),
            client_key(ip("2001:db8:1:3::1"))
        );
        assert_eq!(client_key(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
    }

    #[test]
    fn long_polls_are_capped_per_client_and_released_on_drop() {
        let limits = ClientLimits::new(None, None, Some(2));
        let polls = limits.long_polls();
        let first = polls.enter(ip("10.0.0.1")).unwrap();
        let second = polls.enter(ip("10.0.0.1")).unwrap();
        let refused = polls.enter(ip("10.0.0.1")).unwrap_err();
        assert_eq!(refused.problem().code, "too_many_waits");
        assert_eq!(refused.retry_after(), Some(LONG_POLL_RETRY_AFTER_SECONDS));
        let other = polls.enter(ip("10.0.0.2")).unwrap();
        assert_eq!(polls.open(), 3);
        drop(first);
        let third = polls.enter(ip("10.0.0.1")).unwrap();
        drop((second, third, other));
        assert_eq!(polls.open(), 0);
        assert!(polls.open.per_client.lock().unwrap().is_empty());
    }
}
