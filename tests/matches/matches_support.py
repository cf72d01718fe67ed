"""Shared helpers of the stored-match scripts: start the server, call it."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# `STERNHALMA_BIN` names another build (as for tests/python).
BINARY = Path(os.environ.get("STERNHALMA_BIN", ROOT / "target" / "release" / "sternhalma"))


def start_server(database: Path, binary: Path = BINARY) -> tuple[subprocess.Popen[str], str]:
    """Start `sternhalma serve` on a free port; answer the process and its URL.

    Without per-client limits: the crash test is a whole class's load sent
    from one address (the limits have their own tests, api/tests/limits.rs).
    """
    process = subprocess.Popen(
        [
            str(binary),
            "serve",
            "--port",
            "0",
            "--database",
            str(database),
            "--log-level",
            "warn",
            "--no-limits",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    prefix = "sternhalma listening on "
    if not line.startswith(prefix):
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return process, line[len(prefix) :]


def call(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    timeout: float = 30,
) -> tuple[int, Any]:
    """One request; answers the status and the decoded JSON body (or None)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    return status, (json.loads(raw) if raw else None)
