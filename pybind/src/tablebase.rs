//! Solved tables for Python: `Tablebase` (opened from a file, or solved on
//! first use for a small game), what it answers (`Probe`, `MoveProbe`),
//! `analyse` and its report; their refusals are `TablebaseError`s
//! (`errors.rs`). Every answer is the core's (`sternhalma::solve`). The
//! core keeps no tables of its own: the module's are [`tables`], one set
//! for the process, where every table opened here is installed and which
//! `Bot("perfect")`, `Tablebase.installed()`, `Tablebase.for_position` and
//! `analyse` are given.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use sternhalma::solve::analysis::{self, AnalysisError};
use sternhalma::solve::tablebase::{self as tables, SMALL_STATES, is_solved_game};
use sternhalma::solve::{
    Game, MoveProbe, Probe, Progress, Tablebase, TablebaseError as TableError, Tablebases,
};
use sternhalma::{ParseError, ParseErrorKind, Position};

use crate::args;
use crate::board::PyBoard;
use crate::errors::{self, TablebaseError};
use crate::moves::PyMove;
use crate::position::PyPosition;

/// How often a build's progress is shown at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Positions from which `probe_many` shares its work among the cores.
const PARALLEL_FROM: usize = 4096;

/// `probe_indices`' answer: values and depths.
type ValuesAndDepths<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i16>>);

/// Tables solved by `Tablebase.load` in this process (rather than read).
static BUILT: Mutex<Vec<Weak<Tablebase>>> = Mutex::new(Vec::new());

/// The module's tables: every table opened from Python, for the life of
/// the process (Python's `Tablebase.installed()` lists them). The one
/// registry of tables there is: the core and the server keep none.
static TABLES: LazyLock<Arc<Tablebases>> = LazyLock::new(Arc::default);

/// The module's tables ([`TABLES`]), as the core is given them.
pub(crate) fn tables() -> &'static Arc<Tablebases> {
    &TABLES
}

/// The folder tables are kept in when `load` is given none: the core's
/// choice, given the user's cache folder as the platform names it.
fn default_folder() -> PathBuf {
    tables::cache_folder(dirs::cache_dir().as_deref())
}

/// A `TablebaseError` with `.code`.
fn raise(code: &str, message: String) -> PyErr {
    let code = Python::attach(|py| errors::text(py, code));
    errors::raise::<TablebaseError>(message, &[("code", code)])
}

/// The core's error as a `TablebaseError`.
pub fn table_error(error: &TableError) -> PyErr {
    raise(error.code(), error.to_string())
}

/// What to do when no loaded table covers `position`.
fn hint(position: &Position) -> String {
    let board = position.board().to_string();
    if is_solved_game(position.rules()) && Game::parse(&board, None).is_ok() {
        format!("load it first: sternhalma.Tablebase.load(\"{board}\")")
    } else {
        "the tables are of the sturtevant game on small rhombi: load one with \
         sternhalma.Tablebase.load(\"rhombus7p2\") and play from \
         Position.start(board=\"rhombus7p2\", rules=\"sturtevant\")"
            .to_owned()
    }
}

/// The core's error for a registry lookup of `position`, with what to do
/// when no table covers it.
pub fn lookup_error(error: &TableError, position: &Position) -> PyErr {
    match error {
        TableError::NotCovered(_) => raise(error.code(), format!("{error}; {}", hint(position))),
        _ => table_error(error),
    }
}

/// `4.8 MiB`, `12 KiB`.
fn size(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    } else {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    }
}

/// `559,352,640`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut text = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// The game a Python caller names: a `Board` or a board's name, and
/// `pegs` where the name does not say them (`load`, `download`).
fn game_from(board: &Bound<'_, PyAny>, pegs: Option<i128>) -> PyResult<Game> {
    let name = match board.extract::<PyRef<'_, PyBoard>>() {
        Ok(board) => board.board.to_string(),
        Err(_) => board.extract::<String>()?,
    };
    let pegs: Option<u8> = pegs
        .map(|n| args::whole("pegs", n, u128::from(u8::MAX)))
        .transpose()?;
    game_of(&name, pegs)
}

/// The game a board's name names: a board, or a square rhombus with a
/// peg count.
fn game_of(name: &str, pegs: Option<u8>) -> PyResult<Game> {
    Game::parse(name, pegs).map_err(|e| {
        // The core's message names the command line's `--pegs`.
        if pegs.is_none() && Game::parse(name, Some(1)).is_ok() {
            errors::notation(&ParseError::new(
                ParseErrorKind::Board,
                name,
                "say how many pegs a side: pegs=1, 2, 3, 4 or 6",
            ))
        } else {
            errors::notation(&e)
        }
    })
}

/// What a table says of a position for the side to move: ``value`` is
/// ``"win"``, ``"loss"`` or ``"draw"``, ``depth`` the plies to the end
/// under best play (the winner hurrying, the loser holding out), ``None``
/// for a draw or a table without depths. ``str()`` reads as a tablebase
/// does: ``win in 11``, ``loss in 0``, ``draw``.
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> probe = table.probe(Position.start(board="rhombus7p2", rules="sturtevant"))
/// >>> probe
/// <Probe win in 33>
/// >>> probe.value, probe.depth, str(probe)
/// (<SolvedValue.WIN: 'win'>, 33, 'win in 33')
#[pyclass(module = "sternhalma._core", name = "Probe", frozen)]
#[derive(Clone, Copy)]
pub struct PyProbe {
    probe: Probe,
}

impl From<Probe> for PyProbe {
    fn from(probe: Probe) -> PyProbe {
        PyProbe { probe }
    }
}

#[pymethods]
impl PyProbe {
    /// A ``SolvedValue``: ``win``, ``loss`` or ``draw``, for the side to move.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::enums::SOLVED_VALUE.member(py, self.probe.value.name())
    }

    /// Plies to the end under best play; ``None`` for a draw or without
    /// depths.
    #[getter]
    fn depth(&self) -> Option<u32> {
        self.probe.depth
    }

    fn __str__(&self) -> String {
        self.probe.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<Probe {}>", self.probe)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<'_, PyProbe>>()
            .is_ok_and(|o| o.probe == self.probe)
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        (self.probe.value, self.probe.depth).hash(&mut hasher);
        hasher.finish()
    }
}

/// A legal move and where it leads, for the player making it: ``value``
/// is the mover's value after the move (a win if it leaves the opponent
/// lost), ``depth`` the plies to the end counting the move. The best
/// move's value and depth are the position's.
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
/// >>> best = table.best_move(start)
/// >>> best
/// <MoveProbe 48-45 win in 33>
/// >>> best.move, best.value, best.depth, best.probe == table.probe(start)
/// (Move.parse('48-45'), <SolvedValue.WIN: 'win'>, 33, True)
#[pyclass(module = "sternhalma._core", name = "MoveProbe", frozen)]
#[derive(Clone)]
pub struct PyMoveProbe {
    mv: PyMove,
    probe: Probe,
}

impl PyMoveProbe {
    fn new(position: &Arc<Position>, probe: &MoveProbe) -> PyMoveProbe {
        PyMoveProbe {
            mv: PyMove::legal_in(position, probe.mv),
            probe: probe.probe(),
        }
    }

    fn text(&self) -> String {
        match (self.mv.from, self.mv.to) {
            (Some(from), Some(to)) => format!("{from}-{to}"),
            _ => "pass".to_owned(),
        }
    }
}

#[pymethods]
impl PyMoveProbe {
    /// The move (legal in the position probed).
    #[getter(r#move)]
    fn best_move(&self) -> PyMove {
        self.mv.clone()
    }

    /// The mover's value after the move, a ``SolvedValue``: ``win``,
    /// ``loss`` or ``draw``.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::enums::SOLVED_VALUE.member(py, self.probe.value.name())
    }

    /// Plies to the end from the position before the move, the move
    /// counted; ``None`` for a draw or without depths.
    #[getter]
    fn depth(&self) -> Option<u32> {
        self.probe.depth
    }

    /// The value and depth as a ``Probe`` (of the position before the move,
    /// had this move been the best).
    #[getter]
    fn probe(&self) -> PyProbe {
        self.probe.into()
    }

    fn __str__(&self) -> String {
        format!("{}: {}", self.text(), self.probe)
    }

    fn __repr__(&self) -> String {
        format!("<MoveProbe {} {}>", self.text(), self.probe)
    }
}

/// One solved game's table (RULES §7: the ``sturtevant`` rules, two players
/// on a small rhombus): the value of any position of that game and of every
/// move from it, as a chess tablebase answers ("win in 7", "draw", "loss in
/// 12").
///
/// ``Tablebase.load(board)`` reads the table from a folder, or for a small
/// game (up to 16 M positions a side: ``rhombus7p1``, ``rhombus7p2``,
/// ``rhombus4p6``, ``rhombus5p3``, ...) solves it there on first use, in
/// seconds; ``Tablebase.open(path)`` reads a file ``sternhalma solve-game``
/// wrote. Either installs the table for the process, so that
/// ``Bot("perfect")`` plays from it and ``analyse`` finds it. A position of
/// another game is a ``TablebaseError``, never a wrong answer.
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> table
/// <Tablebase rhombus7p2: 2 pegs a side, with depths, 1.2 MiB, from '...rhombus7p2.depths'>
/// >>> position = Position.start(board="rhombus7p2", rules="sturtevant")
/// >>> table.probe(position)
/// <Probe win in 33>
/// >>> [str(m) for m in table.moves(position)]
/// ['48-45: win in 33', '47-44: win in 37', '47-46: win in 37', '48-46: win in 37', '47-45: loss in 34']
/// >>> Bot("perfect", seed=1).step(position)
/// Move.parse('48-45')
/// >>> table.probe(Position())
/// Traceback (most recent call last):
///   ...
/// sternhalma.TablebaseError: the table is of rhombus7p2 (2 pegs a side), the position is on star4
#[pyclass(module = "sternhalma._core", name = "Tablebase", frozen)]
#[derive(Clone)]
pub struct PyTablebase {
    table: Arc<Tablebase>,
}

impl PyTablebase {
    /// Installs `table` in the module's tables ([`tables`]) and wraps it.
    /// Installing scans the table once for its counts, so the GIL is
    /// released.
    fn install(py: Python<'_>, table: Tablebase) -> PyTablebase {
        let table = Arc::new(table);
        py.detach(|| tables().install(Arc::clone(&table)));
        PyTablebase { table }
    }
}

/// Solves `game` into `folder` on every core, showing progress on
/// `display` (an object with `update(pass_, tiles_done, tiles, unknown)`
/// and `close(seconds, path)`) if given.
fn build_into(
    py: Python<'_>,
    folder: &Path,
    game: &Game,
    display: Option<Py<PyAny>>,
) -> PyResult<Tablebase> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let failure: Mutex<Option<PyErr>> = Mutex::new(None);
    let last: Mutex<Option<Instant>> = Mutex::new(None);
    // Called from the solver's threads: the GIL is taken only to show.
    let report = |p: Progress| {
        let Some(display) = &display else {
            return;
        };
        let due = {
            let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            let due = p.tiles_done >= p.tiles
                || last.is_none_or(|then| now.duration_since(then) >= PROGRESS_EVERY);
            if due {
                *last = Some(now);
            }
            due
        };
        if due {
            Python::attach(|py| {
                let shown =
                    display.call_method1(py, "update", (p.pass, p.tiles_done, p.tiles, p.unknown));
                if let Err(e) = shown {
                    failure
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(e);
                }
            });
        }
    };
    let started = Instant::now();
    let built = py.detach(|| Tablebase::open_or_build(folder, game, threads, &report));
    if let Some(display) = &display {
        let path = built
            .as_ref()
            .ok()
            .and_then(|t| t.source().map(Path::to_owned));
        display.call_method1(py, "close", (started.elapsed().as_secs_f64(), path))?;
    }
    let table = built.map_err(|e| table_error(&e))?;
    if let Some(e) = failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        return Err(e);
    }
    Ok(table)
}

#[pymethods]
impl PyTablebase {
    /// The folder `load` reads and solves tables in when given none:
    /// `$STERNHALMA_TABLES`, else `sternhalma/tables` under the user's
    /// cache folder as the platform names it (on Linux `$XDG_CACHE_HOME`,
    /// else `~/.cache`), else under the temporary folder.
    #[staticmethod]
    fn cache_folder() -> PathBuf {
        default_folder()
    }

    /// The table of a game: read from ``folder`` (default:
    /// ``cache_folder()``: ``$STERNHALMA_TABLES``, else, on Linux,
    /// ``~/.cache/sternhalma/tables``; its ``.depths`` file, else its
    /// ``.packed`` file, else its ``.values`` file) or, for a small game, solved there
    /// on first use (a few seconds for ``rhombus7p2``, on every core, the
    /// GIL released) and written for next time. Installs it for
    /// ``Bot("perfect")`` and ``analyse``.
    ///
    /// ``board`` is the board (``"rhombus7p2"``, a ``Board``) or a square
    /// rhombus with ``pegs`` (``"rhombus7x7"``, ``pegs=2``). ``progress``
    /// shows a solve as it goes: a tqdm bar if tqdm is installed, else a
    /// line on standard error. A game too large to solve on first use
    /// (``rhombus7p3``: 280 M positions a side) is solved beforehand with
    /// ``sternhalma solve-game``, or here with ``build=True``: solved into
    /// the folder the same way, values only (no depths), in under a minute
    /// on two cores and 42 MiB for ``rhombus7p3``, once. Without
    /// its file and without ``build=True``, ``TablebaseError`` (code
    /// ``no_tablebase``) says how. A file an older engine wrote is removed
    /// and counts as missing.
    ///
    /// >>> table = Tablebase.load("rhombus7x7", pegs=2, progress=False)
    /// >>> table.board, table.pegs, table.rules, table.has_depths, table.nbytes
    /// (Board('rhombus7p2'), 2, 'sturtevant', True, 1271256)
    /// >>> Tablebase.load("star4")
    /// Traceback (most recent call last):
    ///   ...
    /// sternhalma.NotationError: invalid board "star4": the solved game is played on a rhombus, e.g. rhombus7p3 (7x7 with 3 pegs a side)
    #[staticmethod]
    #[pyo3(signature = (board, pegs = None, *, folder = None, progress = true, build = false))]
    fn load(
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        pegs: Option<i128>,
        folder: Option<PathBuf>,
        progress: bool,
        build: bool,
    ) -> PyResult<Self> {
        let game = game_from(board, pegs)?;
        let folder = folder.unwrap_or_else(default_folder);
        tables::adopt_older_files(&folder, &game);
        let files = tables::files_in_order(&folder, &game);
        // A file an older engine wrote cannot be read: it is removed and
        // the table counts as missing (solved again as a missing one is).
        sternhalma::solve::file::remove_outdated(&files.each_ref().map(PathBuf::as_path))
            .map_err(|e| table_error(&e.into()))?;
        if let Some(path) = files.iter().find(|p| p.is_file()) {
            let table = py
                .detach(|| Tablebase::open(path))
                .map_err(|e| table_error(&e))?;
            return Ok(PyTablebase::install(py, table));
        }
        if game.ranking().states() > SMALL_STATES && !build {
            return Err(raise(
                "no_tablebase",
                format!(
                    "no table of the {game} in {folder}, and with {positions} positions it is too large to solve on first use (up to {small}): solve it once with `sternhalma solve-game --board {board} --out {folder}` and load it again, or here with `Tablebase.load(..., build=True)`",
                    folder = folder.display(),
                    positions = thousands(game.positions()),
                    small = thousands(2 * SMALL_STATES),
                    board = game.board(),
                ),
            ));
        }
        let display = if progress {
            let shown = py
                .import("sternhalma._progress")?
                .getattr("BuildDisplay")?
                .call1((game.board().to_string(), game.positions()))?;
            Some(shown.unbind())
        } else {
            None
        };
        let table = PyTablebase::install(py, build_into(py, &folder, &game, display)?);
        BUILT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::downgrade(&table.table));
        Ok(table)
    }

    /// The table in a file that ``sternhalma solve-game`` (or ``load``)
    /// wrote: a ``.depths`` file, or a ``.values`` file, or the ``.packed``
    /// file ``sternhalma tablebase pack`` makes of one (the same values in
    /// a sixth of the memory on 7×7 with 3 pegs, read entry by entry); that file, and
    /// not another beside it (``load`` finds a folder's). Installs it for
    /// ``Bot("perfect")`` and ``analyse``. A missing, damaged or unfinished
    /// file is a ``TablebaseError`` (code ``tablebase_file``).
    ///
    /// >>> path = Tablebase.load("rhombus7p2", progress=False).path
    /// >>> path.name
    /// 'rhombus7p2.depths'
    /// >>> table = Tablebase.open(path)
    /// >>> table.board, table.built
    /// (Board('rhombus7p2'), False)
    /// >>> Tablebase.open(path.with_name("nowhere.values"))
    /// Traceback (most recent call last):
    ///   ...
    /// sternhalma.TablebaseError: .../nowhere.values: No such file or directory (os error 2)
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let table = py
            .detach(|| Tablebase::open(&path))
            .map_err(|e| table_error(&e))?;
        Ok(PyTablebase::install(py, table))
    }

    /// Downloads the solved tables a Sternhalma server offers (``GET
    /// <server>/downloads/tables/``: a class server started with
    /// ``--tablebases``) into ``folder`` (default: ``cache_folder()``),
    /// checks each against the size and SHA-256 digest the listing gives,
    /// and installs it, as ``open`` does. With ``board`` (and ``pegs``, as
    /// ``load`` takes them), that board's table alone, answered; without,
    /// every table offered, answered as a list. A file already in the
    /// folder with the listed digest is not fetched again, and ``load``
    /// reads what was downloaded. ``progress`` shows each download: a tqdm
    /// bar if tqdm is installed, else a line on standard error.
    ///
    /// A server that cannot be reached, offers no table of the board, or
    /// sends a file whose size or digest differs from its listing's is a
    /// ``TablebaseError`` (code ``tablebase_download``); nothing is
    /// installed then, and no partial file is left.
    #[staticmethod]
    #[pyo3(signature = (server, board = None, pegs = None, *, folder = None, progress = true))]
    fn download(
        py: Python<'_>,
        server: &str,
        board: Option<&Bound<'_, PyAny>>,
        pegs: Option<i128>,
        folder: Option<PathBuf>,
        progress: bool,
    ) -> PyResult<Py<PyAny>> {
        let game = board.map(|board| game_from(board, pegs)).transpose()?;
        let folder = folder.unwrap_or_else(default_folder);
        let helper = py.import("sternhalma._tables")?;
        let fetched = helper.getattr("fetch")?.call1((
            server,
            game.as_ref().map(|g| g.board().to_string()),
            folder.clone(),
            progress,
        ));
        let paths: Vec<PathBuf> = match fetched {
            Ok(paths) => paths.extract()?,
            Err(e) if e.is_instance(py, &helper.getattr("DownloadFailed")?) => {
                let why = e.value(py).str()?.to_string();
                return Err(table_error(&TableError::Download(why)));
            }
            Err(e) => return Err(e),
        };
        let mut opened = Vec::new();
        for path in &paths {
            let table = py
                .detach(|| Tablebase::open(path))
                .map_err(|e| table_error(&e))?;
            opened.push(PyTablebase::install(py, table));
        }
        if game.is_some() {
            let table = opened.pop().ok_or_else(|| {
                table_error(&TableError::Download(format!("{server} sent no table")))
            })?;
            return Ok(Py::new(py, table)?.into_any());
        }
        Ok(opened.into_pyobject(py)?.into_any().unbind())
    }

    /// The tables installed in this process, by board name.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> "rhombus7p2" in [str(t.board) for t in Tablebase.installed()]
    /// True
    #[staticmethod]
    fn installed() -> Vec<PyTablebase> {
        tables()
            .list()
            .into_iter()
            .map(|table| PyTablebase { table })
            .collect()
    }

    /// The installed table that covers ``position``; ``TablebaseError``
    /// (code ``no_tablebase``, saying which table to load) if none does.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> Tablebase.for_position(Position.start(board="rhombus7p2", rules="sturtevant")).board
    /// Board('rhombus7p2')
    /// >>> Tablebase.for_position(Position())
    /// Traceback (most recent call last):
    ///   ...
    /// sternhalma.TablebaseError: no solved table covers star4; tables opened: ...; the tables are of the sturtevant game on small rhombi: ...
    #[staticmethod]
    fn for_position(position: PyRef<'_, PyPosition>) -> PyResult<PyTablebase> {
        let position = position.current();
        let table = tables()
            .for_position(position)
            .map_err(|e| lookup_error(&e, position))?;
        Ok(PyTablebase { table })
    }

    /// The value of ``position`` for the side to move, and its depth where
    /// the table keeps depths. A finished game is a loss in 0 for the side
    /// to move.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> position = Position.start(board="rhombus7p2", rules="sturtevant")
    /// >>> table.probe(position)
    /// <Probe win in 33>
    /// >>> position.push("48-45")
    /// >>> table.probe(position)
    /// <Probe loss in 32>
    fn probe(&self, position: PyRef<'_, PyPosition>) -> PyResult<PyProbe> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        self.table
            .probe(position.current())
            .map(PyProbe::from)
            .map_err(|e| table_error(&e))
    }

    /// Every legal move of ``position`` with the mover's value and depth
    /// after it, best first: the fastest wins, the draws, then the longest
    /// losses (among equals, in ``legal_moves`` order). Empty once the game
    /// is over.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> moves = table.moves(Position.start(board="rhombus7p2", rules="sturtevant"))
    /// >>> moves[0], moves[-1]
    /// (<MoveProbe 48-45 win in 33>, <MoveProbe 47-45 loss in 34>)
    fn moves(&self, position: PyRef<'_, PyPosition>) -> PyResult<Vec<PyMoveProbe>> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        // Best first.
        let moves = self
            .table
            .moves(position.current())
            .map_err(|e| table_error(&e))?;
        let shared = Arc::new(position.current().clone());
        Ok(moves.iter().map(|m| PyMoveProbe::new(&shared, m)).collect())
    }

    /// The best move: the fastest win, else a drawing move, else the
    /// longest loss; among equals, one drawn by ``seed``. A finished game
    /// is a ``TablebaseError`` (code ``game_over``).
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
    /// >>> str(table.best_move(start, seed=1))
    /// '48-45: win in 33'
    #[pyo3(signature = (position, seed = 0))]
    fn best_move(&self, position: PyRef<'_, PyPosition>, seed: i128) -> PyResult<PyMoveProbe> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        let seed: u64 = args::whole("seed", seed, u128::from(u64::MAX))?;
        let best = self
            .table
            .best_move(position.current(), seed)
            .map_err(|e| table_error(&e))?;
        Ok(PyMoveProbe::new(
            &Arc::new(position.current().clone()),
            &best,
        ))
    }

    /// The best line from ``position`` to the end of the game: each ply
    /// the best move (the first of ``moves``: the fastest win, the longest
    /// loss), with its mover's value and depth, one ply nearer the end each
    /// time, so that a win or a loss in N has N moves and ends in a
    /// finished game. A draw has no line to an end (an empty list, as
    /// lichess's ``/mainline`` answers), nor has a game over. The line is
    /// of the game without a move limit (a ``max_plies`` is set aside).
    /// A table without depths cannot find one: ``TablebaseError`` (code
    /// ``tablebase_without_depths``).
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> line = table.mainline(Position.start(board="rhombus7p2", rules="sturtevant"))
    /// >>> len(line), line[:3]
    /// (33, [<MoveProbe 48-45 win in 33>, <MoveProbe 0-3 loss in 32>, <MoveProbe 45-41 win in 31>])
    /// >>> line[-1]
    /// <MoveProbe 3-0 win in 1>
    fn mainline(
        &self,
        py: Python<'_>,
        position: PyRef<'_, PyPosition>,
    ) -> PyResult<Vec<PyMoveProbe>> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        let table = Arc::clone(&self.table);
        let current = position.current();
        let line = py
            .detach(|| table.mainline(current))
            .map_err(|e| table_error(&e))?;
        Ok(line
            .moves
            .iter()
            .zip(&line.positions)
            .map(|(m, here)| PyMoveProbe::new(&Arc::new(here.clone()), m))
            .collect())
    }

    /// The probes of many positions at once: ``positions`` is an iterable
    /// of ``Position``s and position strings, answered in order as
    /// ``probe`` answers each. The strings are parsed and probed with the
    /// GIL released, a long list on every core. The first position that cannot be
    /// probed raises what ``Position(text)`` or ``probe`` would (a
    /// ``NotationError``, an ``InvalidPositionError``, a ``TablebaseError``),
    /// with a note naming its place in the list.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
    /// >>> table.probe_many([start, "rhombus7p2 sturtevant south:45,47/north:0,1 1 1 -"])
    /// [<Probe win in 33>, <Probe loss in 32>]
    /// >>> table.probe_many([start, "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -"])
    /// Traceback (most recent call last):
    ///   ...
    /// sternhalma.InvalidPositionError: invalid position: ...
    fn probe_many(&self, py: Python<'_>, positions: &Bound<'_, PyAny>) -> PyResult<Vec<PyProbe>> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        /// Why a position could not be probed.
        enum Failure {
            Text(sternhalma::PositionError),
            Table(TableError),
        }
        /// One position asked for: a position made in Python, probed at
        /// once (a read: cheaper than a copy to take past the GIL), or a
        /// string, parsed and probed with the GIL released.
        enum Asked {
            Probed(Result<Probe, TableError>),
            Text(String),
        }
        let mut asked = Vec::new();
        for (i, item) in positions.try_iter()?.enumerate() {
            let item = item?;
            // Strings first: a failed cast costs no error object.
            if let Ok(text) = item.cast::<PyString>() {
                asked.push(Asked::Text(text.to_str()?.to_owned()));
            } else if let Ok(position) = item.cast::<PyPosition>() {
                asked.push(Asked::Probed(self.table.probe(position.borrow().current())));
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "positions[{i}]: a Position or a position string, not {}",
                    item.get_type().name()?
                )));
            }
        }
        let table = Arc::clone(&self.table);
        // Each slice of the list answered in order; the first failure of a
        // slice stops it (an earlier slice's, if any, is the one raised).
        let answer = |first: usize, slice: Vec<Asked>| {
            slice
                .into_iter()
                .enumerate()
                .map(|(k, asked)| {
                    let i = first + k;
                    match asked {
                        Asked::Probed(probed) => probed.map_err(|e| (i, Failure::Table(e))),
                        Asked::Text(text) => {
                            let position = text
                                .parse::<Position>()
                                .map_err(|e| (i, Failure::Text(e)))?;
                            table.probe(&position).map_err(|e| (i, Failure::Table(e)))
                        }
                    }
                })
                .collect::<Result<Vec<Probe>, (usize, Failure)>>()
        };
        let answered = py.detach(|| {
            // Parsing is the work: long lists are shared among the cores.
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            if threads == 1 || asked.len() < PARALLEL_FROM {
                return answer(0, asked);
            }
            let per_thread = asked.len().div_ceil(threads);
            let mut slices = Vec::new();
            let mut rest = asked;
            while !rest.is_empty() {
                let tail = rest.split_off(per_thread.min(rest.len()));
                slices.push(rest);
                rest = tail;
            }
            let answers: Vec<_> = std::thread::scope(|scope| {
                let handles: Vec<_> = slices
                    .into_iter()
                    .enumerate()
                    .map(|(n, slice)| {
                        let answer = &answer;
                        scope.spawn(move || answer(n * per_thread, slice))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a probe thread does not panic"))
                    .collect()
            });
            let mut probes = Vec::new();
            for answered in answers {
                probes.extend(answered?);
            }
            Ok(probes)
        });
        match answered {
            Ok(probes) => Ok(probes.into_iter().map(PyProbe::from).collect()),
            Err((i, failure)) => {
                let error = match failure {
                    Failure::Text(e) => errors::position(&e),
                    Failure::Table(e) => table_error(&e),
                };
                error
                    .value(py)
                    .call_method1("add_note", (format!("positions[{i}]"),))?;
                Err(error)
            }
        }
    }

    /// The values and depths of many table entries at once, without a
    /// Python object per position: ``indices`` is a NumPy array of
    /// ``uint64`` (or of ``int64`` with no negative number, or a list of
    /// ints) of indices as ``index`` gives them, from 0 to
    /// ``entries - 1``. Answers two arrays of the same length: ``values``
    /// (``int8``: 0 draw, 1 win, 2 loss for the side to move, 3 an entry
    /// that holds no position: illegal under RULES §7, or a mirror
    /// image's twin) and ``depths`` (``int16``: plies to the end, -1 for a
    /// draw, an empty entry or a table without depths). Runs with the GIL
    /// released; an index past the table raises ``TablebaseError`` (code
    /// ``tablebase_not_a_position``), naming the first.
    ///
    /// >>> import numpy as np
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> start = table.index(Position.start(board="rhombus7p2", rules="sturtevant"))
    /// >>> values, depths = table.probe_indices(np.array([start, 0], dtype=np.uint64))
    /// >>> values.tolist(), depths.tolist()
    /// ([1, 3], [33, -1])
    /// >>> values, depths = table.probe_indices(np.arange(table.entries, dtype=np.uint64))
    /// >>> int((values == 1).sum()), int((values == 3).sum()), int(depths.max())
    /// (710665, 5405, 37)
    fn probe_indices<'py>(
        &self,
        py: Python<'py>,
        indices: &Bound<'py, PyAny>,
    ) -> PyResult<ValuesAndDepths<'py>> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        let table = Arc::clone(&self.table);
        let probe_all = |indices: &[u64]| {
            let mut values = vec![0i8; indices.len()];
            let mut depths = vec![-1i16; indices.len()];
            for (i, probe) in table.probe_indices(indices)?.into_iter().enumerate() {
                values[i] = probe.value as i8;
                if let Some(depth) = probe.depth {
                    depths[i] = depth as i16;
                }
            }
            Ok::<_, TableError>((values, depths))
        };
        let answered = if let Ok(array) = indices.extract::<PyReadonlyArray1<'py, u64>>() {
            match array.as_slice() {
                Ok(slice) => py.detach(|| probe_all(slice)),
                // Not contiguous (a slice with a step): copied first.
                Err(_) => {
                    let copied: Vec<u64> = array.as_array().iter().copied().collect();
                    py.detach(|| probe_all(&copied))
                }
            }
        } else {
            let signed: Vec<i64> = if let Ok(array) =
                indices.extract::<PyReadonlyArray1<'py, i64>>()
            {
                array.as_array().iter().copied().collect()
            } else {
                indices.extract::<Vec<i64>>().map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(
                        "indices: a one-dimensional NumPy array of uint64 (or int64), or a list of ints",
                    )
                })?
            };
            let unsigned = signed
                .iter()
                .map(|&i| u64::try_from(i))
                .collect::<Result<Vec<u64>, _>>()
                .map_err(|_| {
                    pyo3::exceptions::PyValueError::new_err(
                        "indices: a table index is never negative",
                    )
                })?;
            py.detach(|| probe_all(&unsigned))
        };
        let (values, depths) = answered.map_err(|e| table_error(&e))?;
        Ok((values.into_pyarray(py), depths.into_pyarray(py)))
    }

    /// The table index of ``position`` (what ``probe_indices`` takes): a
    /// position and its rotation with the other side to move share one,
    /// and where the table folds the mirror (1, 3, 4 and 6 pegs) so do a
    /// position and its mirror image.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
    /// >>> index = table.index(start)
    /// >>> table.position(index) == start
    /// True
    fn index(&self, position: PyRef<'_, PyPosition>) -> PyResult<u64> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        self.table
            .index(position.current())
            .map_err(|e| table_error(&e))
    }

    /// The position that entry ``index`` stands for, with south to move (of
    /// a table that folds the mirror, the one of the two images the entry
    /// names). An index past the table, or of an entry that holds no
    /// position (illegal under RULES §7, or a twin), is a
    /// ``TablebaseError`` (code ``tablebase_not_a_position``).
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> table.position(1083)
    /// Position('rhombus7p2 sturtevant south:0,2/north:3,4 0 0 -')
    /// >>> table.position(0)
    /// Traceback (most recent call last):
    ///   ...
    /// sternhalma.TablebaseError: entry 0 of the table of rhombus7p2 holds no position: illegal under RULES §7
    fn position(&self, index: i128) -> PyResult<PyPosition> {
        crate::grading::allowed("sternhalma.Tablebase")?;
        let index: u64 = args::whole("index", index, u128::from(u64::MAX))?;
        let position = self
            .table
            .placement(index)
            .and_then(|placement| self.table.position_of(&placement))
            .map_err(|e| table_error(&e))?;
        Ok(PyPosition::from_core(position))
    }

    /// Entries of the table: the indices ``probe_indices`` takes are 0 to
    /// ``entries - 1``. Each stands for a position with south to move and
    /// its rotation with north to move, and where the table folds the
    /// mirror, for their mirror images too.
    ///
    /// >>> Tablebase.load("rhombus7p2", progress=False).entries
    /// 1271256
    #[getter]
    fn entries(&self) -> u64 {
        self.table.game().ranking().states()
    }

    /// The board of the solved game.
    #[getter]
    fn board(&self) -> PyBoard {
        PyBoard {
            board: self.table.game().board(),
        }
    }

    /// Pegs a side.
    #[getter]
    fn pegs(&self) -> u8 {
        self.table.game().pegs()
    }

    /// The rules of the solved game: ``"sturtevant"`` (whatever a
    /// position's ``max_plies``: the table is of the game without a limit).
    #[getter]
    fn rules(&self) -> &'static str {
        self.table.game().rules()
    }

    /// Whether the table knows each position's depth (plies to the end):
    /// what ``Bot("perfect")`` needs to hurry a win.
    #[getter]
    fn has_depths(&self) -> bool {
        self.table.has_depths()
    }

    /// Bytes of memory the table holds.
    #[getter]
    fn nbytes(&self) -> u64 {
        self.table.bytes()
    }

    /// The game's positions counted as Table 1 of Sturtevant (2019) and
    /// RULES §7 count them, either player to move: ``positions``,
    /// ``first_player_wins`` (won by the first player, south, whoever is to
    /// move), ``draws`` and ``illegal``.
    ///
    /// >>> Tablebase.load("rhombus7p2", progress=False).counts
    /// {'positions': 2542512, 'first_player_wins': 1265851, 'draws': 0, 'illegal': 10810}
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let [positions, wins, draws, illegal] = self.table.counts().published();
        let dict = PyDict::new(py);
        dict.set_item("positions", positions)?;
        dict.set_item("first_player_wins", wins)?;
        dict.set_item("draws", draws)?;
        dict.set_item("illegal", illegal)?;
        Ok(dict)
    }

    /// The positions with south to move, by their value for south: half of
    /// :attr:`counts`' positions (the other half, north to move, are their
    /// rotations, with the same values for north).
    ///
    /// >>> Tablebase.load("rhombus7p2", progress=False).counts_south_to_move
    /// {'wins': 710665, 'losses': 555186, 'draws': 0, 'illegal': 5405}
    #[getter]
    fn counts_south_to_move<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = self.table.counts();
        let dict = PyDict::new(py);
        dict.set_item("wins", counts.wins)?;
        dict.set_item("losses", counts.losses)?;
        dict.set_item("draws", counts.draws)?;
        dict.set_item("illegal", counts.illegal)?;
        Ok(dict)
    }

    /// The file the table was read from or written to (a ``pathlib.Path``).
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.table.source().map(Path::to_owned)
    }

    /// Whether ``load`` solved this table in this process (and wrote its
    /// file), rather than reading it.
    #[getter]
    fn built(&self) -> bool {
        BUILT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|built| std::ptr::eq(built.as_ptr(), Arc::as_ptr(&self.table)))
    }

    fn __repr__(&self) -> String {
        let game = self.table.game();
        let pegs = game.pegs();
        let mut text = format!(
            "<Tablebase {}: {pegs} peg{} a side, {}, {}",
            game.board(),
            if pegs == 1 { "" } else { "s" },
            if self.table.has_depths() {
                "with depths"
            } else {
                "values only"
            },
            size(self.table.bytes()),
        );
        if let Some(path) = self.table.source() {
            text.push_str(&format!(", from '{}'", path.display()));
        }
        text.push('>');
        text
    }
}

/// A game checked move by move against perfect play: ``plies`` (one
/// ``PlyAnalysis`` per move), ``seats`` (a ``SeatAnalysis`` for each
/// player) and ``end``, the final position's value for its side to move.
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> game = Position.start(board="rhombus7p2", rules="sturtevant")
/// >>> game.push("47-44")          # a win in 37 where 33 was possible
/// >>> game.push("0-3")
/// >>> report = analyse(game)
/// >>> report
/// <Analysis 2 plies, mistakes 0/0, end win in 35>
/// >>> [str(ply.verdict) for ply in report.plies], report.end
/// (['slower', 'best'], <Probe win in 35>)
/// >>> report.seats[0]
/// <SeatAnalysis moves=1 best=0 kept=1 mistakes=0 accuracy=1.000>
#[pyclass(module = "sternhalma._core", name = "Analysis", frozen)]
pub struct PyAnalysis {
    plies: Vec<Py<PyPlyAnalysis>>,
    seats: [Py<PySeatAnalysis>; 2],
    end: PyProbe,
}

#[pymethods]
impl PyAnalysis {
    /// Each ply, in order.
    #[getter]
    fn plies(&self, py: Python<'_>) -> Vec<Py<PyPlyAnalysis>> {
        self.plies.iter().map(|p| p.clone_ref(py)).collect()
    }

    /// Seat 0's and seat 1's moves, summed up.
    #[getter]
    fn seats(&self, py: Python<'_>) -> (Py<PySeatAnalysis>, Py<PySeatAnalysis>) {
        (self.seats[0].clone_ref(py), self.seats[1].clone_ref(py))
    }

    /// The final position's value for its side to move.
    #[getter]
    fn end(&self) -> PyProbe {
        self.end
    }

    /// The plies whose move threw the value away.
    ///
    /// >>> table = Tablebase.load("rhombus7p2", progress=False)
    /// >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
    /// >>> analyse(start, ["47-45"]).mistakes()
    /// [<PlyAnalysis 0 seat 0 47-45: win in 33 -> loss in 34, mistake (best 48-45: win in 33)>]
    fn mistakes(&self, py: Python<'_>) -> Vec<Py<PyPlyAnalysis>> {
        self.plies
            .iter()
            .filter(|p| p.get().verdict == "mistake")
            .map(|p| p.clone_ref(py))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.plies.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Analysis {} plies, mistakes {}/{}, end {}>",
            self.plies.len(),
            self.seats[0].get().mistakes,
            self.seats[1].get().mistakes,
            self.end.probe
        )
    }
}

/// One ply of an analysed game: the ``seat`` that played ``move``, its
/// value ``before`` and ``after`` the move, the ``best`` move there, and
/// the ``verdict``: ``"best"`` (the best move's value and depth),
/// ``"slower"`` (the value kept, but a win made longer or a loss shorter)
/// or ``"mistake"`` (a win thrown to a draw or a loss, a draw to a loss).
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> ply = analyse(Position.start(board="rhombus7p2", rules="sturtevant"), ["47-44"]).plies[0]
/// >>> ply
/// <PlyAnalysis 0 seat 0 47-44: win in 33 -> win in 37, slower (best 48-45: win in 33)>
/// >>> ply.ply, ply.seat, ply.move, ply.before, ply.after, ply.verdict
/// (0, 0, Move.parse('47-44'), <Probe win in 33>, <Probe win in 37>, <Verdict.SLOWER: 'slower'>)
/// >>> ply.best
/// <MoveProbe 48-45 win in 33>
#[pyclass(module = "sternhalma._core", name = "PlyAnalysis", frozen)]
pub struct PyPlyAnalysis {
    /// The ply, from 0.
    #[pyo3(get)]
    ply: u32,
    /// The seat that moved.
    #[pyo3(get)]
    seat: usize,
    mv: PyMove,
    before: PyProbe,
    after: PyProbe,
    best: PyMoveProbe,
    verdict: &'static str,
}

#[pymethods]
impl PyPlyAnalysis {
    /// The move played.
    #[getter(r#move)]
    fn played(&self) -> PyMove {
        self.mv.clone()
    }

    /// The position's value for the mover before the move.
    #[getter]
    fn before(&self) -> PyProbe {
        self.before
    }

    /// The mover's value after the move.
    #[getter]
    fn after(&self) -> PyProbe {
        self.after
    }

    /// The best move there, with its value and depth (``before``'s).
    #[getter]
    fn best(&self) -> PyMoveProbe {
        self.best.clone()
    }

    /// A ``Verdict``: ``best``, ``slower`` or ``mistake``.
    #[getter]
    fn verdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::enums::VERDICT.member(py, self.verdict)
    }

    fn __repr__(&self) -> String {
        let played = match (self.mv.from, self.mv.to) {
            (Some(from), Some(to)) => format!("{from}-{to}"),
            _ => "pass".to_owned(),
        };
        format!(
            "<PlyAnalysis {} seat {} {played}: {} -> {}, {} (best {})>",
            self.ply,
            self.seat,
            self.before.probe,
            self.after.probe,
            self.verdict,
            self.best.__str__()
        )
    }
}

/// One seat's moves in an analysed game, summed up: ``moves`` made,
/// ``best`` moves, ``kept`` (best or slower: the value kept), ``mistakes``,
/// and ``accuracy``, the share kept (``None`` if it made no move).
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> report = analyse(Position.start(board="rhombus7p2", rules="sturtevant"), ["47-45", "0-3"])
/// >>> report.seats[0]
/// <SeatAnalysis moves=1 best=0 kept=0 mistakes=1 accuracy=0.000>
/// >>> seat = report.seats[1]
/// >>> seat.moves, seat.best, seat.kept, seat.mistakes, seat.accuracy
/// (1, 1, 1, 0, 1.0)
#[pyclass(module = "sternhalma._core", name = "SeatAnalysis", frozen)]
pub struct PySeatAnalysis {
    /// Moves it made.
    #[pyo3(get)]
    moves: u32,
    /// Moves that kept the value (best or slower).
    #[pyo3(get)]
    kept: u32,
    /// Moves among the best.
    #[pyo3(get)]
    best: u32,
    /// Moves that threw the value away.
    #[pyo3(get)]
    mistakes: u32,
    /// The share of its moves that kept the value; ``None`` if it made none.
    #[pyo3(get)]
    accuracy: Option<f64>,
}

#[pymethods]
impl PySeatAnalysis {
    fn __repr__(&self) -> String {
        let accuracy = self
            .accuracy
            .map_or_else(|| "None".to_owned(), |a| format!("{a:.3}"));
        format!(
            "<SeatAnalysis moves={} best={} kept={} mistakes={} accuracy={accuracy}>",
            self.moves, self.best, self.kept, self.mistakes
        )
    }
}

/// Checks a game against perfect play, move by move (see ``Analysis``).
///
/// Without ``moves``, the game is ``start``'s own: from the position its
/// move stack started at, through every move pushed since. With ``moves``
/// (``Move``s or move texts), the game starts at ``start`` as it stands.
/// ``tablebase`` defaults to the installed table that covers the game
/// (``Tablebase.for_position``).
///
/// >>> table = Tablebase.load("rhombus7p2", progress=False)
/// >>> start = Position.start(board="rhombus7p2", rules="sturtevant")
/// >>> report = analyse(start, ["48-45", "0-2"], table)
/// >>> [(ply.seat, str(ply.verdict)) for ply in report.plies]
/// [(0, 'best'), (1, 'slower')]
/// >>> analyse(start, ["48-45", "48-46"])
/// Traceback (most recent call last):
///   ...
/// sternhalma.IllegalMoveError: illegal move: there is no peg on hole 48
/// move 1 of the line, in rhombus7p2 sturtevant south:45,47/north:0,1 1 1 -
#[pyfunction]
#[pyo3(signature = (start, moves = None, tablebase = None))]
pub fn analyse(
    py: Python<'_>,
    start: PyRef<'_, PyPosition>,
    moves: Option<&Bound<'_, PyAny>>,
    tablebase: Option<PyRef<'_, PyTablebase>>,
) -> PyResult<PyAnalysis> {
    crate::grading::allowed("sternhalma.analyse")?;
    let (first, line) = match moves {
        Some(moves) => (start.current().clone(), start.resolve_line(moves)?),
        None => start.history(),
    };
    let table = match &tablebase {
        Some(table) => Arc::clone(&table.table),
        None => tables()
            .for_position(&first)
            .map_err(|e| lookup_error(&e, &first))?,
    };
    let report = py
        .detach(|| analysis::analyse(&table, &first, &line))
        .map_err(|e| match e {
            AnalysisError::Tablebase(e) => table_error(&e),
            AnalysisError::IllegalMove { .. } => {
                let code = Python::attach(|py| errors::text(py, e.code()));
                errors::raise::<errors::IllegalMoveError>(
                    format!("illegal move: {e}"),
                    &[("code", code)],
                )
            }
        })?;
    let mut position = first;
    let mut plies = Vec::with_capacity(report.plies.len());
    for ply in &report.plies {
        let here = Arc::new(position.clone());
        let analysed = PyPlyAnalysis {
            ply: ply.ply,
            seat: ply.seat,
            mv: PyMove::legal_in(&here, ply.mv),
            before: ply.before.into(),
            after: ply.after.into(),
            best: PyMoveProbe::new(&here, &ply.best),
            verdict: ply.verdict.name(),
        };
        plies.push(Py::new(py, analysed)?);
        position.make_move(ply.mv);
    }
    let seat = |i: usize| {
        let s = &report.seats[i];
        Py::new(
            py,
            PySeatAnalysis {
                moves: s.moves,
                kept: s.kept,
                best: s.best,
                mistakes: s.mistakes,
                accuracy: s.accuracy(),
            },
        )
    };
    Ok(PyAnalysis {
        plies,
        seats: [seat(0)?, seat(1)?],
        end: report.end.into(),
    })
}

/// Adds the classes and the function to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTablebase>()?;
    m.add_class::<PyProbe>()?;
    m.add_class::<PyMoveProbe>()?;
    m.add_class::<PyAnalysis>()?;
    m.add_class::<PyPlyAnalysis>()?;
    m.add_class::<PySeatAnalysis>()?;
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    Ok(())
}
