"""open_spiel's names on Position, and seeded random games to the end."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sternhalma import IllegalMoveError, Move, Position
from support import GAME_SETUPS, Setup, random_game

TERMINAL = -4


def action(position: Position, move: Move) -> int:
    holes = len(position.board)
    return holes * holes if move.is_pass else move.from_hole * holes + move.to_hole


def test_action_numbering_at_the_start() -> None:
    position = Position()
    assert position.num_distinct_actions() == 121 * 121 + 1
    assert position.num_players() == 2
    actions = position.legal_actions()
    assert actions == [action(position, m) for m in position.legal_moves]
    assert actions == sorted(actions)
    assert 115 * 121 + 104 in actions


def test_action_and_move_are_inverses() -> None:
    position = Position()
    for number, move in zip(position.legal_actions(), position.legal_moves, strict=True):
        assert position.action_to_move(number) == move
        assert position.action_to_move(number).kind == move.kind
        assert list(position.action_to_move(number).path) == list(move.path)
        assert position.move_to_action(move) == number
        assert position.move_to_action(str(move)) == number


def test_apply_action_and_undo_action() -> None:
    position = Position()
    position.apply_action(115 * 121 + 104)
    assert position.peek() == Move(115, 104)
    assert position.current_player() == 1
    assert position.move_stack == [Move(115, 104)]
    position.undo_action()
    assert position == Position()
    with pytest.raises(IndexError):
        position.undo_action()


@pytest.mark.parametrize(
    "number, code",
    [
        (111 * 121 + 112, "hole_occupied"),
        (0 * 121 + 15, "not_your_peg"),
        (60 * 121 + 61, "empty_hole"),
        (111 * 121 + 60, "unreachable"),
        (121 * 121, "pass_not_allowed"),
        (121 * 121 + 1, "unknown_action"),
    ],
)
def test_illegal_actions(number: int, code: str) -> None:
    position = Position()
    with pytest.raises(IllegalMoveError) as caught:
        position.apply_action(number)
    assert caught.value.code == code
    with pytest.raises(IllegalMoveError):
        position.action_to_move(number)
    assert position == Position() and position.move_stack == []


def test_action_out_of_range_message_speaks_of_actions() -> None:
    """An action number past `num_distinct_actions()` is not a hole."""
    with pytest.raises(IllegalMoveError) as caught:
        Position().apply_action(10**6)
    message = str(caught.value)
    assert "1000000" in message
    assert "action" in message


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_action_mask_marks_the_legal_actions(setup: Setup) -> None:
    """At every ply of a random game, the mask's True entries are the legal
    actions; a fresh array each call; all False once the game is over."""
    game = random_game(setup, seed=11, max_plies=80)
    for text in game.strings:
        position = Position(text)
        mask = position.action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (position.num_distinct_actions(),)
        assert np.flatnonzero(mask).tolist() == position.legal_actions()
        assert mask.view(np.int8).sum() == len(position.legal_actions())
        mask[:] = True
        assert np.flatnonzero(position.action_mask()).tolist() == position.legal_actions()
    over = Position("star1 classic south:2/north:6 0 0 -")
    over.push("2-0")
    assert over.is_terminal() and not over.action_mask().any()


def test_pass_action() -> None:
    # Under `finish = round`, a finished player passes until the round ends.
    position = Position("star2 classic,finish=round south:0-2/north:30-32 0 1 0@1")
    holes = len(position.board)
    assert position.legal_moves == [Move.pass_()]
    assert position.legal_actions() == [holes * holes]
    assert position.action_to_move(holes * holes).is_pass
    assert position.move_to_action("pass") == holes * holes
    position.apply_action(holes * holes)
    assert position.peek().is_pass
    assert position.ply == 2


def test_child_and_clone(require_copying) -> None:
    require_copying("child", "clone")
    position = Position()
    first = position.legal_actions()[0]
    child = position.child(first)
    assert position == Position()
    assert child.move_stack == [position.action_to_move(first)]
    twin = child.clone()
    assert twin == child and twin is not child
    twin.undo_action()
    assert twin == position and child.ply == 1
    with pytest.raises(IllegalMoveError):
        position.child(121 * 121)


def test_observation_tensor_at_the_start() -> None:
    position = Position()
    tensor = position.observation_tensor()
    assert isinstance(tensor, np.ndarray)
    assert tensor.dtype == np.float32
    assert tensor.shape == (4, 121)
    assert set(np.unique(tensor)) <= {0.0, 1.0}
    assert np.flatnonzero(tensor[0]).tolist() == list(range(111, 121))  # to move
    assert np.flatnonzero(tensor[1]).tolist() == list(range(10))
    assert not tensor[2].any()  # no neutral pegs
    assert tensor[3].sum() == 101
    np.testing.assert_array_equal(tensor.sum(axis=0), np.ones(121, dtype=np.float32))


def test_observation_tensor_turns_with_the_player_to_move() -> None:
    position = Position.start(layout="3")
    position.push(position.legal_moves[0])
    tensor = position.observation_tensor()
    assert tensor.shape == (5, 121)
    for plane in range(3):
        player = (position.side_to_move + plane) % 3
        assert np.flatnonzero(tensor[plane]).tolist() == position.player_pegs(player)


def test_observation_tensor_neutral_plane() -> None:
    position = Position("star4 classic,unused_triangles=filled south:111-120/north:0-9")
    tensor = position.observation_tensor()
    board = position.board
    neutral = sorted(
        h
        for t in ("north_east", "south_east", "south_west", "north_west")
        for h in board.triangle(t)
    )
    assert np.flatnonzero(tensor[2]).tolist() == neutral
    assert tensor[3].sum() == 121 - 60
    np.testing.assert_array_equal(tensor.sum(axis=0), np.ones(121, dtype=np.float32))


def test_observation_tensor_is_a_fresh_array() -> None:
    position = Position()
    tensor = position.observation_tensor()
    tensor[:] = 7
    assert position.observation_tensor().max() == 1.0


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
@pytest.mark.parametrize("seed", range(3))
def test_random_game_through_actions(setup: Setup, seed: int) -> None:
    """Drives a whole game with open_spiel's calls and checks the invariants
    at every ply."""
    rng = random.Random(seed)
    position = setup.start()
    players = position.num_players()
    holes = len(position.board)
    limit = position.rules.max_plies
    history = []
    while not position.is_terminal():
        assert position.current_player() == position.side_to_move
        assert 0 <= position.current_player() < players
        assert position.returns() == [0.0] * players
        actions = position.legal_actions()
        assert actions and all(0 <= a < position.num_distinct_actions() for a in actions)
        assert len(set(actions)) == len(actions)
        assert (holes * holes in actions) == (actions == [holes * holes])
        tensor = position.observation_tensor()
        assert tensor.shape == (players + 2, holes)
        assert np.flatnonzero(tensor[0]).tolist() == position.player_pegs(position.side_to_move)
        chosen = rng.choice(actions)
        history.append((position.zobrist_hash, chosen))
        position.apply_action(chosen)
        assert position.ply == len(history)
        assert limit is None or position.ply <= limit
    assert position.current_player() == TERMINAL
    assert position.is_game_over()
    assert position.legal_actions() == [] and position.legal_moves == []
    returns = position.returns()
    assert len(returns) == players
    assert sum(returns) == pytest.approx(0.0, abs=1e-9)
    assert all(-1.0 <= r <= 1.0 for r in returns)
    assert returns == position.outcome().results
    outcome = position.outcome()
    if outcome.status == "draw":
        assert returns == [0.0] * players
    else:
        assert max(returns) > 0
        for winner in outcome.winners:
            assert returns[winner] == max(returns)
    # Undo it all, checking the hashes on the way back.
    while history:
        zobrist, chosen = history.pop()
        assert action(position, position.peek()) == chosen
        position.undo_action()
        assert position.zobrist_hash == zobrist
    assert position == setup.start()


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_random_game_by_moves_ends(setup: Setup) -> None:
    for seed in range(5):
        game = random_game(setup, seed)
        final = game.final
        assert final.is_game_over() and final.outcome().is_over
        assert final.ply == len(game.moves)
        assert sum(final.returns()) == pytest.approx(0.0, abs=1e-9)


def test_star2_research_outcomes_vary() -> None:
    statuses = {
        random_game(Setup("star2", "research"), s).final.outcome().status for s in range(20)
    }
    assert statuses == {"won", "draw"}
