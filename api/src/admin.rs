//! The server's admin key (`--admin-key`): when set, creating matches (and
//! whatever else takes [`Admin`]) needs `Authorization: Bearer <key>`, so a
//! teacher decides who fills the server's database.
//!
//! The key is kept only as its SHA-256 hash and compared hash to hash in
//! constant time; it is never logged (its `Debug` prints no key).

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use sha2::{Digest, Sha256};

use sternhalma_store::matches::tokens::Authority;

use crate::tokens::{bearer, bearer_text};
use sternhalma_http::error::ApiError;

/// The admin key of a server, as its hash.
#[derive(Clone)]
pub struct AdminKey {
    hash: [u8; 32],
}

impl AdminKey {
    /// The key `text` (any non-empty text without spaces; 32 random bytes
    /// in hex are a good one).
    ///
    /// # Errors
    /// The text is empty or holds whitespace (it could not be sent as a
    /// bearer token).
    pub fn new(text: &str) -> Result<AdminKey, String> {
        if text.is_empty() || text.chars().any(char::is_whitespace) {
            return Err("the admin key must be non-empty text without spaces".to_owned());
        }
        Ok(AdminKey {
            hash: Sha256::digest(text.as_bytes()).into(),
        })
    }

    /// Whether `text` is the key, in time that does not depend on where
    /// they differ.
    pub fn matches(&self, text: &str) -> bool {
        let given: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        given
            .iter()
            .zip(&self.hash)
            .fold(0_u8, |difference, (a, b)| difference | (a ^ b))
            == 0
    }

    /// Checks the request's bearer token against the key.
    ///
    /// # Errors
    /// 401 `missing_token` without an `Authorization` header, 401
    /// `malformed_token` when it is not a bearer token, 403
    /// `wrong_admin_key` when the token is not the key.
    pub fn check(&self, request: &HttpRequest) -> Result<(), ApiError> {
        let token = bearer_text(request, || {
            ApiError::unauthorized(
                "malformed_token",
                "the Authorization header must be Bearer followed by the server's admin key",
            )
        })?;
        if self.matches(token) {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "wrong_admin_key",
                "this server requires its admin key for this operation, and the token sent is not it",
            ))
        }
    }
}

impl std::fmt::Debug for AdminKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminKey(..)")
    }
}

/// An extractor that lets a request through only with the server's admin
/// key, when the server has one (`web::Data<AdminKey>` in the app); put it
/// first among a handler's arguments, so that it is checked before the
/// body is read. On a server without a key it lets every request through.
#[derive(Debug)]
pub struct Admin;

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Ready<Result<Admin, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match request.app_data::<web::Data<AdminKey>>() {
            Some(key) => key.check(request).map(|()| Admin),
            None => Ok(Admin),
        })
    }
}

/// Who a request that a creator's token guards speaks for: the server's
/// operator when the server has an admin key and the bearer token is it,
/// else the holder of a token (checked by the store against the match's or
/// tournament's own).
///
/// # Errors
/// As [`crate::tokens::bearer`], for a token that is not the admin key.
pub fn authority(request: &HttpRequest, key: Option<&AdminKey>) -> Result<Authority, ApiError> {
    // The header as `bearer` reads it; any refusal is `bearer`'s to say.
    let text = bearer_text(request, || ApiError::unauthorized("malformed_token", "")).ok();
    if key.zip(text).is_some_and(|(key, text)| key.matches(text)) {
        return Ok(Authority::Operator);
    }
    Ok(Authority::Token(bearer(request)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::AUTHORIZATION;
    use actix_web::test::TestRequest;

    #[test]
    fn the_key_is_checked_with_its_codes() {
        let key = AdminKey::new("s3cret-class-key").unwrap();
        assert!(key.matches("s3cret-class-key"));
        assert!(!key.matches("s3cret-class-kez"));
        let code = |header: Option<&str>| {
            let mut request = TestRequest::default();
            if let Some(header) = header {
                request = request.insert_header((AUTHORIZATION, header));
            }
            key.check(&request.to_http_request())
                .err()
                .map(|e| e.problem().code.clone())
        };
        assert_eq!(code(Some("Bearer s3cret-class-key")), None);
        assert_eq!(code(None).as_deref(), Some("missing_token"));
        assert_eq!(code(Some("Basic abc")).as_deref(), Some("malformed_token"));
        assert_eq!(
            code(Some("Bearer other")).as_deref(),
            Some("wrong_admin_key")
        );
        assert_eq!(format!("{key:?}"), "AdminKey(..)");
        assert!(AdminKey::new("").is_err());
        assert!(AdminKey::new("two words").is_err());
    }
}
