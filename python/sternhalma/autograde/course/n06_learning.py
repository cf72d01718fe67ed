"""Notebook 6, learning: the masked softmax and the cross-entropy gradient.

Arrays cross as lists: the adapters make them numpy arrays in the
student's process (the mask as int8 or bool, as the case says) and answer
the student's result with the arguments as they are after the call; the
grader compares numbers with a tolerance, never the student's objects (a
float subclass that claims to equal anything crosses as its value), so
nothing the student's process patches (numpy's ``allclose``, say) takes
part in a verdict.

The gradient is graded with the course's masked softmax put in the place
of the student's for the call: a softmax bug costs the softmax parts, not
the gradient's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import sternhalma
from sternhalma import grading
from sternhalma.autograde import Course, Failed, Student
from sternhalma.envs import sternhalma_v0  # noqa: F401 (the notebook's import, made before the lock)

course = Course("06_learning")

HOLES = len(sternhalma.Position.start(board="rhombus5p3").board)
ACTIONS = HOLES * HOLES + 1  # every from * holes + to, and a pass
MASKS = {"int8": np.int8, "bool": bool}


def reference_softmax(logits: Any, legal: Any) -> np.ndarray:
    """The masked softmax, row by row, in plain numpy (a fresh float array)."""
    z, legal = np.asarray(logits, dtype=float), np.asarray(legal).astype(bool)
    out = np.zeros(z.shape)
    for row in np.ndindex(z.shape[:-1]):  # one empty index for a vector
        weights = np.exp(z[row][legal[row]] - z[row][legal[row]].max())
        out[row][legal[row]] = weights / weights.sum()
    return out


# ---- adapters: run in the student's process ------------------------------------------


@course.adapter
def masked_softmax(ns, logits, mask, kind):
    z = np.array(logits, dtype=float)
    legal = np.array(mask, dtype=MASKS[kind])
    given = {"logits": z.copy(), "mask": legal.copy()}
    p = ns["masked_softmax"](z, legal)
    return {"p": p, "given": given, "after": {"logits": z, "mask": legal}}


@course.adapter
def cross_entropy_gradient(ns, W, x, mask, label):
    W, x = np.array(W, dtype=float), np.array(x, dtype=float)
    legal = np.array(mask, dtype=np.int8)
    given = {"W": W.copy(), "x": x.copy()}
    missing = object()
    students = ns.get("masked_softmax", missing)
    ns["masked_softmax"] = reference_softmax
    try:
        gradient = ns["cross_entropy_gradient"](W, x, legal, label)
    finally:
        if students is missing:
            del ns["masked_softmax"]
        else:
            ns["masked_softmax"] = students
    return {"gradient": gradient, "given": given, "after": {"W": W, "x": x}}


# ---- the grader's side ---------------------------------------------------------------


def array(value: Any, what: str) -> np.ndarray:
    """The student's answer as a float array, or `Failed`."""
    try:
        found = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise Failed(f"{what}: answered {type(value).__name__}, not an array of numbers") from None
    return found


def unchanged(result: dict, names: tuple[str, ...]) -> bool:
    """Whether the arguments are after the call as the student's function got them (as
    the adapter copied them before the call: the numbers that arrived, to the last bit)."""
    given, after = result.get("given"), result.get("after")
    if not isinstance(given, dict) or not isinstance(after, dict):
        return False
    for name in names:
        try:
            before, now = np.asarray(given[name], float), np.asarray(after[name], float)
        except (KeyError, TypeError, ValueError):
            return False
        if before.shape != now.shape or not np.array_equal(before, now):
            return False
    return True


def softmax(
    student: Student,
    logits: np.ndarray,
    legal: np.ndarray,
    kind: str,
    what: str,
    *,
    in_place: bool = False,
):
    """The student's masked softmax of `logits` and `legal` (sent as `kind`), checked for
    its shape and, when `in_place`, for its arguments left alone (the vector part's check:
    an argument changed costs that part only)."""
    answer = student.call("masked_softmax", logits.tolist(), legal.astype(int).tolist(), kind)
    result = answer.value
    if not isinstance(result, dict):
        raise Failed(f"{what}: the call answered nothing")
    p = array(result.get("p"), what)
    if p.shape != logits.shape:
        single = "one vector in, one out" if logits.ndim == 1 else "one row per position"
        raise Failed(f"{what}: shape {p.shape}, expected {logits.shape} ({single})")
    if in_place and not unchanged(result, ("logits", "mask")):
        raise Failed(f"{what}: masked_softmax changed its arguments (work on a copy)")
    return p


def softmax_hint(got: np.ndarray, logits: np.ndarray, legal: np.ndarray) -> str:
    """Why a softmax may be wrong: the mask ignored, the wrong axis, the shift."""
    if np.all(np.isfinite(got)):
        everywhere = reference_softmax(logits, np.ones_like(legal))
        if got.shape == everywhere.shape and np.allclose(got, everywhere):
            return " (the mask left out: illegal actions get probability 0)"
        if logits.ndim == 2:
            flat = reference_softmax(logits.ravel(), legal.ravel()).reshape(logits.shape)
            if np.allclose(got, flat):
                return " (the whole batch as one vector: work along the last axis)"
        return ""
    return " (not finite: subtract the row's largest legal logit before np.exp)"


def check_softmax(got: np.ndarray, logits: np.ndarray, legal: np.ndarray, what: str) -> None:
    if not np.all(np.isfinite(got)):
        raise Failed(f"{what}: not finite (subtract each row's largest legal logit before np.exp)")
    if not np.all(got[~legal] == 0.0):
        raise Failed(f"{what}: an illegal action does not get probability exactly 0")
    if not np.allclose(got, reference_softmax(logits, legal)):
        raise Failed(f"{what}: wrong probabilities{softmax_hint(got, logits, legal)}")


@course.part("test-masked-softmax")
def masked_softmax_vector(student: Student, graded: bool) -> None:
    logits = np.array([1.0, 2.0, 3.0, 4.0])
    legal = np.array([True, False, True, False])
    what = "masked_softmax on the notebook's vector"
    got = softmax(student, logits, legal, "int8", what, in_place=True)
    expected = np.array([np.e**1, 0.0, np.e**3, 0.0]) / (np.e**1 + np.e**3)
    if not np.allclose(got, expected):
        raise Failed(
            f"{what}: expected {expected.round(4).tolist()}, got {got.round(4).tolist()}"
            f"{softmax_hint(got, logits, legal)}"
        )
    check_softmax(got, logits, legal, what)
    if not graded:
        return
    checker = np.random.default_rng(grading.held_out("nb6-softmax-vector").randrange(2**32))
    for case in range(12):
        size = int(checker.integers(1, 40))
        z = checker.normal(0.0, 4.0, size=size)
        legal = checker.random(size) < checker.uniform(0.1, 0.9)
        legal[checker.integers(size)] = True
        kind = "bool" if case % 2 else "int8"
        what = f"masked_softmax on held-out vector {case}"
        check_softmax(softmax(student, z, legal, kind, what, in_place=True), z, legal, what)


@course.part("test-masked-softmax-batch")
def masked_softmax_batch(student: Student, graded: bool) -> None:
    logits = np.array([1000.0, 999.0, 5000.0])
    legal = np.array([True, True, False])
    what = "masked_softmax on the logits [1000, 999, 5000] (the last illegal)"
    large = softmax(student, logits, legal, "bool", what)
    check_softmax(large, logits, legal, what)

    checker = np.random.default_rng(6)
    batch_logits = checker.normal(0.0, 3.0, size=(5, ACTIONS))
    batch_legal = checker.random((5, ACTIONS)) < 0.05
    batch_legal[:, 7] = True
    what = f"masked_softmax on the notebook's batch of shape {batch_logits.shape}"
    batch = softmax(student, batch_logits, batch_legal, "int8", what)
    if not np.allclose(batch.sum(axis=1), 1.0):
        raise Failed(
            f"{what}: a row does not sum to 1{softmax_hint(batch, batch_logits, batch_legal)}"
        )
    if not np.all(batch[batch_legal] > 0.0):
        raise Failed(f"{what}: a legal action gets probability 0")
    check_softmax(batch, batch_logits, batch_legal, what)
    row = softmax(student, batch_logits[2], batch_legal[2], "int8", f"{what}, its row 2 alone")
    if not np.allclose(batch[2], row):
        raise Failed(f"{what}: a row's answer depends on the other rows")
    shifted = softmax(
        student, batch_logits + 50.0, batch_legal, "int8", f"{what}, every logit plus 50"
    )
    if not np.allclose(shifted, batch):
        raise Failed(f"{what}: adding 50 to every logit changed the answer")
    if not graded:
        return
    checker = np.random.default_rng(grading.held_out("nb6-softmax-batch").randrange(2**32))
    for case in range(8):
        rows, size = int(checker.integers(1, 9)), int(checker.integers(2, 60))
        z = checker.normal(0.0, 3.0, size=(rows, size))
        z += checker.uniform(-2000.0, 2000.0, size=(rows, 1))  # each row far from the others
        legal = checker.random((rows, size)) < checker.uniform(0.05, 0.6)
        legal[np.arange(rows), checker.integers(size, size=rows)] = True
        z[~legal] += checker.choice([0.0, 3000.0])  # large illegal logits, sometimes
        what = f"masked_softmax on held-out batch {case}"
        check_softmax(softmax(student, z, legal, "int8", what), z, legal, what)


# ---- the gradient --------------------------------------------------------------------


def small_example() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The notebook's example: W of shape (6, 4)."""
    checker = np.random.default_rng(7)
    W = checker.normal(0.0, 1.0, size=(6, 4))
    x = checker.normal(0.0, 1.0, size=4)
    legal = np.array([1, 0, 1, 1, 0, 1]).astype(bool)
    return W, x, legal, 3


def held_out_example(checker: np.random.Generator) -> tuple:
    actions, features = int(checker.integers(2, 16)), int(checker.integers(1, 8))
    W = checker.normal(0.0, 1.0, size=(actions, features))
    x = checker.normal(0.0, 1.0, size=features)
    legal = checker.random(actions) < 0.6
    label = int(checker.integers(actions))
    legal[label] = True
    return W, x, legal, label


def gradient(student: Student, W, x, legal, label, what: str, *, in_place=False) -> np.ndarray:
    """The student's gradient, checked for its shape and, when `in_place`, for W and x left
    alone (the shape part's check)."""
    answer = student.call(
        "cross_entropy_gradient", W.tolist(), x.tolist(), legal.astype(int).tolist(), label
    )
    result = answer.value
    if not isinstance(result, dict):
        raise Failed(f"{what}: the call answered nothing")
    got = array(result.get("gradient"), what)
    if got.shape != W.shape:
        hint = (
            " (transposed? np.outer(error, x) has a row per action)"
            if got.shape == W.T.shape
            else ""
        )
        raise Failed(f"{what}: shape {got.shape}, expected the shape of W, {W.shape}{hint}")
    if in_place and not unchanged(result, ("W", "x")):
        raise Failed(f"{what}: cross_entropy_gradient changed W or x (work on a copy)")
    return got


def loss(W: np.ndarray, x: np.ndarray, legal: np.ndarray, label: int) -> float:
    """-log p[label], with the largest legal logit taken out."""
    z = W @ x
    top = z[legal].max()
    return float(top + np.log(np.exp(z[legal] - top).sum()) - z[label])


def numeric(W, x, legal, label, epsilon: float = 1e-6) -> np.ndarray:
    """The gradient by central finite differences."""
    found = np.zeros_like(W)
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            nudge = np.zeros_like(W)
            nudge[i, j] = epsilon
            up, down = loss(W + nudge, x, legal, label), loss(W - nudge, x, legal, label)
            found[i, j] = (up - down) / (2 * epsilon)
    return found


def gradient_hint(got, W, x, legal, label) -> str:
    """Why a gradient may be wrong: the sign, the label's row, the mask."""
    right = numeric(W, x, legal, label)
    p = reference_softmax(W @ x, legal)
    if np.allclose(got, -right, atol=1e-6):
        return " (the sign? the gradient of -log p[label])"
    if np.allclose(got, np.outer(p, x), atol=1e-6):
        return " (the label's row: p[label] - 1, not p[label])"
    everywhere = reference_softmax(W @ x, np.ones_like(legal))
    error = everywhere.copy()
    error[label] -= 1.0
    if np.allclose(got, np.outer(error, x), atol=1e-6):
        return " (the softmax over every action: use the mask)"
    return " (the label's row? the sign?)"


@course.part("test-cross-entropy-gradient")
def gradient_shape(student: Student, graded: bool) -> None:
    cases = [("the notebook's example, W of shape (6, 4)", *small_example())]
    if graded:
        checker = np.random.default_rng(grading.held_out("nb6-gradient-shape").randrange(2**32))
        for case in range(10):
            W, x, legal, label = held_out_example(checker)
            cases.append((f"held-out example {case}", W, x, legal, label))
    for name, W, x, legal, label in cases:
        what = f"cross_entropy_gradient on {name}"
        got = gradient(student, W, x, legal, label, what, in_place=True)
        if not np.all(got[~legal] == 0.0):
            raise Failed(f"{what}: an illegal action's row is not all zeros")


@course.part("test-cross-entropy-differences")
def gradient_differences(student: Student, graded: bool) -> None:
    cases = [("the notebook's example, W of shape (6, 4)", *small_example())]
    if graded:
        checker = np.random.default_rng(
            grading.held_out("nb6-gradient-differences").randrange(2**32)
        )
        for case in range(10):
            W, x, legal, label = held_out_example(checker)
            cases.append((f"held-out example {case}", W, x, legal, label))
    for name, W, x, legal, label in cases:
        what = f"cross_entropy_gradient on {name}"
        got = gradient(student, W, x, legal, label, what)
        if not np.all(np.isfinite(got)):
            raise Failed(f"{what}: not finite")
        right = numeric(W, x, legal, label)
        if not np.allclose(got, right, atol=1e-6):
            hint = gradient_hint(got, W, x, legal, label)
            if name.startswith("held-out"):
                worst = np.abs(got - right).max()
                raise Failed(f"{what}: {worst:.2g} away from finite differences{hint}")
            at = np.unravel_index(np.abs(got - right).argmax(), W.shape)
            raise Failed(
                f"{what}: {got[at]:.4f} at {tuple(int(i) for i in at)}, finite differences give"
                f" {right[at]:.4f}{hint}"
            )
        if not loss(W - 0.1 * got, x, legal, label) < loss(W, x, legal, label):
            raise Failed(f"{what}: a step against it does not lower the loss (the sign?)")
