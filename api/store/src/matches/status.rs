//! Where a stored match stands and how it ended: stored by their names,
//! and shown on the wire as they are.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Moves are being played.
    InProgress,
    /// Over: the game reached its outcome, or a seat resigned.
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The game reached its outcome on the board (won, tie, ranking, draw).
    Outcome,
    /// A seat resigned: it is last, every other seat shares first place.
    Resignation,
    /// The creator abandoned it: no result (every result 0).
    Abandoned,
    /// Only bots were left to move and they did not finish within the
    /// server's limit of plies per request: abandoned, every result 0.
    BotLimit,
}

impl Ending {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Outcome => "outcome",
            Ending::Resignation => "resignation",
            Ending::Abandoned => "abandoned",
            Ending::BotLimit => "bot_limit",
        }
    }

    /// The ending named `name` ([`Ending::as_str`]).
    pub fn from_name(name: &str) -> Option<Ending> {
        [
            Ending::Outcome,
            Ending::Resignation,
            Ending::Abandoned,
            Ending::BotLimit,
        ]
        .into_iter()
        .find(|ending| ending.as_str() == name)
    }

    /// The status of a match that ended this way: finished with a result,
    /// or abandoned without one.
    pub fn status(self) -> MatchStatus {
        match self {
            Ending::Outcome | Ending::Resignation => MatchStatus::Finished,
            Ending::Abandoned | Ending::BotLimit => MatchStatus::Abandoned,
        }
    }
}
