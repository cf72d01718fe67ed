"""The `>>>` examples in the docstrings run, and pass.

`doctest.DocTestFinder` walks the modules; it does not look inside the
compiled classes' static methods (`Position.start`), so every docstring of
every class attribute is also collected by hand and run."""

from __future__ import annotations

import doctest
import inspect
from types import ModuleType

import pytest
import sternhalma
import sternhalma._core as core
from sternhalma import _records, client, grading, stats

MODULES = [sternhalma, core, client, _records, grading, stats]
FLAGS = doctest.ELLIPSIS
CORE_CLASSES = [
    core.Board,
    core.Rules,
    core.Move,
    core.Outcome,
    core.Position,
    core.Bot,
    core.SearchResult,
    core.Tablebase,
    core.Probe,
    core.MoveProbe,
    core.Analysis,
    core.PlyAnalysis,
    core.SeatAnalysis,
]


def globs_for(module: ModuleType) -> dict:
    # The examples use the names the package exports.
    return {**vars(module), **vars(sternhalma)}


def run(test: doctest.DocTest) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    output: list[str] = []
    runner.run(test, out=output.append)
    if runner.failures:
        pytest.fail("".join(output), pytrace=False)
    return doctest.TestResults(runner.failures, runner.tries)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_module_doctests(module: ModuleType) -> None:
    tests = doctest.DocTestFinder().find(module, globs=globs_for(module))
    failures = []
    for test in tests:
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        output: list[str] = []
        runner.run(test, out=output.append)
        if runner.failures:
            failures.append("".join(output))
    assert not failures, "\n".join(failures)


def found_by_finder(module: ModuleType) -> dict[str, int]:
    return {
        test.name: len(test.examples)
        for test in doctest.DocTestFinder().find(module, globs=globs_for(module))
        if test.examples
    }


def test_finder_finds_the_examples() -> None:
    assert found_by_finder(sternhalma).get("sternhalma", 0) > 0
    found = found_by_finder(core)
    for cls in (core.Board, core.Rules, core.Move, core.Position):
        assert found.get(f"sternhalma._core.{cls.__name__}", 0) > 0, cls


def docstrings() -> list[tuple[str, str, ModuleType]]:
    """(name, docstring, module) of everything public with a `>>>` example:
    modules, functions, classes, and every attribute of every class."""
    found = []
    for module in MODULES:
        if module.__doc__ and ">>>" in module.__doc__:
            found.append((module.__name__, module.__doc__, module))
        for name, value in vars(module).items():
            if name.startswith("_"):
                continue
            if inspect.isroutine(value):  # functions, compiled ones included
                if getattr(value, "__module__", None) in (module.__name__, "sternhalma"):
                    doc = value.__doc__
                    if doc and ">>>" in doc:
                        found.append((f"{module.__name__}.{name}", doc, module))
                continue
            if not inspect.isclass(value):
                continue
            if value.__module__ not in (module.__name__, "sternhalma"):
                continue  # imported from elsewhere
            if value.__doc__ and ">>>" in value.__doc__:
                found.append((f"{module.__name__}.{name}", value.__doc__, module))
            for attribute in vars(value):
                # Through getattr: a static method's raw entry is a
                # `staticmethod`, whose __doc__ is the builtin's own.
                doc = getattr(getattr(value, attribute), "__doc__", None)
                if attribute.startswith("__") or not doc or ">>>" not in doc:
                    continue
                found.append((f"{module.__name__}.{name}.{attribute}", doc, module))
    return list({name: (name, doc, module) for name, doc, module in found}.values())


DOCSTRINGS = docstrings()


def test_docstrings_are_collected() -> None:
    names = {name for name, _, _ in DOCSTRINGS}
    assert "sternhalma" in names
    assert "sternhalma._core.Position.start" in names  # missed by DocTestFinder
    assert "sternhalma._core.rollouts" in names  # a compiled function
    assert "sternhalma._core.OutcomeStatus" in names  # an enum made by the binding
    assert "sternhalma._records.MatchResult" in names  # a typed client answer
    assert len(names) >= 6


@pytest.mark.parametrize("name, doc, module", DOCSTRINGS, ids=[name for name, _, _ in DOCSTRINGS])
def test_docstring_examples(name: str, doc: str, module: ModuleType) -> None:
    test = doctest.DocTestParser().get_doctest(doc, globs_for(module), name, module.__file__, 0)
    assert test.examples
    results = run(test)
    assert results.attempted == len(test.examples)


@pytest.mark.parametrize("cls", CORE_CLASSES, ids=lambda c: c.__name__)
def test_every_class_has_examples(cls: type) -> None:
    """The issue asks for docstrings with `>>>` examples: each class shows
    how it is used."""
    assert cls.__doc__ and ">>>" in cls.__doc__


@pytest.mark.parametrize("cls", CORE_CLASSES, ids=lambda c: c.__name__)
def test_every_public_method_is_documented(cls: type) -> None:
    undocumented = [
        name
        for name in vars(cls)
        if not name.startswith("_") and not (getattr(cls, name).__doc__ or "").strip()
    ]
    assert not undocumented, f"{cls.__name__}: {undocumented}"
