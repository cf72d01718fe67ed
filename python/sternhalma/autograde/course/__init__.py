"""The graded parts of the teaching notebooks (``notebooks/``), one module
an assignment, named by the assignment's folder."""

from __future__ import annotations

import importlib

from sternhalma.autograde._course import Course

ASSIGNMENTS = {
    "01_meet_the_board": "n01_meet_the_board",
    "02_single_agent_search": "n02_single_agent_search",
    "03_adversarial_search": "n03_adversarial_search",
    "04_mcts": "n04_mcts",
    "05_bots_over_http": "n05_bots_over_http",
    "06_learning": "n06_learning",
    "07_class_tournament": "n07_class_tournament",
    "08_solving_a_game": "n08_solving_a_game",
}


def course(assignment: str) -> Course:
    """The graded parts of ``assignment`` (a folder of ``notebooks/source``)."""
    module = ASSIGNMENTS.get(assignment)
    if module is None:
        raise KeyError(
            f"no graded course for the assignment {assignment!r}; known: {', '.join(ASSIGNMENTS)}"
        )
    return importlib.import_module(f"{__name__}.{module}").course
