"""sternhalma.Client and RemotePosition against the real server: the same
answers as the local classes, and the same exceptions."""

from __future__ import annotations

import random
import socket

import pytest
import sternhalma
from sternhalma import (
    Client,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    NotationError,
    Outcome,
    OutcomeStatus,
    Position,
    RemotePosition,
    ServerError,
    SternhalmaError,
    UnknownPresetError,
)
from sternhalma.client import SeatKind, Standings
from support import GAME_SETUPS, Setup, move_text, random_game


@pytest.fixture(scope="module")
def client(server_url: str) -> Client:
    return Client(server_url + "/")  # a trailing slash is dropped


def moves_in_full(moves: list[Move]) -> list[tuple]:
    return [(str(m), m.from_hole, m.to_hole, list(m.path)) for m in moves]


def test_client_basics(client: Client, server_url: str) -> None:
    assert client.url == server_url
    assert client.timeout == 10.0
    view = client.request("POST", "/v1/legal-moves", {"position": str(Position())})
    assert view["count"] == 14


@pytest.mark.parametrize("setup", GAME_SETUPS, ids=lambda s: s.name)
def test_start_matches_local(client: Client, setup: Setup) -> None:
    rules = str(sternhalma.Rules(setup.rules, **setup.overrides))
    remote = client.start(board=setup.board, layout=setup.layout, rules=rules)
    local = setup.start()
    assert isinstance(remote, RemotePosition)
    assert str(remote) == str(local)
    assert moves_in_full(remote.legal_moves) == moves_in_full(local.legal_moves)
    assert remote.side_to_move == local.side_to_move
    assert remote.to_json() == local.to_json()
    assert not remote.is_game_over()


def test_start_defaults(client: Client) -> None:
    assert str(client.start()) == str(Position())
    assert str(client.start(rules="research")) == str(Position.start(rules="research"))
    assert client.start(first_player=1).side_to_move == 1


def test_remote_legal_moves_know_their_kind(client: Client) -> None:
    """Local legal moves carry `kind`; the remote ones should too (the
    server sends it)."""
    remote = client.start()
    assert [m.kind for m in remote.legal_moves] == [m.kind for m in Position().legal_moves]


def test_remote_in_is_legal_and_pictures_match_local(client: Client) -> None:
    """`in` takes move texts on both sides, and agrees with `is_legal`;
    the pictures are the local ones."""
    for text in random_game(GAME_SETUPS[0], seed=5, max_plies=40).strings[::8]:
        local = Position(text)
        remote = client.position(text)
        moves = remote.legal_moves
        chains = ["-".join(map(str, m.path)) for m in moves if len(m.path) > 2]
        # A detour: listed ends by another route, which the server checks.
        detours = [f"{m.from_hole}-{m.path[1] + 1}-{m.to_hole}" for m in moves if len(m.path) > 2]
        probes = ["pass", "nonsense", "0-1", "95-75-57", *chains[:2], *detours[:2]]
        probes += [str(m) for m in local.legal_moves[:3]]
        for probe in probes:
            expected = probe in local.legal_moves
            assert (probe in moves) == expected == local.is_legal(probe), (text, probe)
            assert remote.is_legal(probe) == expected, (text, probe)
        assert all(m in moves for m in local.legal_moves)
        assert None not in moves and 5 not in moves
        assert remote.unicode() == local.unicode()
        assert remote.ascii(bottom="north", legend=False) == local.ascii(
            bottom="north", legend=False
        )
        assert remote.unicode(colours=True) == local.unicode(colours=True)


def test_push_pop_peek_copy(client: Client) -> None:
    remote = client.start()
    local = Position()
    with pytest.raises(IndexError):
        remote.pop()
    with pytest.raises(IndexError):
        remote.peek()
    for move in ["115-104", Move(6, 15), "111-102"]:
        remote.push(move)
        local.push(move)
        assert str(remote) == str(local)
        assert remote.peek() == local.peek()
    assert remote.side_to_move == local.side_to_move == 1
    twin = remote.copy()
    assert str(twin) == str(remote) and twin is not remote
    assert twin.peek() == remote.peek()
    assert remote.pop() == local.pop() == Move(111, 102)
    assert str(remote) == str(local)
    assert str(twin) != str(remote)  # the copy kept its own stack
    assert twin.pop() == Move(111, 102)
    assert str(twin) == str(remote)
    assert repr(remote) == f"RemotePosition({remote.client.url!r}, {str(local)!r})"


def test_push_a_hop_chain(client: Client) -> None:
    game = random_game(Setup("star2", "research"), seed=1)
    index = next(i for i, m in enumerate(game.moves) if len(m.path) > 2)
    chain = game.moves[index]
    remote = client.position(game.strings[index])
    remote.push(chain)
    assert str(remote) == game.strings[index + 1]
    assert list(remote.peek().path) == list(chain.path)
    remote.pop()
    remote.push("-".join(map(str, chain.path)))
    assert list(remote.peek().path) == list(chain.path)


def test_outcome(client: Client) -> None:
    """The remote outcome is the local Outcome class, read from the
    server's JSON, and equal to the local one."""
    remote = client.start()
    outcome = remote.outcome()
    assert type(outcome) is Outcome
    assert outcome.status is OutcomeStatus.IN_PROGRESS
    assert outcome.results == [0.0, 0.0]
    assert not outcome.is_over
    over = client.position("star2 research south:2,34,35/north:0,1,15 0 34 0@34")
    assert over.is_game_over()
    assert over.legal_moves == []
    outcome = over.outcome()
    local = Position(str(over)).outcome()
    for name in ("status", "winner", "winners", "ranks", "reason", "results", "is_over"):
        assert getattr(outcome, name) == getattr(local, name), name
    assert outcome == local and outcome.status is OutcomeStatus.WON


@pytest.mark.parametrize("setup", GAME_SETUPS[:5], ids=lambda s: s.name)
def test_random_game_remote_and_local(client: Client, setup: Setup) -> None:
    """The same random game, one move at a time, on both sides."""
    rng = random.Random(3)
    local = setup.start()
    remote = client.position(str(local))
    for _ in range(40):
        assert moves_in_full(remote.legal_moves) == moves_in_full(local.legal_moves)
        if local.is_game_over():
            break
        move = rng.choice(local.legal_moves)
        remote.push(move_text(move) if rng.random() < 0.5 else move)
        local.push(move)
        assert str(remote) == str(local)
        assert remote.outcome().status == local.outcome().status
    while local.move_stack:
        assert remote.pop() == local.pop()
        assert str(remote) == str(local)


# ---- Errors over HTTP ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text, move, code",
    [
        ("star4 classic south:111-120/north:0-9 0 0 -", "111-112", "hole_occupied"),
        ("star4 classic south:111-120/north:0-9 0 0 -", "0-15", "not_your_peg"),
        ("star4 classic south:111-120/north:0-9 0 0 -", "pass", "pass_not_allowed"),
        ("star4 classic south:111-120/north:0-9 0 0 -", "111-500", "off_board"),
        ("star4 classic south:9,112-120/north:0-8,60 0 0 -", "9-18", "leaves_target"),
    ],
)
def test_illegal_move_over_http(client: Client, text: str, move: str, code: str) -> None:
    remote = client.position(text)
    with pytest.raises(IllegalMoveError) as caught:
        remote.push(move)
    assert caught.value.code == code
    with pytest.raises(IllegalMoveError) as local:
        Position(text).push(move)
    assert str(caught.value) == str(local.value)
    assert str(remote) == text  # unchanged


def test_invalid_position_over_http(client: Client) -> None:
    text = "star4 classic south:111-120,0/north:0-9 5 0 -"
    with pytest.raises(InvalidPositionError) as caught:
        client.position(text)
    with pytest.raises(InvalidPositionError) as local:
        Position(text)
    assert caught.value.problems == local.value.problems
    assert [code for code, _ in caught.value.problems] == [
        "wrong_peg_count",
        "two_pegs_on_hole",
        "side_to_move_out_of_range",
    ]
    with pytest.raises(InvalidPositionError) as caught:
        client.start(board="rhombus9p10", layout="6")
    assert {code for code, _ in caught.value.problems} == {"triangle_not_on_board"}


@pytest.mark.parametrize(
    "make, local",
    [
        (lambda c: c.position("star4 classic"), lambda: Position("star4 classic")),
        (lambda c: c.start(board="star9"), lambda: Position.start(board="star9")),
        (lambda c: c.start(layout="5"), lambda: Position.start(layout="5")),
        (
            lambda c: c.start(rules="classic,fast=on"),
            lambda: Position.start(rules="classic,fast=on"),
        ),
        (lambda c: c.start().push("1--2"), lambda: Position().push("1--2")),
    ],
    ids=["position", "board", "layout", "rules", "move"],
)
def test_notation_errors_over_http(client: Client, make, local) -> None:
    with pytest.raises(NotationError) as caught:
        make(client)
    assert not isinstance(caught.value, UnknownPresetError)
    with pytest.raises(NotationError) as expected:
        local()
    assert caught.value.what == expected.value.what


def test_unknown_preset_over_http(client: Client) -> None:
    with pytest.raises(UnknownPresetError) as caught:
        client.start(rules="clasic")
    assert "clasic" in str(caught.value)


def test_unreachable_server() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
    client = Client(f"http://127.0.0.1:{port}", timeout=2.0)
    for call in (client.start, lambda: client.position(str(Position()))):
        with pytest.raises(ServerError) as caught:
            call()
        assert isinstance(caught.value, SternhalmaError)
        assert isinstance(caught.value, ValueError)
        assert isinstance(caught.value, sternhalma.ServerUnreachable)
        assert isinstance(caught.value, ConnectionError)
        assert str(port) in str(caught.value)


def test_not_found_is_a_server_error(client: Client) -> None:
    with pytest.raises(ServerError) as caught:
        client.request("GET", "/v1/no-such-thing")
    assert "404" in str(caught.value)
    assert caught.value.status == 404
    assert caught.value.code == "not_found"
    assert caught.value.retry_after is None


def test_answer_that_is_not_json_is_a_server_error(client: Client) -> None:
    """The Swagger UI answers HTML: not what the client expects."""
    with pytest.raises(ServerError):
        client.request("GET", "/docs/")


def new_tournament(
    client: Client, entrants: list[dict], start: bool = True
) -> tuple[int, dict[str, str]]:
    """A round robin on a small board; its id and tokens by name (the admin
    token as `admin`)."""
    created = client.request(
        "POST",
        "/v1/tournaments",
        {
            "board": "rhombus5p3",
            "layout": "2",
            "games_per_pairing": 2,
            "move_ms": 20000,
            "entrants": entrants,
            "start": start,
        },
    )
    tokens = {t["name"]: t["token"] for t in created["entrant_tokens"]}
    return created["tournament"]["id"], {**tokens, "admin": created["admin_token"]}


@pytest.mark.parametrize("kind", ["bot", "function"])
def test_play_tournament(client: Client, kind: str) -> None:
    """An open entrant against a built-in bot, played to the end by
    ``play_tournament``: with a ``Bot`` (its ``step``) or a function
    answering move text; ``on_move`` sees every move it posted. (This
    server keeps its per-client limits: a 429 for a move beyond the write
    rate would be waited out, not raised.)"""
    entrants = [{"name": "me"}, {"name": "greedy", "bot": {"kind": "greedy", "seed": 3}}]
    tournament, tokens = new_tournament(client, entrants)
    greedy = sternhalma.Bot("greedy", seed=1)
    bot = greedy if kind == "bot" else lambda position: str(greedy.step(position))
    posted: list[tuple[int, int, str]] = []
    standings = client.play_tournament(
        tournament,
        tokens["me"],
        bot,
        poll_timeout_ms=5000,
        on_move=lambda turn, text: posted.append((turn["match_id"], turn["ply"], text)),
    )
    assert isinstance(standings, Standings)
    assert {row.name: row.games for row in standings.rows} == {"me": 2, "greedy": 2}
    assert sum(row.points for row in standings.rows) == 2
    assert [row.kind for row in standings.rows if row.name == "greedy"] == [SeatKind.BOT]
    assert standings.games_counted == 2 and standings.rating_system == "weng_lin"
    assert {cell.opponent for row in standings.cross_table for cell in row.against} == {0, 1}
    # Old code read the answer as a dict: it still can.
    assert standings["rows"][0]["name"] == standings.rows[0].name
    games = client.request("GET", f"/v1/tournaments/{tournament}/games")["games"]
    assert [g["status"] for g in games] == ["finished", "finished"]
    # Every move of the entrant's seats is one that on_move saw (no timeouts).
    played = []
    for game in games:
        seat = next(s["seat"] for s in game["seats"] if s["name"] == "me")
        for move in client.request("GET", f"/v1/matches/{game['match_id']}/moves")["moves"]:
            if move["seat"] == seat:
                played.append((game["match_id"], move["ply"], move["move"]["text"]))
    assert sorted(played) == sorted(posted)
    assert len(posted) > 0


def test_play_tournament_with_a_wrong_token(client: Client) -> None:
    tournament, tokens = new_tournament(client, [{"name": "a"}, {"name": "b"}], start=False)
    with pytest.raises(ServerError) as caught:
        client.play_tournament(tournament, "0" * 64, sternhalma.Bot("random"))
    assert caught.value.status == 403
    assert caught.value.code == "wrong_token"
    with pytest.raises(TypeError):
        client.play_tournament(tournament, tokens["a"], "not a bot")
