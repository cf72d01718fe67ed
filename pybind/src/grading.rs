//! What the graded exercises of the teaching notebooks need from the
//! compiled part, read through `sternhalma.grading` and the autograder
//! (`sternhalma.autograde`):
//!
//! - a count of every position handed to Python, by any path: one for
//!   each move played from Python (`push`, `play`, `apply_action`,
//!   `child`), and one for each position made from data (a position
//!   string, a start, JSON, a pickle restored); a copy of a position is
//!   the same position and is not counted. A test counts a search's nodes
//!   itself instead of trusting the student's count, and a search cannot
//!   make its children uncounted by restoring pickles;
//! - a trace of those positions (what each was made from, by hash), kept
//!   while the autograder asks for it, so a search's expansions can be
//!   compared with a reference's;
//! - a bar on the built-in searches (the bots, the solitaire solver,
//!   playouts and rollouts, the solved tables' answers, the vector
//!   environment), so that an exercise graded under it is the student's
//!   own search. The autograder's run locks it on for the whole run
//!   (`graded_run`): no Python code can lift it there.
//!
//! All of it is process-wide: a bar held by one thread bars every thread,
//! and the count takes in every thread's moves (a notebook's kernel runs
//! one graded call at a time). The bar nests (a count of holders), so a
//! graded call inside another keeps the outer one's bar. The engine's own
//! moves (a playout, the replay inside a restore) are not counted.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pyo3::prelude::*;

use crate::errors::BuiltinBarredError;

/// Positions handed to Python since the module was loaded.
static POSITIONS_MADE: AtomicU64 = AtomicU64::new(0);

/// How many holders bar the built-in searches now.
static BARRED: AtomicU64 = AtomicU64::new(0);

/// Whether the bar is locked on for good (an autograder's run).
static LOCKED: AtomicBool = AtomicBool::new(false);

/// Whether positions made are traced now.
static TRACING: AtomicBool = AtomicBool::new(false);

/// The most trace entries kept for one graded call; beyond, the trace is
/// marked cut (a search that makes millions of positions is over any
/// budget a notebook sets).
pub const TRACE_LIMIT: usize = 2_000_000;

/// The positions made while tracing: `(made from, made)` by Zobrist hash,
/// `made from` 0 for a position made from data.
static TRACE: Mutex<Trace> = Mutex::new(Trace {
    entries: Vec::new(),
    cut: false,
});

/// A graded call's trace.
pub struct Trace {
    /// `(made from, made)` by hash, in the order they were made.
    pub entries: Vec<(u64, u64)>,
    /// Whether entries past [`TRACE_LIMIT`] were dropped.
    pub cut: bool,
}

fn record(parent: u64, child: u64) {
    POSITIONS_MADE.fetch_add(1, Ordering::Relaxed);
    if TRACING.load(Ordering::Relaxed) {
        let mut trace = TRACE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if trace.entries.len() < TRACE_LIMIT {
            trace.entries.push((parent, child));
        } else {
            trace.cut = true;
        }
    }
}

/// Counts one position made by a move played from Python, from the
/// position hashed `parent`.
pub fn made_by_move(parent: u64, child: u64) {
    record(parent, child);
}

/// Counts one position made from data and handed to Python.
pub fn made(hash: u64) {
    record(0, hash);
}

/// The positions made so far (every thread's).
pub fn positions_made() -> u64 {
    POSITIONS_MADE.load(Ordering::Relaxed)
}

/// Starts a fresh trace (`on`) or stops tracing; returns what was traced.
pub fn take_trace(on: bool) -> Trace {
    let mut trace = TRACE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    TRACING.store(on, Ordering::Relaxed);
    Trace {
        entries: std::mem::take(&mut trace.entries),
        cut: std::mem::replace(&mut trace.cut, false),
    }
}

/// Bars the built-in searches for the rest of the process: no Python code
/// can lift it.
pub fn lock_bar() {
    if !LOCKED.swap(true, Ordering::SeqCst) {
        BARRED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Whether the bar is locked on for the rest of the process.
pub fn locked() -> bool {
    LOCKED.load(Ordering::SeqCst)
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

/// The number of positions handed to Python (`push`, `play`,
/// `apply_action`, `child`, and positions made from data) since the
/// module was loaded.
#[pyfunction]
pub fn _positions_made() -> u64 {
    positions_made()
}

/// Bars the built-in searches (`on=True`: one more holder) or lifts one
/// holder's bar (`on=False`); returns how many holders bar them now. In an
/// autograder's run the lock is a holder no call lifts: the count never
/// falls below it.
#[pyfunction]
pub fn _bar_builtins(on: bool) -> u64 {
    if on {
        return BARRED.fetch_add(1, Ordering::SeqCst) + 1;
    }
    let floor = u64::from(locked());
    let lifted = BARRED.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
        Some(n.saturating_sub(1).max(floor))
    });
    lifted.map_or(floor, |n| n.saturating_sub(1).max(floor))
}

/// Registers the functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_positions_made, m)?)?;
    m.add_function(wrap_pyfunction!(_bar_builtins, m)?)?;
    Ok(())
}
