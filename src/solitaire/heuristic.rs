//! The lower bound that guides the search: exact distances in three
//! projections of the problem onto lines.
//!
//! Project the board onto one of the three axes of the hexagonal grid: every
//! hole becomes the line (row, or diagonal) it lies on, and a position
//! becomes the number of pegs on each line. Every real move is a move of this
//! smaller puzzle:
//! - a step moves one peg to the same or a neighbouring line;
//! - a hop goes over a peg on the neighbouring line into the line beyond (or
//!   stays on its line), so a chain of hops from line `a` can reach line `b`
//!   only if every other line between them, counted from `a`, holds a peg
//!   other than the mover.
//!
//! The projected puzzle keeps how many holes each line has but forgets
//! where on its line each peg is. Any solution of the real puzzle is
//! therefore a solution of the projected one with the same number of moves,
//! so the projected distance to the goal never exceeds the real one: the
//! bound is admissible. Its distances are computed exactly, once per board,
//! by a breadth-first search back from the goal over every way to put the
//! pegs on the lines (moves of the projection can be played backwards, so
//! the distance from the goal is the distance to it). The search uses the
//! largest of the three bounds.
//!
//! The projected puzzle catches what matters most here: the leading peg
//! gains at most one line a move, and a long hop chain needs a ladder of
//! pegs on every other line.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::tables::Tables;

/// Marks a projected position from which the goal cannot be reached.
pub(crate) const UNREACHABLE: u8 = u8::MAX;

/// The largest projected puzzle built (positions, one byte each).
const MAX_STATES: u64 = 64_000_000;

/// Exact goal distances of one projected puzzle, indexed by the rank of the
/// vector of counts per line.
struct LineTable {
    /// `ways[i][m]`: the ways to put `m` pegs on lines `i..`.
    ways: Vec<Vec<u64>>,
    distance: Vec<u8>,
}

/// What fixes a projected puzzle: capacity of each line, goal counts, and
/// whether steps are allowed.
type LineKey = (Vec<u8>, Vec<u8>, bool);

impl LineTable {
    fn rank(&self, counts: &[u8], pegs: usize) -> usize {
        let mut rank = 0u64;
        let mut left = pegs;
        for (line, &count) in counts.iter().enumerate() {
            let next = &self.ways[line + 1];
            for c in 0..usize::from(count) {
                rank += next[left - c];
            }
            left -= usize::from(count);
        }
        rank as usize
    }

    /// What line `line` adds to the rank when it holds `count` of the
    /// `left` pegs not on the lines before it.
    #[inline]
    fn contribution(&self, line: usize, left: usize, count: usize) -> u64 {
        let next = &self.ways[line + 1];
        (0..count).map(|c| next[left - c]).sum()
    }

    fn unrank(&self, mut rank: u64, pegs: usize, caps: &[u8], counts: &mut [u8]) {
        let mut left = pegs;
        for (line, count) in counts.iter_mut().enumerate().take(caps.len()) {
            let next = &self.ways[line + 1];
            let mut c = 0;
            while rank >= next[left - c] {
                rank -= next[left - c];
                c += 1;
            }
            *count = c as u8;
            left -= c;
        }
    }

    fn build(caps: &[u8], goal: &[u8], hops_only: bool) -> Option<LineTable> {
        let pegs: usize = goal.iter().map(|&c| usize::from(c)).sum();
        let lines = caps.len();
        let mut ways = vec![vec![0u64; pegs + 1]; lines + 1];
        ways[lines][0] = 1;
        for line in (0..lines).rev() {
            for m in 0..=pegs {
                ways[line][m] = (0..=m.min(usize::from(caps[line])))
                    .map(|c| ways[line + 1][m - c])
                    .sum();
            }
        }
        let states = ways[0][pegs];
        if states > MAX_STATES {
            return None;
        }
        let mut table = LineTable {
            ways,
            distance: vec![UNREACHABLE; states as usize],
        };
        let mut frontier = vec![table.rank(goal, pegs) as u32];
        table.distance[frontier[0] as usize] = 0;
        let mut counts = vec![0u8; lines];
        let mut next_frontier = Vec::new();
        let mut depth = 0u8;
        while !frontier.is_empty() {
            depth += 1;
            next_frontier.clear();
            for &state in &frontier {
                table.unrank(u64::from(state), pegs, caps, &mut counts);
                for from in 0..lines {
                    if counts[from] == 0 {
                        continue;
                    }
                    counts[from] -= 1;
                    let mut reach = projected_destinations(&counts, caps, from, hops_only);
                    while reach != 0 {
                        let to = reach.trailing_zeros() as usize;
                        reach &= reach - 1;
                        counts[to] += 1;
                        let child = table.rank(&counts, pegs);
                        counts[to] -= 1;
                        if table.distance[child] == UNREACHABLE {
                            table.distance[child] = depth;
                            next_frontier.push(child as u32);
                        }
                    }
                    counts[from] += 1;
                }
            }
            std::mem::swap(&mut frontier, &mut next_frontier);
        }
        Some(table)
    }
}

/// The lines a peg taken off line `from` can end on (other than `from`),
/// with `counts` the other pegs, as a bit mask.
fn projected_destinations(counts: &[u8], caps: &[u8], from: usize, hops_only: bool) -> u32 {
    let lines = counts.len();
    let mut reach = 0u32;
    // Hop chains: up the lines while every other line holds a peg, and down.
    let mut line = from;
    while line + 2 < lines && counts[line + 1] > 0 {
        line += 2;
        reach |= 1 << line;
    }
    let mut line = from;
    while line >= 2 && counts[line - 1] > 0 {
        line -= 2;
        reach |= 1 << line;
    }
    if !hops_only {
        if from + 1 < lines {
            reach |= 1 << (from + 1);
        }
        if from >= 1 {
            reach |= 1 << (from - 1);
        }
    }
    for (to, (&count, &cap)) in counts.iter().zip(caps).enumerate() {
        if count >= cap {
            reach &= !(1 << to);
        }
    }
    reach
}

/// The projection onto one axis: the line of each hole and a shared table.
struct Projection {
    /// Bit mask of the holes of each line.
    masks: Vec<u128>,
    /// The line of each hole.
    line_of: Vec<u8>,
    /// `contribution(line, left, count)` of the table, flattened: index
    /// `(line * (pegs + 1) + left) * width + count`.
    weights: Vec<u64>,
    width: usize,
    table: Arc<LineTable>,
}

impl Projection {
    #[inline]
    fn weight(&self, pegs: usize, line: usize, left: usize, count: usize) -> u64 {
        self.weights[(line * (pegs + 1) + left) * self.width + count]
    }
}

/// How a child's lower bound compares with a limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChildBound {
    Within,
    Over,
    Unreachable,
}

/// A position prepared for bounding its children one move away
/// ([`Heuristic::child_within`]): per projection, the counts per line, the
/// pegs left from each line on, and the rank.
pub(crate) struct Prepared {
    counts: [[u8; 32]; 3],
    left: [[u8; 33]; 3],
    rank: [u64; 3],
    outside: u32,
}

/// The admissible lower bound of one problem: the largest of the bounds of
/// the three projections, any of which may be missing on boards too big to
/// tabulate (the bound is then at least the number of pegs outside the goal).
pub(crate) struct Heuristic {
    projections: Vec<Projection>,
    goal: u128,
    pegs: usize,
}

fn cache() -> &'static Mutex<HashMap<LineKey, Option<Arc<LineTable>>>> {
    static CACHE: OnceLock<Mutex<HashMap<LineKey, Option<Arc<LineTable>>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Heuristic {
    pub(crate) fn new(tables: &Tables, hops_only: bool) -> Heuristic {
        let mut projections = Vec::new();
        for axis in 0..3 {
            let low = tables.axes.iter().map(|a| a[axis]).min().unwrap_or(0);
            let high = tables.axes.iter().map(|a| a[axis]).max().unwrap_or(0);
            let lines = (high - low + 1) as usize;
            let mut masks = vec![0u128; lines];
            for (hole, a) in tables.axes.iter().enumerate() {
                masks[(a[axis] - low) as usize] |= 1u128 << hole;
            }
            let caps: Vec<u8> = masks.iter().map(|m| m.count_ones() as u8).collect();
            let goal: Vec<u8> = masks
                .iter()
                .map(|m| (m & tables.goal).count_ones() as u8)
                .collect();
            let key = (caps.clone(), goal.clone(), hops_only);
            // Build outside the lock only once per key: a second caller waits.
            let mut guard = cache().lock().unwrap_or_else(|e| e.into_inner());
            let table = guard
                .entry(key)
                .or_insert_with(|| LineTable::build(&caps, &goal, hops_only).map(Arc::new))
                .clone();
            drop(guard);
            if let Some(table) = table {
                let mut line_of = vec![0u8; tables.axes.len()];
                for (line, mask) in masks.iter().enumerate() {
                    let mut rest = *mask;
                    while rest != 0 {
                        line_of[rest.trailing_zeros() as usize] = line as u8;
                        rest &= rest - 1;
                    }
                }
                let pegs = tables.goal.count_ones() as usize;
                let width = usize::from(caps.iter().copied().max().unwrap_or(0)).min(pegs) + 1;
                let mut weights = vec![0u64; masks.len() * (pegs + 1) * width];
                for line in 0..masks.len() {
                    for left in 0..=pegs {
                        for count in 0..width.min(left + 1) {
                            weights[(line * (pegs + 1) + left) * width + count] =
                                table.contribution(line, left, count);
                        }
                    }
                }
                projections.push(Projection {
                    masks,
                    line_of,
                    weights,
                    width,
                    table,
                });
            }
        }
        // The strongest bound at the start first: it cuts most children
        // before the others are looked at.
        projections.sort_by_key(|p| {
            let mut counts = [0u8; 32];
            for (count, mask) in counts.iter_mut().zip(&p.masks) {
                *count = (tables.start & mask).count_ones() as u8;
            }
            let pegs = tables.goal.count_ones() as usize;
            std::cmp::Reverse(p.table.distance[p.table.rank(&counts[..p.masks.len()], pegs)])
        });
        Heuristic {
            projections,
            goal: tables.goal,
            pegs: tables.goal.count_ones() as usize,
        }
    }

    /// A lower bound on the moves from `pegs` to the goal, or
    /// [`UNREACHABLE`] if a projection shows the goal cannot be reached.
    #[inline]
    pub(crate) fn bound(&self, pegs: u128) -> u8 {
        let mut best = (pegs & !self.goal).count_ones() as u8;
        let mut counts = [0u8; 32];
        for projection in &self.projections {
            let lines = projection.masks.len();
            for (count, mask) in counts.iter_mut().zip(&projection.masks) {
                *count = (pegs & mask).count_ones() as u8;
            }
            let rank = projection.table.rank(&counts[..lines], self.pegs);
            best = best.max(projection.table.distance[rank]);
        }
        best
    }

    /// Prepares `pegs` for [`Heuristic::child_within`].
    pub(crate) fn prepare(&self, pegs: u128) -> Prepared {
        let mut prepared = Prepared {
            counts: [[0; 32]; 3],
            left: [[0; 33]; 3],
            rank: [0; 3],
            outside: (pegs & !self.goal).count_ones(),
        };
        for (axis, projection) in self.projections.iter().enumerate() {
            let counts = &mut prepared.counts[axis];
            let left = &mut prepared.left[axis];
            let mut remaining = self.pegs;
            let mut rank = 0;
            for (line, mask) in projection.masks.iter().enumerate() {
                let count = (pegs & mask).count_ones() as usize;
                counts[line] = count as u8;
                left[line] = remaining as u8;
                rank += projection.weight(self.pegs, line, remaining, count);
                remaining -= count;
            }
            prepared.rank[axis] = rank;
        }
        prepared
    }

    /// [`Heuristic::bound`] of the position one move (`from` to `to`) away
    /// from the prepared one, compared with `limit`, computed from the lines
    /// the move crosses only (and stopping at the first projection over).
    #[inline]
    pub(crate) fn child_within(
        &self,
        prepared: &Prepared,
        from: u8,
        to: u8,
        limit: u32,
    ) -> ChildBound {
        let goal = self.goal;
        let outside = prepared.outside + u32::from(goal & (1u128 << from) != 0)
            - u32::from(goal & (1u128 << to) != 0);
        if outside > limit {
            return ChildBound::Over;
        }
        for (axis, projection) in self.projections.iter().enumerate() {
            let f = usize::from(projection.line_of[usize::from(from)]);
            let t = usize::from(projection.line_of[usize::from(to)]);
            let mut rank = prepared.rank[axis];
            if f != t {
                let counts = &prepared.counts[axis];
                let left = &prepared.left[axis];
                let pegs = self.pegs;
                let (low, high) = (f.min(t), f.max(t));
                for line in low..=high {
                    let old_left = usize::from(left[line]);
                    let old_count = usize::from(counts[line]);
                    // Lines after `from` up to `to` have one peg more left
                    // to place (moving up) or one fewer (moving down).
                    let new_left = if line > f && line <= t {
                        old_left + 1
                    } else if line > t && line <= f {
                        old_left - 1
                    } else {
                        old_left
                    };
                    let new_count = old_count + usize::from(line == t) - usize::from(line == f);
                    rank = rank + projection.weight(pegs, line, new_left, new_count)
                        - projection.weight(pegs, line, old_left, old_count);
                }
            }
            let d = projection.table.distance[rank as usize];
            if d == UNREACHABLE {
                return ChildBound::Unreachable;
            }
            if u32::from(d) > limit {
                return ChildBound::Over;
            }
        }
        ChildBound::Within
    }
}
