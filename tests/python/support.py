"""Helpers shared by the Python tests: game setups, seeded random games, a
small JSON-over-HTTP caller (standard library only, like the client) and
the real server, started on a free port."""

from __future__ import annotations

import json
import os
import queue
import random
import re
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sternhalma

STANDARD_START = "star4 classic south:111-120/north:0-9 0 0 -"


@dataclass(frozen=True)
class Setup:
    """A way to start a game: what `Position.start` takes."""

    board: str
    rules: str
    layout: str = "2"
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in sorted(self.overrides.items()))
        return f"{self.board}-{self.rules}-{self.layout}" + (f"-{extra}" if extra else "")

    def start(self) -> sternhalma.Position:
        return sternhalma.Position.start(
            board=self.board, layout=self.layout, rules=self.rules, **self.overrides
        )


# Small boards and a move limit, so that random games end in a few hundred
# plies; between them they reach every kind of move (step, hop, swap, pass)
# and every kind of outcome (won, draw by the move limit, ranking).
GAME_SETUPS = [
    Setup("star2", "research"),
    Setup("rhombus5p3", "research"),
    Setup("star2", "masters", overrides={"max_plies": 200}),
    Setup("star2", "family", "3", {"max_plies": 200}),
    Setup("star2", "classic", "6", {"finish": "ranking", "max_plies": 300}),
    Setup("star3", "super", "4", {"max_plies": 120}),
    Setup("star2", "classic", "2x3", {"unused_triangles": "filled", "max_plies": 150}),
    Setup(
        "star2",
        "classic",
        "3",
        {"unused_triangles": "filled", "rest_in_foreign_triangles": "forbidden", "max_plies": 200},
    ),
    Setup("star4", "research"),
    Setup("star2", "classic", "1", {"max_plies": 60}),
]

# Starts whose rules have no move limit: only looked at, never played out.
START_SETUPS = [
    Setup("star4", "classic"),
    Setup("star4", "classic", "3"),
    Setup("star4", "classic", "4"),
    Setup("star4", "classic", "6"),
    Setup("star4", "classic", "3x2"),
    Setup("star4", "masters"),
    Setup("star4", "family", "3"),
    Setup("star4", "super", "6"),
    Setup("rhombus9p10", "research"),
    Setup("star1", "classic"),
    Setup("star3", "classic", "2x3", {"unused_triangles": "filled"}),
]


@dataclass
class Game:
    """A random game: the final position (move stack included) and the
    position string before every ply and after the last."""

    final: sternhalma.Position
    strings: list[str]
    moves: list[sternhalma.Move]


def random_game(setup: Setup, seed: int, max_plies: int = 10_000) -> Game:
    """Plays uniformly random legal moves until the game ends (or
    `max_plies`). Uses push only, so it does not depend on `copy()`."""
    rng = random.Random(seed)
    position = setup.start()
    strings = [str(position)]
    moves = []
    while not position.is_game_over() and len(moves) < max_plies:
        move = rng.choice(position.legal_moves)
        position.push(move)
        moves.append(move)
        strings.append(str(position))
    return Game(position, strings, moves)


def sample_positions(seeds: range, every: int = 7) -> list[str]:
    """Position strings from random games of every setup: every `every`-th
    ply, and the last."""
    strings: list[str] = []
    for setup in GAME_SETUPS:
        for seed in seeds:
            game = random_game(setup, seed)
            strings.extend(game.strings[::every])
            strings.append(game.strings[-1])
    return list(dict.fromkeys(strings))


def move_text(move: sternhalma.Move) -> str:
    """The full-path text of a move (`pass` for a pass)."""
    return "pass" if move.is_pass else "-".join(str(hole) for hole in move.path)


def move_view(move: sternhalma.Move) -> dict[str, Any]:
    """A local move in the HTTP API's `MoveView` shape."""
    return {
        "text": str(move),
        "kind": move.kind,
        "from": move.from_hole,
        "to": move.to_hole,
        "path": list(move.path),
    }


def post(url: str, path: str, body: Any, timeout: float = 30.0) -> tuple[int, Any]:
    """POSTs JSON; returns (status, decoded body), problem details included."""
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


# ---- The server -----------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"sternhalma listening on (http://\S+)")
STARTUP_SECONDS = 30


def server_binary() -> Path:
    if "STERNHALMA_BIN" in os.environ:
        return Path(os.environ["STERNHALMA_BIN"])
    binary = REPO / "target" / "release" / "sternhalma"
    if not binary.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-p", "sternhalma-api"], cwd=REPO, check=True
        )
    return binary


@dataclass
class Server:
    url: str
    first_line: str
    process: subprocess.Popen


@contextmanager
def running_server(database: Path, *options: str, port: int = 0) -> Iterator[Server]:
    """Starts the server on `port` (default: a free one), reads its address
    from standard output, and stops it (SIGTERM, then SIGKILL) on leaving."""
    with open(database.with_suffix(".stderr"), "w+") as errors:
        command = ["serve", "--port", str(port), "--database", str(database), *options]
        process = subprocess.Popen(
            [str(server_binary()), *command],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        lines: queue.Queue[str | None] = queue.Queue()

        def drain() -> None:
            # Read every line, so that the server never blocks on a full pipe.
            assert process.stdout is not None
            for line in process.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=drain, daemon=True).start()
        url = None
        seen = []
        deadline = time.monotonic() + STARTUP_SECONDS
        try:
            while url is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(f"the server printed no address in {STARTUP_SECONDS} s")
                try:
                    line = lines.get(timeout=remaining)
                except queue.Empty:
                    continue
                if line is None:
                    process.wait()
                    errors.seek(0)
                    stderr = errors.read()
                    raise RuntimeError(f"the server exited: {''.join(seen)}{stderr}")
                seen.append(line)
                match = LISTENING.search(line)
                if match:
                    url = match.group(1)
            yield Server(url, seen[0], process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
