"""Stored-match moves per second with one or several `sternhalma serve` replicas.

It starts the server(s) itself, on a fresh database, with `--no-limits` (every
client connects from 127.0.0.1):

- `--backend sqlite`: one replica on a fresh SQLite file in a scratch folder;
- `--backend postgres --replicas N`: N replicas on one fresh PostgreSQL
  database, in a throwaway cluster that `scripts/pg-cluster` starts in the
  scratch folder (and stops at the end), or in the cluster of `--postgres
  BASEURL` (a fresh database is made there with `createdb`; a URL that names
  a database is used as it is).

Then `--clients` concurrent clients (default 16) each own a stored two-player
match (star4, `masters` rules, both seats open, so no bot is involved) and
play it with its two seat tokens: the first legal move the server's state
lists, at the ply the state gives, each answer's state feeding the next move;
a match that ends is replaced by a new one. Every request goes to the next
replica in turn (round robin over all requests, as a load balancer would).

A run is `--warmup` seconds, then a window of `--seconds`: the moves
acknowledged (200) with the answer received inside the window are counted,
and their latency (request sent to answer read, on the client's clock) kept.
After each run it reads `GET /v1/matches/{id}/moves` of every match it played
(round robin too) and checks that every acknowledged move, the window's and
the others, is there at its ply with its seat and path: the exit status is 1
if one is not (a correctness check, not a timing), or if a replica died.
Between `--runs` runs the servers and the database stay; each run plays new
matches.

It reports moves/s per run, their mean with a 95% confidence interval
(Student's t over the runs), p50/p99 latency (all runs' window moves
together, and per run), every answer by status, the CPU time of each replica,
of PostgreSQL (the cluster's processes, when this script started it) and of
the clients, how busy the machine's cores were in the window, its load
average before and after, a short fsync probe of the scratch folder's disk,
the warnings and errors the servers (and the cluster) logged, and the commit
measured.

    python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt
    cargo build --release -p sternhalma-api
    .venv/bin/python benches/replicas.py --backend sqlite \\
        --json benches/results/replicas-sqlite-1.json
    .venv/bin/python benches/replicas.py --backend postgres --replicas 1 \\
        --json benches/results/replicas-postgres-1.json
    .venv/bin/python benches/replicas.py --backend postgres --replicas 3 \\
        --json benches/results/replicas-postgres-3.json
    # in a cluster already running (a fresh database is made in it):
    .venv/bin/python benches/replicas.py --backend postgres --replicas 3 \\
        --postgres postgres://sternhalma@127.0.0.1:5432

Each takes about two minutes with the defaults (5 runs of 3 + 15 s).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import json
import math
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
JSON_HEADERS = {"Content-Type": "application/json"}
CLIENT_TIMEOUT_S = 30.0
# The longest the after-run check waits for the histories.
CHECK_SECONDS = 90.0
# Student's t, two-sided 95% (0.975 quantile), by degrees of freedom; for a
# df between two entries the smaller df's value (the wider interval).
T_975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


def t_975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom."""
    return T_975[max(k for k in T_975 if k <= df)] if df <= 120 else 1.960


def confidence(values: list[float]) -> dict[str, Any]:
    """Mean, sample standard deviation and the 95% interval of the mean."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return {"n": len(values), "mean": mean, "stdev": None, "ci95_half_width": None}
    stdev = statistics.stdev(values)
    half = t_975(len(values) - 1) * stdev / math.sqrt(len(values))
    return {
        "n": len(values),
        "mean": round(mean, 1),
        "stdev": round(stdev, 1),
        "t_975": t_975(len(values) - 1),
        "ci95_half_width": round(half, 1),
        "ci95": [round(mean - half, 1), round(mean + half, 1)],
        "min": round(min(values), 1),
        "max": round(max(values), 1),
    }


def percentiles(seconds: list[float]) -> dict[str, Any]:
    """Nearest-rank p50, p99 and the maximum of latencies, in ms."""
    values = sorted(seconds)
    if not values:
        return {"count": 0, "p50": None, "p99": None, "max": None}

    def rank(p: float) -> float:
        return round(values[max(0, math.ceil(p * len(values)) - 1)] * 1000, 2)

    return {"count": len(values), "p50": rank(0.50), "p99": rank(0.99), "max": rank(1.0)}


def encode(value: Any) -> bytes:
    """Compact JSON."""
    return json.dumps(value, separators=(",", ":")).encode()


# ---- The machine and the processes ---------------------------------------------------


def cpu_ticks() -> tuple[int, int, int]:
    """Busy, iowait and steal jiffies of all cores, from /proc/stat (busy:
    user, nice, system, irq, softirq; steal: time the hypervisor gave to
    others while this guest wanted to run)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq, iowait, steal


def proc_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU seconds of a process's threads so far, summed by thread name."""
    by_name: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return by_name
    for task in tasks:
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        by_name[name] = by_name.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return by_name


def children_of(parent: int) -> list[int]:
    """The processes whose parent is `parent`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == parent:
            found.append(int(entry.name))
    return found


def group_cpu_seconds(root: int | None) -> dict[int, float]:
    """CPU seconds of `root` and of each of its children (PostgreSQL's backends)."""
    if root is None:
        return {}
    times = {}
    for pid in [root, *children_of(root)]:
        seconds = proc_cpu_seconds(pid)
        if seconds is not None:
            times[pid] = seconds
    return times


def fsync_probe(folder: Path, seconds: float = 2.0) -> dict[str, Any]:
    """Appends 8 KiB and fsyncs, over and over: the disk's commit cost, roughly."""
    path = folder / "fsync-probe"
    block = os.urandom(8192)
    took = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            started = time.perf_counter()
            os.write(fd, block)
            os.fsync(fd)
            took.append(time.perf_counter() - started)
    finally:
        os.close(fd)
        path.unlink()
    return {
        "what": "os.write of 8 KiB then os.fsync, repeated",
        "seconds": seconds,
        "fsyncs_per_second": round(len(took) / sum(took), 1),
        "latency_ms": percentiles(took),
    }


def machine_info() -> dict[str, Any]:
    """Cores, CPU model, memory, kernel."""
    model = None
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    memory = None
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal"):
            memory = round(int(line.split()[1]) / 2**20, 1)
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_count": os.cpu_count(),
        "cpu_model": model,
        "memory_gib": memory,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "aiohttp": aiohttp.__version__,
    }


def processes() -> dict[int, tuple[float, str]]:
    """Every process's CPU seconds so far and its command line."""
    seen = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        seconds = proc_cpu_seconds(int(entry.name))
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
        except OSError:
            continue
        if seconds is not None:
            seen[int(entry.name)] = (seconds, command.strip())
    return seen


def busy_between(
    before: dict[int, tuple[float, str]],
    after: dict[int, tuple[float, str]],
    seconds: float,
    skip: set[int],
) -> list[dict[str, Any]]:
    """Processes (not in `skip`) that used more than 5% of a core between two
    snapshots: who else shared the machine."""
    found = []
    for pid, (cpu, command) in after.items():
        if pid not in skip:
            # A process that started in between: all its time is in between.
            share = (cpu - before[pid][0] if pid in before else cpu) / seconds
            if share > 0.05:
                found.append({"pid": pid, "cores": round(share, 2), "command": command})
    return sorted(found, key=lambda row: -row["cores"])


def busy_processes(pause: float = 1.0) -> list[dict[str, Any]]:
    """Processes that used more than 5% of a core over `pause` seconds."""
    before = processes()
    time.sleep(pause)
    return busy_between(before, processes(), pause, {os.getpid()})


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def git(*args: str) -> str | None:
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


# ---- The servers -----------------------------------------------------------------------


@dataclass
class Replica:
    """One `sternhalma serve` process."""

    process: subprocess.Popen
    url: str
    stderr: Path


def start_replica(binary: Path, database: str, scratch: Path, index: int) -> Replica:
    """`sternhalma serve` on a free port; waits for its listening line."""
    out_path, err_path = scratch / f"serve-{index}.out", scratch / f"serve-{index}.err"
    with out_path.open("w") as out, err_path.open("w") as err:
        process = subprocess.Popen(
            [
                str(binary),
                "serve",
                "--port",
                "0",
                "--no-limits",
                "--database",
                database,
                "--log-level",
                "warn",
            ],
            stdout=out,
            stderr=err,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"sternhalma listening on (http://\S+)", out_path.read_text())
        if found:
            return Replica(process, found.group(1), err_path)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    raise RuntimeError(f"replica {index} did not start: {err_path.read_text()[-2000:]}")


def stop_replica(replica: Replica) -> int | None:
    """SIGTERM, then SIGKILL after 15 s; the exit status."""
    if replica.process.poll() is None:
        replica.process.terminate()
        try:
            replica.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            replica.process.kill()
            replica.process.wait()
    return replica.process.returncode


@dataclass
class Cluster:
    """A PostgreSQL cluster this script started (or None parts for one given)."""

    folder: Path | None
    base_url: str
    postmaster: int | None
    version: str | None


def pg_cluster(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ROOT / "scripts" / "pg-cluster"), *args], check=False, capture_output=True, text=True
    )


def start_cluster(folder: Path) -> Cluster:
    started = pg_cluster("start", str(folder))
    if started.returncode != 0:
        raise RuntimeError(f"scripts/pg-cluster start failed: {started.stderr[-2000:]}")
    base_url = started.stdout.strip().splitlines()[-1]
    version = re.search(r"\((postgres \(PostgreSQL\)[^)]*\)[^)]*)\)", started.stderr)
    postmaster = int((folder / "data" / "postmaster.pid").read_text().split()[0])
    return Cluster(folder, base_url, postmaster, version.group(1) if version else None)


def fresh_database(cluster: Cluster, name: str) -> str:
    """A new, empty database in the cluster: its URL."""
    if cluster.folder is not None:
        made = pg_cluster("createdb", str(cluster.folder), name)
    else:
        maintenance = cluster.base_url.rstrip("/") + "/postgres"
        made = subprocess.run(
            ["createdb", f"--maintenance-db={maintenance}", name],
            check=False,
            capture_output=True,
            text=True,
        )
    if made.returncode != 0:
        raise RuntimeError(f"createdb {name} failed: {made.stderr[-2000:]}")
    return f"{cluster.base_url.rstrip('/')}/{name}"


def postgres_settings(url: str) -> dict[str, str] | str:
    """A few settings that decide the cost of a commit, read with psql."""
    names = (
        "server_version",
        "fsync",
        "synchronous_commit",
        "wal_sync_method",
        "commit_delay",
        "shared_buffers",
        "max_connections",
    )
    query = "SELECT name, setting FROM pg_settings WHERE name IN ({})".format(
        ",".join(f"'{name}'" for name in names)
    )
    try:
        answer = subprocess.run(
            ["psql", "-XAt", "-F", "=", "-d", url, "-c", query],
            check=False,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"not read: {error}"
    if answer.returncode != 0:
        return f"not read: {answer.stderr.strip()[:300]}"
    return dict(line.split("=", 1) for line in answer.stdout.splitlines() if "=" in line)


def log_lines(path: Path, start: int) -> tuple[list[str], int]:
    """The lines of a log file after byte `start`, and its size now."""
    try:
        with path.open("rb") as handle:
            handle.seek(start)
            data = handle.read()
    except OSError:
        return [], start
    return data.decode(errors="replace").splitlines(), start + len(data)


def summarise_log(lines: list[str], words: tuple[str, ...]) -> dict[str, Any]:
    """Counts of lines by severity word, and the first few of them."""
    counts = Counter()
    examples = []
    for line in lines:
        for word in words:
            if re.search(rf"\b{word}\b", line):
                counts[word] += 1
                if len(examples) < 20:
                    examples.append(line[:400])
                break
    return {"lines": len(lines), "by_severity": dict(counts), "examples": examples}


# ---- One run -----------------------------------------------------------------------------


@dataclass
class Answer:
    status: int | None
    body: Any = None
    retry_after: float | None = None
    done: float = 0.0
    took: float = 0.0


@dataclass
class Run:
    """What one run's clients did."""

    urls: list[str]
    window_start: float
    window_end: float
    rounds: itertools.count = field(default_factory=itertools.count)
    statuses: dict[str, Counter] = field(default_factory=dict)
    problem_codes: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    error_examples: dict[str, str] = field(default_factory=dict)
    per_replica: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    counted: int = 0
    acks: dict[int, dict[int, tuple[int, list[int]]]] = field(default_factory=dict)
    matches_created: int = 0
    matches_finished: int = 0
    stuck_matches: int = 0

    async def request(
        self,
        session: aiohttp.ClientSession,
        kind: str,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
    ) -> Answer:
        """One request to the next replica in turn."""
        replica = next(self.rounds) % len(self.urls)
        self.per_replica[replica] += 1
        headers = dict(JSON_HEADERS) if body is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        tally = self.statuses.setdefault(kind, Counter())
        started = time.perf_counter()
        try:
            async with session.request(
                method,
                self.urls[replica] + path,
                data=None if body is None else encode(body),
                headers=headers,
            ) as response:
                raw = await response.read()
                status = response.status
                retry_after = response.headers.get("Retry-After")
        except TimeoutError:
            tally["timeout"] += 1
            return Answer(None, done=time.perf_counter())
        except (aiohttp.ClientError, OSError) as error:
            name = type(error).__name__
            tally["connection_error"] += 1
            self.errors[name] += 1
            self.error_examples.setdefault(name, str(error)[:300])
            return Answer(None, done=time.perf_counter())
        done = time.perf_counter()
        tally[str(status)] += 1
        parsed = None
        if raw:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
        if status >= 400:
            code = parsed.get("code") if isinstance(parsed, dict) else None
            self.problem_codes[f"{kind} {status} {code}"] += 1
            if len(self.error_examples) < 20:
                self.error_examples.setdefault(
                    f"{kind} {status}", raw[:300].decode(errors="replace")
                )
        seconds = None
        if retry_after is not None:
            try:
                seconds = float(retry_after)
            except ValueError:
                seconds = 1.0
        return Answer(status, parsed, seconds, done, done - started)


def match_request(board: str) -> dict[str, Any]:
    return {
        "board": board,
        "layout": "2",
        "rules": "masters",
        "seats": [{"name": "south"}, {"name": "north"}],
    }


async def play(run: Run, session: aiohttp.ClientSession, board: str) -> None:
    """One client: its own match, both seats, until the window closes."""
    match: dict[str, Any] | None = None
    tokens: dict[int, str] = {}
    reread = False
    while time.perf_counter() < run.window_end:
        if match is None or match["status"] != "in_progress":
            if match is not None:
                run.matches_finished += 1
            answer = await run.request(
                session, "create", "POST", "/v1/matches", match_request(board)
            )
            if answer.status == 201:
                match = answer.body["match"]
                tokens = {t["seat"]: t["token"] for t in answer.body["seat_tokens"]}
                run.matches_created += 1
                run.acks.setdefault(match["id"], {})
            else:
                match = None
                await asyncio.sleep(min(answer.retry_after or 0.2, 1.0))
            continue
        seat = match.get("to_move")
        if reread or seat not in tokens or not match["legal_moves"]:
            answer = await run.request(session, "read", "GET", f"/v1/matches/{match['id']}")
            if answer.status == 200:
                match, reread = answer.body, False
                seat = match.get("to_move")
                if match["status"] == "in_progress" and (
                    seat not in tokens or not match["legal_moves"]
                ):
                    # In progress, yet nothing an open seat can play: leave it.
                    run.stuck_matches += 1
                    match = None
            else:
                await asyncio.sleep(min(answer.retry_after or 0.2, 1.0))
            continue
        answer = await run.request(
            session,
            "move",
            "POST",
            f"/v1/matches/{match['id']}/moves",
            {"ply": match["ply"], "move": match["legal_moves"][0]["text"]},
            tokens[seat],
        )
        if answer.status == 200:
            moves = run.acks.setdefault(match["id"], {})
            for record in answer.body["played"]:
                moves[record["ply"]] = (record["seat"], record["move"]["path"])
            if run.window_start <= answer.done <= run.window_end:
                run.counted += len(answer.body["played"])
                run.latencies.append(answer.took)
            match = answer.body["match"]
        else:
            # Nothing known to be stored (or unknown, for a time-out): read
            # the state again before the next move.
            reread = True
            if answer.status in (429, 503):
                await asyncio.sleep(min(answer.retry_after or 0.2, 1.0))


async def check_moves(run: Run, session: aiohttp.ClientSession) -> dict[str, Any]:
    """Every acknowledged move is in its match's history, at its ply."""
    missing: list[str] = []
    different: list[str] = []
    unreadable: list[int] = []
    started = time.monotonic()
    deadline = started + CHECK_SECONDS
    gate = asyncio.Semaphore(8)

    async def one(match_id: int, moves: dict[int, tuple[int, list[int]]]) -> None:
        async with gate:
            history = None
            while history is None and time.monotonic() < deadline:
                answer = await run.request(session, "check", "GET", f"/v1/matches/{match_id}/moves")
                if answer.status == 200:
                    history = answer.body
                else:
                    await asyncio.sleep(min(answer.retry_after or 0.5, 2.0))
        if history is None:
            unreadable.append(match_id)
            return
        stored = {r["ply"]: (r["seat"], r["move"]["path"]) for r in history["moves"]}
        for ply, (seat, path) in sorted(moves.items()):
            if ply not in stored:
                missing.append(f"match {match_id} ply {ply}")
            elif stored[ply] != (seat, list(path)):
                different.append(f"match {match_id} ply {ply}: {stored[ply]} != {(seat, path)}")

    await asyncio.gather(*(one(match_id, moves) for match_id, moves in run.acks.items()))
    return {
        "matches": len(run.acks),
        "acknowledged_moves": sum(len(moves) for moves in run.acks.values()),
        "missing": len(missing),
        "different": len(different),
        "unreadable_matches": len(unreadable),
        "seconds": round(time.monotonic() - started, 1),
        "examples": (missing + different)[:10],
        "ok": not missing and not different and not unreadable,
    }


async def one_run(
    args: argparse.Namespace,
    urls: list[str],
    replicas: list[Replica],
    postmaster: int | None,
) -> dict[str, Any]:
    """Warm-up, window, drain, check; what was measured."""
    now = time.perf_counter()
    run = Run(urls, now + args.warmup, now + args.warmup + args.seconds)
    marks: dict[str, Any] = {}

    def mark() -> dict[str, Any]:
        return {
            "ticks": cpu_ticks(),
            "servers": [proc_cpu_seconds(r.process.pid) for r in replicas],
            "threads": [threads_cpu_seconds(r.process.pid) for r in replicas],
            "postgres": group_cpu_seconds(postmaster),
            "clients": resource.getrusage(resource.RUSAGE_SELF),
            "processes": processes(),
            "clock": time.perf_counter(),
        }

    async def sampler() -> None:
        await asyncio.sleep(max(0.0, run.window_start - time.perf_counter()))
        marks["start"] = mark()
        await asyncio.sleep(max(0.0, run.window_end - time.perf_counter()))
        marks["end"] = mark()

    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=CLIENT_TIMEOUT_S)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(
            sampler(), *(play(run, session, args.board) for _ in range(args.clients))
        )
        drained = time.perf_counter()
        check = await check_moves(run, session)
    start, end = marks["start"], marks["end"]
    elapsed = end["clock"] - start["clock"]
    tick = os.sysconf("SC_CLK_TCK")
    busy = (end["ticks"][0] - start["ticks"][0]) / tick / elapsed
    iowait = (end["ticks"][1] - start["ticks"][1]) / tick / elapsed
    steal = (end["ticks"][2] - start["ticks"][2]) / tick / elapsed
    postgres = None
    if postmaster is not None:
        # A backend that ended inside the window is missed; one that
        # started inside it counts whole.
        postgres = round(
            sum(cpu - start["postgres"].get(pid, 0.0) for pid, cpu in end["postgres"].items()), 2
        )
    servers = [
        None if a is None or b is None else round(b - a, 2)
        for a, b in zip(start["servers"], end["servers"], strict=True)
    ]

    def per_move(seconds: float) -> float | None:
        return round(seconds * 1000 / run.counted, 3) if run.counted else None

    ours = {
        os.getpid(),
        *(r.process.pid for r in replicas),
        *start["postgres"],
        *end["postgres"],
    }
    others = busy_between(start["processes"], end["processes"], elapsed, ours)
    clients = (end["clients"].ru_utime + end["clients"].ru_stime) - (
        start["clients"].ru_utime + start["clients"].ru_stime
    )
    return {
        "window_seconds": round(elapsed, 3),
        "moves_in_window": run.counted,
        "moves_per_second": round(run.counted / args.seconds, 1),
        "latency_ms": percentiles(run.latencies),
        "latencies": run.latencies,
        "statuses": {kind: dict(sorted(c.items())) for kind, c in run.statuses.items()},
        "problem_codes": dict(run.problem_codes),
        "connection_errors": dict(run.errors),
        "error_examples": run.error_examples,
        "requests_per_replica": [run.per_replica[i] for i in range(len(urls))],
        "matches_created": run.matches_created,
        "matches_finished": run.matches_finished,
        "stuck_matches": run.stuck_matches,
        "drain_seconds": round(drained - run.window_end, 2),
        "cpu_in_window": {
            "machine_busy_cores": round(busy, 2),
            "machine_iowait_cores": round(iowait, 2),
            "machine_steal_cores": round(steal, 2),
            "replicas_cores": [None if s is None else round(s / elapsed, 2) for s in servers],
            "postgres_cores": None if postgres is None else round(postgres / elapsed, 2),
            "clients_cores": round(clients / elapsed, 2),
            "other_processes": others,
            # Busy minus what is counted above: the kernel's share (network,
            # disk) and any process that came and went inside the window.
            "unaccounted_cores": round(
                busy
                - (sum(s for s in servers if s is not None) + (postgres or 0) + clients) / elapsed,
                2,
            ),
            # Each replica's threads by name (tokio-runtime-w: the async
            # runtime and actix's blocking pool; sternhalma-db-w: the writer).
            "replica_threads_cores": [
                {
                    name: round((b[name] - a.get(name, 0.0)) / elapsed, 3)
                    for name in sorted(b)
                    if (b[name] - a.get(name, 0.0)) / elapsed >= 0.005
                }
                for a, b in zip(start["threads"], end["threads"], strict=True)
            ],
        },
        # CPU per move counted in the window (all the moves' work, the
        # warm-up's excluded; the clients' share includes their reads).
        "cpu_ms_per_move": {
            "replicas": per_move(sum(s for s in servers if s is not None)),
            "postgres": None if postgres is None else per_move(postgres),
            "clients": per_move(clients),
            "machine": per_move(busy * elapsed),
        },
        "check": check,
    }


# ---- Main --------------------------------------------------------------------------------


def print_run(index: int, result: dict[str, Any]) -> None:
    lat = result["latency_ms"]
    cpu = result["cpu_in_window"]
    bad = {k: v for k, v in result["statuses"].get("move", {}).items() if k != "200"}
    print(
        f"run {index}: {result['moves_per_second']:8.1f} moves/s"
        f" (p50 {lat['p50']} ms, p99 {lat['p99']} ms); machine busy {cpu['machine_busy_cores']}"
        f" cores, steal {cpu['machine_steal_cores']} (replicas {cpu['replicas_cores']},"
        f" postgres {cpu['postgres_cores']},"
        f" clients {cpu['clients_cores']}, others"
        f" {round(sum(o['cores'] for o in cpu['other_processes']), 2)});"
        f" load {result['load_average_after']};"
        f" other move answers {bad}; check {'ok' if result['check']['ok'] else 'FAILED'}"
        f" ({result['check']['acknowledged_moves']} moves)",
        flush=True,
    )


def stop_on_signal(signum: int, _frame: Any) -> None:
    """SIGTERM (and SIGINT, ignored in a background job) end the script
    through its `finally`, which stops the servers and the cluster."""
    raise SystemExit(128 + signum)


def main() -> int:
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres"), required=True)
    parser.add_argument("--replicas", type=int, default=1, help="postgres only (sqlite: 1)")
    parser.add_argument(
        "--postgres",
        help="a cluster already running (postgres://user@host:port): a fresh database is"
        " made in it; a URL with a database name is used as it is. Default: a throwaway"
        " cluster started with scripts/pg-cluster",
    )
    parser.add_argument("--server", type=Path, default=ROOT / "target" / "release" / "sternhalma")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=15.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=3.0, help="before each window")
    parser.add_argument("--pause", type=float, default=2.0, help="between runs")
    parser.add_argument("--board", default="star4")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (logs)")
    args = parser.parse_args()
    if args.backend == "sqlite" and args.replicas != 1:
        parser.error("SQLite lives in one process's file: --replicas 1 only")
    if args.replicas < 1 or args.clients < 1 or args.runs < 1:
        parser.error("--replicas, --clients and --runs must be at least 1")
    if not args.server.exists():
        parser.error(f"no server binary at {args.server}: cargo build --release -p sternhalma-api")

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    load_before = os.getloadavg()
    started_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    machine = machine_info()
    others = busy_processes()
    scratch = Path(tempfile.mkdtemp(prefix="sternhalma-replicas-"))
    # When run as root the cluster belongs to the `postgres` user, who must
    # reach its folder inside this one.
    scratch.chmod(0o755)
    fsync = fsync_probe(scratch)
    log(f"scratch {scratch}; fsync probe: {fsync['fsyncs_per_second']} fsyncs/s")
    cluster: Cluster | None = None
    replicas: list[Replica] = []
    runs: list[dict[str, Any]] = []
    database_info: dict[str, Any] = {"backend": args.backend}
    logs: dict[str, Any] = {}
    exit_codes: list[int | None] = []
    try:
        if args.backend == "sqlite":
            database = str(scratch / "replicas.sqlite3")
            database_info["file"] = database
        else:
            if args.postgres:
                parsed = urllib.parse.urlsplit(args.postgres)
                cluster = Cluster(None, args.postgres, None, None)
                if parsed.path.strip("/"):
                    database = args.postgres
                else:
                    database = fresh_database(cluster, f"replicas_{int(time.time())}")
            else:
                cluster = start_cluster(scratch / "pg")
                log(f"started a PostgreSQL cluster at {cluster.base_url} ({cluster.version})")
                database = fresh_database(cluster, "replicas")
            database_info.update(
                url=database,
                cluster_started_by_script=cluster.folder is not None,
                postgres_version=cluster.version,
            )
        for index in range(args.replicas):
            replicas.append(start_replica(args.server, database, scratch, index))
            log(f"replica {index} at {replicas[-1].url} (pid {replicas[-1].process.pid})")
        if args.backend == "postgres":
            database_info["settings"] = postgres_settings(database)
        urls = [r.url for r in replicas]
        offsets = {str(r.stderr): 0 for r in replicas}
        pg_log = cluster.folder / "log" if cluster and cluster.folder else None
        if pg_log is not None:
            offsets[str(pg_log)] = pg_log.stat().st_size if pg_log.exists() else 0
        for index in range(args.runs):
            if index:
                time.sleep(args.pause)
            before = os.getloadavg()
            result = asyncio.run(
                one_run(args, urls, replicas, cluster.postmaster if cluster else None)
            )
            result["load_average_before"] = [round(x, 2) for x in before]
            result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
            result["replicas_alive"] = [r.process.poll() is None for r in replicas]
            run_logs = {}
            for path in list(offsets):
                lines, offsets[path] = log_lines(Path(path), offsets[path])
                words = (
                    ("PANIC", "FATAL", "ERROR", "WARNING")
                    if path == str(pg_log)
                    else (
                        "ERROR",
                        "WARN",
                    )
                )
                name = "postgres log" if path == str(pg_log) else Path(path).name
                run_logs[name] = summarise_log(lines, words)
            result["logs"] = run_logs
            runs.append(result)
            print_run(index + 1, result)
            if not all(result["replicas_alive"]):
                log("a replica died: stopping")
                break
    finally:
        for replica in replicas:
            exit_codes.append(stop_replica(replica))
        for replica in replicas:
            lines, _ = log_lines(replica.stderr, 0)
            logs[replica.stderr.name] = summarise_log(lines, ("ERROR", "WARN"))
        if cluster is not None and cluster.folder is not None:
            lines, _ = log_lines(cluster.folder / "log", 0)
            logs["postgres log"] = summarise_log(lines, ("PANIC", "FATAL", "ERROR", "WARNING"))
            stopped = pg_cluster("stop", str(cluster.folder))
            if stopped.returncode != 0:
                log(f"scripts/pg-cluster stop failed: {stopped.stderr[-1000:]}")
        if args.keep:
            log(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    load_after = os.getloadavg()

    rates = [r["moves_per_second"] for r in runs]
    latencies = [s for r in runs for s in r["latencies"]]
    for r in runs:
        del r["latencies"]
    ok = (
        bool(runs)
        and all(r["check"]["ok"] for r in runs)
        and all(all(r["replicas_alive"]) for r in runs)
    )
    report = {
        "benchmark": "stored-match moves per second (benches/replicas.py)",
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "started_at": started_at,
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "commit": git("rev-parse", "HEAD"),
        "server_source_changes": git(
            "status", "--porcelain", "--", "api", "src", "Cargo.toml", "Cargo.lock"
        ),
        "last_server_commit": git(
            "log", "-1", "--format=%H %cI", "--", "api", "src", "Cargo.toml", "Cargo.lock"
        ),
        "binary": {
            "path": str(args.server),
            "sha256": sha256(args.server),
            "modified": time.strftime(
                "%Y-%m-%dT%H:%M:%S%z", time.localtime(args.server.stat().st_mtime)
            ),
        },
        "settings": {
            "backend": args.backend,
            "replicas": args.replicas,
            "clients": args.clients,
            "runs": args.runs,
            "window_seconds": args.seconds,
            "warmup_seconds": args.warmup,
            "pause_seconds": args.pause,
            "match": match_request(args.board),
            "move_chosen": "the first of the state's legal_moves",
            "routing": "round robin over the replicas, request by request",
            "server_flags": ["serve", "--port", "0", "--no-limits", "--log-level", "warn"],
            "client_timeout_seconds": CLIENT_TIMEOUT_S,
        },
        "database": database_info,
        "machine": {
            **machine,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
            "other_busy_processes_before": others,
            "fsync_probe": fsync,
        },
        "summary": {
            "moves_per_second": confidence(rates) if rates else None,
            "latency_ms_all_runs": percentiles(latencies),
            "runs_completed": len(runs),
            "non_200_move_answers": sum(
                n for r in runs for k, n in r["statuses"].get("move", {}).items() if k != "200"
            ),
            "acknowledged_moves_checked": sum(r["check"]["acknowledged_moves"] for r in runs),
            "acknowledged_moves_missing_or_different": sum(
                r["check"]["missing"] + r["check"]["different"] for r in runs
            ),
            "all_acknowledged_moves_kept": ok,
        },
        "runs": runs,
        "logs_whole_benchmark": logs,
        "replica_exit_codes": exit_codes,
    }
    summary = report["summary"]
    moves = summary["moves_per_second"]
    if moves:
        print(
            f"\n{args.backend}, {args.replicas} replica(s), {args.clients} clients:"
            f" {moves['mean']} moves/s, 95% CI ±{moves['ci95_half_width']} over {moves['n']} runs"
            f" of {args.seconds:g} s; latency p50 {summary['latency_ms_all_runs']['p50']} ms,"
            f" p99 {summary['latency_ms_all_runs']['p99']} ms; load average"
            f" {report['machine']['load_average_before']} before,"
            f" {report['machine']['load_average_after']} after;"
            f" acknowledged moves all kept: {ok}"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        log(f"wrote {args.json}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
