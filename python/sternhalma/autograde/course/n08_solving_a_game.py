"""Notebook 8, solving a game: ranking, successors, value iteration, and the
alpha-beta bot of notebook 3 refereed by the solved 7x7 game with three pegs.

How the parts keep one bug to one part:

- ``successors`` is called with the course's own ranking functions (and
  the notebook's helpers ``size`` and ``position_at``) put in the place of
  the student's for the call, and ``solve`` with the course's successors
  too: a bug in ``rank_position`` costs the ranking part, not these.
- ``solve`` is graded on graphs the grader builds: the game of the
  notebook (numbered by a dictionary, as the notebook's ``checked``), and
  under grading other games' graphs, their positions numbered in an order
  of the grader's (so that no stored answer fits), and graphs of no game
  at all (with draws). The values part grades which positions are won,
  lost and illegal; the depths part the depths of the won and lost ones;
  the draws part the label and depth of the drawn ones. A wrong value
  costs the values part only: on a graph whose values the student got
  wrong, the depths and draws parts look only at the positions whose
  answer does not hinge on the rule most often broken (a position lost as
  soon as *one* successor is won, where a loss needs every one won).
- The depths are the algorithm's trace: the positions proven by round
  ``r`` are the ones of depth ``r`` or less, so depths equal to the
  table's on graphs numbered in the grader's order are value iteration's
  rounds, synchronous ones (a round that reads values proven in the same
  round, updated in place, proves positions too early: its own hint).
  The solved tables' answers are barred in the student's process for the
  whole run, so no value is read off a table.
- The bot's parts: legal moves within its budget (the budget is this
  part's alone: the other bot parts count a step over its budget as a
  miss, not a failure), a win at once proven at depth 1, and the win kept
  in positions with a win in five at 10,000 nodes, where its searches must
  make the positions the notebook's alpha-beta makes through the depths it
  completes (a bot that takes its moves from elsewhere does not).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb
from typing import Any

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Course, Failed, RemoteStudent, Student
from sternhalma.autograde._course import each as each_one
from sternhalma.autograde._course import lent

course = Course("08_solving_a_game")

BOARD = "rhombus7p1"
BIG = "rhombus7p3"
GAMES = ["rhombus3p1", "rhombus4p1", "rhombus5p1", "rhombus6p1", "rhombus3p2", "rhombus3p3"]
CONFIGS = [(9, 1), (16, 1), (25, 1), (9, 2), (12, 2), (9, 3), (10, 3), (11, 4)]
TINY = [[1], [0], [0, 3], [], None, [2], [0, 2]]
"""The notebook's small graph: 0 and 1 lead to each other; 2 can move to 3, which has no
move; 4 is illegal; 5 can only move to 2; 6 can move to 0 or to 2."""


# ---- the notebook's teaching code (its helpers and the exercises' solutions) ------------


def size(board: str) -> tuple[int, int]:
    shape = sternhalma.Board(board)
    return len(shape), shape.pegs_per_set


def position_at(board: str, side: int, south, north) -> sternhalma.Position | None:
    pegs = f"south:{','.join(map(str, south))}/north:{','.join(map(str, north))}"
    # The player who just moved and filled their target has won: the board
    # says so, and the position reads as a finished game.
    try:
        return sternhalma.Position(f"{board} sturtevant {pegs} {side}")
    except sternhalma.InvalidPositionError:
        return None


def rank_set(holes) -> int:
    return sum(comb(hole, i + 1) for i, hole in enumerate(sorted(holes)))


def unrank_set(index: int, pegs: int) -> tuple[int, ...]:
    holes = []
    for i in range(pegs, 0, -1):
        hole = i - 1
        while comb(hole + 1, i) <= index:
            hole += 1
        holes.append(hole)
        index -= comb(hole, i)
    return tuple(reversed(holes))


def rank_position(side: int, south, north, holes: int) -> int:
    pegs = len(south)
    squeezed = [hole - sum(1 for peg in south if peg < hole) for hole in north]
    first = side * comb(holes, pegs) + rank_set(south)
    return first * comb(holes - pegs, pegs) + rank_set(squeezed)


def unrank_position(index: int, holes: int, pegs: int) -> tuple[int, tuple, tuple]:
    first, north_rank = divmod(index, comb(holes - pegs, pegs))
    side, south_rank = divmod(first, comb(holes, pegs))
    south = unrank_set(south_rank, pegs)
    free = [hole for hole in range(holes) if hole not in south]
    north = tuple(free[i] for i in unrank_set(north_rank, pegs))
    return side, south, north


def successors(board: str, index: int) -> list[int] | None:
    holes, pegs = size(board)
    side, south, north = unrank_position(index, holes, pegs)
    position = position_at(board, side, south, north)
    if position is None:
        return None
    found = []
    for move in position.legal_moves:
        mine = south if side == 0 else north
        moved = [move.to_hole if hole == move.from_hole else hole for hole in mine]
        if side == 0:
            found.append(rank_position(1, moved, north, holes))
        else:
            found.append(rank_position(0, south, moved, holes))
    return found


REFERENCES: dict[str, Callable[..., Any]] = {
    "size": size,
    "position_at": position_at,
    "rank_set": rank_set,
    "unrank_set": unrank_set,
    "rank_position": rank_position,
    "unrank_position": unrank_position,
    "successors": successors,
}

# The 7x7 rhombus with three pegs: notebook 3's evaluation and move ordering.
SHAPE = sternhalma.Board(BIG)
TARGETS = [frozenset(SHAPE.triangle("north")), frozenset(SHAPE.triangle("south"))]
STEPS = [
    [min(SHAPE.distance(hole, t) for t in TARGETS[p]) for p in (0, 1)] for hole in range(len(SHAPE))
]
WIN = 1000


def travel(position: sternhalma.Position, player: int) -> int:
    return sum(STEPS[hole][player] for hole in position.player_pegs(player))


def evaluate(position: sternhalma.Position, player: int) -> float:
    outcome = position.outcome()
    if outcome.is_over:
        return WIN * outcome.results[player]
    return travel(position, 1 - player) - travel(position, player)


def ordered(position: sternhalma.Position) -> list[sternhalma.Move]:
    me = position.side_to_move

    def gain(move: sternhalma.Move) -> int:
        assert move.from_hole is not None and move.to_hole is not None  # no pass in this game
        return STEPS[move.from_hole][me] - STEPS[move.to_hole][me]

    return sorted(position.legal_moves, key=gain, reverse=True)


# ---- adapters: run in the student's process ------------------------------------------


def references(ns: dict[str, Any], *names: str) -> AbstractContextManager[None]:
    """The course's own `names` in the notebook's namespace for the block, the
    student's put back after it (so that a call graded here does not pay for a
    bug in another exercise's function)."""
    return lent(ns, {name: REFERENCES[name] for name in names})


def each(function: Callable[..., Any], cases: list[list[Any]]) -> Any:
    """`function(*case)` for each case (the course's `each`, arguments spread)."""
    return each_one(lambda case: function(*case), cases)


@course.adapter
def rank_sets(ns, sets):
    return each(ns["rank_set"], [[holes] for holes in sets])


@course.adapter
def unrank_sets(ns, cases):
    return each(ns["unrank_set"], cases)


@course.adapter
def rank_positions(ns, cases):
    with references(ns, "rank_set"):
        return each(ns["rank_position"], cases)


@course.adapter
def unrank_positions(ns, cases):
    with references(ns, "unrank_set"):
        return each(ns["unrank_position"], cases)


@course.adapter
def successors_of(ns, board, indices):
    names = ("size", "position_at", "rank_set", "unrank_set", "rank_position", "unrank_position")
    with references(ns, *names):
        return each(lambda index: ns["successors"](board, index), [[i] for i in indices])


@course.adapter
def solve(ns, graph):
    with references(ns, *REFERENCES):
        return ns["solve"](graph)


@course.adapter
def bot_step(ns, position, budget):
    return ns["StudentBot"](evaluate, ordered, budget).step(position)


# ---- helpers of the grader ---------------------------------------------------------------


def same(got: Any, want: Any) -> bool:
    """`got == want` for plain data, types and all (a bool is no int, a subclass no match)."""
    if want is None:
        return got is None
    if isinstance(want, (list, tuple)):
        return (
            type(got) in (list, tuple)
            and len(got) == len(want)
            and all(same(g, w) for g, w in zip(got, want))
        )
    return type(got) is type(want) and got == want


def batch(answer, function: str, count: int, label: Callable[[int], str]) -> list[Any]:
    """The answers of a call that ran `function` on `count` cases, one each; Failed naming the
    case where it raised (the message of a held-out case's error is not shown: it may hold
    the case)."""
    found = answer.value
    if isinstance(found, dict) and "case" in found:
        case = found.get("case")
        kind = str(found.get("type"))
        where = label(case) if isinstance(case, int) and 0 <= case < count else "a case"
        if kind == "BuiltinBarredError":
            raise Failed(f"{function} used a built-in search or table, barred here, on {where}")
        message = str(found.get("message", ""))
        said = f": {message}" if message and not where.startswith("held-out") else ""
        raise Failed(f"{function} raised {kind} on {where}{said}")
    if not isinstance(found, list) or len(found) != count:
        raise Failed(f"{function}: the grader's call did not answer one result a case")
    return found


def holes_of(got: Any) -> tuple[int, ...] | None:
    """A set of holes answered as a list or tuple of ints, as a tuple; None if it is not one."""
    if type(got) not in (list, tuple) or any(type(h) is not int for h in got):
        return None
    return tuple(got)


def offline(student: Student) -> None:
    """Starts the student's process without the network: no code of this notebook talks to a
    server while graded (a class's run, which lets notebook 5 reach the teacher's scratch
    server, passes that address to every notebook's run; a server with the solved tables
    would answer a bot's probes)."""
    if isinstance(student, RemoteStudent) and student.process is None:
        student.connect = []


# ---- parts: ranking --------------------------------------------------------------------


@course.part("test-rank-set")
def rank_set_part(student: Student, graded: bool) -> None:
    offline(student)
    examples = {(0, 1, 2): 0, (0, 1, 3): 1, (2, 5): 12, (5, 2): 12, (48,): 48, (46, 47, 48): 18423}
    # (label, holes, the rank expected, the rank in lexicographic order if known)
    cases: list[tuple[str, list[int], int, int | None]] = [
        (f"rank_set({list(given)})", list(given), want, None) for given, want in examples.items()
    ]
    cases += [
        (f"rank_set({list(s)})", list(s), rank_set(s), lexicographic)
        for lexicographic, s in enumerate(combinations(range(7), 3))
    ]
    if graded:
        rng = grading.held_out("nb8-rank-set")
        for k in range(4):
            n, p = rng.randrange(5, 13), rng.randrange(1, 5)
            for order, subset in enumerate(combinations(range(n), p)):
                shuffled = list(subset)
                rng.shuffle(shuffled)
                label = f"held-out set {len(cases)} (group {k})"
                cases.append((label, shuffled, rank_set(subset), order))
        for _ in range(200):
            drawn = rng.sample(range(121), rng.randrange(1, 11))
            label = f"held-out set {len(cases)} (of 121 holes)"
            cases.append((label, drawn, rank_set(drawn), None))
    answer = student.call("rank_sets", [holes for _, holes, _, _ in cases])
    got = batch(answer, "rank_set", len(cases), lambda i: cases[i][0])
    for (label, holes, want, lexicographic), rank in zip(cases, got):
        if same(rank, want):
            continue
        hint = ""
        if same(rank, lexicographic):
            hint = " (lexicographic order? the rank is the sum of comb(h_i, i + 1), holes sorted)"
        elif same(rank, sum(comb(h, i + 1) for i, h in enumerate(holes))):
            hint = " (the holes sorted first?)"
        elif same(rank, sum(comb(h, i) for i, h in enumerate(sorted(holes)))):
            hint = " (comb(h_i, i) instead of comb(h_i, i + 1)?)"
        if label.startswith("held-out"):
            raise Failed(f"rank_set on {label}: not its rank{hint}")
        raise Failed(f"{label}: {rank!r}, expected {want}{hint}")


@course.part("test-unrank-set")
def unrank_set_part(student: Student, graded: bool) -> None:
    offline(student)
    # (label, index, pegs, the set expected)
    cases: list[tuple[str, int, int, tuple[int, ...] | None]] = [
        ("unrank_set(12, 2)", 12, 2, (2, 5))
    ]
    cases += [(f"unrank_set({i}, 3)", i, 3, unrank_set(i, 3)) for i in range(35)]
    if graded:
        rng = grading.held_out("nb8-unrank-set")
        for k in range(4):
            n, p = rng.randrange(5, 13), rng.randrange(1, 5)
            cases += [
                (f"held-out index {len(cases) + i} (group {k})", i, p, None)
                for i in range(comb(n, p))
            ]
        for _ in range(200):
            subset = tuple(sorted(rng.sample(range(121), rng.randrange(1, 11))))
            label = f"held-out index {len(cases)} (of 121 holes)"
            cases.append((label, rank_set(subset), len(subset), subset))
    answer = student.call("unrank_sets", [[index, pegs] for _, index, pegs, _ in cases])
    got = batch(answer, "unrank_set", len(cases), lambda i: cases[i][0])
    for (label, index, pegs, _), holes in zip(cases, got):
        want = unrank_set(index, pegs)
        found = holes_of(holes)
        held = label.startswith("held-out")
        shown = f"unrank_set on {label}" if held else label
        answered = "" if held else f" {holes!r},"
        if found is None or len(found) != pegs:
            raise Failed(f"{shown}:{answered} not as many holes as pegs (a tuple of ints)")
        if found == want:
            continue
        if sorted(found) == list(want):
            raise Failed(f"{shown}:{answered} not sorted (the holes in increasing order)")
        hint = " (find the largest hole first: the largest h with comb(h, pegs) <= index)"
        if held:
            raise Failed(f"{shown}: a set whose rank is not the index{hint}")
        raise Failed(f"{shown}: {holes!r}, expected {want}{hint}")


def every_position(n: int, p: int) -> Iterator[tuple[int, tuple, tuple]]:
    for south in combinations(range(n), p):
        rest = [h for h in range(n) if h not in south]
        for north in combinations(rest, p):
            for side in (0, 1):
                yield side, south, north


def not_squeezed(side, south, north, n) -> int:
    p = len(south)
    return (side * comb(n, p) + rank_set(south)) * comb(n - p, p) + rank_set(north)


@course.part("test-rank-position")
def rank_position_part(student: Student, graded: bool) -> None:
    offline(student)
    # (label, side, south, north, holes)
    # (label, side, south, north, holes)
    cases: list[tuple[str, int, list[int], list[int], int]] = [
        ("rank_position(0, [48], [0], 49) (the start)", 0, [48], [0], 49),
        ("rank_position(1, [0], [48], 49)", 1, [0], [48], 49),
    ]
    cases += [
        (f"rank_position({side}, [{s}], [{m}], 49)", side, [s], [m], 49)
        for side in (0, 1)
        for s in range(49)
        for m in range(49)
        if s != m
    ]
    if graded:
        rng = grading.held_out("nb8-rank-position")
        for k, (n, p) in enumerate(rng.sample(CONFIGS, 3)):
            for side, south, north in every_position(n, p):
                s, m = list(south), list(north)
                rng.shuffle(s)
                rng.shuffle(m)
                label = f"held-out position {len(cases)} (group {k})"
                cases.append((label, side, s, m, n))
        for n, p in ((49, 3), (49, 2), (121, 10)):
            for _ in range(100):
                chosen = rng.sample(range(n), 2 * p)
                label = f"held-out position {len(cases)} (of {n} holes)"
                cases.append((label, rng.randrange(2), chosen[:p], chosen[p:], n))
    answer = student.call("rank_positions", [list(case[1:]) for case in cases])
    got = batch(answer, "rank_position", len(cases), lambda i: cases[i][0])
    for (label, side, souths, norths, n), index in zip(cases, got):
        want = rank_position(side, souths, norths, n)
        if same(index, want):
            continue
        hint = ""
        if same(index, rank_position(side, norths, souths, n)):
            hint = " (south's set and north's swapped?)"
        elif same(index, not_squeezed(side, souths, norths, n)):
            hint = " (north's holes not squeezed?)"
        elif same(index, rank_position(1 - side, souths, norths, n)):
            hint = " (the side counted the other way round?)"
        if label.startswith("held-out"):
            raise Failed(f"rank_position on {label}: not its index{hint}")
        raise Failed(f"{label}: {index!r}, expected {want}{hint}")


@course.part("test-unrank-position")
def unrank_position_part(student: Student, graded: bool) -> None:
    offline(student)
    cases = [("unrank_position(2304, 49, 1) (the start)", 2304, 49, 1)]
    cases += [(f"unrank_position({i}, 49, 1)", i, 49, 1) for i in range(0, 4704, 7)]
    if graded:
        rng = grading.held_out("nb8-unrank-position")
        for k, (n, p) in enumerate(rng.sample(CONFIGS, 3)):
            total = 2 * comb(n, p) * comb(n - p, p)
            cases += [
                (f"held-out index {len(cases) + i} (group {k})", i, n, p) for i in range(total)
            ]
    answer = student.call("unrank_positions", [list(case[1:]) for case in cases])
    got = batch(answer, "unrank_position", len(cases), lambda i: cases[i][0])
    for (label, index, n, p), found in zip(cases, got):
        side, south, north = want = unrank_position(index, n, p)
        held = label.startswith("held-out")
        shown = f"unrank_position on {label}" if held else label
        ok_shape = (
            type(found) in (list, tuple)
            and len(found) == 3
            and holes_of(found[1]) is not None
            and holes_of(found[2]) is not None
        )
        if not ok_shape:
            answered = "" if held else f" {found!r},"
            raise Failed(f"{shown}:{answered} not (side, south, north) with two tuples of holes")
        got_side, got_south, got_north = found[0], holes_of(found[1]), holes_of(found[2])
        assert got_south is not None and got_north is not None
        if same(got_side, side) and got_south == south and got_north == north:
            continue
        hint = ""
        if sorted(got_south) == list(south) and sorted(got_north) == list(north):
            hint = " (both sets sorted?)"
        elif got_south == south and same(got_side, side):
            hint = " (north's holes: the free holes left by south, renumbered, then unsqueezed?)"
        elif (got_south, got_north) == (north, south):
            hint = " (south's set and north's swapped?)"
        if held:
            raise Failed(f"{shown}: not the position of that index{hint}")
        raise Failed(f"{shown}: {list(found)!r}, expected {want}{hint}")


# ---- parts: successors -----------------------------------------------------------------


def children(position: sternhalma.Position, side: int, n: int) -> list[int]:
    return sorted(
        rank_position(side, c.player_pegs(0), c.player_pegs(1), n)
        for c in (position.play(move) for move in position.legal_moves)
    )


@course.part("test-successors")
def successors_part(student: Student, graded: bool) -> None:
    offline(student)
    # (board, what the case is if visible, the indices)
    checks: list[tuple[str, str | None, list[int]]] = [
        (BOARD, "the start (index 2304)", [2304]),
        (BOARD, "south to move on north's corner (illegal)", [rank_position(0, [0], [20], 49)]),
        (BOARD, "north to move, south has won", [rank_position(1, [0], [20], 49)]),
    ]
    if graded:
        rng = grading.held_out("nb8-successors")
        for board in [*rng.sample(GAMES, 2), "rhombus4p2"]:
            n, p = size(board)
            total = 2 * comb(n, p) * comb(n - p, p)
            indices = list(range(total)) if total < 5000 else rng.sample(range(total), 1500)
            checks.append((board, None, indices))
    for number, (board, label, indices) in enumerate(checks):
        answer = student.call("successors_of", board, indices)

        def name(i: int, board=board, label=label, number=number, indices=indices) -> str:
            if label is not None:
                return f"successors({board!r}, {indices[i]}), {label}"
            return f"held-out position {i} of held-out board {number - 3}"

        got = batch(answer, "successors", len(indices), name)
        n, p = size(board)
        for i, (index, found) in enumerate(zip(indices, got)):
            side, south, north = unrank_position(index, n, p)
            position = position_at(board, side, south, north)
            shown = name(i)
            if position is None:
                if found is not None:
                    raise Failed(f"{shown}: not None, but it is illegal: None expected")
                continue
            want = children(position, 1 - side, n)
            if found is None:
                raise Failed(f"{shown}: None, but it is legal (None only where position_at is)")
            if type(found) not in (list, tuple) or any(type(j) is not int for j in found):
                raise Failed(f"{shown}: not a list of indices")
            if sorted(found) == want:
                continue
            hint = ""
            if sorted(found) == children(position, side, n):
                hint = " (the side to move not switched?)"
            elif sorted(set(found)) == sorted(set(want)):
                hint = " (one index per legal move, repeats included)"
            elif not want:
                hint = " (the game is over: no legal move, no successor)"
            if label is None:
                raise Failed(f"successors on {shown}: not the positions its moves lead to{hint}")
            raise Failed(f"{shown}: {sorted(found)}, expected {want} in any order{hint}")


# ---- parts: value iteration ------------------------------------------------------------


def value_iteration(graph, in_place: bool = False, any_won: bool = False) -> tuple[list, list]:
    """The notebook's value iteration: (values, depths). `in_place` writes each proof as soon
    as it is found, so later positions of the same round read it (a Gauss-Seidel sweep);
    `any_won` makes a position lost as soon as one successor is won (the bug)."""
    values: list = [None] * len(graph)
    depths: list = [None] * len(graph)
    for i, moves in enumerate(graph):
        if moves == []:
            values[i], depths[i] = "loss", 0
    unknown = [i for i, moves in enumerate(graph) if moves]
    rounds = 0
    while True:
        rounds += 1
        proven = {}
        for i in unknown:
            after = [values[j] for j in graph[i]]
            if "loss" in after:
                value = "win"
            elif ("win" in after) if any_won else all(v == "win" for v in after):
                value = "loss"
            else:
                continue
            proven[i] = value
            if in_place:
                values[i], depths[i] = value, rounds
        if not proven:
            break
        for i, value in proven.items():
            values[i], depths[i] = value, rounds
        unknown = [i for i in unknown if i not in proven]
    for i in unknown:
        values[i] = "draw"
    return values, depths


def graph_by_dictionary(board: str) -> tuple[list[list[int]], list[sternhalma.Position]]:
    """The notebook's `checked` and `checked_positions`: the legal positions numbered by a
    dictionary, in the order they are met."""
    holes, pegs = size(board)
    positions = []
    for side in (0, 1):
        for south in combinations(range(holes), pegs):
            free = [hole for hole in range(holes) if hole not in south]
            for north in combinations(free, pegs):
                position = position_at(board, side, south, north)
                if position is not None:
                    positions.append(position)

    def key(position):
        return position.side_to_move, *(tuple(sorted(position.player_pegs(i))) for i in (0, 1))

    number = {key(position): i for i, position in enumerate(positions)}
    graph = [[number[key(p.play(move))] for move in p.legal_moves] for p in positions]
    return graph, positions


def graph_by_rank(board: str) -> tuple[list, list]:
    """The graph of `board` indexed by rank (None where illegal), and each index's position."""
    n, p = size(board)
    total = 2 * comb(n, p) * comb(n - p, p)
    graph: list = [None] * total
    at: list = [None] * total
    for index in range(total):
        side, south, north = unrank_position(index, n, p)
        position = position_at(board, side, south, north)
        if position is not None:
            at[index] = position
            graph[index] = [
                rank_position(1 - side, c.player_pegs(0), c.player_pegs(1), n)
                for c in (position.play(move) for move in position.legal_moves)
            ]
    return graph, at


@cache
def game(board: str, by_rank: bool) -> tuple[list, list, list]:
    """A game's graph, and the values and depths of its positions, read off the engine's table."""
    graph, at = graph_by_rank(board) if by_rank else graph_by_dictionary(board)
    table = sternhalma.Tablebase.load(board, progress=False)
    values: list = [None] * len(graph)
    depths: list = [None] * len(graph)
    for i, position in enumerate(at):
        if position is not None:
            probe = table.probe(position)
            values[i], depths[i] = str(probe.value.value), probe.depth
    return graph, values, depths


def renumbered(rng: random.Random, graph: list, *solution: list) -> tuple[list, ...]:
    """`graph` with its positions numbered in an order drawn with `rng` (each list of
    successors shuffled too), and each list of `solution` in the same order."""
    order = list(range(len(graph)))
    rng.shuffle(order)  # order[old] = new
    new: list = [None] * len(graph)
    for old, moves in enumerate(graph):
        if moves is not None:
            moved = [order[j] for j in moves]
            rng.shuffle(moved)
            new[order[old]] = moved
    out = [new]
    for values in solution:
        renamed: list = [None] * len(values)
        for old, value in enumerate(values):
            renamed[order[old]] = value
        out.append(renamed)
    return tuple(out)


def graph_of_nothing(rng: random.Random) -> list:
    """A random graph of no game: 5 to 59 positions, about one in ten illegal, 0 to 3
    successors each (repeats and loops allowed)."""
    size_of_graph = rng.randrange(5, 60)
    legal = [i for i in range(size_of_graph) if rng.random() < 0.9]
    graph: list = [None] * size_of_graph
    for i in legal:
        graph[i] = [rng.choice(legal) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))]
    return graph


@dataclass
class Case:
    """A graph `solve` is graded on: its name in the feedback, and the truth."""

    name: str
    graph: list
    values: list
    depths: list

    def where(self, i: int) -> str:
        return f"{self.name}, position {i}"


def notebook_game() -> Case:
    graph, values, depths = game(BOARD, False)
    return Case("solve on the notebook's game (`checked`)", graph, values, depths)


def tiny() -> Case:
    values, depths = value_iteration(TINY)
    return Case(f"solve({TINY})", TINY, values, depths)


def held_out_games(name: str, count: int) -> list[Case]:
    rng = grading.held_out(name)
    found = []
    for k, board in enumerate(rng.sample(GAMES, count)):
        graph, values, depths = renumbered(rng, *game(board, True))
        found.append(Case(f"solve on held-out game {k}", graph, values, depths))
    return found


def held_out_graphs(name: str, count: int) -> list[Case]:
    rng = grading.held_out(name)
    found = []
    for k in range(count):
        graph = graph_of_nothing(rng)
        values, depths = value_iteration(graph)
        found.append(Case(f"solve on held-out graph {k}", graph, values, depths))
    return found


def solved(student: Student, case: Case) -> tuple[list, list]:
    """The student's (values, depths) on `case`, checked for shape."""
    answer = student.call("solve", case.graph)
    found = answer.value
    if (
        type(found) not in (list, tuple)
        or len(found) != 2
        or any(type(x) not in (list, tuple) or len(x) != len(case.graph) for x in found)
    ):
        raise Failed(
            f"{case.name}: solve must return (values, depths), two lists as long as the graph"
        )
    return list(found[0]), list(found[1])


def misjudged(case: Case, values: list) -> int | None:
    """The first position whose value the values part rejects: a won, lost or illegal
    position's value not the truth's, or a drawn one's said won or lost (a drawn
    position's label, "draw", is the draws part's). None if none."""
    for i, moves in enumerate(case.graph):
        want, got = case.values[i], values[i]
        if moves is None:
            if got is not None:
                return i
        elif want in ("win", "loss"):
            if not same(got, want):
                return i
        elif same(got, "win") or same(got, "loss"):
            return i
    return None


def rule_broken(case: Case, values: list, i: int) -> str:
    """What the value of position `i` breaks, read against its successors' values as given."""
    moves, got = case.graph[i], values[i]
    if moves is None:
        return f"illegal, but its value is {got!r}, not None"
    after = [values[j] for j in moves]
    if not any(same(got, v) for v in ("win", "loss", "draw")):
        return f"value {got!r}: 'win', 'loss' or 'draw' expected"
    if same(got, "loss") and not all(same(v, "win") for v in after):
        return "lost, with a successor not won: a loss needs every successor won"
    if same(got, "win") and not any(same(v, "loss") for v in after):
        return "won, with no successor lost: a win needs a lost successor"
    if same(got, "draw") and (
        any(same(v, "loss") for v in after) or all(same(v, "win") for v in after)
    ):
        return "drawn, but a successor is lost or every one is won: not a draw"
    return ""


@course.part("test-solve-values")
def solve_values(student: Student, graded: bool) -> None:
    offline(student)
    cases = [notebook_game(), tiny()]
    if graded:
        cases += held_out_games("nb8-solve-values", 3)
        cases += held_out_graphs("nb8-solve-values-graphs", 30)
    for case in cases:
        values, _ = solved(student, case)
        i = misjudged(case, values)
        if i is None:
            continue
        got, want = values[i], case.values[i]
        if want == "draw":
            want = "a draw"
        hint = ""
        if values == value_iteration(case.graph, any_won=True)[0]:
            hint = " (lost as soon as one successor is won? a loss needs every successor won)"
        elif broken := rule_broken(case, values, i):
            hint = f" (it is {broken})"
        raise Failed(f"{case.where(i)}: {got!r}, expected {want!r}{hint}")


def answers(student: Student, cases: list[Case]) -> tuple[list[tuple[list, list]], bool]:
    """The student's (values, depths) on each case, and whether some value is wrong (what the
    values part grades: won, lost or illegal) on one of them."""
    found = [solved(student, case) for case in cases]
    return found, any(
        misjudged(case, values) is not None for case, (values, _) in zip(cases, found)
    )


def looked_at(case: Case, drawn: bool, some: bool) -> list[int]:
    """The positions the depths part (`drawn` False: the won and lost ones) or the draws part
    (`drawn` True: every legal one) checks: all of them when the student's values are right
    (`some` False), else only those whose answer the commonest values bug (a loss as soon as
    one successor is won) leaves right, so that a wrong value is charged to the values part
    alone."""
    legal = [i for i, moves in enumerate(case.graph) if moves is not None]
    if not drawn:
        legal = [i for i in legal if case.values[i] != "draw"]
    if not some:
        return legal
    values_bug, depths_bug = value_iteration(case.graph, any_won=True)
    if drawn:
        return [i for i in legal if values_bug[i] == case.values[i]]
    return [i for i in legal if values_bug[i] == case.values[i] and depths_bug[i] == case.depths[i]]


SOME_CHECKED = " (some values are wrong, see the values part: the positions checked here are those"
SOME_CHECKED += " whose answer does not hinge on them)"


@course.part("test-solve-depths")
def solve_depths(student: Student, graded: bool) -> None:
    offline(student)
    cases = [notebook_game(), tiny()]
    if graded:
        cases += held_out_games("nb8-solve-depths", 2)
        cases += held_out_graphs("nb8-solve-depths-graphs", 30)
    found, some = answers(student, cases)
    for case, (values, depths) in zip(cases, found):
        checked = looked_at(case, drawn=False, some=some)
        wrong = [
            i
            for i in checked
            if not (same(values[i], case.values[i]) and same(depths[i], case.depths[i]))
        ]
        if not wrong:
            continue
        i = wrong[0]
        hint = ""
        in_place = value_iteration(case.graph, in_place=True)[1]
        ints = all(type(depths[j]) is int for j in checked)
        if all(same(depths[j], in_place[j]) for j in checked) or (
            ints
            and all(same(values[j], case.values[j]) for j in checked)
            and all(depths[j] <= case.depths[j] for j in checked)
        ):
            hint = (
                " (values updated in place during a round? a round uses only the values proven"
                " in the rounds before it: note the round's proofs, then write them all)"
            )
        elif ints and len({depths[j] - case.depths[j] for j in checked}) == 1:
            hint = (
                " (a depth off by one? the positions with no successor have depth 0, those"
                " proven in round r depth r)"
            )
        elif same(values[i], case.values[i]):
            kind = "quickest lost" if case.values[i] == "win" else "slowest won"
            hint = f" (one more than its {kind} successor's depth)"
        shown = f"{values[i]!r} in {depths[i]!r}, expected {case.values[i]!r} in {case.depths[i]}"
        raise Failed(f"{case.where(i)}: {shown}{hint}{SOME_CHECKED if some else ''}")


@course.part("test-solve-draws")
def solve_draws(student: Student, graded: bool) -> None:
    offline(student)
    cases = [tiny()]
    if graded:
        cases += held_out_graphs("nb8-solve-draws", 30)
    found, some = answers(student, cases)
    for case, (values, depths) in zip(cases, found):
        checked = looked_at(case, drawn=True, some=some)
        for i in checked:
            drawn = case.values[i] == "draw"
            if drawn and not same(values[i], "draw"):
                message = (
                    f"{values[i]!r}, expected 'draw' (a position no round proves is drawn:"
                    " what is left unknown at the fixed point)"
                )
            elif drawn and depths[i] is not None:
                message = f"a draw in {depths[i]!r}: a draw has no depth (None)"
            elif not drawn and same(values[i], "draw"):
                message = f"'draw', but it is {case.values[i]!r} (the rounds prove it)"
            else:
                continue
            raise Failed(f"{case.where(i)}: {message}{SOME_CHECKED if some else ''}")


# ---- parts: the bot refereed -------------------------------------------------------------


@cache
def big_table() -> sternhalma.Tablebase:
    """The solved 7x7 game with three pegs (values only), from the tables' folder."""
    return sternhalma.Tablebase.load(BIG, progress=False)


def big_start() -> sternhalma.Position:
    return sternhalma.Position.start(board=BIG, rules="sturtevant")


def keeps_value(position: sternhalma.Position, move: sternhalma.Move) -> bool:
    moves = big_table().moves(position)
    return next((m.value for m in moves if m.move == move), None) == moves[0].value


def noisy_game(rng: random.Random, stop=lambda position: False) -> list[sternhalma.Position]:
    position, seen = big_start(), []
    noise, greedy = rng.choice((0.1, 0.3, 0.5)), sternhalma.Bot("greedy", seed=rng.randrange(10**6))
    while not position.is_game_over() and not stop(position):
        seen.append(position.copy())
        if rng.random() < noise:
            position.push(rng.choice(position.legal_moves))
        else:
            position.push(greedy.step(position))
    return seen


def wins_within(position: sternhalma.Position, plies: int) -> bool:
    if plies < 1:
        return False
    winning = [m.move for m in big_table().moves(position) if m.value == "win"]
    if any(position.play(move).is_game_over() for move in winning):
        return True
    return plies >= 3 and any(
        all(wins_within(child.play(reply), plies - 2) for reply in child.legal_moves)
        for child in (position.play(move) for move in winning)
    )


def wins_in(rng: random.Random, count: int, plies: int = 5) -> list[sternhalma.Position]:
    """The notebook's positions near the end of noisy games whose quickest forced win for the
    side to move takes exactly `plies` plies."""
    found: list[sternhalma.Position] = []
    while len(found) < count:
        seen = noisy_game(rng)
        late = [p for p in seen if travel(p, 0) + travel(p, 1) < 16]
        if late:
            position = rng.choice(late)
            moves = big_table().moves(position)
            if (
                moves[0].value == "win"
                and moves[-1].value != "win"
                and wins_within(position, plies)
                and not wins_within(position, plies - 2)
            ):
                found.append(position)
    return found


class OutOfBudget(Exception):
    pass


def reference_step(position: sternhalma.Position, budget: int) -> tuple[sternhalma.Move, set]:
    """The notebook's StudentBot.step: its move, and the positions (by hash) its searches
    made in the depths it completed."""
    work = position.copy()
    nodes = 0
    made: set[int] = set()

    def push(move: sternhalma.Move) -> None:
        nonlocal nodes
        if nodes >= budget:
            raise OutOfBudget
        nodes += 1
        work.push(move)
        made.add(work.zobrist_hash)

    def search(depth: int, alpha: float, beta: float) -> float:
        if depth == 0 or work.is_game_over():
            return evaluate(work, work.side_to_move)
        best = -float("inf")
        for move in ordered(work):
            push(move)
            best = max(best, -search(depth - 1, -beta, -alpha))
            work.pop()
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    moves = ordered(work)
    best_move = moves[0]
    completed: set[int] = set()
    for depth in range(1, 61):
        try:
            best_value, choice = -float("inf"), best_move
            for move in [best_move, *(m for m in moves if m != best_move)]:
                push(move)
                value = -search(depth - 1, -float("inf"), -best_value)
                work.pop()
                if value > best_value:
                    best_value, choice = value, move
        except OutOfBudget:
            break
        completed |= made
        best_move = choice
        if best_value >= WIN:
            break
    return best_move, completed


def unchanged(answer, case: sternhalma.Position, what: str) -> None:
    if answer.after != [(str(case), 0)]:
        raise Failed(f"{what} changed the position it was given: search a copy")


@course.part("test-bot-legal")
def bot_legal(student: Student, graded: bool) -> None:
    offline(student)
    # Four steps from the start, each from the position the moves before it made.
    checks: list[tuple[str, sternhalma.Position | None, int]] = [("the start", None, 300)] * 4
    if graded:
        rng = grading.held_out("nb8-bot-legal")
        for i in range(6):
            case = grading.opening(big_start(), rng.randrange(2, 40), rng)
            for budget in (50, 137, 1000, rng.randrange(20, 3000)):
                checks.append((f"held-out position {i}", case, budget))
    probe = big_start()
    for name, given, budget in checks:
        case = probe.copy() if given is None else given
        label = f"ply {probe.ply} from the start" if given is None else name
        what = f"StudentBot.step ({budget} nodes) at {label}"
        answer = student.call("bot_step", case, budget, trace=True)
        move = answer.value
        if not isinstance(move, sternhalma.Move) or move not in case.legal_moves:
            raise Failed(f"{what}: {move!r} is not a legal move")
        unchanged(answer, case, what)
        if answer.positions > budget:
            raise Failed(
                f"{what} made {answer.positions} positions: over its budget of {budget} nodes"
                " (check the budget before each push, not between depths)"
            )
        if answer.positions == 0:
            raise Failed(f"{what} made no position: it must search")
        first = {case.play(m).zobrist_hash for m in case.legal_moves}
        if budget >= len(first) and not first <= answer.made():
            raise Failed(
                f"{what} did not make the position of every legal move: depth 1 fits in its"
                " budget, and its search must try every move"
            )
        if label.startswith("ply"):
            probe.push(move)


def within(position: sternhalma.Position, plies: int, into: set[int]) -> set[int]:
    """The positions (by hash) at most `plies` plies below `position`."""
    if plies > 0 and not position.is_game_over():
        for move in position.legal_moves:
            child = position.play(move)
            into.add(child.zobrist_hash)
            within(child, plies - 1, into)
    return into


@course.part("test-bot-win-proven")
def bot_win_proven(student: Student, graded: bool) -> None:
    offline(student)
    checks = [("the visible win at once", case, 1) for case in wins_in(random.Random(8), 1, 1)]
    checks += [("the visible win in three", case, 3) for case in wins_in(random.Random(8), 1, 3)]
    if graded:
        rng = grading.held_out("nb8-bot-win-proven")
        found = wins_in(rng, 5, plies=1)
        checks += [(f"held-out win at once {i}", case, 1) for i, case in enumerate(found)]
        found = wins_in(rng, 5, plies=3)
        checks += [(f"held-out win in three {i}", case, 3) for i, case in enumerate(found)]
    for label, case, plies in checks:
        what = f"StudentBot.step (10,000 nodes) on {label}"
        answer = student.call("bot_step", case, 10_000, trace=True)
        move = answer.value
        if not isinstance(move, sternhalma.Move) or move not in case.legal_moves:
            raise Failed(f"{what}: {move!r} is not a legal move")
        stop = (
            f": stop deepening once a depth's best value is WIN or more (depth {plies} proves"
            " this win)"
        )
        if plies == 1:
            after = case.play(move)
            if not (after.is_game_over() and after.outcome().winner == case.side_to_move):
                raise Failed(f"{what} played {move}, not a win at once")
            if after.zobrist_hash not in answer.made():
                raise Failed(f"{what} played {move} without making its position: search for it")
            moves = len(case.legal_moves)
            if answer.positions > moves:
                raise Failed(
                    f"{what} made {answer.positions} positions, more than depth 1 ({moves}"
                    f" positions){stop}"
                )
        else:
            if not keeps_value(case, move):
                raise Failed(f"{what} played {move}, which throws the win away")
            if not answer.made() <= within(case, plies, set()):
                raise Failed(f"{what} made positions more than {plies} plies deep{stop}")


@course.part("test-bot-accuracy")
def bot_accuracy(student: Student, graded: bool) -> None:
    offline(student)
    budget = 10_000
    groups = [("of 50 wins in five", wins_in(random.Random(5), 50), 49)]
    if graded:
        groups.append(
            (
                "of 200 held-out wins in five",
                wins_in(grading.held_out("nb8-bot-accuracy"), 200),
                198,
            )
        )
    for label, cases, needed in groups:
        kept = over = covered = searched = 0
        for case in cases:
            answer = student.call("bot_step", case, budget, trace=True)
            move = answer.value
            _, completed = reference_step(sternhalma.Position(str(case)), budget)
            covered += len(completed & answer.made())
            searched += len(completed)
            if answer.positions > budget:
                over += 1  # a miss here; the budget itself is test-bot-legal's
            elif isinstance(move, sternhalma.Move) and move in case.legal_moves:
                kept += keeps_value(case, move)
        if covered < 0.9 * searched:
            raise Failed(
                f"StudentBot at {budget:,} nodes on the positions {label}: its searches made"
                f" {covered / max(searched, 1):.0%} of the positions alpha-beta makes in the"
                " depths it completes (90% needed): alpha-beta in negamax form, the moves in"
                " `ordered` order, the previous depth's best move first"
            )
        if kept < needed:
            spent = f"; {over} steps over the budget" if over else ""
            raise Failed(
                f"StudentBot at {budget:,} nodes kept the win in {kept} {label} ({needed}"
                f" needed{spent}): does it complete depth 5 (alpha-beta, moves in `ordered`"
                " order)?"
            )
