//! The tournament director: one background task per server that runs
//! every tournament, a thin driver around the
//! [`Referee`], which makes its decisions.
//!
//! It hears of every committed change of a match, and of every change of a
//! tournament's status, by subscribing to the store's events
//! ([`Store::events`]): the store tells them after each command commits,
//! whoever made it. For a tournament game it reads
//! the match's progress ([`logic::progress`]) and hands it to the referee
//! with the time, which answers the [`Effect`]s: the new moves and
//! timeouts to send as events, the deadline to set or clear, the end of
//! the game; the driver applies them (the [`Hub`], the bot runner, timeout
//! tasks, the store's commands such as starting the next games whose
//! entrants are free, [`Store::settle_games`]). The driver owns the
//! clock: it reads `Instant::now()`, hands it to the referee, and sleeps
//! until the referee's next wake-up; the referee's rules are tested with
//! virtual time. The built-in bots of every game are played by the same
//! runner as any match's (on the heavy-work pool).
//!
//! **Deadlines.** When an open entrant is to move, the director gives it
//! the tournament's `move_ms` from the moment it sees the turn (just after
//! the commit). When the time is up it searches the greedy bot's move on
//! the heavy-work pool's urgent lane and stores it with a timeout, or, at
//! the entrant's `max_timeouts`-th timeout in that game, forfeits the game
//! for it ([`Store::record_timeout`]); a move that came first wins (the
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
//! died mid-search) is kicked again by the others after 10 s
//! ([`STALL`](sternhalma_store::tournaments::referee::STALL)).
//!
//! **Waiters.** The [`Hub`] holds what requests wait on: a change counter
//! per tournament (the entrants' long-poll) and an event stream per
//! tournament (the SSE route), and the current deadlines.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc, watch};

use crate::failure::Failure;
use crate::runner::BotRunner;
use jiff::Timestamp;
use sternhalma_pool::{Group, HeavyPool};
use sternhalma_store::store::{Event, Store};
use sternhalma_store::tournaments::logic::{self, Tracked};
use sternhalma_store::tournaments::referee::{Effect, Referee};

use crate::wire;
use crate::wire::tournaments::{Presence, TournamentEvent, TournamentView};

/// Events kept for a slow SSE reader before it is told it lagged.
const EVENT_BUFFER: usize = 1024;

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
    hub: Arc<Hub>,
}

impl Tournaments {
    /// Starts the director of `store`'s tournaments on a thread of its
    /// own (with its own runtime), its timeouts searching on `pool` and its
    /// games' bots played by `runner`. Once per server: two directors of
    /// one store would each play every deadline.
    ///
    /// With `resume`, the games under way are followed again and running
    /// tournaments scheduled at once; without (`sternhalma serve
    /// --no-resume`), what the last run left running waits until it is
    /// changed (started, paused or abandoned by its creator or the
    /// operator).
    pub fn start(store: &Store, pool: &HeavyPool, runner: &BotRunner, resume: bool) -> Tournaments {
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
            referee: Referee::new(store.is_shared(), Instant::now()),
            resume,
            left_running: HashSet::new(),
            deferred: Deferred::default(),
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
        Tournaments { hub }
    }

    /// What requests wait on.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Open entrant `entrant` of tournament `tournament` is asking for its
    /// turns until the answer is dropped (it is connected meanwhile).
    pub fn polling(&self, tournament: i64, entrant: usize) -> Polling {
        self.hub.poll_began(tournament, entrant);
        Polling {
            hub: Arc::clone(&self.hub),
            tournament,
            entrant,
        }
    }
}

/// A long-poll of an open entrant's turns under way: see
/// [`Tournaments::polling`].
pub struct Polling {
    hub: Arc<Hub>,
    tournament: i64,
    entrant: usize,
}

impl Drop for Polling {
    fn drop(&mut self) {
        self.hub.poll_ended(self.tournament, self.entrant);
    }
}

/// How long after its last request an open entrant still counts as
/// connected: the time to make its move and ask again.
pub const PRESENCE_GRACE: Duration = Duration::from_secs(5);

/// An open entrant's requests for its turns, as this server saw them.
#[derive(Clone, Copy, Debug)]
struct Seen {
    /// Long-polls open now.
    polls: usize,
    /// When the last one began or ended.
    at: Instant,
}

impl Seen {
    fn connected(&self, now: Instant) -> bool {
        self.polls > 0 || now.saturating_duration_since(self.at) < PRESENCE_GRACE
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
            // A match is a tournament game once the director starts it,
            // which it knows then.
            Event::Created(_) => continue,
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
    presence: Mutex<HashMap<(i64, usize), Seen>>,
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

    /// The presence of open entrant `entrant` of tournament `tournament`
    /// (not absent: the database knows that).
    pub fn presence(&self, tournament: i64, entrant: usize) -> Presence {
        let now = Instant::now();
        match lock(&self.presence).get(&(tournament, entrant)) {
            Some(seen) => Presence {
                connected: seen.connected(now),
                seen_ms_ago: Some(
                    u64::try_from(now.saturating_duration_since(seen.at).as_millis())
                        .unwrap_or(u64::MAX),
                ),
                absent_since: None,
            },
            None => Presence::default(),
        }
    }

    /// `view` with what this server knows of its open entrants' presence.
    pub fn with_presence(&self, mut view: TournamentView) -> TournamentView {
        for entrant in &mut view.entrants {
            if let Some(presence) = &mut entrant.presence {
                let seen = self.presence(view.id, entrant.entrant);
                presence.connected = seen.connected;
                presence.seen_ms_ago = seen.seen_ms_ago;
            }
        }
        view
    }

    /// Tells the event stream of `tournament` that open entrant `entrant`
    /// is back (`absent_since` none) or absent since then.
    pub fn tell_presence(&self, tournament: i64, entrant: usize, absent_since: Option<Timestamp>) {
        let presence = Presence {
            absent_since: absent_since.map(wire::time),
            ..self.presence(tournament, entrant)
        };
        self.emit(tournament, TournamentEvent::Presence { entrant, presence });
    }

    fn poll_began(&self, tournament: i64, entrant: usize) {
        let now = Instant::now();
        let appeared = {
            let mut presence = lock(&self.presence);
            let seen = presence.entry((tournament, entrant));
            let appeared = match &seen {
                Entry::Occupied(seen) => !seen.get().connected(now),
                Entry::Vacant(_) => true,
            };
            let seen = seen.or_insert(Seen { polls: 0, at: now });
            seen.polls += 1;
            seen.at = now;
            appeared
        };
        if appeared {
            self.tell_presence(tournament, entrant, None);
        }
    }

    fn poll_ended(&self, tournament: i64, entrant: usize) {
        if let Some(seen) = lock(&self.presence).get_mut(&(tournament, entrant)) {
            seen.polls = seen.polls.saturating_sub(1);
            seen.at = Instant::now();
        }
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

struct Director {
    store: Store,
    pool: HeavyPool,
    runner: BotRunner,
    hub: Arc<Hub>,
    inbox: mpsc::UnboundedReceiver<Message>,
    messages: mpsc::UnboundedSender<Message>,
    /// The games followed and the decisions.
    referee: Referee,
    /// Whether to follow what the last run left under way, at the start.
    resume: bool,
    /// Without `resume`: the tournaments the last run left running, which
    /// nothing here plays (not even the sweep with several replicas) until
    /// they change.
    left_running: HashSet<i64>,
    /// What this turn of the loop left to [`Director::settle`].
    deferred: Deferred,
}

/// The games read at once per tournament in a turn of
/// [`Director::on_matches`].
const TURN: usize = 16;

/// The messages of a turn of the director's loop, each id once.
#[derive(Default)]
struct Batch {
    matches: Vec<i64>,
    tournaments: Vec<i64>,
    seen_matches: HashSet<i64>,
    seen_tournaments: HashSet<i64>,
    /// Notifications from other replicas may have been lost.
    resync: bool,
}

impl Batch {
    fn take(&mut self, message: Message) {
        match message {
            Message::Match(id) => {
                if self.seen_matches.insert(id) {
                    self.matches.push(id);
                }
            }
            Message::Tournament(id) => {
                if self.seen_tournaments.insert(id) {
                    self.tournaments.push(id);
                }
            }
            Message::Resync => self.resync = true,
        }
    }
}

/// What the games that ended in a turn leave to do, per tournament.
#[derive(Default)]
struct Deferred {
    /// The games over, as (game, match).
    over: BTreeMap<i64, Vec<(usize, i64)>>,
    /// The tournaments whose ready games are to start.
    schedule: BTreeSet<i64>,
    /// The tournaments whose standings are to be sent.
    standings: BTreeSet<i64>,
}

impl Director {
    async fn run(mut self) {
        if !self.resume {
            match self.store.read(logic::running).await {
                Ok(left) => self.left_running = left.into_iter().collect(),
                Err(error) => {
                    tracing::warn!(error = %error, "cannot read the tournaments left running");
                }
            }
            tracing::info!(
                tournaments = self.left_running.len(),
                "tournaments left running are not resumed (--no-resume)"
            );
        } else if let Err(error) = self.resume().await {
            tracing::warn!(error = %error, "cannot resume the tournaments");
        }
        self.settle().await;
        loop {
            let first = match self.referee.next_wake() {
                Some(at) => tokio::select! {
                    message = self.inbox.recv() => message.map(Some),
                    () = actix_web::rt::time::sleep_until(at.into()) => Some(None),
                },
                None => self.inbox.recv().await.map(Some),
            };
            let Some(first) = first else {
                return;
            };
            // Everything queued now, each match and tournament read once.
            let mut batch = Batch::default();
            if let Some(message) = first {
                batch.take(message);
            }
            while let Ok(message) = self.inbox.try_recv() {
                batch.take(message);
            }
            // Status changes first (a tournament created or started beside a
            // busy one starts its games now), then the games, a few of each
            // tournament in turn, the deadlines due played between turns.
            for id in batch.tournaments {
                if let Err(error) = self.on_tournament(id).await {
                    tracing::warn!(tournament_id = id, error = %error, "tournament change not followed");
                }
            }
            self.play_due().await;
            self.on_matches(batch.matches).await;
            let resync = batch.resync;
            if self.referee.is_shared() && (resync || self.referee.sweep_due(Instant::now())) {
                // A notification another replica sent may be lost (it
                // died between its commit and its NOTIFY, or the listening
                // connection dropped): what is stored is read again.
                if let Err(error) = self.reconcile().await {
                    tracing::warn!(error = %error, "tournaments not reconciled");
                }
                // The games standing still kicked (their bots' replica may
                // be gone).
                let kicks = self.referee.sweep(Instant::now());
                self.apply_logged(kicks).await;
            }
            self.settle().await;
            self.play_due().await;
        }
    }

    /// The deadlines passed: their timeouts played.
    async fn play_due(&mut self) {
        let due = self.referee.due(Instant::now());
        self.apply_logged(due).await;
    }

    /// Changed matches `ids`, grouped by tournament and read in turns of at
    /// most [`TURN`] games of each tournament (each turn one read of the
    /// database), the deadlines due played after each turn. A tournament
    /// with many games moving delays another's by one turn, however many
    /// games it plays at once. Matches not followed are adopted one by one
    /// (several replicas) or ignored.
    async fn on_matches(&mut self, ids: Vec<i64>) {
        let mut queues: BTreeMap<i64, VecDeque<i64>> = BTreeMap::new();
        for id in ids {
            match self.referee.to_read(id) {
                Some((tracked, _)) => queues.entry(tracked.tournament).or_default().push_back(id),
                None => {
                    if let Err(error) = self.on_match(id).await {
                        tracing::warn!(match_id = id, error = %error, "tournament game not followed");
                    }
                }
            }
        }
        while !queues.is_empty() {
            let mut reads = Vec::new();
            for queue in queues.values_mut() {
                for id in queue.drain(..queue.len().min(TURN)) {
                    if let Some(read) = self.referee.to_read(id) {
                        reads.push(read);
                    }
                }
            }
            queues.retain(|_, queue| !queue.is_empty());
            let ids: Vec<i64> = reads.iter().map(|(tracked, _)| tracked.match_id).collect();
            let read = self
                .store
                .read(move |c| {
                    Ok(reads
                        .iter()
                        .map(|(tracked, since)| logic::progress(c, tracked, *since))
                        .collect::<Vec<_>>())
                })
                .await;
            match read {
                Ok(progress) => {
                    for (id, progress) in ids.into_iter().zip(progress) {
                        match progress {
                            Ok(progress) => {
                                let effects =
                                    self.referee.on_progress(id, &progress, Instant::now());
                                self.apply_logged(effects).await;
                            }
                            Err(error) => {
                                tracing::warn!(match_id = id, error = %error, "tournament game not read");
                            }
                        }
                    }
                }
                // The referee keeps what it told: read again at the next
                // change or reconcile.
                Err(error) => tracing::warn!(error = %error, "tournament games not read"),
            }
            self.play_due().await;
        }
    }

    /// What the games that ended left to do, once per tournament whatever
    /// the number of games: their outcomes recorded and told, the next
    /// games started, the standings sent.
    async fn settle(&mut self) {
        loop {
            let Deferred {
                mut over,
                schedule,
                standings,
            } = std::mem::take(&mut self.deferred);
            if schedule.is_empty() && over.is_empty() && standings.is_empty() {
                return;
            }
            let tournaments: BTreeSet<i64> = over.keys().copied().chain(schedule).collect();
            for tournament in tournaments {
                let games = over.remove(&tournament).unwrap_or_default();
                if let Err(error) = self.settle_one(tournament, games).await {
                    tracing::warn!(tournament_id = tournament, error = %error, "tournament games not settled; tried again in a second");
                    // Its next games must not wait for some other change:
                    // the tournament is read again (and scheduled) soon.
                    let messages = self.messages.clone();
                    actix_web::rt::spawn(async move {
                        actix_web::rt::time::sleep(Duration::from_secs(1)).await;
                        let _ = messages.send(Message::Tournament(tournament));
                    });
                }
            }
            // Sent after the games over and started: the table counts them.
            let mut standings = standings;
            standings.append(&mut self.deferred.standings);
            for tournament in standings {
                if let Err(error) = self.send_standings(tournament).await {
                    tracing::warn!(tournament_id = tournament, error = %error, "standings not sent");
                }
            }
        }
    }

    /// The games of `tournament` followed here.
    fn followed_of(&self, tournament: i64) -> Vec<i64> {
        self.referee
            .followed()
            .into_iter()
            .filter(|&id| {
                self.referee
                    .to_read(id)
                    .is_some_and(|(tracked, _)| tracked.tournament == tournament)
            })
            .collect()
    }

    /// [`Director::settle`] for one tournament: `over` its games that
    /// ended, as (game, match).
    async fn settle_one(
        &mut self,
        tournament: i64,
        over: Vec<(usize, i64)>,
    ) -> Result<(), Failure> {
        let numbers: Vec<usize> = over.iter().map(|&(game, _)| game).collect();
        // The other replicas hear of the games started (the store tells
        // them); this director knows them from the answer.
        let settled = self.store.settle_games(tournament, numbers).await?;
        for game in &settled.over {
            if let Some(event) = TournamentEvent::game_over(game) {
                self.hub.emit(tournament, event);
            }
        }
        let scheduled = settled.scheduled;
        if scheduled.finished {
            // Its last games may have ended in the database before their
            // changes were read here: read now, so that every game's end is
            // told (by the loop of `settle`) before the tournament's.
            let left = self.followed_of(tournament);
            self.on_matches(left).await;
        }
        let effects = self.referee.scheduled(
            tournament,
            scheduled.started,
            scheduled.finished,
            Instant::now(),
        );
        self.apply(effects).await
    }

    /// Applies the referee's `effects`, in order: events, deadlines and
    /// change counters to the [`Hub`], kicks to the runner, timeouts to
    /// tasks of their own, reads to the next turn of the loop. What a
    /// tournament's ended games leave to do (their outcomes, the next
    /// games, the standings) is gathered for [`Director::settle`], once per
    /// tournament at the end of the turn.
    async fn apply(&mut self, effects: Vec<Effect>) -> Result<(), Failure> {
        for effect in effects {
            match effect {
                Effect::Emit { tournament, event } => self.hub.emit(tournament, event.into()),
                Effect::SetDeadline { match_id, ply, at } => {
                    self.hub.set_deadline(match_id, Some((ply, at)));
                }
                Effect::ClearDeadline { match_id } => self.hub.set_deadline(match_id, None),
                Effect::Bump { tournament } => self.hub.bump(tournament),
                Effect::GameOver {
                    tournament,
                    game,
                    match_id,
                } => self
                    .deferred
                    .over
                    .entry(tournament)
                    .or_default()
                    .push((game, match_id)),
                Effect::Standings { tournament } => {
                    self.deferred.standings.insert(tournament);
                }
                Effect::Schedule { tournament } => {
                    self.deferred.schedule.insert(tournament);
                }
                Effect::FireTimeout {
                    tracked,
                    version,
                    seat,
                } => self.fire_timeout(tracked, version, seat),
                Effect::Kick { match_id } => self.runner.kick(match_id),
                Effect::ReadGame { match_id } => {
                    let _ = self.messages.send(Message::Match(match_id));
                }
                Effect::ReadTournament { tournament } => {
                    let _ = self.messages.send(Message::Tournament(tournament));
                }
            }
        }
        Ok(())
    }

    /// [`Director::apply`], a failure logged.
    async fn apply_logged(&mut self, effects: Vec<Effect>) {
        if let Err(error) = self.apply(effects).await {
            tracing::warn!(error = %error, "tournament effects not applied");
        }
    }

    /// With several replicas, every
    /// [`STALL`](sternhalma_store::tournaments::referee::STALL)/2: every
    /// running tournament and every followed game read again, as if each
    /// had been told of a change. A tournament whose version moved is told
    /// as a change; games another replica started are followed; ready games
    /// are started.
    async fn reconcile(&mut self) -> Result<(), Failure> {
        let mut ids: HashSet<i64> = self.store.read(logic::running).await?.into_iter().collect();
        ids.extend(self.referee.followed_tournaments());
        let mut ids: Vec<i64> = ids.into_iter().collect();
        ids.sort_unstable();
        for id in ids {
            if self.left_running.contains(&id) {
                // Left running by the last run and not resumed: played
                // again only once it changes (`on_tournament`).
                continue;
            }
            let (status, version) = self
                .store
                .read(move |c| logic::status_and_version(c, id))
                .await?;
            match self.referee.tournament_told(id, version) {
                Some(told) if told != version => self.on_tournament(id).await?,
                _ if !status.is_over() => {
                    self.follow_started_elsewhere(id).await?;
                    self.apply(vec![Effect::Schedule { tournament: id }])
                        .await?;
                }
                _ => {}
            }
        }
        for id in self.referee.followed() {
            self.on_match(id).await?;
        }
        Ok(())
    }

    /// With several replicas, a change of match `id` that this director
    /// does not follow: if it is a tournament game another replica started
    /// (even one already over), it is announced and followed from its first
    /// ply. Answers whether it is followed now.
    async fn adopt(&mut self, id: i64) -> Result<bool, Failure> {
        if !self.referee.may_adopt(id) {
            return Ok(false);
        }
        let Some(tracked) = self
            .store
            .read(move |c| logic::tracked_game_of_match(c, id))
            .await?
        else {
            self.referee.not_a_game(id);
            return Ok(false);
        };
        let effects = self.referee.follow_new(tracked, Instant::now());
        self.apply(effects).await?;
        Ok(true)
    }

    /// Follows the games of tournament `id` under way that this director
    /// does not: started by another replica, or left by a run that was not
    /// resumed. Announced, then read like any other.
    async fn follow_started_elsewhere(&mut self, id: i64) -> Result<(), Failure> {
        let tracked = self
            .store
            .read(move |c| logic::tracked_games_of(c, id))
            .await?;
        // On one database, such a game was left by a run not resumed: its
        // bots are kicked (with several replicas, the one playing them is
        // alive, or the sweep kicks them once they stand still).
        let kicks: Vec<i64> = if self.referee.is_shared() {
            Vec::new()
        } else {
            tracked
                .iter()
                .map(|game| game.match_id)
                .filter(|&id| !self.referee.follows(id))
                .collect()
        };
        let effects = self.referee.started_elsewhere(tracked, Instant::now());
        self.apply(effects).await?;
        for match_id in kicks {
            self.runner.kick(match_id);
        }
        Ok(())
    }

    async fn resume(&mut self) -> Result<(), Failure> {
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
            self.referee.follow(
                game,
                now.ply,
                now.timeouts.iter().copied().collect(),
                Instant::now(),
            );
            self.runner.kick(id);
            self.on_match(id).await?;
        }
        for id in self.store.read(logic::running).await? {
            self.apply(vec![Effect::Schedule { tournament: id }])
                .await?;
        }
        Ok(())
    }

    /// Match `id` changed: if it is a game followed (or adopted now), its
    /// progress read and handed to the referee, its effects applied.
    async fn on_match(&mut self, id: i64) -> Result<(), Failure> {
        if !self.referee.follows(id) && !self.adopt(id).await? {
            return Ok(());
        }
        let Some((tracked, since)) = self.referee.to_read(id) else {
            return Ok(());
        };
        // Should the read fail, the referee keeps what it told.
        let progress = self
            .store
            .read(move |c| logic::progress(c, &tracked, since))
            .await?;
        let effects = self.referee.on_progress(id, &progress, Instant::now());
        self.apply(effects).await
    }

    async fn send_standings(&self, tournament: i64) -> Result<(), Failure> {
        if self.hub.listened(tournament) {
            let standings = self
                .store
                .read(move |c| logic::standings(c, tournament))
                .await?;
            self.hub.emit(
                tournament,
                TournamentEvent::Standings {
                    standings: Box::new(standings.into()),
                },
            );
        }
        Ok(())
    }

    async fn on_tournament(&mut self, id: i64) -> Result<(), Failure> {
        let tournament = self.store.read(move |c| logic::view(c, id)).await?;
        let status = tournament.status;
        let view = self.hub.with_presence(TournamentView::from(tournament));
        if status.is_over() {
            // Its games are told over before it is: read (and settle) the
            // ones still followed first.
            let left = self.followed_of(id);
            self.on_matches(left).await;
            self.settle().await;
        }
        self.referee.tournament_told(id, view.version);
        self.hub.emit(
            id,
            TournamentEvent::Tournament {
                tournament: Box::new(view),
            },
        );
        self.hub.bump(id);
        self.left_running.remove(&id);
        if !status.is_over() {
            // Games under way that this director does not follow: started
            // by another replica, or left by a run it did not resume.
            self.follow_started_elsewhere(id).await?;
        }
        if status.is_over() {
            let effects = self.referee.tournament_over(id);
            return self.apply(effects).await;
        }
        self.apply(vec![Effect::Schedule { tournament: id }]).await
    }

    /// Plays the timeout of `seat` in the game `tracked` at `version` in a
    /// task of its own; the game is read again when it is done.
    fn fire_timeout(&self, tracked: Tracked, version: i64, seat: usize) {
        let match_id = tracked.match_id;
        let timeout = Timeout {
            store: self.store.clone(),
            hub: Arc::clone(&self.hub),
            pool: self.pool.clone(),
            messages: self.messages.clone(),
            tracked,
            version,
            seat,
        };
        actix_web::rt::spawn(async move {
            if let Err(error) = timeout.play().await {
                tracing::warn!(match_id, error = %error, "a timeout could not be played");
                // Tried again after a pause, unless the game changes.
                actix_web::rt::time::sleep(Duration::from_secs(1)).await;
            }
            let _ = timeout.messages.send(Message::Match(match_id));
        });
    }
}

/// A missed deadline being played.
struct Timeout {
    store: Store,
    hub: Arc<Hub>,
    pool: HeavyPool,
    messages: mpsc::UnboundedSender<Message>,
    tracked: Tracked,
    version: i64,
    seat: usize,
}

impl Timeout {
    async fn play(&self) -> Result<(), Failure> {
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
            .run_urgent(Group::Tournament(self.tracked.tournament), move || {
                logic::timeout_move(match_id, &position, ply)
            })
            .await?;
        let Some(record) = self
            .store
            .record_timeout(match_id, version, seat, mv, self.tracked.max_timeouts)
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
        if let Some((entrant, since)) = record.absent {
            tracing::info!(
                tournament_id = self.tracked.tournament,
                entrant,
                "an entrant missed its turns in a row: absent, its turns forfeited at once until it asks for them again"
            );
            self.hub
                .tell_presence(self.tracked.tournament, entrant, Some(since));
        }
        // The `timeout` event is told by `on_match` from the stored row, on
        // every replica alike (the store told them all of the change); the
        // bot runner heard of it too.
        Ok(())
    }
}
