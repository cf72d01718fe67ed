"""The teacher's side of `scripts/classroom up`: the roster in the
gradebook, and every assignment of the course released to the exchange.

Run by `up` as the teacher's user, in the course folder (~/course), with
the hub's venv, so that nbgrader reads the same settings as the teacher's
own commands: the class's (course id, exchange), the teacher's
(~/.jupyter) and the course's (`nbgrader_config.py`: the sandboxed
autograde). One Python process for the whole course: each `nbgrader`
command would start Python and nbgrader again (~3 s each).

    python course.py prepare ROSTER.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGrader, NbGraderAPI
from nbgrader.coursedir import CourseDirectory


def api() -> NbGraderAPI:
    app = NbGrader()
    app.load_config_file()
    coursedir = CourseDirectory(config=app.config)
    coursedir.root = str(Path.cwd())
    return NbGraderAPI(coursedir=coursedir, config=app.config)


def prepare(roster: Path) -> int:
    students = json.loads(roster.read_text())
    nbgrader = api()
    coursedir = nbgrader.coursedir
    with Gradebook(coursedir.db_url, coursedir.course_id) as gradebook:
        for student in students:
            first, _, last = student["name"].partition(" ")
            gradebook.update_or_create_student(
                student["username"], first_name=first or None, last_name=last or None
            )
    print(f"course {coursedir.course_id}: {len(students)} students in the gradebook")
    exchange = nbgrader.exchange.exchange(config=nbgrader.config, coursedir=coursedir)
    outbound = Path(exchange.root) / coursedir.course_id / "outbound"
    failed = 0
    for source in sorted(p for p in (Path(coursedir.root) / "source").iterdir() if p.is_dir()):
        assignment = source.name
        if (outbound / assignment).is_dir():
            print(f"  {assignment}: released before")
            continue
        for step, run in (
            ("generate_assignment", nbgrader.generate_assignment),
            ("release_assignment", nbgrader.release_assignment),
        ):
            result = run(assignment)
            if not result.get("success"):
                print(
                    f"  {assignment}: {step} failed\n{result.get('log', '')}{result.get('error', '')}"
                )
                failed += 1
                break
        else:
            print(f"  {assignment}: generated and released")
    return 1 if failed else 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "prepare":
        return prepare(Path(sys.argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
