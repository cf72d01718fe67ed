//! Many games stepped at once: the engine of the Python module's
//! `VectorEnv`, in the shape vectorised-environment users know (pgx,
//! EnvPool): one action per game in, one reward row, a terminated and a
//! truncated flag per game out; a game that ends starts again at once.
//!
//! ```
//! use sternhalma::{Board, Layout, Position, Rules};
//! use sternhalma::search::Rng;
//! use sternhalma::vector::Games;
//!
//! let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
//! let mut games = Games::new(start, 8, 1_000);
//! let mut actions = vec![0; 8];
//! games.random_actions(&mut Rng::new(1), &mut actions);
//! let mut out = games.outputs();
//! games.step(&actions, &mut out, 1)?;
//! assert!(games.positions().iter().all(|p| p.ply() == 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use crate::moves::{IllegalMove, Move};
use crate::position::Position;
use crate::search::Rng;

/// `N` games of one kind, each with its legal moves at hand.
#[derive(Clone, Debug)]
pub struct Games {
    start: Position,
    /// The start's legal moves: every game that (re)starts gets a copy.
    first: Vec<Move>,
    positions: Vec<Position>,
    /// Each game's legal moves (never empty: a game that ends restarts).
    legal: Vec<Vec<Move>>,
    /// Plies since each game (re)started.
    plies: Vec<u32>,
    max_plies: u32,
}

/// What a step writes: per game, a row of `players` rewards, and whether
/// it ended (`terminated`, by the rules) or was cut at the ply budget
/// (`truncated`); either way it has started again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    /// `games x players`, row by row: each player's result when the game
    /// ended in this step ([`Position::results`]), else 0.
    pub rewards: Vec<f32>,
    /// The game ended by its rules in this step.
    pub terminated: Vec<bool>,
    /// The game reached the ply budget in this step without ending.
    pub truncated: Vec<bool>,
}

/// A step refused: nothing was played in any game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepError {
    /// The first game whose action was refused.
    pub game: usize,
    /// The action given.
    pub action: i64,
    /// Why.
    pub error: IllegalMove,
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {}: action {}: illegal move: {}",
            self.game, self.action, self.error
        )
    }
}

impl std::error::Error for StepError {}

impl Games {
    /// `count` games from `start`, each cut after `max_plies` plies
    /// (at least one).
    #[must_use]
    pub fn new(start: Position, count: usize, max_plies: u32) -> Games {
        let first = start.legal_moves();
        Games {
            positions: vec![start.clone(); count],
            legal: vec![first.clone(); count],
            plies: vec![0; count],
            max_plies: max_plies.max(1),
            first,
            start,
        }
    }

    /// The number of games.
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there are no games.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Players in each game.
    #[must_use]
    pub fn players(&self) -> usize {
        self.start.layout().player_count()
    }

    /// The position every game starts from.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// Each game's current position.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The legal moves of game `game`, as [`Position::legal_moves`] lists them.
    #[must_use]
    pub fn legal_moves(&self, game: usize) -> &[Move] {
        &self.legal[game]
    }

    /// Plies played in each game since it (re)started.
    #[must_use]
    pub fn plies(&self) -> &[u32] {
        &self.plies
    }

    /// Starts every game again.
    pub fn reset(&mut self) {
        for (position, legal) in self.positions.iter_mut().zip(&mut self.legal) {
            position.clone_from(&self.start);
            legal.clone_from(&self.first);
        }
        self.plies.fill(0);
    }

    /// Output buffers of the right size for [`Games::step`].
    #[must_use]
    pub fn outputs(&self) -> Outputs {
        Outputs {
            rewards: vec![0.0; self.len() * self.players()],
            terminated: vec![false; self.len()],
            truncated: vec![false; self.len()],
        }
    }

    /// A uniformly random legal action for each game.
    pub fn random_actions(&self, rng: &mut Rng, actions: &mut [i64]) {
        for ((action, legal), position) in actions.iter_mut().zip(&self.legal).zip(&self.positions)
        {
            *action = position.action(legal[rng.below(legal.len())]) as i64;
        }
    }

    /// Plays one action (a [`Position::action`] number) in each game, on
    /// up to `threads` threads. Every action is checked against its game's
    /// legal moves first: if one is refused, no game moves.
    ///
    /// # Errors
    /// The first refused action, and why.
    ///
    /// # Panics
    /// If `actions` or `out` do not fit the games.
    pub fn step(
        &mut self,
        actions: &[i64],
        out: &mut Outputs,
        threads: usize,
    ) -> Result<(), StepError> {
        assert_eq!(actions.len(), self.len(), "one action per game");
        let players = self.players();
        assert_eq!(
            out.rewards.len(),
            self.len() * players,
            "rewards: games x players"
        );
        let mut chosen = Vec::with_capacity(self.len());
        for (game, (&action, (position, legal))) in actions
            .iter()
            .zip(self.positions.iter().zip(&self.legal))
            .enumerate()
        {
            let found = usize::try_from(action)
                .ok()
                .and_then(|a| legal.iter().copied().find(|&mv| position.action(mv) == a));
            match found {
                Some(mv) => chosen.push(mv),
                None => {
                    let error = match usize::try_from(action) {
                        Ok(a) => {
                            position
                                .action_move(a)
                                .err()
                                .unwrap_or(IllegalMove::Unreachable {
                                    from: a / position.geometry().len(),
                                    to: a % position.geometry().len(),
                                })
                        }
                        Err(_) => IllegalMove::UnknownAction {
                            action,
                            actions: position.num_distinct_actions(),
                        },
                    };
                    return Err(StepError {
                        game,
                        action,
                        error,
                    });
                }
            }
        }
        let max_plies = self.max_plies;
        let (start, first) = (&self.start, &self.first);
        let work = |positions: &mut [Position],
                    legal: &mut [Vec<Move>],
                    plies: &mut [u32],
                    moves: &[Move],
                    rewards: &mut [f32],
                    terminated: &mut [bool],
                    truncated: &mut [bool]| {
            for i in 0..positions.len() {
                let position = &mut positions[i];
                position.make_move(moves[i]);
                plies[i] += 1;
                position.legal_moves_into(&mut legal[i]);
                let row = &mut rewards[i * players..(i + 1) * players];
                terminated[i] = legal[i].is_empty();
                truncated[i] = !terminated[i] && plies[i] >= max_plies;
                if terminated[i] {
                    for (r, result) in row.iter_mut().zip(position.results()) {
                        *r = result as f32;
                    }
                } else {
                    row.fill(0.0);
                }
                if terminated[i] || truncated[i] {
                    position.clone_from(start);
                    legal[i].clone_from(first);
                    plies[i] = 0;
                }
            }
        };
        let threads = threads.clamp(1, self.len().max(1));
        if threads == 1 {
            work(
                &mut self.positions,
                &mut self.legal,
                &mut self.plies,
                &chosen,
                &mut out.rewards,
                &mut out.terminated,
                &mut out.truncated,
            );
            return Ok(());
        }
        let size = self.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let chunks = self
                .positions
                .chunks_mut(size)
                .zip(self.legal.chunks_mut(size))
                .zip(self.plies.chunks_mut(size))
                .zip(chosen.chunks(size))
                .zip(out.rewards.chunks_mut(size * players))
                .zip(out.terminated.chunks_mut(size))
                .zip(out.truncated.chunks_mut(size));
            for ((((((positions, legal), plies), moves), rewards), terminated), truncated) in chunks
            {
                scope.spawn(move || {
                    work(
                        positions, legal, plies, moves, rewards, terminated, truncated,
                    )
                });
            }
        });
        Ok(())
    }

    /// Each game's board from its mover's view, `holes` bytes a game: 0 an
    /// empty hole, `k + 1` a peg of the player `k` seats after the mover
    /// (1: the mover's own), -1 a neutral peg.
    pub fn boards(&self, out: &mut [i8]) {
        let holes = self.start.geometry().len();
        let players = self.players();
        assert_eq!(out.len(), self.len() * holes, "boards: games x holes");
        for (position, board) in self.positions.iter().zip(out.chunks_mut(holes)) {
            board.fill(0);
            let mover = position.side_to_move();
            for k in 0..players {
                for cell in position.player_pegs((mover + k) % players) {
                    board[cell.id()] = (k + 1) as i8;
                }
            }
            for cell in position.neutral() {
                board[cell.id()] = -1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Layout, Rules};

    fn games(count: usize, max_plies: u32) -> Games {
        let start = Position::start(
            Board::star(2).unwrap(),
            Layout::standard(2).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        Games::new(start, count, max_plies)
    }

    #[test]
    fn stepping_matches_playing_each_game_alone() {
        for threads in [1, 3] {
            let mut batch = games(10, 40);
            let mut alone: Vec<Position> = batch.positions().to_vec();
            let mut rng = Rng::new(3);
            let mut actions = vec![0; 10];
            let mut out = batch.outputs();
            let (mut ended, mut cut) = (0, 0);
            for _ in 0..200 {
                batch.random_actions(&mut rng, &mut actions);
                batch.step(&actions, &mut out, threads).unwrap();
                for (i, position) in alone.iter_mut().enumerate() {
                    let mv = position.action_move(actions[i] as usize).unwrap();
                    position.make_move(mv);
                    if position.is_game_over() {
                        assert!(out.terminated[i]);
                        assert_eq!(
                            out.rewards[i * 2..i * 2 + 2],
                            position
                                .results()
                                .iter()
                                .map(|&r| r as f32)
                                .collect::<Vec<_>>()[..]
                        );
                        ended += 1;
                        *position = batch.start().clone();
                    } else if position.ply() == 40 {
                        assert!(out.truncated[i] && !out.terminated[i]);
                        cut += 1;
                        *position = batch.start().clone();
                    } else {
                        assert!(!out.terminated[i] && !out.truncated[i]);
                        assert_eq!(out.rewards[i * 2..i * 2 + 2], [0.0, 0.0]);
                    }
                    assert_eq!(position, &batch.positions()[i]);
                    assert_eq!(batch.legal_moves(i), &position.legal_moves()[..]);
                }
            }
            assert!(cut > 0, "some games reach the ply budget");
            let _ = ended;
        }
    }

    #[test]
    fn a_refused_action_moves_no_game() {
        let mut batch = games(3, 100);
        let before = batch.positions().to_vec();
        let mut actions = vec![0; 3];
        batch.random_actions(&mut Rng::new(1), &mut actions);
        actions[2] = 0; // hole 0 is not the mover's
        let mut out = batch.outputs();
        let err = batch.step(&actions, &mut out, 1).unwrap_err();
        assert_eq!(err.game, 2);
        assert_eq!(err.error.code(), "not_your_peg");
        actions[2] = -5;
        assert_eq!(
            batch.step(&actions, &mut out, 1).unwrap_err().error.code(),
            "unknown_action"
        );
        assert_eq!(batch.positions(), &before[..]);
    }

    #[test]
    fn boards_show_the_mover_as_one() {
        let mut batch = games(2, 100);
        let mut boards = vec![0i8; 2 * batch.start().geometry().len()];
        batch.boards(&mut boards);
        let south = batch.start().player_pegs(0);
        for cell in south {
            assert_eq!(boards[cell.id()], 1);
        }
        let mut actions = vec![0; 2];
        batch.random_actions(&mut Rng::new(2), &mut actions);
        let mut out = batch.outputs();
        batch.step(&actions, &mut out, 1).unwrap();
        batch.boards(&mut boards);
        for cell in batch.positions()[0].player_pegs(1) {
            assert_eq!(boards[cell.id()], 1, "player 1 moves now");
        }
    }
}
