"""What a MileBench report shows: one table per data set with its score in each official image-count bucket
(Few < 6 images, Medium 6-31, Many > 31) and, across data sets, the same buckets over every sample.

The generated passkey sets (``niah build milebench-niah``) carry a context length and a needle depth per
sample; a report of such runs has one column per length present across its runs instead (the same axis for
every run, so they line up) and needle-depth rows, so its heatmaps are length x depth like the other needle
families'. Official data sets carry neither, and their report keeps the image-count buckets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from niah.benchmarks.milebench.official import IMAGE_QUANTITY_LEVELS, image_count_bucket
from niah.benchmarks.protocol import Axis, Breakdown, ReportSpec
from niah.build.lengths import format_tokens


def bucket_index(num_images: Any) -> int | None:
    if isinstance(num_images, bool) or not isinstance(num_images, int) or num_images < 0:
        return None
    return IMAGE_QUANTITY_LEVELS.index(image_count_bucket(num_images))


def bucket_label(num_images: Any) -> str | None:
    index = bucket_index(num_images)
    return None if index is None else IMAGE_QUANTITY_LEVELS[index]


def length_label(tokens: Any) -> str | None:
    """A length column's label as lengths are written on the command line (``4096``, ``8k``)."""
    if isinstance(tokens, bool) or not isinstance(tokens, (int, float)) or not tokens > 0:
        return None
    return format_tokens(int(tokens)) if float(tokens).is_integer() else f"{tokens:g}"


#: Needle depth in fifths of the context (a passkey's depth is drawn uniformly, so no two samples share one).
NUM_DEPTH_CELLS = 5
DEPTH_EDGES = tuple(f"{i / NUM_DEPTH_CELLS:.1f}" for i in range(NUM_DEPTH_CELLS + 1))


def depth_cell(depth: Any) -> int | None:
    if isinstance(depth, bool) or not isinstance(depth, (int, float)) or not 0.0 <= depth <= 1.0:
        return None
    return min(int(depth * NUM_DEPTH_CELLS), NUM_DEPTH_CELLS - 1)


IMAGE_BUCKETS = Axis("Images in the sample", "num_images", IMAGE_QUANTITY_LEVELS, bucket_index)
ALL_SAMPLES = Axis("All samples", "num_images", ("all",), lambda value: 0 if bucket_index(value) is not None else None)
#: Columns: the context lengths present across the report's runs; the image-count buckets when none has one.
LENGTHS = Axis.from_data("Context length (tokens)", "context_length", length_label, order=float,
                         fallback=IMAGE_BUCKETS)
#: Rows: needle depth in fifths; one row of all samples when no run carries a depth.
DEPTHS = Axis("Needle depth", "depth", tuple(f"{a}-{b}" for a, b in zip(DEPTH_EDGES, DEPTH_EDGES[1:], strict=False)),
              depth_cell, edges=DEPTH_EDGES, fallback=ALL_SAMPLES)


def per_bin(acc: list[list[float]]) -> list[float]:
    """A column's score without cell counts: the mean over the rows (one row: that row)."""
    return [sum(row[c] for row in acc) / len(acc) for c in range(len(acc[0]))]


def per_bin_samples(acc: list[list[float]], counts: list[list[int]]) -> list[float]:
    """A column's score: the mean over its samples, as the official score is (a cell weighs its samples; an
    empty column is 0 here and printed as -)."""
    out = []
    for c in range(len(acc[0]) if acc else 0):
        filled = [(acc[r][c], counts[r][c]) for r in range(len(acc)) if counts[r][c]]
        if len(filled) == 1:  # one filled cell (always so on the one-row bucket axis): its mean, unrounded
            out.append(filled[0][0])
            continue
        n = sum(k for _a, k in filled)
        out.append(sum(a * k for a, k in filled) / n if n else 0.0)
    return out


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    """MileBench defines no overall per image bucket; the report shows the per-sample bucket table instead."""
    return None


SPEC = ReportSpec(
    columns=LENGTHS,
    rows=DEPTHS,
    per_bin=per_bin,
    per_bin_weighted=per_bin_samples,
    overall=overall,
    task_order=(),
    task_titles={},
    table_prefix="milebench_",
    unbinned_note="no image count, or no length or depth",
    footnote="Values are the data set's official score x100 (accuracy, or ROUGE-L F for open-ended sets) per "
             "image-count bucket (Few < 6, Medium 6-31, Many > 31 images, counted on the original images as the "
             "official evaluate.py does), or for the generated passkey sets per context length (the lengths of "
             "the report's runs); an empty bucket is -. The Overall column is the data set's official "
             "score: the mean over all its samples (the buckets weighted by their samples).",
    breakdowns=(Breakdown("By image count (all data sets)", "num_images", bucket_label, IMAGE_QUANTITY_LEVELS),),
    # eval.json's Accuracy is over every sample: a data set with only Few samples scores what they score, not
    # a third of it (the mean of three buckets with empty ones as 0)
    weighted_overall=True,
)
