//! Witness paths of many moves of one position: the same paths as
//! [`Position::witness_path`], one breadth-first search per start hole
//! instead of one per move, and no allocation per move.

use crate::cell::{Cell, CellSet};
use crate::moves::Move;
use crate::position::Position;

/// The witness paths of a position's legal moves, computed a start hole at
/// a time ([`Position::witnesses`]): for surfaces that list every legal move
/// with its path.
///
/// For each start hole it runs once the breadth-first search that
/// [`Position::witness_path`] runs for each move (same queue order, same
/// direction order) and keeps its tree, so each path is exactly the one
/// `witness_path` answers: for a hop, the first hop to land on the end hole
/// is the one `witness_path` stops at; for a swap, the first hole in the
/// search's order with a hop onto the other peg. Moves sorted by start hole,
/// as [`Position::legal_moves`] gives them, search each start hole once.
///
/// ```
/// use sternhalma::{Board, Layout, Position, Rules};
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// let mut witnesses = start.witnesses();
/// for mv in start.legal_moves() {
///     assert_eq!(witnesses.path(mv), start.witness_path(mv).as_slice());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Witnesses<'a> {
    position: &'a Position,
    /// The start hole of the search kept, if any.
    from: Option<Cell>,
    /// The search's holes in the order they left its queue (`from` first).
    order: [u8; Cell::MAX_HOLES],
    order_len: usize,
    /// The hole each reached hole was first hopped to from.
    parent: [u8; Cell::MAX_HOLES],
    reached: CellSet,
    /// The last path asked for.
    path: [Cell; Cell::MAX_HOLES + 1],
    path_len: usize,
}

impl Position {
    /// The witness paths of this position's legal moves, computed as they
    /// are asked for ([`Witnesses`]).
    #[must_use]
    pub fn witnesses(&self) -> Witnesses<'_> {
        Witnesses {
            position: self,
            from: None,
            order: [0; Cell::MAX_HOLES],
            order_len: 0,
            parent: [0; Cell::MAX_HOLES],
            reached: CellSet::EMPTY,
            path: [Cell(0); Cell::MAX_HOLES + 1],
            path_len: 0,
        }
    }
}

impl Witnesses<'_> {
    /// The witness path of `mv`, the same as
    /// [`Position::witness_path`]: `[from, to]` for a step (or a swap with a
    /// neighbour), the chain with the fewest hops for a hop or another
    /// swap, `[]` for a pass.
    ///
    /// # Panics
    /// `mv` is not a legal move of the position.
    pub fn path(&mut self, mv: Move) -> &[Cell] {
        let position = self.position;
        let (from, to, swap) = match mv {
            Move::Pass => return &[],
            Move::Step { from, to } => return self.two(from, to),
            Move::Swap { from, to } if position.geometry.neighbor_set(from).contains(to) => {
                return self.two(from, to);
            }
            Move::Hop { from, to } => (from, to, false),
            Move::Swap { from, to } => (from, to, true),
        };
        if self.from != Some(from) {
            self.search(from);
        }
        let last = if swap {
            // The first hole, in the search's order, with a hop onto the
            // other peg (which is occupied, so never in the tree).
            let others = position.occupied.without(from);
            self.order[..self.order_len]
                .iter()
                .map(|&here| Cell(here))
                .find(|&here| {
                    (0..6).any(|direction| {
                        position.jump(here, direction, others) == Some((to, false))
                    })
                })
        } else {
            self.reached
                .contains(to)
                .then(|| Cell(self.parent[to.id()]))
        };
        let Some(mut here) = last else {
            panic!("Witnesses::path: {mv} is not a legal move here");
        };
        // Walk the tree back from the end, then turn the path round.
        self.path[0] = to;
        self.path[1] = here;
        let mut len = 2;
        while here != from {
            here = Cell(self.parent[here.id()]);
            self.path[len] = here;
            len += 1;
        }
        self.path[..len].reverse();
        self.path_len = len;
        &self.path[..len]
    }

    fn two(&mut self, from: Cell, to: Cell) -> &[Cell] {
        self.path[0] = from;
        self.path[1] = to;
        self.path_len = 2;
        &self.path[..2]
    }

    /// Breadth first over chains of empty landings from `from` (the start
    /// hole counts as empty), hops tried in direction order: the search of
    /// `witness_path`, run to the end.
    fn search(&mut self, from: Cell) {
        let position = self.position;
        let others = position.occupied.without(from);
        self.from = Some(from);
        self.reached = CellSet::EMPTY.with(from);
        self.order[0] = from.0;
        self.order_len = 1;
        let mut next = 0;
        while next < self.order_len {
            let here = Cell(self.order[next]);
            next += 1;
            for direction in 0..6 {
                if let Some((landing, true)) = position.jump(here, direction, others) {
                    if !self.reached.contains(landing) {
                        self.reached.insert(landing);
                        self.parent[landing.id()] = here.0;
                        self.order[self.order_len] = landing.0;
                        self.order_len += 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Board, Layout, Position, Rules};

    /// Every legal move's path from [`Witnesses`] is `witness_path`'s, along
    /// seeded random games of several boards, layouts and rules (long
    /// jumps, swaps), asked in order and in reverse (a new search per move).
    #[test]
    fn the_same_paths_as_witness_path() {
        let mut checked = 0;
        let mut swaps = 0;
        for (board, players, rules) in [
            (Board::STANDARD, 2, Rules::classic()),
            (Board::STANDARD, 6, Rules::classic()),
            (Board::STANDARD, 3, Rules::super_chinese_checkers()),
            (Board::STANDARD, 2, Rules::masters()),
            ("rhombus9p10".parse().unwrap(), 2, Rules::research()),
            ("star2".parse().unwrap(), 2, Rules::super_chinese_checkers()),
            ("star2".parse().unwrap(), 2, Rules::masters()),
            ("star2".parse().unwrap(), 3, Rules::masters()),
        ] {
            for seed in 1..=6_u64 {
                let mut position =
                    Position::start(board, Layout::standard(players).unwrap(), rules).unwrap();
                let mut rng = crate::search::Rng::new(seed);
                for _ in 0..160 {
                    let moves = position.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let mut witnesses = position.witnesses();
                    for &mv in &moves {
                        assert_eq!(
                            witnesses.path(mv),
                            position.witness_path(mv).as_slice(),
                            "{mv} in {position}"
                        );
                        checked += 1;
                        swaps += usize::from(matches!(mv, crate::Move::Swap { .. }));
                    }
                    let mut witnesses = position.witnesses();
                    for &mv in moves.iter().rev() {
                        assert_eq!(witnesses.path(mv), position.witness_path(mv).as_slice());
                    }
                    let mv = moves[rng.below(moves.len())];
                    position.make_move(mv);
                }
            }
        }
        // A swap at the end of a chain of five hops.
        let position: Position =
            "star4 masters south:61,66,78,82,93,94,103,104,112,119/north:0,1,4,5,16,19,24,40,50,102 0 72 -"
                .parse()
                .unwrap();
        let mut witnesses = position.witnesses();
        for mv in position.legal_moves() {
            assert_eq!(witnesses.path(mv), position.witness_path(mv).as_slice());
        }
        let swap = "94-1".parse().unwrap();
        let swap = position.parse_move(&swap).unwrap();
        let ids: Vec<usize> = witnesses.path(swap).iter().map(|c| c.id()).collect();
        assert_eq!(ids, [94, 71, 51, 28, 8, 1]);
        assert!(checked > 50_000, "{checked}");
        assert!(swaps > 0, "no swap was checked");
    }
}
