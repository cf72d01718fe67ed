//! Alpha-beta search with iterative deepening, a transposition table, move
//! ordering and a quiescence search over long forward hops.
//!
//! One engine serves both the two-player alpha-beta bot and the paranoid
//! multi-player bot: scores are always from the root player's view, the root
//! player maximises and every other player minimises (see
//! [`paranoid`] for why that is the multi-player choice).
//! With two players this is exactly minimax with alpha-beta pruning.
//!
//! - **Iterative deepening**: depth 1, 2, ... until the node, time or depth
//!   budget runs out; the move of the last completed iteration is played.
//! - **Transposition table** keyed on [`Position::zobrist_hash`]: the best
//!   move and a bounded score per position, reused across iterations.
//! - **Move ordering**: the table's move, then two killer moves per ply, then
//!   by forward gain towards the target's apex ([`Evaluator::gain`]).
//! - **Quiescence**: at the horizon the side to move may stand on the static
//!   evaluation or play on, but only with long forward hops (a gain of at
//!   least [`QUIESCENCE_GAIN`] steps), for up to [`QUIESCENCE_PLIES`] plies.
//!   A long hop chain often sets up the opponent's even longer one through
//!   the same pegs, which a fixed horizon would cut in the middle of.

use std::time::Instant;

use super::bot::{Bot, BotConfig, Limits, SearchResult, forced, squash};
use super::eval::Evaluator;
use super::paranoid;
use super::rng::Rng;
use crate::{Move, Position};

/// The score of a won game for the root player (before the adjustment that
/// prefers shorter wins); heuristic scores stay far below it.
pub const WIN: i32 = 1_000_000;

/// The least forward gain, in steps, of a move the quiescence search plays.
pub const QUIESCENCE_GAIN: i32 = 4;

/// The most plies the quiescence search adds at the horizon.
pub const QUIESCENCE_PLIES: u32 = 2;

/// The deepest iteration when the budget sets no depth.
const MAX_DEPTH: u32 = 64;

const TABLE_BITS: u32 = 17;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: i32,
    depth: i32,
    bound: Bound,
}

const EMPTY_ENTRY: Entry = Entry {
    key: 0,
    best: None,
    score: 0,
    depth: -1,
    bound: Bound::Exact,
};

/// The alpha-beta bot (and, on three or more players or as
/// [`BotKind::Paranoid`](super::BotKind::Paranoid), the paranoid bot).
#[derive(Clone, Debug)]
pub struct AlphaBetaBot {
    config: BotConfig,
    rng: Rng,
}

impl AlphaBetaBot {
    /// A bot with `config`'s budget and seed.
    #[must_use]
    pub fn new(config: BotConfig) -> AlphaBetaBot {
        AlphaBetaBot {
            config,
            rng: Rng::new(config.seed),
        }
    }
}

impl Bot for AlphaBetaBot {
    fn search(&mut self, position: &Position) -> SearchResult {
        let started = Instant::now();
        if let Some(result) = forced(position, started) {
            return result;
        }
        let tie_break = self.rng.next_u64();
        Searcher::new(position, &self.config, tie_break).run()
    }

    fn config(&self) -> BotConfig {
        self.config
    }
}

struct Searcher {
    position: Position,
    root: usize,
    evaluator: Evaluator,
    limits: Limits,
    max_depth: u32,
    nodes: u64,
    aborted: bool,
    table: Vec<Entry>,
    killers: Vec<[Option<Move>; 2]>,
    buffers: Vec<Vec<Move>>,
    tie_break: u64,
}

impl Searcher {
    fn new(position: &Position, config: &BotConfig, tie_break: u64) -> Searcher {
        let budget = config.effective_budget();
        Searcher {
            position: position.clone(),
            root: position.side_to_move(),
            evaluator: Evaluator::new(position),
            limits: Limits::new(&budget),
            max_depth: budget.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH),
            nodes: 0,
            aborted: false,
            table: vec![EMPTY_ENTRY; 1 << TABLE_BITS],
            killers: Vec::new(),
            buffers: Vec::new(),
            tie_break,
        }
    }

    fn run(mut self) -> SearchResult {
        let mut root_moves = self.position.legal_moves();
        // The seed breaks ties: equal moves keep the shuffled order.
        Rng::new(self.tie_break).shuffle(&mut root_moves);
        root_moves.sort_by_key(|&mv| -self.evaluator.gain(&self.position, mv));
        let mut best = (root_moves[0], i32::MIN + 1);
        let mut completed = 0;
        for depth in 1..=self.max_depth {
            let mut alpha = -WIN * 2;
            let mut iteration_best: Option<(Move, i32)> = None;
            let mut scores = Vec::with_capacity(root_moves.len());
            for &mv in &root_moves {
                if self.limits.out_of_budget(self.nodes) {
                    self.aborted = true;
                    break;
                }
                self.nodes += 1;
                let undo = self.position.make_move(mv);
                let score = self.alphabeta(depth as i32 - 1, 1, alpha, WIN * 2);
                self.position.unmake_move(mv, undo);
                if self.aborted {
                    break;
                }
                scores.push((mv, score));
                if iteration_best.is_none_or(|(_, s)| score > s) {
                    iteration_best = Some((mv, score));
                    alpha = alpha.max(score);
                }
            }
            if self.aborted {
                // A partial first iteration still beats no search at all.
                if completed == 0
                    && let Some(found) = iteration_best
                {
                    best = found;
                }
                break;
            }
            let found = iteration_best.expect("the root has moves");
            best = found;
            completed = depth;
            self.store(found.0, found.1, depth as i32, Bound::Exact);
            // Next iteration: best first, then by this iteration's scores.
            scores.sort_by_key(|&(mv, s)| (mv != found.0, -s));
            root_moves = scores.into_iter().map(|(mv, _)| mv).collect();
            if found.1.abs() >= WIN / 4 {
                break; // a proven result does not change with depth
            }
        }
        let (best_move, score) = best;
        let principal_variation = self.principal_variation(best_move, completed.max(1));
        SearchResult {
            best_move,
            score: to_unit(score),
            principal_variation,
            nodes: self.nodes,
            elapsed: self.limits.elapsed(),
            depth: completed,
        }
    }

    fn store(&mut self, best: Move, score: i32, depth: i32, bound: Bound) {
        let key = self.position.zobrist_hash();
        let slot = &mut self.table[(key as usize) & ((1 << TABLE_BITS) - 1)];
        if slot.key != key || depth >= slot.depth || bound == Bound::Exact {
            *slot = Entry {
                key,
                best: Some(best),
                score,
                depth,
                bound,
            };
        }
    }

    fn probe(&self) -> Option<Entry> {
        self.probe_key(self.position.zobrist_hash())
    }

    fn probe_key(&self, key: u64) -> Option<Entry> {
        let slot = self.table[(key as usize) & ((1 << TABLE_BITS) - 1)];
        (slot.key == key && slot.depth >= 0).then_some(slot)
    }

    /// `first`, then the table's best moves from there.
    fn principal_variation(&self, first: Move, length: u32) -> Vec<Move> {
        let mut line = vec![first];
        let mut position = self.position.clone();
        position.make_move(first);
        let mut moves = Vec::new();
        while line.len() < length as usize {
            let next = self
                .probe_key(position.zobrist_hash())
                .and_then(|entry| entry.best);
            let Some(next) = next else { break };
            position.legal_moves_into(&mut moves);
            if !moves.contains(&next) {
                break;
            }
            line.push(next);
            position.make_move(next);
        }
        line
    }

    fn buffer(&mut self, ply: usize) -> Vec<Move> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
            self.killers.resize(ply + 1, [None; 2]);
        }
        std::mem::take(&mut self.buffers[ply])
    }

    fn alphabeta(&mut self, depth: i32, ply: usize, mut alpha: i32, mut beta: i32) -> i32 {
        if let Some(score) = paranoid::finished_score(&self.position, self.root, ply) {
            return score;
        }
        if depth <= 0 {
            return self.quiesce(ply, alpha, beta, QUIESCENCE_PLIES);
        }
        let mut table_move = None;
        if let Some(entry) = self.probe() {
            table_move = entry.best;
            if entry.depth >= depth {
                match entry.bound {
                    Bound::Exact => return entry.score,
                    Bound::Lower if entry.score >= beta => return entry.score,
                    Bound::Upper if entry.score <= alpha => return entry.score,
                    _ => {}
                }
            }
        }
        let mut moves = self.buffer(ply);
        self.position.legal_moves_into(&mut moves);
        if moves.is_empty() {
            self.buffers[ply] = moves;
            return paranoid::stuck_score(&self.position, self.root, ply);
        }
        let killers = self.killers[ply];
        let evaluator = &self.evaluator;
        let position = &self.position;
        moves.sort_by_cached_key(|&mv| {
            let rank = if Some(mv) == table_move {
                0
            } else if Some(mv) == killers[0] || Some(mv) == killers[1] {
                1
            } else {
                2
            };
            (rank, -evaluator.gain(position, mv))
        });
        let maximising = self.position.side_to_move() == self.root;
        let (alpha0, beta0) = (alpha, beta);
        let mut best_score = if maximising { i32::MIN } else { i32::MAX };
        let mut best_move = moves[0];
        for &mv in &moves {
            if self.limits.out_of_budget(self.nodes) {
                self.aborted = true;
                break;
            }
            self.nodes += 1;
            let undo = self.position.make_move(mv);
            let score = self.alphabeta(depth - 1, ply + 1, alpha, beta);
            self.position.unmake_move(mv, undo);
            if self.aborted {
                break;
            }
            let better = if maximising {
                score > best_score
            } else {
                score < best_score
            };
            if better {
                best_score = score;
                best_move = mv;
            }
            if maximising {
                alpha = alpha.max(score);
            } else {
                beta = beta.min(score);
            }
            if alpha >= beta {
                let slot = &mut self.killers[ply];
                if slot[0] != Some(mv) {
                    slot[1] = slot[0];
                    slot[0] = Some(mv);
                }
                break;
            }
        }
        self.buffers[ply] = moves;
        if self.aborted {
            return 0;
        }
        let bound = if best_score <= alpha0 {
            Bound::Upper
        } else if best_score >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.store(best_move, best_score, depth, bound);
        best_score
    }

    fn quiesce(&mut self, ply: usize, mut alpha: i32, mut beta: i32, plies_left: u32) -> i32 {
        let standing = self.evaluator.evaluate(&self.position, self.root);
        if plies_left == 0 {
            return standing;
        }
        let maximising = self.position.side_to_move() == self.root;
        if maximising {
            if standing >= beta {
                return standing;
            }
            alpha = alpha.max(standing);
        } else {
            if standing <= alpha {
                return standing;
            }
            beta = beta.min(standing);
        }
        let mut moves = self.buffer(ply);
        self.position.legal_moves_into(&mut moves);
        let evaluator = &self.evaluator;
        let position = &self.position;
        let mut hops: Vec<(i32, Move)> = moves
            .iter()
            .map(|&mv| (evaluator.gain(position, mv), mv))
            .filter(|&(gain, _)| gain >= QUIESCENCE_GAIN)
            .collect();
        self.buffers[ply] = moves;
        hops.sort_by_key(|&(gain, _)| -gain);
        let mut best = standing;
        for (_, mv) in hops {
            if self.limits.out_of_budget(self.nodes) {
                self.aborted = true;
                return 0;
            }
            self.nodes += 1;
            let undo = self.position.make_move(mv);
            let score = match paranoid::finished_score(&self.position, self.root, ply + 1) {
                Some(score) => score,
                None => self.quiesce(ply + 1, alpha, beta, plies_left - 1),
            };
            self.position.unmake_move(mv, undo);
            if self.aborted {
                return 0;
            }
            if maximising {
                best = best.max(score);
                alpha = alpha.max(score);
            } else {
                best = best.min(score);
                beta = beta.min(score);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// A root-view score on `[-1, 1]`: proven results as the result itself,
/// heuristic leads squashed.
fn to_unit(score: i32) -> f64 {
    if score.abs() >= WIN / 4 {
        (f64::from(score) / f64::from(WIN)).clamp(-1.0, 1.0)
    } else {
        squash(f64::from(score))
    }
}
