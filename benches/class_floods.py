"""One hostile student against a shared `sternhalma serve`, and what a polite
student on another address sees meanwhile (issue 31).

One scenario a run (`--scenario`), bounded by `--seconds` (default 60):

- `heavy-jobs`: from one address (127.0.0.1), 20 `POST /v1/solitaire/jobs` at
  once on `rhombus11p36` with `max_memory_mb` 1024 and the largest `max_nodes`
  the server accepts (the first request asks 5,000,000: a 202 means the server
  takes it, a 422 names the cap, which the rest then use), then one more every
  4 s, each with one at 5,000,000 beside it while the server refuses that (to
  count the refusals). At the end every accepted job is read once.
- `tournament-neighbour`: two phases of `--seconds`/2, the first with nobody
  watching the big tournament's `/events`, the second with a client reading
  them. In each, from 127.0.0.1, one unauthenticated `POST /v1/tournaments` of
  `random` bots on `star1` (two players), started at once: 64 entrants,
  `games_per_pairing` 4, `concurrency` 64, or the largest the server accepts
  without its admin key (probed before the phases: each 422 names its limit;
  the probes are in the JSON); when it finishes another is made, so the load
  lasts the phase. Beside it, from 127.0.0.3: gauntlets of one game (greedy
  against the reference), one after the other, each timed from its creation
  to its game's start and to its end (the server's own timestamps, and the
  client's); and a neighbour tournament on `star4` with one open entrant held
  by this script (it long-polls `/turns` and never moves) and a `random` bot,
  `move_ms` 1000 and `max_timeouts` 100, so its deadlines fire every second:
  its deadline accuracy is the timeouts stored against the ideal (the
  window over `move_ms`) and each timeout's lateness (the timed-out move's
  `played_at` minus the turn's start minus `move_ms`). From 127.0.0.5,
  `GET /v1/tournaments/{big}/standings` every 2 s, timed. At the end of a
  phase everything still running is abandoned with its admin token. Before
  the phases, one gauntlet on the quiet server, for reference.
- `slow-bodies`: `--slow-connections` connections (default 19,980) from
  `--slow-addresses` source addresses (127.0.0.10, .11, ...; default 2), each
  in a process of its own, each connection sending the headers of
  `POST /v1/legal-moves` with `Content-Length: 1000` and then nothing, and held
  open; one the server answers or closes is opened again a second later. The
  server's descriptors are counted from `/proc` every second.
- `slow-log`: the server started at its default log level (`info`: the access
  log) with its stderr read through a pipe at `--log-drain-kbps` (default
  5,000 KB/s, a terminal over a network), and 40 connections from 127.0.0.10
  sending `GET /healthz?<60 KB query>` one after another, as fast as answered.

Issue 51 (item 6) adds seven more, each runnable alone the same way:

- `table-stats`: `--flood-connections` (default 8) connections from
  `--hostile-address` asking `GET /v1/tablebases` one after another, as fast as
  answered (the server should answer from values computed once).
- `three-heavy`: three attacking addresses (`--hostile-address` and the next
  ones, the polite address skipped), each with `--heavy-threads` (default 4)
  loops cycling through max-budget heavy work: `POST /v1/bots/move` with
  alphabeta and mcts at each kind's cap (`GET /v1/bots`) on a middle game,
  `POST /v1/solitaire/solve` on `--job-board` at the route's node cap (probed
  from 127.0.0.9: its 422 names it; the solve then runs to the cap and
  answers 422 `node_limit`), `GET /v1/render.svg?size=4096` and
  `POST /v1/replay` of that game's 30 moves. A refusal waits as it asks (a
  second at most). The polite student's small bot move should never get 503
  and rarely 429.
- `render-bursts`: from one address, every `--job-every` s (default 4), a burst
  of `--job-burst` (default 20) `GET /v1/render.svg?size=4096` and a quarter as
  many `POST /v1/solitaire/jobs` at the jobs' node cap, all at once.
- `pipelined-readers`: `--pipeline-connections` (default 250) raw sockets from
  one address, each writing `--pipeline-depth` (default 64) pipelined
  `GET /healthz` at once and then reading `--read-bytes` (default 64) of the
  answers a second. Reports how many connections the server closed, the bytes
  read, and the server's RSS before and after (with `--server`).
- `long-lines`: the `slow-log` flood with `--long-query-bytes` (default 4,000)
  of query string on `/healthz` from `--log-connections` connections, the
  server (with `--server`) started at `info` with `--log-file <scratch>/server.log`,
  `--log-file-max-mb` and `--log-lines-per-second` as given here (defaults
  100 and 20, the server's). Reports the log files' sizes at the end and their
  sum per second of flood.
- `write-flood`: `--flood-connections` connections from one address creating
  matches and (unstarted, two-bot) tournaments as fast as their limits allow
  (a refusal waits as it asks, a second at most), while the polite client
  also plays moves of a stored match every 0.5 s (`match_move`, with the
  `match_create` and `match_read` that needs).
- `big-beside-small`: a teacher's round robin of `--big-entrants-rr` (default
  40) `random` bots on star1 (`--big-concurrency` games at once) from the
  hostile address, and beside it, from the polite address, a small tournament
  on star4 with one open entrant, played by this script (long-polls `/turns`,
  thinks `--small-think-s`, default 0.25 s, then moves) against a `random`
  bot: its moves' latency and each move's time to its next turn
  (`small_move_to_next_turn`), judged with the polite measures. It is
  `tournament-neighbour`'s idea with a player that moves rather than one that
  times out.

Each of these prints a last line, `verdict:`, against the goal "polite p99 <
50 ms, 0 refusals" (the worst p99 of the polite measures and their 429s and
503s), and the load average at the start and end.

Meanwhile the polite client of `benches/load.py`, in a process of its own,
connects from 127.0.0.2 (another student's machine, as far as per-client
limits go) with a new connection for every request, and measures one request
at a time: `GET /healthz` every 0.1 s, `POST /v1/bots/move` (alphabeta, 1,000
nodes, on the two-player start) every 1.5 s and `GET /v1/render.svg` of that
position every 3 s (together 60 heavy requests a minute, within the default
per-client heavy rate and its burst); a client time-out of 10 s. It reports
p50/p99/max of every request (a time-out or a reset at the time it took) and
the answers by status; for `tournament-neighbour` per phase too.

It measures only: the exit status does not depend on the timings. The JSON
also holds the machine's load average (`/proc/loadavg`) at the start and end,
the server's peak RSS, threads and descriptors (with `--server`), and the
clients' event-loop lag.

    python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt
    cargo build --release -p sternhalma-api
    .venv/bin/python benches/class_floods.py --server target/release/sternhalma \\
        --scenario heavy-jobs --json benches/results/class-heavy-jobs.json
    .venv/bin/python benches/class_floods.py http://127.0.0.1:8080 --scenario slow-bodies
    .venv/bin/python benches/class_floods.py --server target/release/sternhalma \
        --scenario three-heavy --seconds 5  # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import functools
import json
import math
import multiprocessing
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlencode, urlsplit

import aiohttp
from load import (
    JSON_HEADERS,
    REFUSALS,
    Answer,
    Tally,
    call,
    encode,
    fmt,
    get_json,
    loop_lag,
    middle_game,
    percentiles,
    polite_main,
    proc_cpu_seconds,
    proc_status,
    raise_open_files,
    set_nice,
)

SCENARIOS = (
    "heavy-jobs",
    "tournament-neighbour",
    "slow-bodies",
    "slow-log",
    "table-stats",
    "three-heavy",
    "render-bursts",
    "pipelined-readers",
    "long-lines",
    "write-flood",
    "big-beside-small",
)
POLITE_ADDRESS = "127.0.0.2"
NEIGHBOUR_ADDRESS = "127.0.0.3"
WATCHER_ADDRESS = "127.0.0.4"
READER_ADDRESS = "127.0.0.5"
PROBE_ADDRESS = "127.0.0.9"
# The polite client's measures and the seconds between two of each.
POLITE_PACES = {"healthz": 0.1, "bot_move": 1.5, "render": 3.0}
POLITE_TIMEOUT_S = 10.0
TARGET_P99_MS = 50.0
# How long the end of a run may take (reading jobs, abandoning tournaments).
WRAP_UP_S = 30.0


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def loadavg() -> str:
    """The machine's /proc/loadavg as it reads."""
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rfc3339(text: str | None) -> float | None:
    """Seconds since the epoch of the server's timestamp."""
    if not text:
        return None
    return datetime.fromisoformat(text).timestamp()


def session_from(address: str | None, **options: Any) -> aiohttp.ClientSession:
    """A client session whose connections leave from `address`."""
    connector = aiohttp.TCPConnector(
        limit=0, local_addr=(address, 0) if address else None, **options
    )
    return aiohttp.ClientSession(connector=connector)


def problem(answer: Answer) -> dict[str, Any]:
    """The status, code and detail of an answer, for the JSON."""
    body = answer.body if isinstance(answer.body, dict) else {}
    return {"status": answer.status, "code": body.get("code"), "detail": body.get("detail")}


async def pause_for(answer: Answer, longest: float = 5.0) -> None:
    """Waits as a refusal asks (a second when it does not say), at most `longest`."""
    await asyncio.sleep(min(answer.retry_after or 1.0, longest))


# ---- The server ----------------------------------------------------------------------


class LogDrain(threading.Thread):
    """Reads the server's stderr at most `rate` bytes a second, as a slow
    terminal would, and keeps its last few KiB."""

    def __init__(self, stream: IO[bytes], rate: float) -> None:
        super().__init__(daemon=True)
        self.fd = stream.fileno()
        self.rate = rate
        self.bytes = 0
        self.tail = b""

    def run(self) -> None:
        chunk = max(4096, int(self.rate / 100))
        next_at = time.monotonic()
        while True:
            started = time.monotonic()
            try:
                data = os.read(self.fd, chunk)
            except OSError:
                return
            if not data:
                return
            self.bytes += len(data)
            self.tail = (self.tail + data)[-4096:]
            next_at = max(next_at, started) + len(data) / self.rate
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)


@dataclass
class Server:
    """A server this script started."""

    process: subprocess.Popen
    url: str
    scratch: Path
    drain: LogDrain | None


def start_server(
    binary: Path,
    scratch: Path,
    log_level: str,
    drain_rate: float | None,
    extra: list[str] | None = None,
) -> Server:
    """`sternhalma serve` on a free port with a scratch database. Its stderr
    goes to a file, or through a pipe read at `drain_rate` bytes a second."""
    out_path, err_path = scratch / "serve.out", scratch / "serve.err"
    command = [str(binary), "serve", "--port", "0", "--database", str(scratch / "db.sqlite3")]
    command += ["--log-level", log_level, *(extra or [])]
    with out_path.open("w") as out, err_path.open("w") as err:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.PIPE if drain_rate else err
        )
    drain = None
    if drain_rate and process.stderr is not None:
        drain = LogDrain(process.stderr, drain_rate)
        drain.start()
    for _ in range(400):
        found = re.search(r"sternhalma listening on (http://\S+)", out_path.read_text())
        if found:
            return Server(process, found.group(1), scratch, drain)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    tail = drain.tail.decode(errors="replace") if drain else err_path.read_text()
    raise RuntimeError(f"the server did not start: {tail[-2000:]}")


def fd_count(pid: int) -> int | None:
    """How many descriptors a process holds."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def fd_limit(pid: int) -> int | None:
    """A process's soft limit of open files."""
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return int(line.split()[3])
    except (OSError, ValueError, IndexError):
        pass
    return None


async def sample_server(pid: int, samples: list[dict[str, Any]], t0: float) -> None:
    """Every second: the server's RSS, threads and descriptors."""
    while True:
        sample: dict[str, Any] = {"t": round(time.perf_counter() - t0, 1)}
        sample.update(proc_status(pid))
        sample["fds"] = fd_count(pid)
        samples.append(sample)
        await asyncio.sleep(1.0)


# ---- A run: the polite client beside a scenario ------------------------------------


@dataclass
class Run:
    """What every scenario shares."""

    args: argparse.Namespace
    url: str
    two_start: str
    pool: concurrent.futures.ProcessPoolExecutor
    polite: asyncio.Future | None = None
    t0: float = 0.0
    pid: int | None = None

    def start_polite(self, seconds: float, paces: dict[str, float] | None = None) -> float:
        """Starts the polite client for `seconds`; the clock's start (perf_counter)."""
        loop = asyncio.get_running_loop()
        self.t0 = time.perf_counter()
        self.polite = loop.run_in_executor(
            self.pool,
            functools.partial(
                polite_main,
                self.url,
                seconds,
                0.1,
                self.two_start,
                self.args.client_nice,
                self.args.polite_address,
                paces=paces or POLITE_PACES,
                timeout_s=POLITE_TIMEOUT_S,
                fresh_connections=True,
            ),
        )
        return self.t0


def window(tally: dict[str, Any], since: float, until: float) -> dict[str, Any]:
    """A polite measure's requests started between `since` and `until`
    (seconds from the polite client's start): counts and percentiles."""
    rows = [row for row in tally.get("timeline", []) if since <= row[0] < until]
    outcomes = Counter(str(row[2]) for row in rows)
    failures = sum(n for outcome, n in outcomes.items() if not outcome.startswith("2"))
    return {
        "requests": len(rows),
        "failures": failures,
        "outcomes": dict(sorted(outcomes.items())),
        "latency_ms": percentiles(sorted(row[1] / 1000 for row in rows)),
    }


# ---- heavy-jobs ------------------------------------------------------------------------


async def heavy_jobs(run: Run) -> dict[str, Any]:
    args, url = run.args, run.url
    big = {"board": args.job_board, "max_nodes": args.job_nodes, "max_memory_mb": args.job_memory}
    capped = Tally(started_at=time.perf_counter())
    large = Tally(started_at=capped.started_at)
    jobs: list[str] = []

    async def post(session: aiohttp.ClientSession, tally: Tally, body: dict) -> Answer:
        answer = await call(
            session,
            tally,
            "POST",
            f"{url}/v1/solitaire/jobs",
            body=encode(body),
            headers=JSON_HEADERS,
            timeout_s=POLITE_TIMEOUT_S,
        )
        if answer.status == 202 and isinstance(answer.body, dict):
            jobs.append(answer.body.get("url") or f"/v1/solitaire/jobs/{answer.body['id']}")
        return answer

    run.start_polite(args.seconds)
    deadline = time.monotonic() + args.seconds
    async with session_from(args.hostile_address) as session:
        first = await post(session, large, big)
        nodes, source = args.job_nodes, "accepted"
        if first.status != 202:
            nodes, source = await solve_cap(session, url, first)
        log(f"heavy jobs: max_nodes {nodes} ({source}); {args.job_burst} at once")
        body = {**big, "max_nodes": nodes}
        both = nodes < args.job_nodes
        burst = args.job_burst - (0 if both else 1)
        await asyncio.gather(*(post(session, capped, body) for _ in range(burst)))
        next_at = time.monotonic() + args.job_every
        while next_at < deadline:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            await asyncio.gather(
                post(session, capped, body), *([post(session, large, big)] if both else [])
            )
            next_at += args.job_every
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        log(f"reading the {len(jobs)} accepted jobs")
        statuses: Counter = Counter()
        read = Tally()

        async def status_of(path: str) -> None:
            answer = await call(session, read, "GET", f"{url}{path}", timeout_s=WRAP_UP_S)
            body = answer.body if isinstance(answer.body, dict) else {}
            statuses[str(body.get("status", answer.status))] += 1

        await asyncio.gather(*(status_of(path) for path in jobs))
    return {
        "settings": {**body, "max_nodes_source": source, "asked_too": args.job_nodes},
        "jobs": capped.summary(),
        "jobs_at_the_asked_nodes": large.summary(),
        "accepted_jobs_at_the_end": dict(statuses),
    }


async def solve_cap(session: aiohttp.ClientSession, url: str, answer: Answer) -> tuple[int, str]:
    """The largest `max_nodes` the server takes: named by its 422, else the
    maximum in its OpenAPI document."""
    detail = problem(answer)
    found = re.search(r"max_nodes must be 1 to (\d+)", str(detail["detail"]))
    if answer.status == 422 and found:
        return int(found.group(1)), f"the server's 422: {detail['detail']}"
    async with session.get(f"{url}/openapi.json") as response:
        document = await response.json(content_type=None)
    schema = document["components"]["schemas"]["SolveRequest"]["properties"]["max_nodes"]
    return int(schema["maximum"]), f"/openapi.json (first answer {answer.status})"


# ---- tournament-neighbour ------------------------------------------------------------------


def big_request(entrants: int, per_pairing: int, concurrency: int, start: bool) -> dict:
    """The big tournament: `random` bots on star1, two players."""
    return {
        "name": "big",
        "board": "star1",
        "layout": "2",
        "entrants": [
            {"name": f"random {n}", "bot": {"kind": "random", "seed": n}} for n in range(entrants)
        ],
        "games_per_pairing": per_pairing,
        "concurrency": concurrency,
        "start": start,
    }


NEIGHBOUR_REQUEST = {
    "name": "neighbour",
    "board": "star4",
    "layout": "2",
    "entrants": [{"name": "bench"}, {"name": "steady", "bot": {"kind": "random", "seed": 1}}],
    "games_per_pairing": 2,
    "move_ms": 1000,
    "max_timeouts": 100,
    "start": True,
}


def gauntlet_request(number: int) -> dict:
    """A gauntlet of one game: a greedy student against the greedy reference."""
    return {
        "name": f"gauntlet {number}",
        "format": "gauntlet",
        "board": "star4",
        "entrants": [{"name": "student", "bot": {"kind": "greedy", "seed": number}}],
        "games_per_pairing": 1,
        "start": True,
    }


async def biggest_tournament(
    session: aiohttp.ClientSession, url: str, args: argparse.Namespace
) -> tuple[dict[str, int], list[dict]]:
    """The largest big tournament the server takes without its admin key:
    asked without starting it; each 422 names a limit, the request shrinks to
    it. The accepted one is abandoned at once. Its settings, and the probes."""
    spec = {
        "entrants": args.big_entrants,
        "games_per_pairing": args.big_games_per_pairing,
        "concurrency": args.big_concurrency,
    }
    probes: list[dict] = []
    tally = Tally()
    for _ in range(16):
        request = big_request(
            spec["entrants"], spec["games_per_pairing"], spec["concurrency"], False
        )
        answer = await create_tournament(session, url, request, tally)
        probes.append({**spec, **problem(answer)})
        if answer.status == 201:
            await abandon(session, url, answer.body["tournament"]["id"], answer.body["admin_token"])
            return spec, probes
        if answer.status in REFUSALS:
            await pause_for(answer)
            continue
        code, detail = problem(answer)["code"], str(problem(answer)["detail"])
        number = re.search(r"at most (\d+)", detail)
        if answer.status != 422:
            raise RuntimeError(f"the big tournament was answered {problem(answer)}")
        if code == "too_many_entrants" and number:
            spec["entrants"] = int(number.group(1))
        elif code == "too_many_games" and number:
            most, n = int(number.group(1)), spec["entrants"]
            while n > 2 and n * (n - 1) // 2 > most:
                n -= 1
            spec["entrants"] = n
            spec["games_per_pairing"] = max(
                1, min(spec["games_per_pairing"], most // (n * (n - 1) // 2))
            )
        elif code == "too_much_work":
            if spec["games_per_pairing"] > 1:
                spec["games_per_pairing"] //= 2
            else:
                spec["entrants"] -= max(1, spec["entrants"] // 10)
        elif "concurrency" in detail and (found := re.search(r"1 to (\d+)", detail)):
            spec["concurrency"] = int(found.group(1))
        else:
            raise RuntimeError(f"the big tournament was refused: {problem(answer)}")
    raise RuntimeError(f"no big tournament was accepted: {probes}")


async def create_tournament(
    session: aiohttp.ClientSession, url: str, request: dict | bytes, tally: Tally
) -> Answer:
    """`POST /v1/tournaments` without the admin key."""
    body = request if isinstance(request, bytes) else encode(request)
    return await call(
        session,
        tally,
        "POST",
        f"{url}/v1/tournaments",
        body=body,
        headers=JSON_HEADERS,
        timeout_s=POLITE_TIMEOUT_S,
    )


async def abandon(session: aiohttp.ClientSession, url: str, tid: int, token: str) -> int | None:
    """Abandons a tournament with its admin token; the status answered."""
    try:
        async with session.post(
            f"{url}/v1/tournaments/{tid}/abandon",
            headers={"Authorization": f"Bearer {token}"},
            timeout=aiohttp.ClientTimeout(total=WRAP_UP_S),
        ) as response:
            await response.read()
            return response.status
    except (TimeoutError, aiohttp.ClientError, OSError):
        return None


async def follow_events(
    session: aiohttp.ClientSession,
    url: str,
    on_event: Callable[[str, bytes, float], None],
    stats: Counter,
) -> None:
    """Reads an SSE stream until it ends (or the task is cancelled), calling
    `on_event(type, data, perf_counter at arrival)` for each event."""
    async with session.get(url, timeout=aiohttp.ClientTimeout(total=None, sock_connect=10)) as r:
        stats[f"status {r.status}"] += 1
        if r.status != 200:
            await r.read()
            return
        buffer = bytearray()
        kind, data = "message", bytearray()
        async for chunk in r.content.iter_any():
            stats["bytes"] += len(chunk)
            buffer += chunk
            start = 0
            while (end := buffer.find(b"\n", start)) >= 0:
                line = bytes(buffer[start:end]).rstrip(b"\r")
                start = end + 1
                if not line:
                    if data:
                        stats[kind] += 1
                        on_event(kind, bytes(data), time.perf_counter())
                    kind, data = "message", bytearray()
                elif line.startswith(b"event:"):
                    kind = line[6:].strip().decode()
                elif line.startswith(b"data:"):
                    data += line[5:].strip()
            del buffer[:start]


@dataclass
class Phase:
    """One phase's state: what was made and what was seen."""

    name: str
    watch: bool
    end: float
    bigs: list[dict[str, Any]] = field(default_factory=list)
    big_changed: asyncio.Event = field(default_factory=asyncio.Event)
    big_answers: Tally = field(default_factory=Tally)
    gauntlets: list[dict[str, Any]] = field(default_factory=list)
    standings: Tally = field(default_factory=Tally)
    watcher: Counter = field(default_factory=Counter)
    neighbour_events: list[list[Any]] = field(default_factory=list)
    neighbour_stream: Counter = field(default_factory=Counter)
    turns: Tally = field(default_factory=Tally)

    def running(self) -> bool:
        return time.perf_counter() < self.end


async def keep_big(run: Run, phase: Phase, spec: dict[str, int]) -> None:
    """The hostile student: a big tournament, and another when it ends."""
    url = run.url
    body = encode(
        big_request(spec["entrants"], spec["games_per_pairing"], spec["concurrency"], True)
    )
    async with session_from(run.args.hostile_address) as session:
        while phase.running():
            asked = time.perf_counter()
            answer = await create_tournament(session, url, body, phase.big_answers)
            if answer.status != 201:
                await pause_for(answer)
                continue
            view = answer.body["tournament"]
            big = {
                "id": view["id"],
                "token": answer.body["admin_token"],
                "created_s": round(asked - run.t0, 2),
                "create_ms": round((time.perf_counter() - asked) * 1000, 1),
                "games": view["games"]["total"],
            }
            phase.bigs.append(big)
            phase.big_changed.set()
            while phase.running():
                await asyncio.sleep(1.0)
                state = await call(session, Tally(), "GET", f"{url}/v1/tournaments/{view['id']}")
                if state.status == 200 and state.body["status"] in ("finished", "abandoned"):
                    big["finished_s"] = round(time.perf_counter() - run.t0, 2)
                    created = rfc3339(state.body["created_at"]) or 0.0
                    big["server_seconds"] = round(
                        (rfc3339(state.body["updated_at"]) or 0) - created, 2
                    )
                    break


async def watch_big(run: Run, phase: Phase) -> None:
    """A watcher of the big tournament's `/events` (the projector, say)."""
    async with session_from(WATCHER_ADDRESS) as session:
        followed = None
        while phase.running():
            if not phase.bigs or phase.bigs[-1]["id"] == followed:
                phase.big_changed.clear()
                await phase.big_changed.wait()
                continue
            followed = phase.bigs[-1]["id"]
            try:
                await follow_events(
                    session,
                    f"{run.url}/v1/tournaments/{followed}/events",
                    lambda kind, data, at: None,
                    phase.watcher,
                )
            except (aiohttp.ClientError, OSError) as error:
                phase.watcher[f"error {type(error).__name__}"] += 1
                await asyncio.sleep(1.0)


async def read_standings(run: Run, phase: Phase) -> None:
    """Another student reading the big tournament's standings every 2 s."""
    async with session_from(READER_ADDRESS) as session:
        while phase.running():
            if phase.bigs:
                tid = phase.bigs[-1]["id"]
                await call(
                    session,
                    phase.standings,
                    "GET",
                    f"{run.url}/v1/tournaments/{tid}/standings",
                    timeout_s=POLITE_TIMEOUT_S,
                    parse=False,
                )
            await asyncio.sleep(2.0)


async def gauntlets(run: Run, phase: Phase) -> None:
    """Gauntlets of one game, one after the other, each timed."""
    url = run.url
    async with session_from(NEIGHBOUR_ADDRESS) as session:
        while phase.running():
            number = len(phase.gauntlets) + 1
            asked = time.perf_counter()
            answer = await create_tournament(session, url, gauntlet_request(number), Tally())
            if answer.status != 201:
                phase.gauntlets.append({"created": problem(answer)})
                await pause_for(answer)
                continue
            view = answer.body["tournament"]
            record: dict[str, Any] = {"id": view["id"], "created_s": round(asked - run.t0, 2)}
            phase.gauntlets.append(record)

            def seen(
                kind: str, data: bytes, at: float, record: dict = record, asked: float = asked
            ) -> None:
                if kind == "game_started":
                    record.setdefault("client_started_s", round(at - asked, 3))
                    record["match_id"] = json.loads(data)["match_id"]
                elif kind == "tournament" and b'"status":"finished"' in data:
                    record.setdefault("client_finished_s", round(at - asked, 3))

            try:
                await asyncio.wait_for(
                    follow_events(
                        session, f"{url}/v1/tournaments/{view['id']}/events", seen, Counter()
                    ),
                    timeout=max(0.1, phase.end - time.perf_counter()),
                )
            except TimeoutError:
                record["unfinished_after_s"] = round(time.perf_counter() - asked, 2)
                record["abandoned"] = await abandon(
                    session, url, view["id"], answer.body["admin_token"]
                )
            except (aiohttp.ClientError, OSError) as error:
                record["stream_error"] = repr(error)[:200]
            await gauntlet_times(session, url, record, view)


async def gauntlet_times(
    session: aiohttp.ClientSession, url: str, record: dict[str, Any], view: dict
) -> None:
    """The server's own times of a gauntlet: its game's match created, and the
    tournament's end, from its creation."""
    created = rfc3339(view["created_at"]) or 0.0
    games = await call(session, Tally(), "GET", f"{url}/v1/tournaments/{view['id']}/games")
    if games.status != 200:
        return
    game = games.body["games"][0]
    record["game_status"] = game["status"]
    if game.get("match_id") is not None:
        match = await call(session, Tally(), "GET", f"{url}/v1/matches/{game['match_id']}")
        if match.status == 200:
            started = rfc3339(match.body["created_at"]) or 0.0
            record["server_started_s"] = round(started - created, 3)
            if match.body["status"] != "in_progress":
                ended = rfc3339(match.body["updated_at"]) or 0.0
                record["server_game_ended_s"] = round(ended - created, 3)
    state = await call(session, Tally(), "GET", f"{url}/v1/tournaments/{view['id']}")
    if state.status == 200 and state.body["status"] == "finished":
        record["server_finished_s"] = round((rfc3339(state.body["updated_at"]) or 0) - created, 3)


async def hold_entrant(run: Run, phase: Phase, tid: int, token: str) -> None:
    """The neighbour's open entrant: connected (it long-polls its turns) and
    never moving."""
    async with session_from(NEIGHBOUR_ADDRESS) as session:
        while phase.running():
            answer = await call(
                session,
                phase.turns,
                "GET",
                f"{run.url}/v1/tournaments/{tid}/turns?timeout_ms=25000",
                headers={"Authorization": f"Bearer {token}"},
                timeout_s=30.0,
            )
            if answer.status in REFUSALS:
                await pause_for(answer)
            else:
                await asyncio.sleep(0.5)


async def follow_neighbour(run: Run, phase: Phase, tid: int) -> None:
    """The neighbour tournament's events, as they arrive."""

    def seen(kind: str, data: bytes, at: float) -> None:
        if kind in ("game_started", "timeout", "game_over"):
            event = json.loads(data)
            phase.neighbour_events.append(
                [round(at - run.t0, 3), kind, event.get("match_id"), event.get("ply")]
            )

    async with session_from(NEIGHBOUR_ADDRESS) as session:
        try:
            await follow_events(
                session, f"{run.url}/v1/tournaments/{tid}/events", seen, phase.neighbour_stream
            )
        except (aiohttp.ClientError, OSError) as error:
            phase.neighbour_stream[f"error {type(error).__name__}"] += 1


async def deadline_accuracy(
    session: aiohttp.ClientSession, url: str, created: dict, ended_at: float
) -> dict[str, Any]:
    """How the neighbour's deadlines fired: the timeouts stored, against the
    window over `move_ms`; each timed-out move's lateness (server times)."""
    view = created["tournament"]
    tid, move_ms = view["id"], view["move_ms"]
    games = await call(
        session, Tally(), "GET", f"{url}/v1/tournaments/{tid}/games", timeout_s=WRAP_UP_S
    )
    state = await call(session, Tally(), "GET", f"{url}/v1/tournaments/{tid}", timeout_s=WRAP_UP_S)
    if games.status != 200 or state.status != 200:
        return {"error": f"unreadable: games {games.status}, tournament {state.status}"}
    began = rfc3339(view["created_at"]) or 0.0
    ended = rfc3339(state.body["updated_at"]) if state.body["status"] == "abandoned" else None
    ended = ended or ended_at
    stored = 0
    late: list[float] = []
    first_start: float | None = None
    overdue_at_end = 0
    overdue_ms: list[float] = []
    for game in games.body["games"]:
        bench = [s for s in game["seats"] if s["entrant"] == 0]
        stored += sum(s["timeouts"] for s in bench)
        if game.get("match_id") is None or not bench:
            continue
        seat = bench[0]["seat"]
        match = await call(
            session, Tally(), "GET", f"{url}/v1/matches/{game['match_id']}", timeout_s=WRAP_UP_S
        )
        moves = await call(
            session,
            Tally(),
            "GET",
            f"{url}/v1/matches/{game['match_id']}/moves",
            timeout_s=WRAP_UP_S,
        )
        if match.status != 200 or moves.status != 200:
            continue
        turn_start = rfc3339(match.body["created_at"]) or 0.0
        first_start = turn_start if first_start is None else min(first_start, turn_start)
        for record in moves.body["moves"]:
            played = rfc3339(record["played_at"]) or 0.0
            if record["seat"] == seat:
                late.append(played - turn_start - move_ms / 1000)
            turn_start = played
        # The bench's turn under way at the end: a deadline missed if overdue.
        overdue = (ended - turn_start) * 1000 - move_ms
        history = moves.body["moves"]
        next_seat = (history[-1]["seat"] + 1) % 2 if history else 0
        under_way = match.body["status"] in ("in_progress", "abandoned")
        if under_way and next_seat == seat and overdue > 0:
            overdue_at_end += 1
            overdue_ms.append(round(overdue, 1))
    seconds = ended - began
    expected = math.floor(seconds * 1000 / move_ms)
    return {
        "move_ms": move_ms,
        "window_s": round(seconds, 2),
        "first_game_started_after_s": round(first_start - began, 3) if first_start else None,
        "timeouts_stored": stored,
        "timeouts_expected": expected,
        "accuracy": round(stored / expected, 3) if expected else None,
        "overdue_at_end": overdue_at_end,
        "overdue_at_end_by_ms": overdue_ms,
        "lateness_ms": percentiles(sorted(max(0.0, x) for x in late)),
        "early_ms": round(min(late) * 1000, 1) if late and min(late) < 0 else None,
    }


async def one_phase(run: Run, spec: dict[str, int], name: str, watch: bool, seconds: float) -> dict:
    """A phase: the big tournament (again when it ends), its watcher if
    `watch`, the standings reader, the gauntlets and the neighbour."""
    url = run.url
    phase = Phase(name=name, watch=watch, end=time.perf_counter() + seconds)
    phase.standings.started_at = phase.big_answers.started_at = run.t0
    began = time.perf_counter() - run.t0
    tasks = [asyncio.create_task(keep_big(run, phase, spec))]
    await asyncio.sleep(0.2)  # the big one first
    if watch:
        tasks.append(asyncio.create_task(watch_big(run, phase)))
    tasks.append(asyncio.create_task(read_standings(run, phase)))
    gauntlet_task = asyncio.create_task(gauntlets(run, phase))
    neighbour: dict[str, Any] = {}
    async with session_from(NEIGHBOUR_ADDRESS) as session:
        answer = await create_tournament(session, url, NEIGHBOUR_REQUEST, Tally())
        if answer.status == 201:
            created = answer.body
            tid = created["tournament"]["id"]
            tasks.append(asyncio.create_task(follow_neighbour(run, phase, tid)))
            tasks.append(
                asyncio.create_task(
                    hold_entrant(run, phase, tid, created["entrant_tokens"][0]["token"])
                )
            )
        else:
            neighbour["created"] = problem(answer)
        await asyncio.sleep(max(0.0, phase.end - time.perf_counter()))
        ended_at = time.time()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if answer.status == 201:
            neighbour["abandoned"] = await abandon(session, url, tid, created["admin_token"])
        # The gauntlet under way abandons itself at the phase's end.
        await asyncio.wait_for(asyncio.gather(gauntlet_task, return_exceptions=True), WRAP_UP_S)
        async with session_from(run.args.hostile_address) as hostile:
            for big in phase.bigs:
                if "finished_s" not in big:
                    big["abandoned"] = await abandon(hostile, url, big["id"], big["token"])
        if answer.status == 201:
            neighbour.update(await deadline_accuracy(session, url, created, ended_at))
    ended = time.perf_counter() - run.t0
    for big in phase.bigs:
        big.pop("token")
    events = Counter(row[1] for row in phase.neighbour_events)
    return {
        "name": name,
        "watching_the_big_events": watch,
        "from_s": round(began, 2),
        "to_s": round(ended, 2),
        "big_tournaments": phase.bigs,
        "big_creations": phase.big_answers.summary(),
        "gauntlets": phase.gauntlets,
        "neighbour": {
            **neighbour,
            "events_seen": dict(events),
            "stream": dict(phase.neighbour_stream),
            "turns_polls": phase.turns.summary()["by_status"],
        },
        "big_standings": phase.standings.summary(),
        "watcher": dict(phase.watcher),
    }


async def tournament_neighbour(run: Run) -> dict[str, Any]:
    args, url = run.args, run.url
    async with session_from(args.hostile_address) as session:
        spec, probes = await biggest_tournament(session, url, args)
    log(f"big tournament: {spec} (probes: {[(p['status'], p['code']) for p in probes]})")
    # A gauntlet on the quiet server, for reference.
    async with session_from(NEIGHBOUR_ADDRESS) as session:
        answer = await create_tournament(session, url, gauntlet_request(0), Tally())
        reference: dict[str, Any] = problem(answer)
        if answer.status == 201:
            view = answer.body["tournament"]
            for _ in range(300):
                state = await call(session, Tally(), "GET", f"{url}/v1/tournaments/{view['id']}")
                if state.status == 200 and state.body["status"] == "finished":
                    break
                await asyncio.sleep(0.1)
            reference = {"id": view["id"]}
            await gauntlet_times(session, url, reference, view)
    log(f"a gauntlet on the quiet server: {reference}")
    half = args.seconds / 2
    run.start_polite(args.seconds)
    phases = []
    for name, watch in (("nobody watching", False), ("watching the big one's /events", True)):
        log(f"phase: {name} ({half:g} s)")
        phases.append(await one_phase(run, spec, name, watch, half))
    return {
        "big_tournament": {**spec, "board": "star1", "players": 2, "bots": "random"},
        "big_probes": probes,
        "gauntlet_on_the_quiet_server": reference,
        "phases": phases,
    }


# ---- slow-bodies ------------------------------------------------------------------------------


def slow_worker(
    host: str, port: int, address: str, count: int, seconds: float, nice: int, head: bytes
) -> dict[str, Any]:
    """One process of the slow-body flood: `count` connections from `address`."""
    set_nice(nice)
    return asyncio.run(hold_connections(host, port, address, count, seconds, head))


async def hold_connections(
    host: str, port: int, address: str, count: int, seconds: float, head: bytes
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    errors: Counter = Counter()
    answers: Counter = Counter()
    held_s: list[float] = []
    counts = {"opened": 0, "open": 0, "peak_open": 0, "held_to_the_end": 0}
    opening = asyncio.Semaphore(256)
    open_over_time: list[int] = []

    async def one() -> None:
        # A connection refused, closed or answered is opened again after a
        # pause that doubles each time (1 s to 16 s), and falls back to 1 s
        # once one was held 10 s: a persistent client, not a connect flood.
        failures = 0
        while time.monotonic() < deadline:
            if failures:
                pause = min(16.0, 2.0 ** (failures - 1), deadline - time.monotonic())
                await asyncio.sleep(max(0.0, pause))
                if time.monotonic() >= deadline:
                    return
            async with opening:
                try:
                    reader, writer = await asyncio.wait_for(
                        asyncio.open_connection(host, port, local_addr=(address, 0)), timeout=10.0
                    )
                    writer.write(head)
                    await writer.drain()
                except TimeoutError:
                    errors["connect timeout"] += 1
                    failures += 1
                    continue
                except OSError as error:
                    errors[error.strerror or type(error).__name__] += 1
                    failures += 1
                    continue
            counts["opened"] += 1
            counts["open"] += 1
            counts["peak_open"] = max(counts["peak_open"], counts["open"])
            opened = time.monotonic()
            data: bytes | None
            try:
                data = await asyncio.wait_for(
                    reader.read(256), timeout=max(0.0, deadline - time.monotonic())
                )
            except TimeoutError:
                data = None
            except OSError:
                data = b""
            finally:
                counts["open"] -= 1
                writer.close()
            if data is None:
                counts["held_to_the_end"] += 1
                return
            answers[data.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"] += 1
            held = time.monotonic() - opened
            held_s.append(held)
            failures = 1 if held >= 10.0 else failures + 1

    async def sample() -> None:
        while time.monotonic() < deadline:
            open_over_time.append(counts["open"])
            await asyncio.sleep(1.0)

    sampler = asyncio.create_task(sample())
    await asyncio.gather(*(one() for _ in range(count)))
    sampler.cancel()
    return {
        "address": address,
        "connections": count,
        **counts,
        "connect_errors": dict(errors),
        "answered_or_closed": dict(answers),
        "held_before_the_server_let_go_ms": percentiles(sorted(held_s)),
        "open_each_second": open_over_time,
    }


async def slow_bodies(run: Run) -> dict[str, Any]:
    args = run.args
    where = urlsplit(run.url)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    head = (
        f"POST /v1/legal-moves HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    ).encode()
    addresses = [f"127.0.0.{10 + n}" for n in range(args.slow_addresses)]
    shares = [
        args.slow_connections // len(addresses) + (n < args.slow_connections % len(addresses))
        for n in range(len(addresses))
    ]
    loop = asyncio.get_running_loop()
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=len(addresses), mp_context=multiprocessing.get_context("spawn")
    ) as workers:
        run.start_polite(args.seconds)
        log(f"slow bodies: {args.slow_connections} connections from {addresses}")
        results = await asyncio.gather(
            *(
                loop.run_in_executor(
                    workers,
                    slow_worker,
                    host,
                    port,
                    address,
                    share,
                    args.seconds,
                    args.client_nice,
                    head,
                )
                for address, share in zip(addresses, shares, strict=True)
            )
        )
    return {"request_head": head.decode(), "processes": results}


# ---- slow-log -----------------------------------------------------------------------------------


async def slow_log(run: Run) -> dict[str, Any]:
    args = run.args
    where = urlsplit(run.url)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    query = "q=" + "x" * (args.query_bytes - 2)
    request = f"GET /healthz?{query} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    tally = Tally()
    deadline = time.monotonic() + args.seconds

    async def loop_requests() -> None:
        reader: asyncio.StreamReader | None = None
        writer: asyncio.StreamWriter | None = None
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                if writer is None or reader is None:
                    reader, writer = await asyncio.open_connection(
                        host, port, local_addr=(args.slow_log_address, 0), limit=1 << 20
                    )
                writer.write(request)
                await writer.drain()
                left = max(0.1, deadline - time.monotonic() + 5.0)
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=left)
                status = int(head.split(b" ", 2)[1])
                length = re.search(rb"(?i)content-length:\s*(\d+)", head)
                body = await reader.readexactly(int(length.group(1))) if length else b""
                tally.bytes_received += len(head) + len(body)
                tally.statuses[status] += 1
                tally.latencies.append(time.perf_counter() - started)
                if re.search(rb"(?i)connection:\s*close", head):
                    writer.close()
                    reader = writer = None
            except TimeoutError:
                tally.timeouts += 1
                if writer is not None:
                    writer.close()
                reader = writer = None
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                tally.connection_errors[type(error).__name__] += 1
                if writer is not None:
                    writer.close()
                reader = writer = None
                await asyncio.sleep(0.1)
        if writer is not None:
            writer.close()

    run.start_polite(args.seconds)
    log(
        f"slow log: {args.log_connections} connections, GET /healthz with {len(query)} bytes of query"
    )
    await asyncio.gather(*(loop_requests() for _ in range(args.log_connections)))
    metrics: dict[str, float] = {}
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(
                f"{run.url}/metrics", timeout=aiohttp.ClientTimeout(total=WRAP_UP_S)
            ) as response,
        ):
            for line in (await response.text()).splitlines():
                if line.startswith("sternhalma_log"):
                    name, _, value = line.rpartition(" ")
                    metrics[name] = float(value)
    except (TimeoutError, aiohttp.ClientError, OSError) as error:
        metrics["error"] = 0.0
        log(f"/metrics unreadable: {error!r}")
    return {
        "query_bytes": len(query),
        "connections": args.log_connections,
        "address": args.slow_log_address,
        "requests": tally.summary(),
        "log_metrics": metrics,
    }


# ---- Issue 51: more floods, each a phase runnable alone -------------------------------


def hostile_addresses(args: argparse.Namespace, count: int) -> list[str]:
    """`count` attacking addresses: --hostile-address, then the next ones
    (skipping the polite student's)."""
    head, _, last = args.hostile_address.rpartition(".")
    addresses: list[str] = []
    number = int(last)
    while len(addresses) < count:
        if f"{head}.{number}" != args.polite_address:
            addresses.append(f"{head}.{number}")
        number += 1
    return addresses


async def solve_body(url: str, args: argparse.Namespace, route: str) -> tuple[bytes, str]:
    """A solitaire request at the largest `max_nodes` `route` takes (probed
    from an address of its own with an impossible one: its 422 names the cap),
    at most `--job-nodes`."""
    request = {"board": args.job_board, "max_nodes": args.job_nodes}
    request["max_memory_mb"] = args.job_memory
    async with session_from(PROBE_ADDRESS) as session:
        probe = encode({**request, "max_nodes": 10**12})
        answer = await call(session, Tally(), "POST", url + route, body=probe, headers=JSON_HEADERS)
        cap, source = await solve_cap(session, url, answer)
    request["max_nodes"] = min(args.job_nodes, cap)
    return encode(request), source


async def hammer(
    address: str,
    connections: int,
    seconds: float,
    step: Callable[[aiohttp.ClientSession, int, int], Awaitable[Answer]],
) -> None:
    """`connections` loops from `address`, each with its own connection,
    calling `step(session, loop, request)` one after the other for `seconds`;
    a refusal waits as it asks (a second at most), as a hurried client would."""
    deadline = time.monotonic() + seconds

    async def one(index: int) -> None:
        async with session_from(address, limit_per_host=1) as session:
            request = 0
            while time.monotonic() < deadline:
                answer = await step(session, index, request)
                request += 1
                if answer.status in REFUSALS:
                    await pause_for(answer, 1.0)
                elif answer.status is None:
                    await asyncio.sleep(0.1)

    await asyncio.gather(*(one(i) for i in range(connections)))


async def bot_caps(url: str) -> dict[str, dict[str, Any]]:
    """Each bot kind's largest budget (`GET /v1/bots`)."""
    async with aiohttp.ClientSession() as session:
        bots = await get_json(session, f"{url}/v1/bots")
    return {view["kind"]: view.get("max_budget", bots["max"]) for view in bots["bots"]}


async def table_stats(run: Run) -> dict[str, Any]:
    """`GET /v1/tablebases` in a loop by several connections of one address."""
    args, tally = run.args, Tally()

    async def step(session: aiohttp.ClientSession, _: int, __: int) -> Answer:
        return await call(session, tally, "GET", f"{run.url}/v1/tablebases", parse=False)

    run.start_polite(args.seconds)
    log(f"table stats: {args.flood_connections} connections from {args.hostile_address}")
    await hammer(args.hostile_address, args.flood_connections, args.seconds, step)
    return {
        "address": args.hostile_address,
        "connections": args.flood_connections,
        "requests": tally.summary(),
    }


async def three_heavy(run: Run) -> dict[str, Any]:
    """Three addresses, each with several loops of max-budget heavy work."""
    args, url = run.args, run.url
    caps = await bot_caps(url)
    async with aiohttp.ClientSession() as session:
        middle, moves = await middle_game(session, url, run.two_start, 30)
    replay_body = encode({"start": run.two_start, "moves": moves})
    render_url = f"{url}/v1/render.svg?{urlencode({'position': middle, 'size': 4096})}"
    kinds = ("bot_alphabeta", "bot_mcts", "solve", "render", "replay")
    tallies = {kind: Tally() for kind in kinds}

    def bot_body(kind: str, seed: int) -> bytes:
        cap = caps.get(kind, {})
        bot = {"kind": kind, "seed": seed}
        bot.update({k: cap[k] for k in ("nodes", "millis", "depth") if k in cap})
        return encode({"position": middle, "bot": bot})

    solve, cap_source = await solve_body(url, args, "/v1/solitaire/solve")

    async def step(session: aiohttp.ClientSession, index: int, request: int) -> Answer:
        kind = kinds[(index + request) % len(kinds)]
        tally = tallies[kind]
        if kind.startswith("bot_"):
            body = bot_body(kind[4:], index * 1000 + request)
            return await call(
                session,
                tally,
                "POST",
                f"{url}/v1/bots/move",
                body=body,
                headers=JSON_HEADERS,
                parse=False,
            )
        if kind == "solve":
            return await call(
                session,
                tally,
                "POST",
                f"{url}/v1/solitaire/solve",
                body=solve,
                headers=JSON_HEADERS,
            )
        if kind == "render":
            return await call(session, tally, "GET", render_url, parse=False)
        return await call(
            session,
            tally,
            "POST",
            f"{url}/v1/replay",
            body=replay_body,
            headers=JSON_HEADERS,
            parse=False,
        )

    addresses = hostile_addresses(args, 3)
    run.start_polite(args.seconds)
    log(f"three heavy: {args.heavy_threads} loops on each of {addresses}")
    await asyncio.gather(*(hammer(a, args.heavy_threads, args.seconds, step) for a in addresses))
    return {
        "addresses": addresses,
        "loops_per_address": args.heavy_threads,
        "solve": json.loads(solve),
        "solve_cap": cap_source,
        "bot_caps": caps,
        "requests": {kind: t.summary() for kind, t in tallies.items()},
    }


async def render_bursts(run: Run) -> dict[str, Any]:
    """One address: bursts of large renders and solitaire jobs."""
    args, url = run.args, run.url
    renders, jobs = Tally(), Tally()
    render_url = f"{url}/v1/render.svg?{urlencode({'position': run.two_start, 'size': 4096})}"
    job_body, cap_source = await solve_body(url, args, "/v1/solitaire/jobs")
    deadline = time.monotonic() + args.seconds
    bursts = 0
    run.start_polite(args.seconds)
    log(f"render bursts: {args.job_burst} renders and jobs every {args.job_every} s")
    async with session_from(args.hostile_address) as session:
        while time.monotonic() < deadline:
            bursts += 1
            sent = [
                call(session, renders, "GET", render_url, parse=False)
                for _ in range(args.job_burst)
            ]
            sent += [
                call(
                    session,
                    jobs,
                    "POST",
                    f"{url}/v1/solitaire/jobs",
                    body=job_body,
                    headers=JSON_HEADERS,
                )
                for _ in range(max(1, args.job_burst // 4))
            ]
            await asyncio.gather(*sent)
            await asyncio.sleep(max(0.0, min(args.job_every, deadline - time.monotonic())))
    return {
        "address": args.hostile_address,
        "bursts": bursts,
        "job": json.loads(job_body),
        "job_cap": cap_source,
        "size": 4096,
        "renders": renders.summary(),
        "jobs": jobs.summary(),
    }


async def pipelined_readers(run: Run) -> dict[str, Any]:
    """Many connections from one address, each pipelining requests on one
    socket and reading the answers a few bytes a second."""
    args = run.args
    where = urlsplit(run.url)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    one = f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    deadline = time.monotonic() + args.seconds
    outcomes: Counter = Counter()
    read_bytes = 0
    rss_before = proc_status(run.pid).get("VmRSS") if run.pid else None

    async def reader_of(index: int) -> None:
        nonlocal read_bytes
        try:
            reader, writer = await asyncio.open_connection(
                host, port, local_addr=(args.hostile_address, 0)
            )
        except OSError as error:
            outcomes[f"connect {type(error).__name__}"] += 1
            return
        try:
            writer.write(one * args.pipeline_depth)
            await writer.drain()
            while time.monotonic() < deadline:
                data = await reader.read(args.read_bytes)
                if not data:
                    outcomes["closed by the server"] += 1
                    return
                read_bytes += len(data)
                await asyncio.sleep(1.0)
            outcomes["open at the end"] += 1
        except OSError as error:
            outcomes[f"closed by the server ({type(error).__name__})"] += 1
        finally:
            writer.close()

    run.start_polite(args.seconds)
    log(f"pipelined readers: {args.pipeline_connections} connections x {args.pipeline_depth}")
    await asyncio.gather(*(reader_of(i) for i in range(args.pipeline_connections)))
    rss_after = proc_status(run.pid).get("VmRSS") if run.pid else None
    return {
        "address": args.hostile_address,
        "connections": args.pipeline_connections,
        "pipelined_per_connection": args.pipeline_depth,
        "read_bytes_per_second": args.read_bytes,
        "connections_by_outcome": dict(outcomes),
        "bytes_read": read_bytes,
        "server_rss_kib_before": rss_before,
        "server_rss_kib_after": rss_after,
    }


async def long_lines(run: Run) -> dict[str, Any]:
    """The slow-log flood with long request lines, the server logging to a file."""
    args = run.args
    args.query_bytes, args.slow_log_address = args.long_query_bytes, args.hostile_address
    started = time.perf_counter()
    flood = await slow_log(run)
    seconds = time.perf_counter() - started
    log_file = getattr(args, "log_file_path", None)
    sizes = {}
    if log_file:
        for path in sorted(Path(log_file).parent.glob(Path(log_file).name + "*")):
            sizes[path.name] = path.stat().st_size
    total = sum(sizes.values())
    flood["log_files_bytes"] = sizes if log_file else None
    flood["log_bytes_per_second"] = round(total / seconds) if log_file else None
    flood["log_lines_per_second_option"] = args.log_lines_per_second
    return flood


async def write_flood(run: Run) -> dict[str, Any]:
    """One address creating matches and tournaments as fast as allowed; the
    polite student plays stored-match moves."""
    args, url = run.args, run.url
    tallies = {"match_create": Tally(), "tournament_create": Tally()}
    match_body = encode(
        {
            "board": "star4",
            "layout": "2",
            "rules": "masters",
            "seats": [{"name": "flood south"}, {"name": "flood north"}],
        }
    )
    tournament_body = encode(big_request(2, 1, 1, False))

    async def step(session: aiohttp.ClientSession, index: int, request: int) -> Answer:
        if (index + request) % 2:
            return await create_tournament(
                session, url, tournament_body, tallies["tournament_create"]
            )
        return await call(
            session,
            tallies["match_create"],
            "POST",
            f"{url}/v1/matches",
            body=match_body,
            headers=JSON_HEADERS,
            parse=False,
        )

    run.start_polite(args.seconds, paces={**POLITE_PACES, "match_move": 0.5})
    log(f"write flood: {args.flood_connections} connections from {args.hostile_address}")
    await hammer(args.hostile_address, args.flood_connections, args.seconds, step)
    return {
        "address": args.hostile_address,
        "connections": args.flood_connections,
        "requests": {k: t.summary() for k, t in tallies.items()},
    }


async def big_beside_small(run: Run) -> dict[str, Any]:
    """A teacher's 40-bot round robin beside a small tournament whose open
    entrant the polite address plays: its move-to-next-turn latency."""
    args, url = run.args, run.url
    deadline = time.monotonic() + args.seconds
    small_request = {
        **NEIGHBOUR_REQUEST,
        "name": "small",
        "move_ms": 30_000,
        "games_per_pairing": 50,
    }
    made = Tally()
    turn = Tally(started_at=time.perf_counter())
    moves = Tally()
    async with session_from(args.hostile_address) as hostile:
        big = await create_tournament(
            hostile, url, big_request(args.big_entrants_rr, 1, args.big_concurrency, True), made
        )
        if big.status != 201:
            return {"big_tournament": problem(big)}
        run.start_polite(args.seconds)
        async with session_from(args.polite_address) as session:
            small = await create_tournament(session, url, small_request, made)
            if small.status != 201:
                return {"small_tournament": problem(small)}
            tid, token = small.body["tournament"]["id"], small.body["entrant_tokens"][0]["token"]
            auth = {"Authorization": f"Bearer {token}"}
            rng = random.Random(3)
            moved_at: float | None = None
            while time.monotonic() < deadline:
                answer = await call(
                    session,
                    Tally(),
                    "GET",
                    f"{url}/v1/tournaments/{tid}/turns?timeout_ms=5000",
                    headers=auth,
                    timeout_s=10.0,
                )
                if answer.status != 200:
                    await pause_for(answer, 1.0)
                    continue
                if answer.body.get("done"):
                    break
                for t in answer.body.get("turns", []):
                    if moved_at is not None:
                        took = time.perf_counter() - moved_at
                        turn.statuses[200] += 1
                        turn.latencies.append(took)
                        turn.timeline.append(
                            [round(moved_at - turn.started_at, 2), round(took * 1000, 1), 200]
                        )
                    choice = rng.choice(t["legal_moves"])["text"]
                    await asyncio.sleep(args.small_think_s)
                    moved = await call(
                        session,
                        moves,
                        "POST",
                        f"{url}/v1/matches/{t['match_id']}/moves",
                        body=encode({"ply": t["ply"], "move": choice}),
                        headers={**JSON_HEADERS, **auth},
                        timeout_s=10.0,
                        parse=False,
                    )
                    moved_at = time.perf_counter() if moved.status == 200 else None
                    if moved.status in REFUSALS:
                        await pause_for(moved, 5.0)
                    break
            await abandon(session, url, tid, small.body["admin_token"])
        await abandon(hostile, url, big.body["tournament"]["id"], big.body["admin_token"])
    return {
        "big_tournament": {
            "entrants": args.big_entrants_rr,
            "concurrency": args.big_concurrency,
            "id": big.body["tournament"]["id"],
        },
        "small_moves": moves.summary(),
        "small_move_to_next_turn": {k: v for k, v in turn.summary().items() if k != "timeline"},
    }


# ---- The run ---------------------------------------------------------------------------------------


FLOODS: dict[str, Callable[[Run], Awaitable[dict[str, Any]]]] = {
    "heavy-jobs": heavy_jobs,
    "tournament-neighbour": tournament_neighbour,
    "slow-bodies": slow_bodies,
    "slow-log": slow_log,
    "table-stats": table_stats,
    "three-heavy": three_heavy,
    "render-bursts": render_bursts,
    "pipelined-readers": pipelined_readers,
    "long-lines": long_lines,
    "write-flood": write_flood,
    "big-beside-small": big_beside_small,
}


async def run_scenario(args: argparse.Namespace, url: str, pid: int | None) -> dict[str, Any]:
    """The scenario and the polite client beside it; the report's numbers."""
    loop = asyncio.get_running_loop()
    nice = set_nice(args.client_nice)
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{url}/v1/positions",
            data=encode({"board": "star4", "layout": "2", "rules": "masters"}),
            headers=JSON_HEADERS,
        ) as response,
    ):
        two_start = (await response.json(content_type=None))["position_string"]
    # Start the polite process first (its interpreter takes a moment).
    await loop.run_in_executor(
        pool,
        functools.partial(
            polite_main,
            url,
            0.0,
            0.1,
            two_start,
            args.client_nice,
            args.polite_address,
            paces=POLITE_PACES,
        ),
    )
    run = Run(args=args, url=url, two_start=two_start, pool=pool, pid=pid)
    samples: list[dict[str, Any]] = []
    cpu_before = proc_cpu_seconds(pid) if pid else None
    sampler = asyncio.create_task(sample_server(pid, samples, time.perf_counter())) if pid else None
    lag = asyncio.create_task(loop_lag(args.seconds))
    hostile = await FLOODS[args.scenario](run)
    assert run.polite is not None
    polite = await run.polite
    pool.shutdown()
    if sampler:
        sampler.cancel()
    cpu_after = proc_cpu_seconds(pid) if pid else None
    status = proc_status(pid) if pid else {}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # The polite and slow-body processes, ended by now (the server is not).
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    report: dict[str, Any] = {
        "polite": {
            name: {key: value for key, value in tally.items() if key != "timeline"}
            for name, tally in polite["tallies"].items()
        },
        "hostile": hostile,
        "client_nice": nice,
        "client_cpu_seconds": {
            "main_process": round(usage.ru_utime + usage.ru_stime, 1),
            "polite_process": polite["cpu_seconds"],
            "flood_processes": round(
                max(0.0, children.ru_utime + children.ru_stime - polite["cpu_seconds"]), 1
            ),
        },
        "client_loop_lag_ms": {"main_process": await lag, "polite_process": polite["loop_lag_ms"]},
        "server": {
            "peak_rss_mib": round(status["VmHWM"] / 1024, 1) if "VmHWM" in status else None,
            "peak_threads": max((s.get("Threads", 0) for s in samples), default=None),
            "peak_fds": max((s.get("fds") or 0 for s in samples), default=None),
            "fd_limit": fd_limit(pid) if pid else None,
            "cpu_seconds": round(cpu_after - cpu_before, 1)
            if cpu_after is not None and cpu_before is not None
            else None,
            "samples": samples,
        },
        "polite_timelines": {name: t["timeline"] for name, t in polite["tallies"].items()},
    }
    if args.scenario == "tournament-neighbour":
        offset = run.t0 - polite["clock_start"]
        for phase in hostile["phases"]:
            since, until = phase["from_s"] + offset, phase["to_s"] + offset
            phase["polite"] = {
                name: window(tally, since, until) for name, tally in polite["tallies"].items()
            }
    return report


def print_report(report: dict[str, Any]) -> None:
    """The polite client's table and the scenario's main figures."""
    print(f"\n{report['scenario']}: polite client from {report['config']['polite_address']}")
    print(
        f"{'measure':10} {'sent':>5} {'failed':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  statuses"
    )
    for name, tally in report["polite"].items():
        lat = tally["latency_ms"]
        failed = tally["requests"] - tally["by_bucket"]["2xx"]
        print(
            f"{name:10} {tally['requests']:5} {failed:6} {fmt(lat['p50']):>8} {fmt(lat['p99']):>8}"
            f" {fmt(lat['max']):>8}  {tally['by_status']} timeouts {tally['client_timeouts']}"
            f" conn {tally['connection_errors']}"
        )
    hostile = report["hostile"]
    if report["scenario"] == "heavy-jobs":
        print(f"jobs: {hostile['settings']}")
        print(
            f"  answers {hostile['jobs']['by_status']}; at the asked nodes"
            f" {hostile['jobs_at_the_asked_nodes']['by_status']}"
        )
        print(f"  accepted jobs at the end: {hostile['accepted_jobs_at_the_end']}")
    elif report["scenario"] == "tournament-neighbour":
        print(f"big tournament: {hostile['big_tournament']}")
        print(f"gauntlet on the quiet server: {hostile['gauntlet_on_the_quiet_server']}")
        for phase in hostile["phases"]:
            print(f"phase {phase['name']!r} ({phase['from_s']}-{phase['to_s']} s):")
            for name, measure in phase["polite"].items():
                lat = measure["latency_ms"]
                print(
                    f"  polite {name:9} n={measure['requests']:4} failed={measure['failures']:3}"
                    f" p50 {fmt(lat['p50'])} p99 {fmt(lat['p99'])} max {fmt(lat['max'])} ms"
                )
            n = phase["neighbour"]
            print(
                f"  neighbour deadlines: {n.get('timeouts_stored')} of {n.get('timeouts_expected')}"
                f" (first game after {n.get('first_game_started_after_s')} s),"
                f" lateness {n.get('lateness_ms')}"
            )
            for g in phase["gauntlets"]:
                print(f"  gauntlet {g}")
            s = phase["big_standings"]["latency_ms"]
            print(
                f"  big standings: {phase['big_standings']['by_status']} p50 {s['p50']} max {s['max']} ms"
            )
            print(
                f"  big tournaments: {[(b['id'], b['games'], b.get('finished_s')) for b in phase['big_tournaments']]}"
            )
            if phase["watcher"]:
                print(f"  watcher: {phase['watcher']}")
    elif report["scenario"] in NEW_SCENARIOS:
        for key, value in hostile.items():
            print(f"  {key}: {compact(value)}")
    elif report["scenario"] == "slow-bodies":
        for worker in hostile["processes"]:
            shown = {k: v for k, v in worker.items() if k != "open_each_second"}
            print(f"  {shown}")
    else:
        print(
            f"  flood: {hostile['requests']['by_status']}, p50 {hostile['requests']['latency_ms']['p50']} ms;"
            f" log {report['server'].get('log_bytes_drained')} bytes drained; {hostile['log_metrics']}"
        )
    server = report["server"]
    print(
        f"server: peak RSS {server['peak_rss_mib']} MiB, threads {server['peak_threads']},"
        f" fds {server['peak_fds']} of {server['fd_limit']}, CPU {server['cpu_seconds']} s,"
        f" alive at the end: {server['alive_at_end']}"
    )
    print(
        f"load average: {report['machine']['loadavg_before']} before, {report['machine']['loadavg_after']} after"
    )
    print(f"verdict: {report['verdict']}")


NEW_SCENARIOS = SCENARIOS[4:]


def compact(value: Any) -> str:
    """A summary's main figures on one line: statuses and latency."""
    if isinstance(value, dict) and "by_status" in value:
        lat = value["latency_ms"]
        return (
            f"{value['by_status']} timeouts {value['client_timeouts']} conn"
            f" {value['connection_errors']} p50 {fmt(lat['p50'])} p99 {fmt(lat['p99'])} ms"
        )
    if isinstance(value, dict) and any(
        isinstance(v, dict) and "by_status" in v for v in value.values()
    ):
        return "; ".join(f"{k} {compact(v)}" for k, v in value.items())
    return json.dumps(value)


def verdict(polite: dict[str, Any]) -> str:
    """The polite client against the goal: p99 under 50 ms, no refusals."""
    worst = max((t["latency_ms"]["p99"] or 0.0 for t in polite.values()), default=0.0)
    refused = sum(t["by_bucket"]["429"] + t["by_bucket"]["503"] for t in polite.values())
    failed = sum(t["requests"] - t["by_bucket"]["2xx"] for t in polite.values())
    met = worst < TARGET_P99_MS and refused == 0
    return (
        f"{'MET' if met else 'MISSED'} (goal: polite p99 < {TARGET_P99_MS:g} ms, 0 refusals):"
        f" worst p99 {fmt(worst)} ms, {refused} refusals, {failed} failed"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", help="a running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--server", type=Path, help="start this binary (port 0, scratch database)")
    parser.add_argument("--scenario", choices=SCENARIOS, required=True)
    parser.add_argument("--seconds", type=float, default=60.0, help="the flood's length")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--client-nice", type=int, default=-10, help="the clients' priority")
    parser.add_argument("--polite-address", default=POLITE_ADDRESS)
    parser.add_argument("--hostile-address", default="127.0.0.1")
    group = parser.add_argument_group("heavy-jobs")
    group.add_argument("--job-board", default="rhombus11p36")
    group.add_argument("--job-nodes", type=int, default=5_000_000, help="asked first")
    group.add_argument("--job-memory", type=int, default=1024, help="max_memory_mb")
    group.add_argument("--job-burst", type=int, default=20)
    group.add_argument("--job-every", type=float, default=4.0)
    group = parser.add_argument_group("tournament-neighbour")
    group.add_argument("--big-entrants", type=int, default=64)
    group.add_argument("--big-games-per-pairing", type=int, default=4)
    group.add_argument("--big-concurrency", type=int, default=64)
    group = parser.add_argument_group("slow-bodies")
    group.add_argument("--slow-connections", type=int, default=19_980)
    group.add_argument("--slow-addresses", type=int, default=2)
    group = parser.add_argument_group("slow-log")
    group.add_argument("--log-connections", type=int, default=40)
    group.add_argument("--query-bytes", type=int, default=60_000)
    group.add_argument("--slow-log-address", default="127.0.0.10")
    group.add_argument(
        "--log-drain-kbps",
        type=float,
        default=5000.0,
        help="how fast the server's stderr is read (KB/s; with --server)",
    )
    group = parser.add_argument_group("table-stats, write-flood")
    group.add_argument("--flood-connections", type=int, default=8)
    group = parser.add_argument_group("three-heavy (also --job-board, --job-nodes, --job-memory)")
    group.add_argument("--heavy-threads", type=int, default=4, help="loops per address")
    group = parser.add_argument_group("render-bursts: --job-burst renders, a quarter as many jobs")
    group = parser.add_argument_group("pipelined-readers")
    group.add_argument("--pipeline-connections", type=int, default=250)
    group.add_argument("--pipeline-depth", type=int, default=64, help="requests per socket")
    group.add_argument("--read-bytes", type=int, default=64, help="read per connection a second")
    group = parser.add_argument_group("long-lines (also --log-connections)")
    group.add_argument("--long-query-bytes", type=int, default=4000)
    group.add_argument("--log-file-max-mb", type=int, default=100)
    group.add_argument(
        "--log-to-stderr",
        action="store_true",
        help="start the server without --log-file and measure its stderr (a server before it)",
    )
    group.add_argument("--log-lines-per-second", type=int, default=20)
    group = parser.add_argument_group("big-beside-small (also --big-concurrency)")
    group.add_argument("--big-entrants-rr", type=int, default=40, help="the teacher's bots")
    group.add_argument(
        "--small-think-s", type=float, default=0.25, help="the open entrant's pause before a move"
    )
    args = parser.parse_args()
    if (args.url is None) == (args.server is None):
        parser.error("give a server URL or --server BINARY (one of them)")
    open_files = raise_open_files()
    load_before = loadavg()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    server: Server | None = None
    alive = True
    with tempfile.TemporaryDirectory(prefix="sternhalma-floods-") as scratch:
        url = args.url.rstrip("/") if args.url else ""
        if args.server:
            slow_log_run = args.scenario == "slow-log"
            extra: list[str] = []
            if args.scenario == "long-lines" and args.log_to_stderr:
                # A server without `--log-file` (one from before it): its
                # log is its stderr, which start_server writes to a file.
                args.log_file_path = str(Path(scratch) / "serve.err")
            elif args.scenario == "long-lines":
                args.log_file_path = str(Path(scratch) / "server.log")
                extra = ["--log-file", args.log_file_path]
                extra += ["--log-file-max-mb", str(args.log_file_max_mb)]
                extra += ["--log-lines-per-second", str(args.log_lines_per_second)]
            server = start_server(
                args.server,
                Path(scratch),
                "info" if slow_log_run or args.scenario == "long-lines" else "warn",
                args.log_drain_kbps * 1000 if slow_log_run else None,
                extra,
            )
            url = server.url
            log(f"started {args.server} at {url} (pid {server.process.pid})")
        try:
            report = asyncio.run(run_scenario(args, url, server.process.pid if server else None))
            alive = server is None or server.process.poll() is None
        finally:
            if server is not None:
                server.process.terminate()
                try:
                    server.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.process.kill()
                    server.process.wait()
    load_after = loadavg()
    report = {
        "command": " ".join(sys.argv),
        "scenario": args.scenario,
        "machine": {
            "started_at": started_at,
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "cpu_count": os.cpu_count(),
            "loadavg_before": load_before,
            "loadavg_after": load_after,
        },
        "config": {
            "seconds": args.seconds,
            "polite_address": args.polite_address,
            "polite_paces_s": POLITE_PACES,
            "polite_timeout_s": POLITE_TIMEOUT_S,
            "polite_fresh_connections": True,
            "target_p99_ms": TARGET_P99_MS,
            "open_files_limit": open_files,
            **{k: v for k, v in vars(args).items() if k not in ("url", "server", "json")},
            "server_binary": str(args.server) if args.server else None,
        },
        **report,
    }
    report["server"].update(
        {
            "url": url,
            "started_by_script": server is not None,
            "alive_at_end": alive,
            "log_bytes_drained": server.drain.bytes if server and server.drain else None,
        }
    )
    judged = dict(report["polite"])
    if args.scenario == "big-beside-small":
        for name in ("small_moves", "small_move_to_next_turn"):
            if name in report["hostile"]:
                judged[name] = report["hostile"][name]
    report["verdict"] = verdict(judged)
    print_report(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
