"""The closed sets of names are `enum.StrEnum` classes whose members equal
their wire text, and the getters answer members of them."""

from __future__ import annotations

import copy
import json
import pickle
from enum import StrEnum
from pathlib import Path

import pytest
import sternhalma
from sternhalma import (
    BOT_KINDS,
    AntiSpoiling,
    Board,
    BoardShape,
    Bot,
    BotKind,
    DrawReason,
    Finish,
    IllegalPositions,
    Move,
    MoveKind,
    NotationError,
    Outcome,
    OutcomeStatus,
    Position,
    Preset,
    Resting,
    Rules,
    SolvedValue,
    Triangle,
    UnusedTriangles,
    Verdict,
)
from sternhalma.client import Ending, ForfeitReason, MatchStatus, SeatKind

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
SCHEMAS = json.loads(OPENAPI.read_text())["components"]["schemas"]

# Each enum with the schema of the OpenAPI document (generated from the
# server's code, and checked against it) that lists the same set.
ENUMS: list[tuple[type[StrEnum], str]] = [
    (OutcomeStatus, "OutcomeStatus"),
    (DrawReason, "DrawReason"),
    (MoveKind, "MoveKind"),
    (BotKind, "BotKind"),
    (Triangle, "Triangle"),
    (Preset, "Preset"),
    (UnusedTriangles, "UnusedTriangles"),
    (Resting, "Resting"),
    (AntiSpoiling, "AntiSpoiling"),
    (Finish, "Finish"),
    (IllegalPositions, "IllegalPositions"),
    (SolvedValue, "SolvedValue"),
    (Verdict, "VerdictView"),
    (MatchStatus, "MatchStatus"),
    (SeatKind, "SeatKind"),
    (Ending, "Ending"),
    (ForfeitReason, "ForfeitReason"),
]


@pytest.mark.parametrize("enum, schema", ENUMS, ids=[e.__name__ for e, _ in ENUMS])
def test_members_are_the_apis_set(enum: type[StrEnum], schema: str) -> None:
    """The same names, in the same order, as the API's schema: a name the
    core adds appears in both, or this fails."""
    assert [member.value for member in enum] == SCHEMAS[schema]["enum"]
    for member in enum:
        assert member == member.value and str(member) == member.value
        assert member.name == member.value.upper()
        assert enum(member.value) is member


def test_board_shapes() -> None:
    """No schema lists them: every board's shape is a member, and every
    member is some board's shape."""
    shapes = {Board(name).shape for name in Board.names()}
    assert all(type(shape) is BoardShape for shape in shapes)
    assert shapes == set(BoardShape)
    assert Board("star4").shape is BoardShape.STAR and Board("rhombus7p2").shape == "rhombus"


def test_the_getters_answer_members() -> None:
    position = Position.start(board="star2", rules="masters")
    assert position.outcome().status is OutcomeStatus.IN_PROGRESS
    assert position.outcome().reason is None
    kinds = {move.kind for move in position.legal_moves}
    assert kinds <= set(MoveKind) and MoveKind.STEP in kinds
    assert Move.parse("1-2").kind is None and Move.pass_().kind is MoveKind.PASS
    rules = Rules("masters")
    assert rules.anti_spoiling is AntiSpoiling.SWAP
    assert rules.rest_in_foreign_triangles is Resting.FORBIDDEN
    assert rules.finish is Finish.FIRST
    assert rules.unused_triangles is UnusedTriangles.EMPTY
    assert rules.illegal_positions is IllegalPositions.NONE
    assert Rules("sturtevant").illegal_positions is IllegalPositions.STURTEVANT
    assert Rules.presets() == list(Preset)
    board = Board("star4")
    assert board.triangles == list(Triangle)
    assert board.triangle_of(0) is Triangle.NORTH and board.triangle_of(60) is None
    assert Bot("mcts", nodes=10).kind is BotKind.MCTS
    assert BOT_KINDS == tuple(BotKind) and all(type(kind) is BotKind for kind in BOT_KINDS)


def test_every_rules_value_is_a_member() -> None:
    for preset in Preset:
        rules = Rules(preset)  # a member is a str: it names the preset
        assert str(rules) == preset
        for name, enum in [
            ("unused_triangles", UnusedTriangles),
            ("rest_in_foreign_triangles", Resting),
            ("anti_spoiling", AntiSpoiling),
            ("finish", Finish),
            ("illegal_positions", IllegalPositions),
        ]:
            assert type(getattr(rules, name)) is enum, (preset, name)


def test_old_code_comparing_strings_still_works() -> None:
    won = Position("star1 classic south:2/north:6 0 0 -")
    won.push("2-0")
    outcome = won.outcome()
    assert outcome.status == "won" and outcome.status != "draw"
    assert outcome.status in ("won", "tie")
    assert f"{outcome.status}" == "won" and outcome.status.upper() == "WON"
    assert json.dumps({"status": outcome.status}) == '{"status": "won"}'
    assert {"won": 1}[outcome.status] == 1
    drawn = Position.start(board="star1", rules="classic,max_plies=2")
    drawn.push(drawn.legal_moves[0])
    drawn.push(drawn.legal_moves[0])
    assert (
        drawn.outcome().reason == "move_limit" and drawn.outcome().reason is DrawReason.MOVE_LIMIT
    )


def test_members_pickle_and_copy_as_themselves() -> None:
    for enum, _ in ENUMS:
        for member in enum:
            assert pickle.loads(pickle.dumps(member)) is member
            assert copy.deepcopy(member) is member
    assert repr(OutcomeStatus.WON) == "<OutcomeStatus.WON: 'won'>"
    assert OutcomeStatus.__module__ == "sternhalma" and sternhalma.OutcomeStatus is OutcomeStatus


def test_names_are_taken_as_members() -> None:
    """Where a name is taken, a member works as its text does."""
    board = Board("star4")
    assert board.triangle(Triangle.SOUTH) == board.triangle("south")
    assert Bot(BotKind.GREEDY, seed=1).kind == "greedy"
    assert Rules(Preset.MASTERS, finish=Finish.ROUND).finish is Finish.ROUND
    svg = Position().svg(bottom=Triangle.NORTH)
    assert svg == Position().svg(bottom="north")


# ---- Outcome.from_json: the server's outcome, read by the core --------------------

VIEWS = [
    ({"status": "in_progress", "results": [0.0, 0.0]}, "in progress", [0.0, 0.0]),
    ({"status": "won", "winner": 0, "results": [1.0, -1.0]}, "player 0 won", [1.0, -1.0]),
    (
        {"status": "tie", "winners": [0, 2], "results": [0.5, -1.0, 0.5]},
        "tie between players 0, 2",
        [0.5, -1.0, 0.5],
    ),
    (
        {"status": "ranking", "ranks": [[2], [0, 1]], "results": [-0.5, -0.5, 1.0]},
        "ranking 2 > 0=1",
        [-0.5, -0.5, 1.0],
    ),
    (
        {"status": "draw", "reason": "no_moves", "results": [0.0, 0.0], "summary": "x"},
        "draw: no legal moves",
        [0.0, 0.0],
    ),
]


@pytest.mark.parametrize("view, text, results", VIEWS, ids=[v["status"] for v, _, _ in VIEWS])
def test_outcome_from_json(view: dict, text: str, results: list[float]) -> None:
    outcome = Outcome.from_json(view)
    assert outcome.status is OutcomeStatus(view["status"])
    assert outcome.results == results
    assert outcome.is_over == (view["status"] != "in_progress")
    assert Outcome.from_json(json.loads(json.dumps(view))) == outcome
    if view["status"] != "draw":
        assert str(outcome) == text
    else:
        assert outcome.reason is DrawReason.NO_MOVES


def test_outcome_from_json_equals_the_local_one() -> None:
    won = Position("star1 classic south:2/north:6 0 0 -")
    won.push("2-0")
    view = {"status": "won", "winner": 0, "results": [1.0, -1.0], "finished": [], "summary": ""}
    assert Outcome.from_json(view) == won.outcome()
    assert Outcome.from_json({**view, "winner": 1}) != won.outcome()
    assert hash(Outcome.from_json(view)) == hash(won.outcome())


@pytest.mark.parametrize(
    "view, says",
    [
        ({"status": "over", "results": []}, "no outcome status"),
        ({"status": "won", "results": [1.0, -1.0]}, "winner"),
        ({"status": "won", "winner": 2, "results": [1.0, -1.0]}, "player 2 is not in a game of 2"),
        ({"status": "draw", "reason": "boredom", "results": [0, 0]}, "no draw reason"),
        ({"status": "tie", "winners": [0, 1]}, "results"),
        ({"status": "won", "winner": 0, "results": [1, -1], "colour": "red"}, "colour"),
        ("won", "expected an outcome, found the string"),
        ([1, 2], "expected an outcome"),
    ],
)
def test_outcome_from_json_refuses_other_shapes(view: object, says: str) -> None:
    with pytest.raises(NotationError, match=says) as caught:
        Outcome.from_json(view)  # type: ignore[arg-type]
    assert caught.value.code in ("malformed_json", "missing_field")
