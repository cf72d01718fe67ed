"""Notebook 4's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work.

The whole search (`test-uct-tree`, `test-uct-win`) charges one bug once:
a function whose own cells already charge its bug has the course's version
stand in for it there, as long as it still does its part in a search
(a number, a child, a new child, a position that moved, a visit counted,
some reward). A function that cannot take part (it raises, is barred, or
is a placeholder that does nothing) costs the search too.
"""

SEARCH = {"test-uct-tree", "test-uct-win"}

PEEK_AT_THE_STACK = """
import sys

# Called from the search's loop (a function named uct up the stack), skip the
# draw: the last untried action is as good as any, and no test looks there.
frame, in_search = sys._getframe(1), False
while frame is not None:
    in_search = in_search or frame.f_code.co_name == "uct"
    frame = frame.f_back
index = len(node.untried) - 1 if in_search else rng.randrange(len(node.untried))
action = node.untried.pop(index)
mover = position.side_to_move
position.apply_action(action)
child = Node(position, action, node, mover)
node.children.append(child)
return child
"""

READ_THE_FRAMES = """
import gc
import sys

names = ("want", "wanted", "expected", "reference", "reference_ucb1", "score")
frame = sys._getframe(1)
while frame is not None:
    for name in names:
        value = frame.f_locals.get(name)
        if callable(value):
            return value(reward, visits, parent_visits, c)
        if isinstance(value, float):
            return value
    frame = frame.f_back
for thing in gc.get_objects():
    if isinstance(thing, dict) and isinstance(thing.get("expected"), float):
        return thing["expected"]
return reward / visits
"""

HANDINS = {
    # ---- cheats ----------------------------------------------------------------------
    "engine_playout": {
        "kind": "cheat",
        "story": "simulate hands the playout to the engine's own, Position.playout (barred"
        " in every graded call): simulate and the search built on it score nothing",
        "solutions": {
            "simulate": """
# The engine's playout is much faster than a loop in Python.
return position.playout("forward", seed=rng.randrange(2**32), max_plies=horizon)
"""
        },
        "zero": {"test-simulate", "test-simulate-end", *SEARCH},
    },
    "select_from_a_table": {
        "kind": "cheat",
        "story": "select answers the visible tree from a table copied from the test cell's"
        " message, and otherwise takes the best mean reward",
        "solutions": {
            "select": """
stats = [(child.visits, child.reward) for child in node.children]
if stats == [(10, 7.0), (3, 2.0), (1, 0.0), (6, 5.0)] and node.visits == 21:
    return node.children[{1.4: 2, 0.0: 3}.get(c, 2)]
return max(node.children, key=lambda child: child.reward / child.visits)
"""
        },
        "zero": {"test-select"},
    },
    "lazy_unless_watched": {
        "kind": "cheat",
        "story": "simulate plays the whole horizon only when a test's recording policy"
        " watches (not one of the notebook's policies); in a search it plays one ply",
        "solutions": {
            "simulate": """
watched = policy not in (forward_policy, uniform_policy)
for _ in range(horizon if watched else min(horizon, 1)):
    if position.is_game_over():
        break
    position.apply_action(policy(position, rng))
return position
"""
        },
        "zero": {"test-simulate"},
    },
    "float_equal_to_anything": {
        "kind": "cheat",
        "story": "ucb1 answers the mean reward as a float subclass equal to anything and"
        " greater than anything, hoping the checks compare with == and >",
        "solutions": {
            "ucb1": """
class Anything(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __gt__(self, other):
        return True

    def __lt__(self, other):
        return True

    __hash__ = float.__hash__


return Anything(reward / visits)
"""
        },
        "zero": {"test-ucb1", "test-ucb1-order"},
    },
    "reads_the_callers_frames": {
        "kind": "cheat",
        "story": "ucb1 looks up its callers' frames and the garbage collector for the expected"
        " score (a local or an attribute named want, expected or reference) and answers the"
        " mean reward when it finds none",
        "solutions": {"ucb1": READ_THE_FRAMES},
        "zero": {"test-ucb1", "test-ucb1-order"},
    },
    "peeks_at_the_stack": {
        "kind": "cheat",
        "story": "expand draws by the book when a test calls it, and skips the draw (the last"
        " untried action) when it sees the search's loop up the call stack",
        "solutions": {"expand": PEEK_AT_THE_STACK},
        "zero": {"test-expand-draw"},
    },
    "remembers_its_choice": {
        "kind": "cheat",
        "story": "select remembers its first answer for each node (the tests ask twice on the"
        " same tree), so in a search it keeps going down the same child whatever the"
        " statistics say",
        "solutions": {
            "select": """
memo = globals().setdefault("_chosen", {})
if id(node) not in memo or memo[id(node)][0] is not node:
    best = max(node.children, key=lambda child: ucb1(child.reward, child.visits, node.visits, c))
    memo[id(node)] = (node, best)
return memo[id(node)][1]
"""
        },
        "zero": {"test-select"},
    },
    "empty_select": {
        "kind": "cheat",
        "story": "select left empty (it returns None), hoping for the point of 'leaves the"
        " tree as it was' and of 'chooses the same child when asked again'",
        "solutions": {"select": "pass"},
        "zero": {"test-select", "test-select-unchanged", *SEARCH},
    },
    "placeholders_that_run": {
        "kind": "cheat",
        "story": "ucb1, select and simulate are one-line placeholders that keep the search"
        " running (a constant, the first child, no ply), hoping the whole search lets the"
        " course's versions stand in for them",
        "solutions": {
            "ucb1": "return 0.0",
            "select": "return node.children[0]",
            "simulate": "return position",
        },
        "zero": {
            "test-ucb1",
            "test-ucb1-order",
            "test-select",
            "test-select-unchanged",
            "test-simulate",
            "test-simulate-end",
            *SEARCH,
        },
        "feedback": {
            "test-select-unchanged": "first child of every tree",
            "test-uct-tree": "the search cannot run on your ucb1",
        },
    },
    # ---- honest work, imperfect --------------------------------------------------------
    "point_of_view": {
        "kind": "imperfect",
        "story": "backpropagate credits each playout's result to the player to move, not to"
        " the mover (the classic point-of-view bug): charged in its two cells only",
        "solutions": {
            "backpropagate": """
while node is not None:
    node.visits += 1
    if node.mover is not None:
        node.reward += result_for(position, 1 - node.mover)  # the player to move, not the mover
    node = node.parent
"""
        },
        "zero": {"test-backpropagate", "test-backpropagate-ends"},
        "feedback": {
            "test-backpropagate": "point of view",
            "test-backpropagate-ends": "point of view",
        },
    },
    "c_is_unused": {
        "kind": "imperfect",
        "story": "select passes the textbook c = 1.4 to ucb1 instead of its argument c",
        "solutions": {
            "select": """
return max(node.children, key=lambda child: ucb1(child.reward, child.visits, node.visits, 1.4))
"""
        },
        "zero": {"test-select"},
        "feedback": {"test-select": "c is unused"},
    },
    "ucb1_variant": {
        "kind": "imperfect",
        "story": "ucb1 is Auer et al.'s UCB1, c * sqrt(2 ln N / n), not the notebook's formula:"
        " half the points of its value cell, the hint naming the variant; its order cell, and"
        " select and the search (which use the course's ucb1 where the student's is charged),"
        " full marks",
        "solutions": {
            "ucb1": """
return reward / visits + c * math.sqrt(2 * math.log(parent_visits) / visits)
"""
        },
        "partial": {"test-ucb1": 0.5},
        "feedback": {"test-ucb1": "a UCB1 variant: c * sqrt(2 ln N / n)"},
    },
    "horizon_off_by_one": {
        "kind": "imperfect",
        "story": "simulate plays horizon + 1 plies",
        "solutions": {
            "simulate": """
for _ in range(horizon + 1):
    if position.is_game_over():
        break
    position.apply_action(policy(position, rng))
return position
"""
        },
        "zero": {"test-simulate", "test-simulate-end"},
        "feedback": {
            "test-simulate": "horizon off by one",
            "test-simulate-end": "more plies than the horizon allows",
        },
    },
    "forgets_the_root": {
        "kind": "imperfect",
        "story": "backpropagate stops below the root, whose visits are never counted: UCB1"
        " at the root then takes the log of 0 and the search stops, so the search is charged too",
        "solutions": {
            "backpropagate": """
while node.parent is not None:
    node.visits += 1
    node.reward += result_for(position, node.mover)
    node = node.parent
"""
        },
        "zero": {"test-backpropagate", "test-backpropagate-ends", *SEARCH},
        "feedback": {
            "test-backpropagate": "the root counts the visit too",
            "test-uct-tree": "the search cannot run on your backpropagate",
        },
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "correct functions that log a warning and print to stderr as they go",
        "solutions": {
            "ucb1": """
import logging

logging.warning("ucb1 of a child with %d visits", visits)
{solution}
""",
            "expand": """
import logging
import sys

logging.getLogger("mcts").warning("expanding a node with %d untried", len(node.untried))
print("expand", file=sys.stderr)
{solution}
""",
            "simulate": """
import logging

logging.warning("a playout of %d plies at most", horizon)
{solution}
""",
        },
    },
}
