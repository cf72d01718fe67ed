//! Who a client is, as every per-client limit counts it ([`client_key`]),
//! and what is open now per client (`Counts`: long-polls,
//! connections).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

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

/// Things open now (long-polls, connections), counted per client.
#[derive(Default)]
pub(crate) struct Counts {
    per_client: Mutex<HashMap<IpAddr, usize>>,
    total: AtomicUsize,
}

impl Counts {
    /// Counts one more for `key`, unless it holds `cap` already (its count
    /// is the error).
    pub(crate) fn enter(&self, key: IpAddr, cap: Option<usize>) -> Result<(), usize> {
        let mut per_client = self
            .per_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let count = per_client.entry(key).or_insert(0);
        if cap.is_some_and(|cap| *count >= cap) {
            return Err(*count);
        }
        *count += 1;
        self.total.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Counts one less for `key`.
    pub(crate) fn leave(&self, key: IpAddr) {
        let mut per_client = self
            .per_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = per_client.get_mut(&key) {
            *count -= 1;
            if *count == 0 {
                per_client.remove(&key);
            }
        }
        self.total.fetch_sub(1, Ordering::Relaxed);
    }

    /// Open now, over all clients.
    pub(crate) fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// The clients with something open now (a client is forgotten when
    /// its count drops to zero).
    #[cfg(test)]
    pub(crate) fn clients(&self) -> usize {
        self.per_client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
