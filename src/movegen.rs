//! Move generation (RULES §3–4).
//!
//! For each peg of the player to move, the destinations are computed as one
//! bit set: neighbouring empty holes (steps) and every hole a hop chain can
//! reach (a flood fill over hops, with the peg's own start hole counted as
//! empty; for ordinary hops the flood runs on the bitboard lanes of
//! `bitboard.rs`, a whole frontier per level, and long jumps keep the line
//! masks below). The target lock and the resting rule then remove destinations.
//! Under the swap rule, the swap destinations are the pegs in the set's
//! target that a step from the start, or a hop from the start or from any
//! hole the flood reached, lands on (the last hop of a chain).
//! A destination is a step if it neighbours the start, a hop otherwise: a
//! neighbouring empty hole is always reachable by a step, so (from, to)
//! decides the kind.

use crate::bitboard::{ANY_STRIDE, Chains};
use crate::cell::{Cell, CellSet};
use crate::geometry::NONE;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::{AntiSpoiling, Finish, IllegalPositions};

impl Position {
    /// Every legal move, ordered by start hole then end hole; `[Pass]` when
    /// the player to move has no other; empty when the game is over. Under
    /// `illegal_positions = sturtevant` no move leads into an illegal
    /// position and there is no pass: a player without a move has lost.
    ///
    /// ```
    /// use sternhalma::{Board, Layout, Position, Rules};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// let moves = start.legal_moves();
    /// assert_eq!(moves.len(), 14);
    /// assert_eq!(moves[0].to_string(), "111-102");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.legal_moves_into(&mut moves);
        moves
    }

    /// [`Position::legal_moves`] into a buffer the caller reuses (cleared
    /// first), so search loops do not allocate.
    pub fn legal_moves_into(&self, moves: &mut Vec<Move>) {
        moves.clear();
        if self.is_decided() {
            return;
        }
        let player = usize::from(self.side);
        if !self.must_pass_finished(player) {
            self.generate(player, None, moves);
        }
        if self.rules.illegal_positions != IllegalPositions::None {
            self.drop_moves_into_illegal_positions(player, moves);
            return;
        }
        if moves.is_empty() && !self.everyone_stuck() {
            moves.push(Move::Pass);
        }
    }

    /// The legal moves of the peg on `cell` (empty if it cannot move or is
    /// not the mover's), ordered by end hole.
    #[must_use]
    pub fn legal_moves_from(&self, cell: Cell) -> Vec<Move> {
        let mut moves = Vec::new();
        let player = usize::from(self.side);
        if self.geometry.contains(cell) && !self.is_decided() && !self.must_pass_finished(player) {
            self.generate(player, Some(cell), &mut moves);
            if self.rules.illegal_positions != IllegalPositions::None {
                self.drop_moves_into_illegal_positions(player, &mut moves);
            }
        }
        moves
    }

    /// Number of legal moves (a pass counts as one).
    #[must_use]
    pub fn count_legal_moves(&self) -> usize {
        let mut moves = Vec::new();
        self.legal_moves_into(&mut moves);
        moves.len()
    }

    /// Under `finish = round` a finished player passes until the round ends.
    pub(crate) fn must_pass_finished(&self, player: usize) -> bool {
        self.rules.finish == Finish::Round && self.is_finished(player)
    }

    /// Whether the game has ended by finishing or by the move limit (the
    /// checks that need no move generation).
    pub(crate) fn is_decided(&self) -> bool {
        if self.finished_len > 0 {
            let players = self.layout.player_count();
            let finished = usize::from(self.finished_len);
            let over = match self.rules.finish {
                Finish::First => true,
                Finish::Round => finished == players || self.ply % players as u32 == 0,
                Finish::Ranking => finished >= players.saturating_sub(1).max(1),
            };
            if over {
                return true;
            }
        }
        if self.resigned_mask != 0 && self.players_left() <= 1 {
            return true;
        }
        self.ply >= self.rules.ply_limit()
    }

    /// Players still playing: neither resigned nor, under `finish =
    /// ranking`, finished.
    pub(crate) fn players_left(&self) -> usize {
        (0..self.layout.player_count())
            .filter(|&p| self.takes_turns(p))
            .count()
    }

    /// Whether the game is over for want of moves: every player still in
    /// it would have to pass, or, under `illegal_positions = sturtevant`,
    /// the player to move has no move (and has lost).
    pub(crate) fn over_for_want_of_moves(&self) -> bool {
        if self.rules.illegal_positions != IllegalPositions::None {
            return !self.has_move(self.side_to_move());
        }
        self.everyone_stuck()
    }

    /// Whether every player still in the game would have to pass.
    pub(crate) fn everyone_stuck(&self) -> bool {
        (0..self.layout.player_count())
            .filter(|&p| !self.is_finished(p) && !self.is_resigned(p))
            .all(|p| !self.has_move(p))
    }

    /// Whether `player` has any move other than a pass on this board (under
    /// `illegal_positions = sturtevant`, one into a legal position).
    pub(crate) fn has_move(&self, player: usize) -> bool {
        if self.rules.illegal_positions != IllegalPositions::None {
            let mut moves = Vec::new();
            self.generate(player, None, &mut moves);
            self.drop_moves_into_illegal_positions(player, &mut moves);
            return !moves.is_empty();
        }
        // Most players can step somewhere: look for a step first (one
        // neighbour set per peg), before any chain or swap.
        let free = self.geometry.all().difference(self.no_rest(player));
        let empty = self.geometry.all().difference(self.occupied);
        let steps = self.sets_of(player).any(|set| {
            self.pegs[set].iter().any(|from| {
                let around = self.geometry.neighbor_set(from).intersection(empty);
                !around
                    .intersection(self.allowed_ends(free, set, from))
                    .is_empty()
            })
        });
        steps
            || self.sets_of(player).any(|set| {
                self.pegs[set].iter().any(|from| {
                    let (moves, swaps) = self.destinations(from, set, player);
                    !moves.union(swaps).is_empty()
                })
            })
    }

    fn generate(&self, player: usize, only: Option<Cell>, moves: &mut Vec<Move>) {
        let only = only.map_or(CellSet(u128::MAX), |cell| CellSet::EMPTY.with(cell));
        let sets = self.frame.player_sets[player];
        if sets.count_ones() == 1
            && !self.rules.long_jumps
            && self.rules.anti_spoiling != AntiSpoiling::Swap
        {
            let set = sets.trailing_zeros() as usize;
            // The standard star's stride as a constant: its rotations
            // become immediate operands.
            let standard = self.geometry.lanes().stride() == STANDARD_STRIDE;
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("popcnt")
            {
                // SAFETY: the processor has the features just checked.
                unsafe {
                    if standard {
                        self.generate_plain_bmi::<STANDARD_STRIDE>(set, player, only, moves);
                    } else {
                        self.generate_plain_bmi::<ANY_STRIDE>(set, player, only, moves);
                    }
                }
                return;
            }
            if standard {
                self.generate_plain::<STANDARD_STRIDE>(set, player, only, moves);
            } else {
                self.generate_plain::<ANY_STRIDE>(set, player, only, moves);
            }
            return;
        }
        // Long jumps do not use the lanes.
        let starts = if self.rules.long_jumps {
            CellSet::EMPTY
        } else {
            self.player_pegs(player).intersection(only)
        };
        let chains = Chains::new(self.geometry.lanes(), &self.lanes, starts);
        let free = self.geometry.all().difference(self.no_rest(player));
        for set in self.sets_of(player) {
            let swap = self.swap_targets(set, player);
            for from in self.pegs[set].intersection(only) {
                let (normal, swaps) = self.destinations_with(&chains, free, &swap, from, set);
                let around = self.geometry.neighbor_set(from).0;
                let mut destinations = normal.union(swaps).0;
                moves.reserve(destinations.count_ones() as usize);
                while destinations != 0 {
                    let bit = destinations & destinations.wrapping_neg();
                    destinations ^= bit;
                    let to = Cell(bit.trailing_zeros() as u8);
                    moves.push(if swaps.0 & bit != 0 {
                        Move::Swap { from, to }
                    } else if around & bit != 0 {
                        Move::Step { from, to }
                    } else {
                        Move::Hop { from, to }
                    });
                }
            }
        }
        if self.frame.player_sets[player].count_ones() > 1 {
            // Several sets: the loop above went set by set; order by start hole.
            moves.sort_unstable_by_key(|m| (m.from(), m.to()));
        }
    }

    /// [`Position::generate`] for the common case: the player has one set,
    /// no swap rule, no long jumps. The same moves in the same order, with
    /// less work: each peg's moves come from one destination set, its steps
    /// from the neighbour table and its chains from the lanes' flood.
    ///
    /// This portable build is the one for other architectures, and on
    /// x86_64 the one for processors without BMI1 and BMI2 (checked at run
    /// time); where they have them, [`Position::generate_plain_bmi`] runs
    /// the same code compiled for them instead.
    #[inline(always)]
    fn generate_plain<const S: u32>(
        &self,
        set: usize,
        player: usize,
        only: CellSet,
        moves: &mut Vec<Move>,
    ) {
        let geometry = self.geometry;
        let mut pegs = self.pegs[set].0 & only.0;
        let chains = Chains::<S>::new(geometry.lanes(), &self.lanes, CellSet(pegs));
        let all = geometry.all().0;
        let empty = all & !self.occupied.0;
        let free = all & !self.no_rest(player).0;
        while pegs != 0 {
            let start = pegs & pegs.wrapping_neg();
            pegs ^= start;
            let from = Cell(start.trailing_zeros() as u8);
            let around = geometry.neighbor_set(from).0;
            let allowed = self.allowed_ends(CellSet(free), set, from).0;
            let steps = around & empty & allowed;
            let hops = chains.reach(from).0 & allowed;
            emit(moves, from, steps, hops);
        }
    }

    /// [`Position::generate_plain`] compiled with BMI1, BMI2 and POPCNT: the
    /// bit loops' `tzcnt`, `blsr` and `blsi`, flag-free shifts and rotations
    /// (`shrx`, `rorx`) and the count of each peg's moves in one
    /// instruction, a few instructions less per peg and per move. The
    /// portable build runs on any x86_64 (the manylinux wheel's baseline);
    /// this one is chosen per call after `is_x86_feature_detected!` (a
    /// cached load).
    ///
    /// # Safety
    /// The processor must have BMI1, BMI2 and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt")]
    unsafe fn generate_plain_bmi<const S: u32>(
        &self,
        set: usize,
        player: usize,
        only: CellSet,
        moves: &mut Vec<Move>,
    ) {
        self.generate_plain::<S>(set, player, only, moves);
    }

    /// Where the peg on `from` (of `set`, owned by `player`) may legally end:
    /// ordinary destinations (steps and hop chains) and swap destinations.
    pub(crate) fn destinations(&self, from: Cell, set: usize, player: usize) -> (CellSet, CellSet) {
        let free = self.geometry.all().difference(self.no_rest(player));
        let swap = self.swap_targets(set, player);
        let chains = Chains::new(self.geometry.lanes(), &self.lanes, self.chain_starts(from));
        self.destinations_with(&chains, free, &swap, from, set)
    }

    /// As [`Position::destinations`]; `free` is where the owner may rest,
    /// `swap` what the set may swap with.
    fn destinations_with(
        &self,
        chains: &Chains<'_>,
        free: CellSet,
        swap: &SwapTargets,
        from: Cell,
        set: usize,
    ) -> (CellSet, CellSet) {
        let (reach, swaps) = self.unrestricted_with(chains, swap, from);
        (
            reach.intersection(self.allowed_ends(free, set, from)),
            swaps,
        )
    }

    /// The starts [`Chains`] needs for the peg on `from`: none under long
    /// jumps, which do not use the lanes.
    fn chain_starts(&self, from: Cell) -> CellSet {
        if self.rules.long_jumps {
            CellSet::EMPTY
        } else {
            CellSet::EMPTY.with(from)
        }
    }

    /// Where a peg of `set` on `from` may end a move other than a swap,
    /// given `free`, where its owner may rest: the target lock (unless the
    /// rules turn it off) keeps a peg already in its target there.
    #[inline]
    pub(crate) fn allowed_ends(&self, free: CellSet, set: usize, from: Cell) -> CellSet {
        let target = self.frame.targets[set];
        if self.rules.target_lock && target.contains(from) {
            free.intersection(target)
        } else {
            free
        }
    }

    /// Destinations before the target lock and the resting rule: every empty
    /// hole reachable by a step or a hop chain, and every swap.
    pub(crate) fn unrestricted_destinations(
        &self,
        from: Cell,
        set: usize,
        player: usize,
    ) -> (CellSet, CellSet) {
        let swap = self.swap_targets(set, player);
        let chains = Chains::new(self.geometry.lanes(), &self.lanes, self.chain_starts(from));
        self.unrestricted_with(&chains, &swap, from)
    }

    /// What the pegs of `set` (owned by `player`) may swap with; nothing
    /// unless the swap rule is on.
    fn swap_targets(&self, set: usize, player: usize) -> SwapTargets {
        let mut swap = SwapTargets {
            pegs: CellSet::EMPTY,
            launchers: CellSet::EMPTY,
            lines: CellSet::EMPTY,
        };
        if self.rules.anti_spoiling != AntiSpoiling::Swap {
            return swap;
        }
        swap.pegs = self.frame.targets[set].intersection(self.swappable_pegs(player));
        for peg in swap.pegs {
            for direction in 0..6 {
                if let Some((landing, _)) = self.jump(peg, direction, self.occupied) {
                    swap.launchers.insert(landing);
                }
                if self.rules.long_jumps {
                    swap.lines.0 |= self.geometry.ray_mask(peg, direction);
                }
            }
        }
        swap
    }

    fn unrestricted_with(
        &self,
        chains: &Chains<'_>,
        swap: &SwapTargets,
        from: Cell,
    ) -> (CellSet, CellSet) {
        let geometry = self.geometry;
        let around = geometry.neighbor_set(from);
        let others = self.occupied.without(from);
        let hops = if self.rules.long_jumps {
            self.long_hop_reach(from, others)
        } else {
            chains.reach(from)
        };
        let reach = around.difference(self.occupied).union(hops);
        let mut swaps = CellSet::EMPTY;
        if !swap.pegs.is_empty() {
            swaps = around.intersection(swap.pegs);
            // A swap may end a chain: its last hop starts on the start hole
            // or on any hole the chain reaches, and lands on the peg. Hops
            // are symmetric (the same pivot, the same empty holes between),
            // so instead of hopping from every reached hole, hop backwards
            // from each swappable peg and look for a reached hole. The
            // set's `launchers` first rule out most pegs, such as all of
            // them while the chains are still far from the target.
            let launch = hops.with(from);
            if swap.lines.contains(from) || !launch.intersection(swap.launchers).is_empty() {
                for peg in swap.pegs.difference(swaps) {
                    for direction in 0..6 {
                        if let Some((landing, true)) = self.jump(peg, direction, others) {
                            if launch.contains(landing) {
                                swaps.insert(peg);
                                break;
                            }
                        }
                    }
                }
            }
        }
        (reach, swaps)
    }

    /// Pegs of players other than `player` (neutral pegs excluded).
    pub(crate) fn swappable_pegs(&self, player: usize) -> CellSet {
        self.occupied
            .difference(self.neutral)
            .difference(self.player_pegs(player))
    }

    /// Every hole a chain of hops (long jumps on) from `from` can reach,
    /// given the other pegs `others`. Excludes `from` itself.
    fn long_hop_reach(&self, from: Cell, others: CellSet) -> CellSet {
        let mut reached = CellSet::EMPTY.with(from);
        // Holes still to expand, as a bit set.
        let mut todo = reached.0;
        while todo != 0 {
            let here = Cell(todo.trailing_zeros() as u8);
            todo &= todo - 1;
            for direction in 0..6 {
                if let Some((landing, true)) = self.jump(here, direction, others) {
                    if !reached.contains(landing) {
                        reached.insert(landing);
                        todo |= landing.bit();
                    }
                }
            }
        }
        reached.without(from)
    }

    /// The single hop from `here` in `direction` over the pegs `others`:
    /// its landing hole and whether that hole is empty. `None` if there is
    /// no peg to hop over, the landing is off the board, or (long jumps) a
    /// hole between is not empty. Ordinary hops unless `long_jumps` is on.
    pub(crate) fn jump(
        &self,
        here: Cell,
        direction: usize,
        others: CellSet,
    ) -> Option<(Cell, bool)> {
        if !self.rules.long_jumps {
            let (over, landing) = self.geometry.hop_table(here)[direction];
            return (over != NONE && others.contains(Cell(over)))
                .then(|| (Cell(landing), !others.contains(Cell(landing))));
        }
        // The first peg on the line is the pivot. Ids are monotonic along a
        // line, so it is the lowest or the highest blocker.
        let line = self.geometry.ray_mask(here, direction);
        let blockers = line & others.0;
        if blockers == 0 {
            return None;
        }
        let pivot = if direction < 3 {
            blockers.trailing_zeros()
        } else {
            127 - blockers.leading_zeros()
        };
        let below_pivot = (1u128 << pivot) - 1;
        let nearer = if direction < 3 {
            line & below_pivot
        } else {
            line & !below_pivot & !(1u128 << pivot)
        };
        let distance = nearer.count_ones() as usize;
        let landing = *self.geometry.ray_table(here)[direction].get(2 * distance + 1)?;
        let (low, high) = (pivot.min(u32::from(landing)), pivot.max(u32::from(landing)));
        let between = line & ((1u128 << high) - 1) & !((2u128 << low) - 1);
        (between & others.0 == 0).then(|| (Cell(landing), !others.contains(Cell(landing))))
    }

    /// One path for a legal move, from its start to its end: the move's
    /// witness. For a hop, the chain with the fewest hops; for a swap, the
    /// step onto the other peg if it is a neighbour, else the chain with the
    /// fewest hops whose last hop lands on it (every earlier landing empty);
    /// ties broken by direction order. `[]` for a pass.
    ///
    /// The move must be legal here.
    #[must_use]
    pub fn witness_path(&self, mv: Move) -> Vec<Cell> {
        let (from, to, swap) = match mv {
            Move::Pass => return Vec::new(),
            Move::Step { from, to } => return vec![from, to],
            Move::Swap { from, to } if self.geometry.neighbor_set(from).contains(to) => {
                return vec![from, to];
            }
            Move::Hop { from, to } => (from, to, false),
            Move::Swap { from, to } => (from, to, true),
        };
        // Breadth first over chains of empty landings (the start hole counts
        // as empty). A hop ends on `to` when it lands there (empty for a
        // hop, occupied for a swap); holes leave the queue in order of their
        // number of hops, so the first such hop ends a shortest chain.
        let others = self.occupied.without(from);
        let mut parent = [NONE; Cell::MAX_HOLES];
        let mut reached = CellSet::EMPTY.with(from);
        let mut queue = std::collections::VecDeque::from([from]);
        let mut last = None;
        'search: while let Some(here) = queue.pop_front() {
            for direction in 0..6 {
                match self.jump(here, direction, others) {
                    Some((landing, empty)) if landing == to && empty != swap => {
                        last = Some(here);
                        break 'search;
                    }
                    Some((landing, true)) if !reached.contains(landing) => {
                        reached.insert(landing);
                        parent[landing.id()] = here.0;
                        queue.push_back(landing);
                    }
                    _ => {}
                }
            }
        }
        let Some(mut here) = last else {
            panic!("witness_path: {mv} is not a legal move here");
        };
        let mut path = vec![to, here];
        while here != from {
            here = Cell(parent[here.id()]);
            path.push(here);
        }
        path.reverse();
        path
    }
}

/// What the pegs of one set may swap with, and a quick test for when none
/// of its pegs can: computed once per set, with every peg on the board (the
/// moving peg's start hole, which counts as empty during its chain,
/// included).
pub(crate) struct SwapTargets {
    /// Other players' pegs, not neutral, in the set's target.
    pegs: CellSet,
    /// Where a hop backwards from one of `pegs` lands: where the last hop of
    /// a swap may start. For a peg not on `lines` its start hole changes
    /// nothing here (without long jumps it can only be a hop's pivot, which
    /// adds launchers but never removes one), so a peg none of whose chains
    /// reaches a launcher has no swap but steps.
    launchers: CellSet,
    /// With long jumps, the lines from `pegs` in every direction: a start
    /// hole on one may change where a long jump lands.
    lines: CellSet,
}

/// The stride of the standard star's lanes (`bitboard.rs`), for which the
/// plain generator is compiled with constant rotations.
const STANDARD_STRIDE: u32 = 7;

/// Pushes the moves from `from` to the holes `steps` (steps) and `hops`
/// (hop chains; disjoint from `steps`), ordered by end hole. Works on the
/// two 64-bit halves of the sets, whose bit loops are single instructions,
/// and writes into capacity reserved once for the peg (no check per move).
#[inline(always)]
fn emit(moves: &mut Vec<Move>, from: Cell, steps: u128, hops: u128) {
    let ends = steps | hops;
    moves.reserve(ends.count_ones() as usize);
    let len = moves.len();
    // SAFETY: `len` is within the allocation (reserved above).
    let mut slot = unsafe { moves.as_mut_ptr().add(len) };
    for half in 0..2u8 {
        let steps = (steps >> (64 * half)) as u64;
        let mut ends = steps | (hops >> (64 * half)) as u64;
        while ends != 0 {
            let bit = ends.trailing_zeros();
            ends &= ends - 1;
            let to = Cell(bit as u8 + 64 * half);
            let mv = if steps >> bit & 1 != 0 {
                Move::Step { from, to }
            } else {
                Move::Hop { from, to }
            };
            // SAFETY: one move per bit of `ends`, the count reserved above.
            unsafe {
                slot.write(mv);
                slot = slot.add(1);
            }
        }
    }
    // SAFETY: the slots from `len` to `slot` were just initialised.
    unsafe { moves.set_len(slot.offset_from(moves.as_ptr()) as usize) };
}
