//! The database as the handlers see it: SQLite never runs on an actix
//! worker thread.
//!
//! - Writes go to one dedicated thread that owns the writing connection and
//!   runs jobs one at a time, in arrival order. A job is a closure that
//!   opens a transaction, checks, writes and commits; the handler awaits its
//!   answer. One writer means two requests racing for the same turn are
//!   simply ordered: the second sees the first's move.
//! - Reads run on actix's blocking thread pool (`web::block`) with their
//!   own connections (WAL lets them read while the writer writes).
//! - After a commit the writer thread itself wakes every long-poll waiting
//!   on that match ([`Store::subscribe`], [`Store::publish`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

use actix_web::http::StatusCode;
use rusqlite::Connection;
use tokio::sync::{oneshot, watch};

use crate::db;
use crate::error::ApiError;
use crate::tournaments::director::Tournaments;

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// A handle to the database, cheap to clone; shared by every worker.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: Mutex<mpsc::Sender<Job>>,
    readers: Mutex<Vec<Connection>>,
    watchers: Mutex<HashMap<i64, watch::Sender<i64>>>,
    /// Matches whose built-in bots are being played, each with whether it
    /// was asked to look again ([`Store::begin_bots`]).
    bot_runs: Mutex<HashMap<i64, bool>>,
    /// Write jobs sent and not finished (waiting or running): the writer's
    /// queue depth, for `/metrics`.
    pending_writes: Arc<AtomicUsize>,
    /// The tournament director of this database, once started: told of
    /// every published change ([`Store::publish`]).
    director: OnceLock<Tournaments>,
}

/// Idle read connections kept for reuse.
const MAX_IDLE_READERS: usize = 8;

impl Store {
    /// Opens (creating and migrating if needed) the database file and
    /// starts the writer thread. Returns the store and the schema version.
    ///
    /// # Errors
    /// The file cannot be opened or migrated.
    pub fn open(path: &Path) -> Result<(Store, usize), rusqlite::Error> {
        let (mut connection, version) = db::open(path)?;
        let (sender, receiver) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("sternhalma-db-writer".to_owned())
            .spawn(move || {
                for job in receiver {
                    // A panicking job drops its answer channel (the handler
                    // answers 500) and rolls back its transaction; the
                    // writer goes on with the next job.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        job(&mut connection);
                    }));
                }
            })
            .map_err(|e| rusqlite::Error::InvalidParameterName(format!("writer thread: {e}")))?;
        let store = Store {
            inner: Arc::new(Inner {
                path: path.to_owned(),
                writer: Mutex::new(sender),
                readers: Mutex::new(Vec::new()),
                watchers: Mutex::new(HashMap::new()),
                bot_runs: Mutex::new(HashMap::new()),
                pending_writes: Arc::default(),
                director: OnceLock::new(),
            }),
        };
        Ok((store, version))
    }

    /// Runs `job` on the writer thread and awaits its answer.
    ///
    /// # Errors
    /// The job's own error, or 503 when the writer is gone.
    pub async fn write<T, F>(&self, job: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, ApiError> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        // Counted until the job is dropped: run, panicked, or never sent.
        let pending = PendingWrite::new(&self.inner.pending_writes);
        let job: Job = Box::new(move |connection| {
            let _pending = pending;
            let _ = answer.send(job(connection));
        });
        self.inner
            .writer
            .lock()
            .map_err(|_| unavailable())?
            .send(job)
            .map_err(|_| unavailable())?;
        answered.await.map_err(|_| internal())?
    }

    /// Write jobs sent to the writer thread and not finished yet.
    pub fn pending_writes(&self) -> usize {
        self.inner.pending_writes.load(Ordering::Relaxed)
    }

    /// Runs `job` with a read connection on the blocking thread pool.
    ///
    /// # Errors
    /// The job's own error, or 503 when no connection can be opened.
    pub async fn read<T, F>(&self, job: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static,
    {
        let store = self.clone();
        actix_web::web::block(move || {
            let pooled = store.inner.readers.lock().ok().and_then(|mut v| v.pop());
            let connection = match pooled {
                Some(connection) => connection,
                None => {
                    let connection = db::connect(&store.inner.path).map_err(|e| {
                        tracing::error!(error = %e, "cannot open a read connection");
                        unavailable()
                    })?;
                    // Readers never write: a bug cannot bypass the writer.
                    connection
                        .pragma_update(None, "query_only", "ON")
                        .map_err(ApiError::from)?;
                    connection
                }
            };
            let result = job(&connection);
            if let Ok(mut idle) = store.inner.readers.lock() {
                if idle.len() < MAX_IDLE_READERS {
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
        let mut watchers = self
            .inner
            .watchers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Forget matches nobody waits on any more (the map stays as small
        // as the number of waiting clients).
        watchers.retain(|_, sender| sender.receiver_count() > 0);
        watchers
            .entry(id)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Wakes everyone waiting on match `id`; `version` is its new version.
    pub fn publish(&self, id: i64, version: i64) {
        let watchers = self
            .inner
            .watchers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(sender) = watchers.get(&id) {
            sender.send_replace(version);
        }
        drop(watchers);
        if let Some(director) = self.inner.director.get() {
            director.match_changed(id);
        }
    }

    /// The tournament director of this database: started by `start` on
    /// first use, the same one ever after (one per database file opened).
    pub fn director(&self, start: impl FnOnce() -> Tournaments) -> Tournaments {
        self.inner.director.get_or_init(start).clone()
    }
}

impl Store {
    /// Claims match `id` for playing its built-in bots: `true` when no one
    /// was, and the caller now must; `false` when a run is under way, which
    /// is told to look again before it stops ([`Store::end_bots`]).
    pub fn begin_bots(&self, id: i64) -> bool {
        let mut runs = lock(&self.inner.bot_runs);
        match runs.get_mut(&id) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                runs.insert(id, false);
                true
            }
        }
    }

    /// The run on match `id` found nothing to do: answers `true` if it
    /// must look again (someone asked meanwhile), else releases the match
    /// and answers `false`.
    pub fn end_bots(&self, id: i64) -> bool {
        let mut runs = lock(&self.inner.bot_runs);
        if let Some(again) = runs.get_mut(&id) {
            if *again {
                *again = false;
                return true;
            }
        }
        runs.remove(&id);
        false
    }

    /// Releases match `id` whether or not it was asked to look again: a
    /// run that gives up.
    pub fn release_bots(&self, id: i64) {
        lock(&self.inner.bot_runs).remove(&id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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

fn unavailable() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        "Service unavailable",
        "the database is not available; try again",
    )
}

fn internal() -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal_error",
        "Internal server error",
        "the request failed inside the server; nothing was stored",
    )
}
