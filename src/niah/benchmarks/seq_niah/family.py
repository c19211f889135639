"""The Sequential-NIAH family record (light: everything heavy loads when a stage asks for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from niah.benchmarks.protocol import (
    BaselineAnswers,
    Builder,
    Command,
    Family,
    OptionKind,
    ReportSpec,
    ScoreFormat,
    Scorer,
    lazy,
)

if TYPE_CHECKING:
    from niah.prompts.types import Renderer
    from niah.scoring.metrics.base import MetricRule

#: The three pipelines (sample.task of built samples); imported test-format samples have task ``test``.
TASKS: tuple[str, ...] = ("synthetic-temporal", "real-temporal", "real-logical")


def _commands() -> Sequence[Command]:
    from niah.benchmarks.seq_niah import cli

    return (
        Command("build", "seq-niah", cli.build_command),
        Command("import", "seq-niah", cli.import_command),
        Command("export", "seq-niah", cli.export_command),
        Command("judge-test", "seq-niah", cli.judge_test_command),
        Command("noise", "seq-niah", cli.noise_command),
        Command("noise", "consistency", cli.consistency_command),
        Command("judge", "seq-niah", cli.judge_command),
    )


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.seq_niah.cli import build_from_options

    return (Builder("seq-niah", build_from_options, {"tasks": ["synthetic-temporal"], "lang": ["en", "zh"],
                                                       "lengths": ["8k-16k"], "needles": "3-15"},
                    option_kinds=BUILD_OPTION_KINDS),)


#: ``build_from_options``'s options as an eval config file writes them (``tasks`` names the pipelines, as a built
#: sample's task is its pipeline; ``pipelines`` and ``langs``, the old spellings of ``tasks`` and ``lang``, the keys
#: and options every builder uses, are kept for one release).
BUILD_OPTION_KINDS: dict[str, OptionKind] = {
    "pipelines": "texts", "tasks": "texts", "lang": "texts", "langs": "texts", "lengths": "texts", "needles": "text",
    "per_cell": "int", "seed": "int", "tokenizer": "text", "corpus": "text", "source": "text",
}


def _score_formats() -> Sequence[ScoreFormat]:
    from niah.benchmarks.seq_niah import cli

    return (ScoreFormat("seq-niah-results", "official data files (NIAH_*.jsonl, test_data_for_infer.jsonl) and "
                        "result files (infer_result.jsonl, infer_noise_result.jsonl)", cli.score_results_command,
                        cli.is_results_scores_file),)


def _renderer() -> Renderer:
    from niah.benchmarks.seq_niah.prompt import render

    return render


def _scorer() -> Scorer:
    from niah.benchmarks.seq_niah.score import SCORER

    return SCORER


def _metric_rules() -> Sequence[MetricRule]:
    from niah.benchmarks.seq_niah.score import RULES

    return RULES


def _report() -> ReportSpec:
    from niah.benchmarks.seq_niah.report import SPEC

    return SPEC


def _baselines() -> BaselineAnswers:
    from niah.benchmarks.seq_niah.score import BASELINES

    return BASELINES


FAMILY = Family(
    name="seq-niah",
    title="Sequential-NIAH",
    tasks=TASKS,
    description="3-15 ordered needles in EN and ZH at exact 8K-128K token lengths; official files in and out, "
                "deterministic order-aware judge and its self-test, noise variants and consistency",
    commands=_commands,
    builders=_builders,
    renderer=_renderer,
    scorer=_scorer,
    metric_rules=_metric_rules,
    report=_report,
    baselines=_baselines,
    audit=lazy("niah.benchmarks.seq_niah.audit:SPEC"),
    score_formats=_score_formats,
)
