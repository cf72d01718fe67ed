"""Notebook 5, bots over HTTP: sending a move to a stored match.

The grader makes the matches on the game server itself (the teacher's
scratch server, ``STERNHALMA_URL``), keeps their seat tokens, and asks
the student's ``submit`` to send moves there: ``submit(match_url, ply,
move, seat_token)`` gets the match's address from the grader, never
finds one of its own, and the student's process may reach that server's
``host:port`` and nothing else. Whether a move was played, or a refusal
left the match as it was, is read from the server by the grader, never
from what ``submit`` answers; a refusal ``submit`` answers must be the
server's own answer to that request (the grader sends the same request
again, which the server refuses again, and compares).

The self-checks in the notebook use the notebook's own server (its
``url``, else ``find_server``).
"""

from __future__ import annotations

import os
import random
from typing import Any
from urllib.parse import urlsplit

import requests

from sternhalma import grading
from sternhalma.autograde import Course, Failed, Student

course = Course("05_bots_over_http", network=True)

TIMEOUT = 30
HOUSE_BOT = {"kind": "alphabeta", "seed": 3, "nodes": 2000}

# ---- adapters: run in the student's process ------------------------------------------


@course.adapter
def notebook_url(ns):
    """The notebook's server (its `url`): the self-checks' server, never the grader's."""
    url = ns.get("url")
    return url if isinstance(url, str) else None


@course.adapter
def submit(ns, match_url, ply, move, token):
    """The student's `submit`, its answer made plain: the response's status and JSON body."""
    answer = ns["submit"](match_url, ply, move, token)
    if not isinstance(answer, requests.Response):
        return {"kind": type(answer).__name__}
    try:
        body = answer.json()
    except ValueError:
        body = None
    return {"kind": "Response", "status": int(answer.status_code), "body": body}


# ---- the server, from the grader -----------------------------------------------------


class Server:
    """The game server the grader makes its matches on."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")

    def request(self, method: str, route: str, **kwargs: Any) -> requests.Response:
        try:
            return requests.request(method, f"{self.url}{route}", timeout=TIMEOUT, **kwargs)
        except requests.RequestException as e:
            raise Failed(
                f"the game server at {self.url} did not answer the grader ({type(e).__name__}):"
                " ask your teacher"
            ) from None

    def json(self, method: str, route: str, **kwargs: Any) -> dict:
        answer = self.request(method, route, **kwargs)
        if answer.status_code >= 400:
            raise Failed(
                f"the game server at {self.url} refused the grader's {method} {route}"
                f" ({answer.status_code}): ask your teacher (a server started with --admin-key"
                " refuses new matches; grade against a scratch server with --no-limits)"
            )
        return answer.json()

    def match(self, board: str, rules: str, seats: list[dict]) -> tuple[str, list[str]]:
        """A new match: its address and its open seats' tokens."""
        created = self.json(
            "POST",
            "/v1/matches",
            json={"board": board, "layout": "2", "rules": rules, "seats": seats},
        )
        match_id = created["match"]["id"]
        return f"{self.url}/v1/matches/{match_id}", [s["token"] for s in created["seat_tokens"]]

    def state(self, match_url: str) -> dict:
        return self.json("GET", match_url.removeprefix(self.url))

    def stored(self, match_url: str) -> list[tuple[int, str]]:
        moves = self.json("GET", match_url.removeprefix(self.url) + "/moves")["moves"]
        return [(m["seat"], m["move"]["text"]) for m in moves]

    def post(self, match_url: str, ply: int, move: str, token: str) -> tuple[int, Any]:
        """The grader's own `POST {match_url}/moves`: the status and the JSON body."""
        answer = self.request(
            "POST",
            match_url.removeprefix(self.url) + "/moves",
            json={"ply": ply, "move": move},
            headers={"Authorization": f"Bearer {token}"},
        )
        try:
            return answer.status_code, answer.json()
        except ValueError:
            return answer.status_code, None


def server(student: Student, graded: bool) -> Server:
    """The grader's server: the address the student's process may reach (its
    ``host:port``, with ``STERNHALMA_URL``'s scheme), else ``STERNHALMA_URL``;
    for the self-checks, the notebook's."""
    if graded:
        url = os.environ.get("STERNHALMA_URL", "")
        connect = getattr(student, "connect", None)
        if connect:
            url = f"{urlsplit(url).scheme or 'http'}://{connect[0]}"
        if not url:
            raise Failed(
                "no game server to grade submit on: the grader needs STERNHALMA_URL (ask your"
                " teacher)"
            )
        return Server(url)
    answer = student.call("notebook_url")
    if answer.error is None and isinstance(answer.result, str):
        return Server(answer.result)
    from sternhalma.server import find_server

    return Server(find_server(options=["--no-limits"]).url)


# ---- the checks ----------------------------------------------------------------------

HINTS = {
    "missing_field": "is `ply` sent in the JSON body, with `move`?",
    "malformed_token": "the header is `Authorization: Bearer <seat_token>`",
    "missing_token": "is the header `Authorization: Bearer <seat_token>` sent?",
    "unsupported_media_type": "send the body as JSON: requests.post(..., json=...)",
    "malformed_json": "send the body as JSON: requests.post(..., json=...)",
    "not_found": "is the request sent to f'{match_url}/moves'?",
    "stale_ply": "is the `ply` argument sent as given?",
    "wrong_token": "is the `seat_token` argument sent as given?",
    "not_your_turn": "is the `seat_token` argument sent as given?",
}


def code_of(body: Any) -> str | None:
    return body.get("code") if isinstance(body, dict) else None


def response(answer, what: str) -> tuple[int, Any]:
    """The status and body `submit` answered, or `Failed` saying why there are none."""
    if answer.error is not None:
        kind, message = answer.error
        if kind in ("HTTPError", "RuntimeError"):
            raise Failed(
                f"{what}: submit raised {kind}: {message[:200]} (a refusal is a response too:"
                " return it, do not raise)"
            )
        _ = answer.value  # raises Failed naming the exception
    result = answer.result
    if not isinstance(result, dict) or result.get("kind") != "Response":
        kind = result.get("kind") if isinstance(result, dict) else "?"
        raise Failed(
            f"{what}: submit answered a {kind}, not the requests.Response of the POST"
            " (return what requests.post answers)"
        )
    return int(result["status"]), result.get("body")


def refused_as(status: int, body: Any, expected: str, what: str) -> str:
    code = code_of(body)
    hint = HINTS.get(code or "", "")
    return f"{what}: answered {status} {code}, expected {expected}" + (f" ({hint})" if hint else "")


def unchanged(site: Server, match_url: str, before: dict, moves: list, what: str) -> None:
    """Whether the match is as it was before a request the server must refuse."""
    after = site.state(match_url)
    if (after["ply"], after["version"], after["status"]) != (
        before["ply"],
        before["version"],
        before["status"],
    ) or site.stored(match_url) != moves:
        raise Failed(
            f"{what}: the match changed (ply {before['ply']} -> {after['ply']}) on a request the"
            " server refuses: send each move once, as given, and never again on a refusal"
        )


def accepted(
    site: Server, student: Student, match_url: str, ply: int, move: str, token: str, what: str
) -> dict:
    """Asks `submit` to play `move`: it must answer 200 and the server must hold the move."""
    before = site.state(match_url)
    moves = site.stored(match_url)
    status, body = response(student.call("submit", match_url, ply, move, token), what)
    after = site.stored(match_url)
    if status != 200:
        if after != moves:
            raise Failed(f"{what}: answered {status}, but the server played a move")
        raise Failed(refused_as(status, body, "200", what))
    if after[: len(moves)] != moves or len(after) <= len(moves) or after[len(moves)][1] != move:
        raise Failed(
            f"{what}: answered 200, but the server does not hold the move sent at ply {ply}"
            " (is `move` sent as given, once, to match_url?)"
        )
    seat = before["to_move"]
    if after[len(moves)][0] != seat:
        raise Failed(f"{what}: the move was played for another seat than the token's")
    played = body.get("played") if isinstance(body, dict) else None
    if (
        not isinstance(played, list)
        or [(p.get("seat"), p.get("move", {}).get("text")) for p in played if isinstance(p, dict)]
        != after[len(moves) :]
    ):
        raise Failed(
            f"{what}: the response answered is not the server's answer to the move"
            " (return the response of the POST as it is)"
        )
    return site.state(match_url)


def refused(
    site: Server,
    student: Student,
    match_url: str,
    ply: int,
    move: str,
    token: str,
    expected: tuple[set[int], str | None],
    what: str,
) -> None:
    """Asks `submit` to send a request the server refuses: it must answer the server's
    refusal (`expected`: the statuses and the problem's code, None for any), and the match
    must stay as it was."""
    before = site.state(match_url)
    moves = site.stored(match_url)
    answer = student.call("submit", match_url, ply, move, token)
    unchanged(site, match_url, before, moves, what)
    status, body = response(answer, what)
    statuses, code = expected
    wanted = " or ".join(map(str, sorted(statuses))) + (f" {code}" if code else "")
    if status not in statuses or (code is not None and code_of(body) != code):
        raise Failed(refused_as(status, body, wanted, what))
    # The server's own answer to the same request (refused again: nothing changes).
    own = site.post(match_url, ply, move, token)
    unchanged(site, match_url, before, moves, "the grader's check")
    if (status, body) != own:
        raise Failed(
            f"{what}: answered {status} {code_of(body)}, not the server's answer to that request"
            " (return the response of the POST as it is)"
        )


def play(site: Server, match_url: str, ply: int, move: str, token: str) -> dict:
    """The grader plays a move itself (to set a case up): the match's state after it."""
    status, body = site.post(match_url, ply, move, token)
    if status != 200:
        raise Failed(
            f"the game server refused the grader's own move ({status} {code_of(body)}): ask your"
            " teacher"
        )
    return site.state(match_url)


def first_move(state: dict, rng: random.Random) -> str:
    return rng.choice(state["legal_moves"])["text"]


@course.part("test-submit-accepted")
def submit_accepted(student: Student, graded: bool) -> None:
    site = server(student, graded)
    # A match against a house bot: our move, and the bot's answer inside our request.
    match_url, (token,) = site.match(
        "rhombus5p3",
        "research,max_plies=60",
        [{"name": "notebook 5's check"}, {"name": "house bot", "bot": HOUSE_BOT}],
    )
    state = site.state(match_url)
    move = first_move(state, random.Random(5))
    what = "submit, the first move of a match against a house bot"
    state = accepted(site, student, match_url, 0, move, token, what)
    if state["ply"] != 2:
        raise Failed(f"{what}: the match is at ply {state['ply']}, expected 2 (ours and the bot's)")
    if not graded:
        return
    # Held-out: a match with two open seats, each seat's own token, other plies and moves.
    rng = grading.held_out("nb5-submit-accepted")
    for index in range(2):
        board = rng.choice(["rhombus6p3", "rhombus5p3", "rhombus6p6"])
        match_url, tokens = site.match(board, "research", [{}, {}])
        state = site.state(match_url)
        for ply in range(4):
            what = f"submit at ply {ply} of held-out match {index}, seat {ply % 2}'s token"
            state = accepted(
                site, student, match_url, ply, first_move(state, rng), tokens[ply % 2], what
            )
            if state["ply"] != ply + 1:
                raise Failed(f"{what}: the match is at ply {state['ply']}, expected {ply + 1}")


@course.part("test-submit-refused")
def submit_refused(student: Student, graded: bool) -> None:
    site = server(student, graded)
    # A match against a house bot, one move in (played by the grader).
    match_url, (token,) = site.match(
        "rhombus5p3",
        "research,max_plies=60",
        [{"name": "notebook 5's check"}, {"name": "house bot", "bot": HOUSE_BOT}],
    )
    state = site.state(match_url)
    state = play(site, match_url, 0, first_move(state, random.Random(5)), token)
    move = first_move(state, random.Random(6))
    refused(
        site,
        student,
        match_url,
        0,
        move,
        token,
        ({409}, "stale_ply"),
        f"submit for ply 0 again (the match is at ply {state['ply']})",
    )
    refused(
        site,
        student,
        match_url,
        state["ply"],
        move,
        "0" * 64,
        ({401, 403}, "wrong_token"),
        "submit with a wrong token",
    )
    if not graded:
        return
    # Held-out: a match with two open seats: a ply ahead, the other seat's token, an
    # illegal move; at its start and one move in.
    rng = grading.held_out("nb5-submit-refused")
    board = rng.choice(["rhombus6p6", "rhombus6p3", "rhombus7p6"])
    match_url, tokens = site.match(board, "research", [{}, {}])
    holes = board_holes(site, board)
    for ply in range(2):
        state = site.state(match_url)
        chosen = rng.choice(state["legal_moves"])
        move = chosen["text"]
        reached = {m["to"] for m in state["legal_moves"] if m["from"] == chosen["from"]}
        nowhere = rng.choice([h for h in range(holes) if h not in reached | {chosen["from"]}])
        mover, waiting = tokens[ply % 2], tokens[1 - ply % 2]
        what = f"submit at ply {ply} of the held-out match"
        cases = [
            ("a ply ahead", ply + 1 + rng.randrange(3), move, mover, ({409}, "stale_ply")),
            ("the other seat's token", ply, move, waiting, ({409}, "not_your_turn")),
            ("an illegal move", ply, f"{chosen['from']}-{nowhere}", mover, ({422}, None)),
        ]
        for case, at, sent, token, expected in cases:
            refused(site, student, match_url, at, sent, token, expected, f"{what}, {case}")
        play(site, match_url, ply, move, mover)


def board_holes(site: Server, board: str) -> int:
    return len(site.json("GET", f"/v1/boards/{board}")["hole_list"])
