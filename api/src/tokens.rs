//! Bearer tokens as requests carry them (`Authorization: Bearer <token>`),
//! and the answers every token-guarded route shares. The tokens themselves
//! (making them, hashing them) are the store's
//! ([`sternhalma_store::matches::tokens`]).

use actix_web::HttpRequest;
use actix_web::http::header::AUTHORIZATION;
use sternhalma_http::error::ApiError;
use sternhalma_store::matches::tokens::{self, TokenHash};

/// The hash of the bearer token of a request (`Authorization: Bearer
/// <64 hex digits>`).
///
/// # ApiErrors
/// 401 `missing_token` without an `Authorization` header, 401
/// `malformed_token` when it is not a bearer token of 64 hexadecimal
/// digits.
pub fn bearer(request: &HttpRequest) -> Result<TokenHash, ApiError> {
    let malformed = || {
        ApiError::unauthorized(
            "malformed_token",
            "the Authorization header must be Bearer followed by a token of 64 hexadecimal digits",
        )
    };
    let token = bearer_text(request, malformed)?;
    tokens::parse(token).ok_or_else(malformed)
}

/// The text of the bearer token of a request (`Authorization: Bearer
/// <text>`), trimmed; `malformed` makes the error for a header that is not
/// a bearer token (its message says which tokens the operation takes).
///
/// # ApiErrors
/// 401 `missing_token` without an `Authorization` header; `malformed()`
/// when the header is not `Bearer` and a token.
pub fn bearer_text(
    request: &HttpRequest,
    malformed: impl Fn() -> ApiError,
) -> Result<&str, ApiError> {
    let header = request.headers().get(AUTHORIZATION).ok_or_else(|| {
        ApiError::unauthorized(
            "missing_token",
            "this operation needs a token: send the header Authorization: Bearer <token>",
        )
    })?;
    let value = header.to_str().map_err(|_| malformed())?.trim();
    let (scheme, token) = value.split_once(' ').ok_or_else(&malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(malformed());
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(malformed());
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn tokens_round_trip_through_the_header() {
        let (text, hash) = tokens::new_token().unwrap();
        assert_eq!(text.len(), 64);
        let request = TestRequest::default()
            .insert_header((AUTHORIZATION, format!("Bearer {text}")))
            .to_http_request();
        assert_eq!(bearer(&request).unwrap(), hash);
        let upper = TestRequest::default()
            .insert_header((AUTHORIZATION, format!("bearer {}", text.to_uppercase())))
            .to_http_request();
        assert_eq!(bearer(&upper).unwrap(), hash, "hex digits in either case");
        assert_ne!(tokens::new_token().unwrap().0, text);
    }

    #[test]
    fn missing_and_malformed_tokens_are_401() {
        let none = TestRequest::default().to_http_request();
        assert_eq!(bearer(&none).unwrap_err().problem().code, "missing_token");
        for bad in [
            "Bearer",
            "Bearer abc",
            "Basic 0000000000000000000000000000000000000000000000000000000000000000",
            "Bearer zz00000000000000000000000000000000000000000000000000000000000000",
            "Bearer +f00000000000000000000000000000000000000000000000000000000000000",
        ] {
            let request = TestRequest::default()
                .insert_header((AUTHORIZATION, bad))
                .to_http_request();
            let error = bearer(&request).unwrap_err();
            assert_eq!(error.problem().code, "malformed_token", "{bad}");
            assert_eq!(error.problem().status, 401);
        }
    }
}
