"""How long the FIRST `POST /v1/solitaire/solve` on each board takes.

The first solve on a board builds its lower-bound tables (kept for the life
of the server), so each (board, hops_only) pair gets a fresh server: every
star and every valid rhombus, with and without hops only, the default
budgets unless told. Prints one line a request (the answer, nodes, the
memory counted), then the slowest. Needs only the standard library and a
release build of the server:

    cargo build --release -p sternhalma-api
    python3 benches/solitaire_api_latency.py                 # about 5 minutes
    python3 benches/solitaire_api_latency.py --boards star4 rhombus9p10
    # What the caps prove (the node cap is the default; about 4 minutes):
    python3 benches/solitaire_api_latency.py --max-nodes 1000000 --max-memory-mb 1024

It measures only: it never passes or fails on time (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def all_boards() -> list[str]:
    """Every board the server accepts, stars first."""
    stars = [f"star{size}" for size in range(1, 5)]
    rhombi = [f"rhombus{m}x{k}" for m in range(2, 12) for k in range(1, m)]
    return stars + rhombi


def start_server(binary: Path, scratch: Path) -> tuple[subprocess.Popen, str]:
    """A server on a free port with its own database; its base URL."""
    log = scratch / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                str(binary),
                "serve",
                "--port",
                "0",
                "--database",
                str(scratch / "api.sqlite3"),
                "--log-level",
                "warn",
                # One client solving every board in a row: the per-client
                # heavy rate would refuse it after the first twenty.
                "--no-limits",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    for _ in range(200):
        found = re.search(r"http://[0-9.:]+", log.read_text())
        if found:
            return server, found.group(0)
        time.sleep(0.05)
    server.kill()
    raise RuntimeError(f"the server did not start: {log.read_text()}")


def first_solve(
    url: str, board: str, hops_only: bool, budgets: dict[str, object]
) -> tuple[float, str]:
    """Seconds the request took, and what it answered."""
    body: dict[str, object] = {"board": board, "hops_only": hops_only, **budgets}
    request = urllib.request.Request(
        f"{url}/v1/solitaire/solve",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            answer = json.load(response)
            outcome = (
                f"200 length {answer['length']} nodes {answer['nodes']}"
                f" memory {answer['memory_bytes'] / 2**20:.1f} MiB"
            )
    except urllib.error.HTTPError as error:
        answer = json.load(error)
        outcome = f"{error.code} {answer.get('code', '')}"
        if "lower_bound" in answer:
            outcome += f" lower_bound {answer['lower_bound']} nodes {answer['nodes']}"
    return time.perf_counter() - started, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="*", default=all_boards())
    parser.add_argument("--max-nodes", type=int, default=None, help="default: the server's")
    parser.add_argument("--max-memory-mb", type=int, default=None, help="default: the server's")
    parser.add_argument("--method", choices=["meet", "ida"], default=None, help="default: meet")
    parser.add_argument("--binary", type=Path, default=ROOT / "target/release/sternhalma")
    args = parser.parse_args()
    budgets: dict[str, object] = {
        key: value
        for key, value in (
            ("max_nodes", args.max_nodes),
            ("max_memory_mb", args.max_memory_mb),
            ("method", args.method),
        )
        if value is not None
    }
    results = []
    for board in args.boards:
        for hops_only in (False, True):
            with tempfile.TemporaryDirectory() as scratch:
                server, url = start_server(args.binary, Path(scratch))
                try:
                    seconds, outcome = first_solve(url, board, hops_only, budgets)
                finally:
                    server.kill()
                    server.wait()
            results.append((seconds, board, hops_only, outcome))
            print(f"{board:14} hops_only={hops_only!s:5} {seconds:6.2f} s  {outcome}", flush=True)
    print("\nslowest:")
    for seconds, board, hops_only, outcome in sorted(results)[-5:]:
        print(f"{board:14} hops_only={hops_only!s:5} {seconds:6.2f} s  {outcome}")


if __name__ == "__main__":
    main()
