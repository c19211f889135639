"""The video-niah family record (light: everything heavy loads when a stage asks for it)."""

from __future__ import annotations

from collections.abc import Sequence

from niah.benchmarks.protocol import BaselineAnswers, Builder, Command, Family, OptionKind, lazy

TASKS: tuple[str, ...] = ("retrieval", "retrieval-choice", "counting", "ordering")


def _commands() -> Sequence[Command]:
    from niah.benchmarks.video_niah import cli

    return (Command("build", "video-niah", cli.build_command),)


def _builders() -> Sequence[Builder]:
    from niah.benchmarks.video_niah import cli

    # niah eval's small grid: two short haystacks, the five depth cells, small frames (builds in seconds)
    return (Builder("video-niah", cli.build_from_options,
                    {"durations": "1m,3m", "width": 320, "height": 180}, option_kinds=BUILD_OPTION_KINDS),)


#: ``BuildOptions.from_mapping``'s options as an eval config file writes them (``lengths`` are durations).
BUILD_OPTION_KINDS: dict[str, OptionKind] = {
    "durations": "items", "lengths": "items", "depth_mode": "text", "depth_cells": "items", "depths": "items",
    "needle": "text", "tasks": "texts", "frames": "value", "fps": "number", "needle_seconds": "number",
    "needle_frames": "int", "per_cell": "int", "seed": "int", "image_tokens": "text",
    "image_rule": "text", "haystack": "text",
    "width": "int", "height": "int",
}


def _baselines() -> BaselineAnswers:
    from niah.benchmarks.video_niah.score import extractive_answer, random_answer

    return BaselineAnswers(random=random_answer, extractive=extractive_answer)


FAMILY = Family(
    name="video-niah",
    title="Video NIAH",
    tasks=TASKS,
    description="needles (captions, frames, clips, subtitles) in long generated or user videos: duration x depth grid",
    commands=_commands,
    builders=_builders,
    renderer=lazy("niah.benchmarks.video_niah.prompt:render"),
    scorer=lazy("niah.benchmarks.video_niah.score:SCORER"),
    metric_rules=lazy("niah.benchmarks.video_niah.score:RULES"),
    report=lazy("niah.benchmarks.video_niah.report:SPEC"),
    baselines=_baselines,
    audit=lazy("niah.benchmarks.video_niah.audit:AUDIT"),
)
