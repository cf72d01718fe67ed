"""sternhalma.stats: the intervals the notebooks' claims rest on, checked
against the published values of R. G. Newcombe (Statistics in Medicine 17,
1998: Table I, method 3, for one proportion; Table II, method 10, for a
difference)."""

from __future__ import annotations

import pytest
from sternhalma.stats import Interval, difference, wilson


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_newcombe(successes: int, trials: int, low: float, high: float) -> None:
    interval = wilson(successes, trials)
    assert interval.estimate == successes / trials
    assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)
    assert interval.confidence == 0.95


@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        ((56, 70), (48, 80), 0.0524, 0.3339),
        ((9, 10), (3, 10), 0.1705, 0.8090),
        ((5, 56), (0, 29), -0.0381, 0.1926),
    ],
)
def test_difference_matches_newcombe(
    a: tuple[int, int], b: tuple[int, int], low: float, high: float
) -> None:
    interval = difference(*a, *b)
    assert interval.estimate == pytest.approx(a[0] / a[1] - b[0] / b[1])
    assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)


def test_intervals_hold_their_estimate_and_narrow_with_more_games() -> None:
    previous = None
    for trials in (10, 40, 160, 640):
        interval = wilson(0.7 * trials, trials)
        assert 0.0 <= interval.low < interval.estimate < interval.high <= 1.0
        if previous is not None:
            assert interval.high - interval.low < previous.high - previous.low
        previous = interval
    assert wilson(10, 10).high == 1.0 and wilson(0, 10).low == 0.0
    wider = wilson(7, 10, confidence=0.99)
    assert wider.low < wilson(7, 10).low and wider.high > wilson(7, 10).high


def test_numpy_numbers_are_numbers() -> None:
    np = pytest.importorskip("numpy")
    assert wilson(np.int64(5), np.int64(10)) == wilson(5, 10)
    assert wilson(np.float64(4.5), 10) == wilson(4.5, 10)
    assert np.int64(1) in wilson(10, 10) and np.float64(0.3) in wilson(3, 10)
    with pytest.raises(ValueError, match="trials must be a whole number"):
        wilson(1, np.float64(2.0))


def test_half_points_for_draws() -> None:
    # 3 wins and 2 draws in 6 games: a score of 4/6.
    assert wilson(3 + 2 / 2, 6).estimate == pytest.approx(4 / 6)


def test_reading_an_interval() -> None:
    interval = Interval(0.6, 0.55, 0.7, 0.95)
    assert interval.above(0.5) and not interval.above(0.55) and not interval.below(0.7)
    assert interval.below(0.71)
    assert 0.6 in interval and 0.55 in interval and 0.5 not in interval and "x" not in interval
    assert str(interval) == "0.60 [0.55, 0.70] (95%)"
    assert difference(9, 10, 3, 10).above(0) and not difference(5, 56, 0, 29).above(0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wilson(1, 0), "trials must be a whole number of at least 1"),
        (lambda: wilson(1, 2.5), "trials must be a whole number"),
        (lambda: wilson(1, True), "trials must be a whole number"),
        (lambda: wilson(11, 10), "successes must be between 0 and the 10 trials"),
        (lambda: wilson(-1, 10), "successes must be between 0"),
        (lambda: wilson(5, 10, confidence=1.0), "confidence must be between 0 and 1"),
        (lambda: wilson(5, 10, confidence=95), "confidence must be between 0 and 1"),
        (lambda: difference(1, 2, 3, 2), "b's successes must be between 0 and the 2 trials"),
        (lambda: difference(1, 0, 1, 2), "a's trials must be"),
    ],
)
def test_bad_arguments_are_named(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
