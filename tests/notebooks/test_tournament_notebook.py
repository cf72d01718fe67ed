"""Notebook 7 (notebooks/source/07_class_tournament) in class mode, as a teacher runs it.

A server started for the test (`sternhalma.server.start_server`: STERNHALMA_BIN, else
target/release/sternhalma) and a tournament created over plain HTTP, as the README's "Run a
class tournament" does with curl: a round robin of three entrants, the notebook's (open), a
built-in greedy bot, and a second open entrant the test plays itself in a thread with
`Client.play_tournament` and a small function bot. The test starts the tournament with the
admin token, then executes the instructor notebook with nbclient from its own folder, with the
server, the tournament and the notebook's token in STERNHALMA_URL, STERNHALMA_TOURNAMENT and
STERNHALMA_TOKEN. Afterwards the API must show the tournament finished, the notebook's entrant
in every one of its games with no timeout and no forfeit (every move its own), no practice
tournament created, and standings that add up game by game.

Each open entrant has the longest time per move the server allows, so no assertion depends on
how busy the machine is; the time limits below are liveness guards only. Practice mode (no
variables) is what `pytest --nbmake notebooks/` runs.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any

import nbformat
import sternhalma
from nbclient import NotebookClient
from sternhalma.server import LocalServer, start_server

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "source" / "07_class_tournament" / "07_class_tournament.ipynb"
GUARD_SECONDS = 600
GAMES_PER_PAIRING = 2
ENTRANTS = ["notebook", "greedy", "test-entrant"]
TOURNAMENT = {
    "name": "class 7",
    "board": "rhombus5p3",
    "layout": "2",
    "rules": "research,max_plies=60",
    "format": "round_robin",
    "games_per_pairing": GAMES_PER_PAIRING,
    "move_ms": 600000,  # the most the server allows
    "entrants": [
        {"name": "notebook"},
        {"name": "greedy", "bot": {"kind": "greedy", "seed": 4}},
        {"name": "test-entrant"},
    ],
}


def call(url: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """One request as curl would send it; answers the decoded JSON."""
    request = urllib.request.Request(f"{url}{path}", method=method)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, data, timeout=GUARD_SECONDS) as answer:
        return json.load(answer)


def nearest_home(position: sternhalma.Position) -> sternhalma.Move:
    """The test's own entrant: the first move that leaves its pegs nearest home."""
    me = position.side_to_move
    return min(
        position.legal_moves,
        key=lambda move: sternhalma.distance_to_target(position.play(move), me),
    )


def run_notebook(url: str, tournament: int, token: str) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    env = dict(os.environ)
    env.update(STERNHALMA_URL=url, STERNHALMA_TOURNAMENT=str(tournament), STERNHALMA_TOKEN=token)
    client = NotebookClient(
        notebook,
        timeout=GUARD_SECONDS,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute(env=env)
    return notebook


def printed(notebook: nbformat.NotebookNode) -> str:
    return "".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream"
    )


def wait_for_the_end(url: str, tournament: int) -> None:
    """Reads the tournament's event stream, which closes after the tournament is over."""
    with urllib.request.urlopen(
        f"{url}/v1/tournaments/{tournament}/events", timeout=GUARD_SECONDS
    ) as stream:
        for _ in stream:
            pass


def test_the_notebook_plays_the_teachers_tournament() -> None:
    binary = os.environ.get("STERNHALMA_BIN") or ROOT / "target" / "release" / "sternhalma"
    with start_server(binary, options=["--no-limits"]) as server:
        check_class_mode(server)


def check_class_mode(server: LocalServer) -> None:
    url = server.url
    created = call(url, "POST", "/v1/tournaments", TOURNAMENT)
    tournament = created["tournament"]["id"]
    tokens = {entry["name"]: entry["token"] for entry in created["entrant_tokens"]}
    assert sorted(tokens) == ["notebook", "test-entrant"]

    # The test's entrant connects first and waits; then the teacher starts the tournament.
    threads = ThreadPoolExecutor(max_workers=1)
    playing = threads.submit(
        sternhalma.Client(url).play_tournament,
        tournament,
        tokens["test-entrant"],
        nearest_home,
    )
    try:
        started = call(
            url, "POST", f"/v1/tournaments/{tournament}/start", token=created["admin_token"]
        )
        assert started["status"] == "running", started
        notebook = run_notebook(url, tournament, tokens["notebook"])
        playing.result(timeout=GUARD_SECONDS)  # raises what the test's entrant raised
    finally:
        # A failure stops the server (the caller's `with`), which ends the thread's long-poll.
        threads.shutdown(wait=False, cancel_futures=True)

    text = printed(notebook)
    assert f"class mode: tournament {tournament} 'class 7'" in text, text
    assert f"on <LocalServer {url} (found running)>" in text, text
    assert "you play entrant 0 notebook" in text, text
    listed = call(url, "GET", "/v1/tournaments")
    assert [t["id"] for t in listed["tournaments"]] == [tournament], "no practice tournament"

    wait_for_the_end(url, tournament)
    view = call(url, "GET", f"/v1/tournaments/{tournament}")
    assert view["status"] == "finished", view
    games = call(url, "GET", f"/v1/tournaments/{tournament}/games")["games"]
    standings = call(url, "GET", f"/v1/tournaments/{tournament}/standings")
    check_games(url, games)
    check_standings(standings, games)


def check_games(url: str, games: list[dict]) -> None:
    """Every pair met GAMES_PER_PAIRING times, every game finished by the rules, and the
    notebook's entrant made every move of its seats itself."""
    assert len(games) == len(list(combinations(ENTRANTS, 2))) * GAMES_PER_PAIRING
    notebook_games = 0
    for game in games:
        assert game["status"] == "finished" and game["result"]["ending"] == "outcome", game
        seats = {seat["seat"]: seat for seat in game["seats"]}
        assert all(s["timeouts"] == 0 and not s["forfeited"] for s in seats.values()), game
        notebook_seats = {n for n, seat in seats.items() if seat["name"] == "notebook"}
        if not notebook_seats:
            continue
        notebook_games += 1
        moves = call(url, "GET", f"/v1/matches/{game['match_id']}/moves")["moves"]
        assert any(move["seat"] in notebook_seats for move in moves), game
    assert notebook_games == (len(ENTRANTS) - 1) * GAMES_PER_PAIRING


def check_standings(standings: dict, games: list[dict]) -> None:
    """The standings against the games' results: points (1 a win, 1/2 a draw), games played,
    no timeouts or forfeits, and the cross-table."""
    points: Counter[str] = Counter()
    played: Counter[str] = Counter()
    for game in games:
        first, second = game["result"]["places"]
        played.update([first["name"], second["name"]])
        if first["result"] == second["result"]:
            points.update({first["name"]: 0.5, second["name"]: 0.5})
        else:
            points[first["name"]] += 1
    rows = standings["rows"]
    assert standings["games_counted"] == len(games)
    assert sorted(row["name"] for row in rows) == sorted(ENTRANTS)
    assert sum(row["points"] for row in rows) == len(games)
    for row in rows:
        assert row["games"] == (len(ENTRANTS) - 1) * GAMES_PER_PAIRING == played[row["name"]]
        assert row["points"] == points[row["name"]], row
        assert row["wins"] + row["draws"] + row["losses"] == row["games"], row
        assert row["timeouts"] == 0 and row["forfeits"] == 0, row
        assert 0 < row["uncertainty"] < 25 / 3, row
    names = {row["entrant"]: row["name"] for row in rows}
    for line in standings["cross_table"]:
        assert sorted(names[cell["opponent"]] for cell in line["against"]) == sorted(
            set(ENTRANTS) - {line["name"]}
        )
        assert all(cell["games"] == GAMES_PER_PAIRING for cell in line["against"]), line
        assert sum(cell["points"] for cell in line["against"]) == points[line["name"]], line
