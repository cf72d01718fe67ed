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
//!   commit to reach the disk. A write with a bearer token (a seat's,
//!   an entrant's, a creator's, the admin key) that has been answered
//!   with success from this client counts against a bucket of that token's
//!   own (`TokenWrites`), so thirty students behind one school NAT each
//!   have the rate of one client.
//! - **Heavy work** (bot searches, replays, analyses, renders, solitaire
//!   solves and jobs) has its own, tighter rate: each costs milliseconds
//!   to seconds of a core.
//! - The stateless computations (`/v1/positions`, `/v1/legal-moves`,
//!   `/v1/apply`, `/v1/outcome`, `/v1/tablebase/probe`, ...) are `POST`
//!   only because they carry a body: they cost microseconds, like a `GET`,
//!   and a student's search over HTTP sends hundreds a second on purpose.
//!   They are not limited, nor are the `GET`s.
//! - **Long-polls** (`wait_ply`, `wait_ms`) cost a socket each, not a
//!   thread: a client may hold a few at once ([`LongPolls`]).
//! - **Connections**: a client may hold a bounded number of connections
//!   open at once ([`crate::connections`]); beyond it a new connection is shut at
//!   once, so that two addresses cannot take every file the server may
//!   open.
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
use std::hash::{BuildHasher, RandomState};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{AUTHORIZATION, HeaderMap};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest, ResponseError, web};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use utoipa::openapi::{OpenApi, PathItem};

use crate::connections::Connections;
use crate::error::ApiError;
use crate::peers::Counts;
pub use crate::peers::client_key;

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

/// Bearer tokens whose writes one client (an address: a school behind one
/// NAT) may have counted on their own by default, each at the write rate:
/// a class of thirty, each student with an entrant's token and a match's
/// seat or two in play, and the teacher's key. Beyond them the token least
/// recently used goes back to the address's bucket, so a client that
/// collects tokens gains at most this many rates.
pub const DEFAULT_WRITE_TOKENS_PER_CLIENT: usize = 64;

/// How long a token keeps its own bucket at a client without writing: a
/// token unused that long is counted against the address again until its
/// next write answered with success.
pub const TOKEN_IDLE_SECONDS: u64 = 15 * 60;

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
    ("POST", "/v1/analysis"),
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
    // A few reads of a table in memory: microseconds, like a legal-move
    // list; neither a write nor heavy work.
    "/v1/tablebase/probe",
    // Up to a few thousand reads of a table in memory (a move list a ply,
    // a line of at most a few dozen plies): well under a millisecond.
    "/v1/tablebase/mainline",
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
    /// Writes counted per bearer token (`None`: every write per address).
    tokens: Option<TokenWrites>,
    long_polls: LongPolls,
    connections: Connections,
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
                tokens: writes.map(|rate| TokenWrites::new(rate, DEFAULT_WRITE_TOKENS_PER_CLIENT)),
                writes: writes.map(limiter),
                heavy: heavy.map(limiter),
                long_polls: LongPolls::new(long_polls_per_client),
                connections: Connections::new(None),
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
        .with_connections_per_client(Some(crate::connections::DEFAULT_CONNECTIONS_PER_CLIENT))
    }

    /// No limit at all (long-polls and connections are still counted).
    pub fn off() -> ClientLimits {
        ClientLimits::new(None, None, None)
    }

    /// These limits with writes counted per bearer token for at most
    /// `tokens` tokens a client ([`DEFAULT_WRITE_TOKENS_PER_CLIENT`] unless
    /// set); `None` or `Some(0)`: every write counted per client. Without
    /// a write rate there is nothing to count.
    ///
    /// # Panics
    /// When these limits have been cloned already: configure them first.
    #[must_use]
    pub fn with_write_tokens_per_client(mut self, tokens: Option<usize>) -> ClientLimits {
        let inner = Arc::get_mut(&mut self.inner).expect("limits are configured before sharing");
        inner.tokens = match (tokens, inner.writes.as_ref()) {
            (Some(per_client @ 1..), Some((rate, _))) => Some(TokenWrites::new(*rate, per_client)),
            _ => None,
        };
        self
    }

    /// These limits with at most `cap` connections open at once per client
    /// (`None` or `Some(0)`: no cap); enforced where the server accepts
    /// connections ([`ClientLimits::on_connect`]).
    ///
    /// # Panics
    /// When these limits have been cloned already: configure them first.
    #[must_use]
    pub fn with_connections_per_client(mut self, cap: Option<usize>) -> ClientLimits {
        let inner = Arc::get_mut(&mut self.inner).expect("limits are configured before sharing");
        inner.connections = Connections::new(cap.filter(|&cap| cap > 0));
        self
    }

    /// The long-polls and their cap.
    pub fn long_polls(&self) -> &LongPolls {
        &self.inner.long_polls
    }

    /// The open connections and their cap.
    pub fn connections(&self) -> &Connections {
        &self.inner.connections
    }

    /// The most bearer tokens a client may have counted on their own
    /// (0: writes are counted per client only).
    pub fn write_tokens_per_client(&self) -> usize {
        self.inner
            .tokens
            .as_ref()
            .map_or(0, |tokens| tokens.per_client)
    }

    /// Counts a new connection from the server's accept loop: for
    /// `actix_web::HttpServer::on_connect`. Over its client's cap the
    /// connection is shut at once ([`crate::connections`]).
    pub fn on_connect(&self, io: &dyn std::any::Any, extensions: &mut actix_web::dev::Extensions) {
        self.inner.connections.on_connect(io, extensions);
    }

    /// Requests refused so far, by limit.
    pub fn refused(&self) -> Refused {
        Refused {
            writes: self.inner.refused_writes.load(Ordering::Relaxed),
            heavy: self.inner.refused_heavy.load(Ordering::Relaxed),
            long_polls: self.inner.long_polls.refused.load(Ordering::Relaxed),
            connections: self.inner.connections.refused(),
        }
    }

    /// Counts a request of `client` against the limit of `method` on `path`,
    /// as a request without a bearer token.
    ///
    /// # Errors
    /// 429 `rate_limited` with `Retry-After` when the client is over it.
    pub fn check(&self, client: IpAddr, method: &Method, path: &str) -> Result<(), ApiError> {
        self.check_request(client, method, path, None).map(drop)
    }

    /// Counts a request of `client` against the limit of `method` on `path`:
    /// a write with a bearer token (its text, `bearer`) against the token's
    /// own bucket when the token has been answered with success from this
    /// client before, anything else against the client's. The answer's
    /// status goes to [`ClientLimits::answered`] with what this returns.
    ///
    /// # Errors
    /// 429 `rate_limited` with `Retry-After` when the client, or the token,
    /// is over it.
    pub fn check_request(
        &self,
        client: IpAddr,
        method: &Method,
        path: &str,
        bearer: Option<&str>,
    ) -> Result<Charged, ApiError> {
        let Some(class) = classify(method, path) else {
            return Ok(Charged::Nothing);
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
            return Ok(Charged::Nothing);
        };
        let forget =
            self.inner.checks.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1;
        if forget {
            limiter.retain_recent();
        }
        let client = client_key(client);
        let refusal = |who: &str, not_until: governor::NotUntil<_>| {
            refused.fetch_add(1, Ordering::Relaxed);
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let seconds = u32::try_from(wait.as_secs().saturating_add(1)).unwrap_or(u32::MAX);
            ApiError::too_many_requests(
                "rate_limited",
                format!(
                    "{who} has sent too many {what}: {} at once, then one every {:.1} s; try again in {seconds} s",
                    rate.burst,
                    rate.period.as_secs_f64()
                ),
                seconds,
            )
        };
        let token = match (&self.inner.tokens, class, bearer) {
            (Some(tokens), Limited::Write, Some(text)) => {
                if forget {
                    tokens.forget_idle(Instant::now());
                }
                let token = tokens.key(text);
                if tokens.is_proven(client, token, Instant::now()) {
                    tokens
                        .limiter
                        .check_key(&token.0)
                        .map_err(|not_until| refusal("this token", not_until))?;
                    // All its tokens together: a client that holds many
                    // (it created many matches) writes at most
                    // TOKENS_CEILING times the rate of one.
                    return tokens
                        .total
                        .check_key(&client)
                        .map(|()| Charged::Token)
                        .map_err(|not_until| refusal("this client's tokens together", not_until));
                }
                Some(token)
            }
            _ => None,
        };
        limiter
            .check_key(&client)
            .map_err(|not_until| refusal("this client", not_until))?;
        Ok(token.map_or(Charged::Client, Charged::Unproven))
    }

    /// Takes note of the answer to a request counted by
    /// [`ClientLimits::check_request`]: a token its handler `verified`
    /// ([`token_verified`]: it checked the token against a match or a
    /// tournament and accepted it) and answered with success, from this
    /// client, has its own bucket from now on. A token refused (401, 403),
    /// sent to a route that does not check it, or never answered with
    /// success stays counted against the client, so made-up tokens gain
    /// nothing.
    pub fn answered(&self, client: IpAddr, charged: Charged, status: StatusCode, verified: bool) {
        if let (Charged::Unproven(token), Some(tokens)) = (charged, &self.inner.tokens) {
            if status.is_success() && verified {
                tokens.prove(client_key(client), token, Instant::now());
            }
        }
    }
}

/// Marks that `request`'s handler checked its bearer token against what
/// the token guards and accepted it: only such a token gets a write bucket
/// of its own ([`ClientLimits::answered`]).
pub fn token_verified(request: &HttpRequest) {
    request.extensions_mut().insert(TokenVerified);
}

/// The mark of [`token_verified`].
#[derive(Clone, Copy, Debug)]
struct TokenVerified;

/// What a request was counted against ([`ClientLimits::check_request`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charged {
    /// No limit applies.
    Nothing,
    /// The client's bucket.
    Client,
    /// The client's bucket, for a token not yet answered with success from
    /// this client.
    Unproven(TokenKey),
    /// The token's own bucket.
    Token,
}

/// A bearer token as the limits know it: a keyed hash of its text (the
/// text itself is never kept, so it cannot leak from here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TokenKey(u64);

/// How many times the write rate of one token a client's tokens may use
/// together: a lab of thirty behind one address, each bot moving about once
/// a second, stays well under eight times 5 a second; one student who
/// created many matches to hold many tokens gains at most eight times.
pub const TOKENS_CEILING: NonZeroU32 = NonZeroU32::new(8).expect("eight is not zero");

/// Writes counted per bearer token: one bucket a token, at the write rate,
/// for at most `per_client` tokens a client that have been answered with
/// success from it (the rest are counted against the client).
struct TokenWrites {
    per_client: usize,
    /// Keys the hash with random keys of this process: nobody can make two
    /// tokens share a bucket on purpose.
    hasher: RandomState,
    limiter: DefaultKeyedRateLimiter<u64>,
    /// Every proven token of a client together: [`TOKENS_CEILING`] times
    /// the rate of one.
    total: DefaultKeyedRateLimiter<IpAddr>,
    /// The tokens each client has been answered with success with, and when
    /// each was last used there.
    proven: Mutex<HashMap<IpAddr, Vec<(TokenKey, Instant)>>>,
}

impl TokenWrites {
    fn new(rate: RateLimit, per_client: usize) -> TokenWrites {
        TokenWrites {
            per_client,
            hasher: RandomState::new(),
            limiter: RateLimiter::keyed(rate.quota()),
            total: RateLimiter::keyed(
                RateLimit {
                    burst: rate.burst.saturating_mul(TOKENS_CEILING),
                    period: rate.period / TOKENS_CEILING.get(),
                }
                .quota(),
            ),
            proven: Mutex::default(),
        }
    }

    fn key(&self, text: &str) -> TokenKey {
        TokenKey(self.hasher.hash_one(text))
    }

    fn proven(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Vec<(TokenKey, Instant)>>> {
        self.proven.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `token` has its own bucket at `client` (marking it used).
    fn is_proven(&self, client: IpAddr, token: TokenKey, now: Instant) -> bool {
        let mut proven = self.proven();
        let Some(found) = proven
            .get_mut(&client)
            .and_then(|tokens| tokens.iter_mut().find(|(key, _)| *key == token))
        else {
            return false;
        };
        found.1 = now;
        true
    }

    /// Gives `token` its own bucket at `client`; beyond `per_client` tokens
    /// the one least recently used goes back to the client's bucket.
    fn prove(&self, client: IpAddr, token: TokenKey, now: Instant) {
        let mut proven = self.proven();
        let tokens = proven.entry(client).or_default();
        if let Some(found) = tokens.iter_mut().find(|(key, _)| *key == token) {
            found.1 = now;
            return;
        }
        if tokens.len() >= self.per_client {
            if let Some(oldest) = tokens
                .iter()
                .enumerate()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(index, _)| index)
            {
                tokens.swap_remove(oldest);
            }
        }
        tokens.push((token, now));
    }

    /// Forgets the tokens idle longer than [`TOKEN_IDLE_SECONDS`], and the
    /// buckets that are full again, so memory follows the active tokens.
    fn forget_idle(&self, now: Instant) {
        let idle = Duration::from_secs(TOKEN_IDLE_SECONDS);
        self.proven().retain(|_, tokens| {
            tokens.retain(|(_, used)| now.duration_since(*used) < idle);
            !tokens.is_empty()
        });
        self.limiter.retain_recent();
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
    /// Connections shut at once, over their client's cap.
    pub connections: u64,
}

/// The middleware that enforces the rates: a request over its client's
/// (or its token's) limit is answered 429 before it reaches its handler. A
/// request on a connection over its client's cap (read before the
/// connection was shut) is not served either.
pub async fn enforce<B: MessageBody>(
    limits: ClientLimits,
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if let Some(refused) = crate::connections::refused_connection(&request) {
        let response = refused.error_response();
        return Ok(request.into_response(response).map_into_right_body());
    }
    let Some(peer) = request.peer_addr() else {
        return Ok(next.call(request).await?.map_into_left_body());
    };
    // The decoded path, as the router matches it: `/v1/bots/mov%65` is
    // `/v1/bots/move` here too.
    let path = request.match_info().as_str();
    let charged = match limits.check_request(
        peer.ip(),
        request.method(),
        path,
        bearer_text(request.headers()),
    ) {
        Ok(charged) => charged,
        Err(refused) => {
            let response = refused.error_response();
            return Ok(request.into_response(response).map_into_right_body());
        }
    };
    let response = next.call(request).await?;
    let verified = response.request().extensions().contains::<TokenVerified>();
    limits.answered(peer.ip(), charged, response.status(), verified);
    Ok(response.map_into_left_body())
}

/// The text of a request's bearer token (`Authorization: Bearer <text>`),
/// whatever its shape: the routes decide whether it is a token they take.
fn bearer_text(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Open long-polls, counted per client, with an optional cap.
pub struct LongPolls {
    cap: Option<usize>,
    open: Arc<Counts>,
    refused: AtomicU64,
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
        self.open.total()
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
        self.open.enter(key, self.cap).map_err(|count| {
            self.refused.fetch_add(1, Ordering::Relaxed);
            ApiError::too_many_requests(
                "too_many_waits",
                format!(
                    "this client already holds {count} long-polls, the most it may: wait for one to answer, or try again in {LONG_POLL_RETRY_AFTER_SECONDS} s"
                ),
                LONG_POLL_RETRY_AFTER_SECONDS,
            )
        })?;
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
        self.counts.leave(self.key);
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
        assert_eq!(classify(&Method::POST, "/v1/tablebase/probe"), None);
        assert_eq!(
            classify(&Method::POST, "/v1/analysis"),
            Some(Limited::Heavy)
        );
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

    fn once_an_hour(burst: u32) -> Option<RateLimit> {
        Some(RateLimit {
            burst: NonZeroU32::new(burst).unwrap(),
            period: Duration::from_secs(3600),
        })
    }

    /// A write of `client` with `token`, answered `status` when let through.
    fn write(
        limits: &ClientLimits,
        client: &str,
        token: Option<&str>,
        status: StatusCode,
    ) -> Result<Charged, String> {
        let charged = limits
            .check_request(ip(client), &Method::POST, "/v1/matches/1/moves", token)
            .map_err(|refused| refused.problem().detail.clone())?;
        limits.answered(ip(client), charged, status, true);
        Ok(charged)
    }

    #[test]
    fn tokens_answered_with_success_get_buckets_of_their_own() {
        let limits = ClientLimits::new(once_an_hour(2), None, None);
        assert_eq!(
            limits.write_tokens_per_client(),
            DEFAULT_WRITE_TOKENS_PER_CLIENT
        );
        let ok = StatusCode::OK;
        // First use: the client's bucket; then the token's own (two).
        assert!(matches!(
            write(&limits, "10.0.0.1", Some("ada"), ok),
            Ok(Charged::Unproven(_))
        ));
        assert_eq!(
            write(&limits, "10.0.0.1", Some("ada"), ok),
            Ok(Charged::Token)
        );
        assert_eq!(
            write(&limits, "10.0.0.1", Some("ada"), ok),
            Ok(Charged::Token)
        );
        let refused = write(&limits, "10.0.0.1", Some("ada"), ok).unwrap_err();
        assert!(refused.starts_with("this token"), "{refused}");
        // The client's bucket has one write left, for anyone.
        assert!(matches!(
            write(&limits, "10.0.0.1", Some("bob"), ok),
            Ok(Charged::Unproven(_))
        ));
        assert_eq!(
            write(&limits, "10.0.0.1", Some("bob"), ok),
            Ok(Charged::Token)
        );
        let refused = write(&limits, "10.0.0.1", None, ok).unwrap_err();
        assert!(refused.starts_with("this client"), "{refused}");
        // A token proven at one address is not proven at another.
        assert_eq!(
            write(&limits, "10.0.0.2", Some("bob"), ok),
            Ok(Charged::Unproven(
                limits.inner.tokens.as_ref().unwrap().key("bob")
            ))
        );
        assert_eq!(limits.refused().writes, 2);
    }

    #[test]
    fn refused_and_made_up_tokens_stay_on_the_clients_bucket() {
        let limits = ClientLimits::new(once_an_hour(3), None, None);
        for (token, status) in [
            ("forged-1", StatusCode::FORBIDDEN),
            ("forged-1", StatusCode::UNAUTHORIZED),
            ("forged-2", StatusCode::NOT_FOUND),
        ] {
            assert!(matches!(
                write(&limits, "10.0.0.1", Some(token), status),
                Ok(Charged::Unproven(_))
            ));
        }
        for token in ["forged-1", "forged-3", "fresh"] {
            let refused = write(&limits, "10.0.0.1", Some(token), StatusCode::OK).unwrap_err();
            assert!(refused.starts_with("this client"), "{refused}");
        }
        // Heavy work and stateless requests are not writes.
        assert!(matches!(
            limits.check_request(ip("10.0.0.1"), &Method::POST, "/v1/apply", Some("x")),
            Ok(Charged::Nothing)
        ));
    }

    #[test]
    fn a_client_has_at_most_its_number_of_tokens_apart() {
        let limits =
            ClientLimits::new(once_an_hour(100), None, None).with_write_tokens_per_client(Some(2));
        let ok = StatusCode::OK;
        for token in ["a", "b"] {
            write(&limits, "10.0.0.1", Some(token), ok).unwrap();
        }
        assert_eq!(
            write(&limits, "10.0.0.1", Some("a"), ok),
            Ok(Charged::Token)
        );
        // A third: the one least recently used (b) goes back to the client.
        write(&limits, "10.0.0.1", Some("c"), ok).unwrap();
        assert_eq!(
            write(&limits, "10.0.0.1", Some("c"), ok),
            Ok(Charged::Token)
        );
        assert_eq!(
            write(&limits, "10.0.0.1", Some("a"), ok),
            Ok(Charged::Token)
        );
        assert!(matches!(
            write(&limits, "10.0.0.1", Some("b"), ok),
            Ok(Charged::Unproven(_))
        ));
        // Turned off: every write is the client's.
        let per_client =
            ClientLimits::new(once_an_hour(100), None, None).with_write_tokens_per_client(Some(0));
        assert_eq!(per_client.write_tokens_per_client(), 0);
        for _ in 0..2 {
            assert_eq!(
                write(&per_client, "10.0.0.1", Some("a"), ok),
                Ok(Charged::Client)
            );
        }
    }

    #[test]
    fn bearer_tokens_are_read_whatever_their_shape() {
        let headers = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, value.parse().unwrap());
            headers
        };
        assert_eq!(bearer_text(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_text(&headers("bearer   abc ")), Some("abc"));
        assert_eq!(bearer_text(&headers("Basic abc")), None);
        assert_eq!(bearer_text(&headers("Bearer ")), None);
        assert_eq!(bearer_text(&HeaderMap::new()), None);
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
        assert_eq!(polls.open.clients(), 0);
    }
}
