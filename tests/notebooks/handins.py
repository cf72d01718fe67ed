"""The hand-ins of the term test besides the instructor's and the untouched
student versions: a library of **cheats** (students who read the course's
source and try hard to score without doing the work) and of **imperfect**
honest hand-ins (a real bug, a warning printed, a variant of a formula),
each made from the instructor version.

Each notebook that has them keeps them in `tests/notebooks/handins/<assignment>.py`
as `HANDINS`, a dict: the hand-in's name (its student id in the term; letters,
digits and underscores) -> a dict with

- `kind`: `"cheat"` or `"imperfect"`;
- `story`: what the student did, in a sentence;
- `solutions`: solution cell `grade_id` -> the code that replaces its
  solution region (the `### BEGIN SOLUTION` ... `### END SOLUTION` lines and
  what is between them; the skeleton around stays). `{solution}` in the code
  stands for the instructor's solution (indented as written), so a cheat can
  add a line to a working answer;
- `cells`: code cells the student added, inserted after the notebook's first
  code cell (its imports);
- `zero`: the graded test cells it must score 0 on;
- `partial`: graded test cell -> the fraction of its points it must score;
- `feedback`: graded test cell -> a piece of the message it must get there.

On every other graded cell it must score full marks: a cheat scores nothing
on exactly the parts it fakes, and a bug costs the parts it breaks, once.

Run as a script to see how hand-ins fare through the grader without
nbgrader (each graded part: its score and message, against what is
expected), in the sandbox:

    .venv/bin/python tests/notebooks/handins.py 03_adversarial_search [NAME ...]
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "notebooks" / "source"
HANDINS = Path(__file__).resolve().parent / "handins"
REGION = re.compile(r"[ \t]*### BEGIN SOLUTION\n(.*?)[ \t]*### END SOLUTION[ \t]*\n?", re.DOTALL)
NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")


@dataclass
class Handin:
    """One hand-in of the term (see the module's docstring)."""

    assignment: str
    name: str
    kind: str
    story: str
    solutions: dict[str, str] = field(default_factory=dict)
    cells: list[str] = field(default_factory=list)
    zero: set[str] = field(default_factory=set)
    partial: dict[str, float] = field(default_factory=dict)
    feedback: dict[str, str] = field(default_factory=dict)

    def expected(self, part: str) -> float:
        """The fraction of `part`'s points this hand-in must score."""
        if part in self.zero:
            return 0.0
        return self.partial.get(part, 1.0)


def grading(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def plans(only: list[str] | None = None) -> dict[str, list[Handin]]:
    """Every hand-in (of the assignments `only`), by assignment."""
    found: dict[str, list[Handin]] = {}
    for path in sorted(HANDINS.glob("*.py")):
        if only is not None and path.stem not in only:
            continue
        spec = importlib.util.spec_from_file_location(f"handins_{path.stem}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        handins = []
        for name, plan in module.HANDINS.items():
            assert NAME.match(name), f"{path.name}: {name!r} is not a student id"
            assert plan["kind"] in ("cheat", "imperfect"), f"{path.name}: {name}: kind"
            handin = Handin(path.stem, name, **plan)
            handin.zero = set(handin.zero)
            handins.append(handin)
        found[path.stem] = handins
    return found


def replaced(source: str, code: str) -> str:
    """`source` with its (one) solution region replaced by `code`, indented
    as the region's first marker; `{solution}` in `code` is the region's own
    content."""
    ((region, inner),) = [(m.group(0), m.group(1)) for m in REGION.finditer(source)]
    indent = region[: len(region) - len(region.lstrip())]
    inner_lines = [line.removeprefix(indent) for line in inner.splitlines()]
    code = code.strip("\n").replace("{solution}", "\n".join(inner_lines))
    lines = [indent + line if line.strip() else "" for line in code.splitlines()]
    return source.replace(region, "\n".join(lines) + "\n")


def notebook(handin: Handin) -> dict:
    """The notebook the student hands in."""
    path = SOURCE / handin.assignment / f"{handin.assignment}.ipynb"
    nb = copy.deepcopy(json.loads(path.read_text()))
    changes = dict(handin.solutions)
    for cell in nb["cells"]:
        grade_id = grading(cell).get("grade_id")
        if grade_id in changes:
            cell["source"] = replaced("".join(cell["source"]), changes.pop(grade_id))
    assert not changes, f"{handin.assignment}/{handin.name}: no solution cell {sorted(changes)}"
    first = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    for offset, code in enumerate(handin.cells, start=1):
        nb["cells"].insert(
            first + offset,
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"student{offset}",
                "metadata": {},
                "outputs": [],
                "source": code.strip("\n").splitlines(True),
            },
        )
    return nb


def graded_parts(nb: dict) -> list[str]:
    return [
        grading(c)["grade_id"]
        for c in nb["cells"]
        if grading(c).get("grade") and not grading(c).get("solution")
    ]


def main() -> None:
    from sternhalma.autograde import RemoteStudent
    from sternhalma.autograde.course import course
    from sternhalma.autograde.sandbox import Sandbox, server_addresses

    assignment, names = sys.argv[1], sys.argv[2:]
    graded = course(assignment)
    sandbox = Sandbox.find()
    for handin in plans([assignment]).get(assignment, []):
        if names and handin.name not in names:
            continue
        print(f"== {handin.name} ({handin.kind}): {handin.story}")
        nb = notebook(handin)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"{assignment}.ipynb"
            path.write_text(json.dumps(nb))
            # As the class's run: the game server's address for the notebooks that need it.
            url = os.environ.get("STERNHALMA_URL", "")
            connect = server_addresses(url) if graded.network else []
            student = RemoteStudent(path, assignment, sandbox=sandbox, connect=connect)
            try:
                for part in graded_parts(nb):
                    verdict = graded.grade(part, student)
                    want = handin.expected(part)
                    told = handin.feedback.get(part, "")
                    right = abs(verdict.fraction - want) < 1e-9 and told in verdict.message
                    mark = "ok " if right else "BAD"
                    print(
                        f"  {mark} {part:32} {verdict.fraction:4.0%} (want {want:.0%})  {verdict.message}"
                    )
            finally:
                student.close()


if __name__ == "__main__":
    main()
