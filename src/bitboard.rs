//! Bitboards for hop chains (RULES §3): the holes of a board split into four
//! lanes of at most 64 holes, in which every hop is a rotation of a `u64` by
//! a constant, so a chain's flood fill moves all its frontier at once.
//!
//! A hop moves a peg by twice a direction, so it keeps the parity of both
//! axial coordinates: the holes with `(q mod 2, r mod 2)` equal form a
//! lane, and a chain never leaves the lane of its start hole. The pivot of a
//! hop is one step away, so always in another lane. Within a lane the hole
//! at `(q, r)` has the bit `(q div 2 + stride × (r div 2)) mod 64`: one
//! lattice map for the four lanes, so moving by a direction (to the pivot)
//! or by twice a direction (to the landing) adds a constant to the bit
//! number, which depends only on the lane and the direction. The `stride`
//! is searched for at first use, the smallest for which no two holes of a
//! lane share a bit; every board this engine knows has one (the standard
//! star's is 7). Hole ids stay the engine's numbering everywhere else:
//! the position keeps its pegs in the lanes as well (updated by each move),
//! and the holes a chain reaches come back as a [`CellSet`].
//!
//! This is the design of N. Sturtevant, *An Efficient Chinese Checkers
//! Implementation: Ranking, Bitboards, and BMI2 pext and pdep Instructions*
//! (ACG 2022), whole-board shifts with masks for the board's edges, adapted
//! so that one machine word holds what a hop can reach: the 121 holes of the
//! star need more than 128 bits in any layout where all three axes are
//! constant shifts (no stride maps them one to one into 128 bits; the search
//! in the tests shows it), but each parity lane fits in 64.
//!
//! Long jumps (RULES §3.4) are not done here: a long jump's pivot may be
//! any distance away along the line, with every hole between empty, which
//! no single rotation expresses. Their chains keep the line masks of
//! `movegen.rs`.

use crate::cell::{Cell, CellSet};
use crate::geometry::NONE;

/// The lane of each hole, and the rotations that move a lane's bits.
#[derive(Debug)]
pub(crate) struct Lanes {
    /// For each hole id: its lane and its bit there.
    place: [(u8, u8); Cell::MAX_HOLES],
    /// For each lane and bit: the hole id there, `NONE` if no hole.
    hole: [[u8; 64]; 4],
    /// For each lane: every bit that is a hole.
    holes: [u64; 4],
    /// For each lane: its holes as a set of hole ids.
    members: [u128; 4],
    /// For each lane and direction: how a hop in that direction moves bits.
    hops: [[LaneHop; 6]; 4],
    /// The stride of the bit map.
    stride: u32,
}

/// [`Chains`]' stride parameter for "read the rotations from the tables".
pub(crate) const ANY_STRIDE: u32 = u32::MAX;

/// The axial step of each direction, in direction order (as
/// `Direction::delta`).
const DELTAS: [(i32, i32); 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// The lane, and the bits to add, from a hole of lane `lane` to its pivot
/// (one step in `direction`) and to its landing (two steps), for a stride:
/// the tables' values, as a function the compiler can fold when the stride
/// is a constant (`Lanes::build` checks the two agree on every board).
#[inline(always)]
const fn rotations(stride: u32, lane: usize, direction: usize) -> (usize, u32, u32) {
    let (dq, dr) = DELTAS[direction];
    let (q, r) = ((lane & 1) as i32, (lane >> 1) as i32);
    let stride = stride as i32;
    let to_pivot = (q + dq).div_euclid(2) + stride * (r + dr).div_euclid(2);
    let to_landing = dq + stride * dr;
    (
        lane ^ ((dq & 1) | (dr & 1) << 1) as usize,
        to_pivot.rem_euclid(64) as u32,
        to_landing.rem_euclid(64) as u32,
    )
}

/// Hops from the holes of one lane in one direction.
#[derive(Clone, Copy, Debug, Default)]
struct LaneHop {
    /// The lane of the pivots (one step away).
    pivot_lane: usize,
    /// Bits to add to a hole's bit for its pivot's bit (mod 64).
    to_pivot: u32,
    /// Bits to add to a hole's bit for its landing's bit (mod 64).
    to_landing: u32,
    /// The holes of the lane whose pivot and landing are both on the board.
    sources: u64,
}

/// The lane of axial coordinates `(q, r)`: 0 to 3.
fn lane_of(q: i32, r: i32) -> usize {
    (q.rem_euclid(2) + 2 * r.rem_euclid(2)) as usize
}

/// The bit of `(q, r)` within its lane, for a stride.
fn bit_of(q: i32, r: i32, stride: i32) -> u8 {
    (q.div_euclid(2) + stride * r.div_euclid(2)).rem_euclid(64) as u8
}

impl Lanes {
    /// The lanes of a board given its holes' coordinates (in id order) and
    /// its hop table (`(pivot, landing)` per direction, `NONE` if none).
    ///
    /// # Panics
    /// If no stride below 64 gives each hole of a lane its own bit (no
    /// board of the engine), or if the rotations were not constant (a bug).
    pub(crate) fn build(coordinates: &[(i8, i8)], hop_table: &[[(u8, u8); 6]]) -> Lanes {
        let at = |id: usize| {
            let (q, r) = coordinates[id];
            (i32::from(q), i32::from(r))
        };
        let stride = (0..64)
            .find(|&stride| {
                let mut used = [0u64; 4];
                (0..coordinates.len()).all(|id| {
                    let (q, r) = at(id);
                    let (lane, bit) = (lane_of(q, r), bit_of(q, r, stride));
                    let fresh = used[lane] >> bit & 1 == 0;
                    used[lane] |= 1 << bit;
                    fresh
                })
            })
            .expect("every board's lanes fit in 64 bits");
        let mut place = [(0, 0); Cell::MAX_HOLES];
        for (id, slot) in place.iter_mut().enumerate().take(coordinates.len()) {
            let (q, r) = at(id);
            *slot = (lane_of(q, r) as u8, bit_of(q, r, stride));
        }
        let mut hole = [[NONE; 64]; 4];
        let mut holes = [0u64; 4];
        let mut members = [0u128; 4];
        for (id, &(lane, bit)) in place.iter().enumerate().take(coordinates.len()) {
            hole[usize::from(lane)][usize::from(bit)] = id as u8;
            holes[usize::from(lane)] |= 1 << bit;
            members[usize::from(lane)] |= 1 << id;
        }
        // The rotations, read off the board's own hop table: every hop of a
        // lane in a direction must move bits by the same amounts.
        let mut hops = [[LaneHop::default(); 6]; 4];
        let mut seen = [[false; 6]; 4];
        for (id, table) in hop_table.iter().enumerate() {
            let (lane, bit) = place[id];
            let (lane, bit) = (usize::from(lane), u32::from(bit));
            for (direction, &(pivot, landing)) in table.iter().enumerate() {
                if pivot == NONE {
                    continue;
                }
                let (pivot_lane, pivot_bit) = place[usize::from(pivot)];
                let (landing_lane, landing_bit) = place[usize::from(landing)];
                assert_eq!(usize::from(landing_lane), lane, "a hop stays in its lane");
                let hop = LaneHop {
                    pivot_lane: usize::from(pivot_lane),
                    to_pivot: (u32::from(pivot_bit) + 64 - bit) % 64,
                    to_landing: (u32::from(landing_bit) + 64 - bit) % 64,
                    sources: 0,
                };
                let entry = &mut hops[lane][direction];
                if seen[lane][direction] {
                    assert!(
                        (entry.pivot_lane, entry.to_pivot, entry.to_landing)
                            == (hop.pivot_lane, hop.to_pivot, hop.to_landing),
                        "hops of one lane and direction move bits alike"
                    );
                } else {
                    seen[lane][direction] = true;
                    *entry = hop;
                }
                entry.sources |= 1 << bit;
            }
        }
        for (lane, row) in hops.iter().enumerate() {
            for (direction, hop) in row.iter().enumerate() {
                assert!(
                    !seen[lane][direction]
                        || rotations(stride as u32, lane, direction)
                            == (hop.pivot_lane, hop.to_pivot, hop.to_landing),
                    "the rotations follow from the stride"
                );
            }
        }
        Lanes {
            stride: stride as u32,
            place,
            hole,
            holes,
            members,
            hops,
        }
    }

    /// The stride of the bit map (7 for the standard star).
    #[inline]
    pub(crate) fn stride(&self) -> u32 {
        self.stride
    }

    /// The lane and rotations of a hop from lane `lane` in `direction`:
    /// constants when `S` is the stride, read from the table when it is
    /// [`ANY_STRIDE`].
    #[inline(always)]
    fn hop<const S: u32>(&self, lane: usize, direction: usize) -> (usize, u32, u32) {
        if S == ANY_STRIDE {
            let hop = &self.hops[lane][direction];
            (hop.pivot_lane, hop.to_pivot, hop.to_landing)
        } else {
            rotations(S, lane, direction)
        }
    }

    /// The holes of `cells`, lane by lane.
    #[inline(always)]
    pub(crate) fn split(&self, cells: CellSet) -> [u64; 4] {
        let mut lanes = [0u64; 4];
        for cell in cells {
            let (lane, bit) = self.place[cell.id()];
            lanes[usize::from(lane)] |= 1 << bit;
        }
        lanes
    }

    /// The holes of the ids `ids` (a board of at most 64 holes), lane by
    /// lane.
    #[inline(always)]
    pub(crate) fn split_ids(&self, mut ids: u64) -> [u64; 4] {
        let mut lanes = [0u64; 4];
        while ids != 0 {
            let (lane, bit) = self.place[ids.trailing_zeros() as usize];
            lanes[usize::from(lane)] |= 1 << bit;
            ids &= ids - 1;
        }
        lanes
    }

    /// Moves a peg of the lanes `pegs` from `from` to the empty `to`.
    #[inline]
    pub(crate) fn shift(&self, pegs: &mut [u64; 4], from: Cell, to: Cell) {
        let (lane, bit) = self.place[from.id()];
        pegs[usize::from(lane)] ^= 1 << bit;
        let (lane, bit) = self.place[to.id()];
        pegs[usize::from(lane)] ^= 1 << bit;
    }

    /// The holes of lane `lane`'s bits `bits`, as a set.
    #[inline(always)]
    fn join(&self, lane: usize, mut bits: u64) -> CellSet {
        // Two 64-bit halves: a variable shift of a u128 is a branchy
        // sequence, of a u64 one instruction.
        let mut halves = [0u64; 2];
        while bits != 0 {
            let id = self.hole[lane][bits.trailing_zeros() as usize];
            halves[usize::from(id >> 6)] |= 1 << (id & 63);
            bits &= bits - 1;
        }
        CellSet(u128::from(halves[0]) | u128::from(halves[1]) << 64)
    }
}

/// The hops open on one board: for each lane and direction, the holes from
/// which a hop in that direction is possible now (a peg one step away, an
/// empty hole two steps away). Built once per move generation, for the
/// lanes of the pegs that will move (a single peg's move, or a player
/// whose pegs lie in fewer lanes, pays for fewer), then asked for the
/// chains of every one of them; no allocation.
///
/// `S` is the board's stride when the caller knows it at compile time (the
/// rotations are then immediate operands), else [`ANY_STRIDE`].
pub(crate) struct Chains<'a, const S: u32 = ANY_STRIDE> {
    lanes: &'a Lanes,
    /// Per lane and direction: the holes a hop can start from.
    open: [[u64; 6]; 4],
    /// Per lane: the holes any hop can start from.
    any: [u64; 4],
    /// The lanes whose masks were computed, as bits (checked in debug
    /// builds: a chain from another lane would silently find nothing).
    #[cfg(debug_assertions)]
    prepared: u8,
}

impl<'a, const S: u32> Chains<'a, S> {
    /// The hops open with the pegs `pegs` (every peg on the board, split
    /// into these lanes), for chains starting on the holes `starts` only.
    #[inline(always)]
    pub(crate) fn new(lanes: &'a Lanes, pegs: &[u64; 4], starts: CellSet) -> Chains<'a, S> {
        debug_assert!(S == ANY_STRIDE || S == lanes.stride);
        let mut chains = Chains::empty(lanes);
        chains.prepare(pegs, starts);
        chains
    }

    /// Chains with no hop open, to [`Chains::prepare`] later.
    #[inline(always)]
    pub(crate) fn empty(lanes: &'a Lanes) -> Chains<'a, S> {
        Chains {
            lanes,
            open: [[0u64; 6]; 4],
            any: [0u64; 4],
            #[cfg(debug_assertions)]
            prepared: 0,
        }
    }

    /// Makes these the chains of [`Chains::new`]`(lanes, pegs, starts)` in
    /// place: a loop that generates many positions' moves keeps one
    /// `Chains` (returning a new one copied it with a `memcpy` call each
    /// time). Lanes without a start keep stale masks; they are never read.
    #[inline(always)]
    pub(crate) fn prepare(&mut self, pegs: &[u64; 4], starts: CellSet) {
        let lanes = self.lanes;
        debug_assert!(S == ANY_STRIDE || S == lanes.stride);
        let holes = &lanes.holes;
        #[cfg(debug_assertions)]
        {
            self.prepared = 0;
        }
        for lane in 0..4 {
            if starts.0 & lanes.members[lane] == 0 {
                continue;
            }
            #[cfg(debug_assertions)]
            {
                self.prepared |= 1 << lane;
            }
            let empty = holes[lane] & !pegs[lane];
            let mut any = 0;
            for (direction, (open, hop)) in self.open[lane]
                .iter_mut()
                .zip(&lanes.hops[lane])
                .enumerate()
            {
                let (pivot_lane, to_pivot, to_landing) = lanes.hop::<S>(lane, direction);
                *open = hop.sources
                    & pegs[pivot_lane].rotate_right(to_pivot)
                    & empty.rotate_right(to_landing);
                any |= *open;
            }
            self.any[lane] = any;
        }
    }

    /// Every hole a chain of ordinary hops by the peg on `from` (one of the
    /// `starts` given to [`Chains::new`]) reaches, `from` excluded. During
    /// the chain the start hole counts as empty: it is never a pivot of its
    /// own chain (pivots lie in other lanes), and a landing there adds
    /// nothing (the flood starts there).
    #[inline(always)]
    pub(crate) fn reach(&self, from: Cell) -> CellSet {
        let (lane, bit) = self.lanes.place[from.id()];
        let lane = usize::from(lane);
        #[cfg(debug_assertions)]
        debug_assert!(self.prepared & 1 << lane != 0, "a start outside `starts`");
        let start = 1u64 << bit;
        if self.any[lane] & start == 0 {
            return CellSet::EMPTY;
        }
        self.flood(lane, start)
    }

    /// [`Chains::reach`] from the bit `start` of lane `lane`, a hole from
    /// which some hop is open.
    #[inline(always)]
    fn flood(&self, lane: usize, start: u64) -> CellSet {
        let open = &self.open[lane];
        let mut reached = start;
        let mut frontier = start;
        loop {
            let mut next = 0;
            for (direction, &open) in open.iter().enumerate() {
                let (_, _, to_landing) = self.lanes.hop::<S>(lane, direction);
                next |= (frontier & open).rotate_left(to_landing);
            }
            next &= !reached;
            if next == 0 {
                break;
            }
            reached |= next;
            frontier = next & self.any[lane];
            if frontier == 0 {
                break;
            }
        }
        self.lanes.join(lane, reached & !start)
    }
}

#[cfg(test)]
mod tests {
    use crate::board::{Board, BoardShape};

    fn every_board() -> Vec<Board> {
        let mut boards: Vec<Board> = (1..=4).map(|size| Board::star(size).unwrap()).collect();
        for side in 2..=11 {
            for home_rows in 1..=side / 2 {
                if let Ok(board) = Board::rhombus(side, home_rows) {
                    boards.push(board);
                }
            }
        }
        boards
    }

    #[test]
    fn every_board_has_lanes_and_each_hole_its_own_bit() {
        for board in every_board() {
            let geometry = board.geometry();
            let lanes = geometry.lanes();
            let mut seen = std::collections::HashSet::new();
            for cell in geometry.cells() {
                let (lane, bit) = lanes.place[cell.id()];
                assert!(seen.insert((lane, bit)), "{board}: two holes share a bit");
                assert_eq!(
                    usize::from(lanes.hole[usize::from(lane)][usize::from(bit)]),
                    cell.id()
                );
            }
        }
    }

    #[test]
    fn the_standard_star_has_the_stride_the_generator_is_compiled_for() {
        // movegen.rs compiles its plain generator with this stride as a
        // constant; another stride would silently take the slower path.
        assert_eq!(Board::STANDARD.geometry().lanes().stride(), 7);
    }

    #[test]
    fn no_stride_puts_the_standard_star_in_128_bits() {
        // Why four 64-bit lanes and not one u128: no lattice map
        // (q, r) -> (a q + b r) mod 128 is one to one on the 121 holes.
        let geometry = Board::STANDARD.geometry();
        assert!(matches!(
            Board::STANDARD.shape(),
            BoardShape::Star { size: 4 }
        ));
        let found = (0..128i32).any(|a| {
            (0..128i32).any(|b| {
                let mut used = [false; 128];
                geometry.cells().all(|cell| {
                    let (q, r) = geometry.coordinates(cell);
                    let bit = (a * q + b * r).rem_euclid(128) as usize;
                    !std::mem::replace(&mut used[bit], true)
                })
            })
        });
        assert!(!found);
    }
}
