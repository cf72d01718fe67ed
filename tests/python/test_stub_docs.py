"""The stub's docstrings are the compiled module's: every public name of
`_core.pyi` has one, and it is the runtime `__doc__` (written by
`scripts/stubdocs`), so the hover help of an IDE says what `help()` says."""

from __future__ import annotations

import ast

import pytest
import stubdocs

TREE = ast.parse(stubdocs.STUB.read_text())
NAMES = list(stubdocs.names(TREE))


def test_names_are_found() -> None:
    found = {item.name for item in NAMES}
    # Classes, module functions, methods, properties, static methods,
    # exceptions and enums, and no dunder or private name.
    assert {
        "Position",
        "rollouts",
        "Position.push",
        "Position.legal_moves",
        "Position.start",
        "IllegalMoveError",
        "OutcomeStatus",
    } <= found
    assert not any(part.startswith("_") for name in found for part in name.split("."))
    assert len(found) > 200


@pytest.mark.parametrize("item", NAMES, ids=[item.name for item in NAMES])
def test_stub_docstring_is_the_modules(item: stubdocs.Documented) -> None:
    runtime = stubdocs.runtime_doc(item.name)
    assert runtime is not None, f"{item.name} has no docstring in the module (pybind/)"
    assert item.stub_doc is not None, (
        f"{item.name} has no docstring in the stub: run scripts/stubdocs"
    )
    assert stubdocs.normal(item.stub_doc) == runtime, (
        f"{item.name}: the stub's docstring differs from the module's: run scripts/stubdocs"
    )


def test_the_stub_is_as_the_script_writes_it() -> None:
    source = stubdocs.STUB.read_text()
    assert stubdocs.formatted(stubdocs.filled(source)) == source


def test_a_drifted_docstring_is_put_back() -> None:
    """The script is what the test above relies on: it rewrites a stale
    docstring and fills a missing one."""
    source = stubdocs.STUB.read_text()
    stale = source.replace(
        '    def push(self, mv: Move | str) -> None:\n        """',
        '    def push(self, mv: Move | str) -> None:\n        """Stale. ',
        1,
    )
    assert stale != source
    assert stubdocs.formatted(stubdocs.filled(stale)) == source
