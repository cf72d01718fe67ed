"""A client for the Sternhalma HTTP API, shaped like the local classes.

``Client(url).start(...)`` returns a :class:`RemotePosition`, which has the
same methods as :class:`sternhalma.Position` (``legal_moves``, ``push``,
``pop``, ``outcome``, ...) but asks the server for every rule. Switching a
notebook from local to remote play is one line::

    position = sternhalma.Position.start(rules="classic")            # local
    position = sternhalma.Client("http://127.0.0.1:8080").start(rules="classic")  # remote

Moves and errors are the local ones: ``Move`` objects, and an illegal move
raises :class:`sternhalma.IllegalMoveError` with the server's reason code.
Only the standard library is used (``urllib``).

:meth:`Client.play_tournament` enters a tournament with an entrant token and
plays every game of that entrant with a local bot::

    import sternhalma

    client = sternhalma.Client("http://127.0.0.1:8080")
    bot = sternhalma.Bot("greedy", seed=1)  # or any function: position -> move
    standings = client.play_tournament(3, "<entrant token>", bot)
"""

from __future__ import annotations

import json
import time
import types
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from sternhalma._core import Move, Position, SternhalmaError, _problem_error


class ServerError(SternhalmaError):
    """The server could not be reached, or answered something unexpected.

    ``status`` is the HTTP status (``None`` when there was no answer),
    ``code`` the problem's stable code (``wrong_token``, ``stale_ply``,
    ``rate_limited``, ...; empty when the answer had none) and
    ``retry_after`` the seconds the server asked to wait (``Retry-After``,
    with a 429 or 503), else ``None``."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.retry_after = retry_after


class Client:
    """The HTTP API at ``url`` (e.g. ``http://127.0.0.1:8080``)."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Calls the API; returns the decoded JSON, or raises the local
        exception that matches the problem the server reports.

        ``token`` is sent as ``Authorization: Bearer <token>`` (a seat's,
        an entrant's or an admin token); ``timeout`` (seconds) replaces the
        client's socket timeout for this call (a long-poll needs more)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        wait = self.timeout if timeout is None else timeout
        try:
            with urllib.request.urlopen(request, timeout=wait) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            raise _problem(error) from None
        except urllib.error.URLError as error:
            raise ServerError(f"cannot reach {self.url}: {error.reason}") from None
        except TimeoutError:
            raise ServerError(f"{method} {path}: no answer within {wait} s") from None
        try:
            return json.loads(body)
        except ValueError:
            raise ServerError(f"{method} {path}: the server did not answer JSON") from None

    def start(
        self,
        board: str | None = None,
        layout: str = "2",
        rules: str = "classic",
        first_player: int = 0,
    ) -> RemotePosition:
        """The start of a game, like :meth:`sternhalma.Position.start`."""
        body: dict[str, Any] = {"layout": layout, "rules": rules, "first_player": first_player}
        if board is not None:
            body["board"] = board
        view = self.request("POST", "/v1/positions", body)
        return RemotePosition(self, view["position_string"])

    def position(self, text: str) -> RemotePosition:
        """A position from its position string (checked by the server)."""
        view = self.request("POST", "/v1/positions/validate", {"position": text})
        return RemotePosition(self, view["position_string"])

    def play_tournament(
        self,
        tournament_id: int,
        token: str,
        bot: Callable[[Position], Move | str] | Any,
        *,
        poll_timeout_ms: int = 25000,
        on_move: Callable[[dict[str, Any], str], object] | None = None,
    ) -> dict[str, Any]:
        """Plays every game of one tournament entrant, then answers the
        tournament's standings (the JSON of
        ``GET /v1/tournaments/{id}/standings``).

        ``token`` is the entrant's token from the tournament's creation.
        ``bot`` chooses the moves: an object with a ``step(position)``
        method (a :class:`sternhalma.Bot`), or any function that takes a
        local :class:`sternhalma.Position` and answers a ``Move`` or a
        move's text (``"95-75-57"``, ``"pass"``).

        The loop waits for the entrant's turns with the long-poll
        (``GET /v1/tournaments/{id}/turns``, at most ``poll_timeout_ms``
        per call, 0 to 30000), asks the bot for each turn and posts the
        move (``POST /v1/matches/{match_id}/moves``, naming the turn's ply).
        A 409 (``stale_ply``, ``not_your_turn``, ``match_closed``: the game
        moved on, e.g. the server played a timed-out move) is ignored and
        the loop polls again. It ends when the server says the entrant has
        no game left (``done``). It can start before the tournament does:
        it waits. ``on_move(turn, text)``, when given, is called after each
        move the server accepted, with the turn (its JSON) and the move's
        text. A 429 or 503 with ``Retry-After`` (the server's per-client
        limits, a busy server) is waited out and the call tried again.

        The standings are read when the entrant's last game is over: other
        entrants' games may still be under way (the tournament's ``status``
        is then still ``running``); read ``/v1/tournaments/{id}/standings``
        again later for the final table.

        Raises :class:`ServerError` for a wrong token (``code`` is
        ``wrong_token``) or an unreachable server, and
        :class:`sternhalma.IllegalMoveError` if the bot answers an illegal
        move.

        For example, with a function as the bot (the token is the one the
        tournament's creation answered for this entrant)::

            client = sternhalma.Client("http://127.0.0.1:8080")

            def first(position):
                return position.legal_moves[0]

            standings = client.play_tournament(3, "3f1a9c...", first)
            for row in standings["rows"]:
                print(row["rank"], row["name"], row["points"])
        """
        step = getattr(bot, "step", None)
        choose: Callable[[Position], Move | str] = step if callable(step) else bot
        if not callable(choose):
            raise TypeError(
                "bot must be a function position -> move, or have a step(position) method"
            )
        base = f"/v1/tournaments/{int(tournament_id)}"
        # The socket waits longer than the server holds the long-poll.
        poll_timeout = poll_timeout_ms / 1000 + self.timeout
        while True:
            answer = self._patiently(
                "GET",
                f"{base}/turns?timeout_ms={int(poll_timeout_ms)}",
                token=token,
                timeout=poll_timeout,
            )
            for turn in answer["turns"]:
                position = Position(turn["position"]["position_string"])
                move = choose(position)
                text = move if isinstance(move, str) else str(move)
                try:
                    self._patiently(
                        "POST",
                        f"/v1/matches/{turn['match_id']}/moves",
                        {"ply": turn["ply"], "move": text},
                        token=token,
                    )
                except ServerError as error:
                    if error.status == 409:
                        continue  # the game moved on: poll again
                    raise
                if on_move is not None:
                    on_move(turn, text)
            if answer["done"]:
                break
        return dict(self._patiently("GET", f"{base}/standings"))

    def _patiently(self, method: str, path: str, body: Any = None, **options: Any) -> Any:
        """``request``, waiting and trying again as long as the server
        answers 429 (a per-client limit: ``rate_limited``,
        ``too_many_waits``) or 503 ``busy``, as long as it says
        (``Retry-After``)."""
        while True:
            try:
                return self.request(method, path, body, **options)
            except ServerError as error:
                if error.status not in (429, 503) or error.retry_after is None:
                    raise
                time.sleep(min(max(error.retry_after, 0.05), 60.0))


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    try:
        return float(error.headers.get("Retry-After", ""))
    except (TypeError, ValueError):
        return None


def _problem(error: urllib.error.HTTPError) -> SternhalmaError:
    retry_after = _retry_after(error)
    try:
        problem = json.loads(error.read())
    except ValueError:
        return ServerError(
            f"HTTP {error.code} without problem details",
            status=error.code,
            retry_after=retry_after,
        )
    code = problem.get("code", "")
    detail = problem.get("detail", "")
    # The core maps codes to the local exception classes, as it does for
    # local errors: no code is matched here.
    problems = [(p["code"], p["message"]) for p in problem.get("problems", [])]
    local = _problem_error(error.code, code, detail, problems)
    if local is not None:
        return local
    return ServerError(
        f"HTTP {error.code} {code}: {detail}", status=error.code, code=code, retry_after=retry_after
    )


def _move(view: dict[str, Any]) -> Move:
    if view["kind"] == "pass":
        return Move.pass_()
    return Move._reported("-".join(str(h) for h in view["path"]), view["kind"])


class RemotePosition:
    """A position whose rules are applied by a server; the same methods as
    :class:`sternhalma.Position` that a search loop uses."""

    def __init__(self, client: Client, text: str) -> None:
        self.client = client
        self._stack: list[tuple[str, Move]] = []
        self._text = text
        self._view: dict[str, Any] | None = None

    def _legal(self) -> dict[str, Any]:
        if self._view is None:
            self._view = self.client.request("POST", "/v1/legal-moves", {"position": self._text})
        return self._view

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move (asked of the server)."""
        return [_move(m) for m in self._legal()["moves"]]

    @property
    def side_to_move(self) -> int:
        return int(self._legal()["side_to_move"])

    def push(self, move: Move | str) -> None:
        """Plays a move; the server checks it."""
        text = str(move) if isinstance(move, str) else "-".join(str(h) for h in move.path) or "pass"
        answer = self.client.request("POST", "/v1/apply", {"position": self._text, "move": text})
        self._stack.append((self._text, _move(answer["played"]["move"])))
        self._text = answer["position"]["position_string"]
        self._view = None

    def pop(self) -> Move:
        """Takes back the last move and returns it."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        self._text, move = self._stack.pop()
        self._view = None
        return move

    def peek(self) -> Move:
        """The last move played."""
        if not self._stack:
            raise IndexError("peek at an empty move stack")
        return self._stack[-1][1]

    def copy(self) -> RemotePosition:
        """A copy with the same server and move stack."""
        other = RemotePosition(self.client, self._text)
        other._stack = list(self._stack)
        return other

    def outcome(self) -> types.SimpleNamespace:
        """The outcome as the server reports it, with the attributes of the
        local ``Outcome``: ``status``, ``winner``, ``winners``, ``ranks``,
        ``reason``, ``results``, ``is_over``."""
        view = self._legal()["outcome"]
        winners = view.get("winners") or ([view["winner"]] if "winner" in view else [])
        if view["status"] == "ranking":
            winners = view["ranks"][0]
        return types.SimpleNamespace(
            status=view["status"],
            winner=view.get("winner"),
            winners=winners,
            ranks=view.get("ranks"),
            reason=view.get("reason"),
            results=view["results"],
            is_over=view["status"] != "in_progress",
        )

    def is_game_over(self) -> bool:
        return self._legal()["outcome"]["status"] != "in_progress"

    def to_json(self) -> dict[str, Any]:
        """The JSON form, as the local ``Position.to_json``."""
        view = self.client.request("POST", "/v1/positions/validate", {"position": self._text})
        return dict(view["position"])

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"RemotePosition({self.client.url!r}, {self._text!r})"
