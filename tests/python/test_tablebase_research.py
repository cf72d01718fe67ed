"""A researcher's questions to a solved table from Python: the best line to
the end (Tablebase.mainline), many positions at once (probe_many), whole
arrays of table indices without a Python object per position
(probe_indices), and the index of a position and back (index, position,
entries)."""

from __future__ import annotations

import random
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from sternhalma import (
    BuiltinBarredError,
    InvalidPositionError,
    NotationError,
    Position,
    Probe,
    Tablebase,
    TablebaseError,
    grading,
)
from support import server_binary

BOARD = "rhombus7p2"
OTHER = {"win": "loss", "loss": "win", "draw": "draw"}
# Table 1 of Sturtevant (2019), 7×7 with 2 pegs: positions (either side to
# move) and illegal ones. The table keeps one entry per position with
# south to move.
POSITIONS, ILLEGAL = 2_542_512, 10_810


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Tablebase:
    folder: Path = tmp_path_factory.mktemp("tables")
    return Tablebase.load(BOARD, folder=folder, progress=False)


def start(board: str = BOARD, **overrides: object) -> Position:
    return Position.start(board=board, rules="sturtevant", **overrides)


def random_positions(count: int, seed: int, board: str = BOARD) -> list[Position]:
    """Positions reached by random games of up to 40 plies."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        position = start(board)
        for _ in range(rng.randrange(40)):
            if position.is_game_over():
                break
            position.push(rng.choice(list(position.legal_moves)))
        out.append(position)
    return out


# ---- The best line --------------------------------------------------------------


def test_the_mainline_is_as_long_as_the_depth_and_ends_the_game(table: Tablebase) -> None:
    for position in [start(), *random_positions(20, 1)]:
        probe = table.probe(position)
        line = table.mainline(position)
        assert len(line) == probe.depth
        here = position.copy()
        for ply, best in enumerate(line):
            before = table.probe(here)
            assert best.probe == before
            assert best.depth == probe.depth - ply
            assert best.move == table.moves(here)[0].move
            here.push(best.move)
        assert here.is_game_over()
        assert str(table.probe(here)) == "loss in 0"
        assert table.mainline(here) == []


def test_the_mainlines_values_alternate(table: Tablebase) -> None:
    line = table.mainline(start())
    assert [m.value for m in line[:4]] == ["win", "loss", "win", "loss"]
    assert [m.depth for m in line[-3:]] == [3, 2, 1]
    assert str(line[0]) == "48-45: win in 33"


def test_a_move_limit_is_set_aside_by_the_mainline(table: Tablebase) -> None:
    limited = start(max_plies=0)
    assert table.moves(limited) == []
    assert len(table.mainline(limited)) == 33


def test_a_draw_has_an_empty_mainline(tmp_path: Path) -> None:
    # 4×4 with 6 pegs has draws (a few seconds to solve).
    small = Tablebase.load("rhombus4p6", folder=tmp_path, progress=False)
    for position in random_positions(200, 3, "rhombus4p6"):
        if small.probe(position).value == "draw":
            assert small.mainline(position) == []
            return
    pytest.fail("random play on 4×4 with 6 pegs meets no draw")


def test_a_table_without_depths_has_no_mainline(table: Tablebase, tmp_path: Path) -> None:
    # A table of values only, as `solve-game --depth off` writes it.
    solved = subprocess.run(
        [str(server_binary()), "solve-game", "--board", "rhombus7p1", "--depth", "off"]
        + ["--quiet", "--out", str(tmp_path / "values")],
        capture_output=True,
        check=True,
    )
    assert b"wrote" in solved.stdout
    only = Tablebase.open(next((tmp_path / "values").glob("*.values")))
    try:
        assert not only.has_depths
        with pytest.raises(TablebaseError) as caught:
            only.mainline(start("rhombus7p1"))
        assert caught.value.code == "tablebase_without_depths"
        assert "--depth on" in str(caught.value)
    finally:
        # The process's tables get a table with depths back.
        Tablebase.load("rhombus7p1", folder=tmp_path / "depths", progress=False)
    with pytest.raises(TablebaseError) as caught:
        table.mainline(start("rhombus7p1"))
    assert caught.value.code == "tablebase_other_game"


# ---- Many positions at once -----------------------------------------------------


def test_probe_many_answers_as_probe_for_positions_and_strings(table: Tablebase) -> None:
    positions = random_positions(50, 2)
    asked: list[Position | str] = [p if i % 2 else str(p) for i, p in enumerate(positions)]
    probes = table.probe_many(asked)
    assert probes == [table.probe(p) for p in positions]
    assert all(isinstance(p, Probe) for p in probes)
    # Any iterable, an empty one too.
    assert table.probe_many(iter(asked[:3])) == probes[:3]
    assert table.probe_many(p for p in positions[:2]) == probes[:2]
    assert table.probe_many([]) == []


def test_a_long_list_is_answered_in_order_and_its_first_fault_raised(table: Tablebase) -> None:
    # Long enough to be shared among threads.
    positions = random_positions(300, 6) * 40
    texts = [str(p) for p in positions]
    assert table.probe_many(texts) == [table.probe(p) for p in positions]
    bad = "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -"
    texts[9000] = "not a position"
    texts[7000] = bad
    with pytest.raises(InvalidPositionError) as caught:
        table.probe_many(texts)
    assert caught.value.__notes__ == ["positions[7000]"]
    del texts[7000]
    with pytest.raises(NotationError) as caught:
        table.probe_many(texts)
    assert caught.value.__notes__ == ["positions[8999]"]


def test_probe_many_raises_what_a_single_probe_would_and_says_where(table: Tablebase) -> None:
    good = str(start())
    with pytest.raises(InvalidPositionError) as invalid:
        table.probe_many([good, "rhombus7p2 sturtevant south:47,47/north:0,1 0 0 -"])
    assert invalid.value.__notes__ == ["positions[1]"]
    with pytest.raises(NotationError) as malformed:
        table.probe_many(["not a position", good])
    assert malformed.value.__notes__ == ["positions[0]"]
    with pytest.raises(TablebaseError) as other:
        table.probe_many([good, good, Position()])
    assert other.value.code == "tablebase_other_game"
    assert other.value.__notes__ == ["positions[2]"]
    with pytest.raises(
        TypeError, match=r"positions\[1\]: a Position or a position string, not int"
    ):
        table.probe_many([good, 3])


# ---- Indices --------------------------------------------------------------------


def test_index_and_position_go_there_and_back(table: Tablebase) -> None:
    assert table.entries == POSITIONS // 2
    for position in random_positions(40, 4):
        index = table.index(position)
        assert 0 <= index < table.entries
        back = table.position(index)
        assert back.side_to_move == 0
        assert table.index(back) == index
        assert table.probe(back) == table.probe(position)
        if position.side_to_move == 0 and not position.is_game_over():
            assert back.pegs == position.pegs
    with pytest.raises(TablebaseError) as caught:
        table.position(table.entries)
    assert caught.value.code == "tablebase_not_a_position"
    with pytest.raises(ValueError, match="index"):
        table.position(-1)


def test_probe_indices_answers_every_entry_as_probe_does(table: Tablebase) -> None:
    indices = np.arange(table.entries, dtype=np.uint64)
    values, depths = table.probe_indices(indices)
    assert values.dtype == np.int8 and depths.dtype == np.int16
    assert values.shape == depths.shape == (table.entries,)
    # Table 1: the legal positions, each of the two sides to move once.
    assert int((values != 3).sum()) == (POSITIONS - ILLEGAL) // 2
    assert int((values == 0).sum()) == 0  # no draw on 7×7 with 2 pegs
    assert bool(((values == 3) == (depths == -1)).all())
    codes = {0: "draw", 1: "win", 2: "loss"}
    rng = random.Random(5)
    for index in rng.sample(range(table.entries), 3000):
        if values[index] == 3:
            with pytest.raises(TablebaseError):
                table.position(index)
            continue
        probe = table.probe(table.position(index))
        assert codes[int(values[index])] == probe.value
        assert int(depths[index]) == probe.depth
    # Wins are odd plies away, losses even.
    wins = values == 1
    assert bool((depths[wins] % 2 == 1).all())
    assert bool((depths[values == 2] % 2 == 0).all())


def test_probe_indices_takes_other_integer_arrays_and_refuses_bad_ones(table: Tablebase) -> None:
    first = table.index(start())
    want = table.probe_indices(np.array([first, 1083], dtype=np.uint64))
    for indices in (
        np.array([first, 1083], dtype=np.int64),
        [first, 1083],
        np.array([first, 0, 1083], dtype=np.uint64)[::2],  # not contiguous
    ):
        values, depths = table.probe_indices(indices)
        assert values.tolist() == want[0].tolist() == [1, 1]
        assert depths.tolist() == want[1].tolist() == [33, 1]
    empty = table.probe_indices(np.array([], dtype=np.uint64))
    assert [a.size for a in empty] == [0, 0]
    with pytest.raises(ValueError, match="never negative"):
        table.probe_indices(np.array([1, -1], dtype=np.int64))
    with pytest.raises(TypeError, match="uint64"):
        table.probe_indices(np.array([1.5]))
    with pytest.raises(TablebaseError) as caught:
        table.probe_indices(np.array([1, table.entries, 2], dtype=np.uint64))
    assert caught.value.code == "tablebase_not_a_position"
    assert str(table.entries) in str(caught.value)


def test_probe_indices_lets_other_threads_run(table: Tablebase) -> None:
    # With the GIL released, a Python thread ticks while the table is read:
    # ticks fall in the middle of the call, where a call holding the GIL
    # would let none happen.
    indices = np.tile(np.arange(table.entries, dtype=np.uint64), 20)
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        began = time.perf_counter()
        table.probe_indices(indices)
        ended = time.perf_counter()
    finally:
        stop.set()
        ticker.join()
    quarter = (ended - began) / 4
    assert [t for t in ticks if began + quarter < t < ended - quarter]


def test_the_batch_queries_are_barred_in_graded_exercises(table: Tablebase) -> None:
    position = start()
    with grading.barred():
        for query, argument in (
            (table.mainline, position),
            (table.probe_many, [position]),
            (table.probe_indices, np.array([0], dtype=np.uint64)),
            (table.index, position),
            (table.position, 1083),
        ):
            with pytest.raises(BuiltinBarredError):
                query(argument)  # type: ignore[operator]
