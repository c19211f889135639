"""MileBench's CLI commands: ``niah import milebench`` and ``niah score --format milebench-official``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from niah.commands import deprecated_alias, pick_alias


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


#: The keys of what :func:`score_official_files` writes, by which an earlier one is known again.
_SCORES_KEYS = frozenset({"dataset", "question_type", "metric", "num_samples", "result", "eval_score"})


def is_official_scores_file(path: Path) -> bool:
    """Whether ``path`` reads back as a scores file :func:`score_official_files` wrote."""
    from niah.util.iox import json_file_is

    return json_file_is(path, lambda data: set(data) == _SCORES_KEYS)


def score_official_files(paths: list[Path], out: Path | None) -> None:
    """``niah score --format milebench-official DATASET_DIR PRED_JSON [--out FILE]``."""
    from niah.benchmarks.milebench.official import score_milebench_official
    from niah.util.errors import ConfigError
    from niah.util.iox import write_json_atomic

    if len(paths) != 2:
        raise ConfigError("--format milebench-official takes DATASET_DIR PRED_JSON")
    result = score_milebench_official(paths[0], paths[1])
    typer.echo(json.dumps({"dataset": result["dataset"], **result["result"]}, ensure_ascii=False))
    if out is not None:
        write_json_atomic(out, result)
        typer.echo(f"wrote {out}")


def build_niah_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
    lengths: Annotated[list[str] | None, typer.Option(
        "--lengths", help="exact lengths, comma-separated or repeated: tokens (4096) or thousands of tokens (8k = "
                          "8000); default 4096")] = None,
    per_cell: Annotated[int, typer.Option("--per-cell", help="samples per task and length")] = 4,
    per_length: Annotated[int | None, deprecated_alias("--per-length", "--per-cell")] = None,
    tasks: Annotated[list[str] | None, typer.Option(
        "--tasks", help="TextNeedleInAHaystack, ImageNeedleInAHaystack (default both)")] = None,
    images_per_sample: Annotated[int | None, typer.Option("--images-per-sample", help="images per sample, default "
                                                          "4 (the eval config's images_per_sample)")] = None,
    images: Annotated[int | None, deprecated_alias("--images", "--images-per-sample")] = None,
    seed: Annotated[int, typer.Option("--seed", help="build seed: the same seed gives the same samples")] = 0,
    corpus: Annotated[str, typer.Option("--corpus", help="'default' (embedded) or a corpus path")] = "default",
    tokenizer: Annotated[str, typer.Option("--tokenizer", help="the model's tokenizer (cl100k_base, hf:PATH, ...)")]
    = "cl100k_base",
    image_tokens: Annotated[str, typer.Option("--image-tokens", metavar="RULE", help="per-image cost: N or "
                                              "fixed:N (the official length counts a fixed cost; LLaVA-1.5: 576)")]
    = "576",
    no_progress: Annotated[bool, typer.Option("--no-progress", help="no progress output")] = False,
) -> None:
    """MileBench-style passkey haystacks (passkey in the text or on one image) at exact official lengths."""
    from niah.benchmarks.milebench.build import TASKS, build_milebench_niah
    from niah.build.lengths import exact_lengths

    sizes = exact_lengths(lengths or ["4096"], builder="milebench-niah")
    names = [t.strip() for value in tasks or [] for t in value.split(",") if t.strip()] or list(TASKS)
    per_sample = pick_alias(images_per_sample, images, "--images-per-sample")
    counts = build_milebench_niah(out, lengths=sizes, per_length=per_cell if per_length is None else per_length,
                                  tasks=names, images_per_sample=4 if per_sample is None else per_sample,
                                  seed=seed, corpus=corpus,
                                  tokenizer=tokenizer, image_tokens=image_tokens,
                                  progress=not no_progress)
    typer.echo(f"built {sum(counts.values())} samples ({', '.join(f'{t}: {n}' for t, n in counts.items())}) in {out}")
