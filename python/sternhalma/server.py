"""A Sternhalma server for a notebook or a script: the one the class uses,
or one started here.

The module does not contain the server: that is the ``sternhalma`` binary
(``cargo build --release -p sternhalma-api``, or the teacher's machine).
:func:`find_server` looks, in this order, for

1. the address given, or the ``STERNHALMA_URL`` environment variable
   (e.g. ``http://teacher:8080``, the class's server);
2. a server already answering on this machine at ``http://127.0.0.1:8080``
   (the README's serve command);
3. the server binary, which it starts on a free port with a scratch
   database, and stops when asked or when Python exits: ``STERNHALMA_BIN``,
   else ``target/release/sternhalma`` in the current folder or one of its
   parents (a checkout of the repository), else ``sternhalma`` on ``PATH``.

and raises :class:`sternhalma.ServerError` (code ``no_server``) saying
what to do when there is none::

    from sternhalma.server import find_server

    server = find_server()
    client = sternhalma.Client(server.url)
    ...
    server.stop()  # only stops a server find_server started
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from sternhalma.client import ServerError, ServerUnreachable

__all__ = [
    "DEFAULT_URL",
    "TOURNAMENT_FILE",
    "ClassTournament",
    "LocalServer",
    "class_tournament",
    "find_server",
    "start_server",
]

DEFAULT_URL = "http://127.0.0.1:8080"
"""Where ``sternhalma serve`` listens by default."""

_LISTENING = re.compile(r"sternhalma listening on (http://\S+)")
_STARTUP_SECONDS = 60.0
_NO_SERVER = (
    "no Sternhalma server: set STERNHALMA_URL to the address of a running one"
    " (e.g. export STERNHALMA_URL=http://teacher:8080), start one on this machine"
    " (`cargo run --release -p sternhalma-api -- serve` in the repository), or build"
    " the binary (`cargo build --release -p sternhalma-api`) and set STERNHALMA_BIN"
    " to it"
)


class LocalServer:
    """A server :func:`find_server` found or started.

    ``url`` is its base address (``http://host:port``, no trailing slash);
    ``started`` is True when :func:`find_server` started it, and then
    :meth:`stop` (or leaving a ``with`` block) stops it and removes its
    scratch database. A server found running is left alone.
    """

    def __init__(
        self,
        url: str,
        process: subprocess.Popen[str] | None = None,
        scratch: str | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._process = process
        self._scratch = scratch

    @property
    def started(self) -> bool:
        return self._process is not None

    def stop(self) -> None:
        """Stops the server if :func:`find_server` started it (SIGTERM,
        then SIGKILL after 15 s); does nothing otherwise, or twice."""
        process, self._process = self._process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        how = "started here" if self.started else "found running"
        return f"<LocalServer {self.url} ({how})>"


def _answers(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/healthz", timeout=timeout) as answer:
            return bool(answer.status == 200)
    except (OSError, ValueError):
        return False


def _binary() -> Path | None:
    named = os.environ.get("STERNHALMA_BIN")
    if named:
        return Path(named)
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        candidate = folder / "target" / "release" / "sternhalma"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("sternhalma")
    return Path(found) if found else None


def start_server(binary: str | Path | None = None, *, options: Sequence[str] = ()) -> LocalServer:
    """Starts the server binary on a free port of 127.0.0.1 with a scratch
    database, ``options`` added to its command line (e.g.
    ``["--no-limits"]``), and answers it once it listens. ``binary``
    defaults to the one :func:`find_server` would start. It is stopped by
    :meth:`LocalServer.stop`, at the end of a ``with`` block, or when
    Python exits.

    Raises :class:`sternhalma.ServerError` (code ``no_server``) when there
    is no binary, or it does not start.
    """
    if binary is None:
        binary = _binary()
        if binary is None:
            raise ServerError(_NO_SERVER, code="no_server")
    binary = Path(binary)
    scratch = tempfile.mkdtemp(prefix="sternhalma-")
    errors = open(Path(scratch, "server.stderr"), "w+")  # noqa: SIM115 (closed below)
    command = [str(binary), "serve", "--port", "0", "--database", f"{scratch}/db.sqlite3"]
    try:
        process = subprocess.Popen(
            [*command, "--log-level", "warn", *options],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
    except OSError as error:
        errors.close()
        shutil.rmtree(scratch, ignore_errors=True)
        raise ServerError(f"could not start {binary}: {error}", code="no_server") from error
    lines: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:
        # Read every line, so that the server never blocks on a full pipe.
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    server = LocalServer("http://unknown", process, scratch)
    deadline = time.monotonic() + _STARTUP_SECONDS
    try:
        while True:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise ServerError(
                    f"{binary} printed no address in {_STARTUP_SECONDS:.0f} s", code="no_server"
                ) from None
            if line is None:
                process.wait()
                errors.seek(0)
                raise ServerError(
                    f"{binary} exited with status {process.returncode}: {errors.read().strip()}",
                    code="no_server",
                )
            found = _LISTENING.search(line)
            if found:
                server.url = found.group(1).rstrip("/")
                break
    except BaseException:
        server.stop()
        raise
    finally:
        errors.close()
    atexit.register(server.stop)
    return server


def find_server(
    url: str | None = None, *, start: bool = True, options: Sequence[str] = ()
) -> LocalServer:
    """A running Sternhalma server: ``url`` (or ``STERNHALMA_URL``), else
    one answering at :data:`DEFAULT_URL`, else (when ``start``) the server
    binary started on a free port with a scratch database and
    ``options`` added to its command line (e.g. ``["--no-limits"]``).

    Raises :class:`sternhalma.ServerUnreachable` (a ``ConnectionError``
    and a :class:`sternhalma.ServerError`, code ``no_server``) when the
    address given does not answer, and :class:`sternhalma.ServerError`
    (code ``no_server``) when there is no server and no binary to start,
    saying what to do.
    """
    named = url or os.environ.get("STERNHALMA_URL")
    if named:
        if not _answers(named, timeout=10.0):
            source = "the address given" if url else "STERNHALMA_URL"
            raise ServerUnreachable(
                f"no Sternhalma server answers at {named} ({source}): is it running,"
                " and is this the address it printed?",
                url=named,
                code="no_server",
            )
        return LocalServer(named)
    if _answers(DEFAULT_URL, timeout=1.0):
        return LocalServer(DEFAULT_URL)
    binary = _binary() if start else None
    if binary is None:
        raise ServerError(_NO_SERVER, code="no_server")
    return start_server(binary, options=options)


TOURNAMENT_FILE = "~/.sternhalma/tournament.json"
"""Where a class's hub leaves a student's entry in the class tournament
(``scripts/classroom tournament new``, docs/classroom.md): a JSON object
``{"url": ..., "tournament": 3, "token": "...", "entrant": "ada"}``,
readable by its owner alone."""


@dataclass(frozen=True)
class ClassTournament:
    """A student's entry in the teacher's tournament: its ``tournament``
    id, the entrant's ``token`` (whoever holds it plays the entrant's
    games), the server's ``url`` when the entry names one, the entrant's
    name, and where the entry came from (``source``)."""

    tournament: int
    token: str
    url: str | None = None
    entrant: str | None = None
    source: str = "STERNHALMA_TOURNAMENT and STERNHALMA_TOKEN"


def class_tournament(
    environ: Mapping[str, str] | None = None, file: str | os.PathLike[str] | None = None
) -> ClassTournament | None:
    """The class tournament this account was entered in, or None (then a
    notebook practises on its own).

    ``STERNHALMA_TOURNAMENT`` and ``STERNHALMA_TOKEN`` come first (both or
    neither); else the entry the class's hub wrote in the home folder
    (:data:`TOURNAMENT_FILE`). Raises ``ValueError``, saying what is wrong,
    when only one of the two variables is set or the entry cannot be read.
    """
    environ = os.environ if environ is None else environ
    tournament, token = environ.get("STERNHALMA_TOURNAMENT"), environ.get("STERNHALMA_TOKEN")
    if (tournament is None) != (token is None):
        raise ValueError(
            "set both STERNHALMA_TOURNAMENT and STERNHALMA_TOKEN for the class tournament,"
            " or neither to practise"
        )
    if tournament is not None and token is not None:
        try:
            number = int(tournament)
        except ValueError:
            raise ValueError(
                f"STERNHALMA_TOURNAMENT is {tournament!r}: a tournament's id is a number"
            ) from None
        return ClassTournament(number, token)
    path = Path(os.path.expanduser(file if file is not None else TOURNAMENT_FILE))
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ValueError(f"cannot read the class tournament's entry {path}: {error}") from None
    try:
        entry = json.loads(text)
        number, token = entry["tournament"], entry["token"]
        if not isinstance(number, int) or isinstance(number, bool) or not isinstance(token, str):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ValueError(
            f"{path} is not a class tournament's entry (a JSON object with a numeric"
            ' "tournament" and a "token"): ask the teacher to enter you again'
        ) from None
    url, entrant = entry.get("url"), entry.get("entrant")
    return ClassTournament(
        number,
        token,
        url=url if isinstance(url, str) else None,
        entrant=entrant if isinstance(entrant, str) else None,
        source=str(path),
    )
