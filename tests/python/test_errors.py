"""Every exception: its class, its attributes, and a message that helps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sternhalma
from sternhalma import (
    Board,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    NotationError,
    Position,
    Rules,
    ServerError,
    SternhalmaError,
    TablebaseError,
    UnknownPresetError,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_hierarchy() -> None:
    assert issubclass(SternhalmaError, ValueError)
    for error in (
        NotationError,
        InvalidPositionError,
        IllegalMoveError,
        ServerError,
        TablebaseError,
    ):
        assert issubclass(error, SternhalmaError)
    assert issubclass(UnknownPresetError, NotationError)
    assert issubclass(sternhalma.ServerUnreachable, ServerError)
    assert issubclass(sternhalma.ServerUnreachable, ConnectionError)
    assert not issubclass(IllegalMoveError, NotationError)
    assert not issubclass(InvalidPositionError, NotationError)


@pytest.mark.parametrize(
    "error",
    [
        SternhalmaError,
        NotationError,
        UnknownPresetError,
        InvalidPositionError,
        IllegalMoveError,
        TablebaseError,
    ],
)
def test_exceptions_are_named_in_the_package(error: type) -> None:
    assert error.__module__ == "sternhalma"
    assert getattr(sternhalma, error.__name__) is error
    assert error.__name__ in sternhalma.__all__
    assert error.__doc__


def test_caught_as_value_error() -> None:
    with pytest.raises(ValueError):
        Position().push("111-112")
    with pytest.raises(ValueError):
        Position("star4 classic")


# ---- NotationError ----------------------------------------------------------------


@pytest.mark.parametrize(
    "make, what, named",
    [
        (lambda: Position("star4"), "position", "star4"),
        (lambda: Position("star4 classic south:111-120/north:0-9 x"), "position", '"x"'),
        (lambda: Position("star4 classic south:111-120/"), "position", "south:111-120"),
        (lambda: Move.parse("1--2"), "move", "1--2"),
        (lambda: Board("star5"), "board", "star5"),
        (lambda: Board().triangle("up"), "triangle", "up"),
        (lambda: Rules("classic,fast=on"), "rules", "fast"),
        (lambda: Position.start(layout="5"), "layout", "5"),
        (lambda: Position.start(board="star0"), "board", "star0"),
        (lambda: Position.from_json("{"), "JSON", "{"),
    ],
)
def test_notation_error(make, what: str, named: str) -> None:
    with pytest.raises(NotationError) as caught:
        make()
    assert caught.value.what == what
    assert named in str(caught.value)


def test_unknown_preset_error() -> None:
    for make in (lambda: Rules("clasic"), lambda: Position.start(rules="clasic")):
        with pytest.raises(UnknownPresetError) as caught:
            make()
        assert caught.value.what == "preset"
        assert "clasic" in str(caught.value) and "classic" in str(caught.value)


def test_malformed_is_not_invalid() -> None:
    """Text that does not parse and a position that breaks the rules are
    different errors."""
    with pytest.raises(NotationError):
        Position("star4 classic south:111-120/north")
    with pytest.raises(InvalidPositionError):
        Position("star4 classic south:111-120/north:0-8")


# ---- InvalidPositionError -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, codes, named",
    [
        (
            "star4 classic south:111-120,0/north:0-9 5 0 -",
            ["wrong_peg_count", "two_pegs_on_hole", "side_to_move_out_of_range"],
            ["11 pegs", "hole 0", "player 5"],
        ),
        ("star4 classic south:111-119,500/north:0-9", ["peg_off_board"], ["hole 500"]),
        ("star4 classic south:111-120/south:0-9", ["triangle_used_twice"], ["south"]),
        (
            "rhombus9p10 classic south:71-80/north_west:0-9",
            ["triangle_not_on_board"],
            ["north_west"],
        ),
        ("star4 classic south:111-120/north:0-9 0 0 3@0", ["bad_finisher"], ["player 3"]),
        ("star4 classic south:111-120/north:0-9 0 0 0@5", ["bad_finisher"], ["ply"]),
        ("star4 classic south:111-120/north:0-9 0 3 0@1,0@2", ["bad_finisher"], ["twice"]),
        ("star4 classic south:111-120/north:0-9 1 1 0@1", ["bad_finisher"], ["not every set"]),
        (
            "star4 classic south:0-9/north:111-120 0 0 -",
            ["home_but_not_finished", "home_but_not_finished"],
            ["player 0", "player 1"],
        ),
        (
            "star2 classic,finish=ranking south:0-2/north_west:3,4,10/north_east:8,9,15 0 1 0@1",
            ["side_to_move_finished"],
            ["player 0"],
        ),
        # The solved game (illegal_positions=sturtevant): the player to move
        # has won; a blocked target; not two players with a set each; rules
        # other than its own.
        (
            "rhombus7p3 sturtevant south:0-2/north:20,30,40 0 10 -",
            ["side_to_move_has_won"],
            ["player 0"],
        ),
        (
            "rhombus6p6 sturtevant south:30-35/north:1-3,5,20,21 0 20 -",
            ["target_blocked"],
            ["player 0", "hole 0"],
        ),
        ("rhombus7p3 sturtevant south:46-48 0 0 -", ["solved_game_layout"], ["one set each"]),
        (
            "rhombus7p3 sturtevant,finish=round south:46-48/north:0-2 0 0 -",
            ["solved_game_rules"],
            ["finish=first"],
        ),
        (
            "star2 classic south:0-2,4/north_west:3,4/north_east:8,9,15 7 0 -",
            ["wrong_peg_count", "wrong_peg_count", "two_pegs_on_hole", "side_to_move_out_of_range"],
            ["4 pegs", "2 pegs", "hole 4", "player 7"],
        ),
    ],
)
def test_invalid_position_lists_every_problem(
    text: str, codes: list[str], named: list[str]
) -> None:
    with pytest.raises(InvalidPositionError) as caught:
        Position(text)
    problems = caught.value.problems
    assert isinstance(problems, list)
    assert all(isinstance(p, tuple) and len(p) == 2 for p in problems)
    assert [code for code, _ in problems] == codes
    message = str(caught.value)
    for code, problem in problems:
        assert problem and problem in message
    for word in named:
        assert word in message


def test_invalid_start() -> None:
    with pytest.raises(InvalidPositionError) as caught:
        Position.start(board="rhombus9p10", layout="6")
    assert {code for code, _ in caught.value.problems} == {"triangle_not_on_board"}
    assert len(caught.value.problems) == 4
    with pytest.raises(InvalidPositionError) as caught:
        Position.start(first_player=2)
    assert caught.value.problems == [
        ("side_to_move_out_of_range", "player 2 is to move, but the players are 0 to 1")
    ]


def test_no_players() -> None:
    with pytest.raises(InvalidPositionError) as caught:
        Position.from_json({"board": "star4", "players": []})
    assert caught.value.problems == [("no_players", "there are no players")]


# ---- IllegalMoveError ----------------------------------------------------------------------

START = "star4 classic south:111-120/north:0-9 0 0 -"
# South pegs on 58 (-2, 0) and 60 (0, 0), on the middle row.
MIDDLE = "star4 classic south:58,60,111-118/north:0-9 0 0 -"


def hole(q: int, r: int) -> int:
    found = Board().hole_at(q, r)
    assert found is not None
    return found


ILLEGAL = [
    (START, "111-500", "off_board", ["500"]),
    (START, "60-61", "empty_hole", ["60"]),
    (START, "0-15", "not_your_peg", ["0", "player 1"]),
    (START, "111-111", "returns_to_start", ["111"]),
    (START, "111-112", "hole_occupied", ["112"]),
    (START, "115-104-50", "not_a_step_or_hop", ["104", "50"]),
    (START, "111-60", "unreachable", ["111", "60"]),
    (START, "pass", "pass_not_allowed", ["pass"]),
    (MIDDLE, f"58-{hole(-4, 0)}", "nothing_to_hop_over", ["58", str(hole(-4, 0))]),
    (MIDDLE, "58-59-61", "step_in_chain", ["58", "59"]),
    (MIDDLE, f"58-62-{hole(4, 0)}", "long_jumps_off", ["58", "62"]),
    (MIDDLE.replace("classic", "super"), "58-61-62", "not_a_symmetric_jump", ["58", "61"]),
    ("star4 classic south:9,112-120/north:0-8,60 0 0 -", "9-18", "leaves_target", ["9", "18"]),
    ("star4 masters south:17,112-120/north:0-8,60 0 0 -", "17-60", "swap_not_allowed", ["60"]),
    (
        "star4 masters south:104,111-114,116-120/north:0-3,5-9,15 0 2 -",
        "104-115",
        "ends_in_foreign_triangle",
        ["115", "south"],
    ),
    (
        "star2 classic,finish=round south:0-2/north:30-32 0 1 0@1",
        "0-3",
        "finished_must_pass",
        ["player 0"],
    ),
    ("star2 research south:2,34,35/north:0,1,15 0 34 0@34", "34-29", "game_over", ["over"]),
    # The solved game: south's step 43-46 would fill north's target, 46-48.
    (
        "rhombus7p3 sturtevant south:5,20,43/north:10,47,48 0 10 -",
        "43-46",
        "leads_to_illegal_position",
        ["43", "46", "opponent's target"],
    ),
    # A chain may come back to a hole, but a path of more holes than the
    # board has (star2: 37) must have, so it is refused at once.
    (
        "star2 classic south:34-36/north:0-2 0 0 -",
        "-".join(["36", "29"] * 19),
        "path_too_long",
        ["38", "37"],
    ),
]


@pytest.mark.parametrize("text, move, code, named", ILLEGAL, ids=[case[2] for case in ILLEGAL])
def test_illegal_move_error(text: str, move: str, code: str, named: list[str]) -> None:
    position = Position(text)
    with pytest.raises(IllegalMoveError) as caught:
        position.push(move)
    error = caught.value
    assert error.code == code
    message = str(error)
    assert message.startswith("illegal move: ")
    for word in named:
        assert re.search(rf"\b{re.escape(word)}\b", message), (word, message)
    assert str(position) == text and position.move_stack == []
    # The same refusal from every entry point.
    for check in (position.parse_move, position.move_to_action):
        with pytest.raises(IllegalMoveError) as again:
            check(move)
        assert again.value.code == code and str(again.value) == message
    assert not position.is_legal(move)


def test_every_illegal_move_code_is_covered() -> None:
    source = Path(__file__).resolve().parents[2] / "src" / "moves.rs"
    codes = set(re.findall(r'IllegalMove::\w+(?: \{ \.\. \})? => "(\w+)"', source.read_text()))
    assert codes, "no codes found in src/moves.rs"
    # not_your_turn needs a move made on behalf of a player (the API's
    # matches); a Position always moves for the player to move. cannot_resign
    # refuses a resignation, not a move (test_position.py covers it).
    # unknown_action refuses an action number, not a move (test_open_spiel.py).
    assert codes - {"not_your_turn", "cannot_resign", "unknown_action"} == {
        case[2] for case in ILLEGAL
    }


def test_swap_is_legal_where_the_refusal_says() -> None:
    # The counterpart of swap_not_allowed: a swap in the mover's own target.
    position = Position("star4 masters south:17,112-120/north:0-9 0 0 -")
    assert position.parse_move("17-9").kind == "swap"
    position.push("17-9")
    assert position.owner(17) == 1 and position.owner(9) == 0


def test_long_jump_is_legal_under_super() -> None:
    position = Position(MIDDLE.replace("classic", "super"))
    assert position.parse_move("58-62").kind == "hop"


# ---- Documentation ---------------------------------------------------------------------


def notation_examples() -> list[str]:
    text = (DOCS / "notation.md").read_text()
    block = text.split("Examples:", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    return [re.split(r"\s{2,}", line.strip())[0] for line in block.strip().splitlines()]


@pytest.mark.parametrize("text", notation_examples())
def test_notation_doc_examples_are_valid_positions(text: str) -> None:
    position = Position(text)
    assert Position(str(position)) == position
