"""What the open_spiel wrapper (`sternhalma.open_spiel`) costs a Python game loop.

    .venv/bin/python benches/wrappers/open_spiel_loop.py              # a few seconds
    .venv/bin/python benches/wrappers/open_spiel_loop.py --games 5    # a smoke run

In one process, in interleaved rounds (the order rotated every round, so a
busy spell of the machine hits every loop alike), the same seeded random
games of the classic two-player game (star4, up to 1000 plies; a random
player never finishes under classic rules, so nearly every game runs to
that cap), each ply a uniform choice among the legal actions with
`random.Random(seed)`:

- (a) the module: `Position.start()`, then `legal_actions()`,
  `apply_action()` and `is_terminal()` on the `Position`;
- (b) the wrapper: the same calls on `pyspiel.load_game("sternhalma", {"max_plies": -2})`
  states, the game registered by `import sternhalma.open_spiel`;
- (c) for reference, open_spiel's native `chinese_checkers` (C++) through
  pyspiel, with the same loop. Its actions are single steps and single
  hops, a hop chain going on action by action, so a turn there is every
  action until the player to move changes; the table gives it per action
  and per turn. It is a different implementation of the game, not the same
  games.

Prints nanoseconds per ply (the median over the rounds) and the wrapper's
overhead in per cent against (a) (each round's against the module's time in
that round, then the median), and writes every round to
benches/results/wrappers-open_spiel.json (date, commit, note). It measures
only: it never passes or fails on time. It checks the work it times: (a)
and (b) must play the same games to the same positions, so a change that
makes the wrapper do different work is an error, not a speed-up.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import random
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pyspiel
import sternhalma.open_spiel  # noqa: F401  (registers "sternhalma")
from sternhalma import Position

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benches" / "results" / "wrappers-open_spiel.json"
MAX_PLIES = 1000


def module_loop(seeds: range) -> tuple[int, int, list[str]]:
    """(a): plies played, turns (the same), final positions."""
    plies = 0
    finals = []
    for seed in seeds:
        rng = random.Random(seed)
        position = Position.start()
        played = 0
        while not position.is_terminal() and played < MAX_PLIES:
            position.apply_action(rng.choice(position.legal_actions()))
            played += 1
        plies += played
        finals.append(str(position))
    return plies, plies, finals


def wrapper_loop(game: pyspiel.Game, seeds: range) -> tuple[int, int, list[str]]:
    """(b): the same games through the registered open_spiel game."""
    plies = 0
    finals = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        played = 0
        while not state.is_terminal() and played < MAX_PLIES:
            state.apply_action(rng.choice(state.legal_actions()))
            played += 1
        plies += played
        finals.append(str(state))
    return plies, plies, finals


def native_loop(game: pyspiel.Game, seeds: range) -> tuple[int, int, list[str]]:
    """(c): open_spiel's chinese_checkers; actions, turns, final states."""
    actions = 0
    turns = 0
    finals = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        played = 0
        player = state.current_player()
        while not state.is_terminal() and played < MAX_PLIES:
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
            now = state.current_player()
            if now != player:
                played += 1
                player = now
        turns += played
        finals.append(str(state))
    return actions, turns, finals


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="random games per loop and round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path, default=RESULTS)
    parser.add_argument("--note", default="", help="a note stored with the results")
    args = parser.parse_args()

    seeds = range(args.games)
    # The rules' own limit (none): the loops cut every game at MAX_PLIES,
    # as the module's does (the default game would end them at 400).
    ours = pyspiel.load_game("sternhalma", {"max_plies": -2})
    native = pyspiel.load_game("chinese_checkers")
    loops: dict[str, Callable[[], tuple[int, int, list[str]]]] = {
        "module": lambda: module_loop(seeds),
        "open_spiel wrapper": lambda: wrapper_loop(ours, seeds),
        "open_spiel chinese_checkers (C++)": lambda: native_loop(native, seeds),
    }
    names = list(loops)
    ns_per_action: dict[str, list[float]] = {name: [] for name in names}
    ns_per_turn: dict[str, list[float]] = {name: [] for name in names}
    work: dict[str, tuple[int, int]] = {}
    finals: dict[str, list[str]] = {}
    for round_number in range(args.rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter_ns()
            actions, turns, ends = loops[name]()
            elapsed = time.perf_counter_ns() - started
            # Every round plays the same games.
            assert work.setdefault(name, (actions, turns)) == (actions, turns), name
            assert finals.setdefault(name, ends) == ends, name
            ns_per_action[name].append(elapsed / actions)
            ns_per_turn[name].append(elapsed / turns)
    assert finals["module"] == finals["open_spiel wrapper"], "the wrapper played other games"

    median = {name: statistics.median(ns_per_turn[name]) for name in names}
    # The overhead of each round against the module's time in the same round,
    # then the median: a busy spell slows both alike.
    overheads = {
        name: [
            100.0 * (ours / base - 1.0)
            for ours, base in zip(ns_per_turn[name], ns_per_turn["module"], strict=True)
        ]
        for name in names
    }
    overhead = {name: statistics.median(overheads[name]) for name in names}
    print(
        f"{args.games} random games per loop, up to {MAX_PLIES} plies, {args.rounds} rounds; "
        f"Python {platform.python_version()}, pyspiel {pyspiel.__version__}, sternhalma {commit()}"
    )
    print()
    print("| loop | plies (turns) per round | ns per turn (median) | vs the module |")
    print("|---|---:|---:|---:|")
    for name in names:
        actions, turns = work[name]
        extra = ""
        if actions != turns:
            extra = f" ({actions} actions: {statistics.median(ns_per_action[name]):.0f} ns each)"
        print(
            f"| {name} | {turns}{extra} | {median[name]:.0f} | "
            f"{'' if name == 'module' else f'{overhead[name]:+.0f} %'} |"
        )

    record = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "commit": commit(),
        "note": args.note,
        "python": platform.python_version(),
        "pyspiel": pyspiel.__version__,
        "machine": platform.machine(),
        "games": args.games,
        "max_plies": MAX_PLIES,
        "rounds": args.rounds,
        "loops": [
            {
                "name": name,
                "turns_per_round": work[name][1],
                "actions_per_round": work[name][0],
                "ns_per_turn": ns_per_turn[name],
                "ns_per_action": ns_per_action[name],
                "median_ns_per_turn": median[name],
                "overhead_percent_vs_module": overheads[name],
                "median_overhead_percent_vs_module": overhead[name],
            }
            for name in names
        ],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(record, indent=1) + "\n")
    print(
        f"\nwritten: {args.json.relative_to(ROOT) if args.json.is_relative_to(ROOT) else args.json}"
    )


if __name__ == "__main__":
    main()
