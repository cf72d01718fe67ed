"""Position: construction, python-chess's vocabulary, text, JSON and SVG."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree

import pytest
import sternhalma
from sternhalma import (
    Board,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    NotationError,
    Position,
    Rules,
)
from support import GAME_SETUPS, STANDARD_START, START_SETUPS, Setup, random_game

NAMES = vars(sternhalma)
SVG = "{http://www.w3.org/2000/svg}"


def svg_classes(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    assert root.tag == SVG + "svg"
    return [c for element in root.iter() for c in element.get("class", "").split()]


# ---- Construction -----------------------------------------------------------------


def test_default_is_the_standard_start() -> None:
    position = Position()
    assert str(position) == STANDARD_START
    assert position == Position(STANDARD_START) == Position.start()
    assert position.board == Board("star4")
    assert position.rules == Rules("classic")
    assert position.layout == "south/north"
    assert position.num_players() == 2
    assert (position.side_to_move, position.ply) == (0, 0)
    assert position.move_stack == []


def test_position_string_defaults_and_canonical_form() -> None:
    short = Position("star4 classic south:111,112,113,114,115,116,117,118,119,120/north:0-9")
    assert str(short) == STANDARD_START
    assert Position(str(short)) == short


@pytest.mark.parametrize("setup", START_SETUPS + GAME_SETUPS, ids=lambda s: s.name)
def test_start(setup: Setup) -> None:
    position = setup.start()
    board = Board(setup.board)
    assert position.board == board
    assert position.rules == Rules(setup.rules, **setup.overrides)
    assert position.ply == 0 and position.side_to_move == 0
    assert not position.is_game_over()
    players = position.num_players()
    sets = position.pegs
    assert len(sets) == players
    assert "/".join("+".join(player) for player in sets) == position.layout
    for player, player_sets in enumerate(sets):
        holes = sorted(h for pegs in player_sets.values() for h in pegs)
        assert position.player_pegs(player) == holes
        for triangle, pegs in player_sets.items():
            assert pegs == board.triangle(triangle)  # each set starts at home
            assert all(position.owner(h) == player for h in pegs)
    assert Position(str(position)) == position


def test_start_arguments() -> None:
    assert Position.start(rules="research").board == Board("rhombus9p10")
    assert Position.start(rules=Rules("research")).board == Board("rhombus9p10")
    assert Position.start(board=Board("star2")).board == Board("star2")
    assert Position.start(rules=Rules("masters"), long_jumps=True).rules == Rules(
        "masters", long_jumps=True
    )
    assert Position.start(first_player=1).side_to_move == 1
    assert Position.start(layout="south+north/south_west+north_east").layout == (
        "south+north/south_west+north_east"
    )
    assert Position.start(layout="1").num_players() == 1


def test_start_board_does_not_depend_on_how_the_rules_are_given() -> None:
    """The default board is that of the preset the rules print as: the
    research rules spelled from classic still start on research's board, and
    a Rules object gives the same board as its text."""
    text = "classic,anti_spoiling=fill_available,max_plies=200"
    assert str(Rules(text)) == "research"
    assert Position.start(rules=text).board == Board("rhombus9p10")
    assert Position.start(rules=Rules(text)).board == Position.start(rules=text).board
    assert Position.start(rules="classic,long_jumps=on").board == Board("star4")


# ---- Legal moves ---------------------------------------------------------------------


def test_legal_moves_is_a_sequence_of_moves() -> None:
    position = Position()
    moves = position.legal_moves
    assert isinstance(moves, Sequence) and not isinstance(moves, list)
    assert len(moves) == 14
    assert Move(115, 104) in moves
    assert Move(111, 112) not in moves
    assert all(isinstance(m, Move) for m in iter(moves))
    ends = [(m.from_hole, m.to_hole) for m in moves]
    assert ends == sorted(ends)  # by start, then end hole
    assert len(set(ends)) == len(ends)
    assert [str(m) for m in moves] == [
        "111-102", "111-103", "112-103", "112-104", "113-104", "113-105", "114-105",
        "114-106", "115-102", "115-104", "116-103", "116-105", "117-104", "117-106",
    ]  # fmt: skip


def test_legal_moves_from() -> None:
    position = Position()
    everything = position.legal_moves
    per_hole = []
    for hole in range(len(position.board)):
        moves = position.legal_moves_from(hole)
        assert all(m.from_hole == hole for m in moves)
        per_hole.extend(moves)
    assert per_hole == everything
    assert [list(m.path) for m in per_hole] == [list(m.path) for m in everything]
    assert position.legal_moves_from(0) == []  # the opponent's peg
    assert position.legal_moves_from(60) == []  # an empty hole
    with pytest.raises(IndexError, match="121"):
        position.legal_moves_from(121)


def test_legal_moves_witness_paths_are_hop_chains() -> None:
    game = random_game(Setup("star4", "research"), seed=3, max_plies=60)
    position = Position(game.strings[-1])
    board = position.board
    for move in position.legal_moves:
        path = list(move.path)
        if move.kind == "step":
            assert path == [move.from_hole, move.to_hole]
        elif move.kind == "hop":
            for a, b in itertools.pairwise(path):
                assert board.distance(a, b) == 2
        assert position.is_legal(move)
        assert position.is_legal(Move(move.from_hole, move.to_hole))
        assert position.is_legal("-".join(map(str, path)))


def test_is_legal() -> None:
    position = Position()
    assert position.is_legal("115-104")
    assert position.is_legal(Move(115, 104))
    assert not position.is_legal("111-112")
    assert not position.is_legal("pass")
    assert not position.is_legal("0-15")
    assert not position.is_legal("not a move")


def test_parse_move() -> None:
    position = Position()
    move = position.parse_move("115-104")
    assert move.kind == "hop"
    assert list(move.path) == [115, 104]
    assert position.parse_move(Move(111, 102)).kind == "step"
    with pytest.raises(IllegalMoveError) as caught:
        position.parse_move("111-112")
    assert caught.value.code == "hole_occupied"
    with pytest.raises(NotationError):
        position.parse_move("111--112")
    with pytest.raises(TypeError):
        position.parse_move(111)


def test_parse_move_keeps_a_given_chain() -> None:
    game = random_game(Setup("star2", "research"), seed=1)
    for before, move in zip(game.strings, game.moves, strict=False):
        if move.kind == "hop" and len(move.path) > 2:
            position = Position(before)
            parsed = position.parse_move(Move.parse("-".join(map(str, move.path))))
            assert list(parsed.path) == list(move.path)
            assert parsed.kind == "hop"
            return
    pytest.fail("no hop chain in the game")


# ---- push, pop, peek, move_stack ---------------------------------------------------


def test_push_pop_peek_move_stack() -> None:
    position = Position()
    position.push("115-104")
    assert position.side_to_move == 1 and position.ply == 1
    assert position.peek() == Move(115, 104)
    assert position.peek().kind == "hop"
    position.push(Move(6, 15))
    assert position.move_stack == [Move(115, 104), Move(6, 15)]
    assert [m.kind for m in position.move_stack] == ["hop", "step"]
    assert str(position) == "star4 classic south:104,111-114,116-120/north:0-5,7-9,15 0 2 -"
    assert position.pop() == Move(6, 15)
    popped = position.pop()
    assert popped == Move(115, 104) and popped.kind == "hop"
    assert position == Position()
    assert position.move_stack == []
    with pytest.raises(IndexError, match="empty"):
        position.pop()
    with pytest.raises(IndexError, match="empty"):
        position.peek()


def test_push_illegal_leaves_the_position_unchanged() -> None:
    position = Position()
    with pytest.raises(IllegalMoveError):
        position.push("111-112")
    with pytest.raises(NotationError):
        position.push("111-")
    with pytest.raises(TypeError):
        position.push(None)
    assert position == Position() and position.move_stack == []


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_push_then_pop_every_move_restores_the_position(setup: Setup) -> None:
    game = random_game(setup, seed=11)
    position = game.final
    assert position.move_stack == game.moves
    assert [list(m.path) for m in position.move_stack] == [list(m.path) for m in game.moves]
    for before, move in zip(reversed(game.strings[:-1]), reversed(game.moves), strict=True):
        assert position.peek() == move
        assert position.pop() == move
        assert str(position) == before
        assert position == Position(before)
        assert position.zobrist_hash == Position(before).zobrist_hash
    assert position.move_stack == []


def test_move_stack_keeps_the_given_chain() -> None:
    game = random_game(Setup("star2", "research"), seed=1)
    chained = [(i, m) for i, m in enumerate(game.moves) if len(m.path) > 2]
    assert chained
    index, move = chained[0]
    position = Position(game.strings[index])
    position.push("-".join(map(str, move.path)))
    assert list(position.peek().path) == list(move.path)
    assert list(position.move_stack[-1].path) == list(move.path)
    assert list(position.pop().path) == list(move.path)


def test_copy_and_play(require_copying) -> None:
    require_copying("copy", "play")
    position = Position()
    position.push("115-104")
    copied = position.copy()
    assert copied == position and copied is not position
    assert copied.move_stack == position.move_stack
    copied.push("4-15")
    assert position.ply == 1 and copied.ply == 2
    after = position.play("4-15")
    assert after == copied and position.ply == 1
    assert after.move_stack == [Move(115, 104), Move(4, 15)]
    with pytest.raises(IllegalMoveError):
        position.play("111-112")


# ---- State ---------------------------------------------------------------------------


def test_pegs_player_pegs_owner() -> None:
    position = Position.start(layout="3")
    assert position.pegs == [
        {"south": list(range(111, 121))},
        {"north_west": [10, 11, 12, 13, 23, 24, 25, 35, 36, 46]},
        {"north_east": [19, 20, 21, 22, 32, 33, 34, 44, 45, 55]},
    ]
    assert position.player_pegs(1) == [10, 11, 12, 13, 23, 24, 25, 35, 36, 46]
    assert position.owner(111) == 0
    assert position.owner(46) == 1
    assert position.owner(60) is None
    with pytest.raises(IndexError):
        position.player_pegs(3)
    two_sets = Position.start(layout="2x3")
    assert [sorted(p) for p in two_sets.pegs] == [
        ["north_east", "north_west", "south"],
        ["north", "south_east", "south_west"],
    ]
    assert len(two_sets.player_pegs(0)) == 30


def test_neutral_pegs_have_no_owner() -> None:
    position = Position("star4 classic,unused_triangles=filled south:111-120/north:0-9")
    side = Board().triangle("north_west")
    assert all(position.owner(hole) is None for hole in side)
    assert position.player_pegs(0) == list(range(111, 121))


def test_ply_and_side_to_move_follow_the_position_string() -> None:
    position = Position("star4 classic south:111-120/north:0-9 1 7 -")
    assert (position.side_to_move, position.ply) == (1, 7)
    position.push("4-15")
    assert (position.side_to_move, position.ply) == (0, 8)


def test_zobrist_hash_and_equality() -> None:
    position = Position()
    assert isinstance(position.zobrist_hash, int)
    assert 0 <= position.zobrist_hash < 2**64
    assert hash(position) == hash(Position())
    position.push("115-104")
    assert position.zobrist_hash != Position().zobrist_hash
    assert position != Position()
    position.pop()
    assert position.zobrist_hash == Position().zobrist_hash
    # The side to move is hashed.
    assert Position(STANDARD_START.replace(" 0 0 -", " 1 0 -")).zobrist_hash != hash(Position())
    assert Position() != STANDARD_START
    assert len({Position(), Position(), Position.start(layout="3")}) == 2


def test_equal_positions_reached_by_different_orders() -> None:
    a, b = Position(), Position()
    for move in ["115-104", "6-15", "111-102", "9-18"]:
        a.push(move)
    for move in ["111-102", "9-18", "115-104", "6-15"]:
        b.push(move)
    assert a == b and hash(a) == hash(b) and a.zobrist_hash == b.zobrist_hash
    assert a.move_stack != b.move_stack


# ---- Text, repr, JSON ------------------------------------------------------------------


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_repr_and_str_paste_back(setup: Setup) -> None:
    game = random_game(setup, seed=5)
    for text in game.strings[:: max(1, len(game.strings) // 8)] + [game.strings[-1]]:
        position = Position(text)
        assert str(position) == text
        assert repr(position) == f"Position('{text}')"
        again = eval(repr(position), NAMES)
        assert again == position and str(again) == text


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_json_round_trip(setup: Setup) -> None:
    game = random_game(setup, seed=6)
    for text in game.strings[::9] + [game.strings[-1]]:
        position = Position(text)
        data = position.to_json()
        assert set(data) == {"board", "rules", "players", "side_to_move", "ply", "finished"}
        assert data["board"] == str(position.board)
        assert data["rules"] == str(position.rules)
        assert data["side_to_move"] == position.side_to_move
        assert data["ply"] == position.ply
        assert [[s["triangle"] for s in player] for player in data["players"]] == [
            list(player) for player in position.pegs
        ]
        assert Position.from_json(data) == position
        assert str(Position.from_json(data)) == text
        assert Position.from_json(json.dumps(data)) == position


def test_json_of_a_finished_game() -> None:
    position = Position("star2 research south:2,34,35/north:0,1,15 0 34 0@34")
    assert position.to_json()["finished"] == [{"player": 0, "ply": 34}]
    assert Position.from_json(position.to_json()) == position


def test_json_defaults_like_the_position_string() -> None:
    data = {
        "board": "star2",
        "players": [
            [{"triangle": "south", "pegs": [34, 35, 36]}],
            [{"triangle": "north", "pegs": [0, 1, 2]}],
        ],
    }
    assert Position.from_json(data) == Position("star2 classic south:34-36/north:0-2 0 0 -")


def test_json_rules_as_an_object_like_the_http_api() -> None:
    """The HTTP API takes `rules` as text or as {"preset": ..., overrides}."""
    data = {
        "board": "star2",
        "rules": {"preset": "classic", "long_jumps": True},
        "players": [
            [{"triangle": "south", "pegs": [34, 35, 36]}],
            [{"triangle": "north", "pegs": [0, 1, 2]}],
        ],
    }
    assert Position.from_json(data).rules == Rules("super")


@pytest.mark.parametrize(
    "data, named",
    [
        ("{", "is not JSON"),
        ("[]", "object"),
        ({"players": []}, "board"),
        ({"board": "star4"}, "players"),
        ({"board": "star9", "players": []}, "star9"),
        ({"board": "star4", "players": [], "side_to_move": -1}, "side_to_move"),
        ({"board": "star4", "players": [], "colour": "red"}, "colour"),
        ({"board": "star4", "rules": 5, "players": []}, "rules"),
        ({"board": "star4", "players": [[{"triangle": "up", "pegs": []}]]}, "players"),
    ],
)
def test_malformed_json(data, named: str) -> None:
    with pytest.raises(NotationError) as caught:
        Position.from_json(data)
    assert named in str(caught.value)


def test_invalid_json_position() -> None:
    data = Position().to_json()
    data["players"][0][0]["pegs"][0] = 0  # onto a north peg
    data["side_to_move"] = 4
    with pytest.raises(InvalidPositionError) as caught:
        Position.from_json(data)
    codes = [code for code, _ in caught.value.problems]
    assert codes == ["two_pegs_on_hole", "side_to_move_out_of_range"]


# ---- SVG ------------------------------------------------------------------------------------


def test_svg_draws_the_position() -> None:
    position = Position()
    svg = position.svg()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    classes = svg_classes(svg)
    assert classes.count("hole") == 121
    assert classes.count("peg") == 20
    assert classes.count("player-0") == 10 and classes.count("player-1") == 10
    assert "path-start" not in classes  # nothing played yet
    assert position._repr_svg_() == svg
    assert STANDARD_START in svg  # the title


def test_svg_highlights_the_last_move() -> None:
    position = Position()
    position.push("115-104")
    classes = svg_classes(position.svg())
    assert classes.count("path-start") == 1 and classes.count("path-end") == 1
    assert classes.count("path-segment") == 1
    assert position._repr_svg_() == position.svg()


def test_svg_highlight_argument_and_chain() -> None:
    position = Position()
    for highlight in ["95-75-57", Move.parse("95-75-57")]:
        classes = svg_classes(position.svg(highlight=highlight))
        assert classes.count("path-segment") == 2
        assert classes.count("path-start") == 1 and classes.count("path-end") == 1
    assert "path-start" not in svg_classes(position.svg(highlight="pass"))
    with pytest.raises(NotationError):
        position.svg(highlight="95--57")


def test_svg_peg_ids_and_size() -> None:
    position = Position()
    classes = svg_classes(position.svg(peg=115))
    assert classes.count("selected") == 1
    assert classes.count("destination") == len(position.legal_moves_from(115)) == 2
    ids = svg_classes(position.svg(ids=True))
    assert ids.count("hole-id") == 121
    root = ElementTree.fromstring(position.svg(size=300))
    assert root.get("width") == "300"
    assert re.fullmatch(r"\d+", root.get("height"))
    with pytest.raises(TypeError):
        position.svg(300)  # styling arguments are keyword-only


def test_svg_names_holes_and_turns_a_home_to_the_bottom() -> None:
    position = Position()

    def centres(svg: str) -> dict[int, float]:
        root = ElementTree.fromstring(svg)
        return {
            int(e.get("data-hole")): float(e.get("cy"))
            for e in root.iter("{http://www.w3.org/2000/svg}circle")
            if e.get("class") == "hole"
        }

    plain = centres(position.svg())
    assert sorted(plain) == list(range(121))
    assert plain[0] < plain[120]  # north at the top
    turned = centres(position.svg(bottom="north"))
    assert turned[0] > turned[120]  # north's tip now at the bottom
    assert position.svg(bottom="south") == position.svg()
    with pytest.raises(NotationError, match="north, north_east"):
        position.svg(bottom="up")


# ---- perft --------------------------------------------------------------------------------


def test_perft_standard_start() -> None:
    position = Position()
    assert [position.perft(depth) for depth in range(4)] == [1, 14, 196, 4760]
    assert position == Position()


def test_perft_agrees_with_legal_moves() -> None:
    position = Position.start(board="star2", layout="3")
    total = 0
    for move in position.legal_moves:
        position.push(move)
        total += position.perft(2)
        position.pop()
    assert position.perft(3) == total


@pytest.mark.parametrize(
    "line",
    [
        line
        for line in (Path(__file__).resolve().parents[1] / "fixtures" / "perft.txt")
        .read_text()
        .splitlines()
        if line.strip() and not line.startswith("#")
    ],
    ids=lambda line: line.split(";")[0],
)
def test_perft_fixtures(line: str) -> None:
    """The Rust suite's perft fixtures (tests/fixtures/perft.txt), from Python."""
    text, counts = line.split(";")
    position = Position(text.strip())
    for depth, count in enumerate(counts.split(), start=1):
        assert position.perft(depth) == int(count), f"depth {depth}"


def test_resigning_with_three_players() -> None:
    three = Position.start(board="star2", layout=3)
    after = three.resign(0)
    assert after.is_resigned(0) and not three.is_resigned(0)
    assert after.side_to_move == 1
    assert after.move_stack == [], "a resignation is not a move"
    assert str(after).endswith(" 0@0")
    assert Position(str(after)) == after
    over = after.resign(2)
    assert over.is_game_over()
    assert over.outcome().ranks == [[1], [2], [0]]
    assert over.returns() == [-1.0, 1.0, 0.0]
    with pytest.raises(IllegalMoveError) as caught:
        Position().resign(0)
    assert caught.value.code == "cannot_resign"
