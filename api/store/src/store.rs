//! The database as the server sees it: SQLite or PostgreSQL, never run
//! on an async worker thread.
//!
//! - Writes go to one dedicated thread that owns the writing connection and
//!   runs commands one at a time (`Store::commit`; the commands themselves
//!   are the store's methods in [`crate::commands`]): a player's turn ahead
//!   of other writes, each lane in arrival order ([`crate::writer`]). A
//!   command opens its transaction, checks, writes and commits, and answers
//!   a [`Committed`]: its value and the changes it made; the handler awaits
//!   the value. On SQLite, one writer means two requests racing for the
//!   same turn are simply ordered: the second sees the first's move. On
//!   PostgreSQL other replicas write too; there the check itself holds the
//!   row it checks until the commit ([`crate::sql::Db::write`]).
//! - Reads run on the async runtime's blocking thread pool
//!   (`spawn_blocking`) with their own connections (WAL lets them read
//!   while the writer writes).
//! - After a commit the writer thread itself tells the command's changes,
//!   in one place (`Store::tell_committed`): it wakes every long-poll
//!   waiting on a changed match ([`Store::subscribe`]) and tells every
//!   subscriber of [`Store::events`] (the tournament director, the bot
//!   runner); on PostgreSQL the other replicas hear of it through the
//!   [`Bus`] and do the same. No command publishes, and nothing of a
//!   rolled-back transaction is told. The store knows none of its
//!   listeners.
//! - The solved tables the store's games are played and judged with (a
//!   `perfect` seat's moves, a tournament game's accuracy) are the ones it
//!   is opened with ([`Store::open`], [`Store::tables`]): the server's one
//!   set, or a test's own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

use sternhalma::solve::Tablebases;
use tokio::sync::{mpsc as async_mpsc, oneshot, watch};

use crate::bus::{Bus, Change, Remote};
use crate::committed::{Changes, Committed};
use crate::db;
use crate::disk::{self, DiskGuard};
use crate::error::{Error, Unavailable};
use crate::sql::{Database, Db};
use crate::writer::{Priority, WriteQueue};

/// A committed change, as the store tells the subscribers of
/// [`Store::events`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Match `id` changed (committed here or by another replica); `version`
    /// is its new version.
    Match {
        /// The match.
        id: i64,
        /// Its version after the change.
        version: i64,
        /// Whether this replica committed it (its bots are played here).
        here: bool,
        /// Whether the bot runner did (a bot's move): the runner goes on by
        /// itself, and is not kicked by its own writes.
        by_bot: bool,
    },
    /// Match `id` was created here.
    Created(i64),
    /// Tournament `id` was created or its status or entrants changed, here
    /// or on another replica (the games a director starts are told to the
    /// other replicas only: that director knows them).
    Tournament(i64),
    /// Changes told by other replicas may have been lost (the connection
    /// that listens was lost and is back): read everything again.
    Resync,
}

type Job = Box<dyn FnOnce(&mut Db) + Send>;

/// A handle to the database, cheap to clone; shared by every worker.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    database: Database,
    writer: Arc<WriteQueue<Job>>,
    readers: Mutex<Vec<Db>>,
    /// On PostgreSQL, reads under way (at most [`POSTGRES_READERS`]: the
    /// database's connections are shared by every replica).
    reading: Option<Slots>,
    watchers: Mutex<HashMap<i64, watch::Sender<i64>>>,
    /// Who listens to committed changes ([`Store::events`]).
    listeners: Mutex<Vec<async_mpsc::UnboundedSender<Event>>>,
    /// Write jobs sent and not finished (waiting or running): the writer's
    /// queue depth, for `/metrics`.
    pending_writes: Arc<AtomicUsize>,
    /// The other replicas (PostgreSQL only).
    bus: OnceLock<Bus>,
    /// The disk under a SQLite file (PostgreSQL's is its server's).
    disk: Option<DiskGuard>,
    /// The games a client may store ([`Store::set_games_per_owner`]; 0:
    /// no quota).
    games_per_owner: AtomicU64,
    /// The solved tables ([`Store::tables`]).
    tables: Arc<Tablebases>,
}

/// Idle read connections kept for reuse.
const MAX_IDLE_READERS: usize = 8;

/// Read connections one replica opens to PostgreSQL at most (reads beyond
/// wait for one): with the writer and the two of the [`Bus`], a replica
/// holds at most 19 of the server's connections (PostgreSQL's default
/// `max_connections` is 100).
pub const POSTGRES_READERS: usize = 16;

impl Store {
    /// Opens (creating and migrating if needed) the database and starts
    /// the writer thread, and on PostgreSQL the [`Bus`] to the other
    /// replicas; its games are played and judged with `tables`
    /// ([`Store::tables`]). Returns the store and the schema version.
    ///
    /// # Errors
    /// The database cannot be opened or migrated (the message says why).
    pub fn open(database: &Database, tables: Arc<Tablebases>) -> Result<(Store, usize), String> {
        let (mut connection, version) = db::open(database)?;
        let queue = Arc::new(WriteQueue::<Job>::default());
        let jobs = Arc::clone(&queue);
        std::thread::Builder::new()
            .name("sternhalma-db-writer".to_owned())
            .spawn(move || {
                // However the thread ends, the queue closes and the jobs
                // left are dropped (their requests answered), never kept
                // waiting for a writer that is gone.
                let _closing = CloseOnExit(Arc::clone(&jobs));
                while let Some(job) = jobs.pop() {
                    if connection.is_closed() {
                        // PostgreSQL restarted or dropped us: connect again
                        // (a job meanwhile answers 503 and stores nothing).
                        let reconnected =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                connection.reconnect()
                            }));
                        if !matches!(reconnected, Ok(Ok(()))) {
                            tracing::warn!("the writer cannot reconnect yet");
                        }
                    }
                    // A panicking job drops its answer channel (the handler
                    // answers 500) and rolls back its transaction; the
                    // writer goes on with the next job.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        job(&mut connection);
                    }));
                }
            })
            .map_err(|e| format!("writer thread: {e}"))?;
        let store = Store {
            inner: Arc::new(Inner {
                database: database.clone(),
                writer: queue,
                readers: Mutex::new(Vec::new()),
                reading: matches!(database, Database::Postgres(_))
                    .then(|| Slots::new(POSTGRES_READERS)),
                watchers: Mutex::new(HashMap::new()),
                listeners: Mutex::new(Vec::new()),
                pending_writes: Arc::default(),
                bus: OnceLock::new(),
                disk: match database {
                    Database::Sqlite(file) => Some(DiskGuard::new(file, disk::free_space)),
                    Database::Postgres(_) => None,
                },
                games_per_owner: AtomicU64::new(0),
                tables,
            }),
        };
        if let Database::Postgres(url) = database {
            let weak = Arc::downgrade(&store.inner);
            let bus = Bus::start(url, move |remote| on_remote(&weak, remote))
                .map_err(|e| format!("cannot listen for other replicas: {e}"))?;
            tracing::info!(
                replica = format!("{:x}", bus.replica()),
                "listening for other replicas"
            );
            let _ = store.inner.bus.set(bus);
        }
        Ok((store, version))
    }

    /// The solved tables the store was opened with: what a `perfect` seat
    /// plays from ([`crate::matches::game::BotTurn::choose`]), what a bot
    /// spec is checked against ([`crate::bots::BotSpec::validate_at`]) and
    /// what a tournament's finished games are judged by
    /// ([`Store::settle_games`]). Tables installed in them later are seen
    /// at once.
    pub fn tables(&self) -> &Arc<Tablebases> {
        &self.inner.tables
    }

    /// Whether other replicas may share the database (PostgreSQL): then
    /// they are told of every change, and told changes come back.
    pub fn is_shared(&self) -> bool {
        self.inner.bus.get().is_some()
    }

    /// Runs `command` on the writer thread, tells its changes once it has
    /// committed (`Store::tell_committed`, still on the writer thread:
    /// waiters are woken even if the caller has gone away meanwhile), and
    /// awaits its answer. Every store command but a player's turn goes
    /// through here ([`crate::commands`]).
    ///
    /// # Errors
    /// The command's own error, or [`Error::Unavailable`] when the writer
    /// is gone.
    pub(crate) async fn commit<T, F>(&self, command: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Db) -> Result<Committed<T>, Error> + Send + 'static,
    {
        self.commit_as(Priority::Other, command).await
    }

    /// [`Store::commit`] for a player's turn (a move, a resignation, a
    /// bot's move, a timeout): ahead of the other writes waiting.
    ///
    /// # Errors
    /// As [`Store::commit`].
    pub(crate) async fn commit_turn<T, F>(&self, command: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Db) -> Result<Committed<T>, Error> + Send + 'static,
    {
        self.commit_as(Priority::Turn, command).await
    }

    async fn commit_as<T, F>(&self, priority: Priority, command: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Db) -> Result<Committed<T>, Error> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        // Counted until the job is dropped: run, panicked, or never sent.
        let pending = PendingWrite::new(&self.inner.pending_writes);
        let teller = Arc::downgrade(&self.inner);
        let job: Job = Box::new(move |connection| {
            let _pending = pending;
            let result = command(connection).map(|committed| {
                let (value, changes) = committed.into_parts();
                if let Some(inner) = teller.upgrade() {
                    Store { inner }.tell_committed(&changes);
                }
                value
            });
            let _ = answer.send(result);
        });
        if !self.inner.writer.push(priority, job) {
            return Err(unavailable());
        }
        answered.await.map_err(|_| internal())?
    }

    /// Keeps `bytes` free on the disk under a SQLite database: below it,
    /// new matches and tournaments are refused ([`DiskGuard`]); 0 stores
    /// until the disk is full. Nothing on PostgreSQL.
    pub fn set_min_free_disk(&self, bytes: u64) {
        if let Some(disk) = &self.inner.disk {
            disk.set_min_free(bytes);
        }
    }

    /// Lets a client store at most `games` games ([`crate::quota`]): a
    /// creation past it is refused ([`Error::Quota`]). `None` (the default)
    /// or 0: no quota.
    pub fn set_games_per_owner(&self, games: Option<u64>) {
        self.inner
            .games_per_owner
            .store(games.unwrap_or(0), Ordering::Relaxed);
    }

    /// The quota of games per client, if any.
    pub fn games_per_owner(&self) -> Option<u64> {
        Some(self.inner.games_per_owner.load(Ordering::Relaxed)).filter(|&games| games > 0)
    }

    /// Whether there is room for something new (a match, a tournament).
    ///
    /// # Errors
    /// [`crate::Unavailable::DiskFull`] below the free space kept.
    pub(crate) fn room_for_new(&self) -> Result<(), Error> {
        match &self.inner.disk {
            Some(disk) => disk.check(std::time::Instant::now()),
            None => Ok(()),
        }
    }

    /// Write jobs sent to the writer thread and not finished yet.
    pub fn pending_writes(&self) -> usize {
        self.inner.pending_writes.load(Ordering::Relaxed)
    }

    /// Runs `job` with a read connection on the blocking thread pool.
    ///
    /// # Errors
    /// The job's own error, or [`Error::Unavailable`] when no connection
    /// can be opened.
    pub async fn read<T, F>(&self, job: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Db) -> Result<T, Error> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || {
            let _slot = store.inner.reading.as_ref().map(Slots::take);
            let pooled = store.inner.readers.lock().ok().and_then(|mut v| v.pop());
            let connection = match pooled.filter(|db| !db.is_closed()) {
                Some(connection) => connection,
                None => {
                    let connection = db::connect(&store.inner.database).map_err(|e| {
                        tracing::error!(error = %e, "cannot open a read connection");
                        unavailable()
                    })?;
                    // Readers never write: a bug cannot bypass the writer.
                    connection.batch(match connection.as_sqlite() {
                        Some(_) => "PRAGMA query_only = ON",
                        None => "SET default_transaction_read_only = on",
                    })?;
                    connection
                }
            };
            let result = job(&connection);
            if let Ok(mut idle) = store.inner.readers.lock() {
                let keep = match store.inner.reading {
                    Some(_) => POSTGRES_READERS,
                    None => MAX_IDLE_READERS,
                };
                if idle.len() < keep {
                    idle.push(connection);
                }
            }
            result
        })
        .await
        .map_err(|_| internal())?
    }

    /// A receiver woken when match `id` changes (after the change is
    /// committed). Subscribe before reading the state, then await
    /// `changed()`: a change between the two is not missed.
    pub fn subscribe(&self, id: i64) -> watch::Receiver<i64> {
        let mut watchers = lock(&self.inner.watchers);
        // Forget matches nobody waits on any more (the map stays as small
        // as the number of waiting clients).
        watchers.retain(|_, sender| sender.receiver_count() > 0);
        watchers
            .entry(id)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Tells what a transaction committed, after the commit: the waiters
    /// on each changed match woken and every listener told, here and on
    /// the other replicas (a created match only here; a tournament's
    /// scheduled games only to the other replicas).
    fn tell_committed(&self, changes: &Changes) {
        let bus = self.inner.bus.get();
        for &(id, version) in changes.matches() {
            self.wake(id, version, true, changes.by_bot());
            if let Some(bus) = bus {
                bus.announce(Change::Match { id, version });
            }
        }
        for &id in changes.created() {
            self.tell(Event::Created(id));
        }
        for &id in changes.tournaments() {
            self.tell(Event::Tournament(id));
            if let Some(bus) = bus {
                bus.announce(Change::Tournament(id));
            }
        }
        if let Some(bus) = bus {
            for &id in changes.scheduled() {
                bus.announce(Change::Tournament(id));
            }
        }
    }

    /// A receiver of every change committed from now on: this replica's
    /// matches, and what the other replicas tell ([`Event`]). Dropping it
    /// unsubscribes.
    pub fn events(&self) -> async_mpsc::UnboundedReceiver<Event> {
        let (sender, receiver) = async_mpsc::unbounded_channel();
        lock(&self.inner.listeners).push(sender);
        receiver
    }

    /// Tells every subscriber of [`Store::events`], forgetting those gone.
    fn tell(&self, event: Event) {
        lock(&self.inner.listeners).retain(|listener| listener.send(event).is_ok());
    }

    /// Wakes this replica's waiters on match `id` and its listeners;
    /// `here` when this replica committed the change.
    fn wake(&self, id: i64, version: i64, here: bool, by_bot: bool) {
        let watchers = lock(&self.inner.watchers);
        if let Some(sender) = watchers.get(&id) {
            sender.send_replace(version);
        }
        drop(watchers);
        self.tell(Event::Match {
            id,
            version,
            here,
            by_bot,
        });
    }
}

/// Closes the writer's queue when the writer thread ends, and drops the
/// jobs left: each one's requester hears that it failed.
struct CloseOnExit(Arc<WriteQueue<Job>>);

impl Drop for CloseOnExit {
    fn drop(&mut self) {
        self.0.close();
        while let Some(job) = self.0.pop() {
            drop(job);
        }
    }
}

impl Drop for Inner {
    /// The last handle is gone: the writer runs what waits, then stops.
    fn drop(&mut self) {
        self.writer.close();
    }
}

/// A change another replica committed (or the bus came back after a
/// loss): woken here as if it were this replica's own.
fn on_remote(store: &Weak<Inner>, remote: Remote) {
    let Some(inner) = store.upgrade() else {
        return;
    };
    let store = Store { inner };
    match remote {
        Remote::Change(Change::Match { id, version }) => store.wake(id, version, false, false),
        Remote::Change(Change::Tournament(id)) => store.tell(Event::Tournament(id)),
        Remote::Reconnected => {
            // Notifications may have been lost: every waiter reads again.
            for sender in lock(&store.inner.watchers).values() {
                sender.send_modify(|_| {});
            }
            store.tell(Event::Resync);
        }
    }
}

/// A lock that a panic elsewhere does not poison: every value these
/// mutexes guard is whole between two statements.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A counting semaphore for blocking threads: [`Slots::take`] waits while
/// every slot is taken; the slot is given back when its guard drops.
struct Slots {
    free: Mutex<usize>,
    returned: std::sync::Condvar,
}

struct Slot<'a>(&'a Slots);

impl Slots {
    fn new(n: usize) -> Slots {
        Slots {
            free: Mutex::new(n),
            returned: std::sync::Condvar::new(),
        }
    }

    fn take(&self) -> Slot<'_> {
        let mut free = lock(&self.free);
        while *free == 0 {
            free = self
                .returned
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *lock(&self.0.free) += 1;
        self.0.returned.notify_one();
    }
}

/// One write job counted in [`Store::pending_writes`] while it lives.
struct PendingWrite(Arc<AtomicUsize>);

impl PendingWrite {
    fn new(count: &Arc<AtomicUsize>) -> PendingWrite {
        count.fetch_add(1, Ordering::Relaxed);
        PendingWrite(Arc::clone(count))
    }
}

impl Drop for PendingWrite {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

fn unavailable() -> Error {
    Error::Unavailable(Unavailable::Down)
}

fn internal() -> Error {
    Error::Failed
}
