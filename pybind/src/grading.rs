//! What the graded exercises of the teaching notebooks need from the
//! compiled part, read through `sternhalma.grading`: a count of the
//! positions Python code makes (each `push`, `play`, `apply_action` and
//! `child`), so that a test counts a search's nodes itself instead of
//! trusting the student's count; and a bar on the built-in searches (the
//! bots, the solitaire solver, playouts and rollouts), so that an exercise
//! graded under it is the student's own search.
//!
//! Both are process-wide: a bar held by one thread bars every thread, and
//! the count takes in every thread's moves (a notebook's kernel runs one
//! graded call at a time). The bar nests (a count of holders), so a graded
//! call inside another keeps the outer one's bar. Only the calls a Python
//! search makes are counted: the engine's own moves (a playout, a position
//! restored from a pickle) are not.

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::create_exception;
use pyo3::prelude::*;

use crate::errors::SternhalmaError;

create_exception!(
    _core,
    BuiltinBarredError,
    SternhalmaError,
    "A built-in search (a `Bot`, `solve_solitaire`, `Position.playout`, `rollouts`) called where a graded exercise bars it (`sternhalma.grading.barred`): the exercise is graded on the student's own search."
);

/// Positions made by Python code since the module was loaded.
static POSITIONS_MADE: AtomicU64 = AtomicU64::new(0);

/// How many holders bar the built-in searches now.
static BARRED: AtomicU64 = AtomicU64::new(0);

/// Counts one position made (a move played from Python).
pub fn position_made() {
    POSITIONS_MADE.fetch_add(1, Ordering::Relaxed);
}

/// Refuses `what` (a built-in search, named as Python calls it) while a
/// graded exercise bars the built-in searches.
pub fn allowed(what: &str) -> PyResult<()> {
    if BARRED.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    Err(BuiltinBarredError::new_err(format!(
        "{what} is barred in this graded exercise: write the search yourself"
    )))
}

/// The number of positions Python code has made (`push`, `play`,
/// `apply_action`, `child`) since the module was loaded.
#[pyfunction]
pub fn _positions_made() -> u64 {
    POSITIONS_MADE.load(Ordering::Relaxed)
}

/// Bars the built-in searches (`on=True`: one more holder) or lifts one
/// holder's bar (`on=False`); returns how many holders bar them now.
#[pyfunction]
pub fn _bar_builtins(on: bool) -> u64 {
    if on {
        BARRED.fetch_add(1, Ordering::Relaxed) + 1
    } else {
        let lifted = BARRED.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
            Some(n.saturating_sub(1))
        });
        lifted.map_or(0, |n| n.saturating_sub(1))
    }
}

/// Registers the functions and the exception.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_positions_made, m)?)?;
    m.add_function(wrap_pyfunction!(_bar_builtins, m)?)?;
    let exception = m.py().get_type::<BuiltinBarredError>();
    exception.setattr("__module__", "sternhalma")?;
    m.add("BuiltinBarredError", exception)?;
    Ok(())
}
