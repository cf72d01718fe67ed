"""Notebook 1, meet the board: distances on a board, and the kinds of a position's moves.

Boards cross to the student's process by name (a board is rebuilt there),
positions by their position string (without move history). The expected
values are worked out here, in the grader, without the student's code:
distances by a breadth-first walk over neighbours, kinds of moves from the
moves' paths (the geometry), never from `move.kind`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Course, Failed, Student
from sternhalma.autograde._course import each
from sternhalma.autograde._student import redacted

course = Course("01_meet_the_board")

STAR4 = sternhalma.Board("star4")
RHOMBI = [name for name in sternhalma.Board.names() if name.startswith("rhombus")]


def _triangular(name: str) -> bool:
    """Whether a rhombus's homes are triangles (of k rows, k(k+1)/2 pegs): all
    but the solved game's homes of 2 and 4 pegs."""
    return sternhalma.Board(name).pegs_per_set not in (2, 4)


def _the_position_above() -> sternhalma.Position:
    """The notebook's position after its "little ladder": eight plies of the most forward
    move by both sides from the classic two-player start on star4."""
    board = STAR4
    north, south = board.triangle("north"), board.triangle("south")

    def gain(move: sternhalma.Move, player: int) -> int:
        target = north if player == 0 else south
        assert move.from_hole is not None and move.to_hole is not None  # no pass here
        return min(board.distance(move.from_hole, t) for t in target) - min(
            board.distance(move.to_hole, t) for t in target
        )

    def forward(move: sternhalma.Move, player: int) -> tuple[int, int]:
        assert move.from_hole is not None
        return gain(move, player), -move.from_hole

    position = sternhalma.Position.start(board="star4", layout="2", rules="classic")
    for _ in range(8):
        me = position.side_to_move
        position.push(max(position.legal_moves, key=lambda m: forward(m, me)))
    return position


ABOVE = _the_position_above()


# ---- adapters: run in the student's process ------------------------------------------


@course.adapter
def tip_to_tip(ns, board):
    return ns["tip_to_tip"](sternhalma.Board(board))


@course.adapter
def farthest(ns, board, holes):
    """`farthest(board, hole)` for each hole, on one board."""
    b = sternhalma.Board(board)
    return [ns["farthest"](b, hole) for hole in holes]


@course.adapter
def count_kinds(ns, positions):
    """`count_kinds(position)` for each position; at the first that raises, its number and
    the exception (so that the feedback names the case)."""
    return each(ns["count_kinds"], positions)


# ---- references: run in the grader ---------------------------------------------------


def steps_from(board: sternhalma.Board, hole: int) -> dict[int, int]:
    """Breadth-first, one layer of neighbours at a time: the steps from `hole` to every hole."""
    steps, layer = {hole: 0}, [hole]
    while layer:
        following = []
        for a in layer:
            for n in board.neighbors(a):
                if n not in steps:
                    steps[n] = steps[a] + 1
                    following.append(n)
        layer = following
    return steps


def kinds_by_geometry(p: sternhalma.Position) -> Counter:
    """Each legal move's kind from its path alone (and whether it lands on a peg)."""
    occupied = {hole for player in range(p.num_players()) for hole in p.player_pegs(player)}
    found: Counter = Counter()
    for m in p.legal_moves:
        if m.is_pass:
            found["pass"] += 1
        elif m.to_hole in occupied:
            found["swap"] += 1
        elif len(m.path) == 2 and m.to_hole in p.board.neighbors(m.path[0]):
            found["step"] += 1
        else:
            legs = zip(m.path, m.path[1:])
            assert all(b not in p.board.neighbors(a) for a, b in legs), m
            found["hop"] += 1
    return found


def single_hops(p: sternhalma.Position) -> int:
    """The hops of one leg (a path of two holes, like a step's)."""
    occupied = {hole for player in range(p.num_players()) for hole in p.player_pegs(player)}
    return sum(
        1
        for m in p.legal_moves
        if not m.is_pass
        and m.to_hole not in occupied
        and len(m.path) == 2
        and m.path[1] not in p.board.neighbors(m.path[0])
    )


def integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Failed(f"{what}: answered {value!r}, not a whole number of steps")
    return value


# ---- parts ---------------------------------------------------------------------------


@course.part("test-tip-to-tip")
def tip_to_tip_part(student: Student, graded: bool) -> None:
    cases = [("star4", "star4")]
    if graded:
        rng = grading.held_out("nb1-tip-to-tip")
        cases += [(name, name) for name in ("star1", "star2", "star3")]
        cases += [(f"held-out board {i}", name) for i, name in enumerate(rng.sample(RHOMBI, 3))]
    for label, name in cases:
        b = sternhalma.Board(name)
        north_tip, south_tip = min(b.triangle("north")), max(b.triangle("south"))
        want = steps_from(b, north_tip)[south_tip]
        got = integer(student.call("tip_to_tip", name).value, f"tip_to_tip on {label}")
        if got != want:
            hint = ""
            if name != "star4" and got == 16:
                hint = " (star4's answer: read the tips from the board you are given)"
            elif got == len(b) - 1:
                hint = " (the last hole's number, not the steps to it)"
            raise Failed(f"tip_to_tip on {label}: {got}, expected {want}{hint}")


@course.part("test-farthest")
def farthest_part(student: Student, graded: bool) -> None:
    cases = [("star4", "star4", [60, 0], ["hole 60", "hole 0"])]
    if graded:
        rng = grading.held_out("nb1-farthest")
        boards = [(n, n) for n in ("star1", "star2", "star3", "star4")]
        boards += [(f"held-out board {i}", n) for i, n in enumerate(rng.sample(RHOMBI, 3))]
        for label, name in boards:
            holes = rng.sample(range(len(sternhalma.Board(name))), 3)
            cases.append((label, name, holes, [f"held-out hole {j}" for j in range(3)]))
    for label, name, holes, names in cases:
        b = sternhalma.Board(name)
        answer = student.call("farthest", name, holes).value
        if not isinstance(answer, list) or len(answer) != len(holes):
            raise Failed(f"farthest on {label}: answered {answer!r}")
        for hole, hole_label, got in zip(holes, names, answer):
            what = f"farthest on {label} from {hole_label}"
            got = integer(got, what)
            steps = steps_from(b, hole)
            want = max(steps.values())
            if got < want:
                raise Failed(f"{what}: {got}, but some hole is farther (try every hole)")
            if got > want:
                raise Failed(f"{what}: {got}, but no hole is that far (the steps, not holes?)")


def kinds_cases(
    student: Student, cases: list[tuple[str, sternhalma.Position]]
) -> None:  # one call for all the cases
    answer = student.call("count_kinds", [case for _, case in cases]).value
    if isinstance(answer, dict) and set(answer) == {"case", "type", "message"}:
        label = cases[answer["case"]][0]
        message = redacted(str(answer["message"]), tuple(case for _, case in cases))
        raise Failed(f"count_kinds on {label} raised {answer['type']}: {message}")
    if not isinstance(answer, list) or len(answer) != len(cases):
        raise Failed(f"count_kinds answered {answer!r}")
    for (label, p), kinds in zip(cases, answer):
        what = f"count_kinds on {label}"
        if not isinstance(kinds, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in kinds.values()
        ):
            raise Failed(f"{what}: answered {kinds!r}, not a Counter of whole numbers by kind")
        expected = kinds_by_geometry(p)
        if sum(kinds.values()) != len(p.legal_moves):
            raise Failed(
                f"{what}: {sum(kinds.values())} moves counted, the position has"
                f" {len(p.legal_moves)}: not every move once"
            )
        if +Counter(kinds) != expected:
            hint = ""
            ones = single_hops(p)
            if ones and kinds.get("step", 0) == expected["step"] + ones:
                hint = " (a hop over one peg has a path of two holes, as a step: read move.kind)"
            elif expected["swap"] and not kinds.get("swap"):
                hint = " (a swap lands on a peg: read move.kind)"
            raise Failed(f"{what}: {dict(+Counter(kinds))}, not {dict(expected)}{hint}")


@course.part("test-count-kinds")
def count_kinds_part(student: Student, graded: bool) -> None:
    cases = [
        ("the position above", ABOVE),
        ("the start", sternhalma.Position.start(board="star4", layout="2", rules="classic")),
    ]
    if graded:
        rng = grading.held_out("nb1-count-kinds")
        for case in range(8):
            name, layout = rng.choice(["star2", "star3", "star4"]), rng.choice(["2", "3", "4", "6"])
            start = sternhalma.Position.start(board=name, layout=layout, rules="classic")
            cases.append(
                (f"held-out position {case}", grading.opening(start, rng.randrange(4, 40), rng))
            )
    kinds_cases(student, cases)


@course.part("test-count-kinds-variants")
def count_kinds_variants_part(student: Student, graded: bool) -> None:
    cases = []
    for preset in sternhalma.Rules.presets():
        p = sternhalma.Position.start(board="star4", layout="2", rules=preset)
        for _ in range(6):  # a few forward plies, so that hops appear
            p.push(max(p.legal_moves, key=lambda m: (len(m.path), -(m.from_hole or 0))))
        cases.append((f"the {preset.value} start after 6 plies", p))
    if graded:
        rng = grading.held_out("nb1-count-kinds-variants")
        layouts = ["2", "3", "4", "6", "2x3", "3x2"]
        # Triangular homes only (homes of 2 and 4 pegs are the solved game's own shapes)
        rhombi = [
            n for n in RHOMBI if _triangular(n) and int(n[len("rhombus") :].split("p")[0]) >= 4
        ]
        for preset in sternhalma.Rules.presets():
            for case in range(3):
                if preset.value in ("research", "sturtevant"):  # two players on a rhombus
                    start = sternhalma.Position.start(board=rng.choice(rhombi), rules=preset)
                else:
                    name, layout = rng.choice(["star2", "star3", "star4"]), rng.choice(layouts)
                    start = sternhalma.Position.start(board=name, layout=layout, rules=preset)
                p = grading.opening(start, rng.randrange(4, 60), rng)
                cases.append((f"held-out {preset.value} position {case}", p))
    kinds_cases(student, cases)
