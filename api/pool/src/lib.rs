//! The heavy-work pool: a few threads for CPU-bound work, with a bounded
//! queue, fair between the clients who ask and the games that play. Heavy
//! work never runs on the web framework's workers (which keep answering
//! cheap requests) nor on the database threads, and never piles up without
//! end: when every worker is busy and the queue is full, a task is refused
//! at once ([`Refused::Busy`]; the server answers 503 `busy` with
//! `Retry-After`, [`RETRY_AFTER_SECONDS`]).
//!
//! No web framework and no database here: the server's routes reach it
//! through their extractor (`sternhalma_http::heavy::HeavyClient`), and its
//! background tasks (the bot runner, the tournament director) through
//! [`HeavyPool::run_urgent`] and [`HeavyPool::run_background`].
//!
//! Solitaire solves, solve jobs, bot searches (`POST /v1/bots/move`),
//! replays, analyses and renders use it, each for a client
//! ([`PoolClient`]: the request's peer address, keyed as the per-client
//! limits key it) and at a [`Cost`]: its share of the work its route allows
//! at most (a search of half the node cap is half a request, a picture a
//! thousandth). The queue is bounded by cost (the workers and the queue in
//! requests at their largest budgets: a thousand pictures hold as much of
//! it as one search at its cap), and fair between clients:
//!
//! - **One question first, then backlogs in turn.** Each client's tasks
//!   wait in a queue of their own. A free worker takes first the task of a
//!   client that holds no other (one question: a polite student's bot
//!   move), then the clients with backlogs in turn, one task each: a
//!   client asking for one answer goes ahead of every backlog, however
//!   many clients hold one, and a backlog delays another backlog by one
//!   task per turn.
//! - **A full queue refuses those who fill it.** When a task would take
//!   the pool past its bound, its client (holding nothing, or some) still
//!   gets in if others hold more than it will: it takes the places of the newest waiting tasks of the
//!   clients holding the most, as long as each of those still holds at
//!   least as much as the newcomer will (never a question for a question).
//!   Their requesters are refused ([`Refused::Displaced`]; the server
//!   answers 429 with `Retry-After`). Else a client holding some is refused
//!   itself ([`Refused::Crowded`], 429), and 503 `busy` is left for a
//!   client holding none when nobody holds a backlog that can give its
//!   place (every client one question, or solve jobs, which no requester
//!   awaits and which keep their place). All this with a cap per client
//!   only: a pool without one (`serve --no-limits`, where a class may share
//!   one address) answers a full queue with 503, as work without an
//!   address.
//! - **A cap per client** ([`HeavyPool::per_client_cap`]; `sternhalma
//!   serve --heavy-per-client`, [`DEFAULT_HEAVY_PER_CLIENT`] by default),
//!   in requests at their largest budgets: what one client's tasks running
//!   or waiting may cost, checked before a task is queued. Beyond it the
//!   task is refused ([`Refused::ClientAtCap`]; the server answers 429
//!   `too_many_heavy_requests` and `Retry-After`), so that one client
//!   cannot fill the queue the others need. Two requests' worth is two
//!   searches at the cap, or one and a page of pictures.
//!
//! - **An express thread for short questions.** Beside the workers, one
//!   thread takes only the tasks of clients whose work costs at most
//!   [`EXPRESS_COST`] in all (a small bot move, a picture): such a
//!   question never waits for the long tasks holding the workers to end,
//!   only for other short ones.
//! - **A thread kept for the others.** With two workers or more, one
//!   client runs at most all but one of them at once
//!   ([`running_per_client`]): its next task waits while it has that many
//!   running, so another client's task never waits for a task of its to
//!   finish, only for one to start.
//!
//! Each task's work is capped too (bot budgets, solve budgets, replay
//! lengths: the server's limits), so a task holds a thread a few seconds at
//! most, and a client waits for a few seconds per client ahead of it.
//!
//! Stored matches' built-in bots use the urgent lane
//! ([`HeavyPool::run_urgent`]): never refused (a match must not stall
//! because strangers filled the queue), ahead of the clients' queues (the
//! urgent lane and the clients' take turns when both wait, so neither
//! starves), and bounded by the matches waiting for a bot's move (one task
//! each, at most 1.15 s at the seat caps; BENCHMARKS.md). Bots left to play
//! alone (no open seat waits) use the background lane: never refused
//! either, but taken only when no other task waits. Neither lane belongs to
//! a client nor counts against a client's cap.
//!
//! Within each of these two lanes the tasks are fair between
//! [`Group`]s, the same way: a tournament's games are one group and every
//! other match is a group of its own, served in turn. A tournament playing
//! 64 games at once takes one turn of the lane, as a neighbour tournament's
//! one game does, so the neighbour's bots wait for one search of it, not
//! for 64.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Seconds a refused client is asked to wait (`Retry-After`) before trying
/// again: about the time of a solve at the default budgets.
pub const RETRY_AFTER_SECONDS: u32 = 5;

/// Why the pool did not run a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The client already has `held` counted tasks running or waiting,
    /// its cap: the remedy is its own (wait for an answer), the pool still
    /// has room for the others.
    ClientAtCap {
        /// What its tasks running or waiting cost.
        held: Cost,
    },
    /// Every worker is busy and the queue is full.
    Busy {
        /// Tasks running or waiting, over every client.
        outstanding: usize,
        /// The pool's threads.
        workers: usize,
        /// The most tasks that wait.
        queue: usize,
    },
    /// Every worker is busy and the queue is full, and this client holds
    /// `held` of the tasks in it: the remedy is its own (wait for its
    /// answers), and a client holding none would still be taken.
    Crowded {
        /// What its tasks running or waiting cost.
        held: Cost,
    },
    /// The task waited in a full queue and gave its place to the task of
    /// a client holding less; its client holds `held` in others.
    Displaced {
        /// What its client's other tasks running or waiting cost.
        held: Cost,
    },
    /// The task panicked (or the pool closed before it ran).
    Failed,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::ClientAtCap { held } => write!(
                f,
                "this client already has heavy work running or waiting worth {held} at the largest budgets, and this one would take it over the most it may: wait for one of them to answer, or try again in {RETRY_AFTER_SECONDS} s"
            ),
            Refused::Busy {
                outstanding,
                workers,
                queue,
            } => write!(
                f,
                "the server is busy: {outstanding} heavy requests are running or waiting ({workers} workers, a queue of {queue}); try again in {RETRY_AFTER_SECONDS} s"
            ),
            Refused::Crowded { held } => write!(
                f,
                "the server's heavy-work queue is full and this client already has heavy work in it worth {held} at the largest budgets: wait for one of them to answer, or try again in {RETRY_AFTER_SECONDS} s"
            ),
            Refused::Displaced { held } => write!(
                f,
                "the server's heavy-work queue is full: this request gave its place to a client holding less, since this client has other heavy work running or waiting worth {held} at the largest budgets; try again in {RETRY_AFTER_SECONDS} s"
            ),
            Refused::Failed => f.write_str("the request's work failed on the server"),
        }
    }
}

impl std::error::Error for Refused {}

/// What a heavy task costs, in thousandths of a request at its route's
/// largest budget ([`Cost::FULL`]): a bot search of half the node cap is
/// worth half a request, a picture (a millisecond or so, against about a
/// second for a search at its cap) a thousandth. The pool bounds what its
/// queue holds, and what one client holds, by cost, so that a thousand
/// pictures hold as much of it as one search at its cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cost(u64);

impl Cost {
    /// A request at its route's largest budget: about a second of one
    /// thread for a bot search at its cap, a few seconds for a solitaire
    /// solve at its cap (the server's limits).
    pub const FULL: Cost = Cost(1000);

    /// The least a task costs: a picture.
    pub const LEAST: Cost = Cost(1);

    /// The cost of a task doing `part` of the work its route allows at
    /// most (`whole`), rounded up, from [`Cost::LEAST`] to [`Cost::FULL`]
    /// (a `whole` of 0: [`Cost::FULL`]).
    ///
    /// ```
    /// use sternhalma_pool::Cost;
    /// assert_eq!(Cost::share(200_000, 400_000).units(), 500);
    /// assert_eq!(Cost::share(1, 400_000), Cost::LEAST);
    /// assert_eq!(Cost::share(5, 4), Cost::FULL);
    /// ```
    pub fn share(part: u64, whole: u64) -> Cost {
        if whole == 0 {
            return Cost::FULL;
        }
        let units = (u128::from(part) * u128::from(Cost::FULL.0)).div_ceil(u128::from(whole));
        Cost(
            u64::try_from(units)
                .unwrap_or(u64::MAX)
                .clamp(Cost::LEAST.0, Cost::FULL.0),
        )
    }

    /// `n` requests at their largest budgets.
    pub fn requests(n: usize) -> Cost {
        Cost(
            u64::try_from(n)
                .unwrap_or(u64::MAX)
                .saturating_mul(Cost::FULL.0),
        )
    }

    /// The cost in thousandths of [`Cost::FULL`].
    pub fn units(self) -> u64 {
        self.0
    }

    /// Whether it is nothing (a client holding no task).
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost(self.0.saturating_add(other.0))
    }
}

impl std::ops::Sub for Cost {
    type Output = Cost;
    fn sub(self, other: Cost) -> Cost {
        Cost(self.0.saturating_sub(other.0))
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        *self = *self + other;
    }
}

impl std::ops::SubAssign for Cost {
    fn sub_assign(&mut self, other: Cost) {
        *self = *self - other;
    }
}

/// In requests at their largest budgets: `2 requests`, `1 request`,
/// `1.5 requests`, `0.003 requests`.
impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, part) = (self.0 / Cost::FULL.0, self.0 % Cost::FULL.0);
        if part == 0 {
            let s = if whole == 1 { "" } else { "s" };
            write!(f, "{whole} request{s}")
        } else {
            let digits = format!("{part:03}");
            write!(f, "{whole}.{} requests", digits.trim_end_matches('0'))
        }
    }
}

/// Questions asked alone (a client's only task) taken one after another
/// while a backlog waits, before one task of a backlog goes: a class of
/// bots asking one at a time cannot starve a page asking for two.
pub const ALONE_IN_A_ROW: usize = 8;

/// The most a client's tasks (running and waiting) may cost in all for
/// the express thread to take them: a twentieth of a request at its cap,
/// about 50 ms of a search at the node cap's pace. A bot move of up to
/// 20,000 nodes (MCTS: 200 playouts), a picture, a replay of up to 500
/// moves, a solve of up to 50,000 nodes, or a few of them together (a
/// student's bot move and the picture of its position). Beside the pool's
/// workers, one thread takes only these, so such a question never waits
/// for a long task to end, whatever holds the workers; it waits at most
/// for other short ones.
pub const EXPRESS_COST: Cost = Cost(50);

/// Tasks a pool may hold waiting per worker, unless configured otherwise.
pub const QUEUE_PER_WORKER: usize = 4;

/// Heavy work one client may have running or waiting at once in
/// `sternhalma serve`, in requests at their largest budgets, unless
/// configured otherwise (`--heavy-per-client`). A bot, a notebook or a page
/// asks for one answer at a time (the replay page: the ply shown, and the
/// next one ahead), so two leave one spare. With two, one client holds at
/// most two threads' worth, for the few seconds a task may take
/// (`crate::limits`), and five clients are needed to fill the default
/// queue of a two-core machine (ten requests' worth).
pub const DEFAULT_HEAVY_PER_CLIENT: usize = 2;

/// A task: does the work, and hands back what delivers its answer. The
/// worker counts the task out before it delivers, so whoever gets an answer
/// finds the task's place in the pool free again.
type Task = Box<dyn FnOnce() -> Deliver + Send + 'static>;

type Deliver = Box<dyn FnOnce() + Send + 'static>;

/// What tells a waiting task's requester that it will not run (its place
/// given to another client's task): its answer is the refusal.
type Refuse = Box<dyn FnOnce(Refused) + Send + 'static>;

/// A task waiting in a client's queue.
struct Waiting {
    task: Task,
    /// What it costs.
    cost: Cost,
    /// Whether its client held no other task when it came: a question
    /// asked alone, which goes ahead of backlogs.
    first: bool,
    /// When it came, among the pool's tasks (a later task a larger one).
    seq: u64,
    /// For a task whose requester awaits its answer: how to refuse it if
    /// its place is given away. A task spawned without an answer keeps its
    /// place.
    refuse: Option<Refuse>,
}

/// Whom a task of the clients' queues is for: a client's key, or `None`
/// for work without a peer address (in-process requests, tools, tests),
/// which shares one queue and is never capped.
type Client = Option<IpAddr>;

/// Whose work a task of the urgent or background lane is: the lanes serve
/// their groups in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// Every game of a tournament.
    Tournament(i64),
    /// A match that is not a tournament game.
    Match(i64),
}

/// Tasks waiting in queues of their own per key, taken one of each key in
/// turn (the first key's oldest task, then the key goes to the back if it
/// has more waiting).
struct Turns<K, T> {
    queues: HashMap<K, VecDeque<T>>,
    /// The keys with tasks waiting, each once, in the order they are served.
    order: VecDeque<K>,
    waiting: usize,
}

impl<K: Copy + Eq + std::hash::Hash, T> Turns<K, T> {
    fn new() -> Turns<K, T> {
        Turns {
            queues: HashMap::new(),
            order: VecDeque::new(),
            waiting: 0,
        }
    }

    fn push(&mut self, key: K, task: T) {
        let queue = self.queues.entry(key).or_default();
        if queue.is_empty() {
            self.order.push_back(key);
        }
        queue.push_back(task);
        self.waiting += 1;
    }

    fn pop(&mut self) -> Option<T> {
        let key = self.order.pop_front()?;
        let Entry::Occupied(mut entry) = self.queues.entry(key) else {
            unreachable!("a key in turn has a queue");
        };
        let task = entry
            .get_mut()
            .pop_front()
            .expect("a key in turn has a task waiting");
        if entry.get().is_empty() {
            entry.remove();
        } else {
            self.order.push_back(key);
        }
        self.waiting -= 1;
        Some(task)
    }

    fn is_empty(&self) -> bool {
        self.waiting == 0
    }
}

/// The most tasks one client runs at once on a pool of `workers`: all but
/// one thread, so that another client's task finds one free as soon as
/// the task running there ends (one on a one-thread pool).
pub fn running_per_client(workers: usize) -> usize {
    workers.saturating_sub(1).max(1)
}

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
    /// The clients with ordinary tasks accepted and not finished, each with
    /// its own queue.
    clients: HashMap<Client, ClientQueue>,
    /// The clients with ordinary tasks waiting, in the order they are
    /// served: the first one's oldest task goes next, and the client goes
    /// to the back if it has more waiting. A client is here once exactly
    /// when its queue is not empty.
    turns: VecDeque<Client>,
    /// Ordinary tasks waiting, over every client.
    waiting: usize,
    /// Ordinary tasks accepted and not finished: waiting or running.
    outstanding: usize,
    /// What they cost: at most [`Cost::requests`] of the workers and the
    /// queue.
    outstanding_cost: Cost,
    /// What the tasks a client (with an address) has accepted and not
    /// finished may cost at most, in requests at their largest budgets;
    /// `None`: no cap.
    per_client: Option<usize>,
    /// Tasks refused because their client was at its cap.
    refused_per_client: u64,
    /// Waiting tasks that gave their place to a client holding fewer.
    displaced: u64,
    /// Tasks the express thread took.
    express: u64,
    /// Tasks queued so far (each waiting task's `seq`).
    queued: u64,
    /// Questions asked alone taken one after another while a backlog
    /// could have run ([`ALONE_IN_A_ROW`]).
    alone_in_a_row: usize,
    /// Urgent tasks, taken before the clients' queues, groups in turn.
    urgent: Turns<Group, Task>,
    /// Urgent tasks accepted and not finished.
    urgent_outstanding: usize,
    /// The most tasks one client (with an address) runs at once
    /// ([`running_per_client`]).
    running_per_client: usize,
    /// Whether the last task taken was urgent: when both wait, the workers
    /// take an urgent task and a client's in turn, so neither starves.
    last_urgent: bool,
    /// Background tasks, taken only when no other task waits, groups in
    /// turn.
    background: Turns<Group, Task>,
    /// Background tasks accepted and not finished.
    background_outstanding: usize,
    closed: bool,
}

/// One client's ordinary tasks.
#[derive(Default)]
struct ClientQueue {
    /// Its tasks waiting, oldest first.
    waiting: VecDeque<Waiting>,
    /// Its tasks accepted and not finished: waiting or running.
    outstanding: usize,
    /// Of those, the ones running.
    running: usize,
    /// What they cost, running or waiting.
    cost: Cost,
}

/// Where a task waits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lane {
    /// A client's queue, what the task costs, and whether it runs on the
    /// express thread (not counted among the client's tasks running on
    /// the workers).
    Ordinary {
        client: Client,
        cost: Cost,
        express: bool,
    },
    Urgent,
    Background,
}

impl HeavyPool {
    /// A pool of `workers` threads (at least one) that holds at most
    /// `queue` tasks waiting for a thread, with no cap per client (see
    /// [`HeavyPool::per_client_cap`]).
    pub fn new(workers: usize, queue: usize) -> HeavyPool {
        let workers = workers.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                clients: HashMap::new(),
                turns: VecDeque::new(),
                waiting: 0,
                outstanding: 0,
                outstanding_cost: Cost::default(),
                per_client: None,
                refused_per_client: 0,
                displaced: 0,
                express: 0,
                queued: 0,
                alone_in_a_row: 0,
                running_per_client: running_per_client(workers),
                urgent: Turns::new(),
                urgent_outstanding: 0,
                last_urgent: false,
                background: Turns::new(),
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
                .spawn(move || work(&shared, State::next))
                .expect("the heavy-work threads start");
        }
        let express = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("heavy-express".to_owned())
            .spawn(move || work(&express, State::next_express))
            .expect("the heavy-work threads start");
        HeavyPool {
            handle: Arc::new(Handle { shared }),
        }
    }

    /// One worker per core and a queue of [`QUEUE_PER_WORKER`] tasks per
    /// worker, with no cap per client.
    pub fn with_defaults() -> HeavyPool {
        let workers = std::thread::available_parallelism().map_or(2, usize::from);
        HeavyPool::new(workers, QUEUE_PER_WORKER * workers)
    }

    /// The pool (and every clone of it) with tasks running or waiting per
    /// client worth at most `cap` requests at their largest budgets
    /// ([`Cost::requests`]; `None` or 0: no cap). A task that would take
    /// its client beyond it is refused before it is queued
    /// ([`Refused::ClientAtCap`]). Tasks without a client address are never
    /// capped.
    #[must_use]
    pub fn per_client_cap(self, cap: Option<usize>) -> HeavyPool {
        lock(&self.handle.shared.state).per_client = cap.filter(|&cap| cap > 0);
        self
    }

    /// The cap per client, if any.
    pub fn per_client(&self) -> Option<usize> {
        lock(&self.handle.shared.state).per_client
    }

    /// The pool as one client sees it: its tasks wait in that client's
    /// queue, and count against its cap. `key` is the client's key (its IP
    /// address; the server keys an IPv6 one by its /64 prefix); `None` for
    /// work without one.
    pub fn client(&self, key: Option<IpAddr>) -> PoolClient {
        PoolClient {
            pool: self.clone(),
            client: key,
        }
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        self.handle.shared.workers
    }

    /// The most tasks that wait for a thread.
    pub fn queue(&self) -> usize {
        self.handle.shared.queue
    }

    /// Ordinary tasks accepted and not finished (running or waiting), over
    /// every client.
    pub fn outstanding(&self) -> usize {
        lock(&self.handle.shared.state).outstanding
    }

    /// What the ordinary tasks accepted and not finished cost, over every
    /// client: at most [`Cost::requests`] of the workers and the queue.
    pub fn outstanding_cost(&self) -> Cost {
        lock(&self.handle.shared.state).outstanding_cost
    }

    /// The tasks of the client keyed `key` accepted and not finished
    /// (running or waiting).
    pub fn client_outstanding(&self, key: IpAddr) -> usize {
        lock(&self.handle.shared.state)
            .clients
            .get(&Some(key))
            .map_or(0, |queue| queue.outstanding)
    }

    /// What those tasks cost.
    pub fn client_cost(&self, key: IpAddr) -> Cost {
        lock(&self.handle.shared.state)
            .clients
            .get(&Some(key))
            .map_or(Cost::default(), |queue| queue.cost)
    }

    /// Tasks refused so far because their client was at its cap, or held
    /// a share of a full queue ([`Refused::Crowded`]).
    pub fn refused_per_client(&self) -> u64 {
        lock(&self.handle.shared.state).refused_per_client
    }

    /// Waiting tasks refused so far because a client holding less took
    /// their place in a full pool.
    pub fn displaced(&self) -> u64 {
        lock(&self.handle.shared.state).displaced
    }

    /// Tasks the express thread took so far ([`EXPRESS_COST`]).
    pub fn express(&self) -> u64 {
        lock(&self.handle.shared.state).express
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

    /// Ordinary tasks accepted and waiting for a thread, over every client
    /// (the queue's depth).
    pub fn waiting(&self) -> usize {
        lock(&self.handle.shared.state).waiting
    }

    /// Holds one worker busy until the answer is released (or dropped),
    /// and returns once it is: a pool in a known state, with no clock in
    /// it, for tests and tools.
    ///
    /// # Errors
    /// [`Refused::Busy`] as [`HeavyPool::spawn`].
    pub fn occupy(&self) -> Result<Occupied, Refused> {
        let held = self.hold(None)?;
        held.wait_running();
        Ok(held)
    }

    /// Queues, as a task of the client at `address` (a request at its
    /// largest budget, [`Cost::FULL`]), a task that holds its worker until released (or dropped), and
    /// returns at once: [`Occupied::wait_running`] waits until a worker
    /// takes it. For tests and tools, which decide when work ends rather
    /// than waiting for it.
    ///
    /// # Errors
    /// [`Refused::ClientAtCap`] or [`Refused::Busy`] as [`PoolClient::spawn`].
    pub fn hold(&self, address: Option<IpAddr>) -> Result<Occupied, Refused> {
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let (started, running) = std::sync::mpsc::channel::<()>();
        self.client(address).spawn(Cost::FULL, move || {
            let _ = started.send(());
            // Until a release, or the holder drops its end.
            let _ = gate.recv();
        })?;
        Ok(Occupied { release, running })
    }

    /// Runs `task` on the pool, without waiting for it, as work without a
    /// client address (see [`HeavyPool::client`]) costing [`Cost::FULL`].
    ///
    /// # Errors
    /// [`Refused::Busy`] when every worker is busy and the queue is full;
    /// the task is dropped unrun.
    pub fn spawn(&self, task: impl FnOnce() + Send + 'static) -> Result<(), Refused> {
        self.client(None).spawn(Cost::FULL, task)
    }

    /// Queues `task` (costing `cost`) in `client`'s queue, after checking
    /// the client's cap and then the pool's room, both by cost: in a full
    /// pool a client takes the place of the newest waiting tasks of the
    /// clients that hold the most, as long as each still holds at least as
    /// much as it will (they are refused with [`Refused::Displaced`]); else
    /// a client holding some is refused ([`Refused::Crowded`]), one holding
    /// none is told the pool is busy.
    fn submit(
        &self,
        client: Client,
        cost: Cost,
        task: Task,
        refuse: Option<Refuse>,
    ) -> Result<(), Refused> {
        let shared = &self.handle.shared;
        let mut guard = lock(&shared.state);
        let state = &mut *guard;
        let held = state
            .clients
            .get(&client)
            .map_or(Cost::default(), |queue| queue.cost);
        if let (Some(cap), Some(_)) = (state.per_client, client) {
            if held + cost > Cost::requests(cap) {
                // Not `Busy` (the server's 429, not 503): it still has room
                // for the others,
                // and the remedy is this client's own (wait for its answers
                // before asking for more), as with the rate and the
                // long-poll cap, and counted with them. A 503 would tell a
                // polite client's retry logic, and the operator, that the
                // server is full when it is not.
                state.refused_per_client += 1;
                return Err(Refused::ClientAtCap { held });
            }
        }
        let room = Cost::requests(shared.workers + shared.queue);
        let mut displaced = Vec::new();
        if state.outstanding_cost + cost > room {
            // Work without an address (tools, tests) is no client's, and a
            // pool without a cap per client (a server without limits, whose
            // clients may share one address) counts no client's share:
            // either is refused as the pool's.
            let shares = client.is_some() && state.per_client.is_some();
            let need = state.outstanding_cost + cost - room;
            match state.places_to_take(client, held + cost, need) {
                Some(places) if shares => displaced = state.displace(&places),
                _ if shares && !held.is_zero() => {
                    state.refused_per_client += 1;
                    return Err(Refused::Crowded { held });
                }
                _ => {
                    return Err(Refused::Busy {
                        outstanding: state.outstanding,
                        workers: shared.workers,
                        queue: shared.queue,
                    });
                }
            }
        }
        state.outstanding += 1;
        state.outstanding_cost += cost;
        state.waiting += 1;
        let seq = state.queued;
        state.queued += 1;
        let queue = state.clients.entry(client).or_default();
        let first = queue.outstanding == 0 && client.is_some();
        queue.outstanding += 1;
        queue.cost += cost;
        queue.waiting.push_back(Waiting {
            task,
            cost,
            first,
            seq,
            refuse,
        });
        if queue.waiting.len() == 1 {
            state.turns.push_back(client);
        }
        drop(guard);
        // Every thread looks: the express thread takes only some tasks.
        shared.wake.notify_all();
        // Refused, and their tasks dropped, outside the pool's lock.
        for (waiting, held) in displaced {
            if let Some(refuse) = waiting.refuse {
                refuse(Refused::Displaced { held });
            }
        }
        Ok(())
    }

    /// Runs `task` on the pool and waits (without blocking the caller's
    /// thread) for its answer, as work without a client address (see
    /// [`HeavyPool::client`]) costing [`Cost::FULL`]. By the time the
    /// answer arrives the task is counted out of the pool, so a next
    /// request finds its place free.
    ///
    /// # Errors
    /// [`Refused::Busy`] as [`HeavyPool::spawn`]; [`Refused::Failed`] if
    /// the task panicked.
    pub async fn run<R: Send + 'static>(
        &self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Refused> {
        self.client(None).run(Cost::FULL, task).await
    }

    /// Runs `task` in the urgent lane and waits for its answer: never
    /// refused, and started ahead of the clients' queues (when both wait,
    /// the workers take them in turn, so a stream of urgent tasks cannot
    /// starve the clients). Urgent tasks of different groups are taken in
    /// turn.
    ///
    /// # Errors
    /// [`Refused::Failed`] if the task panicked.
    pub async fn run_urgent<R: Send + 'static>(
        &self,
        group: Group,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Refused> {
        self.push(Lane::Urgent, group, task).await
    }

    /// Runs `task` in the background lane and waits for its answer: never
    /// refused, and started only when no other task waits (work nobody
    /// waits for, such as bots playing on alone, uses only spare threads).
    /// Background tasks of different groups are taken in turn.
    ///
    /// # Errors
    /// [`Refused::Failed`] if the task panicked.
    pub async fn run_background<R: Send + 'static>(
        &self,
        group: Group,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Refused> {
        self.push(Lane::Background, group, task).await
    }

    /// Background tasks accepted and not finished (running or waiting).
    pub fn background_outstanding(&self) -> usize {
        lock(&self.handle.shared.state).background_outstanding
    }

    /// Queues `task` in a lane that never refuses, and waits for its answer.
    async fn push<R: Send + 'static>(
        &self,
        lane: Lane,
        group: Group,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Refused> {
        let (task, _, answer) = answering(task);
        let shared = &self.handle.shared;
        {
            let mut state = lock(&shared.state);
            if lane == Lane::Background {
                state.background_outstanding += 1;
                state.background.push(group, task);
            } else {
                state.urgent_outstanding += 1;
                state.urgent.push(group, task);
            }
        }
        shared.wake.notify_all();
        answer.await
    }
}

/// The heavy-work pool as one client sees it ([`HeavyPool::client`]): its
/// tasks wait in the client's own queue, served in turn with the other
/// clients', and count against its cap.
#[derive(Clone, Debug)]
pub struct PoolClient {
    pool: HeavyPool,
    client: Client,
}

impl PoolClient {
    /// The client's key (its IP address, an IPv6 one by its /64 prefix),
    /// if it has one.
    pub fn key(&self) -> Option<IpAddr> {
        self.client
    }

    /// Whether its pool counts a share per client (a cap per client is
    /// set): without one, clients may share one address, and nothing may
    /// be kept per address.
    pub fn capped(&self) -> bool {
        self.pool.per_client().is_some()
    }

    /// Runs `task` (costing `cost`) on the pool for this client, without
    /// waiting for it; its cost counts against the client's cap until it
    /// finishes. Such a task keeps its place in a full pool (nobody awaits
    /// its answer to hear a refusal).
    ///
    /// # Errors
    /// [`Refused::ClientAtCap`] when the client's tasks running or waiting
    /// and this one would cost more than its cap; in a full pool
    /// [`Refused::Crowded`] when the client holds some of it and no client
    /// holding more can give its place, [`Refused::Busy`] when it holds
    /// none. The task is dropped unrun.
    pub fn spawn(&self, cost: Cost, task: impl FnOnce() + Send + 'static) -> Result<(), Refused> {
        self.pool.submit(
            self.client,
            cost,
            Box::new(move || {
                task();
                Box::new(|| {})
            }),
            None,
        )
    }

    /// Runs `task` (costing `cost`) on the pool for this client and waits
    /// (without blocking the caller's thread) for its answer. By the time
    /// the answer arrives the task is counted out of the pool, so a next
    /// request finds its place free. While it waits, a client holding less
    /// may take its place in a full pool ([`Refused::Displaced`]).
    ///
    /// # Errors
    /// As [`PoolClient::spawn`]; [`Refused::Displaced`]; [`Refused::Failed`]
    /// if the task panicked.
    pub async fn run<R: Send + 'static>(
        &self,
        cost: Cost,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Refused> {
        let (task, refuse, answer) = answering(task);
        self.pool.submit(self.client, cost, task, Some(refuse))?;
        answer.await
    }
}

impl State {
    /// The waiting tasks whose places `client` takes to free `need` of a
    /// full pool, holding `after` once its task is in: the newest waiting
    /// task (that may give its place) of the client holding the most, then
    /// again, as long as each client giving a place still holds at least
    /// `after` without it (never a question for a question). Among clients
    /// holding as much, the one whose such task came last gives first.
    /// `None` when the places cannot be found.
    fn places_to_take(
        &self,
        client: Client,
        after: Cost,
        need: Cost,
    ) -> Option<Vec<(Client, u64)>> {
        // Each candidate's holding and places already taken, as the plan
        // goes; and the candidates that can give no more.
        let mut given: HashMap<Client, (Cost, usize)> = HashMap::new();
        let mut spent: Vec<Client> = Vec::new();
        let mut places = Vec::new();
        let mut freed = Cost::default();
        while freed < need {
            let (held, _, victim, cost) = self
                .clients
                .iter()
                .filter(|(other, _)| other.is_some() && **other != client && !spent.contains(other))
                .filter_map(|(other, queue)| {
                    let (held, taken) = given.get(other).copied().unwrap_or((queue.cost, 0));
                    let next = queue
                        .waiting
                        .iter()
                        .rev()
                        .filter(|w| w.refuse.is_some())
                        .nth(taken)?;
                    Some((held, next.seq, *other, next.cost))
                })
                .max()?;
            if held - cost < after {
                // It would hold less than the newcomer: the next one.
                spent.push(victim);
                continue;
            }
            let entry = given.entry(victim).or_insert((held, 0));
            let seq = self.clients[&victim]
                .waiting
                .iter()
                .rev()
                .filter(|w| w.refuse.is_some())
                .nth(entry.1)
                .map(|w| w.seq)?;
            *entry = (held - cost, entry.1 + 1);
            places.push((victim, seq));
            freed += cost;
        }
        Some(places)
    }

    /// Takes out the waiting tasks at `places` (client and `seq`), counted
    /// out, each with what its client holds left: the caller refuses them
    /// ([`Refused::Displaced`]) once the lock is let go.
    fn displace(&mut self, places: &[(Client, u64)]) -> Vec<(Waiting, Cost)> {
        let mut displaced = Vec::with_capacity(places.len());
        for &(client, seq) in places {
            let Some(queue) = self.clients.get_mut(&client) else {
                continue;
            };
            let Some(at) = queue.waiting.iter().position(|w| w.seq == seq) else {
                continue;
            };
            let waiting = queue.waiting.remove(at).expect("found above");
            queue.outstanding -= 1;
            queue.cost -= waiting.cost;
            let held = queue.cost;
            let idle = queue.outstanding == 0;
            let empty = queue.waiting.is_empty();
            if idle {
                self.clients.remove(&client);
            }
            if empty {
                self.turns.retain(|c| *c != client);
            }
            self.outstanding -= 1;
            self.outstanding_cost -= waiting.cost;
            self.waiting -= 1;
            self.displaced += 1;
            displaced.push((waiting, held));
        }
        displaced
    }

    /// Tasks accepted and not finished, in every lane.
    fn all_outstanding(&self) -> usize {
        self.outstanding + self.urgent_outstanding + self.background_outstanding
    }

    /// The next task to run, and its lane: urgent first, unless the last
    /// task taken was urgent and a client's task waits (the two take
    /// turns); then the oldest task of the client whose turn it is;
    /// background only when nothing else waits.
    fn next(&mut self) -> Option<(Task, Lane)> {
        // Of the clients that may run one more task now, the first in turn
        // that holds one task only, asked when it held no other (a question
        // asked alone), else the first in turn: a client with one question
        // goes ahead of every backlog, however many clients have one.
        let may_run = |client: &Client| {
            self.clients
                .get(client)
                .is_some_and(|queue| client.is_none() || queue.running < self.running_per_client)
        };
        let holds_one = |client: &Client| {
            self.clients.get(client).is_some_and(|queue| {
                queue.outstanding == 1 && queue.waiting.front().is_some_and(|w| w.first)
            })
        };
        let alone = self
            .turns
            .iter()
            .position(|client| may_run(client) && holds_one(client));
        let backlog = self
            .turns
            .iter()
            .position(|client| may_run(client) && !holds_one(client));
        // A stream of questions asked alone cannot starve the backlogs:
        // after ALONE_IN_A_ROW of them, one backlog's turn.
        let ready = match (alone, backlog) {
            (Some(_), Some(turn)) if self.alone_in_a_row >= ALONE_IN_A_ROW => Some(turn),
            (Some(at), _) => Some(at),
            (None, turn) => turn,
        };
        let urgent = !self.urgent.is_empty() && (!self.last_urgent || ready.is_none());
        if !urgent && ready.is_some() {
            self.alone_in_a_row = match (ready == alone, backlog) {
                (true, Some(_)) => self.alone_in_a_row + 1,
                _ => 0,
            };
        }
        let (task, lane) = if urgent {
            (self.urgent.pop()?, Lane::Urgent)
        } else if let Some(taken) = ready.and_then(|at| self.take_turn(at, false)) {
            taken
        } else {
            (self.background.pop()?, Lane::Background)
        };
        self.last_urgent = lane == Lane::Urgent;
        Some((task, lane))
    }

    /// The next task for the express thread: the oldest waiting task of
    /// the first client in turn whose tasks (running and waiting) cost at
    /// most [`EXPRESS_COST`] in all (a short question, or two); nothing
    /// else.
    fn next_express(&mut self) -> Option<(Task, Lane)> {
        let at = self.turns.iter().position(|client| {
            client.is_some()
                && self
                    .clients
                    .get(client)
                    .is_some_and(|queue| queue.cost <= EXPRESS_COST && !queue.waiting.is_empty())
        })?;
        let taken = self.take_turn(at, true)?;
        self.express += 1;
        Some(taken)
    }

    /// Takes the oldest waiting task of the client at `at` in turn, counted
    /// running on the workers unless it runs on the `express` thread (which
    /// is no worker: the client's share of the workers stays whole); the
    /// client goes to the back of the turns if it has more waiting.
    fn take_turn(&mut self, at: usize, express: bool) -> Option<(Task, Lane)> {
        let client = self.turns.remove(at)?;
        let queue = self
            .clients
            .get_mut(&client)
            .expect("a client in turn has a queue");
        queue.running += usize::from(!express);
        let Waiting { task, cost, .. } = queue
            .waiting
            .pop_front()
            .expect("a client in turn has a task waiting");
        if !queue.waiting.is_empty() {
            self.turns.push_back(client);
        }
        self.waiting -= 1;
        Some((
            task,
            Lane::Ordinary {
                client,
                cost,
                express,
            },
        ))
    }

    /// Counts a finished task out of its lane (and its client).
    fn finished(&mut self, lane: Lane) {
        match lane {
            Lane::Ordinary {
                client,
                cost,
                express,
            } => {
                self.outstanding -= 1;
                self.outstanding_cost -= cost;
                if let Entry::Occupied(mut entry) = self.clients.entry(client) {
                    let queue = entry.get_mut();
                    queue.outstanding -= 1;
                    queue.running -= usize::from(!express);
                    queue.cost -= cost;
                    // Forgotten once idle: the table is as small as the set
                    // of clients with work in the pool.
                    if queue.outstanding == 0 {
                        entry.remove();
                    }
                }
            }
            Lane::Urgent => self.urgent_outstanding -= 1,
            Lane::Background => self.background_outstanding -= 1,
        }
    }
}

/// A worker held by [`HeavyPool::occupy`] or [`HeavyPool::hold`]; released
/// by [`Occupied::release`] or when dropped.
#[derive(Debug)]
pub struct Occupied {
    release: std::sync::mpsc::Sender<()>,
    running: std::sync::mpsc::Receiver<()>,
}

impl Occupied {
    /// Blocks until a worker runs the held task (at once after
    /// [`HeavyPool::occupy`]; never if the pool closes first).
    pub fn wait_running(&self) {
        let _ = self.running.recv();
    }

    /// Lets the held worker go.
    pub fn release(self) {
        let _ = self.release.send(());
    }
}

/// `task` as the pool runs it, what refuses it if its place is given away,
/// and the answer its requester awaits: the task's value, the refusal, or
/// [`Refused::Failed`] if it panicked.
fn answering<R: Send + 'static>(
    task: impl FnOnce() -> R + Send + 'static,
) -> (Task, Refuse, impl Future<Output = Result<R, Refused>>) {
    let (sender, receiver) = tokio::sync::oneshot::channel::<Result<R, Refused>>();
    // Whoever answers first (the task, or its refusal) takes the sender.
    let sender = Arc::new(Mutex::new(Some(sender)));
    let refused = Arc::clone(&sender);
    let task: Task = Box::new(move || {
        // Caught here, so the sender outlives a panic until delivery: the
        // requester hears of the failure after the count drops too.
        let answer = std::panic::catch_unwind(AssertUnwindSafe(task));
        Box::new(move || {
            let sender = sender.lock().unwrap_or_else(PoisonError::into_inner).take();
            match (answer, sender) {
                // The requester may have gone away: nobody to tell.
                (Ok(answer), Some(sender)) => drop(sender.send(Ok(answer))),
                (Ok(_), None) => {}
                (Err(_), sender) => {
                    tracing::error!("a heavy task panicked");
                    drop(sender);
                }
            }
        })
    });
    let refuse: Refuse = Box::new(move |why| {
        let sender = refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(sender) = sender {
            let _ = sender.send(Err(why));
        }
    });
    let answer = async move {
        match receiver.await {
            Ok(answer) => answer,
            Err(_) => Err(Refused::Failed),
        }
    };
    (task, refuse, answer)
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

/// A worker: takes the tasks `next` gives it, one by one, until the pool
/// closes.
fn work(shared: &Shared, next: fn(&mut State) -> Option<(Task, Lane)>) {
    loop {
        let (task, lane) = {
            let mut state = lock(&shared.state);
            loop {
                if state.closed {
                    return;
                }
                if let Some(next) = next(&mut state) {
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
            state.finished(lane);
            if state.all_outstanding() == 0 {
                shared.idle.notify_all();
            }
        }
        // A finish may let another thread take a task it could not take
        // (a client below its share of the workers again, or holding only
        // short work now): each looks.
        shared.wake.notify_all();
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
        assert!(matches!(refused, Refused::Busy { .. }), "{refused:?}");
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
        let answer = runtime().block_on(async {
            let failed = pool.run(|| panic!("on purpose")).await.unwrap_err();
            assert_eq!(failed, Refused::Failed);
            pool.run(|| 7).await
        });
        assert_eq!(answer.unwrap(), 7);
    }

    #[test]
    fn an_answer_arrives_after_its_task_is_counted_out() {
        // One worker and no queue: each run is accepted only if the one
        // before it freed its place before its answer came.
        let pool = HeavyPool::new(1, 0);
        let answers = runtime().block_on(async {
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
        assert!(matches!(
            pool.spawn(|| {}).unwrap_err(),
            Refused::Busy { .. }
        ));
        let urgent = pool.clone();
        let waiter = std::thread::spawn(move || {
            runtime().block_on(urgent.run_urgent(Group::Match(1), move || {
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
                    runtime().block_on(
                        pool.run_urgent(Group::Match(1), move || order.send("urgent").unwrap()),
                    )
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
                runtime().block_on(
                    pool.run_background(Group::Match(1), move || order.send("background").unwrap()),
                )
            })
        };
        while pool.background_outstanding() == 0 {
            std::thread::yield_now();
        }
        let urgent = {
            let (pool, order) = (pool.clone(), order.clone());
            std::thread::spawn(move || {
                runtime().block_on(
                    pool.run_urgent(Group::Match(1), move || order.send("urgent").unwrap()),
                )
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

    // In the urgent and background lanes the groups take turns: a
    // tournament with many games waiting delays another's one game by one
    // of its tasks, not by all of them.
    #[test]
    fn groups_take_turns_in_the_bot_lanes() {
        for background in [false, true] {
            let pool = HeavyPool::new(1, 1);
            let held = pool.occupy().unwrap();
            let (order, ran) = mpsc::channel::<String>();
            let queue = |group: Group, name: String| {
                let (pool, order) = (pool.clone(), order.clone());
                let task = move || order.send(name).unwrap();
                std::thread::spawn(move || {
                    let system = runtime();
                    if background {
                        system.block_on(pool.run_background(group, task))
                    } else {
                        system.block_on(pool.run_urgent(group, task))
                    }
                })
            };
            let outstanding = |pool: &HeavyPool| {
                if background {
                    pool.background_outstanding()
                } else {
                    pool.urgent_outstanding()
                }
            };
            let mut waiters = Vec::new();
            for game in 0..6 {
                waiters.push(queue(Group::Tournament(1), format!("big {game}")));
                while outstanding(&pool) < game + 1 {
                    std::thread::yield_now();
                }
            }
            waiters.push(queue(Group::Tournament(2), "neighbour".to_owned()));
            while outstanding(&pool) < 7 {
                std::thread::yield_now();
            }
            waiters.push(queue(Group::Match(9), "match".to_owned()));
            while outstanding(&pool) < 8 {
                std::thread::yield_now();
            }
            held.release();
            for waiter in waiters {
                waiter.join().unwrap().unwrap();
            }
            let seen: Vec<String> = (0..8).map(|_| ran.recv().unwrap()).collect();
            assert_eq!(
                seen[..4],
                ["big 0", "neighbour", "match", "big 1"],
                "background lane: {background}"
            );
            assert_eq!(seen[4..], ["big 2", "big 3", "big 4", "big 5"]);
        }
    }

    // With two threads a client runs one task at a time: while its first
    // runs, another client's task takes the free thread before the first
    // client's second, which waits for its first to end.
    #[test]
    fn a_client_leaves_a_thread_for_the_others() {
        assert_eq!(running_per_client(1), 1);
        assert_eq!(running_per_client(2), 1);
        assert_eq!(running_per_client(4), 3);
        let pool = HeavyPool::new(2, 4);
        let first = pool.client(ip("10.0.0.1"));
        let (release, released) = mpsc::channel::<()>();
        let (started, seen) = mpsc::channel::<&str>();
        let tell = started.clone();
        first
            .spawn(Cost::FULL, move || {
                tell.send("first 1").unwrap();
                released.recv().unwrap();
            })
            .unwrap();
        assert_eq!(seen.recv().unwrap(), "first 1");
        let tell = started.clone();
        first
            .spawn(Cost::FULL, move || tell.send("first 2").unwrap())
            .unwrap();
        let other = pool.client(ip("10.0.0.2"));
        other
            .spawn(Cost::FULL, move || started.send("other").unwrap())
            .unwrap();
        assert_eq!(seen.recv().unwrap(), "other");
        release.send(()).unwrap();
        assert_eq!(seen.recv().unwrap(), "first 2");
        pool.wait_until_idle();
        assert_eq!(pool.outstanding(), 0);
    }

    /// A runtime for the awaiting side of a test.
    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    // Each client's tasks wait in a queue of their own; the worker takes
    // the questions asked alone first, then the backlogs in turn.
    #[test]
    fn questions_asked_alone_go_first_then_backlogs_in_turn() {
        let pool = HeavyPool::new(1, 10);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<String>();
        for (address, tasks) in [("10.0.0.1", 3), ("10.0.0.2", 2), ("10.0.0.3", 1)] {
            let client = pool.client(ip(address));
            for n in 1..=tasks {
                let order = order.clone();
                let name = format!("{}{n}", &address[7..]);
                client
                    .spawn(Cost::FULL, move || order.send(name).unwrap())
                    .unwrap();
            }
        }
        assert_eq!((pool.waiting(), pool.outstanding()), (6, 7));
        assert_eq!(pool.client_outstanding(ip("10.0.0.1").unwrap()), 3);
        held.release();
        let seen: Vec<String> = (0..6).map(|_| ran.recv().unwrap()).collect();
        // 3's one question first, then the backlogs in turn.
        assert_eq!(seen, ["31", "11", "21", "12", "22", "13"]);
        pool.wait_until_idle();
        // Forgotten once idle.
        assert_eq!(pool.client_outstanding(ip("10.0.0.1").unwrap()), 0);
        assert!(lock(&pool.handle.shared.state).clients.is_empty());
    }

    // A client that joins later with one task is served ahead of a
    // client's backlog, however long.
    #[test]
    fn a_newcomer_goes_ahead_of_a_backlog() {
        let pool = HeavyPool::new(1, 10);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<&str>();
        let flood = pool.client(ip("10.0.0.1"));
        for _ in 0..5 {
            let order = order.clone();
            flood
                .spawn(Cost::FULL, move || order.send("flood").unwrap())
                .unwrap();
        }
        pool.client(ip("10.0.0.2"))
            .spawn(Cost::FULL, move || order.send("polite").unwrap())
            .unwrap();
        held.release();
        let seen: Vec<&str> = (0..6).map(|_| ran.recv().unwrap()).collect();
        assert_eq!(
            seen,
            ["polite", "flood", "flood", "flood", "flood", "flood"]
        );
    }

    // A polite client's one question goes ahead of every backlog, however
    // many clients hold one.
    #[test]
    fn one_question_goes_ahead_of_many_backlogs() {
        let pool = HeavyPool::new(1, 20);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<String>();
        for flooder in 1..=3 {
            let client = pool.client(ip(&format!("10.0.0.{flooder}")));
            for n in 0..4 {
                let order = order.clone();
                let name = format!("flood {flooder}.{n}");
                client
                    .spawn(Cost::FULL, move || order.send(name).unwrap())
                    .unwrap();
            }
        }
        pool.client(ip("10.0.0.9"))
            .spawn(Cost::FULL, move || order.send("polite".to_owned()).unwrap())
            .unwrap();
        held.release();
        let seen: Vec<String> = (0..13).map(|_| ran.recv().unwrap()).collect();
        assert_eq!(seen[0], "polite");
        assert_eq!(seen[1..4], ["flood 1.0", "flood 2.0", "flood 3.0"]);
    }

    // Equal clients take turns: two flooders at their cap of two alternate.
    #[test]
    fn equal_clients_take_turns() {
        let pool = HeavyPool::new(1, 10);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<&str>();
        for _ in 0..2 {
            for name in ["a", "b"] {
                let order = order.clone();
                pool.client(ip(if name == "a" { "10.0.0.1" } else { "10.0.0.2" }))
                    .spawn(Cost::FULL, move || order.send(name).unwrap())
                    .unwrap();
            }
        }
        held.release();
        let seen: Vec<&str> = (0..4).map(|_| ran.recv().unwrap()).collect();
        assert_eq!(seen, ["a", "b", "a", "b"]);
    }

    /// Queues a task of `client` that answers `name` once it runs, from a
    /// thread of its own (its requester awaits the answer); waits until
    /// the pool holds it.
    fn asked(
        pool: &HeavyPool,
        client: &str,
        name: &'static str,
    ) -> std::thread::JoinHandle<Result<&'static str, Refused>> {
        asked_at(pool, client, Cost::FULL, name)
    }

    /// [`asked`] at `cost`.
    fn asked_at(
        pool: &HeavyPool,
        client: &str,
        cost: Cost,
        name: &'static str,
    ) -> std::thread::JoinHandle<Result<&'static str, Refused>> {
        let before = pool.outstanding();
        let displaced = pool.displaced();
        let client = pool.client(ip(client));
        let waiter = std::thread::spawn(move || runtime().block_on(client.run(cost, move || name)));
        while pool.outstanding() == before && pool.displaced() == displaced {
            std::thread::yield_now();
        }
        waiter
    }

    // Questions asked alone go first, but a stream of them lets a backlog
    // through now and then: after ALONE_IN_A_ROW, one backlog task.
    #[test]
    fn many_questions_asked_alone_do_not_starve_a_backlog() {
        let pool = HeavyPool::new(1, 20);
        let held = pool.occupy().unwrap();
        let (order, ran) = mpsc::channel::<String>();
        let page = pool.client(ip("10.0.0.100"));
        for n in 0..2 {
            let order = order.clone();
            page.spawn(Cost::FULL, move || order.send(format!("page {n}")).unwrap())
                .unwrap();
        }
        for student in 0..12 {
            let order = order.clone();
            pool.client(ip(&format!("10.0.1.{student}")))
                .spawn(Cost::FULL, move || {
                    order.send(format!("student {student}")).unwrap()
                })
                .unwrap();
        }
        held.release();
        let seen: Vec<String> = (0..14).map(|_| ran.recv().unwrap()).collect();
        assert_eq!(seen[ALONE_IN_A_ROW], "page 0", "{seen:?}");
        assert!(
            seen[..ALONE_IN_A_ROW]
                .iter()
                .all(|s| s.starts_with("student"))
        );
        assert_eq!(seen[13], "page 1", "{seen:?}");
        pool.wait_until_idle();
    }

    // In a full pool a client holding no task takes the place of the newest
    // waiting task of the client holding the most, which is refused (429);
    // one holding some is refused itself (429), never answered 503.
    #[test]
    fn in_a_full_pool_the_refusals_fall_on_those_holding_the_backlog() {
        let pool = HeavyPool::new(1, 3).per_client_cap(Some(3));
        let held = pool.occupy().unwrap();
        // Three waiting: full. The flooder holds two, its neighbour one.
        let first = asked(&pool, "10.0.0.1", "flood 1");
        let second = asked(&pool, "10.0.0.1", "flood 2");
        let neighbour = asked(&pool, "10.0.0.2", "neighbour");
        assert_eq!(pool.outstanding(), 4);
        // The neighbour asks again: it holds one, the flooder only one
        // more: refused, 429.
        let again = pool
            .client(ip("10.0.0.2"))
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert_eq!(again, Refused::Crowded { held: Cost::FULL });
        // A polite client with none: taken, in the place of the flooder's
        // newest.
        let polite = asked(&pool, "10.0.0.3", "polite");
        assert_eq!(pool.displaced(), 1);
        assert_eq!(
            second.join().unwrap(),
            Err(Refused::Displaced { held: Cost::FULL })
        );
        held.release();
        assert_eq!(polite.join().unwrap(), Ok("polite"));
        assert_eq!(first.join().unwrap(), Ok("flood 1"));
        assert_eq!(neighbour.join().unwrap(), Ok("neighbour"));
        pool.wait_until_idle();
        assert_eq!(pool.outstanding(), 0);
    }

    // The cap is on what a client's tasks running and waiting cost, and is
    // checked before the task is queued: beyond it 429, while other
    // clients and work without an address are still taken, and pictures
    // fill what is left of the client's share.
    #[test]
    fn a_client_at_its_cap_is_refused_with_429_and_the_others_are_not() {
        let pool = HeavyPool::new(1, 10).per_client_cap(Some(2));
        assert_eq!(pool.per_client(), Some(2));
        let greedy = ip("10.0.0.1");
        // One running at its cap's cost, one waiting at half of it.
        let held = pool.hold(greedy).unwrap();
        held.wait_running();
        let (done, finished) = mpsc::channel::<String>();
        let second = done.clone();
        pool.client(greedy)
            .spawn(Cost::share(1, 2), move || {
                second.send("second".into()).unwrap()
            })
            .unwrap();
        assert_eq!(pool.client_cost(greedy.unwrap()).units(), 1500);
        let refused = pool.client(greedy).spawn(Cost::FULL, || {}).unwrap_err();
        assert_eq!(
            refused,
            Refused::ClientAtCap {
                held: Cost::FULL + Cost::share(1, 2)
            }
        );
        assert!(
            refused.to_string().contains("worth 1.5 requests at"),
            "{refused}"
        );
        assert_eq!(pool.refused_per_client(), 1);
        assert_eq!(pool.client_outstanding(greedy.unwrap()), 2);
        // (The server keys an IPv6 client by its /64: see its extractor.)
        // Another client, and work without an address, are not capped.
        for _ in 0..3 {
            pool.spawn(|| {}).unwrap();
        }
        pool.client(ip("10.0.0.2"))
            .spawn(Cost::FULL, || {})
            .unwrap();
        // Pictures (a thousandth each) fill the rest of its share: 500
        // are taken, the next is refused.
        for n in 0..500 {
            let done = done.clone();
            pool.client(greedy)
                .spawn(Cost::LEAST, move || {
                    done.send(format!("picture {n}")).unwrap()
                })
                .unwrap();
        }
        assert_eq!(pool.client_cost(greedy.unwrap()), Cost::requests(2));
        let picture = pool.client(greedy).spawn(Cost::LEAST, || {}).unwrap_err();
        assert!(
            matches!(picture, Refused::ClientAtCap { .. }),
            "{picture:?}"
        );
        held.release();
        assert_eq!(finished.recv().unwrap(), "second");
        assert_eq!(finished.recv().unwrap(), "picture 0");
        pool.wait_until_idle();
        assert_eq!(finished.try_iter().count(), 499);
        assert_eq!(pool.outstanding_cost(), Cost::default());
        // Its tasks finished, the client is taken again.
        pool.client(greedy)
            .spawn(Cost::FULL, move || done.send("again".into()).unwrap())
            .unwrap();
        assert_eq!(finished.recv().unwrap(), "again");
    }

    // The pool is bounded by cost: cheap tasks fill it only by the
    // thousand, and a client holding none takes the places of as many of
    // another's newest cheap tasks as its one costly task needs, leaving
    // that client holding as much as it.
    #[test]
    fn a_full_pool_gives_a_costly_question_the_places_of_many_cheap_tasks() {
        let pool = HeavyPool::new(1, 2).per_client_cap(Some(3));
        let held = pool.occupy().unwrap();
        let tenth = Cost::share(1, 10);
        // Twenty tenths from one address: the pool (three requests'
        // worth) is full.
        let burst: Vec<_> = (0..20)
            .map(|_| asked_at(&pool, "10.0.0.1", tenth, "burst"))
            .collect();
        assert_eq!(pool.outstanding_cost(), Cost::requests(3));
        assert_eq!(pool.outstanding(), 21);
        // A polite question at the full cost: ten tenths give their places
        // (the newest), and the burst still holds one request's worth.
        let polite = asked_at(&pool, "10.0.0.2", Cost::FULL, "polite");
        assert_eq!(pool.displaced(), 10);
        assert_eq!(pool.client_cost(ip("10.0.0.1").unwrap()), Cost::FULL);
        assert_eq!(pool.outstanding_cost(), Cost::requests(3));
        // One more question from a third address finds no place that
        // leaves the giver holding as much: 503.
        let busy = pool
            .client(ip("10.0.0.3"))
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert!(matches!(busy, Refused::Busy { .. }), "{busy:?}");
        held.release();
        assert_eq!(polite.join().unwrap(), Ok("polite"));
        let answers: Vec<_> = burst.into_iter().map(|b| b.join().unwrap()).collect();
        assert!(
            answers[..10].iter().all(|a| *a == Ok("burst")),
            "{answers:?}"
        );
        for displaced in &answers[10..] {
            let Err(Refused::Displaced { held }) = displaced else {
                panic!("{displaced:?}");
            };
            assert!(*held >= Cost::FULL, "{held:?}");
        }
        pool.wait_until_idle();
        assert_eq!(pool.outstanding_cost(), Cost::default());
    }

    #[test]
    fn costs_are_shares_of_a_request_at_its_largest_budget() {
        assert_eq!(Cost::share(400_000, 400_000), Cost::FULL);
        assert_eq!(Cost::share(0, 400_000), Cost::LEAST);
        assert_eq!(Cost::share(1, 3).units(), 334);
        assert_eq!(Cost::share(u64::MAX, 1), Cost::FULL);
        assert_eq!(Cost::share(7, 0), Cost::FULL);
        assert_eq!(Cost::requests(10).units(), 10_000);
        assert_eq!(Cost::requests(2).to_string(), "2 requests");
        assert_eq!(Cost::share(3, 2).to_string(), "1 request");
        assert_eq!((Cost::FULL + Cost::share(1, 2)).to_string(), "1.5 requests");
        assert_eq!(Cost::LEAST.to_string(), "0.001 requests");
        assert_eq!((Cost::LEAST - Cost::FULL), Cost::default());
    }

    // A client at its cap hears 429 (its own doing) even when the pool is
    // full too; another client then hears 503 (the server's).
    #[test]
    fn the_cap_is_checked_before_the_room_in_the_pool() {
        let pool = HeavyPool::new(1, 1).per_client_cap(Some(1));
        let held = pool.hold(ip("10.0.0.1")).unwrap();
        held.wait_running();
        pool.client(ip("10.0.0.2"))
            .spawn(Cost::FULL, || {})
            .unwrap();
        let capped = pool
            .client(ip("10.0.0.1"))
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert!(matches!(capped, Refused::ClientAtCap { .. }));
        let busy = pool
            .client(ip("10.0.0.3"))
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert!(matches!(busy, Refused::Busy { .. }), "{busy:?}");
        // No cap (0 is none): the same client is refused only by the pool.
        let uncapped = HeavyPool::new(1, 1).per_client_cap(Some(0));
        assert_eq!(uncapped.per_client(), None);
        let held_too = uncapped.hold(ip("10.0.0.1")).unwrap();
        uncapped
            .client(ip("10.0.0.1"))
            .spawn(Cost::FULL, || {})
            .unwrap();
        // No cap, no share counted (a server without limits cannot tell
        // its clients apart): the pool's own refusal.
        let full = uncapped
            .client(ip("10.0.0.1"))
            .spawn(Cost::FULL, || {})
            .unwrap_err();
        assert!(matches!(full, Refused::Busy { .. }), "{full:?}");
        held.release();
        held_too.release();
    }

    // A cheap question is answered while the worker is held by a long
    // task: the express thread takes it. A costlier one, or a cheap one of
    // a client that holds costly work too, waits for the worker.
    #[test]
    fn a_cheap_question_asked_alone_does_not_wait_for_long_tasks() {
        let pool = HeavyPool::new(1, 10).per_client_cap(Some(4));
        let held = pool.hold(ip("10.0.0.1")).unwrap();
        held.wait_running();
        let cheap = pool.client(ip("10.0.0.2"));
        let answer = runtime().block_on(cheap.run(EXPRESS_COST, || "cheap"));
        assert_eq!(answer, Ok("cheap"));
        assert_eq!(pool.express(), 1);
        // Two short ones of one client, asked together: both taken.
        let (first, second) = runtime().block_on(async {
            let ask = |name: &'static str| {
                let cheap = cheap.clone();
                tokio::spawn(async move { cheap.run(Cost::LEAST, move || name).await })
            };
            let (first, second) = (ask("first"), ask("second"));
            (first.await.unwrap(), second.await.unwrap())
        });
        assert_eq!((first, second), (Ok("first"), Ok("second")));
        assert_eq!(pool.express(), 3);
        let costly = asked_at(&pool, "10.0.0.3", EXPRESS_COST + Cost::LEAST, "costly");
        let backlog = asked_at(&pool, "10.0.0.1", Cost::LEAST, "backlog");
        assert_eq!(pool.waiting(), 2);
        held.release();
        assert_eq!(costly.join().unwrap(), Ok("costly"));
        assert_eq!(backlog.join().unwrap(), Ok("backlog"));
        // Once its long task ended, the backlog's client held only short
        // work: the express thread or the worker took it, whichever was
        // first.
        assert!(pool.express() >= 3);
        pool.wait_until_idle();
    }

    // A client holding the most that cannot give a place and still hold as
    // much as the newcomer is passed over for the next one that can.
    #[test]
    fn a_full_pool_looks_past_a_holder_that_cannot_give() {
        let pool = HeavyPool::new(1, 2).per_client_cap(Some(3));
        let held = pool.occupy().unwrap();
        let one = asked_at(&pool, "10.0.0.1", Cost::FULL, "one");
        let small = Cost::share(9, 100);
        let many: Vec<_> = (0..10)
            .map(|_| asked_at(&pool, "10.0.0.2", small, "many"))
            .collect();
        assert_eq!(pool.outstanding_cost().units(), 2900);
        // Two tenths: 10.0.0.1, holding the most, would hold nothing
        // after giving its one place; 10.0.0.2 gives two of its newest.
        let newcomer = asked_at(&pool, "10.0.0.3", Cost::share(2, 10), "newcomer");
        assert_eq!(pool.displaced(), 2);
        assert_eq!(pool.client_cost(ip("10.0.0.1").unwrap()), Cost::FULL);
        held.release();
        assert_eq!(one.join().unwrap(), Ok("one"));
        assert_eq!(newcomer.join().unwrap(), Ok("newcomer"));
        let answers: Vec<_> = many.into_iter().map(|m| m.join().unwrap()).collect();
        assert_eq!(
            answers.iter().filter(|a| a.is_err()).count(),
            2,
            "{answers:?}"
        );
        assert!(
            answers[8..]
                .iter()
                .all(|a| matches!(a, Err(Refused::Displaced { .. })))
        );
        pool.wait_until_idle();
    }
}
