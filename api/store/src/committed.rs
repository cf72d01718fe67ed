//! What a store command committed: its answer and the changes it made,
//! which the store tells its listeners after the commit, in one place
//! ([`crate::Store`]'s writer).
//!
//! A command never publishes. Its transaction ([`crate::sql::Db::transaction`])
//! gathers the changes as the rows change: a match's version grows in
//! exactly two statements ([`crate::matches::storage::save_state`] and
//! [`crate::matches::storage::close`]), and each records the new version
//! itself; a tournament's change is recorded by the command that makes it
//! (`Db::tournament_changed`). A [`Committed`] exists only
//! once its transaction has committed, so nothing is told of a rollback.

/// The changes one transaction committed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Matches changed, each once, with its version after the
    /// transaction, in the order they first changed.
    matches: Vec<(i64, i64)>,
    /// Matches created, in order.
    created: Vec<i64>,
    /// Tournaments whose status or entrants changed: told to every
    /// listener, here and on the other replicas.
    tournaments: Vec<i64>,
    /// Tournaments whose games were scheduled by this replica's director:
    /// told to the other replicas only (the director that settled them
    /// knows from the command's answer).
    scheduled: Vec<i64>,
    /// Whether the bot runner made these changes (a bot's move, or the end
    /// of a match whose bot could not move): the runner, which goes on by
    /// itself, is not kicked by its own writes.
    by_bot: bool,
}

impl Changes {
    /// Match `id` is at `version` now.
    pub(crate) fn record_match(&mut self, id: i64, version: i64) {
        match self
            .matches
            .iter_mut()
            .find(|(match_id, _)| *match_id == id)
        {
            Some((_, latest)) => *latest = (*latest).max(version),
            None => self.matches.push((id, version)),
        }
    }

    /// Match `id` was created.
    pub(crate) fn record_created(&mut self, id: i64) {
        if !self.created.contains(&id) {
            self.created.push(id);
        }
    }

    /// Tournament `id` changed (told to everyone).
    pub(crate) fn record_tournament(&mut self, id: i64) {
        if !self.tournaments.contains(&id) {
            self.tournaments.push(id);
        }
    }

    /// Tournament `id`'s games were scheduled by this replica's director.
    pub(crate) fn record_scheduled(&mut self, id: i64) {
        if !self.scheduled.contains(&id) {
            self.scheduled.push(id);
        }
    }

    /// The changes are the bot runner's own.
    pub(crate) fn record_by_bot(&mut self) {
        self.by_bot = true;
    }

    /// Whether the bot runner made these changes.
    pub fn by_bot(&self) -> bool {
        self.by_bot
    }

    /// The matches changed, as (id, version after the transaction).
    pub fn matches(&self) -> &[(i64, i64)] {
        &self.matches
    }

    /// The matches created.
    pub fn created(&self) -> &[i64] {
        &self.created
    }

    /// The tournaments changed, told to every listener.
    pub fn tournaments(&self) -> &[i64] {
        &self.tournaments
    }

    /// The tournaments scheduled by this replica's director, told to the
    /// other replicas only.
    pub fn scheduled(&self) -> &[i64] {
        &self.scheduled
    }

    /// Whether the transaction changed nothing anyone listens for.
    pub fn is_empty(&self) -> bool {
        self.matches.is_empty()
            && self.created.is_empty()
            && self.tournaments.is_empty()
            && self.scheduled.is_empty()
    }
}

/// A command's answer after its transaction committed, with the changes it
/// made. Made only by [`crate::sql::Db::transaction`].
#[derive(Debug)]
#[must_use = "a committed change is told to listeners by the store's writer"]
pub struct Committed<T> {
    value: T,
    changes: Changes,
}

impl<T> Committed<T> {
    pub(crate) fn new(value: T, changes: Changes) -> Committed<T> {
        Committed { value, changes }
    }

    /// The command's answer.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// What the transaction changed.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }

    /// The answer, the changes left untold (a tool or a test with no
    /// listeners).
    pub fn into_value(self) -> T {
        self.value
    }

    /// The answer and the changes.
    pub fn into_parts(self) -> (T, Changes) {
        (self.value, self.changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_is_told_once_at_its_latest_version() {
        let mut changes = Changes::default();
        changes.record_match(4, 7);
        changes.record_match(9, 1);
        changes.record_match(4, 8);
        assert_eq!(changes.matches(), &[(4, 8), (9, 1)]);
        changes.record_tournament(2);
        changes.record_tournament(2);
        assert_eq!(changes.tournaments(), &[2]);
        assert!(!changes.is_empty());
        assert!(Changes::default().is_empty());
    }
}
