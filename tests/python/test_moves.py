"""Move and Outcome."""

from __future__ import annotations

import pytest
import sternhalma
from sternhalma import Move, NotationError, Position
from support import GAME_SETUPS, Setup, random_game

NAMES = vars(sternhalma)


# ---- Move -----------------------------------------------------------------------


def test_move_by_its_ends() -> None:
    move = Move(111, 102)
    assert (move.from_hole, move.to_hole) == (111, 102)
    assert list(move.path) == [111, 102]
    assert move.kind is None  # not yet checked against a position
    assert not move.is_pass
    assert str(move) == "111-102"


def test_move_parse_hop_chain() -> None:
    move = Move.parse("95-75-57")
    assert (move.from_hole, move.to_hole) == (95, 57)
    assert list(move.path) == [95, 75, 57]
    assert move.kind is None
    assert str(move) == "95-57"
    assert repr(move) == "Move.parse('95-75-57')"


@pytest.mark.parametrize("make", [Move.pass_, lambda: Move.parse("pass")], ids=["pass_", "parse"])
def test_pass(make) -> None:
    move = make()
    assert move.is_pass
    assert move.from_hole is None and move.to_hole is None
    assert list(move.path) == []
    assert move.kind == "pass"
    assert str(move) == "pass"
    assert repr(move) == "Move.parse('pass')"
    assert move == Move.pass_()
    assert move != Move(0, 1)


def test_move_equality_is_by_ends() -> None:
    assert Move.parse("95-75-57") == Move(95, 57)
    assert Move.parse("95-75-57") == Move.parse("95-77-57")
    assert hash(Move.parse("95-75-57")) == hash(Move(95, 57))
    assert Move(95, 57) != Move(57, 95)
    assert Move(1, 2) != "1-2"
    assert Move(1, 2) != (1, 2)
    assert len({Move(1, 2), Move.parse("1-2"), Move(2, 1), Move.pass_(), Move.parse("pass")}) == 3


@pytest.mark.parametrize(
    "move",
    [Move(111, 102), Move.parse("95-75-57"), Move.pass_(), Move(0, 120)],
    ids=str,
)
def test_move_repr_pastes_back(move: Move) -> None:
    again = eval(repr(move), NAMES)
    assert again == move
    assert list(again.path) == list(move.path)


@pytest.mark.parametrize(
    "text", ["", "1", "1-", "-1", "1--2", "a-b", "1-2-", "1 - 2", "pas", "PASS", "1-x-2", "-"]
)
def test_malformed_move_text(text: str) -> None:
    with pytest.raises(NotationError) as caught:
        Move.parse(text)
    assert caught.value.what == "move"
    assert str(caught.value)


def test_legal_moves_carry_kind_and_path() -> None:
    position = Position()
    kinds = {move.kind for move in position.legal_moves}
    assert kinds == {"step", "hop"}
    for move in position.legal_moves:
        path = list(move.path)
        assert path[0] == move.from_hole and path[-1] == move.to_hole
        if move.kind == "step":
            assert move.to_hole in position.board.neighbors(move.from_hole)


def test_every_kind_appears_in_random_games() -> None:
    kinds = set()
    for setup in GAME_SETUPS[:4]:
        for seed in range(20):
            kinds |= {move.kind for move in random_game(setup, seed).moves}
    assert kinds == {"step", "hop", "swap", "pass"}


# ---- Outcome --------------------------------------------------------------------


def test_outcome_in_progress() -> None:
    outcome = Position().outcome()
    assert outcome.status == "in_progress"
    assert not outcome.is_over
    assert outcome.winner is None
    assert outcome.winners == []
    assert outcome.ranks is None
    assert outcome.reason is None
    assert outcome.results == [0.0, 0.0]
    assert str(outcome) == "in progress"
    assert repr(outcome) == "<Outcome in_progress: in progress>"


def test_outcome_won() -> None:
    position = Position("star2 research south:2,34,35/north:0,1,15 0 34 0@34")
    outcome = position.outcome()
    assert outcome.status == "won"
    assert outcome.is_over
    assert outcome.winner == 0
    assert outcome.winners == [0]
    assert outcome.ranks is None
    assert outcome.reason is None
    assert outcome.results == [1.0, -1.0]
    assert str(outcome) == "player 0 won"
    assert repr(outcome) == "<Outcome won: player 0 won>"


def test_outcome_draw_by_move_limit() -> None:
    position = Position.start(board="star2", rules="classic", max_plies=2)
    position.push(position.legal_moves[0])
    position.push(position.legal_moves[0])
    outcome = position.outcome()
    assert outcome.status == "draw"
    assert outcome.reason == "move_limit"
    assert outcome.is_over
    assert outcome.winner is None
    assert outcome.winners == []
    assert outcome.results == [0.0, 0.0]
    assert "move limit" in str(outcome)


def test_outcome_ranking() -> None:
    setup = Setup("star2", "classic", "6", {"finish": "ranking", "max_plies": 300})
    for seed in range(40):
        outcome = random_game(setup, seed).final.outcome()
        if outcome.status == "ranking":
            break
    else:
        pytest.fail("no random six-player game ended in a ranking")
    ranks = outcome.ranks
    assert sorted(p for rank in ranks for p in rank) == list(range(6))
    assert outcome.winners == ranks[0]
    assert outcome.winner is None
    assert outcome.reason is None
    # A player ranked above a others and below b scores (a - b) / 5.
    for index, rank in enumerate(ranks):
        below = sum(len(r) for r in ranks[index + 1 :])
        above = sum(len(r) for r in ranks[:index])
        for player in rank:
            assert outcome.results[player] == pytest.approx((below - above) / 5)
    assert sum(outcome.results) == pytest.approx(0.0, abs=1e-9)


def test_outcome_tie_under_round() -> None:
    """Under `finish = round` the players who finished by the end of the
    round share the win."""
    setup = Setup("star2", "family", "3", {"max_plies": 200})
    statuses = set()
    for seed in range(30):
        outcome = random_game(setup, seed).final.outcome()
        statuses.add(outcome.status)
        if outcome.status == "won":
            assert outcome.winners == [outcome.winner]
        if outcome.status == "tie":
            assert len(outcome.winners) >= 2
            assert outcome.winner is None
    assert statuses <= {"won", "tie", "draw"}
    assert "won" in statuses
