"""A student's UCT, as notebook 4 has them write it, timed on one module.

    .venv/bin/python benches/student_mcts.py [--iterations N] [--seed S]

Selection by UCB1 over `Node` statistics, expansion of one untried action
(`legal_actions()` at each new node), a uniformly random playout of up to 40
plies (`legal_actions()`, `random.choice`, `apply_action`), backpropagation
of 1 / 0 / 0.5 by winner, or by travel when unfinished: the notebook's
shape, in plain Python over the module's public API. The work is fixed
(iterations and seed), so two builds of the module must choose the same
action from the same tree; the script prints it with the time, so a
before/after comparison (two venvs) checks the work is the same.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import sternhalma

# Notebook 4's game: the 5x5 rhombus, research rules, 60 plies.
RULES = sternhalma.Rules("research", max_plies=60)
BOARD = "rhombus5p3"
HORIZON = 40


class Node:
    __slots__ = ("action", "children", "mover", "parent", "reward", "untried", "visits")

    def __init__(self, position, action=None, parent=None, mover=None):
        self.action, self.parent, self.mover = action, parent, mover
        self.children: list[Node] = []
        self.untried = [] if position.is_game_over() else position.legal_actions()
        self.visits, self.reward = 0, 0.0


def to_target(start) -> list[list[int]]:
    """Steps from each hole to the nearest hole of each player's target."""
    board = start.board
    targets = [board.triangle("north"), board.triangle("south")]
    holes = range(len(board))
    return [[min(board.distance(h, t) for t in targets[p]) for h in holes] for p in (0, 1)]


def result_for(position, player: int, table) -> float:
    """1 for a win, 0 for a loss, 0.5 for even; unfinished: by travel."""
    outcome = position.outcome()
    if outcome.is_over:
        return (outcome.results[player] + 1) / 2

    def travel(p: int) -> int:
        return sum(table[p][hole] for hole in position.player_pegs(p))

    ahead = travel(1 - player) - travel(player)
    return 1.0 if ahead > 0 else 0.0 if ahead < 0 else 0.5


def uct(root_position, iterations: int, rng: random.Random, c: float = 1.4) -> int:
    table = to_target(root_position)
    root = Node(root_position)
    for _ in range(iterations):
        node, position = root, root_position.copy()
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(
                node.children,
                key=lambda ch: ch.reward / ch.visits + c * math.sqrt(log_n / ch.visits),
            )
            position.apply_action(node.action)
        if node.untried:
            action = node.untried.pop(rng.randrange(len(node.untried)))
            mover = position.side_to_move
            position.apply_action(action)
            child = Node(position, action, node, mover)
            node.children.append(child)
            node = child
        for _ in range(HORIZON):
            if position.is_game_over():
                break
            position.apply_action(rng.choice(position.legal_actions()))
        while node is not None:
            node.visits += 1
            if node.mover is not None:
                node.reward += result_for(position, node.mover, table)
            node = node.parent
    return max(root.children, key=lambda ch: ch.visits).action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    position = sternhalma.Position.start(board=BOARD, rules=RULES)
    began = time.perf_counter()
    action = uct(position, args.iterations, random.Random(args.seed))
    seconds = time.perf_counter() - began
    print(f"action {action} after {args.iterations} iterations in {seconds:.3f} s")


if __name__ == "__main__":
    main()
