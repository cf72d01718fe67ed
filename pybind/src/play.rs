//! Play without a Python call per move: playouts, batches of them, and
//! many games stepped at once. The work runs in the core with the GIL
//! released; this file only converts.

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sternhalma::search::{Rng, rollouts as core_rollouts};
use sternhalma::vector::{Games, Outputs};

use crate::args;
use crate::errors;
use crate::position::PyPosition;

/// What `rollouts` returns: each playout's results and plies.
type Rolled<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<i64>>);

/// One playout from each position, in Rust on several threads, the GIL
/// released: the leaves of a Monte Carlo search evaluated in one call.
///
/// Returns `(results, plies)`: a float64 array of shape `(len(positions),
/// players)` holding each playout's `returns()` (0 for everyone when it
/// stopped at `max_plies` before the game ended), and an int64 array of the
/// plies each played. The playout from `positions[i]` draws from its own
/// stream of `seed`, so the answer does not depend on `threads`. Every
/// position must have the same number of players.
///
/// >>> results, plies = rollouts([Position()] * 4, policy="forward", seed=1, max_plies=2000)
/// >>> results.shape, bool((plies > 0).all())
/// ((4, 2), True)
#[pyfunction]
#[pyo3(signature = (positions, *, policy = "uniform", seed = None, max_plies = 1000, threads = None))]
pub fn rollouts<'py>(
    py: Python<'py>,
    positions: Vec<PyRef<'py, PyPosition>>,
    policy: &str,
    seed: Option<i128>,
    max_plies: i128,
    threads: Option<i128>,
) -> PyResult<Rolled<'py>> {
    crate::grading::allowed("sternhalma.rollouts")?;
    let policy = args::policy(policy)?;
    let seed = args::seed(seed)?;
    let max_plies = args::plies("max_plies", max_plies)?;
    let threads = args::threads(threads)?;
    let starts: Vec<sternhalma::Position> = positions.iter().map(|p| p.current().clone()).collect();
    let players = starts.first().map_or(0, |p| p.layout().player_count());
    if let Some(other) = starts.iter().find(|p| p.layout().player_count() != players) {
        return Err(PyValueError::new_err(format!(
            "every position must have the same number of players: {players} and {}",
            other.layout().player_count()
        )));
    }
    let done = py.detach(|| core_rollouts(&starts, policy, seed, max_plies, threads));
    let mut results = Array2::<f64>::zeros((done.len(), players));
    let mut counts = Array1::<i64>::zeros(done.len());
    for (i, rollout) in done.iter().enumerate() {
        for (p, &r) in rollout.results.iter().enumerate() {
            results[[i, p]] = r;
        }
        counts[i] = i64::from(rollout.plies);
    }
    Ok((results.into_pyarray(py), counts.into_pyarray(py)))
}

/// Many games of one kind stepped at once from numpy actions, in Rust,
/// the GIL released: the shape of pgx and EnvPool.
///
/// Every game starts from `start` (default: `Position()`) and starts again
/// as soon as it ends (`terminated`) or has lasted `max_plies` plies
/// (`truncated`); the observations `step` returns are then those of the
/// new start. Actions are action numbers (`Position.action_to_move`); each
/// is checked against its game's legal moves, and if one is refused,
/// `IllegalMoveError` names the game and no game moves.
///
/// >>> env = VectorEnv(4, seed=1)
/// >>> boards = env.reset()
/// >>> boards.shape, boards.dtype.name
/// ((4, 121), 'int8')
/// >>> boards, rewards, terminated, truncated = env.step(env.random_actions())
/// >>> rewards.shape, terminated.shape, int(env.plies[0])
/// ((4, 2), (4,), 1)
#[pyclass(module = "sternhalma._core", name = "VectorEnv")]
pub struct PyVectorEnv {
    games: Games,
    out: Outputs,
    threads: usize,
    rng: Rng,
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    #[pyo3(signature = (num_envs, start = None, *, max_plies = 1000, seed = None, threads = None))]
    fn new(
        num_envs: i128,
        start: Option<PyRef<'_, PyPosition>>,
        max_plies: i128,
        seed: Option<i128>,
        threads: Option<i128>,
    ) -> PyResult<Self> {
        // Its games move in the engine, uncounted: a search could step
        // them from any position, so a graded exercise bars them.
        crate::grading::allowed("sternhalma.VectorEnv")?;
        let count: usize = args::whole("num_envs", num_envs, 1 << 24)?;
        if count == 0 {
            return Err(PyValueError::new_err("num_envs must be at least 1"));
        }
        let start = match start {
            Some(p) => p.current().clone(),
            None => PyPosition::default_start(),
        };
        if start.legal_moves().is_empty() {
            return Err(PyValueError::new_err(
                "the start position is over: a game cannot be played from it",
            ));
        }
        let games = Games::new(start, count, args::plies("max_plies", max_plies)?);
        let out = games.outputs();
        Ok(PyVectorEnv {
            games,
            out,
            threads: args::threads(threads)?,
            rng: Rng::new(args::seed(seed)?),
        })
    }

    /// The number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.games.len()
    }

    /// Players in each game.
    #[getter]
    fn num_players(&self) -> usize {
        self.games.players()
    }

    /// How many action numbers the board has (`holes * holes + 1`).
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.games.start().num_distinct_actions()
    }

    /// Plies played in each game since it (re)started, as an int64 array.
    #[getter]
    fn plies<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let plies: Vec<i64> = self.games.plies().iter().map(|&p| i64::from(p)).collect();
        plies.into_pyarray(py)
    }

    /// The player to move in each game, as an int64 array.
    #[getter]
    fn current_player<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let movers: Vec<i64> = self
            .games
            .positions()
            .iter()
            .map(|p| p.side_to_move() as i64)
            .collect();
        movers.into_pyarray(py)
    }

    /// Game `index` as a `Position` (a copy).
    fn position(&self, index: usize) -> PyResult<PyPosition> {
        self.games
            .positions()
            .get(index)
            .map(|p| PyPosition::from_core(p.clone()))
            .ok_or_else(|| {
                pyo3::exceptions::PyIndexError::new_err(format!(
                    "no game {index} (there are {})",
                    self.games.len()
                ))
            })
    }

    /// Starts every game again; returns the observations.
    fn reset<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        self.games.reset();
        self.observations(py)
    }

    /// Each game's board from its mover's view, an int8 array of shape
    /// `(num_envs, holes)`: 0 an empty hole, `k + 1` a peg of the player
    /// `k` seats after the mover (1: the mover's own), -1 a neutral peg.
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        let holes = self.games.start().geometry().len();
        let mut boards = vec![0i8; self.games.len() * holes];
        self.games.boards(&mut boards);
        Array2::from_shape_vec((self.games.len(), holes), boards)
            .expect("games x holes")
            .into_pyarray(py)
    }

    /// Plays one action in each game (an array of `num_envs` integers).
    /// Returns `(observations, rewards, terminated, truncated)`: rewards is
    /// float32 of shape `(num_envs, players)`, each player's result in a
    /// game that ended in this step, else 0.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArray2<i8>>,
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let numpy = py.import("numpy")?;
        let array = numpy.call_method1("ascontiguousarray", (actions, "int64"))?;
        let array = array.cast_into::<PyArray1<i64>>().map_err(|_| {
            PyValueError::new_err("actions must be a one-dimensional array of integers")
        })?;
        let actions: Vec<i64> = array.readonly().as_slice()?.to_vec();
        if actions.len() != self.games.len() {
            return Err(PyValueError::new_err(format!(
                "one action per game: got {}, there are {} games",
                actions.len(),
                self.games.len()
            )));
        }
        let threads = if self.games.len() >= 256 {
            self.threads
        } else {
            1
        };
        let (games, out) = (&mut self.games, &mut self.out);
        py.detach(|| games.step(&actions, out, threads))
            .map_err(|e| errors::illegal_step(&e))?;
        let players = self.games.players();
        let rewards = Array2::from_shape_vec((self.games.len(), players), self.out.rewards.clone())
            .expect("games x players");
        Ok((
            self.observations(py),
            rewards.into_pyarray(py),
            self.out.terminated.clone().into_pyarray(py),
            self.out.truncated.clone().into_pyarray(py),
        ))
    }

    /// A uniformly random legal action for each game, as an int64 array,
    /// drawn from `seed` if given, else from the environment's own stream.
    #[pyo3(signature = (seed = None))]
    fn random_actions<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<i128>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let mut actions = vec![0i64; self.games.len()];
        match seed {
            Some(seed) => self
                .games
                .random_actions(&mut Rng::new(args::seed(Some(seed))?), &mut actions),
            None => self.games.random_actions(&mut self.rng, &mut actions),
        }
        Ok(actions.into_pyarray(py))
    }

    /// Each game's legal actions, an int32 array of shape `(num_envs,
    /// width)`, `width` the most any game has now, padded with -1.
    fn legal_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let n = self.games.len();
        let width = (0..n)
            .map(|i| self.games.legal_moves(i).len())
            .max()
            .unwrap_or(0);
        let mut table = Array2::<i32>::from_elem((n, width), -1);
        for (i, position) in self.games.positions().iter().enumerate() {
            for (j, &mv) in self.games.legal_moves(i).iter().enumerate() {
                table[[i, j]] = position.action(mv) as i32;
            }
        }
        table.into_pyarray(py)
    }

    /// Each game's legal actions as a mask, a bool array of shape
    /// `(num_envs, num_distinct_actions)`.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        let n = self.games.len();
        let mut mask = Array2::<bool>::from_elem((n, self.num_distinct_actions()), false);
        for (i, position) in self.games.positions().iter().enumerate() {
            for &mv in self.games.legal_moves(i) {
                mask[[i, position.action(mv)]] = true;
            }
        }
        mask.into_pyarray(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "VectorEnv({}, Position('{}'))",
            self.games.len(),
            self.games.start()
        )
    }
}
