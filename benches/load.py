"""Bounded hostile load on `sternhalma serve`, and what a polite client sees meanwhile.

For `--seconds` (default 60), all at once:

- 600 clients asking `POST /v1/bots/move` at the largest budget the server
  allows (`GET /v1/bots` -> `max`), `alphabeta` and `mcts` in turn, on
  middle-game positions of star4 with six and with two players;
- 8 loops of `POST /v1/replay` with the largest body the server accepts
  (`GET /v1/catalogue` -> `max_body_bytes`, `max_replay_moves`): a legal game record that fills it;
- 8 clients creating six-player matches with five `mcts` seats at the largest
  seat budget (probed: the server's `budget_too_large` names it) and one open
  seat, which they play as fast as they can;
- 400 long-polls (`GET /v1/matches/{id}?wait_ply=N&timeout_ms=30000`) on those
  matches;

while a polite client, in a process of its own (so the hostile clients' JSON
parsing never delays its clock), measures one request at a time every
`--interval` seconds each: `GET /healthz`, `POST /v1/legal-moves` on a start
position, and a move in its own two-seat match (both seats open, played in
turn with the two seat tokens; a match that ends is replaced).

Then it drains (at most `--drain` seconds, then cancels what is left), checks
(waiting at most 90 s for a server still busy) that every match move the
server acknowledged with 200 (the polite client's and the hostile ones', bot
replies included) is in `GET /v1/matches/{id}/moves` at its ply, and reports: for each polite measure p50/p99/max and count; for
each hostile class the answers by status, client time-outs and connection
errors; the server's peak RSS (VmHWM) if this script started it. 429 and 503
are refusals: counted, not failures. It measures only; the exit status is 1
only if an acknowledged move is not shown to be kept (a correctness check,
not a timing). The clients run at nice -10 and report their own event-loop
lag, the resolution of what they measure on a machine they share with the
server. `benches/class_floods.py` runs the same polite client beside one
hostile student's floods (issue 31).

    python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt
    cargo build --release -p sternhalma-api
    .venv/bin/python benches/load.py --server target/release/sternhalma --seconds 60 \\
        --json benches/results/load.json
    .venv/bin/python benches/load.py http://127.0.0.1:8080      # a server already running
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
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
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

JSON_HEADERS = {"Content-Type": "application/json"}
# The client's own limit on one request (the long-polls get a few seconds
# more than the 30 s the server may hold them, so a quiet match is not
# counted as a time-out).
CLIENT_TIMEOUT_S = 30.0
LONG_POLL_MS = 30_000
LONG_POLL_GRACE_S = 3.0
TARGETS_MS = {"healthz": 50.0, "legal_moves": 100.0, "match_move": 250.0}
REFUSALS = (429, 503)
# The longest the no-move-lost check waits for the histories, after the drain.
CHECK_SECONDS = 90.0


# ---- Counting -----------------------------------------------------------------


@dataclass
class Tally:
    """What one class of requests got: statuses, time-outs, errors, latencies."""

    statuses: Counter = field(default_factory=Counter)
    codes: Counter = field(default_factory=Counter)
    timeouts: int = 0
    connection_errors: Counter = field(default_factory=Counter)
    cancelled_at_drain: int = 0
    latencies: list[float] = field(default_factory=list)
    bytes_received: int = 0
    error_examples: dict[str, str] = field(default_factory=dict)
    # Set for the polite client: every request as [start s, ms, status or
    # "timeout" or "connection"], to see when the trouble came.
    started_at: float | None = None
    timeline: list[list[Any]] = field(default_factory=list)

    def note(self, started: float, outcome: int | str) -> None:
        """Files one request in the timeline, if kept."""
        if self.started_at is not None:
            took = round((time.perf_counter() - started) * 1000, 1)
            self.timeline.append([round(started - self.started_at, 2), took, outcome])

    def summary(self) -> dict[str, Any]:
        """The counts by bucket, and latency percentiles in milliseconds: of
        every request if the timeline is kept (a time-out or a reset costs the
        client its time too), else of the answered ones."""
        buckets = Counter()
        for status, count in self.statuses.items():
            buckets[bucket(status)] += count
        latencies = sorted(self.latencies)
        if self.started_at is not None:
            latencies = sorted(took / 1000 for _, took, _ in self.timeline)
        return {
            "requests": sum(self.statuses.values())
            + self.timeouts
            + sum(self.connection_errors.values()),
            "answered": sum(self.statuses.values()),
            "by_bucket": {name: buckets[name] for name in BUCKETS},
            "by_status": {str(status): n for status, n in sorted(self.statuses.items())},
            "problem_codes": dict(self.codes.most_common()),
            "client_timeouts": self.timeouts,
            "connection_errors": sum(self.connection_errors.values()),
            "connection_error_kinds": dict(self.connection_errors),
            "connection_error_examples": self.error_examples,
            "cancelled_at_drain": self.cancelled_at_drain,
            "bytes_received": self.bytes_received,
            "latency_ms": percentiles(latencies),
            **({"timeline": self.timeline} if self.started_at is not None else {}),
        }


BUCKETS = ("2xx", "408", "429", "503", "other_4xx", "5xx_not_503", "other")


def bucket(status: int) -> str:
    """The report's bucket of a status code."""
    if 200 <= status < 300:
        return "2xx"
    if status in (408, 429, 503):
        return str(status)
    if 400 <= status < 500:
        return "other_4xx"
    if status >= 500:
        return "5xx_not_503"
    return "other"


def percentiles(values: list[float]) -> dict[str, float | int | None]:
    """Nearest-rank p50, p99 and the maximum of sorted seconds, in ms."""
    if not values:
        return {"count": 0, "p50": None, "p99": None, "max": None}

    def rank(p: float) -> float:
        return round(values[max(0, math.ceil(p * len(values)) - 1)] * 1000, 1)

    return {"count": len(values), "p50": rank(0.50), "p99": rank(0.99), "max": rank(1.0)}


@dataclass
class Answer:
    """One request's end: its status (None if none came), body, Retry-After."""

    status: int | None
    body: Any = None
    retry_after: float | None = None


async def call(
    session: aiohttp.ClientSession,
    tally: Tally,
    method: str,
    url: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout_s: float = CLIENT_TIMEOUT_S,
    parse: bool = True,
) -> Answer:
    """Sends one request, counting what came back in `tally`."""
    started = time.perf_counter()
    try:
        async with session.request(
            method,
            url,
            data=body,
            headers=headers,
            timeout=aiohttp.ClientTimeout(total=timeout_s),
        ) as response:
            status = response.status
            parsed: Any = None
            if parse or status >= 400:
                raw = await response.read()
                tally.bytes_received += len(raw)
                if raw:
                    try:
                        parsed = json.loads(raw)
                    except ValueError:
                        parsed = None
            else:
                # Huge answers (a replay's) are counted and dropped as they come.
                async for chunk in response.content.iter_chunked(1 << 16):
                    tally.bytes_received += len(chunk)
            retry_after = response.headers.get("Retry-After")
    except asyncio.CancelledError:
        tally.cancelled_at_drain += 1
        raise
    except TimeoutError:
        tally.timeouts += 1
        tally.note(started, "timeout")
        return Answer(None)
    except (aiohttp.ClientError, OSError) as error:
        kind = type(error).__name__
        tally.connection_errors[kind] += 1
        tally.error_examples.setdefault(kind, str(error)[:200])
        tally.note(started, "connection")
        return Answer(None)
    tally.note(started, status)
    tally.latencies.append(time.perf_counter() - started)
    tally.statuses[status] += 1
    if status >= 400 and isinstance(parsed, dict) and "code" in parsed:
        tally.codes[f"{status} {parsed['code']}"] += 1
    seconds = None
    if retry_after is not None:
        try:
            seconds = float(retry_after)
        except ValueError:
            seconds = 1.0
    return Answer(status, parsed, seconds)


def encode(value: Any) -> bytes:
    """Compact JSON."""
    return json.dumps(value, separators=(",", ":")).encode()


async def post_json(session: aiohttp.ClientSession, url: str, value: Any) -> Any:
    """A setup request that must succeed: its parsed answer. A refusal
    (429 rate limit, 503 busy) is retried after its `Retry-After`, as a
    polite client does."""
    while True:
        async with session.post(url, data=encode(value), headers=JSON_HEADERS) as response:
            answer = await response.json(content_type=None)
            if response.status in (429, 503):
                await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            if response.status >= 300:
                raise RuntimeError(f"POST {url} answered {response.status}: {answer}")
            return answer


async def get_json(session: aiohttp.ClientSession, url: str) -> Any:
    """A setup request that must succeed: its parsed answer."""
    async with session.get(url) as response:
        answer = await response.json(content_type=None)
        if response.status >= 300:
            raise RuntimeError(f"GET {url} answered {response.status}: {answer}")
        return answer


# ---- Setup: caps, positions, the game record ------------------------------------


@dataclass
class Plan:
    """Everything the load needs, read from the server."""

    url: str
    bot_max: dict[str, dict[str, Any]]
    seat_playouts: int
    seat_playouts_source: str
    max_body_bytes: int
    six_start: str
    two_start: str
    middle_games: list[str]
    replay_body: bytes
    replay_moves: int
    replay_answer_bytes: int
    replay_seconds_quiet: float


def remember(acks: dict[int, dict[int, tuple[int, list[int]]]], match_id: int, played: Any) -> int:
    """Files the moves of a 200 answer (ply -> seat, path); how many."""
    moves = acks.setdefault(match_id, {})
    for record in played:
        moves[record["ply"]] = (record["seat"], record["move"]["path"])
    return len(played)


async def seat_playouts_cap(session: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    """The most playouts an `mcts` seat may have, as the server's refusal states it."""
    huge = 2**63 - 1
    seats = [{"name": "open"}] + [
        {"name": f"probe {n}", "bot": {"kind": "mcts", "nodes": huge}} for n in range(5)
    ]
    request = {"board": "star4", "layout": "6", "rules": "masters", "seats": seats}
    async with session.post(
        f"{url}/v1/matches", data=encode(request), headers=JSON_HEADERS
    ) as response:
        answer = await response.json(content_type=None)
    found = re.search(r"limit of (\d+)", str(answer.get("detail", "")))
    if response.status == 422 and found:
        return int(found.group(1)), "probed (budget_too_large)"
    # A server without a cap (or another wording): the README's cap.
    return 5000, f"assumed (probe answered {response.status})"


async def middle_game(
    session: aiohttp.ClientSession, url: str, start: str, plies: int
) -> tuple[str, list[str]]:
    """A position `plies` greedy moves after `start`, and the moves."""
    position, moves = start, []
    for ply in range(plies):
        bot = {"kind": "greedy", "seed": ply}
        chosen = await post_json(session, f"{url}/v1/bots/move", {"position": position, "bot": bot})
        text = chosen["move"]["text"]
        applied = await post_json(session, f"{url}/v1/apply", {"position": position, "move": text})
        position = applied["position"]["position_string"]
        moves.append(text)
        if applied["position"]["outcome"]["status"] != "in_progress":
            raise RuntimeError(f"the greedy game ended after {ply + 1} plies")
    return position, moves


def pegs(position_string: str) -> str:
    """The board and pegs of a position string, without its counters."""
    return " ".join(position_string.split()[:3])


async def shuffle_cycle(
    session: aiohttp.ClientSession, url: str, position: str, players: int
) -> list[str]:
    """Moves after which `position`'s pegs are back where they were: each
    player steps one peg out, then each steps it back. Checked by the
    server, move by move."""
    for attempt in range(20):
        now, out, vacated, taken = position, [], set(), set()
        for _ in range(players):
            legal = await post_json(session, f"{url}/v1/legal-moves", {"position": now})
            steps = [
                m
                for m in legal["moves"]
                if m["kind"] == "step" and m["to"] not in vacated and m["from"] not in taken
            ]
            if not steps:
                break
            move = steps[attempt % len(steps)]
            vacated.add(move["from"])
            taken.add(move["to"])
            out.append((move["from"], move["to"]))
            applied = await post_json(
                session, f"{url}/v1/apply", {"position": now, "move": move["text"]}
            )
            now = applied["position"]["position_string"]
        else:
            back = [f"{to}-{start}" for start, to in out]
            try:
                for text in back:
                    applied = await post_json(
                        session, f"{url}/v1/apply", {"position": now, "move": text}
                    )
                    now = applied["position"]["position_string"]
            except RuntimeError:
                continue
            if pegs(now) == pegs(position):
                return [f"{start}-{to}" for start, to in out] + back
    raise RuntimeError("found no cycle of steps to fill the game record with")


def fill_record(
    start: str, prefix: list[str], cycle: list[str], limit: int, max_moves: int
) -> list[str]:
    """`prefix`, then `cycle` over and over, as long as the body stays within
    `limit` bytes and `max_moves` moves."""
    moves = list(prefix)
    size = len(encode({"start": start, "moves": moves}))
    index = 0
    while len(moves) < max_moves:
        text = cycle[index % len(cycle)]
        extra = len(encode(text)) + (1 if moves else 0)
        if size + extra > limit:
            break
        moves.append(text)
        size += extra
        index += 1
    return moves


async def make_plan(url: str, log: Any) -> Plan:
    """Reads the caps, builds the positions and the game record, checks it."""
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        bots = await get_json(session, f"{url}/v1/bots")
        catalogue = await get_json(session, f"{url}/v1/catalogue")
        max_body = int(catalogue.get("max_body_bytes", 1 << 20))
        # Servers before issue 13 take as many moves as fit the body.
        max_moves = int(catalogue.get("max_replay_moves", 1 << 40))
        playouts, source = await seat_playouts_cap(session, url)
        six = await post_json(
            session, f"{url}/v1/positions", {"board": "star4", "layout": "6", "rules": "masters"}
        )
        two = await post_json(
            session, f"{url}/v1/positions", {"board": "star4", "layout": "2", "rules": "masters"}
        )
        six_start, two_start = six["position_string"], two["position_string"]
        log(f"caps: bots {bots['max']}, seat mcts playouts {playouts} ({source}), body {max_body}")
        six_middle, six_moves = await middle_game(session, url, six_start, 6 * 12)
        two_middle, _ = await middle_game(session, url, two_start, 2 * 15)
        cycle = await shuffle_cycle(session, url, six_middle, 6)
        moves = fill_record(six_start, six_moves, cycle, max_body, max_moves)
        body = encode({"start": six_start, "moves": moves})
        log(f"game record: {len(moves)} moves, {len(body)} bytes; replaying it once")
        started = time.perf_counter()
        while True:
            async with session.post(
                f"{url}/v1/replay", data=body, headers=JSON_HEADERS
            ) as response:
                answer_bytes = 0
                async for chunk in response.content.iter_chunked(1 << 16):
                    answer_bytes += len(chunk)
                if response.status in (429, 503):
                    await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
                    started = time.perf_counter()
                    continue
                if response.status != 200:
                    raise RuntimeError(f"the game record is refused: {response.status}")
                break
        seconds = time.perf_counter() - started
        log(f"  200 in {seconds:.2f} s, {answer_bytes / 2**20:.1f} MiB answered")
    return Plan(
        url=url,
        # Each kind's own cap where the server lists one (MCTS counts
        # playouts), else the one overall cap.
        bot_max={view["kind"]: view.get("max_budget", bots["max"]) for view in bots["bots"]},
        seat_playouts=playouts,
        seat_playouts_source=source,
        max_body_bytes=max_body,
        six_start=six_start,
        two_start=two_start,
        middle_games=[six_middle, two_middle],
        replay_body=body,
        replay_moves=len(moves),
        replay_answer_bytes=answer_bytes,
        replay_seconds_quiet=seconds,
    )


# ---- The hostile clients ----------------------------------------------------------


@dataclass
class Hostile:
    """The hostile side's shared state."""

    plan: Plan
    deadline: float
    tallies: dict[str, Tally] = field(
        default_factory=lambda: {
            name: Tally()
            for name in (
                "bot_move",
                "replay",
                "match_create",
                "match_move",
                "match_read",
                "long_poll",
            )
        }
    )
    # Match id -> its latest ply known, for the long-polls.
    live: dict[int, int] = field(default_factory=dict)
    acks: dict[int, dict[int, tuple[int, list[int]]]] = field(default_factory=dict)

    def running(self) -> bool:
        return time.monotonic() < self.deadline


async def loop_lag(seconds: float) -> dict[str, Any]:
    """How late this process's event loop wakes from a 100 ms sleep, for
    `seconds`: the part of a measured latency that is the client's own."""
    late = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        started = time.perf_counter()
        await asyncio.sleep(0.1)
        late.append(max(0.0, time.perf_counter() - started - 0.1))
    return percentiles(sorted(late))


def set_nice(value: int) -> str:
    """Runs this process (its threads to come, and its children) at `value`.

    The load generator shares the machine with the server it loads: at the
    default priority a server with hundreds of busy threads starves the
    clients' event loops and their clocks. The clients use a few seconds of
    CPU in all, so a higher priority costs the server little."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, value)
    except OSError as error:
        return f"not set ({error.strerror}): {os.getpriority(os.PRIO_PROCESS, 0)}"
    return str(os.getpriority(os.PRIO_PROCESS, 0))


async def refused_pause(answer: Answer) -> None:
    """A hostile client honours Retry-After loosely: a second at most."""
    await asyncio.sleep(min(answer.retry_after or 0.1, 1.0) * random.uniform(0.5, 1.0))


async def bot_mover(session: aiohttp.ClientSession, state: Hostile, index: int) -> None:
    """Asks for bot moves at the largest budget, one after the other."""
    tally = state.tallies["bot_move"]
    kinds = ("alphabeta", "mcts")
    request = 0
    while state.running():
        kind = kinds[(index + request) % 2]
        cap = state.plan.bot_max[kind]
        bot = {
            "kind": kind,
            "seed": index * 1000 + request,
            "nodes": cap["nodes"],
            "millis": cap["millis"],
            "depth": cap["depth"],
        }
        position = state.plan.middle_games[(index // 2 + request) % 2]
        body = encode({"position": position, "bot": bot})
        answer = await call(
            session,
            tally,
            "POST",
            f"{state.plan.url}/v1/bots/move",
            body=body,
            headers=JSON_HEADERS,
            parse=False,
        )
        request += 1
        if answer.status in REFUSALS:
            await refused_pause(answer)
        elif answer.status is None:
            await asyncio.sleep(0.1)


async def replayer(session: aiohttp.ClientSession, state: Hostile) -> None:
    """Replays the largest game record, over and over."""
    while state.running():
        answer = await call(
            session,
            state.tallies["replay"],
            "POST",
            f"{state.plan.url}/v1/replay",
            body=state.plan.replay_body,
            headers=JSON_HEADERS,
            parse=False,
        )
        if answer.status in REFUSALS:
            await refused_pause(answer)
        elif answer.status is None:
            await asyncio.sleep(0.1)


def heavy_match(index: int, playouts: int) -> dict[str, Any]:
    """A six-player match: seat 0 open, five `mcts` seats at `playouts`."""
    bots = [
        {
            "name": f"mcts {seat}",
            "bot": {"kind": "mcts", "seed": index * 10 + seat, "nodes": playouts},
        }
        for seat in range(1, 6)
    ]
    return {
        "board": "star4",
        "layout": "6",
        "rules": "masters",
        "seats": [{"name": f"hostile {index}"}, *bots],
    }


async def match_player(
    session: aiohttp.ClientSession, state: Hostile, index: int, first: dict[str, Any]
) -> None:
    """Plays the open seat of its heavy match as fast as it can, and creates
    another when it ends. The first was made before the load (`first`, as
    `POST /v1/matches` answered it), so the long-polls have their matches
    from the start."""
    url = state.plan.url
    rng = random.Random(index)
    request = heavy_match(index, state.plan.seat_playouts)
    match: dict[str, Any] | None = first["match"]
    token = first["seat_tokens"][0]["token"]
    while state.running():
        if match is None or match["status"] != "in_progress":
            if match is not None:
                state.live.pop(match["id"], None)
            answer = await call(
                session,
                state.tallies["match_create"],
                "POST",
                f"{url}/v1/matches",
                body=encode(request),
                headers=JSON_HEADERS,
            )
            if answer.status != 201:
                match = None
                await (refused_pause(answer) if answer.status else asyncio.sleep(0.1))
                continue
            match, token = answer.body["match"], answer.body["seat_tokens"][0]["token"]
            state.live[match["id"]] = match["ply"]
            continue
        if match["to_move"] != 0 or not match["legal_moves"]:
            # Not our turn (e.g. after a refusal): read the state again.
            answer = await call(
                session, state.tallies["match_read"], "GET", f"{url}/v1/matches/{match['id']}"
            )
            if answer.status == 200:
                match = answer.body
            else:
                await asyncio.sleep(0.1)
            continue
        move = rng.choice(match["legal_moves"])["text"]
        answer = await call(
            session,
            state.tallies["match_move"],
            "POST",
            f"{url}/v1/matches/{match['id']}/moves",
            body=encode({"ply": match["ply"], "move": move}),
            headers={**JSON_HEADERS, "Authorization": f"Bearer {token}"},
        )
        if answer.status == 200:
            remember(state.acks, match["id"], answer.body["played"])
            match = answer.body["match"]
            state.live[match["id"]] = match["ply"]
        else:
            if answer.status in REFUSALS:
                await refused_pause(answer)
            # Anything else (a time-out, a 409): read the state again.
            match = {**match, "to_move": None}


async def long_poller(session: aiohttp.ClientSession, state: Hostile, index: int) -> None:
    """Waits for the next ply of a hostile match, again and again."""
    url = state.plan.url
    match_id, ply = None, 0
    while state.running():
        if match_id is None or match_id not in state.live:
            ids = sorted(state.live)
            if not ids:
                await asyncio.sleep(0.25)
                continue
            match_id = ids[index % len(ids)]
            ply = state.live.get(match_id, 0)
        answer = await call(
            session,
            state.tallies["long_poll"],
            "GET",
            f"{url}/v1/matches/{match_id}?wait_ply={ply}&timeout_ms={LONG_POLL_MS}",
            timeout_s=LONG_POLL_MS / 1000 + LONG_POLL_GRACE_S,
        )
        if answer.status == 200:
            ply = answer.body["ply"]
            if answer.body["status"] != "in_progress":
                match_id = None
        elif answer.status in REFUSALS:
            await refused_pause(answer)
        else:
            match_id = None
            await asyncio.sleep(0.1)


# ---- The polite client (a process of its own) ---------------------------------------


# What the polite client measures unless told otherwise (each every `--interval`).
POLITE_MEASURES = ("healthz", "legal_moves", "match_move")
# The polite client's bot move: a small budget, answered in milliseconds on a
# quiet server.
POLITE_BOT = {"kind": "alphabeta", "nodes": 1000}


def polite_main(
    url: str,
    seconds: float,
    interval: float,
    two_start: str,
    nice: int,
    source: str | None,
    paces: dict[str, float] | None = None,
    timeout_s: float = CLIENT_TIMEOUT_S,
    fresh_connections: bool = False,
) -> dict[str, Any]:
    """Runs the polite client for `seconds`; its tallies and acknowledged moves.
    `source`: the local address it connects from (another student's machine:
    the server's per-client limits count it apart from the hostile clients).
    `paces`: the measures and the seconds between two requests of each
    (default: `POLITE_MEASURES`, each every `interval`); besides those, `bot_move`
    (`POST /v1/bots/move`, `POLITE_BOT` on `two_start`) and `render`
    (`GET /v1/render.svg` of `two_start`). `fresh_connections`: a new
    connection for every request, as a newcomer would open."""
    set_nice(nice)
    if paces is None:
        paces = {name: interval for name in POLITE_MEASURES}
    return asyncio.run(polite(url, seconds, paces, two_start, source, timeout_s, fresh_connections))


async def polite(
    url: str,
    seconds: float,
    paces: dict[str, float],
    two_start: str,
    source: str | None,
    timeout_s: float,
    fresh_connections: bool,
) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    measures = list(paces)
    if "match_move" in paces:
        measures += ["match_create", "match_read"]
    clock_start = time.perf_counter()
    tallies = {name: Tally(started_at=clock_start) for name in measures}
    acks: dict[int, dict[int, tuple[int, list[int]]]] = {}
    matches_played = 0

    async def paced(step: Any, interval: float) -> None:
        next_at = time.monotonic()
        while time.monotonic() < deadline:
            answer = await step()
            wait = interval
            if answer is not None and answer.status in REFUSALS:
                wait = max(interval, min(answer.retry_after or 1.0, 5.0))
            next_at = max(next_at + wait, time.monotonic())
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    legal_body = encode({"position": two_start})
    create_body = encode(
        {
            "board": "star4",
            "layout": "2",
            "rules": "masters",
            "seats": [{"name": "polite south"}, {"name": "polite north"}],
        }
    )
    current: dict[str, Any] = {"match": None, "tokens": {}}
    rng = random.Random(7)

    async def health() -> Answer:
        return await call(session, tallies["healthz"], "GET", f"{url}/healthz", timeout_s=timeout_s)

    async def legal() -> Answer:
        return await call(
            session,
            tallies["legal_moves"],
            "POST",
            f"{url}/v1/legal-moves",
            body=legal_body,
            headers=JSON_HEADERS,
            timeout_s=timeout_s,
        )

    bot_moves = 0

    async def bot_move() -> Answer:
        nonlocal bot_moves
        bot_moves += 1
        body = encode({"position": two_start, "bot": {**POLITE_BOT, "seed": bot_moves}})
        return await call(
            session,
            tallies["bot_move"],
            "POST",
            f"{url}/v1/bots/move",
            body=body,
            headers=JSON_HEADERS,
            timeout_s=timeout_s,
        )

    render_url = f"{url}/v1/render.svg?{urllib.parse.urlencode({'position': two_start})}"

    async def render() -> Answer:
        return await call(
            session, tallies["render"], "GET", render_url, timeout_s=timeout_s, parse=False
        )

    async def move() -> Answer | None:
        nonlocal matches_played
        match = current["match"]
        if match is None or match["status"] != "in_progress":
            answer = await call(
                session,
                tallies["match_create"],
                "POST",
                f"{url}/v1/matches",
                body=create_body,
                headers=JSON_HEADERS,
                timeout_s=timeout_s,
            )
            if answer.status == 201:
                current["match"] = answer.body["match"]
                current["tokens"] = {t["seat"]: t["token"] for t in answer.body["seat_tokens"]}
                matches_played += 1
            return answer
        if match["to_move"] is None or not match["legal_moves"]:
            answer = await call(
                session,
                tallies["match_read"],
                "GET",
                f"{url}/v1/matches/{match['id']}",
                timeout_s=timeout_s,
            )
            if answer.status == 200:
                current["match"] = answer.body
            return answer
        token = current["tokens"][match["to_move"]]
        answer = await call(
            session,
            tallies["match_move"],
            "POST",
            f"{url}/v1/matches/{match['id']}/moves",
            body=encode({"ply": match["ply"], "move": rng.choice(match["legal_moves"])["text"]}),
            headers={**JSON_HEADERS, "Authorization": f"Bearer {token}"},
            timeout_s=timeout_s,
        )
        if answer.status == 200:
            remember(acks, match["id"], answer.body["played"])
            current["match"] = answer.body["match"]
        else:
            # Read the state again before the next move.
            current["match"] = {**match, "to_move": None}
        return answer

    steps = {
        "healthz": health,
        "legal_moves": legal,
        "match_move": move,
        "bot_move": bot_move,
        "render": render,
    }
    connector = aiohttp.TCPConnector(
        limit=0, local_addr=(source, 0) if source else None, force_close=fresh_connections
    )
    async with aiohttp.ClientSession(connector=connector) as session:
        *_, lag = await asyncio.gather(
            *(paced(steps[name], every) for name, every in paces.items()), loop_lag(seconds)
        )
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "clock_start": clock_start,
        "loop_lag_ms": lag,
        "tallies": {name: tally.summary() for name, tally in tallies.items()},
        "acks": acks,
        "matches": matches_played,
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
    }


# ---- After the load: nothing acknowledged is lost ---------------------------------------


async def check_moves(url: str, acks: dict[int, dict[int, tuple[int, list[int]]]]) -> dict:
    """Reads every match's history and compares it with the acknowledged moves."""
    missing: list[str] = []
    different: list[str] = []
    unreadable: list[int] = []
    # The server may still be finishing the searches of cancelled requests:
    # wait for it, but not for ever.
    started = time.monotonic()
    deadline = started + CHECK_SECONDS
    async with aiohttp.ClientSession() as session:
        for match_id, moves in sorted(acks.items()):
            history = None
            while history is None and time.monotonic() < deadline:
                left = aiohttp.ClientTimeout(total=max(1.0, deadline - time.monotonic()))
                try:
                    async with session.get(
                        f"{url}/v1/matches/{match_id}/moves", timeout=left
                    ) as response:
                        if response.status == 200:
                            history = await response.json()
                            break
                        pause = float(response.headers.get("Retry-After", 1))
                except (TimeoutError, aiohttp.ClientError, OSError, ValueError):
                    pause = 1.0
                await asyncio.sleep(min(pause, 5.0))
            if history is None:
                unreadable.append(match_id)
                continue
            stored = {
                record["ply"]: (record["seat"], record["move"]["path"])
                for record in history["moves"]
            }
            for ply, (seat, path) in sorted(moves.items()):
                if ply not in stored:
                    missing.append(f"match {match_id} ply {ply}")
                elif stored[ply] != (seat, list(path)):
                    different.append(f"match {match_id} ply {ply}: {stored[ply]} != {(seat, path)}")
    return {
        "matches": len(acks),
        "acknowledged_moves": sum(len(moves) for moves in acks.values()),
        "missing": len(missing),
        "different": len(different),
        "unreadable_matches": len(unreadable),
        "seconds": round(time.monotonic() - started, 1),
        "examples": (missing + different)[:10],
        "ok": not missing and not different and not unreadable,
    }


# ---- The server --------------------------------------------------------------------------


def start_server(binary: Path, scratch: Path) -> tuple[subprocess.Popen, str]:
    """`sternhalma serve` on a free port with a scratch database; its URL."""
    out_path, err_path = scratch / "serve.out", scratch / "serve.err"
    with out_path.open("w") as out, err_path.open("w") as err:
        server = subprocess.Popen(
            [
                str(binary),
                "serve",
                "--port",
                "0",
                "--database",
                str(scratch / "load.sqlite3"),
                "--log-level",
                "warn",
            ],
            stdout=out,
            stderr=err,
        )
    for _ in range(400):
        found = re.search(r"sternhalma listening on (http://\S+)", out_path.read_text())
        if found:
            return server, found.group(1)
        if server.poll() is not None:
            break
        time.sleep(0.05)
    server.kill()
    raise RuntimeError(f"the server did not start: {err_path.read_text()[-2000:]}")


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM, VmRSS (KiB) and Threads of a process, from /proc."""
    values = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS", "Threads"):
                values[key] = int(rest.split()[0])
    except OSError:
        pass
    return values


def proc_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def raise_open_files() -> int:
    """Raises this process's (and so the started server's) open-file limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---- The run ---------------------------------------------------------------------------------


async def run_load(args: argparse.Namespace, plan: Plan, server_pid: int | None, log: Any) -> dict:
    """The load itself, the drain and the check; the report's numbers."""
    loop = asyncio.get_running_loop()
    nice = set_nice(args.client_nice)
    log(f"clients' nice: {nice}")
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    )
    # Start the polite process first (its interpreter takes a moment).
    polite_future = loop.run_in_executor(
        pool,
        polite_main,
        plan.url,
        0.0,
        args.interval,
        plan.two_start,
        args.client_nice,
        args.polite_address,
    )
    await polite_future

    # The match clients' first matches, and so the long-polls' targets.
    async with aiohttp.ClientSession() as session:
        firsts = [
            await post_json(session, f"{plan.url}/v1/matches", heavy_match(i, plan.seat_playouts))
            for i in range(args.match_clients)
        ]
    state = Hostile(plan=plan, deadline=time.monotonic() + args.seconds)
    for created in firsts:
        state.live[created["match"]["id"]] = created["match"]["ply"]
    samples: list[dict[str, int]] = []
    cpu_before = proc_cpu_seconds(server_pid) if server_pid else None
    connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=None)
    started = time.monotonic()
    async with aiohttp.ClientSession(connector=connector) as session:
        polite_future = loop.run_in_executor(
            pool,
            polite_main,
            plan.url,
            float(args.seconds),
            args.interval,
            plan.two_start,
            args.client_nice,
            args.polite_address,
        )
        lag_task = asyncio.create_task(loop_lag(float(args.seconds)))
        tasks = (
            [asyncio.create_task(bot_mover(session, state, i)) for i in range(args.bot_clients)]
            + [asyncio.create_task(replayer(session, state)) for _ in range(args.replay_loops)]
            + [
                asyncio.create_task(match_player(session, state, i, first))
                for i, first in enumerate(firsts)
            ]
            + [asyncio.create_task(long_poller(session, state, i)) for i in range(args.long_polls)]
        )
        log(f"load: {len(tasks)} hostile clients and the polite client for {args.seconds} s")
        while state.running():
            if server_pid:
                samples.append(proc_status(server_pid))
            await asyncio.sleep(1.0)
        log(
            f"drain: {sum(not t.done() for t in tasks)} clients still waiting (at most {args.drain} s)"
        )
        drain_started = time.monotonic()
        done, pending = await asyncio.wait(tasks, timeout=args.drain)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            if task.exception() is not None:
                log(f"a hostile client failed: {task.exception()!r}")
        drained = time.monotonic() - drain_started
        polite_result = await polite_future
    pool.shutdown()
    load_seconds = time.monotonic() - started
    cpu_after = proc_cpu_seconds(server_pid) if server_pid else None
    status = proc_status(server_pid) if server_pid else {}

    acks = dict(state.acks)
    acks.update(polite_result["acks"])
    log(f"checking {sum(len(m) for m in acks.values())} acknowledged moves in {len(acks)} matches")
    check = await check_moves(plan.url, acks)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "polite": polite_result["tallies"],
        "polite_matches_created": polite_result["matches"],
        "hostile": {name: tally.summary() for name, tally in state.tallies.items()},
        "no_move_lost": check,
        "wall_seconds": {"load_and_drain": round(load_seconds, 1), "drain": round(drained, 1)},
        "client_cpu_seconds": {
            "hostile_process": round(usage.ru_utime + usage.ru_stime, 1),
            "polite_process": polite_result["cpu_seconds"],
        },
        "client_nice": nice,
        "client_loop_lag_ms": {
            "hostile_process": await lag_task,
            "polite_process": polite_result["loop_lag_ms"],
        },
        "server": {
            "peak_rss_mib": round(status["VmHWM"] / 1024, 1) if "VmHWM" in status else None,
            "peak_threads": max((s.get("Threads", 0) for s in samples), default=None),
            "cpu_seconds": round(cpu_after - cpu_before, 1)
            if cpu_after is not None and cpu_before is not None
            else None,
        },
    }


def targets(report: dict) -> list[dict[str, Any]]:
    """The targets of issue 13, each with what was achieved."""
    rows = []
    for name, target in TARGETS_MS.items():
        p99 = report["polite"][name]["latency_ms"]["p99"]
        rows.append(
            {
                "what": f"polite {name} p99",
                "target": f"< {target:g} ms",
                "achieved": f"{p99} ms" if p99 is not None else "no answers",
                "met": p99 is not None and p99 < target,
            }
        )
    every = list(report["polite"].values()) + list(report["hostile"].values())
    answered_408 = sum(t["by_bucket"]["408"] for t in every)
    client_timeouts = sum(t["client_timeouts"] for t in every)
    five_xx = sum(t["by_bucket"]["5xx_not_503"] for t in every)
    rows.append(
        {
            "what": "time-outs (408 answers; client time-outs)",
            "target": "0",
            "achieved": f"{answered_408}; {client_timeouts}",
            "met": answered_408 == 0 and client_timeouts == 0,
        }
    )
    rows.append(
        {"what": "5xx other than 503", "target": "0", "achieved": str(five_xx), "met": five_xx == 0}
    )
    check = report["no_move_lost"]
    rows.append(
        {
            "what": "acknowledged moves lost",
            "target": "0",
            "achieved": f"{check['missing'] + check['different']} of {check['acknowledged_moves']}",
            "met": check["ok"],
        }
    )
    return rows


def print_report(report: dict) -> None:
    """The tables."""
    print("\npolite client (one request at a time per measure)")
    print(
        f"{'measure':13} {'sent':>5} {'answered':>8} {'timeout':>7} {'conn':>5}"
        f" {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  statuses"
    )
    for name, tally in report["polite"].items():
        lat = tally["latency_ms"]
        print(
            f"{name:13} {tally['requests']:5} {tally['answered']:8} {tally['client_timeouts']:7}"
            f" {tally['connection_errors']:5} {fmt(lat['p50']):>8} {fmt(lat['p99']):>8}"
            f" {fmt(lat['max']):>8}  {tally['by_status']}"
        )
    print("  (latencies: every request, time-outs and connection errors at the time they took)")
    print("\nhostile classes (answers by status)")
    head = " ".join(f"{b:>8}" for b in BUCKETS)
    print(f"{'class':13} {head} {'timeout':>8} {'conn':>6} {'p50 ms':>8} {'p99 ms':>8}")
    for name, tally in report["hostile"].items():
        counts = " ".join(f"{tally['by_bucket'][b]:8}" for b in BUCKETS)
        lat = tally["latency_ms"]
        print(
            f"{name:13} {counts} {tally['client_timeouts']:8} {tally['connection_errors']:6}"
            f" {fmt(lat['p50']):>8} {fmt(lat['p99']):>8}"
        )
        if tally["problem_codes"]:
            print(f"{'':13} problems: {tally['problem_codes']}")
    print("  (p50/p99: of the answered requests; 408 with an empty body is actix-web's own)")
    server = report["server"]
    print(
        f"\nserver: peak RSS {server['peak_rss_mib']} MiB, peak threads {server['peak_threads']},"
        f" CPU {server['cpu_seconds']} s; clients' CPU {report['client_cpu_seconds']}"
    )
    check = report["no_move_lost"]
    print(
        f"no-move-lost: {check['acknowledged_moves']} acknowledged moves in {check['matches']}"
        f" matches; missing {check['missing']}, different {check['different']},"
        f" unreadable matches {check['unreadable_matches']}"
    )
    lag = report["client_loop_lag_ms"]
    print(
        f"clients (nice {report['client_nice']}): event-loop lag p99/max"
        f" hostile {lag['hostile_process']['p99']}/{lag['hostile_process']['max']} ms,"
        f" polite {lag['polite_process']['p99']}/{lag['polite_process']['max']} ms"
    )
    machine = report["machine"]
    print(
        f"machine: {machine['cpu_count']} cores; load average (1, 5, 15 min)"
        f" {machine['load_average_before']} before, {machine['load_average_after']} after"
    )
    print("\ntargets")
    for row in report["targets"]:
        print(
            f"  {row['what']:42} target {row['target']:10} achieved {row['achieved']:16}"
            f" {'met' if row['met'] else 'NOT met'}"
        )


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", help="a running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--server", type=Path, help="start this binary (port 0, scratch database)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--drain", type=float, default=35.0, help="longest wait after --seconds")
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument("--interval", type=float, default=0.1, help="the polite client's pace")
    parser.add_argument("--bot-clients", type=int, default=600)
    parser.add_argument("--replay-loops", type=int, default=8)
    parser.add_argument("--match-clients", type=int, default=8)
    parser.add_argument("--long-polls", type=int, default=400)
    parser.add_argument(
        "--client-nice", type=int, default=-10, help="the clients' priority (the server keeps 0)"
    )
    parser.add_argument(
        "--polite-address",
        default="127.0.0.2",
        help="the local address the polite client connects from (another machine of the"
        " class, as far as per-client limits go); empty: the default",
    )
    args = parser.parse_args()
    args.polite_address = args.polite_address or None
    if (args.url is None) == (args.server is None):
        parser.error("give a server URL or --server BINARY (one of them)")
    open_files = raise_open_files()
    load_before = os.getloadavg()

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="sternhalma-load-") as scratch:
        server = None
        url = args.url.rstrip("/") if args.url else ""
        if args.server:
            server, url = start_server(args.server, Path(scratch))
            log(f"started {args.server} at {url} (pid {server.pid})")
        try:
            plan = asyncio.run(make_plan(url, log))
            report = asyncio.run(run_load(args, plan, server.pid if server else None, log))
            alive = server is None or server.poll() is None
            if not alive:
                log(f"the server died: {(Path(scratch) / 'serve.err').read_text()[-2000:]}")
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
    load_after = os.getloadavg()
    report = {
        "command": " ".join(sys.argv),
        "server": {
            **report.pop("server"),
            "url": url,
            "started_by_script": args.server is not None,
            "binary": str(args.server) if args.server else None,
            "alive_at_end": alive,
        },
        "setup": {
            "bot_max_budget": plan.bot_max,
            "seat_mcts_playouts": plan.seat_playouts,
            "seat_mcts_playouts_source": plan.seat_playouts_source,
            "max_body_bytes": plan.max_body_bytes,
            "replay_record_moves": plan.replay_moves,
            "replay_body_bytes": len(plan.replay_body),
            "replay_answer_bytes": plan.replay_answer_bytes,
            "replay_seconds_on_a_quiet_server": round(plan.replay_seconds_quiet, 2),
            "middle_games": plan.middle_games,
        },
        "config": {
            "seconds": args.seconds,
            "drain_seconds": args.drain,
            "polite_interval_seconds": args.interval,
            "bot_clients": args.bot_clients,
            "replay_loops": args.replay_loops,
            "match_clients": args.match_clients,
            "long_polls": args.long_polls,
            "client_timeout_seconds": CLIENT_TIMEOUT_S,
            "long_poll_client_timeout_seconds": LONG_POLL_MS / 1000 + LONG_POLL_GRACE_S,
            "open_files_limit": open_files,
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
        },
        **report,
    }
    report["targets"] = targets(report)
    print_report(report)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        log(f"wrote {args.json}")
    return 0 if report["no_move_lost"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
