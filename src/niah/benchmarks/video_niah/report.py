"""The video-niah report: accuracy per haystack duration (columns) and needle depth row (rows).

The duration columns are the durations present in the report's runs, labelled as built (``1m``, ``3m``,
``1h``), shortest first, one axis shared by every run of the report: video-niah publishes no numbers in fixed
duration bins to compare with, and fixed bins put a 3m haystack under ``<=5m`` beside grey empty columns.
The depth rows are the ones the dataset was built with (any list of depth cells, or exact depths), read from
the scored rows' ``depth_cell``. video-niah has no official aggregation to reproduce, so nothing counts an
empty cell as 0: a duration's value is the mean over its depth cells that have samples, a table's Overall the
mean over all cells that have samples, and empty cells print as ``-`` (grey in the heatmaps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from niah.benchmarks.protocol import Axis, Breakdown, ReportSpec
from niah.benchmarks.video_niah.durations import duration_column
from niah.benchmarks.video_niah.score import depth_cell_label, valid_depth_cell

TASK_TITLES = {"retrieval": "Retrieval (open)", "retrieval-choice": "Retrieval (options)",
               "counting": "Counting", "ordering": "Temporal ordering"}

DEPTH_TENTHS = tuple(f"{i / 10:.1f}-{(i + 1) / 10:.1f}" for i in range(10))


def depth_tenth(depth: Any) -> int | None:
    """A sample's mean needle depth in tenths (the distribution plot: where the needles really are)."""
    if not isinstance(depth, (int, float)) or isinstance(depth, bool) or not 0.0 <= depth <= 1.0:
        return None
    return min(int(depth * 10), 9)


def depth_axis(values: Sequence[Any]) -> Axis:
    """The depth rows of one input: its distinct depth cells in depth order. Contiguous cells are labelled
    by their edges (ticks on the cell borders, as MM-NIAH's heatmaps); exact depths by the depth."""
    cells = sorted({(float(v[0]), float(v[1])) for v in values if valid_depth_cell(v)})
    labels = tuple(depth_cell_label(c) for c in cells)
    index = dict(zip(labels, range(len(labels)), strict=True))
    contiguous = bool(cells) and all(lo < hi for lo, hi in cells) and all(
        a[1] == b[0] for a, b in zip(cells, cells[1:], strict=False))
    edges = tuple(f"{x:g}" for x in [cells[0][0], *(hi for _lo, hi in cells)]) if contiguous else None

    def bin_of(value: Any) -> int | None:
        return index.get(depth_cell_label(value)) if valid_depth_cell(value) else None

    return Axis("Needle depth", "depth_cell", labels, bin_of, edges=edges)


def per_bin(acc: list[list[float]]) -> list[float]:
    """A duration's score without cell counts (a scores file): the mean over the depth rows."""
    return [round(sum(row[c] for row in acc) / len(acc), 6) for c in range(len(acc[0]))]


def per_bin_filled(acc: list[list[float]], counts: list[list[int]]) -> list[float]:
    """A duration's score: the mean over its depth cells that have samples (an empty cell is left out, never
    counted 0; a duration without samples is 0 here and printed as -)."""
    out = []
    for c in range(len(acc[0]) if acc else 0):
        filled = [acc[r][c] for r in range(len(acc)) if counts[r][c]]
        out.append(round(sum(filled) / len(filled), 6) if filled else 0.0)
    return out


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    if not task_scores:
        return None
    width = len(next(iter(task_scores.values())))
    return [round(sum(s[c] for s in task_scores.values()) / len(task_scores), 6) for c in range(width)]


#: One column per haystack duration present across the report's runs, in seconds order.
DURATIONS = Axis.from_data("Haystack duration", "duration_s", duration_column, order=float)

SPEC = ReportSpec(
    columns=DURATIONS,
    rows=Axis("Needle depth", "depth_cell", (), lambda _value: None, from_values=depth_axis),
    per_bin=per_bin,
    per_bin_weighted=per_bin_filled,
    weighted_overall=True,
    weigh_bins_by_cells=True,
    overall=overall,
    task_order=("retrieval", "retrieval-choice", "counting", "ordering"),
    task_titles={**TASK_TITLES, "overall": "Overall (mean over tasks)"},
    overall_title="Overall (mean over tasks)",
    table_prefix="video_niah_",
    footnote=("video-niah: accuracy per haystack duration (one column per duration in the report's runs), the "
              "mean over the depth cells that have samples; Overall is the mean over all (duration, depth) cells "
              "that have samples. Empty cells are left out of every mean (- in the tables, grey in the heatmaps), "
              "never counted 0."),
    breakdowns=(Breakdown("By needle kind", "needle_kind"),),
    distributions=(DURATIONS,
                   Axis("Needle depth (mean, exact)", "depth", DEPTH_TENTHS, depth_tenth)),
)
