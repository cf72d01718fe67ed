//! The store's commands: every write the server makes, each a method of
//! [`Store`] that takes parsed domain values, runs its own transaction on
//! the writer thread and answers once it has committed. What the command
//! changed (a match's new version, a created match, a tournament's change)
//! is recorded by the transaction as the rows change and told to every
//! listener by the writer after the commit (`Store::commit`); the caller
//! never publishes, and a command that fails tells nothing.
//!
//! A new command is a function over a [`crate::sql::Db`] that runs
//! [`crate::sql::Db::transaction`] (and records a tournament's change with
//! `Db::tournament_changed` if it makes one; a match's
//! version is recorded by the statements that change it), plus a method
//! here. A player's turn (a move, a resignation, a bot's move, a timeout)
//! runs through `Store::commit_turn`, ahead of the other writes waiting
//! ([`crate::writer`]); every other command through `Store::commit`.

use sternhalma::{Move, MoveText, Position};

use crate::error::Error;
use crate::matches::game::{self, BotTurn};
use crate::matches::model::Match;
use crate::matches::storage::SeatPlan;
use crate::matches::tokens::{Authority, TokenHash};
use crate::quota::{Creator, Owner};
use crate::store::Store;
use crate::tournaments::logic::{self, Action, Plan, Settled, TimeoutRecord};

impl Store {
    /// Creates a match from `start` and its `seats` (validated by the
    /// caller), stored as `owner`'s (none: the operator's); answers its
    /// state ([`game::create`]). The bot runner hears of it
    /// ([`crate::Event::Created`]).
    ///
    /// # Errors
    /// [`Error::Quota`] when `owner` has stored as many games as the quota
    /// lets it ([`Store::set_games_per_owner`]); a disk nearly full; database
    /// failures.
    pub async fn create_match(
        &self,
        start: Position,
        seats: Vec<SeatPlan>,
        admin: TokenHash,
        owner: Option<Owner>,
    ) -> Result<Match, Error> {
        self.room_for_new()?;
        let creator = Creator::new(owner, self.games_per_owner());
        self.commit(move |db| game::create(db, &start, &seats, &admin, &creator))
            .await
    }

    /// Plays `text` for the seat holding `token` in match `id` at `ply`
    /// ([`game::submit`]); answers the match's new version.
    ///
    /// # Errors
    /// As [`game::submit`]: unknown match, wrong token, closed match,
    /// stale ply, not this seat's turn, illegal move.
    pub async fn submit_move(
        &self,
        id: i64,
        token: TokenHash,
        ply: u32,
        text: MoveText,
    ) -> Result<i64, Error> {
        self.commit_turn(move |db| game::submit(db, id, &token, ply, &text))
            .await
    }

    /// The seat holding `token` resigns match `id` ([`game::resign`]);
    /// answers the state after it.
    ///
    /// # Errors
    /// As [`game::resign`].
    pub async fn resign(&self, id: i64, token: TokenHash) -> Result<Match, Error> {
        self.commit_turn(move |db| game::resign(db, id, &token))
            .await
    }

    /// Match `id` abandoned `by` its creator or the operator
    /// ([`game::abandon`]); answers the final state.
    ///
    /// # Errors
    /// As [`game::abandon`].
    pub async fn abandon(&self, id: i64, by: Authority) -> Result<Match, Error> {
        self.commit(move |db| game::abandon(db, id, &by)).await
    }

    /// Stores `mv`, the move `turn`'s bot chose, if the match has not
    /// changed since ([`game::play_bot`]); answers its new version, or
    /// `None` when it had.
    ///
    /// # Errors
    /// As [`game::play_bot`].
    pub async fn play_bot(&self, turn: BotTurn, mv: Move) -> Result<Option<i64>, Error> {
        self.commit_turn(move |db| game::play_bot(db, &turn, mv))
            .await
    }

    /// The bot of `turn` cannot move ([`BotTurn::choose`]): the match
    /// ends (`bot_unavailable`) if it has not changed since
    /// ([`game::bot_unavailable`]); answers its new version, or `None`.
    ///
    /// # Errors
    /// Database failures.
    pub async fn bot_unavailable(&self, turn: BotTurn) -> Result<Option<i64>, Error> {
        self.commit(move |db| game::bot_unavailable(db, &turn))
            .await
    }

    /// Stores a planned tournament ([`logic::create`]) as `owner`'s (none:
    /// the operator's); answers its id.
    ///
    /// # Errors
    /// [`Error::Quota`] when its games would take `owner` past the quota;
    /// a disk nearly full; database failures.
    pub async fn create_tournament(
        &self,
        plan: Plan,
        admin: TokenHash,
        owner: Option<Owner>,
    ) -> Result<i64, Error> {
        self.room_for_new()?;
        let creator = Creator::new(owner, self.games_per_owner());
        self.commit(move |db| logic::create(db, &plan, &admin, &creator))
            .await
    }

    /// Starts, pauses or abandons tournament `id`, asked `by` its admin
    /// token or the operator ([`logic::act`]).
    ///
    /// # Errors
    /// As [`logic::act`].
    pub async fn act_on_tournament(
        &self,
        id: i64,
        by: Authority,
        action: Action,
    ) -> Result<(), Error> {
        self.commit(move |db| logic::act(db, id, &by, action)).await
    }

    /// Withdraws entrant `entrant` from tournament `id`, asked `by` its
    /// admin token or the operator ([`logic::withdraw`]).
    ///
    /// # Errors
    /// As [`logic::withdraw`].
    pub async fn withdraw_entrant(
        &self,
        id: i64,
        entrant: usize,
        by: Authority,
    ) -> Result<(), Error> {
        self.commit(move |db| logic::withdraw(db, id, entrant, &by))
            .await
    }

    /// Open entrant `entrant` of tournament `id` asked for its turns: no
    /// longer absent ([`logic::present`]). Answers whether it was.
    ///
    /// # Errors
    /// Database failures.
    pub async fn mark_present(&self, id: i64, entrant: usize) -> Result<bool, Error> {
        self.commit(move |db| logic::present(db, id, entrant)).await
    }

    /// Records the outcomes of tournament `id`'s games numbered `over` and
    /// starts the games that can start ([`logic::settle`], a finished game
    /// judged by the store's tables, [`Store::tables`]): the director's
    /// write after games ended.
    ///
    /// # Errors
    /// As [`logic::settle`].
    pub async fn settle_games(&self, id: i64, over: Vec<usize>) -> Result<Settled, Error> {
        let tables = std::sync::Arc::clone(self.tables());
        self.commit(move |db| logic::settle(db, &tables, id, &over))
            .await
    }

    /// Seat `seat` of match `match_id` missed its deadline at `version`:
    /// the timeout recorded and `mv` played for it, or the game forfeited
    /// at its `max_timeouts`-th ([`logic::record_timeout`]). `None` when
    /// the match had moved on.
    ///
    /// # Errors
    /// As [`logic::record_timeout`].
    pub async fn record_timeout(
        &self,
        match_id: i64,
        version: i64,
        seat: usize,
        mv: Move,
        max_timeouts: u32,
    ) -> Result<Option<TimeoutRecord>, Error> {
        self.commit_turn(move |db| {
            logic::record_timeout(db, match_id, version, seat, mv, max_timeouts)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use sternhalma::{Layout, Position};

    use crate::error::Error;
    use crate::matches::status::MatchStatus;
    use crate::matches::{game, storage};
    use crate::store::{Event, Store};

    #[test]
    fn a_change_rolled_back_is_never_told_nor_carried_into_the_next_command() {
        let database = crate::db::scratch("commands_rollback").unwrap();
        let (store, _) = Store::open(&database, std::sync::Arc::default()).unwrap();
        let mut events = store.events();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let start = Position::start(
                "star2".parse().unwrap(),
                Layout::standard(2).unwrap(),
                "classic".parse().unwrap(),
            )
            .unwrap();
            let seat = |n: u8| storage::SeatPlan {
                name: format!("open {n}"),
                bot: None,
                token_hash: Some([n; 32]),
            };
            let created = store
                .create_match(start.clone(), vec![seat(1), seat(2)], [9; 32], None)
                .await
                .unwrap();
            let id = created.id;
            assert_eq!(events.try_recv().ok(), Some(Event::Created(id)));

            // The version grows (and is recorded), then the command fails.
            let text = start.to_string();
            let failed = store
                .commit(move |db| {
                    db.transaction(|db| {
                        let now = db.now()?;
                        storage::save_state(db, id, &text, 0, MatchStatus::InProgress, None, now)?;
                        Err::<(), _>(Error::Internal("a failure after the write".to_owned()))
                    })
                })
                .await;
            assert!(matches!(failed, Err(Error::Internal(_))), "{failed:?}");
            assert!(events.try_recv().is_err(), "a rolled-back change was told");
            let version = store
                .read(move |db| game::view(db, id))
                .await
                .unwrap()
                .version;
            assert_eq!(version, created.version, "the write was rolled back");

            // The next command on the same connection tells only its own.
            let quiet = store.commit(|db| db.transaction(|_| Ok(()))).await;
            assert!(quiet.is_ok());
            assert!(events.try_recv().is_err(), "the rolled-back change leaked");
        });
    }
}
