//! Depth to the end: for each position, the plies to the end of the game
//! under best play (the winner hurrying, the loser holding out), a byte a
//! position, for the tables small enough to keep one (RULES §7 "win in 7").
//!
//! Computed by synchronous rounds: round 0 marks the losses with no move
//! to make (the game is over, or no legal move); round `d` proves a win
//! whose quickest losing successor was proven in round `d − 1`, and a loss
//! whose every successor is a win proven before round `d`. A position
//! proven in round `d` is `d` plies from the end; wins have odd depths,
//! losses even. No predecessor shortcut: each round reads only what the
//! rounds before it proved, so the depths are exact, and the values are
//! the same fixed point as the 2-bit solver's.

use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};

use super::game::{Game, Moves, Sets};
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

/// The depth of every position of `game`, on `threads` threads;
/// `progress(round, unknown)` after each round.
///
/// # Errors
/// A game whose longest best play is deeper than [`MAX_DEPTH`] plies:
/// its depths do not fit in a byte.
pub fn solve_depths(
    game: &Game,
    threads: usize,
    progress: &dyn Fn(u32, u64),
) -> Result<Depths, String> {
    let r = game.ranking();
    let states = r.states();
    let sets: Vec<u64> = r.sets().collect();
    let block_len = r.block_len();
    let depth: Vec<AtomicU8> = (0..states).map(|_| AtomicU8::new(DRAW)).collect();
    let threads = threads.max(1);
    let mut round = 0u32;
    loop {
        if round > u32::from(MAX_DEPTH) {
            return Err(format!(
                "{game}: best play lasts more than {MAX_DEPTH} plies; depths do not fit a byte"
            ));
        }
        let next = AtomicUsize::new(0);
        let proven = AtomicU64::new(0);
        let unknown = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let (mut mine, mut open) = (0, 0);
                    let mut moves = Moves::new(game);
                    let mut next_sets = Sets::new();
                    loop {
                        let a_rank = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&a) = sets.get(a_rank) else { break };
                        let mut index = a_rank as u64 * block_len;
                        for &b in &sets {
                            if a & b != 0 {
                                continue;
                            }
                            let here = &depth[index as usize];
                            index += 1;
                            if here.load(Ordering::Relaxed) != DRAW {
                                continue;
                            }
                            let found = if round == 0 {
                                // Successors only of a legal position that
                                // is not over (`Game::successors`).
                                if game.is_illegal(a, b) {
                                    Some(ILLEGAL)
                                } else if game.is_over(a, b) {
                                    Some(0)
                                } else {
                                    game.successors(a, b, &mut moves, &mut next_sets);
                                    next_sets.as_slice().is_empty().then_some(0)
                                }
                            } else {
                                game.successors(a, b, &mut moves, &mut next_sets);
                                let mover = r.rotate(b);
                                let mut all_won = true;
                                let mut won = false;
                                for &other in next_sets.as_slice() {
                                    let d = depth[r.index(mover, other) as usize]
                                        .load(Ordering::Relaxed);
                                    let before = u32::from(d) < round;
                                    if before && d % 2 == 0 {
                                        won = true;
                                        break;
                                    }
                                    all_won &= before;
                                }
                                (won || all_won).then_some(round as u8)
                            };
                            match found {
                                Some(d) => {
                                    here.store(d, Ordering::Relaxed);
                                    mine += 1;
                                }
                                None => open += 1,
                            }
                        }
                    }
                    proven.fetch_add(mine, Ordering::Relaxed);
                    unknown.fetch_add(open, Ordering::Relaxed);
                });
            }
        });
        progress(round, unknown.load(Ordering::Relaxed));
        if round > 0 && proven.into_inner() == 0 {
            break;
        }
        round += 1;
    }
    Ok(Depths {
        bytes: depth.into_iter().map(AtomicU8::into_inner).collect(),
        rounds: round,
    })
}
