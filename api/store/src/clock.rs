//! Stored times: a [`Timestamp`] in the store, text in the rows.
//!
//! Every time the store keeps (a match's creation, a move, a timeout, an
//! entrant's withdrawal) is a [`Timestamp`] wherever the store holds it; a
//! row holds it as text of one fixed width ([`stored`]: UTC, RFC 3339 with
//! milliseconds), so that SQL compares and sorts times as text on both
//! dialects, and [`parse_stored`] reads it back.
//!
//! The time a write stores is the database's clock, or one a test or a
//! tool sets and moves by hand ([`Clock`], given to a connection with
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

    /// The time shown, to the millisecond (what a row keeps of it).
    pub fn now(&self) -> Timestamp {
        let now = *self.now.lock().unwrap_or_else(PoisonError::into_inner);
        now.round(jiff::Unit::Millisecond)
            .expect("a test clock stays within the years 1 to 9999")
    }
}

/// `at` as a row stores it: UTC, RFC 3339 with milliseconds
/// (`2026-03-01T10:00:00.000Z`), always 24 characters (years 1000 to
/// 9999), so that text order is time order.
pub fn stored(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A stored time read back ([`stored`]'s form, or any RFC 3339 time).
///
/// # Errors
/// `text` is not an RFC 3339 time.
pub fn parse_stored(text: &str) -> Result<Timestamp, jiff::Error> {
    text.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_shows_what_it_was_set_to_and_moves_by_hand() {
        let clock = Clock::at("2026-03-01T10:00:00Z").unwrap();
        assert_eq!(stored(clock.now()), "2026-03-01T10:00:00.000Z");
        let shared = clock.clone();
        shared.advance(Duration::from_millis(1_500));
        assert_eq!(stored(clock.now()), "2026-03-01T10:00:01.500Z");
        clock.advance(Duration::from_secs(86_400));
        assert_eq!(stored(clock.now()), "2026-03-02T10:00:01.500Z");
        assert!(Clock::at("yesterday").is_err());
    }

    #[test]
    fn stored_times_read_back_and_sort_as_text() {
        let times = [
            "2026-03-01T09:59:59.999Z",
            "2026-03-01T10:00:00.000Z",
            "2026-03-01T10:00:00.010Z",
            "2026-12-31T23:59:59.999Z",
        ];
        for pair in times.windows(2) {
            let (a, b) = (
                parse_stored(pair[0]).unwrap(),
                parse_stored(pair[1]).unwrap(),
            );
            assert!(a < b && stored(a) < stored(b));
        }
        for text in times {
            assert_eq!(stored(parse_stored(text).unwrap()), text);
        }
        // The database's own form (PostgreSQL's to_char, SQLite's
        // strftime) reads the same.
        assert_eq!(
            parse_stored("2026-03-01T10:00:00.5Z").unwrap(),
            parse_stored("2026-03-01T10:00:00.500Z").unwrap()
        );
        assert!(parse_stored("yesterday").is_err());
    }
}
