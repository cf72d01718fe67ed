//! What the `/v1/matches` routes take and answer, built from the store's
//! matches (`sternhalma_store::matches::model`).

use serde::Serialize;
use utoipa::ToSchema;

use sternhalma_store::matches::status as stored;

/// Where a match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
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

impl From<stored::MatchStatus> for MatchStatus {
    fn from(status: stored::MatchStatus) -> MatchStatus {
        match status {
            stored::MatchStatus::InProgress => MatchStatus::InProgress,
            stored::MatchStatus::Finished => MatchStatus::Finished,
            stored::MatchStatus::Abandoned => MatchStatus::Abandoned,
        }
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

impl From<stored::Ending> for Ending {
    fn from(ending: stored::Ending) -> Ending {
        match ending {
            stored::Ending::Outcome => Ending::Outcome,
            stored::Ending::Resignation => Ending::Resignation,
            stored::Ending::Forfeit => Ending::Forfeit,
            stored::Ending::Abandoned => Ending::Abandoned,
            stored::Ending::BotLimit => Ending::BotLimit,
            stored::Ending::BotUnavailable => Ending::BotUnavailable,
        }
    }
}

/// Why a seat forfeited a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
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

impl From<stored::ForfeitReason> for ForfeitReason {
    fn from(reason: stored::ForfeitReason) -> ForfeitReason {
        match reason {
            stored::ForfeitReason::Timeouts => ForfeitReason::Timeouts,
            stored::ForfeitReason::Withdrawn => ForfeitReason::Withdrawn,
            stored::ForfeitReason::Absent => ForfeitReason::Absent,
        }
    }
}
