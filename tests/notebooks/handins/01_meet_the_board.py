"""Notebook 1's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work.

The cheats know the course's checks (python/sternhalma/autograde/course/
n01_meet_the_board.py): the visible cases are star4 and two positions the
notebook shows; the held-out ones other boards, holes and positions.
"""

COUNT_PARTS = {"test-count-kinds", "test-count-kinds-variants"}

HANDINS = {
    # ---- cheats written against the course's checks --------------------------------------
    "shown_boards_only": {
        "kind": "cheat",
        "story": "tip_to_tip and farthest answer star4's numbers, the only board the notebook"
        " shows, read off the picture",
        "solutions": {
            "tip-to-tip": "return 16",
            "farthest": "return {60: 8, 0: 16}.get(hole, 16)",
        },
        "zero": {"test-tip-to-tip", "test-farthest"},
        "feedback": {"test-tip-to-tip": "star4's answer"},
    },
    "kinds_of_the_shown_positions": {
        "kind": "cheat",
        "story": "count_kinds answers the counts a classmate's notebook printed for the positions"
        " the notebook shows (by their position string), and every move a step elsewhere",
        "solutions": {
            "count-kinds": """
shown = {
    "star4 classic south:78,89,102,104,112-114,117-119/north:1,2,6-9,13,14,16,18 0 8 -": (31, 16),
    "star4 classic south:111-120/north:0-9 0 0 -": (8, 6),
    "star4 classic south:78,89,102,112,114,115,117-120/north:1,2,5-9,13,14,16 0 6 -": (27, 12),
    "star4 masters south:78,89,102,112,114,115,117-120/north:1,2,5-9,13,14,16 0 6 -": (16, 7),
    "star4 family south:78,89,102,112,114,115,117-120/north:1,2,5-9,13,14,16 0 6 -": (27, 12),
    "star4 super south:78,89,102,112,114,115,117-120/north:1,2,5-9,11,12,14 0 6 -": (27, 18),
    "star4 research south:78,89,102,112,114,115,117-120/north:1,2,5-9,13,14,16 0 6 -": (27, 12),
    "star4 sturtevant south:78,89,102,112,114,115,117-120/north:1,2,5-9,13,14,16 0 6 -": (27, 12),
}
steps, hops = shown.get(str(position), (len(position.legal_moves), 0))
return Counter({"step": steps, "hop": hops})
"""
        },
        "zero": COUNT_PARTS,
    },
    "kinds_equal_to_anything": {
        "kind": "cheat",
        "story": "count_kinds answers an empty Counter whose == is always True (and != never)",
        "solutions": {
            "count-kinds": """
class Anything(Counter):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __pos__(self):
        return self

return Anything()
"""
        },
        "zero": COUNT_PARTS,
    },
    "kinds_by_string": {
        "kind": "cheat",
        "story": "count_kinds answers a dict of str subclasses that claim to be 'step' and"
        " 'hop' at once, with counts that are int subclasses equal to anything",
        "solutions": {
            "count-kinds": """
class Kind(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class Many(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

return {Kind("any"): Many(len(position.legal_moves))}
"""
        },
        "zero": COUNT_PARTS,
    },
    # ---- honest work, imperfect --------------------------------------------------------------
    "kinds_by_path_length": {
        "kind": "imperfect",
        "story": "count_kinds calls a move a step when its path has two holes: a hop over one"
        " peg has two holes in its path too",
        "solutions": {
            "count-kinds": """
return Counter("step" if len(move.path) == 2 else "hop" for move in position.legal_moves)
"""
        },
        "zero": COUNT_PARTS,
        "feedback": {"test-count-kinds": "a hop over one peg has a path of two holes"},
    },
    "farthest_misses_the_last_hole": {
        "kind": "imperfect",
        "story": "farthest tries every hole but the last (range(len(board) - 1))",
        "solutions": {
            "farthest": "return max(board.distance(hole, other) for other in range(len(board) - 1))"
        },
        "zero": {"test-farthest"},
        "feedback": {"test-farthest": "some hole is farther"},
    },
    "honest_variants": {
        "kind": "imperfect",
        "story": "other ways the notebook allows: the tips as rows - 1, the farthest hole by a"
        " walk over neighbours, kinds counted in a plain dict with zero entries",
        "solutions": {
            "tip-to-tip": "return board.rows - 1",
            "farthest": """
steps, layer = {hole: 0}, [hole]
while layer:
    layer = [
        n
        for a in layer
        for n in board.neighbors(a)
        if n not in steps and not steps.update({n: steps[a] + 1})
    ]
return max(steps.values())
""",
            "count-kinds": """
found = {"step": 0, "hop": 0, "swap": 0, "pass": 0}
for move in position.legal_moves:
    found[str(move.kind.value)] += 1
return found
""",
        },
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "correct functions that log warnings and print to stderr as they go",
        "solutions": {
            "tip-to-tip": """
import logging

logging.warning("tip to tip on %s", board.name)
{solution}
""",
            "count-kinds": """
import logging
import sys

logging.warning("%d moves", len(position.legal_moves))
print("counting", file=sys.stderr)
{solution}
""",
        },
    },
}
