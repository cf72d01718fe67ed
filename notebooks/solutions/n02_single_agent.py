"""Notebook 2, exercise 2: IDA* on the solitaire crossing."""

from collections.abc import Callable

import sternhalma

Heuristic = Callable[[frozenset[int]], int]


def ida_star(root: sternhalma.Position, h: Heuristic) -> tuple[int, int]:
    """Optimal crossing length by IDA*: (length, nodes expanded)."""
    target = frozenset(root.board.triangle("north"))
    position = root.copy()
    expanded = 0

    def search(g: int, bound: int, seen: dict[frozenset[int], int]) -> int | None:
        """Depth-first below `position`; returns the solution length, or None with
        `next_bound[0]` lowered to the smallest f that was cut off."""
        nonlocal expanded
        pegs = frozenset(position.player_pegs(0))
        f = g + h(pegs)
        if f > bound:
            next_bound[0] = min(next_bound[0], f)
            return None
        if pegs == target:
            return g
        if seen.get(pegs, 1 << 30) <= g:
            return None  # reached before by a path at least as short, this iteration
        seen[pegs] = g
        expanded += 1
        for move in position.legal_moves:
            position.push(move)
            found = search(g + 1, bound, seen)
            position.pop()
            if found is not None:
                return found
        return None

    bound = h(frozenset(root.player_pegs(0)))
    while True:
        next_bound = [1 << 30]
        found = search(0, bound, {})
        if found is not None:
            return found, expanded
        bound = next_bound[0]
