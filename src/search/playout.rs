//! Playouts: a game played on by a simple policy until it ends or a ply
//! budget runs out, all in Rust. For Monte Carlo methods (a leaf's value)
//! and for experiments that need many games fast; the Python module runs
//! them without a Python call per move, the GIL released.
//!
//! ```
//! use sternhalma::{Board, Layout, Position, Rules};
//! use sternhalma::search::{Playout, Policy, Rng};
//!
//! let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
//! let mut position = start.clone();
//! let mut playout = Playout::new(&start, Policy::Forward);
//! let plies = playout.run(&mut position, &mut Rng::new(1), 2_000);
//! assert_eq!(position.ply(), start.ply() + plies);
//! assert!(position.is_game_over() || plies == 2_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use super::eval::Evaluator;
use super::rng::Rng;
use crate::{Move, Position};

/// How a playout chooses each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// A uniformly random legal move. Random play wanders: from the start
    /// of a two-player game it essentially never finishes (`BENCHMARKS.md`).
    Uniform,
    /// A uniformly random move among those that bring the moving peg nearer
    /// its target's apex; any legal move when none does. Games finish.
    Forward,
}

impl Policy {
    /// Every policy, by name.
    pub const ALL: [Policy; 2] = [Policy::Uniform, Policy::Forward];

    /// The policy's name: `uniform` or `forward`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Policy::Uniform => "uniform",
            Policy::Forward => "forward",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A policy name that is not one ([`Policy::from_str`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown playout policy {:?} (the policies are \"uniform\" and \"forward\")",
            self.0
        )
    }
}

impl std::error::Error for UnknownPolicy {}

impl FromStr for Policy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Policy, UnknownPolicy> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPolicy(s.to_owned()))
    }
}

/// Plays playouts with one policy, reusing its buffers: one per thread.
#[derive(Clone, Debug)]
pub struct Playout {
    policy: Policy,
    /// The forward policy's distances, for the board and layout it was made
    /// for (remade when a position of another game comes).
    evaluator: Option<Evaluator>,
    moves: Vec<Move>,
    /// The forward policy's candidates.
    forward: Vec<Move>,
}

impl Playout {
    /// Playouts of games like `position`'s (same board and layout).
    #[must_use]
    pub fn new(position: &Position, policy: Policy) -> Playout {
        Playout {
            policy,
            evaluator: (policy == Policy::Forward).then(|| Evaluator::new(position)),
            moves: Vec::new(),
            forward: Vec::new(),
        }
    }

    /// The policy played.
    #[must_use]
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Plays on from `position` (in place) until the game is over or
    /// `max_plies` plies have been played; returns the plies played.
    pub fn run(&mut self, position: &mut Position, rng: &mut Rng, max_plies: u32) -> u32 {
        if let Some(evaluator) = &self.evaluator {
            if !evaluator.fits(position) {
                self.evaluator = Some(Evaluator::new(position));
            }
        }
        let mut plies = 0;
        while plies < max_plies {
            let Some(mv) = self.choose(position, rng) else {
                break;
            };
            position.make_move(mv);
            plies += 1;
        }
        plies
    }

    /// The policy's move here; `None` when the game is over.
    pub fn choose(&mut self, position: &Position, rng: &mut Rng) -> Option<Move> {
        position.legal_moves_into(&mut self.moves);
        if self.moves.is_empty() {
            return None;
        }
        if let Some(evaluator) = &self.evaluator {
            self.forward.clear();
            self.forward.extend(
                self.moves
                    .iter()
                    .filter(|&&mv| evaluator.gain(position, mv) > 0),
            );
            if !self.forward.is_empty() {
                return Some(self.forward[rng.below(self.forward.len())]);
            }
        }
        Some(self.moves[rng.below(self.moves.len())])
    }
}

/// What one playout of [`rollouts`] ended with.
#[derive(Clone, Debug, PartialEq)]
pub struct Rollout {
    /// Plies played.
    pub plies: u32,
    /// Each player's result ([`Position::results`]): 0 for everyone when
    /// the playout stopped at its ply budget before the game ended.
    pub results: Vec<f64>,
}

/// The seed of the playout from `positions[index]` in [`rollouts`]: the
/// same whatever the number of threads.
#[must_use]
pub fn rollout_seed(seed: u64, index: usize) -> u64 {
    Rng::new(seed ^ (index as u64).wrapping_mul(0xA076_1D64_78BD_642F)).next_u64()
}

/// One playout from each position, on `threads` threads (at least one):
/// the playout from `positions[i]` draws from [`rollout_seed`]`(seed, i)`,
/// so the answer does not depend on the threads.
#[must_use]
pub fn rollouts(
    positions: &[Position],
    policy: Policy,
    seed: u64,
    max_plies: u32,
    threads: usize,
) -> Vec<Rollout> {
    let run = |first: usize, chunk: &[Position]| -> Vec<Rollout> {
        let mut playout: Option<Playout> = None;
        chunk
            .iter()
            .enumerate()
            .map(|(i, start)| {
                let playout = playout.get_or_insert_with(|| Playout::new(start, policy));
                let mut position = start.clone();
                let mut rng = Rng::new(rollout_seed(seed, first + i));
                let plies = playout.run(&mut position, &mut rng, max_plies);
                Rollout {
                    plies,
                    results: position.results(),
                }
            })
            .collect()
    };
    let threads = threads.clamp(1, positions.len().max(1));
    if threads == 1 {
        return run(0, positions);
    }
    let size = positions.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = positions
            .chunks(size)
            .enumerate()
            .map(|(k, chunk)| scope.spawn(move || run(k * size, chunk)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a playout thread panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Layout, Rules};

    fn start(players: usize) -> Position {
        Position::start(
            Board::STANDARD,
            Layout::standard(players).unwrap(),
            Rules::classic(),
        )
        .unwrap()
    }

    #[test]
    fn policies_parse_by_name() {
        for policy in Policy::ALL {
            assert_eq!(policy.name().parse::<Policy>(), Ok(policy));
        }
        let err = "greedy".parse::<Policy>().unwrap_err();
        assert!(
            err.to_string().contains("\"uniform\" and \"forward\""),
            "{err}"
        );
    }

    #[test]
    fn forward_playouts_finish_and_uniform_ones_wander() {
        let start = start(2);
        let mut finished = 0;
        for seed in 0..20 {
            let mut position = start.clone();
            let plies = Playout::new(&start, Policy::Forward).run(
                &mut position,
                &mut Rng::new(seed),
                3_000,
            );
            if position.is_game_over() {
                finished += 1;
                assert!(plies < 3_000);
            }
        }
        assert!(finished >= 15, "{finished} of 20 forward playouts finished");
        let mut position = start.clone();
        let plies = Playout::new(&start, Policy::Uniform).run(&mut position, &mut Rng::new(1), 500);
        assert_eq!((plies, position.is_game_over()), (500, false));
    }

    #[test]
    fn every_playout_move_is_legal_and_the_seed_fixes_the_game() {
        let start = start(3);
        for policy in Policy::ALL {
            let mut playout = Playout::new(&start, policy);
            let mut position = start.clone();
            let mut rng = Rng::new(9);
            let mut replay = Vec::new();
            while let Some(mv) = playout.choose(&position, &mut rng) {
                assert!(position.is_legal(mv));
                replay.push(mv);
                position.make_move(mv);
                if replay.len() == 300 {
                    break;
                }
            }
            let mut again = start.clone();
            Playout::new(&start, policy).run(&mut again, &mut Rng::new(9), 300);
            assert_eq!(again, position, "{policy}");
        }
    }

    #[test]
    fn rollouts_do_not_depend_on_the_threads() {
        let positions: Vec<Position> = (2..=4).flat_map(|n| vec![start(n); 5]).collect();
        let one = rollouts(&positions, Policy::Forward, 5, 400, 1);
        let three = rollouts(&positions, Policy::Forward, 5, 400, 3);
        assert_eq!(one, three);
        assert_eq!(one.len(), 15);
        for (rollout, position) in one.iter().zip(&positions) {
            let mut replay = position.clone();
            let plies = Playout::new(position, Policy::Forward).run(
                &mut replay,
                &mut Rng::new(rollout_seed(
                    5,
                    one.iter().position(|r| std::ptr::eq(r, rollout)).unwrap(),
                )),
                400,
            );
            assert_eq!(plies, rollout.plies);
            assert_eq!(replay.results(), rollout.results);
        }
    }
}
