"""A tournament played through one server by clients in two languages.

A fresh server on a fresh file; a round robin of five entrants on a small
board: two Python entrants, each played by `Client.play_tournament` in its
own thread (a greedy `sternhalma.Bot`, and a plain function that plays the
first legal move), one JavaScript entrant
(examples/clients/tournament_entrant.js, Node's built-in fetch, random moves)
and two built-in bots. The clients end by themselves when the server says
they have no game left (`done`); then the schedule, the seats, the standings
(JSON and CSV), the results and the stored moves are checked against each
other. A second test checks the refusals: a wrong token on the turns
long-poll, an entrant's token on another entrant's game, a move out of turn
or at a stale ply, a move after the tournament is abandoned. Runs under
pytest, or alone: `python3 tests/matches/test_tournament.py`.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any

import sternhalma
from sternhalma.client import Standings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matches_support import ROOT, call, start_server

CLIENTS = ROOT / "examples" / "clients"
# Liveness guards only: every wait below ends when the work does.
GUARD_SECONDS = 300
GAMES_PER_PAIRING = 2
# The longest time per move the server allows: the assertions below that
# nobody timed out must not depend on how busy the machine is.
GAME = {"board": "rhombus5p3", "layout": "2", "rules": "classic", "move_ms": 600000}


def first_legal_move(position: sternhalma.Position) -> sternhalma.Move:
    return position.legal_moves[0]


class Entrant:
    """One Python entrant: `Client.play_tournament` with a bot, keeping every
    move it posted."""

    def __init__(self, url: str, tournament: int, token: str, bot: Any) -> None:
        self.client = sternhalma.Client(url)
        self.tournament, self.token, self.bot = tournament, token, bot
        self.posted: list[tuple[int, int, str]] = []
        self.standings: Standings | None = None

    def play(self) -> None:
        self.standings = self.client.play_tournament(
            self.tournament,
            self.token,
            self.bot,
            on_move=lambda turn, text: self.posted.append((turn["match_id"], turn["ply"], text)),
        )


def get(url: str, path: str) -> Any:
    status, body = call(url, "GET", path)
    assert status == 200, (path, status, body)
    return body


def play_tournament(node: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        server, url = start_server(Path(scratch) / "tournament.sqlite3")
        try:
            return play_on(url, node)
        finally:
            server.terminate()
            server.wait()


def play_on(url: str, node: str) -> dict[str, Any]:
    started = time.monotonic()
    names = ["py-greedy", "py-first", "js-random", "bot-greedy", "bot-random"]
    status, created = call(
        url,
        "POST",
        "/v1/tournaments",
        {
            **GAME,
            "name": "two languages",
            "format": "round_robin",
            "games_per_pairing": GAMES_PER_PAIRING,
            "entrants": [
                {"name": "py-greedy"},
                {"name": "py-first"},
                {"name": "js-random"},
                {"name": "bot-greedy", "bot": {"kind": "greedy", "seed": 7}},
                {"name": "bot-random", "bot": {"kind": "random", "seed": 8}},
            ],
        },
    )
    assert status == 201, created
    tournament = created["tournament"]["id"]
    assert created["tournament"]["status"] == "waiting"
    tokens = {t["name"]: t["token"] for t in created["entrant_tokens"]}
    assert sorted(tokens) == ["js-random", "py-first", "py-greedy"]

    # The clients start before the tournament does: they wait for turns.
    python_entrants = {
        "py-greedy": Entrant(
            url, tournament, tokens["py-greedy"], sternhalma.Bot("greedy", seed=1)
        ),
        "py-first": Entrant(url, tournament, tokens["py-first"], first_legal_move),
    }
    # One thread each. If a client hangs, the guard fails the test and the
    # server's end (the caller stops it) ends the client's long-poll.
    threads = ThreadPoolExecutor(max_workers=len(python_entrants))
    playing = {name: threads.submit(entrant.play) for name, entrant in python_entrants.items()}
    javascript = subprocess.Popen(
        [node, str(CLIENTS / "tournament_entrant.js"), url, str(tournament), tokens["js-random"]]
        + ["--seed", "5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        status, view = call(
            url, "POST", f"/v1/tournaments/{tournament}/start", token=created["admin_token"]
        )
        assert status == 200 and view["status"] == "running", view
        out, err = javascript.communicate(timeout=GUARD_SECONDS)
        for future in playing.values():
            future.result(timeout=GUARD_SECONDS)  # raises what the client raised
    finally:
        if javascript.poll() is None:
            javascript.kill()
        threads.shutdown(wait=False, cancel_futures=True)
    assert javascript.returncode == 0, (out, err)

    # Every open entrant is done; the built-in bots' last games may still be
    # under way: wait for the tournament's end on its event stream (it ends
    # after the tournament does), with a guard.
    wait_for_the_end(url, tournament)
    view = get(url, f"/v1/tournaments/{tournament}")
    assert view["status"] == "finished", view
    games = get(url, f"/v1/tournaments/{tournament}/games")["games"]
    standings = get(url, f"/v1/tournaments/{tournament}/standings")
    check_schedule(games, names)
    check_standings(standings, games, names)
    check_csv(url, tournament, names)
    check_moves(url, games, python_entrants)

    # Each client's own row, as it saw it when it was done.
    js_row = json.loads(out.strip().splitlines()[-1])
    assert js_row["name"] == "js-random", out
    assert js_row["games"] == 4 * GAMES_PER_PAIRING and js_row["timeouts"] == 0
    for name, entrant in python_entrants.items():
        assert entrant.standings is not None
        row = next(r for r in entrant.standings.rows if r.name == name)
        assert row.games == 4 * GAMES_PER_PAIRING and row.timeouts == 0
    return {"standings": standings, "seconds": time.monotonic() - started, "javascript": out}


def wait_for_the_end(url: str, tournament: int) -> None:
    """Reads the tournament's event stream until it closes, which it does
    after the tournament's end (at once if it is over already)."""
    with urllib.request.urlopen(
        f"{url}/v1/tournaments/{tournament}/events", timeout=GUARD_SECONDS
    ) as stream:
        for _ in stream:
            pass


def check_schedule(games: list[dict], names: list[str]) -> None:
    assert len(games) == len(list(combinations(names, 2))) * GAMES_PER_PAIRING
    pairs: dict[frozenset[str], list[str]] = {}
    for game in games:
        assert game["status"] == "finished", game
        assert game["match_id"] is not None
        seats = sorted(game["seats"], key=lambda s: s["seat"])
        assert [s["seat"] for s in seats] == [0, 1]
        assert all(s["timeouts"] == 0 and not s["forfeited"] for s in seats), game
        pairs.setdefault(frozenset(s["name"] for s in seats), []).append(seats[0]["name"])
        # The result names the entrants of the seats, best first.
        result = game["result"]
        assert result["ending"] == "outcome", result
        by_seat = {s["seat"]: s["name"] for s in seats}
        places = result["places"]
        assert sorted(p["seat"] for p in places) == [0, 1]
        assert all(p["name"] == by_seat[p["seat"]] for p in places), result
        assert [p["place"] for p in places] == sorted(p["place"] for p in places)
        assert places[0]["result"] >= places[1]["result"]
        tie = places[0]["result"] == places[1]["result"]
        assert [p["place"] for p in places] == ([1, 1] if tie else [1, 2]), result
    # Every pair met exactly GAMES_PER_PAIRING times, each once in seat 0.
    assert set(pairs) == {frozenset(pair) for pair in combinations(names, 2)}
    for pair, first_seats in pairs.items():
        assert sorted(first_seats) == sorted(pair), (pair, first_seats)


def points_by_name(games: list[dict]) -> tuple[Counter[str], Counter[str]]:
    """Points (default win 1, draw 0.5, loss 0) and games, from the results."""
    points: Counter[str] = Counter()
    played: Counter[str] = Counter()
    for game in games:
        first, second = game["result"]["places"]
        played.update([first["name"], second["name"]])
        if first["result"] == second["result"]:
            points.update({first["name"]: 0.5, second["name"]: 0.5})
        else:
            points[first["name"]] += 1
    return points, played


def check_standings(standings: dict, games: list[dict], names: list[str]) -> None:
    rows = standings["rows"]
    assert sorted(r["name"] for r in rows) == sorted(names)
    assert standings["games_counted"] == len(games)
    # Each 2-player game hands out exactly one point (1 + 0, or 0.5 + 0.5).
    assert sum(r["points"] for r in rows) == len(games)
    points, played = points_by_name(games)
    for row in rows:
        assert row["games"] == (len(names) - 1) * GAMES_PER_PAIRING == played[row["name"]]
        assert row["points"] == points[row["name"]], row
        assert row["wins"] + row["draws"] + row["losses"] == row["games"]
        assert row["points"] == row["wins"] + 0.5 * row["draws"]
        assert row["timeouts"] == 0 and row["forfeits"] == 0, row
        assert isinstance(row["rating"], float) and isinstance(row["uncertainty"], float)
        assert 0 < row["uncertainty"] < 25 / 3, row  # every entrant played
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert rows[0]["rank"] == 1
    assert [r["points"] for r in rows] == sorted((r["points"] for r in rows), reverse=True)
    cross = {row["name"]: row for row in standings["cross_table"]}
    for row in standings["cross_table"]:
        assert len(row["against"]) == len(names) - 1
        assert all(cell["games"] == GAMES_PER_PAIRING for cell in row["against"])
        assert sum(cell["points"] for cell in row["against"]) == points[row["name"]]
    assert sorted(cross) == sorted(names)


def check_csv(url: str, tournament: int, names: list[str]) -> None:
    with urllib.request.urlopen(f"{url}/v1/tournaments/{tournament}/standings.csv") as answer:
        assert answer.headers["Content-Type"].startswith("text/csv")
        text = answer.read().decode()
    lines = text.splitlines()
    assert len(lines) == 1 + len(names), text
    header, *rows = csv.reader(io.StringIO(text))
    assert header[:9] == [
        "rank",
        "entrant",
        "name",
        "kind",
        "games",
        "wins",
        "draws",
        "losses",
        "points",
    ]
    assert sorted(row[2] for row in rows) == sorted(names)


def check_moves(url: str, games: list[dict], python_entrants: dict[str, Entrant]) -> None:
    """Every move stored for a Python entrant's seat is one it posted (no
    timeout played one for it), and every move it posted was stored, along
    the path it posted (the client posts a Move by its full path)."""
    stored: dict[str, list[tuple[int, int, str]]] = {name: [] for name in python_entrants}
    for game in games:
        seats = {s["seat"]: s["name"] for s in game["seats"]}
        for move in get(url, f"/v1/matches/{game['match_id']}/moves")["moves"]:
            name = seats[move["seat"]]
            if name in stored:
                path = "-".join(map(str, move["move"]["path"])) or "pass"
                stored[name].append((game["match_id"], move["ply"], path))
    for name, entrant in python_entrants.items():
        assert stored[name], name
        assert sorted(entrant.posted) == sorted(stored[name]), name


def test_a_tournament_of_python_javascript_and_built_in_entrants() -> None:
    node = shutil.which("node")
    if node is None:
        import pytest

        pytest.skip("node is not installed")
    play_tournament(node)


def test_tokens_and_turns_are_checked() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        server, url = start_server(Path(scratch) / "tokens.sqlite3")
        try:
            check_tokens(url)
        finally:
            server.terminate()
            server.wait()


def check_tokens(url: str) -> None:
    # Three open entrants, one game at a time: the third is not in the first.
    status, created = call(
        url,
        "POST",
        "/v1/tournaments",
        {
            **GAME,
            "move_ms": 600000,
            "concurrency": 1,
            "games_per_pairing": 2,
            "entrants": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
            "start": True,
        },
    )
    assert status == 201, created
    tournament = created["tournament"]["id"]
    tokens = {t["name"]: t["token"] for t in created["entrant_tokens"]}
    admin = created["admin_token"]
    turns = f"/v1/tournaments/{tournament}/turns"

    # A wrong token (well formed, nobody's), and the admin token, are refused.
    for token in ("ab" * 32, admin):
        status, problem = call(url, "GET", f"{turns}?timeout_ms=0", token=token)
        assert status == 403 and problem["code"] == "wrong_token", problem
    status, problem = call(url, "GET", f"{turns}?timeout_ms=0")
    assert status == 401 and problem["code"] == "missing_token", problem

    # The first game's seat 0 moves first: its long-poll answers once the
    # game has started.
    games = get(url, f"/v1/tournaments/{tournament}/games")["games"]
    seats = {s["seat"]: s["name"] for s in games[0]["seats"]}
    mover, waiter = seats[0], seats[1]
    (outsider,) = set(tokens) - {mover, waiter}
    status, answer = call(url, "GET", f"{turns}?timeout_ms=30000", token=tokens[mover])
    assert status == 200 and not answer["done"], answer
    (turn,) = answer["turns"]
    assert turn["game"] == 0 and turn["seat"] == 0 and turn["ply"] == 0
    match = f"/v1/matches/{turn['match_id']}"
    version = get(url, match)["version"]
    move = {"ply": turn["ply"], "move": turn["legal_moves"][0]["text"]}

    # Nothing for the others: the waiter is not to move, the outsider not
    # playing yet.
    for name in (waiter, outsider):
        status, answer = call(url, "GET", f"{turns}?timeout_ms=0", token=tokens[name])
        assert status == 200 and answer["turns"] == [] and not answer["done"], answer

    # Another entrant's token on this game: 403, nothing stored.
    status, problem = call(url, "POST", f"{match}/moves", move, token=tokens[outsider])
    assert status == 403 and problem["code"] == "wrong_token", problem
    # The admin token of the tournament is not a seat's token either.
    status, problem = call(url, "POST", f"{match}/moves", move, token=admin)
    assert status == 403 and problem["code"] == "wrong_token", problem
    # The other seat of the game, out of turn: 409, nothing stored.
    status, problem = call(url, "POST", f"{match}/moves", move, token=tokens[waiter])
    assert status == 409 and problem["code"] == "not_your_turn", problem
    # The mover naming the wrong ply: 409.
    stale = {**move, "ply": turn["ply"] + 1}
    status, problem = call(url, "POST", f"{match}/moves", stale, token=tokens[mover])
    assert status == 409 and problem["code"] == "stale_ply", problem
    state = get(url, match)
    assert state["version"] == version and state["ply"] == 0, state

    # The mover's move is taken; then it is the waiter's turn.
    status, answer = call(url, "POST", f"{match}/moves", move, token=tokens[mover])
    assert status == 200, answer
    assert get(url, match)["version"] == version + 1
    status, answer = call(url, "GET", f"{turns}?timeout_ms=30000", token=tokens[waiter])
    assert status == 200 and [t["ply"] for t in answer["turns"]] == [1], answer
    reply = {"ply": 1, "move": answer["turns"][0]["legal_moves"][0]["text"]}
    status, problem = call(url, "POST", f"{match}/moves", move, token=tokens[mover])
    assert status == 409 and problem["code"] == "stale_ply", problem

    # Abandoned: every entrant is done, and a move is refused.
    status, view = call(url, "POST", f"/v1/tournaments/{tournament}/abandon", token=admin)
    assert status == 200 and view["status"] == "abandoned", view
    for token in tokens.values():
        status, answer = call(url, "GET", f"{turns}?timeout_ms=30000", token=token)
        assert status == 200 and answer["done"] and answer["turns"] == [], answer
    status, problem = call(url, "POST", f"{match}/moves", reply, token=tokens[waiter])
    assert status == 409 and problem["code"] == "match_closed", problem
    assert get(url, match)["status"] == "abandoned"


def main() -> None:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not installed")
    played = play_tournament(node)
    test_tokens_and_turns_are_checked()
    for row in played["standings"]["rows"]:
        print(
            f"{row['rank']:>2} {row['name']:<12} {row['points']:>4} points, {row['games']} games,"
            f" rating {row['rating']:.2f} ± {row['uncertainty']:.2f}"
        )
    print(f"tournament ok in {played['seconds']:.1f} s")


if __name__ == "__main__":
    main()
