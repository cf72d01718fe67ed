"""Keywords that feel like Python: ints for layouts, booleans for on/off
options, None for no move limit, and a ValueError (with the argument's name
and range) for a negative budget instead of an OverflowError."""

from __future__ import annotations

import pytest
from sternhalma import (
    Bot,
    NotationError,
    Position,
    Rules,
    UnknownPresetError,
    solve_solitaire,
)


@pytest.mark.parametrize("players", [1, 2, 3, 4, 6])
def test_layout_as_an_int(players: int) -> None:
    assert Position.start(layout=players) == Position.start(layout=str(players))


def test_layout_default_is_two_players() -> None:
    assert Position.start() == Position.start(layout="2") == Position()


def test_booleans_and_none_for_options() -> None:
    assert Rules("classic", long_jumps=True) == Rules("super")
    assert Rules("super", long_jumps=False) == Rules("classic")
    assert Rules("classic", long_jumps="on") == Rules("super"), "the text form still works"
    assert Rules("research", max_plies=None).max_plies is None
    assert Rules("classic", max_plies=300).max_plies == 300


@pytest.mark.parametrize(
    "overrides, named",
    [
        ({"max_plies": -1}, "max_plies must be none or a whole number"),
        ({"max_plies": 2**32}, "max_plies must be none or a whole number"),
        ({"finish": True}, "finish must be first, round or ranking"),
        ({"long_jumps": 3}, "long_jumps must be on or off"),
        ({"speed": "fast"}, "unknown option"),
    ],
)
def test_bad_options_name_what_they_take(overrides: dict[str, object], named: str) -> None:
    with pytest.raises(NotationError) as caught:
        Rules("classic", **overrides)
    assert named in str(caught.value)
    assert caught.value.code == "invalid_rules"


def test_unknown_preset_has_its_own_code() -> None:
    with pytest.raises(UnknownPresetError) as caught:
        Rules("clasic")
    assert (caught.value.what, caught.value.code) == ("preset", "unknown_preset")


@pytest.mark.parametrize("budget", ["nodes", "millis", "depth", "seed"])
def test_negative_budgets_are_value_errors(budget: str) -> None:
    with pytest.raises(ValueError) as caught:
        Bot("alphabeta", **{budget: -5})
    assert not isinstance(caught.value, OverflowError)
    assert f"{budget} must be a whole number from 0 to" in str(caught.value)
    assert "not -5" in str(caught.value)


def test_a_negative_solve_limit_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="max_nodes must be a whole number from 0 to"):
        solve_solitaire("rhombus5p3", max_nodes=-1)


def test_error_codes_of_every_parse_error_kind() -> None:
    cases = [
        (lambda: Position.start(board="star9"), "invalid_board"),
        (lambda: Position.start(layout="5"), "invalid_layout"),
        (lambda: Rules("classic,speed=fast"), "invalid_rules"),
        (lambda: Position("star4 classic south:111-120/north"), "malformed_position"),
        (lambda: Position().push("1--2"), "malformed_move"),
        (lambda: Position.from_json("{"), "malformed_json"),
        (lambda: Position.from_json({"board": "star4"}), "missing_field"),
    ]
    for make, code in cases:
        with pytest.raises(NotationError) as caught:
            make()
        assert caught.value.code == code
