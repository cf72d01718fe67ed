//! Moves and outcomes.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;
use sternhalma::{Cell, Move, MoveText, Outcome, Played, Position, wire};

use crate::{enums, errors};

/// A move: where a peg starts and ends, and how it gets there.
///
/// `Move(from_hole, to_hole)` is a move by its ends, checked when pushed;
/// `Move.parse(text)` reads a move text.
///
/// Moves from `Position.legal_moves` know their kind and carry one path; a
/// move parsed from text is checked when it is pushed. Two moves are equal
/// when they start and end on the same holes. As in python-chess, a move
/// never equals a string (equal objects must hash equally): compare
/// `str(move) == "115-104"`, or ask `"115-104" in position.legal_moves`.
///
/// >>> m = Move.parse("95-75-57")
/// >>> m.from_hole, m.to_hole, m.path
/// (95, 57, [95, 75, 57])
/// >>> m == Move(95, 57), m == "95-57", str(m)
/// (True, False, '95-57')
/// >>> m
/// Move.parse('95-75-57')
#[pyclass(module = "sternhalma._core", name = "Move", frozen)]
#[derive(Clone, Debug)]
pub struct PyMove {
    pub from: Option<usize>,
    pub to: Option<usize>,
    pub kind: Option<&'static str>,
    path: MovePath,
}

/// A move's path: given, or the witness of a legal move, searched for only
/// when it is asked for (most moves a search lists are never looked at).
#[derive(Clone, Debug)]
enum MovePath {
    Known(Vec<usize>),
    Witness {
        /// The position the move is legal in (shared by the moves of one
        /// `legal_moves` list).
        position: Arc<Position>,
        mv: Move,
        found: OnceLock<Vec<usize>>,
    },
}

impl PyMove {
    /// A legal move of `position`; its witness path is found when asked for.
    pub fn legal(position: &Position, mv: Move) -> PyMove {
        PyMove::legal_in(&Arc::new(position.clone()), mv)
    }

    /// As [`PyMove::legal`], for a position shared by several moves.
    pub fn legal_in(position: &Arc<Position>, mv: Move) -> PyMove {
        PyMove {
            from: mv.from().map(Cell::id),
            to: mv.to().map(Cell::id),
            kind: Some(mv.kind().name()),
            path: MovePath::Witness {
                position: Arc::clone(position),
                mv,
                found: OnceLock::new(),
            },
        }
    }

    /// A legal move of `position` with the path it was played along
    /// (`None`: its witness).
    pub fn with_path(position: &Position, mv: Move, path: Option<&Vec<usize>>) -> PyMove {
        match path {
            Some(path) => PyMove {
                from: mv.from().map(Cell::id),
                to: mv.to().map(Cell::id),
                kind: Some(mv.kind().name()),
                path: MovePath::Known(path.clone()),
            },
            None => PyMove::legal(position, mv),
        }
    }

    /// A resolved move, with its path.
    pub fn played(played: &Played) -> PyMove {
        PyMove {
            from: played.mv.from().map(Cell::id),
            to: played.mv.to().map(Cell::id),
            kind: Some(played.mv.kind().name()),
            path: MovePath::Known(played.path.iter().map(|c| c.id()).collect()),
        }
    }

    /// The holes from start to end (searched for the first time it is
    /// asked, for a listed legal move).
    pub fn holes(&self) -> &[usize] {
        match &self.path {
            MovePath::Known(path) => path,
            MovePath::Witness {
                position,
                mv,
                found,
            } => found.get_or_init(|| position.witness_path(*mv).iter().map(|c| c.id()).collect()),
        }
    }

    /// The legal move this is in `position`, when it was listed as legal
    /// there (and carries no path of its own to check).
    pub fn legal_here(&self, here: &Position) -> Option<Move> {
        match &self.path {
            MovePath::Witness { position, mv, .. } if **position == *here => Some(*mv),
            _ => None,
        }
    }

    /// The move text: the full path, or `pass`.
    pub fn text(&self) -> MoveText {
        if self.from.is_none() {
            MoveText::Pass
        } else {
            MoveText::Path(self.holes().to_vec())
        }
    }

    /// From a move text.
    pub fn from_text(text: &MoveText) -> PyMove {
        match text {
            MoveText::Pass => PyMove {
                from: None,
                to: None,
                kind: Some("pass"),
                path: MovePath::Known(Vec::new()),
            },
            MoveText::Path(holes) => PyMove {
                from: holes.first().copied(),
                to: holes.last().copied(),
                kind: None,
                path: MovePath::Known(holes.clone()),
            },
        }
    }
}

#[pymethods]
impl PyMove {
    /// A move by its ends (checked when pushed).
    #[new]
    fn new(from_hole: usize, to_hole: usize) -> Self {
        PyMove {
            from: Some(from_hole),
            to: Some(to_hole),
            kind: None,
            path: MovePath::Known(vec![from_hole, to_hole]),
        }
    }

    /// Parses a move text: `pass`, `111-102` (by its ends) or `95-75-57`
    /// (a hop chain, checked hop by hop when pushed).
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        let text: MoveText = text.parse().map_err(|e| errors::notation(&e))?;
        Ok(PyMove::from_text(&text))
    }

    /// A move in the JSON form of the HTTP API: a move text, its ends
    /// (`{"from": 115, "to": 104}`) or its path (`{"path": [95, 75, 57]}`).
    #[staticmethod]
    fn from_json(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = crate::json::to_value(value)?;
        let text = wire::move_text(&value).map_err(|e| errors::notation(&e))?;
        Ok(PyMove::from_text(&text))
    }

    /// A move as a server reported it: a path and its kind. (For
    /// `sternhalma.client`; the kind is the server's word, unchecked.)
    #[staticmethod]
    fn _reported(path: &str, kind: &str) -> PyResult<Self> {
        let mut reported = Self::parse(path)?;
        reported.kind = sternhalma::MoveKind::ALL
            .iter()
            .map(|k| k.name())
            .find(|k| *k == kind);
        Ok(reported)
    }

    /// The pass.
    #[staticmethod]
    #[pyo3(name = "pass_")]
    fn pass() -> Self {
        PyMove::from_text(&MoveText::Pass)
    }

    /// Start hole (None for a pass).
    #[getter(from_hole)]
    fn start_hole(&self) -> Option<usize> {
        self.from
    }

    /// End hole (None for a pass).
    #[getter(to_hole)]
    fn end_hole(&self) -> Option<usize> {
        self.to
    }

    /// A `MoveKind`: `step`, `hop`, `swap` or `pass`; None for a move not
    /// yet checked against a position.
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.kind
            .map(|kind| enums::MOVE_KIND.member(py, kind))
            .transpose()
    }

    /// The holes from start to end.
    #[getter]
    fn path(&self) -> Vec<usize> {
        self.holes().to_vec()
    }

    /// Whether this is a pass.
    #[getter]
    fn is_pass(&self) -> bool {
        self.from.is_none()
    }

    /// The move text by its ends (`115-104`) or `pass`.
    fn __str__(&self) -> String {
        match (self.from, self.to) {
            (Some(from), Some(to)) => format!("{from}-{to}"),
            _ => "pass".to_owned(),
        }
    }

    fn __repr__(&self) -> String {
        format!("Move.parse('{}')", self.text())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<'_, PyMove>>()
            .is_ok_and(|o| (o.from, o.to) == (self.from, self.to))
    }

    fn __hash__(&self) -> u64 {
        let pack = |h: Option<usize>| h.map_or(0xffff, |h| h as u64);
        (pack(self.from) << 16) | pack(self.to)
    }

    fn __reduce__(&self) -> (Py<PyAny>, (String,)) {
        Python::attach(|py| {
            let parse = py
                .get_type::<PyMove>()
                .getattr("parse")
                .expect("Move.parse exists")
                .unbind();
            (parse, (self.text().to_string(),))
        })
    }
}

/// How a game stands: `status` is an `OutcomeStatus` (`in_progress`,
/// `won`, `tie`, `ranking` or `draw`, each equal to its text), with the
/// detail it carries: `winner`, `winners`, `ranks` or `reason` (a
/// `DrawReason`). The same class answers for a local `Position` and for a
/// `RemotePosition` (read from the server's JSON by `Outcome.from_json`);
/// two outcomes are equal when they say the same.
///
/// >>> p = Position("star1 classic south:2/north:6 0 0 -")
/// >>> p.push("2-0")
/// >>> outcome = p.outcome()
/// >>> outcome.status, outcome.winner, outcome.results
/// (<OutcomeStatus.WON: 'won'>, 0, [1.0, -1.0])
/// >>> outcome.status == "won", outcome.is_over, str(outcome)
/// (True, True, 'player 0 won')
#[pyclass(module = "sternhalma._core", name = "Outcome", frozen)]
#[derive(Clone)]
pub struct PyOutcome {
    outcome: Outcome,
    results: Vec<f64>,
}

impl PyOutcome {
    pub fn new(position: &Position) -> PyOutcome {
        let outcome = position.outcome();
        let results = outcome.results(position.layout().player_count());
        PyOutcome { outcome, results }
    }
}

#[pymethods]
impl PyOutcome {
    /// An outcome in the JSON form of the HTTP API (the `outcome` of a
    /// position's view): `status`, the detail it carries (`winner`,
    /// `winners`, `ranks` or `reason`) and `results`, one per player. This
    /// is how `RemotePosition.outcome()` reads the server's answer.
    ///
    /// >>> Outcome.from_json({"status": "won", "winner": 1, "results": [-1.0, 1.0]})
    /// <Outcome won: player 1 won>
    #[staticmethod]
    fn from_json(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = crate::json::to_value(value)?;
        let (outcome, players) = wire::outcome(&value).map_err(|e| errors::notation(&e))?;
        let results = outcome.results(players);
        Ok(PyOutcome { outcome, results })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<'_, PyOutcome>>()
            .is_ok_and(|o| o.outcome == self.outcome && o.results == self.results)
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&self.outcome, &mut hasher);
        self.results.len().hash(&mut hasher);
        hasher.finish()
    }
    /// An `OutcomeStatus`: `in_progress`, `won`, `tie`, `ranking` or `draw`.
    #[getter]
    fn status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        enums::OUTCOME_STATUS.member(py, self.outcome.status().name())
    }

    /// The winner, when `won`.
    #[getter]
    fn winner(&self) -> Option<usize> {
        match self.outcome {
            Outcome::Won { winner } => Some(winner),
            _ => None,
        }
    }

    /// The players sharing the win, when `won` (one) or `tie` (several).
    #[getter]
    fn winners(&self) -> Vec<usize> {
        self.outcome.winners()
    }

    /// The ranks, best first, each a list of players, when `ranking`.
    #[getter]
    fn ranks(&self) -> Option<Vec<Vec<usize>>> {
        match &self.outcome {
            Outcome::Ranking { ranks } => Some(ranks.clone()),
            _ => None,
        }
    }

    /// Why a draw, a `DrawReason`: `move_limit` or `no_moves` (None for
    /// any other status).
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.outcome {
            Outcome::Draw { reason } => Ok(Some(enums::DRAW_REASON.member(py, reason.name())?)),
            _ => Ok(None),
        }
    }

    /// Each player's result: +1 best, -1 worst, 0 for a draw or a game in
    /// progress (a player ranked above `a` and below `b` others scores
    /// `(a - b) / (players - 1)`).
    #[getter]
    fn results(&self) -> Vec<f64> {
        self.results.clone()
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.outcome.is_over()
    }

    fn __str__(&self) -> String {
        self.outcome.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<Outcome {}: {}>", self.outcome.status(), self.outcome)
    }
}
