//! Bots: search built on the public rules API alone.
//!
//! Five bots, simplest first ([`BotKind`]): `random`, `greedy` (best one-ply
//! evaluation), `alphabeta` (two players), `paranoid` (three to six players)
//! and `mcts` (UCT). Each has a [`Budget`] (nodes, milliseconds, depth) and
//! a seed, and replays exactly under the same seed and a node or depth
//! budget. The evaluation helpers they use are public in [`eval`], for
//! anyone building their own; [`arena`] plays matches between bots.
//! `docs/bots.md` describes the algorithms and gives the measured strength
//! table.
//!
//! ```
//! use sternhalma::{Board, Layout, Position, Rules};
//! use sternhalma::search::{new_bot, BotConfig, BotKind, Budget};
//!
//! let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
//! let mut bot = new_bot(&BotConfig::new(BotKind::Mcts).with_budget(Budget::nodes(200)).with_seed(7), None);
//! let mv = bot.step(&start);
//! assert!(start.is_legal(mv));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod alphabeta;
pub mod arena;
mod bot;
pub mod eval;
pub mod greedy;
pub mod mcts;
pub mod paranoid;
pub mod perfect;
pub mod playout;
pub mod random;
mod rng;

pub use arena::ArenaResult;
pub use bot::{
    Bot, BotConfig, BotKind, Budget, BudgetTooLarge, SearchResult, UnknownBotKind, new_bot,
};
pub use eval::{Evaluator, distance_to_target, evaluate, pegs_home, progress};
pub use playout::{Playout, Policy, Rollout, UnknownPolicy, rollout_seed, rollouts};
pub use rng::Rng;
