//! The heavy-work pool: a few threads for CPU-bound requests, with a bounded
//! queue. Heavy work never runs on actix's workers (which keep answering
//! cheap requests) nor on the database threads, and never piles up without
//! end: when every worker is busy and the queue is full, a request is
//! refused at once with 503 `busy` and `Retry-After`.
//!
//! Solitaire solves, solve jobs, bot searches (`POST /v1/bots/move`),
//! replays and renders use it. Stored matches' built-in bots use its urgent
//! lane ([`HeavyPool::run_urgent`]): never refused (a match must not stall
//! because strangers filled the queue), ahead of the ordinary queue (the
//! lanes take turns when both wait, so neither starves), and bounded by
//! the matches waiting for a bot's move (one task each, at most 1.15 s at
//! the seat caps; BENCHMARKS.md). Bots left to play alone (no open seat
//! waits) use the background lane: never refused either, but taken only
//! when no other task waits.

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
    /// Urgent tasks, taken before `waiting`.
    urgent: VecDeque<Task>,
    /// Ordinary tasks accepted and not finished: waiting or running.
    outstanding: usize,
    /// Urgent tasks accepted and not finished.
    urgent_outstanding: usize,
    /// Whether the last task taken was urgent: when both lanes wait, the
    /// workers take them in turn, so neither starves the other.
    last_urgent: bool,
    /// Background tasks, taken only when no other task waits.
    background: VecDeque<Task>,
    /// Background tasks accepted and not finished.
    background_outstanding: usize,
    closed: bool,
}

/// Where a task waits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lane {
    Ordinary,
    Urgent,
    Background,
}

impl HeavyPool {
    /// A pool of `workers` threads (at least one) that holds at most
    /// `queue` tasks waiting for a thread.
    pub fn new(workers: usize, queue: usize) -> HeavyPool {
        let workers = workers.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                waiting: VecDeque::new(),
                urgent: VecDeque::new(),
                outstanding: 0,
                urgent_outstanding: 0,
                last_urgent: false,
                background: VecDeque::new(),
                background_outstanding: 0,
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

    /// Ordinary tasks accepted and not finished (running or waiting).
    pub fn outstanding(&self) -> usize {
        lock(&self.handle.shared.state).outstanding
    }

    /// Urgent tasks accepted and not finished (running or waiting).
    pub fn urgent_outstanding(&self) -> usize {
        lock(&self.handle.shared.state).urgent_outstanding
    }

    /// Blocks the calling thread until no task is outstanding, in any lane
    /// (for tests and tools: never call it on an actix worker).
    pub fn wait_until_idle(&self) {
        let shared = &self.handle.shared;
        let mut state = lock(&shared.state);
        while state.all_outstanding() > 0 {
            state = shared
                .idle
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Tasks accepted and waiting for a thread (the queue's depth).
    pub fn waiting(&self) -> usize {
        lock(&self.handle.shared.state).waiting.len()
    }

    /// Holds one worker busy until the answer is released (or dropped),
    /// and returns once it is: a pool in a known state, with no clock in
    /// it, for tests and tools.
    ///
    /// # Errors
    /// 503 `busy` as [`HeavyPool::spawn`].
    pub fn occupy(&self) -> Result<Occupied, ApiError> {
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let (started, running) = std::sync::mpsc::channel::<()>();
        self.spawn(move || {
            let _ = started.send(());
            // Until a release, or the holder drops its end.
            let _ = gate.recv();
        })?;
        let _ = running.recv();
        Ok(Occupied(release))
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
        let (task, answer) = answering(task);
        self.submit(task)?;
        answer.await
    }

    /// Runs `task` in the urgent lane and waits for its answer: never
    /// refused, and started ahead of the ordinary queue (when both lanes
    /// wait, the workers take them in turn, so a stream of urgent tasks
    /// cannot starve the ordinary ones).
    ///
    /// # Errors
    /// 500 `internal` if the task panicked.
    pub async fn run_urgent<R: Send + 'static>(
        &self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        self.push(Lane::Urgent, task).await
    }

    /// Runs `task` in the background lane and waits for its answer: never
    /// refused, and started only when no other task waits (work nobody
    /// waits for, such as bots playing on alone, uses only spare threads).
    ///
    /// # Errors
    /// 500 `internal` if the task panicked.
    pub async fn run_background<R: Send + 'static>(
        &self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        self.push(Lane::Background, task).await
    }

    /// Background tasks accepted and not finished (running or waiting).
    pub fn background_outstanding(&self) -> usize {
        lock(&self.handle.shared.state).background_outstanding
    }

    /// Queues `task` in a lane that never refuses, and waits for its answer.
    async fn push<R: Send + 'static>(
        &self,
        lane: Lane,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        let (task, answer) = answering(task);
        let shared = &self.handle.shared;
        {
            let mut state = lock(&shared.state);
            if lane == Lane::Background {
                state.background_outstanding += 1;
                state.background.push_back(task);
            } else {
                state.urgent_outstanding += 1;
                state.urgent.push_back(task);
            }
        }
        shared.wake.notify_one();
        answer.await
    }
}

impl State {
    /// Tasks accepted and not finished, in every lane.
    fn all_outstanding(&self) -> usize {
        self.outstanding + self.urgent_outstanding + self.background_outstanding
    }

    /// The next task to run, and its lane: urgent first, unless the last
    /// task taken was urgent and an ordinary one waits (the two take
    /// turns); background only when neither waits.
    fn next(&mut self) -> Option<(Task, Lane)> {
        let urgent = !self.urgent.is_empty() && (!self.last_urgent || self.waiting.is_empty());
        let (task, lane) = if urgent {
            (self.urgent.pop_front()?, Lane::Urgent)
        } else if let Some(task) = self.waiting.pop_front() {
            (task, Lane::Ordinary)
        } else {
            (self.background.pop_front()?, Lane::Background)
        };
        self.last_urgent = lane == Lane::Urgent;
        Some((task, lane))
    }
}

/// A worker held by [`HeavyPool::occupy`]; released by
/// [`Occupied::release`] or when dropped.
#[derive(Debug)]
pub struct Occupied(std::sync::mpsc::Sender<()>);

impl Occupied {
    /// Lets the held worker go.
    pub fn release(self) {
        let _ = self.0.send(());
    }
}

/// `task` as the pool runs it, and the answer its requester awaits: the
/// task's value, or 500 `internal` if it panicked.
fn answering<R: Send + 'static>(
    task: impl FnOnce() -> R + Send + 'static,
) -> (Task, impl Future<Output = Result<R, ApiError>>) {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let task: Task = Box::new(move || {
        // Caught here, so the sender outlives a panic until delivery: the
        // requester hears of the failure after the count drops too.
        let answer = std::panic::catch_unwind(AssertUnwindSafe(task));
        Box::new(move || match answer {
            // The requester may have gone away: nobody to tell.
            Ok(answer) => drop(sender.send(answer)),
            Err(_) => {
                tracing::error!("a heavy task panicked");
                drop(sender);
            }
        })
    });
    let answer = async move {
        receiver
            .await
            .map_err(|_| ApiError::internal("the request's work failed on the server"))
    };
    (task, answer)
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
        let (task, lane) = {
            let mut state = lock(&shared.state);
            loop {
                if state.closed {
                    return;
                }
                if let Some(next) = state.next() {
                    break next;
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
            match lane {
                Lane::Ordinary => state.outstanding -= 1,
                Lane::Urgent => state.urgent_outstanding -= 1,
                Lane::Background => state.background_outstanding -= 1,
            }
            if state.all_outstanding() == 0 {
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
        let held = pool.occupy().unwrap();
        // One running, one waiting: full.
        let (done, finished) = mpsc::channel::<u32>();
        let second = done.clone();
        pool.spawn(move || second.send(2).unwrap()).unwrap();
        let refused = pool.spawn(|| {}).unwrap_err();
        assert_eq!(refused.problem().status, 503);
        assert_eq!(refused.problem().code, "busy");
        assert_eq!(refused.retry_after(), Some(RETRY_AFTER_SECONDS));
        assert_eq!(pool.outstanding(), 2);
        held.release();
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

    // Urgent tasks (stored matches' bots) go before ordinary ones still
    // waiting, and are never refused, even when the ordinary queue is full.
    #[test]
    fn urgent_tasks_go_first_and_are_never_refused() {
        let pool = HeavyPool::new(1, 1);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<&str>();
        let ordinary = order.clone();
        pool.spawn(move || ordinary.send("ordinary").unwrap())
            .unwrap();
        assert_eq!(pool.spawn(|| {}).unwrap_err().problem().status, 503);
        let urgent = pool.clone();
        let waiter = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(urgent.run_urgent(move || {
                order.send("urgent").unwrap();
                7
            }))
        });
        while pool.urgent_outstanding() == 0 {
            std::thread::yield_now();
        }
        held.release();
        assert_eq!(waiter.join().unwrap().unwrap(), 7);
        assert_eq!(ran.recv().unwrap(), "urgent");
        assert_eq!(ran.recv().unwrap(), "ordinary");
        pool.wait_until_idle();
        assert_eq!((pool.outstanding(), pool.urgent_outstanding()), (0, 0));
    }

    // When both lanes wait, the workers take them in turn: a stream of
    // urgent tasks cannot starve the ordinary queue.
    #[test]
    fn the_lanes_take_turns_when_both_wait() {
        let pool = HeavyPool::new(1, 2);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<&str>();
        let urgent: Vec<_> = (0..2)
            .map(|_| {
                let (pool, order) = (pool.clone(), order.clone());
                std::thread::spawn(move || {
                    actix_web::rt::System::new()
                        .block_on(pool.run_urgent(move || order.send("urgent").unwrap()))
                })
            })
            .collect();
        while pool.urgent_outstanding() < 2 {
            std::thread::yield_now();
        }
        for _ in 0..2 {
            let order = order.clone();
            pool.spawn(move || order.send("ordinary").unwrap()).unwrap();
        }
        held.release();
        for waiter in urgent {
            waiter.join().unwrap().unwrap();
        }
        let seen: Vec<&str> = (0..4).map(|_| ran.recv().unwrap()).collect();
        assert_eq!(seen, ["urgent", "ordinary", "urgent", "ordinary"]);
    }

    // The background lane (bots playing on alone) runs only when nothing
    // else waits.
    #[test]
    fn background_tasks_wait_for_every_other_lane() {
        let pool = HeavyPool::new(1, 1);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<&str>();
        let background = {
            let (pool, order) = (pool.clone(), order.clone());
            std::thread::spawn(move || {
                actix_web::rt::System::new()
                    .block_on(pool.run_background(move || order.send("background").unwrap()))
            })
        };
        while pool.background_outstanding() == 0 {
            std::thread::yield_now();
        }
        let urgent = {
            let (pool, order) = (pool.clone(), order.clone());
            std::thread::spawn(move || {
                actix_web::rt::System::new()
                    .block_on(pool.run_urgent(move || order.send("urgent").unwrap()))
            })
        };
        while pool.urgent_outstanding() == 0 {
            std::thread::yield_now();
        }
        pool.spawn(move || order.send("ordinary").unwrap()).unwrap();
        held.release();
        background.join().unwrap().unwrap();
        urgent.join().unwrap().unwrap();
        let seen: Vec<&str> = (0..3).map(|_| ran.recv().unwrap()).collect();
        assert_eq!(seen, ["urgent", "ordinary", "background"]);
        pool.wait_until_idle();
        assert_eq!(pool.background_outstanding(), 0);
    }
}
