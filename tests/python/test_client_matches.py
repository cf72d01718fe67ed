"""Stored matches from Python (sternhalma.Client, Seat, Match) against the
real server: whole games, waiting for a turn, and every refusal as its own
exception, with the stored game unchanged after each."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
import sternhalma
from sternhalma import (
    Bot,
    Client,
    ConflictError,
    CreatedMatch,
    IllegalMoveError,
    Match,
    MatchClosedError,
    Move,
    NotFoundError,
    NotYourTurnError,
    PlayedMove,
    Position,
    Seat,
    ServerError,
    StalePlyError,
    SternhalmaError,
    UnknownBotError,
    UnknownPresetError,
    WrongTokenError,
)
from support import running_server

BOARD = "rhombus5p3"
RULES = "masters"  # for games between programs: no peg blocks a target forever
TOKEN = re.compile(r"[0-9a-f]{64}")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """A server of this module's own, without per-client limits: the games
    here are well over a hundred writes, which would spend the budget the
    session's server gives one client (a burst of 60, then 300 a minute)
    that the other modules' writes need."""
    database = tmp_path_factory.mktemp("matches") / "matches.sqlite3"
    with running_server(database, "--log-level", "warn", "--workers", "2", "--no-limits") as server:
        yield Client(server.url)


def two_seats(client: Client, **options) -> tuple[CreatedMatch, Seat, Seat]:
    created = client.create_match(["ada", "grace"], board=BOARD, rules=RULES, **options)
    return created, created.seats[0], created.seats[1]


def stored(client: Client, match_id: int) -> tuple:
    """What a refused request must leave as it was."""
    match = client.match(match_id)
    return (
        match.version,
        match.ply,
        match.to_move,
        str(match.position),
        [(m.ply, m.player, m.move) for m in client.history(match_id)],
    )


def replay(record: dict) -> Position:
    position = Position(record["start"])
    for text in record["moves"]:
        position.push(text)
    return position


# ---- Creating and reading -----------------------------------------------------------


def test_create_match_answers_the_match_and_its_tokens(client: Client) -> None:
    created = client.create_match(
        ["ada", Bot("random", seed=7), {"name": "grace", "bot": None}],
        board="star2",
        layout=3,
        rules="family",
        first_player=2,
    )
    match = created.match
    assert isinstance(created, CreatedMatch) and isinstance(match, Match)
    assert sorted(created.seats) == [0, 2]  # the bot's seat has no token
    for player, seat in created.seats.items():
        assert isinstance(seat, Seat)
        assert (seat.client, seat.match_id, seat.player) == (client, match.id, player)
        assert TOKEN.fullmatch(seat.token)
        assert seat.token not in repr(seat)  # reprs end up in logs
    assert TOKEN.fullmatch(created.admin_token)
    assert created.admin_token not in repr(created)
    assert repr(created) == f"<CreatedMatch {match.id}: open seats [0, 2]>"

    local = Position.start(board="star2", layout="3", rules="family", first_player=2)
    assert (match.status, match.ply, match.to_move, match.result) == ("in_progress", 0, 2, None)
    assert not match.is_over
    assert match.version >= 1
    assert [(s.seat, s.name, s.kind) for s in match.seats] == [
        (0, "ada", "open"),
        (1, "seat 1", "bot"),
        (2, "grace", "open"),
    ]
    # The server added its move limit to the rules; the rest is the local start.
    assert isinstance(match.position, Position) and isinstance(match.start, Position)
    assert str(match.position) == str(match.start)
    assert match.position.side_to_move == local.side_to_move == 2
    assert match.position.to_json()["players"] == local.to_json()["players"]
    assert "max_plies=" in str(match.start)
    assert list(match.legal_moves) == list(local.legal_moves)
    assert all(isinstance(m, Move) for m in match.legal_moves)
    assert match.to_json()["id"] == match.id
    assert repr(match) == f"<Match {match.id}: in_progress, ply 0, seat 2 to move>"

    again = client.match(match.id)  # anyone may read it
    assert again.to_json()["seats"] == match.to_json()["seats"]
    assert (again.ply, again.version, str(again.position)) == (0, match.version, str(match.start))


def test_max_plies(client: Client) -> None:
    """`max_plies` reaches the server: six plies, then a draw by the move
    limit; `None` removes the limit."""
    created, ada, grace = two_seats(client, max_plies=6)
    seats = {0: ada, 1: grace}
    match = created.match
    while not match.is_over:
        # Each seat names the ply of the state the move was chosen on (by
        # default a seat names the last one it read itself: stale here).
        match = seats[match.to_move].move(match.legal_moves[0], ply=match.ply)
    assert (match.status, match.ply, match.to_move) == ("finished", 6, None)
    assert match.result is not None and match.result.reason == "move_limit"
    assert match.legal_moves == []
    unlimited = client.create_match(["a", "b"], board=BOARD, rules="classic", max_plies=None)
    assert "max_plies" not in str(unlimited.match.start)


def test_create_match_refusals(client: Client) -> None:
    """A bad seat list is a ServerError with the server's code, not an
    illegal move (no move was sent); bad rules and bots are the local
    errors."""
    cases = [
        (["ada"], "seat_count"),
        ([Bot("random"), Bot("greedy")], "no_open_seat"),
        (["ada", ""], "invalid_seat_name"),
        (["ada", Bot("random", millis=5)], "budget_not_allowed"),
        (["ada", Bot("alphabeta", nodes=10**9)], "budget_too_large"),
    ]
    for seats, code in cases:
        with pytest.raises(ServerError) as caught:
            client.create_match(seats, board=BOARD)
        assert not isinstance(caught.value, IllegalMoveError)
        assert (caught.value.status, caught.value.code) == (422, code)
    with pytest.raises(UnknownBotError):
        client.create_match(["ada", {"bot": {"kind": "clever"}}], board=BOARD)
    with pytest.raises(UnknownPresetError):
        client.create_match(["ada", "grace"], board=BOARD, rules="clasic")
    with pytest.raises(sternhalma.InvalidPositionError):
        client.create_match(["ada", "grace"], board=BOARD, layout="6")
    with pytest.raises(TypeError):
        client.create_match(["ada", 7], board=BOARD)  # type: ignore[list-item]


def test_a_refusal_without_a_move_is_not_an_illegal_move(client: Client) -> None:
    """`Client.request` too: a 422 is an IllegalMoveError only for a
    request that carried a move."""
    body = {"position": str(Position()), "bot": {"kind": "alphabeta", "nodes": 10**9}}
    with pytest.raises(ServerError) as caught:
        client.request("POST", "/v1/bots/move", body)
    assert not isinstance(caught.value, IllegalMoveError)
    assert (caught.value.status, caught.value.code) == (422, "budget_too_large")
    with pytest.raises(UnknownBotError):
        client.request("POST", "/v1/bots/move", {**body, "bot": {"kind": "clever"}})
    with pytest.raises(IllegalMoveError) as illegal:
        client.request("POST", "/v1/apply", {"position": str(Position()), "move": "111-112"})
    assert illegal.value.code == "hole_occupied"


# ---- Whole games ----------------------------------------------------------------------


def test_two_seats_play_a_full_game_alternately(client: Client) -> None:
    """Two Seat objects take turns, each waiting for its turn first; every
    answer is the local game's position, and the history and export agree
    with the local replay of the moves."""
    created, ada, grace = two_seats(client)
    seats = {0: ada, 1: grace}
    bots = {0: Bot("greedy", seed=1), 1: Bot("greedy", seed=2)}
    local = Position(str(created.match.start))
    played: list[Move] = []
    match = created.match
    while not match.is_over:
        seat = seats[match.to_move]
        turn = seat.wait_for_turn()  # its turn already: answered at once
        assert (turn.ply, turn.to_move) == (match.ply, seat.player)
        move = bots[seat.player].step(turn.position)
        match = seat.move(move)
        local.push(move)
        played.append(move)
        assert str(match.position) == str(local)
        assert match.ply == len(played)
    assert match.status == "finished"
    assert match.result is not None and match.result.ending == "outcome"
    assert match.result.results == local.outcome().results
    assert ada.wait_for_turn().is_over  # over: answered at once, no wait

    history = ada.history()
    assert all(isinstance(entry, PlayedMove) for entry in history)
    assert [entry.ply for entry in history] == list(range(len(played)))
    assert [entry.player for entry in history] == [i % 2 for i in range(len(played))]
    assert [entry.move for entry in history] == played
    assert all(entry.played_at.endswith("Z") for entry in history)
    assert client.history(match.id) == history

    record = grace.export()
    assert record == client.export(match.id)
    assert record["start"] == str(created.match.start)
    assert [Move.parse(text) for text in record["moves"]] == played
    assert str(replay(record)) == str(match.position) == str(local)


def test_seat_play_against_a_server_bot(client: Client) -> None:
    """`Seat.play` with a function bot against a built-in bot: the moves it
    reported are exactly this seat's moves in the history."""
    created = client.create_match(["me", Bot("greedy", seed=3)], board=BOARD, rules=RULES)
    me = client.join(created.match.id, 0, created.seats[0].token)
    greedy = Bot("greedy", seed=4)
    seen: list[tuple[int, str]] = []
    final = me.play(
        lambda position: str(greedy.step(position)),
        on_move=lambda match, text: seen.append((match.ply, text)),
    )
    assert final.is_over and final.status == "finished"
    assert final.result is not None and final.result.summary
    mine = [(entry.ply, str(entry.move)) for entry in me.history() if entry.player == 0]
    assert mine == seen and len(seen) > 0
    assert str(replay(me.export())) == str(final.position)
    with pytest.raises(TypeError):
        me.play("not a bot")


def test_two_seats_play_in_threads(client: Client) -> None:
    """Each seat plays on its own thread with `play`, waiting for the other
    through the long-poll; both see the same end, the game of the local
    bots with the same seeds."""
    created, ada, grace = two_seats(client)
    results: dict[int, Match] = {}
    errors: list[Exception] = []

    def run(seat: Seat, bot: Bot) -> None:
        try:
            results[seat.player] = seat.play(bot)
        except Exception as error:  # noqa: BLE001 (reported below, on the test thread)
            errors.append(error)

    threads = [
        threading.Thread(target=run, args=(ada, Bot("greedy", seed=5))),
        threading.Thread(target=run, args=(grace, Bot("greedy", seed=6))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert results[0].version == results[1].version and results[0].is_over
    local = Position(str(created.match.start))
    bots = [Bot("greedy", seed=5), Bot("greedy", seed=6)]
    while not local.is_game_over():
        local.push(bots[local.side_to_move].step(local))
    assert str(results[0].position) == str(local)
    assert [entry.move for entry in ada.history()] == list(local.move_stack)


# ---- Waiting ----------------------------------------------------------------------


def test_wait(client: Client) -> None:
    created, ada, grace = two_seats(client)
    before = created.match
    with pytest.raises(TimeoutError):
        client.wait(before, timeout=0)  # nothing has changed
    with pytest.raises(TimeoutError):
        grace.wait_for_turn(timeout=0)  # ada is to move
    after = ada.move(before.legal_moves[0])
    # A change made before the call is not missed: the state is newer.
    seen = client.wait(before)
    assert (seen.ply, seen.version, seen.to_move) == (1, after.version, 1)
    assert grace.wait_for_turn(timeout=0).ply == 1
    with pytest.raises(TimeoutError):
        ada.wait_for_turn(timeout=0)
    # A seat's move names the ply of the last state it read: ada last read
    # ply 1, so after grace's move hers is stale until she reads again.
    grace.move(seen.legal_moves[0])
    with pytest.raises(StalePlyError):
        ada.move("23-20")
    assert ada.move("23-20", ply=ada.wait_for_turn().ply).ply == 3


def test_wait_for_turn_while_the_other_seat_moves(client: Client) -> None:
    """grace waits (the long-poll) while ada moves on this thread."""
    created, ada, grace = two_seats(client)
    answer: list[Match] = []
    waiter = threading.Thread(target=lambda: answer.append(grace.wait_for_turn(timeout=60)))
    waiter.start()
    ada.move(created.match.legal_moves[0])
    waiter.join(timeout=90)
    assert len(answer) == 1
    assert (answer[0].ply, answer[0].to_move) == (1, 1)


# ---- Refusals ---------------------------------------------------------------------


def test_refusals_are_typed_and_change_nothing(client: Client) -> None:
    created, ada, grace = two_seats(client)
    ada.move(created.match.legal_moves[0])
    match_id = created.match.id
    before = stored(client, match_id)

    with pytest.raises(StalePlyError) as stale:
        grace.move(grace.match().legal_moves[0], ply=0)
    assert (stale.value.status, stale.value.code) == (409, "stale_ply")
    assert isinstance(stale.value, ConflictError) and isinstance(stale.value, ServerError)
    assert isinstance(stale.value, SternhalmaError) and isinstance(stale.value, ValueError)
    assert stale.value.retry_after is None

    with pytest.raises(NotYourTurnError) as turn:
        ada.move("22-19", ply=1)
    assert (turn.value.status, turn.value.code) == (409, "not_your_turn")

    for token, status, code in [
        ("0" * 64, 403, "wrong_token"),
        ("not a token", 401, "malformed_token"),
    ]:
        impostor = client.join(match_id, 1, token)
        with pytest.raises(WrongTokenError) as wrong:
            impostor.move(grace.match().legal_moves[0])
        assert (wrong.value.status, wrong.value.code) == (status, code)
        with pytest.raises(WrongTokenError):
            impostor.resign()
    # The token decides the seat: ada's token named as seat 1 still plays
    # seat 0, whose turn it is not.
    with pytest.raises(NotYourTurnError):
        client.join(match_id, 1, ada.token).move(grace.match().legal_moves[0])

    assert stored(client, match_id) == before


@pytest.mark.parametrize(
    "move, error, code",
    [
        ("1-2", IllegalMoveError, "swap_not_allowed"),
        ("23-20", IllegalMoveError, "not_your_peg"),
        ("10-11", IllegalMoveError, "empty_hole"),
        ("pass", IllegalMoveError, "pass_not_allowed"),
        ("0-500", IllegalMoveError, "off_board"),
        ("0-9", IllegalMoveError, "unreachable"),
        ("1-7-1", IllegalMoveError, "not_a_step_or_hop"),
        ("2-5-2", IllegalMoveError, "step_in_chain"),
        ("1--2", sternhalma.NotationError, "malformed_move"),
    ],
)
def test_illegal_move_is_the_local_error(
    client: Client, move: str, error: type[SternhalmaError], code: str
) -> None:
    """The same exception, code and message as a local push of the move in
    the match's position (after 22-19 on the small board, north to move);
    the match is unchanged."""
    created, ada, grace = two_seats(client)
    ada.move("22-19")
    before = stored(client, created.match.id)
    position = grace.wait_for_turn().position
    with pytest.raises(error) as local:
        position.push(move)
    with pytest.raises(error) as remote:
        grace.move(move)
    assert type(remote.value) is type(local.value)
    assert str(remote.value) == str(local.value)
    assert remote.value.code == local.value.code == code  # type: ignore[attr-defined]
    assert stored(client, created.match.id) == before


def test_resign_and_closed_matches(client: Client) -> None:
    created, ada, grace = two_seats(client)
    over = ada.resign()
    assert over.is_over and over.status == "finished"
    assert over.result is not None and over.result.ending == "resignation"
    assert over.result.winners == [1]
    before = stored(client, over.id)
    for refused in (lambda: grace.move("0-5"), ada.resign, grace.resign):
        with pytest.raises(MatchClosedError) as closed:
            refused()
        assert (closed.value.status, closed.value.code) == (409, "match_closed")
    with pytest.raises(MatchClosedError):
        client.abandon(over.id, created.admin_token)
    assert stored(client, over.id) == before


def test_abandon(client: Client) -> None:
    created, ada, _ = two_seats(client)
    with pytest.raises(WrongTokenError):
        client.abandon(created.match.id, ada.token)  # a seat's token is not the admin's
    abandoned = client.abandon(created.match.id, created.admin_token)
    assert abandoned.status == "abandoned" and abandoned.is_over
    assert abandoned.result is not None and abandoned.result.winners == []
    with pytest.raises(MatchClosedError):
        ada.move(created.match.legal_moves[0])
    assert ada.play(Bot("random")).status == "abandoned"  # nothing to play


def test_a_seat_that_resigned_cannot_resign_again(client: Client) -> None:
    """With three seats a resigning seat leaves the game and the match goes
    on; resigning again is a ConflictError with its own code (no subclass)."""
    created = client.create_match(["a", "b", "c"], board="star2", layout="3", rules="family")
    third = created.seats[2]
    assert not third.resign().is_over
    with pytest.raises(ConflictError) as again:
        third.resign()
    assert type(again.value) is ConflictError
    assert (again.value.status, again.value.code) == (409, "already_resigned")
    assert client.export(created.match.id)["resigned"] == [{"player": 2, "ply": 0}]


def test_unknown_match(client: Client) -> None:
    missing = 10**12
    nobody = client.join(missing, 0, "0" * 64)
    for call in (
        lambda: client.match(missing),
        lambda: client.history(missing),
        lambda: client.export(missing),
        lambda: client.abandon(missing, "0" * 64),
        nobody.match,
        nobody.wait_for_turn,
        lambda: nobody.move("22-19", ply=0),
        nobody.resign,
    ):
        with pytest.raises(NotFoundError) as caught:
            call()
        assert (caught.value.status, caught.value.code) == (404, "not_found")
        assert isinstance(caught.value, ServerError)
