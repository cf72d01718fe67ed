//! Exact distances near the goal: a breadth-first search back from the goal
//! to a fixed depth (the "perimeter").
//!
//! The search runs without the target lock, so every move can be played
//! backwards and the distances it finds are those of a relaxed problem: no
//! larger than the real ones. A position it did not reach within `depth`
//! moves is more than `depth` moves from the goal. Both facts make a lower
//! bound that is exact in the last moves of a crossing, where the line
//! projections are weakest.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::moves::{BitMove, generate_with};
use super::tables::Tables;

/// A fast hasher for 128-bit peg sets (multiply-fold; the keys are not
/// chosen by an adversary).
#[derive(Default)]
pub(crate) struct PegHasher(u64);

impl Hasher for PegHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u128(&mut self, value: u128) {
        let folded = (value as u64) ^ ((value >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut x = folded ^ (folded >> 32);
        x = x.wrapping_mul(0xd6e8_feb8_6659_fd93);
        self.0 = x ^ (x >> 32);
    }
}

type PegMap = HashMap<u128, u8, BuildHasherDefault<PegHasher>>;

pub(crate) struct Perimeter {
    depth: u8,
    distance: PegMap,
}

impl Perimeter {
    /// Searches back from the goal, a whole level at a time, while the
    /// positions found stay within `budget`.
    pub(crate) fn build(tables: &Tables, hops_only: bool, budget: usize) -> Perimeter {
        let mut distance = PegMap::default();
        let goal = tables.canonical(tables.goal);
        distance.insert(goal, 0);
        let mut level = vec![goal];
        let mut depth = 0u8;
        let mut moves: Vec<BitMove> = Vec::new();
        while !level.is_empty() && budget > 0 {
            let mut next = Vec::new();
            let mut overflow = false;
            for &pegs in &level {
                moves.clear();
                generate_with(tables, pegs, hops_only, false, &mut moves);
                for mv in &moves {
                    let child = tables.canonical(pegs ^ (1u128 << mv.from) ^ (1u128 << mv.to));
                    if let std::collections::hash_map::Entry::Vacant(slot) = distance.entry(child) {
                        slot.insert(depth + 1);
                        next.push(child);
                    }
                }
                if distance.len() > budget {
                    overflow = true;
                    break;
                }
            }
            if overflow {
                // The level is incomplete: forget it.
                distance.retain(|_, d| *d <= depth);
                break;
            }
            depth += 1;
            level = next;
        }
        if level.is_empty() {
            // Every position that can reach the goal was found.
            depth = u8::MAX - 1;
        }
        distance.shrink_to_fit();
        Perimeter { depth, distance }
    }

    /// A lower bound on the distance of a canonical peg set to the goal.
    #[inline]
    pub(crate) fn bound(&self, canonical: u128) -> u8 {
        self.distance
            .get(&canonical)
            .copied()
            .unwrap_or(self.depth + 1)
    }
}
