"""``niah build video-niah``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from niah.benchmarks.video_niah.build import DEFAULT_DURATIONS, DEFAULT_FRAMES
from niah.commands import deprecated_alias


def build_from_options(out: Path, options: Mapping[str, Any], progress: bool) -> Mapping[str, int]:
    from niah.benchmarks.video_niah.build import build

    return build(out, options, progress)


def build_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    haystack: Annotated[str, typer.Option("--haystack", help="'default' (procedural scenes generated here) or a "
                                          "video file, read where it lies")] = "default",
    durations: Annotated[str, typer.Option("--durations", help="haystack durations, e.g. 5m,15m,30m,60m")]
    = DEFAULT_DURATIONS,
    depth_mode: Annotated[str, typer.Option("--depth-mode", help="cell: rows are depth cells, the needles placed "
                                            "at random inside (MM-NIAH); exact: rows are fixed depths (V-NIAH)")]
    = "cell",
    depth_cells: Annotated[list[str] | None, typer.Option("--depth-cells", help="cell mode: a number of equal "
                                                          "cells (default 5) or cell edges, e.g. 0,0.1,0.5,1 "
                                                          "(comma-separated or repeated)")] = None,
    depths: Annotated[list[str] | None, typer.Option("--depths", help="exact mode: needle depths in [0, 1], "
                                                     "comma-separated or repeated (default 0,0.25,0.5,0.75,1)")]
    = None,
    needle: Annotated[str, typer.Option("--needle", help="overlay | frame | clip | subtitle")] = "overlay",
    frames: Annotated[str, typer.Option("--frames", help="frames per sample: the haystack sampled to N frames "
                                        "evenly over its duration, the needle among them (run with --max-frames N "
                                        "to send every needle); 'all': every frame at --fps")] = str(DEFAULT_FRAMES),
    fps: Annotated[float | None, typer.Option("--fps", help="--frames all: haystack frames per second (default "
                                              "1)")] = None,
    per_cell: Annotated[int, typer.Option("--per-cell", help="samples per (task, duration, depth)")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="build seed: the same seed gives the same samples")] = 0,
    tasks: Annotated[list[str] | None, typer.Option("--tasks", help="comma-separated or repeated: retrieval, "
                                                    "retrieval-choice, counting, ordering (default all four)")]
    = None,
    width: Annotated[int, typer.Option("--width", help="frame width (default haystack; user videos scale to "
                                       "it)")] = 640,
    height: Annotated[int, typer.Option("--height", help="frame height (default haystack)")] = 360,
    needle_seconds: Annotated[float | None, typer.Option("--needle-seconds", help="--frames all: how long a "
                                                         "needle stays on screen (default 2); subtitle needles: "
                                                         "how long the line lasts")] = None,
    needle_frames: Annotated[int | None, typer.Option("--needle-frames", help="--frames N: frames a needle "
                                                      "covers (default 1, clips 3)")] = None,
    image_tokens: Annotated[str, typer.Option("--image-tokens", metavar="RULE", help="image token rule for "
                                              "meta.image_tokens (internvl, internvl-1tile, qwen2vl-28px, "
                                              "fixed:N)")] = "internvl-1tile",
    image_rule: Annotated[str | None, deprecated_alias("--image-rule", "--image-tokens")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="no progress on stderr")] = False,
) -> None:
    """Video needle haystacks: a duration x depth grid of needles hidden in long videos."""
    counts = build_from_options(out, {
        "haystack": haystack, "durations": durations, "depth_mode": depth_mode,
        "depth_cells": ",".join(depth_cells) if depth_cells else None, "depths": ",".join(depths) if depths else None, "needle": needle, "frames": frames, "fps": fps,
        "per_cell": per_cell, "seed": seed,
        "tasks": ",".join(tasks) if tasks else "retrieval,retrieval-choice,counting,ordering", "width": width, "height": height,
        "needle_seconds": needle_seconds, "needle_frames": needle_frames,
        "image_rule": image_rule if image_rule is not None else image_tokens},
        not no_progress)
    typer.echo(f"wrote {sum(counts.values())} samples ({', '.join(f'{k}: {v}' for k, v in counts.items())}) "
               f"to {out}")
