"""The video-niah family record (light: everything heavy loads when a stage asks for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from niah.benchmarks.protocol import Builder, Command, Family, ReportSpec, Scorer

if TYPE_CHECKING:
    from niah.metrics.base import MetricRule
    from niah.prompts import Renderer

TASKS: tuple[str, ...] = ("retrieval", "retrieval-choice", "counting", "ordering")


def _commands() -> Sequence[Command]:
    from niah.benchmarks.video_niah import cli

    return (Command("build", "video-niah", cli.build_command),)


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.video_niah import cli

    # niah eval's small grid: two short haystacks, the five depths, small frames (builds in seconds)
    return (Builder("video-niah", cli.build_from_options,
                    {"durations": "1m,3m", "width": 320, "height": 180}),)


def _renderer() -> Renderer:
    from niah.benchmarks.video_niah.prompt import render

    return render


def _scorer() -> Scorer:
    from niah.benchmarks.video_niah.score import SCORER

    return SCORER


def _metric_rules() -> Sequence[MetricRule]:
    from niah.benchmarks.video_niah.score import RULES

    return RULES


def _report() -> ReportSpec:
    from niah.benchmarks.video_niah.report import SPEC

    return SPEC


FAMILY = Family(
    name="video-niah",
    title="Video NIAH",
    tasks=TASKS,
    description="needles (captions, frames, clips, subtitles) in long generated or user videos: duration x depth grid",
    commands=_commands,
    builders=_builders,
    renderer=_renderer,
    scorer=_scorer,
    metric_rules=_metric_rules,
    report=_report,
)
