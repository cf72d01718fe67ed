"""Notebook 2, single-agent search: A*, a stronger admissible heuristic, a
canonical key under the mirror, IDA*, on the solitaire crossing.

The student's searches get the course's own heuristics (`zero`, `outside`,
and under grading a third consistent one the notebook does not show) and
the course's copies of the notebook's `state` and `path_to` for the call,
so a notebook whose teaching cells were edited is graded on the same
inputs. Roots cross as position strings: a root some moves into a
crossing has its ply, and no move history.

A* and IDA* are checked by what the engine saw them make (the trace of
every position made, by hash; positions made from data, which have no
parent there, are left out), against the state space the grader works out
itself from the root (each state's depth `d`, so `f = d + h`):

- A* with a consistent `h` expands every state whose `f` is below the
  optimum `C*`, some whose `f` is `C*`, none above, in an order of
  non-decreasing `f` (the order of the first child each state was made
  from), each with all its children made (every move tried); its count is the number of states it made children of (one more
  if it counts the goal). An A* that expands a stale queue entry again
  (its state's best `g` improved since) earns half the points.
- IDA* runs one depth-first iteration per bound (`h(root)`, then each
  time the smallest `f` cut off); iterations are told apart by a child of
  the root made again. An iteration whose bound `b` is below `C*` expands
  exactly the states with `f <= b`, whatever the order of the moves and
  whether a state is expanded again at a shorter `g`, each with all its
  children made; the last one only states with `f <= C*`. An iteration repeating the one before it (a
  bound raised by one where no state has that `f`) is set aside. Its
  count is at least the states it made children of in each iteration
  (less one for the root) and at most the positions it made.

The heuristic is checked on every state of small boards (admissible,
consistent, at least `outside`); what it buys (`test-stronger-fewer`) is
judged on an estimate that makes no position (a search inside `h` would
hide its work from A*'s count) and is not the number of moves left to
within 1.5 on average over a whole board (a table of solved crossings:
one blurred further passes, docs/grading.md). The canonical key is checked
by the classes it makes (a state with its mirror image, and nothing
else), then inside the grader's own breadth-first search.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Answer, Course, Failed, Student
from sternhalma.autograde._course import each, lent
from sternhalma.autograde._student import redacted

course = Course("02_single_agent_search")

BOARD = "rhombus5p3"

# ---- the notebook's given code, the course's copy --------------------------------------


def start_of(board: str) -> sternhalma.Position:
    """The solitaire start: one set (south) alone, the `research` rules."""
    return sternhalma.Position.start(board=board, layout="1", rules="research")


def state(position: sternhalma.Position) -> frozenset[int]:
    return frozenset(position.player_pegs(0))


def path_to(parent: dict, here) -> list[sternhalma.Move]:
    """The moves from the root to `here`, read back through `parent`."""
    path = []
    while parent[here] is not None:
        here, move = parent[here]
        path.append(move)
    return path[::-1]


def bfs(root: sternhalma.Position, key=None) -> tuple[list[sternhalma.Move], int]:
    """The notebook's breadth-first search: (moves, nodes expanded)."""
    target = frozenset(root.board.triangle("north"))
    key = key or (lambda pegs, board: pegs)
    parent: dict = {key(state(root), root.board): None}
    frontier = collections.deque([root])
    expanded = 0
    while frontier:
        position = frontier.popleft()
        expanded += 1
        here = key(state(position), root.board)
        if state(position) == target:
            return path_to(parent, here), expanded
        for move in position.legal_moves:
            child = position.play(move)
            there = key(state(child), root.board)
            if there not in parent:
                parent[there] = (here, move)
                frontier.append(child)
    raise ValueError("no crossing")


def distance_to_goal(board: sternhalma.Board, hole: int, target: frozenset[int]) -> int:
    return min(board.distance(hole, g) for g in target)


def heuristics(board: sternhalma.Board, target: frozenset[int]):
    def zero(pegs: frozenset[int]) -> int:
        return 0

    def outside(pegs: frozenset[int]) -> int:
        return len(pegs - target)

    def distance(pegs: frozenset[int]) -> int:
        return sum(distance_to_goal(board, hole, target) for hole in pegs)

    def half(pegs: frozenset[int]) -> int:
        return distance(pegs) // 2

    return {"zero": zero, "outside": outside, "half": half, "distance": distance}


def reference_stronger(pegs: frozenset[int], board: sternhalma.Board, target) -> int:
    """The course's stronger estimate: outside, or the steps from a goal hole to the peg
    nearest it (one move brings that peg at most one step closer), whichever is more."""
    nearest = max(min(board.distance(peg, hole) for peg in pegs) for hole in target)
    return max(len(pegs - target), nearest)


def estimates(board: sternhalma.Board) -> dict[str, Callable[[frozenset[int]], int]]:
    """The heuristics a graded search gets, by name: the notebook's two consistent ones and
    the course's stronger one (consistent too)."""
    target = frozenset(board.triangle("north"))
    given = heuristics(board, target)
    return {
        "zero": given["zero"],
        "outside": given["outside"],
        "stronger": lambda pegs: reference_stronger(pegs, board, target),
    }


GIVEN = {"state": state, "path_to": path_to}

# ---- adapters: run in the student's process ------------------------------------------


def given(ns: dict[str, Any]) -> AbstractContextManager[None]:
    """The course's copies of the notebook's helpers in its namespace for the call."""
    return lent(ns, GIVEN)


@course.adapter
def astar(ns, root, h):
    with given(ns):
        return ns["astar"](root, estimates(root.board)[h])


@course.adapter
def ida_star(ns, root, h):
    with given(ns):
        return ns["ida_star"](root, estimates(root.board)[h])


@course.adapter
def stronger(ns, board, target, states):
    """`stronger(pegs, board, target)` for each state (a list of holes) of one board."""
    b, t = sternhalma.Board(board), frozenset(target)
    with given(ns):
        return each(lambda pegs: ns["stronger"](frozenset(pegs), b, t), states)


@course.adapter
def canonical_classes(ns: dict[str, Any], board: str, states: list[list[int]]) -> Any:
    """The classes `canonical` makes of the states (lists of holes) of one board: each
    state's number is the first state with an equal key, as a dict keyed by the keys sees
    them (BFS's `parent` table does); and the type of the keys."""
    b = sternhalma.Board(board)
    first: dict[Any, int] = {}
    kinds: set[str] = set()

    def number(pegs):
        key = ns["canonical"](frozenset(pegs), b)
        kinds.add(type(key).__name__)
        return first.setdefault(key, len(first))

    with given(ns):
        found = each(number, states)
    return {"classes": found, "kinds": sorted(kinds)}


# ---- the state space, worked out by the grader ---------------------------------------


class Space:
    """Every state reachable from `root`, by hash: its pegs, its depth (the fewest moves from
    the root) and its children's hashes; the goal's hash and depth (the optimum)."""

    def __init__(self, root: sternhalma.Position):
        self.root = root.zobrist_hash
        self.board = root.board.name
        self.north = frozenset(root.board.triangle("north"))
        self.pegs: dict[int, frozenset[int]] = {self.root: state(root)}
        self.depth: dict[int, int] = {self.root: 0}
        self.children: dict[int, list[int]] = {}
        goal: int | None = None
        layer = [root]
        while layer:
            later = []
            for p in layer:
                here = p.zobrist_hash
                if self.pegs[here] == self.north:
                    goal = here
                kids = []
                for m in p.legal_moves:
                    child = p.play(m)
                    there = child.zobrist_hash
                    kids.append(there)
                    if there not in self.depth:
                        self.depth[there] = self.depth[here] + 1
                        self.pegs[there] = state(child)
                        later.append(child)
                self.children[here] = kids
            layer = later
        if goal is None:
            raise ValueError("no crossing from this root")
        self.goal: int = goal
        self.best = self.depth[goal]

    def f(self, h: Callable[[frozenset[int]], int]) -> dict[int, int]:
        return {k: d + h(self.pegs[k]) for k, d in self.depth.items()}

    def left(self) -> dict[int, int]:
        """The fewest moves from each state to the goal (a breadth-first search back from the
        goal), for the states that reach it."""
        back = collections.defaultdict(list)
        for here, theres in self.children.items():
            for there in theres:
                back[there].append(here)
        left, layer = {self.goal: 0}, [self.goal]
        while layer:
            later = []
            for there in layer:
                for here in back[there]:
                    if here not in left:
                        left[here] = left[there] + 1
                        later.append(here)
            layer = later
        return left


def space_from_goal(name: str) -> tuple[sternhalma.Board, frozenset[int], Space, dict]:
    """Every state reachable from the start of board `name`, and the fewest moves from each
    to the goal, by hash."""
    space = Space(start_of(name))
    return sternhalma.Board(name), space.north, space, space.left()


def held_out_roots(name: str, boards: list[str]) -> list[tuple[str, sternhalma.Position]]:
    rng = grading.held_out(name)
    return [
        (f"held-out root {i} ({board})", grading.opening(start_of(board), rng.randint(1, 10), rng))
        for i, board in enumerate(boards)
    ]


# ---- checks shared by the parts --------------------------------------------------------


def crossing(answer: Answer, what: str) -> tuple[list[sternhalma.Move], Any]:
    value = answer.value
    if not isinstance(value, list) or len(value) != 2 or not isinstance(value[0], list):
        raise Failed(f"{what}: answered {value!r}, not (moves, nodes expanded)")
    moves, expanded = value
    for move in moves:
        if not isinstance(move, sternhalma.Move):
            raise Failed(f"{what}: {move!r} in the moves is not a Move")
    return moves, expanded


def count(expanded: Any, what: str) -> int:
    if isinstance(expanded, bool) or not isinstance(expanded, int):
        raise Failed(f"{what}: {expanded!r} nodes expanded, not a whole number")
    return expanded


def replays(root: sternhalma.Position, moves: list[sternhalma.Move], what: str) -> None:
    position = root.copy()
    for move in moves:
        if not position.is_legal(move):
            raise Failed(f"{what}: the move {move} is illegal there")
        position.push(move)
    if state(position) != frozenset(root.board.triangle("north")):
        raise Failed(f"{what}: the moves do not end in the goal")


def unchanged(answer: Answer, root: sternhalma.Position, what: str) -> None:
    """Whether the call left its root as given (sent without history: no moves on its stack)."""
    ((text, stack),) = answer.after
    if text != str(root) or stack != 0:
        raise Failed(f"{what}: changed `root` (walk a copy of it, or pop every move pushed)")


def edges(answer: Answer, space: Space, what: str) -> list[tuple[int, int]]:
    """The trace's moves (positions made from data left out), each within the space."""
    if answer.cut:
        raise Failed(
            f"{what}: made more than {len(answer.trace):,} positions, more than the grader"
            " follows (a state searched again and again? skip one already reached by a path"
            " at least as short)"
        )
    found = [(p, c) for p, c in answer.trace if p]
    if not found:
        raise Failed(f"{what}: made no position from the root (search with play or push)")
    for p, c in found:
        if p not in space.depth or c not in space.depth:
            raise Failed(f"{what}: made a position that cannot be reached from the root")
    return found


# ---- parts: A* -----------------------------------------------------------------------


@course.part("test-astar-path")
def astar_path(student: Student, graded: bool) -> None:
    cases = [("the start", start_of(BOARD))]
    if graded:
        cases += held_out_roots(
            "nb2-astar-path", ["rhombus4p3", "rhombus5p3", "rhombus5p3", "rhombus6p3", "rhombus7p3"]
        )
    for label, root in cases:
        what = f"astar with outside from {label}"
        answer = student.call("astar", root, "outside")
        moves, _ = crossing(answer, what)
        unchanged(answer, root, what)
        replays(root, moves, what)
        want = len(bfs(root.copy())[0])
        if len(moves) != want:
            raise Failed(
                f"{what}: {len(moves)} moves, the optimum is {want} (f = g + h on the queue,"
                " the goal tested when taken off it, the best g per state?)"
            )


def astar_trace(answer: Answer, space: Space, h, what: str) -> float:
    """A*'s work, from the engine's trace (see the module's docstring)."""
    _, expanded = crossing(answer, what)
    expanded = count(expanded, what)
    made = edges(answer, space, what)
    order = answer.expanded()
    f = space.f(h)
    best = space.best
    if order[0] != space.root:
        raise Failed(f"{what}: the first state expanded is not the root")
    # Consistent h: states come off the queue in an order of non-decreasing f.
    by_depth = all(space.depth[a] <= space.depth[b] for a, b in itertools.pairwise(order))
    priority = " (is h in the priority? f = g + h orders the queue)" if by_depth else ""
    for i, (a, b) in enumerate(itertools.pairwise(order)):
        if f[b] < f[a]:
            raise Failed(
                f"{what}: the state expanded {i + 2}th has f = {f[b]}, after one with f = {f[a]}:"
                f" A* takes the smallest f = g + h off the queue first{priority}"
            )
    above = sum(f[k] > best for k in order)
    if above:
        raise Failed(
            f"{what}: expanded {above} states whose f is above the optimum {best}"
            f" (A* stops when it takes the goal off the queue){priority}"
        )
    done = set(order)
    below = sum(1 for k, v in f.items() if v < best and k not in done)
    if below:
        raise Failed(
            f"{what}: left {below} states whose f is below the optimum {best} unexpanded"
            " (stopped before the goal came off the queue? tested it when queued?)"
        )
    expansions: dict[int, set[int]] = collections.defaultdict(set)
    for parent, child in made:
        expansions[parent].add(child)
    every_move_tried(expansions, space, what)
    if expanded < len(done):
        raise Failed(
            f"{what}: {expanded} nodes expanded, but it made the children of {len(done)} states"
            " (count every state taken off the queue and expanded)"
        )
    if expanded > len(done) + 1:
        per_parent = collections.Counter(p for p, _ in made)
        again = sum(n > len(space.children[p]) for p, n in per_parent.items())
        if again:
            return 0.5
        raise Failed(
            f"{what}: {expanded} nodes expanded, but it made the children of only {len(done)}"
            " states (count a state when its children are made)"
        )
    return 1.0


@course.part("test-astar-expanded")
def astar_expanded(student: Student, graded: bool) -> float | None:
    cases: list[tuple[str, sternhalma.Position, tuple[str, ...]]] = [
        ("the start", start_of(BOARD), ("zero", "outside"))
    ]
    if graded:
        roots = held_out_roots(
            "nb2-astar-expanded", ["rhombus4p3", "rhombus5p3", "rhombus5p3", "rhombus6p3"]
        )
        cases += [(label, root, ("zero", "outside", "stronger")) for label, root in roots]
    fraction = 1.0
    expansions: dict[str, int] = {}
    for label, root, names in cases:
        space = Space(root)
        for name in names:
            shown = "a third consistent estimate" if name == "stronger" else name
            what = f"astar with {shown} from {label}"
            answer = student.call("astar", root, name, trace=True)
            # A stale queue entry expanded again (its state's best g improved after it was
            # queued): A*'s answer, with work it should skip; half the points.
            fraction = min(fraction, astar_trace(answer, space, estimates(root.board)[name], what))
            expansions[name] = len(answer.expanded())
        if expansions["outside"] >= expansions["zero"]:
            raise Failed(
                f"astar from {label}: as many states expanded with outside as with zero"
                " (is h in the priority?)"
            )
    return fraction if fraction < 1.0 else None


# ---- parts: the stronger heuristic -----------------------------------------------------


def estimates_of(
    student: Student,
    board: str,
    north: frozenset[int],
    states: list[frozenset[int]],
    labels,
    searching: bool = True,
) -> list[int | float]:
    """The student's `stronger` on each state of `board` (one call); `labels(i)` names the
    i-th state in the feedback. Unless `searching`, an estimate that makes positions fails."""
    answer = student.call("stronger", board, sorted(north), [sorted(s) for s in states])
    value = answer.value
    if isinstance(value, dict) and set(value) == {"case", "type", "message"}:
        message = redacted(str(value["message"]), ())
        raise Failed(f"stronger {labels(value['case'])} raised {value['type']}: {message}")
    if answer.positions and not searching:
        raise Failed(
            f"stronger made {answer.positions} positions: an estimate reads the pegs and the"
            " board, it does not search (its work would hide from the count of states expanded)"
        )
    if not isinstance(value, list) or len(value) != len(states):
        raise Failed(f"stronger answered {value!r}")
    for i, h in enumerate(value):
        if isinstance(h, bool) or not isinstance(h, (int, float)):
            raise Failed(f"stronger {labels(i)}: answered {h!r}, not a number of moves")
    return value


def along_the_crossing() -> tuple[list[frozenset[int]], int]:
    """The states along BFS's crossing from the start (the notebook's), and its length."""
    start = start_of(BOARD)
    moves, _ = bfs(start.copy())
    position, states = start.copy(), [state(start)]
    for move in moves:
        position.push(move)
        states.append(state(position))
    return states, len(moves)


NORTH = frozenset(start_of(BOARD).board.triangle("north"))


@course.part("test-stronger-admissible")
def stronger_admissible(student: Student, graded: bool) -> None:
    states, length = along_the_crossing()
    values = estimates_of(
        student, BOARD, NORTH, states, lambda i: f"after {i} moves of BFS's crossing"
    )
    for done, h in enumerate(values):
        if not 0 <= h <= length - done:
            raise Failed(
                f"stronger after {done} moves of BFS's crossing: {h}, but {length - done} moves"
                " are left (not admissible)"
            )
    if graded:
        for name in ["rhombus4p3", "rhombus6p3"]:
            _, north, space, left = space_from_goal(name)
            keys = [k for k in space.pegs if k in left]
            pegs = [space.pegs[k] for k in keys]
            values = estimates_of(student, name, north, pegs, lambda i, name=name: f"on {name}")
            for k, s, h in zip(keys, pegs, values):
                if not 0 <= h <= left[k]:
                    raise Failed(
                        f"stronger on {name} at {sorted(s)}: {h}, {left[k]} moves left"
                        " (not admissible)"
                    )


@course.part("test-stronger-consistent")
def stronger_consistent(student: Student, graded: bool) -> None:
    start = start_of(BOARD)
    moves, _ = bfs(start.copy())
    position = start.copy()
    pairs = []  # (moves done, the state, a state a move on)
    for done, move in enumerate(moves):
        here = state(position)
        pairs += [(done, here, state(position.play(m))) for m in position.legal_moves]
        position.push(move)
    distinct = list({s for _, a, b in pairs for s in (a, b)})
    values = estimates_of(
        student, BOARD, NORTH, distinct, lambda i: "along BFS's crossing or a move off it"
    )
    h = dict(zip(distinct, values))
    for done, a, b in pairs:
        if h[a] > 1 + h[b]:
            raise Failed(
                f"stronger after {done} moves of BFS's crossing: {h[a]}, {h[b]} a move on"
                " (not consistent: it may drop by at most 1 along a move)"
            )
    if graded:
        for name in ["rhombus4p3", "rhombus6p3"]:
            _, north, space, _ = space_from_goal(name)
            keys = list(space.pegs)
            values = estimates_of(
                student, name, north, [space.pegs[k] for k in keys], lambda i, n=name: f"on {n}"
            )
            by_hash = dict(zip(keys, values))
            for parent, children in space.children.items():
                for child in children:
                    if by_hash[parent] > 1 + by_hash[child]:
                        raise Failed(
                            f"stronger on {name}: {by_hash[parent]} at"
                            f" {sorted(space.pegs[parent])}, {by_hash[child]} one move on"
                            " (not consistent)"
                        )


@course.part("test-stronger-fewer")
def stronger_fewer(student: Student, graded: bool) -> None:
    # What the estimate buys: more than outside, fewer states every A* must expand; computed
    # from the pegs (a search inside h would hide its work from A*'s count), and an estimate
    # rather than a table of the moves left.
    states, _ = along_the_crossing()
    values = estimates_of(
        student, BOARD, NORTH, states, lambda i: f"after {i} moves of BFS's crossing", False
    )
    more = 0
    for done, (s, h) in enumerate(zip(states, values)):
        outside = len(s - NORTH)
        if h < outside:
            raise Failed(
                f"stronger after {done} moves of BFS's crossing: {h}, less than outside ({outside})"
            )
        more += h > outside
    if not more:
        raise Failed("stronger is never more than outside along BFS's crossing")
    if not graded:
        return
    board = sternhalma.Board("rhombus6p3")
    north = frozenset(board.triangle("north"))
    every = [frozenset(c) for c in itertools.combinations(range(len(board)), board.pegs_per_set)]
    values = estimates_of(student, "rhombus6p3", north, every, lambda i: "on rhombus6p3", False)
    for s, h in zip(every, values):
        if h < len(s - north):
            raise Failed(f"stronger on rhombus6p3 at {sorted(s)}: {h}, less than outside")
    # On the spaces of the start of rhombus6p3 and of held-out roots: admissible where it buys
    # something (the smaller boards are checked whole by the parts above), an estimate rather
    # than the moves left, and fewer states every A* must expand than with outside.
    spaces = [("on rhombus6p3", Space(start_of("rhombus6p3")), False)]
    for label, root in held_out_roots(
        "nb2-stronger-fewer", ["rhombus5p3", "rhombus6p3", "rhombus7p3"]
    ):
        spaces.append((f"from {label}", Space(root), True))
    with_yours = with_outside = 0
    for where, space, counted in spaces:
        keys = list(space.pegs)
        values = estimates_of(
            student,
            space.board,
            space.north,
            [space.pegs[k] for k in keys],
            lambda i, where=where: where,
            False,
        )
        estimate = dict(zip(keys, values))
        left = space.left()
        for k in left:
            if estimate[k] > left[k]:
                raise Failed(
                    f"stronger {where}: more than the moves"
                    " left in some state (not admissible): fewer states expanded that way do"
                    " not count"
                )
        gap = sum(left[k] - estimate[k] for k in left) / len(left)
        if gap < 1.5:
            raise Failed(
                f"stronger {where} is {gap:.2f} moves short of"
                " the moves left on average over every state: a table of solved crossings, not"
                " an estimate (ask your teacher if you found a bound this tight)"
            )
        if counted:
            for k, g in space.depth.items():
                with_outside += g + len(space.pegs[k] - space.north) < space.best
                with_yours += g + estimate[k] < space.best
    if with_yours >= with_outside:
        raise Failed(
            f"stronger: A* must expand {with_yours} states from held-out roots, {with_outside}"
            " with outside (more than outside where it matters: far from the goal)"
        )


# ---- parts: the canonical key ----------------------------------------------------------


def mirrored(pegs: frozenset[int], board: sternhalma.Board) -> frozenset[int]:
    return frozenset(board.mirror(hole) for hole in pegs)


def classes_of(
    student: Student, board: sternhalma.Board, states: list[frozenset[int]], labels
) -> tuple[list[int], list[str]]:
    """The classes the student's `canonical` makes of `states` (one call)."""
    answer = student.call("canonical_classes", board.name, [sorted(s) for s in states])
    value = answer.value
    if not isinstance(value, dict) or not isinstance(value.get("classes"), (list, dict)):
        raise Failed(f"canonical: answered {value!r}")
    found, kinds = value["classes"], value.get("kinds", [])
    if isinstance(found, dict):
        hint = (
            " (a key must be hashable: return a tuple)"
            if "unhashable" in str(found.get("message"))
            else ""
        )
        raise Failed(
            f"canonical {labels(found.get('case', 0))} raised {found.get('type')}:"
            f" {redacted(str(found.get('message')), ())}{hint}"
        )
    if len(found) != len(states) or not all(isinstance(c, int) for c in found):
        raise Failed(f"canonical: answered {value!r}")
    return found, kinds


def sets_hint(kinds: list[str]) -> str:
    if {"set", "frozenset"} & set(kinds):
        return " (min of two sets compares them as subsets, not in order: compare sorted tuples)"
    return ""


@course.part("test-canonical-key")
def canonical_key(student: Student, graded: bool) -> None:
    small = start_of(BOARD).board
    south = frozenset(small.triangle("south"))
    # The south triangle and one more peg off the mirror's axis: a state unlike its mirror image.
    extra = next(h for h in range(len(small)) if small.mirror(h) != h and h not in south)
    some = south | {extra}
    mirror = mirrored(some, small)
    found, kinds = classes_of(
        student, small, [some, mirror, south], lambda i: "on the start's board"
    )
    if found[0] != found[1]:
        raise Failed(
            f"canonical: a state and its mirror image get different keys{sets_hint(kinds)}"
        )
    if found[0] == found[2]:
        raise Failed("canonical: two different states share a key")
    if not graded:
        return
    # Every state of the start's board: one key for a state and its mirror image, and no other.
    every = [frozenset(c) for c in itertools.combinations(range(len(small)), small.pegs_per_set)]
    found, kinds = classes_of(student, small, every, lambda i: f"on {BOARD}")
    number = dict(zip(every, found))
    members: dict[int, set[frozenset[int]]] = collections.defaultdict(set)
    for s, c in number.items():
        if number[mirrored(s, small)] != c:
            raise Failed(
                f"canonical on {BOARD}: {sorted(s)} and its mirror image get different keys"
                f"{sets_hint(kinds)}"
            )
        members[c].add(s)
    for group in members.values():
        one = next(iter(group))
        if not group <= {one, mirrored(one, small)}:
            two = sorted(sorted(s) for s in group)[:2]
            raise Failed(
                f"canonical on {BOARD}: {two[0]} and {two[1]} share a key, and are not mirror"
                " images of each other"
            )
    rng = grading.held_out("nb2-canonical-key")
    for name in ["rhombus6p3", "rhombus7p6", "rhombus9p6", "star2"]:
        board = sternhalma.Board(name)
        states = []
        for _ in range(25):
            pegs = frozenset(rng.sample(range(len(board)), board.pegs_per_set))
            empty = [hole for hole in range(len(board)) if hole not in pegs]
            other = pegs - {rng.choice(sorted(pegs))} | {rng.choice(empty)}
            states += [pegs, mirrored(pegs, board), other]
        found, kinds = classes_of(
            student, board, states, lambda i, name=name: f"on {name}, held-out state {i // 3}"
        )
        for i in range(25):
            pegs, mirror, other = states[3 * i : 3 * i + 3]
            where = f"canonical on {name}, held-out state {i}"
            if found[3 * i] != found[3 * i + 1]:
                raise Failed(f"{where}: a state and its mirror image differ{sets_hint(kinds)}")
            if other != mirror and found[3 * i + 2] == found[3 * i]:
                raise Failed(f"{where}: shares a key with another state")
        # Every pair of states: one key for a state and its mirror image, and for nothing else.
        members = collections.defaultdict(set)
        for s, c in zip(states, found):
            members[c].add(s)
        for group in members.values():
            one = next(iter(group))
            if not group <= {one, mirrored(one, board)}:
                raise Failed(
                    f"canonical on {name}: held-out states that are not mirror images of each"
                    " other share a key"
                )


def bfs_over(space: Space, key: Callable[[int], Any]) -> tuple[int, int]:
    """The notebook's BFS on the grader's space, states remembered by `key(hash)`:
    (the moves found, the states expanded)."""
    parent: dict[Any, int | None] = {key(space.root): None}
    depth = {space.root: 0}
    frontier = collections.deque([space.root])
    expanded = 0
    while frontier:
        here = frontier.popleft()
        expanded += 1
        if here == space.goal:
            return depth[here], expanded
        for there in space.children[here]:
            if key(there) not in parent:
                parent[key(there)] = here
                depth[there] = depth[here] + 1
                frontier.append(there)
    raise Failed("no crossing")


def reference_canonical(pegs: frozenset[int], board: sternhalma.Board) -> tuple[int, ...]:
    return min(tuple(sorted(pegs)), tuple(sorted(board.mirror(hole) for hole in pegs)))


@course.part("test-canonical-bfs")
def canonical_bfs(student: Student, graded: bool) -> None:
    cases = [("the start", start_of(BOARD))]
    if graded:
        cases += held_out_roots("nb2-canonical-bfs", ["rhombus4p3", "rhombus6p3", "rhombus6p3"])
    for label, root in cases:
        space = Space(root)
        keys = list(space.pegs)
        found, kinds = classes_of(
            student, root.board, [space.pegs[k] for k in keys], lambda i, at=label: f"from {at}"
        )
        number = dict(zip(keys, found))
        got = bfs_over(space, number.__getitem__)
        plain = bfs_over(space, lambda k: k)
        mirror_key = {k: reference_canonical(s, root.board) for k, s in space.pegs.items()}
        want = bfs_over(space, mirror_key.__getitem__)
        where = f"BFS with canonical from {label}"
        if got[0] != plain[0]:
            raise Failed(f"{where}: {got[0]} moves, the optimum is {plain[0]}")
        if got[1] >= plain[1]:
            raise Failed(
                f"{where}: {got[1]} states expanded, {plain[1]} without a key: the key saves"
                f" nothing{sets_hint(kinds)}"
            )
        if graded and got[1] != want[1]:
            raise Failed(f"{where}: {got[1]} states expanded, {want[1]} with the mirror key")


# ---- parts: IDA* -------------------------------------------------------------------------


def near_the_goal(rng, count: int) -> list[sternhalma.Position]:
    """Roots on rhombus6p3: some moves into the built-in solver's crossing, two random moves
    on, at most 9 moves from the goal."""
    moves = sternhalma.solve_solitaire("rhombus6p3").moves
    found: list[sternhalma.Position] = []
    while len(found) < count:
        root = start_of("rhombus6p3")
        for move in moves[: rng.randint(5, 8)]:
            root.push(move)
        root = grading.opening(root, 2, rng)
        if Space(root).best <= 9:
            found.append(root)
    return found


@course.part("test-ida-star-path")
def ida_star_path(student: Student, graded: bool) -> None:
    cases = [("the start", start_of(BOARD), "outside")]
    if graded:
        rng = grading.held_out("nb2-ida-star-path")
        roots = [grading.opening(start_of("rhombus4p3"), rng.randint(1, 10), rng) for _ in "ab"]
        roots += [grading.opening(start_of("rhombus5p3"), rng.randint(1, 10), rng) for _ in "ab"]
        roots += near_the_goal(rng, 1)
        cases += [
            (f"held-out root {i} ({root.board.name})", root, "zero" if i == 0 else "outside")
            for i, root in enumerate(roots)
        ]
    for label, root, h in cases:
        what = f"ida_star with {h} from {label}"
        moves, _ = crossing(student.call("ida_star", root, h), what)
        replays(root, moves, what)
        want = Space(root).best
        if len(moves) != want:
            raise Failed(
                f"{what}: {len(moves)} moves, the optimum is {want} (the bound raised to the"
                " smallest f that was cut off? f = g + h compared with the bound?)"
            )


def reference_iterations(space: Space, h) -> list[set[int]]:
    """The states IDA* expands in each iteration whose bound is below the optimum (see the
    module's docstring); the last bound is the optimum itself."""
    f = space.f(h)
    bound, found = f[space.root], []
    while bound < space.best:
        inside = {k for k, v in f.items() if v <= bound}
        found.append(inside)
        bound = min(
            space.depth[s] + 1 + h(space.pegs[t])
            for s in inside
            for t in space.children[s]
            if space.depth[s] + 1 + h(space.pegs[t]) > bound
        )
    return found


def iterations_of(made: list[tuple[int, int]], root: int, what: str) -> list[dict[int, set[int]]]:
    """What the search expanded in each of its iterations: each state it made children of,
    and those children. A new iteration starts when a child of the root is made again."""
    found: list[dict[int, set[int]]] = []
    children: set[int] = set()
    for parent, child in made:
        if parent == root and (not found or child in children):
            found.append(collections.defaultdict(set))
            children = set()
        if not found:
            raise Failed(f"{what}: made positions before expanding the root")
        if parent == root:
            children.add(child)
        found[-1][parent].add(child)
    return found


def every_move_tried(expansions: dict[int, set[int]], space: Space, what: str) -> None:
    """Each state expanded has all its children made: an expansion tries every move."""
    for parent, children in expansions.items():
        if children != set(space.children[parent]):
            raise Failed(
                f"{what}: expanded a state without trying every one of its moves (made"
                f" {len(children)} of its {len(space.children[parent])} children)"
            )


def ida_trace(answer: Answer, root: sternhalma.Position, space: Space, h, what: str) -> None:
    """IDA*'s work, from the engine's trace (see the module's docstring)."""
    _, expanded = crossing(answer, what)
    expanded = count(expanded, what)
    unchanged(answer, root, what)
    made = edges(answer, space, what)
    if expanded > answer.positions + space.best + 1:
        raise Failed(
            f"{what}: {expanded} nodes expanded, {answer.positions} positions made"
            " (count a node when its moves are tried)"
        )
    f = space.f(h)
    best = space.best
    want = reference_iterations(space, h)
    trace = iterations_of(made, space.root, what)
    for expansions in trace[:-1]:
        every_move_tried(expansions, space, what)
    got = [set(expansions) for expansions in trace]
    lowest = sum(len(s) for s in got) - len(got)
    if expanded < lowest:
        raise Failed(
            f"{what}: {expanded} nodes expanded, but it made the children of {lowest + len(got)}"
            f" states over its {len(got)} iterations (count a node each time its moves are"
            " tried, in every iteration)"
        )
    low = sum(len(s) for s in want)
    if expanded < low:
        raise Failed(f"{what}: {expanded} expanded, IDA* expands at least {low} (every iteration?)")
    # Each iteration below the optimum, by its bound; repeats (the same states: a bound raised
    # by one where no state has that f, as the textbooks' unit-cost IDA* does) set aside.
    distinct = [s for i, s in enumerate(got[:-1]) if i == 0 or s != got[i - 1]]
    for i, inside in enumerate(want):
        if i >= len(distinct):
            one = len(got) == 1
            raise Failed(
                f"{what}: {len(got)} iteration{'' if one else 's'}, IDA* runs {len(want) + 1}"
                " from this root"
                + (
                    " (one pass: IDA* searches again from the root, depth first, for each new"
                    " bound)"
                    if one
                    else " (the bound raised past the smallest f that was cut off?)"
                )
            )
        mine = distinct[i]
        if not mine <= inside:
            raise Failed(
                f"{what}: iteration {i + 1} expanded {len(mine - inside)} states whose f is above"
                " its bound (f = g + h compared with the bound before expanding? the bound raised"
                " to the smallest f cut off?)"
            )
        if not inside <= mine:
            raise Failed(
                f"{what}: iteration {i + 1} left out {len(inside - mine)} states whose f is within"
                " its bound (a table of g kept from one iteration to the next? start it empty)"
            )
    if len(distinct) > len(want):
        raise Failed(
            f"{what}: iteration {len(want) + 1} expanded the states of a bound below the"
            " optimum and found no crossing"
        )
    last = got[-1]
    if space.root not in last or any(f[k] > best for k in last):
        raise Failed(
            f"{what}: its last iteration expanded states whose f is above the optimum {best}"
        )
    high = sum(sum(v <= b for v in f.values()) for b in range(f[space.root], best + 1))
    if answer.positions > 200 * high:
        raise Failed(
            f"{what}: {answer.positions} positions made, more than 200 × {high} (a table of g?)"
        )


@course.part("test-ida-star-work")
def ida_star_work(student: Student, graded: bool) -> None:
    cases = [("the start", start_of(BOARD))]
    if graded:
        cases += held_out_roots(
            "nb2-ida-star-work", ["rhombus4p3", "rhombus4p3", "rhombus5p3", "rhombus5p3"]
        )
    for label, root in cases:
        what = f"ida_star with outside from {label}"
        answer = student.call("ida_star", root, "outside", trace=True)
        ida_trace(answer, root, Space(root), estimates(root.board)["outside"], what)
