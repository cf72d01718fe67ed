"""Calls per second of `RemotePosition.legal_moves` (one `POST
/v1/legal-moves` each) through `sternhalma.Client`, against a local server.

Compares the installed client (one kept-alive connection per thread) with
other versions of `python/sternhalma/client.py` given as files, e.g. the one
on main before issue 36 (a new connection for every request):

    cargo build --release -p sternhalma-api
    git show 338ba6a:python/sternhalma/client.py > /tmp/client_before.py
    python3 benches/client_calls.py --compare /tmp/client_before.py

Starts `target/release/sternhalma serve --no-limits` on a free port (one
client asking as fast as it can would meet the per-client rate limit), or
uses `--url`. Each run times `--calls` calls on a fresh `RemotePosition` of
the standard start position (so nothing is cached), the clients taking
turns run by run so that a change in the machine's load falls on both;
prints calls per second, min/median/max over the runs. It measures only:
it never passes or fails on time (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

import sternhalma
import sternhalma.client
from sternhalma import Position
from sternhalma.server import start_server

ROOT = Path(__file__).resolve().parent.parent


def client_module(path: Path) -> ModuleType:
    """A client module loaded from a file (it imports `sternhalma._core`,
    the installed one)."""
    name = f"client_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def calls_per_second(module: ModuleType, url: str, calls: int, text: str) -> float:
    client = module.Client(url)
    expected = len(Position(text).legal_moves)
    # One call first: the connection (if kept) is open when the clock starts.
    assert len(module.RemotePosition(client, text).legal_moves) == expected
    started = time.perf_counter()
    for _ in range(calls):
        module.RemotePosition(client, text).legal_moves  # noqa: B018 (the call is the point)
    elapsed = time.perf_counter() - started
    return calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "sternhalma")
    parser.add_argument("--compare", type=Path, nargs="*", default=[], help="other client.py files")
    parser.add_argument("--calls", type=int, default=2000, help="calls per run")
    parser.add_argument("--runs", type=int, default=7)
    arguments = parser.parse_args()

    clients = {f"sternhalma.client ({sternhalma.client.__file__})": sternhalma.client}
    for path in arguments.compare:
        clients[str(path)] = client_module(path)
    server = None
    url = arguments.url
    if url is None:
        server = start_server(arguments.binary, options=["--no-limits"])
        url = server.url
    text = str(Position())
    try:
        rates: dict[str, list[float]] = {name: [] for name in clients}
        for _ in range(arguments.runs):
            for name, module in clients.items():
                rates[name].append(calls_per_second(module, url, arguments.calls, text))
    finally:
        if server is not None:
            server.stop()
    load = os.getloadavg()
    print(
        f"{arguments.runs} runs of {arguments.calls} calls, server {url},"
        f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    for name, values in rates.items():
        print(
            f"{name}: calls/s min {min(values):.0f}, median {statistics.median(values):.0f},"
            f" max {max(values):.0f}"
        )


if __name__ == "__main__":
    main()
