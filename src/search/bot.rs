//! What every bot shares: its kind, its budget, its configuration, the
//! [`Bot`] trait and what a search answers.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::solve::Tablebases;
use crate::{Move, Position};

/// The bots, simplest first; on the wire by their names (`alphabeta`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum BotKind {
    /// A uniformly random legal move.
    Random,
    /// The move with the best one-ply [static evaluation](super::eval::evaluate).
    Greedy,
    /// Alpha-beta for two players (iterative deepening, transposition table,
    /// move ordering, a quiescence search over long forward hops). On a
    /// position with three or more players it runs the paranoid search.
    AlphaBeta,
    /// The paranoid search for any number of players: every opponent is
    /// assumed to play against the bot, which allows alpha-beta pruning.
    Paranoid,
    /// Monte Carlo tree search (UCT) with greedy-biased, cut-off playouts.
    Mcts,
    /// Perfect play from a solved table (RULES §7): the fastest win, a
    /// drawing move when drawn, the longest loss. Only on a board whose
    /// table is in the [`Tablebases`] it is made with ([`new_bot`]).
    Perfect,
}

impl BotKind {
    /// Every kind, simplest first.
    pub const ALL: [BotKind; 6] = [
        BotKind::Random,
        BotKind::Greedy,
        BotKind::AlphaBeta,
        BotKind::Paranoid,
        BotKind::Mcts,
        BotKind::Perfect,
    ];

    /// The name that parses back: `random`, `greedy`, `alphabeta`,
    /// `paranoid`, `mcts`, `perfect`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Greedy => "greedy",
            BotKind::AlphaBeta => "alphabeta",
            BotKind::Paranoid => "paranoid",
            BotKind::Mcts => "mcts",
            BotKind::Perfect => "perfect",
        }
    }

    /// One sentence on what the bot does.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            BotKind::Random => "a uniformly random legal move",
            BotKind::Greedy => {
                "the move with the best one-ply evaluation (distance to target, own against the nearest rival)"
            }
            BotKind::AlphaBeta => {
                "two-player alpha-beta: iterative deepening, transposition table, move ordering, quiescence over long forward hops; runs the paranoid search on 3+ players"
            }
            BotKind::Paranoid => {
                "multi-player paranoid search: the opponents play as one coalition against the bot, so alpha-beta pruning applies"
            }
            BotKind::Mcts => {
                "Monte Carlo tree search (UCT) with greedy-biased playouts cut off and evaluated after a few rounds"
            }
            BotKind::Perfect => {
                "perfect play from a solved table (the sturtevant game on a small rhombus): the fastest win, a draw when drawn, the longest loss"
            }
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A bot name that is not one of [`BotKind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBotKind(pub String);

impl fmt::Display for UnknownBotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown bot {:?}: expected random, greedy, alphabeta, paranoid, mcts or perfect",
            self.0
        )
    }
}

impl std::error::Error for UnknownBotKind {}

impl UnknownBotKind {
    /// The stable code every surface reports.
    pub const CODE: &'static str = "unknown_bot";
}

/// A budget over a cap some caller sets (a server's, a seat's): `what =
/// value` is over `max`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetTooLarge {
    /// What is over: `nodes`, `"a seat's depth"`, ...
    pub what: String,
    /// The value asked for.
    pub value: u64,
    /// The cap.
    pub max: u64,
}

impl BudgetTooLarge {
    /// The stable code every surface reports.
    pub const CODE: &'static str = "budget_too_large";
}

impl fmt::Display for BudgetTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {} is over the limit of {}",
            self.what, self.value, self.max
        )
    }
}

impl std::error::Error for BudgetTooLarge {}

impl FromStr for BotKind {
    type Err = UnknownBotKind;

    fn from_str(s: &str) -> Result<BotKind, UnknownBotKind> {
        BotKind::ALL
            .into_iter()
            .find(|kind| kind.name() == s)
            .ok_or_else(|| UnknownBotKind(s.to_owned()))
    }
}

/// How much a bot may search. Any limit left `None` does not apply; a
/// budget with none at all means the kind's default ([`Budget::default_for`]).
///
/// - `nodes`: for alpha-beta and paranoid, the positions visited (moves
///   made); for MCTS, the playouts. Ignored by random, greedy and perfect.
/// - `millis`: wall-clock time. A search stopped by the clock is not
///   reproducible; one stopped by `nodes` or `depth` is, under the same seed.
/// - `depth`: the deepest iteration of alpha-beta and paranoid, in plies.
///   Ignored by the others.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Node (or playout) limit.
    pub nodes: Option<u64>,
    /// Time limit in milliseconds.
    pub millis: Option<u64>,
    /// Depth limit in plies.
    pub depth: Option<u32>,
}

impl Budget {
    /// No limit at all.
    pub const UNLIMITED: Budget = Budget {
        nodes: None,
        millis: None,
        depth: None,
    };

    /// A node (or playout) budget alone.
    #[must_use]
    pub fn nodes(nodes: u64) -> Budget {
        Budget {
            nodes: Some(nodes),
            ..Budget::UNLIMITED
        }
    }

    /// A time budget alone.
    #[must_use]
    pub fn millis(millis: u64) -> Budget {
        Budget {
            millis: Some(millis),
            ..Budget::UNLIMITED
        }
    }

    /// A depth budget alone.
    #[must_use]
    pub fn depth(depth: u32) -> Budget {
        Budget {
            depth: Some(depth),
            ..Budget::UNLIMITED
        }
    }

    /// Whether no limit is set.
    #[must_use]
    pub fn is_unlimited(&self) -> bool {
        *self == Budget::UNLIMITED
    }

    /// The default budget of a kind: 20 000 nodes for alpha-beta and
    /// paranoid, 1 000 playouts for MCTS, nothing for random and greedy
    /// (they do not search).
    ///
    /// ```
    /// use sternhalma::search::{BotKind, Budget};
    /// assert_eq!(Budget::default_for(BotKind::Mcts), Budget::nodes(1_000));
    /// ```
    #[must_use]
    pub fn default_for(kind: BotKind) -> Budget {
        match kind {
            BotKind::Random | BotKind::Greedy | BotKind::Perfect => Budget::UNLIMITED,
            BotKind::AlphaBeta | BotKind::Paranoid => Budget::nodes(20_000),
            BotKind::Mcts => Budget::nodes(1_000),
        }
    }
}

/// Everything that makes a bot: its kind, budget and seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BotConfig {
    /// Which bot.
    pub kind: BotKind,
    /// How much it may search.
    pub budget: Budget,
    /// The seed of its random choices (ties, playouts).
    pub seed: u64,
}

impl BotConfig {
    /// Whether the bot's move depends only on the position, the seed and
    /// the budget: false for a searching kind with a time budget (`millis`),
    /// whose search stops wherever the clock finds it. Random and greedy
    /// never read the clock, nor does perfect.
    ///
    /// ```
    /// use sternhalma::search::{BotConfig, BotKind, Budget};
    /// let mut config = BotConfig::new(BotKind::AlphaBeta);
    /// assert!(config.is_reproducible());
    /// config.budget = Budget { millis: Some(100), ..Budget::UNLIMITED };
    /// assert!(!config.is_reproducible());
    /// config.kind = BotKind::Greedy;
    /// assert!(config.is_reproducible());
    /// ```
    #[must_use]
    pub fn is_reproducible(&self) -> bool {
        matches!(
            self.kind,
            BotKind::Random | BotKind::Greedy | BotKind::Perfect
        ) || self.budget.millis.is_none()
    }

    /// A bot of `kind` with its default budget and seed 0.
    #[must_use]
    pub fn new(kind: BotKind) -> BotConfig {
        BotConfig {
            kind,
            budget: Budget::default_for(kind),
            seed: 0,
        }
    }

    /// The same bot with another budget.
    #[must_use]
    pub fn with_budget(self, budget: Budget) -> BotConfig {
        BotConfig { budget, ..self }
    }

    /// The same bot with another seed.
    #[must_use]
    pub fn with_seed(self, seed: u64) -> BotConfig {
        BotConfig { seed, ..self }
    }

    /// The budget the bot runs with: its own, or its kind's default if it
    /// sets no limit.
    #[must_use]
    pub fn effective_budget(&self) -> Budget {
        if self.budget.is_unlimited() {
            Budget::default_for(self.kind)
        } else {
            self.budget
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play.
    pub best_move: Move,
    /// How good the position is after `best_move`, from the mover's view, on
    /// `[-1, 1]`: `+1` a win the search proved, `-1` a proven loss. Alpha-beta,
    /// paranoid, greedy and random map an evaluation lead of `d` steps (see
    /// [`eval`](super::eval)) to `tanh(d / 20)`; MCTS gives the mean result
    /// of its playouts through the move; perfect, the table's value (`+1`,
    /// `0`, `-1`).
    pub score: f64,
    /// The expected line of play, starting with `best_move`.
    pub principal_variation: Vec<Move>,
    /// Positions visited (alpha-beta, paranoid, greedy, random: moves made;
    /// MCTS: playouts; perfect: positions probed).
    pub nodes: u64,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// The depth reached: the last completed iteration (alpha-beta,
    /// paranoid), the deepest tree node (MCTS), 1 (greedy), 0 (random), or
    /// for perfect the plies to the end under best play (0 for a draw).
    pub depth: u32,
}

/// A player: give it a position, it answers a move. Deterministic under the
/// same seed and a node or depth budget.
///
/// A position whose only legal move is a pass gets the pass.
pub trait Bot: Send {
    /// Searches `position` for the side to move.
    ///
    /// # Panics
    /// If the game is over (no legal move, not even a pass).
    fn search(&mut self, position: &Position) -> SearchResult;

    /// The move [`Bot::search`] would play.
    ///
    /// # Panics
    /// If the game is over.
    fn step(&mut self, position: &Position) -> Move {
        self.search(position).best_move
    }

    /// The configuration the bot was made from.
    fn config(&self) -> BotConfig;
}

/// A bot of the configured kind. A `perfect` bot plays from `tables`
/// ([`PerfectBot`](super::perfect::PerfectBot)), from none when `None`;
/// the other kinds read no table. Where no table covers a position, a
/// perfect bot's [`Bot::search`] plays as the greedy bot: a surface that
/// offers it asks [`PerfectBot::covers`](super::perfect::PerfectBot::covers)
/// with the same tables first, or plays through
/// [`PerfectBot::choose`](super::perfect::PerfectBot::choose), which says
/// why it cannot move.
///
/// ```
/// use sternhalma::{Board, Layout, Position, Rules};
/// use sternhalma::search::{new_bot, BotConfig, BotKind, Budget};
///
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// let config = BotConfig::new(BotKind::AlphaBeta).with_budget(Budget::nodes(5_000)).with_seed(1);
/// let result = new_bot(&config, None).search(&start);
/// assert!(start.is_legal(result.best_move));
/// assert_eq!(result.principal_variation[0], result.best_move);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn new_bot(config: &BotConfig, tables: Option<&Arc<Tablebases>>) -> Box<dyn Bot> {
    match config.kind {
        BotKind::Random => Box::new(super::random::RandomBot::new(*config)),
        BotKind::Greedy => Box::new(super::greedy::GreedyBot::new(*config)),
        BotKind::AlphaBeta | BotKind::Paranoid => {
            Box::new(super::alphabeta::AlphaBetaBot::new(*config))
        }
        BotKind::Mcts => Box::new(super::mcts::MctsBot::new(*config)),
        BotKind::Perfect => Box::new(super::perfect::PerfectBot::new(
            *config,
            tables.map_or_else(Arc::default, Arc::clone),
        )),
    }
}

/// Maps an evaluation lead in steps to a score on `(-1, 1)`.
pub(crate) fn squash(steps: f64) -> f64 {
    (steps / 20.0).tanh()
}

/// The node and time limits of one search.
pub(crate) struct Limits {
    started: Instant,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
}

impl Limits {
    pub(crate) fn new(budget: &Budget) -> Limits {
        let started = Instant::now();
        Limits {
            started,
            nodes: budget.nodes.unwrap_or(u64::MAX),
            deadline: budget.millis.map(|ms| started + Duration::from_millis(ms)),
            stopped: false,
        }
    }

    /// Whether the search must stop, having used `used` nodes. The clock is
    /// read every 256 nodes only.
    pub(crate) fn out_of_budget(&mut self, used: u64) -> bool {
        if self.stopped {
            return true;
        }
        if used >= self.nodes {
            self.stopped = true;
        } else if let Some(deadline) = self.deadline
            && used % 256 == 0
            && Instant::now() >= deadline
        {
            self.stopped = true;
        }
        self.stopped
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// The answer for a position with one legal move, which needs no search;
/// `None` when there is a choice.
pub(crate) fn forced(position: &Position, started: Instant) -> Option<SearchResult> {
    let moves = position.legal_moves();
    assert!(
        !moves.is_empty(),
        "a bot was asked to move in a finished game"
    );
    (moves.len() == 1).then(|| SearchResult {
        best_move: moves[0],
        score: 0.0,
        principal_variation: vec![moves[0]],
        nodes: 0,
        elapsed: started.elapsed(),
        depth: 0,
    })
}
