"""MM-NIAH context-length bins and depth cells, exactly as the official aggregation computes them.

Official rules (../specs/mm-niah.md, "Aggregation and heatmaps"):
- context bins: numpy.digitize over edges 1000..64000; samples under 1000 tokens are dropped; >= 64000 is "64k";
- depth: mean of a list of depths, 1.0 becomes 0.99, cell = int(depth / 0.2) in floating point, so a depth
  of exactly 0.6 lands in cell 2 (0.6 / 0.2 == 2.9999999999999996), a quirk kept on purpose.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

import numpy as np

CONTEXT_EDGES: tuple[int, ...] = (1000, 2000, 4000, 8000, 12000, 16000, 24000, 32000, 40000, 48000, 64000)
CONTEXT_LABELS: tuple[str, ...] = ("1k", "2k", "4k", "8k", "12k", "16k", "24k", "32k", "40k", "48k", "64k")
NUM_DEPTH_CELLS = 5
DEPTH_STEP = 0.2
DEPTH_LABELS: tuple[str, ...] = ("0.0", "0.2", "0.4", "0.6", "0.8")


def context_bin(context_length: int | float) -> int | None:
    """0-based bin index (0 = "1k" ... 10 = "64k"), or None for samples under 1000 tokens (official: dropped).

    Same as ``numpy.digitize(x, CONTEXT_EDGES) - 1`` with everything past the last edge kept in the last bin.
    """
    idx = bisect_right(CONTEXT_EDGES, context_length) - 1
    if idx < 0:
        return None
    return min(idx, len(CONTEXT_EDGES) - 1)


def mean_depth(depth: float | Sequence[float]) -> float:
    if isinstance(depth, (int, float)):
        return float(depth)
    values = list(depth)
    if not values:
        raise ValueError("empty depth list")
    return sum(values) / len(values)


def depth_cell(depth: float | Sequence[float]) -> int:
    """Official depth cell 0..4 of a depth (or the mean of a depth list); 1.0 is treated as 0.99."""
    d = mean_depth(depth)
    if d >= 1.0:
        d = 0.99
    return min(max(int(d / DEPTH_STEP), 0), NUM_DEPTH_CELLS - 1)


def depth_cells(depths: np.ndarray) -> np.ndarray:
    """:func:`depth_cell` over an array of (already averaged) depths, with the same float behaviour."""
    d = np.where(depths >= 1.0, 0.99, depths)
    return np.clip((d / DEPTH_STEP).astype(np.int64), 0, NUM_DEPTH_CELLS - 1)


def cell_table(rows: Iterable[tuple[int | float, float | Sequence[float], float]]) -> tuple[
        list[list[float]], list[list[int]]]:
    """Accuracy and sample count per (depth cell, context bin) from (context_length, depth, score) rows.

    Returns ``(acc[depth][bin], count[depth][bin])``; an empty cell has accuracy 0.0 (official rule).
    """
    totals = [[0.0] * len(CONTEXT_EDGES) for _ in range(NUM_DEPTH_CELLS)]
    counts = [[0] * len(CONTEXT_EDGES) for _ in range(NUM_DEPTH_CELLS)]
    for length, depth, score in rows:
        b = context_bin(length)
        if b is None:
            continue
        c = depth_cell(depth)
        totals[c][b] += float(score)
        counts[c][b] += 1
    acc = [[(totals[c][b] / counts[c][b]) if counts[c][b] else 0.0 for b in range(len(CONTEXT_EDGES))]
           for c in range(NUM_DEPTH_CELLS)]
    return acc, counts


def bin_scores(acc: list[list[float]]) -> list[float]:
    """Per context bin: unweighted mean over the 5 depth cells (empty cells count as 0), rounded to 6 places."""
    return [round(sum(acc[c][b] for c in range(NUM_DEPTH_CELLS)) / NUM_DEPTH_CELLS, 6)
            for b in range(len(CONTEXT_EDGES))]


def bin_scores_covered(acc: list[list[float]], counts: list[list[int]]) -> list[float]:
    """Per context bin: unweighted mean over the depth cells that have samples, rounded to 6 places like
    :func:`bin_scores` (equal to it where all 5 cells have some); 0.0 for a bin without samples (no figure)."""
    out = []
    for b in range(len(CONTEXT_EDGES)):
        filled = [acc[c][b] for c in range(NUM_DEPTH_CELLS) if counts[c][b]]
        out.append(round(sum(filled) / len(filled), 6) if filled else 0.0)
    return out
