"""Instructions per `legal_moves_into` call on every board, counted by callgrind.

For each case of `benches/boards.rs` (every board the crate knows, two
players, at the start, in the middle and near the end of a seeded game:
`star4/start`, `rhombus9p10/middle`, ...), it runs

    valgrind --tool=callgrind examples/movegen_calls CASE CALLS

twice, with CALLS and 2 x CALLS calls (default 2000 and 4000), and reports
the difference of the two instruction counts over CALLS: the instructions
of one call, the program's start-up (building the board, playing the seeded
game) cancelling out. Callgrind counts instructions, not seconds, so the
numbers do not move with the machine's load, and a before/after comparison
is stable on a busy machine.

With `--rev REV` it also builds the example at REV, in a temporary `git
worktree` with its own target folder under /tmp (kept, to be reused by the
next run at the same commit), and gives a before (REV) / after table. The
after is this working tree, uncommitted changes included (the JSON lists
those to `src/`), or with `--after REV2` the revision REV2, built the same
way as REV and so immune to edits in progress in the tree. The harness (the
example and `benches/boards.rs`) is copied from this working tree into each
worktree, so both sides run the same harness on the same positions and only
the engine differs; the harness uses only the public API. Both sides must
list the same cases, positions and move counts, or the script exits with
status 1.

    python3 benches/callgrind_movegen.py                      # this tree
    python3 benches/callgrind_movegen.py --rev 48248d5        # before/after
    python3 benches/callgrind_movegen.py --rev 48248d5 --after 91ebce4
    python3 benches/callgrind_movegen.py --rev 48248d5 --cases star4

It prints a Markdown table (case, moves, instructions per call, per move)
and writes everything measured as JSON to
`benches/results/callgrind-movegen-<date>.json` (or `--json PATH`).
Standard library only; needs `cargo`, `git` and `valgrind` on the PATH.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "movegen_calls"
# The harness: copied into a worktree at another revision.
HARNESS = ("examples/movegen_calls.rs", "benches/boards.rs")
# The function the generator runs when the processor has BMI1 and BMI2
# (since 91ebce4); whether callgrind saw it called is recorded.
BMI_FUNCTION = "generate_plain_bmi"


@dataclass
class Case:
    """One line of `movegen_calls list`."""

    name: str
    moves: int
    rules: str
    seed: int
    length: int
    ply: int
    position: str


@dataclass
class Count:
    """A case's two callgrind runs and what they give."""

    low: int
    high: int
    calls: int
    moves: int
    bmi: bool

    @property
    def per_call(self) -> float:
        return (self.high - self.low) / self.calls

    @property
    def per_move(self) -> float:
        return self.per_call / self.moves

    def to_json(self) -> dict[str, Any]:
        return {
            "instructions_low": self.low,
            "instructions_high": self.high,
            "calls_low": self.calls,
            "calls_high": 2 * self.calls,
            "per_call": self.per_call,
            "per_move": self.per_move,
            "bmi_path": self.bmi,
        }


@dataclass
class Side:
    """One build of the example: this working tree or a revision."""

    label: str
    commit: str
    exe: Path
    dirty: list[str] = field(default_factory=list)
    harness: dict[str, str] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    counts: dict[str, Count] = field(default_factory=dict)


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Runs `cmd`, returning its standard output; exits on failure."""
    proc = subprocess.run(cmd, check=False, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(
            f"{' '.join(cmd)} (in {cwd}) failed with status {proc.returncode}:\n"
            f"{proc.stdout}{proc.stderr}"
        )
    return proc.stdout


def git(*args: str, cwd: Path = ROOT) -> str:
    return run(["git", *args], cwd).strip()


def build(tree: Path, target_dir: Path | None) -> Path:
    """Builds the example in `tree` (release); returns the executable."""
    env = dict(os.environ)
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    print(f"building {EXAMPLE} in {tree}", file=sys.stderr, flush=True)
    run(
        ["cargo", "build", "--release", "-p", "sternhalma", "--example", EXAMPLE],
        tree,
        env,
    )
    target = target_dir if target_dir is not None else tree / "target"
    return target / "release" / "examples" / EXAMPLE


def list_cases(exe: Path) -> list[Case]:
    lines = run([str(exe), "list"], ROOT).splitlines()
    header = lines[0].split("\t")
    expected = ["case", "moves", "rules", "seed", "length", "ply", "position"]
    if header != expected:
        sys.exit(f"{exe} list: unexpected header {header}, expected {expected}")
    cases = []
    for line in lines[1:]:
        name, moves, rules, seed, length, ply, position = line.split("\t")
        cases.append(Case(name, int(moves), rules, int(seed), int(length), int(ply), position))
    return cases


def callgrind(exe: Path, case: str, calls: int, scratch: Path) -> tuple[int, bool]:
    """Instructions executed by `exe CASE CALLS`, and whether the BMI
    generator ran."""
    out = scratch / f"{case.replace('/', '_')}-{calls}-{threading.get_ident()}.out"
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        str(exe),
        case,
        str(calls),
    ]
    run(cmd, scratch)
    text = out.read_text()
    out.unlink()
    found = re.search(r"^totals:\s*(\d+)", text, re.MULTILINE) or re.search(
        r"^summary:\s*(\d+)", text, re.MULTILINE
    )
    if found is None:
        sys.exit(f"{' '.join(cmd)}: no instruction total in the callgrind output")
    return int(found.group(1)), BMI_FUNCTION in text


def measure(sides: list[Side], calls: int, jobs: int) -> None:
    """Fills each side's counts: two callgrind runs per case."""
    runs = [(side, case, n) for side in sides for case in side.cases for n in (calls, 2 * calls)]
    done = 0
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="callgrind-movegen-") as tmp:
        scratch = Path(tmp)

        def one(item: tuple[Side, Case, int]) -> tuple[int, bool]:
            nonlocal done
            side, case, n = item
            result = callgrind(side.exe, case.name, n, scratch)
            with lock:
                done += 1
                print(
                    f"[{done}/{len(runs)}] {side.label}: {case.name} x{n}: {result[0]} instructions",
                    file=sys.stderr,
                    flush=True,
                )
            return result

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(one, runs))
    by_run = {(id(side), case.name, n): r for (side, case, n), r in zip(runs, results)}
    for side in sides:
        for case in side.cases:
            low, bmi_low = by_run[(id(side), case.name, calls)]
            high, bmi_high = by_run[(id(side), case.name, 2 * calls)]
            side.counts[case.name] = Count(low, high, calls, case.moves, bmi_low or bmi_high)


@contextlib.contextmanager
def worktree(commit: str) -> Iterator[Path]:
    """A temporary detached worktree at `commit`, removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix=f"callgrind-movegen-{commit[:7]}-"))
    tree = tmp / "tree"
    git("worktree", "add", "--detach", str(tree), commit)
    try:
        yield tree
    finally:
        git("worktree", "remove", "--force", str(tree))
        shutil.rmtree(tmp, ignore_errors=True)


def copy_harness(tree: Path) -> dict[str, str]:
    """Copies the harness from this working tree into `tree`; says, per file,
    whether the revision had it (and the same)."""
    notes = {}
    for name in HARNESS:
        source, dest = ROOT / name, tree / name
        if not dest.exists():
            notes[name] = "absent at the revision; copied"
        elif dest.read_bytes() == source.read_bytes():
            notes[name] = "same at the revision"
        else:
            notes[name] = "differs at the revision; replaced by this tree's"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
    return notes


def at_revision(rev: str, stack: contextlib.ExitStack) -> Side:
    """The example built at `rev`, in a worktree that `stack` removes."""
    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    tree = stack.enter_context(worktree(commit))
    notes = copy_harness(tree)
    target = Path(tempfile.gettempdir()) / f"sternhalma-callgrind-{commit[:12]}-target"
    return Side(commit[:7], commit, build(tree, target), harness=notes)


def dirty_engine() -> list[str]:
    """Uncommitted changes to the engine the example is built with."""
    out = git("status", "--porcelain", "--", "src", "Cargo.toml", "Cargo.lock")
    return [line for line in out.splitlines() if line]


def check_same_cases(before: Side, after: Side) -> list[str]:
    """The differences between the two sides' case lists."""
    problems = []
    old = {case.name: case for case in before.cases}
    new = {case.name: case for case in after.cases}
    for name in sorted(old.keys() ^ new.keys()):
        problems.append(f"{name}: only at {'before' if name in old else 'after'}")
    for name in [n for n in new if n in old]:
        if old[name].position != new[name].position:
            problems.append(f"{name}: different positions")
        elif old[name].moves != new[name].moves:
            problems.append(f"{name}: {old[name].moves} moves before, {new[name].moves} after")
    return problems


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(after: Side, before: Side | None) -> str:
    lines = []
    if before is None:
        lines.append("| case | moves | instructions per call | per move |")
        lines.append("|---|---:|---:|---:|")
        for case in after.cases:
            count = after.counts[case.name]
            lines.append(
                f"| {case.name} | {case.moves} | {count.per_call:,.1f} | {count.per_move:,.1f} |"
            )
        return "\n".join(lines)
    lines.append(
        f"| case | moves | per call, before ({before.label}) | per call, after ({after.label}) "
        "| after/before | per move, before | per move, after |"
    )
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    ratios: dict[str, list[float]] = {}
    for case in after.cases:
        new = after.counts[case.name]
        old = before.counts.get(case.name)
        if old is None:
            continue
        ratio = new.per_call / old.per_call
        ratios.setdefault(case.name.rsplit("/", 1)[1], []).append(ratio)
        mark = " **slower**" if ratio > 1 else ""
        lines.append(
            f"| {case.name} | {case.moves} | {old.per_call:,.1f} | {new.per_call:,.1f} "
            f"| {ratio:.3f}{mark} | {old.per_move:,.1f} | {new.per_move:,.1f} |"
        )
    lines.append("")
    every = [r for phase in ratios.values() for r in phase]
    if every:
        lines.append("after/before, geometric mean of the instructions per call:")
        for phase, values in ratios.items():
            lines.append(f"- {phase}: {geomean(values):.3f} over {len(values)} cases")
        slower = sum(1 for r in every if r > 1)
        lines.append(
            f"- all: {geomean(every):.3f} over {len(every)} cases "
            f"({slower} slower, range {min(every):.3f} to {max(every):.3f})"
        )
    return "\n".join(lines)


def side_json(side: Side) -> dict[str, Any]:
    return {
        "label": side.label,
        "commit": side.commit,
        "uncommitted_changes": side.dirty,
        "harness": side.harness,
        "executable": str(side.exe),
        "bmi_path_seen": any(count.bmi for count in side.counts.values()),
    }


def output_path(requested: str | None) -> Path:
    if requested is not None:
        return Path(requested)
    results = ROOT / "benches" / "results"
    stem = f"callgrind-movegen-{datetime.date.today().isoformat()}"
    path = results / f"{stem}.json"
    n = 2
    while path.exists():
        path = results / f"{stem}-{n}.json"
        n += 1
    return path


def tool_version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, check=False, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rev", help="also measure this git revision (before/after table)")
    parser.add_argument(
        "--after",
        metavar="REV",
        help="measure this revision as 'after' instead of the working tree (which may hold "
        "others' uncommitted changes)",
    )
    parser.add_argument(
        "--calls",
        type=int,
        default=2000,
        help="calls of the shorter run; the longer makes twice as many (default 2000)",
    )
    parser.add_argument(
        "--cases",
        metavar="REGEX",
        help="only the cases whose name this regular expression matches (re.search)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="callgrind runs at once (default 2; counts do not depend on it)",
    )
    parser.add_argument("--json", help="where to write the results (default benches/results/)")
    args = parser.parse_args()
    if args.calls < 1 or args.jobs < 1:
        parser.error("--calls and --jobs must be at least 1")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not on the PATH")

    pattern = re.compile(args.cases) if args.cases else None
    with contextlib.ExitStack() as stack:
        if args.after is None:
            head = git("rev-parse", "HEAD")
            dirty = dirty_engine()
            label = "tree " + head[:7] + ("+changes" if dirty else "")
            after = Side(label, head, build(ROOT, None), dirty=dirty)
        else:
            after = at_revision(args.after, stack)
        after.cases = list_cases(after.exe)
        if pattern is not None:
            after.cases = [case for case in after.cases if pattern.search(case.name)]
            if not after.cases:
                sys.exit(f"no case matches {args.cases!r}")
        sides = [after]
        before = None
        problems: list[str] = []
        if args.rev is not None:
            before = at_revision(args.rev, stack)
            wanted = {case.name for case in after.cases}
            before.cases = [case for case in list_cases(before.exe) if case.name in wanted]
            problems = check_same_cases(before, after)
            sides.append(before)
        measure(sides, args.calls, args.jobs)

    print(table(after, before))
    for problem in problems:
        print(f"MISMATCH {problem}", file=sys.stderr)

    path = output_path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    before_counts = before.counts if before is not None else {}
    document = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": sys.argv,
        "method": (
            "valgrind --tool=callgrind on examples/movegen_calls.rs CASE CALLS, with CALLS = "
            "calls_low and calls_high; per_call = (instructions_high - instructions_low) / "
            "(calls_high - calls_low); per_move = per_call / moves"
        ),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "valgrind": tool_version(["valgrind", "--version"]),
            "rustc": tool_version(["rustc", "--version"]),
        },
        "after": side_json(after),
        "before": side_json(before) if before is not None else None,
        "mismatches": problems,
        "cases": [
            {
                "name": case.name,
                "moves": case.moves,
                "rules": case.rules,
                "seed": case.seed,
                "game_length": case.length,
                "ply": case.ply,
                "position": case.position,
                "after": after.counts[case.name].to_json(),
                "before": (
                    before_counts[case.name].to_json() if case.name in before_counts else None
                ),
            }
            for case in after.cases
        ],
    }
    path.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {path}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
