"""A client for the Sternhalma HTTP API, shaped like the local classes.

``Client(url).start(...)`` returns a :class:`RemotePosition`, which has the
same methods as :class:`sternhalma.Position` (``legal_moves``, ``push``,
``pop``, ``outcome``, ...) but asks the server for every rule. Switching a
notebook from local to remote play is one line::

    position = sternhalma.Position.start(rules="classic")            # local
    position = sternhalma.Client("http://127.0.0.1:8080").start(rules="classic")  # remote

Moves and errors are the local ones: ``Move`` objects, and an illegal move
raises :class:`sternhalma.IllegalMoveError` with the server's reason code.
Only the standard library is used (``http.client``): each thread keeps one
HTTP/1.1 connection to the server open (see :class:`Client`), and a server
that cannot be reached raises :class:`ServerUnreachable`, a
``ConnectionError``.

:meth:`Client.play_tournament` enters a tournament with an entrant token and
plays every game of that entrant with a local bot::

    import sternhalma

    client = sternhalma.Client("http://127.0.0.1:8080")
    bot = sternhalma.Bot("greedy", seed=1)  # or any function: position -> move
    standings = client.play_tournament(3, "<entrant token>", bot)

Stored matches (a game kept by the server, played by seats holding tokens,
possibly on different machines) are :meth:`Client.create_match`,
:meth:`Client.join` and the :class:`Seat` they answer::

    created = client.create_match(["ada", sternhalma.Bot("greedy", seed=7)], board="rhombus5p3")
    ada = created.seats[0]                  # or client.join(match_id, 0, "<ada's token>")
    final = ada.play(sternhalma.Bot("alphabeta", nodes=2000, seed=1))
    print(final.result.summary)             # e.g. 'player 0 won'

Refusals are exceptions a program can catch one by one: a
:class:`WrongTokenError`, a :class:`NotFoundError`, and under
:class:`ConflictError` (the match moved on: read it again) a
:class:`StalePlyError`, :class:`NotYourTurnError` or
:class:`MatchClosedError`; all are :class:`ServerError`, which is a
:class:`sternhalma.SternhalmaError`. So is :class:`ServerUnreachable`, which
is also a ``ConnectionError``.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Self

from sternhalma._core import (
    Bot,
    IllegalMoveError,
    Move,
    NotationError,
    Outcome,
    Position,
    SternhalmaError,
    UnknownBotError,
    _problem_error,
)
from sternhalma._records import (
    BotSpec,
    CrossCell,
    CrossRow,
    Ending,
    Forfeit,
    ForfeitReason,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Place,
    Points,
    SeatKind,
    StandingRow,
    Standings,
    _name,
)

__all__ = [
    "BotSpec",
    "Client",
    "ConflictError",
    "CreatedMatch",
    "CrossCell",
    "CrossRow",
    "Ending",
    "Forfeit",
    "ForfeitReason",
    "Match",
    "MatchClosedError",
    "MatchResult",
    "MatchSeat",
    "MatchStatus",
    "NotFoundError",
    "NotYourTurnError",
    "Place",
    "PlayedMove",
    "Points",
    "RemoteLegalMoves",
    "RemotePosition",
    "Seat",
    "SeatKind",
    "ServerError",
    "StalePlyError",
    "StandingRow",
    "Standings",
    "WrongTokenError",
]


class ServerError(SternhalmaError):
    """The server could not be reached, refused a request, or answered
    something unexpected.

    ``status`` is the HTTP status (``None`` when there was no answer),
    ``code`` the problem's stable code (``wrong_token``, ``stale_ply``,
    ``rate_limited``, ...; empty when the answer had none) and
    ``retry_after`` the seconds the server asked to wait (``Retry-After``,
    with a 429 or 503), else ``None``.

    The refusals a program meets with stored matches have their own
    subclasses: :class:`NotFoundError`, :class:`WrongTokenError` and
    :class:`ConflictError` (with :class:`StalePlyError`,
    :class:`NotYourTurnError`, :class:`MatchClosedError`); a server that
    cannot be reached is a :class:`ServerUnreachable`, which is also a
    ``ConnectionError``. Problems with
    the game itself are the local exceptions: an illegal move is a
    :class:`sternhalma.IllegalMoveError`, a bad position an
    :class:`sternhalma.InvalidPositionError`, and so on.

    >>> issubclass(StalePlyError, ConflictError) and issubclass(ConflictError, ServerError)
    True
    >>> issubclass(ServerError, SternhalmaError) and issubclass(ServerError, ValueError)
    True
    """

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


class ServerUnreachable(ServerError, ConnectionError):
    """No connection to the server could be made: nothing listens at the
    address (connection refused), the host name does not resolve, the
    network is unreachable, or the connection was not accepted within the
    client's ``timeout``. The message names the URL. ``status`` is
    ``None``; ``url`` is the server's address.

    It is a ``ConnectionError`` (as Python's own networking errors are) and
    a :class:`ServerError`, so code that catches either catches it.

    >>> issubclass(ServerUnreachable, ConnectionError) and issubclass(ServerUnreachable, ServerError)
    True
    """

    def __init__(
        self,
        message: str,
        *,
        url: str = "",
        status: int | None = None,
        code: str = "",
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status=status, code=code, retry_after=retry_after)
        self.url = url


class NotFoundError(ServerError):
    """404: no such match (or tournament, or route). ``code`` is
    ``not_found``."""


class WrongTokenError(ServerError):
    """401 or 403: the token does not open this door. ``code`` says how:
    ``wrong_token`` (not a token of this match's open seats, or not its
    admin token), ``missing_token`` or ``malformed_token`` (not 64 hex
    digits), ``wrong_admin_key`` (creating a match on a server started with
    ``--admin-key``). Trying again will not help; check the token."""


class ConflictError(ServerError):
    """409: the token was right, but the match has moved on, so the
    request no longer fits it. Read the match again and decide anew. The
    common cases have their own subclasses; others (``already_resigned``,
    ``cannot_resign``, ``tournament_closed``, ...) are this class, with the
    reason in ``code``."""


class StalePlyError(ConflictError):
    """409 ``stale_ply``: the move named a ply the match is no longer at
    (another move came first, e.g. a resignation or the server's move for a
    seat that timed out). Nothing was stored."""


class NotYourTurnError(ConflictError):
    """409 ``not_your_turn``: another seat is to move. Nothing was stored;
    wait for your turn (:meth:`Seat.wait_for_turn`)."""


class MatchClosedError(ConflictError):
    """409 ``match_closed``: the match is over (finished or abandoned) and
    takes no more moves."""


# The 409s with a class of their own, by code.
_CONFLICTS: dict[str, type[ConflictError]] = {
    "stale_ply": StalePlyError,
    "not_your_turn": NotYourTurnError,
    "match_closed": MatchClosedError,
}

# Tries of one request that the server refuses for now (429, 503) or does
# not answer, and the longest `Retry-After` obeyed, in seconds.
_TRIES = 8
_LONGEST_WAIT = 30.0

# `max_plies` left out of a new match: the server chooses.
_DEFAULT: Literal["default"] = "default"

# The POST routes that compute an answer from the request alone and change
# nothing on the server: sending one twice is as harmless as a GET. (Not
# those that create or play something: matches, their moves, resignations,
# tournaments, solitaire jobs.)
_STATELESS_POSTS = frozenset(
    {
        "/v1/analysis",
        "/v1/apply",
        "/v1/bots/move",
        "/v1/legal-moves",
        "/v1/outcome",
        "/v1/positions",
        "/v1/positions/validate",
        "/v1/render",
        "/v1/replay",
        "/v1/solitaire/solve",
        "/v1/tablebase/mainline",
        "/v1/tablebase/probe",
    }
)

# What a connection that dropped before its answer raises: the server (or
# something between) closed it or reset it (ConnectionError, and
# http.client's RemoteDisconnected, which is one), or cut the answer short.
_DROPPED = (OSError, http.client.HTTPException)


def _idempotent(method: str, path: str) -> bool:
    """Whether sending the request twice does no more than sending it once."""
    return method in ("GET", "HEAD") or (
        method == "POST" and path.split("?", 1)[0] in _STATELESS_POSTS
    )


class Client:
    """The HTTP API at ``url`` (e.g. ``http://127.0.0.1:8080``).

    ``timeout`` (seconds) bounds each request's wait for an answer, and
    the wait for a connection; a long-poll waits that much longer than it
    asks the server to hold it.

    Each thread that uses the client keeps one HTTP/1.1 connection to the
    server open and sends all its requests over it, so a search that asks
    the server at every node (a :class:`RemotePosition`) pays for the TCP
    handshake once, not at every call. Threads never share a connection
    (the client may be used from several at once). A connection the server
    has closed (idle too long, or restarted) is noticed before a request
    and opened again.

    When a connection drops after a request was sent and before its
    answer, the request is sent once more on a new connection if it is
    idempotent: a GET, or one of the POSTs that only compute an answer and
    change nothing on the server (``/v1/positions``,
    ``/v1/positions/validate``, ``/v1/legal-moves``, ``/v1/apply``,
    ``/v1/outcome``, ``/v1/replay``, ``/v1/render``, ``/v1/analysis``,
    ``/v1/bots/move``, ``/v1/tablebase/probe``, ``/v1/tablebase/mainline``,
    ``/v1/solitaire/solve``).
    A request that creates or plays something (a match, a move, a
    resignation, an abandon, a tournament, a solitaire job) is never sent
    again after a drop: it may have been carried out, so a
    :class:`ServerError` says so and the program decides (the stored-match
    methods read the match again, or resend only what names its ply).

    A server that cannot be reached raises :class:`ServerUnreachable` (a
    ``ConnectionError``). :meth:`close` closes the calling thread's
    connection (a ``with`` block closes it at the end); a thread's
    connection also closes when the thread ends."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the server's URL must be http://host[:port], not {url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path
        self._local = threading.local()

    def close(self) -> None:
        """Closes the calling thread's connection (the next request opens
        a new one)."""
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        # A connection belongs to a thread and a process: a copy opens its own.
        state = dict(self.__dict__)
        del state["_local"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def _connection(self, wait: float) -> http.client.HTTPConnection:
        """The calling thread's connection, connected: a new one when
        there is none, when the process forked since, or when the server
        closed the open one."""
        local = self._local
        connection: http.client.HTTPConnection | None = getattr(local, "connection", None)
        if connection is not None and (
            local.pid != os.getpid() or connection.sock is None or _closed(connection.sock)
        ):
            connection.close()
            connection = None
        if connection is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            connection = kind(self._host, self._port, timeout=wait)
            try:
                connection.connect()
            except OSError as error:
                connection.close()
                raise ServerUnreachable(
                    f"cannot reach the Sternhalma server at {self.url}: {_reason(error, wait)}"
                    " (is it running, and is this the address it printed?)",
                    url=self.url,
                ) from None
            # A connection left open when its client or thread goes away
            # (never closed by the program) is closed quietly then, not
            # reported as an unclosed socket by the garbage collector.
            if connection.sock is not None:
                weakref.finalize(connection, connection.sock.close)
            local.connection = connection
            local.pid = os.getpid()
        return connection

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
        client's socket timeout for this call (a long-poll needs more).

        A problem with a rules code becomes the local error for it (an
        illegal move's code, one of the core's ``IllegalMove`` codes, is a
        :class:`sternhalma.IllegalMoveError`; also ``NotationError``,
        ``InvalidPositionError``, ``UnknownBotError``); any other is a
        :class:`ServerError` (e.g. ``seat_count`` for a new match)."""
        return self._send(method, path, body, token=token, timeout=timeout)

    def _send(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        timeout: float | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """``request``, with extra headers; answers ``None`` for a 304."""
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", "Accept": "application/json"}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        sent.update(headers or {})
        wait = self.timeout if timeout is None else timeout
        # An idempotent request is sent once more after a drop (see the
        # class's documentation); anything else is sent once.
        tries = 2 if _idempotent(method, path) else 1
        for attempt in range(1, tries + 1):
            connection = self._connection(wait)
            try:
                assert connection.sock is not None
                connection.sock.settimeout(wait)
                connection.request(method, self._prefix + path, body=data, headers=sent)
                response = connection.getresponse()
                answer = response.read()
            except TimeoutError:
                self.close()
                raise ServerError(f"{method} {path}: no answer within {wait} s") from None
            except _DROPPED as error:
                self.close()
                if attempt < tries:
                    continue
                again = "" if tries > 1 else " (not sent again: it may have been carried out)"
                raise ServerError(
                    f"{method} {path}: the connection to {self.url} closed before the answer"
                    f" ({type(error).__name__}: {error}){again}"
                ) from None
            except BaseException:
                # Interrupted half-way (KeyboardInterrupt): the connection
                # is in the middle of an exchange, so it cannot be reused.
                self.close()
                raise
            break
        if response.will_close:
            self.close()
        if response.status == 304:
            return None
        if response.status >= 300:
            raise _problem(response.status, response.headers, answer)
        try:
            return json.loads(answer)
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

    # ---- Stored matches -------------------------------------------------------------

    def create_match(
        self,
        seats: list[str | Bot | dict[str, Any] | None],
        *,
        board: str | None = None,
        layout: str | int | None = None,
        rules: str | None = None,
        first_player: int | None = None,
        max_plies: int | None | Literal["default"] = _DEFAULT,
        admin_key: str | None = None,
    ) -> CreatedMatch:
        """Creates a stored match (``POST /v1/matches``) and answers it
        with its tokens: a :class:`CreatedMatch`, whose ``seats`` are
        ready-to-play :class:`Seat` objects for the open seats.

        ``seats`` has one entry per player of the layout, in player order:
        a name (``"ada"``: an open seat, played by whoever holds its
        token), ``None`` (an open seat named ``seat <n>``), a
        :class:`sternhalma.Bot` (the server plays it, with the bot's kind,
        seed, ``nodes`` and ``depth``; a ``millis`` budget is refused, since
        a seat's moves must replay the same from its seed), or the API's
        own form (``{"name": "randy", "bot": {"kind": "random", "seed":
        7}}``). At least one seat must be open.

        ``board``, ``layout`` and ``rules`` are as for
        :meth:`sternhalma.Position.start` (defaults: the preset's board,
        ``"2"``, ``"classic"``); for games between programs prefer
        ``rules="masters"``. ``max_plies`` is the move limit, after which
        the game is a draw: by default the rules' own, else 200 turns per
        player; ``None`` for none. ``admin_key`` is needed on a server
        started with ``--admin-key``.

        Raises the local error for a bad board, layout or rules
        (``NotationError``, ``UnknownPresetError``,
        ``InvalidPositionError``), :class:`sternhalma.UnknownBotError` for
        an unknown bot kind, :class:`WrongTokenError` for a missing or
        wrong admin key, and :class:`ServerError` with ``status`` 422 for
        the seats themselves (``code``: ``seat_count``, ``no_open_seat``,
        ``invalid_seat_name``, ``budget_not_allowed``,
        ``budget_too_large``).

        For example, ada against a built-in bot on a small board::

            created = client.create_match(
                ["ada", sternhalma.Bot("greedy", seed=7)], board="rhombus5p3", rules="masters"
            )
            created.match.id                 # 1
            created.seats[0].token           # give it to ada: it is shown only now
            created.admin_token              # keep it to abandon the match
        """
        body: dict[str, Any] = {"seats": [_seat_request(seat) for seat in seats]}
        if board is not None:
            body["board"] = board
        if layout is not None:
            body["layout"] = str(layout)
        if rules is not None:
            body["rules"] = rules
        if first_player is not None:
            body["first_player"] = first_player
        if max_plies != _DEFAULT:
            body["max_plies"] = max_plies
        answer = self._patiently("POST", "/v1/matches", body, token=admin_key)
        match = Match(answer["match"])
        return CreatedMatch(
            match,
            admin_token=answer["admin_token"],
            seats={
                entry["seat"]: Seat(self, match.id, entry["seat"], entry["token"])
                for entry in answer["seat_tokens"]
            },
        )

    def join(self, match_id: int, player: int, token: str) -> Seat:
        """The seat ``player`` (0-based) of match ``match_id``, played with
        its ``token`` (from the match's creation). Nothing is asked of the
        server yet: a wrong token is a :class:`WrongTokenError` at the first
        move or resignation, an unknown match a :class:`NotFoundError` at
        the first read. The server knows the seat by its token alone, so
        ``player`` must be the token's seat: with another number the
        :class:`Seat` waits for the wrong turns, and its moves are refused
        (:class:`NotYourTurnError`).

        For example, on ada's machine, with the id and token the teacher
        handed out::

            seat = sternhalma.Client("http://teacher:8080").join(1, 0, "3f1a9c...")
            final = seat.play(sternhalma.Bot("greedy", seed=1))
        """
        return Seat(self, int(match_id), int(player), token)

    def match(self, match_id: int) -> Match:
        """The match as it is now (``GET /v1/matches/{id}``): a
        :class:`Match`. Raises :class:`NotFoundError` for an unknown id."""
        return Match(self._patiently("GET", f"/v1/matches/{int(match_id)}"))

    def wait(self, match: Match, *, timeout: float | None = None) -> Match:
        """The match's next state: waits until match ``match.id`` differs
        from the state ``match`` (a move, a resignation, its end) and
        answers the new state. A match that is over does not change: it is
        answered at once.

        The wait is the server's long-poll (``?wait_ply=`` with the state's
        ``ETag``), so no change is missed, even one made just before the
        call. ``timeout`` (seconds) limits the wait; past it, raises
        ``TimeoutError``. ``None`` waits as long as it takes.

        For example, watching a match move by move::

            match = client.match(1)
            while not match.is_over:
                match = client.wait(match)
                print(match.ply, match.position)
        """
        if match.is_over:
            return match
        deadline = None if timeout is None else time.monotonic() + timeout
        tag = f'"{match.id}-{match.version}"'
        while True:
            left = 25.0 if deadline is None else max(0.0, deadline - time.monotonic())
            wait_ms = int(min(left, 25.0) * 1000)
            answer = self._patiently(
                "GET",
                f"/v1/matches/{match.id}?wait_ply={match.ply}&timeout_ms={wait_ms}",
                headers={"If-None-Match": tag},
                # The socket waits longer than the server holds the long-poll.
                timeout=wait_ms / 1000 + self.timeout,
            )
            # 304: unchanged at the server's timeout. (A 200 of the same
            # version, from a proxy that drops `If-None-Match`, is too.)
            if answer is not None and answer["version"] != match.version:
                return Match(answer)
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(
                    f"match {match.id} did not change within {timeout} s (still at ply {match.ply})"
                )

    def history(self, match_id: int) -> list[PlayedMove]:
        """Every move of the match, in order (``GET
        /v1/matches/{id}/moves``): :class:`PlayedMove` objects with the ply,
        the player, the ``Move`` (with its kind and stored path) and the
        time it was stored."""
        answer = self._patiently("GET", f"/v1/matches/{int(match_id)}/moves")
        return [PlayedMove._from_record(record) for record in answer["moves"]]

    def export(self, match_id: int) -> dict[str, Any]:
        """The match as a game record (``GET /v1/matches/{id}/export``):
        ``{"start": <position string>, "moves": [<move text>, ...]}`` (and
        ``resigned``, the resignations of a game of three or more). It is
        the body ``POST /v1/replay`` takes as it is; locally, the moves
        replay from the start with ``push``::

            record = client.export(1)
            position = sternhalma.Position(record["start"])
            for text in record["moves"]:
                position.push(text)
        """
        return dict(self._patiently("GET", f"/v1/matches/{int(match_id)}/export"))

    def abandon(self, match_id: int, admin_token: str) -> Match:
        """Stops the match with no result (``POST
        /v1/matches/{id}/abandon``), with the admin token from its creation;
        answers the final state. Raises :class:`WrongTokenError` for any
        other token and :class:`MatchClosedError` if the match is already
        over."""
        return Match(
            self._patiently("POST", f"/v1/matches/{int(match_id)}/abandon", token=admin_token)
        )

    # ---- Tournaments ----------------------------------------------------------------

    def play_tournament(
        self,
        tournament_id: int,
        token: str,
        bot: Callable[[Position], Move | str] | Any,
        *,
        poll_timeout_ms: int = 25000,
        on_move: Callable[[dict[str, Any], str], object] | None = None,
    ) -> Standings:
        """Plays every game of one tournament entrant, then answers the
        tournament's standings (``GET /v1/tournaments/{id}/standings``) as
        :class:`Standings`.

        ``token`` is the entrant's token from the tournament's creation.
        ``bot`` chooses the moves: an object with a ``step(position)``
        method (a :class:`sternhalma.Bot`), or any function that takes a
        local :class:`sternhalma.Position` and answers a ``Move`` or a
        move's text (``"95-75-57"``, ``"pass"``).

        The loop waits for the entrant's turns with the long-poll
        (``GET /v1/tournaments/{id}/turns``, at most ``poll_timeout_ms``
        per call, 0 to 30000), asks the bot for each turn and posts the
        move (``POST /v1/matches/{match_id}/moves``, naming the turn's ply).
        A :class:`ConflictError` (``stale_ply``, ``not_your_turn``,
        ``match_closed``: the game moved on, e.g. the server played a
        timed-out move) is ignored and the loop polls again. It ends when
        the server says the entrant has no game left (``done``). It can
        start before the tournament does: it waits. ``on_move(turn,
        text)``, when given, is called after each move the server accepted,
        with the turn (its JSON) and the move's text. A 429 or 503 with
        ``Retry-After`` (the server's per-client limits, a busy server) is
        waited out and the call tried again.

        The standings are read when the entrant's last game is over: other
        entrants' games may still be under way (the tournament's ``status``
        is then still ``running``); read ``/v1/tournaments/{id}/standings``
        again later for the final table.

        Raises :class:`WrongTokenError` for a wrong token,
        :class:`ServerUnreachable` for an unreachable server, and
        :class:`sternhalma.IllegalMoveError` if the bot answers an illegal
        move.

        For example, with a function as the bot (the token is the one the
        tournament's creation answered for this entrant)::

            client = sternhalma.Client("http://127.0.0.1:8080")

            def first(position):
                return position.legal_moves[0]

            standings = client.play_tournament(3, "3f1a9c...", first)
            for row in standings.rows:
                print(row.rank, row.name, row.points)
        """
        choose = _chooser(bot)
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
                text = _move_text(choose(position))
                try:
                    self._patiently(
                        "POST",
                        f"/v1/matches/{turn['match_id']}/moves",
                        {"ply": turn["ply"], "move": text},
                        token=token,
                    )
                except ConflictError:
                    continue  # the game moved on: poll again
                if on_move is not None:
                    on_move(turn, text)
            if answer["done"]:
                break
        return Standings.from_json(self._patiently("GET", f"{base}/standings"))

    def _patiently(self, method: str, path: str, body: Any = None, **options: Any) -> Any:
        """``_send``, waiting and trying again when the server answers
        429 (a per-client limit: ``rate_limited``, ``too_many_waits``,
        ``too_many_heavy_requests``) or 503 (``busy``, ``unavailable``), as
        long as it says (``Retry-After``, at most 30 s), up to 8 tries in
        all: a refused request changed nothing. A request that got no
        answer, or a refusal without ``Retry-After``, is tried again after
        1 s only when sending it twice is safe: a GET, or a move, which
        names its ply (a second copy of a stored move is a
        :class:`StalePlyError`)."""
        resend = method == "GET" or (isinstance(body, dict) and "ply" in body)
        for attempt in range(1, _TRIES + 1):
            try:
                return self._send(method, path, body, **options)
            except ServerError as error:
                if error.status in (429, 503) and error.retry_after is not None:
                    wait = error.retry_after
                elif error.status in (429, 503, None) and resend:
                    # No `Retry-After`: a 503 `unavailable` may follow a
                    # change that was stored, so only what is safe to send
                    # twice is sent again.
                    wait = 1.0
                else:
                    raise
                if attempt == _TRIES:
                    # The same class (e.g. ServerUnreachable), saying so.
                    error.args = (f"{error}, after {_TRIES} tries, giving up",)
                    raise error from None
                time.sleep(min(max(wait, 0.0), _LONGEST_WAIT))
        raise AssertionError("unreachable")


class Match:
    """A stored match as the server described it: a snapshot, which does
    not change (ask again with :meth:`Client.match`, or wait for the next
    state with :meth:`Client.wait` or :meth:`Seat.wait_for_turn`).

    - ``id``: the match id;
    - ``status``: a :class:`MatchStatus`, ``in_progress``, ``finished`` or
      ``abandoned`` (``is_over`` is ``status != "in_progress"``);
    - ``ply``: plies played so far, the ``ply`` the next move names;
    - ``to_move``: the seat (player index) to move, ``None`` once over;
    - ``seats``: one :class:`MatchSeat` per seat (``seat``, ``name``,
      ``kind``: open or bot, and a bot seat's ``bot``);
    - ``start`` and ``position``: the start and current positions, as local
      :class:`sternhalma.Position` objects (without a move stack: the moves
      are in :meth:`Client.history`);
    - ``legal_moves``: the legal moves of the seat to move, as ``Move``
      objects (empty once over);
    - ``result``: ``None`` while in progress, then a :class:`MatchResult`:
      ``summary`` (``"player 0 won"``), ``ending`` (an :class:`Ending`:
      ``outcome``, ``resignation``, ``forfeit``, ``abandoned``,
      ``bot_limit``, ``bot_unavailable``), ``winners``, ``results`` (+1 best, -1 worst, per
      seat), ``places``, and ``forfeits`` when a seat forfeited;
    - ``version``: grows with every change.

    ``to_json()`` is the state as the API answered it (with the times
    ``created_at`` and ``updated_at``)."""

    def __init__(self, view: dict[str, Any]) -> None:
        self._view = view
        self.id: int = view["id"]
        self.status: MatchStatus = _name(MatchStatus, view["status"])
        self.ply: int = view["ply"]
        self.to_move: int | None = view.get("to_move")
        self.version: int = view["version"]
        self.seats: list[MatchSeat] = [MatchSeat.from_json(seat) for seat in view["seats"]]
        self.start = Position(view["start_position"])
        self.position = Position(view["position"]["position_string"])
        self.legal_moves: list[Move] = [_move(m) for m in view["legal_moves"]]
        result = view.get("result")
        self.result: MatchResult | None = None if result is None else MatchResult.from_json(result)

    @property
    def is_over(self) -> bool:
        """Whether the match is over: finished or abandoned."""
        return self.status != "in_progress"

    def to_json(self) -> dict[str, Any]:
        """The state as the API answered it (``MatchView``)."""
        return dict(self._view)

    def __repr__(self) -> str:
        return (
            f"<Match {self.id}: {self.status}, ply {self.ply}"
            + ("" if self.to_move is None else f", seat {self.to_move} to move")
            + ">"
        )


@dataclass(frozen=True)
class PlayedMove:
    """One move of a match's history: the ``ply`` it was played at (0 for
    the first), the ``player`` (seat) that played it, the ``move`` (a
    ``Move`` with its kind and the path as stored: the fewest hops) and
    ``played_at``, when the server stored it (UTC, RFC 3339)."""

    ply: int
    player: int
    move: Move
    played_at: str

    @staticmethod
    def _from_record(record: dict[str, Any]) -> PlayedMove:
        return PlayedMove(record["ply"], record["seat"], _move(record["move"]), record["played_at"])


class Seat:
    """One seat of a stored match, played with its token: what a bot on
    any machine holds to take part. Made by :meth:`Client.join` (with the
    match id, the seat and its token) or found in
    :attr:`CreatedMatch.seats`.

    ``client``, ``match_id``, ``player`` (the seat number: the player index,
    0-based, the ``side_to_move`` of the seat's positions) and ``token``
    say which seat it is. The seat remembers the ply of the last state it
    read, which its next :meth:`move` names by default, so that a move
    decided on an old state is refused (:class:`StalePlyError`) rather
    than played in a position nobody looked at.

    A whole game, with any bot::

        seat = client.join(1, 0, "3f1a9c...")
        final = seat.play(sternhalma.Bot("greedy", seed=1))

    or the same loop by hand::

        while True:
            match = seat.wait_for_turn()
            if match.is_over:
                break
            seat.move(match.legal_moves[0])
        print(match.result.summary)
    """

    def __init__(self, client: Client, match_id: int, player: int, token: str) -> None:
        self.client = client
        self.match_id = match_id
        self.player = player
        self.token = token
        self._ply: int | None = None

    def _saw(self, match: Match) -> Match:
        self._ply = match.ply
        return match

    def match(self) -> Match:
        """The match as it is now (anyone may read it; no token needed)."""
        return self._saw(self.client.match(self.match_id))

    def wait_for_turn(self, *, timeout: float | None = None) -> Match:
        """Waits until this seat is to move or the match is over, and
        answers the match then. Waiting is the server's long-poll; it
        answers at once when the seat is to move already.

        ``timeout`` (seconds) limits the wait; past it, raises
        ``TimeoutError``. ``None`` waits as long as it takes. In a game of
        three or more, a seat that has finished or resigned is never to
        move again: this waits for the end of the match."""
        deadline = None if timeout is None else time.monotonic() + timeout
        match = self.match()
        while not match.is_over and match.to_move != self.player:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                match = self._saw(self.client.wait(match, timeout=left))
            except TimeoutError:
                raise TimeoutError(
                    f"seat {self.player} of match {self.match_id} was not to move "
                    f"within {timeout} s"
                ) from None
        return match

    def move(self, move: Move | str, *, ply: int | None = None) -> Match:
        """Plays ``move`` (a ``Move`` or its text: ``"22-19"``,
        ``"95-75-57"``, ``"pass"``) for this seat, and answers the match
        after it, built-in bots' replies included (up to the next open
        seat's turn).

        ``ply`` is the ply the move is meant for; by default the ply of the
        last state this seat read (:meth:`match`, :meth:`wait_for_turn`,
        :meth:`move`), or the match's ply now if it has read none.

        Raises :class:`sternhalma.IllegalMoveError` (``code`` says why:
        ``hole_occupied``, ``leaves_target``, ...), :class:`StalePlyError`
        if the match is past ``ply``, :class:`NotYourTurnError`,
        :class:`MatchClosedError`, :class:`WrongTokenError`. A refused move
        changes nothing."""
        if ply is None:
            ply = self._ply if self._ply is not None else self.match().ply
        answer = self.client._patiently(
            "POST",
            f"/v1/matches/{self.match_id}/moves",
            {"ply": ply, "move": _move_text(move)},
            token=self.token,
        )
        return self._saw(Match(answer["match"]))

    def resign(self) -> Match:
        """This seat resigns; answers the match after it. With two seats it
        loses and the match is over; with three or more it leaves the game
        (its pegs stay, its turns are skipped, it ranks last) and the
        others play on. Raises :class:`MatchClosedError` if the match is
        over, :class:`ConflictError` (``already_resigned``,
        ``cannot_resign`` for a seat that has finished),
        :class:`WrongTokenError`."""
        answer = self.client._patiently(
            "POST", f"/v1/matches/{self.match_id}/resign", token=self.token
        )
        return self._saw(Match(answer))

    def history(self) -> list[PlayedMove]:
        """Every move of the match so far (:meth:`Client.history`)."""
        return self.client.history(self.match_id)

    def export(self) -> dict[str, Any]:
        """The match as a game record (:meth:`Client.export`)."""
        return self.client.export(self.match_id)

    def play(
        self,
        bot: Callable[[Position], Move | str] | Any,
        *,
        on_move: Callable[[Match, str], object] | None = None,
    ) -> Match:
        """Plays this seat to the end of the match and answers the final
        state.

        ``bot`` chooses the moves: an object with a ``step(position)``
        method (a :class:`sternhalma.Bot`), or any function that takes a
        local :class:`sternhalma.Position` and answers a ``Move`` or a
        move's text. The loop waits for the seat's turn
        (:meth:`wait_for_turn`), asks the bot and plays the move, naming
        the ply the bot saw. A :class:`ConflictError` (the match moved on
        meanwhile: another seat resigned, the match was abandoned) is not an
        error: the loop reads the match again. ``on_move(match, text)``,
        when given, is called after each move the server accepted, with the
        state the bot saw and the move's text.

        Raises :class:`sternhalma.IllegalMoveError` if the bot answers an
        illegal move, :class:`WrongTokenError` for a wrong token.

        For example::

            final = seat.play(
                lambda position: position.legal_moves[0],
                on_move=lambda match, text: print(match.ply, text),
            )
            print(final.result.summary)
        """
        choose = _chooser(bot)
        while True:
            match = self.wait_for_turn()
            if match.is_over:
                return match
            text = _move_text(choose(match.position))
            try:
                self.move(text, ply=match.ply)
            except ConflictError:
                continue  # the match moved on: read it again
            if on_move is not None:
                on_move(match, text)

    def __repr__(self) -> str:
        # Never the token: reprs end up in logs and notebooks.
        return f"<Seat {self.player} of match {self.match_id} at {self.client.url}>"


class CreatedMatch:
    """A match just created (:meth:`Client.create_match`): its state and,
    this once, its tokens.

    - ``match``: the :class:`Match`;
    - ``seats``: a :class:`Seat` for each open seat, by seat number
      (``created.seats[0]``; a bot's seat has none), each with its
      ``token`` to hand to whoever plays it;
    - ``admin_token``: the creator's token, for :meth:`Client.abandon`.

    The server keeps only the tokens' hashes: they cannot be read again."""

    def __init__(self, match: Match, *, admin_token: str, seats: dict[int, Seat]) -> None:
        self.match = match
        self.admin_token = admin_token
        self.seats = seats

    def __repr__(self) -> str:
        return f"<CreatedMatch {self.match.id}: open seats {sorted(self.seats)}>"


def _chooser(bot: Any) -> Callable[[Position], Move | str]:
    """The function behind a bot: its ``step`` method, or the bot itself."""
    step = getattr(bot, "step", None)
    choose: Callable[[Position], Move | str] = step if callable(step) else bot
    if not callable(choose):
        raise TypeError("bot must be a function position -> move, or have a step(position) method")
    return choose


def _move_text(move: Move | str) -> str:
    """A move as the API takes it: text as it is, a ``Move`` by its full
    path (so a chain of hops is played as chosen)."""
    if isinstance(move, str):
        return move
    return "-".join(str(hole) for hole in move.path) or "pass"


def _seat_request(seat: str | Bot | dict[str, Any] | None) -> dict[str, Any]:
    """One seat of a new match in the API's form."""
    if seat is None:
        return {}
    if isinstance(seat, str):
        return {"name": seat}
    if isinstance(seat, Bot):
        spec: dict[str, Any] = {"kind": seat.kind, "seed": seat.seed}
        for budget in ("nodes", "depth", "millis"):
            if getattr(seat, budget) is not None:
                spec[budget] = getattr(seat, budget)
        return {"bot": spec}
    if isinstance(seat, dict):
        return seat
    raise TypeError(
        f"a seat is a name, None, a sternhalma.Bot or a dict, not {type(seat).__name__}"
    )


def _closed(sock: Any) -> bool:
    """Whether the server closed an idle connection: between an answer and
    the next request nothing may arrive, so a socket ready to read has met
    its end (or stray bytes, which spoil it as well)."""
    try:
        if hasattr(select, "poll"):  # any descriptor number (select stops at 1024)
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _reason(error: OSError, wait: float) -> str:
    """Why a connection failed, in words."""
    if isinstance(error, TimeoutError):
        return f"no connection within {wait} s"
    return error.strerror or str(error) or type(error).__name__


def _retry_after(headers: http.client.HTTPMessage) -> float | None:
    try:
        return float(headers.get("Retry-After", ""))
    except (TypeError, ValueError):
        return None


def _problem(status: int, headers: http.client.HTTPMessage, body: bytes) -> SternhalmaError:
    """The exception for an answer with an error status (problem details)."""
    retry_after = _retry_after(headers)
    try:
        problem = json.loads(body)
    except ValueError:
        return ServerError(
            f"HTTP {status} without problem details",
            status=status,
            retry_after=retry_after,
        )
    code = problem.get("code", "")
    detail = problem.get("detail", "")
    # The core maps the rules' codes to the local exception classes, as it
    # does for local errors: no rules code is matched here.
    problems = [(p["code"], p["message"]) for p in problem.get("problems", [])]
    local = _problem_error(status, code, detail, problems)
    if local is not None:
        return local
    if code == "unknown_bot":
        return UnknownBotError(detail)
    # The server's own refusals (tokens, the match's state) have classes
    # here: they exist only over HTTP.
    cls: type[ServerError] = ServerError
    if status == 404:
        cls = NotFoundError
    elif status in (401, 403):
        cls = WrongTokenError
    elif status == 409:
        cls = _CONFLICTS.get(code, ConflictError)
    return cls(f"HTTP {status} {code}: {detail}", status=status, code=code, retry_after=retry_after)


def _move(view: dict[str, Any]) -> Move:
    if view["kind"] == "pass":
        return Move.pass_()
    return Move._reported("-".join(str(h) for h in view["path"]), view["kind"])


class RemoteLegalMoves(list[Move]):
    """The legal moves of a :class:`RemotePosition`: a list of ``Move``s in
    which ``in`` also takes a move text, as in ``Position.legal_moves``. A
    text by its ends (``"115-104"``) or ``"pass"`` is looked up in the list;
    a longer hop chain (``"95-75-57"``) is checked by the server."""

    def __init__(self, position: RemotePosition, moves: list[Move]) -> None:
        super().__init__(moves)
        self._position = position

    def __contains__(self, value: object) -> bool:
        if isinstance(value, str):
            try:
                move = Move.parse(value)
            except NotationError:
                return False
        elif isinstance(value, Move):
            move = value
        else:
            return False
        listed = next((m for m in self if m == move), None)
        if listed is None:
            return False
        if len(move.path) <= 2 or move.path == listed.path:
            return True
        return self._position.is_legal(move)


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
    def legal_moves(self) -> RemoteLegalMoves:
        """Every legal move (asked of the server): a list in which, as in
        ``Position.legal_moves``, ``in`` also takes move texts."""
        return RemoteLegalMoves(self, [_move(m) for m in self._legal()["moves"]])

    def is_legal(self, move: Move | str) -> bool:
        """Whether a move (a ``Move`` or a move text) is legal here: the
        server is asked to play it (nothing is stored)."""
        try:
            self.client.request(
                "POST", "/v1/apply", {"position": self._text, "move": _move_text(move)}
            )
        except (IllegalMoveError, NotationError):
            return False
        return True

    def unicode(
        self, *, colours: bool = False, bottom: str | None = None, legend: bool = True
    ) -> str:
        """The text picture of ``Position.unicode`` (drawn here: a picture is
        no rule)."""
        return Position(self._text).unicode(colours=colours, bottom=bottom, legend=legend)

    def ascii(self, *, bottom: str | None = None, legend: bool = True) -> str:
        """The text picture of ``Position.ascii``."""
        return Position(self._text).ascii(bottom=bottom, legend=legend)

    @property
    def side_to_move(self) -> int:
        return int(self._legal()["side_to_move"])

    def push(self, move: Move | str) -> None:
        """Plays a move; the server checks it."""
        text = _move_text(move)
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

    def outcome(self) -> Outcome:
        """The outcome as the server reports it: the local
        :class:`sternhalma.Outcome`, read from the server's JSON by
        ``Outcome.from_json``."""
        return Outcome.from_json(self._legal()["outcome"])

    def is_game_over(self) -> bool:
        return bool(self._legal()["outcome"]["status"] != "in_progress")

    def to_json(self) -> dict[str, Any]:
        """The JSON form, as the local ``Position.to_json``."""
        view = self.client.request("POST", "/v1/positions/validate", {"position": self._text})
        return dict(view["position"])

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"RemotePosition({self.client.url!r}, {self._text!r})"
