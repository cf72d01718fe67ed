//! The query strings of the stored routes (`/v1/matches`,
//! `/v1/tournaments`): part of the HTTP contract, so here, beside the
//! routes that read them, and not in the store.

use serde::Deserialize;
use utoipa::IntoParams;

use crate::wire::matches::MatchStatus;
use crate::wire::tournaments::TournamentStatus;

/// The longest a long-poll waits, in milliseconds.
pub const MAX_WAIT_MS: u32 = 30_000;
/// How long a long-poll waits when `timeout_ms` is not given.
pub const DEFAULT_WAIT_MS: u32 = 25_000;

/// Which matches to list.
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only matches with this status.
    #[param(value_type = Option<MatchStatus>)]
    pub status: Option<MatchStatus>,
    /// At most this many (1 to 200; default 50).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// Only matches with a smaller id (the previous page's `next_before`).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 9223372036854775807.0)]
    pub before: Option<u64>,
}

/// Long-poll: wait until the match has passed a ply.
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct WaitQuery {
    /// Answer only once the match's `ply` is greater than this, or the
    /// match is over, or it changed without a move while waiting (a seat
    /// resigned a game of three or more, which may pass the turn), or
    /// `timeout_ms` has passed (then with the unchanged state; check `ply`
    /// and `to_move`).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 4294967295.0)]
    pub wait_ply: Option<u32>,
    /// How long to wait at most, in milliseconds (0 to 30000; default
    /// 25000). Used only with `wait_ply`.
    #[param(value_type = Option<u64>, minimum = 0, maximum = 30000)]
    pub timeout_ms: Option<u32>,
}

/// How to draw a match's board (`GET /v1/matches/{id}/board.svg`).
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    /// The position after this many plies (default: the current one).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 4294967295.0)]
    pub ply: Option<u32>,
    /// Image width in pixels (64 to 4096; default 480).
    #[param(value_type = Option<u64>, minimum = 64, maximum = 4096)]
    pub size: Option<u32>,
    /// Print hole ids in the holes.
    pub ids: Option<bool>,
    /// Turn the board so this triangle is at the bottom (default `south`).
    pub bottom: Option<sternhalma::Triangle>,
}

/// The list's filters.
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TournamentListQuery {
    /// Only tournaments with this status.
    #[param(value_type = Option<TournamentStatus>)]
    pub status: Option<TournamentStatus>,
    /// At most this many (1 to 200, default 50).
    #[param(value_type = Option<u64>, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// Only ids below this one (the previous page's `next_before`).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 9223372036854775807.0)]
    pub before: Option<u64>,
}

/// The entrant long-poll's query.
#[derive(Clone, Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TurnsQuery {
    /// Wait at most this long for a turn (0 to 30000, default 25000).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 30000)]
    pub timeout_ms: Option<u32>,
}
