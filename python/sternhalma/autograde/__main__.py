"""Grades one notebook as the class's autograde would, and prints each part:

    python -m sternhalma.autograde submission.ipynb --assignment 03_adversarial_search

The submission runs in the sandbox (``--no-sandbox`` runs it as you, for a
notebook you trust); the teacher's secret (``STERNHALMA_HELD_OUT``) draws
the held-out cases here, in the grader. A class is graded with nbgrader:
``nbgrader autograde ASSIGNMENT`` in the course folder
(``notebooks/README.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from sternhalma.autograde._student import RemoteStudent
from sternhalma.autograde.course import ASSIGNMENTS, course
from sternhalma.autograde.sandbox import Sandbox, SandboxUnavailable, server_addresses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sternhalma.autograde", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("notebook", type=Path)
    parser.add_argument(
        "--assignment", help="the assignment (default: from the notebook's file name)"
    )
    parser.add_argument("--no-sandbox", action="store_true", help="run the submission as yourself")
    parser.add_argument("--part", action="append", help="grade only this test cell (grade_id)")
    parser.add_argument(
        "--connect",
        action="append",
        help="ip:port the notebook may reach (default: $STERNHALMA_URL's, for a notebook that"
        " needs the game server)",
    )
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    args = parser.parse_args(argv)

    assignment = args.assignment
    if assignment is None:
        stem = args.notebook.stem
        assignment = next((a for a in ASSIGNMENTS if stem.endswith(a)), stem)
    graded = course(assignment)
    try:
        sandbox = None if args.no_sandbox else Sandbox.find()
    except SandboxUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    notebook = json.loads(args.notebook.read_text())
    parts = [
        c["metadata"]["nbgrader"]["grade_id"]
        for c in notebook["cells"]
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
        and not c["metadata"]["nbgrader"].get("solution")
    ]
    if args.part:
        parts = [p for p in parts if p in args.part]
    connect = args.connect
    if connect is None:
        url = os.environ.get("STERNHALMA_URL", "")
        connect = server_addresses(url) if graded.network else []
    student = RemoteStudent(
        args.notebook,
        assignment,
        sandbox=sandbox,
        connect=connect,
        log=lambda m: print(m, file=sys.stderr),
    )
    verdicts = []
    try:
        for part in parts:
            verdict = graded.grade(part, student)
            verdicts.append(verdict)
            if not args.json:
                print(f"{part:32} {verdict.fraction:4.0%}  {verdict.message}", flush=True)
    finally:
        student.close()
    if args.json:
        print(json.dumps([v.__dict__ for v in verdicts]))
    if student.cell_errors and not args.json:
        print("cells that raised:", file=sys.stderr)
        for error in student.cell_errors:
            print(f"  cell {error['cell']}: {error['type']}: {error['message']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
