//! Python exceptions: one base class (a `ValueError`), one subclass per kind
//! of problem, each carrying what a program needs to act on it.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sternhalma::{IllegalMove, ParseError, PositionError, SetupError};

create_exception!(
    _core,
    SternhalmaError,
    PyValueError,
    "Base class of every Sternhalma error (a ValueError)."
);
create_exception!(
    _core,
    NotationError,
    SternhalmaError,
    "Text that does not follow the grammar: a position string, move text, rules, board or layout name. `.what` says which."
);
create_exception!(
    _core,
    UnknownPresetError,
    NotationError,
    "A rules text naming a preset that does not exist."
);
create_exception!(
    _core,
    InvalidPositionError,
    SternhalmaError,
    "A well-formed position that breaks the rules. `.problems` lists every problem as (code, message)."
);
create_exception!(
    _core,
    IllegalMoveError,
    SternhalmaError,
    "A move that is not legal in the position. `.code` is a stable reason code (hole_occupied, leaves_target, ...)."
);

create_exception!(
    _core,
    UnknownBotError,
    SternhalmaError,
    "A bot kind that does not exist (see BOT_KINDS)."
);

/// Raises an exception of type `T` with attributes set on the instance.
fn raise<T: pyo3::PyTypeInfo>(message: String, attributes: &[(&str, Py<PyAny>)]) -> PyErr {
    Python::attach(|py| {
        let error = PyErr::new::<T, _>(message);
        let value = error.value(py);
        for (name, attribute) in attributes {
            value
                .setattr(*name, attribute)
                .expect("exception instances take attributes");
        }
        error
    })
}

/// A parse error as a Python exception.
pub fn notation(error: &ParseError) -> PyErr {
    let what = Python::attach(|py| error.what().into_pyobject(py).unwrap().into_any().unbind());
    if error.what() == "preset" {
        raise::<UnknownPresetError>(error.to_string(), &[("what", what)])
    } else {
        raise::<NotationError>(error.to_string(), &[("what", what)])
    }
}

/// An invalid setup as a Python exception.
pub fn invalid(error: &SetupError) -> PyErr {
    let problems = Python::attach(|py| {
        error
            .problems()
            .iter()
            .map(|p| (p.code(), p.to_string()))
            .collect::<Vec<_>>()
            .into_pyobject(py)
            .unwrap()
            .into_any()
            .unbind()
    });
    raise::<InvalidPositionError>(error.to_string(), &[("problems", problems)])
}

/// An illegal move as a Python exception.
pub fn illegal(error: &IllegalMove) -> PyErr {
    let code = Python::attach(|py| error.code().into_pyobject(py).unwrap().into_any().unbind());
    raise::<IllegalMoveError>(format!("illegal move: {error}"), &[("code", code)])
}

/// A position text error as a Python exception.
pub fn position(error: &PositionError) -> PyErr {
    match error {
        PositionError::Malformed(e) => notation(e),
        PositionError::Invalid(e) => invalid(e),
    }
}

/// An action number that names no move of any position of this board.
pub fn unknown_action(action: usize, actions: usize) -> PyErr {
    let code = Python::attach(|py| {
        "unknown_action"
            .into_pyobject(py)
            .unwrap()
            .into_any()
            .unbind()
    });
    raise::<IllegalMoveError>(
        format!(
            "illegal move: {action} is not an action number (they are 0 to {})",
            actions - 1
        ),
        &[("code", code)],
    )
}

/// An unknown bot kind as a Python exception.
pub fn unknown_bot(error: &sternhalma::search::UnknownBotKind) -> PyErr {
    PyErr::new::<UnknownBotError, _>(error.to_string())
}
