"""What an MMLongBench report shows: one row per data set over the five standardized lengths, and, from a
``scores.json``, the official per-length category table (Visual RAG, NIAH, ICL, Summarization, DocVQA) and the
overall. A missing data set leaves every aggregate that needs it undefined (shown as -)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from niah.benchmarks.mmlongbench.aggregate import category_scores, dataset_score
from niah.benchmarks.mmlongbench.datasets import (
    CATEGORIES,
    CATEGORY_TITLES,
    DATASETS,
    LENGTH_LABELS,
    LENGTHS_K,
)
from niah.benchmarks.protocol import OFFICIAL, Axis, Breakdown, ReportSpec, ScoresFile, official_structure
from niah.util.errors import DataError

CATEGORY_PREFIX = "category-"
TASK_ORDER: tuple[str, ...] = (*DATASETS, *(CATEGORY_PREFIX + c for c in CATEGORIES))
TASK_TITLES: dict[str, str] = {**{name: name for name in DATASETS},
                               **{CATEGORY_PREFIX + c: f"[{CATEGORY_TITLES[c]}]" for c in CATEGORIES}}


def length_bin(value: Any) -> int | None:
    return LENGTHS_K.index(value) if value in LENGTHS_K else None


def per_bin(acc: list[list[float]]) -> list[float]:
    """Mean per length (one cell row; the binary flip is applied by :func:`overall`, which knows the data set)."""
    return list(acc[0])


def per_bin_of_task(task: str, scores: list[float]) -> list[float]:
    """A data set's per-length figures as its official score gives them: a yes/no (visual haystack) set's
    accuracy flipped below 50, as ``niah score`` and the official figures do (fractions)."""
    if task in DATASETS and DATASETS[task].metric == "binary_acc":
        return [dataset_score(task, [value]) / 100 for value in scores]
    return scores


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    """The official overall per length (fractions, as the tables show x100); None unless every data set is
    present."""
    if not all(name in task_scores for name in DATASETS):
        return None
    out: list[float] = []
    for index in range(len(LENGTHS_K)):
        per_dataset: dict[str, float | None] = {}
        for name in DATASETS:
            value = float(task_scores[name][index]) * 100
            if DATASETS[name].metric == "binary_acc":
                value = dataset_score(name, [value / 100])
            per_dataset[name] = value
        value_overall = category_scores(per_dataset)["overall"]
        if value_overall is None:
            return None
        out.append(value_overall / 100)
    return out


def overall_counted(task_scores: Mapping[str, Sequence[float]],
                    counts: Mapping[str, Sequence[int]]) -> tuple[list[float], list[int]] | None:
    """:func:`overall` at the lengths where every data set has samples; elsewhere it is null (count 0, printed
    as -), as the official aggregation leaves it, never 0."""
    whole = overall(task_scores)
    if whole is None:
        return None
    defined = [int(all((counts.get(name) or [0] * len(LENGTHS_K))[i] > 0 for name in DATASETS))
               for i in range(len(LENGTHS_K))]
    if not any(defined):
        return None
    return [v if ok else 0.0 for v, ok in zip(whole, defined, strict=True)], defined


def read_scores(doc: Any, path: Path) -> ScoresFile:
    """An MMLongBench ``scores.json`` (datasets, categories, overall per length; null = undefined; percent,
    in the current layout's ``official`` as in older files)."""
    doc, _in_percent = official_structure(doc, "mmlongbench")
    if not isinstance(doc, dict) or not isinstance(doc.get("datasets"), dict):
        raise DataError("not an MMLongBench scores.json (no 'datasets')", file=path)

    def row(values: Any, where: str, *, partial: bool) -> list[float | None] | None:
        if not isinstance(values, dict):
            raise DataError("must be an object keyed by length", file=path, field=where)
        found = [values.get(label) for label in LENGTH_LABELS]
        if all(v is None for v in found) or (not partial and None in found):
            return None
        return [None if v is None else float(v) / 100 for v in found]  # scores.json holds percentages

    # A run at some lengths only (8K and 16K, say) leaves the others null: those bins are empty (printed as
    # -), not a reason to drop the data set's row.
    task_scores: dict[str, list[float]] = {}
    bin_counts: dict[str, list[int]] = {}
    sections = [(name, values, f"datasets.{name}") for name, values in doc["datasets"].items()]
    sections += [(CATEGORY_PREFIX + category, values, f"categories.{category}")
                 for category, values in (doc.get("categories") or {}).items()]
    for key, values, where in sections:
        found = row(values, where, partial=True)
        if found is not None:
            task_scores[key] = [0.0 if v is None else v for v in found]
            bin_counts[key] = [0 if v is None else 1 for v in found]
    # a null overall length is undefined (printed as -), the others stand
    total = row(doc.get("overall") or {}, "overall", partial=True)
    scoring = doc.get("scoring")
    return ScoresFile(task_scores=task_scores, overall=None if total is None else [0.0 if v is None else v
                                                                                  for v in total],
                      split=None, benchmark="mmlongbench", scoring=scoring if isinstance(scoring, str) else OFFICIAL,
                      bin_counts=bin_counts, overall_counts=None if total is None else [int(v is not None)
                                                                                       for v in total])


SPEC = ReportSpec(
    columns=Axis("Input length (Llama-2 tokens)", "length_k", LENGTH_LABELS, length_bin),
    rows=Axis("All samples", "length_k", ("all",), lambda value: 0 if value in LENGTHS_K else None),
    per_bin=per_bin,
    per_bin_of_task=per_bin_of_task,
    overall=overall,
    overall_counted=overall_counted,
    task_order=TASK_ORDER,
    task_titles=TASK_TITLES,
    overall_title="Overall (mean of the five categories)",
    table_prefix="mmlongbench_",
    read_scores=read_scores,
    unbinned_note="not at a standardized length",
    footnote="Values are per-sample scores x100 per standardized length (SubEM, option/class/count accuracy, "
             "DocVQA rule, fluency x F1 for summarization once judged; unjudged summarization rows count 0 here). "
             "The visual-haystack (yes/no) sets are flipped below 50 as the official figures and niah score do, in "
             "their rows and the overall. Category rows ([...]) come from scores.json. Overall needs every data set.",
    breakdowns=(Breakdown("By category", "category", None, CATEGORIES),),
)
