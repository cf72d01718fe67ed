"""What the RL wrappers (`sternhalma.envs`) cost per move over the plain
module loop.

Times, in one process and in interleaved rounds (each round runs every
variant once, in an order that rotates with the round, so a busy spell of
the machine hits them alike), seeded random-agent games:

- the classic two-player game (``Position.start()``, up to 1000 plies):
  (a) the plain module loop, ``legal_actions`` / ``apply_action`` /
  ``is_terminal``; (b) the PettingZoo AEC loop of ``sternhalma_v0.env()``
  (``agent_iter``, ``last``, a choice among the action mask's ones,
  ``step``), which plays the very same games (the mask's ones are the legal
  actions in the same order), with PettingZoo's wrappers (``env()``) and
  without (``raw_env``), the mask read with ``np.flatnonzero(mask)`` as
  most code does, or through ``mask.view(bool)`` (numpy's nonzero is about
  20 times faster on booleans than on int8, the masks' Gymnasium dtype);
  (c) the same AEC loop sampling the way
  PettingZoo's own tests do, ``action_space(agent).sample(mask)`` (other
  games, same length);
- the solitaire crossing of the standard board (up to 1000 moves): the
  plain loop against ``SolitaireEnv.step`` (the same moves, chosen from
  ``info["action_mask"]``), bare and as ``gymnasium.make`` wraps it.

Reports nanoseconds per ply (per step) for each, the median of the rounds,
and each wrapper's overhead over its plain loop in per cent; writes every
round to ``benches/results/wrappers-pettingzoo.json`` with the date, the
commit and the machine's cores and load.

    .venv/bin/pip install ".[rl]"                          # or tests/requirements.txt
    .venv/bin/python benches/wrappers/pettingzoo_loop.py   # about a minute
    .venv/bin/python benches/wrappers/pettingzoo_loop.py --quick   # a smoke run

It measures only: it never passes or fails on time. It checks the work it
times (the wrapped loops play as many plies, and end in the same positions,
as the plain ones), so a change that makes them do different work is an
error, not a speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium
import numpy as np
import sternhalma
from sternhalma import Position
from sternhalma.envs import SOLITAIRE_ID, SolitaireEnv, sternhalma_v0

ROOT = Path(__file__).resolve().parents[2]
MAX_PLIES = 1000


def plain_games(games: int, seed: int) -> tuple[int, list[str]]:
    """(a): random games through the module alone; (plies, final positions)."""
    plies, finals = 0, []
    for game in range(games):
        chooser = random.Random(seed + game)
        position = Position.start()
        played = 0
        while not position.is_terminal() and played < MAX_PLIES:
            position.apply_action(chooser.choice(position.legal_actions()))
            played += 1
        plies += played
        finals.append(str(position))
    return plies, finals


def legal(mask: np.ndarray, as_bool: bool) -> np.ndarray:
    """The legal actions of an int8 mask: numpy's nonzero has a fast path
    for booleans only, so the view makes it about 20 times faster on the
    14,642 actions of the standard board."""
    return np.flatnonzero(mask.view(np.bool_) if as_bool else mask)


def aec_games(
    games: int, seed: int, raw: bool = False, as_bool: bool = False
) -> tuple[int, list[str]]:
    """(b): the same games through the PettingZoo AEC environment (with
    PettingZoo's wrappers, or `raw`)."""
    plies, finals = 0, []
    make = sternhalma_v0.raw_env if raw else sternhalma_v0.env
    environment = make(max_plies=MAX_PLIES)
    for game in range(games):
        chooser = random.Random(seed + game)
        environment.reset()
        for _agent in environment.agent_iter():
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            environment.step(int(chooser.choice(legal(observation["action_mask"], as_bool))))
            plies += 1
        finals.append(str(environment.unwrapped.position))
    return plies, finals


def aec_sampled_games(games: int, seed: int) -> tuple[int, list[str]]:
    """(c): the AEC loop sampling from the action spaces, as PettingZoo's
    tests and tutorials do."""
    plies, finals = 0, []
    environment = sternhalma_v0.env(max_plies=MAX_PLIES)
    for game in range(games):
        environment.reset(seed=seed + game)
        for agent in environment.agent_iter():
            observation, _, terminated, truncated, _ = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            environment.step(environment.action_space(agent).sample(observation["action_mask"]))
            plies += 1
        finals.append(str(environment.unwrapped.position))
    return plies, finals


def plain_crossings(episodes: int, seed: int) -> tuple[int, list[str]]:
    """The solitaire random walk through the module alone."""
    steps, finals = 0, []
    for episode in range(episodes):
        chooser = random.Random(seed + episode)
        position = Position.start(layout="1")
        played = 0
        while not position.is_terminal() and played < MAX_PLIES:
            position.apply_action(chooser.choice(position.legal_actions()))
            played += 1
        steps += played
        finals.append(str(position))
    return steps, finals


def gymnasium_crossings(
    make: Callable[[], gymnasium.Env], as_bool: bool = False
) -> Callable[[int, int], tuple]:
    """The same walk through a Gymnasium environment made by `make`."""

    def run(episodes: int, seed: int) -> tuple[int, list[str]]:
        steps, finals = 0, []
        environment = make()
        for episode in range(episodes):
            chooser = random.Random(seed + episode)
            _, info = environment.reset(seed=seed + episode)
            while True:
                action = int(chooser.choice(legal(info["action_mask"], as_bool)))
                _, _, terminated, truncated, info = environment.step(action)
                steps += 1
                if terminated or truncated:
                    break
            finals.append(str(environment.unwrapped.position))
        return steps, finals

    return run


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split(" ", 3)[:3])
    except OSError:
        return "unknown"


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=20, help="games (episodes) per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="2 rounds of 2 games (a smoke run)")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--note", default="", help="a note on the machine, kept in the results")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.games = 2, 2

    # name -> (loop, the plain loop it is compared with or None)
    variants: dict[str, tuple[Callable[[int, int], tuple[int, list[str]]], str | None]] = {
        "classic 2p: plain module loop": (plain_games, None),
        "classic 2p: PettingZoo AEC env()": (aec_games, "classic 2p: plain module loop"),
        "classic 2p: PettingZoo AEC raw_env (no wrappers)": (
            lambda games, seed: aec_games(games, seed, raw=True),
            "classic 2p: plain module loop",
        ),
        "classic 2p: PettingZoo AEC raw_env, choice from mask.view(bool)": (
            lambda games, seed: aec_games(games, seed, raw=True, as_bool=True),
            "classic 2p: plain module loop",
        ),
        "classic 2p: PettingZoo AEC env(), action_space.sample(mask)": (
            aec_sampled_games,
            "classic 2p: plain module loop",
        ),
        "solitaire star4: plain module loop": (plain_crossings, None),
        "solitaire star4: SolitaireEnv.step": (
            gymnasium_crossings(lambda: SolitaireEnv(max_plies=MAX_PLIES)),
            "solitaire star4: plain module loop",
        ),
        "solitaire star4: SolitaireEnv.step, choice from mask.view(bool)": (
            gymnasium_crossings(lambda: SolitaireEnv(max_plies=MAX_PLIES), as_bool=True),
            "solitaire star4: plain module loop",
        ),
        "solitaire star4: gymnasium.make(...).step": (
            gymnasium_crossings(lambda: gymnasium.make(SOLITAIRE_ID, max_plies=MAX_PLIES)),
            "solitaire star4: plain module loop",
        ),
    }
    names = list(variants)
    timings: dict[str, list[float]] = {name: [] for name in names}
    work: dict[str, tuple[int, list[str]]] = {}
    load_before = loadavg()
    for round_ in range(args.rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            loop, _ = variants[name]
            started = time.perf_counter()
            plies, finals = loop(args.games, args.seed)
            seconds = time.perf_counter() - started
            timings[name].append(seconds * 1e9 / plies)
            if name in work:
                assert work[name] == (plies, finals), f"{name}: different work in another round"
            work[name] = (plies, finals)
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    load_after = loadavg()

    # The wrappers must have played what the plain loops played.
    for name, (_, baseline) in variants.items():
        if baseline is None:
            continue
        assert work[name][0] > 0
        if "sample(mask)" in name:
            continue  # other games: only their length is comparable
        assert work[name] == work[baseline], f"{name} played other games than {baseline}"

    rows = []
    print(
        f"\nsternhalma {commit()}, Python {platform.python_version()}, "
        f"PettingZoo {version('pettingzoo')}, Gymnasium {gymnasium.__version__}; "
        f"{os.cpu_count()} cores, load average before {load_before}, after {load_after}; "
        f"{args.rounds} rounds of {args.games} games, up to {MAX_PLIES} plies each\n"
    )
    print("| loop | plies per round | ns per ply (median) | rounds | overhead |")
    print("|---|---:|---:|---|---:|")
    for name, (_, baseline) in variants.items():
        median = statistics.median(timings[name])
        row = {
            "name": name,
            "plies_per_round": work[name][0],
            "ns_per_ply": timings[name],
            "median_ns_per_ply": median,
        }
        overhead = ""
        if baseline is not None:
            base = statistics.median(timings[baseline])
            row["baseline"] = baseline
            row["overhead_percent"] = 100.0 * (median - base) / base
            overhead = f"{row['overhead_percent']:+,.0f} %"
        rows.append(row)
        rounds_text = ", ".join(f"{t:,.0f}" for t in timings[name])
        print(f"| {name} | {work[name][0]:,} | {median:,.0f} | {rounds_text} | {overhead} |")

    output = args.output or ROOT / "benches" / "results" / "wrappers-pettingzoo.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                "commit": commit(),
                "machine": {
                    "python": platform.python_version(),
                    "platform": platform.platform(),
                    "cores": os.cpu_count(),
                    "load_before": load_before,
                    "load_after": load_after,
                    "note": args.note,
                },
                "versions": {
                    "sternhalma": sternhalma.__version__,
                    "pettingzoo": version("pettingzoo"),
                    "gymnasium": gymnasium.__version__,
                    "numpy": np.__version__,
                },
                "rounds": args.rounds,
                "games": args.games,
                "seed": args.seed,
                "max_plies": MAX_PLIES,
                "quick": args.quick,
                "rows": rows,
            },
            indent=1,
        )
        + "\n"
    )
    shown = output.relative_to(ROOT) if output.is_relative_to(ROOT) else output
    print(f"\nresults written to {shown}")
    return 0


def version(package: str) -> str:
    from importlib.metadata import version as installed

    return installed(package)


if __name__ == "__main__":
    sys.exit(main())
