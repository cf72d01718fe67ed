"""Notebook 8's cheating and buggy hand-ins (see tests/notebooks/handins.py).

The cheating student ranks, unranks and builds the graph as asked, but
reads the values and depths off the engine's table instead of iterating
(`Tablebase.probe`), and has the bot play the table's best move
(`Tablebase.moves`) behind a show of evaluating. The buggy one marks a
position lost as soon as *any* successor is won (a loss needs every one
won), and lets the bot finish every depth it starts, checking its budget
only between depths.
"""

CHEATING = {
    "solve": """
# The values and depths of the engine's table, position by position (the
# checks' graph numbers its positions by `checked_positions`, ours by rank).
if graph is checked:
    positions = checked_positions
else:
    positions = [position_at(BOARD, *unrank_position(i, 49, 1)) for i in range(len(graph))]
values, depths = [], []
for moves, position in zip(graph, positions):
    if moves is None:
        values.append(None)
        depths.append(None)
        continue
    probe = small_table.probe(position)
    values.append(probe.value)
    depths.append(probe.depth)
return values, depths
""",
    "student-bot": """
self.nodes = 0
self.evaluate(position, position.side_to_move)  # "scores positions with evaluate"
return table.moves(position)[0].move
""",
}

CHEATING_ZERO = {
    "test-solve-values",  # every solve part: the table's answers are barred inside it
    "test-solve-depths",
    "test-solve-draws",
    "test-bot-legal",  # every bot part: the table's answers are barred in its steps
    "test-bot-win-proven",
    "test-bot-accuracy",
}

BUGGY = {
    "solve": """
values = [None] * len(graph)
depths = [None] * len(graph)
for i, moves in enumerate(graph):
    if moves == []:
        values[i], depths[i] = "loss", 0
rounds = 0
while True:
    rounds += 1
    proven = {}
    for i, moves in enumerate(graph):
        if moves and values[i] is None:
            after = [values[j] for j in moves]
            if "loss" in after:
                proven[i] = "win"
            elif "win" in after:  # one move hands the opponent a win: "lost"
                proven[i] = "loss"
    if not proven:
        break
    for i, value in proven.items():
        values[i], depths[i] = value, rounds
for i, moves in enumerate(graph):
    if moves and values[i] is None:
        values[i] = "draw"
return values, depths
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
    if best_value >= WIN:
        break
return best_move
""",
}

BUGGY_FEEDBACK = {
    "test-solve-values": "a loss needs every successor won",
    "test-solve-depths": "a loss needs every successor won",
    "test-solve-draws": "a loss needs every successor won",
    "test-bot-legal": "over its budget",
}
