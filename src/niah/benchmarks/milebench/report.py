"""What a MileBench report shows: one table per data set with its score in each official image-count bucket
(Few < 6 images, Medium 6-31, Many > 31) and, across data sets, the same buckets over every sample."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from niah.benchmarks.milebench.official import IMAGE_QUANTITY_LEVELS, image_count_bucket
from niah.benchmarks.protocol import Axis, Breakdown, ReportSpec


def bucket_index(num_images: Any) -> int | None:
    if isinstance(num_images, bool) or not isinstance(num_images, int) or num_images < 0:
        return None
    return IMAGE_QUANTITY_LEVELS.index(image_count_bucket(num_images))


def bucket_label(num_images: Any) -> str | None:
    index = bucket_index(num_images)
    return None if index is None else IMAGE_QUANTITY_LEVELS[index]


def per_bin(acc: list[list[float]]) -> list[float]:
    return list(acc[0])


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    """MileBench defines no overall per image bucket; the report shows the per-sample bucket table instead."""
    return None


SPEC = ReportSpec(
    columns=Axis("Images in the sample", "num_images", IMAGE_QUANTITY_LEVELS, bucket_index),
    rows=Axis("All samples", "num_images", ("all",), lambda value: 0 if bucket_index(value) is not None else None),
    per_bin=per_bin,
    overall=overall,
    task_order=(),
    task_titles={},
    table_prefix="milebench_",
    unbinned_note="no image count",
    footnote="Values are the data set's official score x100 (accuracy, or ROUGE-L F for open-ended sets) per "
             "image-count bucket (Few < 6, Medium 6-31, Many > 31 images, counted on the original images as the "
             "official evaluate.py does); an empty bucket is -. The Overall column is the data set's official "
             "score: the mean over all its samples (the buckets weighted by their samples).",
    breakdowns=(Breakdown("By image count (all data sets)", "num_images", bucket_label, IMAGE_QUANTITY_LEVELS),),
    # eval.json's Accuracy is over every sample: a data set with only Few samples scores what they score, not
    # a third of it (the mean of three buckets with empty ones as 0)
    weighted_overall=True,
)
