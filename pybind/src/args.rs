//! The arguments Python passes, read into the core's values: whole
//! numbers in range, seeds, ply budgets, thread counts, policy names. A
//! bad one is a `ValueError` naming the argument. Every class and function
//! that takes them reads them here, so that no two of those modules import
//! each other for a parser.

use std::hash::{BuildHasher, Hasher};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sternhalma::search::{Policy, UnknownPolicy};

/// A Python int that must be a whole number from 0 up (a budget, a count):
/// a `ValueError` naming the argument and its range otherwise, instead of
/// the `OverflowError` a negative number would raise.
pub fn whole<T: TryFrom<i128>>(name: &str, value: i128, max: u128) -> PyResult<T> {
    T::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be a whole number from 0 to {max}, not {value}"
        ))
    })
}

/// The policy named, or a `ValueError` listing them.
pub fn policy(name: &str) -> PyResult<Policy> {
    name.parse()
        .map_err(|e: UnknownPolicy| PyValueError::new_err(e.to_string()))
}

/// The seed given, or a fresh one from the operating system's randomness.
pub fn seed(seed: Option<i128>) -> PyResult<u64> {
    match seed {
        Some(seed) => whole("seed", seed, u128::from(u64::MAX)),
        None => {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(0x5eed);
            Ok(hasher.finish())
        }
    }
}

/// A ply budget: a whole number up to 2^32 - 1.
pub fn plies(name: &str, value: i128) -> PyResult<u32> {
    whole(name, value, u128::from(u32::MAX))
}

/// Threads to run on: at least 1, at most 1024; by default every core.
pub fn threads(threads: Option<i128>) -> PyResult<usize> {
    match threads {
        Some(n) if n >= 1 => whole("threads", n, 1024),
        Some(_) => Err(PyValueError::new_err("threads must be at least 1")),
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
    }
}
