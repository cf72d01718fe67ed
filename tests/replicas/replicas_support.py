"""Helpers of the multi-replica test: fresh PostgreSQL databases, `sternhalma
serve` replicas that can be killed and restarted, HTTP calls, the server's
event stream and metrics.

Standard library only: databases are made with the cluster's own `psql`,
not a Python driver.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# `STERNHALMA_BIN` names another build (as for tests/python and tests/matches).
BINARY = Path(os.environ.get("STERNHALMA_BIN", ROOT / "target" / "release" / "sternhalma"))
# The PostgreSQL server the tests make their databases on: a base URL with no
# database (`postgres://sternhalma@127.0.0.1:PORT`), as scripts/pg-cluster
# prints it and scripts/test sets it.
POSTGRES = os.environ.get("STERNHALMA_TEST_POSTGRES", "").strip()
# What a client sees when the replica it talks to dies under it.
DOWN = (OSError, http.client.HTTPException)
# A liveness guard only: a server that has not printed its address by then
# will not.
START_GUARD = 60.0


def database_url(name: str) -> str:
    """The base URL with database `name` (any query string kept)."""
    parts = urllib.parse.urlsplit(POSTGRES)
    return parts._replace(path="/" + name).geturl()


def psql() -> str:
    """The `psql` program: `STERNHALMA_PSQL`, else on PATH, else Debian's
    newest (/usr/lib/postgresql/<version>/bin, off PATH)."""
    named = os.environ.get("STERNHALMA_PSQL") or shutil.which("psql")
    if named:
        return named
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/psql"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not found:
        raise RuntimeError("no psql found: set STERNHALMA_PSQL, or install postgresql-client")
    return str(found[-1])


def admin_sql(sql: str) -> str:
    """Runs `sql` on the server's `postgres` database as the base URL's user;
    answers what it printed (unaligned, tuples only)."""
    done = subprocess.run(
        [
            psql(),
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            database_url("postgres"),
            "-c",
            sql,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"psql failed on {sql!r}: {done.stderr.strip()}")
    return done.stdout


def create_database(label: str) -> tuple[str, str]:
    """A fresh, empty database; answers its name and URL."""
    name = f"replicas_{label}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin_sql(f'CREATE DATABASE "{name}"')
    return name, database_url(name)


def drop_database(name: str) -> None:
    """Drops it, ending any session left on it (the servers are stopped by
    then; a killed one's sessions end by themselves)."""
    admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Replica:
    """One `sternhalma serve` process on a database (a PostgreSQL URL or a
    SQLite path), restartable on the same database (on a new port). Its
    stdout and stderr, every start of it, go to one log file."""

    def __init__(self, name: str, database: str, logs: Path) -> None:
        self.name = name
        self.database = database
        self.log = logs / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        with self.log.open("ab") as log:
            log.write(f"\n--- start {self.starts} of {self.name}\n".encode())
            offset = log.tell()
            self.process = subprocess.Popen(
                [
                    str(BINARY),
                    "serve",
                    "--port",
                    "0",
                    "--database",
                    self.database,
                    "--log-level",
                    "info",
                    # One address sends every client's requests here.
                    "--no-limits",
                ],
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + START_GUARD
        while True:
            with self.log.open("rb") as log:
                log.seek(offset)
                text = log.read().decode(errors="replace")
            found = re.search(r"sternhalma listening on (http://\S+)", text)
            if found:
                self.url = found.group(1)
                return
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode} before listening:\n{text}"
                )
            if time.monotonic() > deadline:
                self.process.kill()
                self.process.wait()
                raise RuntimeError(f"{self.name} did not print its address:\n{text}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.url = ""

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None and bool(self.url)

    def tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def call(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    timeout: float = 60,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, dict[str, str]]:
    """One request; answers the status, the decoded JSON body (None when
    empty, the text when not JSON) and the response headers."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw, answered = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        status, raw, answered = error.code, error.read(), dict(error.headers)
    if not raw:
        return status, None, answered
    try:
        return status, json.loads(raw), answered
    except ValueError:
        return status, raw.decode(errors="replace"), answered


def get(url: str, path: str, timeout: float = 60) -> Any:
    status, body, _ = call(url, "GET", path, timeout=timeout)
    assert status == 200, f"GET {url}{path} answered {status}: {body}"
    return body


def long_polls_open(url: str) -> int:
    """The replica's `sternhalma_long_polls_open` gauge: long-polls and
    event streams it holds open now."""
    with urllib.request.urlopen(url + "/metrics", timeout=30) as response:
        text = response.read().decode()
    found = re.search(r"^sternhalma_long_polls_open (\d+)$", text, re.MULTILINE)
    assert found, "no sternhalma_long_polls_open in /metrics"
    return int(found.group(1))


def wait_for_long_poll(replica: Any, polling: Future[Any], open_before: int, guard: float) -> None:
    """Waits until `polling` (a request in flight) is counted as a long-poll
    open on `replica` (its gauge above `open_before`), or has answered."""
    wait_until(
        f"the long-poll to wait on {replica.name}",
        lambda: polling.done() or long_polls_open(replica.url) > open_before,
        guard,
    )


def wait_until(what: str, check: Any, guard: float, every: float = 0.05) -> Any:
    """Polls `check()` (None or False: not yet) until the liveness guard."""
    deadline = time.monotonic() + guard
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"liveness guard: {what} did not happen within {guard:.0f} s")
        time.sleep(every)


class EventStream:
    """A tournament's Server-Sent Events read by a thread of its own: each
    event, as (type, data decoded), goes to `events`; None when the stream
    ends, the exception when it breaks."""

    def __init__(self, url: str, tournament: int, guard: float) -> None:
        self.events: queue.Queue[Any] = queue.Queue()
        # `max_ms` closes the stream from the server's side at the latest
        # then, so the thread never outlives the test by much.
        self.response = urllib.request.urlopen(
            f"{url}/v1/tournaments/{tournament}/events?max_ms={int(guard * 1000)}",
            timeout=guard,
        )
        assert self.response.status == 200
        assert self.response.headers["Content-Type"].startswith("text/event-stream")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        kind, data = None, []
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    kind = line[len("event:") :].strip()
                elif line.startswith("data:"):
                    data.append(line[len("data:") :].strip())
                elif line == "" and kind is not None:
                    self.events.put((kind, json.loads("\n".join(data))))
                    kind, data = None, []
            self.events.put(None)
        except Exception as error:  # noqa: BLE001 (handed to the test, which raises it)
            self.events.put(error)

    def next(self, what: str, guard: float) -> tuple[str, Any] | None:
        """The next event (None: the stream ended); fails at the guard."""
        try:
            item = self.events.get(timeout=guard)
        except queue.Empty:
            raise AssertionError(f"liveness guard: no {what} within {guard:.0f} s") from None
        if isinstance(item, Exception):
            raise item
        return item

    def until(self, what: str, matches: Any, guard: float) -> tuple[str, Any]:
        """Skips events until one for which `matches(type, data)` holds."""
        deadline = time.monotonic() + guard
        while True:
            item = self.next(what, max(0.1, deadline - time.monotonic()))
            assert item is not None, f"the event stream ended before {what}"
            if matches(*item):
                return item

    def close(self) -> None:
        self.response.close()
