//! The built-in bots of stored matches, played in the background.
//!
//! After any change that may leave a bot to move (a match created, a move,
//! a resignation, a server start), the route [kicks](BotRunner::kick) the
//! match. One task per match then loops: read the bot's turn
//! ([`game::bot_turn`], on a read connection), search on the heavy-work
//! pool (never on the writer, never on actix's workers: its urgent lane for
//! a reply an open seat waits for, its background lane when only bots are
//! left to play), and
//! store the move with a version check ([`game::play_bot`]), waking the
//! match's long-polls. If the match changed meanwhile, the move is dropped
//! and the turn read and searched again. The task stops when no bot is to
//! move; a match is never played by two tasks of one server at once
//! ([`Store::begin_bots`]). With several replicas (PostgreSQL) two
//! replicas may search the same ply; the version check keeps one move, and
//! the run whose move was dropped stops (the other goes on).
//!
//! Each step is one ply, so bot-only continuations (every open seat
//! finished or resigned) run in bounded steps that the long-poll shows as
//! they come, and a request never plays more than its own move.

use std::time::Duration;

use crate::error::ApiError;
use crate::heavy::HeavyPool;
use crate::matches::game;
use crate::store::Store;

/// Failed steps in a row (the database unavailable) before a run gives up;
/// the next kick (a read of the match, a move, a server start) resumes it.
const MAX_FAILURES: u32 = 5;

/// Plays stored matches' bots in the background. Cheap to clone.
#[derive(Clone)]
pub struct BotRunner {
    store: Store,
    pool: HeavyPool,
}

impl BotRunner {
    /// Bots of `store`'s matches, searching on `pool`.
    pub fn new(store: Store, pool: HeavyPool) -> BotRunner {
        BotRunner { store, pool }
    }

    /// Makes sure match `id`'s bots are played if one is to move: starts a
    /// task, or tells the running one to look again. Must be called on an
    /// actix (tokio) runtime.
    pub fn kick(&self, id: i64) {
        if self.store.begin_bots(id) {
            actix_web::rt::spawn(self.clone().run(id));
        }
    }

    /// Kicks every match in progress with a bot to move: at a server start.
    ///
    /// # Errors
    /// The database cannot be read.
    pub async fn resume_all(&self) -> Result<usize, ApiError> {
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
            store: self.store.clone(),
            id,
            held: true,
        };
        let mut failures = 0;
        loop {
            match self.step(id).await {
                Ok(true) => failures = 0,
                Ok(false) => {
                    if !self.store.end_bots(id) {
                        claim.held = false;
                        return;
                    }
                }
                Err(error) => {
                    failures += 1;
                    tracing::warn!(match_id = id, failures, error = %error.problem().detail, "a bot step failed");
                    if failures >= MAX_FAILURES {
                        // Released, so the next kick starts afresh.
                        self.store.release_bots(id);
                        claim.held = false;
                        return;
                    }
                    actix_web::rt::time::sleep(Duration::from_millis(100 << failures)).await;
                }
            }
        }
    }

    /// One bot move of match `id`: `false` when no bot is to move.
    async fn step(&self, id: i64) -> Result<bool, ApiError> {
        let Some(turn) = self
            .store
            .read(move |connection| game::bot_turn(connection, id))
            .await?
        else {
            return Ok(false);
        };
        let searched = turn.clone();
        // A reply an open seat waits for goes in the urgent lane; bots left
        // alone (a continuation nobody waits for) only use what is spare.
        let mv = if turn.open_seat_waits {
            self.pool.run_urgent(move || searched.choose()).await?
        } else {
            self.pool.run_background(move || searched.choose()).await?
        };
        let notifier = self.store.clone();
        let stored = self
            .store
            .write(move |connection| {
                let version = game::play_bot(connection, &turn, mv)?;
                if let Some(version) = version {
                    notifier.publish(id, version);
                }
                Ok(version)
            })
            .await?;
        // Stored, or the match changed meanwhile: either way, look again.
        // With several replicas a change meanwhile may be another replica
        // playing the same bots: this run stops rather than search every
        // ply twice (a kick here, or the director's sweep, starts it again).
        Ok(stored.is_some() || !self.store.is_shared())
    }
}

/// A match claimed by a run ([`Store::begin_bots`]), released if the run
/// is dropped while it `held` it.
struct Claim {
    store: Store,
    id: i64,
    held: bool,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if self.held {
            self.store.release_bots(self.id);
        }
    }
}
