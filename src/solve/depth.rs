//! Depth to the end: for each position, the plies to the end of the game
//! under best play (the winner hurrying, the loser holding out), a byte a
//! position, for the tables small enough to keep one (RULES §7 "win in 7").
//!
//! Computed from the solved values by retrograde layers
//! ([`solve_depths`]): a win's depth is one more than its quickest lost
//! successor's, a loss's one more than its slowest won successor's (0 when
//! it has no move); wins have odd depths, losses even. `tests/solve.rs`
//! checks every depth against plain synchronous value iteration.

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicUsize, Ordering};

use super::game::{Game, MAX_MOVES, Moves, Sets};
use super::table::{Table, Value};

/// The code of a position never proven (a draw).
pub const DRAW: u8 = 254;
/// The code of an illegal position.
pub const ILLEGAL: u8 = 255;
/// The deepest depth a byte holds.
pub const MAX_DEPTH: u8 = 253;

/// The value a depth byte stands for.
#[must_use]
pub fn value_of(depth: u8) -> Value {
    match depth {
        ILLEGAL => Value::Illegal,
        DRAW => Value::Draw,
        d if d % 2 == 0 => Value::Loss,
        _ => Value::Win,
    }
}

/// A table of depths, a byte a position.
pub struct Depths {
    bytes: Vec<u8>,
    /// Rounds it took (the deepest depth + 1).
    pub rounds: u32,
}

impl Depths {
    /// The depth code of position `index`.
    #[must_use]
    pub fn get(&self, index: u64) -> u8 {
        self.bytes[index as usize]
    }

    /// The bytes, a position each.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Depths read back from their bytes.
    #[must_use]
    pub fn from_bytes(bytes: Vec<u8>) -> Depths {
        let rounds = bytes
            .iter()
            .filter(|&&d| d <= MAX_DEPTH)
            .max()
            .map_or(0, |&d| u32::from(d) + 1);
        Depths { bytes, rounds }
    }

    /// The 2-bit table of the same values.
    #[must_use]
    pub fn values(&self) -> Table {
        let table = Table::new(self.bytes.len() as u64);
        for (index, &depth) in self.bytes.iter().enumerate() {
            let value = value_of(depth);
            if value != Value::Draw {
                table.prove(index as u64, value);
            }
        }
        table
    }
}

/// Predecessors gathered before they are visited, and how far ahead the
/// visit reads.
const PENDING: usize = 4096;
const AHEAD: usize = 16;

/// Asks the processor to bring `slice[i]` into cache.
#[inline(always)]
fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = slice.get(i) {
        // SAFETY: a prefetch reads nothing and cannot fault; the address
        // is an element of the slice.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                std::ptr::from_ref(item).cast::<i8>(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// The depth of every position of `game` from its solved values
/// (`values`, the 2-bit solver's fixed point), on `threads` threads;
/// `progress(depth, assigned)` after each layer.
///
/// Retrograde, a layer at a time: layer 0 holds the losses with no move
/// to make (the game is over, or no legal move). From the losses of layer
/// `d`, every predecessor not yet placed is a win in `d + 1` (its quickest
/// losing successor). From the wins of layer `d`, each lost predecessor
/// counts one more successor placed; when all are, it is a loss in
/// `d + 1` (its slowest). Every position is generated once, its
/// predecessors once, so the work is about one pass of the 2-bit solver;
/// a counter a lost position (2 bytes) is the memory on top of the depths.
/// The layers a position lands in do not depend on the threads' timing,
/// so neither do the bytes.
///
/// # Errors
/// A game whose longest best play is deeper than [`MAX_DEPTH`] plies, or
/// values that are not the game's fixed point (a win or a loss left
/// without a depth).
pub fn solve_depths(
    game: &Game,
    values: &Table,
    threads: usize,
    progress: &dyn Fn(u32, u64),
) -> Result<Depths, String> {
    let r = game.ranking();
    let states = r.states();
    if values.len() != states {
        return Err(format!(
            "{game}: a table of {} positions, not {states}",
            values.len()
        ));
    }
    let movers: Vec<u64> = r.movers().collect();
    let block_len = r.block_len();
    let threads = threads.max(1);
    let depth: Vec<AtomicU8> = (0..states).map(|_| AtomicU8::new(DRAW)).collect();
    // Successors of a lost position not yet placed.
    let waiting: Vec<AtomicU16> = (0..states).map(|_| AtomicU16::new(0)).collect();
    // Layer 0, and the counters.
    let next = AtomicUsize::new(0);
    let layer: Vec<u64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    let mut moves = Moves::new(game);
                    let mut next_sets = Sets::new();
                    loop {
                        let a_block = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&a) = movers.get(a_block) else { break };
                        let block = a_block as u64 * block_len;
                        for (index, b) in (block..).zip(r.sets_among(a)) {
                            match values.get(index) {
                                Value::Illegal => {
                                    depth[index as usize].store(ILLEGAL, Ordering::Relaxed);
                                }
                                Value::Loss => {
                                    let successors = if game.is_over(a, b) {
                                        0
                                    } else {
                                        game.successors(a, b, &mut moves, &mut next_sets);
                                        // With the mirror folded, a won entry
                                        // W credits this one once for each
                                        // move into W's own position from
                                        // this position or its image: per
                                        // move into W's pair, |fixing(W)| /
                                        // |fixing(this)| times (1, 2 or ½).
                                        let mover = r.rotate(b);
                                        let weighed: u64 = next_sets
                                            .as_slice()
                                            .iter()
                                            .map(|&other| r.stabilizer(mover, other))
                                            .sum();
                                        (weighed / r.stabilizer(a, b)) as usize
                                    };
                                    if successors == 0 {
                                        depth[index as usize].store(0, Ordering::Relaxed);
                                        mine.push(index);
                                    } else {
                                        waiting[index as usize]
                                            .store(successors as u16, Ordering::Relaxed);
                                    }
                                }
                                Value::Win | Value::Draw => {}
                            }
                        }
                    }
                    mine
                })
            })
            .collect();
        let mut all: Vec<u64> = workers
            .into_iter()
            .flat_map(|w| w.join().expect("a depth worker panicked"))
            .collect();
        all.sort_unstable();
        all
    });
    let mut layer = layer;
    let mut d = 0u32;
    let mut placed = layer.len() as u64;
    progress(0, placed);
    while !layer.is_empty() {
        if d >= u32::from(MAX_DEPTH) {
            return Err(format!(
                "{game}: best play lasts more than {MAX_DEPTH} plies; depths do not fit a byte"
            ));
        }
        let deeper = (d + 1) as u8;
        let chunk = layer.len().div_ceil(threads * 8).max(1);
        let next = AtomicUsize::new(0);
        let from_losses = d % 2 == 0;
        let mut found: Vec<u64> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        let mut moves = Moves::new(game);
                        let mut before = Sets::new();
                        // Predecessors gathered, then visited reading ahead:
                        // they are scattered over the tables.
                        let mut pending: Vec<u64> = Vec::with_capacity(PENDING + MAX_MOVES);
                        let visit = |pending: &mut Vec<u64>, mine: &mut Vec<u64>| {
                            for (i, &earlier) in pending.iter().enumerate() {
                                if let Some(&ahead) = pending.get(i + AHEAD) {
                                    values.prefetch(ahead);
                                    if from_losses {
                                        prefetch(&depth, ahead as usize);
                                    } else {
                                        prefetch(&waiting, ahead as usize);
                                    }
                                }
                                let here = earlier as usize;
                                if from_losses {
                                    // A win: placed by its quickest lost successor.
                                    if values.get(earlier) == Value::Win
                                        && depth[here]
                                            .compare_exchange(
                                                DRAW,
                                                deeper,
                                                Ordering::Relaxed,
                                                Ordering::Relaxed,
                                            )
                                            .is_ok()
                                    {
                                        mine.push(earlier);
                                    }
                                } else if values.get(earlier) == Value::Loss
                                    && waiting[here].fetch_sub(1, Ordering::Relaxed) == 1
                                {
                                    // A loss: placed by its slowest won successor.
                                    depth[here].store(deeper, Ordering::Relaxed);
                                    mine.push(earlier);
                                }
                            }
                            pending.clear();
                        };
                        loop {
                            let start = next.fetch_add(chunk, Ordering::Relaxed);
                            let Some(part) = layer.get(start..(start + chunk).min(layer.len()))
                            else {
                                break;
                            };
                            for &index in part {
                                let (a, b) = r.position(index);
                                game.predecessors(a, b, &mut moves, &mut before);
                                let other = r.rotate(a);
                                for &mover in before.as_slice() {
                                    pending.push(r.index(mover, other));
                                }
                                if pending.len() >= PENDING {
                                    visit(&mut pending, &mut mine);
                                }
                            }
                        }
                        visit(&mut pending, &mut mine);
                        mine
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a depth worker panicked"))
                .collect()
        });
        // Sorted, so the next layer reads the table in order.
        found.sort_unstable();
        d += 1;
        placed += found.len() as u64;
        progress(d, placed);
        layer = found;
    }
    let counts = values.counts();
    if placed != counts.wins + counts.losses {
        return Err(format!(
            "{game}: {placed} positions placed, but the values have {} wins and losses (not the game's fixed point?)",
            counts.wins + counts.losses
        ));
    }
    Ok(Depths {
        bytes: depth.into_iter().map(AtomicU8::into_inner).collect(),
        rounds: d,
    })
}
