"""The InfiniBench family record (light: everything heavy loads when a stage asks for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from niah.benchmarks.infinibench.skills import SKILLS
from niah.benchmarks.protocol import Command, Family, ReportSpec, Scorer

if TYPE_CHECKING:
    from niah.metrics.base import MetricRule
    from niah.prompts import Renderer

TASKS: tuple[str, ...] = tuple(s.id for s in SKILLS)


def _commands() -> Sequence[Command]:
    from niah.benchmarks.infinibench import cli

    return (Command("import", "infinibench", cli.import_command),
            Command("judge", "infinibench", cli.judge_command))


def _renderer() -> Renderer:
    from niah.benchmarks.infinibench.prompt import render

    return render


def _scorer() -> Scorer:
    from niah.benchmarks.infinibench.score import SCORER

    return SCORER


def _metric_rules() -> Sequence[MetricRule]:
    from niah.benchmarks.infinibench.score import RULES

    return RULES


def _report() -> ReportSpec:
    from niah.benchmarks.infinibench.report import SPEC

    return SPEC


FAMILY = Family(
    name="infinibench",
    title="InfiniBench",
    tasks=TASKS,
    description="hour-long TV episodes and movies with subtitles: MCQ and open-ended skills (import, judge v1/v2)",
    commands=_commands,
    renderer=_renderer,
    scorer=_scorer,
    metric_rules=_metric_rules,
    report=_report,
)
