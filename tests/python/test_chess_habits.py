"""python-chess habits: `in position.legal_moves` with move texts, the
`LegalMoves` sequence, and text pictures of the board (`unicode()`,
`ascii()`), while `str(position)` stays the position string."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import numpy as np
import pytest
import sternhalma
from sternhalma import LegalMoves, Move, Position
from support import GAME_SETUPS, START_SETUPS, random_game

# ---- `in` and the LegalMoves sequence -----------------------------------------------


def sample() -> list[Position]:
    """Starts and positions along random games of every setup."""
    positions = [setup.start() for setup in START_SETUPS]
    for seed, setup in enumerate(GAME_SETUPS):
        game = random_game(setup, seed, max_plies=60)
        positions.extend(Position(text) for text in game.strings[::9])
    return positions


def test_in_takes_move_texts_and_moves() -> None:
    position = Position()
    moves = position.legal_moves
    assert "115-104" in moves and Move(115, 104) in moves
    assert Move.parse("115-104") in moves
    assert "115-93" not in moves  # well-formed, not legal
    assert "pass" not in moves  # the start has other moves
    for nonsense in ("", "nonsense", "115--104", "999-1000", None, 115, (115, 104)):
        assert nonsense not in moves
    # A path is checked hop by hop: 115 hops over 112 to 104, not over 113.
    assert "115-104" in moves and "115-113-104" not in moves


def test_a_hop_chain_by_its_path() -> None:
    chains = [
        (position, move)
        for position in sample()
        for move in position.legal_moves
        if len(move.path) > 2
    ]
    assert len(chains) > 10
    for position, chain in chains:
        moves = position.legal_moves
        text = "-".join(map(str, chain.path))
        assert text in moves and str(chain) in moves
        # The same ends by a route that is not a hop chain.
        detour = f"{chain.from_hole}-{chain.path[1] + 1}-{chain.to_hole}"
        assert (detour in moves) == position.is_legal(detour)


def test_in_agrees_with_is_legal_everywhere() -> None:
    """For every start-end pair of holes, in a sample of positions of every
    setup: the text is in `legal_moves` exactly when `is_legal` says so,
    and exactly when a listed move has those ends."""
    for position in sample():
        moves = position.legal_moves
        listed = {str(m) for m in moves}
        holes = len(position.board)
        for start in range(holes):
            for end in range(holes):
                text = f"{start}-{end}"
                assert (text in moves) == position.is_legal(text) == (text in listed), (
                    str(position),
                    text,
                )
        assert ("pass" in moves) == position.is_legal("pass") == ("pass" in listed)


def test_legal_moves_from_holds_one_peg_moves() -> None:
    position = Position()
    from_115 = position.legal_moves_from(115)
    assert isinstance(from_115, LegalMoves)
    assert "115-104" in from_115 and Move(115, 102) in from_115
    assert "111-102" in position.legal_moves and "111-102" not in from_115
    assert from_115 == [m for m in position.legal_moves if m.from_hole == 115]


def test_sequence_protocol() -> None:
    position = Position()
    moves = position.legal_moves
    assert isinstance(moves, Sequence) and isinstance(moves, LegalMoves)
    as_list = list(moves)
    assert len(as_list) == len(moves) == 14
    assert moves[0] == as_list[0] and moves[-1] == as_list[-1] == Move(117, 106)
    assert moves[2:5] == as_list[2:5] and isinstance(moves[2:5], list)
    assert moves[::-1] == as_list[::-1] == list(reversed(moves))
    with pytest.raises(IndexError, match="14 moves"):
        moves[14]
    with pytest.raises(IndexError):
        moves[-15]
    with pytest.raises(TypeError, match="integers or slices"):
        moves["0"]  # type: ignore[call-overload]
    assert moves.index("115-104") == as_list.index(Move(115, 104)) == 9
    assert moves.index(Move(115, 104)) == 9
    with pytest.raises(ValueError, match="115-93 is not a legal move"):
        moves.index("115-93")
    assert moves.count("115-104") == 1 and moves.count("115-93") == 0
    assert bool(moves) and moves == as_list and as_list == moves
    assert moves != as_list[1:] and moves != tuple(as_list) and moves != "moves"
    assert moves == Position().legal_moves
    assert repr(moves).startswith("<LegalMoves (14): 111-102, 111-103,")
    assert random.Random(1).choice(moves) in moves


def test_listed_moves_push_and_know_their_path() -> None:
    position = Position()
    move = position.legal_moves[9]
    assert move.kind == "hop" and move.path == [115, 104]
    position.push(move)
    assert position.peek() == Move(115, 104)


def test_the_list_outlives_the_position_changing() -> None:
    position = Position()
    moves = position.legal_moves
    position.push("115-104")
    assert "115-104" in moves  # a snapshot of the position it was read from
    assert "115-104" not in position.legal_moves


def test_game_over_has_no_legal_moves() -> None:
    position = Position("star1 classic south:2/north:6 0 0 -")
    position.push("2-0")
    assert position.is_game_over()
    assert position.legal_moves == [] and not position.legal_moves
    assert len(position.legal_moves) == 0 and "pass" not in position.legal_moves


def test_moves_never_equal_strings() -> None:
    """As in python-chess: a Move equals Moves only (so that equal objects
    hash equally); compare texts with `str(move)`."""
    move = Position().legal_moves[9]
    assert move != "115-104" and str(move) == "115-104"
    assert move == Move.parse("115-104") and hash(move) == hash(Move(115, 104))


# ---- Text pictures ------------------------------------------------------------------------


def glyphs(picture: str, rows: int) -> list[str]:
    """The picture's characters hole by hole (holes are numbered row by row,
    left to right, from the top)."""
    return [c for line in picture.splitlines()[:rows] for c in line if not c.isspace()]


def owners(position: Position) -> list[int | None]:
    """Each hole's owner, from the observation planes (the mover's first)."""
    planes = position.observation_tensor()
    players = position.num_players()
    side = position.current_player() if not position.is_game_over() else position.side_to_move
    result: list[int | None] = [None] * len(position.board)
    for plane in range(players):
        for hole in np.flatnonzero(planes[plane]):
            result[hole] = (side + plane) % players
    return result


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=str)
def test_pictures_show_every_peg(setup) -> None:
    game = random_game(setup, seed=3, max_plies=40)
    for text in game.strings[::5] + [game.strings[-1]]:
        position = Position(text)
        rows = position.board.rows
        held = owners(position)
        neutral = position.observation_tensor()[position.num_players()]
        ascii_glyphs = glyphs(position.ascii(), rows)
        unicode_glyphs = glyphs(position.unicode(), rows)
        assert len(ascii_glyphs) == len(unicode_glyphs) == len(position.board)
        for hole, owner in enumerate(held):
            if owner is not None:
                assert ascii_glyphs[hole] == str(owner), (text, hole)
                assert unicode_glyphs[hole] == "⓪①②③④⑤"[owner], (text, hole)
            elif neutral[hole]:
                assert (ascii_glyphs[hole], unicode_glyphs[hole]) == ("*", "◆")
            else:
                assert (ascii_glyphs[hole], unicode_glyphs[hole]) == (".", "·")
        legend = position.ascii().splitlines()[-1]
        if position.is_game_over():
            assert f"ply {position.ply}" in legend and "to move" not in legend
        else:
            assert legend == f"player {position.side_to_move} to move, ply {position.ply}"


def test_picture_shape() -> None:
    picture = Position().ascii(legend=False)
    lines = picture.splitlines()
    assert picture.endswith("\n") and len(lines) == 17
    assert lines[0] == " " * 12 + "1" and lines[16] == " " * 12 + "0"
    assert lines[4] == " ".join("." * 13)
    assert all(line == line.rstrip() for line in lines)
    assert re.fullmatch(r"[ .01\n]*", picture)


def test_turned_picture() -> None:
    """From north's side the two-player start looks the same, players swapped."""
    start = Position()
    turned = start.ascii(bottom="north", legend=False)
    swapped = start.ascii(legend=False).translate(str.maketrans("01", "10"))
    assert turned == swapped
    assert start.ascii(bottom="south") == start.ascii()
    with pytest.raises(sternhalma.SternhalmaError, match="up"):
        start.ascii(bottom="up")


def test_colours_are_opt_in() -> None:
    position = Position.start(layout="3")
    assert "\x1b[" not in position.unicode()
    coloured = position.unicode(colours=True)
    assert coloured.count("\x1b[38;2;") == 30 and coloured.count("\x1b[0m") == 30
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == position.unicode()


def test_str_stays_the_position_string() -> None:
    position = Position()
    position.push("115-104")
    assert str(position) == "star4 classic south:104,111-114,116-120/north:0-9 1 1 -"
    assert Position(str(position)) == position
    assert repr(position) == f"Position('{position}')"
