//! Perfect ranking of the solved game's positions: two disjoint sets of
//! `p` pegs on a board of `N ≤ 64` holes ↔ dense indices.
//!
//! A position is folded so that the same side is always to move (the 180°
//! rotation with the colours swapped, [`Ranking::rotate`]). Its index is
//! the colex rank of the mover's set among the N holes, times
//! `C(N − p, p)`, plus the colex rank of the other set among the `N − p`
//! holes the mover leaves. So the positions with one mover's set form a
//! contiguous **block**, and every successor of a position whose other
//! set is `B` lies in the one block of `rotate(B)` (the solver's cache
//! order, `solver.rs`).
//!
//! Colex order of `p`-sets is the numeric order of their bit masks, and it
//! is kept when holes are taken away: the sets disjoint from a mover, in
//! numeric order, have the ranks 0, 1, 2, … among the holes it leaves.

/// Largest pegs a side the ranking supports (RULES §7 goes to 6).
pub const MAX_PEGS: u32 = 6;

/// Ranks and unranks the positions of one board size and peg count.
#[derive(Clone, Debug)]
pub struct Ranking {
    holes: u32,
    pegs: u32,
    /// `binomial[n][k]` = C(n, k) for n ≤ 64, k ≤ `MAX_PEGS`.
    binomial: Box<[[u64; MAX_PEGS as usize + 1]; 65]>,
    /// The bit of the hole each hole is rotated onto.
    rotated: [u64; 64],
}

impl Ranking {
    /// The ranking of positions of `pegs` pegs a side on `holes` holes.
    ///
    /// # Panics
    /// More than 64 holes, more than [`MAX_PEGS`] pegs, or no room for two
    /// sets.
    #[must_use]
    pub fn new(holes: u32, pegs: u32) -> Ranking {
        assert!(holes <= 64 && (1..=MAX_PEGS).contains(&pegs) && 2 * pegs <= holes);
        let mut binomial = Box::new([[0u64; MAX_PEGS as usize + 1]; 65]);
        for n in 0..=64 {
            binomial[n][0] = 1;
            for k in 1..=MAX_PEGS as usize {
                binomial[n][k] = if n == 0 {
                    0
                } else {
                    binomial[n - 1][k - 1] + binomial[n - 1][k]
                };
            }
        }
        let mut rotated = [0u64; 64];
        for (id, bit) in rotated.iter_mut().enumerate().take(holes as usize) {
            *bit = 1 << (holes as usize - 1 - id);
        }
        Ranking {
            holes,
            pegs,
            binomial,
            rotated,
        }
    }

    /// Holes on the board.
    #[must_use]
    pub fn holes(&self) -> u32 {
        self.holes
    }

    /// Pegs a side.
    #[must_use]
    pub fn pegs(&self) -> u32 {
        self.pegs
    }

    /// Number of blocks: the mover's possible sets, C(N, p).
    #[must_use]
    pub fn blocks(&self) -> u64 {
        self.binomial[self.holes as usize][self.pegs as usize]
    }

    /// Positions in one block: the other set's possible places, C(N − p, p).
    #[must_use]
    pub fn block_len(&self) -> u64 {
        self.binomial[(self.holes - self.pegs) as usize][self.pegs as usize]
    }

    /// Positions with one side to move: C(N, p) × C(N − p, p).
    #[must_use]
    pub fn states(&self) -> u64 {
        self.blocks() * self.block_len()
    }

    /// The colex rank of the `p`-set `set` among all holes.
    #[inline(always)]
    #[must_use]
    pub fn rank(&self, set: u64) -> u64 {
        let mut rank = 0;
        let mut rest = set;
        let mut k = 1;
        while rest != 0 {
            rank += self.binomial[rest.trailing_zeros() as usize][k];
            rest &= rest - 1;
            k += 1;
        }
        rank
    }

    /// The colex rank of `set` among the holes not in `excluded` (disjoint
    /// from it).
    #[inline(always)]
    #[must_use]
    pub fn rank_among(&self, set: u64, excluded: u64) -> u64 {
        let mut rank = 0;
        let mut rest = set;
        let mut k = 1;
        while rest != 0 {
            let id = rest.trailing_zeros();
            let below = excluded & ((1u64 << id) - 1);
            rank += self.binomial[(id - below.count_ones()) as usize][k];
            rest &= rest - 1;
            k += 1;
        }
        rank
    }

    /// The `p`-set of colex rank `rank` among `n` holes, as the positions
    /// 0..n of its members.
    fn unrank_in(&self, mut rank: u64, n: u32) -> u64 {
        let mut set = 0u64;
        let mut top = n;
        for k in (1..=self.pegs as usize).rev() {
            // The largest c with C(c, k) ≤ rank.
            let mut c = top - 1;
            while self.binomial[c as usize][k] > rank {
                c -= 1;
            }
            set |= 1 << c;
            rank -= self.binomial[c as usize][k];
            top = c;
        }
        set
    }

    /// The set of colex rank `rank` among all holes.
    #[must_use]
    pub fn unrank(&self, rank: u64) -> u64 {
        self.unrank_in(rank, self.holes)
    }

    /// The set of colex rank `rank` among the holes not in `excluded`.
    #[must_use]
    pub fn unrank_among(&self, rank: u64, excluded: u64) -> u64 {
        let packed = self.unrank_in(rank, self.holes - excluded.count_ones());
        // The i-th free hole for each position i of the packed set.
        let mut set = 0;
        let mut free = !excluded & self.all();
        let mut position = 0;
        while free != 0 {
            let hole = free & free.wrapping_neg();
            if packed & (1 << position) != 0 {
                set |= hole;
            }
            free ^= hole;
            position += 1;
        }
        set
    }

    /// Every hole, as a set.
    #[must_use]
    pub fn all(&self) -> u64 {
        if self.holes == 64 {
            u64::MAX
        } else {
            (1 << self.holes) - 1
        }
    }

    /// The index of the position where the side to move has `mover` and
    /// the other side `other`.
    #[inline(always)]
    #[must_use]
    pub fn index(&self, mover: u64, other: u64) -> u64 {
        self.rank(mover) * self.block_len() + self.rank_among(other, mover)
    }

    /// The position of an index: the mover's set and the other set.
    #[must_use]
    pub fn position(&self, index: u64) -> (u64, u64) {
        let mover = self.unrank(index / self.block_len());
        (mover, self.unrank_among(index % self.block_len(), mover))
    }

    /// The set rotated by 180° (hole id → N − 1 − id).
    #[inline(always)]
    #[must_use]
    pub fn rotate(&self, set: u64) -> u64 {
        set.reverse_bits() >> (64 - self.holes)
    }

    /// The bit of hole `id` after the rotation.
    #[inline(always)]
    #[must_use]
    pub fn rotated_bit(&self, id: u32) -> u64 {
        self.rotated[id as usize]
    }

    /// Every `p`-set of the board in rank order (colex: numeric order).
    pub fn sets(&self) -> impl Iterator<Item = u64> + '_ {
        colex(self.pegs, self.all())
    }

    /// Every `p`-set of the holes not in `excluded`, in the order of
    /// [`Ranking::rank_among`]: the `i`-th has rank `i`.
    pub fn sets_among(&self, excluded: u64) -> impl Iterator<Item = u64> + use<> {
        let mut free = [0u8; 64];
        let mut n = 0;
        let mut rest = !excluded & self.all();
        while rest != 0 {
            free[n] = rest.trailing_zeros() as u8;
            n += 1;
            rest &= rest - 1;
        }
        let packed_all = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        colex(self.pegs, packed_all).map(move |packed| {
            // Position i of the packed set is the i-th free hole.
            let mut set = 0;
            let mut rest = packed;
            while rest != 0 {
                set |= 1 << free[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            set
        })
    }
}

/// Every `pegs`-subset of `all` (a mask of low bits) in numeric order.
fn colex(pegs: u32, all: u64) -> impl Iterator<Item = u64> {
    let first = (1u64 << pegs) - 1;
    std::iter::successors((first & !all == 0).then_some(first), move |&set| {
        // The next mask with as many bits (Gosper's hack).
        let low = set & set.wrapping_neg();
        let ripple = set.wrapping_add(low);
        if ripple == 0 {
            return None;
        }
        let next = ripple | (((set ^ ripple) >> 2) / low);
        (next & !all == 0).then_some(next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_dense_and_invert() {
        for (holes, pegs) in [(16, 1), (16, 3), (16, 6), (25, 2), (9, 4), (12, 6)] {
            let r = Ranking::new(holes, pegs);
            let sets: Vec<u64> = r.sets().collect();
            assert_eq!(sets.len() as u64, r.blocks());
            for (rank, &set) in sets.iter().enumerate() {
                assert_eq!(set.count_ones(), pegs);
                assert_eq!(r.rank(set), rank as u64);
                assert_eq!(r.unrank(rank as u64), set);
            }
            let mover = sets[sets.len() / 3];
            let others: Vec<u64> = sets.iter().copied().filter(|s| s & mover == 0).collect();
            assert_eq!(others.len() as u64, r.block_len());
            assert_eq!(r.sets_among(mover).collect::<Vec<_>>(), others);
            for (rank, &other) in others.iter().enumerate() {
                assert_eq!(r.rank_among(other, mover), rank as u64);
                assert_eq!(r.unrank_among(rank as u64, mover), other);
                let index = r.index(mover, other);
                assert_eq!(r.position(index), (mover, other));
            }
        }
    }

    #[test]
    fn rotation_reverses_ids() {
        let r = Ranking::new(49, 3);
        assert_eq!(r.rotate(0b111), 0b111 << 46);
        assert_eq!(r.rotate(r.rotate(0x1234_5678)), 0x1234_5678);
        assert_eq!(r.rotated_bit(0), 1 << 48);
    }

    #[test]
    fn counts_match_rules_section_7() {
        // Positions are 2 × C(N, p) × C(N − p, p) with either side to move.
        assert_eq!(2 * Ranking::new(49, 1).states(), 4_704);
        assert_eq!(2 * Ranking::new(49, 3).states(), 559_352_640);
        assert_eq!(2 * Ranking::new(16, 6).states(), 3_363_360);
        assert_eq!(2 * Ranking::new(49, 4).states(), 63_136_929_240);
    }
}
