//! A game checked against perfect play: for each ply, the mover's value
//! before and after the move, and whether the move threw a result away
//! (a **mistake**: win → draw or loss, draw → loss), kept it more slowly
//! than the best move (**slower**: a longer win, a quicker loss), or was
//! among the **best**. Per seat: moves, mistakes, and the share of moves
//! that kept the value.
//!
//! ```
//! use sternhalma::solve::{Game, Tablebase, analysis::{analyse, Verdict}};
//! use sternhalma::{Layout, Position, Rules};
//!
//! let game = Game::new(7, 1)?;
//! let table = Tablebase::build(&game, 1, &|_| {})?;
//! let start = Position::start(game.board(), Layout::standard(2)?, Rules::sturtevant())?;
//! let best = table.best_move(&start, 0)?.mv;
//! let report = analyse(&table, &start, &[best])?;
//! assert_eq!(report.plies[0].verdict, Verdict::Best);
//! assert_eq!(report.seats[0].kept, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use super::table::Value;
use super::tablebase::{MoveProbe, Probe, Tablebase, TablebaseError, best_among};
use crate::{Move, Position};

/// What a move did to the mover's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The value and depth of the best move.
    Best,
    /// The value kept, but a win made longer or a loss shorter.
    Slower,
    /// A worse value: a win thrown to a draw or a loss, a draw to a loss.
    Mistake,
}

impl Verdict {
    /// Every verdict, best first.
    pub const ALL: [Verdict; 3] = [Verdict::Best, Verdict::Slower, Verdict::Mistake];

    /// `best`, `slower`, `mistake`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Best => "best",
            Verdict::Slower => "slower",
            Verdict::Mistake => "mistake",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One ply of an analysed game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyAnalysis {
    /// The ply, from 0.
    pub ply: u32,
    /// The seat that moved.
    pub seat: usize,
    /// The move played.
    pub mv: Move,
    /// The position's value for the mover before the move.
    pub before: Probe,
    /// The mover's value after it.
    pub after: Probe,
    /// The best move's value and depth (what `before` is).
    pub best: MoveProbe,
    /// Best, slower or a mistake.
    pub verdict: Verdict,
}

/// One seat's moves, summed up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatAnalysis {
    /// Moves it made.
    pub moves: u32,
    /// Moves that kept the value (best or slower).
    pub kept: u32,
    /// Moves among the best.
    pub best: u32,
    /// Mistakes.
    pub mistakes: u32,
}

impl SeatAnalysis {
    /// The share of its moves that kept the value, if it moved.
    #[must_use]
    pub fn accuracy(&self) -> Option<f64> {
        (self.moves > 0).then(|| f64::from(self.kept) / f64::from(self.moves))
    }
}

/// A game analysed; see the module's documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// Each ply in order.
    pub plies: Vec<PlyAnalysis>,
    /// Seat 0 and seat 1.
    pub seats: [SeatAnalysis; 2],
    /// The value of the final position for its side to move.
    pub end: Probe,
}

/// Why a game cannot be analysed.
#[derive(Debug)]
pub enum AnalysisError {
    /// The table cannot answer for the start (another game).
    Tablebase(TablebaseError),
    /// Move `ply` is not legal where it is played; the text says why.
    IllegalMove {
        /// The ply, from 0.
        ply: u32,
        /// Why.
        reason: String,
    },
}

impl AnalysisError {
    /// The stable code: the table's, or `illegal_move`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            AnalysisError::Tablebase(e) => e.code(),
            AnalysisError::IllegalMove { .. } => "illegal_move",
        }
    }
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisError::Tablebase(e) => write!(f, "{e}"),
            AnalysisError::IllegalMove { ply, reason } => write!(f, "move {ply}: {reason}"),
        }
    }
}

impl std::error::Error for AnalysisError {}

impl From<TablebaseError> for AnalysisError {
    fn from(e: TablebaseError) -> AnalysisError {
        AnalysisError::Tablebase(e)
    }
}

fn order(value: Value) -> u8 {
    match value {
        Value::Win => 2,
        Value::Draw => 1,
        _ => 0,
    }
}

/// Analyses the game that starts at `start` and plays `moves`.
///
/// # Errors
/// A start of another game than the table's, or a move that is not legal
/// where it is played.
pub fn analyse(
    table: &Tablebase,
    start: &Position,
    moves: &[Move],
) -> Result<Analysis, AnalysisError> {
    let mut position = start.clone();
    let mut plies = Vec::with_capacity(moves.len());
    let mut seats = [SeatAnalysis::default(); 2];
    for (ply, &mv) in moves.iter().enumerate() {
        let ply = ply as u32;
        let options = table.moves(&position)?;
        let next = position.play(mv).map_err(|e| AnalysisError::IllegalMove {
            ply,
            reason: e.to_string(),
        })?;
        // The generator's form of the move (a hop may be written by
        // another path to the same hole).
        let played = options
            .iter()
            .find(|m| m.mv == mv)
            .or_else(|| {
                options
                    .iter()
                    .find(|m| position.play(m.mv).is_ok_and(|p| p == next))
            })
            .ok_or_else(|| AnalysisError::IllegalMove {
                ply,
                reason: format!("{mv} is not a legal move here"),
            })?;
        let before = table.probe(&position)?;
        // The best move among the moves already read, not read again.
        let best = best_among(&options, 0).ok_or(TablebaseError::GameOver)?;
        let verdict = if order(played.value) < order(before.value) {
            Verdict::Mistake
        } else if played.depth == best.depth {
            Verdict::Best
        } else {
            Verdict::Slower
        };
        let seat = position.side_to_move().min(1);
        let tally = &mut seats[seat];
        tally.moves += 1;
        match verdict {
            Verdict::Best => {
                tally.best += 1;
                tally.kept += 1;
            }
            Verdict::Slower => tally.kept += 1,
            Verdict::Mistake => tally.mistakes += 1,
        }
        plies.push(PlyAnalysis {
            ply,
            seat,
            mv,
            before,
            after: played.probe(),
            best,
            verdict,
        });
        position = next;
    }
    let end = table.probe(&position)?;
    Ok(Analysis { plies, seats, end })
}
