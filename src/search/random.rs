//! The random bot: a uniformly random legal move.

use std::time::Instant;

use super::bot::{Bot, BotConfig, SearchResult, squash};
use super::eval::Evaluator;
use super::rng::Rng;
use crate::Position;

/// Plays a uniformly random legal move, drawn from its seed.
#[derive(Clone, Debug)]
pub struct RandomBot {
    config: BotConfig,
    rng: Rng,
}

impl RandomBot {
    /// A random bot seeded from `config`.
    #[must_use]
    pub fn new(config: BotConfig) -> RandomBot {
        RandomBot {
            config,
            rng: Rng::new(config.seed),
        }
    }
}

impl Bot for RandomBot {
    fn search(&mut self, position: &Position) -> SearchResult {
        let started = Instant::now();
        let moves = position.legal_moves();
        assert!(
            !moves.is_empty(),
            "a bot was asked to move in a finished game"
        );
        let best_move = moves[self.rng.below(moves.len())];
        let mover = position.side_to_move();
        let mut next = position.clone();
        next.make_move(best_move);
        let score = squash(f64::from(Evaluator::new(position).evaluate(&next, mover)));
        SearchResult {
            best_move,
            score,
            principal_variation: vec![best_move],
            nodes: 1,
            elapsed: started.elapsed(),
            depth: 0,
        }
    }

    fn config(&self) -> BotConfig {
        self.config
    }
}
