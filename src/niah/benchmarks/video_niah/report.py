"""The video-niah report: accuracy per haystack duration (columns) and needle depth (rows), as MM-NIAH's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from niah.benchmarks.protocol import Axis, Breakdown, ReportSpec

DURATION_EDGES = (60.0, 300.0, 900.0, 1800.0, 3600.0)
DURATION_LABELS = ("<=1m", "<=5m", "<=15m", "<=30m", "<=60m", ">60m")
DEPTH_LABELS = ("0", "0.25", "0.5", "0.75", "1")
TASK_TITLES = {"retrieval": "Retrieval (open)", "retrieval-choice": "Retrieval (options)",
               "counting": "Counting", "ordering": "Temporal ordering"}


def duration_bin(seconds: Any) -> int | None:
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return None
    for i, edge in enumerate(DURATION_EDGES):
        if seconds <= edge + 1e-9:
            return i
    return len(DURATION_EDGES)


def depth_bin(depth: Any) -> int | None:
    if not isinstance(depth, (int, float)) or isinstance(depth, bool) or not 0.0 <= depth <= 1.0:
        return None
    return round(float(depth) * 4)


def per_bin(acc: list[list[float]]) -> list[float]:
    """A duration's score: the mean over depth rows (empty cells count 0, as in MM-NIAH's tables)."""
    return [round(sum(row[c] for row in acc) / len(acc), 6) for c in range(len(acc[0]))]


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    if not task_scores:
        return None
    width = len(next(iter(task_scores.values())))
    return [round(sum(s[c] for s in task_scores.values()) / len(task_scores), 6) for c in range(width)]


SPEC = ReportSpec(
    columns=Axis("Haystack duration", "duration_s", DURATION_LABELS, duration_bin),
    rows=Axis("Needle depth", "cell_depth", DEPTH_LABELS, depth_bin),
    per_bin=per_bin,
    overall=overall,
    task_order=("retrieval", "retrieval-choice", "counting", "ordering"),
    task_titles={**TASK_TITLES, "overall": "Overall (mean over tasks)"},
    overall_title="Overall (mean over tasks)",
    table_prefix="video_niah_",
    footnote=("video-niah: accuracy per haystack duration, averaged over the depths of the first needle (empty "
              "cells count 0); heatmaps show each (duration, depth) cell."),
    breakdowns=(Breakdown("By needle kind", "needle_kind"),),
)
