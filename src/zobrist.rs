//! Zobrist keys for the 64-bit position hash.
//!
//! Generated at compile time by SplitMix64 from a fixed seed, so a hash is the
//! same in every build, on every surface (Rust, HTTP, Python).

use crate::cell::Cell;
use crate::layout::MAX_SETS;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// Everything hashed: a peg of the set starting in each triangle on each
/// hole, the player to move, which players have finished and which have
/// resigned.
pub(crate) struct Keys {
    pub(crate) pegs: [[u64; Cell::MAX_HOLES]; MAX_SETS],
    pub(crate) side: [u64; MAX_SETS],
    pub(crate) finished: [u64; MAX_SETS],
    pub(crate) resigned: [u64; MAX_SETS],
}

const fn generate() -> Keys {
    let mut keys = Keys {
        pegs: [[0; Cell::MAX_HOLES]; MAX_SETS],
        side: [0; MAX_SETS],
        finished: [0; MAX_SETS],
        resigned: [0; MAX_SETS],
    };
    // The digits of "Stern-Halma 1892".
    let mut state = 0x5374_6572_6E48_1892;
    let mut t = 0;
    while t < MAX_SETS {
        let mut c = 0;
        while c < Cell::MAX_HOLES {
            let (next, key) = splitmix64(state);
            state = next;
            keys.pegs[t][c] = key;
            c += 1;
        }
        t += 1;
    }
    let mut p = 0;
    while p < MAX_SETS {
        let (next, key) = splitmix64(state);
        state = next;
        keys.side[p] = key;
        let (next, key) = splitmix64(state);
        state = next;
        keys.finished[p] = key;
        p += 1;
    }
    // Drawn after the others, so that every earlier key (and every hash of a
    // position without resignations) is unchanged.
    let mut p = 0;
    while p < MAX_SETS {
        let (next, key) = splitmix64(state);
        state = next;
        keys.resigned[p] = key;
        p += 1;
    }
    keys
}

pub(crate) static KEYS: Keys = generate();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = KEYS.pegs.iter().flatten().copied().collect();
        all.extend(KEYS.side);
        all.extend(KEYS.finished);
        all.extend(KEYS.resigned);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
