"""What an MM-NIAH report shows: per-length tables over the official 11 bins, heatmaps of length bin x depth cell
in the official colours, the six tasks in paper order, the overall over all six, and the paper's rows.

Imported only when a report is built (it loads numpy through the official binning).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from niah.benchmarks.mm_niah.bins import (
    CONTEXT_LABELS,
    DEPTH_LABELS,
    NUM_DEPTH_CELLS,
    bin_scores,
    bin_scores_covered,
    context_bin,
    depth_cell,
)
from niah.benchmarks.mm_niah.family import TASKS
from niah.benchmarks.protocol import OFFICIAL, Axis, Breakdown, ReportSpec, ScoresFile, official_structure
from niah.report.published import PublishedResults, parse_published
from niah.util.errors import DataError

#: The paper's published results, package data of this family.
PAPER_FILE = "data/paper.json"
_PAPER_SHOWN = "niah/benchmarks/mm_niah/" + PAPER_FILE  # where errors say it is
OVERALL_KEY = "overall"
TASK_TITLES: dict[str, str] = {
    "retrieval-text": "Retrieval-Text-Needle",
    "counting-text": "Counting-Text-Needle",
    "reasoning-text": "Reasoning-Text-Needle",
    "retrieval-image": "Retrieval-Image-Needle",
    "counting-image": "Counting-Image-Needle",
    "reasoning-image": "Reasoning-Image-Needle",
}
OVERALL_TITLE = "Overall (mean over the six tasks)"
# Key suffixes of the official leaderboard score files (e.g. "retrieval-text-test"); longest first.
_SPLIT_SUFFIXES = ("-rag-val", "-rag-test", "-val", "-test")


def overall_bin_scores(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    """Benchmark overall per bin: unweighted mean over the six tasks, only when all six are present."""
    if not all(task in task_scores for task in TASKS):
        return None
    return [round(sum(float(task_scores[t][b]) for t in TASKS) / len(TASKS), 6)
            for b in range(len(CONTEXT_LABELS))]


def overall_covered_bins(task_scores: Mapping[str, Sequence[float]],
                         bin_counts: Mapping[str, Sequence[int]]) -> list[float] | None:
    """The overall per bin over what a run holds: the mean over the tasks with samples in the bin of their
    covered figures (0.0 for a bin without samples, printed -), over the official tasks the run holds (the rule
    of ``covered`` in scores.json, which needs no missing task); None when it holds none."""
    present = [task for task in TASKS if task in task_scores and task in bin_counts]
    if not present:
        return None
    out = []
    for b in range(len(CONTEXT_LABELS)):
        held = [float(task_scores[t][b]) for t in present if bin_counts[t][b]]
        out.append(round(sum(held) / len(held), 6) if held else 0.0)
    return out


def _number(value: Any) -> bool:
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _split_task_key(key: str) -> tuple[str, str | None]:
    for suffix in _SPLIT_SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)], suffix[1:]
    return key, None


def _bin_list(value: Any, *, path: Path, key: str) -> list[float]:
    if not isinstance(value, list) or len(value) != len(CONTEXT_LABELS) or not all(_number(v) for v in value):
        raise DataError(f"expected a list of {len(CONTEXT_LABELS)} numbers (one per context range)",
                        file=path, field=key)
    return [float(v) for v in value]


def read_scores(doc: Any, path: Path) -> ScoresFile:
    """Per-bin scores from an official-structure scores.json ``{task: [11], "overall": [11], "context_ranges"}``,
    also with the leaderboard's ``-val``/``-test`` key suffixes."""
    if not isinstance(doc, dict):
        raise DataError("scores.json must be a JSON object", file=path)
    outer = doc
    doc, in_percent = official_structure(doc)
    if not isinstance(doc, dict):
        raise DataError("no official structure in this scores.json", file=path, field="official")
    if in_percent:  # niah score writes percent; the tables read 0-1 bin scores
        doc = {key: [v / 100 if _number(v) else v for v in value] if isinstance(value, list) and key != "context_ranges"
               else value for key, value in doc.items()}
        doc.setdefault("benchmark", outer.get("benchmark"))
        doc.setdefault("scoring", outer.get("mode"))
    ranges = doc.get("context_ranges")
    if ranges is not None and [str(r).lower() for r in ranges] != list(CONTEXT_LABELS):
        raise DataError(f"context_ranges {ranges!r} differ from the official {list(CONTEXT_LABELS)!r}",
                        file=path, field="context_ranges")
    task_scores: dict[str, list[float]] = {}
    overall: list[float] | None = None
    splits: set[str] = set()
    for key, value in doc.items():
        if key == "context_ranges" or not isinstance(value, list):
            continue  # other metadata keys are allowed and ignored
        if key == OVERALL_KEY:
            overall = _bin_list(value, path=path, key=key)
            continue
        task, split = _split_task_key(key)
        if split:
            splits.add(split)
        if task in task_scores:
            raise DataError(f"task {task!r} appears twice (keys with different split suffixes?)",
                            file=path, field=key)
        task_scores[task] = _bin_list(value, path=path, key=key)
    if not task_scores and overall is None:
        raise DataError("no per-task score lists found", file=path)
    if overall is None:
        overall = overall_bin_scores(task_scores)
    benchmark = doc.get("benchmark") if isinstance(doc.get("benchmark"), str) else (
        "mm-niah" if set(task_scores) <= set(TASKS) else None)
    raw_scoring = doc.get("scoring")
    scoring = raw_scoring if isinstance(raw_scoring, str) else OFFICIAL
    return ScoresFile(task_scores=task_scores, overall=overall, split=splits.pop() if len(splits) == 1 else None,
                      benchmark=benchmark, scoring=scoring)


@lru_cache(maxsize=1)
def load_paper() -> PublishedResults:
    """The MM-NIAH paper's Tables 2 and 6-11 as shipped with niah (package data, read once and cached)."""
    ref = resources.files("niah.benchmarks.mm_niah").joinpath(*PAPER_FILE.split("/"))
    try:
        doc = json.loads(ref.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=_PAPER_SHOWN, line=exc.lineno) from None
    return parse_published(doc, where=_PAPER_SHOWN, num_bins=len(CONTEXT_LABELS), source_label="MM-NIAH paper")


def image_count_bucket(num_images: Any) -> str | None:
    """Images in a sample's context, bucketed like the paper discusses them."""
    if not isinstance(num_images, int):
        return None
    return "0" if num_images == 0 else "1-2" if num_images <= 2 else "3-5" if num_images <= 5 else "6+"


#: Buckets of the image-count probe: one per count up to 5 (the paper: accuracy falls below 10% past five).
IMAGE_COUNT_ORDER = ("0", "1", "2", "3", "4", "5", "6-10", "11-20", "21+")


def image_count_probe_bucket(count: Any) -> str | None:
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        return None
    return str(count) if count <= 5 else "6-10" if count <= 10 else "11-20" if count <= 20 else "21+"


IMAGES_LABELS = ("0", "1", "2", "3-4", "5-8", "9-16", "17-36", "37+")
DEPTH_DECILES = tuple(f"{k / 10:.1f}-{(k + 1) / 10:.1f}" for k in range(10))


def images_bin(num_images: Any) -> int | None:
    if not isinstance(num_images, int) or isinstance(num_images, bool) or num_images < 0:
        return None
    for index, upper in enumerate((0, 1, 2, 4, 8, 16, 36)):
        if num_images <= upper:
            return index
    return len(IMAGES_LABELS) - 1


def depth_decile(depth: Any) -> int | None:
    """Mean needle depth in tenths (None: no needle, e.g. the image-count probe)."""
    if not _number(depth) or not 0.0 <= depth <= 1.0:
        return None
    return min(int(depth * 10), 9)


SPEC = ReportSpec(
    columns=Axis("Context length (tokens)", "context_length", CONTEXT_LABELS, context_bin),
    rows=Axis("Needle depth", "depth", DEPTH_LABELS, depth_cell,
              edges=tuple(f"{i / NUM_DEPTH_CELLS:.1f}" for i in range(NUM_DEPTH_CELLS + 1))),
    per_bin=bin_scores,
    overall=overall_bin_scores,
    task_order=TASKS,
    task_titles=TASK_TITLES,
    overall_title=OVERALL_TITLE,
    empty_bins_count_zero=True,
    per_bin_covered=bin_scores_covered,
    overall_covered=overall_covered_bins,
    table_prefix="mm_niah_",
    read_scores=read_scores,
    published=load_paper,
    unbinned_note="not binned (under 1k tokens or no depth)",
    footnote="Values are accuracy x100 (soft accuracy for counting) per context-length bin, each the unweighted "
             "mean over its depth cells that have samples (an empty cell is grey with a dash in the heatmaps, and "
             "an empty bin is - in the tables). The official rule counts an empty cell and an empty bin as 0: the "
             "labelled official Overall is the mean of the 11 bins so computed, the Overall over the bins with "
             "samples the mean of the bins printed.",
    breakdowns=(Breakdown("By images in the context", "num_images", image_count_bucket, ("0", "1-2", "3-5", "6+")),
                Breakdown("Image-count probe (paper Fig. 4): accuracy by images in the document", "image_count",
                          image_count_probe_bucket, IMAGE_COUNT_ORDER)),
    distributions=(Axis("Context length (tokens)", "context_length", CONTEXT_LABELS, context_bin),
                   Axis("Images in the context", "num_images", IMAGES_LABELS, images_bin),
                   Axis("Needle depth (mean)", "depth", DEPTH_DECILES, depth_decile)),
)
