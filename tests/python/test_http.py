"""JSON interchange with the HTTP API: the same position gives the same legal
moves, the same JSON and the same successors locally and over HTTP, against
the real server the session started (see conftest.py)."""

from __future__ import annotations

import random

import pytest
from sternhalma import IllegalMoveError, InvalidPositionError, NotationError, Position
from support import (
    GAME_SETUPS,
    START_SETUPS,
    Setup,
    move_text,
    move_view,
    post,
    random_game,
    running_server,
    sample_positions,
)

# Starts of several layouts and rules, and positions along random games
# (passes, swaps, finished players and game ends included).
STARTS = [str(setup.start()) for setup in START_SETUPS + GAME_SETUPS]
SAMPLED = sample_positions(range(2), every=9)


def outcome_view(position: Position) -> dict:
    outcome = position.outcome()
    return {
        "status": outcome.status,
        "winner": outcome.winner,
        "ranks": outcome.ranks,
        "reason": outcome.reason,
        "results": outcome.results,
    }


def server_outcome(view: dict) -> dict:
    return {key: view.get(key) for key in ("status", "winner", "ranks", "reason", "results")}


def test_server_prints_its_address_first(server) -> None:
    assert server.first_line.startswith("sternhalma listening on http://127.0.0.1:")
    assert server.process.poll() is None


def test_address_is_the_first_line_at_the_default_log_level(tmp_path) -> None:
    """A script reads the address from the first line of standard output;
    at the default log level, log lines come first."""
    with running_server(tmp_path / "db.sqlite3") as started:
        assert started.first_line.startswith("sternhalma listening on "), started.first_line


@pytest.mark.parametrize("text", STARTS + SAMPLED)
def test_legal_moves_match(server_url: str, text: str) -> None:
    position = Position(text)
    status, answer = post(server_url, "/v1/legal-moves", {"position": text})
    assert status == 200, answer
    assert answer["moves"] == [move_view(m) for m in position.legal_moves]
    assert answer["count"] == len(position.legal_moves)
    assert answer["side_to_move"] == position.side_to_move
    assert server_outcome(answer["outcome"]) == outcome_view(position)


@pytest.mark.parametrize("text", STARTS[:6] + SAMPLED[::10])
def test_legal_moves_from_match(server_url: str, text: str) -> None:
    position = Position(text)
    pegs = position.player_pegs(position.side_to_move)
    for hole in pegs[:: max(1, len(pegs) // 4)]:
        status, answer = post(server_url, "/v1/legal-moves", {"position": text, "from": hole})
        assert status == 200, answer
        assert answer["moves"] == [move_view(m) for m in position.legal_moves_from(hole)]


@pytest.mark.parametrize("text", STARTS + SAMPLED)
def test_position_json_matches(server_url: str, text: str) -> None:
    position = Position(text)
    status, view = post(server_url, "/v1/positions/validate", {"position": text})
    assert status == 200, view
    assert view["position_string"] == str(position) == text
    assert view["position"] == position.to_json()
    assert Position.from_json(view["position"]) == position
    assert str(Position.from_json(view["position"])) == text
    assert view["hash"] == f"{position.zobrist_hash:016x}"
    assert view["side_to_move"] == position.side_to_move
    assert view["rules"]["text"] == str(position.rules)
    assert view["rules"]["max_plies"] == position.rules.max_plies
    assert view["rules"]["long_jumps"] == position.rules.long_jumps
    # The JSON form travels the other way too.
    status, again = post(server_url, "/v1/positions/validate", {"position": position.to_json()})
    assert status == 200, again
    assert again["position_string"] == text


@pytest.mark.parametrize("setup", START_SETUPS + GAME_SETUPS, ids=lambda s: s.name)
def test_new_position_matches_start(server_url: str, setup: Setup) -> None:
    body = {"board": setup.board, "layout": setup.layout, "rules": setup.rules}
    if setup.overrides:
        body["rules"] = {"preset": setup.rules, **setup.overrides}
    status, view = post(server_url, "/v1/positions", body)
    assert status == 200, view
    local = setup.start()
    assert view["position_string"] == str(local)
    assert Position.from_json(view["position"]) == local


@pytest.mark.parametrize("text", STARTS + SAMPLED[::3])
def test_apply_matches_push(server_url: str, text: str) -> None:
    position = Position(text)
    moves = position.legal_moves
    for move in moves[:: max(1, len(moves) // 5)]:
        for sent in (str(move), move_text(move)):
            status, answer = post(server_url, "/v1/apply", {"position": text, "move": sent})
            assert status == 200, answer
            position.push(sent)
            assert answer["position"]["position_string"] == str(position)
            assert answer["position"]["position"] == position.to_json()
            assert answer["played"]["move"] == move_view(position.peek())
            assert answer["played"]["player"] == Position(text).side_to_move
            position.pop()


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_replay_whole_games(server_url: str, setup: Setup) -> None:
    """A random game replayed by the server passes through the same
    positions, with the same outcomes."""
    game = random_game(setup, seed=4)
    status, answer = post(
        server_url,
        "/v1/replay",
        {"start": game.strings[0], "moves": [move_text(m) for m in game.moves]},
    )
    assert status == 200, answer
    assert [step["position_string"] for step in answer["steps"]] == game.strings[1:]
    assert [step["played"]["move"]["kind"] for step in answer["steps"]] == [
        m.kind for m in game.moves
    ]
    assert answer["final"]["position_string"] == str(game.final)
    assert server_outcome(answer["final"]["outcome"]) == outcome_view(game.final)


@pytest.mark.parametrize("setup", GAME_SETUPS[:4], ids=lambda s: s.name)
def test_game_played_over_http_step_by_step(server_url: str, setup: Setup) -> None:
    """The server chooses nothing: each side picks the same random move from
    its own list, and the positions stay equal."""
    rng = random.Random(8)
    local = setup.start()
    text = str(local)
    for _ in range(60):
        status, answer = post(server_url, "/v1/legal-moves", {"position": text})
        assert status == 200
        assert answer["moves"] == [move_view(m) for m in local.legal_moves]
        if local.is_game_over():
            assert answer["outcome"]["status"] != "in_progress"
            break
        index = rng.randrange(len(answer["moves"]))
        status, applied = post(
            server_url, "/v1/apply", {"position": text, "move": answer["moves"][index]["text"]}
        )
        assert status == 200
        local.push(local.legal_moves[index])
        text = applied["position"]["position_string"]
        assert text == str(local)


# ---- The same refusals -----------------------------------------------------------

BAD_POSITIONS = [
    "star4 classic south:111-120,0/north:0-9 5 0 -",
    "star4 classic south:111-119,500/north:0-9",
    "rhombus9p10 classic south:71-80/north_west:0-9",
    "star4 classic south:0-9/north:111-120 0 0 -",
    "star4 classic south:111-120/north:0-9 0 0 0@5",
]


@pytest.mark.parametrize("text", BAD_POSITIONS)
def test_invalid_positions_same_problems(server_url: str, text: str) -> None:
    with pytest.raises(InvalidPositionError) as caught:
        Position(text)
    status, problem = post(server_url, "/v1/positions/validate", {"position": text})
    assert status == 422
    assert problem["code"] == "invalid_position"
    assert [(p["code"], p["message"]) for p in problem["problems"]] == caught.value.problems
    assert problem["detail"] == str(caught.value)


@pytest.mark.parametrize("text", ["star4", "star4 classic south:111-120/north x", "star9 classic"])
def test_malformed_positions_refused_by_both(server_url: str, text: str) -> None:
    with pytest.raises(NotationError) as caught:
        Position(text)
    status, problem = post(server_url, "/v1/positions/validate", {"position": text})
    assert status == 422
    assert problem["detail"] == str(caught.value)


@pytest.mark.parametrize(
    "text, move",
    [
        ("star4 classic south:111-120/north:0-9 0 0 -", "111-112"),
        ("star4 classic south:111-120/north:0-9 0 0 -", "0-15"),
        ("star4 classic south:111-120/north:0-9 0 0 -", "pass"),
        ("star4 classic south:111-120/north:0-9 0 0 -", "111-500"),
        ("star4 classic south:9,112-120/north:0-8,60 0 0 -", "9-18"),
        ("star4 masters south:17,112-120/north:0-8,60 0 0 -", "17-60"),
        ("star2 research south:2,34,35/north:0,1,15 0 34 0@34", "34-29"),
    ],
)
def test_illegal_moves_same_code(server_url: str, text: str, move: str) -> None:
    with pytest.raises(IllegalMoveError) as caught:
        Position(text).push(move)
    status, problem = post(server_url, "/v1/apply", {"position": text, "move": move})
    assert status == 422
    assert problem["code"] == caught.value.code
    assert str(caught.value) == f"illegal move: {problem['detail']}"
