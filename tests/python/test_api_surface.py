"""The package's surface: what it exports, and that these tests name every
public method and property (so a new one cannot go untested unnoticed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sternhalma
import sternhalma._core as core
from sternhalma import client

HERE = Path(__file__).resolve().parent
CLASSES = [
    core.Board,
    core.Rules,
    core.Move,
    core.LegalMoves,
    core.Outcome,
    core.Position,
    core.Bot,
    core.SearchResult,
    core.Solution,
    core.SolveProgress,
    core.Tablebase,
    core.Probe,
    core.MoveProbe,
    core.Analysis,
    core.PlyAnalysis,
    core.SeatAnalysis,
    client.Client,
    client.RemotePosition,
    client.Match,
    client.Seat,
    client.CreatedMatch,
    client.PlayedMove,
]


def test_exports() -> None:
    assert sorted(sternhalma.__all__) == sorted(set(sternhalma.__all__))
    for name in sternhalma.__all__:
        assert hasattr(sternhalma, name), name
    for cls in CLASSES:
        assert getattr(sternhalma, cls.__name__) is cls
    assert re.fullmatch(r"\d+\.\d+\.\d+", sternhalma.__version__)
    assert core.__doc__


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_classes_live_where_they_say(cls: type) -> None:
    assert cls.__module__ in ("sternhalma._core", "sternhalma.client")
    assert cls.__doc__


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_public_member_is_named_by_a_test(cls: type) -> None:
    sources = "\n".join(
        path.read_text() for path in HERE.glob("test_*.py") if path.name != Path(__file__).name
    )
    members = [name for name in dir(cls) if not name.startswith("_") or name == "_repr_svg_"]
    missing = [name for name in members if not re.search(rf"\b{re.escape(name)}\b", sources)]
    assert not missing, f"{cls.__name__}: no test names {missing}"
