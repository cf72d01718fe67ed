//! Where a stored match stands, how it ended and why a seat forfeited:
//! stored by their names (the server's wire mirrors them,
//! `api/src/wire/matches.rs`).

use serde::{Deserialize, Serialize};

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Moves are being played.
    InProgress,
    /// Over: the game reached its outcome, or a seat resigned or forfeited.
    Finished,
    /// Stopped by its creator (admin token), or by the server when its
    /// bots could not finish the game.
    Abandoned,
}

impl MatchStatus {
    /// The name stored in the database and shown on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchStatus::InProgress => "in_progress",
            MatchStatus::Finished => "finished",
            MatchStatus::Abandoned => "abandoned",
        }
    }

    /// The status named `name` ([`MatchStatus::as_str`]).
    pub fn from_name(name: &str) -> Option<MatchStatus> {
        [
            MatchStatus::InProgress,
            MatchStatus::Finished,
            MatchStatus::Abandoned,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
    }
}

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The game reached its outcome on the board (won, tie, ranking, draw).
    Outcome,
    /// A seat resigned: it is last, every other seat shares first place.
    Resignation,
    /// A seat forfeited (in a tournament: too many timeouts in the game,
    /// or its entrant was withdrawn): scored as a resignation, it is last
    /// and every other seat shares first place. (With three or more seats
    /// a forfeiter leaves the game as a resigner does and the others play
    /// on; the match then ends by its `outcome`, with the forfeit in the
    /// result's `forfeits`.)
    Forfeit,
    /// The creator abandoned it: no result (every result 0).
    Abandoned,
    /// Only bots were left to move and they did not finish within the
    /// server's limit of plies per request: abandoned, every result 0.
    BotLimit,
    /// The built-in bot to move could not (a `perfect` seat on a server
    /// that no longer has its game's table): abandoned, every result 0;
    /// `resigned_seat` names the bot's seat. No other bot plays in its
    /// place.
    BotUnavailable,
}

impl Ending {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Outcome => "outcome",
            Ending::Resignation => "resignation",
            Ending::Forfeit => "forfeit",
            Ending::Abandoned => "abandoned",
            Ending::BotLimit => "bot_limit",
            Ending::BotUnavailable => "bot_unavailable",
        }
    }

    /// The ending named `name` ([`Ending::as_str`]).
    pub fn from_name(name: &str) -> Option<Ending> {
        [
            Ending::Outcome,
            Ending::Resignation,
            Ending::Forfeit,
            Ending::Abandoned,
            Ending::BotLimit,
            Ending::BotUnavailable,
        ]
        .into_iter()
        .find(|ending| ending.as_str() == name)
    }

    /// The status of a match that ended this way: finished with a result,
    /// or abandoned without one.
    pub fn status(self) -> MatchStatus {
        match self {
            Ending::Outcome | Ending::Resignation | Ending::Forfeit => MatchStatus::Finished,
            Ending::Abandoned | Ending::BotLimit | Ending::BotUnavailable => MatchStatus::Abandoned,
        }
    }
}

/// Why a seat forfeited a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// It missed its deadline the tournament's `max_timeouts` times in the
    /// game.
    Timeouts,
    /// Its entrant was withdrawn from the tournament by the organiser.
    Withdrawn,
    /// Its entrant is absent (it missed its deadline `max_timeouts` times
    /// in a row, over its games, and has not asked for its turns since):
    /// its turn was forfeited at once.
    Absent,
}

impl ForfeitReason {
    /// The name stored in the database and shown on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Timeouts => "timeouts",
            ForfeitReason::Withdrawn => "withdrawn",
            ForfeitReason::Absent => "absent",
        }
    }

    /// The reason named `name` ([`ForfeitReason::as_str`]).
    pub fn from_name(name: &str) -> Option<ForfeitReason> {
        [
            ForfeitReason::Timeouts,
            ForfeitReason::Withdrawn,
            ForfeitReason::Absent,
        ]
        .into_iter()
        .find(|reason| reason.as_str() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for ending in [
            Ending::Outcome,
            Ending::Resignation,
            Ending::Forfeit,
            Ending::Abandoned,
            Ending::BotLimit,
            Ending::BotUnavailable,
        ] {
            assert_eq!(Ending::from_name(ending.as_str()), Some(ending));
            let wire = serde_json::to_value(ending).unwrap();
            assert_eq!(wire, ending.as_str());
        }
        assert_eq!(Ending::Forfeit.status(), MatchStatus::Finished);
        for reason in [
            ForfeitReason::Timeouts,
            ForfeitReason::Withdrawn,
            ForfeitReason::Absent,
        ] {
            assert_eq!(ForfeitReason::from_name(reason.as_str()), Some(reason));
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
        }
        assert_eq!(Ending::from_name("forfeited"), None);
    }
}
