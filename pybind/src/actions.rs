//! Action numbers as Python ints, made once: a list of actions is built
//! from shared int objects, not a new int object per action (most action
//! numbers are above the 256 small ints Python keeps).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyInt, PyList};
use sternhalma::{Cell, Move, Position};

/// Every action number of the largest board: `holes * holes + 1`.
const MAX_ACTIONS: usize = Cell::MAX_HOLES * Cell::MAX_HOLES + 1;

static INTS: PyOnceLock<Vec<Py<PyInt>>> = PyOnceLock::new();

/// The int object of each action number.
pub fn ints(py: Python<'_>) -> &[Py<PyInt>] {
    INTS.get_or_init(py, || {
        (0..MAX_ACTIONS)
            .map(|i| i.into_pyobject(py).expect("an int").unbind())
            .collect()
    })
}

/// The action numbers of `moves` (legal in `position`) as a list.
pub fn list<'py>(
    py: Python<'py>,
    position: &Position,
    moves: &[Move],
) -> PyResult<Bound<'py, PyList>> {
    let ints = ints(py);
    PyList::new(
        py,
        moves.iter().map(|&mv| ints[position.action(mv)].bind(py)),
    )
}
