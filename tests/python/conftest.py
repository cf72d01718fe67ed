"""Fixtures: a real Sternhalma HTTP server for the session, and a guard for
methods that might never return.

The server is the release binary (`target/release/sternhalma`, built with
cargo when missing; `STERNHALMA_BIN` names another), started on a free port
with a temporary database, and stopped when the session ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import Server, running_server


@pytest.fixture(scope="session", autouse=True)
def tables_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder where `Tablebase.load` keeps the tables it solves on first
    use (`$STERNHALMA_TABLES`): one of the session's, not the user's cache."""
    folder = tmp_path_factory.mktemp("tables")
    previous = os.environ.get("STERNHALMA_TABLES")
    os.environ["STERNHALMA_TABLES"] = str(folder)
    try:
        yield folder
    finally:
        if previous is None:
            del os.environ["STERNHALMA_TABLES"]
        else:
            os.environ["STERNHALMA_TABLES"] = previous


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server started for the session. Its logs go to standard output, so
    they are kept to warnings: the first line is then the address."""
    database = tmp_path_factory.mktemp("server") / "sternhalma.sqlite3"
    with running_server(database, "--log-level", "warn", "--workers", "2") as started:
        yield started


@pytest.fixture(scope="session")
def server_url(server: Server) -> str:
    """The base URL (`http://127.0.0.1:PORT`) of the session's server."""
    return server.url


# ---- Methods that copy a position ----------------------------------------------
# A method that loops forever inside the extension holds the GIL, so no
# timeout inside this process can stop it. Each is first called in a child
# process with a time limit; a test that needs one fails at once with the
# reason instead of hanging the whole run.

COPYING_CALLS = {
    "copy": "p.copy()",
    "clone": "p.clone()",
    "play": "p.play('4-15')",
    "child": "p.child(p.legal_actions()[0])",
    "__copy__": "copy.copy(p)",
    "__deepcopy__": "copy.deepcopy(p)",
}
CALL_SECONDS = 10


@pytest.fixture(scope="session")
def copying_problems() -> dict[str, str]:
    """For each copying method that does not work: why."""
    children = {}
    for name, call in COPYING_CALLS.items():
        code = (
            "import copy\nfrom sternhalma import Position\n"
            f"p = Position()\np.push('115-104')\nq = {call}\nassert q is not p\n"
        )
        children[name] = subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    problems = {}
    deadline = time.monotonic() + CALL_SECONDS
    for name, child in children.items():
        try:
            _, stderr = child.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            problems[name] = (
                f"Position.{name} (`{COPYING_CALLS[name]}`) did not return within "
                f"{CALL_SECONDS} s: it loops forever"
            )
            continue
        if child.returncode != 0:
            problems[name] = f"`{COPYING_CALLS[name]}` failed:\n{stderr}"
    return problems


@pytest.fixture
def require_copying(copying_problems: dict[str, str]):
    """`require_copying("copy", ...)` fails the test at once if one of those
    methods does not return."""

    def require(*names: str) -> None:
        broken = [copying_problems[name] for name in names if name in copying_problems]
        if broken:
            pytest.fail("\n".join(broken), pytrace=False)

    return require
