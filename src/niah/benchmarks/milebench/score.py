"""MileBench per-sample scoring (the rule each data set uses), its metric rules, and the official aggregation."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from niah.benchmarks.milebench import metrics
from niah.benchmarks.protocol import (
    OFFICIAL,
    Headline,
    SampleScore,
    ScoredRows,
    Scorer,
    TaskHeadline,
    percent,
)
from niah.sample import ImagePart, Sample, parts_text
from niah.scoring.metrics.base import MetricInputError, MetricRule
from niah.util.errors import DataError

RULES: tuple[MetricRule, ...] = (
    MetricRule(
        "milebench/needle",
        "MileBench needle sets: processed gold is a whitespace token of the processed prediction",
        metrics.score_needle,
    ),
    MetricRule(
        "milebench/substring",
        "MileBench MMCoQA: processed gold is a substring of the processed prediction",
        metrics.score_substring,
    ),
    MetricRule(
        "milebench/multi-choice",
        "MileBench multiple choice: official option matcher (fallback concatenates letters; empty -> 'C')",
        metrics.score_multi_choice,
        fields=("answer", "response", "choices"),
    ),
    MetricRule(
        "milebench/rouge-l",
        "MileBench open-ended: ROUGE-L F of rouge 1.0.1 (summary-level union LCS) on processed texts",
        metrics.score_rouge_l,
    ),
)


def rule_name_of(sample: Sample) -> str:
    from niah.benchmarks.milebench.official import metric_rule_name

    rule = sample.meta.get("metric")
    if isinstance(rule, str):
        return rule
    question_type = sample.meta.get("question_type")
    if not isinstance(question_type, str):
        raise MetricInputError("MileBench samples need meta.metric or meta.question_type", field="meta.question_type")
    return metric_rule_name(sample.task, question_type)


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    from niah.benchmarks.milebench.official import image_quantity_level
    from niah.scoring.metrics.registry import get_rule

    rule_name = rule_name_of(sample)
    row: dict[str, Any] = {"answer": sample.answer, "response": response}
    if rule_name == "milebench/multi-choice":
        if sample.choices is None:
            raise MetricInputError("a multiple-choice sample needs choices", field="choices")
        row["choices"] = [parts_text(choice) for choice in sample.choices]
    level = sample.meta.get("image_quantity_level")
    if level is None:
        count = sum(1 for p in sample.context + sample.question if isinstance(p, ImagePart))
        level = image_quantity_level({"task_instance": {"images_path": [None] * count}})
    return SampleScore({OFFICIAL: get_rule(rule_name).score(row)}, {"metric": rule_name, "level": level})


def aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    from niah.benchmarks.milebench.official import aggregate_official

    by_task: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for row, info in rows:
        by_task[row["task"]].append((row["scores"][score_name], info["level"], info["metric"]))
    out: dict[str, Any] = {}
    for task, entries in by_task.items():
        metric_names = {metric for _, _, metric in entries}
        if len(metric_names) != 1:
            raise DataError(f"task {task!r} mixes metrics {sorted(metric_names)}")
        out[task] = aggregate_official(metric_names.pop(), [s for s, _, _ in entries],
                                       [lvl for _, lvl, _ in entries])
    return out


def _task_score(result: dict[str, Any]) -> float:
    """A data set's official score (0-1): its accuracy, or ROUGE-L F for the open-ended sets."""
    return float(result["Accuracy"] if "Accuracy" in result else result["Rouge-L f"])


def headline(structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    """Per data set its official score x 100 (accuracy, or ROUGE-L F: both plain means over its samples);
    overall the unweighted mean over the data sets (MileBench reports data sets side by side and has no
    grid, so covered is the same number)."""
    counts: dict[str, int] = defaultdict(int)
    for row, _info in rows:
        counts[row["task"]] += 1
    by_task = {task: TaskHeadline(100 * _task_score(result), counts[task], plain=True)
               for task, result in structure.items()}
    scores = [t.score for t in by_task.values() if t.score is not None]
    overall = sum(scores) / len(scores) if scores else None
    rouge = any("Rouge-L f" in result for result in structure.values())
    return Headline(metric="accuracy" + (" (ROUGE-L F for open-ended sets)" if rouge else ""), overall=overall,
                    covered=overall, n=len(rows), by_task=by_task, plain=len(by_task) == 1)


def to_percent(structure: dict[str, Any]) -> dict[str, Any]:
    """Each data set's ``eval.json`` with its scores x 100 (``image_quantity_level-Result`` stays
    ``[sum of scores, samples]`` per level, as officially)."""
    out: dict[str, Any] = {}
    for task, result in structure.items():
        converted = dict(result)
        for key in ("Accuracy", "Rouge-L f"):
            if key in converted:
                converted[key] = percent(converted[key])
        converted["image_quantity_level-Accuracy"] = {
            level: percent(value) for level, value in result["image_quantity_level-Accuracy"].items()}
        out[task] = converted
    return out


SCORER = Scorer(score_sample, aggregate, headline=headline, percent=to_percent)
