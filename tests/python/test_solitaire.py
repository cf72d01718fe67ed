"""The solitaire solver from Python: optimal lengths on small boards, the
moves replay through the rules, progress reports, the node limit, errors,
and Ctrl-C."""

from __future__ import annotations

import _thread
import signal

import pytest
import sternhalma
from sternhalma import (
    Board,
    Position,
    Solution,
    SolveLimitError,
    SolveProgress,
    SternhalmaError,
    UnsolvableError,
    solve_solitaire,
)


@pytest.mark.parametrize(
    ("board", "hops_only", "length"),
    [("rhombus5p3", False, 11), ("rhombus7p3", False, 17), ("star2", False, 11)],
)
def test_optimal_lengths_and_replay(board: str, hops_only: bool, length: int) -> None:
    solution = solve_solitaire(board, hops_only=hops_only)
    assert isinstance(solution, Solution)
    assert solution.length == length == len(solution.moves)
    assert solution.optimal is True
    assert solution.nodes > 0
    assert solution.seconds >= 0.0
    position = Position.start(board=board, layout="1")
    for move in solution.moves:
        position.push(move)
    assert position.outcome().status == "won"
    assert "Solution(length=" in repr(solution)


def test_a_board_object_and_hops_only() -> None:
    solution = solve_solitaire(Board("rhombus5p6"), hops_only=True)
    assert solution.length == 15
    assert all(move.kind == "hop" for move in solution.moves)


def test_unsolvable_is_a_sternhalma_error() -> None:
    with pytest.raises(UnsolvableError) as caught:
        solve_solitaire("rhombus7p3", hops_only=True)
    assert isinstance(caught.value, SternhalmaError)


def test_node_limit_carries_the_proven_lower_bound() -> None:
    with pytest.raises(SolveLimitError) as caught:
        solve_solitaire("rhombus9p6", max_nodes=1000)
    assert 17 <= caught.value.lower_bound <= 23
    # The meeting search stops at the limit; IDA* one node past it.
    assert caught.value.nodes == 1000
    with pytest.raises(SolveLimitError) as caught:
        solve_solitaire("rhombus9p6", max_nodes=1000, method="ida")
    assert caught.value.nodes == 1001
    assert isinstance(caught.value, ValueError)


def test_progress_reports() -> None:
    seen: list[SolveProgress] = []
    with pytest.raises(SolveLimitError):
        solve_solitaire(
            "rhombus9p6", max_nodes=100_000, progress=seen.append, progress_interval=0.0
        )
    assert seen
    last = seen[-1]
    assert last.nodes > 0 and last.bound >= 17
    assert last.seconds > 0.0 and last.nodes_per_second > 0.0
    assert "SolveProgress(nodes=" in repr(last)


def test_an_exception_in_the_callback_stops_the_solve() -> None:
    def stop(progress: SolveProgress) -> None:
        raise RuntimeError(f"stop at {progress.nodes}")

    with pytest.raises(RuntimeError, match="stop at"):
        solve_solitaire("rhombus9p6", progress=stop, progress_interval=0.0)


@pytest.mark.parametrize("method", ["meet", "ida"])
def test_keyboard_interrupt_stops_the_solve(method: str) -> None:
    # Ctrl-C, as the main thread sees it: the first progress report asks for
    # an interrupt, and the solver (holding no GIL while it searches) must
    # notice it at a later report and raise KeyboardInterrupt. The node
    # limit keeps a missed interrupt from running long: it would fail with
    # SolveLimitError instead.
    def interrupt(progress: SolveProgress) -> None:
        _thread.interrupt_main()

    # A process started in the background by a shell inherits SIGINT
    # ignored, and then Python has no Ctrl-C to deliver: install Python's
    # own handler for the test, as in any interactive session.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            solve_solitaire(
                "rhombus9p10" if method == "meet" else "rhombus9p6",
                progress=interrupt,
                progress_interval=0.0,
                max_nodes=20_000_000,
                method=method,  # type: ignore[arg-type]
            )
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("board", ["rhombus7p6", "star2", "rhombus9p3"])
def test_both_methods_agree(board: str) -> None:
    meet = solve_solitaire(board)
    ida = solve_solitaire(board, method="ida")
    assert meet.length == ida.length
    assert meet.optimal and ida.optimal
    for solution in (meet, ida):
        position = Position.start(board=board, layout="1")
        for move in solution.moves:
            position.push(move)
        assert position.outcome().status == "won"


def test_bad_arguments() -> None:
    with pytest.raises(sternhalma.NotationError):
        solve_solitaire("hexagon")
    with pytest.raises(ValueError, match="progress_interval"):
        solve_solitaire("rhombus5p3", progress_interval=-1.0)
    with pytest.raises(ValueError, match='method must be "meet" or "ida"'):
        solve_solitaire("rhombus5p3", method="astar")  # type: ignore[arg-type]
