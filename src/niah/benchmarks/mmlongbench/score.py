"""MMLongBench's official metric rules by name."""

from __future__ import annotations

from niah.benchmarks.mmlongbench import metrics
from niah.metrics.base import MetricRule

RULES: tuple[MetricRule, ...] = (
    MetricRule(
        "mmlongbench/sub_em",
        "MMLongBench SubEM: normalized gold is a substring of the normalized output; max over raw/parsed",
        metrics.score_sub_em,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/mc_acc",
        "MMLongBench option letter ('answer is X', 'Answer: X', last capital A-J) == int gold; max raw/parsed",
        metrics.score_mc_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/soft_acc",
        "MMLongBench counting: sum of the predicted count list == sum of the gold list; max raw/parsed",
        metrics.score_soft_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/cls_acc",
        "MMLongBench ICL class: 'label: N', else last number, else first number == int gold; max raw/parsed",
        metrics.score_cls_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/binary_acc",
        "MMLongBench yes/no: last yes/no, unparseable -> cycling default [0,1,1,0] by row order",
        metrics.score_binary_acc,
        optional_fields=("prefix", "default_answer"),
        position_defaults=metrics.binary_default_for_position,
    ),
)
