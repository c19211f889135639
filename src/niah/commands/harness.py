"""Other harnesses' formats, for any benchmark's dataset: `niah export hf DATASET --out DIR` and `niah import hf
DIR --out DATASET` (Hugging Face datasets: Parquet shards and a dataset card, out and back in), and
`niah export inspect DATASET --out task.py` (an inspect_ai task scored by niah's official rule), and `niah export
lmms-eval DATASET --out DIR` (an lmms-eval task folder scored by niah's official rule)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from niah import DISTRIBUTION, pip_install
from niah.benchmarks.protocol import Command
from niah.commands import one_of_repeatable

# The options every export shares, declared once (the same spelling and help in each command).
DatasetArg = Annotated[Path, typer.Argument(help="Dataset directory (manifest.json, samples.jsonl, media/).")]
MediaRootsOpt = Annotated[list[Path] | None, typer.Option(
    "--media-root", help="Allow reading media from this folder outside the dataset (an imported official set "
    "read in place).")]
MaxFramesOpt = Annotated[int | None, typer.Option(
    "--max-frames", help="Frames sampled per video (as niah run's --max-frames; default 32 for a video file).")]
QuestionFirstOpt = Annotated[bool, typer.Option(
    "--question-first", help="The question before the context (where a family offers it).")]
OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="Replace an earlier export at --out.")]
MaxTokensOpt = Annotated[int | None, typer.Option(
    "--max-tokens", help="Answer budget for every sample, replacing the family's (as niah run's --max-tokens).")]


def export_command(
    dataset: DatasetArg,
    out: Path = typer.Option(..., "--out", "-o", help="Folder to write: README.md (dataset card) and data/*.parquet."),
    split: str = typer.Option("test", "--split", help="The split's name."),
    no_embed: bool = typer.Option(False, "--no-embed", help="Store video frames and video files by path only "
                                  "(images and subtitles stay embedded)."),
    max_shard_size: str = typer.Option("500MB", "--max-shard-size", help="Start a new Parquet shard past this "
                                       "size (500MB, 2GB, ...)."),
    row_group_size: int = typer.Option(100, "--row-group-size", help="Rows per Parquet row group (fewer when "
                                       "their media pass 64 MiB)."),
    media_root: MediaRootsOpt = None,
    overwrite: OverwriteOpt = False,
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar."),
) -> None:
    """A niah dataset as a Hugging Face dataset: Parquet shards that datasets.load_dataset("parquet",
    data_dir=DIR) loads (images as Image features, video as frame lists), every sample field kept, and a
    dataset card. Needs the datasets package (pip install 'niah-bench\\[hf]')."""
    # (the help is rich markup: an unescaped "[hf]" would be read as a style tag and vanish)
    from niah.interop.hf import export_hf, parse_size

    summary = export_hf(dataset, out, split=split, embed=not no_embed, max_shard_bytes=parse_size(max_shard_size),
                        row_group_rows=row_group_size, overwrite=overwrite, progress=not no_progress,
                        media_roots=tuple(media_root or ()))
    typer.echo(f"wrote {summary.samples} samples ({summary.media_files} media files, {summary.media_bytes / 1e6:.1f} "
               f"MB) in {len(summary.shards)} Parquet shard(s), {summary.parquet_bytes / 1e6:.1f} MB, and a dataset "
               f"card -> {out}", err=True)


def import_command(
    folder: Path = typer.Argument(..., help="A folder niah export hf wrote (README.md, data/*.parquet)."),
    out: Path = typer.Option(..., "--out", "-o", help="Dataset directory to write."),
    media_root: list[Path] | None = typer.Option(None, "--media-root", help="Where media exported by path only "
                                                 "(--no-embed) are read: the dataset it was exported from (once)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing dataset at --out."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar."),
) -> None:
    """A niah export hf folder back to a niah dataset directory: samples.jsonl and media byte for byte."""
    from niah.interop.hf import import_hf

    root = one_of_repeatable(media_root, "--media-root", "an export's by-path media come from one dataset")
    summary = import_hf(folder, out, overwrite=overwrite, progress=not no_progress, media_root=root)
    typer.echo(f"wrote {summary.samples} samples and {summary.media_files} media files to {out}", err=True)


def export_inspect_command(
    dataset: DatasetArg,
    out: Path = typer.Option(..., "--out", "-o", help="The task file to write (task.py)."),
    name: str = typer.Option("niah", "--name", help="The task's name (a Python identifier)."),
    max_frames: MaxFramesOpt = None,
    question_first: QuestionFirstOpt = False,
    media_root: MediaRootsOpt = None,
    max_tokens: MaxTokensOpt = None,
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a file at --out that is not a task file "
                                   "niah wrote (by default it is refused)."),
) -> None:
    """A niah dataset as an inspect_ai task file: the family's rendered prompts as chat samples, a scorer that
    calls niah's official rule. Run it with `inspect eval task.py --model PROVIDER/MODEL`."""
    from niah.interop.inspect_task import write_task_file

    write_task_file(dataset, out, media_roots=tuple(media_root or ()), max_frames=max_frames,
                    question_first=question_first, name=name, max_tokens=max_tokens, overwrite=overwrite)
    typer.echo(f"wrote {out}: inspect eval {out} --model PROVIDER/MODEL (needs {pip_install('inspect')})", err=True)


def export_lmms_eval_command(
    dataset: DatasetArg,
    out: Path = typer.Option(..., "--out", "-o", help="The task folder to write (YAML, utils.py, docs/, "
                             "media/, README.md)."),
    name: str = typer.Option(None, "--name", help="The lmms-eval task name (default niah_ and the dataset "
                             "folder's name)."),
    max_frames: MaxFramesOpt = None,
    question_first: QuestionFirstOpt = False,
    media_root: MediaRootsOpt = None,
    overwrite: OverwriteOpt = False,
    max_tokens: MaxTokensOpt = None,
) -> None:
    """A niah dataset as an lmms-eval task folder: the family's rendered prompts as docs (images as PIL images,
    a video as its sampled frames), process_results calling niah's official rule. Run it with `lmms-eval
    --tasks NAME --include_path DIR` (niah-bench must be installed there)."""
    from niah.interop.lmms_task import export_lmms_eval

    summary = export_lmms_eval(dataset, out, name=name, media_roots=tuple(media_root or ()), max_frames=max_frames,
                               question_first=question_first, overwrite=overwrite, max_tokens=max_tokens)
    run_name = summary.group or summary.tasks[0]
    tasks = f"task {run_name}" if summary.group is None else f"group {run_name} over {', '.join(summary.tasks)}"
    typer.echo(f"wrote {summary.samples} samples ({summary.media_files} media files) as lmms-eval {tasks} -> {out}: "
               f"lmms-eval --model MODEL --tasks {run_name} --include_path {out} (needs lmms-eval and "
               f"{DISTRIBUTION})",
               err=True)


def commands() -> list[Command]:
    """The shared (family-agnostic) commands of the import and export verbs."""
    return [Command("import", "hf", import_command), Command("export", "hf", export_command),
            Command("export", "inspect", export_inspect_command),
            Command("export", "lmms-eval", export_lmms_eval_command)]
