"""The client's typed answers read the API's JSON (matches' results and
seats, tournaments' standings): every schema field, unknown fields
tolerated, and the old dict-style reading kept."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from sternhalma import BotKind, DrawReason
from sternhalma.client import (
    BotSpec,
    CrossCell,
    CrossRow,
    Ending,
    Forfeit,
    ForfeitReason,
    MatchResult,
    MatchSeat,
    Place,
    Points,
    SeatKind,
    StandingRow,
    Standings,
)

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
SCHEMAS = json.loads(OPENAPI.read_text())["components"]["schemas"]

# Each class with the schema it reads.
RECORDS = [
    (BotSpec, "BotSpec"),
    (MatchSeat, "SeatView"),
    (Forfeit, "Forfeit"),
    (Place, "Place"),
    (MatchResult, "MatchResult"),
    (Points, "Points"),
    (StandingRow, "StandingRow"),
    (CrossCell, "CrossCell"),
    (CrossRow, "CrossRow"),
    (Standings, "Standings"),
]


def field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if f.name != "_json"}


@pytest.mark.parametrize("cls, schema", RECORDS, ids=[c.__name__ for c, _ in RECORDS])
def test_fields_are_the_schemas(cls: type, schema: str) -> None:
    """Every field of the schema, and no other; the schema's required
    fields are the ones without a default."""
    properties = set(SCHEMAS[schema]["properties"])
    assert field_names(cls) == properties
    required = {
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert required == set(SCHEMAS[schema].get("required", [])) - {"_json"}


ROW = {
    "rank": 1,
    "entrant": 0,
    "name": "ada",
    "kind": "open",
    "games": 4,
    "wins": 3,
    "draws": 0,
    "losses": 1,
    "points": 3.0,
    "timeouts": 0,
    "forfeits": 0,
    "rating": 27.5,
    "uncertainty": 7.9,
    "judged_moves": 0,
    "mistakes": 0,
}
STANDINGS = {
    "rows": [
        ROW,
        {
            **ROW,
            "rank": 2,
            "entrant": 1,
            "name": "greedy",
            "kind": "bot",
            "judged_moves": 8,
            "mistakes": 2,
            "accuracy": 0.75,
        },
    ],
    "cross_table": [
        {"entrant": 0, "name": "ada", "against": [{"opponent": 1, "games": 4, "points": 3.0}]},
        {"entrant": 1, "name": "greedy", "against": [{"opponent": 0, "games": 4, "points": 1.0}]},
    ],
    "games_counted": 4,
    "points": {"win": 1.0, "draw": 0.5, "loss": 0.0},
    "rating_system": "weng_lin",
}


def test_standings() -> None:
    standings = Standings.from_json(STANDINGS)
    ada, greedy = standings.rows
    assert (ada.rank, ada.name, ada.kind, ada.points, ada.accuracy) == (
        1,
        "ada",
        SeatKind.OPEN,
        3.0,
        None,
    )
    assert greedy.kind is SeatKind.BOT and greedy.accuracy == 0.75
    assert standings.cross_table[0] == CrossRow(0, "ada", [CrossCell(1, 4, 3.0)])
    assert standings.points == Points(1.0, 0.5, 0.0)
    assert (standings.games_counted, standings.rating_system) == (4, "weng_lin")
    assert standings.to_json() == STANDINGS
    with pytest.raises(dataclasses.FrozenInstanceError):
        ada.rank = 2  # type: ignore[misc]


def test_unknown_fields_are_kept_not_fatal() -> None:
    newer = {**STANDINGS, "rows": [{**ROW, "elo": 1500, "accuracy": None}], "season": 2}
    standings = Standings.from_json(newer)
    row = standings.rows[0]
    assert row.accuracy is None and not hasattr(row, "elo")
    assert row.to_json()["elo"] == 1500 and row["elo"] == 1500
    assert standings.to_json()["season"] == 2


def test_a_name_a_newer_server_adds_arrives_as_text() -> None:
    seat = MatchSeat.from_json({"seat": 0, "name": "ghost", "kind": "spectator"})
    assert seat.kind == "spectator" and not isinstance(seat.kind, SeatKind)


def test_a_missing_required_field_is_named() -> None:
    with pytest.raises(ValueError, match="StandingRow lacks the field rank"):
        StandingRow.from_json({k: v for k, v in ROW.items() if k != "rank"})


RESULT = {
    "ending": "forfeit",
    "winners": [1],
    "results": [-1.0, 1.0],
    "summary": "seat 0 forfeited",
    "places": [
        {"place": 1, "seat": 1, "name": "greedy", "result": 1.0},
        {"place": 2, "seat": 0, "name": "ada", "result": -1.0},
    ],
    "forfeited_seat": 0,
    "forfeits": [{"seat": 0, "ply": 17, "reason": "timeouts", "timeouts": 3}],
    "reason": None,
}


def test_match_result() -> None:
    result = MatchResult.from_json(RESULT)
    assert result.ending is Ending.FORFEIT
    assert result.places[0] == Place(1, 1, "greedy", 1.0)
    assert result.forfeits == [Forfeit(0, 17, ForfeitReason.TIMEOUTS, 3)]
    assert result.forfeited_seat == 0 and result.resigned_seat is None and result.reason is None
    assert result.by_progress is None
    drawn = MatchResult.from_json(
        {
            **RESULT,
            "ending": "outcome",
            "reason": "move_limit",
            "forfeits": [],
            "by_progress": [[1], [0]],
        }
    )
    assert drawn.reason is DrawReason.MOVE_LIMIT and drawn.by_progress == [[1], [0]]
    bare = MatchResult.from_json(
        {k: RESULT[k] for k in ("ending", "winners", "results", "summary", "places")}
    )
    assert bare.forfeits == []


def test_bot_seat() -> None:
    seat = MatchSeat.from_json(
        {"seat": 1, "name": "randy", "kind": "bot", "bot": {"kind": "random", "seed": None}}
    )
    assert seat.bot == BotSpec(BotKind.RANDOM)
    assert seat.bot is not None and seat.bot.kind is BotKind.RANDOM


def test_dict_style_reading_still_works() -> None:
    """Deprecated, for code written when the client answered dicts."""
    result = MatchResult.from_json(RESULT)
    assert result["summary"] == result.summary and result["ending"] == "forfeit"
    assert result["places"][0]["name"] == "greedy"
    assert result.get("resigned_seat") is None and result.get("nothing", 7) == 7
    with pytest.raises(KeyError):
        result["nothing"]
    standings = Standings.from_json(STANDINGS)
    assert [row["name"] for row in standings["rows"]] == ["ada", "greedy"]
    assert standings["points"]["draw"] == 0.5
