//! The tournament director: one background task per server that runs
//! every tournament.
//!
//! It hears of every committed change of a match by subscribing to the
//! store's events ([`Store::events`]), and of every change of a
//! tournament's status from the routes that make it
//! ([`Tournaments::tournament_changed`]). For a
//! tournament game it then reads the new moves and sends them as events,
//! notices the end of the game, and starts the next games whose entrants
//! are free ([`logic::start_ready_games`]); the built-in bots of every game
//! are played by the same runner as any match's (on the heavy-work pool).
//!
//! **Deadlines.** When an open entrant is to move, the director gives it
//! the tournament's `move_ms` from the moment it sees the turn (just after
//! the commit). When the time is up it searches the greedy bot's move on
//! the heavy-work pool's urgent lane and stores it with a timeout, or, at
//! the entrant's `max_timeouts`-th timeout in that game, forfeits the game
//! for it ([`logic::record_timeout`]); a move that came first wins (the
//! write checks the match's version). The timeouts are stored, so they
//! count after a restart; at a start the director follows every game
//! under way again and gives each waiting entrant a full `move_ms` from
//! then (it could not move while the server was down).
//!
//! **Several replicas** (PostgreSQL). Every replica runs a director, told
//! of the other replicas' commits through the [`sternhalma_store::bus::Bus`], so each
//! one's long-polls and event streams see every game. Starting games is a
//! write that locks the tournament's row: the replicas take turns, and a
//! game starts once (the others then find it started and follow it). Every
//! replica gives a waiting entrant its deadline; the first to store the
//! timeout wins, the others find the match's version changed and drop
//! theirs. Bot moves are played by the replica whose request or schedule
//! kicked them; a game that stands still with a bot to move (its replica
//! died mid-search) is kicked again by the others after 10 s (`STALL`).
//!
//! **Waiters.** The [`Hub`] holds what requests wait on: a change counter
//! per tournament (the entrants' long-poll) and an event stream per
//! tournament (the SSE route), and the current deadlines.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc, watch};

use crate::runner::BotRunner;
use sternhalma_http::error::ApiError;
use sternhalma_http::heavy::HeavyPool;
use sternhalma_store::bus::{Bus, Change};
use sternhalma_store::matches::dto::MatchStatus;
use sternhalma_store::store::{Event, Store};
use sternhalma_store::tournaments::dto::{EventSeat, TournamentEvent};
use sternhalma_store::tournaments::logic::{self, Tracked};

/// Events kept for a slow SSE reader before it is told it lagged.
const EVENT_BUFFER: usize = 1024;

/// With several replicas: how long a followed game may stand still before
/// this replica kicks its bots itself (the replica playing them may have
/// died). Only a liveness bound: whichever replica stores a bot's move
/// first, the move is the same (bots are seeded and count their work in
/// nodes), and the other's is dropped by the version check.
const STALL: Duration = Duration::from_secs(10);

/// What the director is told.
#[derive(Clone, Copy, Debug)]
enum Message {
    Match(i64),
    Tournament(i64),
    /// Notifications from other replicas may have been lost: read every
    /// running tournament and followed game again.
    Resync,
}

/// The handle to a database's director: cheap to clone.
#[derive(Clone)]
pub struct Tournaments {
    messages: mpsc::UnboundedSender<Message>,
    hub: Arc<Hub>,
    /// The other replicas, told of tournament changes (PostgreSQL).
    bus: Option<Bus>,
}

impl Tournaments {
    /// Starts the director of `store`'s tournaments on a thread of its
    /// own (with its own runtime), its timeouts searching on `pool` and its
    /// games' bots played by `runner`. Once per server: two directors of
    /// one store would each play every deadline.
    pub fn start(store: &Store, pool: &HeavyPool, runner: &BotRunner) -> Tournaments {
        let (messages, inbox) = mpsc::unbounded_channel();
        let hub = Arc::new(Hub::default());
        // Subscribed now, before anything is played: no change is missed.
        let events = store.events();
        let director = Director {
            store: store.clone(),
            pool: pool.clone(),
            runner: runner.clone(),
            hub: hub.clone(),
            inbox,
            messages: messages.clone(),
            games: HashMap::new(),
            done: HashSet::new(),
            plain: HashSet::new(),
            told_versions: HashMap::new(),
            next_sweep: Instant::now() + STALL / 2,
        };
        let forward = messages.clone();
        std::thread::Builder::new()
            .name("sternhalma-tournaments".to_owned())
            .spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    actix_web::rt::spawn(forward_events(events, forward));
                    director.run().await;
                });
            })
            .expect("a thread for the tournament director");
        Tournaments {
            messages,
            hub,
            bus: store.bus(),
        }
    }

    /// Tournament `id` was created or its status changed (here: the other
    /// replicas are told too).
    pub fn tournament_changed(&self, id: i64) {
        let _ = self.messages.send(Message::Tournament(id));
        if let Some(bus) = &self.bus {
            bus.announce(Change::Tournament(id));
        }
    }

    /// What requests wait on.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }
}

/// The store's events, as the director's messages.
async fn forward_events(
    mut events: mpsc::UnboundedReceiver<Event>,
    messages: mpsc::UnboundedSender<Message>,
) {
    while let Some(event) = events.recv().await {
        let message = match event {
            Event::Match { id, .. } => Message::Match(id),
            Event::Tournament(id) => Message::Tournament(id),
            Event::Resync => Message::Resync,
        };
        if messages.send(message).is_err() {
            return;
        }
    }
}

/// What requests wait on: per tournament, a change counter and an event
/// stream; per match, the deadline of the turn under way.
#[derive(Default)]
pub struct Hub {
    changes: Mutex<HashMap<i64, watch::Sender<u64>>>,
    events: Mutex<HashMap<i64, broadcast::Sender<TournamentEvent>>>,
    deadlines: Mutex<HashMap<i64, (u32, Instant)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    /// A receiver woken at every change of tournament `id` (a game
    /// started, a move, a game over, a status): subscribe before reading.
    pub fn changes(&self, id: i64) -> watch::Receiver<u64> {
        let mut changes = lock(&self.changes);
        changes.retain(|_, sender| sender.receiver_count() > 0);
        changes
            .entry(id)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// The events of tournament `id` from now on.
    pub fn events(&self, id: i64) -> broadcast::Receiver<TournamentEvent> {
        let mut events = lock(&self.events);
        events.retain(|_, sender| sender.receiver_count() > 0);
        events
            .entry(id)
            .or_insert_with(|| broadcast::channel(EVENT_BUFFER).0)
            .subscribe()
    }

    /// Milliseconds left to move in match `match_id` at `ply`, if a
    /// deadline runs.
    pub fn deadline_ms(&self, match_id: i64, ply: u32) -> Option<u64> {
        let deadlines = lock(&self.deadlines);
        let &(at_ply, at) = deadlines.get(&match_id)?;
        (at_ply == ply).then(|| {
            u64::try_from(at.saturating_duration_since(Instant::now()).as_millis())
                .unwrap_or(u64::MAX)
        })
    }

    fn listened(&self, id: i64) -> bool {
        lock(&self.events)
            .get(&id)
            .is_some_and(|sender| sender.receiver_count() > 0)
    }

    fn emit(&self, id: i64, event: TournamentEvent) {
        if let Some(sender) = lock(&self.events).get(&id) {
            let _ = sender.send(event);
        }
    }

    fn bump(&self, id: i64) {
        if let Some(sender) = lock(&self.changes).get(&id) {
            sender.send_modify(|n| *n += 1);
        }
    }

    fn set_deadline(&self, match_id: i64, deadline: Option<(u32, Instant)>) {
        let mut deadlines = lock(&self.deadlines);
        match deadline {
            Some(deadline) => deadlines.insert(match_id, deadline),
            None => deadlines.remove(&match_id),
        };
    }
}

/// A game the director follows.
struct Game {
    tracked: Tracked,
    /// Plies already sent as events.
    seen_ply: u32,
    /// Timeouts already sent as events (whichever replica played them), as
    /// (ply, seat).
    told_timeouts: HashSet<(u32, usize)>,
    /// The version its deadline was set for.
    version: i64,
    /// The open seat to move and when its time is up.
    deadline: Option<(usize, Instant)>,
    /// A timeout is being played: do not fire again until the game changes.
    timing_out: bool,
    /// When its version last changed here (or it was kicked for standing
    /// still): see [`STALL`].
    moved_at: Instant,
}

impl Game {
    /// A game followed from now on, its first `seen_ply` plies and the
    /// `told_timeouts` already told (or never to be told).
    fn new(tracked: Tracked, seen_ply: u32, told_timeouts: HashSet<(u32, usize)>) -> Game {
        Game {
            tracked,
            seen_ply,
            told_timeouts,
            version: 0,
            deadline: None,
            timing_out: false,
            moved_at: Instant::now(),
        }
    }
}

struct Director {
    store: Store,
    pool: HeavyPool,
    runner: BotRunner,
    hub: Arc<Hub>,
    inbox: mpsc::UnboundedReceiver<Message>,
    messages: mpsc::UnboundedSender<Message>,
    games: HashMap<i64, Game>,
    /// With several replicas: the games over and told (never adopted
    /// again), the matches known not to be tournament games, the version
    /// of every tournament last told, and when to reconcile next.
    done: HashSet<i64>,
    plain: HashSet<i64>,
    told_versions: HashMap<i64, i64>,
    next_sweep: Instant,
}

impl Director {
    async fn run(mut self) {
        let runner = self.runner.clone();
        if let Err(error) = self.resume(&runner).await {
            tracing::warn!(error = %error.problem().detail, "cannot resume the tournaments");
        }
        loop {
            let next = self
                .games
                .values()
                .filter(|game| !game.timing_out)
                .filter_map(|game| game.deadline.map(|(_, at)| at))
                .min();
            // With other replicas: wake to look for games standing still.
            let sweep = self.store.is_shared().then_some(self.next_sweep);
            let next = match (next, sweep) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let first = match next {
                Some(at) => tokio::select! {
                    message = self.inbox.recv() => message.map(Some),
                    () = actix_web::rt::time::sleep_until(at.into()) => Some(None),
                },
                None => self.inbox.recv().await.map(Some),
            };
            let Some(first) = first else {
                return;
            };
            // Everything queued now, each match read once.
            let mut matches = Vec::new();
            let mut tournaments = Vec::new();
            let mut seen = HashSet::new();
            let mut resync = false;
            let mut take = |message: Message| match message {
                Message::Match(id) => {
                    if seen.insert(id) {
                        matches.push(id);
                    }
                }
                Message::Tournament(id) => tournaments.push(id),
                Message::Resync => resync = true,
            };
            if let Some(message) = first {
                take(message);
            }
            while let Ok(message) = self.inbox.try_recv() {
                take(message);
            }
            for id in matches {
                if let Err(error) = self.on_match(&runner, id).await {
                    tracing::warn!(match_id = id, error = %error.problem().detail, "tournament game not followed");
                }
            }
            for id in tournaments {
                if let Err(error) = self.on_tournament(&runner, id).await {
                    tracing::warn!(tournament_id = id, error = %error.problem().detail, "tournament change not followed");
                }
            }
            if self.store.is_shared() && (resync || Instant::now() >= self.next_sweep) {
                // A notification another replica sent may be lost (it
                // died between its commit and its NOTIFY, or the listening
                // connection dropped): what is stored is read again.
                if let Err(error) = self.reconcile(&runner).await {
                    tracing::warn!(error = %error.problem().detail, "tournaments not reconciled");
                }
                self.kick_stalled(&runner);
                self.next_sweep = Instant::now() + STALL / 2;
            }
            self.fire_due_deadlines(&runner);
        }
    }

    /// With several replicas, every [`STALL`]/2: every running tournament
    /// and every followed game read again, as if each had been told of a
    /// change. A tournament whose version moved is told as a change; games
    /// another replica started are followed; ready games are started.
    async fn reconcile(&mut self, runner: &BotRunner) -> Result<(), ApiError> {
        let mut ids: HashSet<i64> = self.store.read(logic::running).await?.into_iter().collect();
        ids.extend(self.games.values().map(|game| game.tracked.tournament));
        let mut ids: Vec<i64> = ids.into_iter().collect();
        ids.sort_unstable();
        for id in ids {
            let (status, version) = self
                .store
                .read(move |c| logic::status_and_version(c, id))
                .await?;
            match self.told_versions.insert(id, version) {
                Some(told) if told != version => self.on_tournament(runner, id).await?,
                _ if !status.is_over() => {
                    self.follow_started_elsewhere(id).await?;
                    self.schedule(runner, id).await?;
                }
                _ => {}
            }
        }
        let followed: Vec<i64> = self.games.keys().copied().collect();
        for id in followed {
            self.on_match(runner, id).await?;
        }
        Ok(())
    }

    /// Kicks the bots of every followed game that has stood still for
    /// [`STALL`]: with several replicas, the one playing them may be gone.
    /// A kick where no bot is to move does nothing.
    fn kick_stalled(&mut self, runner: &BotRunner) {
        let now = Instant::now();
        for (&match_id, game) in &mut self.games {
            if now.saturating_duration_since(game.moved_at) >= STALL {
                game.moved_at = now;
                runner.kick(match_id);
            }
        }
    }

    /// With several replicas, a change of match `id` that this director
    /// does not follow: if it is a tournament game another replica started
    /// (even one already over), it is announced and followed from its first
    /// ply. Answers whether it is followed now.
    async fn adopt(&mut self, id: i64) -> Result<bool, ApiError> {
        if !self.store.is_shared() || self.done.contains(&id) || self.plain.contains(&id) {
            return Ok(false);
        }
        let Some(tracked) = self
            .store
            .read(move |c| logic::tracked_game_of_match(c, id))
            .await?
        else {
            self.plain.insert(id);
            return Ok(false);
        };
        self.announce_start(tracked.tournament, &tracked);
        self.games.insert(id, Game::new(tracked, 0, HashSet::new()));
        Ok(true)
    }

    /// Follows the games of tournament `id` under way that another replica
    /// started: announced, then read like any other.
    async fn follow_started_elsewhere(&mut self, id: i64) -> Result<(), ApiError> {
        let tracked = self
            .store
            .read(move |c| logic::tracked_games_of(c, id))
            .await?;
        for game in tracked {
            if self.games.contains_key(&game.match_id) || self.done.contains(&game.match_id) {
                continue;
            }
            let match_id = game.match_id;
            self.announce_start(id, &game);
            self.games
                .insert(match_id, Game::new(game, 0, HashSet::new()));
            let _ = self.messages.send(Message::Match(match_id));
        }
        Ok(())
    }

    fn announce_start(&self, id: i64, tracked: &Tracked) {
        self.hub.emit(
            id,
            TournamentEvent::GameStarted {
                game: tracked.game,
                match_id: tracked.match_id,
                seats: tracked
                    .entrants
                    .iter()
                    .zip(&tracked.names)
                    .enumerate()
                    .map(|(seat, (&entrant, name))| EventSeat {
                        seat,
                        entrant,
                        name: name.clone(),
                    })
                    .collect(),
            },
        );
    }

    async fn resume(&mut self, runner: &BotRunner) -> Result<(), ApiError> {
        let tracked = self.store.read(logic::tracked_games).await?;
        if !tracked.is_empty() {
            tracing::info!(games = tracked.len(), "resuming tournament games");
        }
        for game in tracked {
            let id = game.match_id;
            let probe = game.clone();
            let now = self
                .store
                .read(move |c| logic::progress(c, &probe, u32::MAX))
                .await?;
            self.games.insert(
                id,
                Game::new(game, now.ply, now.timeouts.iter().copied().collect()),
            );
            runner.kick(id);
            self.on_match(runner, id).await?;
        }
        for id in self.store.read(logic::running).await? {
            self.schedule(runner, id).await?;
        }
        Ok(())
    }

    async fn on_match(&mut self, runner: &BotRunner, id: i64) -> Result<(), ApiError> {
        if !self.games.contains_key(&id) && !self.adopt(id).await? {
            return Ok(());
        }
        let Some(game) = self.games.get_mut(&id) else {
            return Ok(());
        };
        let tracked = game.tracked.clone();
        let since = game.seen_ply;
        // A copy: should the read below fail, the game keeps what it told.
        let mut told = game.told_timeouts.clone();
        let probe = tracked.clone();
        let progress = self
            .store
            .read(move |c| logic::progress(c, &probe, since))
            .await?;
        let tournament = tracked.tournament;
        // A timeout at a ply is told before that ply's move (the move the
        // server played for the entrant), as it happened; each once.
        let mut tell_timeouts_before = |ply: u32| {
            for &(at, seat) in &progress.timeouts {
                if at >= ply || !told.insert((at, seat)) {
                    continue;
                }
                // A seat times out at most once per ply: its count so far.
                let timeouts = progress
                    .timeouts
                    .iter()
                    .filter(|&&(p, s)| s == seat && p <= at)
                    .count();
                let timeouts = u32::try_from(timeouts).unwrap_or(u32::MAX);
                self.hub.emit(
                    tournament,
                    TournamentEvent::Timeout {
                        game: tracked.game,
                        match_id: id,
                        ply: at,
                        seat,
                        entrant: tracked.entrants.get(seat).copied().unwrap_or(0),
                        timeouts,
                        forfeited: timeouts >= tracked.max_timeouts,
                    },
                );
            }
        };
        for stored in &progress.moves {
            tell_timeouts_before(stored.ply + 1);
            self.hub.emit(
                tournament,
                TournamentEvent::Move {
                    game: tracked.game,
                    match_id: id,
                    ply: stored.ply,
                    seat: stored.seat,
                    entrant: tracked.entrants.get(stored.seat).copied().unwrap_or(0),
                    text: stored.path.clone(),
                },
            );
        }
        tell_timeouts_before(u32::MAX);
        let game = self.games.get_mut(&id).expect("followed above");
        game.told_timeouts = told;
        game.seen_ply = progress.moves.last().map_or(since, |m| m.ply + 1);
        game.timing_out = false;
        let changed = game.version != progress.version || !progress.moves.is_empty();
        if progress.status != MatchStatus::InProgress {
            self.games.remove(&id);
            if self.store.is_shared() {
                self.done.insert(id);
            }
            self.hub.set_deadline(id, None);
            let number = tracked.game;
            let view = self
                .store
                .read(move |c| logic::one_game(c, tournament, number))
                .await?;
            self.hub.emit(
                tournament,
                TournamentEvent::GameOver {
                    game: number,
                    match_id: id,
                    status: view.status,
                    result: view.result,
                },
            );
            self.send_standings(tournament).await?;
            self.hub.bump(tournament);
            return self.schedule(runner, tournament).await;
        }
        match progress.open_to_move {
            Some(seat) if game.version != progress.version || game.deadline.is_none() => {
                let at = Instant::now() + Duration::from_millis(u64::from(tracked.move_ms));
                game.deadline = Some((seat, at));
                self.hub.set_deadline(id, Some((progress.ply, at)));
            }
            Some(_) => {}
            None => {
                game.deadline = None;
                self.hub.set_deadline(id, None);
            }
        }
        if game.version != progress.version {
            game.moved_at = Instant::now();
        }
        game.version = progress.version;
        if changed {
            self.hub.bump(tournament);
        }
        Ok(())
    }

    async fn send_standings(&self, tournament: i64) -> Result<(), ApiError> {
        if self.hub.listened(tournament) {
            let standings = self
                .store
                .read(move |c| logic::standings(c, tournament))
                .await?;
            self.hub.emit(
                tournament,
                TournamentEvent::Standings {
                    standings: Box::new(standings),
                },
            );
        }
        Ok(())
    }

    async fn on_tournament(&mut self, runner: &BotRunner, id: i64) -> Result<(), ApiError> {
        let view = self.store.read(move |c| logic::view(c, id)).await?;
        let status = view.status;
        if self.store.is_shared() {
            self.told_versions.insert(id, view.version);
        }
        self.hub.emit(
            id,
            TournamentEvent::Tournament {
                tournament: Box::new(view),
            },
        );
        self.hub.bump(id);
        if !status.is_over() && self.store.is_shared() {
            self.follow_started_elsewhere(id).await?;
        }
        if status.is_over() {
            let over: Vec<i64> = self
                .games
                .iter()
                .filter(|(_, game)| game.tracked.tournament == id)
                .map(|(&match_id, _)| match_id)
                .collect();
            for match_id in over {
                self.games.remove(&match_id);
                self.hub.set_deadline(match_id, None);
                if self.store.is_shared() {
                    // Not adopted again by a later notification of its end.
                    self.done.insert(match_id);
                }
            }
            return Ok(());
        }
        self.schedule(runner, id).await
    }

    /// Starts the games of tournament `id` that can start; announces its
    /// end when none is left.
    async fn schedule(&mut self, runner: &BotRunner, id: i64) -> Result<(), ApiError> {
        let scheduled = self
            .store
            .write(move |c| logic::start_ready_games(c, id))
            .await?;
        if !scheduled.started.is_empty() || scheduled.finished {
            self.store.announce_tournament(id);
        }
        for tracked in scheduled.started {
            let match_id = tracked.match_id;
            self.announce_start(id, &tracked);
            self.games
                .insert(match_id, Game::new(tracked, 0, HashSet::new()));
            runner.kick(match_id);
            // Read at the next turn of the loop: its first deadline.
            let _ = self.messages.send(Message::Match(match_id));
        }
        if scheduled.finished {
            self.send_standings(id).await?;
            let _ = self.messages.send(Message::Tournament(id));
        }
        Ok(())
    }

    /// Plays a timeout for every game whose deadline has passed, each in a
    /// task of its own.
    fn fire_due_deadlines(&mut self, runner: &BotRunner) {
        let now = Instant::now();
        for (&match_id, game) in &mut self.games {
            let Some((seat, at)) = game.deadline else {
                continue;
            };
            if game.timing_out || at > now {
                continue;
            }
            game.timing_out = true;
            let timeout = Timeout {
                store: self.store.clone(),
                pool: self.pool.clone(),
                runner: runner.clone(),
                messages: self.messages.clone(),
                tracked: game.tracked.clone(),
                version: game.version,
                seat,
            };
            actix_web::rt::spawn(async move {
                if let Err(error) = timeout.play().await {
                    tracing::warn!(match_id, error = %error.problem().detail, "a timeout could not be played");
                    // Tried again after a pause, unless the game changes.
                    actix_web::rt::time::sleep(Duration::from_secs(1)).await;
                }
                let _ = timeout.messages.send(Message::Match(match_id));
            });
        }
    }
}

/// A missed deadline being played.
struct Timeout {
    store: Store,
    pool: HeavyPool,
    runner: BotRunner,
    messages: mpsc::UnboundedSender<Message>,
    tracked: Tracked,
    version: i64,
    seat: usize,
}

impl Timeout {
    async fn play(&self) -> Result<(), ApiError> {
        let (match_id, version, seat) = (self.tracked.match_id, self.version, self.seat);
        let Some((position, ply)) = self
            .store
            .read(move |c| logic::timeout_position(c, match_id, version, seat))
            .await?
        else {
            return Ok(());
        };
        let mv = self
            .pool
            .run_urgent(move || logic::timeout_move(match_id, &position, ply))
            .await?;
        let max_timeouts = self.tracked.max_timeouts;
        let notifier = self.store.clone();
        let Some(record) = self
            .store
            .write(move |c| {
                let record = logic::record_timeout(c, match_id, version, seat, mv, max_timeouts)?;
                if let Some(record) = record {
                    notifier.publish(match_id, record.version);
                }
                Ok(record)
            })
            .await?
        else {
            return Ok(());
        };
        tracing::info!(
            match_id,
            seat,
            ply = record.ply,
            timeouts = record.timeouts,
            forfeited = record.forfeited,
            "an entrant missed its deadline"
        );
        // The `timeout` event is told by `on_match` from the stored row, on
        // every replica alike (the publish above reaches them all).
        self.runner.kick(match_id);
        Ok(())
    }
}
