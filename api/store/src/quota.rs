//! What one client may store: its games.
//!
//! A match or a tournament created by a client (an address, keyed as the
//! server's per-client limits key it) is stored with that client as its
//! owner ([`Owner`]). With a quota set ([`Store::set_games_per_owner`]),
//! a creation that would take its owner's stored games past it is refused
//! ([`crate::Error::Quota`]) inside the creating transaction, so two
//! creations at once cannot both slip under it, and nothing stored before
//! is touched. A client's games are its matches and the games of its
//! tournaments' schedules (a tournament's games are planned in full when it
//! is created), finished and abandoned ones included: they stay on the
//! disk. A game grows by its moves, which the rules bound (a program's
//! move limit, or the tournament's), so games are the measure of the disk
//! a client takes.
//!
//! What the operator creates (with the admin key), what the tournaments'
//! directors create (their games) and what a server before the owners'
//! migration created has no owner and counts against nobody.
//!
//! [`Store::set_games_per_owner`]: crate::Store::set_games_per_owner

use crate::error::Error;
use crate::sql::{Db, params};

/// Games one client may have stored in `sternhalma serve`, unless configured
/// otherwise (`--stored-games-per-client`). A student playing stored
/// matches for a term (a few hundred) and a class's round robins (780 games
/// for forty entrants) fit; at a few kilobytes to a few tens of kilobytes a
/// game, one client stores at most about a hundred megabytes.
pub const DEFAULT_GAMES_PER_OWNER: u64 = 5_000;

/// Who stored a match or a tournament: a client's key, as text (an IP
/// address, an IPv6 one by its /64 prefix). Opaque to the store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Owner(String);

impl Owner {
    /// The client keyed `key`.
    pub fn new(key: impl Into<String>) -> Owner {
        Owner(key.into())
    }

    /// The key as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The games `owner` has stored: its matches, and the games of its
/// tournaments.
///
/// # Errors
/// A database failure.
pub fn stored_games(db: &Db, owner: &Owner) -> Result<u64, Error> {
    let row = db.query_one(
        "SELECT (SELECT COUNT(*) FROM matches WHERE owner = ?1)
              + (SELECT COUNT(*) FROM tournament_games g
                   JOIN tournaments t ON t.id = g.tournament_id
                  WHERE t.owner = ?1) AS games",
        params![owner.as_str()],
    )?;
    Ok(u64::try_from(row.int("games")?).unwrap_or(0))
}

/// Whether `owner` may store `adding` more games under `quota`, inside the
/// caller's transaction.
///
/// # Errors
/// [`Error::Quota`] past it, naming what is stored and the quota; a
/// database failure.
pub fn check(db: &Db, owner: &Owner, quota: u64, adding: u64) -> Result<(), Error> {
    if db.is_postgres() {
        // Replicas write at once on PostgreSQL (read committed): the
        // owner's creations take turns, so that two cannot both count
        // what is stored before either is. Released at the commit. (On
        // SQLite one writer at a time holds the whole database.)
        db.query_one(
            "SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(8, hashtext(?1))) AS taken",
            params![owner.as_str()],
        )?;
    }
    let stored = stored_games(db, owner)?;
    if stored.saturating_add(adding) <= quota {
        return Ok(());
    }
    let what = if adding == 1 {
        "a match".to_owned()
    } else {
        format!("{adding} more games")
    };
    Err(Error::Quota(format!(
        "this client ({}) has stored {stored} games (matches and tournament games, finished ones included), and {what} would take it past the {quota} one client may store; ask the server's operator (`--stored-games-per-client`)",
        owner.as_str()
    )))
}

/// Who creates a match or a tournament, and the quota it is held to: what
/// a creation stores as its owner and checks before it does.
#[derive(Clone, Debug, Default)]
pub struct Creator {
    owner: Option<Owner>,
    quota: Option<u64>,
}

impl Creator {
    /// `owner` (none: the operator's or the server's own), held to `quota`
    /// games (none: no quota).
    pub fn new(owner: Option<Owner>, quota: Option<u64>) -> Creator {
        Creator { owner, quota }
    }

    /// The owner's key, as stored.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_ref().map(Owner::as_str)
    }

    /// Whether the creator may store `adding` more games ([`check`]), in
    /// the caller's transaction: always, without an owner or a quota.
    ///
    /// # Errors
    /// As [`check`].
    pub fn may_store(&self, db: &Db, adding: u64) -> Result<(), Error> {
        match (&self.owner, self.quota) {
            (Some(owner), Some(quota)) => check(db, owner, quota, adding),
            _ => Ok(()),
        }
    }
}
