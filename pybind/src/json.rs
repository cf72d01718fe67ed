//! Python values as JSON values, for the core's wire format readers.

use pyo3::prelude::*;
use serde_json::Value;

/// A Python value (dicts, lists, strings, numbers, booleans, None) as the
/// JSON value it would be written as.
pub fn to_value(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text: String = value
        .py()
        .import("json")?
        .call_method1("dumps", (value,))?
        .extract()?;
    // `json.dumps` writes JSON, except for NaN and infinities, which no
    // field takes; the core then says which field.
    serde_json::from_str(&text)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("not a JSON value: {e}")))
}
