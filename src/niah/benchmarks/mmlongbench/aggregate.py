"""MMLongBench's official aggregation per length (paper: categories and overall; figure scripts: the flip).

Per data set and length: the mean per-sample score x 100; the visual-haystack sets (binary accuracy) are
flipped to ``100 - score`` below 50. Per length:

* Visual RAG = mean(infoseek, viquae)
* NIAH = mean(vh_single, vh_multi, mean(retrieval text, image), mean(counting text, image),
  mean(reasoning text, image))
* Many-shot ICL = mean(cars196, food101, inat2021, sun397); Summarization = mean(gov-report, multi-lexsum);
  DocVQA = mean(longdocurl, mmlongdoc, slidevqa)
* Overall = mean of the five categories.

A missing data set (or a summarization set not yet judged) makes every aggregate that needs it undefined
(``null``), never silently skipped; ``missing`` names what is missing per length; ``flipped`` (only when a flip
applied) gives each flipped set's accuracy before the flip, per length.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from niah.benchmarks.mmlongbench.datasets import (
    CATEGORIES,
    CATEGORY_DATASETS,
    DATASETS,
    LENGTH_LABELS,
    LENGTHS_K,
)
from niah.benchmarks.mmlongbench.metrics import binary_acc_dataset_score
from niah.benchmarks.protocol import ScoredRows
from niah.util.errors import DataError

#: NIAH's three MM-NIAH pairs, each averaged over text and image before entering the NIAH mean.
NIAH_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (f"mm_niah_{task}-text", f"mm_niah_{task}-image") for task in ("retrieval", "counting", "reasoning"))


def dataset_score(name: str, scores: list[float]) -> float:
    """Mean x 100; binary accuracy flipped below 50 (the official figure scripts)."""
    if DATASETS[name].metric == "binary_acc":
        return binary_acc_dataset_score(scores)
    return sum(scores) / len(scores) * 100


def _mean(values: list[float | None]) -> float | None:
    if any(v is None for v in values):
        return None
    present = [v for v in values if v is not None]
    return sum(present) / len(present)


def category_scores(per_dataset: Mapping[str, float | None]) -> dict[str, float | None]:
    """The five category scores (and ``overall``) of one length from data-set scores (None: missing)."""
    def get(name: str) -> float | None:
        return per_dataset.get(name)

    out: dict[str, float | None] = {}
    for category in CATEGORIES:
        if category == "niah":
            out[category] = _mean([get("vh_single"), get("vh_multi"),
                                   *(_mean([get(text), get(image)]) for text, image in NIAH_PAIRS)])
        else:
            out[category] = _mean([get(name) for name in CATEGORY_DATASETS[category]])
    out["overall"] = _mean([out[c] for c in CATEGORIES])
    return out


def aggregate_scores(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    """``{"benchmark", "scoring", "lengths", "datasets": {name: {length: score|null}}, "categories": {category: {length: ...}},
    "overall": {length: ...}, "missing": {length: [data sets]}, "needs_judge": [data sets]}``, and ``judge_failures`` (``{"set/K8": n}``:
    summaries whose judge verdict failed, left out of the means) once the summarization judge has run."""
    values: dict[tuple[str, int], list[float]] = defaultdict(list)
    unjudged: set[tuple[str, int]] = set()
    judge_failures: dict[str, int] | None = None
    for row, info in rows:
        name = info.get("dataset") or row.get("task")
        length = info.get("length_k")
        if name not in DATASETS:
            raise DataError(f"sample {row.get('id')!r}: unknown MMLongBench data set {name!r}", field="meta.dataset")
        if length not in LENGTHS_K:
            raise DataError(f"sample {row.get('id')!r}: length_k must be one of {LENGTHS_K}", field="meta.length_k")
        if not info.get("judged", True):
            unjudged.add((name, length))
            continue
        if "judge_failed" in info:  # judged by the LLM judge: a failed verdict is left out and counted
            judge_failures = {} if judge_failures is None else judge_failures
            if info["judge_failed"]:
                judge_failures[f"{name}/K{length}"] = judge_failures.get(f"{name}/K{length}", 0) + 1
                continue
        values[(name, length)].append(float(row["scores"][score_name]))
    datasets: dict[str, dict[str, float | None]] = {}
    flipped: dict[str, dict[str, float]] = {}  # data set -> length -> its accuracy before the official flip
    for name in DATASETS:
        per_length: dict[str, float | None] = {}
        for k, label in zip(LENGTHS_K, LENGTH_LABELS, strict=True):
            scores = values.get((name, k))
            per_length[label] = None if not scores or (name, k) in unjudged else dataset_score(name, scores)
            if per_length[label] is not None and DATASETS[name].metric == "binary_acc":
                accuracy = sum(scores or []) / len(scores or [1]) * 100
                if accuracy < 50:
                    flipped.setdefault(name, {})[label] = round(accuracy, 4)
        datasets[name] = per_length
    categories: dict[str, dict[str, float | None]] = {c: {} for c in CATEGORIES}
    overall: dict[str, float | None] = {}
    missing: dict[str, list[str]] = {}
    for label in LENGTH_LABELS:
        per = category_scores({name: datasets[name][label] for name in DATASETS})
        for category in CATEGORIES:
            categories[category][label] = per[category]
        overall[label] = per["overall"]
        absent = [name for name in DATASETS if datasets[name][label] is None]
        if absent:
            missing[label] = absent
    out = {"benchmark": "mmlongbench", "scoring": score_name, "lengths": list(LENGTH_LABELS), "datasets": datasets,
           "categories": categories, "overall": overall, "missing": missing,
           "needs_judge": sorted({name for name, _ in unjudged})}
    if judge_failures is not None:
        out["judge_failures"] = judge_failures
    if flipped:
        out["flipped"] = flipped
    return out
