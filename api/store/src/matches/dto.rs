//! What the tournaments' wire still takes from the matches' (until it moves
//! to the server's crate as the matches' did).

use serde::Serialize;
use utoipa::ToSchema;

pub use crate::matches::model::{Forfeit, MAX_NAME_CHARS};
pub use crate::matches::status::{Ending, ForfeitReason, MatchStatus};

/// Who holds a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// A remote client with the seat's token.
    Open,
    /// A built-in bot of the server.
    Bot,
}
