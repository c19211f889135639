"""`niah audit`: shortcut probes on a dataset (no model is asked anything)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from niah.commands import deprecated_alias, pick_alias
from niah.util.errors import ConfigError


def register(app: typer.Typer) -> None:
    app.command("audit")(audit)


def audit(
    dataset: Annotated[Path | None, typer.Argument(
        help="Dataset folder to audit (default with --run: the run's dataset).", metavar="DATASET")] = None,
    run: Annotated[Path | None, typer.Option(
        "--run", help="A run folder: audit what this run sends (its frame and image budgets, capability fit) "
                      "and write audit.json into it, where `niah report` shows it.")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Where to write audit.json: a file, or a folder to hold it (default: in the run "
                            "folder with --run, else in the dataset folder).")] = None,
    reference: Annotated[Path | None, typer.Option(
        "--reference", help="A second build of the same kind with another seed: its question -> answer table "
                            "is tried as a reply (a model that memorised another build).")] = None,
    max_frames: Annotated[int | None, typer.Option(
        "--max-frames", min=1, help="Frames a video becomes for the model, as `niah run --max-frames`.")] = None,
    video_fps: Annotated[float | None, typer.Option(
        "--video-fps", min=0.0, help="Frame rate videos are sampled at, as `niah run --video-fps`.")] = None,
    max_images: Annotated[int | None, typer.Option(
        "--max-images", min=0, help="Images per request the model takes, as the run's capability.")] = None,
    max_context: Annotated[int | None, typer.Option(
        "--max-context", min=1, help="Context tokens the model takes, as the run's capability.")] = None,
    over_limit: Annotated[str, typer.Option(
        "--over-limit", help="Over-limit policy, as `niah run --over-limit` (skip, truncate, downscale, "
                             "official).")] = "skip",
    margin: Annotated[float, typer.Option(
        "--margin", min=0.0, help="Points a probe may beat chance by before it counts as a shortcut.")] = 5.0,
    media_root: Annotated[list[Path] | None, typer.Option(
        "--media-root", help="Allow media from this folder outside the dataset; repeatable.")] = None,
    max_per_task: Annotated[int | None, typer.Option(
        "--max-per-task", min=0, help="The most samples of a task to measure. A dataset that records its build (every "
                               "niah build does) is measured on more samples of the same builder, other seeds, "
                               "until each probe's noise allowance is within 5 points at 95% (default: at most "
                               "500 a task); a cap at or below the dataset's size (0) audits it as it is.")] = None,
    # --limit is the first N samples on niah run and niah eval; a cap per task took its own name
    old_limit: Annotated[int | None, deprecated_alias("--limit", "--max-per-task")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress on stderr.")] = False,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace a file where audit.json goes that is not an earlier audit (by default it is "
                            "refused).")] = False,
    old_progress: Annotated[bool | None, deprecated_alias("--progress", "the default (progress is shown unless "
                                                          "--no-progress)")] = None,
) -> None:
    """Try every shortcut a model could score by without doing the task (no-read replies, layout finders, gold
    in the haystack, needles missing from what is sent); a table per task, audit.json, exit 1 on a shortcut."""
    from niah.audit.dataset import (
        AUDIT_FILE,
        AuditOptions,
        is_audit_file,
        options_from_run,
        print_report,
        write_audit,
    )
    from niah.audit.samples import audit_enough
    from niah.util.iox import claim_output_file

    if out is not None and out.is_dir():
        out = out / AUDIT_FILE  # a folder given: audit.json in it
    settings: dict[str, object] = {}
    if run is not None:
        settings, run_dataset = options_from_run(run)
        if dataset is not None and dataset.resolve() != run_dataset.resolve() and out is None:
            # audit.json in a run folder is that run's audit (the report shows it as such)
            raise ConfigError(f"{dataset} is not the dataset of run {run} ({run_dataset}); its audit would be "
                              "filed in the run as the run's own: leave DATASET out, or give --out to write it "
                              "elsewhere")
        dataset = dataset or run_dataset
    if dataset is None:
        raise ConfigError("give a DATASET folder or --run RUN")
    overrides = {"max_frames": max_frames, "video_fps": video_fps, "max_images": max_images,
                 "max_context": max_context}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    if over_limit != "skip" or "over_limit" not in settings:
        settings["over_limit"] = over_limit
    limit = pick_alias(max_per_task, old_limit, "--max-per-task")
    if limit is not None and limit < 0:
        raise ConfigError(f"--max-per-task must be at least 0, not {limit}")
    options = AuditOptions(margin=margin, reference=reference, limit=limit,
                           media_roots=tuple(str(p) for p in media_root or ()),
                           **{k: v for k, v in settings.items() if v is not None})  # type: ignore[arg-type]
    target = out or ((run if run is not None else dataset) / AUDIT_FILE)
    claim_output_file(target, overwrite=overwrite, is_ours=is_audit_file, kind="an audit.json niah audit wrote")
    report = audit_enough(dataset, options, progress=not no_progress)
    print_report(report)
    write_audit(report, target)
    typer.echo(f"audit:    {target}")
    if not report.passed:
        raise typer.Exit(1)
