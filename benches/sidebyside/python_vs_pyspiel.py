"""Our Python module against open_spiel's (pyspiel), side by side in one process.

    .venv/bin/python benches/sidebyside/python_vs_pyspiel.py            # about a minute
    .venv/bin/python benches/sidebyside/python_vs_pyspiel.py --rounds 3 --quick

Both engines get the same positions, as our position string and as
open_spiel's action history, in two sets measured side by side in every run
(benches/sidebyside/positions.py writes both):

- the 200 positions of benches/sidebyside/positions.json: turn starts of
  seeded two-player open_spiel games, mostly forward play (openings, middle
  games, end games);
- the 1820 positions of benches/sidebyside/positions_random.json: turn starts
  at plies 10 to 100 of our own seeded uniformly random games (seeds 1 to
  20), replayed into open_spiel's actions. Their tables say "random-game set".

Each round times every measurement for both
engines, one after the other, the order swapped every other round, so a
busy spell of the machine hits both alike; the tables give each round's
ratio and the median over the rounds. It measures only: it never passes or
fails on time. It checks the work it times (move counts, turns played), so
a change that makes a call do different work is an error, not a speed-up.

The measurements:

- ``legal_actions``: one call per position, every position of the set. We
  list whole turns (every hop chain's end, ~43 moves on average in the
  200-position set, ~49 in the random-game set); open_spiel lists single
  steps and first hops (~41; ~43), a chain going on hop by hop. Both sets
  get about the same number of calls a round: 250 passes over the 200
  positions, 27 over the 1820.
- random playout loop: from each position, a Python loop of
  ``legal_actions()`` + ``apply_action(random.choice(...))`` checking
  ``is_terminal()`` each time, for a fixed number of turns (a turn is one
  of our actions; in open_spiel, every action until the player to move
  changes). Turns per second.
- whole turns: our ``legal_moves`` (Move objects) against the whole turns
  rebuilt in Python from open_spiel's hop actions (depth first, cloning
  the state for each action, as a user of pyspiel has to).
- ``playout()``: our built-in playout (Rust, no Python per move) against
  pyspiel's Python loop above; ``rollouts()`` the same for a batch of
  positions at once, the GIL released and both cores used.
- ``VectorEnv``: steps per second of N games stepped at once from numpy
  actions (ours only; open_spiel has no such thing).

Every measurement but ``VectorEnv`` is made on both sets, each round, the
random-game set right after the 200-position one.
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

import numpy as np
import pyspiel
import sternhalma
from sternhalma import Position

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


SETS = {"": "positions.json", "_random": "positions_random.json"}  # row-key suffix -> file


def load_positions(name: str = "positions.json") -> list[dict]:
    if not (HERE / name).exists():
        # positions_random.json is generated, not kept in git (about 1 MB):
        # positions.py writes it in about ten seconds.
        subprocess.run([sys.executable, str(HERE / "positions.py")], check=True)
    return json.loads((HERE / name).read_text())["positions"]


def pyspiel_state(game, actions: list[int]):
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


# ---------------------------------------------------------------------------
# The work each engine does, returning a count that proves it was done.
# ---------------------------------------------------------------------------


def legal_actions_pass(states: list, reps: int) -> int:
    total = 0
    for _ in range(reps):
        for state in states:
            total += len(state.legal_actions())
    return total


def ours_playout_loop(starts: list[Position], turns: int, seed: int) -> int:
    rng = random.Random(seed)
    played = 0
    for start in starts:
        state = start.copy()
        for _ in range(turns):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
            played += 1
    return played


def pyspiel_playout_loop(starts: list, turns: int, seed: int) -> int:
    rng = random.Random(seed)
    played = 0
    for start in starts:
        state = start.clone()
        done = 0
        while done < turns and not state.is_terminal():
            mover = state.current_player()
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal() or state.current_player() != mover:
                done += 1
        played += done
    return played


def pyspiel_whole_turns(states: list, pass_action: int) -> int:
    """The (from, to) turns open_spiel allows, rebuilt in Python from its hop
    actions, as a user of pyspiel would: depth first, cloning the state for
    each action, reading each action's landing from ``action_to_string``
    (``c->n`` a step, ``c=>l`` a hop), not expanding a landing twice."""
    total = 0
    for state in states:
        mover = state.current_player()
        turns: set[tuple[str, str]] = set()
        stack = [(state, None, set())]
        while stack:
            node, start, seen = stack.pop()
            for action in node.legal_actions():
                if action == pass_action:
                    continue  # ends a chain whose landing is recorded already
                text = node.action_to_string(mover, action)
                here, landing = text.split("=>") if "=>" in text else text.split("->")
                origin = start or here
                turns.add((origin, landing))
                if "=>" not in text:
                    continue
                reached = seen if start else {here}
                if landing in reached:
                    continue
                reached.add(landing)
                child = node.clone()
                child.apply_action(action)
                if not child.is_terminal() and child.current_player() == mover:
                    stack.append((child, origin, reached))
        total += len({t for t in turns if t[0] != t[1]})
    return total


def ours_whole_turns(positions: list[Position]) -> int:
    return sum(len(position.legal_moves) for position in positions)


# ---------------------------------------------------------------------------
# Timing.
# ---------------------------------------------------------------------------


def timed(body: Callable[[], int]) -> tuple[float, int]:
    started = time.perf_counter()
    count = body()
    return time.perf_counter() - started, count


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
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


class Row:
    """One measurement: per round, our rate and open_spiel's (or None)."""

    def __init__(self, name: str, unit: str, positions: str | None = None) -> None:
        self.name = name
        self.unit = unit
        self.positions = positions  # the position file measured, if any
        self.ours: list[float] = []
        self.theirs: list[float] = []

    def ratios(self) -> list[float]:
        return [o / t for o, t in zip(self.ours, self.theirs, strict=False)]

    def as_dict(self) -> dict:
        out: dict = {"name": self.name, "unit": self.unit, "ours": self.ours}
        if self.positions:
            out["positions"] = self.positions
        if self.theirs:
            out["open_spiel"] = self.theirs
            out["ratio"] = self.ratios()
            out["median_ratio"] = statistics.median(self.ratios())
        out["median_ours"] = statistics.median(self.ours)
        return out


class PositionSet:
    """One position file, loaded in both engines, its move counts checked."""

    def __init__(self, suffix: str, file: str, game) -> None:
        self.suffix = suffix
        self.file = file
        self.records = load_positions(file)
        n = len(self.records)
        self.label = f"random-game set ({n} positions)" if suffix else f"{n} positions"
        self.theirs = [pyspiel_state(game, r["open_spiel_actions"]) for r in self.records]
        self.ours = [Position(r["position"]) for r in self.records]
        for record, position, state in zip(self.records, self.ours, self.theirs, strict=True):
            if len(position.legal_actions()) != record["our_moves"]:
                raise SystemExit(f"our move count changed at {record['position']} ({file})")
            if state.is_terminal():
                raise SystemExit(f"open_spiel's game is over at {record['position']} ({file})")
            if len(state.legal_actions()) != record["open_spiel_first_actions"]:
                raise SystemExit(f"open_spiel's actions changed at {record['position']} ({file})")
        self.our_actions = sum(len(p.legal_actions()) for p in self.ours)
        self.their_actions = sum(len(s.legal_actions()) for s in self.theirs)


def pair(row: Row, swap: bool, ours: Callable[[], tuple[float, int]], theirs) -> None:
    """Time both engines, in an order that alternates with the rounds."""
    order = [("ours", ours), ("theirs", theirs)]
    if swap:
        order.reverse()
    for who, body in order:
        if body is None:
            continue
        rate = body()
        (row.ours if who == "ours" else row.theirs).append(rate)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="less work per round (a smoke run)")
    parser.add_argument("--output", type=Path, help="JSON results (default benches/results/)")
    args = parser.parse_args(argv)
    scale = 0.2 if args.quick else 1.0

    game = pyspiel.load_game("chinese_checkers", {"players": 2})
    sets = [PositionSet(suffix, name, game) for suffix, name in SETS.items()]
    load_before = loadavg()

    # Calls of `legal_actions()` per engine and round, in each set: 250 passes
    # over the 200 positions, as many calls over the larger random-game set.
    calls_per_round = max(1, int(250 * scale)) * len(sets[0].ours)
    turns = 100
    step = 1 if scale == 1 else 5
    pass_action = game.num_distinct_actions() - 1
    # The rows of each measurement, the 200-position set's first, the
    # random-game set's beside it.
    measured = {
        "legal_actions": ("`legal_actions()` per call", "calls/s"),
        "loop": ("random playout loop (`legal_actions` + `apply_action`)", "turns/s"),
        "whole": ("whole turns: `legal_moves` vs rebuilt from hop actions", "calls/s"),
        "playout": ("built-in `playout()` vs pyspiel's Python loop", "turns/s"),
        "rollouts": ("`rollouts()` (batch, GIL released) vs pyspiel's Python loop", "turns/s"),
    }
    rows: dict[str, Row] = {}
    for key, (name, unit) in measured.items():
        for ps in sets:
            # The 200-position set's titles are those of the runs before the
            # second set: only `legal_actions` names its set.
            title = f"{name}, {ps.label}" if ps.suffix or key == "legal_actions" else name
            rows[key + ps.suffix] = Row(title, unit, ps.file)
    rows["vector"] = Row("`VectorEnv.step` of 1024 games, `random_actions()`", "steps/s")
    rows["vector_numpy"] = Row(
        "`VectorEnv.step` of 1024 games, a numpy choice among `legal_actions()`", "steps/s"
    )

    def rate(body: Callable[[], int], expect: int | None = None) -> Callable[[], float]:
        def run() -> float:
            seconds, count = timed(body)
            if expect is not None and count != expect:
                raise SystemExit(f"work changed: {count} != {expect}")
            return count / seconds

        return run

    def per_call(body: Callable[[], int], calls: int, expect: int) -> Callable[[], float]:
        def run() -> float:
            seconds, count = timed(body)
            if count != expect:
                raise SystemExit(f"work changed: {count} != {expect}")
            return calls / seconds

        return run

    has_playout = hasattr(Position, "playout")
    has_rollouts = hasattr(sternhalma, "rollouts")
    has_vector = hasattr(sternhalma, "VectorEnv")
    vector = sternhalma.VectorEnv(1024, seed=1) if has_vector else None
    for round_ in range(args.rounds):
        swap = round_ % 2 == 1
        seed = 1000 + round_
        for ps in sets:
            key = ps.suffix
            ours, theirs, records = ps.ours, ps.theirs, ps.records
            reps = max(1, round(calls_per_round / len(ours)))
            calls = reps * len(ours)
            starts_ours, starts_theirs = ours[::step], theirs[::step]
            rebuild = list(range(0, len(records), step))
            pair(
                rows["legal_actions" + key],
                swap,
                per_call(
                    lambda ours=ours, reps=reps: legal_actions_pass(ours, reps),
                    calls,
                    ps.our_actions * reps,
                ),
                per_call(
                    lambda theirs=theirs, reps=reps: legal_actions_pass(theirs, reps),
                    calls,
                    ps.their_actions * reps,
                ),
            )
            pair(
                rows["loop" + key],
                swap,
                rate(lambda s=starts_ours, seed=seed: ours_playout_loop(s, turns, seed)),
                rate(lambda s=starts_theirs, seed=seed: pyspiel_playout_loop(s, turns, seed)),
            )
            loop_theirs = rows["loop" + key].theirs[-1]
            pair(
                rows["whole" + key],
                swap,
                per_call(
                    lambda ours=ours, rebuild=rebuild: ours_whole_turns([ours[i] for i in rebuild]),
                    len(rebuild),
                    sum(records[i]["our_moves"] for i in rebuild),
                ),
                per_call(
                    lambda theirs=theirs, rebuild=rebuild: pyspiel_whole_turns(
                        [theirs[i] for i in rebuild], pass_action
                    ),
                    len(rebuild),
                    sum(records[i]["open_spiel_turn_moves"] for i in rebuild),
                ),
            )
            if has_playout:
                cap = 200

                def builtin(seed: int = seed, cap: int = cap, ours=ours) -> int:
                    return sum(
                        p.playout(seed=seed + i, max_plies=cap).ply - p.ply
                        for i, p in enumerate(ours)
                    )

                rows["playout" + key].ours.append(rate(builtin)())
                rows["playout" + key].theirs.append(loop_theirs)
            if has_rollouts:
                batch = [p for p in ours for _ in range(4)]

                def batched(seed: int = seed, batch=batch) -> int:
                    _returns, plies = sternhalma.rollouts(batch, seed=seed, max_plies=200)
                    return int(plies.sum())

                rows["rollouts" + key].ours.append(rate(batched)())
                rows["rollouts" + key].theirs.append(loop_theirs)
        if vector is not None:
            steps = int(400 * scale) + 1

            def stepping(vector=vector, steps: int = steps) -> int:
                for _ in range(steps):
                    vector.step(vector.random_actions())
                return steps * vector.num_envs

            def stepping_numpy(vector=vector, steps: int = steps, seed: int = seed) -> int:
                rng = np.random.default_rng(seed)
                rows = np.arange(vector.num_envs)
                for _ in range(steps):
                    legal = vector.legal_actions()
                    counts = (legal >= 0).sum(axis=1)
                    vector.step(
                        legal[rows, (rng.random(vector.num_envs) * counts).astype(np.int64)]
                    )
                return steps * vector.num_envs

            rows["vector"].ours.append(rate(stepping)())
            rows["vector_numpy"].ours.append(rate(stepping_numpy)())
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    load_after = loadavg()

    used = [row for row in rows.values() if row.ours]
    print(
        f"\nPython {platform.python_version()}, pyspiel {pyspiel_version()}, sternhalma {commit()},"
    )
    print(f"{os.cpu_count()} cores, load average before {load_before}, after {load_after}\n")
    for row in used:
        print(f"**{row.name}** ({row.unit})\n")
        if row.theirs:
            print("| round | ours | open_spiel | ours / open_spiel |")
            print("| ---: | ---: | ---: | ---: |")
            for i, (o, t) in enumerate(zip(row.ours, row.theirs, strict=False)):
                print(f"| {i + 1} | {o:,.0f} | {t:,.0f} | {o / t:.2f} |")
            print(
                f"| **median** | {statistics.median(row.ours):,.0f} | "
                f"{statistics.median(row.theirs):,.0f} | **{statistics.median(row.ratios()):.2f}** |\n"
            )
        else:
            print("| round | ours |")
            print("| ---: | ---: |")
            for i, o in enumerate(row.ours):
                print(f"| {i + 1} | {o:,.0f} |")
            print(f"| **median** | **{statistics.median(row.ours):,.0f}** |\n")
    output = (
        args.output
        or ROOT / "benches" / "results" / f"sidebyside-python-{time.strftime('%Y-%m-%d')}.json"
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "pyspiel": pyspiel_version(),
                "commit": commit(),
                "cores": os.cpu_count(),
                "load_before": load_before,
                "load_after": load_after,
                "rounds": args.rounds,
                "quick": args.quick,
                "rows": [row.as_dict() for row in used],
            },
            indent=1,
        )
        + "\n"
    )
    print(
        f"results written to {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}"
    )
    return 0


def pyspiel_version() -> str:
    from importlib.metadata import version

    return version("open_spiel")


if __name__ == "__main__":
    sys.exit(main())
