"""A term of nbgrader, as notebooks/README.md tells a teacher to run it:
generate the student versions, collect submissions, autograde them.

The course is a copy of notebooks/ (its source/ folder and
nbgrader_config.py) in a temporary folder. Two students hand in every
assignment through `nbgrader zip_collect`: "teacher" hands in the
instructor versions (every exercise solved: full marks), "ada_lovelace"
(an id with an underscore, as learning platforms make them) hands in the
generated student versions untouched (every exercise unsolved: zero on
every graded cell, and autograde still finishes). The commands are the
real `nbgrader` of the venv, run as subprocesses.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
NBGRADER = Path(sys.executable).with_name("nbgrader")
ASSIGNMENTS = sorted(path.name for path in (NOTEBOOKS / "source").iterdir() if path.is_dir())
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.DOTALL)


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs `nbgrader ARGS` in the course folder, as the teacher would: with
    the venv activated (nbgrader runs `alembic` from PATH). The notebooks
    that need a server find the release binary through STERNHALMA_BIN (the
    course is outside the checkout)."""
    env = dict(
        os.environ,
        PATH=f"{NBGRADER.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        VIRTUAL_ENV=str(NBGRADER.parent.parent),
        STERNHALMA_BIN=str(REPO / "target" / "release" / "sternhalma"),
    )
    env.pop("STERNHALMA_URL", None)
    done = subprocess.run(
        [str(NBGRADER), *args],
        check=False,
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def grading(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course after `nbgrader generate_assignment` of every assignment."""
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(NOTEBOOKS / "source", course / "source")
    shutil.copy(NOTEBOOKS / "nbgrader_config.py", course)
    nbgrader(course, "generate_assignment", "*")
    return course


def test_every_notebook_is_an_assignment_with_graded_exercises() -> None:
    assert len(ASSIGNMENTS) >= 7
    for assignment in ASSIGNMENTS:
        (notebook,) = (NOTEBOOKS / "source" / assignment).glob("*.ipynb")
        assert notebook.stem == assignment
        found = cells(notebook)
        solutions = [c for c in found if grading(c).get("solution")]
        tests = [c for c in found if grading(c).get("grade")]
        assert solutions and tests, f"{assignment}: no exercise, or no graded test"
        for cell in solutions:
            assert SOLUTION.search(source(cell)), f"{assignment}: a solution cell without a region"
        ids = [grading(c)["grade_id"] for c in found if grading(c)]
        assert len(ids) == len(set(ids)), f"{assignment}: grade ids repeat"


def test_student_versions_keep_the_skeletons_and_no_solution(course: Path) -> None:
    for assignment in ASSIGNMENTS:
        instructor = cells(course / "source" / assignment / f"{assignment}.ipynb")
        student = cells(course / "release" / assignment / f"{assignment}.ipynb")
        assert len(student) == len(instructor), assignment
        text = "\n".join(source(cell) for cell in student)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, assignment
        for mine, theirs in zip(instructor, student, strict=True):
            if grading(mine).get("solution"):
                original = source(mine)
                # The skeleton (signature, docstring) stays; the solution goes.
                skeleton = original[: original.index("### BEGIN SOLUTION")].rstrip()
                assert source(theirs).startswith(skeleton.rstrip(" ")), assignment
                assert "raise NotImplementedError()" in source(theirs), assignment
                for region in SOLUTION.findall(original):
                    for line in region.splitlines():
                        line = line.strip()
                        if len(line) > 20 and line not in skeleton:
                            assert line not in source(theirs), f"{assignment}: left: {line}"
            else:
                assert source(theirs) == source(mine), f"{assignment}: a cell changed"
            if theirs["cell_type"] == "code":
                assert theirs["outputs"] == [], f"{assignment}: outputs handed out"


def test_validate_passes_the_instructor_version_and_fails_the_student_one(course: Path) -> None:
    first = ASSIGNMENTS[0]
    solved = nbgrader(course, "validate", f"source/{first}/{first}.ipynb")
    assert "Success! Your notebook passes all the tests." in solved.stdout, solved.stdout
    unsolved = nbgrader(course, "validate", f"release/{first}/{first}.ipynb")
    assert "VALIDATION FAILED" in unsolved.stdout, unsolved.stdout


def test_a_term_collected_and_autograded(course: Path) -> None:
    from nbgrader.api import Gradebook

    for assignment in ASSIGNMENTS:
        archive = course / "downloaded" / assignment / "archive"
        archive.mkdir(parents=True)
        name = f"{assignment}.ipynb"
        shutil.copy(course / "source" / assignment / name, archive / f"teacher_{name}")
        shutil.copy(course / "release" / assignment / name, archive / f"ada_lovelace_{name}")
        nbgrader(course, "zip_collect", assignment)
        for student in ("teacher", "ada_lovelace"):
            assert (course / "submitted" / student / assignment / name).is_file()
    nbgrader(course, "autograde", "*")

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment in ASSIGNMENTS:
            solved = gradebook.find_submission(assignment, "teacher")
            assert solved.max_score > 0
            assert solved.score == solved.max_score, (
                f"{assignment}: the instructor version scores {solved.score} of {solved.max_score}"
            )
            unsolved = gradebook.find_submission(assignment, "ada_lovelace")
            assert (
                course / "autograded" / "ada_lovelace" / assignment / f"{assignment}.ipynb"
            ).is_file()
            for notebook in unsolved.notebooks:
                for grade in notebook.grades:
                    assert grade.score == 0, f"{assignment}: {grade.name} scores on a skeleton"
    nbgrader(course, "export")
    rows = (course / "grades.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * len(ASSIGNMENTS), rows
