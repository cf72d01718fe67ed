#!/usr/bin/env python3
"""Crash test of stored matches.

Drives many matches at once over HTTP, kills the server with SIGKILL in the
middle of the load, restarts it on the same database file and checks that:

- every match whose creation was answered 201 exists;
- every move acknowledged with a 2xx (the client's move and the bot replies
  in the same answer) is stored, at its ply, by its seat, with its path;
- nothing unacknowledged half-exists: a match holds exactly its
  acknowledged moves, plus at most the whole answer of the one request that
  was in flight when the server died; its stored state (ply, position)
  agrees with replaying its moves through `POST /v1/replay`;
- `PRAGMA integrity_check` is `ok`, foreign keys hold, every match's moves
  are numbered 0..ply-1;
- the restarted server takes moves again.

Standard library only. Usage: crash_test.py [--matches 20] [--seconds 6]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matches_support import BINARY, call, start_server


@dataclass
class Tracked:
    """What the server acknowledged for one match."""

    id: int
    tokens: dict[int, str]
    acked: list[tuple[int, int, str]] = field(default_factory=list)
    in_flight: bool = False


def path_text(move: dict) -> str:
    return "-".join(map(str, move["path"])) if move["path"] else "pass"


def driver(
    url: str, seed: int, stop: threading.Event, tracked: list[Tracked], lock: threading.Lock
) -> None:
    """Play random matches until the server dies or `stop` is set."""
    rng = random.Random(seed)
    while not stop.is_set():
        seats = [{"name": f"driver-{seed}"}, {"name": "other"}]
        if seed % 2:
            seats[1] = {"name": "randy", "bot": {"kind": "random", "seed": seed}}
        try:
            status, created = call(
                url, "POST", "/v1/matches", {"board": "rhombus6p3", "seats": seats}
            )
        except OSError:
            return
        if status != 201:
            raise AssertionError(f"create answered {status}: {created}")
        match = Tracked(
            created["match"]["id"], {t["seat"]: t["token"] for t in created["seat_tokens"]}
        )
        state = created["match"]
        with lock:
            tracked.append(match)
        while state["status"] == "in_progress" and not stop.is_set():
            seat = state["to_move"]
            ply = state["ply"]
            move = rng.choice(state["legal_moves"])["text"]
            if rng.random() < 0.05:
                ply += 1  # a stale ply: must be refused and change nothing
            match.in_flight = True
            try:
                status, answer = call(
                    url,
                    "POST",
                    f"/v1/matches/{match.id}/moves",
                    {"ply": ply, "move": move},
                    match.tokens[seat],
                )
            except OSError:
                return  # the server died with this request in flight
            match.in_flight = False
            if ply != state["ply"]:
                assert status == 409 and answer["code"] == "stale_ply", (status, answer)
                continue
            if status != 200:
                raise AssertionError(f"move answered {status}: {answer}")
            for record in answer["played"]:
                match.acked.append((record["ply"], record["seat"], path_text(record["move"])))
            state = answer["match"]


def verify(url: str, tracked: list[Tracked]) -> tuple[int, int]:
    """Check every tracked match through the API; answer the moves checked
    and how many matches also hold the answer of their in-flight request."""
    checked = 0
    committed_in_flight = 0
    for match in tracked:
        status, state = call(url, "GET", f"/v1/matches/{match.id}")
        assert status == 200, f"match {match.id} was acknowledged but is gone: {status}"
        # A bot's reply to a move in flight at the kill is played after the
        # restart, in the background: wait until it is stored.
        unchanged = 0
        while (
            state["status"] == "in_progress" and state["seats"][state["to_move"]]["kind"] == "bot"
        ):
            wait = f"/v1/matches/{match.id}?wait_ply={state['ply']}&timeout_ms=20000"
            status, polled = call(url, "GET", wait)
            assert status == 200, f"match {match.id}: long-poll answered {status}"
            unchanged = unchanged + 1 if polled["version"] == state["version"] else 0
            assert unchanged < 5, f"match {match.id}: its bot never replied"
            state = polled
        status, history = call(url, "GET", f"/v1/matches/{match.id}/moves")
        assert status == 200
        stored = [(m["ply"], m["seat"], path_text(m["move"])) for m in history["moves"]]
        assert stored[: len(match.acked)] == match.acked, (
            f"match {match.id}: acknowledged moves missing or changed\n acked {match.acked}\n stored {stored}"
        )
        if len(stored) > len(match.acked):
            assert match.in_flight, (
                f"match {match.id} holds moves nobody was answered for: {stored[len(match.acked) :]}"
            )
            committed_in_flight += 1
        assert state["ply"] == len(stored), (
            f"match {match.id}: state ply {state['ply']} != {len(stored)} moves"
        )
        status, export = call(url, "GET", f"/v1/matches/{match.id}/export")
        assert status == 200
        status, replay = call(url, "POST", "/v1/replay", export)
        assert status == 200, f"match {match.id}: its moves do not replay: {replay}"
        assert replay["final"]["position_string"] == state["position"]["position_string"], (
            f"match {match.id}: stored position differs from the replayed moves"
        )
        checked += len(match.acked)
    return checked, committed_in_flight


def verify_file(database: Path, tracked: list[Tracked]) -> None:
    """Check the file itself with sqlite3, after the server stopped."""
    connection = sqlite3.connect(database)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        rows = connection.execute(
            "SELECT m.id, m.ply, COUNT(v.ply), COALESCE(MIN(v.ply), 0), COALESCE(MAX(v.ply), -1)"
            " FROM matches m LEFT JOIN moves v ON v.match_id = m.id GROUP BY m.id"
        ).fetchall()
        for match_id, ply, count, low, high in rows:
            assert ply == count and low == 0 and high == count - 1, (
                f"match {match_id}: ply {ply}, {count} moves numbered {low}..{high}"
            )
        for match in tracked:
            stored = connection.execute(
                "SELECT ply, seat, path FROM moves WHERE match_id = ? ORDER BY ply", (match.id,)
            ).fetchall()
            assert stored[: len(match.acked)] == match.acked, f"match {match.id} in the file"
        hashes = connection.execute(
            "SELECT COUNT(*) FROM seats WHERE token_hash IS NOT NULL AND length(token_hash) != 32"
        ).fetchone()[0]
        assert hashes == 0
    finally:
        connection.close()
    # Tokens never reach the disk in clear, as text or as bytes.
    stored = b"".join(p.read_bytes() for p in database.parent.iterdir() if p.is_file())
    for match in tracked:
        for token in match.tokens.values():
            assert token.encode() not in stored and bytes.fromhex(token) not in stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=20, help="concurrent matches (one client thread each)"
    )
    parser.add_argument("--seconds", type=float, default=6.0, help="load before the SIGKILL")
    parser.add_argument("--binary", type=Path, default=BINARY)
    args = parser.parse_args()
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        database = Path(scratch) / "crash.sqlite3"
        server, url = start_server(database, args.binary)
        tracked: list[Tracked] = []
        lock = threading.Lock()
        stop = threading.Event()
        errors: list[BaseException] = []

        def run(seed: int) -> None:
            try:
                driver(url, seed, stop, tracked, lock)
            except (AssertionError, KeyError, TypeError, ValueError) as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=run, args=(seed,)) for seed in range(args.matches)]
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)
        acked_before_kill = sum(len(m.acked) for m in tracked)
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        for thread in threads:
            thread.join(timeout=60)
        stop.set()
        if errors:
            raise errors[0]
        assert acked_before_kill > 0, "no move was acknowledged before the kill"

        server, url = start_server(database, args.binary)
        try:
            checked, committed_in_flight = verify(url, tracked)
            # The restarted server plays on.
            live = next(
                (
                    m
                    for m in tracked
                    if call(url, "GET", f"/v1/matches/{m.id}")[1]["status"] == "in_progress"
                ),
                None,
            )
            if live is not None:
                state = call(url, "GET", f"/v1/matches/{live.id}")[1]
                status, answer = call(
                    url,
                    "POST",
                    f"/v1/matches/{live.id}/moves",
                    {"ply": state["ply"], "move": state["legal_moves"][0]["text"]},
                    live.tokens[state["to_move"]],
                )
                assert status == 200, answer
        finally:
            server.terminate()
            server.wait()
        verify_file(database, tracked)
        in_flight = sum(m.in_flight for m in tracked)
    print(
        f"crash test ok: {len(tracked)} matches, {checked} acknowledged moves all present after SIGKILL"
        f" ({in_flight} requests were in flight, {committed_in_flight} of them committed whole),"
        f" integrity_check ok, {time.monotonic() - began:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
