//! Action numbers as Python ints, made once: a list of actions is built
//! from shared int objects, not a new int object per action (most action
//! numbers are above the 256 small ints Python keeps).

use pyo3::ffi;
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
///
/// Built with the C API directly: one `PyList_New`, then each slot set to a
/// shared int (a reference count and a store each). pyo3's `PyList::new`
/// does the same with an iterator and a length check around every item,
/// which cost about as much as the move generation itself here.
pub fn list<'py>(
    py: Python<'py>,
    position: &Position,
    moves: &[Move],
) -> PyResult<Bound<'py, PyList>> {
    let ints = ints(py);
    let len = ffi::Py_ssize_t::try_from(moves.len()).expect("fewer moves than isize::MAX");
    // SAFETY: the GIL is held (`py`); `PyList_New` returns a new reference
    // to a list of `len` empty slots or NULL with an exception set; each
    // slot below is in range and set once, with a new reference to a live
    // int, which `PyList_SetItem` steals. It cannot fail: the object is a
    // list and the index in range.
    unsafe {
        let list = ffi::PyList_New(len);
        if list.is_null() {
            return Err(PyErr::fetch(py));
        }
        // Owned from here: dropped (with any slots set so far) on a panic.
        let list = Bound::from_owned_ptr(py, list).cast_into_unchecked::<PyList>();
        for (i, &mv) in moves.iter().enumerate() {
            let item = ints[position.action(mv)].as_ptr();
            ffi::Py_INCREF(item);
            let status = ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, item);
            debug_assert_eq!(status, 0, "a fresh list's slot in range");
        }
        Ok(list)
    }
}
