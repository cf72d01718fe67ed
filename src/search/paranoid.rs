//! The multi-player choice: the paranoid search.
//!
//! With three to six players a search must decide what the opponents want.
//! Two classical answers:
//!
//! - **max^n** (Luckhardt and Irani 1986): every player maximises its own
//!   component of a vector of scores. Faithful, but only shallow pruning
//!   applies, so with a node budget it sees little further than one round.
//! - **paranoid** (Sturtevant and Korf 2000): the opponents are assumed to
//!   form a coalition that minimises the searching player's score. The game
//!   becomes two-sided and full alpha-beta pruning applies: at best about
//!   b^(d(n-1)/n) nodes for depth d with n players, against about b^d for
//!   max^n, so the same budget looks 1.5 times as deep with three players.
//!
//! This crate uses **paranoid**. Chinese Checkers is above all a race, in
//! which the opponents mostly hinder the bot by racing past it; a deeper
//! look at one's own hop chains is worth more than a faithful model of each
//! rival, and the pessimism costs little because blocking the bot is rarely
//! worth a rival's tempo. It also shares its engine, transposition table
//! and quiescence with the two-player alpha-beta bot
//! ([`alphabeta`](super::alphabeta)), which is paranoid search with one
//! opponent. The score at the horizon is [`Evaluator::evaluate`](super::eval::Evaluator::evaluate) from
//! the root player's view: the nearest rival's distance to target minus the
//! root player's own. A finished game scores the root player's
//! [result](crate::Outcome::results) times [`WIN`].
//!
//! `alphabeta` asked to move on a position with three or more players runs
//! this search rather than failing; `paranoid` on two players is the same as
//! `alphabeta`.

use super::alphabeta::WIN;
use crate::Position;

/// The root-view score of a game that has ended by a finish or by the move
/// limit, or `None` if it has not. Shorter wins and longer losses score
/// better, by one point per ply from the root.
pub(crate) fn finished_score(position: &Position, root: usize, ply: usize) -> Option<i32> {
    let players = position.layout().player_count();
    let anyone_finished = (0..players).any(|p| position.is_finished(p));
    if !anyone_finished && position.ply() < position.rules().ply_limit() {
        return None;
    }
    let outcome = position.outcome();
    outcome
        .is_over()
        .then(|| result_score(outcome.results(players)[root], ply))
}

/// The root-view score of a position where nobody has a move (the game is
/// over without a finish or limit the cheap check sees).
pub(crate) fn stuck_score(position: &Position, root: usize, ply: usize) -> i32 {
    let players = position.layout().player_count();
    result_score(position.outcome().results(players)[root], ply)
}

fn result_score(result: f64, ply: usize) -> i32 {
    let ply = ply as i32;
    let score = (result * f64::from(WIN)) as i32;
    if score > 0 {
        score - ply
    } else if score < 0 {
        score + ply
    } else {
        0
    }
}
