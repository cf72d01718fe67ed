//! The error for malformed input.
//!
//! Parsing only checks form: `"star9"` is malformed (no such board can be
//! named), while a well-formed position with two pegs on one hole parses fine
//! and is refused later by validation ([`crate::SetupError`]).
//!
//! Every parse error has a [`ParseErrorKind`] with a stable
//! [`code`](ParseErrorKind::code): the HTTP API answers it as the problem's
//! `code`, the Python module sets it on its exceptions, and the Python HTTP
//! client maps it back to the same exception classes. No surface matches on
//! the message.

use std::fmt;

/// What was being read when the input was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A board name (`star4`, `rhombus9p10`).
    Board,
    /// A layout (`2`, `2x3`, `south+north/...`).
    Layout,
    /// A triangle name (`north`, `south_west`, ...).
    Triangle,
    /// A preset name, which names no preset.
    Preset,
    /// A rules text or a rules object: an unknown option, a value an option
    /// does not take.
    Rules,
    /// A move text.
    Move,
    /// A position string.
    Position,
    /// JSON of the wrong shape: not JSON at all, a value of the wrong type,
    /// an unknown field, a number that is not a whole number in range.
    Json,
    /// A JSON object without a field it needs.
    MissingField,
}

impl ParseErrorKind {
    /// Every kind.
    pub const ALL: [ParseErrorKind; 9] = [
        ParseErrorKind::Board,
        ParseErrorKind::Layout,
        ParseErrorKind::Triangle,
        ParseErrorKind::Preset,
        ParseErrorKind::Rules,
        ParseErrorKind::Move,
        ParseErrorKind::Position,
        ParseErrorKind::Json,
        ParseErrorKind::MissingField,
    ];

    /// What was being read, as a noun: `"board"`, `"layout"`, `"triangle"`,
    /// `"preset"`, `"rules"`, `"move"`, `"position"`, `"JSON"`, `"field"`.
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            ParseErrorKind::Board => "board",
            ParseErrorKind::Layout => "layout",
            ParseErrorKind::Triangle => "triangle",
            ParseErrorKind::Preset => "preset",
            ParseErrorKind::Rules => "rules",
            ParseErrorKind::Move => "move",
            ParseErrorKind::Position => "position",
            ParseErrorKind::Json => "JSON",
            ParseErrorKind::MissingField => "field",
        }
    }

    /// The stable machine-readable code of the error, shared by every
    /// surface: `invalid_board`, `invalid_layout` (a layout or a triangle
    /// name), `unknown_preset`, `invalid_rules`, `malformed_move`,
    /// `malformed_position`, `malformed_json`, `missing_field`.
    ///
    /// ```
    /// use sternhalma::{ParseErrorKind, Rules};
    /// let err = "clasic".parse::<Rules>().unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::Preset);
    /// assert_eq!(err.code(), "unknown_preset");
    /// ```
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            ParseErrorKind::Board => "invalid_board",
            ParseErrorKind::Layout | ParseErrorKind::Triangle => "invalid_layout",
            ParseErrorKind::Preset => "unknown_preset",
            ParseErrorKind::Rules => "invalid_rules",
            ParseErrorKind::Move => "malformed_move",
            ParseErrorKind::Position => "malformed_position",
            ParseErrorKind::Json => "malformed_json",
            ParseErrorKind::MissingField => "missing_field",
        }
    }
}

impl ParseErrorKind {
    /// The kind a code stands for (the first, for a code two kinds share:
    /// `invalid_layout` is read as [`ParseErrorKind::Layout`]). For clients
    /// that turn an HTTP problem back into the local error.
    ///
    /// ```
    /// use sternhalma::ParseErrorKind;
    /// assert_eq!(ParseErrorKind::from_code("unknown_preset"), Some(ParseErrorKind::Preset));
    /// assert_eq!(ParseErrorKind::from_code("hole_occupied"), None);
    /// ```
    #[must_use]
    pub fn from_code(code: &str) -> Option<ParseErrorKind> {
        ParseErrorKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.noun())
    }
}

/// Input that does not follow the grammar of what it was read as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    text: String,
    reason: String,
}

impl ParseError {
    /// A parse error: what was being read, the offending text (for JSON, the
    /// path of the offending field, such as `players[0][1].pegs[3]`), and
    /// why. Public so that wrappers can report their own input errors the
    /// same way.
    #[must_use]
    pub fn new(kind: ParseErrorKind, text: &str, reason: impl Into<String>) -> ParseError {
        ParseError {
            kind,
            text: text.to_owned(),
            reason: reason.into(),
        }
    }

    /// What was being read.
    #[must_use]
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// The stable code of the error ([`ParseErrorKind::code`]).
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// What was being read, as a noun ([`ParseErrorKind::noun`]).
    #[must_use]
    pub fn what(&self) -> &'static str {
        self.kind.noun()
    }

    /// The offending text (a whole input or the part of it that failed), or
    /// for JSON the path of the offending field.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why it was refused, in words.
    #[must_use]
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The same error, its field path put under `prefix` (`position` and
    /// `players[0]` give `position.players[0]`). Only JSON errors carry a
    /// path; others are returned unchanged.
    #[must_use]
    pub fn under(mut self, prefix: &str) -> ParseError {
        if matches!(
            self.kind,
            ParseErrorKind::Json | ParseErrorKind::MissingField
        ) && !prefix.is_empty()
        {
            self.text = match self.text.as_str() {
                "" => prefix.to_owned(),
                rest if rest.starts_with('[') => format!("{prefix}{rest}"),
                rest => format!("{prefix}.{rest}"),
            };
        }
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ParseErrorKind::Json | ParseErrorKind::MissingField if self.text.is_empty() => {
                f.write_str(&self.reason)
            }
            ParseErrorKind::Json | ParseErrorKind::MissingField => {
                write!(f, "{}: {}", self.text, self.reason)
            }
            kind => write!(f, "invalid {kind} {:?}: {}", self.text, self.reason),
        }
    }
}

impl std::error::Error for ParseError {}
