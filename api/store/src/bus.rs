//! Changes told between replicas: PostgreSQL's `LISTEN/NOTIFY`.
//!
//! Several servers on one PostgreSQL database each wake their own
//! long-polls, event streams and tournament director in-process (as on
//! SQLite). What one replica commits, the others hear from the database:
//! after the commit the replica sends a notification on the
//! [`CHANNEL`] channel (its own connection, on a thread of its own, so the
//! writer never waits for it), and every replica listens on another
//! connection. A replica ignores its own notifications (it woke its
//! waiters already).
//!
//! Should the listening connection drop, the replica connects again and
//! then wakes everything it holds ([`Remote::Reconnected`]): a waiter reads
//! the state again, so a notification lost meanwhile loses nothing.

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use crate::sql::{Db, connect_postgres, params};

/// The notification channel of every replica of one database.
pub const CHANNEL: &str = "sternhalma";

/// How long a lost connection waits before trying again.
const RECONNECT_PAUSE: Duration = Duration::from_millis(500);

/// A committed change, as told to the other replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Match `id` changed; `version` is its new version.
    Match {
        /// The match.
        id: i64,
        /// Its version after the change.
        version: i64,
    },
    /// Tournament `id` changed (created, its status, games started).
    Tournament(i64),
}

impl Change {
    fn payload(self, replica: u64) -> String {
        match self {
            Change::Match { id, version } => format!("{replica:x} m {id} {version}"),
            Change::Tournament(id) => format!("{replica:x} t {id}"),
        }
    }

    /// Reads a notification's payload: the replica that sent it and the
    /// change. `None` for anything else.
    fn parse(payload: &str) -> Option<(u64, Change)> {
        let mut words = payload.split(' ');
        let replica = u64::from_str_radix(words.next()?, 16).ok()?;
        let change = match words.next()? {
            "m" => Change::Match {
                id: words.next()?.parse().ok()?,
                version: words.next()?.parse().ok()?,
            },
            "t" => Change::Tournament(words.next()?.parse().ok()?),
            _ => return None,
        };
        words.next().is_none().then_some((replica, change))
    }
}

/// What the listener tells its replica.
#[derive(Clone, Copy, Debug)]
pub enum Remote {
    /// Another replica committed this change.
    Change(Change),
    /// The listening connection was lost and is back: wake everything.
    Reconnected,
}

/// This replica's end of the bus. Cheap to clone.
#[derive(Clone)]
pub struct Bus {
    replica: u64,
    outbox: Arc<Mutex<mpsc::Sender<Change>>>,
}

impl Bus {
    /// Connects to the database at `url` twice (one connection listens,
    /// one notifies) and calls `on_remote` (on the listening thread) for
    /// every change another replica commits.
    ///
    /// # Errors
    /// The database cannot be reached.
    pub fn start(
        url: &str,
        on_remote: impl Fn(Remote) + Send + 'static,
    ) -> Result<Bus, postgres::Error> {
        let mut id = [0_u8; 8];
        getrandom::fill(&mut id).expect("the system's random source");
        let replica = u64::from_le_bytes(id);
        let listener = listen(url)?;
        let notifier = Db::postgres(url)?;
        let (outbox, inbox) = mpsc::channel::<Change>();
        let notify_url = url.to_owned();
        std::thread::Builder::new()
            .name("sternhalma-notify".to_owned())
            .spawn(move || notify_loop(notifier, &notify_url, replica, &inbox))
            .expect("a thread for notifications");
        let listen_url = url.to_owned();
        std::thread::Builder::new()
            .name("sternhalma-listen".to_owned())
            .spawn(move || listen_loop(listener, &listen_url, replica, &on_remote))
            .expect("a thread for notifications");
        Ok(Bus {
            replica,
            outbox: Arc::new(Mutex::new(outbox)),
        })
    }

    /// Tells the other replicas of a committed change.
    pub fn announce(&self, change: Change) {
        let outbox = self
            .outbox
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = outbox.send(change);
    }

    /// This replica's random id, as its notifications carry it.
    pub fn replica(&self) -> u64 {
        self.replica
    }
}

fn listen(url: &str) -> Result<postgres::Client, postgres::Error> {
    let mut client = connect_postgres(url, "sternhalma-listen")?;
    client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
    Ok(client)
}

fn notify_loop(mut db: Db, url: &str, replica: u64, inbox: &mpsc::Receiver<Change>) {
    for change in inbox {
        let payload = change.payload(replica);
        // One try on a fresh connection if the old one was lost; a change
        // that still cannot be told is logged (the other replicas' waiters
        // read the state again at their own timeout).
        for attempt in 0..2 {
            if db.is_closed() {
                std::thread::sleep(RECONNECT_PAUSE);
                if let Ok(fresh) = Db::postgres(url) {
                    db = fresh;
                }
            }
            match db.execute(
                "SELECT pg_notify(?1, ?2)",
                params![CHANNEL, payload.as_str()],
            ) {
                Ok(_) => break,
                Err(error) if attempt == 1 => {
                    tracing::warn!(error = %error, ?change, "a change could not be told to the other replicas");
                }
                Err(_) => {}
            }
        }
    }
}

fn listen_loop(mut client: postgres::Client, url: &str, replica: u64, on_remote: &impl Fn(Remote)) {
    loop {
        {
            let mut notifications = client.notifications();
            let mut waiting = notifications.blocking_iter();
            // Ends (`Ok(None)` or an error) only when the connection is lost.
            while let Ok(Some(notification)) = waiting.next() {
                match Change::parse(notification.payload()) {
                    Some((from, change)) if from != replica => on_remote(Remote::Change(change)),
                    Some(_) => {}
                    None => {
                        tracing::warn!(payload = notification.payload(), "an unknown notification");
                    }
                }
            }
        }
        tracing::warn!("the connection that listens to other replicas was lost; reconnecting");
        client = loop {
            std::thread::sleep(RECONNECT_PAUSE);
            match listen(url) {
                Ok(client) => break client,
                Err(error) => tracing::warn!(%error, "cannot listen to other replicas yet"),
            }
        };
        on_remote(Remote::Reconnected);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_reads_back() {
        for change in [
            Change::Match {
                id: 12,
                version: 40,
            },
            Change::Tournament(3),
        ] {
            let payload = change.payload(0xfeed);
            assert_eq!(Change::parse(&payload), Some((0xfeed, change)));
        }
        assert_eq!(Change::parse("feed m 12"), None);
        assert_eq!(Change::parse("feed m 12 4 5"), None);
        assert_eq!(Change::parse("hello"), None);
    }
}
