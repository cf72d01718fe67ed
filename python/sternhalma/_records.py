"""What the HTTP API answers about matches and tournaments, as typed values.

Each class is a frozen dataclass with the fields of one schema of the API's
OpenAPI document (``MatchResult``, ``Standings``, ...), read from the JSON by
``from_json``. A field the server adds later is kept, unread, in
``to_json()``; a name the server adds later to a closed set (a new
``Ending``, say) arrives as its plain text.

Old code indexed these answers as dicts (``result["summary"]``); that still
works, and is deprecated: write ``result.summary``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar, Self, TypeVar

from sternhalma._core import BotKind, DrawReason

__all__ = [
    "BotSpec",
    "CrossCell",
    "CrossRow",
    "Ending",
    "Forfeit",
    "ForfeitReason",
    "MatchResult",
    "MatchSeat",
    "MatchStatus",
    "Place",
    "Points",
    "SeatKind",
    "StandingRow",
    "Standings",
]


class MatchStatus(StrEnum):
    """Where a stored match is: ``Match.status``. IN_PROGRESS, FINISHED or
    ABANDONED (stopped with no result). A member equals its text.

    >>> MatchStatus.FINISHED == "finished"
    True
    """

    IN_PROGRESS = "in_progress"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class SeatKind(StrEnum):
    """Who plays a seat: OPEN (whoever holds its token) or BOT (the server,
    with a built-in bot)."""

    OPEN = "open"
    BOT = "bot"


class Ending(StrEnum):
    """How a match ended: ``MatchResult.ending``. OUTCOME (the rules ended
    the game), RESIGNATION, FORFEIT (a seat ran out of time too often, or
    left a tournament), ABANDONED (stopped by its creator), BOT_LIMIT (the
    built-in bots did not finish within the server's limit of plies) or
    BOT_UNAVAILABLE (a built-in bot could not move: a ``perfect`` seat on a
    server without its table)."""

    OUTCOME = "outcome"
    RESIGNATION = "resignation"
    FORFEIT = "forfeit"
    ABANDONED = "abandoned"
    BOT_LIMIT = "bot_limit"
    BOT_UNAVAILABLE = "bot_unavailable"


class ForfeitReason(StrEnum):
    """Why a seat forfeited: TIMEOUTS (too many moves too late), WITHDRAWN
    (its entrant was withdrawn from the tournament) or ABSENT (never came
    to play)."""

    TIMEOUTS = "timeouts"
    WITHDRAWN = "withdrawn"
    ABSENT = "absent"


E = TypeVar("E", bound=StrEnum)
Reader = Callable[[Any], Any]


def _name(cls: type[E], value: Any) -> E:
    """The member named ``value``; a name this client does not know yet (a
    newer server's) stays its text, which compares as the member would."""
    try:
        return cls(value)
    except ValueError:
        return value  # type: ignore[no-any-return]


def _optional(read: Reader) -> Reader:
    return lambda value: None if value is None else read(value)


def _each(read: Reader) -> Reader:
    return lambda values: [read(value) for value in values]


@dataclass(frozen=True)
class _Record:
    """The common part: ``from_json``, ``to_json`` and dict-style reading."""

    # The JSON as answered, unknown fields included.
    _json: dict[str, Any] = field(default_factory=dict, repr=False, compare=False, kw_only=True)

    # How each field that is not a plain JSON value is read, by name.
    _READ: ClassVar[Mapping[str, Reader]] = {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Reads the API's JSON object; fields it does not know are kept in
        ``to_json()`` and otherwise ignored, optional fields it lacks take
        their defaults, and a required one missing is a ``ValueError``
        naming it."""
        values: dict[str, Any] = {}
        missing = []
        for item in fields(cls):
            if item.name == "_json":
                continue
            if item.name not in data:
                if item.default is MISSING and item.default_factory is MISSING:
                    missing.append(item.name)
                continue
            read = cls._READ.get(item.name)
            values[item.name] = data[item.name] if read is None else read(data[item.name])
        if missing:
            raise ValueError(
                f"the server's {cls.__name__} lacks the field {', '.join(missing)}:"
                " is the client older than the server?"
            )
        return cls(**values, _json=dict(data))

    def to_json(self) -> dict[str, Any]:
        """The JSON object as the server answered it."""
        return dict(self._json)

    def __getitem__(self, key: str) -> Any:
        """Deprecated: ``record["name"]`` is ``record.name``, as when the
        client answered dicts (a field unknown to this class is read from
        the JSON)."""
        if key != "_json" and key in {item.name for item in fields(self)}:
            return getattr(self, key)
        return self._json[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated: as ``dict.get``, for code written for dicts."""
        try:
            return self[key]
        except KeyError:
            return default


@dataclass(frozen=True)
class BotSpec(_Record):
    """A built-in bot as the server plays it: ``kind`` and its budget
    (``nodes``, ``depth``, ``millis``); ``seed`` is shown only once the
    match is over."""

    kind: BotKind
    seed: int | None = None
    nodes: int | None = None
    depth: int | None = None
    millis: int | None = None

    _READ: ClassVar[Mapping[str, Reader]] = {"kind": lambda value: _name(BotKind, value)}


@dataclass(frozen=True)
class MatchSeat(_Record):
    """A seat of a match, as ``Match.seats`` lists them: the ``seat``
    number (the player index), its ``name``, its ``kind`` (open or bot)
    and, for a bot seat, its ``bot``.

    >>> MatchSeat.from_json({"seat": 0, "name": "ada", "kind": "open"})
    MatchSeat(seat=0, name='ada', kind=<SeatKind.OPEN: 'open'>, bot=None)
    """

    seat: int
    name: str
    kind: SeatKind
    bot: BotSpec | None = None

    _READ: ClassVar[Mapping[str, Reader]] = {
        "kind": lambda value: _name(SeatKind, value),
        "bot": _optional(BotSpec.from_json),
    }


@dataclass(frozen=True)
class Forfeit(_Record):
    """A seat that forfeited: when (``ply``), why (``reason``) and, for
    ``timeouts``, how many it had."""

    seat: int
    ply: int
    reason: ForfeitReason
    timeouts: int | None = None

    _READ: ClassVar[Mapping[str, Reader]] = {"reason": lambda value: _name(ForfeitReason, value)}


@dataclass(frozen=True)
class Place(_Record):
    """A seat by place: ``place`` (1 for the best; equal results share a
    place), the ``seat``, its ``name`` and its ``result``."""

    place: int
    seat: int
    name: str
    result: float


@dataclass(frozen=True)
class MatchResult(_Record):
    """The result of a match that is over (``Match.result``).

    - ``ending``: how it ended (an :class:`Ending`);
    - ``winners``: the seats in first place (empty for a draw or an
      abandoned match);
    - ``results``: each seat's result, +1 best, -1 worst (as
      ``Outcome.results``);
    - ``summary``: the result in words (``"player 0 won"``);
    - ``places``: every seat by place, best first (:class:`Place`);
    - ``reason``: for a draw, a ``DrawReason``;
    - ``resigned_seat``, ``forfeited_seat``: the seat, for those endings;
    - ``forfeits``: every seat that forfeited (:class:`Forfeit`);
    - ``by_progress``: for a draw by the move limit, the seats ranked by
      progress, best first.

    >>> result = MatchResult.from_json(
    ...     {"ending": "resignation", "winners": [1], "results": [-1.0, 1.0],
    ...      "summary": "player 0 resigned", "places": [], "resigned_seat": 0})
    >>> result.ending, result.winners, result.resigned_seat
    (<Ending.RESIGNATION: 'resignation'>, [1], 0)
    """

    ending: Ending
    winners: list[int]
    results: list[float]
    summary: str
    places: list[Place]
    reason: DrawReason | None = None
    resigned_seat: int | None = None
    forfeited_seat: int | None = None
    forfeits: list[Forfeit] = field(default_factory=list)
    by_progress: list[list[int]] | None = None

    _READ: ClassVar[Mapping[str, Reader]] = {
        "ending": lambda value: _name(Ending, value),
        "places": _each(Place.from_json),
        "reason": _optional(lambda value: _name(DrawReason, value)),
        "forfeits": _each(Forfeit.from_json),
    }


@dataclass(frozen=True)
class Points(_Record):
    """The points a tournament gives for each opponent with a lower
    (``win``), equal (``draw``) or higher (``loss``) result."""

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0


@dataclass(frozen=True)
class StandingRow(_Record):
    """One entrant's line of a tournament's standings: ``rank`` (from 1),
    ``entrant`` (its index), ``name``, ``kind`` (open or bot), ``games``
    finished, ``wins``, ``draws`` and ``losses`` (counted pairwise per
    game), ``points``, ``timeouts``, ``forfeits``, ``rating`` (Weng-Lin mu,
    25 at the start) and its ``uncertainty`` (sigma); on a board a solved
    table covers, its ``judged_moves`` (its moves judged against perfect
    play), their ``mistakes`` and its ``accuracy``, the share of its judged
    moves that kept the game-theoretic value (``None`` when none was
    judged)."""

    rank: int
    entrant: int
    name: str
    kind: SeatKind
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    timeouts: int
    forfeits: int
    rating: float
    uncertainty: float
    judged_moves: int
    mistakes: int
    accuracy: float | None = None

    _READ: ClassVar[Mapping[str, Reader]] = {"kind": lambda value: _name(SeatKind, value)}


@dataclass(frozen=True)
class CrossCell(_Record):
    """One entrant's record against one ``opponent`` (an entrant index):
    the ``games`` both played in and the ``points`` it scored in them."""

    opponent: int
    games: int
    points: float


@dataclass(frozen=True)
class CrossRow(_Record):
    """One entrant's row of the cross table: its results ``against`` each
    entrant it met (:class:`CrossCell`)."""

    entrant: int
    name: str
    against: list[CrossCell]

    _READ: ClassVar[Mapping[str, Reader]] = {"against": _each(CrossCell.from_json)}


@dataclass(frozen=True)
class Standings(_Record):
    """A tournament's standings (``GET /v1/tournaments/{id}/standings``,
    and what :meth:`Client.play_tournament` answers).

    - ``rows``: one :class:`StandingRow` per entrant, ranked (points, then
      rating);
    - ``cross_table``: one :class:`CrossRow` per entrant, in entrant order;
    - ``games_counted``: the finished games counted;
    - ``points``: the :class:`Points` per opponent used;
    - ``rating_system``: ``"weng_lin"``.
    """

    rows: list[StandingRow]
    cross_table: list[CrossRow]
    games_counted: int
    points: Points
    rating_system: str

    _READ: ClassVar[Mapping[str, Reader]] = {
        "rows": _each(StandingRow.from_json),
        "cross_table": _each(CrossRow.from_json),
        "points": Points.from_json,
    }
