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
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import numpy as np

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
    # the interval always holds p (exactly 1 at p = 1, where float round-off gives 0.9999999999999999)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


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


def alike_interval(score: float, n: int) -> tuple[float, float]:
    """The interval of ``n`` samples that all scored ``score`` (in [0, 1]), where a bootstrap has nothing to
    redraw and would claim certainty: Wilson's for a proportion (all 0 or all 1), else the normal approximation
    with the largest variance a mean of ``score`` can have."""
    return wilson_interval(score, n) if score in (0.0, 1.0) else normal_interval(score, n)


S = TypeVar("S")

#: How far a stratum's common score is moved to read the figure's slope on it.
_SLOPE_STEP = 0.01


def strata_alike_interval(figure: Callable[[dict[S, float]], float | None], commons: dict[S, float],
                          sizes: dict[S, int], z: float = Z_95) -> tuple[float, float] | None:
    """The interval of a figure computed from strata whose samples each scored alike though the strata differ
    (one task all right, another all wrong): a bootstrap within strata has nothing to redraw.

    ``figure(values)`` is the figure with every sample of stratum ``s`` scored ``values[s]`` (0-1 scale);
    ``commons`` the strata's common scores, ``sizes`` their sample counts. Each stratum's score gets the
    Agresti-Coull variance (its count and common score with z^2/2 successes and failures added, so that 5 of 5
    is not certain); the figure's variance is the sum over strata of its slope on that stratum squared times
    that variance (the slope read by moving the stratum's score a step towards the middle), and the interval is
    the figure plus and minus z standard deviations, clipped to [0, 1]. None where the figure is undefined."""
    at = figure(dict(commons))
    if at is None:
        return None
    variance = 0.0
    z2 = z * z
    for stratum, common in commons.items():
        n = sizes[stratum]
        adjusted = (n * common + z2 / 2) / (n + z2)
        step = -_SLOPE_STEP if common > 0.5 else _SLOPE_STEP
        moved = figure({**commons, stratum: common + step})
        slope = 0.0 if moved is None else (moved - at) / step
        variance += slope * slope * adjusted * (1.0 - adjusted) / (n + z2)
    half = z * math.sqrt(variance)
    return max(0.0, at - half), min(1.0, at + half)


#: Points across an interval at which an aggregation is evaluated to bound it: an official rule need not be
#: monotone in the scores (one family flips a yes/no score below 50 to 100 minus it), so the ends alone can
#: miss its least or greatest value inside.
INTERVAL_POINTS = 41


def interval_points(low: float, high: float, points: int = INTERVAL_POINTS) -> list[float]:
    """``points`` values evenly spread from ``low`` to ``high``, both included."""
    if points < 2 or high <= low:
        return [low, high]
    return [low + (high - low) * k / (points - 1) for k in range(points)]


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
    n = len(items)
    return bootstrap_intervals(lambda rng: [statistic([items[rng.randrange(n)] for _ in range(n)])], 1,
                               resamples=resamples, seed=seed)[0]


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


def bootstrap_intervals(replicate: Callable[[random.Random], Sequence[float | None]], size: int, *,
                        resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                        ) -> list[tuple[float, float] | None]:
    """Percentile bootstrap 95% intervals of ``size`` statistics computed together from one resample.

    ``replicate(rng)`` draws one resample with ``rng`` (the caller decides how: e.g. within strata, so that the
    layout an aggregation expects is kept) and returns the ``size`` statistics on it, None where one is
    undefined. One seeded generator drives every resample, so the same inputs give the same intervals."""
    rng = random.Random(seed)
    values: list[list[float]] = [[] for _ in range(size)]
    for _ in range(resamples):
        for position, value in enumerate(replicate(rng)):
            if value is not None:
                values[position].append(float(value))
    return [percentile_interval(found) for found in values]


def percentile_interval(values: list[float]) -> tuple[float, float] | None:
    """The 2.5 and 97.5 percentiles of a bootstrap's statistic over its resamples (sorts ``values`` in place);
    None for none."""
    values.sort()
    return (_percentile(values, 0.025), _percentile(values, 0.975)) if values else None


#: Resamples drawn at once by :func:`stratified_draws`, at most, and the draws in one block (bounds the memory:
#: two 8-byte words per draw, and what a resampler builds per draw).
_DRAW_CHUNK = 32
_DRAWS_PER_BLOCK = 1_000_000


def stratified_draws(sizes: Sequence[int], resamples: int = BOOTSTRAP_RESAMPLES, *, seed: int = BOOTSTRAP_SEED,
                     ) -> Iterator[np.ndarray]:
    """The draws of a stratified bootstrap, a block of resamples at a time (arrays of ``sum(sizes)`` columns,
    one row per resample): in the columns of group ``g`` (groups side by side, in order), the index within the
    group (0 to ``sizes[g] - 1``) drawn for each of its positions.

    Exactly the draws of ``rng = random.Random(seed)`` then, per resample and per group in order,
    ``rng.choices(range(size), k=size)``, so a bootstrap written with those calls keeps every interval it
    printed; vectorised: Python's generator is the Mersenne Twister that numpy's ``MT19937`` also runs, so its
    state carries over and each ``random()`` is rebuilt from two of its 32-bit words as Python builds it."""
    import numpy as np

    _version, internal, _gauss = random.Random(seed).getstate()
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937",
                       "state": {"key": np.array(internal[:-1], dtype=np.uint32), "pos": internal[-1]}}
    total = sum(sizes)
    # choices multiplies each random() by the population size as a float, then floors
    scale = np.repeat(np.array(sizes, dtype=np.float64), sizes)
    chunk = max(1, min(_DRAW_CHUNK, _DRAWS_PER_BLOCK // max(total, 1)))
    for start in range(0, resamples, chunk):
        count = min(chunk, resamples - start)
        words = generator.random_raw(2 * total * count).reshape(count, total, 2)
        uniform = ((words[..., 0] >> 5) * 67108864.0 + (words[..., 1] >> 6)) * (1.0 / 9007199254740992.0)
        yield np.floor(uniform * scale).astype(np.intp)


def two_proportion_p_value(p1: float, n1: int, p2: float, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test that proportions ``p1`` (over ``n1`` samples) and
    ``p2`` (over ``n2``) are equal. 1.0 when the pooled proportion is 0 or 1 (no variance: nothing differs)."""
    if n1 <= 0 or n2 <= 0:
        raise ValueError("a two-proportion test needs samples on both sides")
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2)
    variance = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)
    if variance <= 0.0:
        return 1.0
    z = abs(p1 - p2) / math.sqrt(variance)
    return math.erfc(z / math.sqrt(2.0))
