//! The server's admin key (`--admin-key`): when set, creating matches (and
//! whatever else takes [`Admin`]) needs `Authorization: Bearer <key>`, so a
//! teacher decides who fills the server's database.
//!
//! The key is kept only as its SHA-256 hash and compared hash to hash in
//! constant time; it is never logged (its `Debug` prints no key).

use std::future::{Ready, ready};
use std::net::IpAddr;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use sha2::{Digest, Sha256};

use sternhalma_store::Owner;
use sternhalma_store::matches::tokens::{Authority, new_token};

use crate::tokens::{bearer, bearer_text};
use sternhalma_http::error::ApiError;
use sternhalma_http::peers::client_key;

/// The admin key of a server, as its hash.
#[derive(Clone)]
pub struct AdminKey {
    hash: [u8; 32],
}

/// The least randomness an admin key must hold, in bits.
pub const MIN_KEY_BITS: u32 = 128;

/// The fewest distinct characters an admin key may have (a key of one
/// character repeated is long but guessable).
const MIN_DISTINCT_CHARS: usize = 8;

/// What `--help` and a refusal say of a key.
pub const KEY_RULE: &str = "at least 128 bits of randomness as its length and alphabet \
    count them: 32 hex digits, 22 letters of both cases and digits, or 20 characters mixing \
    letters, digits and punctuation; `sternhalma admin-key` prints a new one";

impl AdminKey {
    /// The key `text`: text without spaces that holds at least
    /// [`MIN_KEY_BITS`] of randomness, as far as its length and alphabet
    /// can tell ([`key_bits`]; `sternhalma admin-key` makes one).
    ///
    /// # Errors
    /// The text is empty or holds whitespace (it could not be sent as a
    /// bearer token), or is too short or too repetitive to hold 128 bits.
    pub fn new(text: &str) -> Result<AdminKey, String> {
        if text.is_empty() || text.chars().any(char::is_whitespace) {
            return Err("the admin key must be non-empty text without spaces".to_owned());
        }
        let bits = key_bits(text);
        if bits < f64::from(MIN_KEY_BITS) {
            return Err(format!(
                "the admin key holds at most {bits:.0} bits of randomness, and a class's \
                 students could guess it: it needs {KEY_RULE}"
            ));
        }
        Ok(AdminKey {
            hash: Sha256::digest(text.as_bytes()).into(),
        })
    }

    /// A new key of 256 random bits, as 64 hex digits.
    ///
    /// # Errors
    /// The system has no randomness to give.
    pub fn generate() -> Result<String, String> {
        // A token's text is 32 random bytes in hex: a key as good.
        let (text, _) = new_token().map_err(|_| "the system gave no randomness for a key")?;
        Ok(text)
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

/// The most randomness `text` can hold: its length times the bits of one
/// character drawn from the alphabets it uses (decimal digits 3.3, hex
/// digits 4, lower-case letters and digits 5.2, both cases and digits 6,
/// any printable ASCII 6.6), or nothing when it has fewer than 8 distinct
/// characters. An upper
/// bound: a word repeated to length passes the count, which is why the
/// help asks for a key a machine made.
pub fn key_bits(text: &str) -> f64 {
    let mut distinct: Vec<char> = text.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < MIN_DISTINCT_CHARS {
        return 0.0;
    }
    let decimal = text.chars().all(|c| c.is_ascii_digit());
    let hex = text.chars().all(|c| c.is_ascii_hexdigit())
        && (text.chars().all(|c| !c.is_ascii_uppercase())
            || text.chars().all(|c| !c.is_ascii_lowercase()));
    let alphabet = if decimal {
        10
    } else if hex {
        16
    } else {
        let has = |test: fn(&char) -> bool| text.chars().any(|c| test(&c));
        let mut size = 0;
        if has(char::is_ascii_digit) {
            size += 10;
        }
        if has(char::is_ascii_lowercase) {
            size += 26;
        }
        if has(char::is_ascii_uppercase) {
            size += 26;
        }
        if has(|c| !c.is_ascii_alphanumeric()) {
            size += 33;
        }
        size
    };
    // At most a few hundred characters reach here (a header's length).
    #[allow(clippy::cast_precision_loss)]
    let length = text.chars().count() as f64;
    length * f64::from(alphabet).log2()
}

impl std::fmt::Debug for AdminKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminKey(..)")
    }
}

/// An extractor that lets a request through only with the server's admin
/// key, when the server has one (`web::Data<AdminKey>` in the app); put it
/// first among a handler's arguments, so that it is checked before the
/// body is read. On a server without a key it lets every request through,
/// as its client's.
#[derive(Debug)]
pub enum Admin {
    /// The server's operator: the request carried the admin key.
    Operator,
    /// Anyone, on a server without a key: the client (its key, as the
    /// per-client limits count it), when the request has an address.
    Anyone(Option<IpAddr>),
}

impl Admin {
    /// Whose what the request creates is ([`Owner`], counted against the
    /// storage quota): its client's, or nobody's for the operator.
    pub fn owner(&self) -> Option<Owner> {
        match self {
            Admin::Operator | Admin::Anyone(None) => None,
            Admin::Anyone(Some(client)) => Some(Owner::new(client.to_string())),
        }
    }
}

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Ready<Result<Admin, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match request.app_data::<web::Data<AdminKey>>() {
            Some(key) => key.check(request).map(|()| Admin::Operator),
            None => Ok(Admin::Anyone(
                request.peer_addr().map(|peer| client_key(peer.ip())),
            )),
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

    const KEY: &str = "7f3a9c2e4b1d8f6a0c5e9b3d7a1f4c8e";

    #[test]
    fn the_key_is_checked_with_its_codes() {
        let key = AdminKey::new(KEY).unwrap();
        assert!(key.matches(KEY));
        assert!(!key.matches("7f3a9c2e4b1d8f6a0c5e9b3d7a1f4c8f"));
        let code = |header: Option<&str>| {
            let mut request = TestRequest::default();
            if let Some(header) = header {
                request = request.insert_header((AUTHORIZATION, header));
            }
            key.check(&request.to_http_request())
                .err()
                .map(|e| e.problem().code.clone())
        };
        assert_eq!(code(Some(&format!("Bearer {KEY}"))), None);
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

    #[test]
    fn a_key_a_class_could_guess_is_refused_with_the_way_to_make_one() {
        for weak in [
            "class-key",
            "s3cret-class-key",
            // 31 hex digits: 124 bits.
            "7f3a9c2e4b1d8f6a0c5e9b3d7a1f4c8",
            // 32 decimal digits: 106 bits, not hex's 128.
            "12345678901234567890123456789012",
            // Long, but one character (or a few) repeated.
            &"a".repeat(100),
            &"abcabc".repeat(10),
        ] {
            let refused = AdminKey::new(weak).unwrap_err();
            assert!(refused.contains("sternhalma admin-key"), "{refused}");
        }
        for strong in [
            KEY,
            // `openssl rand -base64 16`, `-hex 16` upper-cased, a UUID.
            "q2Zc8V+r0/kT1mWx9bLp4A==",
            "7F3A9C2E4B1D8F6A0C5E9B3D7A1F4C8E",
            "2f1b6a8e-93c4-4d7a-b0e5-6c9f13a7d482",
        ] {
            assert!(AdminKey::new(strong).is_ok(), "{strong}");
        }
        assert_eq!(key_bits(KEY), 128.0);
    }

    #[test]
    fn a_generated_key_is_strong_and_new_each_time() {
        let (a, b) = (AdminKey::generate().unwrap(), AdminKey::generate().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(key_bits(&a) >= 256.0 && AdminKey::new(&a).is_ok());
    }
}
