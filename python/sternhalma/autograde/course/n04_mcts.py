"""Notebook 4, Monte Carlo tree search: ucb1, select, expand, simulate,
backpropagate, and UCT made of them.

The student's functions work on tree nodes: each adapter builds the tree
a part describes (from plain data) in the student's process, with the
course's copy of the notebook's `Node`, calls the student's function and
answers what it did as plain data. The notebook's given helpers (`Node`,
`result_for`, the policies, ...) are the course's copies, put in the
notebook's namespace for the call, so a notebook whose given cells were
edited is graded on the same inputs; the search is the course's copy of
the notebook's `Uct`, whatever the notebook's says.

One bug is charged once: `select` is graded with the course's `ucb1`; each
function is also run inside a UCT search whose other four phases are the
course's; and the whole search (`test-uct-tree`, `test-uct-win`) lets the
course's version stand in for a function whose own cells already charge
its bug, provided the student's version still does its part in a search
without breaking it: it raises nothing, and `ucb1` answers numbers (not
one for every child), `select` one of the children (not one every score
like UCB1 ranks last), `expand` a new child taken out of the untried
actions, `simulate` a position (a ply played when one may be),
`backpropagate` counts the visit and adds some reward. A function that
cannot take part (unwritten, barred, a placeholder) costs the search too;
otherwise what the whole search charges is what only it shows: functions
that play otherwise together than alone.

UCT is checked by what it did: the positions the engine saw the search
make, in order (each selection step, expansion and playout ply), replayed
against the course's UCT with the same seed, where a selection may take
any child whose UCB1 score is within 1e-9 (relative) of the highest; then
the tree's statistics at the end, exactly.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Course, Failed, Student
from sternhalma.autograde._course import lent

course = Course("04_mcts")

# ---- the notebook's given code (its first cells), the course's copy ------------------

RULES = sternhalma.Rules("research", max_plies=60)
BOARD = "rhombus5p3"
START = sternhalma.Position.start(board=BOARD, rules=RULES)
_board = START.board
_targets = [_board.triangle("north"), _board.triangle("south")]
HOLES = len(_board)
TO_TARGET = [
    [min(_board.distance(hole, target) for target in _targets[player]) for hole in range(HOLES)]
    for player in (0, 1)
]
GAIN = [
    [table[action // HOLES] - table[action % HOLES] for action in range(HOLES * HOLES)] + [0]
    for table in TO_TARGET
]


def travel(position: sternhalma.Position, player: int) -> int:
    """Steps `player`'s pegs still have to go to reach its target triangle."""
    table = TO_TARGET[player]
    return sum(table[hole] for hole in position.player_pegs(player))


def result_for(position: sternhalma.Position, player: int) -> float:
    """1 for a win, 0 for a loss, 0.5 for even; an unfinished playout is judged by travel."""
    outcome = position.outcome()
    if outcome.is_over:
        return (outcome.results[player] + 1) / 2
    ahead = travel(position, 1 - player) - travel(position, player)
    return 1.0 if ahead > 0 else 0.0 if ahead < 0 else 0.5


def uniform_policy(position: sternhalma.Position, rng: random.Random) -> int:
    """Any legal action, all equally likely."""
    return rng.choice(position.legal_actions())


def forward_policy(position: sternhalma.Position, rng: random.Random) -> int:
    """Nine times in ten an action of the largest gain towards the target (ties at random),
    otherwise any legal action."""
    actions = position.legal_actions()
    if rng.random() < 0.1:
        return rng.choice(actions)
    gain = GAIN[position.side_to_move]
    best = max(gain[action] for action in actions)
    return rng.choice([action for action in actions if gain[action] == best])


POLICIES = {"forward": forward_policy, "uniform": uniform_policy}


class Node:
    """A node of the search tree: `position` after `mover` played `action` from `parent`."""

    __slots__ = ("action", "children", "mover", "parent", "reward", "untried", "visits")

    def __init__(self, position: sternhalma.Position, action=None, parent=None, mover=None):
        self.action, self.parent, self.mover = action, parent, mover
        self.children: list[Node] = []
        self.untried = [] if position.is_game_over() else position.legal_actions()
        self.visits, self.reward = 0, 0.0


GIVEN = {
    "Node": Node,
    "result_for": result_for,
    "travel": travel,
    "uniform_policy": uniform_policy,
    "forward_policy": forward_policy,
    "TO_TARGET": TO_TARGET,
    "GAIN": GAIN,
    "HOLES": HOLES,
}

# ---- the exercises, the course's versions (they stand in for the student's) ----------


def reference_ucb1(reward: float, visits: int, parent_visits: int, c: float) -> float:
    return reward / visits + c * math.sqrt(math.log(parent_visits) / visits)


def reference_select(node: Node, c: float, ucb1: Callable[..., float] = reference_ucb1) -> Node:
    return max(node.children, key=lambda child: ucb1(child.reward, child.visits, node.visits, c))


def reference_expand(node: Node, position: sternhalma.Position, rng: random.Random) -> Node:
    action = node.untried.pop(rng.randrange(len(node.untried)))
    mover = position.side_to_move
    position.apply_action(action)
    child = Node(position, action, node, mover)
    node.children.append(child)
    return child


def reference_simulate(position, policy, horizon, rng):
    for _ in range(horizon):
        if position.is_game_over():
            break
        position.apply_action(policy(position, rng))
    return position


def reference_backpropagate(node: Node, position: sternhalma.Position) -> None:
    while node is not None:
        node.visits += 1
        if node.mover is not None:
            node.reward += result_for(position, node.mover)
        node = node.parent


FUNCTIONS = ("ucb1", "select", "expand", "simulate", "backpropagate")
REFERENCES: dict[str, Callable[..., Any]] = {
    "ucb1": reference_ucb1,
    "select": reference_select,
    "expand": reference_expand,
    "simulate": reference_simulate,
    "backpropagate": reference_backpropagate,
}


def uct(position, settings: dict[str, Any], phases: dict[str, Callable[..., Any]]) -> Node:
    """The notebook's `Uct.search`, its phases taken from `phases`."""
    rng = random.Random(settings["seed"])
    policy, c, horizon = POLICIES[settings["policy"]], settings["c"], settings["horizon"]
    root = Node(position)
    for _ in range(settings["playouts"]):
        node, work = root, position.copy()
        while not node.untried and node.children:
            node = phases["select"](node, c)
            work.apply_action(node.action)
        if node.untried:
            node = phases["expand"](node, work, rng)
        work = phases["simulate"](work, policy, horizon, rng)
        phases["backpropagate"](node, work)
    return root


# ---- in the student's process: helpers of the adapters ---------------------------------


def installed(ns: dict[str, Any], names: dict[str, Any]) -> AbstractContextManager[None]:
    """`names` put in the notebook's namespace for the block, the old values put back after."""
    return lent(ns, names)


def plain(value: Any) -> Any:
    """A value as the grader may read it: numbers by their own data (a subclass's
    overridden methods ignored), anything else by its type's name."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return f"<{type(value).__name__}>"


def plain_list(values: Any) -> list[Any]:
    try:
        return [plain(v) for v in list(values)[:1000]]
    except Exception:  # noqa: BLE001 (not a list: its type is the answer)
        return [plain(values)]


def ordered(values: list[Any]) -> list[Any]:
    try:
        return sorted(values)
    except TypeError:
        return values


def fingerprint(rng: random.Random) -> str:
    """The state of a generator, as a short text the grader compares."""
    return hashlib.sha256(repr(random.Random.getstate(rng)).encode()).hexdigest()[:20]


def crafted(stats: list, parent_visits: int, position: sternhalma.Position) -> Node:
    """A node of `position` whose actions have all been tried: one child for each
    `(visits, reward)` of `stats`, in that order, and `parent_visits` visits."""
    actions = position.legal_actions()
    node = Node(position)
    node.untried, node.visits = [], parent_visits
    for action, (visits, reward) in zip(actions, stats, strict=False):
        child = Node(position.child(action), action, node, position.side_to_move)
        child.visits, child.reward = visits, reward
        node.children.append(child)
    return node


def snapshot(node: Node) -> list[tuple[str, Any]]:
    """What `select` may not change: the statistics, lists and links of `node`, its children
    and theirs, each with its name."""
    named = [("the node", node)]
    for i, child in enumerate(node.children):
        named.append((f"child {i}", child))
        named += [(f"a child of child {i}", g) for g in child.children]
    found = []
    for name, n in named:
        found += [
            (f"{name}'s visits", n.visits),
            (f"{name}'s reward", n.reward),
            (f"{name}'s untried actions", list(n.untried)),
            (f"{name}'s children", [id(ch) for ch in n.children]),
            (f"{name}'s parent", id(n.parent)),
            (f"{name}'s mover", n.mover),
        ]
    return found


def child_index(node: Node, got: Any) -> int | None:
    for index, child in enumerate(node.children):
        if child is got:
            return index
    return None


# ---- adapters: run in the student's process ------------------------------------------


@course.adapter
def ucb1(ns, cases):
    """The student's ucb1 on each `(reward, visits, parent_visits, c)`: its number, whether a
    float, or what it raised."""
    found = []
    with installed(ns, GIVEN):
        for args in cases:
            try:
                got = ns["ucb1"](*args)
            except Exception as e:  # the student's error is the answer
                if type(e).__name__ == "BuiltinBarredError":
                    raise
                found.append({"raised": [type(e).__name__, str(e)[:200]]})
                continue
            number = isinstance(got, (int, float)) and not isinstance(got, bool)
            found.append(
                {"float": isinstance(got, float), "type": type(got).__name__, "value": plain(got)}
                if number
                else {"float": False, "type": type(got).__name__, "value": None}
            )
    return found


@course.adapter
def select(ns, position, parent_visits, stats, c, grandchildren=False) -> dict[str, Any]:
    """The student's select (the course's ucb1 in the namespace) on a tree built by hand,
    twice: the child chosen each time, what changed, and the c it passed to ucb1."""
    node = crafted(stats, parent_visits, position)
    if grandchildren:  # a child's child, some of the child's actions still untried
        for child in node.children:
            below = position.child(child.action)
            if child.visits > 1 and not below.is_game_over():
                grandchild = crafted([(child.visits - 1, 0.5)], child.visits - 1, below).children[0]
                grandchild.parent = child
                child.children.append(grandchild)
                child.untried = [a for a in child.untried if a != grandchild.action]
    passed: list[Any] = []

    def logged_ucb1(reward, visits, parent_visits, c):
        if len(passed) < 100:
            passed.append(plain(c))
        return reference_ucb1(reward, visits, parent_visits, c)

    with installed(ns, {**GIVEN, "ucb1": logged_ucb1}):
        before = snapshot(node)
        first = ns["select"](node, c)
        changed = [name for (name, was), (_, now) in zip(before, snapshot(node)) if was != now]
        again = ns["select"](node, c)
    return {
        "chosen": child_index(node, first),
        "type": type(first).__name__,
        "again": child_index(node, again),
        "changed": changed[:5],
        "c": ordered(list({repr(v): v for v in passed}.values()))[:5],
    }


@course.adapter
def expand(ns, position, setup, seeds, calls):
    """The student's expand called up to `calls` times on one node of `position` (until no
    action is untried): a generator per call from `seeds` (a list), or one for all (an int).
    What each call did, as plain data."""
    parent = Node(position) if setup["parent"] else None
    mover = None if parent is None else 1 - position.side_to_move
    node = Node(position, None, parent, mover)
    node.visits, node.reward = setup["visits"], setup["reward"]
    shared = random.Random(seeds) if isinstance(seeds, int) else None
    found = []
    with installed(ns, GIVEN):
        for i in range(calls):
            if not node.untried:
                break
            rng = shared if shared is not None else random.Random(seeds[i])
            work = position.copy()
            child = ns["expand"](node, work, rng)
            is_node = isinstance(child, Node)
            found.append(
                {
                    "node": is_node,
                    "type": type(child).__name__,
                    "appended": bool(node.children) and node.children[-1] is child,
                    "parent": is_node and child.parent is node,
                    "action": plain(child.action) if is_node else None,
                    "mover": plain(child.mover) if is_node else None,
                    "untried": plain_list(node.untried),
                    "work": str(work),
                    "child_untried": ordered(plain_list(child.untried)) if is_node else [],
                    "child_stats": [plain(child.visits), plain(child.reward), len(child.children)]
                    if is_node
                    else [],
                    "rng": fingerprint(rng),
                }
            )
    return {
        "calls": found,
        "stats": [plain(node.visits), plain(node.reward)],
        "parent": node.parent is parent and node.mover == mover,
        "children": len(node.children),
    }


@course.adapter
def simulate(ns, position, policy, horizon, seed) -> dict[str, Any]:
    """The student's simulate with a policy that records what it is shown: the course's
    policy `policy["record"]`, or the actions `policy["script"]` in turn (which refuses to
    play at a finished position or past its actions)."""
    rng = random.Random(seed)
    shown: list[list[Any]] = []
    problems: list[str] = []
    if "record" in policy:
        inner = POLICIES[policy["record"]]

        def play(p, r):
            action = inner(p, r)
            if len(shown) < 1000:
                shown.append([str(p), r is rng])
            return action
    else:
        script = list(policy["script"])

        def play(p, r):
            if len(shown) < 1000:
                shown.append([str(p), r is rng])
            if p.is_game_over():
                problems.append("over")
                raise AssertionError("simulate asked the policy for a move after the game ended")
            if not script:
                problems.append("more")
                raise AssertionError(
                    "simulate asked the policy for more plies than the horizon allows"
                )
            return script.pop(0)

    with installed(ns, GIVEN):
        end = ns["simulate"](position, play, horizon, rng)
    is_position = isinstance(end, sternhalma.Position)
    return {
        "type": type(end).__name__,
        "end": str(end) if is_position else None,
        "stack": [str(m) for m in end.move_stack] if is_position else None,
        "shown": shown,
        "problems": problems,
        "rng": fingerprint(rng),
    }


@course.adapter
def backpropagate(ns, position, nodes, ends) -> list[list[list[Any]]]:
    """A tree built from `nodes` (`[parent index, action, mover, visits, reward]`, the root
    first, its parent -1) under `position`, and the student's backpropagate called on
    `[node index, end position]` after another: each node's `[visits, reward]` after each."""
    built: list[Node] = []
    at: list[sternhalma.Position] = []
    for parent, action, mover, visits, reward in nodes:
        if parent < 0:
            here = position.copy()
            node = Node(here)
        else:
            here = at[parent].child(action)
            node = Node(here, action, built[parent], mover)
            built[parent].children.append(node)
        node.visits, node.reward = visits, reward
        built.append(node)
        at.append(here)
    after = []
    with installed(ns, GIVEN):
        for index, end in ends:
            ns["backpropagate"](built[index], end)
            after.append([[plain(n.visits), plain(n.reward)] for n in built])
    return after


class Watch:
    """What a student's phase did in a search, call by call: the first thing it failed to do
    of its part (whatever its choices), and at the end whether it did anything at all."""

    def __init__(self) -> None:
        self.floors: dict[str, str] = {}
        self.raised: list[Any] = []

    def phase(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            before: Any = None
            if name == "expand":
                before = len(args[0].untried)
            elif name == "backpropagate":
                before = (args[0].visits, args[0].reward)
            elif name == "simulate":
                before = (str(args[0]), args[0].is_game_over())
            try:
                result = function(*args)
            except Exception as e:
                if not self.raised:
                    self.raised.append([name, type(e).__name__, str(e)[:300]])
                raise
            if name not in self.floors:
                problem = self.check(name, args, before, result)
                if problem is not None:
                    self.floors[name] = problem
            return result

        return call

    def check(self, name: str, args: tuple, before: Any, result: Any) -> str | None:
        if name == "ucb1":
            number = isinstance(result, (int, float)) and not isinstance(result, bool)
            if not number or not math.isfinite(result):
                return f"ucb1 answered {result!r:.40}, not a number"
        elif name == "select":
            index = child_index(args[0], result)
            if index is None:
                return f"select returned {type(result).__name__}, not one of node.children"
        elif name == "expand":
            node = args[0]
            if not isinstance(result, Node) or not node.children or node.children[-1] is not result:
                return "expand did not append a new child Node to node.children and return it"
            if result.parent is not node or len(node.untried) != before - 1:
                return "expand did not take one action out of node.untried for its child"
        elif name == "simulate":
            if not isinstance(result, sternhalma.Position):
                return f"simulate returned {type(result).__name__}, not the position where it ended"
            text, over = before
            if args[2] >= 1 and not over and str(result) == text:
                return "simulate played no ply (a horizon of 1 or more, the game not over)"
        elif name == "backpropagate" and args[0].visits != before[0] + 1:
            return "backpropagate did not count the visit on the node it was given"
        return None

    def done(self, mine: list[str], position, theirs: dict[str, Callable[..., Any]]) -> None:
        """The floors a phase's calls in one search may not show: a phase that does nothing
        (the student's `ucb1`, `select` and `backpropagate` tried on cases built for it, with
        nodes of `position`, making no position)."""
        if "ucb1" in mine and "ucb1" not in self.floors:
            ucb1 = theirs["ucb1"]
            try:
                same = plain(ucb1(1.0, 2, 10, 1.4)) == plain(ucb1(3.0, 4, 10, 1.4))
            except Exception:  # noqa: BLE001 (then it gives no score either)
                same = True
            if same:
                self.floors["ucb1"] = (
                    "ucb1 gives the same score to a child of mean reward 1/2 and one of 3/4"
                    " (2 and 4 visits of 10): no score at all"
                )
        if "select" in mine and "select" not in self.floors:
            # A node whose first child has the most visits and the lowest mean reward: every
            # score like UCB1 (rising with the mean, falling with the visits) ranks it last.
            probe = Node(position)
            probe.untried, probe.visits = [], 12
            for visits, reward in [(10, 0.0), (1, 1.0), (1, 0.5)]:
                child = Node(position, None, probe, position.side_to_move)
                child.untried, child.visits, child.reward = [], visits, reward
                probe.children.append(child)
            try:
                first = child_index(probe, theirs["select"](probe, 1.4)) == 0
            except Exception:  # noqa: BLE001 (then it does not select either)
                first = True
            if first:
                self.floors["select"] = (
                    "select took the first child of a node where it has the most visits and the"
                    " lowest mean reward (10 visits, reward 0; the others 1 visit, reward 1 and"
                    " 0.5): no selection at all"
                )
        if "backpropagate" in mine and "backpropagate" not in self.floors:
            # A path root -> child (player 0's move) -> grandchild (player 1's), a playout
            # ending at `position`: the two movers' results add up to 1.
            path = [Node(position)]
            for mover in (0, 1):
                path.append(Node(position, None, path[-1], mover))
                path[-2].children.append(path[-1])
            try:
                theirs["backpropagate"](path[-1], position)
                rewarded = path[1].reward + path[2].reward > 0
            except Exception:  # noqa: BLE001 (then it records nothing either)
                rewarded = False
            if not rewarded:
                self.floors["backpropagate"] = (
                    "backpropagate added no reward on a path where a playout's result is 1 for"
                    " one of its movers or 1/2 for both: no result recorded at all"
                )


def flatten(root: Node) -> list[list[Any]]:
    """The tree under `root`, node by node (depth first, children in order): `[parent index,
    action, mover, visits, reward, untried (sorted), whether its parent is the node it hangs
    from]`."""
    found: list[list[Any]] = []
    seen: set[int] = set()
    stack: list[tuple[Any, int, Any]] = [(root, -1, None)]
    while stack and len(found) < 20000:
        node, parent_index, parent = stack.pop()
        if id(node) in seen:
            found.append([parent_index, "<a node met twice>", None, None, None, [], False])
            break
        seen.add(id(node))
        index = len(found)
        is_node = isinstance(node, Node)
        found.append(
            [
                parent_index,
                plain(node.action) if is_node else f"<{type(node).__name__}>",
                plain(node.mover) if is_node else None,
                plain(node.visits) if is_node else None,
                plain(node.reward) if is_node else None,
                ordered(plain_list(node.untried)) if is_node else [],
                parent is None or (is_node and node.parent is parent),
            ]
        )
        if is_node:
            stack += [(child, index, node) for child in reversed(list(node.children))]
    return found


@course.adapter
def search(ns, position, settings, mine) -> dict[str, Any]:
    """The course's UCT from `position` with `settings`, the student's phases `mine` and the
    course's for the others (in the namespace too): the tree, or the first phase that
    raised, and the first thing a student's phase failed to do (see `Watch`)."""
    watch = Watch()
    theirs = {name: ns[name] for name in mine}
    course_ucb1 = theirs.get("ucb1", reference_ucb1)
    phases: dict[str, Callable[..., Any]] = {}
    for name in FUNCTIONS:
        if name in theirs:
            phases[name] = watch.phase(name, theirs[name])
        elif name == "select":
            scored = phases["ucb1"]
            phases[name] = lambda node, c, scored=scored: reference_select(node, c, scored)
        else:
            phases[name] = REFERENCES[name]
    names = {**GIVEN, **{n: f for n, f in REFERENCES.items() if n not in theirs}}
    if "select" not in theirs:
        names["select"] = lambda node, c: reference_select(node, c, course_ucb1)
    with installed(ns, names):
        try:
            root = uct(position, settings, phases)
        except Exception as e:  # the student's error is the answer
            if type(e).__name__ == "BuiltinBarredError" and not watch.raised:
                raise
            raised = watch.raised[0] if watch.raised else ["the course's", type(e).__name__, str(e)]
            return {"raised": raised[:2] + [str(raised[2])[:300]], "floors": watch.floors}
        watch.done(mine, position, theirs)
    return {"tree": flatten(root), "floors": watch.floors}


# ---- in the grader: the search, replayed --------------------------------------------


@dataclass
class Problem:
    """What went wrong in a search: `kind` says which phase showed it first."""

    kind: str
    message: str

    @property
    def breaks(self) -> bool:
        """Whether the search could not run on the student's phase (it raised, or did not
        do its part)."""
        return self.kind in ("raised", "floor")


class Diverged(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def where(depths: list[int], index: int) -> str:
    return "the root" if index == 0 else f"a node at depth {depths[index]}"


def tree_problem(tree: list[list[Any]], position, playouts: int) -> str | None:
    """The first thing wrong in the tree a search left (as `flatten` gives it), or None."""
    if not tree:
        return "the search left no tree"
    positions: list[sternhalma.Position] = []
    depths: list[int] = []
    children: list[list[int]] = [[] for _ in tree]
    for index, (parent, *_) in enumerate(tree):
        if index and not 0 <= parent < index:
            return "the tree is not a tree (a node met twice?)"
        if index:
            children[parent].append(index)
    for index, (parent, action, mover, visits, reward, untried, linked) in enumerate(tree):
        if index == 0:
            here, depth = position.copy(), 0
        else:
            above = positions[parent]
            depth = depths[parent] + 1
            if action not in above.legal_actions():
                return f"a child at depth {depth} whose action is not a legal action"
            if not linked:
                return f"a child at depth {depth} whose parent is not the node it hangs from"
            if mover != above.side_to_move:
                return (
                    f"a child at depth {depth} whose mover is {mover!r}, not the player who"
                    f" moved into it ({above.side_to_move})"
                )
            here = above.child(action)
        positions.append(here)
        depths.append(depth)
        name = where(depths, index)
        over = here.is_game_over()
        tried = [tree[j][1] for j in children[index]]
        legal = [] if over else here.legal_actions()
        if ordered(tried + list(untried)) != sorted(legal):
            return f"at {name}, the children's and untried actions are not its legal actions"
        numbers = all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in (visits, reward)
        )
        if not numbers:
            return f"at {name}, the visits or reward are not numbers"
        if not 0 <= reward <= visits:
            return f"at {name}, reward {reward} is outside [0, {visits} visits]"
        below = sum(tree[j][3] for j in children[index])
        if index == 0 and visits != playouts:
            return f"the root has {visits} visits after {playouts} playouts"
        if index == 0 and visits != below:
            return f"the root has {visits} visits, its children {below} together"
        if index and not over and visits != 1 + below:
            return (
                f"{name} has {visits} visits, expected {below + 1} (one of its own, and its"
                " children's)"
            )
        if over and visits < 1:
            return f"{name}, a finished game, has no visit"
    return None


class _R:
    """A node of the replayed search, with its position."""

    __slots__ = ("action", "children", "mover", "parent", "position", "reward", "untried", "visits")

    def __init__(self, position, action=None, parent=None, mover=None) -> None:
        self.position, self.action, self.parent, self.mover = position, action, parent, mover
        self.children: list[_R] = []
        self.untried = [] if position.is_game_over() else position.legal_actions()
        self.visits, self.reward = 0, 0.0


def replay(trace: list[tuple[int, int]], position, settings: dict[str, Any]) -> list[list[Any]]:
    """The course's UCT with `settings`, following the positions the student's search made
    (`trace`): raises `Diverged` where they part; the tree at the end (as `flatten`)."""
    rng = random.Random(settings["seed"])
    policy, c, horizon = POLICIES[settings["policy"]], settings["c"], settings["horizon"]
    root = _R(position.copy())
    steps = iter(trace)

    def next_made(kind: str, k: int, doing: str) -> tuple[int, int]:
        made = next(steps, None)
        if made is None:
            raise Diverged(kind, f"at playout {k + 1}, made no position where UCT {doing}")
        return made

    for k in range(settings["playouts"]):
        node, work = root, position.copy()
        depth = 0
        while not node.untried and node.children:
            made = next_made("select", k, "steps down the tree")
            child = next((ch for ch in node.children if ch.position.zobrist_hash == made[1]), None)
            if made[0] != work.zobrist_hash or child is None:
                raise Diverged(
                    "select",
                    f"at playout {k + 1}, made a position that is not a child of the node"
                    f" selected at depth {depth}",
                )
            scores = [reference_ucb1(ch.reward, ch.visits, node.visits, c) for ch in node.children]
            best = max(scores)
            got = node.children.index(child)
            if scores[got] < best - 1e-9 * max(1.0, abs(best)):
                raise Diverged(
                    "select",
                    f"at playout {k + 1}, at depth {depth} the search took child {got}, UCB1's"
                    f" highest is child {scores.index(best)}",
                )
            node = child
            work.apply_action(node.action)
            depth += 1
        if node.untried:
            before = work.zobrist_hash
            action = node.untried.pop(rng.randrange(len(node.untried)))
            mover = work.side_to_move
            work.apply_action(action)
            made = next_made("expand", k, "expands a node")
            if made != (before, work.zobrist_hash):
                others = {node.position.child(a).zobrist_hash for a in node.untried}
                if made[0] == before and made[1] in others:
                    raise Diverged(
                        "draw",
                        f"at playout {k + 1}, the expansion at depth {depth} took another"
                        " untried action than the one at index rng.randrange(len(node.untried))",
                    )
                raise Diverged(
                    "expand",
                    f"at playout {k + 1}, the expansion at depth {depth} made another position"
                    " than the child of an untried action",
                )
            child = _R(work.copy(), action, node, mover)
            node.children.append(child)
            node = child
        for ply in range(horizon):
            if work.is_game_over():
                break
            before = work.zobrist_hash
            work.apply_action(policy(work, rng))
            ply_made = next(steps, None)
            if ply_made != (before, work.zobrist_hash):
                raise Diverged(
                    "playout",
                    f"at playout {k + 1}, ply {ply + 1} of the playout is not the policy's"
                    " action (a playout of `horizon` plies at most, stopping at the game's"
                    " end, each ply the action policy(position, rng) returns)",
                )
        end = work
        while node is not None:
            node.visits += 1
            if node.mover is not None:
                node.reward += result_for(end, node.mover)
            node = node.parent
    if next(steps, None) is not None:
        raise Diverged("extra", "made positions after the last playout, which UCT does not")
    found: list[list[Any]] = []
    stack: list[tuple[_R, int]] = [(root, -1)]
    while stack:
        node, parent = stack.pop()
        index = len(found)
        found.append(
            [parent, node.action, node.mover, node.visits, node.reward, sorted(node.untried), True]
        )
        stack += [(child, index) for child in reversed(node.children)]
    return found


def examine(answer, position, settings: dict[str, Any]) -> Problem | None:
    """What is wrong with a search (the `search` adapter's answer), or None: a phase that
    raised or did not do its part, a tree that does not add up, positions made otherwise than
    UCT makes them, or statistics other than UCT's."""
    value = answer.value
    if not isinstance(value, dict):
        return Problem("raised", "the search answered nothing")
    floors = value.get("floors") or {}
    if floors:
        return Problem("floor", next(iter(floors.values())))
    if value.get("raised"):
        name, kind, message = value["raised"]
        if kind == "BuiltinBarredError":
            return Problem("raised", f"{name} used a built-in search, barred here: {message}")
        if name == "the course's":
            return Problem(
                "raised",
                f"the course's phases raised {kind}: {message}, on the tree your functions left",
            )
        return Problem("raised", f"{name} raised {kind}: {message}")
    if answer.cut:
        return Problem("extra", "made more positions than the engine traces")
    tree = value.get("tree") or []
    problem = tree_problem(tree, position, settings["playouts"])
    if problem is not None:
        return Problem("tree", problem)
    try:
        want = replay(answer.trace, position, settings)
    except Diverged as diverged:
        return Problem(diverged.kind, str(diverged))
    depths = [0] * len(want)
    for index, row in enumerate(want):
        if index:
            depths[index] = depths[row[0]] + 1
    if len(tree) != len(want):
        return Problem("stats", f"the tree has {len(tree)} nodes, UCT's {len(want)}")
    for index, (got, expected) in enumerate(zip(tree, want, strict=True)):
        if got[:3] != expected[:3] or ordered(got[5]) != expected[5]:
            return Problem("stats", f"{where(depths, index)} differs from UCT's (another child?)")
        if got[3] != expected[3] or not math.isclose(got[4], expected[4], abs_tol=1e-9):
            return Problem(
                "stats",
                f"after the search, {where(depths, index)} has N, W = {got[3]}, {got[4]};"
                f" UCT's {expected[3]}, {expected[4]}",
            )
    return None


def describe(settings: dict[str, Any]) -> str:
    return (
        f"Uct({settings['playouts']}, c={settings['c']}, horizon={settings['horizon']},"
        f" {settings['policy']} playouts, seed={settings['seed']})"
    )


def settings_of(playouts: int, seed: int, **more: Any) -> dict[str, Any]:
    return {"playouts": playouts, "policy": "forward", "c": 1.4, "horizon": 8, "seed": seed, **more}


def greedy_game(position: sternhalma.Position, seed: int) -> tuple:
    """The game the seeded greedy bot plays against itself from `position`: its end and its
    actions."""
    position, bot, actions = position.copy(), sternhalma.Bot("greedy", seed=seed), []
    while not position.is_game_over():
        move = bot.step(position)
        actions.append(position.move_to_action(move))
        position.push(move)
    return position, actions


def near_end(rng: random.Random) -> sternhalma.Position:
    """A position a few plies before the end of a seeded greedy game, where a search
    reaches finished positions."""
    while True:
        begin = grading.opening(START, rng.randint(0, 8), rng)
        _, actions = greedy_game(begin, rng.randrange(10**6))
        left = rng.randint(2, 5)
        if len(actions) > left:
            for action in actions[:-left]:
                begin.apply_action(action)
            return begin


def held_out_settings(
    rng: random.Random, count: int, ends: int = 1, horizons: tuple[int, int] = (1, 12)
) -> list[tuple[str, Any, dict[str, Any]]]:
    """`count` held-out searches, the last `ends` of them near a game's end: label, position,
    settings."""
    found = []
    for i in range(count):
        if i >= count - ends:
            position = near_end(rng)
        else:
            position = grading.opening(START, rng.randint(0, 24), rng)
        settings = {
            "playouts": rng.randint(10, 60),
            "policy": rng.choice(["forward", "uniform"]),
            "c": rng.choice([0.2, 1.4, 5.0, round(rng.uniform(0.05, 3.0), 3)]),
            "horizon": rng.randint(*horizons),
            "seed": rng.randrange(10**6),
        }
        found.append((f"held-out search {i + 1}", position, settings))
    return found


# What a function's search divergence likely means, when it shows in another phase.
SEARCH_HINTS = {
    "ucb1": " (ucb1's scores differ from the formula's in the search?)",
    "select": " (select takes another child than the highest UCB1 score?)",
    "expand": " (the child's action, mover or untried actions?)",
    "simulate": " (the rng drawn from other than by the policy?)",
    "backpropagate": " (results from the wrong point of view? a visit not counted?)",
}


def in_search(student: Student, graded: bool, name: str, kinds: set[str] | None = None) -> None:
    """The student's `name` inside UCT searches whose other phases are the course's: each
    must make the positions UCT makes and leave its statistics. Only divergences of `kinds`
    (all when None) fail here."""
    cases = [("from the start", START, settings_of(30, 0))]
    if graded:
        cases += held_out_settings(grading.held_out(f"nb4-{name}-in-search"), 3)
    for label, position, settings in cases:
        answer = student.call("search", position, settings, [name], trace=True)
        problem = examine(answer, position, settings)
        if problem is None or kinds is not None and problem.kind not in kinds:
            continue
        own = {"select": "select", "draw": "expand", "expand": "expand", "playout": "simulate"}
        hint = "" if own.get(problem.kind) == name or problem.breaks else SEARCH_HINTS[name]
        what = describe(settings) if label == "from the start" else "UCT"
        raise Failed(
            f"{name} in a search ({what} {label}, the course's other phases): {problem.message}"
            f"{hint}"
        )


# ---- parts: ucb1 ---------------------------------------------------------------------


VARIANT = (
    "a UCB1 variant: c * sqrt(2 ln N / n), Auer et al.'s; the notebook's formula is"
    " c * sqrt(ln N / n), the 2 left to c (1.4 is about sqrt 2)"
)


def variant(reward: float, visits: int, parent_visits: int, c: float) -> float:
    """Auer et al.'s UCB1, the 2 inside the square root."""
    return reward / visits + c * math.sqrt(2 * math.log(parent_visits) / visits)


def ucb1_slip(got: float, reward: float, visits: int, parent_visits: int, c: float) -> str:
    """The likely mistake, when `got` is what a common slip or a variant gives."""
    mean, log = reward / visits, math.log(parent_visits)
    slips = {
        VARIANT: variant(reward, visits, parent_visits, c),
        "math.log is the natural logarithm": mean
        + c * math.sqrt(math.log10(parent_visits) / visits),
        "the bonus is a square root": mean + c * log / visits,
        "c multiplies the square root": mean + math.sqrt(c * log / visits),
        "ln of the parent's visits over the child's": mean
        + c * math.sqrt(math.log(visits) / parent_visits),
    }
    return next((f" ({name})" for name, v in slips.items() if math.isclose(got, v)), "")


def scores(student: Student, cases: list[tuple]) -> list[float]:
    """The student's ucb1 on each case, as floats (`Failed` when one is not a number)."""
    found = student.call("ucb1", [list(case) for case in cases]).value
    if not isinstance(found, list) or len(found) != len(cases):
        raise Failed("ucb1 answered nothing")
    numbers = []
    for got in found:
        if "raised" in got:
            raise Failed(f"ucb1 raised {got['raised'][0]}: {got['raised'][1]}")
        if got["value"] is None:
            raise Failed(f"ucb1 should return a float, not {got['type']}")
        numbers.append(float(got["value"]))
    return numbers


@course.part("test-ucb1")
def ucb1_value(student: Student, graded: bool) -> tuple[float, str] | None:
    cases = [  # (reward, visits, parent_visits, c)
        (3.0, 4, 10, 1.4),
        (5.0, 5, 100, 0.0),
        (0.0, 1, 1, 2.0),
        (12.5, 20, 60, 5.0),
    ]
    labels = [f"ucb1{case}" for case in cases]
    if graded:
        held = grading.held_out("nb4-ucb1")
        for i in range(40):
            visits = held.randint(1, 300)
            parent_visits = held.choice([1, visits, visits + held.randint(1, 2000)])
            reward = held.randint(0, 2 * visits) / 2
            c = held.choice([0.2, 1.4, 5.0, round(held.uniform(0.05, 3.0), 3)])
            cases.append((reward, visits, parent_visits, c))
            labels.append(f"ucb1 on held-out case {i + 1}")
    answers = student.call("ucb1", [list(case) for case in cases]).value
    if not isinstance(answers, list) or len(answers) != len(cases):
        raise Failed("ucb1 answered nothing")
    for label, case, got in zip(labels, cases, answers, strict=True):
        if "raised" in got:
            raise Failed(f"{label} raised {got['raised'][0]}: {got['raised'][1]}")
        if not got["float"]:
            raise Failed(f"ucb1 should return a float, not {got['type']}")
    close = [
        math.isclose(got["value"], reference_ucb1(*case), rel_tol=1e-9, abs_tol=1e-12)
        for case, got in zip(cases, answers, strict=True)
    ]
    if not all(close) and all(
        math.isclose(got["value"], variant(*case), rel_tol=1e-9, abs_tol=1e-12)
        for case, got in zip(cases, answers, strict=True)
    ):
        # UCB1 all the same, the 2 in another place than the notebook's: half the points.
        return 0.5, f"ucb1 is {VARIANT}"
    for label, case, got, right in zip(labels, cases, answers, close, strict=True):
        if not right:
            want, value = reference_ucb1(*case), got["value"]
            raise Failed(f"{label}: {value:.6g}, expected {want:.6g}{ucb1_slip(value, *case)}")
    in_search(student, graded, "ucb1")
    return None


def is_mean(mean: float) -> Callable[[list[float]], bool]:
    return lambda values: math.isclose(values[0], mean)


@course.part("test-ucb1-order")
def ucb1_order(student: Student, graded: bool) -> None:
    # Each check: (label, [cases], what must hold of the scores, the message's end).
    checks: list[tuple[str, list[tuple], Callable[[list[float]], bool], str]] = [
        (
            "ucb1",
            [(1.0, 2, 50, 1.4), (4.0, 8, 50, 1.4)],
            lambda s: s[0] > s[1],
            "of two children with the same mean reward, the less visited must score higher",
        ),
        (
            "ucb1",
            [(2.0, 4, 50, 0.0)],
            lambda s: math.isclose(s[0], 0.5),
            "with c = 0 the score is the mean reward alone",
        ),
    ]
    if graded:
        held = grading.held_out("nb4-ucb1-order")
        for i in range(40):
            visits = held.randint(1, 100)
            parent_visits = visits + held.randint(1, 1000)
            reward = held.randint(0, 2 * visits) / 2
            c = round(held.uniform(0.05, 5.0), 3)
            mean = reward / visits
            case = (reward, visits, parent_visits, c)
            label = f"ucb1 on held-out case {i + 1}"
            more = parent_visits + held.randint(1, 500)
            checks += [
                (
                    label,
                    [case, (2 * reward, 2 * visits, parent_visits, c)],
                    lambda s: s[1] < s[0],
                    "twice the visits at the same mean reward should score lower",
                ),
                (
                    label,
                    [case, (reward, visits, more, c)],
                    lambda s: s[1] > s[0],
                    "more visits of the parent should raise the score",
                ),
                (
                    label,
                    [case, (reward, visits, parent_visits, 2 * c)],
                    lambda s: s[1] > s[0],
                    "a larger c should raise the score",
                ),
                (
                    label,
                    [case, (reward + 0.5, visits, parent_visits, c)],
                    lambda s: s[1] > s[0],
                    "more reward at the same visits should raise the score",
                ),
                (
                    label,
                    [(reward, visits, parent_visits, 0.0)],
                    is_mean(mean),
                    "with c = 0 the score is the mean reward",
                ),
                (
                    label,
                    [(reward, visits, 1, c)],
                    is_mean(mean),
                    "a parent of one visit gives no bonus (ln 1 = 0)",
                ),
            ]
    everything = [case for _, cases, _, _ in checks for case in cases]
    values = iter(scores(student, everything))
    for label, cases, holds, message in checks:
        if not holds([next(values) for _ in cases]):
            raise Failed(f"{label}: {message}")


# ---- parts: select -------------------------------------------------------------------


def first_best(values: list[float]) -> int:
    return max(range(len(values)), key=values.__getitem__)


def held_out_tree(held: random.Random, kind: int) -> tuple:
    """`(stats, parent_visits, c)` of a held-out tree: two children sharing the highest score
    (kind 0), a node whose own visits change the answer (kind 1), or any (kind 2)."""
    while True:
        width = held.randint(2, 6)
        stats = []
        for _ in range(width):
            visits = held.randint(1, 40)
            stats.append((visits, held.randint(0, 2 * visits) / 2))
        if kind == 0:  # one visit, one win: no child scores higher
            first, second = held.sample(range(width), 2)
            stats[first] = stats[second] = (1, 1.0)
        below = sum(visits for visits, _ in stats)
        parent_visits = below + (held.randint(2, 20 * below) if kind == 1 else held.randint(0, 1))
        c = held.choice([0.0, 0.2, 1.4, 5.0, round(held.uniform(0.1, 3.0), 2)])
        values = [reference_ucb1(r, v, parent_visits, c) for v, r in stats]
        top = sorted(values, reverse=True)
        if top[0] != top[1] and top[0] - top[1] < 1e-9:
            continue  # too close to call in floating point
        by_sum = first_best([reference_ucb1(r, v, below, c) for v, r in stats])
        if kind != 1 or by_sum != first_best(values):
            return stats, parent_visits, c


def wide_enough(held: random.Random, width: int) -> sternhalma.Position:
    position = grading.opening(START, held.randint(2, 14), held)
    while len(position.legal_actions()) < width:
        position = grading.opening(START, held.randint(2, 14), held)
    return position


def c_unused(student: Student, position, parent_visits: int, stats: list, c: float, got) -> str:
    """A hint when select does not use its `c`: it passes ucb1 another, or chooses the same
    child whatever c is while UCB1's choice changes with it."""
    passed = got.get("c") or []
    if passed and c not in passed:
        shown = ", ".join(str(v) for v in passed)
        return f" (c is unused: select passes c = {shown} to ucb1, not the c it is given)"
    panel = [0.0, 0.2, 1.4, 5.0, c]
    wanted = {first_best([reference_ucb1(r, v, parent_visits, k) for v, r in stats]) for k in panel}
    if len(wanted) > 1:
        chosen = {
            student.call("select", position, parent_visits, stats, k).value.get("chosen")
            for k in panel
        }
        if len(chosen) == 1:
            return " (c is unused: select chooses the same child for every c)"
    return ""


def select_hint(student, position, parent_visits, stats, c, got, want) -> str:
    values = [reference_ucb1(r, v, parent_visits, c) for v, r in stats]
    chosen = got["chosen"]
    if values[chosen] == values[want]:
        return " (of equal scores, the first)"
    unused = c_unused(student, position, parent_visits, stats, c, got)
    if unused:
        return unused
    below = sum(v for v, _ in stats)
    if chosen == first_best([reference_ucb1(r, v, below, c) for v, r in stats]):
        return " (the parent's visits are node.visits)"
    if chosen == first_best([r / v for v, r in stats]):
        return " (the exploration bonus is missing?)"
    return ""


@course.part("test-select")
def select_child(student: Student, graded: bool) -> None:
    # select is graded on its own: its ucb1 is the course's.
    visible = [(10, 7.0), (3, 2.0), (1, 0.0), (6, 5.0)]
    cases = [(f"at c = {c} on the given tree", START, visible, 21, c) for c in (1.4, 0.0)]
    if graded:
        held = grading.held_out("nb4-select")
        for i in range(45):
            stats, parent_visits, c = held_out_tree(held, i % 3)
            position = wide_enough(held, len(stats))
            cases.append((f"held-out tree {i + 1}", position, stats, parent_visits, c))
    for label, position, stats, parent_visits, c in cases:
        got = student.call("select", position, parent_visits, stats, c).value
        if got["chosen"] is None:
            raise Failed(f"select {label}: returned {got['type']}, not one of node.children")
        want = first_best([reference_ucb1(r, v, parent_visits, c) for v, r in stats])
        if got["chosen"] != want:
            hint = select_hint(student, position, parent_visits, stats, c, got, want)
            raise Failed(
                f"select {label}: child {got['chosen']}, expected child {want}"
                f" (the highest UCB1 score){hint}"
            )
    in_search(student, graded, "select")


@course.part("test-select-unchanged")
def select_unchanged(student: Student, graded: bool) -> None:
    visible = [(10, 7.0), (3, 2.0), (1, 0.0), (6, 5.0)]
    cases = [("the given tree", START, visible, 21, 1.4)]
    if graded:
        held = grading.held_out("nb4-select-unchanged")
        for i in range(20):
            position = grading.opening(START, held.randint(2, 14), held)
            width = held.randint(2, min(6, len(position.legal_actions())))
            stats = [
                (v, held.randint(0, 2 * v) / 2) for v in (held.randint(1, 30) for _ in range(width))
            ]
            parent_visits = sum(v for v, _ in stats) + held.randint(0, 1)
            c = held.choice([0.0, 0.2, 1.4, 5.0])
            cases.append((f"held-out tree {i + 1}", position, stats, parent_visits, c))
    chosen, best = set(), set()
    for label, position, stats, parent_visits, c in cases:
        got = student.call("select", position, parent_visits, stats, c, True).value
        if got["chosen"] is None:
            raise Failed(f"select on {label}: returned {got['type']}, not one of node.children")
        chosen.add(got["chosen"])
        best.add(first_best([reference_ucb1(r, v, parent_visits, c) for v, r in stats]))
        if got["changed"]:
            raise Failed(
                f"select changed {label} ({', '.join(got['changed'])}): it may only read it"
            )
        if got["again"] != got["chosen"]:
            raise Failed(f"select chose another child when asked again on {label}")
    if chosen == {0} and len(best) > 1:
        # A select that reads nothing leaves every tree as it was: it is no selection.
        raise Failed("select took the first child of every tree: it must choose by UCB1 score")


# ---- parts: expand -------------------------------------------------------------------


def check_child(call: dict, position, before: list, case: str) -> None:
    """Checks the child `expand` made (`call`, as the adapter saw it) at a node of `position`
    whose untried actions were `before`."""
    if not call["node"]:
        raise Failed(f"expand {case}: returned {call['type']}, not the Node")
    if not call["appended"]:
        raise Failed(f"expand {case}: the new child must be appended to node.children")
    if not call["parent"]:
        raise Failed(f"expand {case}: the child's parent must be the node expanded")
    action, untried = call["action"], call["untried"]
    if action not in before or action in untried:
        raise Failed(
            f"expand {case}: the child's action must be an untried action, taken out of"
            " node.untried"
        )
    if ordered([*untried, action]) != sorted(before):
        raise Failed(f"expand {case}: node.untried must lose the action played and nothing else")
    mover = position.side_to_move
    if call["mover"] != mover:
        raise Failed(
            f"expand {case}: the child's mover is {call['mover']}, expected {mover}"
            " (the player who played the action)"
        )
    after = position.child(action)
    if call["work"] != str(after):
        raise Failed(f"expand {case}: the action must be played on the position given")
    if call["child_untried"] != sorted(Node(after).untried):
        raise Failed(f"expand {case}: the child is the Node of the position after the action")
    if call["child_stats"] != [0, 0.0, 0]:
        raise Failed(f"expand {case}: a new child has no visits, reward or children yet")


@course.part("test-expand")
def expand_child(student: Student, graded: bool) -> None:
    answer = student.call("expand", START, {"parent": False, "visits": 0, "reward": 0.0}, [1], 1)
    got = answer.value
    check_child(got["calls"][0], START, START.legal_actions(), "at the start")
    if got["children"] != 1 or got["stats"] != [0, 0.0]:
        raise Failed("expand at the start: one child, and no statistic of the node changes")
    if graded:
        held = grading.held_out("nb4-expand")
        cases = [grading.opening(START, held.randint(1, 24), held) for _ in range(10)]
        # A position where some actions finish the game (their children are over).
        bot, end = sternhalma.Bot("greedy", seed=held.randrange(10**6)), START.copy()
        while not any(end.play(m).is_game_over() for m in end.legal_moves):
            end.push(bot.step(end))
        cases.append(end)
        for i, position in enumerate(cases):
            setup = {"parent": held.random() < 0.5, "visits": held.randint(1, 9), "reward": 0.5}
            legal = position.legal_actions()
            seeds = [held.randrange(10**6) for _ in legal]
            got = student.call("expand", position, setup, seeds, len(legal)).value
            before = legal
            case = f"on held-out position {i + 1}"
            for call in got["calls"]:
                check_child(call, position, before, case)
                before = call["untried"]
            if got["children"] != len(legal) or before:
                raise Failed(f"expand {case}: expanding until no action is left must try each once")
            if got["stats"] != [setup["visits"], 0.5] or not got["parent"]:
                raise Failed(
                    f"expand {case}: the node's statistics, parent and mover must not change"
                )
    # A draw other than the notebook's is the next cell's to charge.
    in_search(
        student, graded, "expand", {"raised", "floor", "tree", "select", "expand", "extra", "stats"}
    )


@course.part("test-expand-draw")
def expand_draw(student: Student, graded: bool) -> None:
    cases = [("with random.Random(7)", START, 7, 1)]
    if graded:
        held = grading.held_out("nb4-expand-draw")
        for i in range(10):
            position = grading.opening(START, held.randint(1, 24), held)
            calls = len(position.legal_actions())
            cases.append((f"on held-out position {i + 1}", position, held.randrange(10**6), calls))
    for label, position, seed, calls in cases:
        setup = {"parent": False, "visits": 0, "reward": 0.0}
        got = student.call("expand", position, setup, seed, calls).value
        same = random.Random(seed)
        before = position.legal_actions()
        for call in got["calls"]:
            want = before[same.randrange(len(before))]
            if call["action"] != want:
                raise Failed(
                    f"expand {label}: action {call['action']}, expected {want}"
                    " (index rng.randrange(len(node.untried)))"
                )
            if call["rng"] != fingerprint(same):
                raise Failed(
                    f"expand {label}: draw one number from rng, rng.randrange(len(node.untried)),"
                    " and no other"
                )
            before = [a for a in before if a != want]
            if call["untried"] != before:
                raise Failed(f"expand {label}: the other untried actions must stay in their order")
    in_search(student, graded, "expand", {"draw", "playout"})


# ---- parts: simulate -----------------------------------------------------------------


def playout_of(begin, policy: str, horizon: int, seed: int) -> tuple[list[str], list[str], str]:
    """The course's playout: the positions the policy is shown, the moves, the generator's
    state after."""
    rng, work = random.Random(seed), begin.copy()
    shown, moves = [], []
    for _ in range(horizon):
        if work.is_game_over():
            break
        shown.append(str(work))
        action = POLICIES[policy](work, rng)
        moves.append(str(work.action_to_move(action)))
        work.apply_action(action)
    return shown, moves, fingerprint(rng)


def check_playout(answer, begin, policy: str, horizon: int, seed: int, case: str) -> None:
    got = answer.value
    if got["end"] is None:
        raise Failed(
            f"simulate {case}: returned {got['type']}, expected the position where it ended"
        )
    shown, moves, state = playout_of(begin, policy, horizon, seed)
    plies = len(moves)
    if len(got["shown"]) != plies:
        hint = " (the horizon off by one?)" if abs(len(got["shown"]) - plies) == 1 else ""
        raise Failed(f"simulate {case}: {len(got['shown'])} plies, expected {plies}{hint}")
    for ply, (seen, given) in enumerate(got["shown"]):
        if seen != shown[ply]:
            raise Failed(
                f"simulate {case}: at ply {ply} the policy was not shown the current position"
            )
        if not given:
            raise Failed(f"simulate {case}: pass the rng you are given on to the policy")
    if got["stack"] != moves:
        for ply, (move, want) in enumerate(zip(got["stack"], moves, strict=False)):
            if move != want:
                raise Failed(f"simulate {case}: ply {ply} is not the action the policy chose")
        raise Failed(
            f"simulate {case}: the position returned is not {plies} plies after the one given"
        )
    if got["rng"] != state:
        raise Failed(f"simulate {case}: the rng must be drawn from by the policy alone")
    chain = [sternhalma.Position(text).zobrist_hash for text in shown]
    if plies:
        chain.append(sternhalma.Position(got["end"]).zobrist_hash)
    edges = list(itertools.pairwise(chain))
    if answer.positions != plies or answer.trace != edges:
        raise Failed(
            f"simulate {case}: made {answer.positions} positions for a playout of {plies} plies"
            " (each ply played once on the position, and no other position made)"
        )


@course.part("test-simulate")
def simulate_plies(student: Student, graded: bool) -> None:
    cases = [("from the start, horizon 8", START, "forward", 8, 5)]
    if graded:
        held = grading.held_out("nb4-simulate")
        for i in range(16):
            begin = grading.opening(START, held.randint(0, 30), held)
            horizon = 0 if i == 0 else held.randint(1, 20)
            policy = held.choice(["forward", "uniform"])
            cases.append(
                (f"on held-out position {i + 1}", begin, policy, horizon, held.randrange(10**6))
            )
    for label, begin, policy, horizon, seed in cases:
        answer = student.call("simulate", begin, {"record": policy}, horizon, seed, trace=True)
        check_playout(answer, begin, policy, horizon, seed, label)
    in_search(student, graded, "simulate")


def scripted(student: Student, position, actions: list, horizon: int, seed: int) -> str:
    got = student.call("simulate", position, {"script": actions}, horizon, seed).value
    if "over" in got["problems"]:
        raise Failed("simulate asked the policy for a move after the game ended")
    if "more" in got["problems"]:
        raise Failed("simulate asked the policy for more plies than the horizon allows")
    return got["end"]


@course.part("test-simulate-end")
def simulate_end(student: Student, graded: bool) -> None:
    final, actions = greedy_game(START, 3)
    before_end = START.copy()
    for action in actions[:-3]:
        before_end.apply_action(action)
    if scripted(student, before_end, actions[-3:], 8, 0) != str(final):
        raise Failed("simulate 3 plies before the end, horizon 8: must play those 3 plies and stop")
    if scripted(student, final, [], 8, 0) != str(final):
        raise Failed("simulate at a finished position must play nothing")
    if scripted(student, START, [], 0, 0) != str(START):
        raise Failed("simulate with horizon 0 must play nothing")
    if not graded:
        return
    held = grading.held_out("nb4-simulate-end")
    for i in range(8):
        begin = grading.opening(START, held.randint(0, 10), held)
        final, actions = greedy_game(begin, held.randrange(10**6))
        left = held.randint(1, min(6, len(actions)))
        horizon = held.choice([left, left + held.randint(1, 10), held.randint(0, left - 1)])
        position = begin.copy()
        for action in actions[:-left]:
            position.apply_action(action)
        want = position.copy()
        for action in actions[len(actions) - left :][:horizon]:
            want.apply_action(action)
        end = scripted(student, position, actions[len(actions) - left :], horizon, i)
        if end != str(want):
            raise Failed(
                f"simulate on held-out game {i + 1}: must play {min(left, horizon)} plies (its"
                " horizon or the plies left to the game's end) and stop"
            )
        if scripted(student, final, [], horizon, i) != str(final):
            raise Failed(f"simulate at the end of held-out game {i + 1} must play nothing")


# ---- parts: backpropagate ------------------------------------------------------------

POINT_OF_VIEW, REPLACED = "the wrong point of view?", "W replaced, not added to?"


def check_node(name: str, stats: list, want: tuple, slips: dict) -> None:
    """Fails unless a node's (visits, reward), N and W, is `want`; `slips` maps the (visits,
    reward) a common bug gives to its name."""
    got = tuple(stats)
    if got != want:
        hint = f" ({slips[got]})" if got in slips else ""
        raise Failed(
            f"backpropagate, {name}: N, W = {got[0]}, {got[1]}, expected {want[0]}, {want[1]}{hint}"
        )


def check_path(after: list, nodes: list, path: list[int], end, case: str) -> None:
    """Checks each node of `path` (indices into `nodes`) got the playout ending at `end`."""
    for depth, index in enumerate(path):
        _, _, mover, visits, reward = nodes[index]
        want, slips = (visits + 1, reward), {(visits, reward): "count the visit on every node"}
        if mover is not None:
            want = (visits + 1, reward + result_for(end, mover))
            slips[visits + 1, reward + result_for(end, 1 - mover)] = POINT_OF_VIEW
            slips[visits + 1, result_for(end, mover)] = REPLACED
        check_node(f"{case}, depth {depth}", after[index], want, slips)


def visible_path() -> tuple[list, int]:
    """The notebook's path root -> child (a move by player 0) -> grandchild (a move by player
    1), and a sibling of the child: its nodes, and the grandchild's index."""
    first, other = START.legal_actions()[:2]
    second = START.child(first).legal_actions()[0]
    nodes = [
        [-1, None, None, 0, 0.0],
        [0, first, 0, 0, 0.0],
        [0, other, 0, 0, 0.0],
        [1, second, 1, 0, 0.0],
    ]
    return nodes, 3


def crafted_path(position, depth: int, held: random.Random) -> tuple[list, list[int], Any]:
    """A path of up to `depth` moves from a root at `position`, with statistics on every node
    and siblings off it: the nodes, the path's indices, the leaf's position."""
    nodes: list[list[Any]] = [[-1, None, None, held.randint(0, 60), 0.0]]
    path, work = [0], position.copy()
    for _ in range(depth):
        if work.is_game_over():
            break
        actions, mover = work.legal_actions(), work.side_to_move
        action = held.choice(actions)
        for other in held.sample([a for a in actions if a != action], min(2, len(actions) - 1)):
            visits = held.randint(1, 20)
            nodes.append([path[-1], other, mover, visits, held.randint(0, 2 * visits) / 2])
        work.apply_action(action)
        visits = held.randint(1, 20)
        nodes.append([path[-1], action, mover, visits, held.randint(0, 2 * visits) / 2])
        path.append(len(nodes) - 1)
    return nodes, path, work


@course.part("test-backpropagate")
def backpropagate_cut_off(student: Student, graded: bool) -> None:
    nodes, leaf = visible_path()
    # A playout end where player 0 is ahead (the best forward move), and an even one.
    ahead = START.child(max(START.legal_actions(), key=lambda action: GAIN[0][action]))
    once, twice = student.call("backpropagate", START, nodes, [[leaf, ahead], [leaf, START]]).value
    check_node("root", once[0], (1, 0.0), {(0, 0.0): "the root counts the visit too"})
    check_node("child (player 0, ahead)", once[1], (1, 1.0), {(1, 0.0): POINT_OF_VIEW})
    check_node("grandchild (player 1, behind)", once[3], (1, 0.0), {(1, 1.0): POINT_OF_VIEW})
    check_node("sibling", once[2], (0, 0.0), {})
    check_node("child, 2nd playout (even)", twice[1], (2, 1.5), {(2, 0.5): REPLACED})
    check_node("grandchild, 2nd playout", twice[3], (2, 0.5), {})
    check_node("root after two playouts", twice[0], (2, 0.0), {})
    if graded:
        held = grading.held_out("nb4-backpropagate")
        for i in range(12):
            begin = grading.opening(START, held.randint(0, 16), held)
            nodes, path, leaf_position = crafted_path(begin, held.randint(3, 8), held)
            end = grading.opening(leaf_position, held.randint(0, 12), held)  # cut off
            (after,) = student.call("backpropagate", begin, nodes, [[path[-1], end]]).value
            check_path(after, nodes, path, end, f"held-out path {i + 1}")
            off = [j for j in range(len(nodes)) if j not in path]
            if any(after[j] != nodes[j][3:] for j in off):
                raise Failed(f"backpropagate on held-out path {i + 1}: a node off the path changed")
    in_search(student, graded, "backpropagate")


@course.part("test-backpropagate-ends")
def backpropagate_ends(student: Student, graded: bool) -> None:
    nodes, _ = visible_path()
    del nodes[2]  # no sibling: root -> child -> grandchild
    final, _ = greedy_game(START, 3)
    winner = final.outcome().winner
    (after,) = student.call("backpropagate", START, nodes, [[2, final]]).value
    check_node("root", after[0], (1, 0.0), {})
    won, lost = (1, 1.0), (1, 0.0)
    for index, mover in [(1, 0), (2, 1)]:
        want, wrong = (won, lost) if mover == winner else (lost, won)
        name = f"player {mover}'s move (player {winner} won)"
        check_node(name, after[index], want, {wrong: POINT_OF_VIEW})
    if not graded:
        return
    held = grading.held_out("nb4-backpropagate-ends")
    for i in range(8):
        begin = grading.opening(START, held.randint(0, 16), held)
        end, _ = greedy_game(
            grading.opening(begin, held.randint(0, 8), held), held.randrange(10**6)
        )
        nodes, work = [[-1, None, None, 0, 0.0]], begin.copy()  # a path of held-out moves
        for _ in range(held.randint(2, 8)):
            mover = work.side_to_move
            action = held.choice(work.legal_actions())
            work.apply_action(action)
            visits = held.randint(1, 20)
            nodes.append([len(nodes) - 1, action, mover, visits, held.randint(0, 2 * visits) / 2])
            if work.is_game_over():
                break
        (after,) = student.call("backpropagate", begin, nodes, [[len(nodes) - 1, end]]).value
        check_path(after, nodes, list(range(len(nodes))), end, f"held-out path {i + 1} (game over)")


# ---- parts: the whole search ---------------------------------------------------------

# The cells that grade each function on its own.
OWN_PARTS = {
    "ucb1": ("test-ucb1", "test-ucb1-order"),
    "select": ("test-select", "test-select-unchanged"),
    "expand": ("test-expand", "test-expand-draw"),
    "simulate": ("test-simulate", "test-simulate-end"),
    "backpropagate": ("test-backpropagate", "test-backpropagate-ends"),
}
_verdicts: weakref.WeakKeyDictionary[Student, dict[tuple[str, bool], bool]] = (
    weakref.WeakKeyDictionary()
)


def charged(student: Student, graded: bool, name: str) -> bool:
    """Whether the function's own cells already charge a bug in it (one of them fails)."""
    known = _verdicts.setdefault(student, {})
    for part in OWN_PARTS[name]:
        if (part, graded) not in known:
            verdict = course.grade(part, student, graded)
            known[part, graded] = verdict.fraction < 1.0
        if known[part, graded]:
            return True
    return False


def whole_search(student: Student, graded: bool, what: str, position, settings) -> list:
    """The course's UCT on the student's five functions, checked against UCT; a function
    whose own cells charge its bug has the course's stand in for it, if it does its part in
    the search. The tree the search left."""
    mine = list(FUNCTIONS)
    while True:
        answer = student.call("search", position, settings, mine, trace=True)
        problem = examine(answer, position, settings)
        if problem is None:
            return answer.value["tree"]
        blamed = []
        for name in mine:
            alone = examine(
                student.call("search", position, settings, [name], trace=True), position, settings
            )
            if alone is not None:
                blamed.append((name, alone))
        if not blamed:
            raise Failed(
                f"{what}: {problem.message}; each of your functions alone plays as UCT does, but"
                " not all five together (do they keep state between calls?)"
            )
        broken = [(name, alone) for name, alone in blamed if alone.breaks]
        if broken:
            also = ", ".join(name for name, _ in broken[1:])
            raise Failed(
                f"{what}: the search cannot run on your {broken[0][0]}: {broken[0][1].message}"
                + (f" (nor on your {also})" if also else "")
            )
        for name, alone in blamed:
            if not charged(student, graded, name):
                raise Failed(
                    f"{what}, with your {name} (the course's other phases): {alone.message};"
                    f" your {name} passes its own cells but plays otherwise in a search"
                )
        mine = [name for name in mine if name not in {n for n, _ in blamed}]


def most_visited(tree: list) -> int:
    """The action of the root's most visited child (the first of equals), as `Uct.step`."""
    children = [row for row in tree if row[0] == 0]
    return max(children, key=lambda row: row[3])[1]


@course.part("test-uct-tree")
def uct_tree(student: Student, graded: bool) -> None:
    cases = []
    probe = START.copy()
    for ply in range(4):
        settings = settings_of(30, ply)
        cases.append((f"Uct(30, seed={ply}) at ply {ply} of its game", probe.copy(), settings))
        probe.apply_action(most_visited(replay_alone(probe, settings)))
    if graded:
        found = held_out_settings(grading.held_out("nb4-uct-tree"), 8, ends=2, horizons=(0, 12))
        cases += [(f"UCT, {label}", position, settings) for label, position, settings in found]
    for what, position, settings in cases:
        whole_search(student, graded, what, position, settings)


def replay_alone(position, settings) -> list:
    """The course's UCT's tree (as `flatten`), without a trace to follow."""
    root = uct(position, settings, {**REFERENCES})
    found: list[list[Any]] = []
    stack: list[tuple[Node, int]] = [(root, -1)]
    while stack:
        node, parent = stack.pop()
        index = len(found)
        found.append(
            [parent, node.action, node.mover, node.visits, node.reward, sorted(node.untried), True]
        )
        stack += [(child, index) for child in reversed(node.children)]
    return found


def wins_at_once(position, action: int) -> bool:
    return position.child(action).outcome().winner == position.side_to_move


def must_win(position) -> bool:
    """The side to move wins at once, and any other move lets the opponent win at once."""
    actions = position.legal_actions()
    if position.is_game_over() or not any(wins_at_once(position, a) for a in actions):
        return False
    return all(
        wins_at_once(position, a)
        or any(wins_at_once(position.child(a), r) for r in position.child(a).legal_actions())
        for a in actions
    )


@course.part("test-uct-win")
def uct_win(student: Student, graded: bool) -> None:
    finishing, bot = START.copy(), sternhalma.Bot("greedy", seed=3)
    while not must_win(finishing):
        finishing.push(bot.step(finishing))
    cases = [
        (f"Uct(60, seed={seed}) at ply {finishing.ply}", finishing, settings_of(60, seed))
        for seed in range(3)
    ]
    if graded:
        held, found = grading.held_out("nb4-uct-win"), 0
        while found < 4:
            position = grading.opening(START, held.randint(0, 10), held)
            bot = sternhalma.Bot("greedy", seed=held.randrange(10**6))
            while not position.is_game_over() and not must_win(position):
                position.push(bot.step(position))
            if position.is_game_over():
                continue
            found += 1
            for _ in range(2):
                settings = settings_of(60, held.randrange(10**6))
                # The course's UCT takes the win here (the part checks the search is UCT).
                if wins_at_once(position, most_visited(replay_alone(position, settings))):
                    cases.append((f"Uct(60), held-out position {found}", position, settings))
    for what, position, settings in cases:
        tree = whole_search(student, graded, what, position, settings)
        if not wins_at_once(position, most_visited(tree)):
            raise Failed(f"{what}: misses the win in one (results from the wrong point of view?)")
