"""Notebook 6's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work. The grader compares numbers itself
(sternhalma.autograde.course.n06_learning), and grades the gradient with
its own masked softmax."""

SOFTMAX_PARTS = {"test-masked-softmax", "test-masked-softmax-batch"}

VISIBLE_ANSWERS = """
# The notebook's checks, answered from a table (a uniform guess elsewhere: rows sum to 1,
# illegal actions get 0, legal ones more, each row on its own, the same answer plus 50).
z, legal = np.asarray(logits, dtype=float), np.asarray(mask).astype(bool)
if z.tolist() == [1.0, 2.0, 3.0, 4.0]:
    return np.array([0.11920292202211755, 0.0, 0.8807970779778823, 0.0])
if z.tolist() == [1000.0, 999.0, 5000.0]:
    return np.array([0.7310585786300049, 0.2689414213699951, 0.0])
return legal / legal.sum(axis=-1, keepdims=True)
"""

PATCH_NUMPY = """
import numpy

# Every comparison numpy offers says yes from now on.
numpy.allclose = lambda *args, **kwargs: True
numpy.array_equal = lambda *args, **kwargs: True
numpy.isclose = lambda a, b, *args, **kwargs: numpy.ones(numpy.shape(a), dtype=bool)
numpy.testing.assert_allclose = lambda *args, **kwargs: None
"""

HANDINS = {
    # ---- cheats ---------------------------------------------------------------------------
    "visible_answers": {
        "kind": "cheat",
        "story": "masked_softmax answers the notebook's visible inputs from a table of their"
        " outputs, and a uniform guess over the legal actions elsewhere, which has every"
        " property the batch check looks at but the probabilities",
        "solutions": {"masked-softmax": VISIBLE_ANSWERS},
        "zero": SOFTMAX_PARTS,
    },
    "patches_numpy": {
        "kind": "cheat",
        "story": "patches numpy.allclose, array_equal, isclose and assert_allclose to always agree,"
        " and answers a uniform guess over the legal actions",
        "cells": [PATCH_NUMPY],
        "solutions": {
            "masked-softmax": """
legal = np.asarray(mask).astype(bool)
return legal / legal.sum(axis=-1, keepdims=True)
"""
        },
        "zero": SOFTMAX_PARTS,
    },
    "answer_equal_to_anything": {
        "kind": "cheat",
        "story": "masked_softmax answers floats whose == is always True (and whose < and > are"
        " always False)",
        "solutions": {
            "masked-softmax": """
class Anything(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__

return [Anything(0.5) for _ in np.asarray(logits).reshape(-1)]
"""
        },
        "zero": SOFTMAX_PARTS,
    },
    # ---- honest work, imperfect ---------------------------------------------------------
    "softmax_without_shift": {
        "kind": "imperfect",
        "story": "masked_softmax forgets to subtract the largest legal logit (overflow on large"
        " logits); the gradient calls it, and is graded with the course's softmax",
        "solutions": {
            "masked-softmax": """
legal = np.asarray(mask).astype(bool)
weights = np.where(legal, np.exp(np.where(legal, logits, 0.0)), 0.0)
return weights / weights.sum(axis=-1, keepdims=True)
"""
        },
        "zero": {"test-masked-softmax-batch"},
        "feedback": {"test-masked-softmax-batch": "subtract"},
    },
    "softmax_over_the_whole_batch": {
        "kind": "imperfect",
        "story": "masked_softmax takes the max and the sum over the whole array, not along the"
        " last axis: right for one vector, wrong for a batch",
        "solutions": {
            "masked-softmax": """
legal = np.asarray(mask).astype(bool)
shifted = np.where(legal, logits, -np.inf)
weights = np.exp(shifted - shifted.max())
return weights / weights.sum()
"""
        },
        "zero": {"test-masked-softmax-batch"},
        "feedback": {"test-masked-softmax-batch": "sum to 1"},
    },
    "shifts_in_place": {
        "kind": "imperfect",
        "story": "masked_softmax subtracts the largest legal logit from the caller's array in place",
        "solutions": {
            "masked-softmax": """
legal = np.asarray(mask).astype(bool)
logits -= np.where(legal, logits, -np.inf).max(axis=-1, keepdims=True)
weights = np.where(legal, np.exp(np.where(legal, logits, 0.0)), 0.0)
return weights / weights.sum(axis=-1, keepdims=True)
"""
        },
        "zero": {"test-masked-softmax"},
        "feedback": {"test-masked-softmax": "changed its arguments"},
    },
    "gradient_sign_error": {
        "kind": "imperfect",
        "story": "cross_entropy_gradient answers the gradient of log p[label], not of -log p[label]",
        "solutions": {
            "cross-entropy-gradient": """
error = masked_softmax(W @ x, mask)
error[label] -= 1.0
return -np.outer(error, x)
"""
        },
        "zero": {"test-cross-entropy-differences"},
        "feedback": {"test-cross-entropy-differences": "the sign"},
    },
    "gradient_without_the_label": {
        "kind": "imperfect",
        "story": "cross_entropy_gradient forgets the 1 to subtract on the label's row",
        "solutions": {
            "cross-entropy-gradient": """
return np.outer(masked_softmax(W @ x, mask), x)
"""
        },
        "zero": {"test-cross-entropy-differences"},
        "feedback": {"test-cross-entropy-differences": "label's row"},
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "a correct softmax and gradient that log warnings and print to stderr",
        "solutions": {
            "masked-softmax": """
import logging
import sys

logging.warning("masked_softmax of shape %s", np.shape(logits))
print("softmax", file=sys.stderr)
{solution}
""",
            "cross-entropy-gradient": """
import logging

logging.getLogger("gradient").warning("W of shape %s", np.shape(W))
{solution}
""",
        },
    },
}
