"""The example clients wait out 429 and 503 as `Retry-After` says.

A class behind one address shares the server's per-client limits, so an
entrant meets 429 `rate_limited` (and a busy server 503) in a normal game.
Here the real example clients (examples/clients/*.js run with node, and
`python -m sternhalma.examples.*` with this Python) play against a small fake server in a thread, which answers only
the calls they make (the tournament's turns long-poll, a move, the
standings; a match's state, its long-poll and a move: the shapes of
openapi/openapi.json, with the fields the clients read) and refuses the
first tries of a move or a long-poll with 429 or 503 and `Retry-After: 1`.
The checks: the client sent the same request again, no sooner than
`Retry-After` after the refusal (the fake server's own monotonic clock: a
lower bound only, never an upper one), and played its game to the end;
against a server that always answers 429, it gives up after its bounded
number of tries with a clear message and a non-zero exit. The JavaScript
clients also resend a long-poll, or a move (which names its ply), that got
no answer, and wait 1 s when `Retry-After` is missing or malformed.

The Python examples go through `sternhalma.Client` (`Client._patiently`),
which does the same; they run where the module is installed (as in
scripts/test).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matches_support import ROOT

CLIENTS = ROOT / "examples" / "clients"
TOKEN = "ab" * 32
TOURNAMENT_ID = 1
MATCH_ID = 7
# The clients' bound: tries of one request before they give up.
TRIES = 8
# Liveness guard only: every run below ends when the client does.
GUARD_SECONDS = 60
# Node's timers count whole milliseconds of a clock read once per turn of its
# event loop, so a 1 s wait may end a millisecond early by the server's clock.
TIMER_SLACK = 0.01
# A real position (the two-player start); the fake server checks no move.
START = "star4 classic south:111-120/north:0-9 0 0 -"
LEGAL = [{"text": "115-104", "kind": "step", "path": [115, 104], "from": 115, "to": 104}]


@dataclass
class Request:
    at: float  # the fake server's time.monotonic() when the request arrived
    method: str
    path: str
    body: Any


@dataclass
class Answer:
    status: int
    body: Any
    retry_after: str | None = None  # the Retry-After header, as sent


# An answer that is no answer: the connection is closed without a response.
DROP = Answer(0, None)


def refused(status: int, code: str, retry_after: str | None = "1") -> Answer:
    """A 429 or 503 as the server sends them: problem details."""
    title = {429: "Too Many Requests", 503: "Service Unavailable"}[status]
    problem = {"type": "about:blank", "title": title, "status": status, "code": code}
    return Answer(status, {**problem, "detail": f"{code}: try again later"}, retry_after)


def stale_ply() -> Answer:
    return Answer(409, {"title": "Conflict", "status": 409, "code": "stale_ply", "detail": ""})


class FakeServer:
    """An HTTP server in a thread that records every request and answers it
    with `answer(request)`."""

    def __init__(self, answer: Callable[[Request], Answer]) -> None:
        self.requests: list[Request] = []
        lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def respond(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                request = Request(
                    time.monotonic(), self.command, self.path, json.loads(raw) if raw else None
                )
                with lock:
                    fake.requests.append(request)
                    reply = answer(request)
                if reply is DROP:
                    self.close_connection = True
                    return
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                kind = "application/json" if reply.status < 400 else "application/problem+json"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                if reply.retry_after is not None:
                    self.send_header("Retry-After", reply.retry_after)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = respond

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def sent(self, method: str, path_start: str) -> list[Request]:
        return [r for r in self.requests if r.method == method and r.path.startswith(path_start)]


class Tournament:
    """A tournament entrant's calls: its turns long-poll (one turn, then
    `done`), one move, the standings. `before_poll` and `before_move` are
    answered first, in order, to the first polls and moves. With
    `drop_stored_move`, the first move is stored but its connection closed
    without an answer (sent again, it is a stale ply)."""

    TURNS = f"/v1/tournaments/{TOURNAMENT_ID}/turns"
    MOVES = f"/v1/matches/{MATCH_ID}/moves"
    STANDINGS = f"/v1/tournaments/{TOURNAMENT_ID}/standings"

    def __init__(
        self,
        *,
        before_poll: list[Answer] | None = None,
        before_move: list[Answer] | None = None,
        drop_stored_move: bool = False,
    ) -> None:
        self.before_poll = list(before_poll or [])
        self.before_move = list(before_move or [])
        self.drop_stored_move = drop_stored_move
        self.moved = False

    def __call__(self, request: Request) -> Answer:
        if request.method == "GET" and request.path.startswith(self.TURNS + "?"):
            if self.before_poll:
                return self.before_poll.pop(0)
            turn = {
                "match_id": MATCH_ID,
                "game": 0,
                "seat": 0,
                "ply": 0,
                "position": {"position_string": START, "side_to_move": 0},
                "legal_moves": LEGAL,
                "timeouts": 0,
                "deadline_ms": 10000,
            }
            return Answer(
                200,
                {
                    "tournament_id": TOURNAMENT_ID,
                    "entrant": 0,
                    "name": "ada",
                    "status": "finished" if self.moved else "running",
                    "done": self.moved,
                    "turns": [] if self.moved else [turn],
                },
            )
        if request.method == "POST" and request.path == self.MOVES:
            if self.before_move:
                return self.before_move.pop(0)
            if self.moved:
                return stale_ply()
            self.moved = True
            if self.drop_stored_move:
                return DROP
            return Answer(200, {"played": [], "match": {"id": MATCH_ID, "ply": 1}})
        if request.method == "GET" and request.path == self.STANDINGS:
            row = {
                "rank": 1,
                "entrant": 0,
                "name": "ada",
                "kind": "open",
                "games": 1,
                "wins": 1,
                "draws": 0,
                "losses": 0,
                "points": 1.0,
                "timeouts": 0,
                "forfeits": 0,
                "rating": 27.6,
                "uncertainty": 7.9,
                "judged_moves": 0,
                "mistakes": 0,
                "accuracy": None,
            }
            return Answer(
                200,
                {
                    "rows": [row],
                    "cross_table": [],
                    "games_counted": 1,
                    "points": {"win": 1.0, "draw": 0.5, "loss": 0.0},
                    "rating_system": "weng_lin",
                },
            )
        return Answer(404, {"title": "Not Found", "status": 404, "code": "not_found"})


class StoredMatch:
    """A seat's calls in a stored match, seat 0: the match (the other seat
    to move), its long-poll (answering seat 0's turn), one move (after which
    the match is over). `before_poll` and `before_move` as for
    `Tournament`. The position stays the start: the clients take the ply
    and the seat to move from the JSON."""

    MATCH = f"/v1/matches/{MATCH_ID}"

    def __init__(
        self, *, before_poll: list[Answer] | None = None, before_move: list[Answer] | None = None
    ) -> None:
        self.before_poll = list(before_poll or [])
        self.before_move = list(before_move or [])
        self.ply = 0

    def state(self) -> dict[str, Any]:
        over = self.ply == 2
        return {
            "id": MATCH_ID,
            "status": "finished" if over else "in_progress",
            "version": self.ply + 1,
            "created_at": "2026-11-22T09:00:00.000Z",
            "updated_at": "2026-11-22T09:00:00.000Z",
            "seats": [
                {"seat": 0, "name": "ada", "kind": "open"},
                {"seat": 1, "name": "grace", "kind": "open"},
            ],
            "ply": self.ply,
            "to_move": None if over else [1, 0][self.ply],  # grace first, then ada
            "start_position": START,
            "position": {"position_string": START, "side_to_move": 0},
            "legal_moves": LEGAL if self.ply == 1 else [],
            "result": (
                {
                    "ending": "outcome",
                    "winners": [0],
                    "results": [1, -1],
                    "summary": "player 0 won",
                    "places": [],
                }
                if over
                else None
            ),
        }

    def __call__(self, request: Request) -> Answer:
        if request.method == "GET" and request.path == self.MATCH:
            return Answer(200, self.state())
        if request.method == "GET" and request.path.startswith(self.MATCH + "?wait_ply="):
            if self.before_poll:
                return self.before_poll.pop(0)
            self.ply = max(self.ply, 1)  # grace moved: seat 0's turn
            return Answer(200, self.state())
        if request.method == "POST" and request.path == self.MATCH + "/moves":
            if self.before_move:
                return self.before_move.pop(0)
            if request.body.get("ply") != self.ply:
                return stale_ply()
            self.ply = 2
            return Answer(200, {"played": [], "match": self.state()})
        return Answer(404, {"title": "Not Found", "status": 404, "code": "not_found"})


# The clients, as a student starts them: (language, the script or module,
# arguments after the URL).
ENTRANTS = {
    "js": ("tournament_entrant.js", [str(TOURNAMENT_ID), TOKEN, "--seed", "5"]),
    "py": ("sternhalma.examples.tournament_entrant", [str(TOURNAMENT_ID), TOKEN, "--seed", "5"]),
}
BOTS = {
    "js": ("random_bot.js", [str(MATCH_ID), "0", TOKEN]),
    "py": ("sternhalma.examples.random_bot", [str(MATCH_ID), "0", TOKEN, "--seed", "5"]),
}


def run(language: str, script: str, url: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    """Runs an example client to its end against `url`."""
    if language == "js":
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not installed")
        command = [node, str(CLIENTS / script)]
    else:
        pytest.importorskip("sternhalma", reason="the sternhalma module is not installed")
        command = [sys.executable, "-m", script]
    return subprocess.run(
        [*command, url, *args], check=False, capture_output=True, text=True, timeout=GUARD_SECONDS
    )


def assert_resent_after(requests: list[Request], waits: list[float]) -> None:
    """`requests` are one request sent len(waits) + 1 times (same method,
    path and body), each no sooner than its wait after the one before."""
    assert len(requests) == len(waits) + 1, requests
    first = requests[0]
    for earlier, later, wait in zip(requests[:-1], requests[1:], waits, strict=True):
        assert (later.method, later.path, later.body) == (first.method, first.path, first.body)
        assert later.at - earlier.at >= wait - TIMER_SLACK, (earlier, later, wait)


@pytest.mark.parametrize("language", ["js", "py"])
def test_an_entrant_waits_out_503_on_its_long_poll_and_429_on_its_move(language: str) -> None:
    game = Tournament(
        before_poll=[refused(503, "unavailable")], before_move=[refused(429, "rate_limited")]
    )
    with FakeServer(game) as fake:
        script, args = ENTRANTS[language]
        done = run(language, script, fake.url, args)
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert "done after 1 moves" in done.stdout, done.stdout
        polls = fake.sent("GET", Tournament.TURNS)
        assert_resent_after(polls[:2], [1.0])
        assert len(polls) == 3  # refused, the turn, done
        moves = fake.sent("POST", Tournament.MOVES)
        assert_resent_after(moves, [1.0])
        assert moves[0].body["ply"] == 0
        assert polls[0].at < polls[1].at < moves[0].at < moves[1].at < polls[2].at
        assert [r.path for r in fake.requests][-1] == Tournament.STANDINGS


@pytest.mark.parametrize("language", ["js", "py"])
def test_a_match_bot_waits_out_429_on_its_long_poll_and_503_on_its_move(language: str) -> None:
    game = StoredMatch(
        before_poll=[refused(429, "too_many_waits")],
        before_move=[refused(503, "unavailable")],
    )
    with FakeServer(game) as fake:
        script, args = BOTS[language]
        done = run(language, script, fake.url, args)
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert "seat 0: finished, player 0 won" in done.stdout, done.stdout
        polls = fake.sent("GET", StoredMatch.MATCH + "?wait_ply=")
        assert_resent_after(polls, [1.0])
        moves = fake.sent("POST", StoredMatch.MATCH + "/moves")
        assert_resent_after(moves, [1.0])
        assert moves[0].body["ply"] == 1
        assert polls[1].at < moves[0].at


@pytest.mark.parametrize(
    ("language", "clients"),
    [
        ("js", ENTRANTS),
        ("js", BOTS),
        ("py", ENTRANTS),
        ("py", BOTS),
    ],
    ids=["js-entrant", "js-bot", "py-entrant", "py-bot"],
)
def test_a_client_gives_up_on_a_server_that_always_answers_429(
    language: str, clients: dict[str, tuple[str, list[str]]]
) -> None:
    # Retry-After: 0 keeps the test fast: the count of tries is the point here.
    with FakeServer(lambda request: refused(429, "rate_limited", "0")) as fake:
        script, args = clients[language]
        done = run(language, script, fake.url, args)
        assert done.returncode != 0, (done.stdout, done.stderr)
        assert f"after {TRIES} tries, giving up" in done.stderr, done.stderr
        assert "rate_limited" in done.stderr, done.stderr
        assert_resent_after(fake.requests, [0.0] * (TRIES - 1))


@pytest.mark.parametrize("language", ["js", "py"])
def test_an_entrant_resends_a_poll_and_a_move_that_got_no_answer(language: str) -> None:
    # The first poll's connection is closed unanswered; so is the first
    # move's, after the move was stored: sent again, it is a stale ply (409),
    # and the entrant polls again as for any 409. sternhalma.Client sends a
    # GET whose connection dropped again at once, on a new connection (a
    # kept-alive connection may have been closed by the server), where the
    # JavaScript entrant waits 1 s; a move it resends only after 1 s, as a
    # request that names its ply (issue 36).
    game = Tournament(before_poll=[DROP], drop_stored_move=True)
    with FakeServer(game) as fake:
        script, args = ENTRANTS[language]
        done = run(language, script, fake.url, args)
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert "done after 0 moves" in done.stdout, done.stdout  # the 409 counts none
        polls = fake.sent("GET", Tournament.TURNS)
        assert_resent_after(polls[:2], [1.0 if language == "js" else 0.0])
        moves = fake.sent("POST", Tournament.MOVES)
        assert_resent_after(moves, [1.0])
        assert len(polls) == 3


@pytest.mark.parametrize("language", ["js", "py"])
def test_a_match_bot_waits_1_s_without_a_well_formed_retry_after(language: str) -> None:
    game = StoredMatch(
        before_poll=[refused(429, "too_many_waits", "soon")],
        before_move=[refused(503, "unavailable", None)],
    )
    with FakeServer(game) as fake:
        script, args = BOTS[language]
        done = run(language, script, fake.url, args)
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert_resent_after(fake.sent("GET", StoredMatch.MATCH + "?wait_ply="), [1.0])
        assert_resent_after(fake.sent("POST", StoredMatch.MATCH + "/moves"), [1.0])
