"""What a Python loop pays per call into the `sternhalma` module.

Times, with time.perf_counter over many repetitions (best of several
rounds), the calls a search or a notebook makes from Python: legal_moves,
legal_actions, push+pop (Move objects and text), apply_action+undo_action,
on the standard two-player start and a middle-game position; then whole
random games driven from a Python loop. Prints a markdown table.

    .venv/bin/python benches/python_loop.py            # about half a minute
    .venv/bin/python benches/python_loop.py --quick    # a smoke run

It measures only: it never passes or fails on time. As the Rust benches do,
it checks the work it times (move counts, plies played), so a change that
makes the calls do different work shows up as an error, not a speed-up.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable

import sternhalma
from sternhalma import Position

START = "star4 classic south:111-120/north:0-9 0 0 -"
# The middle-game position of benches/movegen.rs (40 plies, seed 1).
MIDDLE = (
    "star4 classic south:59,64,72,80,81,91,102,105,116,120/north:5,6,14,17,29,32,38,42,54,90 0 40 -"
)


def per_call(body: Callable[[], object], target_seconds: float, rounds: int) -> float:
    """Seconds per call of `body`: the best of `rounds` rounds, each long
    enough to take about `target_seconds`."""
    calls = 1
    while True:  # find a count that takes long enough to time
        started = time.perf_counter()
        for _ in range(calls):
            body()
        elapsed = time.perf_counter() - started
        if elapsed >= target_seconds / 4:
            break
        calls *= 2
    calls = max(1, int(calls * target_seconds / max(elapsed, 1e-9)))
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(calls):
            body()
        best = min(best, (time.perf_counter() - started) / calls)
    return best


def call_rows(target: float, rounds: int) -> list[tuple[str, str, str, float]]:
    rows = []
    for label, text in (("start", START), ("middle (ply 40)", MIDDLE)):
        position = Position(text)
        moves = position.legal_moves
        actions = position.legal_actions()
        assert len(moves) == len(actions) > 0
        move = moves[len(moves) // 2]
        move_text = "-".join(map(str, move.path))
        action = actions[len(actions) // 2]

        def push_pop_move(position=position, move=move) -> None:
            position.push(move)
            position.pop()

        def push_pop_text(position=position, move_text=move_text) -> None:
            position.push(move_text)
            position.pop()

        def apply_undo(position=position, action=action) -> None:
            position.apply_action(action)
            position.undo_action()

        cases = [
            ("list(legal_moves)", f"{len(moves)} moves", lambda p=position: list(p.legal_moves)),
            ("legal_actions", f"{len(actions)} actions", position.legal_actions),
            ("push + pop (Move)", str(move), push_pop_move),
            ("push + pop (text)", move_text, push_pop_text),
            ("apply_action + undo_action", str(action), apply_undo),
            ("observation_tensor", "shape (4, 121)", position.observation_tensor),
        ]
        for name, detail, body in cases:
            rows.append((name, label, detail, per_call(body, target, rounds)))
        assert str(position) == text  # every push was popped
    return rows


def play_games(setup: dict, games: int, ply_cap: int, seed: int) -> tuple[int, int, float]:
    """Random games from a Python loop: (games, plies, seconds)."""
    rng = random.Random(seed)
    plies = 0
    started = time.perf_counter()
    for _ in range(games):
        position = Position.start(**setup)
        played = 0
        while not position.is_game_over() and played < ply_cap:
            position.push(rng.choice(position.legal_moves))
            played += 1
        assert position.ply == played
        plies += played
    return games, plies, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    target, rounds, games = (0.02, 2, 3) if arguments.quick else (0.25, 5, 30)

    print(
        f"sternhalma {sternhalma.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}; best of {rounds} rounds of ~{target} s\n"
    )
    print("| call | position | argument / size | µs per call | calls per s |")
    print("|---|---|---|---:|---:|")
    for name, label, detail, seconds in call_rows(target, rounds):
        print(f"| {name} | {label} | {detail} | {seconds * 1e6:.2f} | {1 / seconds:,.0f} |")

    print("\n| random game loop | games | plies | plies per s | games per s |")
    print("|---|---:|---:|---:|---:|")
    setups = [
        ("star4 classic, 2 players, cap 300 plies", {"rules": "classic"}, 300),
        ("star4 research, 2 players (max 200)", {"board": "star4", "rules": "research"}, 10_000),
        ("star2 research, 2 players (max 200)", {"board": "star2", "rules": "research"}, 10_000),
        ("star4 classic, 6 players, cap 300 plies", {"layout": "6"}, 300),
    ]
    for label, setup, cap in setups:
        count, plies, seconds = play_games(setup, games, cap, arguments.seed)
        print(f"| {label} | {count} | {plies} | {plies / seconds:,.0f} | {count / seconds:,.1f} |")

    position = Position(START)
    started = time.perf_counter()
    nodes = position.perft(4)
    seconds = time.perf_counter() - started
    assert nodes == 115_600
    print(
        f"\nFor scale, perft(4) of the start inside Rust: {nodes:,} leaves in "
        f"{seconds * 1e3:.1f} ms ({nodes / seconds:,.0f} leaves per s)."
    )


if __name__ == "__main__":
    main()
