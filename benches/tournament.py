"""Throughput of tournaments of built-in bots on `sternhalma serve`.

For every board and concurrency asked, `--runs` times (configurations
interleaved, so that a change of the machine's load spreads over all of
them): start the server binary on a fresh SQLite file (`--no-limits`, the
default heavy-work pool: one thread per core), create a round robin of 16
built-in bots (greedy x6, random x4, alphabeta with a 2,000-node budget x6;
fixed seeds, so every run of a configuration plays the same games), two
players, one game per pairing (120 games), `"start": true`, and poll
`GET /v1/tournaments/{id}` until it is finished. Then it reads every game's
match (`/games`, `/v1/matches/{id}`) for the plies played and the endings.

Reported per run: games, wall time (the server's own: from the
tournament's `created_at` to its `updated_at` when it finished; the client's
measure beside it), games per minute, plies per second, the server's CPU
time (`/proc`), the heavy-work pool's size (from the server's log) and the
1-minute load average before the run. Per configuration: mean and min-max.

Standard library only.

    cargo build --release -p sternhalma-api
    python3 benches/tournament.py --server target/release/sternhalma --runs 3 \\
        --json benches/results/tournament.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# The entrants: (kind, how many, budget).
MIX: list[tuple[str, int, dict[str, int]]] = [
    ("greedy", 6, {}),
    ("random", 4, {}),
    ("alphabeta", 6, {"nodes": 2000}),
]


def call(url: str, method: str, path: str, body: Any = None, timeout: float = 60) -> Any:
    """One request; answers the decoded JSON (raises on a non-2xx)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{method} {path}: {error.code} {error.read()[:300]!r}") from error


def entrants() -> list[dict[str, Any]]:
    out = []
    seed = 1
    for kind, count, budget in MIX:
        for n in range(1, count + 1):
            out.append({"name": f"{kind}-{n}", "bot": {"kind": kind, "seed": seed, **budget}})
            seed += 1
    return out


def start_server(binary: Path, scratch: Path) -> tuple[subprocess.Popen[str], str, Path]:
    log = scratch / "serve.log"
    process = subprocess.Popen(
        [
            str(binary),
            "serve",
            "--port",
            "0",
            "--database",
            str(scratch / "bench.sqlite3"),
            "--log-level",
            "info",
            "--no-limits",
        ],
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    prefix = "sternhalma listening on "
    if not line.startswith(prefix):
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return process, line[len(prefix) :], log


def heavy_workers(log: Path) -> int | None:
    """The heavy-work pool's size, as the server logs it at its start."""
    for _ in range(50):
        found = re.search(r"heavy_workers=(\d+)", log.read_text())
        if found:
            return int(found.group(1))
        time.sleep(0.1)
    return None


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def peak_rss_mib(pid: int) -> float | None:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def timestamp(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def run_once(binary: Path, board: str, concurrency: int, guard: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        server, url, log = start_server(binary, scratch)
        try:
            workers = heavy_workers(log)
            load_before = os.getloadavg()
            began = time.monotonic()
            created = call(
                url,
                "POST",
                "/v1/tournaments",
                {
                    "name": f"bench {board} c{concurrency}",
                    "board": board,
                    "layout": "2",
                    "format": "round_robin",
                    "games_per_pairing": 1,
                    "concurrency": concurrency,
                    "entrants": entrants(),
                    "start": True,
                },
            )
            tournament = created["tournament"]["id"]
            while True:
                view = call(url, "GET", f"/v1/tournaments/{tournament}")
                if view["status"] == "finished":
                    break
                if view["status"] != "running":
                    raise RuntimeError(f"tournament {tournament} is {view['status']}")
                if time.monotonic() - began > guard:
                    raise RuntimeError(f"not finished after {guard} s: {view['games']}")
                time.sleep(0.2)
            client_wall = time.monotonic() - began
            cpu = cpu_seconds(server.pid)
            rss = peak_rss_mib(server.pid)
            load_after = os.getloadavg()
            games = call(url, "GET", f"/v1/tournaments/{tournament}/games")["games"]
            plies = []
            endings: Counter[str] = Counter()
            for game in games:
                state = call(url, "GET", f"/v1/matches/{game['match_id']}")
                plies.append(state["ply"])
                endings[state["result"]["ending"] if state["result"] else "none"] += 1
            standings = call(url, "GET", f"/v1/tournaments/{tournament}/standings")
        finally:
            server.terminate()
            server.wait()
    wall = timestamp(view["updated_at"]) - timestamp(view["created_at"])
    by_kind: dict[str, float] = {}
    for row in standings["rows"]:
        kind = row["name"].rsplit("-", 1)[0]
        by_kind[kind] = by_kind.get(kind, 0.0) + row["points"]
    return {
        "board": board,
        "concurrency": concurrency,
        "start_position": view["start_position"],
        "games": len(games),
        "finished": view["games"]["finished"],
        "wall_s": round(wall, 3),
        "client_wall_s": round(client_wall, 3),
        "games_per_min": round(len(games) / wall * 60, 2),
        "plies": sum(plies),
        "plies_per_s": round(sum(plies) / wall, 1),
        "plies_per_game": {"mean": round(statistics.mean(plies), 1), "max": max(plies)},
        "endings": dict(endings),
        "points_by_kind": by_kind,
        "server_cpu_s": round(cpu, 2),
        "server_peak_rss_mib": None if rss is None else round(rss, 1),
        "heavy_workers": workers,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
    }


def summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    configs = sorted({(r["board"], r["concurrency"]) for r in runs})
    for board, concurrency in configs:
        rs = [r for r in runs if r["board"] == board and r["concurrency"] == concurrency]
        row: dict[str, Any] = {
            "board": board,
            "concurrency": concurrency,
            "runs": len(rs),
            "games": rs[0]["games"],
            "plies": sorted({r["plies"] for r in rs}),
        }
        for key in ("wall_s", "games_per_min", "plies_per_s", "server_cpu_s"):
            values = [r[key] for r in rs]
            row[key] = {
                "mean": round(statistics.mean(values), 2),
                "min": min(values),
                "max": max(values),
            }
        out.append(row)
    return out


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "commit": commit,
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", type=Path, default=ROOT / "target" / "release" / "sternhalma")
    parser.add_argument("--boards", default="star4,rhombus5p3")
    parser.add_argument("--concurrency", default="4,8")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--guard", type=float, default=900.0, help="seconds per tournament")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    args = parser.parse_args()
    configs = [
        (board, int(c)) for board in args.boards.split(",") for c in args.concurrency.split(",")
    ]
    mix = ", ".join(f"{kind} x{n}" + (f" ({budget})" if budget else "") for kind, n, budget in MIX)
    print(f"16 entrants: {mix}; round robin, 2 players, 1 game per pairing")
    runs = []
    for run in range(1, args.runs + 1):
        for board, concurrency in configs:
            result = run_once(args.server, board, concurrency, args.guard)
            result["run"] = run
            runs.append(result)
            print(
                f"run {run} {board:<11} c{concurrency}: {result['games']} games in"
                f" {result['wall_s']:.1f} s ({result['games_per_min']:.1f} games/min,"
                f" {result['plies_per_s']:.0f} plies/s, {result['plies']} plies),"
                f" server CPU {result['server_cpu_s']:.1f} s, heavy workers"
                f" {result['heavy_workers']}, load before {result['load_before'][0]:.2f}",
                flush=True,
            )
    table = summary(runs)
    print("\nboard       conc  games  wall s (min-max)      games/min (min-max)   plies/s")
    for row in table:
        w, g, p = row["wall_s"], row["games_per_min"], row["plies_per_s"]
        print(
            f"{row['board']:<11} {row['concurrency']:>4}  {row['games']:>5}"
            f"  {w['mean']:6.1f} ({w['min']:.1f}-{w['max']:.1f})"
            f"  {g['mean']:6.1f} ({g['min']:.1f}-{g['max']:.1f})"
            f"  {p['mean']:7.0f} ({p['min']:.0f}-{p['max']:.0f})"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document = {
            "machine": machine(),
            "mix": [{"kind": k, "count": n, **b} for k, n, b in MIX],
            "runs": runs,
            "summary": table,
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
