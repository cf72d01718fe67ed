//! The heavy-work pool: a few threads for CPU-bound requests, with a bounded
//! queue. Heavy work never runs on actix's workers (which keep answering
//! cheap requests) nor on the database threads, and never piles up without
//! end: when every worker is busy and the queue is full, a request is
//! refused at once with 503 `busy` and `Retry-After`.
//!
//! Solitaire solves and solve jobs use it; bot searches, replays and renders
//! can move onto it the same way.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::error::ApiError;

/// Seconds a refused client is asked to wait (`Retry-After`) before trying
/// again: about the time of a solve at the default budgets.
pub const RETRY_AFTER_SECONDS: u32 = 5;

/// Tasks a pool may hold waiting per worker, unless configured otherwise.
pub const QUEUE_PER_WORKER: usize = 4;

type Task = Box<dyn FnOnce() + Send + 'static>;

/// A bounded pool of threads for CPU-heavy work. Clones share one pool; its
/// threads stop when the last clone is dropped (a task already running
/// finishes, tasks still waiting are dropped).
#[derive(Clone)]
pub struct HeavyPool {
    handle: Arc<Handle>,
}

/// Owned by the clones, not by the threads: dropping the last one closes
/// the pool.
struct Handle {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    workers: usize,
    queue: usize,
}

struct State {
    waiting: VecDeque<Task>,
    /// Tasks accepted and not finished: waiting or running.
    outstanding: usize,
    closed: bool,
}

impl HeavyPool {
    /// A pool of `workers` threads (at least one) that holds at most
    /// `queue` tasks waiting for a thread.
    pub fn new(workers: usize, queue: usize) -> HeavyPool {
        let workers = workers.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                waiting: VecDeque::new(),
                outstanding: 0,
                closed: false,
            }),
            wake: Condvar::new(),
            workers,
            queue,
        });
        for index in 0..workers {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("heavy-{index}"))
                .spawn(move || work(&shared))
                .expect("the heavy-work threads start");
        }
        HeavyPool {
            handle: Arc::new(Handle { shared }),
        }
    }

    /// One worker per core and a queue of [`QUEUE_PER_WORKER`] tasks per
    /// worker.
    pub fn with_defaults() -> HeavyPool {
        let workers = std::thread::available_parallelism().map_or(2, usize::from);
        HeavyPool::new(workers, QUEUE_PER_WORKER * workers)
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        self.handle.shared.workers
    }

    /// The most tasks that wait for a thread.
    pub fn queue(&self) -> usize {
        self.handle.shared.queue
    }

    /// Tasks accepted and not finished (running or waiting).
    pub fn outstanding(&self) -> usize {
        lock(&self.handle.shared.state).outstanding
    }

    /// Tasks accepted and waiting for a thread (the queue's depth).
    pub fn waiting(&self) -> usize {
        lock(&self.handle.shared.state).waiting.len()
    }

    /// Runs `task` on the pool, without waiting for it.
    ///
    /// # Errors
    /// 503 `busy` with `Retry-After` when every worker is busy and the queue
    /// is full; the task is dropped unrun.
    pub fn spawn(&self, task: impl FnOnce() + Send + 'static) -> Result<(), ApiError> {
        let shared = &self.handle.shared;
        let mut state = lock(&shared.state);
        if state.outstanding >= shared.workers + shared.queue {
            return Err(ApiError::busy(
                format!(
                    "the server is busy: {} heavy requests are running or waiting ({} workers, a queue of {}); try again in {RETRY_AFTER_SECONDS} s",
                    state.outstanding, shared.workers, shared.queue
                ),
                RETRY_AFTER_SECONDS,
            ));
        }
        state.outstanding += 1;
        state.waiting.push_back(Box::new(task));
        drop(state);
        shared.wake.notify_one();
        Ok(())
    }

    /// Runs `task` on the pool and waits (without blocking the caller's
    /// thread) for its answer.
    ///
    /// # Errors
    /// 503 `busy` as [`HeavyPool::spawn`]; 500 `internal` if the task
    /// panicked.
    pub async fn run<R: Send + 'static>(
        &self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        self.spawn(move || {
            // The requester may have gone away: nobody to tell.
            let _ = sender.send(task());
        })?;
        receiver
            .await
            .map_err(|_| ApiError::internal("the request's work failed on the server"))
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        lock(&self.shared.state).closed = true;
        self.shared.wake.notify_all();
    }
}

impl std::fmt::Debug for HeavyPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeavyPool")
            .field("workers", &self.workers())
            .field("queue", &self.queue())
            .field("outstanding", &self.outstanding())
            .finish()
    }
}

/// A worker: takes the tasks one by one until the pool closes.
fn work(shared: &Shared) {
    loop {
        let task = {
            let mut state = lock(&shared.state);
            loop {
                if state.closed {
                    return;
                }
                if let Some(task) = state.waiting.pop_front() {
                    break task;
                }
                state = shared
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        // A panicking task must not take its worker with it; whoever waits
        // for its answer sees the channel closed.
        if std::panic::catch_unwind(AssertUnwindSafe(task)).is_err() {
            tracing::error!("a heavy task panicked");
        }
        lock(&shared.state).outstanding -= 1;
    }
}

/// The state, even if a thread panicked while holding it (every update
/// leaves it consistent).
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_full_pool_refuses_with_retry_after_and_accepts_again_when_free() {
        let pool = HeavyPool::new(1, 1);
        let (release, gate) = mpsc::channel::<()>();
        let (started, running) = mpsc::channel::<()>();
        pool.spawn(move || {
            started.send(()).unwrap();
            gate.recv().unwrap();
        })
        .unwrap();
        running.recv().unwrap();
        // One running, one waiting: full.
        let (done, finished) = mpsc::channel::<u32>();
        let second = done.clone();
        pool.spawn(move || second.send(2).unwrap()).unwrap();
        let refused = pool.spawn(|| {}).unwrap_err();
        assert_eq!(refused.problem().status, 503);
        assert_eq!(refused.problem().code, "busy");
        assert_eq!(refused.retry_after(), Some(RETRY_AFTER_SECONDS));
        assert_eq!(pool.outstanding(), 2);
        release.send(()).unwrap();
        assert_eq!(finished.recv().unwrap(), 2);
        // Free again (the counter drops just after the task ends).
        let mut polls = 0;
        while pool.outstanding() > 0 {
            polls += 1;
            assert!(polls < 10_000, "the pool never emptied");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        pool.spawn(move || done.send(3).unwrap()).unwrap();
        assert_eq!(finished.recv().unwrap(), 3);
    }

    #[test]
    fn a_panicking_task_does_not_lose_its_worker() {
        // A queue of one: the failed task may not be counted out yet.
        let pool = HeavyPool::new(1, 1);
        let answer = actix_web::rt::System::new().block_on(async {
            let failed = pool.run(|| panic!("on purpose")).await.unwrap_err();
            assert_eq!(failed.problem().status, 500);
            pool.run(|| 7).await
        });
        assert_eq!(answer.unwrap(), 7);
    }
}
