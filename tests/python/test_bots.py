"""The bots and the evaluation helpers: sternhalma.Bot, SearchResult,
BOT_KINDS, distance_to_target, pegs_home, progress."""

from __future__ import annotations

import threading

import pytest
import sternhalma
from sternhalma import (
    BOT_KINDS,
    Bot,
    IllegalMoveError,
    Position,
    SearchResult,
    SternhalmaError,
    UnknownBotError,
    distance_to_target,
    pegs_home,
    progress,
)

# The kinds that play any game; "perfect" plays only where a solved table
# is loaded (test_tablebase.py).
SEARCHING = tuple(kind for kind in BOT_KINDS if kind != "perfect")

BUDGETS = {
    "random": {},
    "greedy": {},
    "alphabeta": {"nodes": 3000},
    "paranoid": {"nodes": 3000},
    "mcts": {"nodes": 200},
}


def middle_game(players: int = 2, plies: int = 20) -> Position:
    position = Position.start(layout=str(players))
    bots = [Bot("greedy", seed=seat + 3) for seat in range(players)]
    for _ in range(plies):
        position.push(bots[position.side_to_move].step(position))
    return position


def test_kinds() -> None:
    assert BOT_KINDS == ("random", "greedy", "alphabeta", "paranoid", "mcts", "perfect")
    for kind in BOT_KINDS:
        assert Bot(kind).kind == kind


def test_unknown_kind_raises_its_own_error() -> None:
    with pytest.raises(UnknownBotError, match="minimax") as caught:
        Bot("minimax")
    assert isinstance(caught.value, SternhalmaError)
    assert isinstance(caught.value, ValueError)
    assert UnknownBotError.__module__ == "sternhalma"


def test_budget_is_keyword_only_and_repr_pastes_back() -> None:
    with pytest.raises(TypeError):
        Bot("alphabeta", 100)  # type: ignore[misc]
    bot = Bot("alphabeta", nodes=1000, millis=50, depth=3, seed=9)
    assert (bot.nodes, bot.millis, bot.depth, bot.seed) == (1000, 50, 3, 9)
    assert repr(bot) == "Bot('alphabeta', nodes=1000, millis=50, depth=3, seed=9)"
    again = eval(repr(bot), vars(sternhalma))
    assert repr(again) == repr(bot)
    assert repr(Bot("mcts")) == "Bot('mcts', seed=0)"
    assert Bot("mcts").nodes is None


@pytest.mark.parametrize("kind", SEARCHING)
def test_every_bot_answers_a_legal_move_deterministically(kind: str) -> None:
    for players in (2, 3):
        position = middle_game(players)
        first = Bot(kind, seed=4, **BUDGETS[kind]).search(position)
        second = Bot(kind, seed=4, **BUDGETS[kind]).search(position)
        assert isinstance(first, SearchResult)
        assert first.move in position.legal_moves
        assert first.move == second.move
        assert first.principal_variation == second.principal_variation
        assert (first.nodes, first.depth, first.score) == (second.nodes, second.depth, second.score)
        assert first.principal_variation[0] == first.move
        assert -1.0 <= first.score <= 1.0
        assert first.millis >= 0.0
        assert "SearchResult" in repr(first)
        step = Bot(kind, seed=4, **BUDGETS[kind]).step(position)
        assert step == first.move


def test_the_principal_variation_plays_out() -> None:
    position = middle_game()
    result = Bot("alphabeta", nodes=5000, seed=1).search(position)
    line = position.copy()
    for move in result.principal_variation:
        line.push(move)
    assert result.depth >= 1
    assert result.nodes <= 5001


def test_search_does_not_change_the_position() -> None:
    position = middle_game()
    before = str(position)
    Bot("mcts", nodes=100).search(position)
    assert str(position) == before


def test_perfect_needs_a_loaded_table() -> None:
    with pytest.raises(sternhalma.TablebaseError) as caught:
        Bot("perfect", seed=1).step(middle_game())
    assert caught.value.code == "no_tablebase"
    assert "sternhalma.Tablebase.load(" in str(caught.value)
    assert repr(Bot("perfect", seed=1)) == "Bot('perfect', seed=1)"


def test_a_finished_game_is_refused() -> None:
    won = Position("star1 classic south:0/north:6 1 1 0@1")
    with pytest.raises(IllegalMoveError) as caught:
        Bot("greedy").step(won)
    assert caught.value.code == "game_over"


def test_a_forced_pass_is_played() -> None:
    stuck = Position("rhombus4p6 classic south:0-4,15/north:5,10-14 0 0 -")
    for kind in SEARCHING:
        assert Bot(kind).step(stuck).is_pass


def test_alphabeta_takes_a_win_in_one() -> None:
    position = Position("star1 classic south:2/north:6 0 0 -")
    result = Bot("alphabeta", depth=2).search(position)
    assert str(result.move) == "2-0"
    assert result.score > 0.99


def test_bots_play_a_game_to_the_end() -> None:
    position = Position.start(
        board="star2", rules="classic,anti_spoiling=fill_available,max_plies=200"
    )
    bots = [Bot("alphabeta", nodes=500, seed=1), Bot("random", seed=2)]
    while not position.outcome().is_over:
        position.push(bots[position.side_to_move].step(position))
    assert position.outcome().status in ("won", "draw")


def test_search_releases_the_gil() -> None:
    position = middle_game()
    ticks = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks.append(1)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        Bot("alphabeta", nodes=300_000).search(position)
    finally:
        stop.set()
        counter.join()
    assert len(ticks) > 100


def test_evaluation_helpers() -> None:
    position = Position()
    assert distance_to_target(position, 0) == 120
    assert distance_to_target(position, 1) == 120
    assert pegs_home(position, 0) == 0
    assert progress(position, 0) == 0.0
    position.push("115-104")
    assert distance_to_target(position, 0) == 118
    assert progress(position, 0) == pytest.approx(2 / 120)
    won = Position("star1 classic south:0/north:6 1 1 0@1")
    assert (distance_to_target(won, 0), pegs_home(won, 0), progress(won, 0)) == (0, 1, 1.0)
    with pytest.raises(IndexError):
        distance_to_target(position, 2)
    with pytest.raises(IndexError):
        pegs_home(position, 5)
    with pytest.raises(IndexError):
        progress(position, 2)
