//! The one place a store or domain error meets HTTP: each kind of
//! [`sternhalma_store::Error`] gets its status and problem body here.

use actix_web::http::StatusCode;
use sternhalma_store::{Error, Invalid, Unavailable};

use super::ApiError;

impl From<Error> for ApiError {
    fn from(error: Error) -> ApiError {
        let code = error.code();
        match error {
            Error::NotFound(detail) => ApiError::not_found(detail),
            Error::WrongToken(detail) | Error::Quota(detail) => ApiError::forbidden(code, detail),
            Error::Conflict(_, detail) => ApiError::conflict(code, detail),
            Error::Invalid(Invalid::Tablebase(_), detail) => ApiError::tablebase(code, detail),
            Error::Invalid(_, detail) => ApiError::unprocessable(code, detail),
            Error::Move(e) => e.into(),
            Error::Position(e) => e.into(),
            Error::Unavailable(why @ Unavailable::DiskFull) => ApiError::new(
                StatusCode::INSUFFICIENT_STORAGE,
                code,
                "Insufficient storage",
                why.message(),
            ),
            Error::Unavailable(why) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                code,
                "Service unavailable",
                why.message(),
            ),
            Error::Internal(detail) => ApiError::internal(detail),
            Error::Corrupt(_) | Error::Storage | Error::Failed => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                code,
                "Internal server error",
                error.to_string(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use sternhalma_store::Conflict;

    use super::*;

    #[test]
    fn each_kind_keeps_its_status_and_code() {
        let cases = [
            (Error::NotFound("no match 9".into()), 404, "not_found"),
            (Error::WrongToken("not yours".into()), 403, "wrong_token"),
            (
                Error::conflict(Conflict::StalePly, "at ply 3"),
                409,
                "stale_ply",
            ),
            (
                Error::conflict(Conflict::NotYourTurn, "seat 1 is to move"),
                409,
                "not_your_turn",
            ),
            (
                Error::invalid(Invalid::BudgetTooLarge, "nodes"),
                422,
                "budget_too_large",
            ),
            (
                Error::invalid(Invalid::Tablebase("no_tablebase"), "none"),
                422,
                "no_tablebase",
            ),
            (Error::Unavailable(Unavailable::Lost), 503, "unavailable"),
            (Error::Unavailable(Unavailable::Busy), 503, "unavailable"),
            (Error::Unavailable(Unavailable::DiskFull), 507, "disk_full"),
            (
                Error::Quota("5000 games".into()),
                403,
                "storage_quota_exceeded",
            ),
            (Error::Corrupt("column 2".into()), 500, "storage_error"),
            (Error::Storage, 500, "storage_error"),
            (Error::Failed, 500, "internal_error"),
            (Error::Internal("a bug".into()), 500, "internal"),
        ];
        for (error, status, code) in cases {
            let api = ApiError::from(error.clone());
            assert_eq!(api.problem().status, status, "{error:?}");
            assert_eq!(api.problem().code, code, "{error:?}");
        }
    }

    #[test]
    fn a_corrupt_row_is_answered_without_its_details() {
        let api = ApiError::from(Error::Corrupt("column 7 is Int(3), not text".into()));
        assert_eq!(api.problem().detail, "a stored match could not be read");
    }

    #[test]
    fn a_lost_connection_says_the_change_may_be_stored() {
        let api = ApiError::from(Error::Unavailable(Unavailable::Lost));
        assert!(api.problem().detail.contains("may or may not be stored"));
    }
}
