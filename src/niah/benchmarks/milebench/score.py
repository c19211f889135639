"""MileBench per-sample scoring (the rule each data set uses), its metric rules, and the official aggregation."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from niah.benchmarks.milebench import metrics
from niah.benchmarks.protocol import OFFICIAL, SampleScore, ScoredRows, Scorer
from niah.errors import DataError
from niah.metrics.base import MetricInputError, MetricRule
from niah.sample import ImagePart, Sample, parts_text

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
    from niah.metrics.registry import get_rule

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


SCORER = Scorer(score_sample, aggregate)
