"""A term of nbgrader, as notebooks/README.md tells a teacher to run it:
generate the student versions, collect submissions, autograde them.

The course is a copy of notebooks/ (its source/ folder and
nbgrader_config.py) in a temporary folder. Students hand in through
`nbgrader zip_collect`: "teacher" hands in the instructor versions (every
exercise solved: full marks), "ada_lovelace" (an id with an underscore,
as learning platforms make them) the generated student versions untouched
(every exercise unsolved: zero on every graded cell, and autograde still
finishes). Where a notebook has hand-in plans (tests/notebooks/handins/),
"cheater" hands in hard-coded answers, searches that delegate to the
built-in ones and searches without the pruning the exercise names (zero on
exactly those parts, full marks on the rest), and "buggy" a sign error and
a budget overrun (partial credit: zero on those parts, with feedback
naming the bug). The term is graded under a teacher's secret for the
held-out cases (STERNHALMA_HELD_OUT), as a teacher who keeps the cases
from the students would. The commands are the real `nbgrader` of the venv,
run as subprocesses.

`STERNHALMA_TERM=08_solving_a_game` (assignments, comma-separated) runs
the term on those assignments only, for work on one notebook; the checks
of the sources still read every notebook. Notebook 8 reads the solved 7x7
game with three pegs from $STERNHALMA_TABLES (the module's cache folder
without it); the `course` fixture solves it there first if it is missing
(minutes, once), so that no graded run waits for it.
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

# The hand-in plans, beside this file.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import handins

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
NBGRADER = Path(sys.executable).with_name("nbgrader")
EVERY_ASSIGNMENT = sorted(path.name for path in (NOTEBOOKS / "source").iterdir() if path.is_dir())
SELECTED = [name for name in os.environ.get("STERNHALMA_TERM", "").split(",") if name]
assert set(SELECTED) <= set(EVERY_ASSIGNMENT), f"STERNHALMA_TERM: no such assignment {SELECTED}"
# The assignments the term runs.
ASSIGNMENTS = SELECTED or EVERY_ASSIGNMENT
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.DOTALL)
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n.*?### END HIDDEN TESTS\n?", re.DOTALL)
SECRET = "the term test's secret"


def nbgrader(
    course: Path, *args: str, cwd: Path | None = None, secret: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs `nbgrader ARGS` in the course folder (or `cwd`), as the teacher
    would: with the venv activated (nbgrader runs `alembic` from PATH). The
    notebooks that need a server find the release binary through
    STERNHALMA_BIN (the course is outside the checkout). `secret`: the
    teacher's secret for the held-out cases."""
    env = dict(
        os.environ,
        PATH=f"{NBGRADER.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        VIRTUAL_ENV=str(NBGRADER.parent.parent),
        STERNHALMA_BIN=str(REPO / "target" / "release" / "sternhalma"),
    )
    env.pop("STERNHALMA_URL", None)
    env.pop("STERNHALMA_HELD_OUT", None)
    if secret is not None:
        env["STERNHALMA_HELD_OUT"] = secret
    done = subprocess.run(
        [str(NBGRADER), *args],
        check=False,
        cwd=cwd or course,
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
    """The course after `nbgrader generate_assignment` of the term's assignments."""
    if "08_solving_a_game" in ASSIGNMENTS:
        from sternhalma import Tablebase

        Tablebase.load("rhombus7x2", build=True, progress=False)
    course = tmp_path_factory.mktemp("course")
    for assignment in ASSIGNMENTS:
        shutil.copytree(NOTEBOOKS / "source" / assignment, course / "source" / assignment)
    shutil.copy(NOTEBOOKS / "nbgrader_config.py", course)
    nbgrader(course, "generate_assignment", "*")
    return course


def test_every_notebook_is_an_assignment_with_graded_exercises() -> None:
    assert len(EVERY_ASSIGNMENT) >= 8
    for assignment in EVERY_ASSIGNMENT:
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


def test_every_graded_part_is_small_and_has_held_out_cases() -> None:
    """Partial credit: parts of 1 or 2 points; each with hidden tests after
    its visible self-check; at least 30 parts in the course."""
    parts = 0
    for assignment in EVERY_ASSIGNMENT:
        (notebook,) = (NOTEBOOKS / "source" / assignment).glob("*.ipynb")
        for cell in cells(notebook):
            if grading(cell).get("grade"):
                parts += 1
                name = f"{assignment}: {grading(cell)['grade_id']}"
                assert grading(cell)["points"] in (1, 2), f"{name}: {grading(cell)['points']}"
                assert len(HIDDEN.findall(source(cell))) == 1, f"{name}: no hidden tests"
                visible = HIDDEN.sub("", source(cell))
                assert "assert" in visible, f"{name}: no visible self-check"
        text = "\n".join(source(c) for c in cells(notebook) if c["cell_type"] == "markdown")
        assert "**Time:**" not in text, f"{assignment}: run times belong in notebooks/README.md"
    assert parts >= 30, f"{parts} graded parts"


def test_student_versions_keep_the_skeletons_and_no_solution(course: Path) -> None:
    for assignment in ASSIGNMENTS:
        instructor = cells(course / "source" / assignment / f"{assignment}.ipynb")
        student = cells(course / "release" / assignment / f"{assignment}.ipynb")
        assert len(student) == len(instructor), assignment
        text = "\n".join(source(cell) for cell in student)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, assignment
        assert "HIDDEN TESTS" not in text, f"{assignment}: hidden tests handed out"
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
            elif grading(mine).get("grade"):
                assert source(theirs).rstrip() == HIDDEN.sub("", source(mine)).rstrip(), assignment
            else:
                assert source(theirs) == source(mine), f"{assignment}: a cell changed"
            if theirs["cell_type"] == "code":
                assert theirs["outputs"] == [], f"{assignment}: outputs handed out"


def test_validate_passes_the_instructor_version_and_fails_the_student_one(course: Path) -> None:
    first = ASSIGNMENTS[0]
    solved = nbgrader(course, "validate", f"source/{first}/{first}.ipynb")
    assert "Success! Your notebook passes all the tests." in solved.stdout, solved.stdout
    # A student validates beside the notebook handed out, outside the course:
    # the copy of the course's config there sets the timeout and the width.
    folder = course / "release" / first
    assert (folder / "nbgrader_config.py").read_text() == (
        NOTEBOOKS / "nbgrader_config.py"
    ).read_text()
    unsolved = nbgrader(course, "validate", f"{first}.ipynb", cwd=folder)
    assert "VALIDATION FAILED" in unsolved.stdout, unsolved.stdout
    assert "nbgrader_config.py" not in unsolved.stdout + unsolved.stderr, unsolved.stderr
    assert "=" * 120 in unsolved.stdout, "the course's message width"


def test_a_student_who_solves_every_exercise_passes_validate(course: Path) -> None:
    """The visible self-checks stand on their own: the student version with
    the instructor's solutions filled in (no hidden tests) validates."""
    for assignment in ASSIGNMENTS:
        name = f"{assignment}.ipynb"
        solved = json.loads((course / "release" / assignment / name).read_text())
        instructor = cells(course / "source" / assignment / name)
        for mine, theirs in zip(instructor, solved["cells"], strict=True):
            if grading(mine).get("solution"):
                theirs["source"] = mine["source"]
        folder = course / "solved" / assignment
        folder.mkdir(parents=True)
        (folder / name).write_text(json.dumps(solved))
        shutil.copy(course / "release" / assignment / "nbgrader_config.py", folder)
        done = nbgrader(course, "validate", name, cwd=folder)
        assert "Success! Your notebook passes all the tests." in done.stdout, done.stdout


def feedback(course: Path, student: str, assignment: str) -> dict[str, str]:
    """Graded cell -> the error text autograde left in it (empty if none)."""
    path = course / "autograded" / student / assignment / f"{assignment}.ipynb"
    found = {}
    for cell in cells(path):
        if grading(cell).get("grade"):
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            found[grading(cell)["grade_id"]] = " ".join(
                f"{o['ename']}: {o['evalue']}" for o in errors
            )
    return found


def test_a_term_collected_and_autograded(course: Path) -> None:
    from nbgrader.api import Gradebook

    plans = {name: plan for name, plan in handins.plans().items() if name in ASSIGNMENTS}
    if not SELECTED:
        assert {
            "02_single_agent_search",
            "03_adversarial_search",
            "08_solving_a_game",
        } <= plans.keys()
    for assignment in ASSIGNMENTS:
        archive = course / "downloaded" / assignment / "archive"
        archive.mkdir(parents=True)
        name = f"{assignment}.ipynb"
        shutil.copy(course / "source" / assignment / name, archive / f"teacher_{name}")
        shutil.copy(course / "release" / assignment / name, archive / f"ada_lovelace_{name}")
        students = ["teacher", "ada_lovelace"]
        if assignment in plans:
            for kind in handins.KINDS:
                notebook = handins.handin(assignment, kind)
                (archive / f"{kind}_{name}").write_text(json.dumps(notebook, indent=1))
                students.append(kind)
        nbgrader(course, "zip_collect", assignment)
        for student in students:
            assert (course / "submitted" / student / assignment / name).is_file()
    nbgrader(course, "autograde", "*", secret=SECRET)

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
        for assignment, plan in plans.items():
            scored = {
                grade.name: (grade.score, grade.max_score)
                for notebook in gradebook.find_submission(assignment, "cheating").notebooks
                for grade in notebook.grades
            }
            assert plan.CHEATING_ZERO <= set(scored), assignment
            for name, (score, most) in scored.items():
                want = 0 if name in plan.CHEATING_ZERO else most
                assert score == want, f"{assignment}: the cheating hand-in scores {score} on {name}"
            buggy = gradebook.find_submission(assignment, "buggy")
            assert 0 < buggy.score < buggy.max_score, f"{assignment}: no partial credit"
            told = feedback(course, "buggy", assignment)
            for notebook in buggy.notebooks:
                for grade in notebook.grades:
                    if grade.name in plan.BUGGY_FEEDBACK:
                        assert grade.score == 0, f"{assignment}: the bug scores on {grade.name}"
                        assert plan.BUGGY_FEEDBACK[grade.name] in told[grade.name], told
                    else:
                        assert grade.score == grade.max_score, f"{assignment}: {grade.name}"
    nbgrader(course, "export")
    rows = (course / "grades.csv").read_text().splitlines()
    # A row per student of the course and assignment, handed in or not.
    students = 2 + (len(handins.KINDS) if plans else 0)
    assert len(rows) == 1 + len(ASSIGNMENTS) * students, rows
