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
        "MM-NIAH with a lenient letter extractor ('(C)', 'Answer: C', 'C, because') and counts read from prose "
        "('counted 3 pebbles'); otherwise official",
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


#: The image-count probe (paper Fig. 4) is not an official task: it is aggregated on its own, by image count.
IMAGE_COUNT_TASK = "image-count"


def row_fields(sample: Sample) -> dict[str, Any]:
    """``image_count``: the gold count of an image-count probe sample (other tasks get no field), which the
    report's probe breakdown reads."""
    count = sample.meta.get("image_count") if sample.task == IMAGE_COUNT_TASK else None
    return {"image_count": count} if isinstance(count, int) and not isinstance(count, bool) else {}


def image_count_summary(rows: list[tuple[int | None, float]]) -> dict[str, Any]:
    """Accuracy of the image-count probe overall and per number of images in the document (Fig. 4)."""
    by_count: dict[int, list[float]] = defaultdict(list)
    for count, score in rows:
        if count is not None:
            by_count[count].append(score)
    scores = [score for _count, score in rows]
    return {
        "accuracy": round(sum(scores) / len(scores), 6) if scores else None,
        "samples": len(scores),
        "by_images": {str(n): {"accuracy": round(sum(v) / len(v), 6), "samples": len(v)}
                      for n, v in sorted(by_count.items())},
    }


def aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    from niah.benchmarks.mm_niah.official import aggregate_rows

    by_task: dict[str, list[tuple[float, Any, float]]] = defaultdict(list)
    probe: list[tuple[int | None, float]] = []
    for row, _info in rows:
        if row["task"] == IMAGE_COUNT_TASK:
            probe.append((row.get("image_count"), row["scores"][score_name]))
            continue
        if row["context_length"] is None or row["depth"] is None:
            raise DataError(f"sample {row['id']!r}: MM-NIAH aggregation needs meta.context_length and meta.depth",
                            field="meta")
        by_task[row["task"]].append((row["context_length"], row["depth"], row["scores"][score_name]))
    out = aggregate_rows(by_task)
    if probe:  # an object, not a per-bin list: readers of the official structure skip it
        out[IMAGE_COUNT_TASK] = image_count_summary(probe)
    return out


SCORER = Scorer(score_sample, aggregate, (OFFICIAL, "lenient"), row_fields=row_fields)
