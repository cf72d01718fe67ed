//! The best line to the end (lichess's `/mainline`): from a position, each
//! ply the best move of [`Tablebase::moves`] (the first: the fastest win,
//! the longest loss, equals in start then end hole order), until the game
//! is over.

use super::table::Value;
use super::tablebase::{MoveProbe, Probe, Tablebase, TablebaseError};
use crate::Position;

/// A position's value and the best line from it to the end
/// ([`Tablebase::mainline`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mainline {
    /// The position's value and depth for its side to move.
    pub probe: Probe,
    /// The moves, each with the mover's value and depth before it (the
    /// first is the position's; the depths go down by one a ply, the
    /// values alternate); as many as the depth for a win or a loss, none
    /// for a draw or a game over.
    pub moves: Vec<MoveProbe>,
    /// The positions of the line, one more than its moves: the position
    /// (without a move limit), then the one after each move; the last is
    /// the end of the game (for a draw, the position itself).
    pub positions: Vec<Position>,
}

impl Tablebase {
    /// The best line from `position` to the end of the game: each ply the
    /// first of [`Tablebase::moves`], the winner hurrying and the loser
    /// holding out, so the line is as long as the position's depth and ends
    /// in a finished game. A draw has no line to an end: its line is empty
    /// (as lichess's `/mainline` answers a draw), and so is a game over's.
    /// The line is of the game without a move limit, as the table knows
    /// it: a position's `max_plies` is set aside.
    ///
    /// ```
    /// use sternhalma::solve::{Game, Tablebase, Value};
    /// use sternhalma::Position;
    ///
    /// let table = Tablebase::build(&Game::new(7, 2)?, 1, &|_| {})?;
    /// let start: Position = "rhombus7p2 sturtevant south:47,48/north:0,1 0 0 -".parse()?;
    /// let line = table.mainline(&start)?;
    /// assert_eq!(line.probe.to_string(), "win in 33");
    /// assert_eq!(line.moves.len(), 33);
    /// let first = &line.moves[0];
    /// assert_eq!((first.mv.to_string(), first.probe().to_string()), ("48-45".into(), "win in 33".into()));
    /// assert_eq!(line.moves[1].probe().to_string(), "loss in 32");
    /// assert_eq!(line.positions[0], start);
    /// assert!(line.positions[33].is_game_over());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A position of another game; [`TablebaseError::NoDepths`] for a
    /// table without depths, which cannot tell a move that makes progress.
    pub fn mainline(&self, position: &Position) -> Result<Mainline, TablebaseError> {
        let probe = self.probe(position)?;
        if !self.has_depths() {
            return Err(TablebaseError::NoDepths(format!(
                "the table of {} keeps values only, and a line to the end needs each position's depth (solve it with `sternhalma solve-game --depth on`)",
                self.game().board()
            )));
        }
        let plies = match (probe.value, probe.depth) {
            (Value::Win | Value::Loss, Some(depth)) => depth,
            _ => 0,
        };
        let mut moves = Vec::with_capacity(plies as usize);
        let mut positions = Vec::with_capacity(plies as usize + 1);
        let mut here = without_move_limit(position);
        for left in (1..=plies).rev() {
            let Some(best) = self.moves(&here)?.first().copied() else {
                // Never: a position of depth `left` > 0 has a move of that
                // depth, and no move limit stops the line.
                debug_assert!(false, "no move at {here}, {left} plies from the end");
                break;
            };
            debug_assert_eq!(best.depth, Some(left), "at {here}");
            let next = here.play(best.mv).expect("a move of `moves` is legal");
            positions.push(std::mem::replace(&mut here, next));
            moves.push(best);
        }
        positions.push(here);
        Ok(Mainline {
            probe,
            moves,
            positions,
        })
    }
}

/// `position` in the game without a move limit (the tables' game).
fn without_move_limit(position: &Position) -> Position {
    if position.rules().max_plies.is_none() {
        return position.clone();
    }
    let mut setup = position.to_setup();
    setup.rules.max_plies = None;
    // The same position, with more room to play: valid as it was.
    setup.validate().unwrap_or_else(|_| position.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Rng;
    use crate::solve::Game;
    use crate::{Layout, Rules};

    /// Positions of `game` reached by `count` seeded random games of up
    /// to 40 plies, every position on the way (ends included).
    fn random_positions(game: &Game, count: usize, seed: u64) -> Vec<Position> {
        let start = Position::start(
            game.board(),
            Layout::standard(2).unwrap(),
            Rules::sturtevant(),
        )
        .unwrap();
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        for _ in 0..count {
            let mut position = start.clone();
            for _ in 0..rng.below(40) {
                out.push(position.clone());
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                position = position.play(moves[rng.below(moves.len())]).unwrap();
            }
            out.push(position);
        }
        out
    }

    #[test]
    fn the_line_is_as_long_as_the_depth_and_ends_the_game() {
        let game = Game::new(7, 2).unwrap();
        let table = Tablebase::build(&game, 2, &|_| {}).unwrap();
        let positions = random_positions(&game, 150, 50);
        let mut ended_by_a_line = 0;
        for position in &positions {
            let probe = table.probe(position).unwrap();
            let line = table.mainline(position).unwrap();
            assert_eq!(line.probe, probe, "{position}");
            let depth = probe.depth.expect("7×7 with 2 pegs has no draw");
            assert_eq!(line.moves.len() as u32, depth, "{position}");
            assert_eq!(line.positions.len(), line.moves.len() + 1);
            assert_eq!(line.positions[0], *position);
            let mut here = position.clone();
            for (ply, best) in line.moves.iter().enumerate() {
                assert_eq!(line.positions[ply], here);
                // Each ply one nearer the end, the mover's value
                // alternating, and the move the first of `moves`.
                let before = table.probe(&here).unwrap();
                assert_eq!(best.probe(), before, "{position} ply {ply}");
                assert_eq!(best.depth, Some(depth - ply as u32), "{position} ply {ply}");
                assert_eq!(table.moves(&here).unwrap()[0], *best);
                here = here.play(best.mv).unwrap();
            }
            assert!(here.is_game_over(), "{position}: the line ends at {here}");
            assert_eq!(line.positions[line.moves.len()], here);
            assert_eq!(table.probe(&here).unwrap().to_string(), "loss in 0");
            if depth > 0 {
                ended_by_a_line += 1;
            }
        }
        assert!(ended_by_a_line > 100, "{ended_by_a_line}");
    }

    #[test]
    fn a_game_over_has_an_empty_line_and_values_only_have_none() {
        let game = Game::new(7, 1).unwrap();
        let table = Tablebase::build(&game, 1, &|_| {}).unwrap();
        // South's peg home in the far corner, north to move.
        let over = table.position_of(&"0/24 1".parse().unwrap()).unwrap();
        assert!(over.is_game_over());
        let line = table.mainline(&over).unwrap();
        assert_eq!(line.probe.to_string(), "loss in 0");
        assert!(line.moves.is_empty());
        assert_eq!(line.positions, [over]);

        // A move limit is set aside: the line goes past it.
        let limited = Position::start(
            game.board(),
            Layout::standard(2).unwrap(),
            "sturtevant,max_plies=2".parse().unwrap(),
        )
        .unwrap();
        let line = table.mainline(&limited).unwrap();
        assert_eq!(Some(line.moves.len() as u32), line.probe.depth);
        assert!(line.moves.len() > 2);

        let (values, _) = crate::solve::solve(&game, 1);
        let values_only = Tablebase::from_solved(game.clone(), values, None);
        let e = values_only.mainline(&limited).unwrap_err();
        assert_eq!(e.code(), "tablebase_without_depths");
    }

    #[test]
    fn a_draw_has_an_empty_line_with_its_value() {
        // 4×4 with 6 pegs has draws.
        let game = Game::new(4, 6).unwrap();
        let table = Tablebase::build(&game, 2, &|_| {}).unwrap();
        let draw = random_positions(&game, 200, 3)
            .into_iter()
            .find(|p| table.probe(p).unwrap().value == Value::Draw)
            .expect("random play on 4×4 with 6 pegs meets a draw");
        let line = table.mainline(&draw).unwrap();
        assert_eq!(line.probe.value, Value::Draw);
        assert!(line.moves.is_empty());
        assert_eq!(line.positions, [draw]);
    }
}
