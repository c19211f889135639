"""The shared interval helpers: hand-checked Wilson bounds, a deterministic bootstrap, the method choice."""

import pytest

from niah.scoring.stats import (
    BOOTSTRAP,
    WILSON,
    bootstrap_interval,
    intervals_overlap,
    mean_interval,
    normal_interval,
    wilson_interval,
)


def test_wilson_matches_hand_computed_bounds():
    # p = 0.5, n = 10: centre 0.5, half-width 1.96/1.38415 * sqrt(0.025 + 0.009604) = 0.26340
    lo, hi = wilson_interval(0.5, 10)
    assert lo == pytest.approx(0.23659, abs=1e-4) and hi == pytest.approx(0.76341, abs=1e-4)
    # all correct over 4: lower bound 4/(4 + 3.8415) = 0.5101, upper 1
    lo, hi = wilson_interval(1.0, 4)
    assert lo == pytest.approx(0.51010, abs=1e-4) and hi == 1.0
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)


def test_normal_interval_uses_the_largest_variance_and_clips():
    lo, hi = normal_interval(0.5, 100)
    assert (lo, hi) == pytest.approx((0.5 - 0.098, 0.5 + 0.098), abs=1e-3)
    assert normal_interval(1.0, 3) == (1.0, 1.0)


def test_mean_interval_picks_wilson_for_proportions_and_bootstrap_for_means():
    found = mean_interval([1, 0, 1, 1])
    assert found is not None and found[1] == WILSON
    assert found[0] == pytest.approx(wilson_interval(0.75, 4))
    found = mean_interval([0.2, 0.4, 0.9, 0.5])
    assert found is not None and found[1] == BOOTSTRAP
    lo, hi = found[0]
    assert 0.2 <= lo < 0.5 < hi <= 0.9
    assert mean_interval([]) is None


def test_bootstrap_is_seeded_and_skips_undefined_resamples():
    items = [i / 37 for i in range(0, 37, 3)] + [0.05, 0.93, 0.41]
    stat = lambda xs: sum(xs) / len(xs)  # noqa: E731
    assert bootstrap_interval(items, stat) == bootstrap_interval(items, stat)
    assert bootstrap_interval(items, stat, seed=1) != bootstrap_interval(items, stat)
    assert bootstrap_interval(items, lambda xs: None) is None
    assert bootstrap_interval([], stat) is None
    assert bootstrap_interval([0.4] * 6, stat) == pytest.approx((0.4, 0.4))


def test_overlap():
    assert intervals_overlap((0.1, 0.4), (0.35, 0.6))
    assert not intervals_overlap((0.1, 0.3), (0.35, 0.6))


def test_wilson_always_holds_the_proportion_even_at_the_bounds():
    # float round-off once put the upper bound of 30 of 30 at 0.9999999999999999: a chart's error bar below
    # the point then had a negative length, and matplotlib refused the whole report
    for n in range(1, 301):
        assert wilson_interval(1.0, n)[1] == 1.0 and wilson_interval(0.0, n)[0] == 0.0
        for k in range(0, n + 1, max(1, n // 7)):
            lo, hi = wilson_interval(k / n, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
