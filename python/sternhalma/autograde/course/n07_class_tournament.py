"""Notebook 7, the class tournament: the entrant ``my_bot``.

The grader plays every game itself, against the built-in greedy bot (in
the grader, where nothing is barred), and asks the student's process for
each of ``my_bot``'s moves, position by position: no server takes part,
and the student's process has no network (only notebook 5's may reach the
grader's server), so a bot cannot ask a server's bots for its moves; the
built-in searches are barred there for the whole run.

The legal-moves part also checks the position is left as given; the
strength part only that each move is legal (a bot that changes its
position is charged once, by the first part). The strength part's
held-out games stand on their own: a bot that plays the notebook's
games from a table of their moves and carelessly elsewhere scores well
on the notebook's games and not on the grader's.
"""

from __future__ import annotations

import random
from typing import Any

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Course, Failed, Student
from sternhalma.stats import wilson

course = Course("07_class_tournament")

RULES = sternhalma.Rules("research", max_plies=60)
BOARD = "rhombus5p3"
NODE_BUDGET = 1000
"""The notebook's budget, in positions: `my_bot` reads it while graded."""
GAMES = 30
"""The notebook's games against greedy (seeds 0 to 29, two random opening plies)."""
HELD_OUT_GAMES = 60
"""The grader's games (held-out seeds, four random opening plies)."""


# ---- adapters: run in the student's process ------------------------------------------


@course.adapter
def my_bot(ns, position):
    """`my_bot`'s move in `position`, with the notebook's `NODE_BUDGET` (put back after)."""
    missing = object()
    budget = ns.get("NODE_BUDGET", missing)
    ns["NODE_BUDGET"] = NODE_BUDGET
    try:
        return ns["my_bot"](position)
    finally:
        if budget is missing:
            del ns["NODE_BUDGET"]
        else:
            ns["NODE_BUDGET"] = budget


# ---- the grader's side ---------------------------------------------------------------


def move_in(position: sternhalma.Position, answer: Any, what: str) -> sternhalma.Move:
    """The legal move `answer` names in `position` (a Move or a move's text), or `Failed`."""
    if isinstance(answer, sternhalma.Move):
        found = next((m for m in position.legal_moves if m == answer), None)
    elif isinstance(answer, str):
        try:
            found = position.parse_move(answer)
        except Exception:  # noqa: BLE001 (any text a student answers)
            found = None
        if found is not None and found not in position.legal_moves:
            found = None
    else:
        raise Failed(f"{what}: my_bot answered a {type(answer).__name__}, not a move or its text")
    if found is None:
        raise Failed(f"{what}: my_bot answered {str(answer)[:40]!r}, not a legal move")
    return found


def step(student: Student, position: sternhalma.Position, what: str) -> sternhalma.Move:
    """`my_bot`'s move at `position` (sent without its history), legal there."""
    given = sternhalma.Position(str(position))
    return move_in(given, student.call("my_bot", given).value, what)


@course.part("test-legal-moves")
def legal_moves(student: Student, graded: bool) -> None:
    cases = [
        (
            "the start of star2 with the masters rules",
            sternhalma.Position.start(board="star2", rules="masters"),
        )
    ]
    if graded:
        rng = grading.held_out("nb7-legal-moves")
        rhombi = [n for n in sternhalma.Board.names() if n.startswith("rhombus")]
        # Triangular homes only (homes of 2 and 4 pegs are the solved game's own shapes)
        rhombi = [
            n
            for n in rhombi
            if sternhalma.Board(n).pegs_per_set not in (2, 4)
            and 4 <= int(n[len("rhombus") :].split("p")[0]) <= 9
        ]
        games = [
            (rng.choice(["star2", "star3"]), rules) for rules in ("classic", "masters", "super")
        ]
        games += [(name, "research") for name in rng.sample(rhombi, 3)]
        for index, (name, rules) in enumerate(games):
            start = sternhalma.Position.start(
                board=name, rules=rules, first_player=rng.randrange(2)
            )
            cases.append(
                (
                    f"held-out position {index}",
                    grading.opening(start, rng.randrange(1, 30), rng),
                )
            )
    for label, case in cases:
        what = f"my_bot on {label}"
        given = sternhalma.Position(str(case))
        answer = student.call("my_bot", given)
        move_in(given, answer.value, what)
        ((text, stack),) = answer.after
        if text != str(case) or stack != 0:
            raise Failed(
                f"{what}: my_bot changed the position it was given (push and pop in pairs, or"
                " search position.copy())"
            )


def game(student: Student, seed: int, opening_plies: int, first: int, label: str) -> float:
    """`my_bot`'s score (win 1, draw 1/2, loss 0) as player 0 in one game against the greedy
    bot (seeded with `seed`), `first` moving first, after `opening_plies` random moves drawn
    with `random.Random(seed)`."""
    opponent = sternhalma.Bot("greedy", seed=seed)
    position = sternhalma.Position.start(board=BOARD, rules=RULES, first_player=first)
    opening = random.Random(seed)
    for _ in range(opening_plies):
        position.push(opening.choice(position.legal_moves))
    while not position.is_game_over():
        if position.side_to_move == 0:
            position.push(step(student, position, f"{label}, ply {position.ply}"))
        else:
            position.push(opponent.step(position))
    return (position.outcome().results[0] + 1) / 2


def record(scores: list[float]) -> str:
    wins, draws = scores.count(1.0), scores.count(0.5)
    return f"{wins} won, {draws} drawn, {len(scores) - wins - draws} lost"


@course.part("test-beats-greedy")
def beats_greedy(student: Student, graded: bool) -> None:
    visible = [
        game(student, seed, 2, seed % 2, f"the notebook's game {seed}") for seed in range(GAMES)
    ]
    points = sum(visible)
    if points <= GAMES / 2:
        raise Failed(
            f"my_bot against greedy in the notebook's {GAMES} games: {points} points"
            f" ({record(visible)}), not more than half (search deeper than one move)"
        )
    if not graded:
        return
    rng = grading.held_out("nb7-beats-greedy")
    held_out = [
        game(student, rng.randrange(1 << 30), 4, index % 2, f"held-out game {index}")
        for index in range(HELD_OUT_GAMES)
    ]
    score = wilson(sum(held_out), HELD_OUT_GAMES)
    if not score.above(0.5):
        raise Failed(
            f"my_bot against greedy in {HELD_OUT_GAMES} held-out games ({record(held_out)}):"
            f" score {score}, not above 1/2 (search deeper than one move; the notebook's games"
            f" alone scored {points} of {GAMES})"
        )
    overall = wilson(points + sum(held_out), GAMES + HELD_OUT_GAMES)
    if not overall.above(0.5):
        raise Failed(
            f"my_bot against greedy over {GAMES + HELD_OUT_GAMES} games: score {overall}, not"
            " above 1/2 (search deeper)"
        )
