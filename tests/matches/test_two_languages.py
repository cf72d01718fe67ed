"""Two bots in different languages play a stored match through one server.

A fresh server on a fresh file; a match with two open seats; the Python
client (`python -m sternhalma.examples.random_bot`, installed with the
module) and the JavaScript one (examples/clients/random_bot.js, Node's
built-in fetch) play it to the end
as separate processes; the exported game replays through `POST /v1/replay`
to the same final position and outcome. Runs under pytest, or alone:
`python3 tests/matches/test_two_languages.py`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matches_support import ROOT, call, start_server

CLIENTS = ROOT / "examples" / "clients"


def play_two_languages(node: str) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        server, url = start_server(Path(scratch) / "two.sqlite3")
        try:
            status, created = call(
                url,
                "POST",
                "/v1/matches",
                {
                    "board": "rhombus5p3",
                    "rules": {"preset": "classic", "max_plies": 400},
                    "seats": [{"name": "python-random"}, {"name": "javascript-random"}],
                },
            )
            assert status == 201, created
            match_id = created["match"]["id"]
            tokens = {t["seat"]: t["token"] for t in created["seat_tokens"]}
            clients = [
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "sternhalma.examples.random_bot",
                        url,
                        str(match_id),
                        "0",
                        tokens[0],
                        "--seed",
                        "5",
                    ],
                    stdout=subprocess.PIPE,
                    text=True,
                ),
                subprocess.Popen(
                    [node, str(CLIENTS / "random_bot.js"), url, str(match_id), "1", tokens[1]],
                    stdout=subprocess.PIPE,
                    text=True,
                ),
            ]
            outputs = [client.communicate(timeout=120)[0] for client in clients]
            assert [client.returncode for client in clients] == [0, 0], outputs
            assert "python bot, seat 0: finished" in outputs[0], outputs
            assert "javascript bot, seat 1: finished" in outputs[1], outputs
            status, state = call(url, "GET", f"/v1/matches/{match_id}")
            assert status == 200 and state["status"] == "finished"
            assert state["result"]["ending"] == "outcome"
            status, history = call(url, "GET", f"/v1/matches/{match_id}/moves")
            seats = [m["seat"] for m in history["moves"]]
            assert {0, 1} <= set(seats), "both clients moved"
            status, export = call(url, "GET", f"/v1/matches/{match_id}/export")
            assert status == 200
            status, replay = call(url, "POST", "/v1/replay", export)
            assert status == 200, replay
            assert replay["final"]["outcome"] == state["position"]["outcome"]
            assert replay["final"]["position_string"] == state["position"]["position_string"]
            return state
        finally:
            server.terminate()
            server.wait()


def test_a_python_bot_and_a_javascript_bot_play_a_stored_match() -> None:
    node = shutil.which("node")
    if node is None:
        import pytest

        pytest.skip("node is not installed")
    play_two_languages(node)


if __name__ == "__main__":
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not installed")
    final = play_two_languages(node)
    print(f"two languages ok: {final['ply']} plies, {final['result']['summary']}")
