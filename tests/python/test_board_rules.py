"""Board and Rules: every method and property."""

from __future__ import annotations

import itertools

import pytest
import sternhalma
from sternhalma import Board, NotationError, Position, Rules, UnknownPresetError

NAMES = vars(sternhalma)
STARS = {"star1": (13, 5, 1), "star2": (37, 9, 3), "star3": (73, 13, 6), "star4": (121, 17, 10)}
OPPOSITE = {
    "north": "south",
    "north_east": "south_west",
    "south_east": "north_west",
    "south": "north",
    "south_west": "north_east",
    "north_west": "south_east",
}


# ---- Board ----------------------------------------------------------------------


def test_default_board_is_the_standard_star() -> None:
    assert Board() == Board("star4")
    assert Board().name == "star4"


def test_names_cover_every_star_and_rhombus() -> None:
    names = Board.names()
    assert names[:4] == ["star1", "star2", "star3", "star4"]
    # Every rhombus by its side and the pegs of a home (k rows: k(k+1)/2 pegs).
    rhombi = [f"rhombus{m}p{k * (k + 1) // 2}" for m in range(2, 12) for k in range(1, m)]
    # Then the homes of 2 and 4 pegs of the solved game (RULES §7).
    pegs = [f"rhombus{m}p{p}" for m in range(2, 12) for p in (2, 4) if m >= p]
    assert names[4:] == rhombi + pegs
    assert all(Board(name).name == name for name in names)


def test_the_older_names_by_home_rows_still_read() -> None:
    # rhombus<M>x<K> (homes of K rows) is the board rhombus<M>p<K(K+1)/2>.
    for m in range(2, 12):
        for k in range(1, m):
            older = Board(f"rhombus{m}x{k}")
            assert older == Board(f"rhombus{m}p{k * (k + 1) // 2}")
            assert older.name == f"rhombus{m}p{k * (k + 1) // 2}"
    assert Board("rhombus9x4").name == "rhombus9p10"  # G. I. Bell's 81-hole board
    position = Position("rhombus7x2 sturtevant south:46-48/north:0-2 0 0 -")
    assert str(position).startswith("rhombus7p3 sturtevant")
    with pytest.raises(NotationError, match="triangle's pegs"):
        Board("rhombus9p5")


def test_homes_of_the_solved_game() -> None:
    two, four = Board("rhombus7p2"), Board("rhombus7p4")
    assert (two.pegs_per_set, two.triangle("north"), two.triangle("south")) == (2, [0, 1], [47, 48])
    assert (four.pegs_per_set, four.triangle("north")) == (4, [0, 1, 2, 4])
    assert two.shape == four.shape == "rhombus"
    # Homes of 1, 3 and 6 pegs are the triangles of 1, 2 and 3 rows.
    assert [Board(f"rhombus7p{p}").name for p in (1, 3, 6)] == [
        "rhombus7p1",
        "rhombus7p3",
        "rhombus7p6",
    ]


@pytest.mark.parametrize("name", list(STARS))
def test_star_sizes(name: str) -> None:
    holes, rows, pegs = STARS[name]
    board = Board(name)
    assert (len(board), board.rows, board.pegs_per_set) == (holes, rows, pegs)
    assert board.shape == "star"
    assert board.triangles == list(OPPOSITE)


@pytest.mark.parametrize("m, k", [(2, 1), (5, 2), (9, 4), (10, 3), (11, 10)])
def test_rhombus_sizes(m: int, k: int) -> None:
    board = Board(f"rhombus{m}p{k * (k + 1) // 2}")
    assert len(board) == m * m
    assert board.rows == 2 * m - 1
    assert board.pegs_per_set == k * (k + 1) // 2
    assert board.shape == "rhombus"
    assert board.triangles == ["north", "south"]
    assert board.triangle("north_west") == []


@pytest.mark.parametrize("name", ["star2", "star4", "rhombus9p10", "rhombus6p15"])
def test_geometry_is_consistent(name: str) -> None:
    board = Board(name)
    holes = range(len(board))
    coordinates = [board.coordinates(hole) for hole in holes]
    assert len(set(coordinates)) == len(board)
    for hole, (q, r) in zip(holes, coordinates, strict=True):
        assert board.hole_at(q, r) == hole
        assert board.distance(hole, hole) == 0
        mirror = board.mirror(hole)
        assert board.mirror(mirror) == hole
        assert board.coordinates(mirror)[1] == r
        neighbors = board.neighbors(hole)
        assert 2 <= len(neighbors) <= 6
        assert len(set(neighbors)) == len(neighbors)
        for neighbor in neighbors:
            assert hole in board.neighbors(neighbor)
            assert board.distance(hole, neighbor) == 1
    # Ids run row by row from the top, left to right.
    assert coordinates == sorted(coordinates, key=lambda qr: (qr[1], qr[0]))
    for a, b in itertools.combinations(range(0, len(board), 5), 2):
        assert board.distance(a, b) == board.distance(b, a) > 0


@pytest.mark.parametrize("name", ["star3", "star4", "rhombus9p10"])
def test_triangles_partition_their_holes(name: str) -> None:
    board = Board(name)
    seen: set[int] = set()
    for triangle in board.triangles:
        holes = board.triangle(triangle)
        assert len(holes) == board.pegs_per_set
        assert holes == sorted(holes)
        assert all(board.triangle_of(hole) == triangle for hole in holes)
        assert not seen & set(holes)
        seen |= set(holes)
        # The left-right mirror keeps north and south.
        if triangle in ("north", "south"):
            assert sorted(board.mirror(hole) for hole in holes) == holes
    outside = set(range(len(board))) - seen
    assert outside and all(board.triangle_of(hole) is None for hole in outside)


def test_standard_board_landmarks() -> None:
    board = Board()
    assert board.coordinates(0) == (4, -8)
    assert board.triangle("north") == list(range(10))
    assert board.triangle("south") == list(range(111, 121))
    assert board.coordinates(60) == (0, 0)
    assert board.hole_at(0, 0) == 60
    assert board.hole_at(100, 100) is None
    assert board.neighbors(0) == [2, 1]
    assert board.distance(0, 120) == 16


@pytest.mark.parametrize("method", ["coordinates", "neighbors", "triangle_of", "mirror"], ids=str)
def test_board_hole_out_of_range_is_an_index_error(method: str) -> None:
    with pytest.raises(IndexError, match="hole 121 is not on the board"):
        getattr(Board(), method)(121)
    with pytest.raises(IndexError, match="hole 999"):
        Board().distance(0, 999)


def test_board_value_semantics() -> None:
    assert Board("star3") == Board("star3")
    assert Board("star3") != Board("star4")
    assert Board("star3") != "star3"
    assert hash(Board("rhombus9p10")) == hash(Board("rhombus9p10"))
    assert len({Board("star4"), Board(), Board("star2")}) == 2
    assert str(Board("rhombus9p10")) == "rhombus9p10"


@pytest.mark.parametrize("name", ["star1", "star4", "rhombus9p10", "rhombus11p55"])
def test_board_repr_pastes_back(name: str) -> None:
    board = Board(name)
    assert repr(board) == f"Board('{name}')"
    assert eval(repr(board), NAMES) == board


@pytest.mark.parametrize("name", ["star5", "star0", "rhombus1x1", "rhombus5x5", "hex", ""])
def test_unknown_board_is_a_notation_error(name: str) -> None:
    with pytest.raises(NotationError) as caught:
        Board(name)
    assert caught.value.what == "board"
    assert name in str(caught.value)


def test_unknown_triangle_is_a_notation_error() -> None:
    with pytest.raises(NotationError) as caught:
        Board().triangle("east")
    assert caught.value.what == "triangle"
    assert "east" in str(caught.value)


# ---- Rules ----------------------------------------------------------------------

PRESETS = {
    # preset: unused_triangles, rest_in_foreign_triangles, long_jumps,
    #         anti_spoiling, finish, max_plies, target_lock, illegal_positions
    "classic": ("empty", "allowed", False, "none", "first", None, True, "none"),
    "masters": ("empty", "forbidden", False, "swap", "first", None, True, "none"),
    "family": ("empty", "allowed", False, "fill_available", "round", None, True, "none"),
    "super": ("empty", "allowed", True, "none", "first", None, True, "none"),
    "research": ("empty", "allowed", False, "fill_available", "first", 200, True, "none"),
    "sturtevant": ("empty", "allowed", False, "fill_available", "first", None, False, "sturtevant"),
}


def options(rules: Rules) -> tuple:
    return (
        rules.unused_triangles,
        rules.rest_in_foreign_triangles,
        rules.long_jumps,
        rules.anti_spoiling,
        rules.finish,
        rules.max_plies,
        rules.target_lock,
        rules.illegal_positions,
    )


def test_presets() -> None:
    assert Rules.presets() == list(PRESETS)
    assert Rules() == Rules("classic")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_preset_options(preset: str) -> None:
    rules = Rules(preset)
    assert options(rules) == PRESETS[preset]
    assert str(rules) == preset
    assert repr(rules) == f"Rules('{preset}')"


CLASSIC = PRESETS["classic"]


def classic_with(**changed: object) -> tuple:
    names = ("unused_triangles", "rest_in_foreign_triangles", "long_jumps", "anti_spoiling")
    names += ("finish", "max_plies", "target_lock", "illegal_positions")
    return tuple(changed.get(name, value) for name, value in zip(names, CLASSIC, strict=True))


@pytest.mark.parametrize(
    "overrides, expected",
    [
        ({"long_jumps": True}, classic_with(long_jumps=True)),
        ({"unused_triangles": "filled"}, classic_with(unused_triangles="filled")),
        (
            {"rest_in_foreign_triangles": "forbidden"},
            classic_with(rest_in_foreign_triangles="forbidden"),
        ),
        ({"anti_spoiling": "swap"}, classic_with(anti_spoiling="swap")),
        ({"finish": "ranking"}, classic_with(finish="ranking")),
        ({"max_plies": 300}, classic_with(max_plies=300)),
        ({"max_plies": "300"}, classic_with(max_plies=300)),
        ({"target_lock": False}, classic_with(target_lock=False)),
        ({"illegal_positions": "sturtevant"}, classic_with(illegal_positions="sturtevant")),
    ],
    ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else "",
)
def test_keyword_overrides(overrides: dict, expected: tuple) -> None:
    rules = Rules("classic", **overrides)
    assert options(rules) == expected
    spelt = {True: "on", False: "off"}
    text = "classic," + ",".join(
        f"{k}={spelt[v] if isinstance(v, bool) else v}" for k, v in overrides.items()
    )
    assert Rules(text) == rules


def test_overrides_print_as_the_nearest_preset() -> None:
    assert str(Rules("classic", long_jumps=True)) == "super"
    assert Rules("classic", long_jumps=True) == Rules("super")
    assert str(Rules("research", max_plies=None)) != "research"
    assert Rules("research", max_plies=None).max_plies is None
    assert Rules("classic", long_jumps=False) == Rules("classic")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules("masters"),
        Rules("classic", max_plies=50),
        Rules("research", max_plies=None),
        Rules("family", finish="ranking", unused_triangles="filled"),
        Rules("super", rest_in_foreign_triangles="forbidden", anti_spoiling="swap"),
        Rules("sturtevant"),
        Rules("sturtevant", target_lock=True, max_plies=100),
        Rules("classic", target_lock=False),
    ],
    ids=str,
)
def test_rules_repr_and_str_paste_back(rules: Rules) -> None:
    assert eval(repr(rules), NAMES) == rules
    assert Rules(str(rules)) == rules
    assert hash(Rules(str(rules))) == hash(rules)


def test_rules_value_semantics() -> None:
    assert Rules("classic") != Rules("masters")
    assert Rules("classic") != "classic"
    assert len({Rules(), Rules("classic"), Rules("super"), Rules("classic", long_jumps=True)}) == 2


def test_unknown_preset() -> None:
    with pytest.raises(UnknownPresetError) as caught:
        Rules("chinese")
    assert isinstance(caught.value, NotationError)
    assert caught.value.what == "preset"
    assert "chinese" in str(caught.value)
    assert "classic" in str(caught.value)  # says what exists


@pytest.mark.parametrize(
    "text, overrides, named",
    [
        ("classic,bogus=on", {}, "bogus"),
        ("classic", {"bogus": 1}, "bogus"),
        ("classic", {"finish": "never"}, "never"),
        ("classic", {"long_jumps": "maybe"}, "maybe"),
        ("classic", {"max_plies": "lots"}, "lots"),
        ("classic,long_jumps", {}, "long_jumps"),
    ],
)
def test_bad_rules_options(text: str, overrides: dict, named: str) -> None:
    with pytest.raises(NotationError) as caught:
        Rules(text, **overrides)
    assert not isinstance(caught.value, UnknownPresetError)
    assert caught.value.what == "rules"
    assert named in str(caught.value)


def test_max_plies_zero_ends_the_game_at_once() -> None:
    """docs/notation.md: max_plies is `none` or a whole number; 0 ends the game
    before the first move (docs/rules.md)."""
    assert Rules("classic", max_plies=0) == Rules("classic,max_plies=0")
    position = Position.start(rules=Rules("classic", max_plies=0))
    assert position.legal_moves == []
    assert position.outcome().status == "draw"
    assert position.outcome().reason == "move_limit"
