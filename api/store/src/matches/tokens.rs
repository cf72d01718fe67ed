//! Secret tokens: 32 random bytes, given to clients once as 64 lowercase
//! hexadecimal digits; the database keeps only their SHA-256 hash.

use sha2::{Digest, Sha256};

use crate::error::{Error, Unavailable};

/// The SHA-256 hash of a token's 32 bytes: what is stored and compared.
pub type TokenHash = [u8; 32];

/// Who asks for a change that a creator's token guards (abandoning a
/// match, starting, pausing or abandoning a tournament).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authority {
    /// A token, whose hash must be the match's or tournament's admin
    /// token's.
    Token(TokenHash),
    /// The server's operator (the server's admin key): allowed on every
    /// match and tournament.
    Operator,
}

impl Authority {
    /// Whether this authority may change what `admin_token_hash` guards.
    pub fn allows(&self, admin_token_hash: &[u8]) -> bool {
        match self {
            Authority::Token(token) => token.as_slice() == admin_token_hash,
            Authority::Operator => true,
        }
    }
}

/// A new token: its text (for the client, once) and its hash (for the
/// database).
///
/// # Errors
/// [`Unavailable::NoRandomness`] when the system's random source fails.
pub fn new_token() -> Result<(String, TokenHash), Error> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, "no randomness for a token");
        Error::Unavailable(Unavailable::NoRandomness)
    })?;
    let text = hex::encode(bytes);
    Ok((text, hash(&bytes)))
}

/// A random 64-bit number (a bot's seed when none is given).
///
/// # Errors
/// [`Unavailable::NoRandomness`] when the system's random source fails.
pub fn random_u64() -> Result<u64, Error> {
    let (_, hash) = new_token()?;
    let mut first = [0_u8; 8];
    first.copy_from_slice(&hash[..8]);
    Ok(u64::from_le_bytes(first))
}

fn hash(bytes: &[u8]) -> TokenHash {
    Sha256::digest(bytes).into()
}

/// The hash of a token given as text: `None` unless it is 64 hexadecimal
/// digits (either case).
pub fn parse(token: &str) -> Option<TokenHash> {
    let mut bytes = [0_u8; 32];
    // Exactly 64 digits, or an error: no sign, no other length.
    hex::decode_to_slice(token, &mut bytes).ok()?;
    Some(hash(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_parses_to_its_hash() {
        let (text, hash) = new_token().unwrap();
        assert_eq!(text.len(), 64);
        assert_eq!(parse(&text), Some(hash));
        assert_eq!(parse(&text.to_uppercase()), Some(hash), "either case");
        assert_ne!(new_token().unwrap().0, text);
        for bad in [
            "",
            "abc",
            &"z".repeat(64),
            &format!("+{}", &text[1..]),
            &format!("{text}00"),
            &text[2..],
            &format!("é{}", &text[2..]),
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
