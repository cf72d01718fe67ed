"""Notebook 2's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work.

The cheats know the course's checks (python/sternhalma/autograde/course/
n02_single_agent_search.py): A* and IDA* are judged by the positions the
engine saw them make, the estimate on whole state spaces and held-out
roots, the key by the classes it makes.
"""

ASTAR_PARTS = {"test-astar-path", "test-astar-expanded"}
IDA_PARTS = {"test-ida-star-path", "test-ida-star-work"}
CANONICAL_PARTS = {"test-canonical-key", "test-canonical-bfs"}

# The instructor's A*, to make variants of.
ASTAR = """
target = frozenset(root.board.triangle("north"))
tie = itertools.count()
best_g = {state(root): 0}
parent: dict = {state(root): None}
heap = [(h(state(root)), next(tie), 0, root)]
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
            heapq.heappush(heap, (g + 1 + h(there), next(tie), g + 1, child))
raise ValueError("no crossing")
"""

# The instructor's IDA*, to make variants of.
IDA_STAR = """
target = frozenset(root.board.triangle("north"))
position = root.copy()
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
"""


def variant(code: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert old in code, old
        code = code.replace(old, new)
    return code


ASTAR_IS_BFS = """
# BFS finds as short a crossing. The count is made up to sit between what A* must expand
# (f below the optimum) and what it may (f not above it), from the depths of a full BFS.
north = frozenset(root.board.triangle("north"))
depth, layer = {state(root): 0}, [root]
while layer:
    later = []
    for p in layer:
        for move in p.legal_moves:
            child = p.play(move)
            if state(child) not in depth:
                depth[state(child)] = depth[state(p)] + 1
                later.append(child)
    layer = later
best = depth[north]
moves, _ = bfs(root)
return moves, sum(g + h(pegs) < best for pegs, g in depth.items()) + 1
"""

IDA_STAR_IS_ASTAR = """
# A* expands each state once, IDA* again in every iteration: the same crossing, and a count
# made to look like IDA*'s.
moves, expanded = astar(root, h)
return moves, 3 * expanded
"""

IDA_STAR_RESUMES = """
# Fringe search: the positions cut off are kept and the next bound resumes from them, instead
# of searching again from the root; the count adds what the iterations before would have cost.
target = frozenset(root.board.triangle("north"))
bound = h(state(root))
frontier = [(0, root.copy(), [])]
best_g = {state(root): 0}
expanded = total = 0
while frontier:
    later, next_bound = [], 1 << 30
    stack = frontier[::-1]
    while stack:
        g, position, path = stack.pop()
        pegs = state(position)
        if best_g.get(pegs, 1 << 30) < g:
            continue
        f = g + h(pegs)
        if f > bound:
            later.append((g, position, path))
            next_bound = min(next_bound, f)
            continue
        if pegs == target:
            return path, total + expanded
        expanded += 1
        for move in reversed(position.legal_moves):
            child = position.play(move)
            there = state(child)
            if g + 1 < best_g.get(there, 1 << 30):
                best_g[there] = g + 1
                stack.append((g + 1, child, [*path, move]))
    total += expanded
    frontier, bound = later, next_bound
raise ValueError("no crossing")
"""

LEARN_THE_SPACE = """
# The state space learnt without making a child: positions made from strings (the trace
# shows no parent for them), the children's pegs worked out from each move's holes.
board = root.board
north = frozenset(board.triangle("north"))


def at(pegs):
    holes = ",".join(str(hole) for hole in sorted(pegs))
    return sternhalma.Position(f"{board.name} research south:{holes} 0 0 -")


depth, parent, layer = {state(root): 0}, {state(root): None}, [state(root)]
while layer:
    later = []
    for pegs in layer:
        if pegs == north:
            continue  # the goal: a game over, no moves (and no position string without the end)
        for move in at(pegs).legal_moves:
            there = pegs - {move.from_hole} | {move.to_hole}
            if there not in depth:
                depth[there] = depth[pegs] + 1
                parent[there] = (pegs, move)
                later.append(there)
    layer = later
best = depth[north]
f = {pegs: g + h(pegs) for pegs, g in depth.items()}
"""

ASTAR_FAKES_ITS_TRACE = (
    LEARN_THE_SPACE
    + """
# The trace A* would leave, in A*'s order, one child made from each state it would expand.
order = sorted((f[pegs], g, sorted(pegs)) for pegs, g in depth.items() if f[pegs] < best)
for _, _, pegs in order:
    here = at(pegs)
    here.play(here.legal_moves[0])
return path_to(parent, north), len(order)
"""
)

IDA_STAR_FAKES_ITS_TRACE = (
    LEARN_THE_SPACE
    + """
# The trace IDA* would leave: for each bound, one child made from each state within it, the
# root first (towards the crossing, so that the last iteration starts as a new one); then the
# crossing's states.
path = path_to(parent, north)
expanded = 0
for bound in sorted({v for v in f.values() if f[state(root)] <= v < best}):
    for _, pegs in sorted((depth[p], sorted(p)) for p, v in f.items() if v <= bound):
        here = at(pegs)
        here.play(path[0] if frozenset(pegs) == state(root) else here.legal_moves[0])
        expanded += 1
position = root.copy()
for move in path:
    position.push(move)
    expanded += 1
return path, expanded
"""
)

SOLVED_TABLE = """
import collections

import sternhalma

# The moves left from every state of the boards the checks use, worked out once by a BFS
# forward from the start and back from the goal (while the cells run, nothing counts them).
MOVES_LEFT = {}
for name in BOARDS_TO_SOLVE:
    first = sternhalma.Position.start(board=name, layout="1", rules="research")
    north = frozenset(first.board.triangle("north"))
    nexts, todo = {frozenset(first.player_pegs(0)): []}, collections.deque([first])
    while todo:
        p = todo.popleft()
        for m in p.legal_moves:
            child = p.play(m)
            there = frozenset(child.player_pegs(0))
            nexts[frozenset(p.player_pegs(0))].append(there)
            if there not in nexts:
                nexts[there] = []
                todo.append(child)
    back = collections.defaultdict(list)
    for here, theres in nexts.items():
        for there in theres:
            back[there].append(here)
    left, layer = {north: 0}, [north]
    while layer:
        later = []
        for there in layer:
            for here in back[there]:
                if here not in left:
                    left[here] = left[there] + 1
                    later.append(here)
        layer = later
    MOVES_LEFT[name] = left
"""

ONE_MOVE_AHEAD = """
outside = len(pegs - target)
nearest = max(min(board.distance(peg, hole) for peg in pegs) for hole in target)
estimate = max(outside, nearest)
if estimate == 1:
    # One move left only if some move finishes: look one move ahead.
    holes = ",".join(str(hole) for hole in sorted(pegs))
    here = sternhalma.Position(f"{board.name} research south:{holes} 0 0 -")
    if not any(frozenset(here.play(m).player_pegs(0)) == target for m in here.legal_moves):
        estimate = 2
return estimate
"""

HANDINS = {
    # ---- ported from the old plans --------------------------------------------------------
    "astar_asks_the_solver": {
        "kind": "cheat",
        "story": "astar hands the crossing to the built-in solver, and its count of nodes",
        "solutions": {
            "astar": """solution = sternhalma.solve_solitaire(root.board)
return list(solution.moves), solution.nodes"""
        },
        "zero": ASTAR_PARTS,
    },
    "ida_star_copied_answers": {
        "kind": "cheat",
        "story": "ida_star answers the crossings the notebook's BFS prints for the two boards it"
        " shows, and one node expanded",
        "solutions": {
            "ida-star": """return {
    25: "22-20 20-17 24-12 12-7 23-21 21-3 3-1 17-12 12-0 7-4 4-2".split(),
    49: (
        "46-44 44-41 48-36 36-30 47-45 45-23 23-17 41-36 36-12 12-7 30-23 23-3 3-1 17-12"
        " 12-0 7-4 4-2"
    ).split(),
}[len(root.board)], 1"""
        },
        "zero": IDA_PARTS,
    },
    "astar_uniform_cost": {
        "kind": "imperfect",
        "story": "astar orders its queue by g alone (a uniform-cost search): optimal crossings,"
        " but h left out of the priority",
        "solutions": {
            "astar": variant(
                ASTAR,
                (
                    "(g + 1 + h(there), next(tie), g + 1, child)",
                    "(g + 1, next(tie), g + 1, child)",
                ),
            )
        },
        "zero": {"test-astar-expanded"},
        "feedback": {"test-astar-expanded": "is h in the priority?"},
    },
    "ida_star_walks_root": {
        "kind": "imperfect",
        "story": "ida_star walks `root` itself instead of a copy, and leaves it at the goal",
        "solutions": {"ida-star": variant(IDA_STAR, ("position = root.copy()", "position = root"))},
        "zero": {"test-ida-star-work"},
        "feedback": {"test-ida-star-work": "changed `root`"},
    },
    # ---- cheats written against the course's checks --------------------------------------
    "astar_is_bfs": {
        "kind": "cheat",
        "story": "astar runs the notebook's BFS (an optimal crossing) and makes up a count"
        " between the fewest and the most states A* may expand",
        "solutions": {"astar": ASTAR_IS_BFS},
        "zero": {"test-astar-expanded"},
        "feedback": {"test-astar-expanded": "made the children of"},
    },
    "astar_reports_fewer": {
        "kind": "cheat",
        "story": "a true A*, reporting half the states it expanded to look efficient",
        "solutions": {
            "astar": variant(
                ASTAR,
                (
                    "return path_to(parent, here), expanded",
                    "return path_to(parent, here), expanded // 2",
                ),
            )
        },
        "zero": {"test-astar-expanded"},
        "feedback": {"test-astar-expanded": "made the children of"},
    },
    "astar_count_equal_to_anything": {
        "kind": "cheat",
        "story": "a true A* whose count is an int equal to, and between, anything",
        "solutions": {
            "astar": variant(
                ASTAR,
                (
                    "return path_to(parent, here), expanded",
                    "return path_to(parent, here), Anything(0)",
                ),
                (
                    'target = frozenset(root.board.triangle("north"))',
                    """class Anything(int):
    def __eq__(self, other):
        return True

    def __lt__(self, other):
        return False

    __le__ = __ge__ = __eq__
    __gt__ = __lt__
    __hash__ = int.__hash__

target = frozenset(root.board.triangle("north"))""",
                ),
            )
        },
        "zero": {"test-astar-expanded"},
    },
    "ida_star_is_astar": {
        "kind": "cheat",
        "story": "ida_star calls the notebook's astar (each state once) and triples its count to"
        " look like IDA*'s iterations",
        "solutions": {"ida-star": IDA_STAR_IS_ASTAR},
        "zero": {"test-ida-star-work"},
        "feedback": {"test-ida-star-work": "one pass"},
    },
    "ida_star_resumes": {
        "kind": "cheat",
        "story": "ida_star keeps the positions each bound cut off and resumes from them (fringe"
        " search, each state once), adding up a count as if every iteration restarted",
        "solutions": {"ida-star": IDA_STAR_RESUMES},
        "zero": {"test-ida-star-work"},
        "feedback": {"test-ida-star-work": "one pass"},
    },
    "astar_fakes_its_trace": {
        "kind": "cheat",
        "story": "astar learns the state space from positions made from strings (no parent in"
        " the trace), then makes one child of each state A* would expand, in A*'s order",
        "solutions": {"astar": ASTAR_FAKES_ITS_TRACE},
        "zero": {"test-astar-expanded"},
        "feedback": {"test-astar-expanded": "without trying every one of its moves"},
    },
    "ida_star_fakes_its_trace": {
        "kind": "cheat",
        "story": "ida_star learns the state space from positions made from strings (no parent"
        " in the trace), then makes one child of each state within each bound, root first",
        "solutions": {"ida-star": IDA_STAR_FAKES_ITS_TRACE},
        "zero": {"test-ida-star-work"},
        "feedback": {"test-ida-star-work": "without trying every one of its moves"},
    },
    "stronger_shown_board_table": {
        "kind": "cheat",
        "story": "stronger reads the moves left off a table of the notebook's board (worked out"
        " in a cell) and is outside on every other board: right on everything the notebook"
        " shows, and fewer states from the held-out roots of that board",
        "cells": ['BOARDS_TO_SOLVE = ["rhombus5p3"]', SOLVED_TABLE],
        "solutions": {
            "stronger": """left = MOVES_LEFT.get(board.name, {})
return left.get(pegs, len(pegs - target))"""
        },
        "zero": {"test-stronger-fewer"},
        "feedback": {"test-stronger-fewer": "a table of solved crossings"},
    },
    "stronger_overestimates_unwatched": {
        "kind": "cheat",
        "story": "stronger is a blurred table of the moves left on the notebook's board (two"
        " short), outside on the boards whose every state the checks try, and the plain"
        " distance (strong, not admissible) on the largest board",
        "cells": ['BOARDS_TO_SOLVE = ["rhombus5p3"]', SOLVED_TABLE],
        "solutions": {
            "stronger": """outside = len(pegs - target)
if board.name == "rhombus7p3":
    return sum(min(board.distance(hole, goal) for goal in target) for hole in pegs)
return max(outside, MOVES_LEFT.get(board.name, {}).get(pegs, 0) - 2)"""
        },
        "zero": {"test-stronger-fewer"},
        "feedback": {"test-stronger-fewer": "not admissible"},
    },
    "stronger_solved_table": {
        "kind": "cheat",
        "story": "a cell works out the moves left from every state of the boards the checks"
        " use (uncounted, while the cells run); stronger reads them off that table",
        "cells": [
            'BOARDS_TO_SOLVE = ["rhombus4p3", "rhombus5p3", "rhombus6p3", "rhombus7p3"]',
            SOLVED_TABLE,
        ],
        "solutions": {
            "stronger": """left = MOVES_LEFT.get(board.name, {})
return left.get(pegs, len(pegs - target))"""
        },
        "zero": {"test-stronger-fewer"},
        "feedback": {"test-stronger-fewer": "a table of solved crossings"},
    },
    # ---- honest work, imperfect --------------------------------------------------------------
    "astar_expands_stale_entries": {
        "kind": "imperfect",
        "story": "astar does not skip a queue entry whose state has a better g since: the"
        " optimal crossing, with some states expanded twice",
        "solutions": {
            "astar": variant(ASTAR, ("    if best_g[here] < g:\n        continue\n", ""))
        },
        "partial": {"test-astar-expanded": 0.5},
    },
    "ida_star_bound_plus_one": {
        "kind": "imperfect",
        "story": "ida_star raises its bound by one each iteration, as textbooks do for unit"
        " costs, not to the smallest f cut off: the same iterations here, where f has no gaps",
        "solutions": {
            "ida-star": variant(IDA_STAR, ("    bound = next_bound\n", "    bound += 1\n"))
        },
    },
    "canonical_min_of_sets": {
        "kind": "imperfect",
        "story": "canonical takes min of two frozensets, which compares them as subsets:"
        " the state itself whenever neither holds the other",
        "solutions": {
            "canonical": "return min(frozenset(pegs), frozenset(board.mirror(hole) for hole in pegs))"
        },
        "zero": CANONICAL_PARTS,
        "feedback": {"test-canonical-key": "subsets", "test-canonical-bfs": "subsets"},
    },
    "canonical_union": {
        "kind": "imperfect",
        "story": "canonical keys a state by the holes of it and its mirror image together:"
        " the same for both, and for some states that are not mirror images",
        "solutions": {
            "canonical": "return tuple(sorted(set(pegs) | {board.mirror(hole) for hole in pegs}))"
        },
        "zero": CANONICAL_PARTS,
        "feedback": {"test-canonical-key": "share a key"},
    },
    "stronger_looks_ahead": {
        "kind": "imperfect",
        "story": "stronger makes a position and looks one move ahead when it would say 1:"
        " admissible and consistent, but an estimate that searches",
        "solutions": {"stronger": ONE_MOVE_AHEAD},
        "zero": {"test-stronger-fewer"},
        "feedback": {"test-stronger-fewer": "it does not search"},
    },
    "honest_variants": {
        "kind": "imperfect",
        "story": "other ways the notebook allows: A* with a closed set, pushing and popping, the"
        " goal not counted; IDA* by play, recursing on positions, the goal tested first, the"
        " children made at once and tried nearest the goal first; a key made of the two"
        " frozensets",
        "solutions": {
            "astar": """target = frozenset(root.board.triangle("north"))
tie = itertools.count()
parent: dict = {state(root): None}
best_g = {state(root): 0}
closed = set()
heap = [(h(state(root)), 0, next(tie), root.copy())]
while heap:
    _, g, _, position = heapq.heappop(heap)
    here = state(position)
    if here in closed:
        continue
    if here == target:
        return path_to(parent, here), len(closed)
    closed.add(here)
    for move in position.legal_moves:
        position.push(move)
        there = state(position)
        if there not in closed and g + 1 < best_g.get(there, 1 << 30):
            best_g[there] = g + 1
            parent[there] = (here, move)
            heapq.heappush(heap, (g + 1 + h(there), g + 1, next(tie), position.copy()))
        position.pop()
raise ValueError("no crossing")""",
            "ida-star": """target = frozenset(root.board.triangle("north"))
expanded = 0
seen = {}

def search(position, g, bound):
    nonlocal expanded
    pegs = state(position)
    if pegs == target:
        return []
    f = g + h(pegs)
    if f > bound:
        return f
    if seen.get(pegs, 1 << 30) <= g:
        return 1 << 30
    seen[pegs] = g
    expanded += 1
    smallest = 1 << 30
    children = [(move, position.play(move)) for move in position.legal_moves]
    for move, child in sorted(children, key=lambda mc: h(state(mc[1]))):
        found = search(child, g + 1, bound)
        if isinstance(found, list):
            return [move, *found]
        smallest = min(smallest, found)
    return smallest

bound = h(state(root))
while True:
    seen.clear()
    found = search(root, 0, bound)
    if isinstance(found, list):
        return found, expanded
    bound = found""",
            "canonical": """mirror = frozenset(board.mirror(hole) for hole in pegs)
return frozenset({frozenset(pegs), mirror})""",
        },
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "a correct astar, estimate and ida_star that log warnings and print to stderr",
        "solutions": {
            "astar": """
import logging
import sys

logging.warning("astar from %s", root)
print("searching", file=sys.stderr)
{solution}
""",
            "stronger": """
import logging

logging.getLogger("estimate").warning("%d pegs", len(pegs))
{solution}
""",
            "ida-star": """
import logging

logging.warning("IDA* from %s", root)
{solution}
""",
        },
    },
}
