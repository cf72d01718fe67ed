//! Iterative deepening A* (IDA*) with a transposition table of proven lower
//! bounds.
//!
//! Each iteration is a depth-first search that cuts every path whose length
//! plus the lower bound of its last position exceeds the iteration's bound.
//! When a position's moves are all cut, the smallest excess seen below it
//! is a proven lower bound on its distance to the goal, larger than the
//! heuristic's; the table keeps it (for the position and its mirror image),
//! so transpositions in this and later iterations are cut at once. An
//! iteration that finds no solution proves the optimum exceeds its bound.

use super::Reporter;
use super::heuristic::{Heuristic, UNREACHABLE};
use super::moves::{BitMove, generate};
use super::perimeter::Perimeter;
use super::tables::Tables;

/// Returned by the depth-first search when it reached the goal.
const FOUND: u32 = u32::MAX;
/// Returned when the search was stopped (node limit or callback).
const STOPPED: u32 = u32::MAX - 1;
/// How many nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 1 << 14;

/// One slot of the transposition table: a canonical peg set and a proven
/// lower bound on its distance to the goal.
#[derive(Clone, Copy, Default)]
struct Entry {
    low: u64,
    high: u64,
    bound: u8,
}

/// Why the search stopped early.
pub(crate) enum Stop {
    NodeLimit,
    /// The meeting search's levels outgrew their budget (IDA* never
    /// stops for this).
    MemoryLimit,
    Interrupted,
}

pub(crate) struct Search<'a, 'p> {
    tables: &'a Tables,
    heuristic: &'a Heuristic,
    perimeter: &'a Perimeter,
    hops_only: bool,
    table: Vec<Entry>,
    table_mask: usize,
    pub(crate) nodes: u64,
    max_nodes: u64,
    reporter: Reporter<'p>,
    pub(crate) bound: u32,
    pub(crate) stop: Option<Stop>,
    /// Multiplies the admissible bound: 1 proves optimality; more finds a
    /// (possibly longer) crossing sooner.
    pub(crate) weight: f64,
    /// The moves of the current path.
    pub(crate) path: Vec<BitMove>,
    /// Move buffers, one per depth, reused.
    buffers: Vec<Vec<(u8, BitMove)>>,
    scratch: Vec<BitMove>,
}

impl<'a, 'p> Search<'a, 'p> {
    #[allow(clippy::too_many_arguments)] // internal; each is a distinct input
    pub(crate) fn new(
        tables: &'a Tables,
        heuristic: &'a Heuristic,
        perimeter: &'a Perimeter,
        hops_only: bool,
        table_bits: u8,
        max_nodes: u64,
        reporter: Reporter<'p>,
    ) -> Search<'a, 'p> {
        let size = 1usize << table_bits;
        Search {
            tables,
            heuristic,
            perimeter,
            hops_only,
            table: vec![Entry::default(); size],
            table_mask: size - 1,
            nodes: 0,
            max_nodes,
            reporter,
            bound: 0,
            stop: None,
            weight: 1.0,
            path: Vec::new(),
            buffers: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn slot(&self, key: u128) -> usize {
        // A 64-bit mix of the 128-bit key (splitmix64 finaliser).
        let mut x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        (x as usize) & self.table_mask & !1
    }

    fn lookup(&self, key: u128) -> u8 {
        let slot = self.slot(key);
        let (low, high) = (key as u64, (key >> 64) as u64);
        for entry in &self.table[slot..slot + 2] {
            if entry.low == low && entry.high == high {
                return entry.bound;
            }
        }
        0
    }

    fn store(&mut self, key: u128, bound: u8) {
        let slot = self.slot(key);
        let (low, high) = (key as u64, (key >> 64) as u64);
        let pair = &mut self.table[slot..slot + 2];
        let index = if pair[0].low == low && pair[0].high == high {
            0
        } else if pair[1].low == low && pair[1].high == high {
            1
        } else if pair[0].bound <= pair[1].bound {
            0
        } else {
            1
        };
        pair[index] = Entry { low, high, bound };
    }

    /// The lower bound of a position: the heuristic or what the table
    /// learned, whichever is larger.
    pub(crate) fn lower_bound(&self, pegs: u128) -> u32 {
        let h = self.heuristic.bound(pegs);
        if h == UNREACHABLE {
            return u32::from(UNREACHABLE);
        }
        let key = self.tables.canonical(pegs);
        let mut estimate = h.max(self.perimeter.bound(key));
        if self.weight > 1.0 {
            // Learned values are in weighted units already.
            estimate = (f64::from(estimate) * self.weight).ceil().min(254.0) as u8;
        }
        u32::from(estimate.max(self.lookup(key)))
    }

    /// Runs iterations with growing bounds until a solution is found
    /// (`true`) or the search is stopped (`false`). `self.bound` is then the
    /// solution's length, or the best lower bound proven.
    /// `floor` is a lower bound proven by other means (0 if none).
    pub(crate) fn run(&mut self, start: u128, floor: u32) -> bool {
        let first = self.lower_bound(start);
        if first >= u32::from(UNREACHABLE) {
            return false;
        }
        self.bound = first.max(floor);
        loop {
            match self.visit(start, 0) {
                FOUND => return true,
                STOPPED => return false,
                next if next >= u32::from(UNREACHABLE) => {
                    self.bound = u32::from(UNREACHABLE);
                    return false;
                }
                next => self.bound = next,
            }
        }
    }

    /// Depth-first search below `pegs`, reached in `depth` moves: `FOUND`,
    /// `STOPPED`, or the smallest path length plus lower bound beyond the
    /// current bound.
    fn visit(&mut self, pegs: u128, depth: u32) -> u32 {
        self.nodes += 1;
        if self.nodes % CLOCK_EVERY == 0 {
            if self.nodes >= self.max_nodes {
                self.stop = Some(Stop::NodeLimit);
                return STOPPED;
            }
            if self.reporter.report(self.nodes, self.bound).is_break() {
                self.stop = Some(Stop::Interrupted);
                return STOPPED;
            }
        } else if self.nodes > self.max_nodes {
            self.stop = Some(Stop::NodeLimit);
            return STOPPED;
        }
        if pegs == self.tables.goal {
            return FOUND;
        }
        let estimate = depth + self.lower_bound(pegs);
        if estimate > self.bound {
            return estimate;
        }
        let level = depth as usize;
        if self.buffers.len() <= level {
            self.buffers.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.buffers[level]);
        moves.clear();
        self.scratch.clear();
        generate(self.tables, pegs, self.hops_only, &mut self.scratch);
        // Most forward first: the last iteration finds its solution sooner.
        let rows = &self.tables.axes;
        for &mv in &self.scratch {
            let gain = rows[usize::from(mv.from)][1] - rows[usize::from(mv.to)][1];
            moves.push(((64 - gain) as u8, mv));
        }
        moves.sort_unstable_by_key(|&(key, _)| key);
        let mut smallest = u32::from(UNREACHABLE);
        for &(_, mv) in &moves {
            let child = pegs ^ (1u128 << mv.from) ^ (1u128 << mv.to);
            self.path.push(mv);
            let result = self.visit(child, depth + 1);
            if result == FOUND || result == STOPPED {
                self.buffers[level] = moves;
                return result;
            }
            self.path.pop();
            smallest = smallest.min(result);
        }
        self.buffers[level] = moves;
        let learned = if smallest >= u32::from(UNREACHABLE) {
            UNREACHABLE
        } else {
            (smallest - depth) as u8
        };
        self.store(self.tables.canonical(pegs), learned);
        smallest
    }
}
