"""Play without a Python call per move: Position.playout, rollouts and
VectorEnv, checked against the same games played move by move."""

from __future__ import annotations

import numpy as np
import pytest
import sternhalma
from sternhalma import IllegalMoveError, Position, VectorEnv, rollouts


def test_a_playout_is_a_legal_game_fixed_by_its_seed() -> None:
    start = Position.start(layout=3)
    end = start.playout(policy="forward", seed=4, max_plies=300)
    assert start.ply == 0 and start.move_stack == []  # unchanged
    assert len(end.move_stack) == end.ply <= 300
    replay = start.copy()
    for move in end.move_stack:
        assert replay.is_legal(move)
        replay.push(move)
    assert replay == end
    assert start.playout(policy="forward", seed=4, max_plies=300) == end
    assert start.playout(policy="forward", seed=5, max_plies=300) != end


def test_forward_playouts_finish_where_uniform_ones_wander() -> None:
    finished = sum(
        Position().playout(policy="forward", seed=s, max_plies=3000).is_game_over()
        for s in range(10)
    )
    assert finished >= 8
    wander = Position().playout(policy="uniform", seed=1, max_plies=400)
    assert wander.ply == 400 and not wander.is_game_over()


def test_playout_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match='"uniform" and "forward"'):
        Position().playout(policy="greedy")
    with pytest.raises(ValueError, match="max_plies"):
        Position().playout(max_plies=-1)
    over = Position("star1 classic south:2/north:6 0 0 -").play("2-0")
    assert over.playout(seed=1).ply == over.ply


def test_rollouts_match_playouts_and_do_not_depend_on_threads() -> None:
    leaves = [Position(), Position().play("115-104"), Position.start(board="star2")]
    results, plies = rollouts(leaves, policy="forward", seed=7, max_plies=2000, threads=1)
    again, plies_again = rollouts(leaves, policy="forward", seed=7, max_plies=2000, threads=3)
    assert np.array_equal(results, again) and np.array_equal(plies, plies_again)
    assert results.shape == (3, 2) and results.dtype == np.float64
    for row, played in zip(results, plies, strict=True):
        assert played > 0
        assert sorted(row) in ([-1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="same number of players"):
        rollouts([Position(), Position.start(layout=3)])
    empty_results, empty_plies = rollouts([])
    assert empty_results.shape == (0, 0) and empty_plies.shape == (0,)


def test_vector_env_steps_like_positions_played_one_by_one() -> None:
    start = Position.start(board="star2")
    env = VectorEnv(6, start, max_plies=30, seed=3)
    assert (env.num_envs, env.num_players, env.num_distinct_actions) == (
        6,
        2,
        start.num_distinct_actions(),
    )
    alone = [start.copy() for _ in range(6)]
    boards = env.reset()
    assert boards.shape == (6, 37) and boards.dtype == np.int8
    rng = np.random.default_rng(0)
    cut = ended = 0
    for _ in range(120):
        legal = env.legal_actions()
        counts = (legal >= 0).sum(axis=1)
        choice = legal[np.arange(6), (rng.random(6) * counts).astype(int)]
        boards, rewards, terminated, truncated = env.step(choice)
        for i, position in enumerate(alone):
            position.apply_action(int(choice[i]))
            if position.is_game_over():
                assert terminated[i] and list(rewards[i]) == position.returns()
                ended += 1
                position = alone[i] = start.copy()
            elif position.ply == 30:
                assert truncated[i] and not terminated[i]
                cut += 1
                position = alone[i] = start.copy()
            else:
                assert not terminated[i] and not truncated[i] and not rewards[i].any()
            assert env.position(i) == position
            assert sorted(np.flatnonzero(env.action_mask()[i])) == sorted(position.legal_actions())
            mover = position.side_to_move
            assert set(np.flatnonzero(boards[i] == 1)) == set(position.player_pegs(mover))
        assert list(env.plies) == [p.ply for p in alone]
        assert list(env.current_player) == [p.side_to_move for p in alone]
    assert cut > 0


def test_a_refused_action_names_the_game_and_moves_none() -> None:
    env = VectorEnv(3, seed=1)
    actions = env.random_actions()
    actions[1] = 0  # hole 0 holds the other player's peg
    before = [env.position(i) for i in range(3)]
    with pytest.raises(IllegalMoveError, match="game 1: action 0: illegal move") as caught:
        env.step(actions)
    assert caught.value.code == "not_your_peg"
    assert [env.position(i) for i in range(3)] == before
    with pytest.raises(ValueError, match="one action per game"):
        env.step([1, 2])
    with pytest.raises(IllegalMoveError, match="not an action number"):
        env.step(np.array([-1, 0, 0]))
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(0)
    with pytest.raises(IndexError, match="no game 3"):
        env.position(3)
    assert repr(env).startswith("VectorEnv(3, Position('star4 classic")


def test_random_actions_are_legal_and_seeded() -> None:
    env = VectorEnv(5, seed=2)
    actions = env.random_actions(seed=9)
    assert np.array_equal(actions, env.random_actions(seed=9))
    for i, action in enumerate(actions):
        assert int(action) in env.position(i).legal_actions()


def test_apply_action_checks_one_peg_and_keeps_paths_lazy() -> None:
    position = Position()
    hop = position.move_to_action("115-104")
    position.apply_action(hop)
    assert position.peek().path == [115, 104]
    with pytest.raises(IllegalMoveError, match="not an action number") as caught:
        position.apply_action(position.num_distinct_actions())
    assert caught.value.code == "unknown_action"
    with pytest.raises(IllegalMoveError, match="hole 111") as caught:
        position.apply_action(111 * 121 + 102)  # south's peg; north is to move
    assert caught.value.code == "not_your_peg"
    assert position.ply == 1  # the refused actions changed nothing
    listed = position.legal_moves
    assert all(isinstance(a, int) for a in position.legal_actions())
    position.push(listed[0])
    assert position.pop().path == listed[0].path


def test_the_package_exports_the_new_names() -> None:
    assert sternhalma.VectorEnv is VectorEnv and sternhalma.rollouts is rollouts
