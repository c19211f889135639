"""95% intervals for the numbers niah reports: a Wilson interval for proportions (every per-sample score 0 or
1), a seeded percentile bootstrap over samples for means and for any statistic computed from samples (an
official aggregation that is not a plain mean), and the normal approximation with the largest variance a
[0, 1] score with that mean can have, for when only a mean and a count are known.

Everything here works on the 0-1 scale; callers that print percents scale the bounds. The bootstrap is
deterministic: the same samples, statistic, seed and resample count give the same interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

Z_95 = 1.959963984540054  # the two-sided 95% quantile of the standard normal
WILSON = "wilson"
NORMAL = "normal"
BOOTSTRAP = "bootstrap"
#: Resamples of the bootstrap: enough for stable 2.5/97.5 percentiles at two decimals of a percent.
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0

T = TypeVar("T")


def wilson_interval(p: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` (in [0, 1]) observed over ``n`` > 0 samples."""
    if n <= 0:
        raise ValueError("a Wilson interval needs at least one sample")
    p = min(1.0, max(0.0, float(p)))
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def normal_interval(mean: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Normal-approximation interval of a mean score in [0, 1] over ``n`` > 0 samples, with the largest variance
    such a score can have (``mean (1 - mean)``: used where the per-sample scores are not known), clipped."""
    if n <= 0:
        raise ValueError("an interval needs at least one sample")
    mean = min(1.0, max(0.0, float(mean)))
    half = z * math.sqrt(mean * (1.0 - mean) / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def interval(p: float, n: int, method: str) -> tuple[float, float]:
    """``wilson`` or ``normal`` interval of ``p`` over ``n`` samples (only a mean and a count known)."""
    return wilson_interval(p, n) if method == WILSON else normal_interval(p, n)


def is_binary(scores: Sequence[float]) -> bool:
    """True when every score is exactly 0 or 1 (a proportion: the Wilson interval applies)."""
    return all(s == 0 or s == 1 for s in scores)


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (``q`` in [0, 1]) of already sorted values."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_interval(items: Sequence[T], statistic: Callable[[Sequence[T]], float | None], *,
                       resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                       ) -> tuple[float, float] | None:
    """Percentile bootstrap 95% interval of ``statistic`` over ``items`` resampled with replacement (seeded).

    ``statistic`` may return None on a resample where it is undefined (such resamples are left out); None when
    there are no items or no resample is defined."""
    if not items:
        return None
    rng = random.Random(seed)
    n = len(items)
    values: list[float] = []
    for _ in range(resamples):
        value = statistic([items[rng.randrange(n)] for _ in range(n)])
        if value is not None:
            values.append(float(value))
    if not values:
        return None
    values.sort()
    return _percentile(values, 0.025), _percentile(values, 0.975)


def mean_interval(scores: Sequence[float], *, seed: int = BOOTSTRAP_SEED) -> tuple[tuple[float, float], str] | None:
    """95% interval of the mean of per-sample scores in [0, 1]: Wilson when all are 0/1, else the seeded
    bootstrap of the mean. Returns ``(interval, method)``; None for no scores."""
    if not scores:
        return None
    if is_binary(scores):
        return wilson_interval(sum(scores) / len(scores), len(scores)), WILSON
    found = bootstrap_interval(list(scores), lambda xs: sum(xs) / len(xs), seed=seed)
    return (found, BOOTSTRAP) if found is not None else None


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two intervals share a point (a difference between the two estimates may be noise)."""
    return a[0] <= b[1] and b[0] <= a[1]
