"""sternhalma.grading: the engine counts the positions Python code makes,
bars the built-in searches inside a graded call, and draws held-out cases
from the teacher's secret."""

from __future__ import annotations

import pytest
import sternhalma
from sternhalma import grading


def small() -> sternhalma.Position:
    return sternhalma.Position.start(board="rhombus5p3", rules="research")


def test_every_way_of_making_a_position_is_counted() -> None:
    position = small()
    moves = list(position.legal_moves)
    actions = position.legal_actions()
    with grading.counting() as work:
        for move in moves:
            position.push(move)
            position.pop()
        for move in moves:
            position.play(move)
        for action in actions:
            position.child(action)
            position.apply_action(action)
            position.undo_action()
        position.copy()  # a copy is not a new position of the search
        assert work.positions == 2 * len(moves) + 2 * len(actions)
    position.push(moves[0])
    assert work.positions == 2 * len(moves) + 2 * len(actions), "counting stops with the block"


def test_the_engines_own_moves_are_not_counted_but_every_position_handed_over_is() -> None:
    import pickle

    position = small()
    position.push(position.legal_moves[0])
    with grading.counting() as work:
        position.playout(seed=1, max_plies=10)
    assert work.positions == 0
    # A pickle hands one position over, however many moves it replays: a
    # search cannot make its children uncounted by restoring pickles.
    with grading.counting() as work:
        pickle.loads(pickle.dumps(position))
    assert work.positions == 1


def test_built_in_searches_are_barred_inside_and_only_inside() -> None:
    position = small()
    calls = [
        ("sternhalma.Bot", lambda: sternhalma.Bot("greedy", seed=1).step(position)),
        ("sternhalma.Bot", lambda: sternhalma.Bot("alphabeta", nodes=50).search(position)),
        ("sternhalma.solve_solitaire", lambda: sternhalma.solve_solitaire("rhombus5p3")),
        ("Position.playout", lambda: position.playout(seed=1, max_plies=4)),
        ("sternhalma.rollouts", lambda: sternhalma.rollouts([position], seed=1, max_plies=4)),
    ]
    with grading.barred():
        with grading.barred():
            pass  # an inner block ends; the outer one still bars
        for name, call in calls:
            with pytest.raises(sternhalma.BuiltinBarredError, match=name):
                call()
        assert isinstance(sternhalma.BuiltinBarredError("x"), sternhalma.SternhalmaError)
    for _, call in calls:
        call()


def test_graded_returns_the_result_and_the_work() -> None:
    position = small()

    def one_ply(p: sternhalma.Position) -> int:
        return len([p.play(m) for m in p.legal_moves])

    assert grading.graded(one_ply, position) == (len(position.legal_moves),) * 2

    def delegate(p: sternhalma.Position) -> sternhalma.Move:
        return sternhalma.Bot("greedy").step(p)

    with pytest.raises(sternhalma.BuiltinBarredError):
        grading.graded(delegate, position)
    delegate(position)  # the bar is lifted after a failed call too


def test_held_out_cases_follow_the_teachers_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(grading.HELD_OUT_ENV, raising=False)
    default = [grading.held_out("case").random() for _ in range(2)]
    assert default[0] == default[1], "the same cases on every run"
    assert grading.held_out("other").random() != default[0]
    monkeypatch.setenv(grading.HELD_OUT_ENV, "the teacher's secret")
    assert grading.held_out("case").random() != default[0]


def test_an_opening_is_random_legal_and_leaves_the_game_open() -> None:
    start = small()
    rng = grading.held_out("openings")
    seen = set()
    for _ in range(20):
        position = grading.opening(start, 6, rng)
        assert position.ply == 6 and not position.is_game_over()
        assert start.ply == 0
        seen.add(position)
    assert len(seen) > 10
