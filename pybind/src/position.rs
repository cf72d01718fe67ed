//! The position class: python-chess's vocabulary, open_spiel's names.

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sternhalma::search::{Playout, Rng};
use sternhalma::wire::{self, PositionJson};
use sternhalma::{
    Cell, Charset, Layout, Move, MoveText, NewGame, Played, Position, SvgOptions, TextOptions,
    Undo, render_svg, render_text,
};

use crate::board::{PyBoard, PyRules, make_rules};
use crate::errors;
use crate::legal::PyLegalMoves;
use crate::moves::{PyMove, PyOutcome};

/// What `__reduce__` returns: the restoring function and its arguments.
type Reduced = (Py<PyAny>, (String, Vec<String>));

thread_local! {
    /// The move buffer of `legal_actions`, reused from call to call.
    static MOVES: std::cell::RefCell<Vec<Move>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The position of `Position()`.
const DEFAULT_START: &str = "star4 classic south:111-120/north:0-9 0 0 -";

/// open_spiel's id for "no player: the game is over".
const TERMINAL_PLAYER: i64 = -4;

/// A position with its move stack.
///
/// `Position(text)` reads a position string; without one it is the
/// standard two-player start under classic rules. `Position.start(...)`
/// starts any board, layout and rules.
///
/// Its methods speak three vocabularies that students bring, besides its own;
/// where two families name the same thing, both names work and each
/// method's help names its twin:
///
/// - python-chess: `legal_moves`, `push`, `pop`, `peek`, `move_stack`,
///   `copy`, `is_legal`, `is_game_over`, `outcome`, `unicode`,
///   `_repr_svg_`;
/// - open_spiel (action numbers): `legal_actions`, `apply_action`,
///   `undo_action`, `clone`, `child`, `is_terminal`, `returns`,
///   `current_player`, `num_players`, `num_distinct_actions`,
///   `observation_tensor`, `action_to_move`, `move_to_action`;
/// - Gymnasium and PettingZoo: `action_mask`, `rgb_array`;
/// - its own: `start`, `side_to_move`, `ply`, `play`, `playout`,
///   `parse_move`, `resign`, `svg`, `ascii`, `pegs`, `player_pegs`,
///   `owner`, `legal_moves_from`, `zobrist_hash`, `perft`, `to_json`,
///   `from_json`.
///
/// Synonyms: `push` / `apply_action`, `pop` / `undo_action`, `copy` /
/// `clone`, `play` / `child`, `is_game_over` / `is_terminal`,
/// `side_to_move` / `current_player`, `outcome().results` / `returns`,
/// `legal_moves` / `legal_actions`.
///
/// >>> p = Position()                      # two players, classic rules, standard board
/// >>> str(p)
/// 'star4 classic south:111-120/north:0-9 0 0 -'
/// >>> len(p.legal_moves), Move.parse("115-104") in p.legal_moves
/// (14, True)
/// >>> p.push("115-104")
/// >>> p.side_to_move, p.peek()
/// (1, Move.parse('115-104'))
/// >>> p.pop()
/// Move.parse('115-104')
/// >>> p.push("111-112")
/// Traceback (most recent call last):
///   ...
/// sternhalma.IllegalMoveError: illegal move: hole 112 is occupied
#[pyclass(module = "sternhalma._core", name = "Position")]
#[derive(Clone)]
pub struct PyPosition {
    position: Position,
    /// Moves played since the position was made, with what undoes them and
    /// the path given (`None`: the move's witness, found when asked for).
    stack: Vec<(Move, Undo, Option<Vec<usize>>)>,
}

impl PyPosition {
    /// A core position with an empty move stack.
    pub fn from_core(position: Position) -> PyPosition {
        PyPosition::wrap(position)
    }

    /// `Position()`: the standard two-player start, classic rules.
    pub fn default_start() -> Position {
        DEFAULT_START.parse().expect("the default start parses")
    }

    /// A position handed to Python, made from data rather than by a move
    /// (a position string, a start, JSON, a pickle): counted as one
    /// position made (`sternhalma.grading`).
    fn wrap(position: Position) -> PyPosition {
        crate::grading::made(position.zobrist_hash());
        PyPosition::wrap_uncounted(position)
    }

    /// A position for the engine's own use, never handed to Python.
    fn wrap_uncounted(position: Position) -> PyPosition {
        PyPosition {
            position,
            stack: Vec::new(),
        }
    }

    /// A position from its string, not counted: made by the autograder's
    /// loop for a call's arguments, before the call's count starts.
    pub fn from_text_uncounted(text: &str) -> PyResult<PyPosition> {
        let position = text.parse::<Position>().map_err(|e| errors::position(&e))?;
        Ok(PyPosition::wrap_uncounted(position))
    }

    /// The current position, for the graded run's report.
    pub fn core(&self) -> &Position {
        &self.position
    }

    /// The number of moves on the stack, for the graded run's report.
    pub fn stack_len(&self) -> usize {
        self.stack.len()
    }

    /// Plays a resolved move, counted as a position made by a move
    /// (`push`, `play`, `apply_action`, `child`).
    fn push_counted(&mut self, mv: Move, path: Option<Vec<usize>>) {
        let parent = self.position.zobrist_hash();
        self.push_move(mv, path);
        crate::grading::made_by_move(parent, self.position.zobrist_hash());
    }

    /// The legal move named by a `Move` or a move text, resolved by the
    /// core with its path.
    fn resolve(&self, mv: &Bound<'_, PyAny>) -> PyResult<Played> {
        let text = if let Ok(m) = mv.extract::<PyRef<'_, PyMove>>() {
            if let Some(legal) = m.legal_here(&self.position) {
                return Ok(self.position.played(legal));
            }
            m.text()
        } else if let Ok(s) = mv.extract::<&str>() {
            s.parse::<MoveText>().map_err(|e| errors::notation(&e))?
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "a move is a Move or a move text such as '115-104'",
            ));
        };
        self.position
            .resolve(&text)
            .map_err(|e| errors::illegal(&e))
    }

    /// The current position (after the moves of the stack).
    pub fn current(&self) -> &Position {
        &self.position
    }

    /// Plays a legal move; `path` as in `stack`.
    fn push_move(&mut self, mv: Move, path: Option<Vec<usize>>) {
        let undo = self.position.make_move(mv);
        self.stack.push((mv, undo, path));
    }

    /// The legal move a `Move` or a move text names, and the path to keep
    /// for it: none (the witness, found when asked for) for a move listed
    /// by `legal_moves` here, so pushing it searches for nothing.
    fn resolve_for_push(&self, mv: &Bound<'_, PyAny>) -> PyResult<(Move, Option<Vec<usize>>)> {
        if let Ok(m) = mv.extract::<PyRef<'_, PyMove>>() {
            if let Some(legal) = m.legal_here(&self.position) {
                return Ok((legal, None));
            }
        }
        let played = self.resolve(mv)?;
        Ok((
            played.mv,
            Some(played.path.iter().map(|c| c.id()).collect()),
        ))
    }

    /// The position the move stack started from, and the moves played
    /// since, in order.
    pub fn history(&self) -> (Position, Vec<Move>) {
        (
            self.root(),
            self.stack.iter().map(|(mv, _, _)| *mv).collect(),
        )
    }

    /// The legal moves that `moves` (an iterable of `Move`s or move texts)
    /// name in turn from this position, each checked as `push` checks it;
    /// an illegal one raises `IllegalMoveError` with a note naming its ply.
    pub fn resolve_line(&self, moves: &Bound<'_, PyAny>) -> PyResult<Vec<Move>> {
        let mut walker = PyPosition::wrap_uncounted(self.position.clone());
        let mut line = Vec::new();
        for (ply, mv) in moves.try_iter()?.enumerate() {
            let (mv, path) = walker.resolve_for_push(&mv?).inspect_err(|e| {
                let note = format!("move {ply} of the line, in {}", walker.position);
                Python::attach(|py| {
                    // A note only adds context; the error stands without it.
                    let _ = e.value(py).call_method1("add_note", (note,));
                });
            })?;
            walker.push_move(mv, path);
            line.push(mv);
        }
        Ok(line)
    }

    fn holes(&self) -> usize {
        self.position.geometry().len()
    }

    fn text_picture(
        &self,
        charset: Charset,
        colours: bool,
        bottom: Option<&str>,
        legend: bool,
    ) -> PyResult<String> {
        let bottom = bottom.map(crate::board::parse_triangle).transpose()?;
        Ok(render_text(
            &self.position,
            &TextOptions {
                charset,
                colours,
                bottom,
                legend,
            },
        ))
    }

    /// The legal move an action number stands for, checked.
    fn move_of(&self, action: usize) -> PyResult<Move> {
        self.position
            .action_move(action)
            .map_err(|e| errors::illegal(&e))
    }

    fn root(&self) -> Position {
        let mut root = self.position.clone();
        for (mv, undo, _) in self.stack.iter().rev() {
            root.unmake_move(*mv, *undo);
        }
        root
    }
}

#[pymethods]
impl PyPosition {
    /// A position from its position string; without one, the standard
    /// two-player start under classic rules.
    #[new]
    #[pyo3(signature = (text = None))]
    fn new(text: Option<&str>) -> PyResult<Self> {
        let text = text.unwrap_or(DEFAULT_START);
        let position = text.parse::<Position>().map_err(|e| errors::position(&e))?;
        Ok(PyPosition::wrap(position))
    }

    /// The start of a game.
    ///
    /// `rules` is a preset or rules text, or a `Rules`; keyword overrides
    /// (`long_jumps=True`, `finish="ranking"`, ...) apply on top. `board`
    /// defaults to the board of the preset the rules print as (`rhombus9p10`
    /// for `research`, `star4` otherwise), however they were spelled.
    /// `layout` (default `2`): `1`, `2`, `3`, `4`, `6`, `2x3`, `3x2` (an int
    /// `2` reads as `"2"`) or in full
    /// (`south+north/south_west+north_east`).
    ///
    /// >>> Position.start(board="rhombus9p10", rules="research").legal_moves[0]
    /// Move.parse('71-66')
    #[staticmethod]
    #[pyo3(signature = (board = None, layout = None, rules = None, first_player = 0, **overrides))]
    fn start(
        board: Option<&Bound<'_, PyAny>>,
        layout: Option<&Bound<'_, PyAny>>,
        rules: Option<&Bound<'_, PyAny>>,
        first_player: Option<usize>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let rules_text = match rules {
            None => "classic".to_owned(),
            Some(r) => match r.extract::<PyRef<'_, PyRules>>() {
                Ok(rules) => rules.rules.to_string(),
                // A dict is the JSON rules object of the HTTP API.
                Err(_) if r.is_instance_of::<PyDict>() => wire::rules(&crate::json::to_value(r)?)
                    .map_err(|e| errors::notation(&e))?
                    .to_string(),
                Err(_) => r.extract::<String>()?,
            },
        };
        let board = match board {
            None => None,
            Some(b) => Some(match b.extract::<PyRef<'_, PyBoard>>() {
                Ok(board) => board.board,
                Err(_) => b
                    .extract::<String>()?
                    .parse()
                    .map_err(|e| errors::notation(&e))?,
            }),
        };
        // `layout=4` reads as `layout="4"`.
        let layout = layout
            .map(|l| -> PyResult<Layout> {
                let text = if l.is_instance_of::<pyo3::types::PyInt>() {
                    l.str()?.to_string()
                } else {
                    l.extract::<String>()?
                };
                text.parse().map_err(|e| errors::notation(&e))
            })
            .transpose()?;
        let game = NewGame {
            board,
            layout,
            rules: Some(make_rules(&rules_text, overrides)?),
            first_player,
        };
        Ok(PyPosition::wrap(
            game.start().map_err(|e| errors::invalid(&e))?,
        ))
    }

    /// A position from the JSON form the HTTP API uses (a dict or a JSON
    /// string).
    #[staticmethod]
    fn from_json(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = match value.extract::<String>() {
            Ok(text) => wire::parse_json(&text).map_err(|e| errors::notation(&e))?,
            Err(_) => crate::json::to_value(value)?,
        };
        let position = wire::position(&value).map_err(|e| errors::position(&e))?;
        Ok(PyPosition::wrap(position))
    }

    /// The position in the JSON form of the HTTP API, as a dict.
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(&PositionJson::from(&self.position))
            .expect("a position serialises");
        py.import("json")?.call_method1("loads", (json,))
    }

    // ---- python-chess vocabulary -------------------------------------------

    /// Every legal move, ordered by start then end hole; `[pass]` when the
    /// player to move has no other; empty when the game is over.
    ///
    /// A `LegalMoves` sequence: `"115-104" in position.legal_moves` takes
    /// move texts as well as `Move`s.
    #[getter]
    fn legal_moves(&self) -> PyLegalMoves {
        PyLegalMoves::new(&self.position, self.position.legal_moves())
    }

    /// The legal moves of the peg on one hole (a `LegalMoves` sequence).
    fn legal_moves_from(&self, hole: usize) -> PyResult<PyLegalMoves> {
        let cell = self
            .position
            .geometry()
            .cell(hole)
            .ok_or_else(|| PyIndexError::new_err(format!("hole {hole} is not on the board")))?;
        Ok(PyLegalMoves::new(
            &self.position,
            self.position.legal_moves_from(cell),
        ))
    }

    /// Whether a move (a `Move` or a move text) is legal here.
    fn is_legal(&self, mv: &Bound<'_, PyAny>) -> bool {
        // A listed move needs no check, and no path search.
        self.resolve_for_push(mv).is_ok()
    }

    /// The legal move a `Move` or move text names here, with its kind and
    /// path; raises `IllegalMoveError` saying why if there is none.
    fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyMove> {
        Ok(PyMove::played(&self.resolve(mv)?))
    }

    /// Plays a move (a `Move` or a move text), checked (python-chess's
    /// name; `apply_action` is open_spiel's, with an action number).
    fn push(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<()> {
        let (mv, path) = self.resolve_for_push(mv)?;
        self.push_counted(mv, path);
        Ok(())
    }

    /// Takes back the last move and returns it (python-chess's name;
    /// `undo_action` is open_spiel's).
    fn pop(&mut self) -> PyResult<PyMove> {
        let (mv, undo, path) = self
            .stack
            .pop()
            .ok_or_else(|| PyIndexError::new_err("pop from an empty move stack"))?;
        self.position.unmake_move(mv, undo);
        Ok(PyMove::with_path(&self.position, mv, path.as_ref()))
    }

    /// The last move played, without taking it back.
    fn peek(&self) -> PyResult<PyMove> {
        let (mv, undo, path) = self
            .stack
            .last()
            .ok_or_else(|| PyIndexError::new_err("peek at an empty move stack"))?;
        let mut before = self.position.clone();
        before.unmake_move(*mv, *undo);
        Ok(PyMove::with_path(&before, *mv, path.as_ref()))
    }

    /// The moves played since this position was made (or started).
    #[getter]
    fn move_stack(&self) -> PyResult<Vec<PyMove>> {
        let mut position = self.root();
        let mut moves = Vec::with_capacity(self.stack.len());
        for (mv, _, path) in &self.stack {
            moves.push(PyMove::with_path(&position, *mv, path.as_ref()));
            position.make_move(*mv);
        }
        Ok(moves)
    }

    /// A copy, move stack included (python-chess's name; `clone` is
    /// open_spiel's, and `copy.copy(position)` works too).
    fn copy(&self) -> Self {
        Clone::clone(self)
    }

    /// The position after a move, leaving this one unchanged (`child` is
    /// the same with an action number, open_spiel's name).
    fn play(&self, mv: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (mv, path) = self.resolve_for_push(mv)?;
        let mut next = Clone::clone(self);
        next.push_counted(mv, path);
        Ok(next)
    }

    /// The position a playout from here reaches: moves chosen by `policy`
    /// until the game is over or `max_plies` plies have been played, all in
    /// Rust with the GIL released. Leaves this position unchanged; the
    /// playout's moves are on the new one's move stack.
    ///
    /// `policy`: `"uniform"` (a uniformly random legal move; random play
    /// wanders and seldom ends a game) or `"forward"` (a random move among
    /// those that bring the peg nearer its target, any move when none
    /// does). `seed`: the same seed plays the same moves; `None` draws a
    /// fresh one.
    ///
    /// >>> end = Position().playout(policy="forward", seed=1, max_plies=2000)
    /// >>> end.is_game_over(), len(end.move_stack) == end.ply
    /// (True, True)
    #[pyo3(signature = (policy = "uniform", *, seed = None, max_plies = 1000))]
    fn playout(
        &self,
        py: Python<'_>,
        policy: &str,
        seed: Option<i128>,
        max_plies: i128,
    ) -> PyResult<Self> {
        crate::grading::allowed("Position.playout")?;
        let policy = crate::args::policy(policy)?;
        let seed = crate::args::seed(seed)?;
        let max_plies = crate::args::plies("max_plies", max_plies)?;
        let mut next = Clone::clone(self);
        py.detach(|| {
            let mut playout = Playout::new(&next.position, policy);
            let mut rng = Rng::new(seed);
            for _ in 0..max_plies {
                let Some(mv) = playout.choose(&next.position, &mut rng) else {
                    break;
                };
                next.push_move(mv, None);
            }
        });
        Ok(next)
    }

    /// The position after `player` resigns a game of three or more: they
    /// leave it, their pegs stay as obstacles, their turns are skipped and
    /// they rank last. Leaves this position unchanged; the new one starts
    /// with an empty move stack (a resignation is not a move, and cannot be
    /// popped). With two players a resignation simply loses, so it is
    /// refused.
    ///
    /// >>> three = Position.start(board="star2", layout=3)
    /// >>> after = three.resign(0)
    /// >>> after.side_to_move, after.is_resigned(0)
    /// (1, True)
    /// >>> Position().resign(0)
    /// Traceback (most recent call last):
    ///   ...
    /// sternhalma.IllegalMoveError: illegal move: player 0 cannot resign: with two players a resignation ends the game: it loses
    fn resign(&self, player: usize) -> PyResult<Self> {
        let next = self
            .position
            .resign(player)
            .map_err(|e| errors::illegal(&e))?;
        Ok(PyPosition::wrap(next))
    }

    /// Whether `player` has resigned.
    fn is_resigned(&self, player: usize) -> bool {
        self.position.is_resigned(player)
    }

    /// How the game stands.
    fn outcome(&self) -> PyOutcome {
        PyOutcome::new(&self.position)
    }

    /// Whether the game is over (python-chess's name; `is_terminal` is
    /// open_spiel's).
    fn is_game_over(&self) -> bool {
        self.position.is_game_over()
    }

    /// The player to move (0-based), also once the game is over
    /// (`current_player()` is open_spiel's twin, which answers -4 then).
    #[getter]
    fn side_to_move(&self) -> usize {
        self.position.side_to_move()
    }

    /// Plies played since the game's start (passes included).
    #[getter]
    fn ply(&self) -> u32 {
        self.position.ply()
    }

    /// The board.
    #[getter]
    fn board(&self) -> PyBoard {
        PyBoard {
            board: self.position.board(),
        }
    }

    /// The rules.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: *self.position.rules(),
        }
    }

    /// The layout: players in turn order, each player's start triangles.
    #[getter]
    fn layout(&self) -> String {
        self.position.layout().to_string()
    }

    /// Number of players.
    fn num_players(&self) -> usize {
        self.position.layout().player_count()
    }

    /// The move limit (in plies, passes included) of this game when
    /// programs play it: the rules' own `max_plies`, or else 200 turns for
    /// each player. Stored matches, the open_spiel game and the PettingZoo
    /// environment default to it, so that random play ends.
    ///
    /// >>> Position().program_move_limit(), Position.start(layout=6).program_move_limit()
    /// (400, 1200)
    /// >>> Position.start(rules="research").program_move_limit()
    /// 200
    fn program_move_limit(&self) -> u32 {
        let game = NewGame {
            board: Some(self.position.board()),
            layout: Some(*self.position.layout()),
            rules: Some(*self.position.rules()),
            first_player: None,
        };
        game.program_move_limit()
            .expect("a game programs play has a move limit")
    }

    /// Each player's sets: a list (players in turn order) of dicts from
    /// start triangle to the holes of that set's pegs.
    #[getter]
    fn pegs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let layout = self.position.layout();
        let players = PyList::empty(py);
        for player in 0..layout.player_count() {
            let sets = PyDict::new(py);
            for triangle in layout.sets_of(player) {
                let holes: Vec<usize> = self
                    .position
                    .pegs_of_triangle(triangle)
                    .unwrap_or_default()
                    .iter()
                    .map(Cell::id)
                    .collect();
                sets.set_item(triangle.name(), holes)?;
            }
            players.append(sets)?;
        }
        Ok(players)
    }

    /// The holes holding a player's pegs.
    fn player_pegs(&self, player: usize) -> PyResult<Vec<usize>> {
        if player >= self.position.layout().player_count() {
            return Err(PyIndexError::new_err(format!("no player {player}")));
        }
        Ok(self
            .position
            .player_pegs(player)
            .iter()
            .map(Cell::id)
            .collect())
    }

    /// The owner of the peg on a hole (None: empty or neutral).
    fn owner(&self, hole: usize) -> Option<usize> {
        self.position
            .geometry()
            .cell(hole)
            .and_then(|c| self.position.owner_at(c))
    }

    /// The 64-bit Zobrist hash (pegs, player to move, finished players).
    #[getter]
    fn zobrist_hash(&self) -> u64 {
        self.position.zobrist_hash()
    }

    /// Counts move sequences of `depth` plies (the GIL is released meanwhile).
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let position = self.position.clone();
        py.detach(move || sternhalma::perft(&position, depth))
    }

    /// An SVG picture; by default the last move is highlighted.
    #[pyo3(signature = (*, size = None, highlight = None, peg = None, ids = false, bottom = None))]
    fn svg(
        &self,
        size: Option<u32>,
        highlight: Option<&Bound<'_, PyAny>>,
        peg: Option<usize>,
        ids: bool,
        bottom: Option<&str>,
    ) -> PyResult<String> {
        let bottom = bottom.map(crate::board::parse_triangle).transpose()?;
        let geometry = self.position.geometry();
        let highlight_path = match highlight {
            Some(h) => {
                let text = if let Ok(m) = h.extract::<PyRef<'_, PyMove>>() {
                    m.text()
                } else {
                    h.extract::<&str>()?
                        .parse::<MoveText>()
                        .map_err(|e| errors::notation(&e))?
                };
                match text {
                    MoveText::Pass => Vec::new(),
                    MoveText::Path(holes) => {
                        holes.into_iter().filter_map(|h| geometry.cell(h)).collect()
                    }
                }
            }
            None => match self.stack.last() {
                Some((_, _, Some(path))) => path.iter().filter_map(|&h| geometry.cell(h)).collect(),
                Some((mv, undo, None)) => {
                    let mut before = self.position.clone();
                    before.unmake_move(*mv, *undo);
                    before.witness_path(*mv)
                }
                None => Vec::new(),
            },
        };
        Ok(render_svg(
            &self.position,
            &SvgOptions {
                size,
                highlight_path,
                destinations_of: peg.and_then(|h| geometry.cell(h)),
                show_ids: ids,
                bottom,
            },
        ))
    }

    /// Jupyter draws the position with this.
    fn _repr_svg_(&self) -> PyResult<String> {
        self.svg(None, None, None, false, None)
    }

    /// The `svg` picture as pixels, for learning code and videos: a numpy
    /// uint8 array of shape `(height, width, 3)` (RGB), `size` pixels wide
    /// (480 by default) and as high as `svg(size=size)`. Drawn by the core
    /// without text or antialiasing, so every peg pixel is exactly its
    /// set's colour; `bottom` turns the board as `svg` does.
    ///
    /// >>> image = Position().rgb_array(size=120)
    /// >>> image.shape[1:], image.dtype.name
    /// ((120, 3), 'uint8')
    /// >>> image[0, 0].tolist()                # the background
    /// [255, 255, 255]
    #[pyo3(signature = (*, size = None, bottom = None))]
    fn rgb_array<'py>(
        &self,
        py: Python<'py>,
        size: Option<u32>,
        bottom: Option<&str>,
    ) -> PyResult<Bound<'py, numpy::PyArray3<u8>>> {
        let bottom = bottom.map(crate::board::parse_triangle).transpose()?;
        let position = self.position.clone();
        let image = py.detach(move || {
            sternhalma::render_rgb(&position, &sternhalma::RasterOptions { size, bottom })
        });
        let shape = (image.height as usize, image.width as usize, 3);
        let array = numpy::ndarray::Array3::from_shape_vec(shape, image.pixels)
            .expect("a raster holds height * width * 3 bytes");
        Ok(array.into_pyarray(py))
    }

    /// A text picture of the board with Unicode pegs (`⓪`-`⑤` a player's
    /// peg, `·` an empty hole, `◆` a neutral peg), for a terminal;
    /// `str(position)` stays the position string. `colours=True` paints each
    /// peg its set's colour (ANSI escape codes); `bottom` turns the board as
    /// `svg` does; `legend=False` leaves out the last line (who is to move,
    /// or the outcome).
    ///
    /// >>> print(Position.start(board="star2").unicode(legend=False))
    ///       ①
    ///      ① ①
    /// · · · · · · ·
    ///  · · · · · ·
    ///   · · · · ·
    ///  · · · · · ·
    /// · · · · · · ·
    ///      ⓪ ⓪
    ///       ⓪
    /// <BLANKLINE>
    #[pyo3(signature = (*, colours = false, bottom = None, legend = true))]
    fn unicode(&self, colours: bool, bottom: Option<&str>, legend: bool) -> PyResult<String> {
        self.text_picture(Charset::Unicode, colours, bottom, legend)
    }

    /// The same picture in plain ASCII (`0`-`5` a player's peg, `.` an
    /// empty hole, `*` a neutral peg).
    ///
    /// >>> p = Position()
    /// >>> p.push("115-104")
    /// >>> print(p.ascii())
    ///             1
    ///            1 1
    ///           1 1 1
    ///          1 1 1 1
    /// . . . . . . . . . . . . .
    ///  . . . . . . . . . . . .
    ///   . . . . . . . . . . .
    ///    . . . . . . . . . .
    ///     . . . . . . . . .
    ///    . . . . . . . . . .
    ///   . . . . . . . . . . .
    ///  . . . . . . . . . . . .
    /// . . . . . . 0 . . . . . .
    ///          0 0 0 0
    ///           . 0 0
    ///            0 0
    ///             0
    /// player 1 to move, ply 1
    /// <BLANKLINE>
    #[pyo3(signature = (*, bottom = None, legend = true))]
    fn ascii(&self, bottom: Option<&str>, legend: bool) -> PyResult<String> {
        self.text_picture(Charset::Ascii, false, bottom, legend)
    }

    // ---- open_spiel names ------------------------------------------------------

    /// The player to move, or -4 (open_spiel's TERMINAL) when the game is
    /// over (open_spiel's name; `side_to_move` is the property).
    fn current_player(&self) -> i64 {
        if self.position.is_game_over() {
            TERMINAL_PLAYER
        } else {
            self.position.side_to_move() as i64
        }
    }

    /// Legal moves as action numbers: `from * holes + to`, and a pass as
    /// `holes * holes` (see `num_distinct_actions`). open_spiel's name;
    /// `legal_moves` lists the same moves as `Move`s.
    fn legal_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        MOVES.with_borrow_mut(|moves| {
            self.position.legal_moves_into(moves);
            crate::actions::list(py, &self.position, moves)
        })
    }

    /// The legal actions as a mask: a bool array of
    /// `num_distinct_actions()` entries, True at each legal action (all
    /// False once the game is over), as `VectorEnv.action_mask` gives for
    /// each game. `mask.view(numpy.int8)` is the int8 mask PettingZoo and
    /// Gymnasium use, without a copy.
    ///
    /// >>> import numpy as np
    /// >>> p = Position()
    /// >>> mask = p.action_mask()
    /// >>> mask.dtype, mask.shape, np.flatnonzero(mask).tolist() == p.legal_actions()
    /// (dtype('bool'), (14642,), True)
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = Array1::<bool>::from_elem(self.position.num_distinct_actions(), false);
        MOVES.with_borrow_mut(|moves| {
            self.position.legal_moves_into(moves);
            for &mv in moves.iter() {
                mask[self.position.action(mv)] = true;
            }
        });
        mask.into_pyarray(py)
    }

    /// Plays an action, checked (the one peg's moves are generated, not
    /// the whole position's). open_spiel's name; `push` takes a `Move`.
    fn apply_action(&mut self, action: usize) -> PyResult<()> {
        let mv = self.move_of(action)?;
        self.push_counted(mv, None);
        Ok(())
    }

    /// Takes back the last action (open_spiel's name; `pop` also answers
    /// the move).
    fn undo_action(&mut self) -> PyResult<()> {
        self.pop().map(|_| ())
    }

    /// The number of action numbers: `holes * holes + 1`.
    fn num_distinct_actions(&self) -> usize {
        self.position.num_distinct_actions()
    }

    /// The move an action number stands for (it must be legal here).
    fn action_to_move(&self, action: usize) -> PyResult<PyMove> {
        let mv = self.move_of(action)?;
        Ok(PyMove::legal(&self.position, mv))
    }

    /// The action number of a legal move.
    fn move_to_action(&self, mv: &Bound<'_, PyAny>) -> PyResult<usize> {
        Ok(self.position.action(self.resolve(mv)?.mv))
    }

    /// A copy, move stack included (open_spiel's name; `copy` is
    /// python-chess's).
    #[pyo3(name = "clone")]
    fn clone_position(&self) -> Self {
        Clone::clone(self)
    }

    /// The position after an action, leaving this one unchanged
    /// (open_spiel's name; `play` takes a `Move`).
    fn child(&self, action: usize) -> PyResult<Self> {
        let mut next = Clone::clone(self);
        next.apply_action(action)?;
        Ok(next)
    }

    /// Whether the game is over (open_spiel's name; `is_game_over` is
    /// python-chess's).
    fn is_terminal(&self) -> bool {
        self.position.is_game_over()
    }

    /// Each player's result (0 until the game is over): open_spiel's name
    /// for `outcome().results`.
    fn returns(&self) -> Vec<f64> {
        self.position.results()
    }

    /// The position as numbers, for learning code: a float32 array of shape
    /// `(players + 2, holes)`. Plane `i < players` marks the pegs of player
    /// `(side_to_move + i) % players` (so plane 0 is always the player to
    /// move); plane `players` the neutral pegs; plane `players + 1` the
    /// empty holes.
    fn observation_tensor<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        let players = self.position.layout().player_count();
        let holes = self.holes();
        let side = self.position.side_to_move();
        let mut planes = Array2::<f32>::zeros((players + 2, holes));
        for i in 0..players {
            for cell in self.position.player_pegs((side + i) % players) {
                planes[[i, cell.id()]] = 1.0;
            }
        }
        for cell in self.position.neutral() {
            planes[[players, cell.id()]] = 1.0;
        }
        for cell in self
            .position
            .geometry()
            .all()
            .difference(self.position.occupied())
        {
            planes[[players + 1, cell.id()]] = 1.0;
        }
        planes.into_pyarray(py)
    }

    // ---- Python protocol ------------------------------------------------------------

    fn __str__(&self) -> String {
        self.position.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.position)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<'_, PyPosition>>()
            .is_ok_and(|o| o.position == self.position)
    }

    fn __hash__(&self) -> u64 {
        self.position.zobrist_hash()
    }

    fn __copy__(&self) -> Self {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        Clone::clone(self)
    }

    /// Pickles as the position the stack started from, and the moves.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<Reduced> {
        let restore = py.import("sternhalma._core")?.getattr("_restore")?.unbind();
        let moves = self
            .stack
            .iter()
            .map(|(mv, _, path)| match (mv, path) {
                (Move::Pass, _) => "pass".to_owned(),
                (_, Some(path)) => MoveText::Path(path.clone()).to_string(),
                // A witness: the move's two ends name the same legal move.
                (_, None) => mv.to_string(),
            })
            .collect();
        Ok((restore, (self.root().to_string(), moves)))
    }
}

/// Rebuilds a pickled position: the root position string and the moves.
#[pyfunction]
pub fn _restore(root: &str, moves: Vec<String>) -> PyResult<PyPosition> {
    let root = root.parse::<Position>().map_err(|e| errors::position(&e))?;
    let mut position = PyPosition::wrap_uncounted(root);
    Python::attach(|py| {
        for text in moves {
            // Checked as `push` checks, and not counted one by one: the
            // restored position is counted once below, as any position
            // made from data (a pickle cannot make children uncounted).
            let (mv, path) = position.resolve_for_push(&text.into_pyobject(py)?.into_any())?;
            position.push_move(mv, path);
        }
        Ok::<_, PyErr>(())
    })?;
    crate::grading::made(position.position.zobrist_hash());
    Ok(position)
}
