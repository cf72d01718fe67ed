//! The solved game (RULES §7): every position's value on the small rhombi,
//! by retrograde analysis, as N. R. Sturtevant strongly solved them (*On
//! Strongly Solving Chinese Checkers*, ACG 2019).
//!
//! - [`Game`]: a board and peg count, its positions as bit sets, its moves
//!   from the crate's move generator and its rules from the crate's one
//!   home of them.
//! - [`Ranking`]: positions ↔ dense indices.
//! - [`Solver`]: 2 bits a position, value iteration to a fixed point on
//!   several threads; [`solve_depths`]: depth to the end, a byte a
//!   position, for small tables.
//! - [`mod@file`]: table files with a checked header.
//! - [`analysis`]: a game checked move by move against perfect play.
//! - [`Tablebase`]: a solved table opened for play: any position's value
//!   and every move's, the best move, the best line to the end
//!   ([`Tablebase::mainline`]); [`Tablebases`]: a set of opened tables,
//!   passed as a handle to whoever plays from them.
//! - [`mod@placement`]: positions as a table sees them ([`Placement`]),
//!   questions to a table as lines of text ([`Query`], [`Prober`]) and the
//!   positions each entry stands for ([`Tablebase::entry`]): the
//!   researcher's batch probe and export.
//!
//! ```
//! use sternhalma::solve::{Game, Value, solve};
//! let game = Game::new(7, 1)?;
//! let (table, _passes) = solve(&game, 2);
//! let (mover, other) = game.start();
//! assert_eq!(table.get(game.ranking().index(mover, other)), Value::Win);
//! // Table 1 of Sturtevant (2019): positions, wins, draws, illegal.
//! assert_eq!(game.counts(&table).published(), [4_704, 2_304, 0, 96]);
//! # Ok::<(), sternhalma::ParseError>(())
//! ```

pub mod analysis;
mod depth;
pub mod file;
mod game;
mod mainline;
pub mod packed;
pub mod placement;
mod rank;
mod solver;
mod table;
pub mod tablebase;
mod verify;

pub use depth::{Depths, MAX_DEPTH, solve_depths, value_of};
pub use game::{Game, MAX_MOVES, Moves, Sets};
pub use mainline::Mainline;
pub use packed::PackedTable;
pub use placement::{Answer, Placement, Prober, Query};
pub use rank::{MAX_PEGS, Ranking};
pub use solver::{PassReport, Progress, Solver, solve};
pub use table::{Counts, Table, Value};
pub use tablebase::{MoveProbe, Probe, Tablebase, TablebaseError, Tablebases};
pub use verify::check_position;

/// A row of Table 1 of Sturtevant (2019) as published: positions, wins of
/// the first player, draws, illegal positions (RULES §7), or `None` for a
/// game the paper does not count. The figures for 2 and 4 pegs, and for 6
/// pegs, are quoted from the paper by the reproduction jh85/smallgames
/// (`chinesecheckers/src/cc_core.hpp`, `README.md`); RULES §7 quotes 1 and
/// 3 pegs.
#[must_use]
pub fn published(side: u8, pegs: u8) -> Option<[u64; 4]> {
    Some(match (side, pegs) {
        (7, 1) => [4_704, 2_304, 0, 96],
        (7, 2) => [2_542_512, 1_265_851, 0, 10_810],
        (7, 3) => [559_352_640, 279_297_470, 180_860, 576_840],
        (7, 4) => [63_136_929_240, 31_532_340_944, 51_686_042, 20_561_310],
        (4, 6) => [3_363_360, 1_205_441, 547_058, 405_420],
        (5, 6) => [9_610_154_400, 4_749_618_788, 47_056_118, 63_860_706],
        (6, 6) => [
            2_313_100_389_600,
            1_153_000_938_173,
            5_199_820_604,
            1_898_692_650,
        ],
        _ => return None,
    })
}

/// A row of the independent reproduction (jh85/smallgames,
/// `chinesecheckers/`), where it differs from the paper: the 6-peg games,
/// whose published wins and draws its rules do not give.
#[must_use]
pub fn reproduced(side: u8, pegs: u8) -> Option<[u64; 4]> {
    Some(match (side, pegs) {
        (4, 6) => [3_363_360, 1_436_159, 85_622, 405_420],
        (5, 6) => [9_610_154_400, 4_749_512_556, 46_956_270, 64_173_018],
        (6, 6) => [
            2_313_100_389_600,
            1_152_969_765_114,
            5_181_409_122,
            1_979_450_250,
        ],
        _ => published(side, pegs)?,
    })
}
