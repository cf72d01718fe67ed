"""Notebook 3's cheating and buggy hand-ins (see tests/notebooks/handins.py).

The cheating student copies the values at the start for `negamax`, writes
`alphabeta` as a plain negamax that never prunes, and hands the bot's moves
to the built-in alpha-beta bot (issue 32's delegating bot). The buggy one
drops the minus in `negamax` and lets the bot finish every depth it starts,
checking its budget only between depths.
"""

CHEATING = {
    "negamax": """
# The values from the start, copied from the output of a classmate's notebook.
return {0: 0, 1: 2, 2: 0, 3: 2, 4: 0, 5: 2}[depth]
""",
    "alphabeta": """
# alpha and beta are ignored: the whole tree, as negamax searches it.
if depth == 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, -alphabeta(position, depth - 1, alpha, beta, evaluate))
    position.pop()
return best
""",
    "student-bot": """
self.evaluate(position, position.side_to_move)  # "scores positions with evaluate"
return sternhalma.Bot("alphabeta", nodes=300).step(position)
""",
}

CHEATING_ZERO = {
    "test-negamax-values",  # right at the start, wrong on the held-out positions
    "test-negamax-in-place",  # makes no position
    "test-alphabeta-pruning",  # as many positions as negamax
    "test-bot-legal",  # every bot part: the built-in bot is barred in its steps
    "test-bot-budget",
    "test-bot-won-in-one",
    "test-bot-strength",
}

BUGGY = {
    "negamax": """
if depth == 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, negamax(position, depth - 1, evaluate))
    position.pop()
return best
""",
    "student-bot": """
self.nodes = 0
work = position.copy()

def search(depth, alpha, beta):
    if depth == 0 or work.is_game_over():
        return self.evaluate(work, work.side_to_move)
    best = -float("inf")
    for move in self.ordered(work):
        self.nodes += 1
        work.push(move)
        best = max(best, -search(depth - 1, -beta, -alpha))
        work.pop()
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best

moves = self.ordered(work)
best_move = moves[0]
for depth in range(1, 61):
    if self.nodes >= self.node_budget:  # only between depths: the last one runs to its end
        break
    best_value, choice = -float("inf"), best_move
    for move in [best_move, *(m for m in moves if m != best_move)]:
        self.nodes += 1
        work.push(move)
        value = -search(depth - 1, -float("inf"), -best_value)
        work.pop()
        if value > best_value:
            best_value, choice = value, move
    best_move = choice
return best_move
""",
}

BUGGY_FEEDBACK = {
    "test-negamax-values": "sign error",
    "test-bot-budget": "budget",
}
