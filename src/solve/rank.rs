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
//!
//! **The mirror** (optional, [`Ranking::with_mirror`]): where the homes are
//! their own images in the left-right mirror (1, 3, 4 and 6 pegs), a
//! position and its mirror image have the same value, and one entry holds
//! both. The blocks are then only those of the *canonical* mover sets, of
//! rank no greater than their image's, in rank order: about half. A
//! position whose mover is not canonical is looked up as its image. A
//! block whose mover is its own image (a *symmetric* block, some 0.3 % of
//! them) still holds every other set, but a position there is looked up
//! as whichever of it and its image has the other set of lower rank; the
//! entries of the higher ranks are *twins* no position maps to (the
//! solver marks them illegal, and counts them as nothing). The mirror
//! commutes with the 180° rotation, so the successors of a position
//! still lie in one block: that of `rotate(B)` or of its image.

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
    /// The mirror, when the ranking folds it.
    mirror: Option<Mirror>,
}

/// The left-right mirror as the ranking folds it.
#[derive(Clone, Debug)]
struct Mirror {
    /// The bit of the hole each hole is mirrored onto.
    bit: [u64; 64],
    /// For each set rank, its block: the block of its canonical set, and
    /// whether the set is that set's image (to look it up, mirror it).
    block_of: Vec<(u32, bool)>,
    /// The canonical sets, a block each, in rank order.
    movers: Vec<u64>,
    /// Whether each block's mover is its own image.
    symmetric: Vec<bool>,
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
            mirror: None,
        }
    }

    /// The ranking of positions of `pegs` pegs a side on `holes` holes
    /// that folds the mirror `image` (the hole each hole is mirrored onto,
    /// an involution that commutes with the rotation `id → N − 1 − id`).
    ///
    /// # Panics
    /// As [`Ranking::new`]; or an `image` that is not such an involution.
    #[must_use]
    pub fn with_mirror(holes: u32, pegs: u32, image: &[u32]) -> Ranking {
        let mut ranking = Ranking::new(holes, pegs);
        let n = holes as usize;
        assert_eq!(image.len(), n, "an image for every hole");
        let mut bit = [0u64; 64];
        for (id, &to) in image.iter().enumerate() {
            assert!(
                to < holes && image[to as usize] as usize == id,
                "an involution"
            );
            assert_eq!(
                image[n - 1 - id] as usize,
                n - 1 - to as usize,
                "the mirror commutes with the rotation"
            );
            bit[id] = 1 << to;
        }
        let mirrored = |set: u64| mirror_set(&bit, set);
        let mut block_of = Vec::with_capacity(ranking.blocks() as usize);
        let mut movers = Vec::new();
        let mut symmetric = Vec::new();
        for (rank, set) in ranking.sets().enumerate() {
            let image_rank = ranking.rank(mirrored(set)) as usize;
            if image_rank >= rank {
                block_of.push((movers.len() as u32, false));
                movers.push(set);
                symmetric.push(image_rank == rank);
            } else {
                // The image's rank is lower: its block is already made.
                block_of.push((block_of[image_rank].0, true));
            }
        }
        ranking.mirror = Some(Mirror {
            bit,
            block_of,
            movers,
            symmetric,
        });
        ranking
    }

    /// Whether the ranking folds the mirror.
    #[must_use]
    pub fn folds_mirror(&self) -> bool {
        self.mirror.is_some()
    }

    /// The set's mirror image (the set itself when the ranking does not
    /// fold the mirror).
    #[inline(always)]
    #[must_use]
    pub fn mirror(&self, set: u64) -> u64 {
        match &self.mirror {
            Some(m) => mirror_set(&m.bit, set),
            None => set,
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

    /// Number of blocks: the mover's possible sets, C(N, p), or with the
    /// mirror folded the canonical ones.
    #[must_use]
    pub fn blocks(&self) -> u64 {
        match &self.mirror {
            Some(m) => m.movers.len() as u64,
            None => self.sets_of_pegs(),
        }
    }

    /// The possible sets of one side's pegs: C(N, p).
    #[must_use]
    pub fn sets_of_pegs(&self) -> u64 {
        self.binomial[self.holes as usize][self.pegs as usize]
    }

    /// Positions in one block: the other set's possible places, C(N − p, p).
    #[must_use]
    pub fn block_len(&self) -> u64 {
        self.binomial[(self.holes - self.pegs) as usize][self.pegs as usize]
    }

    /// Entries of the table: positions with one side to move, C(N, p) ×
    /// C(N − p, p), or with the mirror folded the blocks' entries (about
    /// half).
    #[must_use]
    pub fn states(&self) -> u64 {
        self.blocks() * self.block_len()
    }

    /// Positions with one side to move, whether or not the mirror is
    /// folded: C(N, p) × C(N − p, p).
    #[must_use]
    pub fn positions_a_side(&self) -> u64 {
        self.sets_of_pegs() * self.block_len()
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
    /// the other side `other` (with the mirror folded, of the entry that
    /// holds it and its image).
    #[inline(always)]
    #[must_use]
    pub fn index(&self, mover: u64, other: u64) -> u64 {
        let Some(m) = &self.mirror else {
            return self.rank(mover) * self.block_len() + self.rank_among(other, mover);
        };
        let (block, flip) = m.block_of[self.rank(mover) as usize];
        let (mover, other) = if flip {
            (mirror_set(&m.bit, mover), mirror_set(&m.bit, other))
        } else {
            (mover, other)
        };
        let mut within = self.rank_among(other, mover);
        if m.symmetric[block as usize] {
            within = within.min(self.rank_among(mirror_set(&m.bit, other), mover));
        }
        u64::from(block) * self.block_len() + within
    }

    /// The block holding the positions whose mover is `mover`, and whether
    /// they are held as their images (the mover is not canonical).
    #[inline(always)]
    #[must_use]
    pub fn block(&self, mover: u64) -> (u64, bool) {
        match &self.mirror {
            Some(m) => {
                let (block, flip) = m.block_of[self.rank(mover) as usize];
                (u64::from(block), flip)
            }
            None => (self.rank(mover), false),
        }
    }

    /// Whether the block's mover is its own image (never, without the
    /// mirror): its positions are looked up by the lower of the two other
    /// sets' ranks ([`Ranking::index`]).
    #[inline(always)]
    #[must_use]
    pub fn is_symmetric(&self, block: u64) -> bool {
        self.mirror
            .as_ref()
            .is_some_and(|m| m.symmetric[block as usize])
    }

    /// The mover set of a block.
    #[must_use]
    pub fn mover(&self, block: u64) -> u64 {
        match &self.mirror {
            Some(m) => m.movers[block as usize],
            None => self.unrank(block),
        }
    }

    /// The position an entry holds: the mover's set and the other set (for
    /// a twin, [`Ranking::multiplicity`] 0, the position that would be
    /// there).
    #[must_use]
    pub fn position(&self, index: u64) -> (u64, u64) {
        let mover = self.mover(index / self.block_len());
        (mover, self.unrank_among(index % self.block_len(), mover))
    }

    /// Positions with one side to move that the entry `(mover, other)` of
    /// `block` stands for: 1 without the mirror; with it, 2 (the position
    /// and its image), 1 for a position that is its own image, 0 for a
    /// twin that nothing maps to.
    #[inline]
    #[must_use]
    pub fn multiplicity(&self, block: u64, mover: u64, other: u64) -> u64 {
        let Some(m) = &self.mirror else { return 1 };
        if !m.symmetric[block as usize] {
            return 2;
        }
        let image = mirror_set(&m.bit, other);
        if image == other {
            1
        } else if self.rank_among(image, mover) < self.rank_among(other, mover) {
            0
        } else {
            2
        }
    }

    /// How many of the maps the ranking folds (the identity, and the
    /// mirror when folded) leave the position as it is: 2 for a position
    /// that is its own mirror image, else 1 (the depth solver weighs its
    /// successor counts by it).
    #[inline]
    #[must_use]
    pub fn stabilizer(&self, mover: u64, other: u64) -> u64 {
        match &self.mirror {
            Some(m) if mirror_set(&m.bit, mover) == mover && mirror_set(&m.bit, other) == other => {
                2
            }
            _ => 1,
        }
    }

    /// The canonical mover sets, a block each, in block order (every set
    /// without the mirror).
    pub fn movers(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match &self.mirror {
            Some(m) => Box::new(m.movers.iter().copied()),
            None => Box::new(self.sets()),
        }
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

/// The image of `set` under the mirror whose hole images are `bit`.
#[inline(always)]
fn mirror_set(bit: &[u64; 64], set: u64) -> u64 {
    let mut image = 0;
    let mut rest = set;
    while rest != 0 {
        image |= bit[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    image
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

    /// The left-right mirror of a 4x4 rhombus (rows of 1, 2, 3, 4, 3, 2, 1
    /// holes, each reversed).
    fn mirror_of_4x4() -> Vec<u32> {
        let mut image = Vec::new();
        let mut first = 0;
        for width in [1u32, 2, 3, 4, 3, 2, 1] {
            image.extend((0..width).map(|i| first + width - 1 - i));
            first += width;
        }
        image
    }

    #[test]
    fn the_mirror_folds_each_position_and_its_image_into_one_entry() {
        let image = mirror_of_4x4();
        for pegs in [1, 2, 3, 4] {
            let r = Ranking::with_mirror(16, pegs, &image);
            let plain = Ranking::new(16, pegs);
            assert!(r.folds_mirror() && !plain.folds_mirror());
            assert_eq!(r.positions_a_side(), plain.states());
            // Every position maps to an entry its image shares, holding one
            // of the two, and the multiplicities add up to the positions.
            let mut standing = vec![0u64; r.states() as usize];
            for mover in plain.sets() {
                for other in plain.sets_among(mover) {
                    let index = r.index(mover, other);
                    assert!(index < r.states());
                    assert_eq!(index, r.index(r.mirror(mover), r.mirror(other)));
                    let held = r.position(index);
                    assert!(
                        held == (mover, other) || held == (r.mirror(mover), r.mirror(other)),
                        "{mover:#x} {other:#x}"
                    );
                    standing[index as usize] += 1;
                }
            }
            for (index, &n) in standing.iter().enumerate() {
                let (mover, other) = r.position(index as u64);
                let block = index as u64 / r.block_len();
                assert_eq!(r.mover(block), mover);
                assert_eq!(r.multiplicity(block, mover, other), n, "entry {index}");
                let own_image = r.mirror(mover) == mover && r.mirror(other) == other;
                assert_eq!(r.stabilizer(mover, other), if own_image { 2 } else { 1 });
            }
            assert_eq!(standing.iter().sum::<u64>(), plain.states());
            // A block for each pair of a set and its image, one for each
            // set that is its own.
            let own = plain.sets().filter(|&set| r.mirror(set) == set).count() as u64;
            assert_eq!(r.blocks(), r.movers().count() as u64);
            assert_eq!(2 * r.blocks(), plain.blocks() + own);
            for mover in plain.sets() {
                let (block, flip) = r.block(mover);
                let canonical = if flip { r.mirror(mover) } else { mover };
                assert_eq!(r.mover(block), canonical);
                assert_eq!(r.is_symmetric(block), r.mirror(mover) == mover);
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
