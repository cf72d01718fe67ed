"""Grading the teaching notebooks so that a grade reflects what the student
wrote, even a student who reads the source (``docs/grading.md``).

- The **grader** (``nbgrader autograde`` with the course's configuration,
  which puts ``GradeInSandbox`` where nbgrader would execute the notebook)
  holds the checks, the expected values and the teacher's secret. It never
  runs student code.
- The **student's process** (``sternhalma.autograde.runner``, in a sandbox:
  ``sternhalma.autograde.sandbox``) runs the notebook's cells with the
  built-in searches barred for good, then answers the grader's calls as
  plain data, with what the engine saw (positions made, their trace).
- A notebook's **test cells** run the same checks on the student's own
  kernel (``check``), without the held-out cases.
"""

from sternhalma.autograde._course import Course, Verdict
from sternhalma.autograde._student import Answer, Failed, LocalStudent, RemoteStudent, Student

__all__ = [
    "Answer",
    "Course",
    "Failed",
    "LocalStudent",
    "RemoteStudent",
    "Student",
    "Verdict",
    "check",
]


def check(grade_id: str, namespace: dict) -> None:
    """Runs the visible checks of the test cell ``grade_id`` of this
    notebook's assignment on the functions in ``namespace`` (the notebook's
    ``globals()``); the assignment is the part before the first ``/``:
    ``check("03_adversarial_search/test-negamax-values", globals())``."""
    from sternhalma.autograde.course import course

    assignment, _, part = grade_id.partition("/")
    course(assignment).check(part, namespace)
