"""Sternhalma: the rules of Chinese Checkers, exact and fast, for Python.

>>> import sternhalma
>>> position = sternhalma.Position()
>>> len(position.legal_moves)
14
>>> position.push("115-104")
>>> position.outcome().status
'in_progress'

The classes come from the compiled ``sternhalma._core`` extension (the Rust
rules crate); ``sternhalma.client`` talks to a Sternhalma HTTP server with the
same methods, so a notebook can switch between local and remote play.
"""

from sternhalma._core import (
    Board,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    NotationError,
    Outcome,
    Position,
    Rules,
    Solution,
    SolveLimitError,
    SolveProgress,
    SternhalmaError,
    UnknownPresetError,
    UnsolvableError,
    solve_solitaire,
)
from sternhalma.client import Client, RemotePosition, ServerError

__all__ = [
    "Board",
    "Client",
    "IllegalMoveError",
    "InvalidPositionError",
    "Move",
    "NotationError",
    "Outcome",
    "Position",
    "RemotePosition",
    "Rules",
    "ServerError",
    "Solution",
    "SolveLimitError",
    "SolveProgress",
    "SternhalmaError",
    "UnknownPresetError",
    "UnsolvableError",
    "solve_solitaire",
]

__version__ = "0.1.0"
