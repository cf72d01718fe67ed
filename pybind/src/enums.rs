//! The closed sets of names the module answers with, as Python
//! `enum.StrEnum` classes: a member is a `str` equal to its wire name
//! (`OutcomeStatus.WON == "won"`), so code that compared strings keeps
//! working, while an IDE lists the members and a type checker knows them.
//!
//! The members come from the core's own lists (`OutcomeStatus::ALL`,
//! `Rules::option_values`, ...): nothing here spells a name twice.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};
use sternhalma::search::BotKind;
use sternhalma::solve::Value;
use sternhalma::solve::analysis::Verdict;
use sternhalma::{BoardShape, DrawReason, MoveKind, OutcomeStatus, Preset, Rules, Triangle};

/// One enum class: its name, its docstring, and where its members come
/// from; the class is made on first use.
pub struct StrEnum {
    name: &'static str,
    doc: &'static str,
    values: fn() -> Vec<&'static str>,
    made: PyOnceLock<Made>,
}

/// A class made, with its members by value, in the core's order.
struct Made {
    class: Py<PyAny>,
    members: Vec<(&'static str, Py<PyAny>)>,
}

impl StrEnum {
    const fn new(name: &'static str, doc: &'static str, values: fn() -> Vec<&'static str>) -> Self {
        StrEnum {
            name,
            doc,
            values,
            made: PyOnceLock::new(),
        }
    }

    fn made<'a>(&'a self, py: Python<'_>) -> PyResult<&'a Made> {
        self.made.get_or_try_init(py, || {
            let values = (self.values)();
            let members = PyList::empty(py);
            for value in &values {
                members.append((value.to_uppercase(), *value))?;
            }
            let options = PyDict::new(py);
            // Pickled and shown as `sternhalma.<name>`: the package
            // re-exports every enum.
            options.set_item("module", "sternhalma")?;
            options.set_item("qualname", self.name)?;
            let class = py
                .import("enum")?
                .getattr("StrEnum")?
                .call((self.name, members), Some(&options))?;
            class.setattr("__doc__", self.doc)?;
            let members = values
                .iter()
                .map(|value| Ok((*value, class.call1((*value,))?.unbind())))
                .collect::<PyResult<_>>()?;
            Ok(Made {
                class: class.unbind(),
                members,
            })
        })
    }

    /// The class.
    pub fn class<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.made(py)?.class.bind(py).clone())
    }

    /// The member whose value is `value` (a name from the core's list).
    pub fn member<'py>(&self, py: Python<'py>, value: &str) -> PyResult<Bound<'py, PyAny>> {
        self.made(py)?
            .members
            .iter()
            .find(|(name, _)| *name == value)
            .map(|(_, member)| member.bind(py).clone())
            .ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "{value:?} is not a {} (internal error: the core named a value its list lacks)",
                    self.name
                ))
            })
    }

    /// Every member, in the core's order.
    pub fn members<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let members = &self.made(py)?.members;
        PyTuple::new(py, members.iter().map(|(_, member)| member.bind(py)))
    }
}

fn option_values(name: &str) -> Vec<&'static str> {
    Rules::option_values(name)
        .expect("a rules option the core lists")
        .to_vec()
}

pub static OUTCOME_STATUS: StrEnum = StrEnum::new(
    "OutcomeStatus",
    "How a game stands: `Outcome.status`.\n\n\
     IN_PROGRESS (not over), WON (one winner), TIE (several players share\n\
     the win), RANKING (a finishing order, under `finish = ranking`), DRAW\n\
     (nobody won). A member equals its name on the wire.\n\n\
     >>> OutcomeStatus.WON == \"won\", OutcomeStatus(\"draw\")\n\
     (True, <OutcomeStatus.DRAW: 'draw'>)",
    || OutcomeStatus::ALL.iter().map(|s| s.name()).collect(),
);

pub static DRAW_REASON: StrEnum = StrEnum::new(
    "DrawReason",
    "Why a game was drawn: `Outcome.reason`. MOVE_LIMIT (the rules'\n\
     `max_plies` was reached) or NO_MOVES (every player still in the game\n\
     would have to pass).",
    || DrawReason::ALL.iter().map(|r| r.name()).collect(),
);

pub static MOVE_KIND: StrEnum = StrEnum::new(
    "MoveKind",
    "What kind of move it is: `Move.kind`. STEP (to an adjacent hole), HOP\n\
     (one or more hops), SWAP (onto another player's peg in the mover's\n\
     target, under `anti_spoiling = swap`) or PASS.\n\n\
     >>> Position().legal_moves[0].kind\n\
     <MoveKind.STEP: 'step'>",
    || MoveKind::ALL.iter().map(|k| k.name()).collect(),
);

pub static BOT_KIND: StrEnum = StrEnum::new(
    "BotKind",
    "The built-in bots, simplest first: `Bot.kind` and `BOT_KINDS`. RANDOM,\n\
     GREEDY, ALPHABETA, PARANOID, MCTS and PERFECT (from a solved table).\n\n\
     >>> Bot(BotKind.GREEDY).kind == \"greedy\"\n\
     True",
    || BotKind::ALL.iter().map(|k| k.name()).collect(),
);

pub static BOARD_SHAPE: StrEnum = StrEnum::new(
    "BoardShape",
    "A board's family: `Board.shape`. STAR (`star1` to `star4`) or RHOMBUS\n\
     (`rhombus<M>p<P>`: a side of M holes, homes of P pegs).",
    || BoardShape::NAMES.to_vec(),
);

pub static TRIANGLE: StrEnum = StrEnum::new(
    "Triangle",
    "A triangle of the star, clockwise from the top: `Board.triangles`,\n\
     `Board.triangle_of`. Wherever a triangle name is taken, a member or\n\
     its text will do.\n\n\
     >>> Board(\"star4\").triangle_of(0)\n\
     <Triangle.NORTH: 'north'>",
    || Triangle::ALL.iter().map(|t| t.name()).collect(),
);

pub static PRESET: StrEnum = StrEnum::new(
    "Preset",
    "The named rule sets: `Rules.presets()`. `Rules(Preset.MASTERS)` is\n\
     `Rules(\"masters\")`.",
    || Preset::ALL.iter().map(|p| p.name()).collect(),
);

pub static UNUSED_TRIANGLES: StrEnum = StrEnum::new(
    "UnusedTriangles",
    "What the triangles no set starts in or heads for hold:\n\
     `Rules.unused_triangles`. EMPTY, or FILLED (neutral pegs that never\n\
     move but can be hopped over).",
    || option_values("unused_triangles"),
);

pub static RESTING: StrEnum = StrEnum::new(
    "Resting",
    "Whether a move may end in another player's triangle:\n\
     `Rules.rest_in_foreign_triangles`. ALLOWED or FORBIDDEN.",
    || option_values("rest_in_foreign_triangles"),
);

pub static ANTI_SPOILING: StrEnum = StrEnum::new(
    "AntiSpoiling",
    "Protection against a peg parked in someone's target:\n\
     `Rules.anti_spoiling`. NONE, FILL_AVAILABLE (home also when every hole\n\
     not held by another player is filled) or SWAP (a move may land on\n\
     another player's peg in the mover's target; the pegs change places).\n\n\
     >>> Rules(\"masters\").anti_spoiling\n\
     <AntiSpoiling.SWAP: 'swap'>",
    || option_values("anti_spoiling"),
);

pub static FINISH: StrEnum = StrEnum::new(
    "Finish",
    "How the game ends once someone finishes: `Rules.finish`. FIRST (the\n\
     first player to finish wins), ROUND (the round is played out and\n\
     everyone finishing in it shares the win) or RANKING (play goes on until\n\
     one player is left; the finishing order ranks).",
    || option_values("finish"),
);

pub static ILLEGAL_POSITIONS: StrEnum = StrEnum::new(
    "IllegalPositions",
    "Which positions cannot arise: `Rules.illegal_positions`. NONE, or\n\
     STURTEVANT (the solved game's rules: no move into a position where\n\
     the player to move is home or a target is blocked, no pass, and a\n\
     player without a move loses).",
    || option_values("illegal_positions"),
);

pub static SOLVED_VALUE: StrEnum = StrEnum::new(
    "SolvedValue",
    "A position's value under perfect play, for the side to move:\n\
     `Probe.value`, `MoveProbe.value`. WIN, LOSS or DRAW.",
    || {
        // The order the API's schema lists them in; `illegal` is a table's
        // mark for positions that cannot arise, never a probe's answer.
        [Value::Win, Value::Loss, Value::Draw]
            .iter()
            .map(|v| v.name())
            .collect()
    },
);

pub static VERDICT: StrEnum = StrEnum::new(
    "Verdict",
    "What a move did to the mover's value: `PlyAnalysis.verdict`. BEST (the\n\
     best move's value and depth), SLOWER (the value kept, but a win made\n\
     longer or a loss shorter) or MISTAKE (a worse value).",
    || Verdict::ALL.iter().map(|v| v.name()).collect(),
);

/// Every enum, in the order the module lists them.
pub static ALL: [&StrEnum; 14] = [
    &OUTCOME_STATUS,
    &DRAW_REASON,
    &MOVE_KIND,
    &BOT_KIND,
    &BOARD_SHAPE,
    &TRIANGLE,
    &PRESET,
    &UNUSED_TRIANGLES,
    &RESTING,
    &ANTI_SPOILING,
    &FINISH,
    &ILLEGAL_POSITIONS,
    &SOLVED_VALUE,
    &VERDICT,
];

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for e in ALL {
        m.add(e.name, e.class(m.py())?)?;
    }
    Ok(())
}
