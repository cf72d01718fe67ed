//! Action numbers: each move of a board as one integer, the shape learning
//! code and open_spiel expect. A move from hole `f` to hole `t` is `f *
//! holes + t`; a pass is `holes * holes`. Steps, hops and swaps share the
//! numbering, since a move is decided by its two ends (`src/movegen.rs`).

use crate::cell::Cell;
use crate::moves::{IllegalMove, Move};
use crate::position::Position;

impl Position {
    /// How many action numbers the board has: `holes * holes + 1`.
    ///
    /// ```
    /// use sternhalma::{Board, Layout, Position, Rules};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// assert_eq!(start.num_distinct_actions(), 121 * 121 + 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn num_distinct_actions(&self) -> usize {
        let holes = self.geometry.len();
        holes * holes + 1
    }

    /// The action number of a move (of this board).
    ///
    /// ```
    /// use sternhalma::{Board, Layout, Move, Position, Rules};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// let hop = start.parse_move(&"115-104".parse()?)?;
    /// assert_eq!(start.action(hop), 115 * 121 + 104);
    /// assert_eq!(start.action(Move::Pass), 121 * 121);
    /// assert_eq!(start.action_move(115 * 121 + 104)?, hop);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn action(&self, mv: Move) -> usize {
        let holes = self.geometry.len();
        match (mv.from(), mv.to()) {
            (Some(from), Some(to)) => from.id() * holes + to.id(),
            _ => holes * holes,
        }
    }

    /// The legal move an action number stands for, checked: one peg's
    /// destinations are generated, not the whole position's.
    ///
    /// # Errors
    /// [`IllegalMove::UnknownAction`] for a number the board does not have;
    /// otherwise why the move is illegal here, as [`Position::parse_move`]
    /// says it.
    pub fn action_move(&self, action: usize) -> Result<Move, IllegalMove> {
        let holes = self.geometry.len();
        if action == holes * holes {
            return self.check_move(Move::Pass).map(|()| Move::Pass);
        }
        if action > holes * holes {
            return Err(IllegalMove::UnknownAction {
                action: action as i64,
                actions: holes * holes + 1,
            });
        }
        // Ids below `holes` are holes of the board.
        let (from, to) = (Cell((action / holes) as u8), Cell((action % holes) as u8));
        self.over_if_stuck(self.move_between(from, to))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Board, IllegalMove, Layout, Position, Rules};

    #[test]
    fn every_legal_move_round_trips_and_nothing_else_is_accepted() {
        let mut position = Position::start(
            Board::STANDARD,
            Layout::standard(3).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        let mut moves = Vec::new();
        for ply in 0..60 {
            position.legal_moves_into(&mut moves);
            let legal: Vec<usize> = moves.iter().map(|&m| position.action(m)).collect();
            for action in 0..position.num_distinct_actions() {
                let accepted = position.action_move(action);
                match legal.iter().position(|&a| a == action) {
                    Some(i) => assert_eq!(accepted, Ok(moves[i]), "ply {ply}, action {action}"),
                    None => assert!(accepted.is_err(), "ply {ply}: {action} accepted"),
                }
            }
            position.make_move(moves[(ply * 7) % moves.len()]);
        }
        let too_big = position.num_distinct_actions();
        assert_eq!(
            position.action_move(too_big),
            Err(IllegalMove::UnknownAction {
                action: too_big as i64,
                actions: too_big
            })
        );
    }
}
