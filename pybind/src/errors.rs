//! Python exceptions: one base class (a `ValueError`), one subclass per kind
//! of problem, each carrying what a program needs to act on it.
//!
//! Every exception class of the module is defined here, and this module
//! imports no other of the binding's: the other modules raise through it,
//! so an import of theirs here would be a cycle (`api/tests/layers.rs`
//! refuses one). The codes the exceptions carry are the core's.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sternhalma::solve::TablebaseError as TableError;
use sternhalma::{IllegalMove, ParseError, ParseErrorKind, PositionError, SetupError};

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
    "Input that does not follow the grammar: a position string or JSON, move text, rules, board or layout name. `.what` says which (`board`, `rules`, `move`, `JSON`, ...); `.code` is the stable code the HTTP API answers too (`invalid_board`, `malformed_json`, ...)."
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
    "A well-formed position that breaks the rules. `.problems` lists every problem as (code, message); `.code` is `invalid_position`."
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
create_exception!(
    _core,
    TablebaseError,
    SternhalmaError,
    "A solved table that cannot answer. `.code` says why: `no_tablebase` (no loaded table covers the position, or none is in the folder for a game too large to solve on first use), `tablebase_other_game` (a position of another board or rules), `tablebase_without_depths` (a table of values alone, where depths are needed), `game_over` (no move to choose), `tablebase_file` (a missing, damaged or unfinished file), `tablebase_unsolvable`, `tablebase_download` (a table that could not be fetched from a server, or did not match its listing), `tablebase_not_a_position` (an index past the table, or an entry or peg sets that are no legal position)."
);
create_exception!(
    _core,
    SolveLimitError,
    SternhalmaError,
    "The solver stopped at its node limit before proving a solution. `.lower_bound` is the fewest moves any crossing can take, as proven so far; `.nodes` the positions visited."
);
create_exception!(
    _core,
    UnsolvableError,
    SternhalmaError,
    "No sequence of moves crosses the board (possible with hops only)."
);
create_exception!(
    _core,
    BuiltinBarredError,
    SternhalmaError,
    "A built-in search (a `Bot`, `solve_solitaire`, `Position.playout`, `rollouts`) called where a graded exercise bars it (`sternhalma.grading.barred`): the exercise is graded on the student's own search."
);

/// Adds every exception to the module, named there as the `sternhalma`
/// package's (which re-exports them), so that tracebacks read
/// `sternhalma.IllegalMoveError`; and `_problem_error`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let exceptions = [
        ("SternhalmaError", py.get_type::<SternhalmaError>()),
        ("NotationError", py.get_type::<NotationError>()),
        ("UnknownPresetError", py.get_type::<UnknownPresetError>()),
        (
            "InvalidPositionError",
            py.get_type::<InvalidPositionError>(),
        ),
        ("IllegalMoveError", py.get_type::<IllegalMoveError>()),
        ("UnknownBotError", py.get_type::<UnknownBotError>()),
        ("TablebaseError", py.get_type::<TablebaseError>()),
        ("SolveLimitError", py.get_type::<SolveLimitError>()),
        ("UnsolvableError", py.get_type::<UnsolvableError>()),
        ("BuiltinBarredError", py.get_type::<BuiltinBarredError>()),
    ];
    for (name, exception) in exceptions {
        exception.setattr("__module__", "sternhalma")?;
        m.add(name, exception)?;
    }
    m.add_function(wrap_pyfunction!(_problem_error, m)?)?;
    Ok(())
}

/// Raises an exception of type `T` with attributes set on the instance.
pub(crate) fn raise<T: pyo3::PyTypeInfo>(
    message: String,
    attributes: &[(&str, Py<PyAny>)],
) -> PyErr {
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

/// A Python string object.
pub(crate) fn text(py: Python<'_>, text: &str) -> Py<PyAny> {
    text.into_pyobject(py)
        .expect("strings convert")
        .into_any()
        .unbind()
}

/// A parse error as a Python exception, with `.what` and `.code` from the
/// core's error kind.
pub fn notation(error: &ParseError) -> PyErr {
    let attributes = Python::attach(|py| {
        [
            ("what", text(py, error.what())),
            ("code", text(py, error.code())),
        ]
    });
    match error.kind() {
        ParseErrorKind::Preset => raise::<UnknownPresetError>(error.to_string(), &attributes),
        _ => raise::<NotationError>(error.to_string(), &attributes),
    }
}

/// An invalid setup as a Python exception.
pub fn invalid(error: &SetupError) -> PyErr {
    let (problems, code) = Python::attach(|py| {
        let problems = error
            .problems()
            .iter()
            .map(|p| (p.code(), p.to_string()))
            .collect::<Vec<_>>()
            .into_pyobject(py)
            .unwrap()
            .into_any()
            .unbind();
        (problems, text(py, error.code()))
    });
    raise::<InvalidPositionError>(error.to_string(), &[("problems", problems), ("code", code)])
}

/// An illegal move as a Python exception.
pub fn illegal(error: &IllegalMove) -> PyErr {
    let code = Python::attach(|py| text(py, error.code()));
    raise::<IllegalMoveError>(format!("illegal move: {error}"), &[("code", code)])
}

/// A position text error as a Python exception.
pub fn position(error: &PositionError) -> PyErr {
    match error {
        PositionError::Malformed(e) => notation(e),
        PositionError::Invalid(e) => invalid(e),
    }
}

/// An unknown bot kind as a Python exception.
pub fn unknown_bot(error: &sternhalma::search::UnknownBotKind) -> PyErr {
    PyErr::new::<UnknownBotError, _>(error.to_string())
}

/// The exception the module raises locally for a problem the HTTP API
/// answered, by its `code` (for `sternhalma.client`): a `NotationError`
/// (or `UnknownPresetError`) for a parse error's code, an
/// `InvalidPositionError` for `invalid_position`, an `IllegalMoveError` for
/// an illegal move's code (`IllegalMove::CODES`) with a 422, a
/// `TablebaseError` for a solved table's refusal (`TablebaseError::CODES`
/// of the core, `game_over` an illegal move's first) with a 422; `None`
/// for any other code (the server's own refusals).
#[pyfunction]
#[pyo3(signature = (status, code, detail, problems = Vec::new()))]
pub fn _problem_error(
    py: Python<'_>,
    status: u16,
    code: &str,
    detail: &str,
    problems: Vec<(String, String)>,
) -> Option<Py<pyo3::exceptions::PyBaseException>> {
    let error = if let Some(kind) = ParseErrorKind::from_code(code) {
        let attributes = [("what", text(py, kind.noun())), ("code", text(py, code))];
        match kind {
            ParseErrorKind::Preset => raise::<UnknownPresetError>(detail.to_owned(), &attributes),
            _ => raise::<NotationError>(detail.to_owned(), &attributes),
        }
    } else if code == "invalid_position" {
        let problems = problems.into_pyobject(py).ok()?.into_any().unbind();
        raise::<InvalidPositionError>(
            detail.to_owned(),
            &[("problems", problems), ("code", text(py, code))],
        )
    } else if status == 422 && IllegalMove::CODES.contains(&code) {
        raise::<IllegalMoveError>(
            format!("illegal move: {detail}"),
            &[("code", text(py, code))],
        )
    } else if status == 422 && TableError::CODES.contains(&code) {
        raise::<TablebaseError>(detail.to_owned(), &[("code", text(py, code))])
    } else {
        return None;
    };
    Some(error.into_value(py))
}

/// A refused step of a `VectorEnv`: which game, which action, why.
pub fn illegal_step(error: &sternhalma::vector::StepError) -> PyErr {
    let code = Python::attach(|py| text(py, error.error.code()));
    raise::<IllegalMoveError>(error.to_string(), &[("code", code)])
}
