//! The built-in bots of stored matches, played in the background.
//!
//! The runner listens to the store's events ([`BotRunner::start`]): after
//! any change this replica commits to a match (created, a move, a
//! resignation, a timeout, a forfeit) it [kicks](BotRunner::kick) the
//! match, as it does at a server start, for a director's new game, and
//! when a read finds a bot to move and nobody playing it. One task per
//! match then loops: read the bot's turn
//! ([`game::bot_turn`], on a read connection), search on the heavy-work
//! pool (never on the writer, never on actix's workers: its urgent lane for
//! a reply an open seat waits for, its background lane when only bots are
//! left to play), and
//! store the move with a version check ([`Store::play_bot`]), which the
//! store tells the match's long-polls. If the match changed meanwhile, the move is dropped
//! and the turn read and searched again. The task stops when no bot is to
//! move; a match is never played by two tasks of one server at once
//! (the runner's claims). With several replicas (PostgreSQL) two
//! replicas may search the same ply; the version check keeps one move, and
//! the run whose move was dropped stops (the other goes on).
//!
//! Searches are queued under the match's [`Group`]: every game of a
//! tournament in one group, any other match in a group of its own, so the
//! pool serves a big tournament's games and a neighbour's in turn. Their
//! moves are stored at most [`WRITES_PER_GROUP`] at a time per group: the
//! database's one writer takes its jobs in arrival order, and a tournament
//! of 64 games would otherwise keep 64 of them ahead of a neighbour's one.
//!
//! Each step is one ply, so bot-only continuations (every open seat
//! finished or resigned) run in bounded steps that the long-poll shows as
//! they come, and a request never plays more than its own move.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::failure::Failure;
use sternhalma_pool::{Group, HeavyPool};
use sternhalma_store::matches::game;
use sternhalma_store::store::{Event, Store, lock};
use sternhalma_store::tournaments::storage::game_of_match;

/// Failed steps in a row (the database unavailable) before a run gives up;
/// the next kick (a read of the match, a move, a server start) resumes it.
const MAX_FAILURES: u32 = 5;

/// The bot moves of one [`Group`] waiting for (or in) the database's
/// writer at once: two keep the writer busy with the group's next move
/// while one is written, and delay anyone else's write by two at most.
pub const WRITES_PER_GROUP: usize = 2;

/// Plays stored matches' bots in the background. Cheap to clone: clones
/// share their claims, so make one per server.
#[derive(Clone)]
pub struct BotRunner {
    /// The store's events until the listener takes them.
    events: Arc<Mutex<Option<mpsc::UnboundedReceiver<Event>>>>,
    store: Store,
    pool: HeavyPool,
    claims: Claims,
    writes: WriteSlots,
}

impl BotRunner {
    /// Bots of `store`'s matches, searching on `pool`, kicked at every
    /// change this replica commits to a match: the store's events are
    /// heard on a thread of the runner's own (with its own runtime, where
    /// the runs it kicks live). Once per server.
    pub fn start(store: Store, pool: HeavyPool) -> BotRunner {
        let runner = BotRunner {
            // Subscribed now, before anything is played: no change is missed.
            events: Arc::new(Mutex::new(Some(store.events()))),
            store,
            pool,
            claims: Claims::default(),
            writes: WriteSlots::default(),
        };
        let listener = runner.clone();
        std::thread::Builder::new()
            .name("sternhalma-bots".to_owned())
            .spawn(move || {
                actix_web::rt::System::new().block_on(listener.listen());
            })
            .expect("a thread for the bot runner");
        runner
    }

    /// Kicks every match this replica changes (a change told by another
    /// replica is played there).
    async fn listen(self) {
        let Some(mut events) = lock(&self.events).take() else {
            return;
        };
        while let Some(event) = events.recv().await {
            match event {
                Event::Match {
                    id,
                    here: true,
                    by_bot: false,
                    ..
                }
                | Event::Created(id) => self.kick(id),
                Event::Match { .. } | Event::Tournament(_) | Event::Resync => {}
            }
        }
    }

    /// Makes sure match `id`'s bots are played if one is to move: starts a
    /// task, or tells the running one to look again. Must be called on an
    /// actix (tokio) runtime.
    pub fn kick(&self, id: i64) {
        if self.claims.begin(id) {
            actix_web::rt::spawn(self.clone().run(id));
        }
    }

    /// Kicks every match in progress with a bot to move: at a server start.
    ///
    /// # Errors
    /// The database cannot be read.
    pub async fn resume_all(&self) -> Result<usize, Failure> {
        let ids = self.store.read(game::with_bot_to_move).await?;
        for &id in &ids {
            self.kick(id);
        }
        Ok(ids.len())
    }

    async fn run(self, id: i64) {
        // Should this task be dropped before it ends (its worker stopped),
        // the claim is released, so the next kick starts a new run.
        let mut claim = Claim {
            claims: self.claims.clone(),
            id,
            held: true,
        };
        let mut failures = 0;
        let mut group = None;
        loop {
            // The group is read once, then each step plays a ply.
            let step = match group {
                Some(group) => self.step(id, group).await,
                None => self.group(id).await.map(|found| {
                    group = Some(found);
                    true
                }),
            };
            match step {
                Ok(true) => failures = 0,
                Ok(false) => {
                    if !self.claims.end(id) {
                        claim.held = false;
                        return;
                    }
                }
                Err(error) => {
                    failures += 1;
                    tracing::warn!(match_id = id, failures, error = %error, "a bot step failed");
                    if failures >= MAX_FAILURES {
                        // Released, so the next kick starts afresh.
                        self.claims.release(id);
                        claim.held = false;
                        return;
                    }
                    actix_web::rt::time::sleep(Duration::from_millis(100 << failures)).await;
                }
            }
        }
    }

    /// Whose work match `id`'s searches are: its tournament's, or its own.
    async fn group(&self, id: i64) -> Result<Group, Failure> {
        let game = self
            .store
            .read(move |connection| game_of_match(connection, id))
            .await?;
        Ok(game.map_or(Group::Match(id), |(tournament, _)| {
            Group::Tournament(tournament)
        }))
    }

    /// One bot move of match `id`, its searches queued as `group`'s:
    /// `false` when no bot is to move.
    async fn step(&self, id: i64, group: Group) -> Result<bool, Failure> {
        let Some(turn) = self
            .store
            .read(move |connection| game::bot_turn(connection, id))
            .await?
        else {
            return Ok(false);
        };
        let searched = turn.clone();
        // A perfect bot plays from the store's tables (the server's).
        let tables = Arc::clone(self.store.tables());
        // A reply an open seat waits for goes in the urgent lane; bots left
        // alone (a continuation nobody waits for) only use what is spare.
        let chosen = if turn.open_seat_waits {
            self.pool
                .run_urgent(group, move || searched.choose(&tables))
                .await?
        } else {
            self.pool
                .run_background(group, move || searched.choose(&tables))
                .await?
        };
        let _slot = self.writes.take(group).await;
        let stored = match chosen {
            Ok(mv) => self.store.play_bot(turn, mv).await?,
            // It cannot move (a perfect bot without its table): the match
            // ends, rather than wait or see another bot play; the log
            // says why.
            Err(why) => {
                let seat = turn.position.side_to_move();
                let ended = self.store.bot_unavailable(turn).await?;
                if ended.is_some() {
                    tracing::warn!(
                        match_id = id,
                        seat,
                        code = why.code,
                        "a built-in bot cannot move; its match ended: {why}"
                    );
                }
                ended
            }
        };
        // Stored, or the match changed meanwhile: either way, look again.
        // With several replicas a change meanwhile may be another replica
        // playing the same bots: this run stops rather than search every
        // ply twice (a kick here, or the director's sweep, starts it again).
        Ok(stored.is_some() || !self.store.is_shared())
    }
}

/// Each [`Group`]'s turns at the database's writer: at most
/// [`WRITES_PER_GROUP`] of its moves waiting or being written.
#[derive(Clone, Default)]
struct WriteSlots(Arc<Mutex<HashMap<Group, Arc<Semaphore>>>>);

impl WriteSlots {
    /// Waits for a turn of `group`'s, held until the permit is dropped.
    async fn take(&self, group: Group) -> OwnedSemaphorePermit {
        let semaphore = {
            let mut groups = lock(&self.0);
            // Forgotten once no run holds or waits for them: the table is
            // as small as the set of groups writing.
            groups.retain(|_, semaphore| Arc::strong_count(semaphore) > 1);
            Arc::clone(
                groups
                    .entry(group)
                    .or_insert_with(|| Arc::new(Semaphore::new(WRITES_PER_GROUP))),
            )
        };
        semaphore
            .acquire_owned()
            .await
            .expect("a group's semaphore is never closed")
    }
}

/// The matches whose built-in bots are being played, each with whether it
/// was asked to look again.
#[derive(Clone, Default)]
struct Claims(Arc<Mutex<HashMap<i64, bool>>>);

impl Claims {
    /// Claims match `id` for playing its built-in bots: `true` when no one
    /// was, and the caller now must; `false` when a run is under way, which
    /// is told to look again before it stops ([`Claims::end`]).
    fn begin(&self, id: i64) -> bool {
        let mut runs = lock(&self.0);
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
    fn end(&self, id: i64) -> bool {
        let mut runs = lock(&self.0);
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
    fn release(&self, id: i64) {
        lock(&self.0).remove(&id);
    }
}

/// A match claimed by a run ([`Claims::begin`]), released if the run is
/// dropped while it `held` it.
struct Claim {
    claims: Claims,
    id: i64,
    held: bool,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if self.held {
            self.claims.release(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_held_once_and_asked_again() {
        let claims = Claims::default();
        assert!(claims.begin(4), "the first kick runs");
        assert!(!claims.begin(4), "a second kick only asks again");
        assert!(claims.end(4), "the run looks again");
        assert!(!claims.end(4), "then stops, released");
        assert!(claims.begin(4), "a later kick runs again");
        claims.release(4);
        assert!(claims.begin(4), "a run that gave up left it free");
    }
}
