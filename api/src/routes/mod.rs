//! The server's own routes, one module per resource: stored matches,
//! tournaments, the analysis of a game (a stored one or a record) and the
//! wheels offered for download. The stateless routes are
//! `sternhalma-http`'s.

pub mod analysis;
pub mod downloads;
pub mod matches;
pub mod queries;
pub mod table_downloads;
pub mod tournaments;

use sternhalma_http::error::{ApiError, Problem};
use sternhalma_store::page::{MAX_PAGE, Page};

/// A list's page from its query: `limit` (1 to [`MAX_PAGE`], default 50)
/// and `before` (an id; default: from the newest).
///
/// # Errors
/// 400 `malformed_query` for a limit out of range or `before` beyond
/// 2^63-1.
pub fn page(limit: Option<u32>, before: Option<u64>) -> Result<Page, ApiError> {
    let limit = limit.unwrap_or(50);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::bad_request(
            "malformed_query",
            format!("limit must be 1 to {MAX_PAGE}"),
        ));
    }
    let before = match before {
        None => i64::MAX,
        Some(before) => i64::try_from(before).map_err(|_| {
            ApiError::bad_request("malformed_query", format!("before is at most {}", i64::MAX))
        })?,
    };
    Ok(Page { limit, before })
}

/// The refusal of an operation that takes a seat's, an entrant's or a
/// creator's token, documented once.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum TokenErrors {
    /// No token (`missing_token`), or not `Bearer` and a token of 64
    /// hexadecimal digits (`malformed_token`).
    #[response(status = 401, content_type = "application/problem+json")]
    Unauthorized(Problem),
}

/// The refusal of a creation on a server with an admin key, documented
/// once.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum AdminKeyErrors {
    /// On a server with an admin key (`--admin-key`): no token
    /// (`missing_token`) or not a bearer token (`malformed_token`).
    #[response(status = 401, content_type = "application/problem+json")]
    Unauthorized(Problem),
}
