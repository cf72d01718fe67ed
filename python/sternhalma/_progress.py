"""How ``Tablebase.load`` shows a solve on first use: a tqdm bar when tqdm is
installed (``tqdm.auto``: a widget in Jupyter), else one line on standard
error, rewritten in place.

The compiled part calls ``BuildDisplay(board, positions)``, then
``update(pass_, tiles_done, tiles, unknown)`` from the solver's threads (at
most ten times a second, and at the end of every pass, the GIL held), and
``close(seconds, path)`` once the table is written (``path`` ``None`` if the
solve failed).
"""

from __future__ import annotations

import sys
from os import PathLike
from typing import Any

__all__ = ["BuildDisplay"]


class BuildDisplay:
    """A solve's progress: each pass of the solver reads the table tile by
    tile, and fewer positions stay unknown after each."""

    def __init__(self, board: str, positions: int) -> None:
        self.board = board
        self.positions = positions
        self._bar: Any = None
        self._pass = -1
        self._width = 0
        try:
            from tqdm.auto import tqdm  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            self._tqdm: Any = None
        else:
            self._tqdm = tqdm
        if self._tqdm is None:
            self._line(f"solving {board} ({positions:,} positions)")

    def _line(self, text: str) -> None:
        # One line, rewritten from its start, padded over a longer one (no
        # terminal escapes: stderr may be a notebook or a log).
        sys.stderr.write(f"\r{text.ljust(self._width)}")
        sys.stderr.flush()
        self._width = len(text)

    def update(self, pass_: int, tiles_done: int, tiles: int, unknown: int) -> None:
        """Where the solve is: the pass, the tiles of it done, the positions
        still unknown (one side to move)."""
        if self._tqdm is None:
            self._line(
                f"solving {self.board}: pass {pass_}, tile {tiles_done}/{tiles}, "
                f"{unknown:,} positions unknown"
            )
            return
        if pass_ != self._pass:
            if self._bar is None:
                self._bar = self._tqdm(total=tiles, desc=self.board, unit="tile", leave=True)
            else:
                self._bar.reset(total=tiles)
            self._pass = pass_
        self._bar.set_description(f"{self.board} pass {pass_}", refresh=False)
        self._bar.set_postfix(unknown=f"{unknown:,}", refresh=False)
        self._bar.update(tiles_done - self._bar.n)

    def close(self, seconds: float, path: str | PathLike[str] | None) -> None:
        """The end of the solve: how long it took and where the table went."""
        if path is None:
            result = f"{self.board}: the solve failed after {seconds:.1f} s"
        else:
            result = f"{self.board}: solved in {seconds:.1f} s, written to {path}"
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._tqdm is None:
            self._line(result)
            sys.stderr.write("\n")
            sys.stderr.flush()
        else:
            self._tqdm.write(result, file=sys.stderr)
