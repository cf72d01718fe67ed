"""Several `sternhalma serve` replicas on one PostgreSQL database.

Three processes of the real binary share one fresh database, and clients
spread over them prove, over real HTTP:

- replicas started together on an empty database migrate it and all serve
  the same data;
- ply races: for every ply of a stored match, six clients (two per replica)
  post a legal move for the same ply at once; exactly one gets a 2xx, every
  other a 409 `stale_ply` (`match_closed` after the last ply), and the
  history holds exactly the winners' moves;
- long-polls across replicas: a match long-polled on one replica wakes, with
  the new ply, when a move is stored through another; an entrant's turns
  long-poll and a tournament's event stream, each on a replica of its own,
  wake for a move and for the end of the tournament that come through a
  third;
- a lost LISTEN connection: every replica's is ended by the database while
  a long-poll waits and a move is stored at once; the long-poll still wakes
  with the new ply, and every replica listens again;
- deadlines once: an entrant that never moves, in a tournament all three
  replicas follow, has exactly one timeout per turn and forfeits each game
  at its `max_timeouts`-th; the event stream of every replica carries every
  game's start, move, timeout and end exactly once, wherever it was stored;
- a tournament of built-in bots runs to its end while replicas are killed
  with SIGKILL (one stays down until the other two have finished a game
  without it) and restarted; its standings and every game's moves equal
  those of the same tournament on one replica over a fresh SQLite file, and
  every move acknowledged to any client of this module (the races, the
  long-polls, a client playing through the kills) is in the stored history.

Every assertion is about what was stored and answered, never about how fast:
the bots' budgets are counted in nodes, so the same seeds play the same
games on any machine. The only time limits are liveness guards, and the
bound on a long-poll's wake is its own timeout (answered before it, with
the new ply).

Needs STERNHALMA_TEST_POSTGRES, a base URL with no database
(`postgres://sternhalma@127.0.0.1:PORT`): scripts/test starts a throwaway
cluster with scripts/pg-cluster and sets it. Each database is fresh (made
with the cluster's psql, dropped at the end); the logs of every replica
stay in pytest's temporary folder (printed at the start). By hand:

    scripts/pg-cluster start /tmp/pg
    STERNHALMA_TEST_POSTGRES=$(scripts/pg-cluster url /tmp/pg) .venv/bin/pytest tests/replicas
    scripts/pg-cluster stop /tmp/pg
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replicas_support import (
    BINARY,
    DOWN,
    POSTGRES,
    EventStream,
    Replica,
    admin_sql,
    call,
    create_database,
    drop_database,
    get,
    long_polls_open,
    wait_for_long_poll,
    wait_until,
)

pytestmark = pytest.mark.skipif(
    not POSTGRES,
    reason="STERNHALMA_TEST_POSTGRES is not set (a base URL such as"
    " postgres://sternhalma@127.0.0.1:PORT; scripts/test starts a cluster with"
    " scripts/pg-cluster and sets it)",
)

# Liveness guards, seconds: each wait ends when the work does.
GUARD = 60.0
TOURNAMENT_GUARD = 600.0
# The longest long-poll the server allows: a wake is proven by an answer
# before it.
WAIT_MS = 30000

# Two open seats on the standard star: no game can end within 30 plies (ten
# pegs each to carry across), so every race below runs all of them.
RACE_PLIES = 30
RACERS = 6
OPEN_MATCH = {"board": "star4", "layout": "2", "rules": "classic"}

# Built-in bots only, seeded, budgets in nodes: the same games wherever and
# however fast they are played. Twenty games, two at a time, long enough
# that replicas die with games under way.
TOURNAMENT = {
    "name": "replicas",
    "board": "rhombus6p6",
    "layout": "2",
    "rules": "classic",
    "max_plies": 200,
    "format": "round_robin",
    "games_per_pairing": 2,
    "concurrency": 2,
    "entrants": [
        {"name": "greedy", "bot": {"kind": "greedy", "seed": 11}},
        {"name": "random", "bot": {"kind": "random", "seed": 12}},
        {"name": "alphabeta", "bot": {"kind": "alphabeta", "seed": 13, "nodes": 20000}},
        {"name": "mcts", "bot": {"kind": "mcts", "seed": 14, "nodes": 1000}},
        {"name": "alphabeta-small", "bot": {"kind": "alphabeta", "seed": 15, "nodes": 2000}},
    ],
}


@dataclass
class Acked:
    """A move a client got a 2xx for: where it must be stored."""

    match_id: int
    ply: int
    seat: int
    text: str
    path: list[int]

    def stored_as(self) -> tuple[int, int, str, list[int]]:
        return (self.ply, self.seat, self.text, self.path)


def stored(move: dict[str, Any]) -> tuple[int, int, str, list[int]]:
    """A history entry, without the time it was stored."""
    return (move["ply"], move["seat"], move["move"]["text"], move["move"]["path"])


@dataclass
class Cluster:
    """Three replicas on one database, and every move acknowledged to the
    module's clients."""

    replicas: list[Replica]
    database: str
    acked: list[Acked] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def acknowledge(self, moves: list[Acked]) -> None:
        with self.lock:
            self.acked.extend(moves)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    assert BINARY.exists(), f"no server binary at {BINARY}: cargo build --release -p sternhalma-api"
    logs = tmp_path_factory.mktemp("replicas")
    name, url = create_database("three")
    replicas = [Replica(f"replica-{n}", url, logs) for n in range(3)]
    print(f"three replicas on {url}; their logs in {logs}")
    try:
        for replica in replicas:
            replica.start()
        yield Cluster(replicas, url)
    finally:
        for replica in replicas:
            replica.stop()
        drop_database(name)


def create_open_match(url: str, **settings: Any) -> tuple[int, dict[int, str], dict[str, Any]]:
    """A match with two open seats; answers its id, the seats' tokens and its
    state."""
    body = {**OPEN_MATCH, **settings, "seats": [{"name": "north"}, {"name": "south"}]}
    status, created, _ = call(url, "POST", "/v1/matches", body)
    assert status == 201, f"create answered {status}: {created}"
    tokens = {t["seat"]: t["token"] for t in created["seat_tokens"]}
    return created["match"]["id"], tokens, created["match"]


def play(url: str, match_id: int, token: str, ply: int, seat: int, move: str) -> Acked:
    """Posts one move that must be accepted; answers it as acknowledged."""
    status, answer, _ = call(
        url, "POST", f"/v1/matches/{match_id}/moves", {"ply": ply, "move": move}, token
    )
    assert status == 200, f"{url}: move {move} at ply {ply} answered {status}: {answer}"
    record = answer["played"][0]
    assert (record["ply"], record["seat"], record["move"]["text"]) == (ply, seat, move), answer
    return Acked(match_id, ply, seat, move, record["move"]["path"])


def test_replicas_started_together_migrate_one_empty_database(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Three replicas started at the same moment on an empty database (as a
    service manager starts them): each migrates or waits for the migration,
    all serve, and each sees what the others store."""
    logs = tmp_path_factory.mktemp("together")
    name, url = create_database("together")
    replicas = [Replica(f"together-{n}", url, logs) for n in range(3)]
    try:
        with ThreadPoolExecutor(len(replicas)) as pool:
            for started in [pool.submit(replica.start) for replica in replicas]:
                started.result()
        match_id, tokens, state = create_open_match(replicas[0].url)
        for replica in replicas:
            seen = get(replica.url, f"/v1/matches/{match_id}")
            assert (seen["id"], seen["ply"], seen["status"]) == (match_id, 0, "in_progress")
        move = state["legal_moves"][0]["text"]
        acked = play(replicas[1].url, match_id, tokens[0], 0, 0, move)
        for replica in replicas:
            history = get(replica.url, f"/v1/matches/{match_id}/moves")["moves"]
            assert [stored(m) for m in history] == [acked.stored_as()], replica.name
            for query in ("", "?status=in_progress"):
                listed = get(replica.url, f"/v1/matches{query}")["matches"]
                assert [m["id"] for m in listed] == [match_id], (replica.name, query, listed)
    finally:
        for replica in replicas:
            replica.stop()
        drop_database(name)


def test_each_ply_has_exactly_one_winner_across_replicas(cluster: Cluster) -> None:
    replicas = cluster.replicas
    match_id, tokens, _ = create_open_match(replicas[0].url, max_plies=RACE_PLIES)
    winners: list[Acked] = []
    with ThreadPoolExecutor(RACERS) as pool:
        for ply in range(RACE_PLIES):
            state = get(replicas[ply % 3].url, f"/v1/matches/{match_id}")
            assert (state["status"], state["ply"]) == ("in_progress", ply), state
            seat = state["to_move"]
            legal = [m["text"] for m in state["legal_moves"]]
            # Every racer holds the seat's token and names the right ply:
            # only the order of the commits decides.
            barrier = threading.Barrier(RACERS)

            def race(
                racer: int,
                ply: int = ply,
                seat: int = seat,
                legal: list[str] = legal,
                barrier: threading.Barrier = barrier,
            ) -> Any:
                move = legal[(racer + ply) % len(legal)]
                url = replicas[racer % 3].url
                barrier.wait(timeout=GUARD)
                status, answer, _ = call(
                    url,
                    "POST",
                    f"/v1/matches/{match_id}/moves",
                    {"ply": ply, "move": move},
                    tokens[seat],
                )
                return racer, url, move, status, answer

            answers = list(pool.map(race, range(RACERS)))
            won = [a for a in answers if 200 <= a[3] < 300]
            assert len(won) == 1, f"ply {ply}: {len(won)} clients were answered 2xx: {answers}"
            # The others read the match after the winner's commit: a stale
            # ply, or a closed match once the last ply is played.
            closed = won[0][4]["match"]["status"] != "in_progress"
            refusal = "match_closed" if closed else "stale_ply"
            for racer, url, move, status, answer in answers:
                if (racer, url) == won[0][:2]:
                    continue
                assert status == 409 and answer["code"] == refusal, (
                    f"ply {ply}: racer {racer} ({url}, {move}) lost the race but was answered"
                    f" {status}: {answer}"
                )
            racer, url, move, status, answer = won[0]
            assert status == 200, answer
            assert closed == (ply == RACE_PLIES - 1), answer["match"]
            record = answer["played"][0]
            assert (record["ply"], record["seat"], record["move"]["text"]) == (ply, seat, move)
            winner = Acked(match_id, ply, seat, move, record["move"]["path"])
            winners.append(winner)
            cluster.acknowledge([winner])
            # Exactly one move per ply, the winners', as every replica reads it.
            reader = replicas[(ply + 1) % 3]
            history = get(reader.url, f"/v1/matches/{match_id}/moves")["moves"]
            assert [stored(m) for m in history] == [w.stored_as() for w in winners], (
                f"after ply {ply}, {reader.name} reads {[stored(m) for m in history]}"
            )
    assert len(winners) == RACE_PLIES
    for replica in replicas:
        state = get(replica.url, f"/v1/matches/{match_id}")
        assert state["ply"] == RACE_PLIES and state["status"] == "finished", state
        history = get(replica.url, f"/v1/matches/{match_id}/moves")["moves"]
        assert [stored(m) for m in history] == [w.stored_as() for w in winners], replica.name


def wake_across(
    cluster: Cluster,
    waiter: Replica,
    mover: Replica,
    match_id: int,
    tokens: dict[int, str],
    choice: int = 0,
    meanwhile: Any = None,
) -> None:
    """Long-polls match `match_id` on `waiter` and, once it waits there,
    stores a move (the `choice`-th legal one) through `mover`, after calling
    `meanwhile()` if given. The long-poll must answer the new ply before its
    own timeout."""
    state = get(mover.url, f"/v1/matches/{match_id}")
    ply, seat = state["ply"], state["to_move"]
    open_before = long_polls_open(waiter.url)
    with ThreadPoolExecutor(1) as pool:
        asked = time.monotonic()
        polling = pool.submit(
            call,
            waiter.url,
            "GET",
            f"/v1/matches/{match_id}?wait_ply={ply}&timeout_ms={WAIT_MS}",
            timeout=WAIT_MS / 1000 + GUARD,
        )
        # The move is sent only once the long-poll waits on its replica.
        wait_for_long_poll(waiter, polling, open_before, GUARD)
        assert not polling.done(), f"the long-poll answered before any move: {polling.result()}"
        if meanwhile is not None:
            meanwhile()
        move = state["legal_moves"][choice % len(state["legal_moves"])]["text"]
        cluster.acknowledge([play(mover.url, match_id, tokens[seat], ply, seat, move)])
        status, woken, _ = polling.result(timeout=WAIT_MS / 1000 + GUARD)
        waited = time.monotonic() - asked
    assert status == 200, woken
    assert woken["ply"] == ply + 1, f"{waiter.name} answered ply {woken['ply']}"
    assert waited < WAIT_MS / 1000, (
        f"the long-poll on {waiter.name} answered only at its timeout ({waited:.1f} s):"
        f" the move stored through {mover.name} did not wake it"
    )


def test_a_long_poll_wakes_when_another_replica_stores_a_move(cluster: Cluster) -> None:
    replicas = cluster.replicas
    match_id, tokens, _ = create_open_match(replicas[1].url)
    for turn in range(6):
        waiter, mover = replicas[turn % 3], replicas[(turn + 1) % 3]
        assert get(mover.url, f"/v1/matches/{match_id}")["ply"] == turn
        wake_across(cluster, waiter, mover, match_id, tokens, choice=turn)


def test_a_replica_that_loses_its_listening_connection_still_wakes_its_waiters(
    cluster: Cluster,
) -> None:
    """Every replica's LISTEN connection is ended by the database (as a
    database restart or a network cut would) while a long-poll waits on
    replica 0, and a move is stored through replica 1 at once, before the
    listeners can be back: its notification may be lost. The long-poll still
    answers the new ply before its own timeout (a replica that listens again
    wakes every waiter to read the state), and every replica listens again."""
    replicas = cluster.replicas
    database = cluster.database.rsplit("/", 1)[1].split("?")[0]
    where = f"WHERE application_name = 'sternhalma-listen' AND datname = '{database}'"
    assert admin_sql(f"SELECT count(*) FROM pg_stat_activity {where}").strip() == "3"
    match_id, tokens, _ = create_open_match(replicas[0].url)

    def end_every_listener() -> None:
        ended = admin_sql(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity {where}")
        assert ended.strip() == "3", ended

    wake_across(cluster, replicas[0], replicas[1], match_id, tokens, meanwhile=end_every_listener)
    wait_until(
        "every replica listening again",
        lambda: admin_sql(f"SELECT count(*) FROM pg_stat_activity {where}").strip() == "3",
        GUARD,
    )
    # And notifications flow again.
    wake_across(cluster, replicas[2], replicas[0], match_id, tokens)


def test_tournament_waiters_wake_on_other_replicas(cluster: Cluster) -> None:
    """An entrant's turns long-poll on replica 0 and the event stream on
    replica 2 wake for a move posted through replica 1, and the stream sees
    the abandonment posted through replica 1 and ends."""
    r0, r1, r2 = cluster.replicas
    status, created, _ = call(
        r0.url,
        "POST",
        "/v1/tournaments",
        {
            **OPEN_MATCH,
            "name": "waiters",
            "games_per_pairing": 1,
            # The longest time per move: no timeout is played meanwhile.
            "move_ms": 600000,
            "entrants": [{"name": "ada"}, {"name": "bob"}],
            "start": True,
        },
    )
    assert status == 201, created
    tournament = created["tournament"]["id"]
    tokens = {t["name"]: t["token"] for t in created["entrant_tokens"]}

    def started() -> dict | None:
        games = get(r1.url, f"/v1/tournaments/{tournament}/games")["games"]
        return games[0] if games[0]["status"] == "in_progress" else None

    game = wait_until("the tournament's game to start", started, GUARD)
    names = {s["seat"]: s["name"] for s in game["seats"]}
    mover, waiter = names[0], names[1]
    turns_path = f"/v1/tournaments/{tournament}/turns"

    stream = EventStream(r2.url, tournament, TOURNAMENT_GUARD)
    try:
        first = stream.next("the stream's first event", GUARD)
        assert first is not None and first[0] == "tournament", first
        open_before = long_polls_open(r0.url)
        with ThreadPoolExecutor(1) as pool:
            asked = time.monotonic()
            polling = pool.submit(
                call,
                r0.url,
                "GET",
                f"{turns_path}?timeout_ms={WAIT_MS}",
                token=tokens[waiter],
                timeout=WAIT_MS / 1000 + GUARD,
            )
            wait_for_long_poll(r0, polling, open_before, GUARD)
            assert not polling.done(), f"{waiter} had a turn before any move: {polling.result()}"
            status, turns, _ = call(
                r1.url, "GET", f"{turns_path}?timeout_ms=0", token=tokens[mover]
            )
            assert status == 200 and len(turns["turns"]) == 1, turns
            turn = turns["turns"][0]
            assert (turn["match_id"], turn["ply"], turn["seat"]) == (game["match_id"], 0, 0)
            move = turn["legal_moves"][0]["text"]
            acked = play(r1.url, game["match_id"], tokens[mover], 0, 0, move)
            cluster.acknowledge([acked])
            status, woken, _ = polling.result(timeout=WAIT_MS / 1000 + GUARD)
            waited = time.monotonic() - asked
        assert status == 200, woken
        assert [(t["match_id"], t["ply"], t["seat"]) for t in woken["turns"]] == [
            (game["match_id"], 1, 1)
        ], f"{r0.name} woke {waiter} with {woken}"
        assert waited < WAIT_MS / 1000, (
            f"{waiter}'s turns long-poll on {r0.name} answered only at its timeout"
            f" ({waited:.1f} s): the move stored through {r1.name} did not wake it"
        )

        _, event = stream.until(
            f"the move event on {r2.name}",
            lambda kind, data: kind == "move",
            GUARD,
        )
        assert (event["match_id"], event["ply"], event["seat"]) == (game["match_id"], 0, 0), event
        assert event["move"] == "-".join(map(str, acked.path)), event

        status, view, _ = call(
            r1.url, "POST", f"/v1/tournaments/{tournament}/abandon", token=created["admin_token"]
        )
        assert status == 200 and view["status"] == "abandoned", view
        _, event = stream.until(
            f"the abandonment on {r2.name}",
            lambda kind, data: kind == "tournament" and data["tournament"]["status"] != "running",
            GUARD,
        )
        assert event["tournament"]["status"] == "abandoned", event
        # The stream ends after the tournament does.
        while (item := stream.next(f"the end of the stream on {r2.name}", GUARD)) is not None:
            assert item[0] != "move", item
    finally:
        stream.close()


def read_to_the_end(stream: EventStream, replica: Replica) -> list[tuple[str, Any]]:
    """Every event until the stream ends (it does after the tournament)."""
    events = []
    while (
        item := stream.next(f"the end of the stream on {replica.name}", TOURNAMENT_GUARD)
    ) is not None:
        events.append(item)
    return events


def test_deadlines_are_played_once_and_every_replica_streams_every_event(
    cluster: Cluster,
) -> None:
    """An open entrant that never moves, in a tournament every replica
    follows: each of its turns is exactly one timeout (the greedy move
    played for it), and it forfeits each of its games at its
    `max_timeouts`-th, so no replica plays a deadline another one played
    already. The event stream of each replica, opened before the start,
    carries every game's start, every stored move, every timeout and every
    game's end exactly once, wherever they were stored, then the end of the
    tournament."""
    max_timeouts = 3
    status, created, _ = call(
        cluster.replicas[1].url,
        "POST",
        "/v1/tournaments",
        {
            "name": "deadlines",
            "board": "rhombus6p6",
            "layout": "2",
            "rules": "classic",
            "max_plies": 200,
            "format": "round_robin",
            "games_per_pairing": 2,
            "concurrency": 2,
            # The shortest clock: the sleeper loses its games quickly. A bot
            # cannot win on this board within three of the sleeper's turns,
            # so each of them ends by its forfeit.
            "move_ms": 100,
            "max_timeouts": max_timeouts,
            "entrants": [
                {"name": "sleeper"},
                {"name": "greedy", "bot": {"kind": "greedy", "seed": 21}},
                {"name": "alphabeta", "bot": {"kind": "alphabeta", "seed": 22, "nodes": 2000}},
            ],
        },
    )
    assert status == 201, created
    tournament = created["tournament"]["id"]
    streams = [EventStream(r.url, tournament, TOURNAMENT_GUARD) for r in cluster.replicas]
    try:
        for stream, replica in zip(streams, cluster.replicas, strict=True):
            first = stream.next(f"the first event on {replica.name}", GUARD)
            assert first is not None and first[0] == "tournament", first
        status, view, _ = call(
            cluster.replicas[2].url,
            "POST",
            f"/v1/tournaments/{tournament}/start",
            token=created["admin_token"],
        )
        assert status == 200 and view["status"] == "running", view
        streamed = [
            read_to_the_end(stream, replica)
            for stream, replica in zip(streams, cluster.replicas, strict=True)
        ]
    finally:
        for stream in streams:
            stream.close()

    reader = cluster.replicas[0].url
    view = get(reader, f"/v1/tournaments/{tournament}")
    assert view["status"] == "finished", view
    games = get(reader, f"/v1/tournaments/{tournament}/games")["games"]
    moves: Counter[tuple[int, int]] = Counter()
    timeouts: Counter[tuple[int, int, int]] = Counter()
    sleeper_timeouts = []
    for game in games:
        assert game["status"] == "finished", game
        history = get(reader, f"/v1/matches/{game['match_id']}/moves")["moves"]
        moves.update((game["match_id"], m["ply"]) for m in history)
        for seat in game["seats"]:
            if seat["name"] != "sleeper":
                assert seat["timeouts"] == 0 and not seat["forfeited"], game
                continue
            # Its turns: the moves played for it at its timeouts, then the
            # turn it forfeited at. One timeout each, no more. Its first
            # game takes `max_timeouts` of them; by then it has missed that
            # many turns in a row, so it is absent and each later game is
            # forfeited at its first turn.
            played_for_it = [m["ply"] for m in history if m["seat"] == seat["seat"]]
            assert len(played_for_it) == seat["timeouts"] - 1, (game, history)
            assert seat["forfeited"], game
            assert game["result"]["ending"] == "forfeit", game
            sleeper_timeouts.append(seat["timeouts"])
            turns = [*played_for_it, len(history)]
            timeouts.update((game["match_id"], ply, seat["seat"]) for ply in turns)
    assert sorted(sleeper_timeouts) == [1, 1, 1, max_timeouts], sleeper_timeouts
    standings = get(reader, f"/v1/tournaments/{tournament}/standings")
    row = next(r for r in standings["rows"] if r["name"] == "sleeper")
    assert (row["timeouts"], row["forfeits"]) == (max_timeouts + 3, 4), row

    started = Counter(g["match_id"] for g in games)
    expected = {"game_started": started, "move": moves, "timeout": timeouts, "game_over": started}
    wrong = []
    for replica, events in zip(cluster.replicas, streamed, strict=True):
        kinds = Counter(kind for kind, _ in events)
        assert kinds["lagged"] == 0, f"{replica.name}'s stream lagged: {kinds}"
        counted: dict[str, Counter[Any]] = {
            "game_started": Counter(e["match_id"] for k, e in events if k == "game_started"),
            "move": Counter((e["match_id"], e["ply"]) for k, e in events if k == "move"),
            "timeout": Counter(
                (e["match_id"], e["ply"], e["seat"]) for k, e in events if k == "timeout"
            ),
            "game_over": Counter(e["match_id"] for k, e in events if k == "game_over"),
        }
        for kind, count in counted.items():
            if count != expected[kind]:
                missing = sorted((expected[kind] - count).items())
                extra = sorted((count - expected[kind]).items())
                wrong.append(
                    f"{replica.name}: {kind} events missing {missing}, extra {extra}"
                    f" ({sum(count.values())} streamed, {sum(expected[kind].values())} stored)"
                )
        last_kind, last = events[-1]
        if last_kind != "tournament" or last["tournament"]["status"] != "finished":
            wrong.append(f"{replica.name}: the stream ended on {events[-1]}")
    assert not wrong, "the event streams differ from what was stored:\n" + "\n".join(wrong)


class Player:
    """A client playing stored matches (two open seats, random legal moves)
    through whichever replica answers, round robin, while replicas die and
    come back: every move answered 200 is acknowledged."""

    def __init__(self, replicas: list[Replica], seed: int) -> None:
        self.replicas = replicas
        self.rng = random.Random(seed)
        self.acked: list[Acked] = []
        self.connection_errors = 0
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.next = 0

    def url(self) -> str:
        """The next replica's URL that is up (a replica being restarted has
        none), round robin."""
        while True:
            replica = self.replicas[self.next % len(self.replicas)]
            self.next += 1
            if replica.url:
                return replica.url

    def run(self) -> None:
        try:
            match: tuple[int, dict[int, str]] | None = None
            while not self.stop.is_set():
                url = self.url()
                try:
                    if match is None:
                        match_id, tokens, _ = create_open_match(url, max_plies=60)
                        match = (match_id, tokens)
                    match_id, tokens = match
                    state = get(url, f"/v1/matches/{match_id}")
                    if state["status"] != "in_progress":
                        match = None
                        continue
                    ply, seat = state["ply"], state["to_move"]
                    move = self.rng.choice(state["legal_moves"])["text"]
                    status, answer, _ = call(
                        url,
                        "POST",
                        f"/v1/matches/{match_id}/moves",
                        {"ply": ply, "move": move},
                        tokens[seat],
                    )
                except DOWN:
                    # The replica died under the request: that move (if
                    # any) was never acknowledged. On to the next replica.
                    self.connection_errors += 1
                    continue
                if status == 409 and answer["code"] in ("stale_ply", "match_closed"):
                    # An earlier post was stored but its answer lost with
                    # the replica: read the state again.
                    continue
                assert status == 200, f"{url}: move at ply {ply} answered {status}: {answer}"
                record = answer["played"][0]
                self.acked.append(Acked(match_id, ply, seat, move, record["move"]["path"]))
                time.sleep(0.01)
        except (AssertionError, KeyError, TypeError, ValueError) as error:  # reported by the test
            self.error = error


def tournament_outcome(url: str, tournament: int) -> dict[str, Any]:
    """Everything the seeds decide: the status, the schedule with seats and
    results, the standings, and every game's moves (match ids and times
    left out: they depend on what else the database holds and on the
    clock)."""
    view = get(url, f"/v1/tournaments/{tournament}")
    games = get(url, f"/v1/tournaments/{tournament}/games")["games"]
    moves = {}
    for game in games:
        history = get(url, f"/v1/matches/{game['match_id']}/moves")["moves"]
        assert [m["ply"] for m in history] == list(range(len(history))), game
        moves[game["game"]] = [stored(m) for m in history]
    return {
        "status": view["status"],
        "counts": view["games"],
        "schedule": [{k: v for k, v in game.items() if k != "match_id"} for game in games],
        "standings": get(url, f"/v1/tournaments/{tournament}/standings"),
        "moves": moves,
    }


def start_tournament(url: str) -> int:
    status, created, _ = call(url, "POST", "/v1/tournaments", TOURNAMENT)
    assert status == 201, created
    tournament = created["tournament"]["id"]
    status, view, _ = call(
        url, "POST", f"/v1/tournaments/{tournament}/start", token=created["admin_token"]
    )
    assert status == 200 and view["status"] == "running", view
    return tournament


def wait_for_the_end(replica: Replica, tournament: int) -> None:
    def finished() -> bool:
        view = get(replica.url, f"/v1/tournaments/{tournament}")
        assert view["status"] in ("running", "finished"), view
        return view["status"] == "finished"

    wait_until("the tournament's end", finished, TOURNAMENT_GUARD, every=0.2)


def single_replica_outcome(folder: Path) -> dict[str, Any]:
    """The same tournament on one replica over a fresh SQLite file."""
    replica = Replica("single", str(folder / "single.sqlite3"), folder)
    replica.start()
    try:
        tournament = start_tournament(replica.url)
        wait_for_the_end(replica, tournament)
        return tournament_outcome(replica.url, tournament)
    finally:
        replica.stop()


def verify_acknowledged(url: str, acked: list[Acked]) -> None:
    """Every acknowledged move is stored at its ply, by its seat, with the
    text sent and the path answered."""
    histories: dict[int, list[tuple[int, int, str, list[int]]]] = {}
    for move in acked:
        if move.match_id not in histories:
            history = get(url, f"/v1/matches/{move.match_id}/moves")["moves"]
            histories[move.match_id] = [stored(m) for m in history]
        moves = histories[move.match_id]
        assert move.ply < len(moves), f"acknowledged {move} is missing: {len(moves)} moves stored"
        assert moves[move.ply] == move.stored_as(), f"acknowledged {move}, stored {moves[move.ply]}"


def test_a_tournament_survives_sigkills_and_plays_as_on_one_replica(
    cluster: Cluster, tmp_path: Path
) -> None:
    r0, r1, r2 = cluster.replicas
    player = Player(cluster.replicas, seed=3)
    player.thread.start()
    try:
        tournament = start_tournament(r0.url)
        total = len(get(r2.url, f"/v1/tournaments/{tournament}/games")["games"])

        def counts() -> Counter[str]:
            games = get(r2.url, f"/v1/tournaments/{tournament}/games")["games"]
            return Counter(game["status"] for game in games)

        def under_way(finished: int) -> Counter[str] | None:
            now = counts()
            assert now["finished"] < total, f"the tournament ended before the kill point: {now}"
            return now if now["finished"] >= finished and now["in_progress"] >= 1 else None

        # The replica that created and started the tournament dies with games
        # under way, and stays down until the other two have finished a game
        # without it: they take its work over.
        at_first_kill = wait_until("two games finished, one under way", lambda: under_way(2), GUARD)
        r0.kill()
        wait_until(
            f"a game to finish while {r0.name} is down",
            lambda: counts()["finished"] > at_first_kill["finished"],
            TOURNAMENT_GUARD,
        )
        r0.start()
        # Another dies later and comes back at once.
        at_second_kill = wait_until(
            "half the games finished, one under way", lambda: under_way(total // 2), GUARD * 5
        )
        r1.kill()
        r1.start()
        wait_for_the_end(r2, tournament)
    finally:
        player.stop.set()
        player.thread.join(timeout=GUARD)
    if player.error is not None:
        raise player.error
    assert player.acked, "the client playing through the kills had no move acknowledged"

    outcome = tournament_outcome(r0.url, tournament)
    assert outcome["status"] == "finished"
    assert outcome["counts"]["finished"] == total, outcome["counts"]
    for game in outcome["schedule"]:
        assert game["status"] == "finished" and game["result"] is not None, game
        assert all(s["timeouts"] == 0 and not s["forfeited"] for s in game["seats"]), game
    # Every replica reads the same.
    for replica in (r1, r2):
        assert tournament_outcome(replica.url, tournament) == outcome, replica.name

    # No acknowledged move lost: the races, the long-polls, the tournament's
    # waiters and the client that played through the kills.
    verify_acknowledged(r2.url, cluster.acked + player.acked)

    single = single_replica_outcome(tmp_path)
    for game in outcome["schedule"]:
        number = game["game"]
        assert outcome["moves"][number] == single["moves"][number], (
            f"game {number} was played differently on three replicas and on one"
        )
    assert outcome["schedule"] == single["schedule"]
    assert outcome["standings"] == single["standings"]
    assert outcome == single
    for replica in cluster.replicas:
        listed = get(replica.url, "/v1/tournaments?status=finished")["tournaments"]
        assert tournament in [t["id"] for t in listed], (replica.name, listed)
    print(
        f"{total} games; kills at {dict(at_first_kill)} and {dict(at_second_kill)};"
        f" {len(cluster.acked) + len(player.acked)} acknowledged moves all stored"
        f" ({player.connection_errors} connection errors met by the client)"
    )
