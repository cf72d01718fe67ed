"""The solved game (RULES §7, the ``sturtevant`` preset) through the module:
no move into an illegal position, no pass, a player without a move loses,
illegal positions refused."""

from __future__ import annotations

import pytest
from sternhalma import IllegalMoveError, InvalidPositionError, Move, Position, Rules

# South (0) to move: its step 43-46 would fill north's target, 46-48.
COMPLETES = "rhombus7p3 sturtevant south:5,20,43/north:10,47,48 0 10 -"


def test_the_preset_plays_on_the_7x7_rhombus_with_3_pegs() -> None:
    start = Position.start(rules="sturtevant")
    assert str(start) == "rhombus7p3 sturtevant south:46-48/north:0-2 0 0 -"
    assert start.rules == Rules("sturtevant")
    assert not start.rules.target_lock and start.rules.illegal_positions == "sturtevant"
    assert len(start.legal_moves) == start.perft(1) == 6
    assert Position.start(board="rhombus5p4", rules="sturtevant").board.pegs_per_set == 4


def test_a_move_into_an_illegal_position_is_not_generated_and_is_refused() -> None:
    position = Position(COMPLETES)
    assert Move(43, 46) not in position.legal_moves
    assert not position.is_legal("43-46")
    with pytest.raises(IllegalMoveError) as caught:
        position.push("43-46")
    assert caught.value.code == "leads_to_illegal_position"
    assert "complete the opponent's target" in str(caught.value)
    assert str(position) == COMPLETES
    # Without the rule the step is legal, and north wins on south's move.
    free = Position(COMPLETES.replace("sturtevant", "sturtevant,illegal_positions=none"))
    after = free.play("43-46")
    assert after.outcome().winner == 1


def test_a_player_without_a_move_loses() -> None:
    # rhombus2p2's homes are the whole board: nobody can move.
    position = Position("rhombus2p2 sturtevant south:2,3/north:0,1 0 0 -")
    assert list(position.legal_moves) == [] and position.legal_actions() == []
    assert position.is_game_over() and position.is_terminal()
    outcome = position.outcome()
    assert (outcome.status, outcome.winner) == ("won", 1)
    assert position.returns() == [-1.0, 1.0]
    with pytest.raises(IllegalMoveError) as caught:
        position.push("pass")
    assert caught.value.code == "game_over"


def test_illegal_positions_are_refused() -> None:
    with pytest.raises(InvalidPositionError) as caught:
        Position("rhombus7p3 sturtevant south:0-2/north:20,30,40 0 10 -")
    assert [code for code, _ in caught.value.problems] == ["side_to_move_has_won"]
    # The other player to move, the winner recorded: a finished game.
    over = Position("rhombus7p3 sturtevant south:0-2/north:20,30,40 1 10 0@10")
    assert over.outcome().winner == 0


def test_playouts_end_in_a_win() -> None:
    start = Position.start(rules="sturtevant")
    won = 0
    for seed in range(10):
        end = start.playout(policy="forward", seed=seed, max_plies=2000)
        replay = start.copy()
        for move in end.move_stack:
            assert replay.is_legal(move)
            replay.push(move)
        assert replay == end
        won += end.outcome().winner is not None
    assert won >= 5
