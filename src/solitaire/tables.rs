//! The board as bit masks, for move generation on a peg set held in one
//! `u128`.

use crate::board::{Board, Triangle};
use crate::geometry::NONE;

/// One possible hop from a hole: the hole hopped over and the landing hole,
/// as single-bit masks, and the landing hole's id.
#[derive(Clone, Copy, Default)]
pub(crate) struct Hop {
    pub(crate) over: u128,
    pub(crate) landing: u128,
}

/// Neighbour and hop masks, goal and start, the mirror and the coordinates
/// of every hole of one board.
pub(crate) struct Tables {
    pub(crate) neighbours: Vec<u128>,
    /// The hops of each hole; hops off the board are left out.
    pub(crate) hops: Vec<Vec<Hop>>,
    pub(crate) mirror: Vec<u8>,
    pub(crate) start: u128,
    pub(crate) goal: u128,
    /// Axial coordinates (q, r, s) of each hole.
    pub(crate) axes: Vec<[i32; 3]>,
}

impl Tables {
    pub(crate) fn new(board: Board) -> Tables {
        let geometry = board.geometry();
        let holes = geometry.len();
        let mut neighbours = Vec::with_capacity(holes);
        let mut hops = Vec::with_capacity(holes);
        let mut mirror = Vec::with_capacity(holes);
        let mut axes = Vec::with_capacity(holes);
        for cell in geometry.cells() {
            neighbours.push(geometry.neighbor_set(cell).0);
            hops.push(
                geometry
                    .hop_table(cell)
                    .iter()
                    .filter(|&&(over, _)| over != NONE)
                    .map(|&(over, landing)| Hop {
                        over: 1u128 << over,
                        landing: 1u128 << landing,
                    })
                    .collect(),
            );
            mirror.push(geometry.mirror(cell).0);
            let (q, r) = geometry.coordinates(cell);
            axes.push([q, r, -q - r]);
        }
        Tables {
            neighbours,
            hops,
            mirror,
            start: geometry.triangle(Triangle::South).0,
            goal: geometry.triangle(Triangle::North).0,
            axes,
        }
    }

    /// The peg set's image in the left-right mirror.
    #[inline]
    pub(crate) fn mirrored(&self, pegs: u128) -> u128 {
        let mut image = 0u128;
        let mut rest = pegs;
        while rest != 0 {
            image |= 1u128 << self.mirror[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        image
    }

    /// One representative of the peg set and its mirror image (the board,
    /// the start and the goal are all left-right symmetric, so both have the
    /// same distance to the goal).
    #[inline]
    pub(crate) fn canonical(&self, pegs: u128) -> u128 {
        pegs.min(self.mirrored(pegs))
    }
}
