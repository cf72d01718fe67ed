//! The win, terminal and illegal rules of the solved game (RULES §7) on
//! plain bit sets of hole ids: one home for them, used by [`Position`]
//! (which filters moves and checks positions under
//! `illegal_positions=sturtevant`) and by the retrograde solver.
//!
//! [`Position`]: crate::Position

use crate::board::Triangle;
use crate::geometry::Geometry;

/// What decides a blocked target: its tip and the four holes of its outer
/// edges ([`Geometry::blocking_holes`]), as bit sets of ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blocking {
    tip: u128,
    edges: u128,
}

impl Blocking {
    /// Whether the target is blocked: its tip empty and its four edge holes
    /// all held by `opponent`, the pegs of the target owner's opponent.
    #[inline]
    pub(crate) fn blocked(self, opponent: u128, occupied: u128) -> bool {
        occupied & self.tip == 0 && self.edges & !opponent == 0
    }
}

/// The two players' targets on a board, with their blocking holes where
/// the rule applies (6-peg triangles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Targets {
    /// Player 0's target and player 1's, as bit sets.
    pub(crate) target: [u128; 2],
    blocking: [Option<Blocking>; 2],
}

/// Whether a player whose target is `target` and whose pegs are `own` has
/// won under fill-available with two players: every target hole holds a
/// peg of any colour, and at least one of them is the player's own.
#[inline]
pub(crate) fn fills(target: u128, own: u128, occupied: u128) -> bool {
    target & !occupied == 0 && target & own != 0
}

impl Targets {
    /// The targets of two players heading for `targets[0]` and
    /// `targets[1]` on `geometry`.
    pub(crate) fn new(geometry: &Geometry, targets: [Triangle; 2]) -> Targets {
        Targets {
            target: targets.map(|t| geometry.triangle(t).0),
            blocking: targets.map(|t| {
                geometry.blocking_holes(t).map(|(tip, edges)| Blocking {
                    tip: 1 << tip.id(),
                    edges: edges.0,
                })
            }),
        }
    }

    /// Whether `player` (0 or 1) has won with the pegs `pegs` on the board.
    #[inline]
    pub(crate) fn won(&self, pegs: [u128; 2], player: usize) -> bool {
        fills(self.target[player], pegs[player], pegs[0] | pegs[1])
    }

    /// Every hole that decides whether a target is blocked.
    pub(crate) fn blocking_holes(&self) -> u128 {
        self.blocking
            .iter()
            .flatten()
            .fold(0, |holes, b| holes | b.tip | b.edges)
    }

    /// Whether either target is blocked.
    #[inline]
    pub(crate) fn blocked(&self, pegs: [u128; 2]) -> bool {
        let occupied = pegs[0] | pegs[1];
        (0..2).any(|player| {
            self.blocking[player].is_some_and(|b| b.blocked(pegs[1 - player], occupied))
        })
    }

    /// For each player, the tip hole of their target if it is blocked:
    /// what a refusal names. Some player's is `Some` exactly when
    /// [`Targets::blocked`] holds.
    pub(crate) fn blocked_tips(&self, pegs: [u128; 2]) -> [Option<usize>; 2] {
        let occupied = pegs[0] | pegs[1];
        [0, 1].map(|player| {
            let b = self.blocking[player]?;
            b.blocked(pegs[1 - player], occupied)
                .then(|| b.tip.trailing_zeros() as usize)
        })
    }

    /// Whether the position is illegal with `to_move` to move: that player
    /// has won, or a target is blocked (RULES §7). Checked before whether
    /// it is over, so a position where both players have won is illegal.
    #[inline]
    pub(crate) fn illegal(&self, pegs: [u128; 2], to_move: usize) -> bool {
        self.won(pegs, to_move) || self.blocked(pegs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Board;

    #[test]
    fn a_blocked_target_needs_its_tip_empty_and_four_opponents_on_its_edges() {
        let g = Board::rhombus(6, 3).unwrap().geometry();
        // Player 0 (south) heads north: its target is blocked by player 1.
        let t = Targets::new(g, [Triangle::North, Triangle::South]);
        let bits = |ids: &[usize]| ids.iter().fold(0u128, |b, &i| b | 1 << i);
        let north_edges = bits(&[1, 2, 3, 5]);
        assert!(t.blocked([bits(&[20]), north_edges]));
        // The middle of the last row does not matter; the tip does.
        assert!(t.blocked([bits(&[20]), north_edges | bits(&[4])]));
        assert!(t.blocked([bits(&[4]), north_edges]));
        assert!(!t.blocked([bits(&[0]), north_edges]));
        assert!(!t.blocked([bits(&[1]), bits(&[2, 3, 5])]));
        // South's target (north's home rotated: 35 the tip; 33, 34, 30, 32).
        assert!(t.blocked([bits(&[30, 32, 33, 34]), bits(&[0])]));
        assert!(!t.blocked([bits(&[30, 31, 33, 34]), bits(&[0])]));
    }

    #[test]
    fn winning_needs_a_full_target_and_one_own_peg() {
        let g = Board::rhombus(7, 2).unwrap().geometry();
        let t = Targets::new(g, [Triangle::North, Triangle::South]);
        let bits = |ids: &[usize]| ids.iter().fold(0u128, |b, &i| b | 1 << i);
        assert!(t.won([bits(&[0, 1, 2]), bits(&[40])], 0));
        assert!(t.won([bits(&[0, 30, 31]), bits(&[1, 2, 40])], 0));
        assert!(!t.won([bits(&[30, 31, 32]), bits(&[0, 1, 2])], 0));
        assert!(!t.won([bits(&[0, 1, 30]), bits(&[40])], 0));
        assert!(t.illegal([bits(&[0, 1, 2]), bits(&[40])], 0));
        assert!(!t.illegal([bits(&[0, 1, 2]), bits(&[40])], 1));
    }
}
