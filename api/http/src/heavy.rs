//! The heavy-work pool as the routes see it. The pool itself (its threads,
//! its lanes, its fairness between clients and between games) is
//! `sternhalma-pool`, which knows no web framework; here are the routes'
//! extractor ([`HeavyClient`]: the request's peer address, keyed as the
//! per-client limits key it, [`crate::peers::client_key`]) and the problem
//! details of a refusal ([`Refused`] as 429 `too_many_heavy_requests`, 503
//! `busy`, both with `Retry-After`, or 500 `internal`).

use std::future::{Ready, ready};
use std::net::IpAddr;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};

use crate::error::ApiError;
use crate::peers::client_key;

pub use sternhalma_pool::{
    Cost, DEFAULT_HEAVY_PER_CLIENT, Group, HeavyPool, Occupied, PoolClient, QUEUE_PER_WORKER,
    RETRY_AFTER_SECONDS, Refused, running_per_client,
};

impl From<Refused> for ApiError {
    fn from(refused: Refused) -> ApiError {
        let detail = refused.to_string();
        match refused {
            Refused::ClientAtCap { .. } | Refused::Crowded { .. } | Refused::Displaced { .. } => {
                ApiError::too_many_requests("too_many_heavy_requests", detail, RETRY_AFTER_SECONDS)
            }
            Refused::Busy { .. } => ApiError::busy(detail, RETRY_AFTER_SECONDS),
            Refused::Failed => ApiError::internal(detail),
        }
    }
}

/// The heavy-work pool as one client sees it: its tasks wait in the
/// client's own queue, served in turn with the other clients', and count
/// against its cap. As a handler's argument (an extractor), the client is
/// the request's peer address and the pool the app's [`HeavyPool`].
#[derive(Clone, Debug)]
pub struct HeavyClient {
    client: PoolClient,
}

impl HeavyClient {
    /// `pool` as the client at `address` sees it (an IPv6 address counts by
    /// its /64 prefix, as the per-client limits count it); `None` for work
    /// without an address.
    pub fn new(pool: &HeavyPool, address: Option<IpAddr>) -> HeavyClient {
        HeavyClient {
            client: pool.client(address.map(client_key)),
        }
    }

    /// The client's key (its IP address, an IPv6 one by its /64 prefix),
    /// if it has one.
    pub fn key(&self) -> Option<IpAddr> {
        self.client.key()
    }

    /// The client's key when the pool counts a share per client (a cap
    /// per client is set); `None` without one (`--no-limits`: a class may
    /// share one address, and nothing is kept per address).
    pub fn counted_key(&self) -> Option<IpAddr> {
        self.client.key().filter(|_| self.client.capped())
    }

    /// Runs `task` (costing `cost`: its share of the work its route
    /// allows at most) on the pool for this client, without waiting for
    /// it; its cost counts against the client's cap until it finishes.
    ///
    /// # Errors
    /// 429 `too_many_heavy_requests` with `Retry-After` when the client's
    /// work running or waiting and this task would cost more than its cap,
    /// or when the pool is full and the client holds some of it; 503 `busy`
    /// with `Retry-After` when the pool is full and it holds none. The task
    /// is dropped unrun.
    pub fn spawn(&self, cost: Cost, task: impl FnOnce() + Send + 'static) -> Result<(), ApiError> {
        Ok(self.client.spawn(cost, task)?)
    }

    /// Runs `task` (costing `cost`) on the pool for this client and waits
    /// (without blocking the caller's thread) for its answer. By the time
    /// the answer arrives the task is counted out of the pool, so a next
    /// request finds its place free.
    ///
    /// # Errors
    /// 429 `too_many_heavy_requests` or 503 `busy` as
    /// [`HeavyClient::spawn`], and 429 when, waiting in a full pool, it
    /// gives its place to a client holding less; 500 `internal` if the task
    /// panicked.
    pub async fn run<R: Send + 'static>(
        &self,
        cost: Cost,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        Ok(self.client.run(cost, task).await?)
    }
}

impl FromRequest for HeavyClient {
    type Error = actix_web::Error;
    type Future = Ready<Result<HeavyClient, actix_web::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match request.app_data::<web::Data<HeavyPool>>() {
            Some(pool) => Ok(HeavyClient::new(
                pool,
                request.peer_addr().map(|peer| peer.ip()),
            )),
            None => Err(ApiError::internal("the heavy-work pool is not configured").into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(pool: &HeavyPool, text: &str) -> HeavyClient {
        HeavyClient::new(pool, Some(text.parse().unwrap()))
    }

    #[test]
    fn refusals_are_problem_details_with_retry_after() {
        let pool = HeavyPool::new(1, 0).per_client_cap(Some(1));
        let held = pool.hold(Some("10.0.0.1".parse().unwrap())).unwrap();
        held.wait_running();
        let capped = client(&pool, "10.0.0.1")
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert_eq!(capped.problem().status, 429);
        assert_eq!(capped.problem().code, "too_many_heavy_requests");
        assert_eq!(capped.retry_after(), Some(RETRY_AFTER_SECONDS));
        assert!(
            capped.problem().detail.contains("worth 1 request at"),
            "{capped:?}"
        );
        let busy = client(&pool, "10.0.0.2")
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert_eq!(busy.problem().status, 503);
        assert_eq!(busy.problem().code, "busy");
        assert_eq!(busy.retry_after(), Some(RETRY_AFTER_SECONDS));
        held.release();
        pool.wait_until_idle();
        let failed = actix_web::rt::System::new()
            .block_on(client(&pool, "10.0.0.2").run(Cost::FULL, || panic!("on purpose")))
            .unwrap_err();
        assert_eq!(failed.problem().status, 500);
    }

    #[test]
    fn an_ipv6_client_counts_by_its_64_prefix() {
        // One machine, one cap, whichever of its addresses it uses.
        let pool = HeavyPool::new(1, 4).per_client_cap(Some(2));
        let held = pool.occupy().unwrap();
        client(&pool, "2001:db8::1")
            .spawn(Cost::FULL, || {})
            .unwrap();
        client(&pool, "2001:db8::2")
            .spawn(Cost::FULL, || {})
            .unwrap();
        let refused = client(&pool, "2001:db8::3")
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert_eq!(refused.problem().code, "too_many_heavy_requests");
        client(&pool, "2001:db8:0:1::1")
            .spawn(Cost::FULL, || {})
            .unwrap();
        held.release();
    }

    #[test]
    fn a_client_is_counted_apart_only_with_a_cap() {
        let capped = HeavyPool::new(1, 1).per_client_cap(Some(2));
        assert!(client(&capped, "10.0.0.1").counted_key().is_some());
        let shared = HeavyPool::new(1, 1);
        assert_eq!(client(&shared, "10.0.0.1").counted_key(), None);
        assert!(client(&shared, "10.0.0.1").key().is_some());
    }
}
