//! The solitaire solver: `solve_solitaire`, its `Solution` and the
//! `SolveProgress` reports.

use std::ops::ControlFlow;
use std::time::Duration;

use pyo3::prelude::*;
use sternhalma::Board;
use sternhalma::solitaire::{self, Method, Problem, Progress, SolveError, SolveOptions};

use crate::args;
use crate::board::PyBoard;
use crate::errors::{self, SolveLimitError, UnsolvableError};
use crate::moves::PyMove;

/// A snapshot of a running solve, given to the `progress` callback.
#[pyclass(module = "sternhalma._core", name = "SolveProgress", frozen)]
#[derive(Clone)]
pub struct PySolveProgress {
    /// Positions visited so far.
    #[pyo3(get)]
    nodes: u64,
    /// The current bound: no crossing is shorter.
    #[pyo3(get)]
    bound: u32,
    /// Seconds since the solve started.
    #[pyo3(get)]
    seconds: f64,
    /// Average speed so far.
    #[pyo3(get)]
    nodes_per_second: f64,
}

#[pymethods]
impl PySolveProgress {
    fn __repr__(&self) -> String {
        format!(
            "SolveProgress(nodes={}, bound={}, seconds={:.3}, nodes_per_second={:.0})",
            self.nodes, self.bound, self.seconds, self.nodes_per_second
        )
    }
}

/// A shortest solitaire crossing, proven shortest.
///
/// >>> solution = solve_solitaire("rhombus5p3")
/// >>> solution.length, solution.optimal, len(solution.moves)
/// (11, True, 11)
/// >>> position = Position.start(board="rhombus5p3", layout="1")
/// >>> for move in solution.moves:
/// ...     position.push(move)
/// >>> position.outcome().status
/// <OutcomeStatus.WON: 'won'>
#[pyclass(module = "sternhalma._core", name = "Solution", frozen)]
pub struct PySolution {
    moves: Vec<PyMove>,
    /// Number of moves.
    #[pyo3(get)]
    length: usize,
    /// Positions the search visited.
    #[pyo3(get)]
    nodes: u64,
    /// Seconds the solve took.
    #[pyo3(get)]
    seconds: f64,
    /// Whether no shorter crossing exists (the search completed every
    /// smaller bound): always true for a returned solution.
    #[pyo3(get)]
    optimal: bool,
}

#[pymethods]
impl PySolution {
    /// The moves, legal in turn from the start (layout `1`, classic rules).
    #[getter]
    fn moves(&self) -> Vec<PyMove> {
        self.moves.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Solution(length={}, optimal={}, nodes={}, seconds={:.3})",
            self.length,
            if self.optimal { "True" } else { "False" },
            self.nodes,
            self.seconds
        )
    }
}

/// Finds a shortest solitaire crossing of `board` (one set alone, from the
/// south triangle to the north one, every other hole empty; on the star the
/// side triangles are empty and usable) and proves it shortest.
///
/// The search runs without the GIL; `progress`, if given, is called with a
/// `SolveProgress` about every `progress_interval` seconds, and Ctrl-C
/// (KeyboardInterrupt) stops it there. Raises `SolveLimitError` (with
/// `.lower_bound`) when `max_nodes` positions did not suffice, and
/// `UnsolvableError` when no crossing exists.
///
/// `method` is `"meet"` (the default: breadth first from both ends,
/// meeting in the middle; fastest, and holds its levels in memory, 16 bytes
/// a position) or `"ida"` (IDA*: memory bounded, slower on long crossings).
///
/// >>> solve_solitaire("rhombus7p3").length
/// 17
/// >>> solve_solitaire(Board("rhombus7p3"), hops_only=True)
/// Traceback (most recent call last):
///     ...
/// sternhalma.UnsolvableError: the goal cannot be reached
#[pyfunction]
#[pyo3(signature = (board, *, hops_only = false, max_nodes = None, progress = None, progress_interval = 1.0, method = "meet"))]
pub fn solve_solitaire(
    py: Python<'_>,
    board: &Bound<'_, PyAny>,
    hops_only: bool,
    max_nodes: Option<i128>,
    progress: Option<Py<PyAny>>,
    progress_interval: f64,
    method: &str,
) -> PyResult<PySolution> {
    crate::grading::allowed("sternhalma.solve_solitaire")?;
    let max_nodes: Option<u64> = max_nodes
        .map(|n| args::whole("max_nodes", n, u128::from(u64::MAX)))
        .transpose()?;
    let method = match method {
        "meet" => Method::Meet,
        "ida" => Method::Ida,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "method must be \"meet\" or \"ida\", not {other:?}"
            )));
        }
    };
    let board: Board = match board.extract::<PyRef<'_, PyBoard>>() {
        Ok(board) => board.board,
        Err(_) => board
            .extract::<String>()?
            .parse()
            .map_err(|e| errors::notation(&e))?,
    };
    if !progress_interval.is_finite() || progress_interval < 0.0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "progress_interval must be a non-negative number of seconds",
        ));
    }
    let problem = Problem::new(board, hops_only);
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut report = |p: &Progress| {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    raised = Some(e);
                    return ControlFlow::Break(());
                }
                if let Some(callback) = &progress {
                    let snapshot = PySolveProgress {
                        nodes: p.nodes,
                        bound: p.bound,
                        seconds: p.elapsed.as_secs_f64(),
                        nodes_per_second: p.nodes_per_second,
                    };
                    if let Err(e) = callback.call1(py, (snapshot,)) {
                        raised = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            })
        };
        solitaire::solve(
            &problem,
            SolveOptions {
                method,
                max_nodes,
                progress: Some(&mut report),
                progress_interval: Duration::from_secs_f64(progress_interval),
                ..SolveOptions::default()
            },
        )
    });
    match result {
        Ok(solution) => {
            let mut position = problem.start_position();
            let mut moves = Vec::with_capacity(solution.moves.len());
            for &mv in &solution.moves {
                moves.push(PyMove::legal(&position, mv));
                position = position.play(mv).map_err(|e| errors::illegal(&e))?;
            }
            Ok(PySolution {
                moves,
                length: solution.length,
                nodes: solution.nodes,
                seconds: solution.elapsed.as_secs_f64(),
                optimal: solution.optimal,
            })
        }
        Err(SolveError::Interrupted { .. }) => {
            Err(raised
                .unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")))
        }
        // No memory budget is given from Python, but a limit is a limit.
        Err(
            error @ (SolveError::NodeLimit { lower_bound, nodes }
            | SolveError::MemoryLimit {
                lower_bound, nodes, ..
            }),
        ) => {
            let err = SolveLimitError::new_err(error.to_string());
            let value = err.value(py);
            value.setattr("lower_bound", lower_bound)?;
            value.setattr("nodes", nodes)?;
            Err(err)
        }
        Err(error) => Err(UnsolvableError::new_err(error.to_string())),
    }
}

/// Adds the solver's function and classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySolution>()?;
    m.add_class::<PySolveProgress>()?;
    m.add_function(wrap_pyfunction!(solve_solitaire, m)?)?;
    Ok(())
}
