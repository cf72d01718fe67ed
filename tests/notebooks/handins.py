"""The hand-ins of the term test besides the instructor's and the untouched
student versions: a **cheating** student and a **buggy** one, made from the
instructor version by replacing solution regions.

Each notebook that has them keeps them in `tests/notebooks/handins/<assignment>.py`:

- `CHEATING`, `BUGGY`: the solution cell's `grade_id` -> the code that
  replaces its solution region (the `### BEGIN SOLUTION` ... `### END
  SOLUTION` lines and what is between them; the skeleton around stays).
- `CHEATING_ZERO`: the set of graded test cells the cheating hand-in must score 0
  on. It scores full marks on every other one.
- `BUGGY_FEEDBACK`: a dict, graded test cell -> a piece of the error the buggy
  hand-in must get there (the feedback naming the bug); 0 on those, full
  marks on every other one.

Run as a script to see how a hand-in fares without nbgrader (each graded
cell: passed, or its error as `Name: message`):

    .venv/bin/python tests/notebooks/handins.py 03_adversarial_search cheating
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "notebooks" / "source"
HANDINS = Path(__file__).resolve().parent / "handins"
REGION = re.compile(r"[ \t]*### BEGIN SOLUTION\n.*?### END SOLUTION[ \t]*\n?", re.DOTALL)
KINDS = ("cheating", "buggy")


def grading(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def plans() -> dict[str, ModuleType]:
    """The hand-in plans, by assignment."""
    found = {}
    for path in sorted(HANDINS.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"handins_{path.stem}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found[path.stem] = module
    return found


def replaced(source: str, code: str) -> str:
    """`source` with its (one) solution region replaced by `code`, indented
    as the region's first marker."""
    (region,) = REGION.findall(source)
    indent = region[: len(region) - len(region.lstrip())]
    lines = [indent + line if line.strip() else "" for line in code.strip("\n").splitlines()]
    return source.replace(region, "\n".join(lines) + "\n")


def handin(assignment: str, kind: str) -> dict:
    """The notebook a student of this `kind` hands in for `assignment`."""
    plan = plans()[assignment]
    changes = dict(getattr(plan, kind.upper()))
    path = SOURCE / assignment / f"{assignment}.ipynb"
    notebook = copy.deepcopy(json.loads(path.read_text()))
    for cell in notebook["cells"]:
        grade_id = grading(cell).get("grade_id")
        if grade_id in changes:
            code = changes.pop(grade_id)
            cell["source"] = replaced("".join(cell["source"]), code)
    assert not changes, f"{assignment}: no solution cell {sorted(changes)}"
    return notebook


def graded_cells(notebook: dict) -> list[str]:
    return [grading(c)["grade_id"] for c in notebook["cells"] if grading(c).get("grade")]


def run(notebook: dict, assignment: str) -> dict[str, str | None]:
    """Executes `notebook` top to bottom (errors allowed), in the notebook's
    folder: graded cell -> None if it passed, else its error's last line."""
    import nbformat
    from nbclient import NotebookClient

    node = nbformat.reads(json.dumps(notebook), as_version=4)
    NotebookClient(
        node,
        timeout=600,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(SOURCE / assignment)}},
    ).execute()
    results: dict[str, str | None] = {}
    for cell in node.cells:
        meta = grading(cell)
        if not meta.get("grade"):
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        results[meta["grade_id"]] = (
            None if not errors else f"{errors[0]['ename']}: {errors[0]['evalue']}"
        )
    return results


def main() -> None:
    assignment, kind = sys.argv[1], sys.argv[2]
    notebook = handin(assignment, kind)
    for grade_id, error in run(notebook, assignment).items():
        print(f"{grade_id:32} {'passed' if error is None else error}")


if __name__ == "__main__":
    main()
