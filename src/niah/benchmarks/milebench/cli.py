"""MileBench's CLI commands: ``niah import milebench`` and ``niah score --format milebench-official``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def import_command(
    dataset_dir: Annotated[Path, typer.Argument(help="a MileBench folder: {Dataset}.json + images/")],
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    combined: Annotated[int | None, typer.Option(
        "--combined", help="read the combined-image variant {Dataset}_combined_K.json (images in "
                           "combined_K_images/)")] = None,
) -> None:
    """An official MileBench dataset folder -> a niah dataset."""
    from niah.benchmarks.milebench.official import write_milebench_dataset

    ds = write_milebench_dataset(dataset_dir, out, combined)
    typer.echo(f"wrote {len(ds)} samples to {out} (images read in place from {ds.media_root}; niah reads "
               f"outside a dataset only when told: pass --media-root {ds.media_root} to run and report)",
               err=True)


def score_official_files(paths: list[Path], out: Path | None) -> None:
    """``niah score --format milebench-official DATASET_DIR PRED_JSON [--out FILE]``."""
    from niah.benchmarks.milebench.official import score_milebench_official
    from niah.errors import ConfigError
    from niah.iox import write_json_atomic

    if len(paths) != 2:
        raise ConfigError("--format milebench-official takes DATASET_DIR PRED_JSON")
    result = score_milebench_official(paths[0], paths[1])
    typer.echo(json.dumps({"dataset": result["dataset"], **result["result"]}, ensure_ascii=False))
    if out is not None:
        write_json_atomic(out, result)
        typer.echo(f"wrote {out}")
