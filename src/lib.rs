//! # Sternhalma
//!
//! The rules of Chinese Checkers (Stern-Halma, 1892), exactly, and fast:
//! boards, setups, every rule variant of the project's specification, move
//! generation, outcomes, a position string and a move text.
//!
//! The shape of the crate follows the rule of "parse, then validate, then
//! play":
//! - text becomes plain values ([`Setup`], [`MoveText`]) with no position at
//!   hand, and malformed text is a [`ParseError`];
//! - a [`Setup`] becomes a [`Position`] only through [`Setup::validate`],
//!   which reports every problem at once;
//! - a [`Position`] gives its [`legal moves`](Position::legal_moves), plays
//!   them checked ([`Position::play`]) or fast in place
//!   ([`Position::make_move`] / [`Position::unmake_move`]), and tells its
//!   [`Outcome`].
//!
//! ```
//! use sternhalma::{Board, Layout, Outcome, Position, Rules};
//!
//! let mut position = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
//! assert_eq!(position.to_string(), "star4 classic south:111-120/north:0-9 0 0 -");
//! position = position.play_text("115-104")?;          // a hop over 112
//! assert_eq!(position.outcome(), Outcome::InProgress);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod actions;
mod bitboard;
mod board;
mod cell;
mod check;
mod diagram;
mod error;
mod game;
mod geometry;
mod illegal;
mod layout;
mod movegen;
mod moves;
mod notation;
mod outcome;
mod perft;
mod position;
mod raster;
mod rules;
pub mod search;
mod setup;
pub mod solitaire;
pub mod solve;
mod sturtevant;
mod svg;
pub mod vector;
#[cfg(feature = "serde")]
pub mod wire;
mod witness;
mod zobrist;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use board::{Board, BoardShape, Direction, Triangle};
pub use cell::{Cell, CellSet, CellSetIter};
pub use check::{Played, Swapped};
pub use diagram::{Charset, TextOptions, render_text};
pub use error::{ParseError, ParseErrorKind};
pub use game::NewGame;
pub use geometry::Geometry;
pub use layout::{Layout, MAX_SETS};
pub use moves::{IllegalMove, Move, MoveError, MoveKind, MoveText, ShortText};
pub use notation::PositionError;
pub use outcome::{DrawReason, Outcome, OutcomeStatus};
pub use perft::{perft, perft_by_depth};
pub use position::{Position, Undo, mirror_triangle};
pub use raster::{Raster, RasterOptions, render_rgb};
pub use rules::{
    AntiSpoiling, Finish, IllegalPositions, OPTION_NAMES, OptionKind, OptionValue, Preset, Resting,
    Rules, UnusedTriangles,
};
pub use setup::{Finisher, PegSet, Resignation, Setup, SetupError, SetupProblem};
pub use svg::{Legend, SvgOptions, render_svg, render_svg_with_legend, triangle_colour};
pub use witness::Witnesses;
