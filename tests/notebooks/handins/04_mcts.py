"""Notebook 4's cheating and buggy hand-ins (see tests/notebooks/handins.py).

The cheating student hands the playout to the engine's own,
`Position.playout` (the built-in a search must not call): `simulate` and
everything built on it, the whole search, score nothing. The buggy one
credits each playout's result to the wrong player in `backpropagate` (the
classic point-of-view bug): its search then avoids the moves that win.
"""

CHEATING = {
    "simulate": """
# The engine's playout is much faster than a loop in Python.
return position.playout("forward", seed=rng.randrange(2**32), max_plies=horizon)
""",
}

CHEATING_ZERO = {
    "test-simulate",  # Position.playout is barred in every graded call
    "test-simulate-end",
    "test-uct-tree",  # the whole search runs the cheating simulate
    "test-uct-win",
}

BUGGY = {
    "backpropagate": """
while node is not None:
    node.visits += 1
    if node.mover is not None:
        node.reward += result_for(position, 1 - node.mover)  # the player to move, not the mover
    node = node.parent
""",
}

BUGGY_FEEDBACK = {
    "test-backpropagate": "point of view",
    "test-backpropagate-ends": "point of view",
    "test-uct-win": "point of view",  # the search avoids the win
}
