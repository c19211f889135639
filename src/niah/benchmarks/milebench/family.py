"""The MileBench family record: official data in, its prompt (with the official truncation), its scorers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from niah.benchmarks.protocol import Builder, Command, Family, ReportSpec, ScoreFormat, Scorer

if TYPE_CHECKING:
    from niah.metrics.base import MetricRule
    from niah.prompts import OfficialFit, Renderer


def _commands() -> Sequence[Command]:
    from niah.benchmarks.milebench import cli

    return (Command("import", "milebench", cli.import_command),
            Command("build", "milebench-niah", cli.build_niah_command))


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.milebench.build import build_from_options

    return (Builder("milebench-niah", build_from_options, {"lengths": [4096], "per_length": 2}),)


def _renderer() -> Renderer:
    from niah.benchmarks.milebench.prompt import render

    return render


def _official_fit() -> OfficialFit:
    from niah.benchmarks.milebench.prompt import official_fit

    return official_fit


def _scorer() -> Scorer:
    from niah.benchmarks.milebench.score import SCORER

    return SCORER


def _score_formats() -> Sequence[ScoreFormat]:
    from niah.benchmarks.milebench import cli

    return (ScoreFormat("milebench-official", "DATASET_DIR PRED_JSON", cli.score_official_files),)


def _metric_rules() -> Sequence[MetricRule]:
    from niah.benchmarks.milebench.score import RULES

    return RULES


def _report() -> ReportSpec:
    from niah.benchmarks.milebench.report import SPEC

    return SPEC


FAMILY = Family(
    name="milebench",
    title="MileBench",
    tasks=(),
    description="official data sets (incl. combined-image variants and GPR1200), prompts with the official "
                "truncation, scorers, image-count buckets",
    commands=_commands,
    builders=_builders,
    renderer=_renderer,
    official_fit=_official_fit,
    scorer=_scorer,
    score_formats=_score_formats,
    metric_rules=_metric_rules,
    report=_report,
)
