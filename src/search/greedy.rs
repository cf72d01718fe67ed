//! The greedy bot: the best move one ply ahead.

use std::time::Instant;

use super::bot::{Bot, BotConfig, SearchResult, squash};
use super::eval::Evaluator;
use super::rng::Rng;
use crate::Position;

/// Plays the move whose resulting position has the best
/// [static evaluation](Evaluator::evaluate) for the mover; a move that wins
/// outright comes first. Ties go to a move drawn from its seed.
#[derive(Clone, Debug)]
pub struct GreedyBot {
    config: BotConfig,
    rng: Rng,
}

impl GreedyBot {
    /// A greedy bot seeded from `config`.
    #[must_use]
    pub fn new(config: BotConfig) -> GreedyBot {
        GreedyBot {
            config,
            rng: Rng::new(config.seed),
        }
    }
}

impl Bot for GreedyBot {
    fn search(&mut self, position: &Position) -> SearchResult {
        let started = Instant::now();
        let mut moves = position.legal_moves();
        assert!(
            !moves.is_empty(),
            "a bot was asked to move in a finished game"
        );
        let mover = position.side_to_move();
        let evaluator = Evaluator::new(position);
        let mut scratch = position.clone();
        let mut best = Vec::new();
        let mut best_value = f64::NEG_INFINITY;
        for &mv in &moves {
            let undo = scratch.make_move(mv);
            let value = if scratch.is_finished(mover) {
                // Finishing beats any evaluation.
                f64::from(i32::MAX)
            } else {
                f64::from(evaluator.evaluate(&scratch, mover))
            };
            scratch.unmake_move(mv, undo);
            if value > best_value {
                best_value = value;
                best.clear();
            }
            if value == best_value {
                best.push(mv);
            }
        }
        let best_move = best[self.rng.below(best.len())];
        let score = if best_value == f64::from(i32::MAX) {
            1.0
        } else {
            squash(best_value)
        };
        let nodes = moves.len() as u64;
        moves.clear();
        SearchResult {
            best_move,
            score,
            principal_variation: vec![best_move],
            nodes,
            elapsed: started.elapsed(),
            depth: 1,
        }
    }

    fn config(&self) -> BotConfig {
        self.config
    }
}
