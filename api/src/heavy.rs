//! The heavy-work pool: a few threads for CPU-bound requests, with a bounded
//! queue. Heavy work never runs on actix's workers (which keep answering
//! cheap requests) nor on the database threads, and never piles up without
//! end: when every worker is busy and the queue is full, a request is
//! refused at once with 503 `busy` and `Retry-After`.
//!
//! Solitaire solves, solve jobs, bot searches (`POST /v1/bots/move`),
//! replays and renders use it.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::error::ApiError;

/// Seconds a refused client is asked to wait (`Retry-After`) before trying
/// again: about the time of a solve at the default budgets.
pub const RETRY_AFTER_SECONDS: u32 = 5;

/// Tasks a pool may hold waiting per worker, unless configured otherwise.
pub const QUEUE_PER_WORKER: usize = 4;

/// A task: does the work, and hands back what delivers its answer. The
/// worker counts the task out before it delivers, so whoever gets an answer
/// finds the task's place in the pool free again.
type Task = Box<dyn FnOnce() -> Deliver + Send + 'static>;

type Deliver = Box<dyn FnOnce() + Send + 'static>;

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
    /// Signalled when the last outstanding task is counted out.
    idle: Condvar,
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
            idle: Condvar::new(),
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

    /// Blocks the calling thread until no task is outstanding (for tests
    /// and tools: never call it on an actix worker).
    pub fn wait_until_idle(&self) {
        let shared = &self.handle.shared;
        let mut state = lock(&shared.state);
        while state.outstanding > 0 {
            state = shared
                .idle
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Runs `task` on the pool, without waiting for it.
    ///
    /// # Errors
    /// 503 `busy` with `Retry-After` when every worker is busy and the queue
    /// is full; the task is dropped unrun.
    pub fn spawn(&self, task: impl FnOnce() + Send + 'static) -> Result<(), ApiError> {
        self.submit(Box::new(move || {
            task();
            Box::new(|| {})
        }))
    }

    fn submit(&self, task: Task) -> Result<(), ApiError> {
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
        state.waiting.push_back(task);
        drop(state);
        shared.wake.notify_one();
        Ok(())
    }

    /// Runs `task` on the pool and waits (without blocking the caller's
    /// thread) for its answer. By the time the answer arrives the task is
    /// counted out of the pool, so a next request finds its place free.
    ///
    /// # Errors
    /// 503 `busy` as [`HeavyPool::spawn`]; 500 `internal` if the task
    /// panicked.
    pub async fn run<R: Send + 'static>(
        &self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        self.submit(Box::new(move || {
            // Caught here, so the sender outlives a panic until delivery:
            // the requester hears of the failure after the count drops too.
            let answer = std::panic::catch_unwind(AssertUnwindSafe(task));
            Box::new(move || match answer {
                // The requester may have gone away: nobody to tell.
                Ok(answer) => drop(sender.send(answer)),
                Err(_) => {
                    tracing::error!("a heavy task panicked");
                    drop(sender);
                }
            })
        }))?;
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
        // A panicking task must not take its worker with it.
        let deliver = std::panic::catch_unwind(AssertUnwindSafe(task));
        if deliver.is_err() {
            tracing::error!("a heavy task panicked");
        }
        {
            let mut state = lock(&shared.state);
            state.outstanding -= 1;
            if state.outstanding == 0 {
                shared.idle.notify_all();
            }
        }
        if let Ok(deliver) = deliver {
            deliver();
        }
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
        // Free again once both tasks are counted out.
        pool.wait_until_idle();
        assert_eq!(pool.outstanding(), 0);
        pool.spawn(move || done.send(3).unwrap()).unwrap();
        assert_eq!(finished.recv().unwrap(), 3);
    }

    #[test]
    fn a_panicking_task_does_not_lose_its_worker() {
        // No queue: the second task is accepted only if the failed one was
        // counted out before its failure was answered.
        let pool = HeavyPool::new(1, 0);
        let answer = actix_web::rt::System::new().block_on(async {
            let failed = pool.run(|| panic!("on purpose")).await.unwrap_err();
            assert_eq!(failed.problem().status, 500);
            pool.run(|| 7).await
        });
        assert_eq!(answer.unwrap(), 7);
    }

    #[test]
    fn an_answer_arrives_after_its_task_is_counted_out() {
        // One worker and no queue: each run is accepted only if the one
        // before it freed its place before its answer came.
        let pool = HeavyPool::new(1, 0);
        let answers = actix_web::rt::System::new().block_on(async {
            let mut answers = Vec::new();
            for n in 0..100 {
                answers.push(pool.run(move || n).await.unwrap());
                assert_eq!(pool.outstanding(), 0);
            }
            answers
        });
        assert_eq!(answers, (0..100).collect::<Vec<_>>());
    }
}
