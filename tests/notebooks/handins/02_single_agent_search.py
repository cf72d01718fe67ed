"""The cheating and buggy hand-ins of notebook 2 (tests/notebooks/handins.py).

The cheater hard-codes IDA*'s answer for the two boards the notebook shows
(the crossings its BFS prints, and one node expanded: the issue's
`return {25: 11, 49: 17}[len(root.board)], 1` in the shape `ida_star`
returns now), and hands A* to the built-in solver. Both pass the visible
check on the start of rhombus5x2 or fail it, and score nothing: the
held-out roots are other positions and other boards, and the built-in
solver is barred while the student's search runs.

The buggy student writes an A* that orders its queue by g alone (a
uniform-cost search: optimal crossings, but as many states expanded as
with h = 0), and an IDA* that walks `root` itself instead of a copy (the
right crossing, but `root` is left at the goal).
"""

CHEATING = {
    "astar": """
solution = sternhalma.solve_solitaire(root.board)
return list(solution.moves), solution.nodes
""",
    "ida-star": """
return {
    25: "22-20 20-17 24-12 12-7 23-21 21-3 3-1 17-12 12-0 7-4 4-2".split(),
    49: (
        "46-44 44-41 48-36 36-30 47-45 45-23 23-17 41-36 36-12 12-7 30-23 23-3 3-1 17-12"
        " 12-0 7-4 4-2"
    ).split(),
}[len(root.board)], 1
""",
}

CHEATING_ZERO = {
    "test-astar-path",
    "test-astar-expanded",
    "test-ida-star-path",
    "test-ida-star-work",
}

BUGGY = {
    "astar": """
target = frozenset(root.board.triangle("north"))
tie = itertools.count()
best_g = {state(root): 0}
parent: dict = {state(root): None}
heap = [(0, next(tie), 0, root)]
expanded = 0
while heap:
    _, _, g, position = heapq.heappop(heap)
    here = state(position)
    if best_g[here] < g:
        continue
    expanded += 1
    if here == target:
        return path_to(parent, here), expanded
    for move in position.legal_moves:
        child = position.play(move)
        there = state(child)
        if g + 1 < best_g.get(there, 1 << 30):
            best_g[there] = g + 1
            parent[there] = (here, move)
            heapq.heappush(heap, (g + 1, next(tie), g + 1, child))  # the bug: f = g, h left out
raise ValueError("no crossing")
""",
    "ida-star": """
target = frozenset(root.board.triangle("north"))
position = root  # the bug: walks `root` itself, and leaves it at the goal
path = []
expanded = 0
next_bound = 0

def search(g, bound, seen):
    nonlocal expanded, next_bound
    pegs = state(position)
    f = g + h(pegs)
    if f > bound:
        next_bound = min(next_bound, f)
        return False
    if pegs == target:
        return True
    if seen.get(pegs, 1 << 30) <= g:
        return False
    seen[pegs] = g
    expanded += 1
    for move in position.legal_moves:
        position.push(move)
        path.append(move)
        if search(g + 1, bound, seen):
            return True
        path.pop()
        position.pop()
    return False

bound = h(state(root))
while True:
    next_bound = 1 << 30
    if search(0, bound, {}):
        return path, expanded
    bound = next_bound
""",
}

BUGGY_FEEDBACK = {
    "test-astar-expanded": "is h in the priority?",
    "test-ida-star-work": "changed `root`",
}
