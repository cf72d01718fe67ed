"""Confidence intervals for the rates a notebook or a tournament measures:
a bot's score over seeded games, a difference between two bots' scores.

A rate measured over a handful of games says little: 4 wins in 6 games is
a score of 0.67, and also compatible with a bot that wins one game in
three. The intervals here say how much the games pin the rate down.

- :func:`wilson` is the Wilson score interval for one rate (E. B. Wilson,
  *Probable inference, the law of succession, and statistical inference*,
  JASA 22, 1927). Unlike the textbook ``p ± z·sqrt(p(1-p)/n)`` it stays
  inside [0, 1], is never empty at 0 or ``n`` successes, and its coverage
  stays near the nominal level for small ``n`` (R. G. Newcombe,
  *Two-sided confidence intervals for the single proportion*, Statistics
  in Medicine 17, 1998; L. D. Brown, T. T. Cai and A. DasGupta, *Interval
  estimation for a binomial proportion*, Statistical Science 16, 2001,
  who also show it dipping a little below nominal for rates very near 0
  or 1).
- :func:`difference` is Newcombe's hybrid score interval for the
  difference of two independent rates (method 10 of R. G. Newcombe,
  *Interval estimation for the difference between independent
  proportions*, Statistics in Medicine 17, 1998), built from the two
  Wilson intervals.

A game's score is 1 for a win, 1/2 for a draw and 0 for a loss, so
``successes`` may be a half-integer: pass ``wins + draws / 2``. A score
that can be 1/2 varies less than a win-or-loss result with the same mean,
so draws make the interval wider than it needs to be, not narrower. The
games must be independent: deterministic bots that replay the same game
from the same start count once, however often they play it.

>>> interval = wilson(8, 10)
>>> round(interval.low, 3), round(interval.high, 3)
(0.49, 0.943)
>>> interval.above(0.5)
False
>>> print(interval)
0.80 [0.49, 0.94] (95%)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from statistics import NormalDist

__all__ = ["Interval", "difference", "wilson"]


@dataclass(frozen=True)
class Interval:
    """An estimate and its two-sided confidence interval ``[low, high]``
    at ``confidence`` (0.95 for 95 %)."""

    estimate: float
    low: float
    high: float
    confidence: float

    def above(self, value: float) -> bool:
        """True when the whole interval lies above ``value``: the games
        show, at this confidence, that the rate is more than ``value``."""
        return self.low > value

    def below(self, value: float) -> bool:
        """True when the whole interval lies below ``value``."""
        return self.high < value

    def __contains__(self, value: object) -> bool:
        return isinstance(value, Real) and self.low <= float(value) <= self.high

    def __str__(self) -> str:
        return f"{self.estimate:.2f} [{self.low:.2f}, {self.high:.2f}] ({self.confidence:.0%})"


def _z(confidence: float) -> float:
    if not (isinstance(confidence, Real) and 0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence must be between 0 and 1 (0.95 for 95 %), not {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def _checked(successes: float, trials: int, name: str) -> tuple[float, int]:
    """The two numbers as a float and an int (numpy's scalars included),
    or a ValueError naming the one that is wrong."""
    if isinstance(trials, bool) or not isinstance(trials, Integral) or trials < 1:
        raise ValueError(f"{name}trials must be a whole number of at least 1, not {trials!r}")
    if not isinstance(successes, Real) or not 0 <= successes <= trials:
        raise ValueError(
            f"{name}successes must be between 0 and the {trials} trials, not {successes!r}"
        )
    return float(successes), int(trials)


def wilson(successes: float, trials: int, *, confidence: float = 0.95) -> Interval:
    """The Wilson score interval of the rate ``successes / trials``.

    ``successes`` may be a half-integer (wins plus half the draws).
    Raises ``ValueError`` for no trials, successes outside ``[0,
    trials]`` or a confidence outside (0, 1).

    >>> print(wilson(0, 10))
    0.00 [0.00, 0.28] (95%)
    >>> print(wilson(5, 10, confidence=0.99))
    0.50 [0.18, 0.82] (99%)
    """
    successes, trials = _checked(successes, trials, "")
    z = _z(confidence)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At 0 (or all) successes the bound is exactly 0 (or 1); rounding would
    # leave a few ulps.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(p, low, high, confidence)


def difference(
    successes_a: float,
    trials_a: int,
    successes_b: float,
    trials_b: int,
    *,
    confidence: float = 0.95,
) -> Interval:
    """Newcombe's interval for the difference of two independent rates,
    ``successes_a / trials_a - successes_b / trials_b``.

    When ``difference(...).above(0)``, the games show that ``a``'s rate is
    higher than ``b``'s at this confidence.

    >>> interval = difference(56, 70, 48, 80)  # Newcombe (1998), example (b)
    >>> round(interval.estimate, 3), round(interval.low, 4), round(interval.high, 4)
    (0.2, 0.0524, 0.3339)
    """
    _checked(successes_a, trials_a, "a's ")
    _checked(successes_b, trials_b, "b's ")
    a = wilson(successes_a, trials_a, confidence=confidence)
    b = wilson(successes_b, trials_b, confidence=confidence)
    d = a.estimate - b.estimate
    low = d - math.sqrt((a.estimate - a.low) ** 2 + (b.high - b.estimate) ** 2)
    high = d + math.sqrt((a.high - a.estimate) ** 2 + (b.estimate - b.low) ** 2)
    return Interval(d, max(-1.0, low), min(1.0, high), confidence)
