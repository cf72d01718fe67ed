//! Boards and rules.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use sternhalma::{Board, Cell, OptionValue, Preset, Rules, Triangle, wire};

use crate::{enums, errors};

/// A board: its holes, their axial coordinates, neighbours and triangles.
///
/// `Board(name)` takes `star1`..`star4` (default `star4`) or `rhombus<M>p<P>`,
/// a side of M holes and homes of P pegs (e.g. `rhombus9p10`, `rhombus7p3`;
/// the older `rhombus<M>x<K>`, homes of K rows, still reads); `Board.names()`
/// lists them.
///
/// >>> board = Board("star4")
/// >>> len(board), board.rows, board.pegs_per_set
/// (121, 17, 10)
/// >>> board.coordinates(0), board.triangle_of(0), board.neighbors(0)
/// ((4, -8), <Triangle.NORTH: 'north'>, [2, 1])
/// >>> board.triangle("south")
/// [111, 112, 113, 114, 115, 116, 117, 118, 119, 120]
#[pyclass(module = "sternhalma._core", name = "Board", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyBoard {
    pub board: Board,
}

pub fn parse_triangle(name: &str) -> PyResult<Triangle> {
    name.parse().map_err(|e| errors::notation(&e))
}

impl PyBoard {
    fn cell(&self, hole: usize) -> PyResult<Cell> {
        let geometry = self.board.geometry();
        geometry.cell(hole).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "hole {hole} is not on the board (holes are 0 to {})",
                geometry.len() - 1
            ))
        })
    }
}

#[pymethods]
impl PyBoard {
    /// A board by name: `star1`..`star4` or `rhombus<M>p<P>` (e.g. `rhombus9p10`).
    #[new]
    #[pyo3(signature = (name = "star4"))]
    fn new(name: &str) -> PyResult<Self> {
        Ok(PyBoard {
            board: name.parse().map_err(|e| errors::notation(&e))?,
        })
    }

    /// Every supported board's name.
    #[staticmethod]
    fn names() -> Vec<String> {
        Board::all().map(|b| b.to_string()).collect()
    }

    /// The board's name.
    #[getter]
    fn name(&self) -> String {
        self.board.to_string()
    }

    /// The board's family, a `BoardShape`: `star` or `rhombus`.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        enums::BOARD_SHAPE.member(py, self.board.shape().name())
    }

    /// Number of rows.
    #[getter]
    fn rows(&self) -> usize {
        self.board.geometry().rows()
    }

    /// Pegs in one set (holes in one triangle).
    #[getter]
    fn pegs_per_set(&self) -> usize {
        self.board.pegs_per_set()
    }

    /// The triangles the board has, as `Triangle` members.
    #[getter]
    fn triangles<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.board
            .triangles()
            .iter()
            .map(|t| enums::TRIANGLE.member(py, t.name()))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.board.geometry().len()
    }

    /// Axial coordinates `(q, r)` of a hole.
    fn coordinates(&self, hole: usize) -> PyResult<(i32, i32)> {
        Ok(self.board.geometry().coordinates(self.cell(hole)?))
    }

    /// The hole at axial coordinates `(q, r)`, or None.
    fn hole_at(&self, q: i32, r: i32) -> Option<usize> {
        self.board.geometry().cell_at(q, r).map(Cell::id)
    }

    /// A hole's neighbours, clockwise from east.
    fn neighbors(&self, hole: usize) -> PyResult<Vec<usize>> {
        Ok(self
            .board
            .geometry()
            .neighbors(self.cell(hole)?)
            .map(Cell::id)
            .collect())
    }

    /// The holes of a triangle (empty if the board lacks it).
    fn triangle(&self, name: &str) -> PyResult<Vec<usize>> {
        Ok(self
            .board
            .geometry()
            .triangle(parse_triangle(name)?)
            .iter()
            .map(Cell::id)
            .collect())
    }

    /// The triangle a hole lies in (a `Triangle`), or None.
    fn triangle_of<'py>(
        &self,
        py: Python<'py>,
        hole: usize,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.board
            .geometry()
            .triangle_of(self.cell(hole)?)
            .map(|t| enums::TRIANGLE.member(py, t.name()))
            .transpose()
    }

    /// The hole's image in the left-right mirror.
    fn mirror(&self, hole: usize) -> PyResult<usize> {
        Ok(self.board.geometry().mirror(self.cell(hole)?).id())
    }

    /// Grid distance: the fewest steps between two holes on an empty board.
    fn distance(&self, a: usize, b: usize) -> PyResult<u32> {
        Ok(self.board.geometry().distance(self.cell(a)?, self.cell(b)?))
    }

    fn __repr__(&self) -> String {
        format!("Board('{}')", self.board)
    }

    fn __str__(&self) -> String {
        self.board.to_string()
    }

    fn __reduce__(&self) -> (Py<PyAny>, (String,)) {
        Python::attach(|py| {
            (
                py.get_type::<PyBoard>().into_any().unbind(),
                (self.board.to_string(),),
            )
        })
    }
}

/// The rules of a game: a preset and any overrides.
///
/// `Rules(preset, **overrides)` takes a preset (`classic`, the default,
/// `masters`, `family`, `super`, `research`, `sturtevant`: a `Preset`) or a
/// rules text such as `classic,long_jumps=on`, and keyword overrides of the
/// options `unused_triangles`, `rest_in_foreign_triangles`, `long_jumps`,
/// `anti_spoiling`, `finish`, `max_plies`, `target_lock`,
/// `illegal_positions`.
///
/// >>> Rules("masters").anti_spoiling
/// <AntiSpoiling.SWAP: 'swap'>
/// >>> Rules("masters").finish == "first"
/// True
/// >>> str(Rules("classic", long_jumps=True))
/// 'super'
/// >>> Rules("research", max_plies=None).max_plies is None
/// True
/// >>> Rules("sturtevant").illegal_positions, Rules("sturtevant").target_lock
/// (<IllegalPositions.STURTEVANT: 'sturtevant'>, False)
#[pyclass(module = "sternhalma._core", name = "Rules", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyRules {
    pub rules: Rules,
}

/// The rules named by `text`, with `overrides` (option name → value)
/// applied by the core ([`Rules::set_option_value`]): `None` for no move
/// limit, booleans for on/off options, ints for `max_plies`, or the text of
/// the rules grammar for any option.
pub fn make_rules(text: &str, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Rules> {
    let mut rules: Rules = text.parse().map_err(|e| errors::notation(&e))?;
    for (key, value) in overrides.into_iter().flatten() {
        let name: String = key.extract()?;
        let spelled;
        let option = if value.is_none() {
            OptionValue::Nothing
        } else if value.is_instance_of::<PyBool>() {
            OptionValue::Flag(value.extract()?)
        } else if let Ok(number) = value.extract::<i128>() {
            OptionValue::Number(number)
        } else if let Some(number) = value
            .extract::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0 && f.abs() < 1e19)
        {
            // A whole float (`max_plies=400.0`) reads as JSON reads it.
            OptionValue::Number(number as i128)
        } else {
            spelled = value.str()?.to_string();
            OptionValue::Text(&spelled)
        };
        rules
            .set_option_value(&name, option)
            .map_err(|e| errors::notation(&e))?;
    }
    Ok(rules)
}

impl PyRules {
    /// A choice option's value as the member of its enum.
    fn option<'py>(
        &self,
        py: Python<'py>,
        names: &enums::StrEnum,
        option: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let value = self.rules.option(option).unwrap_or_default();
        names.member(py, &value)
    }
}

#[pymethods]
impl PyRules {
    /// A preset (`classic`, `masters`, `family`, `super`, `research`,
    /// `sturtevant`, or a rules text such as `classic,long_jumps=on`) with
    /// keyword overrides: `unused_triangles`, `rest_in_foreign_triangles`,
    /// `long_jumps`, `anti_spoiling`, `finish`, `max_plies`, `target_lock`,
    /// `illegal_positions`.
    #[new]
    #[pyo3(signature = (preset = "classic", **overrides))]
    fn new(preset: &str, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyRules {
            rules: make_rules(preset, overrides)?,
        })
    }

    /// Rules in the JSON form of the HTTP API: a rules text, or a dict
    /// naming a `preset` and overriding options (`{"preset": "classic",
    /// "long_jumps": True}`).
    #[staticmethod]
    fn from_json(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = crate::json::to_value(value)?;
        Ok(PyRules {
            rules: wire::rules(&value).map_err(|e| errors::notation(&e))?,
        })
    }

    /// The presets' names, as `Preset` members.
    #[staticmethod]
    fn presets(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyAny>>> {
        Preset::ALL
            .iter()
            .map(|p| enums::PRESET.member(py, p.name()))
            .collect()
    }

    /// What unused triangles hold, an `UnusedTriangles`: `empty` or `filled`.
    #[getter]
    fn unused_triangles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.option(py, &enums::UNUSED_TRIANGLES, "unused_triangles")
    }

    /// Whether moves may end in other players' triangles, a `Resting`:
    /// `allowed` or `forbidden`.
    #[getter]
    fn rest_in_foreign_triangles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.option(py, &enums::RESTING, "rest_in_foreign_triangles")
    }

    /// Whether a hop may go over one peg at any distance.
    #[getter]
    fn long_jumps(&self) -> bool {
        self.rules.long_jumps
    }

    /// The anti-spoiling rule, an `AntiSpoiling`: `none`, `fill_available`
    /// or `swap`.
    #[getter]
    fn anti_spoiling<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.option(py, &enums::ANTI_SPOILING, "anti_spoiling")
    }

    /// How the game ends, a `Finish`: `first`, `round` or `ranking`.
    #[getter]
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.option(py, &enums::FINISH, "finish")
    }

    /// The move limit in plies, or None.
    #[getter]
    fn max_plies(&self) -> Option<u32> {
        self.rules.max_plies
    }

    /// Whether a peg in its own target must end every move in it (off only
    /// under `sturtevant`, of the presets).
    #[getter]
    fn target_lock(&self) -> bool {
        self.rules.target_lock
    }

    /// Which positions are illegal, an `IllegalPositions`: `none`, or
    /// `sturtevant` (the solved
    /// game: no move into a position where the player to move has won or a
    /// target is blocked, no pass, and a player without a move loses).
    #[getter]
    fn illegal_positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.option(py, &enums::ILLEGAL_POSITIONS, "illegal_positions")
    }

    fn __str__(&self) -> String {
        self.rules.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Rules('{}')", self.rules)
    }

    fn __reduce__(&self) -> (Py<PyAny>, (String,)) {
        Python::attach(|py| {
            (
                py.get_type::<PyRules>().into_any().unbind(),
                (self.rules.to_string(),),
            )
        })
    }
}
