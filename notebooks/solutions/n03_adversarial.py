"""Notebook 3, exercise 1: an iterative-deepening alpha-beta bot."""

from collections.abc import Callable

import sternhalma


class _OutOfBudget(Exception):
    pass


class StudentBot:
    """Alpha-beta (negamax) with iterative deepening and a node budget.

    `evaluate(position, player)` scores a position for `player`;
    `ordered(position)` lists the legal moves, best guesses first.
    """

    def __init__(
        self,
        evaluate: Callable[[sternhalma.Position, int], float],
        ordered: Callable[[sternhalma.Position], list[sternhalma.Move]],
        node_budget: int = 1000,
    ):
        self.evaluate = evaluate
        self.ordered = ordered
        self.node_budget = node_budget
        self.nodes = 0

    def _search(
        self, position: sternhalma.Position, depth: int, alpha: float, beta: float
    ) -> float:
        self.nodes += 1
        if self.nodes > self.node_budget:
            raise _OutOfBudget
        if depth == 0 or position.is_game_over():
            return self.evaluate(position, position.side_to_move)
        best = -float("inf")
        for move in self.ordered(position):
            position.push(move)
            best = max(best, -self._search(position, depth - 1, -beta, -alpha))
            position.pop()
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    def step(self, position: sternhalma.Position) -> sternhalma.Move:
        self.nodes = 0
        moves = self.ordered(position)
        best_move = moves[0]
        depth = 1
        work = position.copy()
        while True:
            try:
                best_value = -float("inf")
                choice = best_move
                # The previous iteration's best move first.
                for move in [best_move, *(m for m in moves if m != best_move)]:
                    work.push(move)
                    value = -self._search(work, depth - 1, -float("inf"), -best_value)
                    work.pop()
                    if value > best_value:
                        best_value, choice = value, move
            except _OutOfBudget:
                return best_move
            best_move = choice
            depth += 1
            if depth > 60:
                return best_move
