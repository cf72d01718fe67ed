//! The student's side of an autograder's run (`sternhalma.autograde`): the
//! lock that holds for the whole run, and the loop that answers the
//! grader's calls.
//!
//! The grader runs in another process and never runs student code. The
//! runner (`python -m sternhalma.autograde.runner`, in a sandbox) locks
//! the process down ([`_graded_run_lock`]), runs the notebook's cells,
//! then hands the two pipes to [`_graded_run_serve`]. From then on this
//! loop, in Rust, reads each call, makes its positions, calls the
//! student's function through the notebook's adapter, and writes the
//! answer as plain JSON with what the engine saw: the positions made, and
//! on request their trace, and the final state of every position the call
//! was given. Student code can change what its functions return, never
//! what the engine reports: the count and the trace live in the engine,
//! the bar cannot be lifted, and each answer carries the nonce of its call,
//! which only this loop has read (a line the student writes to the pipe
//! without it is ignored by the grader).
//!
//! The lock installs an audit hook (PEP 578; Python code cannot remove
//! one) that refuses, for the rest of the process: new processes
//! (`subprocess`, `os.system`, `os.fork`, `os.exec*`, `os.posix_spawn`),
//! the foreign-function modules (`ctypes`, `cffi`) and the process's own
//! memory and kernel files (`/proc`, `/sys`, `/dev/mem`), and network
//! connections other than the ones the grader allows. The sandbox around
//! the process (a user without rights, no network, no view of the course)
//! is the grader's, not this module's.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::sync::OnceLock;

use pyo3::exceptions::{PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value, json};

use crate::grading;
use crate::moves::PyMove;
use crate::position::PyPosition;

/// The addresses (`host:port`) the grader lets the run connect to.
static CONNECT: OnceLock<Vec<String>> = OnceLock::new();

/// Folders the run's Python code may not open (the solved tables: the
/// engine reads them, a student's code may not).
static HIDDEN: OnceLock<Vec<String>> = OnceLock::new();

/// Modules a graded run may not import: foreign functions (which reach
/// the engine's memory) and process spawning.
const BARRED_MODULES: &[&str] = &[
    "ctypes",
    "_ctypes",
    "cffi",
    "_cffi_backend",
    "_posixsubprocess",
    "multiprocessing",
    "_multiprocessing",
    "pty",
];

/// Audit events refused outright in a graded run.
const BARRED_EVENTS: &[&str] = &[
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.startfile",
    "pty.spawn",
    "sys.remote_exec",
];

/// Paths a graded run may not open: the process's memory and the
/// kernel's views of it.
const BARRED_PATHS: &[&str] = &["/proc", "/sys", "/dev/mem", "/dev/kmem", "/dev/port"];

fn refused(what: String) -> PyErr {
    PyPermissionError::new_err(format!("{what} is not allowed in a graded run"))
}

/// The audit hook of a graded run (installed by [`_graded_run_lock`]).
#[pyfunction]
fn _graded_run_audit(event: &str, args: &Bound<'_, PyTuple>) -> PyResult<()> {
    if BARRED_EVENTS.contains(&event) || event.starts_with("ctypes.") {
        return Err(refused(format!("`{event}`")));
    }
    match event {
        "import" => {
            let module: String = args.get_item(0)?.extract()?;
            let top = module.split('.').next().unwrap_or_default();
            if BARRED_MODULES.contains(&top) {
                return Err(refused(format!("importing `{module}`")));
            }
        }
        "open" | "os.listdir" | "os.scandir" | "os.chdir" | "shutil.copyfile" | "os.rename"
        | "os.link" | "os.symlink" => {
            let path = args.get_item(0)?;
            let text = if let Ok(s) = path.cast::<PyString>() {
                s.to_cow()?.into_owned()
            } else if let Ok(b) = path.cast::<PyBytes>() {
                String::from_utf8_lossy(b.as_bytes()).into_owned()
            } else if path.is_instance_of::<PyInt>() || path.is_none() {
                // An open file descriptor or the current folder: the
                // descriptor was opened by a path checked here.
                return Ok(());
            } else {
                path.str()?.to_cow()?.into_owned()
            };
            // A relative path cannot reach /proc from the sandbox's
            // folder, except through a link the sandbox does not have.
            let normal = text.replace("//", "/");
            let hidden = HIDDEN.get().map(Vec::as_slice).unwrap_or_default();
            if BARRED_PATHS
                .iter()
                .map(|p| (*p).to_owned())
                .chain(hidden.iter().cloned())
                .any(|p| normal == p || normal.starts_with(&format!("{p}/")))
            {
                return Err(refused(format!("opening `{text}`")));
            }
        }
        "socket.connect" | "socket.connect_ex" | "socket.sendto" | "socket.sendmsg" => {
            let address = args.get_item(1)?;
            let allowed = CONNECT.get().map(Vec::as_slice).unwrap_or_default();
            let named = address
                .cast::<PyTuple>()
                .ok()
                .filter(|t| t.len() >= 2)
                .and_then(|t| {
                    let host: String = t.get_item(0).ok()?.extract().ok()?;
                    let port: u16 = t.get_item(1).ok()?.extract().ok()?;
                    Some(format!("{host}:{port}"))
                });
            match named {
                Some(named) if allowed.contains(&named) => {}
                _ => return Err(refused(format!("a connection to {address}"))),
            }
        }
        _ => {}
    }
    Ok(())
}

/// Locks this process down for an autograder's run, for good: the
/// built-in searches barred (the bar cannot be lifted), and an audit hook
/// refusing new processes, `ctypes`, `/proc`, the folders in `hidden`
/// (absolute paths: their files are the engine's to read) and connections
/// other than to `connect` (`ip:port` texts). Called by the runner before
/// any student code runs; a second call changes nothing.
#[pyfunction]
#[pyo3(signature = (connect = Vec::new(), hidden = Vec::new()))]
fn _graded_run_lock(py: Python<'_>, connect: Vec<String>, hidden: Vec<String>) -> PyResult<()> {
    if CONNECT.set(connect).is_err() {
        return Ok(());
    }
    let hidden = hidden
        .into_iter()
        .map(|h| h.trim_end_matches('/').to_owned())
        .filter(|h| h.starts_with('/') && h.len() > 1)
        .collect();
    let _ = HIDDEN.set(hidden);
    grading::lock_bar();
    let hook = wrap_pyfunction!(_graded_run_audit, py)?;
    py.import("sys")?.call_method1("addaudithook", (hook,))?;
    Ok(())
}

/// The most nested lists and dicts an answer may hold.
const DEPTH_LIMIT: usize = 32;
/// The most values (numbers, strings, ...) an answer may hold.
const SIZE_LIMIT: usize = 1_000_000;

/// A float as JSON: non-finite values as `{"$float": "inf"}`.
fn float(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x.is_nan() {
        json!({"$float": "nan"})
    } else if x > 0.0 {
        json!({"$float": "inf"})
    } else {
        json!({"$float": "-inf"})
    }
}

/// A student's answer as plain JSON, read from the objects' own data
/// (a `float` subclass is its number, whatever its `__eq__` says): bools,
/// ints, floats, strings, lists, tuples, dicts with string keys, `None`,
/// moves (their text), positions (`{"$position": string}`) and numpy
/// arrays and numbers (by `tolist`).
fn answer(value: &Bound<'_, PyAny>, depth: usize, size: &mut usize) -> Result<Value, String> {
    *size += 1;
    if *size > SIZE_LIMIT {
        return Err(format!("more than {SIZE_LIMIT} values"));
    }
    if depth > DEPTH_LIMIT {
        return Err(format!("more than {DEPTH_LIMIT} nested lists or dicts"));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return match value.extract::<i64>() {
            Ok(i) => Ok(json!(i)),
            Err(_) => Ok(json!({"$int": value.str().map_err(|e| e.to_string())?.to_string()})),
        };
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(float(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(
            s.to_cow().map_err(|e| e.to_string())?.into_owned(),
        ));
    }
    if let Ok(m) = value.extract::<PyRef<'_, PyMove>>() {
        return Ok(json!({"$move": m.text().to_string()}));
    }
    if let Ok(p) = value.extract::<PyRef<'_, PyPosition>>() {
        return Ok(json!({"$position": p.core().to_string()}));
    }
    if let Ok(list) = value.cast::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        for i in 0..list.len() {
            let item = list.get_item(i).map_err(|e| e.to_string())?;
            items.push(answer(&item, depth + 1, size)?);
        }
        return Ok(Value::Array(items));
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        let mut items = Vec::with_capacity(tuple.len());
        for item in tuple.iter() {
            items.push(answer(&item, depth + 1, size)?);
        }
        return Ok(Value::Array(items));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = Map::new();
        for (key, item) in dict.iter() {
            let key = key
                .cast::<PyString>()
                .map_err(|_| "a dict with a key that is not a string".to_owned())?
                .to_cow()
                .map_err(|e| e.to_string())?
                .into_owned();
            map.insert(key, answer(&item, depth + 1, size)?);
        }
        return Ok(Value::Object(map));
    }
    let kind = value.get_type();
    let module = kind.module().map(|m| m.to_string()).unwrap_or_default();
    if module == "numpy" {
        let plain = value
            .call_method0("tolist")
            .map_err(|e| format!("numpy's tolist failed: {e}"))?;
        if plain
            .get_type()
            .module()
            .map(|m| m.to_string())
            .unwrap_or_default()
            == "numpy"
        {
            return Err("a numpy value that is not plain data".to_owned());
        }
        return answer(&plain, depth + 1, size);
    }
    Err(format!(
        "a {}.{} where plain data (numbers, strings, lists, dicts, moves, positions) was expected",
        module,
        kind.name().map(|n| n.to_string()).unwrap_or_default()
    ))
}

/// A call's argument as a Python value: `{"$position": text}` a new
/// position (kept in `positions`, to report its state after the call),
/// `{"$float": "inf"}` a float, lists and dicts as they are.
fn argument<'py>(
    py: Python<'py>,
    value: &Value,
    positions: &mut Vec<Bound<'py, PyPosition>>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into_pyobject(py)?.into_any(),
            None => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(argument(py, item, positions)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            if let (1, Some(Value::String(text))) = (map.len(), map.get("$position")) {
                let position = PyPosition::from_text_uncounted(text)?;
                let bound = Bound::new(py, position)?;
                positions.push(bound.clone());
                return Ok(bound.into_any());
            }
            if let (1, Some(Value::String(text))) = (map.len(), map.get("$float")) {
                let x: f64 = match text.as_str() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    other => return Err(PyValueError::new_err(format!("no float {other}"))),
                };
                return Ok(x.into_pyobject(py)?.into_any());
            }
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, argument(py, item, positions)?)?;
            }
            dict.into_any()
        }
    })
}

/// What an exception says, without trusting its `__str__` to behave.
fn error(py: Python<'_>, err: &PyErr) -> Value {
    let kind = err
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".to_owned());
    let message = err
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "(its message could not be read)".to_owned());
    let message: String = message.chars().take(2000).collect();
    json!({"type": kind, "message": message})
}

/// One call: `{"nonce", "call", "args", "trace"}` answered with
/// `{"nonce", "ok" | "error", "positions", "trace", "cut", "after"}`.
fn serve_one(py: Python<'_>, adapters: &Bound<'_, PyDict>, request: &Value) -> Value {
    let nonce = request.get("nonce").cloned().unwrap_or(Value::Null);
    let call = request.get("call").and_then(Value::as_str).unwrap_or("");
    let tracing = request
        .get("trace")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut positions = Vec::new();
    let no_args = Vec::new();
    let args = request
        .get("args")
        .and_then(Value::as_array)
        .unwrap_or(&no_args);
    let built: PyResult<Vec<Bound<'_, PyAny>>> = args
        .iter()
        .map(|a| argument(py, a, &mut positions))
        .collect();
    let adapter = adapters.get_item(call).ok().flatten();
    let (Ok(built), Some(adapter)) = (built, adapter) else {
        return json!({"nonce": nonce, "error": {"type": "GraderError", "message": format!("no call `{call}` or its arguments are malformed")}, "positions": 0});
    };
    let _ = grading::take_trace(tracing);
    let before = grading::positions_made();
    let result = PyTuple::new(py, built).and_then(|args| adapter.call1(args));
    let made = grading::positions_made() - before;
    let trace = grading::take_trace(false);
    let after: Vec<Value> = positions
        .iter()
        .map(|p| {
            let p = p.borrow();
            json!({"position": p.core().to_string(), "stack": p.stack_len()})
        })
        .collect();
    let mut answer_json = json!({"nonce": nonce, "positions": made, "after": after});
    match result {
        Ok(value) => {
            let mut size = 0;
            match answer(&value, 0, &mut size) {
                Ok(v) => answer_json["ok"] = v,
                Err(why) => {
                    answer_json["error"] =
                        json!({"type": "NotPlainData", "message": format!("the answer is {why}")});
                }
            }
        }
        Err(err) => answer_json["error"] = error(py, &err),
    }
    if tracing {
        answer_json["trace"] = Value::Array(
            trace
                .entries
                .iter()
                .map(|(parent, child)| json!([parent.to_string(), child.to_string()]))
                .collect(),
        );
        answer_json["cut"] = Value::Bool(trace.cut);
    }
    answer_json
}

/// Answers the grader's calls on the pipes `read_fd` and `write_fd` until
/// the grader closes them or sends `{"call": "$exit"}`. `adapters` maps
/// each call's name to the function that calls the student's code with
/// the call's arguments. Only callable after `_graded_run_lock`.
#[pyfunction]
fn _graded_run_serve(
    py: Python<'_>,
    adapters: &Bound<'_, PyDict>,
    read_fd: i32,
    write_fd: i32,
) -> PyResult<()> {
    if !grading::locked() {
        return Err(PyValueError::new_err(
            "_graded_run_serve answers an autograder only after _graded_run_lock",
        ));
    }
    // SAFETY: the runner hands over two pipe descriptors it opened for
    // this loop and uses nowhere else; the files own them from here on.
    let (input, mut output) = unsafe {
        (
            std::fs::File::from_raw_fd(read_fd),
            std::fs::File::from_raw_fd(write_fd),
        )
    };
    let mut lines = BufReader::new(input).lines();
    loop {
        let line = py.detach(|| lines.next());
        let Some(Ok(line)) = line else {
            return Ok(());
        };
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if request.get("call").and_then(Value::as_str) == Some("$exit") {
            return Ok(());
        }
        let answer = serve_one(py, adapters, &request);
        let mut text = answer.to_string();
        text.push('\n');
        let written = py.detach(|| {
            output
                .write_all(text.as_bytes())
                .and_then(|()| output.flush())
        });
        if written.is_err() {
            return Ok(());
        }
    }
}

/// Starts a fresh trace of the positions made (`on=True`) or stops
/// tracing (`on=False`); returns what was traced since the last call:
/// `(made from, made)` hash pairs (`made from` 0 for a position made from
/// data) and whether the trace was cut at its limit. A notebook's own
/// checks (`sternhalma.autograde.check`) trace with it; the autograder's
/// loop traces in Rust.
#[pyfunction]
fn _graded_trace(on: bool) -> (Vec<(u64, u64)>, bool) {
    let trace = grading::take_trace(on);
    (trace.entries, trace.cut)
}

/// Registers the functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_graded_trace, m)?)?;
    m.add_function(wrap_pyfunction!(_graded_run_lock, m)?)?;
    m.add_function(wrap_pyfunction!(_graded_run_serve, m)?)?;
    Ok(())
}
