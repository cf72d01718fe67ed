"""The student's process of an autograder's run: ``python -m
sternhalma.autograde.runner``, started by the grader (in a sandbox).

It locks itself down before any student code runs (the built-in searches
barred for good, no new processes, no ``ctypes``, no ``/proc``, no network
but the grader's server, CPU time, memory and file sizes limited), runs the
notebook's code cells (every one but the grader's test cells; errors are
noted and the next cell runs), then hands the pipes to the engine's loop,
which answers the grader's calls. What the student's code prints goes to
``output.txt`` in the run's folder, never to the grader.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from functools import partial
from typing import Any


def _limit(which: int, value: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _threads() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 1


def _cells(notebook: dict[str, Any]) -> list[str]:
    """The code cells to run: all but the graded test cells, IPython's
    magics and shell lines left out."""
    cells = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        grader = cell.get("metadata", {}).get("nbgrader", {})
        if grader.get("grade") and not grader.get("solution"):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        lines = [
            "pass  # (IPython line left out)" if line.lstrip().startswith(("%", "!")) else line
            for line in source.splitlines()
        ]
        cells.append("\n".join(lines))
    return cells


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sternhalma.autograde.runner")
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--notebook", required=True)
    parser.add_argument("--read-fd", type=int, required=True)
    parser.add_argument("--write-fd", type=int, required=True)
    parser.add_argument("--connect", action="append", default=[])
    parser.add_argument("--cpu-seconds", type=int, default=1800)
    parser.add_argument("--memory-bytes", type=int, default=6 << 30)
    args = parser.parse_args(argv)

    # The student's prints go to a file; the protocol has its own pipes.
    output = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115

    os.environ.setdefault("MPLBACKEND", "Agg")
    # What the notebooks import, imported before the lock (an import the
    # lock refuses to a student is allowed to the course's own modules).
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot
    import numpy  # noqa: F401

    try:  # the environments of notebook 6 (PettingZoo imports multiprocessing)
        import sternhalma.envs
    except ImportError:
        pass

    import sternhalma
    from sternhalma._core import _graded_run_lock, _graded_run_serve
    from sternhalma.autograde.course import course

    adapters = course(args.assignment).adapters
    with open(args.notebook, encoding="utf-8") as f:
        cells = _cells(json.load(f))

    _limit(resource.RLIMIT_CPU, args.cpu_seconds)
    _limit(resource.RLIMIT_AS, args.memory_bytes)
    _limit(resource.RLIMIT_FSIZE, 256 << 20)
    _limit(resource.RLIMIT_NOFILE, 256)
    _limit(resource.RLIMIT_CORE, 0)
    if os.getuid() != 0:
        # No new process or thread for this user (the sandbox's own): the
        # kernel's own bar, under the audit hook's. Root ignores it.
        _limit(resource.RLIMIT_NPROC, _threads())
    # The solved tables: loading one is the engine's (allowed), reading the
    # files from Python would get past the bar on their answers.
    tables = os.environ.get("STERNHALMA_TABLES")
    _graded_run_lock(args.connect, [os.path.realpath(tables)] if tables else [])

    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        from IPython.display import display

        namespace["display"] = display
    except ImportError:
        pass
    # Bound before any cell runs: a cell that changes the course's module
    # afterwards does not change which adapters answer the grader.
    bound = {name: partial(adapter, namespace) for name, adapter in adapters.items()}
    errors = []
    for index, source in enumerate(cells):
        try:
            exec(compile(source, f"<cell {index}>", "exec"), namespace)  # noqa: S102 (the submission, in its sandbox)
        except BaseException as e:  # noqa: BLE001 (a student's cell may raise anything)
            try:
                message = str(e)[:300]
            except BaseException:  # noqa: BLE001
                message = "(its message could not be read)"
            errors.append({"cell": index, "type": type(e).__name__, "message": message})
    sys.stdout.flush()
    ready = json.dumps(
        {"ready": True, "cells": len(cells), "errors": errors, "version": sternhalma.__version__}
    )
    os.write(args.write_fd, (ready + "\n").encode())
    _graded_run_serve(bound, args.read_fd, args.write_fd)
    os._exit(0)


if __name__ == "__main__":
    main()
