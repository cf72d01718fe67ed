//! The error for malformed text.
//!
//! Parsing only checks form: `"star9"` is malformed (no such board can be
//! named), while a well-formed position with two pegs on one hole parses fine
//! and is refused later by validation ([`crate::SetupError`]).

use std::fmt;

/// Text that does not follow the grammar of what it was parsed as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    what: &'static str,
    text: String,
    reason: String,
}

impl ParseError {
    /// A parse error: what was being parsed, the offending text, and why.
    /// (Public so that wrappers, such as the Python binding, can report
    /// their own input errors the same way.)
    #[must_use]
    pub fn new(what: &'static str, text: &str, reason: impl Into<String>) -> ParseError {
        ParseError {
            what,
            text: text.to_owned(),
            reason: reason.into(),
        }
    }

    /// What was being parsed: `"board"`, `"rules"`, `"move"`, `"position"`, ...
    #[must_use]
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// The offending text (a whole input or the part of it that failed).
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why it was refused, in words.
    #[must_use]
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} {:?}: {}", self.what, self.text, self.reason)
    }
}

impl std::error::Error for ParseError {}
