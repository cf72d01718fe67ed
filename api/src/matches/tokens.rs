//! Secret tokens: 32 random bytes, given to clients once as 64 lowercase
//! hexadecimal digits; the database keeps only their SHA-256 hash.

use actix_web::HttpRequest;
use actix_web::http::header::AUTHORIZATION;
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// The SHA-256 hash of a token's 32 bytes: what is stored and compared.
pub type TokenHash = [u8; 32];

/// A new token: its text (for the client, once) and its hash (for the
/// database).
///
/// # Errors
/// 503 when the system's random source fails.
pub fn new_token() -> Result<(String, TokenHash), ApiError> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, "no randomness for a token");
        ApiError::new(
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "Service unavailable",
            "no randomness available for a token; try again",
        )
    })?;
    let text = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok((text, hash(&bytes)))
}

/// A random 64-bit number (a bot's seed when none is given).
///
/// # Errors
/// 503 when the system's random source fails.
pub fn random_u64() -> Result<u64, ApiError> {
    let (_, hash) = new_token()?;
    let mut first = [0_u8; 8];
    first.copy_from_slice(&hash[..8]);
    Ok(u64::from_le_bytes(first))
}

fn hash(bytes: &[u8]) -> TokenHash {
    Sha256::digest(bytes).into()
}

/// The hash of the bearer token of a request (`Authorization: Bearer
/// <64 hex digits>`).
///
/// # Errors
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
    // Checked first: `from_str_radix` alone would take a `+` sign.
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(malformed());
    }
    let mut bytes = [0_u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(token.as_bytes().chunks(2)) {
        let pair = std::str::from_utf8(pair).map_err(|_| malformed())?;
        *byte = u8::from_str_radix(pair, 16).map_err(|_| malformed())?;
    }
    Ok(hash(&bytes))
}

/// The text of the bearer token of a request (`Authorization: Bearer
/// <text>`), trimmed; `malformed` makes the error for a header that is not
/// a bearer token (its message says which tokens the operation takes).
///
/// # Errors
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
        let (text, hash) = new_token().unwrap();
        assert_eq!(text.len(), 64);
        let request = TestRequest::default()
            .insert_header((AUTHORIZATION, format!("Bearer {text}")))
            .to_http_request();
        assert_eq!(bearer(&request).unwrap(), hash);
        let upper = TestRequest::default()
            .insert_header((AUTHORIZATION, format!("bearer {}", text.to_uppercase())))
            .to_http_request();
        assert_eq!(bearer(&upper).unwrap(), hash, "hex digits in either case");
        assert_ne!(new_token().unwrap().0, text);
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
