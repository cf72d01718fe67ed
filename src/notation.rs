//! The position string: a compact, human-writable text for a position.
//!
//! ```text
//! position = board " " rules " " pegs [ " " side [ " " ply [ " " finished ] ] ]
//! board    = "star" 1..4 | "rhombus" M "p" P          e.g. star4, rhombus9p10 (also "rhombus" M "x" K)
//! rules    = preset ( "," option "=" value )*        e.g. classic,long_jumps=on
//! pegs     = player ( "/" player )*                  players in turn order
//! player   = set ( "+" set )*
//! set      = triangle ":" [ holes ]                   e.g. south:111-120
//! holes    = item ( "," item )*
//! item     = id | id "-" id                           a range, both ends included
//! side     = player index, 0-based (default 0)
//! ply      = plies played so far (default 0)
//! finished = "-" | player "@" ply ( "," player "@" ply )*   in finishing order
//! ```
//!
//! Fields are separated by single spaces; trailing fields may be left out.
//! Printing always writes every field, holes in increasing order, runs of
//! three or more as ranges, and the rules as [`crate::Rules`] prints them, so
//! `print(parse(print(p))) == print(p)` and a position parses back to itself.
//!
//! The standard two-player start: `star4 classic south:111-120/north:0-9 0 0 -`.

use std::fmt;
use std::str::FromStr;

use crate::board::Board;
use crate::cell::Cell;
use crate::error::{ParseError, ParseErrorKind};
use crate::position::Position;
use crate::rules::Rules;
use crate::setup::{Finisher, PegSet, Resignation, Setup, SetupError};

/// Holes written compactly: runs of three or more consecutive ids as ranges.
fn write_holes(f: &mut fmt::Formatter<'_>, holes: &[usize]) -> fmt::Result {
    let mut i = 0;
    while i < holes.len() {
        let mut j = i;
        while j + 1 < holes.len() && holes[j + 1] == holes[j] + 1 {
            j += 1;
        }
        if i > 0 {
            f.write_str(",")?;
        }
        if j >= i + 2 {
            write!(f, "{}-{}", holes[i], holes[j])?;
            i = j + 1;
        } else {
            write!(f, "{}", holes[i])?;
            i += 1;
        }
    }
    Ok(())
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ", self.board, self.rules)?;
        for (p, sets) in self.players.iter().enumerate() {
            if p > 0 {
                f.write_str("/")?;
            }
            for (s, set) in sets.iter().enumerate() {
                if s > 0 {
                    f.write_str("+")?;
                }
                write!(f, "{}:", set.triangle)?;
                write_holes(f, &set.pegs)?;
            }
        }
        write!(f, " {} {} ", self.side_to_move, self.ply)?;
        let finished: Vec<(usize, u32)> = self.finished.iter().map(|f| (f.player, f.ply)).collect();
        write_players_at(f, &finished)?;
        // The resignations field only when there are any, so that every
        // position without one prints as it always did.
        if !self.resigned.is_empty() {
            f.write_str(" ")?;
            let resigned: Vec<(usize, u32)> =
                self.resigned.iter().map(|r| (r.player, r.ply)).collect();
            write_players_at(f, &resigned)?;
        }
        Ok(())
    }
}

/// `player@ply` entries joined by commas, or `-` for none.
fn write_players_at(f: &mut fmt::Formatter<'_>, entries: &[(usize, u32)]) -> fmt::Result {
    if entries.is_empty() {
        return f.write_str("-");
    }
    for (i, (player, ply)) in entries.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{player}@{ply}")?;
    }
    Ok(())
}

fn number<T: FromStr>(whole: &str, digits: &str, what: &str) -> Result<T, ParseError> {
    if digits.is_empty() || digits.len() > 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::new(
            ParseErrorKind::Position,
            whole,
            format!("{what} must be a whole number, found {digits:?}"),
        ));
    }
    digits.parse().map_err(|_| {
        ParseError::new(
            ParseErrorKind::Position,
            whole,
            format!("{what} {digits} is too large"),
        )
    })
}

fn parse_holes(whole: &str, text: &str) -> Result<Vec<usize>, ParseError> {
    let mut holes = Vec::new();
    if text.is_empty() {
        return Ok(holes);
    }
    for item in text.split(',') {
        match item.split_once('-') {
            None => holes.push(number(whole, item, "a hole id")?),
            Some((low, high)) => {
                let (low, high): (usize, usize) = (
                    number(whole, low, "a hole id")?,
                    number(whole, high, "a hole id")?,
                );
                if low > high || high - low >= Cell::MAX_HOLES {
                    return Err(ParseError::new(
                        ParseErrorKind::Position,
                        whole,
                        format!(
                            "{item:?} is not a range of holes (low-high, at most {} holes)",
                            Cell::MAX_HOLES
                        ),
                    ));
                }
                holes.extend(low..=high);
            }
        }
    }
    Ok(holes)
}

fn parse_pegs(whole: &str, text: &str) -> Result<Vec<Vec<PegSet>>, ParseError> {
    text.split('/')
        .map(|player| {
            player
                .split('+')
                .map(|set| {
                    let (triangle, holes) = set.split_once(':').ok_or_else(|| {
                        ParseError::new(
                            ParseErrorKind::Position,
                            whole,
                            format!(
                                "{set:?} is not a set; write triangle:holes, e.g. south:111-120"
                            ),
                        )
                    })?;
                    let triangle = triangle.parse().map_err(|e: ParseError| {
                        ParseError::new(
                            ParseErrorKind::Position,
                            whole,
                            format!("{triangle:?}: {}", e.reason()),
                        )
                    })?;
                    Ok(PegSet {
                        triangle,
                        pegs: parse_holes(whole, holes)?,
                    })
                })
                .collect()
        })
        .collect()
}

/// `player@ply` entries (finishers or resignations), or `-` for none.
fn parse_players_at(whole: &str, text: &str, what: &str) -> Result<Vec<(usize, u32)>, ParseError> {
    if text == "-" {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let (player, ply) = item.split_once('@').ok_or_else(|| {
                ParseError::new(
                    ParseErrorKind::Position,
                    whole,
                    format!(
                        "{item:?} is not a {what} entry; write player@ply, e.g. 1@57, or - for none"
                    ),
                )
            })?;
            Ok((
                number(whole, player, &format!("a {what} player"))?,
                number(whole, ply, &format!("a {what} ply"))?,
            ))
        })
        .collect()
}

impl FromStr for Setup {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Setup, ParseError> {
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() < 3 || fields.len() > 7 {
            return Err(ParseError::new(
                ParseErrorKind::Position,
                text,
                "expected 3 to 7 fields separated by single spaces: board rules pegs [side [ply [finished [resigned]]]], e.g. star4 classic south:111-120/north:0-9 0 0 -",
            ));
        }
        let board: Board = fields[0].parse().map_err(|e: ParseError| {
            ParseError::new(ParseErrorKind::Position, text, e.to_string())
        })?;
        let rules: Rules = fields[1].parse().map_err(|e: ParseError| {
            ParseError::new(ParseErrorKind::Position, text, e.to_string())
        })?;
        Ok(Setup {
            board,
            rules,
            players: parse_pegs(text, fields[2])?,
            neutral: None,
            side_to_move: fields
                .get(3)
                .map_or(Ok(0), |side| number(text, side, "the player to move"))?,
            ply: fields
                .get(4)
                .map_or(Ok(0), |ply| number(text, ply, "the ply count"))?,
            finished: fields
                .get(5)
                .map_or(Ok(Vec::new()), |field| {
                    parse_players_at(text, field, "finished")
                })?
                .into_iter()
                .map(|(player, ply)| Finisher { player, ply })
                .collect(),
            resigned: fields
                .get(6)
                .map_or(Ok(Vec::new()), |field| {
                    parse_players_at(text, field, "resigned")
                })?
                .into_iter()
                .map(|(player, ply)| Resignation { player, ply })
                .collect(),
        })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_setup().fmt(f)
    }
}

/// A position string that could not become a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The text does not follow the grammar.
    Malformed(ParseError),
    /// Well-formed, but not a legal position.
    Invalid(SetupError),
}

impl PositionError {
    /// The stable code: the parse error's ([`ParseError::code`]) or
    /// `invalid_position`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            PositionError::Malformed(e) => e.code(),
            PositionError::Invalid(e) => e.code(),
        }
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Malformed(e) => e.fmt(f),
            PositionError::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PositionError {}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses and validates a position string.
    fn from_str(text: &str) -> Result<Position, PositionError> {
        text.parse::<Setup>()
            .map_err(PositionError::Malformed)?
            .validate()
            .map_err(PositionError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text_round_trips() {
        for text in [
            "star4 classic south:111-120/north:0-9 0 0 -",
            "star1 super south:12/north:0 0 0 -",
            "rhombus9p10 research south:71-80/north:0-9 0 0 -",
            "star4 masters south:102,112-120/north:0-9 1 1 -",
            "star4 classic,finish=ranking south:111-120/south_west:98,99,100,86,87,74,75,65,64,63/north:0-9 1 3 -",
        ] {
            let setup: Setup = text.parse().unwrap();
            let printed = setup.to_string();
            assert_eq!(printed.parse::<Setup>().unwrap().to_string(), printed);
            if let Ok(position) = text.parse::<Position>() {
                assert_eq!(position.to_string().parse::<Position>().unwrap(), position);
            }
        }
    }

    #[test]
    fn trailing_fields_default() {
        let short: Position = "star4 classic south:111-120/north:0-9".parse().unwrap();
        assert_eq!(
            short.to_string(),
            "star4 classic south:111-120/north:0-9 0 0 -"
        );
    }

    #[test]
    fn malformed_and_invalid_are_different_errors() {
        for text in [
            "",
            "star4",
            "star4 classic",
            "star9 classic south:111-120/north:0-9",
            "star4 classik south:111-120/north:0-9",
            "star4 classic south:111-120/north:0-9 0 0 - extra",
            "star4 classic south:111-120/norht:0-9",
            "star4 classic south 111-120/north:0-9",
            "star4 classic south:111-x/north:0-9",
            "star4 classic south:120-111/north:0-9",
            "star4 classic south:111-120/north:0-9 x",
            "star4 classic south:111-120/north:0-9 0 -1",
            "star4 classic south:111-120/north:0-9 0 0 1",
            "star4  classic south:111-120/north:0-9",
        ] {
            assert!(
                matches!(text.parse::<Position>(), Err(PositionError::Malformed(_))),
                "{text:?}"
            );
        }
        assert!(matches!(
            "star4 classic south:111-120/north:0-8 0 0 -".parse::<Position>(),
            Err(PositionError::Invalid(_))
        ));
    }
}
