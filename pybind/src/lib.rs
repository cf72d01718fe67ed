//! `sternhalma._core`: the Sternhalma rules crate for Python. No rules live
//! here: every class wraps the crate's own types.

mod board;
mod errors;
mod moves;
mod position;
mod solitaire;

use pyo3::prelude::*;

/// The Sternhalma rules engine (the compiled part of the `sternhalma` package).
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<board::PyBoard>()?;
    m.add_class::<board::PyRules>()?;
    m.add_class::<moves::PyMove>()?;
    m.add_class::<moves::PyOutcome>()?;
    m.add_class::<position::PyPosition>()?;
    m.add_function(wrap_pyfunction!(position::_restore, m)?)?;
    solitaire::register(m)?;
    // The exceptions are re-exported by the `sternhalma` package: name them
    // there, so tracebacks read `sternhalma.IllegalMoveError`.
    let exceptions = [
        ("SternhalmaError", py.get_type::<errors::SternhalmaError>()),
        ("NotationError", py.get_type::<errors::NotationError>()),
        (
            "UnknownPresetError",
            py.get_type::<errors::UnknownPresetError>(),
        ),
        (
            "InvalidPositionError",
            py.get_type::<errors::InvalidPositionError>(),
        ),
        (
            "IllegalMoveError",
            py.get_type::<errors::IllegalMoveError>(),
        ),
    ];
    for (name, exception) in exceptions {
        exception.setattr("__module__", "sternhalma")?;
        m.add(name, exception)?;
    }
    Ok(())
}
