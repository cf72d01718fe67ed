"""The teaching notebooks are committed as sources: no outputs, no counts."""

import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parents[2] / "notebooks" / "source").glob("*/*.ipynb"))


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 6


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_are_stripped(path: pathlib.Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert code, "a notebook without code"
    assert all(cell.get("outputs") == [] for cell in code), "commit notebooks with outputs stripped"
    assert all(cell.get("execution_count") is None for cell in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_opens_with_learning_goals_and_ends_with_a_summary(path: pathlib.Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    markdown = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]
    assert "Learning goals" in markdown[0]
    assert any(text.startswith("## Summary") for text in markdown[-3:])
