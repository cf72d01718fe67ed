//! Positions the rules make illegal (`illegal_positions = sturtevant`, the
//! solved game of RULES §7), as a [`Position`] meets them: the moves that
//! lead into one are dropped from generation and refused when submitted,
//! and a setup that is one is refused. What is illegal is decided in one
//! place, on bit sets: [`crate::sturtevant::Targets`].
//!
//! Under these rules the game has two players with one set each
//! ([`Setup::validate`](crate::Setup::validate) checks it), so set `i` is
//! player `i`'s.

use crate::moves::{IllegalMove, Move};
use crate::position::Position;
use crate::rules::IllegalPositions;
use crate::setup::SetupProblem;
use crate::sturtevant::Targets;

impl Position {
    /// The two players' targets as the §7 rules take them.
    fn sturtevant_targets(&self) -> Targets {
        let target = |set| self.layout.set_triangle(set).opposite();
        Targets::new(self.geometry, [target(0), target(1)])
    }

    /// The two players' pegs, as bit sets, after `player` plays `mv`.
    fn pegs_after(&self, player: usize, mv: Move) -> [u128; 2] {
        let mut pegs = [self.pegs[0].0, self.pegs[1].0];
        if let Some((from, to)) = mv.from().zip(mv.to()) {
            let ends = from.bit() | to.bit();
            pegs[player] ^= ends;
            if let Move::Swap { .. } = mv {
                pegs[1 - player] ^= ends;
            }
        }
        pegs
    }

    /// Drops from `moves`, moves of `player`, every one whose position is
    /// illegal with the other player to move.
    pub(crate) fn drop_moves_into_illegal_positions(&self, player: usize, moves: &mut Vec<Move>) {
        let targets = self.sturtevant_targets();
        moves.retain(|&mv| !targets.illegal(self.pegs_after(player, mv), 1 - player));
    }

    /// `Ok(mv)`, or, under `illegal_positions = sturtevant`, the refusal
    /// of a move of the player to move (legal but for this rule) into an
    /// illegal position, saying why.
    pub(crate) fn refuse_if_illegal_after(&self, mv: Move) -> Result<Move, IllegalMove> {
        if self.rules.illegal_positions == IllegalPositions::None {
            return Ok(mv);
        }
        let Some((from, to)) = mv.from().zip(mv.to()) else {
            return Ok(mv);
        };
        let player = self.side_to_move();
        let targets = self.sturtevant_targets();
        let pegs = self.pegs_after(player, mv);
        if !targets.illegal(pegs, 1 - player) {
            return Ok(mv);
        }
        let reason = if targets.won(pegs, 1 - player) {
            "complete the opponent's target"
        } else {
            if targets.blocked_tips(pegs)[player].is_some() {
                "leave the mover's own target blocked (its tip empty, the four holes of its outer edges held by the opponent)"
            } else {
                "leave the opponent's target blocked (its tip empty, the four holes of its outer edges held by the mover)"
            }
        };
        Err(IllegalMove::LeadsToIllegalPosition {
            from: from.id(),
            to: to.id(),
            reason,
        })
    }

    /// What makes this position illegal under `illegal_positions =
    /// sturtevant`: the player to move has won, a target is blocked. Empty
    /// under other rules.
    pub(crate) fn illegal_position_problems(&self) -> Vec<SetupProblem> {
        let mut problems = Vec::new();
        if self.rules.illegal_positions == IllegalPositions::None {
            return problems;
        }
        let targets = self.sturtevant_targets();
        let pegs = [self.pegs[0].0, self.pegs[1].0];
        let side = self.side_to_move();
        if targets.won(pegs, side) {
            problems.push(SetupProblem::SideToMoveHasWon { side });
        }
        for (player, tip) in targets.blocked_tips(pegs).into_iter().enumerate() {
            if let Some(tip) = tip {
                problems.push(SetupProblem::TargetBlocked { player, tip });
            }
        }
        problems
    }
}
