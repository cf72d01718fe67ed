//! `sternhalma._core`: the Sternhalma rules crate for Python. No rules live
//! here: every class wraps the crate's own types.

mod actions;
mod args;
mod board;
mod bots;
mod enums;
mod errors;
mod graded_run;
mod grading;
mod json;
mod legal;
mod moves;
mod play;
mod position;
mod solitaire;
mod tablebase;

use pyo3::prelude::*;

/// The Sternhalma rules engine (the compiled part of the `sternhalma` package).
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<board::PyBoard>()?;
    m.add_class::<board::PyRules>()?;
    m.add_class::<moves::PyMove>()?;
    m.add_class::<legal::PyLegalMoves>()?;
    m.add_class::<moves::PyOutcome>()?;
    m.add_class::<position::PyPosition>()?;
    m.add_class::<play::PyVectorEnv>()?;
    m.add_function(wrap_pyfunction!(play::rollouts, m)?)?;
    m.add_function(wrap_pyfunction!(position::_restore, m)?)?;
    m.add_class::<bots::PyBot>()?;
    m.add_class::<bots::PySearchResult>()?;
    m.add_function(wrap_pyfunction!(bots::distance_to_target, m)?)?;
    m.add_function(wrap_pyfunction!(bots::pegs_home, m)?)?;
    m.add_function(wrap_pyfunction!(bots::progress, m)?)?;
    enums::register(m)?;
    m.add("BOT_KINDS", enums::BOT_KIND.members(py)?)?;
    solitaire::register(m)?;
    grading::register(m)?;
    graded_run::register(m)?;
    tablebase::register(m)?;
    errors::register(m)?;
    Ok(())
}
