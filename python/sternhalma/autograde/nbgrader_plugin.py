"""nbgrader's autograde with the verdict decided outside the student's
process: ``GradeInSandbox`` takes the place of nbgrader's ``Execute``.

The course's ``nbgrader_config.py`` sets::

    from sternhalma.autograde.nbgrader_plugin import AUTOGRADE_PREPROCESSORS
    c.Autograde.autograde_preprocessors = AUTOGRADE_PREPROCESSORS

and ``nbgrader autograde ASSIGNMENT`` then works as before (the gradebook,
``autograded/``, ``generate_feedback``, ``export``, the formgrader), but
no cell of a submission runs in nbgrader's process or in a kernel of the
teacher's: the submission runs in a sandbox (``sandbox.Sandbox``), and
each test cell's output is the grader's verdict on it (nothing, for full
points; the points earned, for part of them; an error with the feedback,
for none), which nbgrader's ``SaveAutoGrades`` reads as it reads any
executed cell.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbformat import NotebookNode
from nbgrader.preprocessors import (  # type: ignore[import-untyped]
    AssignLatePenalties,
    CheckCellMetadata,
    IgnorePattern,
    LimitOutput,
    NbGraderPreprocessor,
    SaveAutoGrades,
)
from traitlets import Bool, Float, Unicode

from sternhalma.autograde._course import Verdict
from sternhalma.autograde._student import RemoteStudent
from sternhalma.autograde.course import course as course_of
from sternhalma.autograde.sandbox import Sandbox, server_addresses


class GradeInSandbox(NbGraderPreprocessor):
    """Grades a submission's test cells by the course's checks, the
    submission running in a sandbox; writes each verdict as the cell's
    output."""

    sandbox = Bool(
        True,
        help="Run each submission in a bubblewrap sandbox (refuse to grade without one).",
    ).tag(config=True)
    call_timeout = Float(
        120.0,
        help="Seconds one call of the student's code may take (a safety net: budgets are in nodes).",
    ).tag(config=True)
    setup_timeout = Float(
        300.0, help="Seconds the notebook's cells may take before the first call."
    ).tag(config=True)
    server = Unicode(
        "",
        help="The game server a notebook's code may reach while graded (default: $STERNHALMA_URL).",
    ).tag(config=True)

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        assignment = resources["nbgrader"]["assignment"]
        cells = [
            cell
            for cell in nb.cells
            if cell.cell_type == "code"
            and cell.metadata.get("nbgrader", {}).get("grade")
            and not cell.metadata.get("nbgrader", {}).get("solution")
        ]
        verdicts = self.grade(nb, assignment, [c.metadata["nbgrader"]["grade_id"] for c in cells])
        for cell in cells:
            verdict = verdicts[cell.metadata["nbgrader"]["grade_id"]]
            cell.outputs = outputs(verdict, float(cell.metadata["nbgrader"].get("points", 0)))
            cell.execution_count = None
        return nb, resources

    def grade(self, nb: NotebookNode, assignment: str, parts: list[str]) -> dict[str, Verdict]:
        """Each part's verdict (all 0, with the reason, when grading cannot start)."""
        try:
            course = course_of(assignment)
        except KeyError as e:
            return {p: Verdict(p, 0.0, str(e)) for p in parts}
        sandbox = Sandbox.find() if self.sandbox else None
        url = self.server or os.environ.get("STERNHALMA_URL", "")
        connect = server_addresses(url) if course.network else []
        with tempfile.TemporaryDirectory(prefix="sternhalma-submission-") as folder:
            path = Path(folder) / "submission.ipynb"
            nbformat.write(nb, str(path))
            student = RemoteStudent(
                path,
                assignment,
                sandbox=sandbox,
                connect=connect,
                setup_timeout=self.setup_timeout,
                call_timeout=self.call_timeout,
                log=self.log.info,
            )
            try:
                verdicts = {}
                for part in parts:
                    verdict = course.grade(part, student)
                    self.log.info("%s: %s (%s)", part, f"{verdict.fraction:.0%}", verdict.message)
                    verdicts[part] = verdict
            finally:
                student.close()
        if student.cell_errors:
            self.log.info(
                "cells that raised while the submission ran: %s", student.cell_errors[:10]
            )
        return verdicts


def outputs(verdict: Verdict, points: float) -> list[NotebookNode]:
    """A test cell's outputs as nbgrader scores them: none for full points,
    the points earned for part of them, an error for none."""
    if verdict.fraction >= 1.0:
        return [nbformat.v4.new_output("stream", name="stdout", text="passed\n")]
    if verdict.fraction > 0.0:
        earned = round(points * verdict.fraction, 2)
        return [
            nbformat.v4.new_output("stream", name="stdout", text=verdict.message + "\n"),
            nbformat.v4.new_output(
                "execute_result", data={"text/plain": repr(earned)}, execution_count=None
            ),
        ]
    return [
        nbformat.v4.new_output(
            "error",
            ename="Failed",
            evalue=verdict.message,
            traceback=[f"Failed: {verdict.message}"],
        )
    ]


AUTOGRADE_PREPROCESSORS = [
    GradeInSandbox,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
"""nbgrader's autograde steps with ``GradeInSandbox`` where ``Execute`` was."""
