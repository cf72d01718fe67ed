//! What stops a step of the server's background work (the bot runner, the
//! tournament director): the store's error or the heavy-work pool's
//! refusal. Background work answers no request, so it speaks neither HTTP
//! nor problem details: it logs the failure and tries again later.

use sternhalma_pool::Refused;
use sternhalma_store::Error as StoreError;

/// A failed step of background work.
#[derive(Debug)]
pub enum Failure {
    /// The store refused or failed (the database unavailable, a row gone).
    Store(StoreError),
    /// The heavy-work pool did not run the search (its task panicked).
    Pool(Refused),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Store(error) => write!(f, "{error}"),
            Failure::Pool(refused) => write!(f, "{refused}"),
        }
    }
}

impl std::error::Error for Failure {}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Failure {
        Failure::Store(error)
    }
}

impl From<Refused> for Failure {
    fn from(refused: Refused) -> Failure {
        Failure::Pool(refused)
    }
}
