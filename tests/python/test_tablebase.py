"""Solved tables from Python: Tablebase (load, open, probe, moves,
best_move), Probe, MoveProbe, the perfect bot, analyse and its report, the
errors, the progress display, and the table as an evaluator for open_spiel
and PettingZoo."""

from __future__ import annotations

import json
import random
import re
import shutil
import sys
import types
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sternhalma import (
    Analysis,
    Board,
    Bot,
    BuiltinBarredError,
    IllegalMoveError,
    MoveProbe,
    NotationError,
    PlyAnalysis,
    Position,
    Probe,
    SeatAnalysis,
    SternhalmaError,
    Tablebase,
    TablebaseError,
    analyse,
    grading,
)

BOARD = "rhombus7p2"
OTHER = {"win": "loss", "loss": "win", "draw": "draw"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tables")


@pytest.fixture(scope="module")
def table(folder: Path) -> Tablebase:
    """rhombus7p2, solved into the module's own folder on first use."""
    built = Tablebase.load(BOARD, folder=folder, progress=False)
    assert built.built
    return built


def start(board: str = BOARD, **overrides: object) -> Position:
    return Position.start(board=board, rules="sturtevant", **overrides)


def random_game(seed: int, plies: int) -> Position:
    """A game of random moves from the start (fewer plies if it ends)."""
    rng = random.Random(seed)
    position = start()
    for _ in range(plies):
        if position.is_game_over():
            break
        position.push(rng.choice(list(position.legal_moves)))
    return position


# ---- Loading --------------------------------------------------------------------


def test_load_solves_a_small_game_once_then_reads_its_file(table: Tablebase, folder: Path) -> None:
    assert table.path == folder / "rhombus7p2.depths"
    assert table.path.is_file()
    written = table.path.stat().st_mtime_ns
    again = Tablebase.load("rhombus7x7", pegs=2, folder=str(folder), progress=False)
    assert not again.built
    assert again.path == table.path
    assert table.path.stat().st_mtime_ns == written
    assert (again.board, again.pegs, again.rules) == (Board(BOARD), 2, "sturtevant")
    assert again.counts == table.counts
    position = random_game(3, 10)
    assert again.probe(position) == table.probe(position)


def test_properties_and_repr(table: Tablebase) -> None:
    assert table.has_depths
    assert table.nbytes == 1_271_256  # a byte a position, one side to move
    # Table 1 of Sturtevant (2019), as the paper counts: either side to move.
    assert table.counts == {
        "positions": 2_542_512,
        "first_player_wins": 1_265_851,
        "draws": 0,
        "illegal": 10_810,
    }
    # South to move: half the positions; south's wins and, north to move,
    # the rotations of south's losses are the first player's wins.
    south = table.counts_south_to_move
    assert set(south) == {"wins", "losses", "draws", "illegal"}
    assert sum(south.values()) == 2_542_512 // 2
    assert south["wins"] + south["losses"] == 1_265_851
    assert 2 * south["illegal"] == 10_810 and south["draws"] == 0
    text = repr(table)
    assert text.startswith("<Tablebase rhombus7p2: 2 pegs a side, with depths, 1.2 MiB")
    assert str(table.path) in text


def test_the_default_folder_is_the_environments(tables_folder: Path) -> None:
    loaded = Tablebase.load("rhombus7p1", progress=False)
    assert loaded.path == tables_folder / "rhombus7p1.depths"


def test_the_tables_setting_wins_over_the_users_cache_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("STERNHALMA_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert Tablebase.cache_folder() == tmp_path / "tables"
    if sys.platform != "linux":
        return
    monkeypatch.delenv("STERNHALMA_TABLES")
    assert Tablebase.cache_folder() == tmp_path / "cache" / "sternhalma" / "tables"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Tablebase.cache_folder() == tmp_path / "home" / ".cache" / "sternhalma" / "tables"


def test_open_reads_a_file_and_installs_it(table: Tablebase) -> None:
    opened = Tablebase.open(table.path)
    assert not opened.built
    assert opened.path == table.path
    # Opening a file opens that file: not the depths beside a values name.
    values = table.path.with_suffix(".values")
    assert not values.exists()
    with pytest.raises(TablebaseError, match="rhombus7p2.values"):
        Tablebase.open(str(values))
    assert Tablebase.for_position(start()).path == table.path
    assert BOARD in [str(t.board) for t in Tablebase.installed()]


def test_a_board_or_a_rhombus_with_pegs() -> None:
    assert Tablebase.load(Board("rhombus7p1"), progress=False).pegs == 1
    assert Tablebase.load("rhombus7x7", 1, progress=False).board == Board("rhombus7p1")
    with pytest.raises(NotationError, match="pegs=1, 2, 3, 4 or 6"):
        Tablebase.load("rhombus7x7")
    with pytest.raises(NotationError, match="on a rhombus"):
        Tablebase.load("star4")
    with pytest.raises(NotationError, match="hold 1 pegs, not 2"):
        Tablebase.load("rhombus7p1", pegs=2)
    with pytest.raises(ValueError, match="pegs must be a whole number"):
        Tablebase.load("rhombus7x7", pegs=-1)


def test_a_large_game_without_its_file_says_how_to_solve_it(tmp_path: Path) -> None:
    with pytest.raises(TablebaseError) as caught:
        Tablebase.load("rhombus7p3", folder=tmp_path)
    assert caught.value.code == "no_tablebase"
    message = str(caught.value)
    assert "559,352,640 positions" in message
    assert f"sternhalma solve-game --board rhombus7p3 --out {tmp_path}" in message
    assert "build=True" in message
    assert not list(tmp_path.iterdir())


def test_build_solves_into_the_folder_then_reads_it(tmp_path: Path) -> None:
    # A small game (the large ones take minutes): build=True changes nothing
    # there but is accepted, solves once, and reads the file afterwards.
    built = Tablebase.load("rhombus7p1", folder=tmp_path, progress=False, build=True)
    assert built.built
    assert built.path == tmp_path / "rhombus7p1.depths"
    again = Tablebase.load("rhombus7p1", folder=tmp_path, progress=False, build=True)
    assert not again.built
    assert again.counts == built.counts
    with pytest.raises(TypeError):
        Tablebase.load("rhombus7p1", None, tmp_path, False, True)  # type: ignore[misc]


# ---- Damaged and missing files ---------------------------------------------------


@pytest.fixture
def copy(table: Tablebase, tmp_path: Path) -> Path:
    """A copy of the table's file, to damage."""
    return Path(shutil.copy(table.path, tmp_path / "rhombus7p2.depths"))


def test_a_truncated_file_is_refused(copy: Path) -> None:
    data = copy.read_bytes()
    copy.write_bytes(data[: len(data) // 2])
    with pytest.raises(TablebaseError, match="the body holds") as caught:
        Tablebase.open(copy)
    assert caught.value.code == "tablebase_file"
    assert str(copy) in str(caught.value)
    # load refuses it too, rather than solving the game again over it.
    with pytest.raises(TablebaseError, match="the body holds"):
        Tablebase.load(BOARD, folder=copy.parent, progress=False)
    assert len(copy.read_bytes()) == len(data) // 2


def test_a_damaged_body_is_refused(copy: Path) -> None:
    data = bytearray(copy.read_bytes())
    data[-100] ^= 0xFF
    copy.write_bytes(bytes(data))
    with pytest.raises(TablebaseError, match="checksum") as caught:
        Tablebase.open(copy)
    assert caught.value.code == "tablebase_file"


def test_a_file_an_older_engine_wrote_is_solved_again(copy: Path) -> None:
    good = copy.read_bytes()
    header = good[:4096].decode()
    match = re.search(r"^format: (\d+)$", header, re.MULTILINE)
    assert match is not None
    older = header.replace(match.group(0), f"format: {int(match.group(1)) - 1}")
    copy.write_bytes(older.encode() + good[4096:])
    with pytest.raises(TablebaseError, match="older engine") as caught:
        Tablebase.open(copy)
    assert caught.value.code == "tablebase_file"
    # load treats it as missing: a small game is solved again, same bytes.
    again = Tablebase.load(BOARD, folder=copy.parent, progress=False)
    assert again.built
    assert copy.read_bytes() == good


def test_a_file_that_is_no_table_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.depths"
    junk.write_bytes(b"not a table\n" * 4)
    with pytest.raises(TablebaseError, match="too short") as caught:
        Tablebase.open(junk)
    assert caught.value.code == "tablebase_file"


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TablebaseError, match="No such file") as caught:
        Tablebase.open(tmp_path / "rhombus7p2.values")
    assert caught.value.code == "tablebase_file"


# ---- Probing ---------------------------------------------------------------------


def test_probe_of_the_start(table: Tablebase) -> None:
    probe = table.probe(start())
    assert isinstance(probe, Probe)
    assert (probe.value, probe.depth) == ("win", 33)
    assert str(probe) == "win in 33"
    assert repr(probe) == "<Probe win in 33>"
    # The table is of the game without a move limit.
    assert table.probe(start(max_plies=100)) == probe
    assert probe == table.best_move(start()).probe
    assert hash(probe) == hash(table.best_move(start()).probe)
    assert probe != "win in 33"


def test_a_finished_game_is_a_loss_in_zero(table: Tablebase) -> None:
    position = start()
    while not position.is_game_over():
        position.push(table.best_move(position).move)
    assert str(table.probe(position)) == "loss in 0"
    assert table.moves(position) == []
    with pytest.raises(TablebaseError) as caught:
        table.best_move(position)
    assert caught.value.code == "game_over"


def test_moves_are_best_first(table: Tablebase) -> None:
    moves = table.moves(start())
    assert [str(m) for m in moves] == [
        "48-45: win in 33",
        "47-44: win in 37",
        "47-46: win in 37",
        "48-46: win in 37",
        "47-45: loss in 34",
    ]
    assert all(isinstance(m, MoveProbe) for m in moves)
    assert repr(moves[0]) == "<MoveProbe 48-45 win in 33>"
    assert {m.move for m in moves} == set(start().legal_moves)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_moves_value_agrees_with_probing_after_it(table: Tablebase, seed: int) -> None:
    position = random_game(seed, 0)
    rng = random.Random(seed)
    while not position.is_game_over():
        before = table.probe(position)
        moves = table.moves(position)
        assert moves[0].probe == before  # the best move's value is the position's
        for probe in moves:
            after = table.probe(position.play(probe.move))
            assert probe.value == OTHER[after.value]
            assert probe.depth == after.depth + 1
        ranks = [
            (
                {"win": 2, "draw": 1, "loss": 0}[m.value],
                -(m.depth or 0) if m.value == "win" else (m.depth or 0),
            )
            for m in moves
        ]
        assert ranks == sorted(ranks, reverse=True)
        position.push(rng.choice(moves).move)


def test_best_move_is_seeded_among_equals(table: Tablebase) -> None:
    position = random_game(5, 6)
    best = table.best_move(position, seed=7)
    assert best.probe == table.probe(position)
    assert table.best_move(position, seed=7).move == best.move
    equals = [m.move for m in table.moves(position) if m.probe == best.probe]
    chosen = {table.best_move(position, seed=seed).move for seed in range(40)}
    assert chosen <= set(equals)
    assert len(chosen) == len(equals)
    with pytest.raises(ValueError, match="seed"):
        table.best_move(position, seed=-1)


def test_a_position_of_another_game_is_refused(table: Tablebase) -> None:
    with pytest.raises(TablebaseError) as caught:
        table.probe(Position())
    assert caught.value.code == "tablebase_other_game"
    assert "rhombus7p2" in str(caught.value)
    assert "star4" in str(caught.value)
    with pytest.raises(TablebaseError, match="rhombus7p1") as caught:
        table.moves(start("rhombus7p1"))
    assert caught.value.code == "tablebase_other_game"
    with pytest.raises(TablebaseError, match="rules") as caught:
        table.best_move(Position.start(board=BOARD, rules="classic"))
    assert caught.value.code == "tablebase_other_game"
    assert isinstance(caught.value, SternhalmaError)
    assert isinstance(caught.value, ValueError)


def test_for_position_names_the_table_to_load() -> None:
    with pytest.raises(TablebaseError) as caught:
        Tablebase.for_position(start("rhombus5p1"))
    assert caught.value.code == "no_tablebase"
    assert 'sternhalma.Tablebase.load("rhombus5p1")' in str(caught.value)
    with pytest.raises(TablebaseError, match=r'Tablebase.load\("rhombus7p2"\)'):
        Tablebase.for_position(Position())


def test_the_queries_are_barred_in_graded_exercises(table: Tablebase) -> None:
    position = start()
    with grading.barred():
        for query in (table.probe, table.moves, table.best_move, analyse):
            with pytest.raises(BuiltinBarredError):
                query(position)
    assert table.probe(position).value == "win"


# ---- The perfect bot ------------------------------------------------------------


def play(position: Position, bots: list[Bot]) -> Position:
    while not position.is_game_over():
        position.push(bots[position.side_to_move].step(position))
    return position


def test_perfect_wins_against_random_from_the_winning_seat(table: Tablebase) -> None:
    for seed in range(4):
        game = play(start(), [Bot("perfect", seed=seed), Bot("random", seed=seed)])
        assert game.outcome().winner == 0
        # The winner hurries: never slower than against a perfect defence.
        assert game.ply <= 33
        report = analyse(game, tablebase=table)
        assert report.seats[0].mistakes == 0
        assert report.seats[0].best == report.seats[0].moves
        assert report.seats[0].accuracy == 1.0


def test_perfect_punishes_randoms_mistakes(table: Tablebase) -> None:
    for seed in range(4):
        game = play(start(), [Bot("random", seed=seed), Bot("perfect", seed=seed)])
        report = analyse(game)
        assert report.seats[1].mistakes == 0
        # Seat 0 wins with best play: perfect wins exactly when random erred.
        random_erred = report.seats[0].mistakes > 0
        assert game.outcome().winner == (1 if random_erred else 0)


def test_the_perfect_bots_search(table: Tablebase) -> None:
    result = Bot("perfect", seed=1).search(start())
    assert result.move == table.best_move(start()).move
    assert (result.score, result.depth) == (1.0, 33)
    line = start()
    for move in result.principal_variation:
        line.push(move)
    assert len(result.principal_variation) == 32


def test_perfect_is_refused_where_no_table_covers_the_position(table: Tablebase) -> None:
    with pytest.raises(TablebaseError) as caught:
        Bot("perfect").step(Position())
    assert caught.value.code == "no_tablebase"
    assert 'sternhalma.Tablebase.load("rhombus7p2")' in str(caught.value)
    with pytest.raises(TablebaseError) as caught:
        Bot("perfect").search(start("rhombus5p1"))
    assert 'sternhalma.Tablebase.load("rhombus5p1")' in str(caught.value)
    with pytest.raises(TablebaseError, match="rules") as caught:
        Bot("perfect").step(Position.start(board=BOARD, rules="classic"))
    assert caught.value.code == "tablebase_other_game"
    finished = play(start(), [Bot("perfect"), Bot("perfect")])
    with pytest.raises(IllegalMoveError) as refused:
        Bot("perfect").step(finished)
    assert refused.value.code == "game_over"


# ---- Analysis ---------------------------------------------------------------------


def test_analyse_marks_randoms_mistakes_and_none_of_perfects(table: Tablebase) -> None:
    mistakes = 0
    for seed in range(6):
        bots = [Bot("random", seed=seed), Bot("perfect", seed=seed)]
        game = play(start(), bots)
        report = analyse(game)
        assert isinstance(report, Analysis)
        assert len(report) == len(report.plies) == game.ply
        assert [ply.move for ply in report.plies] == game.move_stack
        for ply in report.plies:
            assert isinstance(ply, PlyAnalysis)
            assert ply.seat == ply.ply % 2
            assert ply.before == ply.best.probe
            if ply.seat == 1:
                assert ply.verdict == "best"
                assert ply.after == ply.before
            elif ply.after.value != ply.before.value:
                assert ply.verdict == "mistake"
            elif ply.after == ply.before:
                assert ply.verdict == "best"
            else:
                assert ply.verdict == "slower"
        assert report.mistakes() == [p for p in report.plies if p.verdict == "mistake"]
        mistakes += len(report.mistakes())
        random_seat, perfect_seat = report.seats
        assert isinstance(random_seat, SeatAnalysis)
        assert perfect_seat.mistakes == 0
        assert perfect_seat.kept == perfect_seat.best == perfect_seat.moves
        assert random_seat.moves + perfect_seat.moves == game.ply
        assert random_seat.kept + random_seat.mistakes == random_seat.moves
        assert random_seat.best <= random_seat.kept
        assert random_seat.accuracy == pytest.approx(random_seat.kept / random_seat.moves)
        assert report.end == table.probe(game)
        assert str(report.end) == "loss in 0"
    assert mistakes > 0


def test_analyse_a_line_from_a_position(table: Tablebase) -> None:
    game = random_game(8, 12)
    whole = analyse(game)
    moves = game.move_stack
    root = start()
    line = analyse(root, [str(m) for m in moves], table)
    assert [(p.move, p.verdict, p.before, p.after) for p in line.plies] == [
        (p.move, p.verdict, p.before, p.after) for p in whole.plies
    ]
    # From the middle of the game: the position as it stands.
    middle = root.copy()
    for move in moves[:5]:
        middle.push(move)
    rest = analyse(middle, moves[5:])
    assert [p.ply for p in rest.plies] == list(range(len(moves) - 5))
    assert [p.verdict for p in rest.plies] == [p.verdict for p in whole.plies[5:]]
    assert rest.end == whole.end
    empty = analyse(middle, [])
    assert (empty.plies, empty.end) == ([], table.probe(middle))
    assert empty.seats[0].accuracy is None


def test_analyse_refuses_an_illegal_line_and_other_games(table: Tablebase) -> None:
    with pytest.raises(IllegalMoveError) as caught:
        analyse(start(), ["48-45", "48-46"])
    assert "move 1 of the line" in caught.value.__notes__[0]
    with pytest.raises(TablebaseError) as refused:
        analyse(Position())
    assert refused.value.code == "no_tablebase"
    with pytest.raises(TablebaseError) as refused:
        analyse(Position.start(board=BOARD, rules="classic"), tablebase=table)
    assert refused.value.code == "tablebase_other_game"


def test_reprs_of_the_report(table: Tablebase) -> None:
    report = analyse(start(), ["47-45", "0-3"], table)
    assert repr(report) == "<Analysis 2 plies, mistakes 1/0, end loss in 32>"
    assert repr(report.plies[0]) == (
        "<PlyAnalysis 0 seat 0 47-45: win in 33 -> loss in 34, mistake (best 48-45: win in 33)>"
    )
    assert repr(report.seats[1]) == (
        "<SeatAnalysis moves=1 best=1 kept=1 mistakes=0 accuracy=1.000>"
    )


# ---- Progress while solving ------------------------------------------------------


def test_progress_is_a_line_on_stderr_without_tqdm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm fails
    Tablebase.load("rhombus7p1", folder=tmp_path)
    err = capsys.readouterr().err
    assert "solving rhombus7p1 (4,704 positions)" in err
    assert "\rsolving rhombus7p1: pass 1, tile " in err
    assert "rhombus7p1: solved in " in err
    assert err.endswith(f"written to {tmp_path / 'rhombus7p1.depths'}\n")
    Tablebase.load("rhombus7p1", folder=tmp_path)  # read: nothing to show
    assert capsys.readouterr().err == ""


def test_progress_off_shows_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert Tablebase.load("rhombus7p1", folder=tmp_path, progress=False).built
    assert capsys.readouterr().err == ""


class FakeBar:
    made: list[FakeBar] = []  # noqa: RUF012

    def __init__(self, **options: object) -> None:
        self.options = options
        self.n = 0
        self.descriptions: list[str] = []
        self.resets = 0
        self.closed = False
        FakeBar.made.append(self)

    def set_description(self, text: str, refresh: bool = True) -> None:
        self.descriptions.append(text)

    def set_postfix(self, refresh: bool = True, **values: object) -> None:
        self.postfix = values

    def update(self, n: int) -> None:
        self.n += n

    def reset(self, total: int) -> None:
        self.resets += 1
        self.n = 0

    def close(self) -> None:
        self.closed = True

    written: list[str] = []  # noqa: RUF012

    @staticmethod
    def write(text: str, file: object = None) -> None:
        FakeBar.written.append(text)


def test_progress_is_a_tqdm_bar_when_tqdm_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = types.ModuleType("tqdm")
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeBar  # type: ignore[attr-defined]
    package.auto = auto  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm", package)
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    FakeBar.made.clear()
    FakeBar.written.clear()
    Tablebase.load("rhombus7p1", folder=tmp_path)
    [bar] = FakeBar.made
    assert bar.options["unit"] == "tile"
    assert bar.closed
    assert bar.n == bar.options["total"]  # the last pass ran to its end
    assert bar.resets >= 5  # one bar, reset for each pass
    assert bar.descriptions[0] == "rhombus7p1 pass 1"
    assert bar.postfix == {"unknown": "0"}
    assert FakeBar.written[0].startswith("rhombus7p1: solved in ")


def test_a_failing_display_fails_the_load_after_the_table_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sternhalma import _progress

    class Broken(_progress.BuildDisplay):
        def update(self, pass_: int, tiles_done: int, tiles: int, unknown: int) -> None:
            raise RuntimeError("no screen")

    monkeypatch.setattr(_progress, "BuildDisplay", Broken)
    with pytest.raises(RuntimeError, match="no screen"):
        Tablebase.load("rhombus7p1", folder=tmp_path)
    assert not Tablebase.load("rhombus7p1", folder=tmp_path).built


# ---- open_spiel and PettingZoo ---------------------------------------------------


@pytest.fixture
def solved_game() -> Iterator[object]:
    pyspiel = pytest.importorskip("pyspiel")
    import sternhalma.open_spiel  # noqa: F401

    yield pyspiel.load_game("sternhalma", {"board": BOARD, "rules": "sturtevant"})


def test_the_open_spiel_evaluator_in_mcts(table: Tablebase, solved_game: object) -> None:
    from open_spiel.python.algorithms import mcts
    from sternhalma.open_spiel import TablebaseEvaluator

    game = solved_game
    evaluator = TablebaseEvaluator(table)
    assert isinstance(evaluator, mcts.Evaluator)
    state = game.new_initial_state()  # type: ignore[attr-defined]
    assert list(evaluator.evaluate(state)) == [1.0, -1.0]
    prior = evaluator.prior(state)
    assert [a for a, _ in prior] == state.legal_actions()
    assert sum(p for _, p in prior) == pytest.approx(1.0)
    rng = np.random.RandomState(2)
    bot = mcts.MCTSBot(game, 2, 50, evaluator, random_state=rng)
    for _ in range(6):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        # The first player is winning: MCTS on the table keeps it winning.
        if state.current_player() == 0:
            assert table.probe(state.position).value == "win"
    # Through the registry, and exact for finished games.
    assert list(TablebaseEvaluator().evaluate(state)) == list(evaluator.evaluate(state))
    while not state.is_terminal():
        position = state.position
        state.apply_action(position.move_to_action(table.best_move(position).move))
    assert list(evaluator.evaluate(state)) == state.returns()


def test_the_evaluators_discount_hurries_a_win(table: Tablebase, solved_game: object) -> None:
    from sternhalma.open_spiel import TablebaseEvaluator

    state = solved_game.new_initial_state()  # type: ignore[attr-defined]
    values = TablebaseEvaluator(table, discount=0.9).evaluate(state)
    assert values == pytest.approx([0.9**33, -(0.9**33)])
    with pytest.raises(ValueError, match="discount"):
        TablebaseEvaluator(table, discount=0.0)
    with pytest.raises(TablebaseError):
        other = pytest.importorskip("pyspiel").load_game("sternhalma", {"board": "star2"})
        TablebaseEvaluator(table).evaluate(other.new_initial_state())


def test_the_pettingzoo_helpers(table: Tablebase) -> None:
    pytest.importorskip("pettingzoo")
    from sternhalma.envs import sternhalma_v0

    environment = sternhalma_v0.env(board=BOARD, rules="sturtevant")
    environment.reset()
    assert sternhalma_v0.table_probe(environment) == table.probe(start())
    assert sternhalma_v0.table_values(environment, table) == {"player_0": 1.0, "player_1": -1.0}
    assert sternhalma_v0.table_values(environment, discount=0.5) == pytest.approx(
        {"player_0": 0.5**33, "player_1": -(0.5**33)}
    )
    position = environment.unwrapped.position
    environment.step(position.move_to_action("47-45"))
    assert str(sternhalma_v0.table_probe(environment, table)) == "win in 33"  # player_1's
    assert sternhalma_v0.table_values(environment) == {"player_0": -1.0, "player_1": 1.0}
    for agent in environment.agent_iter():
        _, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        position = environment.unwrapped.position
        environment.step(position.move_to_action(table.best_move(position).move))
        if environment.unwrapped.position.is_terminal():
            assert sternhalma_v0.table_values(environment) == {"player_0": -1.0, "player_1": 1.0}
    with pytest.raises(ValueError, match="discount"):
        sternhalma_v0.table_values(environment, discount=2.0)


def test_the_http_apis_refusals_of_a_table_raise_the_same_class() -> None:
    """`sternhalma.client` turns the server's problem details into the
    module's exceptions: a table's codes (422) into TablebaseError."""
    from sternhalma._core import _problem_error

    detail = "no solved table covers star4; tables opened: none"
    error = _problem_error(422, "no_tablebase", detail)
    assert isinstance(error, TablebaseError)
    assert (error.code, str(error)) == ("no_tablebase", detail)
    other = _problem_error(422, "tablebase_other_game", "the table is of rhombus7p2")
    assert isinstance(other, TablebaseError)
    # game_over stays the illegal move's, as for the bots.
    assert isinstance(_problem_error(422, "game_over", "the game is over"), IllegalMoveError)
    assert _problem_error(404, "no_tablebase", detail) is None


# ---- Tables downloaded from a class server -------------------------------------


@pytest.fixture(scope="module")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server with the small tables installed (solved into its folder at
    start), as a teacher runs one: its address and its tables' folder."""
    from support import running_server

    root = tmp_path_factory.mktemp("class-server")
    tables = root / "tables"
    options = ("--log-level", "warn", "--tablebases", str(tables), "--build-tablebases")
    with running_server(root / "db.sqlite3", *options) as server:
        yield server.url, tables


def test_a_packed_table_opens_and_probes_as_its_values(table: Tablebase, tmp_path: Path) -> None:
    """`sternhalma tablebase pack` of the depths file: the packed table
    answers every probe with the same value (no depth: it keeps none),
    and a folder holding it alone loads it."""
    import subprocess

    from support import server_binary

    shutil.copy(table.path, tmp_path / table.path.name)
    done = subprocess.run(
        [str(server_binary()), "tablebase", "pack", str(tmp_path / table.path.name)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    path = tmp_path / "rhombus7p2.packed"
    packed = Tablebase.open(path)
    assert packed.path == path and not packed.has_depths
    assert packed.counts == table.counts
    positions = [random_game(seed, seed % 25) for seed in range(150)]
    for position, probe in zip(positions, packed.probe_many(positions), strict=True):
        assert probe.value == table.probe(position).value
        assert probe.depth is None
        # Every move with its value (the order among equals differs: the
        # depths rank them, the values cannot).
        by_move = {str(m.move): m.value for m in packed.moves(position)}
        assert by_move == {str(m.move): m.value for m in table.moves(position)}
    # Every entry at once: the values of the depths, and no depth.
    every = np.arange(table.entries, dtype=np.uint64)
    values, depths = packed.probe_indices(every)
    assert (values == table.probe_indices(every)[0]).all()
    assert (depths == -1).all()
    (tmp_path / table.path.name).unlink()
    loaded = Tablebase.load(BOARD, folder=tmp_path, progress=False)
    assert loaded.path == path and not loaded.built


def test_download_fetches_checks_and_installs_a_servers_table(
    class_server: tuple[str, Path], tmp_path: Path, table: Tablebase
) -> None:
    import hashlib

    url, served = class_server
    listing = json.load(urllib.request.urlopen(f"{url}/downloads/tables/"))
    names = sorted(f["name"] for f in listing["files"])
    assert names == sorted(p.name for p in served.iterdir() if p.suffix == ".depths")
    for file in listing["files"]:
        data = (served / file["name"]).read_bytes()
        assert (file["size"], file["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    folder = tmp_path / "laptop"
    got = Tablebase.download(url, "rhombus7x7", pegs=2, folder=folder, progress=False)
    assert got.path == folder / (str(Board(BOARD)) + ".depths")
    assert got.path.read_bytes() == (served / got.path.name).read_bytes()
    assert got.has_depths and got.counts == table.counts
    for seed in range(20):
        position = random_game(seed, 12)
        assert got.probe(position) == table.probe(position)
    assert Tablebase.for_position(start()).path == got.path
    # Fetched once: a second download keeps the file, and load reads it.
    written = got.path.stat().st_mtime_ns
    again = Tablebase.download(url, BOARD, folder=folder, progress=False)
    assert again.path.stat().st_mtime_ns == written
    loaded = Tablebase.load(BOARD, folder=str(folder), progress=False)
    assert loaded.path == got.path and not loaded.built
    # Every table offered, as a list.
    every = Tablebase.download(url, folder=tmp_path / "all", progress=False)
    assert sorted(t.path.name for t in every) == names
    assert not list((tmp_path / "all").glob("*.partial"))


def test_a_download_that_does_not_match_its_listing_installs_nothing(
    class_server: tuple[str, Path], tmp_path: Path
) -> None:
    import http.server
    import threading

    url, _ = class_server
    listing = json.load(urllib.request.urlopen(f"{url}/downloads/tables/"))

    class Lying(http.server.BaseHTTPRequestHandler):
        """The real server's listing with one digest changed, and its files."""

        def do_GET(self) -> None:
            if self.path == "/downloads/tables/":
                files = [
                    dict(f, url=f"{base}/downloads/tables/{f['name']}") for f in listing["files"]
                ]
                files[0]["sha256"] = "0" * 64
                body = json.dumps({"files": files}).encode()
            else:
                name = self.path.rsplit("/", 1)[-1]
                body = urllib.request.urlopen(f"{url}/downloads/tables/{name}").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    fake = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Lying)
    base = f"http://127.0.0.1:{fake.server_address[1]}"
    threading.Thread(target=fake.serve_forever, daemon=True).start()
    try:
        lied = listing["files"][0]
        with pytest.raises(TablebaseError, match="not installed") as refused:
            Tablebase.download(base, lied["board"], folder=tmp_path, progress=False)
        assert refused.value.code == "tablebase_download"
        assert lied["sha256"] in str(refused.value)
        assert list(tmp_path.iterdir()) == []
        with pytest.raises(TablebaseError, match="offers no table of") as missing:
            Tablebase.download(url, "rhombus6p1", folder=tmp_path, progress=False)
        assert missing.value.code == "tablebase_download"
    finally:
        fake.shutdown()
    with pytest.raises(TablebaseError, match="cannot reach") as unreachable:
        Tablebase.download(base, BOARD, folder=tmp_path, progress=False)
    assert unreachable.value.code == "tablebase_download"
