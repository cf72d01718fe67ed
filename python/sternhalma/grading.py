"""What graded exercises need to trust a student's search: its work counted
by the engine, the built-in searches barred, and held-out cases.

The teaching notebooks (``notebooks/``) grade each exercise on the
student's own functions, called directly:

>>> import sternhalma
>>> from sternhalma import grading
>>> position = sternhalma.Position.start(board="rhombus5p3", rules="research")
>>> with grading.counting() as work:
...     for move in position.legal_moves:
...         position.push(move)
...         _ = position.pop()
>>> work.positions == len(position.legal_moves)
True
>>> with grading.barred():
...     sternhalma.Bot("greedy").step(position)
Traceback (most recent call last):
    ...
sternhalma.BuiltinBarredError: sternhalma.Bot is barred in this graded exercise: write the search yourself

- ``counting()`` counts the positions the engine hands to Python, by any
  path: each ``push``, ``play``, ``apply_action`` and ``child``, and each
  position made from data (a position string, a start, JSON, a pickle
  restored); a copy is the same position and is not counted. A search's
  nodes, counted by the engine rather than by the search itself.
- ``barred()`` makes the built-in searches (``Bot``, ``solve_solitaire``,
  ``Position.playout``, ``rollouts``, ``VectorEnv``, and the solved tables'
  answers: ``Tablebase.probe``, ``moves``, ``best_move`` and ``analyse``)
  raise ``BuiltinBarredError``, so that a bot that hands its moves to a
  built-in one scores nothing. In a notebook's own kernel it stops a search
  that delegates, not a student who lifts the bar on purpose; in the
  autograder's run (``sternhalma.autograde``, docs/grading.md) the bar is
  locked for the whole run and no Python code can lift it. The bar and the
  count are process-wide: a bar held in one thread bars every thread.
- ``held_out(name)`` draws the held-out cases of a hidden test: seeded by
  the case's name and by the teacher's secret in ``STERNHALMA_HELD_OUT``, so
  a teacher who sets it grades on cases nobody has seen, not even a student
  who reads the course's source.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sternhalma._core import BuiltinBarredError, Position, _bar_builtins, _positions_made

__all__ = [
    "HELD_OUT_ENV",
    "BuiltinBarredError",
    "Work",
    "barred",
    "counting",
    "graded",
    "held_out",
    "opening",
]

HELD_OUT_ENV = "STERNHALMA_HELD_OUT"
"""The environment variable that holds the teacher's secret for held-out cases."""

T = TypeVar("T")


class Work:
    """The positions made inside a ``counting()`` block (so far, while it runs)."""

    def __init__(self) -> None:
        self._start = _positions_made()
        self._end: int | None = None

    @property
    def positions(self) -> int:
        end = _positions_made() if self._end is None else self._end
        return end - self._start

    def __repr__(self) -> str:
        return f"Work(positions={self.positions})"


@contextmanager
def counting() -> Iterator[Work]:
    """Counts the positions Python code makes inside the block."""
    work = Work()
    try:
        yield work
    finally:
        work._end = _positions_made()


@contextmanager
def barred() -> Iterator[None]:
    """Bars the built-in searches inside the block (they raise
    ``BuiltinBarredError``); blocks nest."""
    _bar_builtins(True)
    try:
        yield
    finally:
        _bar_builtins(False)


def graded(function: Callable[..., T], *args: object, **kwargs: object) -> tuple[T, int]:
    """``function(*args, **kwargs)`` with the built-in searches barred:
    its result and the positions it made."""
    with barred(), counting() as work:
        result = function(*args, **kwargs)
    return result, work.positions


def held_out(name: str) -> random.Random:
    """The random generator of the held-out cases called ``name``: the same
    cases on every run, other cases under another ``STERNHALMA_HELD_OUT``."""
    return random.Random(f"{os.environ.get(HELD_OUT_ENV, '')}/{name}")


def opening(position: Position, plies: int, rng: random.Random) -> Position:
    """A copy of ``position`` after ``plies`` random legal moves drawn with
    ``rng``, none of them ending the game (fewer if a game has no other)."""
    position = position.copy()
    for _ in range(plies):
        moves = [m for m in position.legal_moves if not position.play(m).is_game_over()]
        if not moves:
            break
        position.push(rng.choice(moves))
    return position
