//! The stored routes' wire: what `/v1/matches` and `/v1/tournaments` take
//! and answer, with their OpenAPI schemas, built from the store's domain
//! values. The store knows nothing of it (`api/tests/layers.rs` refuses
//! utoipa in the store): it answers matches, results and tournaments as
//! domain structs with typed times, and every word, status name and time
//! text a client reads is made here.

pub mod bots;
pub mod matches;
pub mod tournaments;

use jiff::Timestamp;

/// A time as the API shows it: UTC, RFC 3339 with milliseconds
/// (`2026-11-22T09:00:05.250Z`).
pub fn time(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_show_to_the_millisecond_in_utc() {
        let at: Timestamp = "2026-11-22T10:00:05.25+01:00".parse().unwrap();
        assert_eq!(time(at), "2026-11-22T09:00:05.250Z");
        assert_eq!(time(Timestamp::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
