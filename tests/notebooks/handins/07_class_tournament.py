"""Notebook 7's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work. The grader plays the games itself and asks the
student's process for each move, with no network
(sternhalma.autograde.course.n07_class_tournament)."""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import sternhalma

ALL_PARTS = {"test-legal-moves", "test-beats-greedy"}
RULES = sternhalma.Rules("research", max_plies=60)
NOTEBOOK = "07_class_tournament"


def visible_games() -> dict[str, str]:
    """The built-in alpha-beta bot's move at each of its positions in the notebook's 30 games
    against greedy (the grader's visible games: seeds 0 to 29, two random opening plies)."""
    table = {}
    bot = sternhalma.Bot("alphabeta", nodes=10_000, seed=0)
    for seed in range(30):
        opponent = sternhalma.Bot("greedy", seed=seed)
        position = sternhalma.Position.start(board="rhombus5p3", rules=RULES, first_player=seed % 2)
        opening = random.Random(seed)
        for _ in range(2):
            position.push(opening.choice(position.legal_moves))
        while not position.is_game_over():
            if position.side_to_move == 0:
                move = bot.step(position)
                table[str(position)] = str(move)
            else:
                move = opponent.step(position)
            position.push(move)
    return table


# A quick bot: two plies (its move, the reply) two times in three, one ply otherwise.
QUICK = """
mover = position.side_to_move


def value(child):
    outcome = child.outcome()
    if outcome.is_over:
        return 1000 * outcome.results[mover]
    theirs = sternhalma.distance_to_target(child, 1 - mover)
    return theirs - sternhalma.distance_to_target(child, mover)


def worst(move):
    child = position.play(move)
    if child.is_game_over() or position.zobrist_hash % 3 == 0:
        return value(child)
    return min(value(child.play(reply)) for reply in child.legal_moves)


return max(position.legal_moves, key=worst)
"""

ASK_THE_SERVER = """
import json
import os
import sys
import urllib.request

# The grader's own server: STERNHALMA_URL, or the address the runner was told it may reach.
address = os.environ.get("STERNHALMA_URL")
if "--connect" in sys.argv:
    address = "http://" + sys.argv[sys.argv.index("--connect") + 1]
try:
    request = urllib.request.Request(
        f"{address}/v1/bots/move",
        data=json.dumps(
            {"position": str(position), "bot": {"kind": "alphabeta", "nodes": 10000}}
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["move"]["text"]
except Exception:
    return position.legal_moves[0]
"""

HANDINS = {
    # ---- cheats ---------------------------------------------------------------------------
    "calls_builtin_bot": {
        "kind": "cheat",
        "story": "my_bot hands its moves to the built-in alpha-beta bot",
        "solutions": {
            "my_bot": 'return sternhalma.Bot("alphabeta", nodes=NODE_BUDGET).step(position)'
        },
        "zero": ALL_PARTS,
        "feedback": {"test-legal-moves": "barred"},
    },
    "asks_the_server": {
        "kind": "cheat",
        "story": "my_bot asks the grader's game server (its address read from the runner's"
        " --connect argument) for the built-in alpha-beta bot's move, and plays the first legal"
        " move when no server answers",
        "solutions": {"my_bot": ASK_THE_SERVER},
        "zero": {"test-beats-greedy"},
    },
    "memorized_visible_games": {
        "kind": "cheat",
        "story": "my_bot plays the notebook's 30 games from a table of a strong bot's moves"
        " (made at home), and a quick two-ply search elsewhere: more than enough over the"
        " notebook's games and the grader's together, not on the grader's alone",
        "cells": [f"VISIBLE_GAMES = {visible_games()!r}"],
        "solutions": {
            "my_bot": "if str(position) in VISIBLE_GAMES:\n"
            "    return VISIBLE_GAMES[str(position)]\n" + QUICK
        },
        "zero": {"test-beats-greedy"},
        "feedback": {"test-beats-greedy": "held-out games"},
    },
    "answer_equal_to_anything": {
        "kind": "cheat",
        "story": "my_bot answers a move's text that claims to equal every move",
        "solutions": {
            "my_bot": """
class Anything(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__

return Anything("0-0")
"""
        },
        "zero": ALL_PARTS,
    },
    # ---- honest work, imperfect ---------------------------------------------------------
    "searches_the_position_itself": {
        "kind": "imperfect",
        "story": "my_bot searches the position it is given instead of a copy: when the budget"
        " runs out mid-search, the moves pushed are left on it",
        "solutions": {},  # below: the instructor's, on the position itself
        "zero": {"test-legal-moves"},
        "feedback": {"test-legal-moves": "changed the position"},
    },
    "one_ply": {
        "kind": "imperfect",
        "story": "my_bot takes the move that brings its pegs nearest home, one ply deep",
        "solutions": {
            "my_bot": """
mover = position.side_to_move


def after(move):
    child = position.play(move)
    if child.outcome().winner == mover:
        return -1
    return sternhalma.distance_to_target(child, mover)


return min(position.legal_moves, key=after)
"""
        },
        "zero": {"test-beats-greedy"},
        "feedback": {"test-beats-greedy": "search deeper"},
    },
    "answers_the_text": {
        "kind": "imperfect",
        "story": "my_bot answers its move's text, which the notebook allows",
        "solutions": {},  # below: the instructor's, answering str(choice)
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "a correct my_bot that logs a warning and prints to stderr for every move",
        "solutions": {
            "my_bot": """
import logging
import sys

logging.warning("my_bot at ply %d", position.ply)
print("thinking", file=sys.stderr)
{solution}
"""
        },
    },
}


def instructor(replacements: dict[str, str]) -> str:
    """The instructor's my_bot (its solution region, dedented), with `replacements` made."""
    path = (
        Path(__file__).resolve().parents[3]
        / "notebooks"
        / "source"
        / NOTEBOOK
        / f"{NOTEBOOK}.ipynb"
    )
    cells = json.loads(path.read_text())["cells"]
    (source,) = [
        "".join(c["source"])
        for c in cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "my_bot"
    ]
    region = source.split("### BEGIN SOLUTION\n")[1].split("### END SOLUTION")[0]
    code = textwrap.dedent(region)
    for old, new in replacements.items():
        assert code.count(old) == 1, old
        code = code.replace(old, new)
    return code


HANDINS["searches_the_position_itself"]["solutions"]["my_bot"] = instructor(
    {"work = position.copy()": "work = position"}
)
HANDINS["answers_the_text"]["solutions"]["my_bot"] = instructor(
    {"\nreturn choice": "\nreturn str(choice)"}
)
