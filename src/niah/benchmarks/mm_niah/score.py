"""MM-NIAH per-sample scoring (official and lenient), its metric rules, and the official aggregation of a run."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from niah.benchmarks.mm_niah.metrics import score_mm_niah_lenient, score_mm_niah_official
from niah.benchmarks.protocol import OFFICIAL, SampleScore, ScoredRows, Scorer
from niah.errors import DataError
from niah.metrics.base import MetricInputError, MetricRule
from niah.sample import Sample

RULES: tuple[MetricRule, ...] = (
    MetricRule(
        "mm-niah",
        "MM-NIAH official: int gold -> option letter rule, list -> positional soft accuracy, str -> VQA word match",
        score_mm_niah_official,
    ),
    MetricRule(
        "mm-niah/lenient",
        "MM-NIAH with a lenient letter extractor ('(C)', 'Answer: C', 'C, because'); otherwise official",
        score_mm_niah_lenient,
    ),
)


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    answer = sample.answer
    if sample.task.startswith("counting") and isinstance(answer, str):
        try:  # the official scorer decodes counting answers that arrive as JSON strings
            answer = json.loads(answer)
        except json.JSONDecodeError as exc:
            raise MetricInputError(f"counting answer is not JSON: {exc.msg}", field="answer") from None
    return SampleScore({
        OFFICIAL: score_mm_niah_official(answer, response),
        "lenient": score_mm_niah_lenient(answer, response),
    })


def aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    from niah.benchmarks.mm_niah.official import aggregate_rows

    by_task: dict[str, list[tuple[float, Any, float]]] = defaultdict(list)
    for row, _info in rows:
        if row["context_length"] is None or row["depth"] is None:
            raise DataError(f"sample {row['id']!r}: MM-NIAH aggregation needs meta.context_length and meta.depth",
                            field="meta")
        by_task[row["task"]].append((row["context_length"], row["depth"], row["scores"][score_name]))
    return aggregate_rows(by_task)


SCORER = Scorer(score_sample, aggregate, (OFFICIAL, "lenient"))
