//! The bots and the evaluation helpers of `sternhalma::search`, for Python.

use std::sync::Mutex;

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use sternhalma::search::perfect::PerfectBot;
use sternhalma::search::{self, BotConfig, BotKind, Budget};
use sternhalma::{IllegalMove, Position};

use crate::args;
use crate::errors;
use crate::moves::PyMove;
use crate::position::PyPosition;

/// A bot: give it a position, it answers a move (open_spiel's ``Bot``
/// shape). Kinds: ``BOT_KINDS``. The budget is ``nodes`` (positions for
/// alpha-beta and paranoid, playouts for MCTS), ``millis`` and ``depth``;
/// none of them means the kind's default. Under the same seed and a node or
/// depth budget a bot plays the same moves. The GIL is released while it
/// searches.
///
/// ``"perfect"`` plays the sturtevant game on a small rhombus from a
/// solved table with depths (the fastest win, a draw when drawn, the
/// longest loss): load one first with ``Tablebase.load("rhombus7p2")``.
/// On a position no loaded table covers it raises ``TablebaseError``
/// instead of guessing.
///
/// >>> bot = Bot("alphabeta", nodes=5000, seed=1)
/// >>> bot
/// Bot('alphabeta', nodes=5000, seed=1)
/// >>> position = Position()
/// >>> move = bot.step(position)
/// >>> move in position.legal_moves
/// True
/// >>> result = Bot("greedy").search(position)
/// >>> result.move.kind, result.depth
/// (<MoveKind.HOP: 'hop'>, 1)
/// >>> Bot("minimax")
/// Traceback (most recent call last):
///   ...
/// sternhalma.UnknownBotError: unknown bot "minimax": expected random, greedy, alphabeta, paranoid, mcts or perfect
#[pyclass(module = "sternhalma._core", name = "Bot", frozen)]
pub struct PyBot {
    config: BotConfig,
    budget: Budget,
    bot: Mutex<Box<dyn search::Bot>>,
}

#[pymethods]
impl PyBot {
    #[new]
    #[pyo3(signature = (kind, *, nodes = None, millis = None, depth = None, seed = 0))]
    fn new(
        kind: &str,
        nodes: Option<i128>,
        millis: Option<i128>,
        depth: Option<i128>,
        seed: i128,
    ) -> PyResult<Self> {
        // Budgets are whole numbers: a negative one is a ValueError naming
        // it, not an OverflowError.
        let nodes = nodes
            .map(|n| args::whole("nodes", n, u128::from(u64::MAX)))
            .transpose()?;
        let millis = millis
            .map(|n| args::whole("millis", n, u128::from(u64::MAX)))
            .transpose()?;
        let depth = depth
            .map(|n| args::whole("depth", n, u128::from(u32::MAX)))
            .transpose()?;
        let seed: u64 = args::whole("seed", seed, u128::from(u64::MAX))?;
        let kind: BotKind = kind
            .parse()
            .map_err(|e: search::UnknownBotKind| errors::unknown_bot(&e))?;
        let budget = Budget {
            nodes,
            millis,
            depth,
        };
        let config = BotConfig { kind, budget, seed };
        Ok(PyBot {
            config,
            budget,
            // A perfect bot plays from the module's tables, those loaded
            // after it was made too.
            bot: Mutex::new(search::new_bot(&config, Some(crate::tablebase::tables()))),
        })
    }

    /// The bot's kind, a ``BotKind``: ``random``, ``greedy``,
    /// ``alphabeta``, ``paranoid``, ``mcts`` or ``perfect``.
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::enums::BOT_KIND.member(py, self.config.kind.name())
    }

    /// The seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.config.seed
    }

    /// The node (or playout) budget given, if any.
    #[getter]
    fn nodes(&self) -> Option<u64> {
        self.budget.nodes
    }

    /// The time budget given, in milliseconds, if any.
    #[getter]
    fn millis(&self) -> Option<u64> {
        self.budget.millis
    }

    /// The depth budget given, if any.
    #[getter]
    fn depth(&self) -> Option<u32> {
        self.budget.depth
    }

    /// Searches the position for the side to move; raises
    /// ``IllegalMoveError`` (code ``game_over``) if the game is over, and
    /// for ``"perfect"`` ``TablebaseError`` if no loaded table with depths
    /// covers the position.
    fn search(&self, py: Python<'_>, position: PyRef<'_, PyPosition>) -> PyResult<PySearchResult> {
        crate::grading::allowed("sternhalma.Bot")?;
        let position = position.current().clone();
        if position.legal_moves().is_empty() {
            return Err(errors::illegal(&IllegalMove::GameOver));
        }
        // Without a table the core's perfect bot plays greedy moves: refuse
        // instead, saying which table to load. Asked of the tables it plays
        // from.
        if self.config.kind == BotKind::Perfect {
            PerfectBot::covers(crate::tablebase::tables(), &position)
                .map_err(|e| crate::tablebase::lookup_error(&e, &position))?;
        }
        let result = py.detach(|| {
            self.bot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .search(&position)
        });
        Ok(PySearchResult::new(&position, &result))
    }

    /// The move the bot plays (``search(position).move``).
    fn step(&self, py: Python<'_>, position: PyRef<'_, PyPosition>) -> PyResult<PyMove> {
        Ok(self.search(py, position)?.best_move.clone())
    }

    fn __repr__(&self) -> String {
        let mut text = format!("Bot({:?}", self.config.kind.name());
        text = text.replace('"', "'");
        if let Some(nodes) = self.budget.nodes {
            text.push_str(&format!(", nodes={nodes}"));
        }
        if let Some(millis) = self.budget.millis {
            text.push_str(&format!(", millis={millis}"));
        }
        if let Some(depth) = self.budget.depth {
            text.push_str(&format!(", depth={depth}"));
        }
        text.push_str(&format!(", seed={})", self.config.seed));
        text
    }
}

/// What a bot's search found: the move, its score from the mover's view on
/// [-1, 1] (+1 a proven win), the principal variation, the nodes searched
/// (playouts for MCTS), the time and the depth reached.
///
/// >>> result = Bot("alphabeta", nodes=2000).search(Position())
/// >>> result.principal_variation[0] == result.move
/// True
/// >>> -1.0 <= result.score <= 1.0, result.nodes <= 2001
/// (True, True)
#[pyclass(module = "sternhalma._core", name = "SearchResult", frozen)]
pub struct PySearchResult {
    best_move: PyMove,
    score: f64,
    principal_variation: Vec<PyMove>,
    nodes: u64,
    millis: f64,
    depth: u32,
}

impl PySearchResult {
    fn new(position: &Position, result: &search::SearchResult) -> PySearchResult {
        let mut line = position.clone();
        let principal_variation = result
            .principal_variation
            .iter()
            .map(|&mv| {
                let shown = PyMove::legal(&line, mv);
                line.make_move(mv);
                shown
            })
            .collect();
        PySearchResult {
            best_move: PyMove::legal(position, result.best_move),
            score: result.score,
            principal_variation,
            nodes: result.nodes,
            millis: result.elapsed.as_secs_f64() * 1000.0,
            depth: result.depth,
        }
    }
}

#[pymethods]
impl PySearchResult {
    /// The move to play.
    #[getter(r#move)]
    fn best_move(&self) -> PyMove {
        self.best_move.clone()
    }

    /// The position's value after the move, from the mover's view, on
    /// [-1, 1].
    #[getter]
    fn score(&self) -> f64 {
        self.score
    }

    /// The expected line, starting with the move.
    #[getter]
    fn principal_variation(&self) -> Vec<PyMove> {
        self.principal_variation.clone()
    }

    /// Positions searched (playouts for MCTS).
    #[getter]
    fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Time spent, in milliseconds.
    #[getter]
    fn millis(&self) -> f64 {
        self.millis
    }

    /// Depth reached.
    #[getter]
    fn depth(&self) -> u32 {
        self.depth
    }

    fn __repr__(&self) -> String {
        let texts: Vec<String> = self
            .principal_variation
            .iter()
            .map(|m| format!("'{}'", m.text()))
            .collect();
        format!(
            "<SearchResult move='{}' score={:.3} pv=[{}] nodes={} depth={}>",
            self.best_move.text(),
            self.score,
            texts.join(", "),
            self.nodes,
            self.depth
        )
    }
}

fn check_player(position: &Position, player: usize) -> PyResult<()> {
    let players = position.layout().player_count();
    if player < players {
        Ok(())
    } else {
        Err(PyIndexError::new_err(format!(
            "player {player} does not exist (the game has {players})"
        )))
    }
}

/// How far ``player``'s pegs still are from home, in single steps: the sum
/// of their hex distances to the apex of their target triangle, less the
/// same sum for a full target. 0 exactly when every set is home.
///
/// >>> distance_to_target(Position(), 0)
/// 120
#[pyfunction]
pub fn distance_to_target(position: PyRef<'_, PyPosition>, player: usize) -> PyResult<u32> {
    check_player(position.current(), player)?;
    Ok(search::distance_to_target(position.current(), player))
}

/// How many of ``player``'s pegs stand in their target triangle.
///
/// >>> pegs_home(Position(), 0)
/// 0
#[pyfunction]
pub fn pegs_home(position: PyRef<'_, PyPosition>, player: usize) -> PyResult<u32> {
    check_player(position.current(), player)?;
    Ok(search::pegs_home(position.current(), player))
}

/// How far along ``player`` is, from 0.0 (at the start) to 1.0 (home).
///
/// >>> p = Position()
/// >>> progress(p, 0)
/// 0.0
/// >>> p.push("115-104")
/// >>> round(progress(p, 0), 4)
/// 0.0167
#[pyfunction]
pub fn progress(position: PyRef<'_, PyPosition>, player: usize) -> PyResult<f64> {
    check_player(position.current(), player)?;
    Ok(search::progress(position.current(), player))
}
