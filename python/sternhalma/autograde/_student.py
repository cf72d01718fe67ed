"""The student's code as the grader sees it: calls that answer plain data.

``RemoteStudent`` runs a submission in another process (in a sandbox,
``sternhalma.autograde.sandbox``) and talks to the engine's loop there
over two pipes; ``LocalStudent`` calls the functions of a notebook's own
kernel, for the self-checks a student runs. Both answer an ``Answer``
whose count and trace come from the engine, never from the student's
code.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sternhalma._core import _graded_trace, _positions_made
from sternhalma.autograde._wire import decode, encode
from sternhalma.grading import barred


class Failed(Exception):
    """A graded part's check failed: its message is the student's feedback."""


@dataclass
class Answer:
    """What one call of the student's code answered, and what the engine saw."""

    call: str
    """The call's name (the notebook's function, as the course names it)."""
    result: Any = None
    """The answer, rebuilt from plain data (positions and moves as objects)."""
    error: tuple[str, str] | None = None
    """The exception's type name and message, when the call raised."""
    positions: int = 0
    """The positions the engine handed to Python during the call (any path)."""
    trace: list[tuple[int, int]] = field(default_factory=list)
    """``(made from, made)`` by Zobrist hash (0: made from data), when asked for."""
    cut: bool = False
    """Whether the trace was cut at its limit."""
    after: list[tuple[str, int]] = field(default_factory=list)
    """Each position argument after the call: its position string and stack length."""

    @property
    def value(self) -> Any:
        """The answer; raises ``Failed`` naming the exception when the call raised."""
        if self.error is not None:
            kind, message = self.error
            if kind in ("Died", "Refused"):
                raise Failed(f"{self.call}: {message}")
            if kind == "BuiltinBarredError":
                raise Failed(f"{self.call} used a built-in search, barred here: {message}")
            raise Failed(f"{self.call} raised {kind}: {message}")
        return self.result

    def expanded(self) -> list[int]:
        """The positions the call made children of, by hash, in the order of
        their first child: a search's expansions."""
        seen: set[int] = set()
        order = []
        for parent, _ in self.trace:
            if parent and parent not in seen:
                seen.add(parent)
                order.append(parent)
        return order

    def made(self) -> set[int]:
        """Every position the call made, by hash."""
        return {child for _, child in self.trace}


class Student:
    """A submission's functions, called by name through the course's adapters."""

    def call(self, name: str, *args: Any, trace: bool = False) -> Answer:  # pragma: no cover
        raise NotImplementedError

    def close(self) -> None:
        """Ends the student's process, if any."""


class LocalStudent(Student):
    """The functions of this kernel (a notebook's self-checks), each call
    barred from the built-in searches and counted by the engine."""

    def __init__(self, namespace: dict[str, Any], adapters: dict[str, Callable[..., Any]]):
        self.namespace = namespace
        self.adapters = adapters

    def call(self, name: str, *args: Any, trace: bool = False) -> Answer:
        # Through the wire format both ways, as the grader's calls go.
        args = tuple(decode(encode(a)) for a in args)
        before = _positions_made()
        _graded_trace(trace)
        try:
            with barred():
                result = self.adapters[name](self.namespace, *args)
        except Exception as e:  # noqa: BLE001 (the student's error is the answer)
            entries, cut = _graded_trace(False)
            return Answer(
                name,
                error=(type(e).__name__, str(e)),
                positions=_positions_made() - before,
                trace=entries,
                cut=cut,
            )
        made = _positions_made() - before
        entries, cut = _graded_trace(False)
        after = [(str(a), len(a.move_stack)) for a in args if _is_position(a)]
        return Answer(
            name,
            result=_plain(result),
            positions=made,
            trace=entries,
            cut=cut,
            after=after,
        )


def _is_position(value: Any) -> bool:
    from sternhalma._core import Position

    return isinstance(value, Position)


def _plain(value: Any) -> Any:
    """A local answer as the grader would get it: numpy and tuples made
    plain, and subclasses of bool, int, float and str read as their values
    (whatever their ``__eq__`` says), as the engine's loop reads them."""
    if hasattr(value, "tolist") and type(value).__module__ == "numpy":
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str.__str__(k) if isinstance(k, str) else k: _plain(v) for k, v in value.items()}
    if isinstance(value, bool):
        return bool(int.__int__(value))
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return decode(encode(float.__float__(value)))
    if isinstance(value, str):
        return str.__str__(value)
    return value


def redacted(message: str, args: tuple[Any, ...]) -> str:
    """A student's error message fit for feedback: the positions and moves
    of the call (held-out cases, maybe) replaced by a mark, and cut short,
    so that no held-out case is shown."""
    for arg in args:
        for text in _texts(arg):
            if len(text) >= 6:
                message = message.replace(text, "<the case>")
    return message if len(message) <= 160 else message[:157] + "..."


def _texts(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    from sternhalma._core import Move, Position

    if isinstance(value, (Position, Move)):
        return [str(value)]
    return []


# The course's modules hold the reference solutions (the grader's, and the
# ones a part lends the student's process so that one bug is charged once).
GRADER_MODULES = re.compile(
    r"autograde\s*\.\s*(course|_course|_student|runner|sandbox|nbgrader_plugin)\b"
    r"|autograde\.course|\bn0[1-8]_[a-z_]+\b"
)


def reaches_for_the_grader(notebook: dict[str, Any]) -> str | None:
    """Why a submission reads as using the course's own modules (where the
    reference solutions are), or None: a line of its code cells (every one
    but the test cells, which are the teacher's) that names them."""
    for cell in notebook.get("cells", []):
        grader = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or (grader.get("grade") and not grader.get("solution")):
            continue
        source = cell.get("source", "")
        for line in (source if isinstance(source, str) else "".join(source)).splitlines():
            if GRADER_MODULES.search(line):
                return line.strip()[:120]
    return None


class Died(Exception):
    """The student's process ended or stopped answering."""


class RemoteStudent(Student):
    """A submitted notebook, run in a process of its own (a sandbox unless
    ``sandbox`` is None), answering the grader's calls.

    The process starts at the first call: it runs the notebook's cells
    (every code cell but the grader's test cells) and then answers calls.
    A call that takes longer than ``call_timeout`` seconds, or a process
    that dies in a call, answers an error and the next call starts a fresh
    process; after ``restarts`` fresh starts, or when the notebook's cells
    themselves take longer than ``setup_timeout`` or end the process (they
    would again), every later call fails at once with the reason, so one
    broken submission never stops a class's run.
    """

    def __init__(
        self,
        notebook: Path,
        assignment: str,
        *,
        sandbox: Any,
        connect: Sequence[str] = (),
        setup_timeout: float = 300.0,
        call_timeout: float = 120.0,
        restarts: int = 2,
        log: Callable[[str], None] | None = None,
    ):
        self.notebook = Path(notebook)
        self.assignment = assignment
        self.sandbox = sandbox
        self.connect = list(connect)
        self.setup_timeout = setup_timeout
        self.call_timeout = call_timeout
        self.restarts = restarts
        self.log = log or (lambda message: None)
        self.process: subprocess.Popen[bytes] | None = None
        self.folder: Path | None = None
        self.starts = 0
        self.gone: str | None = None
        self.cell_errors: list[dict[str, Any]] = []
        try:
            reaching = reaches_for_the_grader(json.loads(self.notebook.read_text()))
        except (OSError, ValueError):
            reaching = None
        self.refused = (
            None
            if reaching is None
            else "the submission uses the course's grader, where the reference solutions are"
            f" ({reaching!r}): its work cannot be told from theirs; ask your teacher"
        )
        self._buffer = b""
        self._to: int | None = None
        self._from: int | None = None

    # ---- the process ------------------------------------------------------------------

    def _start(self) -> None:
        self.starts += 1
        self.folder = Path(tempfile.mkdtemp(prefix="sternhalma-grading-"))
        shutil.copyfile(self.notebook, self.folder / "submission.ipynb")
        calls_r, calls_w = os.pipe()
        answers_r, answers_w = os.pipe()
        argv = [
            "-m",
            "sternhalma.autograde.runner",
            "--assignment",
            self.assignment,
            "--notebook",
            "submission.ipynb",
            "--read-fd",
            str(calls_r),
            "--write-fd",
            str(answers_w),
        ]
        for address in self.connect:
            argv += ["--connect", address]
        if self.sandbox is None:
            command = [sys.executable, *argv]
            cwd = str(self.folder)
            env = {k: v for k, v in os.environ.items() if not k.startswith("STERNHALMA_HELD_OUT")}
            env["MPLBACKEND"] = "Agg"
        else:
            command, cwd, env = self.sandbox.command(self.folder, argv, network=bool(self.connect))
        self.log(
            f"starting the submission's process ({'no sandbox' if self.sandbox is None else self.sandbox.describe()})"
        )
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.folder / "sandbox.log", "wb"),  # noqa: SIM115 (closed with the process)
            pass_fds=(calls_r, answers_w),
            start_new_session=True,
        )
        os.close(calls_r)
        os.close(answers_w)
        self._to, self._from = calls_w, answers_r
        self._buffer = b""
        try:
            ready = self._read(
                lambda m: "ready" in m, self.setup_timeout, "running the notebook's cells"
            )
        except Died as died:
            # The cells run the same way each time: no second start.
            self.gone = str(died)
            raise
        self.cell_errors = list(ready.get("errors", []))[:50] if isinstance(ready, dict) else []

    def _read(
        self, wanted: Callable[[dict[str, Any]], bool], timeout: float, doing: str
    ) -> dict[str, Any]:
        assert self._from is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and wanted(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0:
                self._stop()
                raise Died(f"no answer after {timeout:.0f} s while {doing} (an endless loop?)")
            ready, _, _ = select.select([self._from], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from, 1 << 20)
            if not chunk:
                code = self.process.wait(timeout=10) if self.process else None
                why = self._last_words()
                self._stop()
                raise Died(f"the notebook's process ended while {doing} (exit code {code}){why}")
            self._buffer += chunk
            if len(self._buffer) > 1 << 30:
                self._stop()
                raise Died(f"the notebook's process wrote more than 1 GiB while {doing}")

    def _last_words(self) -> str:
        """The last line the sandbox or the runner wrote before the
        student's code took over its output (bubblewrap's errors, say)."""
        if self.folder is None:
            return ""
        try:
            lines = (self.folder / "sandbox.log").read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return f": {lines[-1][:300]}" if lines else ""

    def _stop(self) -> None:
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            self.process = None
        for fd in (self._to, self._from):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to = self._from = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def close(self) -> None:
        if self.process is not None and self._to is not None:
            try:
                os.write(self._to, b'{"call": "$exit"}\n')
            except OSError:
                pass
        self._stop()

    # ---- calls ------------------------------------------------------------------------

    def call(self, name: str, *args: Any, trace: bool = False) -> Answer:
        if self.refused is not None:
            return Answer(name, error=("Refused", self.refused))
        if self.gone is not None:
            return Answer(name, error=("Died", self.gone))
        try:
            if self.process is None:
                if self.starts > self.restarts:
                    self.gone = "the notebook's process stopped answering too often"
                    return Answer(name, error=("Died", self.gone))
                self._start()
            nonce = secrets.token_hex(16)
            request = {
                "nonce": nonce,
                "call": name,
                "args": [encode(a) for a in args],
                "trace": trace,
            }
            assert self._to is not None
            os.write(self._to, (json.dumps(request) + "\n").encode())
            message = self._read(
                lambda m: m.get("nonce") == nonce, self.call_timeout, f"calling {name}"
            )
        except (Died, OSError) as e:
            if isinstance(e, OSError):
                self._stop()
            if self.starts > self.restarts:
                self.gone = str(e)
            return Answer(name, error=("Died", str(e)))
        error = message.get("error")
        return Answer(
            name,
            result=decode(message.get("ok")),
            error=(str(error.get("type")), redacted(str(error.get("message")), args))
            if isinstance(error, dict)
            else None,
            positions=int(message.get("positions", 0)),
            trace=[(int(p), int(c)) for p, c in message.get("trace", [])],
            cut=bool(message.get("cut", False)),
            after=[(str(a["position"]), int(a["stack"])) for a in message.get("after", [])],
        )
