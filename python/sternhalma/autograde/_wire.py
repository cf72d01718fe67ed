"""The plain data that crosses between the grader and the student's process.

Arguments and answers are JSON with three tagged forms: a position
``{"$position": "<position string>"}``, a move ``{"$move": "<move text>"}``
and a float JSON cannot write ``{"$float": "inf" | "-inf" | "nan"}`` (big
ints come back as ``{"$int": "<digits>"}``). The student's side is the
engine's loop (``_graded_run_serve``, in Rust); this module is the
grader's side, and the local self-checks' (which go through the same
encoding, so a notebook's checks see what the grader sees).
"""

from __future__ import annotations

import math
from typing import Any

from sternhalma._core import Move, Position


def encode(value: Any) -> Any:
    """A grader's argument as plain JSON (positions, moves, floats tagged)."""
    if isinstance(value, Position):
        return {"$position": str(value)}
    if isinstance(value, Move):
        return {"$move": str(value)}
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    raise TypeError(f"the grader cannot send a {type(value).__name__}")


def decode(value: Any) -> Any:
    """A student's answer, from its plain JSON: tagged forms rebuilt."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            ((key, inner),) = value.items()
            if key == "$float":
                return float(inner)
            if key == "$int":
                return int(inner)
            if key == "$position":
                return Position(inner)
            if key == "$move":
                return Move.parse(inner)
        return {k: decode(v) for k, v in value.items()}
    return value
