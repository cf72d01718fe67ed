//! The solitaire crossing: the fewest moves that take one set alone on the
//! board from the south triangle to the north triangle (RULES §6).
//!
//! The problem is the crate's own one-player game: layout `1` (one set,
//! starting in the south triangle, headed for the north one) under the
//! `classic` rules. So every other hole starts empty; on the star the four
//! side triangles are unused and therefore *empty* (`unused_triangles =
//! empty`), and pegs may pass through and rest there (`resting allowed`);
//! a peg that begins a move inside the north triangle must end it there (the
//! target lock of RULES §3). The optimal move list replays through
//! [`Position::play`] from [`Problem::start_position`], and the last move
//! finishes the game.
//!
//! The search is IDA* ([`solve`]) over peg sets held as one 128-bit set,
//! counted up to the left-right mirror, guided by an admissible lower bound:
//! the exact distance in each of three projections of the board onto its
//! lines (rows and the two diagonals); see `docs/solitaire.md`.
//!
//! ```
//! use sternhalma::Board;
//! use sternhalma::solitaire::{Problem, SolveOptions, solve};
//!
//! let problem = Problem::new(Board::rhombus(5, 2)?, false);
//! let solution = solve(&problem, SolveOptions::default())?;
//! assert_eq!(solution.length, 11);
//! assert!(solution.optimal);
//! // The moves replay through the rules and finish the game.
//! let mut position = problem.start_position();
//! for &mv in &solution.moves {
//!     position = position.play(mv)?;
//! }
//! assert!(position.is_home(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod heuristic;
mod meet;
mod moves;
mod perimeter;
mod search;
mod tables;

use std::fmt;
use std::ops::ControlFlow;
use std::time::Duration;

use crate::board::Board;
use crate::cell::Cell;
use crate::layout::Layout;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::Rules;

use self::heuristic::{Heuristic, UNREACHABLE};
use self::meet::{Meet, Outcome};
use self::perimeter::Perimeter;
use self::search::{Search, Stop};
use self::tables::Tables;

/// A solitaire crossing: the board, and whether only hop chains count as
/// moves (no steps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Problem {
    /// The board: a star (the side triangles empty and usable) or a rhombus.
    pub board: Board,
    /// Only hop chains are allowed.
    pub hops_only: bool,
}

impl Problem {
    /// The crossing of `board`, with steps allowed unless `hops_only`.
    #[must_use]
    pub fn new(board: Board, hops_only: bool) -> Problem {
        Problem { board, hops_only }
    }

    /// The rules the crossing is played under: `classic` (side triangles
    /// empty, resting allowed, no anti-spoiling, no move limit).
    #[must_use]
    pub fn rules() -> Rules {
        Rules::classic()
    }

    /// The start: layout `1` (the south set alone) under [`Problem::rules`].
    ///
    /// # Panics
    /// Never: every board has a south triangle.
    #[must_use]
    pub fn start_position(&self) -> Position {
        Position::start(
            self.board,
            Layout::standard(1).expect("the one-player layout"),
            Problem::rules(),
        )
        .expect("every board has a south triangle")
    }
}

/// A snapshot of a running search, given to the progress callback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Positions visited so far (all iterations).
    pub nodes: u64,
    /// The bound of the current iteration: no solution is shorter.
    pub bound: u32,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Average speed so far.
    pub nodes_per_second: f64,
}

/// The progress callback: called about every
/// [`SolveOptions::progress_interval`]; returning [`ControlFlow::Break`]
/// stops the search with [`SolveError::Interrupted`].
pub type ProgressCallback<'a> = &'a mut dyn FnMut(&Progress) -> ControlFlow<()>;

/// Which search [`solve`] runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Method {
    /// Breadth first from the start, meeting its own half turn in the
    /// middle (see `docs/solitaire.md`): the fastest proof, holding the
    /// levels in memory (16 bytes a position). The default.
    #[default]
    Meet,
    /// Iterative deepening A*: memory bounded by the transposition table,
    /// but slower to prove long crossings. Used whenever
    /// [`SolveOptions::weight`] is above 1.
    Ida,
}

/// Calls the progress callback, at most once an interval; shared by both
/// searches.
pub(crate) struct Reporter<'p> {
    started: std::time::Instant,
    last: std::time::Instant,
    interval: Duration,
    callback: Option<ProgressCallback<'p>>,
}

impl<'p> Reporter<'p> {
    pub(crate) fn new(interval: Duration, callback: Option<ProgressCallback<'p>>) -> Reporter<'p> {
        let started = std::time::Instant::now();
        Reporter {
            started,
            last: started,
            interval,
            callback,
        }
    }

    /// Reports `nodes` and `bound` if the interval has passed since the
    /// last report; `Break` if the callback asks to stop.
    pub(crate) fn report(&mut self, nodes: u64, bound: u32) -> ControlFlow<()> {
        let now = std::time::Instant::now();
        if now.duration_since(self.last) < self.interval {
            return ControlFlow::Continue(());
        }
        self.last = now;
        let elapsed = now.duration_since(self.started);
        let progress = Progress {
            nodes,
            bound,
            elapsed,
            nodes_per_second: nodes as f64 / elapsed.as_secs_f64().max(1e-9),
        };
        match &mut self.callback {
            Some(callback) => callback(&progress),
            None => ControlFlow::Continue(()),
        }
    }

    /// Gives back the callback, for another search to use.
    pub(crate) fn into_callback(self) -> Option<ProgressCallback<'p>> {
        self.callback
    }
}

/// How to run a search.
pub struct SolveOptions<'a> {
    /// The search to run (default [`Method::Meet`]).
    pub method: Method,
    /// Stop with [`SolveError::NodeLimit`] after this many positions.
    pub max_nodes: Option<u64>,
    /// Stop [`Method::Meet`] with [`SolveError::MemoryLimit`] when the
    /// positions it holds would take more bytes than this (default: no
    /// budget). Counted, not measured, so the same problem stops at the same
    /// place on every machine: 16 bytes for each position of the levels
    /// kept, plus twice those of the sorted runs of the level being built
    /// (merging copies them), checked after every chunk of 262,144 parents
    /// expanded, so the real peak can pass the budget by one chunk's
    /// children. [`Solution::memory_bytes`] is the count a solve reached.
    /// Not counted: the lower-bound tables (shared by every solve of the
    /// process, see `max_table_states`) and IDA*'s table (`table_bits`).
    pub max_memory_bytes: Option<u64>,
    /// Called with a [`Progress`] about every `progress_interval`.
    pub progress: Option<ProgressCallback<'a>>,
    /// Time between two progress calls (default one second).
    pub progress_interval: Duration,
    /// The transposition table has `2^table_bits` entries of 24 bytes
    /// (default 22: 96 MiB; clamped to 10..=30).
    pub table_bits: u8,
    /// How many positions the search back from the goal may keep (about
    /// 40 bytes each; default 200,000). It runs level by level and keeps
    /// the last level that fits.
    pub perimeter_states: usize,
    /// Multiplies the lower bound (weighted IDA*). The default 1.0 proves
    /// the crossing optimal; a larger weight finds a crossing sooner, at most
    /// `weight` times longer than the optimum, and marks it not optimal.
    pub weight: f64,
    /// The largest lower-bound table built, in positions (one byte each;
    /// default 64,000,000, at most `u32::MAX`). Each of the three line
    /// projections whose puzzle has more positions is left out: the search
    /// stays correct and optimal but sees a weaker bound. Tables are built
    /// once per process, about 0.2 µs a position (star4's 3.3 million in
    /// under a second, the tables of different axes in parallel), and kept,
    /// so a lower limit shortens the first solve on a big board.
    pub max_table_states: u64,
}

impl Default for SolveOptions<'_> {
    fn default() -> Self {
        SolveOptions {
            method: Method::Meet,
            max_nodes: None,
            max_memory_bytes: None,
            progress: None,
            progress_interval: Duration::from_secs(1),
            table_bits: 22,
            perimeter_states: 200_000,
            weight: 1.0,
            max_table_states: heuristic::MAX_STATES,
        }
    }
}

impl fmt::Debug for SolveOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SolveOptions")
            .field("method", &self.method)
            .field("max_nodes", &self.max_nodes)
            .field("max_memory_bytes", &self.max_memory_bytes)
            .field("progress", &self.progress.is_some())
            .field("progress_interval", &self.progress_interval)
            .field("table_bits", &self.table_bits)
            .field("perimeter_states", &self.perimeter_states)
            .field("weight", &self.weight)
            .field("max_table_states", &self.max_table_states)
            .finish()
    }
}

/// A shortest crossing.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The moves, legal in turn from [`Problem::start_position`].
    pub moves: Vec<Move>,
    /// Number of moves.
    pub length: usize,
    /// Positions visited by the search.
    pub nodes: u64,
    /// Time the search took (lower-bound tables included).
    pub elapsed: Duration,
    /// The most bytes the meeting search held at once, counted as for
    /// [`SolveOptions::max_memory_bytes`]: the budget that suffices for this
    /// solve. 0 when only IDA* ran.
    pub memory_bytes: u64,
    /// Whether the search proved that no shorter crossing exists: true
    /// unless [`SolveOptions::weight`] was above 1 (every shorter bound was
    /// then searched to the end).
    pub optimal: bool,
}

/// Why [`solve`] gave no solution.
#[derive(Clone, Debug, PartialEq)]
pub enum SolveError {
    /// The node limit was reached first. Every crossing takes at least
    /// `lower_bound` moves (with a weight above 1: `lower_bound / weight`).
    NodeLimit {
        /// The best lower bound proven.
        lower_bound: u32,
        /// Positions visited.
        nodes: u64,
    },
    /// [`Method::Meet`] would have held more than
    /// [`SolveOptions::max_memory_bytes`]. Every crossing takes at least
    /// `lower_bound` moves.
    MemoryLimit {
        /// The best lower bound proven.
        lower_bound: u32,
        /// Positions visited.
        nodes: u64,
        /// The bytes counted when the search stopped (over the budget).
        memory_bytes: u64,
    },
    /// The progress callback stopped the search.
    Interrupted {
        /// The best lower bound proven.
        lower_bound: u32,
        /// Positions visited.
        nodes: u64,
    },
    /// No sequence of moves reaches the goal (possible with hops only).
    Unsolvable,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::NodeLimit { lower_bound, nodes } => write!(
                f,
                "node limit reached after {nodes} nodes; every crossing takes at least {lower_bound} moves"
            ),
            SolveError::MemoryLimit {
                lower_bound,
                nodes,
                memory_bytes,
            } => write!(
                f,
                "memory budget reached after {nodes} nodes (the search would hold {memory_bytes} bytes); every crossing takes at least {lower_bound} moves"
            ),
            SolveError::Interrupted { lower_bound, nodes } => write!(
                f,
                "interrupted after {nodes} nodes; every crossing takes at least {lower_bound} moves"
            ),
            SolveError::Unsolvable => write!(f, "the goal cannot be reached"),
        }
    }
}

impl std::error::Error for SolveError {}

/// Finds a shortest crossing and proves it shortest.
///
/// # Errors
/// The node limit or the memory budget was reached, or the callback stopped
/// the search (each with the lower bound proven so far), or the crossing is
/// impossible.
///
/// # Panics
/// If a move found does not replay through the rules (a bug).
pub fn solve(problem: &Problem, mut options: SolveOptions<'_>) -> Result<Solution, SolveError> {
    let started = std::time::Instant::now();
    let tables = Tables::new(problem.board);
    let heuristic = Heuristic::new(&tables, problem.hops_only, options.max_table_states);
    let max_nodes = options.max_nodes.unwrap_or(u64::MAX);
    let weight = options.weight.max(1.0);
    // A length the bidirectional search proved no crossing is shorter than,
    // when the IDA* must take over (the shortest lock-free crossing breaks
    // the target lock).
    let mut floor = 0;
    let mut spent = 0;
    let mut memory_bytes = 0;
    let half_turn = meet::half_turn(&tables);
    if let (Method::Meet, true, Some(image)) = (options.method, weight <= 1.0, half_turn) {
        let mut meet = Meet::new(
            &tables,
            &heuristic,
            image,
            problem.hops_only,
            max_nodes,
            options.max_memory_bytes.unwrap_or(u64::MAX),
            Reporter::new(options.progress_interval, options.progress.take()),
        );
        let outcome = meet.run();
        let (lower_bound, nodes) = (meet.bound, meet.nodes);
        memory_bytes = meet.peak_memory;
        match outcome {
            Outcome::Crossing(path) => {
                let mut solution = replay(problem, &path, nodes, started, true);
                solution.memory_bytes = memory_bytes;
                return Ok(solution);
            }
            Outcome::Unsolvable => return Err(SolveError::Unsolvable),
            Outcome::Stopped => {
                return Err(match meet.stop {
                    Some(Stop::Interrupted) => SolveError::Interrupted { lower_bound, nodes },
                    Some(Stop::MemoryLimit) => SolveError::MemoryLimit {
                        lower_bound,
                        nodes,
                        memory_bytes,
                    },
                    _ => SolveError::NodeLimit { lower_bound, nodes },
                });
            }
            Outcome::LockFreeOnly(length) => {
                floor = length;
                spent = nodes;
                options.progress = meet.into_reporter().into_callback();
            }
        }
    }
    let perimeter = Perimeter::build(&tables, problem.hops_only, options.perimeter_states);
    let mut search = Search::new(
        &tables,
        &heuristic,
        &perimeter,
        problem.hops_only,
        options.table_bits.clamp(10, 30),
        max_nodes.saturating_sub(spent),
        Reporter::new(options.progress_interval, options.progress),
    );
    search.weight = weight;
    let found = search.run(tables.start, floor);
    let nodes = spent + search.nodes;
    if !found {
        let lower_bound = search.bound;
        return Err(match search.stop {
            Some(Stop::NodeLimit) => SolveError::NodeLimit { lower_bound, nodes },
            Some(Stop::MemoryLimit) => SolveError::MemoryLimit {
                lower_bound,
                nodes,
                memory_bytes,
            },
            Some(Stop::Interrupted) => SolveError::Interrupted { lower_bound, nodes },
            None => {
                debug_assert_eq!(lower_bound, u32::from(UNREACHABLE));
                SolveError::Unsolvable
            }
        });
    }
    let mut solution = replay(problem, &search.path, nodes, started, weight <= 1.0);
    solution.memory_bytes = memory_bytes;
    Ok(solution)
}

/// The solution of a path found by a search, replayed through the rules.
fn replay(
    problem: &Problem,
    path: &[moves::BitMove],
    nodes: u64,
    started: std::time::Instant,
    optimal: bool,
) -> Solution {
    let mut position = problem.start_position();
    let mut moves = Vec::with_capacity(path.len());
    for step in path {
        let (from, to) = (Cell(step.from), Cell(step.to));
        let mv = if position.geometry().neighbor_set(from).contains(to) {
            Move::Step { from, to }
        } else {
            Move::Hop { from, to }
        };
        position = position
            .play(mv)
            .unwrap_or_else(|e| panic!("solver move {mv} does not replay: {e}"));
        moves.push(mv);
    }
    debug_assert!(position.is_home(0));
    Solution {
        length: moves.len(),
        moves,
        nodes,
        elapsed: started.elapsed(),
        memory_bytes: 0,
        optimal,
    }
}

/// The lower bound the search starts from: the admissible heuristic of the
/// start position with the default [`SolveOptions::max_table_states`]
/// (`None` if it shows the crossing impossible).
#[must_use]
pub fn initial_lower_bound(problem: &Problem) -> Option<u32> {
    let tables = Tables::new(problem.board);
    let heuristic = Heuristic::new(&tables, problem.hops_only, heuristic::MAX_STATES);
    let bound = heuristic.bound(tables.start);
    (bound != UNREACHABLE).then_some(u32::from(bound))
}

#[cfg(test)]
mod tests;
