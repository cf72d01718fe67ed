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
"""

from __future__ import annotations

import json
import types
import urllib.error
import urllib.request
from typing import Any

from sternhalma._core import Move, SternhalmaError, _problem_error


class ServerError(SternhalmaError):
    """The server could not be reached, or answered something unexpected."""


class Client:
    """The HTTP API at ``url`` (e.g. ``http://127.0.0.1:8080``)."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Calls the API; returns the decoded JSON, or raises the local
        exception that matches the problem the server reports."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            raise _problem(error) from None
        except urllib.error.URLError as error:
            raise ServerError(f"cannot reach {self.url}: {error.reason}") from None
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


def _problem(error: urllib.error.HTTPError) -> SternhalmaError:
    try:
        problem = json.loads(error.read())
    except ValueError:
        return ServerError(f"HTTP {error.code} without problem details")
    code = problem.get("code", "")
    detail = problem.get("detail", "")
    # The core maps codes to the local exception classes, as it does for
    # local errors: no code is matched here.
    problems = [(p["code"], p["message"]) for p in problem.get("problems", [])]
    local = _problem_error(error.code, code, detail, problems)
    if local is not None:
        return local
    return ServerError(f"HTTP {error.code} {code}: {detail}")


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
