"""The MMLongBench family: for now its official metric rules (``niah metric mmlongbench/...``)."""

from __future__ import annotations

from collections.abc import Sequence

from niah.benchmarks.protocol import Family
from niah.metrics.base import MetricRule


def _metric_rules() -> Sequence[MetricRule]:
    from niah.benchmarks.mmlongbench.score import RULES

    return RULES


FAMILY = Family(
    name="mmlongbench",
    title="MMLongBench",
    tasks=(),
    description="official metric rules (SubEM, option letter, counting, ICL class, yes/no)",
    metric_rules=_metric_rules,
)
