"""The wire-format conformance fixture (`tests/fixtures/wire.json`) run
against the Python module: the same cases the core (`tests/wire.rs`) and the
HTTP API (`api/tests/wire.rs`) run, so the three surfaces cannot drift.

Each case gives an input and either its normal form or the error `code`
that every surface reports; here the code is the exception's `.code`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sternhalma import (
    IllegalMoveError,
    InvalidPositionError,
    Move,
    NotationError,
    Position,
    Rules,
    SternhalmaError,
)

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "wire.json").read_text())


def cases(section: str) -> list[Any]:
    return [pytest.param(case, id=case["name"]) for case in FIXTURE[section]]


def code_of(error: SternhalmaError) -> str:
    """The stable code of a module error; every kind carries one."""
    assert isinstance(error, NotationError | InvalidPositionError | IllegalMoveError), error
    assert str(error), "an error says what went wrong"
    return str(error.code)


def outcome(make: Any) -> tuple[str, Any]:
    try:
        return "ok", make()
    except SternhalmaError as error:
        return "code", code_of(error)


def expected(case: dict[str, Any], key: str) -> tuple[str, Any]:
    return ("code", case["code"]) if "code" in case else ("ok", case[key])


def position_from_wire(value: Any) -> Position:
    """A position string or the JSON form, as the HTTP API takes them."""
    return Position(value) if isinstance(value, str) else Position.from_json(value)


@pytest.mark.parametrize("case", cases("positions"))
def test_positions(case: dict[str, Any]) -> None:
    got = outcome(lambda: str(position_from_wire(case["input"])))
    assert got == expected(case, "position_string")


@pytest.mark.parametrize("case", cases("rules"))
def test_rules(case: dict[str, Any]) -> None:
    got = outcome(lambda: str(Rules.from_json(case["input"])))
    assert got == expected(case, "text")


@pytest.mark.parametrize("case", cases("new_games"))
def test_new_games(case: dict[str, Any]) -> None:
    got = outcome(lambda: str(Position.start(**case["input"])))
    assert got == expected(case, "position_string")


@pytest.mark.parametrize("case", cases("moves"))
def test_moves(case: dict[str, Any]) -> None:
    position = Position(case["position"])

    def play() -> tuple[dict[str, Any], str]:
        move = position.parse_move(Move.from_json(case["move"]))
        before = position.copy()
        position.push(move)
        swapped = None
        if move.kind == "swap":
            assert move.from_hole is not None and move.to_hole is not None
            swapped = {
                "player": before.owner(move.to_hole),
                "from": move.to_hole,
                "to": move.from_hole,
            }
        view = {
            "text": str(move),
            "kind": move.kind,
            "path": move.path,
            "player": before.side_to_move,
            "swapped": swapped,
        }
        return view, str(position)

    got = outcome(play)
    if "code" in case:
        assert got == ("code", case["code"])
    else:
        assert got == ("ok", (case["played"], case["after"]))


def test_the_json_text_form_reads_like_the_dict() -> None:
    """`Position.from_json` also takes JSON text; `"ply": 0.0` included."""
    text = '{"board": "star2", "players": [[{"triangle": "south", "pegs": [34, 35, 36]}], [{"triangle": "north", "pegs": [0, 1, 2]}]], "ply": 0.0}'
    assert str(Position.from_json(text)) == "star2 classic south:34-36/north:0-2 0 0 -"
    with pytest.raises(NotationError) as caught:
        Position.from_json("{")
    assert caught.value.code == "malformed_json"
