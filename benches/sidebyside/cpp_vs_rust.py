"""Side by side: our Rust move generator against open_spiel's C++ chinese_checkers.

One command, from the repository root:

    .venv/bin/python benches/sidebyside/cpp_vs_rust.py            # 7 rounds
    .venv/bin/python benches/sidebyside/cpp_vs_rust.py --rounds 3 --target-ms 50   # a smoke run

The first run downloads the sdist (5.6 MB) and compiles open_spiel's files,
about a minute on two busy cores; later runs reuse them and take about 25 s.

It needs g++ (C++20), pkg-config, cargo and Debian's `libabsl-dev` (installed
with apt-get when missing; that needs root or sudo). It then:

1. downloads open_spiel 2.0.2's source distribution from PyPI with pip (the
   sdist holds the C++ tree; sha256 checked) into target/sidebyside-cpp/;
2. extracts the few files the `chinese_checkers` game needs, patches them for
   Debian's older abseil (20220623; see PATCHES below), compiles them with
   open_spiel's release flags (-O3 -DNDEBUG, C++20) and links them with
   benches/sidebyside/openspiel_turns.cc, our harness;
3. builds examples/sidebyside_movegen.rs (cargo, release profile);
4. writes the positions of benches/sidebyside/positions.json and
   positions_random.json in each engine's form, and runs N interleaved rounds
   (C++ then Rust, the order swapped every other round), each engine in a
   fresh process that checks its move counts before timing;
5. prints markdown tables (ns per full-turn enumeration of each engine per
   round, the ratio open_spiel/ours, the medians, the machine load) and writes
   benches/results/sidebyside-cpp-<date>.json.

Options: --rounds N (default 7), --target-ms MS (time per set and method in a
round, default 150), --json PATH, --rebuild (rebuild open_spiel's objects).
The sets: `all` (the 200 positions of positions.json), `middle` (those with
ply 40 to 120), `start` (open_spiel's initial state: north to move) and
`random` (the 1820 positions of positions_random.json: plies 10 to 100 of our
seeded uniformly random games, seeds 1 to 20). What each side times and why is
in benches/sidebyside/CPP.md. It never passes or fails on time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILD = ROOT / "target" / "sidebyside-cpp"
POSITIONS = HERE / "positions.json"
RANDOM_POSITIONS = HERE / "positions_random.json"
HARNESS = HERE / "openspiel_turns.cc"
RESULTS = ROOT / "benches" / "results"

OPEN_SPIEL_VERSION = "2.0.2"
SDIST = f"open_spiel-{OPEN_SPIEL_VERSION}.tar.gz"
SDIST_SHA256 = "6f520dfe499b9e5e1e3a31cf77bf071abb02b98104789e7698021922a064e856"

# The open_spiel sources the game needs (found by linking: the game, the
# State/Game base classes and registry, parameters, observers, status and the
# usage-logging stub).
SOURCES = (
    "open_spiel/games/chinese_checkers/chinese_checkers.cc",
    "open_spiel/spiel.cc",
    "open_spiel/spiel_utils.cc",
    "open_spiel/game_parameters.cc",
    "open_spiel/observer.cc",
    "open_spiel/utils/status.cc",
    "open_spiel/utils/usage_logging.cc",
)
# abseil libraries those sources call (pkg-config names of libabsl-dev).
ABSL_PACKAGES = (
    "absl_strings",
    "absl_str_format",
    "absl_synchronization",
    "absl_raw_hash_set",
    "absl_throw_delegate",
)
# open_spiel's CMake release build: -O3 -DNDEBUG (CMAKE_BUILD_TYPE=Release,
# as its setup.py builds the wheel), C++20. Its own files' warnings are off
# there (-Wno-everything); ours are on.
CXXFLAGS = ("-std=c++20", "-O3", "-DNDEBUG")
OPEN_SPIEL_WARNINGS = ("-w",)
HARNESS_WARNINGS = ("-Wall", "-Wextra")

# Build glue for Debian 12's abseil 20220623 (open_spiel 2.0.2 bundles
# abseil 20250814). Each is (files, regex, replacement, expected count).
PATCHES = (
    # abseil 2025's MutexLock takes the mutex by reference; 2022's by pointer.
    (
        ("open_spiel/spiel.h",),
        r"absl::MutexLock lock\(mutex_defaulted_parameters_\)",
        "absl::MutexLock lock(&mutex_defaulted_parameters_)",
        2,
    ),
    # In abseil 2025 absl::optional is std::optional, and open_spiel uses the
    # two names interchangeably; Debian builds abseil with
    # ABSL_OPTION_USE_STD_OPTIONAL 0, a class of its own. Spell it std::.
    (
        (
            "open_spiel/spiel.h",
            "open_spiel/spiel_utils.h",
            "open_spiel/spiel_utils.cc",
            "open_spiel/observer.h",
            "open_spiel/observer.cc",
            "open_spiel/game_parameters.h",
            "open_spiel/games/chinese_checkers/chinese_checkers.h",
        ),
        r"\babsl::(optional|nullopt|make_optional)\b",
        r"std::\1",
        None,  # at least one
    ),
)

MIDDLE_PLIES = range(40, 121)  # the middle-game subset: ply 40 to 120
# open_spiel's initial state in our notation: the same board, north to move.
START = "star4 classic south:111-120/north:0-9 1 0 -"
START_MOVES = 14
SETS = ("all", "middle", "start", "random")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Runs a build step; its output goes to stderr, stdout is the report."""
    log("$ " + shlex.join(cmd))
    return subprocess.run(cmd, check=True, stdout=sys.stderr, **kwargs)


def output(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---------------------------------------------------------------------------
# Build.
# ---------------------------------------------------------------------------


def ensure_abseil() -> None:
    have_pkg_config = shutil.which("pkg-config") is not None
    if (
        have_pkg_config
        and subprocess.run(["pkg-config", "--exists", *ABSL_PACKAGES], check=False).returncode == 0
    ):
        return
    packages = ["libabsl-dev"] if have_pkg_config else ["libabsl-dev", "pkg-config"]
    install = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if os.geteuid() != 0:
        if not shutil.which("sudo"):
            sys.exit("cpp_vs_rust: libabsl-dev is missing; install it: " + shlex.join(install))
        install = ["sudo", *install]
    try:
        run(install)
    except subprocess.CalledProcessError:  # stale package lists on a fresh machine
        run([*install[: install.index("install")], "update"])
        run(install)


def ensure_sdist() -> Path:
    path = BUILD / "sdist" / SDIST
    if not path.exists():
        # --no-binary open_spiel, not :all:, so that pip takes the build
        # requirements (cmake, ninja) as wheels to read the sdist's metadata
        # rather than compiling cmake from source. Nothing is built.
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                f"open_spiel=={OPEN_SPIEL_VERSION}",
                "--no-binary",
                "open_spiel",
                "--no-deps",
                "-d",
                str(path.parent),
            ]
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        sys.exit(f"cpp_vs_rust: {path} has sha256 {digest}, expected {SDIST_SHA256}")
    return path


def wanted(name: str) -> bool:
    """The sdist members to extract: open_spiel's headers and our sources,
    not its bundled abseil (Debian's is used)."""
    if not name.startswith("open_spiel/") or name.startswith("open_spiel/abseil-cpp/"):
        return False
    return name in SOURCES or name.endswith((".h", ".hpp"))


def extract_and_patch(sdist: Path, tree: Path) -> None:
    prefix = f"open_spiel-{OPEN_SPIEL_VERSION}/"
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        members = []
        for member in tar.getmembers():
            name = member.name.removeprefix(prefix)
            if member.isfile() and wanted(name):
                member.name = name
                members.append(member)
        tar.extractall(tree, members=members, filter="data")
    for files, pattern, replacement, expected in PATCHES:
        total = 0
        for rel in files:
            path = tree / rel
            text, count = re.subn(pattern, replacement, path.read_text())
            path.write_text(text)
            total += count
        if (expected is None and total == 0) or (expected is not None and total != expected):
            sys.exit(f"cpp_vs_rust: patch {pattern!r} applied {total} times, expected {expected}")


def pkg_config(*args: str) -> list[str]:
    return shlex.split(output(["pkg-config", *args, *ABSL_PACKAGES]))


def build_cpp(rebuild: bool) -> tuple[Path, dict]:
    """Compiles open_spiel's game and our harness; returns the binary and
    what went into it."""
    ensure_abseil()
    sdist = ensure_sdist()
    compiler = output(["g++", "--version"]).splitlines()[0]
    abseil = output(["pkg-config", "--modversion", "absl_base"])
    key_text = json.dumps([SDIST_SHA256, compiler, abseil, CXXFLAGS, PATCHES, SOURCES])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:12]
    work = BUILD / f"build-{key}"
    tree, objects = work / "src", work / "obj"
    stamp = work / "done"
    started = time.perf_counter()
    if rebuild or not stamp.exists():
        if work.exists():
            shutil.rmtree(work)
        extract_and_patch(sdist, tree)
        # The sources include abseil as "open_spiel/abseil-cpp/absl/...":
        # point that at Debian's headers.
        shim = work / "shim" / "open_spiel" / "abseil-cpp"
        shim.mkdir(parents=True)
        include_dir = output(["pkg-config", "--variable=includedir", "absl_base"])
        (shim / "absl").symlink_to(Path(include_dir) / "absl")
        objects.mkdir()
    includes = [
        "-isystem",
        str(work / "shim"),
        "-isystem",
        str(tree),
        "-isystem",
        str(tree / "open_spiel" / "json" / "include"),
        *pkg_config("--cflags-only-other"),
    ]

    def compile_one(rel: str) -> Path:
        obj = objects / (rel.replace("/", "_").removesuffix(".cc") + ".o")
        if not obj.exists():
            cmd = ["g++", *CXXFLAGS, *OPEN_SPIEL_WARNINGS, *includes, "-c", str(tree / rel)]
            run([*cmd, "-o", str(obj)])
        return obj

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        objs = list(pool.map(compile_one, SOURCES))
    stamp.touch()
    open_spiel_seconds = time.perf_counter() - started

    binary = work / "openspiel_turns"
    harness_started = time.perf_counter()
    harness_obj = work / "openspiel_turns.o"
    run(
        [
            "g++",
            *CXXFLAGS,
            *HARNESS_WARNINGS,
            *includes,
            "-c",
            str(HARNESS),
            "-o",
            str(harness_obj),
        ]
    )
    run(["g++", "-o", str(binary), str(harness_obj), *map(str, objs), *pkg_config("--libs")])
    harness_seconds = time.perf_counter() - harness_started
    return binary, {
        "compiler": compiler,
        "cxxflags": " ".join(CXXFLAGS),
        "abseil": abseil,
        "open_spiel": f"{SDIST} (PyPI sdist, sha256 {SDIST_SHA256})",
        "sources": list(SOURCES),
        "build_dir": str(work.relative_to(ROOT)),
        "open_spiel_objects_seconds": round(open_spiel_seconds, 1),
        "harness_seconds": round(harness_seconds, 1),
    }


def build_rust() -> tuple[Path, dict]:
    started = time.perf_counter()
    run(["cargo", "build", "--release", "--example", "sidebyside_movegen"], cwd=ROOT)
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    binary = Path(metadata["target_directory"]) / "release" / "examples" / "sidebyside_movegen"
    return binary, {
        "compiler": output(["rustc", "--version"]),
        "profile": "release (opt-level 3, no target-cpu)",
        "build_seconds": round(time.perf_counter() - started, 1),
    }


# ---------------------------------------------------------------------------
# Positions.
# ---------------------------------------------------------------------------


def write_positions() -> tuple[Path, Path, dict]:
    positions = json.loads(POSITIONS.read_text())["positions"]
    cpp_lines = [f"start {START_MOVES}"]
    rust_lines = [f"start {START_MOVES} {START}"]
    middle = 0
    for p in positions:
        group = "middle" if p["ply"] in MIDDLE_PLIES else "other"
        middle += group == "middle"
        actions = " ".join(str(a) for a in p["open_spiel_actions"])
        cpp_lines.append(f"{group} {p['open_spiel_turn_moves']} {actions}")
        rust_lines.append(f"{group} {p['our_moves']} {p['position']}")
    if not RANDOM_POSITIONS.exists():
        # Generated, not kept in git (about 1 MB): positions.py writes it in ~10 s.
        subprocess.run([sys.executable, str(HERE / "positions.py")], check=True)
    randoms = json.loads(RANDOM_POSITIONS.read_text())["positions"]
    for p in randoms:
        actions = " ".join(str(a) for a in p["open_spiel_actions"])
        cpp_lines.append(f"random {p['open_spiel_turn_moves']} {actions}")
        rust_lines.append(f"random {p['our_moves']} {p['position']}")
    BUILD.mkdir(parents=True, exist_ok=True)
    cpp, rust = BUILD / "positions-cpp.txt", BUILD / "positions-rust.txt"
    cpp.write_text("\n".join(cpp_lines) + "\n")
    rust.write_text("\n".join(rust_lines) + "\n")
    about = {
        "file": str(POSITIONS.relative_to(ROOT)),
        "all": len(positions),
        "middle": middle,
        "middle_definition": f"ply {MIDDLE_PLIES.start} to {MIDDLE_PLIES.stop - 1}",
        "start": f"open_spiel's initial state (ours: {START!r})",
        "random_file": str(RANDOM_POSITIONS.relative_to(ROOT)),
        "random": len(randoms),
        "random_definition": "plies 10 to 100 of our seeded uniformly random games, seeds 1-20",
    }
    return cpp, rust, about


# ---------------------------------------------------------------------------
# Rounds and report.
# ---------------------------------------------------------------------------


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def run_engine(cmd: list[str]) -> tuple[dict, float]:
    """The engine's results by (set, method), and the share of a CPU it got
    while it ran (its CPU time over the wall time: below 1 when other work
    took the CPU from it)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"cpp_vs_rust: {shlex.join(cmd)} failed:\n{proc.stderr}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    doc = json.loads(proc.stdout)
    return {(r["set"], r["method"]): r for r in doc["results"]}, cpu / wall


def fmt_ns(ns: float) -> str:
    return f"{ns / 1000:.2f} µs" if ns >= 10_000 else f"{ns:,.0f} ns"


def report(rounds: list[dict], meta: dict) -> str:
    lines = []

    def table(method: str, title: str) -> None:
        lines.append(f"**{title}**\n")
        head = "| round | first | CPU share |"
        rule = "| ---: | --- | ---: |"
        for s in SETS:
            head += f" {s}: open_spiel | {s}: ours | {s}: ratio |"
            rule += " ---: | ---: | ---: |"
        lines.extend([head, rule])
        for i, r in enumerate(rounds, 1):
            share = f"{r['cpu_share']['cpp']:.2f} / {r['cpu_share']['rust']:.2f}"
            row = f"| {i} | {r['first']} | {share} |"
            for s in SETS:
                o, u = r["cpp"][(s, method)]["ns_per_enum"], r["rust"][(s, "legal_moves_into")]
                row += f" {fmt_ns(o)} | {fmt_ns(u['ns_per_enum'])} | {o / u['ns_per_enum']:.1f}x |"
            lines.append(row)
        row = "| **median** | | |"
        for s in SETS:
            o = statistics.median(r["cpp"][(s, method)]["ns_per_enum"] for r in rounds)
            u = statistics.median(r["rust"][(s, "legal_moves_into")]["ns_per_enum"] for r in rounds)
            ratio = statistics.median(r["ratios"][method][s] for r in rounds)
            row += f" **{fmt_ns(o)}** | **{fmt_ns(u)}** | **{ratio:.1f}x** |"
        lines.extend([row, ""])

    table("dfs", "open_spiel full-turn DFS (every chain) vs our legal_moves_into, ns per position")
    table("memo", "open_spiel DFS with the explore_turn memo vs our legal_moves_into")
    first = rounds[0]
    moves = ", ".join(
        f"{s}: open_spiel {first['cpp'][(s, 'dfs')]['moves_per_enum']:.1f}, "
        f"ours {first['rust'][(s, 'legal_moves_into')]['moves_per_enum']:.1f}"
        for s in SETS
    )
    applied = ", ".join(
        f"{s}: {first['cpp'][(s, m)]['actions_per_enum']:.0f} ({m})"
        for s in SETS
        for m in ("dfs", "memo")
    )
    lines.append(f"Moves per position ({moves}; ours omit the target-lock moves).")
    lines.append(f"open_spiel actions applied and undone per position: {applied}.")
    lines.append(
        "CPU share: each engine process's CPU time over its wall time (open_spiel / ours); "
        "below 1.00, other work took the CPU from it during the round."
    )
    lines.append(
        f"Ratio = open_spiel ns / ours ns in the same round; the median row gives the median "
        f"of each column. Load (/proc/loadavg) at start: `{meta['loadavg_start']}`, at end: "
        f"`{meta['loadavg_end']}`; nproc = {meta['nproc']}."
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--target-ms", type=float, default=150.0)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()

    meta: dict = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "loadavg_start": loadavg(),
        "nproc": output(["nproc"]),
        "cpu": next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")
            ),
            "unknown",
        ),
        "commit": output(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
        "dirty_src": output(["git", "-C", str(ROOT), "status", "--porcelain", "src"]).splitlines(),
    }
    cpp_bin, meta["cpp"] = build_cpp(args.rebuild)
    rust_bin, meta["rust"] = build_rust()
    cpp_file, rust_file, meta["positions"] = write_positions()
    target = ["--target-ms", str(args.target_ms)]
    engines = {
        "cpp": [str(cpp_bin), str(cpp_file), *target],
        "rust": [str(rust_bin), str(rust_file), *target],
    }
    meta["target_ms"] = args.target_ms

    rounds = []
    for i in range(args.rounds):
        order = ("cpp", "rust") if i % 2 == 0 else ("rust", "cpp")
        r: dict = {
            "first": "open_spiel" if order[0] == "cpp" else "ours",
            "loadavg": loadavg(),
            "cpu_share": {},
        }
        for engine in order:
            r[engine], r["cpu_share"][engine] = run_engine(engines[engine])
        r["ratios"] = {
            method: {
                s: r["cpp"][(s, method)]["ns_per_enum"]
                / r["rust"][(s, "legal_moves_into")]["ns_per_enum"]
                for s in SETS
            }
            for method in ("dfs", "memo")
        }
        log(f"round {i + 1}: " + ", ".join(f"{s} {r['ratios']['dfs'][s]:.1f}x" for s in SETS))
        rounds.append(r)
    meta["loadavg_end"] = loadavg()

    text = report(rounds, meta)
    print(text)
    medians = {
        method: {s: statistics.median(r["ratios"][method][s] for r in rounds) for s in SETS}
        for method in ("dfs", "memo")
    }
    doc = {
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        **meta,
        "median_ratio_open_spiel_over_ours": medians,
        "rounds": [
            {
                "first": r["first"],
                "loadavg": r["loadavg"],
                "cpu_share": r["cpu_share"],
                "open_spiel": [v for v in r["cpp"].values()],
                "ours": [v for v in r["rust"].values()],
                "ratios": r["ratios"],
            }
            for r in rounds
        ],
        "markdown": text,
    }
    path = args.json or RESULTS / f"sidebyside-cpp-{dt.date.today().isoformat()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
