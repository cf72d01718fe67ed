//! `Position.legal_moves`: a read-only sequence of the legal moves, in the
//! manner of python-chess's `board.legal_moves`.

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyIterator, PyList, PySlice};
use sternhalma::{Move, MoveText, Position};

use crate::moves::PyMove;

/// The legal moves of a position (all of them, or one peg's), as a
/// read-only sequence: `len`, indexing and slicing, iteration, `in`,
/// `index` and `count`; it compares equal to the list of the same moves.
///
/// `in` takes a `Move` or a move text, and answers what
/// `Position.is_legal` would for a move of this list: a text that does
/// not parse, or names no move of the list, is simply not in it.
///
/// >>> p = Position()
/// >>> moves = p.legal_moves
/// >>> len(moves), moves[0], "115-104" in moves, Move(115, 104) in moves
/// (14, Move.parse('111-102'), True, True)
/// >>> "115-93" in moves, "nonsense" in moves
/// (False, False)
/// >>> "115-104" in p.legal_moves_from(111)
/// False
#[pyclass(module = "sternhalma._core", name = "LegalMoves", frozen, sequence)]
pub struct PyLegalMoves {
    position: Arc<Position>,
    moves: Vec<Move>,
}

impl PyLegalMoves {
    /// The given legal moves of `position`.
    pub fn new(position: &Position, moves: Vec<Move>) -> PyLegalMoves {
        PyLegalMoves {
            position: Arc::new(position.clone()),
            moves,
        }
    }

    fn item(&self, index: usize) -> PyMove {
        PyMove::legal_in(&self.position, self.moves[index])
    }

    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, (0..self.moves.len()).map(|i| self.item(i)))
    }

    /// The listed move `value` names, if any.
    fn find(&self, value: &Bound<'_, PyAny>) -> Option<usize> {
        let mv = if let Ok(m) = value.extract::<PyRef<'_, PyMove>>() {
            match m.legal_here(&self.position) {
                Some(mv) => mv,
                None => self.resolve(&m.text())?,
            }
        } else if let Ok(text) = value.extract::<&str>() {
            self.resolve(&text.parse().ok()?)?
        } else {
            return None;
        };
        self.moves.iter().position(|&listed| listed == mv)
    }

    fn resolve(&self, text: &MoveText) -> Option<Move> {
        self.position.resolve(text).ok().map(|played| played.mv)
    }
}

#[pymethods]
impl PyLegalMoves {
    fn __len__(&self) -> usize {
        self.moves.len()
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        if let Ok(slice) = index.cast::<PySlice>() {
            return self.to_list(py)?.as_any().get_item(slice);
        }
        let Ok(i) = index.extract::<isize>() else {
            return Err(PyTypeError::new_err(format!(
                "legal moves are indexed by integers or slices, not {}",
                index.get_type().name()?
            )));
        };
        let len = self.moves.len() as isize;
        let at = if i < 0 { i + len } else { i };
        if !(0..len).contains(&at) {
            return Err(PyIndexError::new_err(format!(
                "legal move index {i} out of range ({len} moves)"
            )));
        }
        Ok(Bound::new(py, self.item(at as usize))?.into_any())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        self.to_list(py)?.into_any().try_iter()
    }

    fn __contains__(&self, value: &Bound<'_, PyAny>) -> bool {
        self.find(value).is_some()
    }

    /// Where a move (a `Move` or a move text) is in the list; raises
    /// `ValueError` if it is not there.
    #[pyo3(signature = (value, /))]
    fn index(&self, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.find(value).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{} is not a legal move here",
                value.str().map_or_else(|_| "?".into(), |s| s.to_string())
            ))
        })
    }

    /// How many times a move is in the list: 1 or 0.
    #[pyo3(signature = (value, /))]
    fn count(&self, value: &Bound<'_, PyAny>) -> usize {
        usize::from(self.find(value).is_some())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = other.py();
        if let Ok(other) = other.extract::<PyRef<'_, PyLegalMoves>>() {
            return Ok(other.moves == self.moves);
        }
        self.to_list(py)?.eq(other)
    }

    fn __repr__(&self) -> String {
        let texts: Vec<String> = self.moves.iter().map(|mv| mv.to_string()).collect();
        format!("<LegalMoves ({}): {}>", texts.len(), texts.join(", "))
    }
}
