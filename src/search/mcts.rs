//! Monte Carlo tree search: UCT with greedy-biased, cut-off playouts.
//!
//! Each iteration walks down the tree by UCT (Kocsis and Szepesvári 2006),
//! trying unvisited children first, expands the leaf it reaches (all its
//! moves at once, best forward gain first), plays a playout from there and
//! adds its result to every node on the way. A node keeps the results of
//! the player who made its move, so the search works for any number of
//! players (each player picks what is best for itself, as in max^n).
//!
//! Uniformly random playouts are useless in Chinese Checkers: random play
//! wanders and essentially never finishes (see `BENCHMARKS.md`). The playout
//! policy here plays, with probability 0.85, a move of the largest forward
//! gain towards the mover's target apex (ties at random), and otherwise a
//! uniformly random move; and it stops after [`PLAYOUT_ROUNDS`] rounds and
//! scores the position with the static evaluation: `tanh(e / 20)` for each
//! player, where `e` is [`Evaluator::evaluate`] from that player's view. A
//! game that ends in the playout scores its [results](crate::Outcome::results).

use std::time::Instant;

use super::bot::{Bot, BotConfig, Limits, SearchResult, forced, squash};
use super::eval::Evaluator;
use super::rng::Rng;
use crate::{MAX_SETS, Move, Position};

/// Rounds (plies times players) a playout plays before it is evaluated.
pub const PLAYOUT_ROUNDS: u32 = 5;

/// The exploration constant of UCT, for results on `[-1, 1]`.
pub const EXPLORATION: f64 = 1.0;

/// The probability that a playout move is uniformly random rather than
/// greedy.
pub const PLAYOUT_RANDOMNESS: f64 = 0.15;

/// The tree stops growing at this many nodes (about 64 MB); the search
/// goes on with playouts from its leaves.
const MAX_TREE_NODES: usize = 2_000_000;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The move that leads here from the parent.
    mv: Move,
    /// The player who made `mv`.
    mover: u8,
    first_child: u32,
    children: u32,
    visits: u32,
    /// Sum of the results of `mover` over the playouts through this node.
    total: f64,
}

/// The MCTS bot.
#[derive(Clone, Debug)]
pub struct MctsBot {
    config: BotConfig,
    rng: Rng,
}

impl MctsBot {
    /// A bot with `config`'s budget (playouts and/or time) and seed.
    #[must_use]
    pub fn new(config: BotConfig) -> MctsBot {
        MctsBot {
            config,
            rng: Rng::new(config.seed),
        }
    }
}

impl Bot for MctsBot {
    fn search(&mut self, position: &Position) -> SearchResult {
        let started = Instant::now();
        if let Some(result) = forced(position, started) {
            return result;
        }
        let mut tree = Tree {
            nodes: vec![Node {
                mv: Move::Pass,
                mover: u8::MAX,
                first_child: NONE,
                children: 0,
                visits: 0,
                total: 0.0,
            }],
            evaluator: Evaluator::new(position),
            rng: Rng::new(self.rng.next_u64()),
            moves: Vec::new(),
            deepest: 0,
        };
        let mut limits = Limits::new(&self.config.effective_budget());
        // At least one playout, so there is a move to answer.
        let mut playouts = 0;
        loop {
            tree.iterate(position);
            playouts += 1;
            if limits.out_of_budget(playouts) {
                break;
            }
        }
        tree.answer(playouts, limits.elapsed())
    }

    fn config(&self) -> BotConfig {
        self.config
    }
}

struct Tree {
    nodes: Vec<Node>,
    evaluator: Evaluator,
    rng: Rng,
    moves: Vec<Move>,
    deepest: u32,
}

impl Tree {
    fn iterate(&mut self, root: &Position) {
        let mut position = root.clone();
        let mut path = vec![0u32];
        let mut node = 0usize;
        // Selection.
        while self.nodes[node].children > 0 {
            node = self.select(node);
            position.make_move(self.nodes[node].mv);
            path.push(node as u32);
        }
        // Expansion: the root at once, any other leaf on its second visit.
        if (node == 0 || self.nodes[node].visits > 0) && self.nodes.len() < MAX_TREE_NODES {
            self.expand(node, &position);
            if self.nodes[node].children > 0 {
                node = self.nodes[node].first_child as usize;
                position.make_move(self.nodes[node].mv);
                path.push(node as u32);
            }
        }
        self.deepest = self.deepest.max(path.len() as u32 - 1);
        let results = self.playout(&mut position);
        for &index in &path {
            let node = &mut self.nodes[index as usize];
            node.visits += 1;
            if node.mover != u8::MAX {
                node.total += results[usize::from(node.mover)];
            }
        }
    }

    fn select(&self, parent: usize) -> usize {
        let node = &self.nodes[parent];
        let first = node.first_child as usize;
        let log_parent = f64::from(node.visits.max(1)).ln();
        let mut best = first;
        let mut best_value = f64::NEG_INFINITY;
        for child in first..first + node.children as usize {
            let c = &self.nodes[child];
            if c.visits == 0 {
                return child;
            }
            let visits = f64::from(c.visits);
            let value = c.total / visits + EXPLORATION * (log_parent / visits).sqrt();
            if value > best_value {
                best_value = value;
                best = child;
            }
        }
        best
    }

    fn expand(&mut self, node: usize, position: &Position) {
        position.legal_moves_into(&mut self.moves);
        if self.moves.is_empty() {
            return;
        }
        self.rng.shuffle(&mut self.moves);
        let evaluator = &self.evaluator;
        self.moves.sort_by_key(|&mv| -evaluator.gain(position, mv));
        let mover = position.side_to_move() as u8;
        self.nodes[node].first_child = self.nodes.len() as u32;
        self.nodes[node].children = self.moves.len() as u32;
        for &mv in &self.moves {
            self.nodes.push(Node {
                mv,
                mover,
                first_child: NONE,
                children: 0,
                visits: 0,
                total: 0.0,
            });
        }
    }

    /// Plays on from `position` and returns every player's result.
    fn playout(&mut self, position: &mut Position) -> [f64; MAX_SETS] {
        let players = position.layout().player_count();
        let mut results = [0.0; MAX_SETS];
        let plies = PLAYOUT_ROUNDS as usize * players;
        for _ in 0..plies {
            position.legal_moves_into(&mut self.moves);
            if self.moves.is_empty() {
                let outcome = position.outcome().results(players);
                results[..players].copy_from_slice(&outcome);
                return results;
            }
            let mv = if self.rng.next_f64() < PLAYOUT_RANDOMNESS {
                self.moves[self.rng.below(self.moves.len())]
            } else {
                self.greedy_move(position)
            };
            position.make_move(mv);
        }
        if position.is_game_over() {
            let outcome = position.outcome().results(players);
            results[..players].copy_from_slice(&outcome);
            return results;
        }
        for (player, result) in results.iter_mut().enumerate().take(players) {
            *result = squash(f64::from(self.evaluator.evaluate(position, player)));
        }
        results
    }

    /// A move of the largest forward gain among `self.moves`, ties at random.
    fn greedy_move(&mut self, position: &Position) -> Move {
        let mut best = self.moves[0];
        let mut best_gain = i32::MIN;
        let mut ties = 0;
        for &mv in &self.moves {
            let gain = self.evaluator.gain(position, mv);
            if gain > best_gain {
                best_gain = gain;
                best = mv;
                ties = 1;
            } else if gain == best_gain {
                // Reservoir sampling keeps each tied move with equal chance.
                ties += 1;
                if self.rng.below(ties) == 0 {
                    best = mv;
                }
            }
        }
        best
    }

    fn most_visited_child(&self, node: usize) -> Option<usize> {
        let n = &self.nodes[node];
        let first = n.first_child as usize;
        (first..first + n.children as usize)
            .filter(|&c| self.nodes[c].visits > 0)
            .max_by_key(|&c| (self.nodes[c].visits, std::cmp::Reverse(c)))
    }

    fn answer(&self, playouts: u64, elapsed: std::time::Duration) -> SearchResult {
        let best = self
            .most_visited_child(0)
            .unwrap_or(self.nodes[0].first_child as usize);
        let node = &self.nodes[best];
        let score = if node.visits == 0 {
            0.0
        } else {
            node.total / f64::from(node.visits)
        };
        let mut principal_variation = vec![node.mv];
        let mut at = best;
        while let Some(next) = self.most_visited_child(at) {
            principal_variation.push(self.nodes[next].mv);
            at = next;
        }
        SearchResult {
            best_move: node.mv,
            score,
            principal_variation,
            nodes: playouts,
            elapsed,
            depth: self.deepest,
        }
    }
}
