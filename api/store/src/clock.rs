//! The time a write stores: the database's clock, or one a test or a tool
//! sets and moves by hand ([`Clock`], given to a connection with
//! [`crate::sql::Db::set_clock`]), so that what depends on the order and the
//! distance of stored times (an entrant's missed turns in a row, its
//! return) is tested with times it chose, never with the machine's.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use jiff::Timestamp;

/// A clock moved by hand; clones share it.
#[derive(Clone, Debug)]
pub struct Clock {
    now: Arc<Mutex<Timestamp>>,
}

impl Clock {
    /// A clock showing `at` (RFC 3339, e.g. `2026-03-01T10:00:00Z`).
    ///
    /// # Errors
    /// `at` is not such a time.
    pub fn at(at: &str) -> Result<Clock, jiff::Error> {
        Ok(Clock {
            now: Arc::new(Mutex::new(at.parse()?)),
        })
    }

    /// Moves the clock on by `by`.
    ///
    /// # Panics
    /// Past the year 9999.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now = now
            .checked_add(by)
            .expect("a test clock stays within the years 1 to 9999");
    }

    /// The time shown, as the rows store times: UTC, RFC 3339 with
    /// milliseconds (`2026-03-01T10:00:00.000Z`).
    pub fn text(&self) -> String {
        let now = *self.now.lock().unwrap_or_else(PoisonError::into_inner);
        format!(
            "{}.{:03}Z",
            now.strftime("%Y-%m-%dT%H:%M:%S"),
            now.subsec_millisecond()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_shows_what_it_was_set_to_and_moves_by_hand() {
        let clock = Clock::at("2026-03-01T10:00:00Z").unwrap();
        assert_eq!(clock.text(), "2026-03-01T10:00:00.000Z");
        let shared = clock.clone();
        shared.advance(Duration::from_millis(1_500));
        assert_eq!(clock.text(), "2026-03-01T10:00:01.500Z");
        clock.advance(Duration::from_secs(86_400));
        assert_eq!(clock.text(), "2026-03-02T10:00:01.500Z");
        assert!(Clock::at("yesterday").is_err());
    }
}
