"""A course's graded parts: each a check run by the grader, never by the
student's process, on what the student's functions answer.

A notebook's module (``sternhalma.autograde.course.n03_adversarial_search``
and so on) makes one ``Course``, registers its **adapters** (how a call
reaches the student's code: run in the student's process, with the
notebook's namespace as first argument, and answering plain data) and its
**parts** (one per nbgrader test cell, by the cell's ``grade_id``: run in
the grader, with a ``Student`` to call and ``graded``: False for the
visible checks a student runs in the notebook, True for the grader's run,
which adds the held-out cases).

A part passes by returning, fails by raising ``Failed`` with the
student's feedback (the case and the likely mistake, never a held-out
case's data), or earns part of its points by returning a fraction, or a
fraction and the feedback that says what the rest was lost for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from sternhalma.autograde._student import Failed, LocalStudent, Student

Part = Callable[[Student, bool], "float | tuple[float, str] | None"]
P = TypeVar("P", bound=Part)
A = TypeVar("A", bound=Callable[..., Any])


@dataclass
class Verdict:
    """A part's grade: the fraction of its points, and the feedback."""

    part: str
    fraction: float
    message: str


_MISSING = object()


@contextmanager
def lent(ns: dict[str, Any], values: dict[str, Any]) -> Iterator[None]:
    """``values`` put in the notebook's namespace ``ns`` for the block, what
    was there put back after: an adapter lends the course's references of
    the other exercises' functions (one bug charged once) or its copies of
    the notebook's helpers. Runs in the student's process."""
    saved = {name: ns.get(name, _MISSING) for name in values}
    ns.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is _MISSING:
                ns.pop(name, None)
            else:
                ns[name] = value


def each(function: Callable[..., Any], cases: list[Any]) -> Any:
    """``function(case)`` for each case, in the student's process: the list of
    answers, or at the first that raises ``{"case", "type", "message"}`` (so
    that the feedback names the case without showing it)."""
    found = []
    for number, case in enumerate(cases):
        try:
            found.append(function(case))
        except Exception as e:  # noqa: BLE001 (the student's error is the answer)
            try:
                message = str(e)[:300]
            except Exception:  # noqa: BLE001
                message = ""
            return {"case": number, "type": type(e).__name__, "message": message}
    return found


class Course:
    """One notebook's adapters and graded parts."""

    def __init__(self, assignment: str, *, network: bool = False):
        self.assignment = assignment
        self.network = network
        """Whether the student's process may reach the game server while
        graded (``STERNHALMA_URL``'s address and no other); without it, no
        network at all."""
        self.adapters: dict[str, Callable[..., Any]] = {}
        self.parts: dict[str, Part] = {}

    def adapter(self, function: A) -> A:
        """Registers ``function(namespace, *args)`` as the call named after it."""
        self.adapters[function.__name__] = function
        return function

    def part(self, grade_id: str) -> Callable[[P], P]:
        """Registers the check of the test cell ``grade_id``."""

        def register(function: P) -> P:
            self.parts[grade_id] = function
            return function

        return register

    def grade(self, grade_id: str, student: Student, graded: bool = True) -> Verdict:
        """Runs one part: its verdict, whatever the student's code did."""
        check = self.parts.get(grade_id)
        if check is None:
            return Verdict(
                grade_id, 0.0, f"no check for the test cell {grade_id!r}: ask your teacher"
            )
        try:
            fraction = check(student, graded)
        except Failed as failure:
            return Verdict(grade_id, 0.0, str(failure))
        if fraction is None:
            return Verdict(grade_id, 1.0, "passed")
        hint = ""
        if isinstance(fraction, tuple):
            fraction, hint = fraction
        fraction = min(max(float(fraction), 0.0), 1.0)
        if fraction == 1.0:
            return Verdict(grade_id, 1.0, "passed")
        said = f"{fraction:.0%} of the points" + (f": {hint}" if hint else "")
        return Verdict(grade_id, fraction, said)

    def check(self, grade_id: str, namespace: dict[str, Any]) -> None:
        """The visible checks of ``grade_id`` on this kernel's functions: an
        ``AssertionError`` with the feedback when one fails (a notebook's
        test cell calls it; the grader's run adds held-out cases)."""
        if grade_id not in self.parts:
            raise KeyError(f"no check {grade_id!r} in {self.assignment}")
        verdict = self.grade(grade_id, LocalStudent(namespace, self.adapters), graded=False)
        if verdict.fraction < 1.0:
            raise AssertionError(verdict.message)
