//! Moves, the move text, and the reasons a move is illegal.
//!
//! A legal move is identified by where its peg starts and ends (RULES §3):
//! [`Move`]. A move *text* is what a person or a client writes: the path of
//! hole ids joined by `-`, or `pass` ([`MoveText`]). Parsing a text needs no
//! position; [`crate::Position::parse_move`] then checks it against one.
//!
//! Move text grammar:
//!
//! ```text
//! move  = "pass" | hole ( "-" hole )+
//! hole  = digit+            (a hole id, see RULES §1)
//! ```
//!
//! A text of two holes names a move by its ends (`111-93`): it is legal if
//! some legal step, hop chain or swap leads from the first to the second. A
//! text of three or more holes is a hop chain checked hop by hop (under the
//! swap rule its last hop may land on the peg it swaps with).

use std::fmt;
use std::str::FromStr;

use crate::board::Triangle;
use crate::cell::Cell;
use crate::error::{ParseError, ParseErrorKind};

/// What kind of move it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum MoveKind {
    /// To an adjacent empty hole.
    Step,
    /// One or more hops.
    Hop,
    /// A step, a hop or the last hop of a chain onto another player's peg
    /// in the mover's target; the two pegs change places, the other peg
    /// going to the mover's start hole (`anti_spoiling = swap`).
    Swap,
    /// No move: the player has no other legal move.
    Pass,
}

impl MoveKind {
    /// Every kind, in the order of the enum.
    pub const ALL: [MoveKind; 4] = [
        MoveKind::Step,
        MoveKind::Hop,
        MoveKind::Swap,
        MoveKind::Pass,
    ];

    /// The snake_case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            MoveKind::Step => "step",
            MoveKind::Hop => "hop",
            MoveKind::Swap => "swap",
            MoveKind::Pass => "pass",
        }
    }
}

impl fmt::Display for MoveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A legal move of some position: its kind, and where the peg starts and
/// ends. Two hop chains with the same ends are the same move.
///
/// Prints as its move text by ends (`"111-93"`, `"pass"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// The player cannot move.
    Pass,
    /// A step to an adjacent empty hole.
    Step {
        /// Start hole.
        from: Cell,
        /// End hole.
        to: Cell,
    },
    /// A hop chain.
    Hop {
        /// Start hole.
        from: Cell,
        /// End hole.
        to: Cell,
    },
    /// A swap: the peg at `to` goes to `from`.
    Swap {
        /// Start hole of the mover (and end hole of the other peg).
        from: Cell,
        /// End hole of the mover (and start hole of the other peg).
        to: Cell,
    },
}

impl Move {
    /// The start hole, except for a pass.
    #[must_use]
    #[inline]
    pub fn from(self) -> Option<Cell> {
        match self {
            Move::Pass => None,
            Move::Step { from, .. } | Move::Hop { from, .. } | Move::Swap { from, .. } => {
                Some(from)
            }
        }
    }

    /// The end hole, except for a pass.
    #[must_use]
    #[inline]
    pub fn to(self) -> Option<Cell> {
        match self {
            Move::Pass => None,
            Move::Step { to, .. } | Move::Hop { to, .. } | Move::Swap { to, .. } => Some(to),
        }
    }

    /// The kind of move.
    #[must_use]
    pub fn kind(self) -> MoveKind {
        match self {
            Move::Pass => MoveKind::Pass,
            Move::Step { .. } => MoveKind::Step,
            Move::Hop { .. } => MoveKind::Hop,
            Move::Swap { .. } => MoveKind::Swap,
        }
    }

    /// The move text naming it by its ends.
    #[must_use]
    pub fn text(self) -> MoveText {
        match (self.from(), self.to()) {
            (Some(from), Some(to)) => MoveText::Path(vec![from.id(), to.id()]),
            _ => MoveText::Pass,
        }
    }
}

impl Move {
    /// The move's text by its ends (`115-104`), or `pass`: what `Display`
    /// writes, made without the formatting machinery, for writers of many
    /// moves.
    ///
    /// ```
    /// use sternhalma::{Cell, Move};
    /// let hop = Move::Hop { from: Cell::new(115).unwrap(), to: Cell::new(104).unwrap() };
    /// assert_eq!(hop.short_text().as_str(), "115-104");
    /// assert_eq!(Move::Pass.short_text().as_str(), "pass");
    /// ```
    #[must_use]
    pub fn short_text(self) -> ShortText {
        let mut text = ShortText {
            bytes: [0; 8],
            len: 0,
        };
        match (self.from(), self.to()) {
            (Some(from), Some(to)) => {
                text.id(from.id());
                text.push(b'-');
                text.id(to.id());
            }
            _ => {
                for &b in b"pass" {
                    text.push(b);
                }
            }
        }
        text
    }
}

/// A move's text in a few bytes on the stack ([`Move::short_text`]).
#[derive(Clone, Copy, Debug)]
pub struct ShortText {
    bytes: [u8; 8],
    len: u8,
}

impl ShortText {
    fn push(&mut self, byte: u8) {
        self.bytes[usize::from(self.len)] = byte;
        self.len += 1;
    }

    /// A hole id in decimal (ids have at most three digits).
    fn id(&mut self, id: usize) {
        if id >= 100 {
            self.push(b'0' + (id / 100) as u8);
        }
        if id >= 10 {
            self.push(b'0' + (id / 10 % 10) as u8);
        }
        self.push(b'0' + (id % 10) as u8);
    }

    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).expect("digits, '-' and letters")
    }

    /// The text's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_text().as_str())
    }
}

/// A move as written: `pass`, or a path of hole ids. Well-formed, but not
/// checked against any position.
///
/// ```
/// use sternhalma::MoveText;
/// let text: MoveText = "95-75-57".parse()?;
/// assert_eq!(text, MoveText::Path(vec![95, 75, 57]));
/// assert_eq!(text.to_string(), "95-75-57");
/// assert!("95-".parse::<MoveText>().is_err());
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveText {
    /// `pass`.
    Pass,
    /// Two or more hole ids.
    Path(Vec<usize>),
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveText::Pass => f.write_str("pass"),
            MoveText::Path(holes) => {
                for (i, hole) in holes.iter().enumerate() {
                    if i > 0 {
                        f.write_str("-")?;
                    }
                    write!(f, "{hole}")?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for MoveText {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<MoveText, ParseError> {
        if text == "pass" {
            return Ok(MoveText::Pass);
        }
        let holes = text
            .split('-')
            .map(|part| {
                if part.is_empty() || part.len() > 6 || !part.bytes().all(|b| b.is_ascii_digit()) {
                    Err(ParseError::new(
                        ParseErrorKind::Move,
                        text,
                        "expected `pass` or hole ids joined by `-`, e.g. 111-93 or 95-75-57",
                    ))
                } else {
                    Ok(part.parse::<usize>().expect("at most six digits"))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        if holes.len() < 2 {
            return Err(ParseError::new(
                ParseErrorKind::Move,
                text,
                "a move needs at least two holes: where the peg starts and where it ends",
            ));
        }
        Ok(MoveText::Path(holes))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for MoveText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for MoveText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<MoveText, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Why a move is refused. Each has a stable [`code`](IllegalMove::code) for
/// machines and a sentence for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The game is over.
    GameOver,
    /// The move was submitted for a player who is not to move.
    NotYourTurn {
        /// Who submitted.
        player: usize,
        /// Who is to move.
        to_move: usize,
    },
    /// A hole id the board does not have.
    OffBoard {
        /// The id given.
        hole: usize,
        /// Holes on the board.
        holes: usize,
    },
    /// A path with more holes than the board: it must come back to a hole
    /// it left, and the same move has a path without the loop.
    PathTooLong {
        /// Holes in the path.
        length: usize,
        /// Holes on the board: the most a path may name.
        holes: usize,
    },
    /// No peg at the start hole.
    EmptyHole {
        /// The start hole.
        hole: usize,
    },
    /// The peg at the start belongs to another player (or is neutral).
    NotYourPeg {
        /// The start hole.
        hole: usize,
        /// Its owner; `None` for a neutral peg.
        owner: Option<usize>,
        /// Who is to move.
        to_move: usize,
    },
    /// The move ends on the hole it started from.
    ReturnsToStart {
        /// The start hole.
        hole: usize,
    },
    /// A step or hop lands on a peg.
    Occupied {
        /// The occupied hole.
        hole: usize,
    },
    /// Two consecutive holes of the path are neither neighbours nor on a line.
    NotAStepOrHop {
        /// Where the segment starts.
        from: usize,
        /// Where it ends.
        to: usize,
    },
    /// A hop over an empty hole.
    NothingToHopOver {
        /// Where the hop starts.
        from: usize,
        /// Where it lands.
        to: usize,
    },
    /// A hop longer than one peg's width while long jumps are off.
    LongJumpsOff {
        /// Where the hop starts.
        from: usize,
        /// Where it lands.
        to: usize,
    },
    /// A long hop whose line is not one peg with empty holes on both sides.
    NotASymmetricJump {
        /// Where the hop starts.
        from: usize,
        /// Where it lands.
        to: usize,
    },
    /// A step taken inside a hop chain, or after another step.
    StepInChain {
        /// Where the step starts.
        from: usize,
        /// Where it ends.
        to: usize,
    },
    /// No legal step, hop chain or swap leads from the start to the end.
    Unreachable {
        /// Start hole.
        from: usize,
        /// End hole.
        to: usize,
    },
    /// A peg that began in its target must end in it (the target lock).
    LeavesTarget {
        /// Start hole.
        from: usize,
        /// End hole.
        to: usize,
    },
    /// With resting forbidden, a move may not end in another player's triangle.
    EndsInForeignTriangle {
        /// End hole.
        to: usize,
        /// The triangle it lies in.
        triangle: Triangle,
    },
    /// A swap that the rules or the position do not allow.
    SwapNotAllowed {
        /// The hole of the peg that would be swapped.
        hole: usize,
        /// Why not.
        reason: &'static str,
    },
    /// A pass while a move is available.
    PassNotAllowed,
    /// Under `finish = round`, a finished player passes until the round ends.
    FinishedMustPass {
        /// The finished player.
        player: usize,
    },
    /// A resignation the game does not allow ([`crate::Position::resign`]).
    CannotResign {
        /// Who would resign.
        player: usize,
        /// Why not.
        reason: &'static str,
    },
    /// A number that is no action of this board ([`crate::Position::action_move`]).
    UnknownAction {
        /// The number given.
        action: i64,
        /// How many action numbers the board has.
        actions: usize,
    },
    /// Under `illegal_positions = sturtevant` (the solved game, RULES §7),
    /// a move into an illegal position: one that completes the opponent's
    /// target (the player to move next would have won) or leaves a target
    /// blocked. Such a move does not exist.
    LeadsToIllegalPosition {
        /// Start hole.
        from: usize,
        /// End hole.
        to: usize,
        /// What the move would do: `complete the opponent's target`, or
        /// leave the mover's own or the opponent's target blocked.
        reason: &'static str,
    },
}

impl IllegalMove {
    /// Every [`IllegalMove::code`], so that a client can tell an illegal
    /// move from another refusal by its code alone.
    ///
    /// ```
    /// use sternhalma::IllegalMove;
    /// assert!(IllegalMove::CODES.contains(&IllegalMove::GameOver.code()));
    /// assert!(!IllegalMove::CODES.contains(&"seat_count"));
    /// ```
    pub const CODES: [&'static str; 22] = [
        "game_over",
        "not_your_turn",
        "off_board",
        "path_too_long",
        "empty_hole",
        "not_your_peg",
        "returns_to_start",
        "hole_occupied",
        "not_a_step_or_hop",
        "nothing_to_hop_over",
        "long_jumps_off",
        "not_a_symmetric_jump",
        "step_in_chain",
        "unreachable",
        "leaves_target",
        "ends_in_foreign_triangle",
        "swap_not_allowed",
        "pass_not_allowed",
        "finished_must_pass",
        "cannot_resign",
        "unknown_action",
        "leads_to_illegal_position",
    ];

    /// A stable snake_case code, for clients to act on.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            IllegalMove::GameOver => "game_over",
            IllegalMove::NotYourTurn { .. } => "not_your_turn",
            IllegalMove::OffBoard { .. } => "off_board",
            IllegalMove::PathTooLong { .. } => "path_too_long",
            IllegalMove::EmptyHole { .. } => "empty_hole",
            IllegalMove::NotYourPeg { .. } => "not_your_peg",
            IllegalMove::ReturnsToStart { .. } => "returns_to_start",
            IllegalMove::Occupied { .. } => "hole_occupied",
            IllegalMove::NotAStepOrHop { .. } => "not_a_step_or_hop",
            IllegalMove::NothingToHopOver { .. } => "nothing_to_hop_over",
            IllegalMove::LongJumpsOff { .. } => "long_jumps_off",
            IllegalMove::NotASymmetricJump { .. } => "not_a_symmetric_jump",
            IllegalMove::StepInChain { .. } => "step_in_chain",
            IllegalMove::Unreachable { .. } => "unreachable",
            IllegalMove::LeavesTarget { .. } => "leaves_target",
            IllegalMove::EndsInForeignTriangle { .. } => "ends_in_foreign_triangle",
            IllegalMove::SwapNotAllowed { .. } => "swap_not_allowed",
            IllegalMove::PassNotAllowed => "pass_not_allowed",
            IllegalMove::FinishedMustPass { .. } => "finished_must_pass",
            IllegalMove::CannotResign { .. } => "cannot_resign",
            IllegalMove::UnknownAction { .. } => "unknown_action",
            IllegalMove::LeadsToIllegalPosition { .. } => "leads_to_illegal_position",
        }
    }
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::GameOver => write!(f, "the game is over"),
            IllegalMove::NotYourTurn { player, to_move } => {
                write!(f, "it is player {to_move}'s turn, not player {player}'s")
            }
            IllegalMove::OffBoard { hole, holes } => {
                write!(
                    f,
                    "hole {hole} is not on the board (holes are 0 to {})",
                    holes - 1
                )
            }
            IllegalMove::PathTooLong { length, holes } => write!(
                f,
                "the path names {length} holes, more than the board's {holes}: it comes back to a hole it left, and the same move has a path without the loop"
            ),
            IllegalMove::EmptyHole { hole } => write!(f, "there is no peg on hole {hole}"),
            IllegalMove::NotYourPeg {
                hole,
                owner: Some(owner),
                to_move,
            } => write!(
                f,
                "the peg on hole {hole} belongs to player {owner}; player {to_move} is to move"
            ),
            IllegalMove::NotYourPeg {
                hole, owner: None, ..
            } => write!(
                f,
                "the peg on hole {hole} is a neutral peg, which never moves"
            ),
            IllegalMove::ReturnsToStart { hole } => {
                write!(f, "the move ends on hole {hole}, where it started")
            }
            IllegalMove::Occupied { hole } => write!(f, "hole {hole} is occupied"),
            IllegalMove::NotAStepOrHop { from, to } => write!(
                f,
                "from hole {from} to hole {to} is neither a step to a neighbour nor a hop along a line"
            ),
            IllegalMove::NothingToHopOver { from, to } => write!(
                f,
                "the hop from hole {from} to hole {to} has no peg to hop over"
            ),
            IllegalMove::LongJumpsOff { from, to } => write!(
                f,
                "from hole {from} to hole {to} is a long jump, and long jumps are off"
            ),
            IllegalMove::NotASymmetricJump { from, to } => write!(
                f,
                "the long jump from hole {from} to hole {to} must pass over exactly one peg, midway, with every other hole on the line empty"
            ),
            IllegalMove::StepInChain { from, to } => write!(
                f,
                "the step from hole {from} to hole {to} is part of a longer move; a step must be the whole move"
            ),
            IllegalMove::Unreachable { from, to } => write!(
                f,
                "no legal step, hop chain or swap leads from hole {from} to hole {to}"
            ),
            IllegalMove::LeavesTarget { from, to } => write!(
                f,
                "the peg on hole {from} is in its target triangle and must stay in it; hole {to} is outside"
            ),
            IllegalMove::EndsInForeignTriangle { to, triangle } => write!(
                f,
                "hole {to} is in the {triangle} triangle, another player's, where pegs may not rest under these rules"
            ),
            IllegalMove::SwapNotAllowed { hole, reason } => {
                write!(f, "cannot swap with the peg on hole {hole}: {reason}")
            }
            IllegalMove::PassNotAllowed => {
                write!(f, "a pass is only legal when no other move is")
            }
            IllegalMove::FinishedMustPass { player } => write!(
                f,
                "player {player} has finished and passes until the round is played out"
            ),
            IllegalMove::CannotResign { player, reason } => {
                write!(f, "player {player} cannot resign: {reason}")
            }
            IllegalMove::UnknownAction { action, actions } => write!(
                f,
                "{action} is not an action number (they are 0 to {})",
                actions - 1
            ),
            IllegalMove::LeadsToIllegalPosition { from, to, reason } => write!(
                f,
                "the move from hole {from} to hole {to} would {reason}, and under illegal_positions=sturtevant no move leads to such a position"
            ),
        }
    }
}

impl std::error::Error for IllegalMove {}

/// A move text that could not be turned into a legal move: malformed, or
/// well-formed but illegal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text does not follow the move grammar.
    Malformed(ParseError),
    /// The move is illegal here.
    Illegal(IllegalMove),
}

impl MoveError {
    /// The stable code: the parse error's ([`ParseError::code`]) or the
    /// illegal move's ([`IllegalMove::code`]).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            MoveError::Malformed(e) => e.code(),
            MoveError::Illegal(e) => e.code(),
        }
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Malformed(e) => e.fmt(f),
            MoveError::Illegal(e) => write!(f, "illegal move: {e}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl From<ParseError> for MoveError {
    fn from(e: ParseError) -> MoveError {
        MoveError::Malformed(e)
    }
}

impl From<IllegalMove> for MoveError {
    fn from(e: IllegalMove) -> MoveError {
        MoveError::Illegal(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One value of every variant: the match has no wildcard, so a new
    /// variant does not compile until it is listed here (and its code
    /// checked against [`IllegalMove::CODES`]).
    fn one_of_each() -> Vec<IllegalMove> {
        let (hole, from, to, player, reason) = (1, 2, 3, 0, "why");
        let all = vec![
            IllegalMove::GameOver,
            IllegalMove::NotYourTurn { player, to_move: 1 },
            IllegalMove::OffBoard { hole, holes: 121 },
            IllegalMove::PathTooLong {
                length: 200,
                holes: 121,
            },
            IllegalMove::EmptyHole { hole },
            IllegalMove::NotYourPeg {
                hole,
                owner: None,
                to_move: 0,
            },
            IllegalMove::ReturnsToStart { hole },
            IllegalMove::Occupied { hole },
            IllegalMove::NotAStepOrHop { from, to },
            IllegalMove::NothingToHopOver { from, to },
            IllegalMove::LongJumpsOff { from, to },
            IllegalMove::NotASymmetricJump { from, to },
            IllegalMove::StepInChain { from, to },
            IllegalMove::Unreachable { from, to },
            IllegalMove::LeavesTarget { from, to },
            IllegalMove::EndsInForeignTriangle {
                to,
                triangle: Triangle::North,
            },
            IllegalMove::SwapNotAllowed { hole, reason },
            IllegalMove::PassNotAllowed,
            IllegalMove::FinishedMustPass { player },
            IllegalMove::CannotResign { player, reason },
            IllegalMove::UnknownAction {
                action: -1,
                actions: 10,
            },
            IllegalMove::LeadsToIllegalPosition { from, to, reason },
        ];
        for error in &all {
            match error {
                IllegalMove::GameOver
                | IllegalMove::NotYourTurn { .. }
                | IllegalMove::OffBoard { .. }
                | IllegalMove::PathTooLong { .. }
                | IllegalMove::EmptyHole { .. }
                | IllegalMove::NotYourPeg { .. }
                | IllegalMove::ReturnsToStart { .. }
                | IllegalMove::Occupied { .. }
                | IllegalMove::NotAStepOrHop { .. }
                | IllegalMove::NothingToHopOver { .. }
                | IllegalMove::LongJumpsOff { .. }
                | IllegalMove::NotASymmetricJump { .. }
                | IllegalMove::StepInChain { .. }
                | IllegalMove::Unreachable { .. }
                | IllegalMove::LeavesTarget { .. }
                | IllegalMove::EndsInForeignTriangle { .. }
                | IllegalMove::SwapNotAllowed { .. }
                | IllegalMove::PassNotAllowed
                | IllegalMove::FinishedMustPass { .. }
                | IllegalMove::CannotResign { .. }
                | IllegalMove::UnknownAction { .. }
                | IllegalMove::LeadsToIllegalPosition { .. } => {}
            }
        }
        all
    }

    #[test]
    fn codes_lists_every_code_once() {
        let codes: Vec<&str> = one_of_each().iter().map(IllegalMove::code).collect();
        assert_eq!(codes, IllegalMove::CODES);
    }

    #[test]
    fn move_text_round_trips() {
        for text in ["pass", "0-1", "111-93-75-57", "5-5"] {
            assert_eq!(text.parse::<MoveText>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn malformed_move_text() {
        for text in [
            "",
            "-",
            "1",
            "1-",
            "-1",
            "1--2",
            "a-b",
            "1-2 ",
            " 1-2",
            "PASS",
            "1-9999999",
            "+1-2",
        ] {
            assert!(text.parse::<MoveText>().is_err(), "{text:?}");
        }
    }
}
