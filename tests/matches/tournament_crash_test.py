#!/usr/bin/env python3
"""Crash test of tournaments.

Runs a round robin over HTTP (two open entrants played by client threads of
this script, random legal moves through the turns long-poll; two built-in
bots), kills the server with SIGKILL once some games have finished and some
are under way, restarts it on the same database file (on a new port: the
clients are told the new URL and retry with backoff meanwhile) and lets the
tournament finish. Then it checks that:

- the tournament is `finished`, every game of its schedule too (none left
  pending or in progress), each with a result;
- every move the server acknowledged with 200 (the entrant's move and any
  bot reply in the same answer) is in its match's history at its ply, by its
  seat, with the path the answer reported (and the ends the client sent);
- the restarted server enforces the deadlines: one open entrant, the
  sleeper, never moves again after the kill. Each of its turns after the
  kill is a recorded timeout; it forfeits every game that had not started
  at the kill (a game cannot end within its first `max_timeouts` turns),
  and in a game under way at the kill it forfeits unless the game ended
  first;
- `PRAGMA integrity_check` is `ok`.

What the tournament looked like at the kill is read from a copy of the
database file taken while the server was dead. The assertions do not
depend on timing; the only time limit is a liveness guard (`--guard`).

Standard library only. Usage: tournament_crash_test.py [--binary PATH]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matches_support import BINARY, call, start_server

# What a client sees when the server dies under it.
DOWN = (OSError, http.client.HTTPException)

MOVE_MS = 1500
MAX_TIMEOUTS = 2


@dataclass
class Shared:
    """What the client threads share with the main thread."""

    url: str
    tournament: int
    deadline: float
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def current_url(self) -> str:
        with self.lock:
            return self.url

    def set_url(self, url: str) -> None:
        with self.lock:
            self.url = url


@dataclass
class Client:
    """An open entrant played by a thread: what the server acknowledged."""

    name: str
    token: str
    sleeper: bool
    # (match_id, ply, seat, text sent or None for a bot reply, path answered)
    acked: list[tuple[int, int, int, str | None, list[int]]] = field(default_factory=list)
    refused: int = 0
    connection_errors: int = 0
    asleep: bool = False
    done: bool = False
    error: BaseException | None = None


def play(client: Client, shared: Shared, seed: int) -> None:
    """Random legal moves through the turns long-poll until the entrant is
    done. At its first connection error the sleeper stops for good; the
    other client retries with backoff, at the URL the main thread gives."""
    rng = random.Random(seed)
    backoff = 0.05
    turns_path = f"/v1/tournaments/{shared.tournament}/turns?timeout_ms=5000"
    while not shared.stop.is_set() and time.monotonic() < shared.deadline:
        url = shared.current_url()
        try:
            status, answer = call(url, "GET", turns_path, token=client.token, timeout=30)
            assert status == 200, f"{client.name}: turns answered {status}: {answer}"
            if answer["done"]:
                client.done = True
                return
            for turn in answer["turns"]:
                move = rng.choice(turn["legal_moves"])["text"]
                status, reply = call(
                    url,
                    "POST",
                    f"/v1/matches/{turn['match_id']}/moves",
                    {"ply": turn["ply"], "move": move},
                    client.token,
                )
                if status == 409:
                    # A timeout was played first, or the game ended: a
                    # refusal that changes nothing.
                    client.refused += 1
                    continue
                assert status == 200, f"{client.name}: move answered {status}: {reply}"
                for record in reply["played"]:
                    sent = move if record["ply"] == turn["ply"] else None
                    client.acked.append(
                        (
                            turn["match_id"],
                            record["ply"],
                            record["seat"],
                            sent,
                            record["move"]["path"],
                        )
                    )
        except DOWN:
            client.connection_errors += 1
            if client.sleeper:
                client.asleep = True
                return
            time.sleep(backoff)
            backoff = min(backoff * 2, 0.5)
            continue
        backoff = 0.05


def snapshot(database: Path, scratch: Path, tournament: int) -> dict[int, dict[str, Any]]:
    """The tournament's games as the killed server left them on disk, read
    from a copy of the file (and its write-ahead log), so that the server
    restarts on the file exactly as the kill left it. Keyed by game number:
    the match (None when not started), its status, ply and timeouts by seat."""
    copy = scratch / "at-kill.sqlite3"
    shutil.copyfile(database, copy)
    wal = database.with_name(database.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
    connection = sqlite3.connect(copy)
    try:
        games = {}
        rows = connection.execute(
            "SELECT g.game, g.match_id, m.status, m.ply FROM tournament_games g"
            " LEFT JOIN matches m ON m.id = g.match_id WHERE g.tournament_id = ?",
            (tournament,),
        ).fetchall()
        for game, match_id, status, ply in rows:
            timeouts: dict[int, int] = {}
            if match_id is not None:
                for seat, count in connection.execute(
                    "SELECT seat, COUNT(*) FROM timeouts WHERE match_id = ? GROUP BY seat",
                    (match_id,),
                ):
                    timeouts[seat] = count
            games[game] = {
                "match_id": match_id,
                "status": status or "pending",
                "ply": ply or 0,
                "timeouts": timeouts,
            }
        return games
    finally:
        connection.close()


def wait_for(shared: Shared, what: str, check) -> Any:
    """Polls `check()` (None: not yet) every 0.1 s until the liveness guard."""
    while True:
        try:
            value = check()
        except DOWN:
            value = None
        if value is not None:
            return value
        if time.monotonic() > shared.deadline:
            raise AssertionError(f"liveness guard: {what} did not happen in time")
        time.sleep(0.1)


def verify_moves(url: str, clients: list[Client]) -> tuple[int, dict[int, list[dict]]]:
    """Every acknowledged move is stored at its ply, by its seat, with the
    path answered (and the ends sent). Answers the moves checked and every
    match's history read."""
    histories: dict[int, list[dict]] = {}
    checked = 0
    for client in clients:
        for match_id, ply, seat, sent, path in client.acked:
            if match_id not in histories:
                status, history = call(url, "GET", f"/v1/matches/{match_id}/moves")
                assert status == 200, f"match {match_id}: history answered {status}"
                histories[match_id] = history["moves"]
            moves = histories[match_id]
            assert ply < len(moves), f"match {match_id}: acknowledged ply {ply} is missing"
            stored = moves[ply]
            assert stored["ply"] == ply and stored["seat"] == seat, (match_id, ply, stored)
            assert stored["move"]["path"] == path, (
                f"match {match_id} ply {ply}: stored {stored['move']['path']}, answered {path}"
            )
            if sent is not None:
                assert stored["move"]["text"] == sent, (
                    f"match {match_id} ply {ply}: stored {stored['move']['text']}, sent {sent}"
                )
            checked += 1
    return checked, histories


def verify_sleeper(
    url: str,
    games: list[dict],
    at_kill: dict[int, dict[str, Any]],
    sleeper: str,
) -> tuple[int, int, int]:
    """The sleeper's turns after the kill were all timeouts, and it forfeited
    as the deadlines require. Answers its games unfinished at the kill, its
    timeouts after the kill, and its forfeits."""
    unfinished = timeouts_after = forfeits = 0
    for game in games:
        seats = [s for s in game["seats"] if s["name"] == sleeper]
        if not seats:
            continue
        seat = seats[0]
        before = at_kill[game["game"]]
        if before["status"] in ("finished", "abandoned"):
            continue
        unfinished += 1
        match_id = game["match_id"]
        status, history = call(url, "GET", f"/v1/matches/{match_id}/moves")
        assert status == 200
        status, state = call(url, "GET", f"/v1/matches/{match_id}")
        assert status == 200
        kill_ply = before["ply"] if before["match_id"] is not None else 0
        # Moves stored at or after the kill's ply in the sleeper's seat: the
        # server played them for it (it never moved again).
        played_for_it = sum(
            1 for m in history["moves"] if m["ply"] >= kill_ply and m["seat"] == seat["seat"]
        )
        new_timeouts = seat["timeouts"] - before["timeouts"].get(seat["seat"], 0)
        timeouts_after += new_timeouts
        turns = played_for_it + (1 if seat["forfeited"] else 0)
        assert new_timeouts == turns, (
            f"game {game['game']} (match {match_id}): the sleeper had {turns} turns after"
            f" the kill but {new_timeouts} timeouts were recorded"
        )
        # It forfeits at its MAX_TIMEOUTS-th timeout in the game, or at its
        # first once its entrant is absent (MAX_TIMEOUTS in a row, over its
        # games): each stored as its forfeit, at that turn, with why.
        forfeit = (state.get("result") or {}).get("forfeits", [])
        absent = [f["reason"] for f in forfeit] == ["absent"]
        due = seat["timeouts"] >= MAX_TIMEOUTS or absent
        assert seat["forfeited"] == due, (game, seat, state.get("result"))
        if seat["forfeited"]:
            forfeits += 1
            assert state["result"]["ending"] == "forfeit", (match_id, state["result"])
            at = [(f["seat"], f["ply"]) for f in forfeit]
            assert at == [(seat["seat"], state["ply"])], (match_id, state["result"])
            assert forfeit[0]["reason"] in ("timeouts", "absent"), (match_id, state["result"])
            assert "forfeited" in game["result"]["summary"], game["result"]
        if before["match_id"] is None:
            # Not started at the kill: nothing but the sleeper's deadlines can
            # end it within its first MAX_TIMEOUTS turns.
            assert seat["forfeited"], (
                f"game {game['game']} started after the restart, yet the sleeper did not"
                f" forfeit it: {seat}, result {game['result']}"
            )
    return unfinished, timeouts_after, forfeits


def verify_file(database: Path) -> None:
    connection = sqlite3.connect(database)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, default=BINARY)
    parser.add_argument("--board", default="rhombus5p3")
    parser.add_argument("--seed", type=int, default=1, help="the clients' random moves")
    parser.add_argument(
        "--guard", type=float, default=180.0, help="liveness guard for the whole run, seconds"
    )
    args = parser.parse_args()
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        database = scratch / "tournament.sqlite3"
        server, url = start_server(database, args.binary)
        shared = None
        try:
            status, created = call(
                url,
                "POST",
                "/v1/tournaments",
                {
                    "name": "crash test",
                    "board": args.board,
                    "layout": "2",
                    "max_plies": 200,
                    "format": "round_robin",
                    "games_per_pairing": 2,
                    "move_ms": MOVE_MS,
                    "max_timeouts": MAX_TIMEOUTS,
                    "concurrency": 2,
                    "entrants": [
                        {"name": "ada"},
                        {"name": "sleeper"},
                        {"name": "greedy", "bot": {"kind": "greedy", "seed": 1}},
                        {"name": "random", "bot": {"kind": "random", "seed": 2}},
                    ],
                    "start": True,
                },
            )
            assert status == 201, f"create answered {status}: {created}"
            tournament = created["tournament"]["id"]
            total = created["tournament"]["games"]["total"]
            tokens = {t["name"]: t["token"] for t in created["entrant_tokens"]}
            shared = Shared(url, tournament, began + args.guard)
            clients = [
                Client("ada", tokens["ada"], sleeper=False),
                Client("sleeper", tokens["sleeper"], sleeper=True),
            ]

            def run(client: Client, seed: int) -> None:
                try:
                    play(client, shared, seed)
                except (AssertionError, KeyError, TypeError, ValueError) as error:  # reported below
                    client.error = error

            threads = [
                threading.Thread(target=run, args=(client, args.seed + n), daemon=True)
                for n, client in enumerate(clients)
            ]
            for thread in threads:
                thread.start()

            # Kill once three games are over (one of them the sleeper's), some
            # are under way, and the sleeper has at least two games left to
            # start: it plays one game at a time, so one of them at least is
            # still unstarted at the kill.
            def ready() -> dict | None:
                path = f"/v1/tournaments/{tournament}/games"
                games = call(shared.current_url(), "GET", path)[1]["games"]
                count = {
                    s: sum(g["status"] == s for g in games) for s in ("finished", "in_progress")
                }
                sleepers = [g for g in games if any(s["name"] == "sleeper" for s in g["seats"])]
                if (
                    count["finished"] >= 3
                    and count["in_progress"] >= 1
                    and any(g["status"] == "finished" for g in sleepers)
                    and sum(g["status"] == "pending" for g in sleepers) >= 2
                ):
                    return count
                return None

            at_poll = wait_for(shared, "the kill point", ready)
            os.kill(server.pid, signal.SIGKILL)
            server.wait()
            killed_at = time.monotonic()
            at_kill = snapshot(database, scratch, tournament)
            acked_before_kill = sum(len(c.acked) for c in clients)

            server, url = start_server(database, args.binary)
            shared.set_url(url)

            def finished() -> dict | None:
                status, view = call(url, "GET", f"/v1/tournaments/{tournament}")
                assert status == 200, view
                assert view["status"] in ("running", "finished"), view["status"]
                return view if view["status"] == "finished" else None

            view = wait_for(shared, "the tournament's end", finished)
            for thread in threads:
                thread.join(timeout=max(1.0, shared.deadline - time.monotonic()))
            shared.stop.set()
            for client in clients:
                if client.error is not None:
                    raise client.error
            ada, sleeper = clients
            assert sleeper.asleep, "the sleeper never saw the server go down"
            assert ada.done, "ada never heard that it was done"
            assert acked_before_kill > 0, "no move was acknowledged before the kill"

            # Every game of the schedule finished, with a result.
            assert view["games"]["finished"] == total, view["games"]
            status, schedule = call(url, "GET", f"/v1/tournaments/{tournament}/games")
            assert status == 200
            games = schedule["games"]
            assert len(games) == total
            for game in games:
                assert game["status"] == "finished" and game["result"] is not None, game

            checked, _ = verify_moves(url, clients)
            unfinished, timeouts_after, forfeits = verify_sleeper(url, games, at_kill, "sleeper")
            unstarted = sum(
                1
                for g in games
                if at_kill[g["game"]]["match_id"] is None
                and any(s["name"] == "sleeper" for s in g["seats"])
            )
            assert unstarted >= 1, "no game of the sleeper was left to start at the kill"
            assert forfeits >= unstarted
            # The standings count every game, and the sleeper's timeouts and
            # forfeits as the schedule shows them.
            status, table = call(url, "GET", f"/v1/tournaments/{tournament}/standings")
            assert status == 200 and table["games_counted"] == total, table
            row = next(r for r in table["rows"] if r["name"] == "sleeper")
            seats = [s for g in games for s in g["seats"] if s["name"] == "sleeper"]
            assert row["timeouts"] == sum(s["timeouts"] for s in seats), row
            assert row["forfeits"] == sum(s["forfeited"] for s in seats) >= forfeits, row
        finally:
            if shared is not None:
                shared.stop.set()
            server.terminate()
            server.wait()
        verify_file(database)
    print(
        f"tournament crash test ok: {total} games finished ({at_poll['finished']} finished and"
        f" {at_poll['in_progress']} under way at the SIGKILL); {checked} acknowledged moves all"
        f" present ({acked_before_kill} before the kill); ada retried through"
        f" {ada.connection_errors} connection errors; the sleeper's {unfinished} games left at"
        f" the kill had {timeouts_after} timeouts and {forfeits} forfeits after the restart"
        f" ({unstarted} not yet started, all forfeited); restart to end"
        f" {time.monotonic() - killed_at:.1f} s; integrity_check ok;"
        f" {time.monotonic() - began:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
