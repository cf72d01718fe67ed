"""Pickling and copying: Position (with its move stack), Move, Board, Rules."""

from __future__ import annotations

import copy
import pickle

import pytest
from sternhalma import Board, Move, Position, Rules
from support import GAME_SETUPS, Setup, random_game

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def same_stack(a: Position, b: Position) -> bool:
    return [(m, m.kind, list(m.path)) for m in a.move_stack] == [
        (m, m.kind, list(m.path)) for m in b.move_stack
    ]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pickle_position_with_move_stack(protocol: int) -> None:
    position = Position()
    for move in ["115-104", "6-15", "111-102"]:
        position.push(move)
    again = pickle.loads(pickle.dumps(position, protocol))
    assert again == position and str(again) == str(position)
    assert same_stack(again, position)
    assert again.pop() == Move(111, 102)
    assert len(position.move_stack) == 3  # the original is untouched


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_pickle_whole_games(setup: Setup) -> None:
    """Passes, swaps, hop chains and finished players all survive."""
    game = random_game(setup, seed=2)
    again = pickle.loads(pickle.dumps(game.final))
    assert again == game.final
    assert str(again) == game.strings[-1]
    assert same_stack(again, game.final)
    assert again.outcome().status == game.final.outcome().status
    for before in reversed(game.strings[:-1]):
        again.pop()
        assert str(again) == before


def test_pickle_keeps_a_given_hop_chain() -> None:
    game = random_game(Setup("star2", "research"), seed=1)
    index = next(i for i, m in enumerate(game.moves) if len(m.path) > 2)
    position = Position(game.strings[index])
    chain = "-".join(map(str, game.moves[index].path))
    position.push(chain)
    again = pickle.loads(pickle.dumps(position))
    assert "-".join(map(str, again.peek().path)) == chain


def test_pickle_position_not_at_the_start() -> None:
    text = "star2 research south:2,34,35/north:0,1,15 0 34 0@34"
    position = Position(text)
    again = pickle.loads(pickle.dumps(position))
    assert str(again) == text and again.move_stack == []
    assert again.outcome().winner == 0
    started = Position.start(board="star2", layout="3", first_player=2)
    started.push(started.legal_moves[-1])
    again = pickle.loads(pickle.dumps(started))
    assert again == started and same_stack(again, started)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    "value",
    [
        Move(111, 102),
        Move.parse("95-75-57"),
        Move.pass_(),
        Board(),
        Board("rhombus9p10"),
        Rules(),
        Rules("research", max_plies=None),
        Rules("family", long_jumps=True, unused_triangles="filled"),
    ],
    ids=repr,
)
def test_pickle_values(value, protocol: int) -> None:
    again = pickle.loads(pickle.dumps(value, protocol))
    assert again == value
    assert repr(again) == repr(value)
    assert type(again) is type(value)


def test_pickle_legal_move_keeps_path() -> None:
    move = next(m for m in Position().legal_moves if m.kind == "hop")
    again = pickle.loads(pickle.dumps(move))
    assert list(again.path) == list(move.path)


@pytest.mark.parametrize(
    "value", [Move.parse("95-75-57"), Move.pass_(), Board("star2"), Rules("masters")], ids=repr
)
def test_copy_and_deepcopy_values(value) -> None:
    assert copy.copy(value) == value
    assert copy.deepcopy(value) == value
    assert copy.deepcopy([value, value]) == [value, value]


def test_deepcopy_position(require_copying) -> None:
    require_copying("__deepcopy__", "__copy__")
    position = Position()
    position.push("115-104")
    for copied in (copy.deepcopy(position), copy.copy(position)):
        assert copied == position and copied is not position
        assert same_stack(copied, position)
        copied.pop()
        assert position.ply == 1
    nested = copy.deepcopy({"root": position, "list": [position]})
    assert nested["root"] == position
