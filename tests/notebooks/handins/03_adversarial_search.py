"""Notebook 3's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work."""

BOT_PARTS = {"test-bot-legal", "test-bot-budget", "test-bot-won-in-one", "test-bot-strength"}

HANDINS = {
    "copied_values": {
        "kind": "cheat",
        "story": "negamax answers the start's values, copied from a classmate's output",
        "solutions": {
            "negamax": """# The values from the start, copied from the output of a classmate's notebook.
return {0: 0, 1: 2, 2: 0, 3: 2, 4: 0, 5: 2}[depth]"""
        },
        "zero": {"test-negamax-values", "test-negamax-in-place"},
    },
    "alphabeta_without_pruning": {
        "kind": "cheat",
        "story": "alphabeta is negamax with two unused arguments",
        "solutions": {
            "alphabeta": """# alpha and beta are ignored: the whole tree, as negamax searches it.
if depth == 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, -alphabeta(position, depth - 1, alpha, beta, evaluate))
    position.pop()
return best"""
        },
        "zero": {"test-alphabeta-pruning"},
    },
    "delegating_bot": {
        "kind": "cheat",
        "story": "the bot hands its moves to the built-in alpha-beta bot",
        "solutions": {
            "student-bot": """self.evaluate(position, position.side_to_move)  # "scores positions with evaluate"
return sternhalma.Bot("alphabeta", nodes=300).step(position)"""
        },
        "zero": BOT_PARTS,
    },
    "sign_error": {
        "kind": "imperfect",
        "story": "negamax drops the minus in front of the children's values",
        "solutions": {
            "negamax": """if depth == 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, negamax(position, depth - 1, evaluate))
    position.pop()
return best"""
        },
        "zero": {"test-negamax-values"},
        "feedback": {"test-negamax-values": "sign error"},
    },
    "budget_between_depths": {
        "kind": "imperfect",
        "story": "the bot checks its budget only between depths, so the last depth overruns it",
        "solutions": {
            "student-bot": """self.nodes = 0
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
return best_move"""
        },
        "zero": {"test-bot-budget"},
        "feedback": {"test-bot-budget": "budget"},
    },
}
