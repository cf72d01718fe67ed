//! The optimality proof by search from both ends, meeting in the middle.
//!
//! Two facts let one breadth-first search serve both ends:
//! - Without the target lock every move can be played backwards (a step
//!   back is a step, a hop chain back is the same chain reversed), and
//!   dropping the lock only adds crossings, so no lock-free crossing of
//!   `length` moves means no crossing of `length` moves at all.
//! - A half turn of the board swaps the start triangle and the goal. Turn a
//!   crossing half a turn and play it backwards: it is again a crossing,
//!   of the same length. So the position after `j` moves of a crossing of
//!   `length` moves, turned half a turn, is at most `length - j` moves from
//!   the start.
//!
//! For a bound `B`, the search keeps the positions at each distance `d`
//! from the start (level `d`, counted up to the mirror) whose distance plus
//! the admissible lower bound to the goal is at most `B`: every position of
//! a shortest crossing of at most `B` moves is kept, at its own level. After
//! building level `j`, a crossing of `2j - 1` moves exists exactly when some
//! `y` of level `j` has its half turn in level `j - 1`, and one of `2j` moves
//! when the half turn is in level `j` (if `y` is in a level its distance
//! from the start is at most that level; if a shortest crossing has that
//! length, its middle position is such a `y`). An odd bound `2j + 1` is
//! checked from level `j` with one move more. If no length up to `B` has a
//! meeting, every crossing is longer than `B`; the driver then tries
//! `B + 1`. A level of about `N` positions costs `16 N` bytes.
//!
//! Memory is counted, not measured: 16 bytes for every position of the
//! levels kept, plus twice the positions of the sorted runs of the level
//! being built (they are copied when merged), after every chunk of parents
//! expanded. Chunks and their parts have fixed sizes, whatever the number
//! of cores, so the count (and where a budget stops the search) is the same
//! on every machine.
//!
//! The crossing found is rebuilt from the levels and must respect the
//! target lock to count; if none of the meetings gives one, the caller
//! falls back to IDA*, starting from the length proven here.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use super::Reporter;
use super::heuristic::{ChildBound, Heuristic, UNREACHABLE};
use super::moves::{BitMove, generate_with};
use super::search::Stop;
use super::tables::Tables;

/// Parents expanded between two looks at the limits and the clock.
const CHUNK: usize = 1 << 18;
/// Positions in one part of a chunk, the unit of work of one thread. Fixed
/// rather than a share per core: each part becomes one sorted run, so the
/// runs held while a level is built are the same on every machine.
const PART: usize = 1 << 14;
/// Bytes a stored position costs.
const POSITION_BYTES: u64 = 16;
/// Meeting positions tried when rebuilding a crossing.
const MAX_MEETINGS: usize = 4096;
/// Positions visited when rebuilding one half of one crossing.
const MAX_REBUILD_STEPS: usize = 200_000;

/// The half turn of each hole, or `None` if the board has no half turn
/// that maps the start triangle onto the goal.
pub(crate) fn half_turn(tables: &Tables) -> Option<Vec<u8>> {
    let holes = tables.axes.len() as i64;
    let (mut sum_q, mut sum_r) = (0i64, 0i64);
    for a in &tables.axes {
        sum_q += i64::from(a[0]);
        sum_r += i64::from(a[1]);
    }
    if holes == 0 || (2 * sum_q) % holes != 0 || (2 * sum_r) % holes != 0 {
        return None;
    }
    // Twice the centre: the image of (q, r) is (2c - q, 2c - r).
    let (cq, cr) = ((2 * sum_q / holes) as i32, (2 * sum_r / holes) as i32);
    let mut image = Vec::with_capacity(tables.axes.len());
    for a in &tables.axes {
        let (q, r) = (cq - a[0], cr - a[1]);
        let hole = tables.axes.iter().position(|b| b[0] == q && b[1] == r)?;
        image.push(u8::try_from(hole).ok()?);
    }
    (map(&image, tables.start) == tables.goal).then_some(image)
}

fn map(image: &[u8], pegs: u128) -> u128 {
    let mut out = 0u128;
    let mut rest = pegs;
    while rest != 0 {
        out |= 1u128 << image[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    out
}

fn contains(level: &[u128], key: u128) -> bool {
    level.binary_search(&key).is_ok()
}

/// How one bound ended.
enum Attempt {
    /// A crossing of this length exists without the lock; the moves are
    /// one that keeps the lock, if one was rebuilt.
    Found(u32, Option<Vec<BitMove>>),
    /// No crossing has at most the bound's moves.
    Longer,
    /// The levels ran out with nothing cut by the bound: no crossing.
    Unsolvable,
    Stopped,
}

/// What [`Meet::run`] found.
pub(crate) enum Outcome {
    /// A shortest crossing, as moves keeping the lock.
    Crossing(Vec<BitMove>),
    /// The shortest lock-free crossing has this length, but none of the
    /// rebuilt ones keeps the lock: the optimum is at least this.
    LockFreeOnly(u32),
    /// No crossing exists.
    Unsolvable,
    /// Stopped by the node limit, the memory budget or the callback;
    /// `bound` is proven.
    Stopped,
}

/// What the level workers share: the board, the bound and the half turn.
struct Context<'a> {
    tables: &'a Tables,
    heuristic: &'a Heuristic,
    image: Vec<u8>,
    hops_only: bool,
}

pub(crate) struct Meet<'a, 'p> {
    ctx: Context<'a>,
    threads: usize,
    /// Positions expanded so far (all bounds).
    pub(crate) nodes: u64,
    max_nodes: u64,
    /// The memory budget, in bytes counted (see the module's notes).
    max_memory: u64,
    /// The most bytes counted at once so far.
    pub(crate) peak_memory: u64,
    reporter: Reporter<'p>,
    /// No crossing is shorter than this.
    pub(crate) bound: u32,
    pub(crate) stop: Option<Stop>,
}

impl<'a, 'p> Meet<'a, 'p> {
    pub(crate) fn new(
        tables: &'a Tables,
        heuristic: &'a Heuristic,
        image: Vec<u8>,
        hops_only: bool,
        max_nodes: u64,
        max_memory: u64,
        reporter: Reporter<'p>,
    ) -> Meet<'a, 'p> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        Meet {
            ctx: Context {
                tables,
                heuristic,
                image,
                hops_only,
            },
            threads,
            nodes: 0,
            max_nodes,
            max_memory,
            peak_memory: 0,
            reporter,
            bound: 0,
            stop: None,
        }
    }

    /// Tries growing bounds from the start's lower bound until a crossing
    /// is found or the search is stopped.
    pub(crate) fn run(&mut self) -> Outcome {
        let first = self.ctx.heuristic.bound(self.ctx.tables.start);
        if first == UNREACHABLE {
            return Outcome::Unsolvable;
        }
        self.bound = u32::from(first);
        loop {
            match self.attempt(self.bound) {
                Attempt::Found(length, Some(moves)) => {
                    self.bound = length;
                    return Outcome::Crossing(moves);
                }
                Attempt::Found(length, None) => {
                    self.bound = length;
                    return Outcome::LockFreeOnly(length);
                }
                Attempt::Longer => self.bound += 1,
                Attempt::Unsolvable => return Outcome::Unsolvable,
                Attempt::Stopped => return Outcome::Stopped,
            }
            if self.bound >= u32::from(UNREACHABLE) {
                return Outcome::Unsolvable;
            }
        }
    }

    /// Gives back the reporter, for IDA* to use.
    pub(crate) fn into_reporter(self) -> Reporter<'p> {
        self.reporter
    }

    /// How many of `left` positions to expand next: a chunk, cut to the
    /// node limit; `None` (and the stop recorded) if the limit is reached.
    fn next_chunk(&mut self, left: usize) -> Option<usize> {
        let room = self.max_nodes.saturating_sub(self.nodes);
        if room == 0 {
            self.stop = Some(Stop::NodeLimit);
            return None;
        }
        Some(left.min(CHUNK).min(usize::try_from(room).unwrap_or(CHUNK)))
    }

    /// Counts `positions` held at once against the memory budget; `false`
    /// (and the stop recorded) if they are over it.
    fn hold(&mut self, positions: usize) -> bool {
        let bytes = (positions as u64).saturating_mul(POSITION_BYTES);
        self.peak_memory = self.peak_memory.max(bytes);
        if bytes > self.max_memory {
            self.stop = Some(Stop::MemoryLimit);
            return false;
        }
        true
    }

    /// Reports progress; `false` (and the stop recorded) if the callback
    /// asked to stop.
    fn report(&mut self) -> bool {
        let go_on = self.reporter.report(self.nodes, self.bound).is_continue();
        if !go_on {
            self.stop = Some(Stop::Interrupted);
        }
        go_on
    }

    /// Searches for a crossing of at most `bound` moves.
    fn attempt(&mut self, bound: u32) -> Attempt {
        let tables = self.ctx.tables;
        let start = tables.canonical(tables.start);
        if start == tables.canonical(tables.goal) {
            return Attempt::Found(0, Some(Vec::new()));
        }
        let mut levels: Vec<Vec<u128>> = vec![vec![start]];
        let mut cut = false;
        loop {
            let j = levels.len() as u32;
            // Lengths 2j - 1 and 2j need level j; an odd bound 2j + 1 is
            // checked from level j with one move more.
            if 2 * j > bound {
                return self.finish_odd(&levels, cut);
            }
            let Some((next, cut_here)) = self.expand(&levels, j, bound) else {
                return Attempt::Stopped;
            };
            cut |= cut_here;
            levels.push(next);
            let level = &levels[j as usize];
            if level.is_empty() {
                return if cut {
                    Attempt::Longer
                } else {
                    Attempt::Unsolvable
                };
            }
            for (length, other) in [(2 * j - 1, j - 1), (2 * j, j)] {
                if length > bound {
                    break;
                }
                let other = &levels[other as usize];
                let meetings: Vec<u128> = level
                    .iter()
                    .copied()
                    .filter(|&y| contains(other, self.ctx.turn(y)))
                    .take(MAX_MEETINGS)
                    .collect();
                if !meetings.is_empty() {
                    let moves = meetings
                        .iter()
                        .find_map(|&y| self.ctx.rebuild(&levels, y, j, None, length - j));
                    return Attempt::Found(length, moves);
                }
            }
        }
    }

    /// Crossings of `2j + 1` moves, `j` the last level built: a move from
    /// some `x` of level `j` to a `z` whose half turn is in level `j` (so `z`
    /// is `j` moves from the goal, and its lower bound at most `j`). For an
    /// odd bound this completes the check; for an even one (`2j`) it is a
    /// bonus that may find a crossing one longer than the bound, with the
    /// levels already built. Every crossing it finds exists.
    fn finish_odd(&mut self, levels: &[Vec<u128>], cut: bool) -> Attempt {
        let j = levels.len() as u32 - 1;
        let length = 2 * j + 1;
        let level = &levels[j as usize];
        let mut meetings: Vec<(u128, BitMove)> = Vec::new();
        let mut done = 0;
        while done < level.len() && meetings.is_empty() {
            let Some(take) = self.next_chunk(level.len() - done) else {
                return Attempt::Stopped;
            };
            let chunk = &level[done..done + take];
            done += take;
            let ctx = &self.ctx;
            for part in in_parts(chunk, self.threads, |part| ctx.odd_meetings(part, level, j)) {
                meetings.extend(part);
            }
            self.nodes += take as u64;
            if !self.report() {
                return Attempt::Stopped;
            }
        }
        if meetings.is_empty() {
            return if cut || !level.is_empty() {
                Attempt::Longer
            } else {
                Attempt::Unsolvable
            };
        }
        let found = meetings
            .iter()
            .find_map(|&(x, mv)| self.ctx.rebuild(levels, x, j, Some(mv), j));
        Attempt::Found(length, found)
    }

    /// Level `j` from the levels before it: the children of level `j - 1`
    /// not in levels `j - 1` or `j - 2`, kept if `j` plus their lower bound
    /// is at most `bound`. Also whether the bound cut anything. `None` if
    /// stopped.
    fn expand(&mut self, levels: &[Vec<u128>], j: u32, bound: u32) -> Option<(Vec<u128>, bool)> {
        let parents = &levels[j as usize - 1];
        let older: &[u128] = if j >= 2 { &levels[j as usize - 2] } else { &[] };
        let kept: usize = levels.iter().map(Vec::len).sum();
        // Sorted runs, merged like a binary counter: each new run merges
        // with the last while it is at least half its size.
        let mut runs: Vec<Vec<u128>> = Vec::new();
        let mut cut = false;
        let mut done = 0;
        while done < parents.len() {
            // Never past the node limit: the last chunk is cut to fit.
            let take = self.next_chunk(parents.len() - done)?;
            let chunk = &parents[done..done + take];
            done += take;
            let ctx = &self.ctx;
            let results = in_parts(chunk, self.threads, |part| {
                ctx.children(part, parents, older, j, bound)
            });
            for (part, part_cut) in results {
                cut |= part_cut;
                let mut run = part;
                while runs.last().is_some_and(|last| 2 * run.len() >= last.len()) {
                    let last = runs.pop().expect("checked");
                    run = merge(&last, &run);
                }
                runs.push(run);
            }
            self.nodes += chunk.len() as u64;
            // The runs are merged into the level at the end, each merge
            // copying: count them twice.
            let building: usize = runs.iter().map(Vec::len).sum();
            if !self.hold(kept + 2 * building) || !self.report() {
                return None;
            }
        }
        let mut next = Vec::new();
        while let Some(run) = runs.pop() {
            next = merge(&run, &next);
        }
        next.shrink_to_fit();
        Some((next, cut))
    }
}

impl Context<'_> {
    /// The moves from `part` (in `level`, number `j`) to a position whose
    /// half turn is in `level` too (at most [`MAX_MEETINGS`]).
    fn odd_meetings(&self, part: &[u128], level: &[u128], j: u32) -> Vec<(u128, BitMove)> {
        let mut meetings = Vec::new();
        let mut moves = Vec::new();
        for &x in part {
            moves.clear();
            generate_with(self.tables, x, self.hops_only, false, &mut moves);
            let prepared = self.heuristic.prepare(x);
            for mv in &moves {
                if self.heuristic.child_within(&prepared, mv.from, mv.to, j) != ChildBound::Within {
                    continue;
                }
                let z = x ^ (1u128 << mv.from) ^ (1u128 << mv.to);
                if contains(level, self.turn(z)) {
                    meetings.push((x, *mv));
                    if meetings.len() >= MAX_MEETINGS {
                        return meetings;
                    }
                }
            }
        }
        meetings
    }

    fn turn(&self, pegs: u128) -> u128 {
        self.tables.canonical(map(&self.image, pegs))
    }

    /// The new children of `part`, sorted and unique.
    fn children(
        &self,
        part: &[u128],
        parents: &[u128],
        older: &[u128],
        j: u32,
        bound: u32,
    ) -> (Vec<u128>, bool) {
        let mut all = Vec::new();
        let mut moves = Vec::new();
        let mirror = &self.tables.mirror;
        let limit = bound - j;
        let mut cut = false;
        for &pegs in part {
            moves.clear();
            generate_with(self.tables, pegs, self.hops_only, false, &mut moves);
            let prepared = self.heuristic.prepare(pegs);
            // The mirror image of each child from the parent's, one move
            // apart.
            let image = self.tables.mirrored(pegs);
            for mv in &moves {
                match self
                    .heuristic
                    .child_within(&prepared, mv.from, mv.to, limit)
                {
                    ChildBound::Within => {}
                    ChildBound::Over => {
                        cut = true;
                        continue;
                    }
                    ChildBound::Unreachable => continue,
                }
                let child = pegs ^ (1u128 << mv.from) ^ (1u128 << mv.to);
                let child_image = image
                    ^ (1u128 << mirror[usize::from(mv.from)])
                    ^ (1u128 << mirror[usize::from(mv.to)]);
                all.push(child.min(child_image));
            }
        }
        all.sort_unstable();
        all.dedup();
        // Both lists are sorted: walk them alongside.
        let (mut in_parents, mut in_older) = (0, 0);
        all.retain(|&child| {
            while in_parents < parents.len() && parents[in_parents] < child {
                in_parents += 1;
            }
            while in_older < older.len() && older[in_older] < child {
                in_older += 1;
            }
            parents.get(in_parents) != Some(&child) && older.get(in_older) != Some(&child)
        });
        // Kept as a run until merged: hold only what it counts.
        all.shrink_to_fit();
        (all, cut)
    }

    /// A lock-keeping crossing through `y` (in level `j`; if `middle` is
    /// given, through `y` and then that move) whose second half is `rest`
    /// moves long, rebuilt from the levels; `None` if none was found.
    fn rebuild(
        &self,
        levels: &[Vec<u128>],
        y: u128,
        j: u32,
        middle: Option<BitMove>,
        rest: u32,
    ) -> Option<Vec<BitMove>> {
        let goal = self.tables.goal;
        // First half: from the start to y, a move may not leave the goal.
        let mut budget = MAX_REBUILD_STEPS;
        let first = self.path_back(levels, y, j, &mut budget, |from, to| {
            goal & (1u128 << from) == 0 || goal & (1u128 << to) != 0
        })?;
        let mut crossing = first;
        let mut z = y;
        if let Some(mv) = middle {
            if goal & (1u128 << mv.from) != 0 && goal & (1u128 << mv.to) == 0 {
                return None;
            }
            crossing.push(mv);
            z ^= (1u128 << mv.from) ^ (1u128 << mv.to);
        }
        // Second half: from the start to the half turn of z, then turned
        // and played backwards. A move of the turned path from a to b is
        // the real move from image(b) to image(a); it may not leave the
        // goal, that is, a move into the start must begin there.
        let start = self.tables.start;
        let turned = map(&self.image, z);
        let mut budget = MAX_REBUILD_STEPS;
        let second = self.path_back(levels, turned, rest, &mut budget, |from, to| {
            start & (1u128 << to) == 0 || start & (1u128 << from) != 0
        })?;
        for mv in second.iter().rev() {
            crossing.push(BitMove {
                from: self.image[usize::from(mv.to)],
                to: self.image[usize::from(mv.from)],
            });
        }
        Some(crossing)
    }

    /// Moves from the start to `pegs` (in level `depth`, as it is, not only
    /// up to the mirror), each allowed by `allowed(from, to)`, found by
    /// depth-first search down the levels.
    fn path_back(
        &self,
        levels: &[Vec<u128>],
        pegs: u128,
        depth: u32,
        budget: &mut usize,
        allowed: impl Fn(u8, u8) -> bool + Copy,
    ) -> Option<Vec<BitMove>> {
        if depth == 0 {
            return (pegs == self.tables.start).then(Vec::new);
        }
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let below = &levels[depth as usize - 1];
        let mut moves = Vec::new();
        generate_with(self.tables, pegs, self.hops_only, false, &mut moves);
        for mv in moves {
            let parent = pegs ^ (1u128 << mv.from) ^ (1u128 << mv.to);
            // The move forward is from mv.to back to mv.from.
            if !allowed(mv.to, mv.from) || !contains(below, self.tables.canonical(parent)) {
                continue;
            }
            if let Some(mut path) = self.path_back(levels, parent, depth - 1, budget, allowed) {
                path.push(BitMove {
                    from: mv.to,
                    to: mv.from,
                });
                return Some(path);
            }
        }
        None
    }
}

/// `work` on each part of `items` (parts of [`PART`] positions), on up to
/// `threads` threads; the results in the parts' order.
fn in_parts<R: Send>(items: &[u128], threads: usize, work: impl Fn(&[u128]) -> R + Sync) -> Vec<R> {
    let parts: Vec<&[u128]> = items.chunks(PART).collect();
    let threads = threads.min(parts.len());
    if threads <= 1 {
        return parts.into_iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, AtomicOrdering::Relaxed);
                        let Some(part) = parts.get(index) else {
                            return done;
                        };
                        done.push((index, work(part)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a level worker panicked"))
            .collect()
    });
    results.sort_unstable_by_key(|&(index, _)| index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// The sorted union of two sorted, duplicate-free lists.
fn merge(a: &[u128], b: &[u128]) -> Vec<u128> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut k) = (0, 0);
    while i < a.len() && k < b.len() {
        match a[i].cmp(&b[k]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[k]);
                k += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                k += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[k..]);
    out
}
