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
//! the distance from the goal is the distance to it), once per process for
//! each distinct projected puzzle, the missing ones of a board in parallel.
//! A projection whose puzzle has more positions than
//! [`SolveOptions::max_table_states`](super::SolveOptions::max_table_states)
//! allows is left out. The search uses the largest of the bounds it has.
//!
//! The projected puzzle catches what matters most here: the leading peg
//! gains at most one line a move, and a long hop chain needs a ladder of
//! pegs on every other line.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::tables::Tables;

/// Marks a projected position from which the goal cannot be reached.
pub(crate) const UNREACHABLE: u8 = u8::MAX;

/// The default largest projected puzzle built (positions, one byte each):
/// [`super::SolveOptions::max_table_states`].
pub(crate) const MAX_STATES: u64 = 64_000_000;

/// The largest projected puzzle built whatever the limit asked (4 GiB).
const BUILDABLE_STATES: u64 = u32::MAX as u64;

/// What fixes a projected puzzle: capacity of each line, goal counts, and
/// whether steps are allowed.
type LineKey = (Vec<u8>, Vec<u8>, bool);

/// Exact goal distances of one projected puzzle, indexed by the rank of the
/// vector of counts per line.
///
/// The rank is that of the combinatorial number system: the count vectors
/// with `pegs` pegs in all, ordered by the count on the first line, then the
/// second, and so on. Line `line` holding `count` pegs, with `left` pegs on
/// lines `line..`, adds the number of ways to put `left - c` pegs on the
/// lines after it, summed over `c < count`: [`LineTable::weight`].
struct LineTable {
    /// Pegs in all.
    pegs: usize,
    /// Entries per `(line, left)` in `weights`: the largest capacity + 1.
    width: usize,
    /// `weights[(line * (pegs + 1) + left) * width + count]`: what `line`
    /// holding `count` pegs adds to the rank when `left` pegs are on lines
    /// `line..` (`u64::MAX` where `count` exceeds the line's capacity or
    /// `left`).
    weights: Vec<u64>,
    distance: Vec<u8>,
}

/// `ways[i][m]`: the ways to put `m` pegs on lines `i..` (saturating).
fn count_ways(caps: &[u8], pegs: usize) -> Vec<Vec<u64>> {
    let lines = caps.len();
    let mut ways = vec![vec![0u64; pegs + 1]; lines + 1];
    ways[lines][0] = 1;
    for line in (0..lines).rev() {
        for m in 0..=pegs {
            ways[line][m] = (0..=m.min(usize::from(caps[line])))
                .map(|c| ways[line + 1][m - c])
                .fold(0u64, u64::saturating_add);
        }
    }
    ways
}

/// The positions of the projected puzzle with `caps` holes per line and the
/// pegs of `goal`.
fn state_count(caps: &[u8], goal: &[u8]) -> u64 {
    let pegs: usize = goal.iter().map(|&c| usize::from(c)).sum();
    count_ways(caps, pegs)[0][pegs]
}

/// How a line's weight changes when a move changes its count or the pegs
/// left for it, for each `(line, left, count)` of [`LineTable::weights`]:
/// wrapping differences (a decrease is a huge number that wraps back when
/// added), 0 where the change is impossible.
#[derive(Clone, Copy, Default)]
struct Deltas {
    /// One more peg left, same count.
    more: u64,
    /// One fewer peg left, same count.
    fewer: u64,
    /// One peg fewer, same pegs left (a peg leaves for a later line).
    take: u64,
    /// One peg fewer and one fewer left (a peg leaves for an earlier line).
    take_fewer: u64,
    /// One peg more, same pegs left (a peg arrives from a later line).
    put: u64,
    /// One peg more and one more left (a peg arrives from an earlier line).
    put_more: u64,
}

/// The [`Deltas`] of `table`, indexed like its weights.
fn move_deltas(table: &LineTable, caps: &[u8]) -> Vec<Deltas> {
    let pegs = table.pegs;
    let mut deltas = vec![Deltas::default(); table.weights.len()];
    for (line, &cap) in caps.iter().enumerate() {
        let cap = usize::from(cap);
        // The weight of a count that fits, or `None`.
        let weight = |left: usize, count: usize| {
            (left <= pegs && count <= cap && count <= left).then(|| table.weight(line, left, count))
        };
        for left in 0..=pegs {
            for count in 0..=cap.min(left) {
                let own = table.weight(line, left, count);
                let delta = |w: Option<u64>| w.map_or(0, |w| w.wrapping_sub(own));
                let less = count.checked_sub(1);
                deltas[table.row(line, left) + count] = Deltas {
                    more: delta(weight(left + 1, count)),
                    fewer: delta(left.checked_sub(1).and_then(|l| weight(l, count))),
                    take: delta(less.and_then(|c| weight(left, c))),
                    take_fewer: delta(
                        less.and_then(|c| left.checked_sub(1).and_then(|l| weight(l, c))),
                    ),
                    put: delta(weight(left, count + 1)),
                    put_more: delta(weight(left + 1, count + 1)),
                };
            }
        }
    }
    deltas
}

impl LineTable {
    /// Where the weights of line `line` with `left` pegs on lines `line..`
    /// start in `weights`.
    #[inline]
    fn row(&self, line: usize, left: usize) -> usize {
        (line * (self.pegs + 1) + left) * self.width
    }

    /// What line `line` holding `count` pegs adds to the rank, with `left`
    /// pegs on lines `line..`.
    #[inline]
    fn weight(&self, line: usize, left: usize, count: usize) -> u64 {
        self.weights[self.row(line, left) + count]
    }

    /// The count on the line of `row` of the position whose rank, less the
    /// weights of the lines before, is `rank`: the largest count whose
    /// weight does not exceed it. The weights grow with the count
    /// (`u64::MAX` past the largest possible), so it is how many after the
    /// first do not exceed the rank, counted without a branch.
    #[inline]
    fn count_in(&self, row: usize, rank: u64) -> usize {
        self.weights[row + 1..row + self.width]
            .iter()
            .filter(|&&w| w <= rank)
            .count()
    }

    /// The rank of `counts` (which hold `self.pegs` pegs in all).
    #[inline]
    fn rank(&self, counts: &[u8]) -> usize {
        let mut rank = 0u64;
        let mut left = self.pegs;
        for (line, &count) in counts.iter().enumerate() {
            rank += self.weight(line, left, usize::from(count));
            left -= usize::from(count);
        }
        rank as usize
    }

    /// The count vector of `rank`, into `counts` (one entry per line).
    #[cfg(test)]
    fn unrank(&self, mut rank: u64, counts: &mut [u8]) {
        let mut left = self.pegs;
        for (line, count) in counts.iter_mut().enumerate() {
            let row = self.row(line, left);
            let c = self.count_in(row, rank);
            rank -= self.weights[row + c];
            *count = c as u8;
            left -= c;
        }
    }

    /// The exact goal distances of the projected puzzle with `caps` holes
    /// per line and the pegs of `goal`, steps allowed unless `hops_only`: a
    /// breadth-first search back from the goal.
    ///
    /// A child differs from its parent only on the lines from the one a
    /// peg leaves to the one it reaches, so its rank is the parent's with
    /// those lines' weights replaced: a few lookups per child.
    ///
    /// # Panics
    /// If the puzzle has more than `u32::MAX` positions.
    fn build(caps: &[u8], goal: &[u8], hops_only: bool) -> LineTable {
        let pegs: usize = goal.iter().map(|&c| usize::from(c)).sum();
        let lines = caps.len();
        assert!((1..=32).contains(&lines), "1 to 32 lines");
        let ways = count_ways(caps, pegs);
        let states = ways[0][pegs];
        assert!(states <= BUILDABLE_STATES, "too many projected positions");
        let width = usize::from(caps.iter().copied().max().unwrap_or(0)) + 1;
        let mut weights = vec![u64::MAX; lines * (pegs + 1) * width];
        for line in 0..lines {
            for left in 0..=pegs {
                let base = (line * (pegs + 1) + left) * width;
                let mut sum = 0u64;
                for count in 0..=usize::from(caps[line]).min(left) {
                    weights[base + count] = sum;
                    sum = sum.saturating_add(ways[line + 1][left - count]);
                }
            }
        }
        let mut table = LineTable {
            pegs,
            width,
            weights,
            distance: vec![UNREACHABLE; states as usize],
        };
        let goal_rank = table.rank(goal);
        table.distance[goal_rank] = 0;
        let deltas = move_deltas(&table, caps);
        // For each line, the parent's entry in `weights` and `deltas`.
        let mut entry = [0usize; 32];
        // `up[k]`, `down[k]`: how the weights of lines `..k` change when
        // one more (`up`) or one fewer (`down`) peg is left for each.
        let mut up = [0u64; 33];
        let mut down = [0u64; 33];
        // The parent's prefixes: `first[k]` is the rank of the first
        // position with the parent's counts on lines `..k`, `end[k]` one
        // past the last, `rest[k]` the pegs left for lines `k..`; the next
        // parent, of a higher rank, keeps the counts of the lines `..k` for
        // the largest `k` with its rank below `end[k]`, so only the lines
        // after are unranked again.
        let mut first = [0u64; 33];
        let mut rest = [0usize; 33];
        rest[0] = pegs;
        let mut occupied = 0u32;
        let mut full = 0u32;
        // Level by level: the positions at `depth - 1`, found by a scan in
        // rank order (so the children of consecutive parents lie close
        // together), give theirs not seen yet `depth`.
        let mut depth = 0u8;
        let mut grew = true;
        while grew {
            grew = false;
            assert!(depth < UNREACHABLE - 1, "projected distances too long");
            let parent_depth = depth;
            depth += 1;
            let mut end = [0u64; 33];
            end[0] = states;
            let mut state = 0;
            while state < table.distance.len() {
                // Skip eight positions at a time while none is a parent.
                if let Some(bytes) = table.distance.get(state..state + 8) {
                    let word = u64::from_le_bytes(bytes.try_into().expect("eight bytes"))
                        ^ (0x0101_0101_0101_0101 * u64::from(parent_depth));
                    let has_zero =
                        word.wrapping_sub(0x0101_0101_0101_0101) & !word & 0x8080_8080_8080_8080;
                    if has_zero == 0 {
                        state += 8;
                        continue;
                    }
                }
                if table.distance[state] != parent_depth {
                    state += 1;
                    continue;
                }
                let parent = state as u64;
                let mut keep = lines - 1;
                while parent >= end[keep] {
                    keep -= 1;
                }
                // Unrank lines `keep..`, noting each line's entry.
                let mut rank = parent - first[keep];
                let mut left = rest[keep];
                let below = (1u64 << keep) as u32 - 1;
                occupied &= below;
                full &= below;
                for line in keep..lines {
                    let row = table.row(line, left);
                    let count = table.count_in(row, rank);
                    let index = row + count;
                    let weight = table.weights[index];
                    rank -= weight;
                    first[line + 1] = first[line] + weight;
                    left -= count;
                    rest[line + 1] = left;
                    end[line + 1] = first[line + 1] + ways[line + 1][left];
                    entry[line] = index;
                    up[line + 1] = up[line].wrapping_add(deltas[index].more);
                    down[line + 1] = down[line].wrapping_add(deltas[index].fewer);
                    occupied |= u32::from(count > 0) << line;
                    full |= u32::from(count >= usize::from(caps[line])) << line;
                }
                for from in 0..lines {
                    if occupied & (1 << from) == 0 {
                        continue;
                    }
                    let leave = &deltas[entry[from]];
                    let mut reach = destinations(occupied, lines, from, hops_only) & !full;
                    while reach != 0 {
                        let to = reach.trailing_zeros() as usize;
                        reach &= reach - 1;
                        let land = &deltas[entry[to]];
                        let child = if to > from {
                            parent
                                .wrapping_add(leave.take)
                                .wrapping_add(up[to].wrapping_sub(up[from + 1]))
                                .wrapping_add(land.put_more)
                        } else {
                            parent
                                .wrapping_add(land.put)
                                .wrapping_add(down[from].wrapping_sub(down[to + 1]))
                                .wrapping_add(leave.take_fewer)
                        } as usize;
                        if table.distance[child] == UNREACHABLE {
                            table.distance[child] = depth;
                            grew = true;
                        }
                    }
                }
                state += 1;
            }
        }
        table
    }
}

/// The lines a peg taken off line `from` can end on (other than `from`),
/// full or not, as a bit mask; `occupied` has the lines holding a peg
/// (the mover's own line never matters: hops go over the lines `from ± 1`,
/// `from ± 3`, ...).
#[inline]
fn destinations(occupied: u32, lines: usize, from: usize, hops_only: bool) -> u32 {
    let mut reach = 0u32;
    // Hop chains: up the lines while every other line holds a peg, and down.
    let mut line = from;
    while line + 2 < lines && occupied & (1 << (line + 1)) != 0 {
        line += 2;
        reach |= 1 << line;
    }
    let mut line = from;
    while line >= 2 && occupied & (1 << (line - 1)) != 0 {
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
    reach
}

/// The projection onto one axis: the line of each hole and a shared table.
struct Projection {
    /// Bit mask of the holes of each line.
    masks: Vec<u128>,
    /// The line of each hole.
    line_of: Vec<u8>,
    table: Arc<LineTable>,
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
}

/// One table of the process-wide cache, built by the first caller that
/// needs it; a second caller for the same key waits for that build.
type Cell = Arc<OnceLock<Arc<LineTable>>>;

/// The cell of `key`. The lock is held only to find or add the cell, so
/// tables of different keys build at the same time.
fn cell(key: &LineKey) -> Cell {
    static CACHE: OnceLock<Mutex<HashMap<LineKey, Cell>>> = OnceLock::new();
    let mut guard = CACHE
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    Arc::clone(guard.entry(key.clone()).or_default())
}

impl Heuristic {
    /// The bound of the board of `tables`, with the projections of at most
    /// `max_states` positions (clamped to `u32::MAX`); the others are left
    /// out. Tables not built yet are built in parallel, one thread each,
    /// and kept for the life of the process.
    pub(crate) fn new(tables: &Tables, hops_only: bool, max_states: u64) -> Heuristic {
        let max_states = max_states.min(BUILDABLE_STATES);
        let mut axes = Vec::new();
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
            // Too big: left out, even if an earlier call with a larger
            // limit built it, so the answer does not depend on history.
            if state_count(&caps, &goal) <= max_states {
                let key = (caps, goal, hops_only);
                let cell = cell(&key);
                axes.push((masks, key, cell));
            }
        }
        let table = |key: &LineKey, cell: &Cell| {
            Arc::clone(cell.get_or_init(|| Arc::new(LineTable::build(&key.0, &key.1, key.2))))
        };
        // Build the missing tables at once, each once (two axes often
        // share one); a table another caller is building is waited for.
        let mut pending: Vec<(&LineKey, &Cell)> = Vec::new();
        for (_, key, cell) in &axes {
            if cell.get().is_none() && !pending.iter().any(|(k, _)| *k == key) {
                pending.push((key, cell));
            }
        }
        if let Some((&(key, cell), rest)) = pending.split_first() {
            std::thread::scope(|scope| {
                for &(key, cell) in rest {
                    scope.spawn(move || table(key, cell));
                }
                table(key, cell);
            });
        }
        let mut projections: Vec<Projection> = axes
            .into_iter()
            .map(|(masks, key, cell)| {
                let mut line_of = vec![0u8; tables.axes.len()];
                for (line, mask) in masks.iter().enumerate() {
                    let mut rest = *mask;
                    while rest != 0 {
                        line_of[rest.trailing_zeros() as usize] = line as u8;
                        rest &= rest - 1;
                    }
                }
                Projection {
                    masks,
                    line_of,
                    table: table(&key, &cell),
                }
            })
            .collect();
        // The strongest bound at the start first: it cuts most children
        // before the others are looked at.
        projections.sort_by_key(|p| {
            let mut counts = [0u8; 32];
            for (count, mask) in counts.iter_mut().zip(&p.masks) {
                *count = (tables.start & mask).count_ones() as u8;
            }
            std::cmp::Reverse(p.table.distance[p.table.rank(&counts[..p.masks.len()])])
        });
        Heuristic {
            projections,
            goal: tables.goal,
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
            let rank = projection.table.rank(&counts[..lines]);
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
            let mut remaining = projection.table.pegs;
            let mut rank = 0;
            for (line, mask) in projection.masks.iter().enumerate() {
                let count = (pegs & mask).count_ones() as usize;
                counts[line] = count as u8;
                left[line] = remaining as u8;
                rank += projection.table.weight(line, remaining, count);
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
                let table = &projection.table;
                for line in f.min(t)..=f.max(t) {
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
                    rank = rank + table.weight(line, new_left, new_count)
                        - table.weight(line, old_left, old_count);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// The straightforward build this module had first: every child ranked
    /// from scratch. The reference of [`LineTable::build`].
    mod reference {
        pub(super) struct Table {
            /// `ways[i][m]`: the ways to put `m` pegs on lines `i..`.
            ways: Vec<Vec<u64>>,
            pub(super) distance: Vec<u8>,
        }

        impl Table {
            pub(super) fn rank(&self, counts: &[u8], pegs: usize) -> usize {
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
        }

        pub(super) fn build(caps: &[u8], goal: &[u8], hops_only: bool) -> Table {
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
            let mut table = Table {
                ways,
                distance: vec![super::UNREACHABLE; states as usize],
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
                            if table.distance[child] == super::UNREACHABLE {
                                table.distance[child] = depth;
                                next_frontier.push(child as u32);
                            }
                        }
                        counts[from] += 1;
                    }
                }
                std::mem::swap(&mut frontier, &mut next_frontier);
            }
            table
        }

        /// The lines a peg taken off line `from` can end on (other than
        /// `from`), with `counts` the other pegs, as a bit mask.
        fn projected_destinations(counts: &[u8], caps: &[u8], from: usize, hops_only: bool) -> u32 {
            let lines = counts.len();
            let mut reach = 0u32;
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
    }

    /// The (capacities, goal counts) of the three projections of `board`.
    fn projections(board: Board) -> Vec<(Vec<u8>, Vec<u8>)> {
        let tables = Tables::new(board);
        (0..3)
            .map(|axis| {
                let low = tables.axes.iter().map(|a| a[axis]).min().unwrap();
                let high = tables.axes.iter().map(|a| a[axis]).max().unwrap();
                let mut caps = vec![0u8; (high - low + 1) as usize];
                let mut goal = caps.clone();
                for (hole, a) in tables.axes.iter().enumerate() {
                    let line = (a[axis] - low) as usize;
                    caps[line] += 1;
                    goal[line] += u8::from(tables.goal & (1u128 << hole) != 0);
                }
                (caps, goal)
            })
            .collect()
    }

    #[test]
    fn build_matches_the_reference() {
        for name in ["rhombus5p3", "rhombus7p6", "rhombus6p10", "star2", "star3"] {
            let board: Board = name.parse().unwrap();
            for hops_only in [false, true] {
                for (axis, (caps, goal)) in projections(board).into_iter().enumerate() {
                    let fast = LineTable::build(&caps, &goal, hops_only);
                    let slow = reference::build(&caps, &goal, hops_only);
                    assert_eq!(fast.distance.len() as u64, state_count(&caps, &goal));
                    assert!(
                        fast.distance == slow.distance,
                        "{name} hops_only={hops_only} axis {axis}: distances differ"
                    );
                    // The same rank as the reference's, and every position
                    // ranks back to itself.
                    let mut counts = vec![0u8; caps.len()];
                    for rank in 0..fast.distance.len() {
                        fast.unrank(rank as u64, &mut counts);
                        assert_eq!(fast.rank(&counts), rank);
                        assert_eq!(slow.rank(&counts, fast.pegs), rank);
                    }
                }
            }
        }
    }

    #[test]
    fn tables_over_the_limit_are_left_out() {
        let tables = Tables::new(Board::rhombus(5, 2).unwrap());
        let sizes: Vec<u64> = projections(Board::rhombus(5, 2).unwrap())
            .iter()
            .map(|(caps, goal)| state_count(caps, goal))
            .collect();
        let smallest = *sizes.iter().min().unwrap();
        let heuristic = Heuristic::new(&tables, false, smallest);
        let kept = sizes.iter().filter(|&&s| s <= smallest).count();
        assert_eq!(heuristic.projections.len(), kept);
        assert!(kept < 3, "the test needs tables of different sizes");
        assert!(Heuristic::new(&tables, false, 0).projections.is_empty());
        assert_eq!(
            Heuristic::new(&tables, false, MAX_STATES).projections.len(),
            3
        );
    }

    #[test]
    fn concurrent_callers_share_one_table() {
        // A board and flag no other test uses, so these calls build it.
        let tables = Tables::new(Board::rhombus(10, 2).unwrap());
        let heuristics: Vec<Heuristic> = std::thread::scope(|scope| {
            let calls: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| Heuristic::new(&tables, true, MAX_STATES)))
                .collect();
            calls.into_iter().map(|call| call.join().unwrap()).collect()
        });
        for heuristic in &heuristics {
            assert_eq!(heuristic.projections.len(), 3);
            for (mine, first) in heuristic.projections.iter().zip(&heuristics[0].projections) {
                assert!(Arc::ptr_eq(&mine.table, &first.table));
            }
        }
    }

    /// The tables of the ten-peg boards against the checksums the reference
    /// build gave (too slow for a debug build: run with `--release
    /// --ignored`).
    #[test]
    #[ignore = "slow: builds the ten-peg tables"]
    fn ten_peg_checksums() {
        let expected = "\
star4 hops_only=false axis 0: states 3346643 reachable 3346643 sum 43185985 fnv 5063fce711015148\n\
star4 hops_only=false axis 1: states 3346643 reachable 3346643 sum 49281747 fnv 71a003548fe23a1a\n\
star4 hops_only=false axis 2: states 3346643 reachable 3346643 sum 43185985 fnv 5063fce711015148\n\
star4 hops_only=true axis 0: states 3346643 reachable 601267 sum 8824181 fnv ce8837c6d1d7cc76\n\
star4 hops_only=true axis 1: states 3346643 reachable 572706 sum 9744519 fnv aed3193de02f6345\n\
star4 hops_only=true axis 2: states 3346643 reachable 601267 sum 8824181 fnv ce8837c6d1d7cc76\n\
rhombus9p10 hops_only=false axis 0: states 43749 reachable 43749 sum 384662 fnv 38fa671e1b4af4cb\n\
rhombus9p10 hops_only=false axis 1: states 3335433 reachable 3335433 sum 49091686 fnv c607349ffd3a8f89\n\
rhombus9p10 hops_only=false axis 2: states 43749 reachable 43749 sum 384662 fnv 38fa671e1b4af4cb\n\
rhombus9p10 hops_only=true axis 0: states 43749 reachable 7160 sum 59324 fnv 6af947aaa7ea8b4a\n\
rhombus9p10 hops_only=true axis 1: states 3335433 reachable 572706 sum 9744519 fnv 0d3fe2f9ec0f7ed9\n\
rhombus9p10 hops_only=true axis 2: states 43749 reachable 7160 sum 59324 fnv 6af947aaa7ea8b4a\n";
        let mut found = String::new();
        for name in ["star4", "rhombus9p10"] {
            let board: Board = name.parse().unwrap();
            for hops_only in [false, true] {
                for (axis, (caps, goal)) in projections(board).into_iter().enumerate() {
                    let table = LineTable::build(&caps, &goal, hops_only);
                    let mut fnv = 0xcbf2_9ce4_8422_2325u64;
                    let mut sum = 0u64;
                    let mut reachable = 0u64;
                    for &d in &table.distance {
                        fnv = (fnv ^ u64::from(d)).wrapping_mul(0x0100_0000_01b3);
                        if d != UNREACHABLE {
                            sum += u64::from(d);
                            reachable += 1;
                        }
                    }
                    found += &format!(
                        "{name} hops_only={hops_only} axis {axis}: states {} reachable {reachable} sum {sum} fnv {fnv:016x}\n",
                        table.distance.len()
                    );
                }
            }
        }
        assert_eq!(found, expected);
    }
}
