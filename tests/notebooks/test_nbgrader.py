"""A term of nbgrader, as notebooks/README.md tells a teacher to run it:
generate the student versions, collect submissions, autograde them.

The course is a copy of notebooks/ (its source/ folder and
nbgrader_config.py) in a temporary folder. Students hand in through
`nbgrader zip_collect`: "teacher" hands in the instructor versions (every
exercise solved: full marks), "ada_lovelace" (an id with an underscore,
as learning platforms make them) the generated student versions untouched
(every exercise unsolved: zero on every graded cell, and autograde still
finishes), and every hand-in of tests/notebooks/handins/ under its own
name: the cheats must score zero on exactly the parts they fake, the
imperfect hand-ins their stated partial credit with the feedback naming
the bug, and full marks elsewhere.

Autograde runs as the course's configuration sets it: no submission runs
in nbgrader's process or in a kernel of the teacher's; each runs in the
sandbox (bubblewrap, a user without rights, no network but the scratch
game server, no view of the course) and the course's checks decide every
part in the grader (sternhalma.autograde, docs/grading.md). The term is
graded under a teacher's secret for the held-out cases
(STERNHALMA_HELD_OUT), which must appear nowhere a student sees (the
feedback). The commands are the real `nbgrader` of the venv, run as
subprocesses.

`STERNHALMA_TERM=08_solving_a_game` (assignments, comma-separated) runs
the term on those assignments only, for work on one notebook; the checks
of the sources still read every notebook. Notebook 8 reads the solved 7x7
game with three pegs from $STERNHALMA_TABLES (the module's cache folder
without it); the `course` fixture solves it there first if it is missing
(minutes, once), so that no graded run waits for it.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
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
CHECK = re.compile(
    r'^check\("(?P<assignment>[^/"]+)/(?P<part>[^"]+)", globals\(\)\)$', re.MULTILINE
)
SECRET = "the term test's secret 7f3a"


def nbgrader(
    course: Path,
    *args: str,
    cwd: Path | None = None,
    secret: str | None = None,
    server: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Runs `nbgrader ARGS` in the course folder (or `cwd`), as the teacher
    would: with the venv activated (nbgrader runs `alembic` from PATH). The
    notebooks that need a server find the release binary through
    STERNHALMA_BIN (the course is outside the checkout). `secret`: the
    teacher's secret for the held-out cases; `server`: the scratch game
    server graded notebooks may reach (STERNHALMA_URL)."""
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
    if server is not None:
        env["STERNHALMA_URL"] = server
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

        Tablebase.load("rhombus7p3", build=True, progress=False)
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


def test_every_graded_part_is_small_and_checked_by_the_course() -> None:
    """Partial credit: parts of 1 or 2 points; each test cell runs its
    part's visible checks (`check`), and the course's module has a check
    for every test cell and for nothing else, with held-out cases; at least
    30 parts in the course."""
    import inspect

    from sternhalma.autograde.course import course

    parts = 0
    for assignment in EVERY_ASSIGNMENT:
        (notebook,) = (NOTEBOOKS / "source" / assignment).glob("*.ipynb")
        graded = course(assignment)
        ids = set()
        for cell in cells(notebook):
            if grading(cell).get("grade"):
                parts += 1
                grade_id = grading(cell)["grade_id"]
                ids.add(grade_id)
                name = f"{assignment}: {grade_id}"
                assert grading(cell)["points"] in (1, 2), f"{name}: {grading(cell)['points']}"
                assert "HIDDEN TESTS" not in source(cell), f"{name}: hidden tests in the kernel"
                (call,) = CHECK.finditer(source(cell))
                assert call["assignment"] == assignment and call["part"] == grade_id, name
                check = graded.parts[grade_id]
                assert "graded" in inspect.getsource(check), f"{name}: no held-out cases"
        assert set(graded.parts) == ids, f"{assignment}: checks without a test cell"
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
        assert SECRET not in text
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
            texts = [
                "".join(o.get("text", ""))
                for o in cell.get("outputs", [])
                if o.get("output_type") == "stream"
            ]
            found[grading(cell)["grade_id"]] = " ".join(
                [f"{o['ename']}: {o['evalue']}" for o in errors] + texts
            )
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    """A scratch game server with no per-client limits, as the README tells
    a teacher to grade notebooks 5 and 7 against: its address."""
    folder = tmp_path_factory.mktemp("server")
    log = folder / "serve.log"
    binary = REPO / "target" / "release" / "sternhalma"
    process = subprocess.Popen(
        [
            str(binary),
            "serve",
            "--port",
            "0",
            "--database",
            str(folder / "grading.sqlite3"),
            "--no-limits",
            "--log-level",
            "warn",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(600):
            found = re.search(r"http://[0-9.:]+", log.read_text(errors="replace"))
            if found:
                break
            time.sleep(0.1)
        assert found, f"the server did not start: {log.read_text()}"
        yield found.group(0)
    finally:
        process.kill()
        process.wait()


def test_a_term_collected_and_autograded(course: Path, server: str) -> None:
    plans = handins.plans(ASSIGNMENTS)
    if not SELECTED:
        cheats = [h for hs in plans.values() for h in hs if h.kind == "cheat"]
        assert len(cheats) >= 15, f"{len(cheats)} cheats"
        assert len(plans) >= 6, sorted(plans)
    expected: dict[str, list[handins.Handin]] = {}
    for assignment in ASSIGNMENTS:
        archive = course / "downloaded" / assignment / "archive"
        archive.mkdir(parents=True)
        name = f"{assignment}.ipynb"
        shutil.copy(course / "source" / assignment / name, archive / f"teacher_{name}")
        shutil.copy(course / "release" / assignment / name, archive / f"ada_lovelace_{name}")
        students = ["teacher", "ada_lovelace"]
        for handin in plans.get(assignment, []):
            notebook = handins.notebook(handin)
            (archive / f"{handin.name}_{name}").write_text(json.dumps(notebook, indent=1))
            students.append(handin.name)
            expected.setdefault(assignment, []).append(handin)
        nbgrader(course, "zip_collect", assignment)
        for student in students:
            assert (course / "submitted" / student / assignment / name).is_file()
    # Two copies of the course, each autograding half of the assignments at
    # once (the machine's two cores; one gradebook each). In each, one run
    # for the class: a submission that dies or cheats never stops it.
    halves = [ASSIGNMENTS[0::2], ASSIGNMENTS[1::2]]
    folders = [course, course.with_name(course.name + "_second")]
    shutil.copytree(course, folders[1])

    def autograde(folder: Path, half: list[str]) -> None:
        # nbgrader autograde takes one assignment (or a pattern) a run.
        for assignment in half:
            graded = nbgrader(folder, "autograde", assignment, secret=SECRET, server=server)
            assert "bubblewrap" in graded.stdout + graded.stderr, "graded outside the sandbox"

    with ThreadPoolExecutor(2) as pool:
        runs = [
            pool.submit(autograde, folder, half)
            for folder, half in zip(folders, halves, strict=True)
            if half
        ]
        for run in runs:
            run.result()
    for folder, half in zip(folders, halves, strict=True):
        if half:
            check_term(folder, half, expected)
    # The feedback a student sees never holds the teacher's secret.
    for folder in folders:
        nbgrader(folder, "generate_feedback", "*")
        for page in (folder / "feedback").rglob("*.html"):
            assert SECRET not in page.read_text(errors="replace"), page


def check_term(
    course: Path, assignments: list[str], expected: dict[str, list[handins.Handin]]
) -> None:
    """The scores and feedback of `assignments`, autograded in `course`."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment in assignments:
            solved = gradebook.find_submission(assignment, "teacher")
            assert solved.max_score > 0
            lost = {
                grade.name: feedback(course, "teacher", assignment)[grade.name]
                for notebook in solved.notebooks
                for grade in notebook.grades
                if grade.score != grade.max_score
            }
            assert not lost, f"{assignment}: the instructor version loses {lost}"
            unsolved = gradebook.find_submission(assignment, "ada_lovelace")
            assert (
                course / "autograded" / "ada_lovelace" / assignment / f"{assignment}.ipynb"
            ).is_file()
            for notebook in unsolved.notebooks:
                for grade in notebook.grades:
                    assert grade.score == 0, f"{assignment}: {grade.name} scores on a skeleton"
        wrong = []
        for assignment in assignments:
            plan = expected.get(assignment, [])
            for handin in plan:
                told = feedback(course, handin.name, assignment)
                scored = {
                    grade.name: (grade.score, grade.max_score)
                    for notebook in gradebook.find_submission(assignment, handin.name).notebooks
                    for grade in notebook.grades
                }
                assert handin.zero <= set(scored) and set(handin.partial) <= set(scored), handin
                for part, (score, most) in scored.items():
                    want = most * handin.expected(part)
                    if abs(score - want) > 1e-6:
                        wrong.append(
                            f"{assignment}/{handin.name} ({handin.kind}): {part} scores {score} of {most}, not {want}: {told[part]}"
                        )
                for part, piece in handin.feedback.items():
                    if piece not in told[part]:
                        wrong.append(
                            f"{assignment}/{handin.name}: {part} says {told[part]!r}, not {piece!r}"
                        )
        assert not wrong, "\n".join(wrong)
    nbgrader(course, "export")
    rows = {
        (row["assignment"], row["student_id"]): row
        for row in csv.DictReader((course / "grades.csv").read_text().splitlines())
    }
    # A row with the score for every student who handed an assignment in.
    for assignment in assignments:
        for student in ["teacher", "ada_lovelace", *(h.name for h in expected.get(assignment, []))]:
            assert (assignment, student) in rows, (assignment, student)
        teacher = rows[(assignment, "teacher")]
        assert float(teacher["score"]) == float(teacher["max_score"]) > 0, teacher
