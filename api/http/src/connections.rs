//! Connections per client, and the share of the open-file limit that
//! connections may take.
//!
//! Every connection holds a file of the server's process. Without a cap, two
//! addresses that open connections and send a request head and no body
//! hold every file the process may open: the server can no longer accept
//! anyone (`Too many open files`), nor open its database. So:
//!
//! - a client (an address, counted as the other limits count it:
//!   [`crate::peers::client_key`]) holds at most a cap of connections at
//!   once ([`DEFAULT_CONNECTIONS_PER_CLIENT`]). A connection over the cap is
//!   shut, both ways, the moment it is accepted, before a byte of it is
//!   read: the client reads the end of the stream (or a reset). Answering
//!   it 429 would mean waiting for its request head first, holding the file
//!   meanwhile, from a client that may send nothing; shutting it frees the
//!   file at once. Were a request read from it anyway (sent before the
//!   shutdown), it is not served (`refused_connection`).
//! - all connections together stay below the open-file limit less a
//!   reserve for the database, the log and the rest ([`ConnectionBudget`]),
//!   so that accepting never fails for want of a file: at the budget actix
//!   stops accepting and new connections wait in the listen queue.
//! - before the budget is reached, the client holding the most gives way:
//!   once nine tenths of it are open ([`Connections::set_budget`]), a new
//!   connection of the client holding the most is shut as one over its cap
//!   is, and a new connection of another client that holds at least two
//!   fewer shuts the oldest connection of the client holding the most. So
//!   two addresses holding their caps cannot keep a third out, and the
//!   connections closed are theirs.
//!
//! A connection is counted from the server's accept (`HttpServer::on_connect`
//! runs on the worker for each connection before its first byte is read) by
//! a guard kept in the connection's data, which actix drops when it drops
//! the connection.
//!
//! A client that sends requests and does not read the answers holds its
//! connection, and the answers waiting in it, for as long as it likes: the
//! server's writes wait. actix reads at most 16 pipelined requests ahead of
//! the answer it is writing, and stops reading until they are answered; and
//! every connection gets a send timeout ([`SendTimeout`], the kernel's
//! `TCP_USER_TIMEOUT`, `--send-timeout-seconds`): an answer that stays
//! unacknowledged that long (the peer reads nothing, its window stays shut)
//! ends the connection, closing its file and freeing what it held.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Shutdown, SocketAddr};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::dev::{Extensions, ServiceRequest};

use crate::error::ApiError;
use crate::peers::{Counts, client_key};

/// Connections one client may hold open at once by default. A classroom
/// behind one NAT is one client: thirty students with a browser each (a
/// browser opens up to six connections to a server) hold 180, and their
/// bots' long-polls and kept-alive connections a few dozen more. 256 leaves
/// room for that, and two addresses cannot hold more than 512 files.
pub const DEFAULT_CONNECTIONS_PER_CLIENT: usize = 256;

/// Files kept for everything but connections (at most half the limit): the
/// database's files (SQLite's file, journal and shared memory, or the
/// PostgreSQL pool's connections), the log, the listener, the runtime's
/// own descriptors and the files of `--web-dir` being read.
pub const RESERVED_FILES: u64 = 256;

/// actix-web's own cap of connections per worker, kept as a ceiling.
pub const ACTIX_MAX_CONNECTIONS_PER_WORKER: usize = 25_000;

/// Seconds an answer may wait unread (unacknowledged by the peer, or held
/// behind a window it keeps shut) before its connection is closed, unless
/// configured otherwise (`--send-timeout-seconds`). A browser, a bot or a
/// notebook reads what it asked for at once; a phone on a bad network may
/// stall for seconds; half a minute is nginx's `send_timeout` too.
pub const DEFAULT_SEND_TIMEOUT_SECONDS: u64 = 30;

/// The send timeout of every connection (`None`: the system's, which waits
/// for many minutes). Set where the server accepts a connection
/// ([`SendTimeout::apply`], from `HttpServer::on_connect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendTimeout(Option<std::time::Duration>);

impl SendTimeout {
    /// `timeout` (none or zero: the system's).
    pub fn new(timeout: Option<std::time::Duration>) -> SendTimeout {
        SendTimeout(timeout.filter(|t| !t.is_zero()))
    }

    /// The timeout, if any.
    pub fn get(self) -> Option<std::time::Duration> {
        self.0
    }

    /// Sets the timeout on the connection `io` (a TCP stream; others are
    /// left): the kernel ends the connection once data written to it has
    /// waited that long unacknowledged.
    pub fn apply(self, io: &dyn Any) {
        let (Some(timeout), Some(stream)) =
            (self.0, io.downcast_ref::<actix_web::rt::net::TcpStream>())
        else {
            return;
        };
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Err(error) = socket2::SockRef::from(stream).set_tcp_user_timeout(Some(timeout)) {
            tracing::warn!(%error, "cannot set a connection's send timeout");
        }
        // Elsewhere the system's own timeout applies.
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let _ = (timeout, stream);
    }
}

impl Default for SendTimeout {
    /// [`DEFAULT_SEND_TIMEOUT_SECONDS`].
    fn default() -> SendTimeout {
        SendTimeout::new(Some(std::time::Duration::from_secs(
            DEFAULT_SEND_TIMEOUT_SECONDS,
        )))
    }
}

/// Open connections, counted per client, with an optional cap.
pub struct Connections {
    cap: Option<usize>,
    open: Arc<Counts>,
    refused: AtomicU64,
    /// Each client's connections open now, oldest first, with what shuts
    /// them.
    held: Arc<Mutex<Held>>,
    /// From this many open, the client holding the most gives way (0:
    /// never).
    crowded_at: AtomicUsize,
    /// Connections shut to make room for a client holding fewer.
    closed_for_others: AtomicU64,
}

/// The connections open now, per client, oldest first.
#[derive(Default)]
struct Held {
    next: u64,
    by_client: HashMap<IpAddr, VecDeque<Socket>>,
}

/// One connection, as the registry knows it: its number, and the file
/// and peer that shut it.
#[derive(Clone, Copy)]
struct Socket {
    id: u64,
    fd: RawFd,
    peer: SocketAddr,
}

impl Socket {
    /// Shuts the connection both ways (the worker holding it reads the end
    /// and drops it), if the file is still that connection. Called under
    /// the registry's lock, which the connection's guard takes before actix
    /// closes its file (actix-http's dispatcher drops the connection's data
    /// before its stream); the peer is checked too, for a connection whose
    /// data outlives it (a request still held), so a file number closed
    /// and given to another connection is left alone.
    fn shut(self) -> bool {
        // SAFETY: the descriptor is used for two system calls only, under
        // the lock that keeps it that connection's (above), and a number
        // closed since (EBADF) or reused (another peer, or not a socket) is
        // left alone by the check.
        let fd = unsafe { BorrowedFd::borrow_raw(self.fd) };
        let socket = socket2::SockRef::from(&fd);
        let same = socket
            .peer_addr()
            .ok()
            .and_then(|peer| peer.as_socket())
            .is_some_and(|peer| peer == self.peer);
        same && socket.shutdown(Shutdown::Both).is_ok()
    }
}

impl Connections {
    pub(crate) fn new(cap: Option<usize>) -> Connections {
        Connections {
            cap,
            open: Arc::default(),
            refused: AtomicU64::new(0),
            held: Arc::default(),
            crowded_at: AtomicUsize::new(0),
            closed_for_others: AtomicU64::new(0),
        }
    }

    /// The server holds at most `total` connections ([`ConnectionBudget`]):
    /// from nine tenths of it, the client holding the most gives way. Only
    /// with a cap per client (without one, clients may share an address,
    /// and the one holding the most may be a whole class).
    pub fn set_budget(&self, total: usize) {
        let crowded_at = if self.cap.is_some() {
            (total - total / 10).max(1)
        } else {
            0
        };
        self.crowded_at.store(crowded_at, Ordering::Relaxed);
    }

    /// Connections shut since the server started to make room for a client
    /// holding fewer.
    pub fn closed_for_others(&self) -> u64 {
        self.closed_for_others.load(Ordering::Relaxed)
    }

    /// The most connections one client may hold (`None`: no cap).
    pub fn cap(&self) -> Option<usize> {
        self.cap
    }

    /// Connections open now, over all clients (those counted: from a
    /// server that calls [`crate::ClientLimits::on_connect`]).
    pub fn open(&self) -> usize {
        self.open.total()
    }

    /// Connections shut at once since the server started, over their
    /// client's cap.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Counts a connection of `client` until the guard is dropped; `None`
    /// (and counted as refused) when the client holds the cap already.
    pub fn enter(&self, client: IpAddr) -> Option<ConnectionGuard> {
        let key = client_key(client);
        match self.open.enter(key, self.cap) {
            Ok(()) => Some(ConnectionGuard {
                counts: Arc::clone(&self.open),
                key,
                held: None,
            }),
            Err(_) => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Whether a new connection of the client keyed `key` may stay when
    /// the server is crowded: not if that client holds the most; and if
    /// another holds at least two more, that one's oldest connection is
    /// shut.
    fn make_room(&self, key: IpAddr) -> bool {
        let crowded_at = self.crowded_at.load(Ordering::Relaxed);
        if crowded_at == 0 || self.open.total() < crowded_at {
            return true;
        }
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let mine = held.by_client.get(&key).map_or(0, VecDeque::len);
        // The client holding the most but this one; among equals, the one
        // whose oldest connection is oldest.
        let other = held
            .by_client
            .iter()
            .filter(|(client, sockets)| **client != key && !sockets.is_empty())
            .map(|(client, sockets)| (sockets.len(), std::cmp::Reverse(sockets[0].id), *client))
            .max()
            .map(|(count, _, client)| (count, client));
        match other {
            // This client holds the most: its new connection goes.
            _ if other.is_none_or(|(most, _)| mine >= most) => return false,
            Some((most, client)) if most > mine + 1 => {
                // Out of the registry as it is chosen (a burst of newcomers
                // shuts one each), and shut under its lock: the guard of a
                // connection (dropped before its file is closed) takes the
                // lock too, so the file is still that connection's.
                let sockets = held.by_client.get_mut(&client).expect("found above");
                let oldest = sockets.pop_front().expect("not empty");
                if sockets.is_empty() {
                    held.by_client.remove(&client);
                }
                if oldest.shut() {
                    self.closed_for_others.fetch_add(1, Ordering::Relaxed);
                }
            }
            _ => {}
        }
        true
    }

    /// Remembers `stream`'s connection (of the client keyed `key`) until
    /// `guard` is dropped, so that it can be shut for another client.
    fn hold(
        &self,
        key: IpAddr,
        stream: &actix_web::rt::net::TcpStream,
        guard: &mut ConnectionGuard,
    ) {
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let id = held.next;
        held.next += 1;
        held.by_client.entry(key).or_default().push_back(Socket {
            id,
            fd: stream.as_raw_fd(),
            peer,
        });
        guard.held = Some((Arc::clone(&self.held), id));
    }

    /// `HttpServer::on_connect`'s work: counts the connection `io` (a TCP
    /// stream; others are not counted) in its `extensions`, or shuts it
    /// when its client is over the cap.
    pub(crate) fn on_connect(&self, io: &dyn Any, extensions: &mut Extensions) {
        let Some(stream) = io.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        // A connection already reset has no peer: actix ends it at once.
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        let admitted = if self.make_room(client_key(peer.ip())) {
            self.enter(peer.ip())
        } else {
            self.refused.fetch_add(1, Ordering::Relaxed);
            None
        };
        match admitted {
            Some(mut guard) => {
                self.hold(client_key(peer.ip()), stream, &mut guard);
                extensions.insert(guard);
            }
            None => {
                // The end of the stream for the client, at once; actix reads
                // the end too and drops the connection, closing its file.
                let _ = socket2::SockRef::from(stream).shutdown(Shutdown::Both);
                extensions.insert(RefusedConnection);
            }
        }
    }
}

/// One open connection; dropping it (actix drops the connection's data with
/// the connection) counts it closed.
pub struct ConnectionGuard {
    counts: Arc<Counts>,
    key: IpAddr,
    /// The registry that may shut it, and its number there.
    held: Option<(Arc<Mutex<Held>>, u64)>,
}

impl std::fmt::Debug for ConnectionGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionGuard")
            .field("client", &self.key)
            .finish()
    }
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        if let Some((held, id)) = self.held.take() {
            let mut held = held.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(sockets) = held.by_client.get_mut(&self.key) {
                sockets.retain(|socket| socket.id != id);
                if sockets.is_empty() {
                    held.by_client.remove(&self.key);
                }
            }
        }
        self.counts.leave(self.key);
    }
}

/// The mark of a connection shut over its client's cap.
struct RefusedConnection;

/// Seconds a client refused a connection is asked to wait.
const CONNECTION_RETRY_AFTER_SECONDS: u32 = 5;

/// The refusal of a request read from a connection shut over its client's
/// cap (the client sent it before the shutdown reached it): 429
/// `too_many_connections`, which the client will most likely never read.
pub(crate) fn refused_connection(request: &ServiceRequest) -> Option<ApiError> {
    request.conn_data::<RefusedConnection>().map(|_| {
        ApiError::too_many_requests(
            "too_many_connections",
            "this client holds as many connections as it may: close some, or try again later",
            CONNECTION_RETRY_AFTER_SECONDS,
        )
    })
}

/// How many connections a server may hold, from its open-file limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionBudget {
    /// The process's open-file limit.
    pub open_files: u64,
    /// Files kept for everything but connections.
    pub reserved: u64,
    /// The connections one worker may hold (actix's `max_connections`).
    pub per_worker: usize,
    /// The connections all workers together may hold.
    pub total: usize,
}

impl ConnectionBudget {
    /// The budget of `workers` workers under an open-file limit of
    /// `open_files`: [`RESERVED_FILES`] (at most half the limit) kept, the
    /// rest shared by the workers (actix counts connections per worker), at
    /// least one each and at most actix's own cap.
    pub fn new(open_files: u64, workers: usize) -> ConnectionBudget {
        let workers = workers.max(1);
        let reserved = RESERVED_FILES.min(open_files / 2);
        let for_connections = usize::try_from(open_files - reserved).unwrap_or(usize::MAX);
        let per_worker = (for_connections / workers).clamp(1, ACTIX_MAX_CONNECTIONS_PER_WORKER);
        ConnectionBudget {
            open_files,
            reserved,
            per_worker,
            total: per_worker * workers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn connections_are_capped_per_client_and_released_on_drop() {
        let connections = Connections::new(Some(2));
        let first = connections.enter(ip("10.0.0.1")).unwrap();
        let second = connections.enter(ip("10.0.0.1")).unwrap();
        assert!(connections.enter(ip("10.0.0.1")).is_none());
        // One machine's IPv6 addresses are one client, as for the rates.
        let v6 = connections.enter(ip("2001:db8::1")).unwrap();
        let v6_again = connections.enter(ip("2001:db8::2")).unwrap();
        assert!(connections.enter(ip("2001:db8::3")).is_none());
        assert_eq!(connections.open(), 4);
        assert_eq!(connections.refused(), 2);
        drop(first);
        let third = connections.enter(ip("10.0.0.1")).unwrap();
        drop((second, third, v6, v6_again));
        assert_eq!(connections.open(), 0);
        let unlimited = Connections::new(None);
        let held: Vec<_> = (0..1000)
            .map(|_| unlimited.enter(ip("10.0.0.1")).unwrap())
            .collect();
        assert_eq!(unlimited.open(), 1000);
        drop(held);
        assert_eq!(unlimited.open(), 0);
    }

    #[test]
    fn the_budget_keeps_files_for_the_rest_and_shares_the_others() {
        // The machine: 20,000 files, two workers.
        let budget = ConnectionBudget::new(20_000, 2);
        assert_eq!(budget.reserved, RESERVED_FILES);
        assert_eq!(budget.per_worker, (20_000 - 256) / 2);
        assert!(budget.total as u64 + budget.reserved <= 20_000);
        // The usual soft limit of 1024, and a tiny one.
        let small = ConnectionBudget::new(1024, 4);
        assert_eq!(small.per_worker, 192);
        assert_eq!(ConnectionBudget::new(100, 2).reserved, 50);
        assert_eq!(ConnectionBudget::new(0, 2).per_worker, 1);
        // An unlimited limit: actix's own cap.
        let huge = ConnectionBudget::new(u64::MAX, 2);
        assert_eq!(huge.per_worker, ACTIX_MAX_CONNECTIONS_PER_WORKER);
    }
}
