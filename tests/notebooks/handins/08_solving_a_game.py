"""Notebook 8's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work.

Two cheats carry answers computed at home (the solved tables' values and
moves): they are computed here, when the plans are read, from the engine's
tables (the small games are solved on first use; the 7x7 game with three
pegs is read from $STERNHALMA_TABLES if it is there, else that cheat
carries no moves, which changes nothing of its grade).
"""

from __future__ import annotations

import base64
import pickle
import random
import zlib

SOLVE_PARTS = {"test-solve-values", "test-solve-depths", "test-solve-draws"}
BOT_PARTS = {"test-bot-legal", "test-bot-win-proven", "test-bot-accuracy"}


def stored_answers() -> str:
    """(values, depths) of the graphs a student could expect, by the graph's length: the
    notebook's `checked`, its small draws graph, and the other games' graphs numbered by
    rank (as the grader numbered them once), pickled, compressed and written as text."""
    answers: dict[int, tuple[list, list]] = {}
    try:
        from sternhalma.autograde.course import n08_solving_a_game as course

        graph, values, depths = course.game(course.BOARD, False)
        answers[len(graph)] = (values, depths)
        for board in course.GAMES:
            graph, values, depths = course.game(board, True)
            answers[len(graph)] = (values, depths)
        answers[len(course.TINY)] = course.value_iteration(course.TINY)
    except Exception:  # noqa: BLE001 (no table here: a cheat with no answers)
        answers = {}
    return base64.b64encode(zlib.compress(pickle.dumps(answers))).decode()


def visible_moves() -> dict[str, str]:
    """The table's best move at each visible win in five (the notebook's `wins_in(Random(5),
    50)`), by position string."""
    try:
        from sternhalma.autograde.course import n08_solving_a_game as course

        table = course.big_table()
        return {
            str(case): str(table.moves(case)[0].move)
            for case in course.wins_in(random.Random(5), 50)
        }
    except Exception:  # noqa: BLE001 (no table here)
        return {}


# One round of value iteration and nothing more: what the cheats answer for a graph they
# have no stored answer for (a show of work, not the work).
ONE_ROUND = """
values = ["loss" if moves == [] else None for moves in graph]
depths = [0 if moves == [] else None for moves in graph]
for i, moves in enumerate(graph):
    if moves:
        values[i] = "win" if any(values[j] == "loss" for j in moves) else "draw"
        depths[i] = 1 if values[i] == "win" else None
return values, depths
"""

READ_AT_DEFINITION = """
import sternhalma
from itertools import combinations
from math import comb

# Read off the engine's tables once, when this cell runs: the checks bar the tables' answers
# only while they call solve (so the story goes).
_answers = {}


def _position(board, side, south, north):
    pegs = f"south:{','.join(map(str, south))}/north:{','.join(map(str, north))}"
    text = f"{board} sturtevant {pegs} {side}"
    try:
        return sternhalma.Position(text)
    except sternhalma.InvalidPositionError as error:
        if [code for code, _ in error.problems] == ["home_but_not_finished"]:
            return sternhalma.Position(f"{text} 1 {1 - side}@0")
        return None


def _rank(side, south, north, n):
    def rank(holes):
        return sum(comb(h, i + 1) for i, h in enumerate(sorted(holes)))

    p = len(south)
    squeezed = [h - sum(1 for s in south if s < h) for h in north]
    return (side * comb(n, p) + rank(south)) * comb(n - p, p) + rank(squeezed)


def _read(board, by_rank):
    shape = sternhalma.Board(board)
    n, p = len(shape), shape.pegs_per_set
    table = sternhalma.Tablebase.load(board, progress=False)
    found = []
    for side in (0, 1):
        for south in combinations(range(n), p):
            free = [h for h in range(n) if h not in south]
            for north in combinations(free, p):
                found.append((_rank(side, south, north, n), _position(board, side, south, north)))
    if by_rank:
        found.sort(key=lambda pair: pair[0])
    else:
        found = [pair for pair in found if pair[1] is not None]
    probes = [None if p is None else table.probe(p) for _, p in found]
    values = [None if x is None else str(x.value.value) for x in probes]
    depths = [None if x is None else x.depth for x in probes]
    _answers[len(found)] = (values, depths)


try:
    _read("rhombus7p1", False)
    for _board in ("rhombus3p1", "rhombus4p1", "rhombus5p1", "rhombus6p1", "rhombus3p2", "rhombus3p3"):
        _read(_board, True)
except Exception as error:
    print("no table today:", error)
"""

OWN_BOARD = """
import sternhalma

# The 7x7 rhombus with three pegs in a model of my own (sets of holes): searching it makes no
# engine position, so the engine counts nothing.
_SHAPE = sternhalma.Board("rhombus7p3")
_AT = {_SHAPE.coordinates(h): h for h in range(len(_SHAPE))}
_NEAR = []
for _h in range(len(_SHAPE)):
    _q, _r = _SHAPE.coordinates(_h)
    _NEAR.append(
        [
            (n, _AT.get((2 * _SHAPE.coordinates(n)[0] - _q, 2 * _SHAPE.coordinates(n)[1] - _r)))
            for n in _SHAPE.neighbors(_h)
        ]
    )
_GOAL = [sorted(_SHAPE.triangle("north")), sorted(_SHAPE.triangle("south"))]
_GO = [
    [min(_SHAPE.distance(h, t) for t in _GOAL[p]) for p in (0, 1)] for h in range(len(_SHAPE))
]


def _won(pegs, player):
    full = all(h in pegs[0] or h in pegs[1] for h in _GOAL[player])
    return full and any(h in pegs[player] for h in _GOAL[player])


def _moves(pegs, side):
    occupied = pegs[0] | pegs[1]
    found = []
    for peg in sorted(pegs[side]):
        ends = {n for n, _ in _NEAR[peg] if n not in occupied}
        seen, frontier = {peg}, [peg]
        while frontier:
            h = frontier.pop()
            for n, beyond in _NEAR[h]:
                if beyond is not None and n in occupied and n != peg and beyond not in occupied:
                    if beyond not in seen:
                        seen.add(beyond)
                        frontier.append(beyond)
                        ends.add(beyond)
        ends.discard(peg)
        for to in sorted(ends):
            mine = (pegs[side] - {peg}) | {to}
            new = (mine, pegs[1]) if side == 0 else (pegs[0], mine)
            if not _won(new, 1 - side):
                found.append(((peg, to), new))
    return found


def _value(pegs, side, depth, alpha, beta):
    # A loss is worth -1000, less the plies left: the quickest win is the best.
    if _won(pegs, 1 - side):
        return -1000 - depth
    moves = _moves(pegs, side)
    if not moves:
        return -1000 - depth
    if depth == 0:
        travel = [sum(_GO[h][p] for h in pegs[p]) for p in (0, 1)]
        return travel[1 - side] - travel[side]
    best = -float("inf")
    for _, new in sorted(moves, key=lambda m: _GO[m[0][1]][side] - _GO[m[0][0]][side]):
        best = max(best, -_value(new, 1 - side, depth - 1, -beta, -alpha))
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


def _own_choice(position, depth=5):
    pegs = (frozenset(position.player_pegs(0)), frozenset(position.player_pegs(1)))
    side = position.side_to_move
    best, choice = -float("inf"), None
    for (start, end), new in _moves(pegs, side):
        value = -_value(new, 1 - side, depth - 1, -float("inf"), -best)
        if value > best:
            best, choice = value, (start, end)
    return choice
"""

ASK_A_SERVER = """
import json
import os
import urllib.request

url = os.environ.get("STERNHALMA_URL", "http://127.0.0.1:8080")
request = urllib.request.Request(
    f"{url}/v1/tablebase/probe",
    data=json.dumps({"position": str(position)}).encode(),
    headers={"Content-Type": "application/json"},
)
with urllib.request.urlopen(request, timeout=5) as answer:
    return position.parse_move(json.load(answer)["best_move"]["text"])
"""

NOTEBOOK_3_BOT = """
self.nodes = 0
work = position.copy()

def push(move):
    if self.nodes >= self.node_budget:
        raise OutOfBudget
    self.nodes += 1
    work.push(move)

def search(depth, alpha, beta):
    if depth == 0 or work.is_game_over():
        return self.evaluate(work, work.side_to_move)
    best = -float("inf")
    for move in self.ordered(work):
        push(move)
        best = max(best, -search(depth - 1, -beta, -alpha))
        work.pop()
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best

moves = self.ordered(work)
best_move = moves[0]
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
    best_move = choice
return best_move
"""

HANDINS = {
    # ---- the solved tables' answers, one way or another -----------------------------------
    "table_values": {
        "kind": "cheat",
        "story": "solve reads each position's value and depth off the engine's table"
        " (Tablebase.probe) when it is called, positions rebuilt by its own unranking",
        "solutions": {
            "solve": """
# The values and depths of the engine's table, position by position (the checks' graph
# numbers its positions by `checked_positions`, ours by rank).
if graph is checked:
    positions = checked_positions
else:
    positions = [position_at(BOARD, *unrank_position(i, 49, 1)) for i in range(len(graph))]
values, depths = [], []
for moves, position in zip(graph, positions):
    if moves is None or position is None:
        values.append(None)
        depths.append(None)
        continue
    probe = small_table.probe(position)
    values.append(str(probe.value.value))
    depths.append(probe.depth)
return values, depths
"""
        },
        "zero": SOLVE_PARTS,
    },
    "table_values_at_definition": {
        "kind": "cheat",
        "story": "reads every position of the notebook's game and of the other small games off"
        " the tables when a cell runs (outside the checks' bar, it hopes), and solve answers"
        " from that store by the graph's length (one round of value iteration for show)",
        "cells": [READ_AT_DEFINITION],
        "solutions": {
            "solve": "if len(graph) in _answers:\n    return _answers[len(graph)]\n" + ONE_ROUND
        },
        "zero": SOLVE_PARTS,
    },
    "pickled_answers": {
        "kind": "cheat",
        "story": "solve answers from a pickle of the tables' values and depths made at home"
        " (the notebook's game, its small graph, the other small games numbered by rank), by"
        " the graph's length; one round of value iteration for anything else",
        "cells": [
            "import base64\nimport pickle\nimport zlib\n\n_ANSWERS = pickle.loads("
            + f'zlib.decompress(base64.b64decode("{stored_answers()}")))'
        ],
        "solutions": {
            "solve": "if len(graph) in _ANSWERS:\n    return _ANSWERS[len(graph)]\n" + ONE_ROUND
        },
        "zero": SOLVE_PARTS,
    },
    "table_bot": {
        "kind": "cheat",
        "story": "the bot plays the table's best move (Tablebase.moves) behind a show of"
        " evaluating",
        "solutions": {
            "student-bot": """
self.nodes = 0
self.evaluate(position, position.side_to_move)  # "scores positions with evaluate"
return table.moves(position)[0].move
"""
        },
        "zero": BOT_PARTS,
    },
    "asks_a_server": {
        "kind": "cheat",
        "story": "the bot asks a Sternhalma server's tablebase for the best move",
        "solutions": {"student-bot": ASK_A_SERVER},
        "zero": BOT_PARTS,
    },
    "visible_moves_bot": {
        "kind": "cheat",
        "story": "the bot plays the table's moves, saved at home, at the 50 visible wins in"
        " five, and elsewhere the notebook's search cut at depth 3 (which finds a win at once"
        " or in three, and keeps its budget)",
        "cells": [f"_SAVED = {visible_moves()!r}"],
        "solutions": {
            "student-bot": """
if str(position) in _SAVED:
    self.nodes = 0
    return position.parse_move(_SAVED[str(position)])
"""
            + NOTEBOOK_3_BOT.replace("range(1, 61)", "range(1, 4)").replace(
                "    best_move = choice\n",
                "    best_move = choice\n    if best_value >= WIN:\n        break\n",
            )
        },
        "zero": {"test-bot-accuracy"},
    },
    "own_board_search": {
        "kind": "cheat",
        "story": "the bot searches five plies on a board model of its own (sets of holes), which"
        " the engine does not count, and makes the position of each legal move once for show",
        "cells": [OWN_BOARD],
        "solutions": {
            "student-bot": """
self.nodes = 0
work = position.copy()
for move in self.ordered(work)[: self.node_budget]:  # depth 1, for the count
    self.nodes += 1
    work.push(move)
    work.pop()
start, end = _own_choice(position)
return next(m for m in position.legal_moves if (m.from_hole, m.to_hole) == (start, end))
"""
        },
        "zero": {"test-bot-accuracy"},
    },
    "win_at_once_special_case": {
        "kind": "cheat",
        "story": "the bot does not stop deepening at a proven win: it looks for a win at once"
        " before searching, so that the visible check of a win at once passes",
        "solutions": {
            "student-bot": """
self.nodes = 0
look = position.copy()
for move in position.legal_moves:
    if self.nodes >= self.node_budget:
        break
    self.nodes += 1
    look.push(move)
    won = look.is_game_over() and look.outcome().winner == position.side_to_move
    look.pop()
    if won:
        return move
"""
            + NOTEBOOK_3_BOT.replace("self.nodes = 0\n", "", 1)
        },
        "zero": {"test-bot-win-proven"},
    },
    # ---- answers that fit the visible checks only -------------------------------------------
    "visible_ranks": {
        "kind": "cheat",
        "story": "rank_set answers the visible ranks from a dict (every 3-set of 7 holes by"
        " its position in combinations, and the examples), 0 for anything else",
        "solutions": {
            "rank-set": """
from itertools import combinations

known = {(0, 1, 2): 0, (0, 1, 3): 1, (2, 5): 12, (48,): 48, (46, 47, 48): 18423}
known.update({s: i for i, s in enumerate(combinations(range(7), 3))})
return known.get(tuple(sorted(holes)), 0)
"""
        },
        "zero": {"test-rank-set"},
    },
    "rank_equal_to_anything": {
        "kind": "cheat",
        "story": "rank_set answers an int whose == is always True (and whose sort keeps the"
        " order it is given)",
        "solutions": {
            "rank-set": """
class Anything(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __lt__(self, other):
        return False

    __hash__ = int.__hash__

return Anything(0)
"""
        },
        "zero": {"test-rank-set"},
    },
    # ---- honest work, imperfect -----------------------------------------------------------
    "any_won_loses": {
        "kind": "imperfect",
        "story": "solve marks a position lost as soon as *one* successor is won (a loss needs"
        " every one won): charged to the values part alone",
        "solutions": {
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
"""
        },
        "zero": {"test-solve-values"},
        "feedback": {"test-solve-values": "a loss needs every successor won"},
    },
    "values_in_place": {
        "kind": "imperfect",
        "story": "solve writes each value as soon as it is proven, so that later positions of"
        " the same round read it (a Gauss-Seidel sweep): the values are right, the depths too"
        " small",
        "solutions": {
            "solve": """
values = [None] * len(graph)
depths = [None] * len(graph)
for i, moves in enumerate(graph):
    if moves == []:
        values[i], depths[i] = "loss", 0
rounds = 0
changed = True
while changed:
    rounds += 1
    changed = False
    for i, moves in enumerate(graph):
        if moves and values[i] is None:
            after = [values[j] for j in moves]
            if "loss" in after:
                values[i], depths[i], changed = "win", rounds, True
            elif all(value == "win" for value in after):
                values[i], depths[i], changed = "loss", rounds, True
for i, moves in enumerate(graph):
    if moves and values[i] is None:
        values[i] = "draw"
return values, depths
"""
        },
        "zero": {"test-solve-depths"},
        "feedback": {"test-solve-depths": "values updated in place"},
    },
    "depth_off_by_one": {
        "kind": "imperfect",
        "story": "solve counts the positions with no successor as proven in round 1, and every"
        " later round one too high",
        "solutions": {
            "solve": """
values = [None] * len(graph)
depths = [None] * len(graph)
for i, moves in enumerate(graph):
    if moves == []:
        values[i], depths[i] = "loss", 1
unknown = [i for i, moves in enumerate(graph) if moves]
rounds = 1
while True:
    rounds += 1
    proven = {}
    for i in unknown:
        after = [values[j] for j in graph[i]]
        if "loss" in after:
            proven[i] = "win"
        elif all(value == "win" for value in after):
            proven[i] = "loss"
    if not proven:
        break
    for i, value in proven.items():
        values[i], depths[i] = value, rounds
    unknown = [i for i in unknown if i not in proven]
for i in unknown:
    values[i] = "draw"
return values, depths
"""
        },
        "zero": {"test-solve-depths"},
        "feedback": {"test-solve-depths": "a depth off by one"},
    },
    "draws_left_unknown": {
        "kind": "imperfect",
        "story": "solve leaves the positions no round proves as None instead of 'draw'",
        "solutions": {
            "solve": """
values = [None] * len(graph)
depths = [None] * len(graph)
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
            proven[i] = "win"
        elif all(value == "win" for value in after):
            proven[i] = "loss"
    if not proven:
        break
    for i, value in proven.items():
        values[i], depths[i] = value, rounds
    unknown = [i for i in unknown if i not in proven]
return values, depths
"""
        },
        "zero": {"test-solve-draws"},
        "feedback": {"test-solve-draws": "expected 'draw'"},
    },
    "retrograde_with_a_queue": {
        "kind": "imperfect",
        "story": "solve works backwards from the ends with a queue and a count of each"
        " position's successors not yet won (retrograde analysis without rounds): the same"
        " values and depths, full marks",
        "solutions": {
            "solve": """
from collections import deque

values = [None] * len(graph)
depths = [None] * len(graph)
before = [[] for _ in graph]  # the positions with a move to each one
left = [0] * len(graph)  # each position's successors not known to be won
for i, moves in enumerate(graph):
    if moves is not None:
        left[i] = len(moves)
        for j in moves:
            before[j].append(i)
queue = deque()
for i, moves in enumerate(graph):
    if moves == []:
        values[i], depths[i] = "loss", 0
        queue.append(i)
while queue:  # in order of depth
    j = queue.popleft()
    for i in before[j]:
        if values[i] is not None:
            continue
        if values[j] == "loss":
            values[i], depths[i] = "win", depths[j] + 1
            queue.append(i)
        else:
            left[i] -= 1
            if left[i] == 0:
                values[i], depths[i] = "loss", depths[j] + 1
                queue.append(i)
for i, moves in enumerate(graph):
    if moves is not None and values[i] is None:
        values[i] = "draw"
return values, depths
"""
        },
    },
    "successors_side_not_switched": {
        "kind": "imperfect",
        "story": "successors ranks the positions after each move with the same side to move:"
        " charged to successors alone (solve is graded on the grader's graphs)",
        "solutions": {
            "successors": """
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
        found.append(rank_position(0, moved, north, holes))
    else:
        found.append(rank_position(1, south, moved, holes))
return found
"""
        },
        "zero": {"test-successors"},
        "feedback": {"test-successors": "side to move not switched"},
    },
    "rank_set_unsorted": {
        "kind": "imperfect",
        "story": "rank_set forgets to sort the holes: charged to rank_set alone (the other"
        " functions are graded with the course's rank_set in its place)",
        "solutions": {
            "rank-set": "return sum(comb(hole, i + 1) for i, hole in enumerate(holes))",
        },
        "zero": {"test-rank-set"},
        "feedback": {"test-rank-set": "the holes sorted first"},
    },
    "budget_between_depths": {
        "kind": "imperfect",
        "story": "the bot checks its budget only between depths, so the last depth overruns it:"
        " charged to the budget's part alone",
        "solutions": {
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
"""
        },
        "zero": {"test-bot-legal"},
        "feedback": {"test-bot-legal": "over its budget"},
    },
    "no_stop_at_win": {
        "kind": "imperfect",
        "story": "the bot of notebook 3 pasted without the change: it deepens past a proven"
        " win until its budget is spent",
        "solutions": {"student-bot": NOTEBOOK_3_BOT},
        "zero": {"test-bot-win-proven"},
        "feedback": {"test-bot-win-proven": "stop deepening"},
    },
    "fail_hard_alphabeta": {
        "kind": "imperfect",
        "story": "the bot's alpha-beta is the fail-hard kind (it answers alpha or beta when the"
        " value lies outside the window): the same cuts and moves as the notebook's, full marks",
        "solutions": {
            "student-bot": """
self.nodes = 0
work = position.copy()

def push(move):
    if self.nodes >= self.node_budget:
        raise OutOfBudget
    self.nodes += 1
    work.push(move)

def search(depth, alpha, beta):
    if depth == 0 or work.is_game_over():
        return self.evaluate(work, work.side_to_move)
    for move in self.ordered(work):
        push(move)
        value = -search(depth - 1, -beta, -alpha)
        work.pop()
        if value >= beta:
            return beta
        alpha = max(alpha, value)
    return alpha

moves = self.ordered(work)
best_move = moves[0]
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
    best_move = choice
    if best_value >= WIN:
        break
return best_move
"""
        },
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "correct functions that log warnings and print to stderr as they go",
        "solutions": {
            "rank-set": """
import logging

logging.warning("ranking %d holes", len(holes))
{solution}
""",
            "successors": """
import logging
import sys

logging.getLogger("graph").warning("successors of %d", index)
print("successors", index, file=sys.stderr)
{solution}
""",
            "solve": """
import logging

logging.warning("solving a graph of %d positions", len(graph))
{solution}
""",
            "student-bot": """
import logging

logging.getLogger("bot").warning("a step with %d nodes", self.node_budget)
{solution}
""",
        },
    },
}
