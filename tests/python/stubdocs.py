"""The docstrings of the stub `python/sternhalma/_core.pyi`, taken from the
compiled module, so that an IDE's hover help and JupyterLab's contextual help
say what `help()` says, and cannot drift from it.

    .venv/bin/python tests/python/stubdocs.py          # rewrite the stub
    .venv/bin/python tests/python/stubdocs.py --check  # fail if it would change

(`scripts/stubdocs` runs it.) The module must be the one built from this
checkout: build and install the wheel first. Every public class, function,
method and property of the stub gets the runtime `__doc__` of the same name;
dunder methods keep none (theirs are Python's), enum members none (an
attribute has no docstring). `test_stub_docs.py` fails when a public name of
the stub lacks a docstring or has another than the module's.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "python" / "sternhalma" / "_core.pyi"
MODULE = "sternhalma._core"


@dataclass
class Documented:
    """A public name of the stub that takes a docstring."""

    name: str  # `Position.push`, `Board`, `rollouts`
    node: ast.ClassDef | ast.FunctionDef
    stub_doc: str | None


def normal(doc: str) -> str:
    """A docstring as compared: cleaned as `help()` shows it, without
    trailing spaces."""
    return "\n".join(line.rstrip() for line in inspect.cleandoc(doc).splitlines())


def is_public(name: str) -> bool:
    return not name.startswith("_")


def names(tree: ast.Module) -> Iterator[Documented]:
    """Every public class and function of the stub, and every public method
    and property of its public classes, in file order."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and is_public(node.name):
            yield Documented(node.name, node, ast.get_docstring(node, clean=False))
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and is_public(item.name):
                        doc = ast.get_docstring(item, clean=False)
                        yield Documented(f"{node.name}.{item.name}", item, doc)


def runtime_doc(name: str) -> str | None:
    """The compiled module's `__doc__` for a dotted name, or None."""
    value: object = importlib.import_module(MODULE)
    for part in name.split("."):
        value = getattr(value, part)
    doc = getattr(value, "__doc__", None)
    return normal(doc) if doc and doc.strip() else None


def literal(doc: str, indent: str) -> str:
    """A docstring as written in the stub at `indent`."""
    text = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text = text[:-1] + '\\"'
    lines = text.split("\n")
    body = "\n".join([lines[0]] + [f"{indent}{line}" if line else "" for line in lines[1:]])
    closing = f"\n{indent}" if len(lines) > 1 else ""
    return f'{indent}"""{body}{closing}"""'


def filled(source: str) -> str:
    """The stub with every public name's docstring set from the module."""
    tree = ast.parse(source)
    lines = source.split("\n")
    # Edits from the bottom up, so that line numbers above stay right.
    edits: list[tuple[int, int, list[str]]] = []  # (first line, end line, replacement)
    for item in names(tree):
        doc = runtime_doc(item.name)
        if doc is None:
            continue
        node = item.node
        first = node.body[0]
        indent = " " * (node.col_offset + 4)
        if item.stub_doc is not None:
            # Replace the docstring in place.
            start, end = first.lineno - 1, (first.end_lineno or first.lineno) - 1
            edits.append((start, end, literal(doc, indent).split("\n")))
        elif (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and first.value.value is Ellipsis
            and len(node.body) == 1
        ):
            # `def f(...) -> T: ...  # comment`: the `...` becomes the docstring.
            row = first.lineno - 1
            line = lines[row]
            head = line[: first.col_offset].rstrip()
            tail = line[first.end_col_offset or len(line) :]
            edits.append((row, row, [head + tail, *literal(doc, indent).split("\n")]))
        else:
            # A class with a body: the docstring goes first (above the
            # first method's decorators).
            decorators = getattr(first, "decorator_list", [])
            row = min([first.lineno, *(d.lineno for d in decorators)]) - 1
            indent = " " * first.col_offset
            edits.append((row, row - 1, literal(doc, indent).split("\n")))
    for start, end, replacement in sorted(edits, key=lambda edit: edit[0], reverse=True):
        lines[start : end + 1] = replacement
    return "\n".join(lines)


def formatted(source: str) -> str:
    """The stub as `ruff format` writes it."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(STUB), "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def main(argv: list[str]) -> int:
    check = "--check" in argv
    source = STUB.read_text()
    new = formatted(filled(source))
    if new == source:
        print(f"{STUB.relative_to(ROOT)}: docstrings up to date")
        return 0
    if check:
        print(
            f"{STUB.relative_to(ROOT)}: docstrings differ from the module's; run scripts/stubdocs",
            file=sys.stderr,
        )
        return 1
    STUB.write_text(new)
    print(f"{STUB.relative_to(ROOT)}: docstrings written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
