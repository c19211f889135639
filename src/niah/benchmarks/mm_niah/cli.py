"""MM-NIAH's CLI commands: ``niah build mm-niah``, ``niah import mm-niah``, ``niah export mm-niah-dataset`` and
``niah export mm-niah-responses``, and the Python build entry point ``niah eval`` uses. Heavy imports stay
inside the functions (this module is imported when the CLI starts)."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from niah.commands import deprecated_alias, one_of_repeatable, pick_alias, split_csv


def build_mm_niah(cfg: Any, out: Path, *, fmt: str = "niah", progress: bool = True) -> dict[str, int]:
    """Build MM-NIAH samples into ``out`` (niah dataset dir, or the official layout with fmt='official')."""
    from niah.benchmarks.mm_niah.build import MMNIAHBuilder, plan_grid
    from niah.sample import DatasetWriter
    from niah.util.console import progress_bar

    if fmt not in ("niah", "official"):
        from niah.util.errors import ConfigError

        raise ConfigError(f"unknown --format {fmt!r} (niah or official)")
    if fmt == "official" and cfg.doc_separator is None:  # the official files separate documents by </s>
        from niah.benchmarks.mm_niah.corpus import DOC_SEPARATOR

        cfg.doc_separator = DOC_SEPARATOR
    target = out
    tmpdir = None
    if fmt == "official":
        tmpdir = tempfile.TemporaryDirectory(prefix="niah-build-")
        target = Path(tmpdir.name) / "dataset"
    counts: dict[str, int] = {}
    try:
        with DatasetWriter(target) as writer:
            builder = MMNIAHBuilder(cfg, writer.write_media)
            plans = plan_grid(cfg, builder.key)
            with progress_bar(progress, len(plans), "building mm-niah") as advance:
                for sample in builder.samples(plans):
                    writer.write(sample)
                    counts[sample.task] = counts.get(sample.task, 0) + 1
                    advance()
            writer.finish(builder.manifest(counts))
        for warning in builder.warnings:  # also recorded in manifest.json
            typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW, err=True)
        if fmt == "official":
            from niah.benchmarks.mm_niah.export import export_official

            skipped: dict[str, int] = {}
            export_official(target, out, skipped=skipped)
            _say_skipped(skipped)
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
    return counts


def build_from_options(out: Path, options: Mapping[str, Any], progress: bool) -> dict[str, int]:
    """The :class:`~niah.benchmarks.protocol.Builder` entry point: BuildConfig fields by name, the cells as
    ``depth_cells`` (``depths``, their lower edges, is that key's old spelling, for one release)."""
    from niah.benchmarks.mm_niah.build import BuildConfig
    from niah.util.errors import ConfigError

    fields = dict(options)
    if "depths" in fields:
        typer.echo("note: the depths key is deprecated; use depth_cells (a count of cells or their edges, as "
                   "--depth-cells takes)", err=True)
        if "depth_cells" in fields:
            raise ConfigError("give depth_cells once (its deprecated spelling depths was given too)")
    if "depth_cells" in fields:
        fields["depths"] = official_cells(fields.pop("depth_cells"))
    return build_mm_niah(BuildConfig(**fields), out, progress=progress)


def cells_option(depth_cells: list[str] | None, old_depths: list[str] | None) -> list[float]:
    """The lower edges of the cells ``--depth-cells`` gives, or the deprecated ``--depths`` (cells by lower edge,
    as the official release names them); empty when neither is given."""
    from niah.util.errors import ConfigError

    if depth_cells and old_depths:
        raise ConfigError("give --depth-cells once (its deprecated spelling --depths was given too)")
    if depth_cells:
        return official_cells(split_csv(depth_cells))
    try:
        return [float(d) for d in split_csv(old_depths)]
    except ValueError:
        raise ConfigError("--depths takes numbers, e.g. 0,0.2,0.4") from None


def official_cells(depth_cells: Sequence[Any]) -> list[float]:
    """``--depth-cells`` read as every builder reads it (a count of equal cells, or the cells' edges, e.g.
    0,0.2,0.4) for MM-NIAH's official depth cells, 0.2 wide: the lower edge of each cell given."""
    from niah.benchmarks.mm_niah.bins import DEPTH_STEP, NUM_DEPTH_CELLS
    from niah.util.errors import ConfigError

    items = [str(item).strip() for item in depth_cells if str(item).strip()]
    official = ", ".join(f"{k * DEPTH_STEP:g}" for k in range(NUM_DEPTH_CELLS + 1))
    if len(items) == 1:
        if items[0] != str(NUM_DEPTH_CELLS):
            raise ConfigError(f"--depth-cells: MM-NIAH's depth cells are the {NUM_DEPTH_CELLS} official ones, "
                              f"{DEPTH_STEP:g} wide: give {NUM_DEPTH_CELLS} or edges among {official}, "
                              f"not {items[0]!r}")
        return [round(k * DEPTH_STEP, 9) for k in range(NUM_DEPTH_CELLS)]
    try:
        steps = [float(item) / DEPTH_STEP for item in items]
    except ValueError:
        raise ConfigError(f"--depth-cells takes a count or edges, e.g. 0,0.2,0.4, not {','.join(items)!r}") from None
    if (not items or any(abs(s - round(s)) > 1e-6 or not 0 <= round(s) <= NUM_DEPTH_CELLS for s in steps)
            or any(round(b) - round(a) != 1 for a, b in zip(steps, steps[1:], strict=False))):
        raise ConfigError(f"--depth-cells edges are MM-NIAH's official cell edges ({official}), each cell "
                          f"{DEPTH_STEP:g} wide, increasing: not {','.join(items)!r}")
    return [round(round(s) * DEPTH_STEP, 9) for s in steps[:-1]]


def summarize_dataset(path: Path) -> None:
    """Print a table: per task, samples, context length range, mean images, depth cells covered."""
    from rich.table import Table

    from niah.benchmarks.mm_niah.bins import depth_cell
    from niah.sample import Dataset
    from niah.util.console import wide_console

    stats: dict[str, dict[str, Any]] = {}
    for s in Dataset(path).iter_samples():
        st = stats.setdefault(s.task, {"n": 0, "min": 10**12, "max": 0, "img": 0, "tok": 0, "cells": set()})
        n = s.meta.get("context_length", 0)
        st["n"] += 1
        st["min"] = min(st["min"], n)
        st["max"] = max(st["max"], n)
        st["img"] += s.meta.get("num_images", 0)
        st["tok"] += n
        if s.meta.get("depth"):
            st["cells"].add(depth_cell(s.meta["depth"]))
    table = Table(title=f"dataset {path}")
    for col in ("task", "samples", "min tokens", "max tokens", "mean tokens", "mean images", "depth cells"):
        table.add_column(col, justify="right" if col != "task" else "left")
    for task, st in stats.items():
        table.add_row(task, str(st["n"]), str(st["min"]), str(st["max"]), f"{st['tok'] / st['n']:.0f}",
                      f"{st['img'] / st['n']:.1f}", ",".join(map(str, sorted(st["cells"]))))
    wide_console().print(table)


def build_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
    tasks: Annotated[list[str] | None, typer.Option("--tasks", help="comma-separated tasks (default: all six); image-count adds the paper's Fig. 4 probe (how many "
                        "images does the document hold?)")] = None,
    lengths: Annotated[list[str] | None, typer.Option(
        "--lengths", help="lengths, comma-separated or repeated: 8k (exactly 8000 tokens), 8192 (tokens) or a range "
                          "8k-12k (each sample's length drawn from it); default: the paper's 11 bins 1k..72k")]
    = None,
    depth_cells: Annotated[list[str] | None, typer.Option(
        "--depth-cells", help="depth cells: 5 (the official ones, the default) or cell edges 0.2 apart, e.g. "
                              "0,0.2,0.4 (the first two)")] = None,
    depths: Annotated[list[str] | None, deprecated_alias("--depths", "--depth-cells")] = None,
    per_cell: Annotated[int, typer.Option("--per-cell", help="samples per task x length x depth cell")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="build seed: the same seed gives the same samples")] = 0,
    corpus: Annotated[str, typer.Option(
        "--corpus", help="'default' (embedded) or a path (obelics:, textdir:, jsonl: prefixes); mm-niah:DIR reads "
                        "official MM-NIAH annotation files (real documents, old needles removed)")] = "default",
    lang: Annotated[list[str] | None, typer.Option("--lang", help="the language of the embedded corpus: en (default) "
                                                              "or zh; one per build")] = None,
    tokenizer: Annotated[str, typer.Option(
        "--tokenizer", help="cl100k_base, o200k_base, llama2-sp, hf:PATH (tokenizer.json), sp:PATH (.model)")] = "cl100k_base",
    image_tokens: Annotated[str, typer.Option(
        "--image-tokens", help="internvl[:max_tiles=N], internvl-1tile, qwen2vl-28px, fixed:N")] = "internvl",
    text_per_image: Annotated[int, typer.Option(
        "--text-tokens-per-image", help="about one image per this many text tokens")] = 2000,
    fmt: Annotated[str, typer.Option("--format", "-f", help="niah (dataset dir) or official (MM-NIAH layout)")] = "niah",
    no_images: Annotated[bool, typer.Option(
        "--no-images", help="text-only contexts (text-needle tasks only; the default task list becomes "
                            "the three text tasks)")] = False,
    doc_separator: Annotated[str | None, typer.Option(
        "--doc-separator", help="text between concatenated documents (\\n for a newline); default "
                                "'\\n\\n---\\n\\n', or '</s>' with --format official")] = None,
    reasoning_choices: Annotated[bool, typer.Option(
        "--reasoning-choices", help="reasoning-text as multiple choice (default: open-ended, as the paper)")] = False,
    distractors: Annotated[int, typer.Option(
        "--distractors", help="retrieval-text: this many facts of the needle's kind about other keys, with other "
                              "answers of its type, placed anywhere (RULER-style; default 0, as the paper)")] = 0,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="no progress output")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="no summary table")] = False,
) -> None:
    """Build MM-NIAH samples (six tasks, length x depth grid) from a corpus."""
    from niah.benchmarks.mm_niah.build import DEFAULT_DEPTHS, DEFAULT_LENGTHS, TASKS, BuildConfig

    depth_values = cells_option(depth_cells, depths) or list(DEFAULT_DEPTHS)
    default_tasks = [t for t in TASKS if t.endswith("-text")] if no_images else list(TASKS)
    cfg = BuildConfig(tasks=split_csv(tasks) or default_tasks, lengths=split_csv(lengths) or list(DEFAULT_LENGTHS),
                      depths=depth_values, per_cell=per_cell, seed=seed, corpus=corpus,
                      lang=one_of_repeatable(split_csv(lang), "--lang", "an MM-NIAH build is in one language") or "en",
                      tokenizer=tokenizer, image_tokens=image_tokens, text_tokens_per_image=text_per_image,
                      images=not no_images, reasoning_choices=reasoning_choices, distractors=distractors,
                      doc_separator=None if doc_separator is None else doc_separator.replace("\\n", "\n"))
    build_mm_niah(cfg, out, fmt=fmt, progress=not no_progress)
    if not quiet and fmt == "niah":
        summarize_dataset(out)
    elif not quiet:
        typer.echo(f"wrote official MM-NIAH layout to {out}")


def import_command(
    annotations: Annotated[list[Path], typer.Argument(help="official <task>.jsonl annotation files")],
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    media_root: Annotated[list[Path] | None, typer.Option("--media-root", help="the official images folder (image "
                                                          "paths are relative to it; required, once)")] = None,
    images: Annotated[Path | None, deprecated_alias("--images", "--media-root")] = None,
) -> None:
    """Official MM-NIAH annotations -> a niah dataset (prompted exactly as the official evaluation)."""
    from niah.benchmarks.mm_niah.official import import_annotations

    images = pick_alias(one_of_repeatable(media_root, "--media-root", "the official image paths are relative to one "
                                          "folder"), images, "--media-root", required=True)

    ds = import_annotations(annotations, images, out)
    typer.echo(f"wrote {len(ds)} samples to {out} (images read in place from {ds.media_root}; niah reads "
               f"outside a dataset only when told: pass --media-root {ds.media_root} to run and report)",
               err=True)
    no_gold = ds.manifest.get("no_gold")
    if no_gold:
        typer.echo(f"{no_gold} sample(s) have no gold answer (the test split's is private): run them and write "
                   "the leaderboard files with niah export mm-niah-responses RUN --split test; niah score will "
                   "say that gold is missing", err=True)


def export_dataset_command(
    dataset: Annotated[Path, typer.Argument(help="a niah MM-NIAH dataset directory")],
    out: Annotated[Path, typer.Option("--out", "-o", help="folder for annotations/ and images/")],
    media_root: Annotated[list[Path] | None, typer.Option(
        "--media-root", help="a folder outside the dataset its images may be read from (an imported official "
                             "set reads its images in place); repeatable")] = None,
) -> None:
    """A niah MM-NIAH dataset -> the official annotation layout (context with <image>, images_list)."""
    from niah.benchmarks.mm_niah.export import export_official

    skipped: dict[str, int] = {}
    counts = export_official(dataset, out, skipped=skipped, media_roots=tuple(media_root or ()))
    typer.echo(f"wrote {sum(counts.values())} records ({', '.join(f'{k}: {v}' for k, v in counts.items())}) "
               f"to {out}")
    _say_skipped(skipped)


def _say_skipped(skipped: Mapping[str, int]) -> None:
    if skipped:
        typer.secho(f"left out {sum(skipped.values())} sample(s) of tasks with no official file format: "
                    + ", ".join(f"{k} ({v})" for k, v in skipped.items()), fg=typer.colors.YELLOW, err=True)


def export_responses_command(
    run_dir: Annotated[Path, typer.Argument(help="a niah run directory on MM-NIAH data")],
    model_name: Annotated[str, typer.Option("--model-name", help="the {model} part of the file names")],
    split: Annotated[str, typer.Option("--split", help="val, test, rag-val or rag-test")] = "val",
    out: Annotated[Path, typer.Option("--out", "-o", help="folder for the response files: new, empty or one this "
                                      "export made")] = Path("mm-niah-responses"),
    dataset: Annotated[Path | None, typer.Option("--dataset", "-d", help="dataset dir instead of run.json's")] = None,
    allow_missing: Annotated[bool, typer.Option(
        "--allow-missing", help="write what was answered even if some samples have no response")] = False,
) -> None:
    """A niah run -> official response files {model}_{task}-{split}.jsonl, read unchanged by the official
    scorer."""
    from niah.benchmarks.mm_niah.official import write_official_responses
    from niah.run.rundir import read_run_json, resolve_run_dataset

    ds_path = resolve_run_dataset(run_dir, read_run_json(run_dir), dataset)
    paths = write_official_responses(run_dir, ds_path, out, model_name, split, allow_missing=allow_missing)
    for p in paths:
        typer.echo(str(p))


def is_official_scores_file(path: Path) -> bool:
    """Whether ``path`` reads back as a scores file :func:`score_official_files` wrote (its context ranges)."""
    from niah.benchmarks.mm_niah.official import CONTEXT_RANGES
    from niah.util.iox import json_file_is

    return json_file_is(path, lambda data: data.get("context_ranges") == CONTEXT_RANGES)


def score_official_files(paths: list[Path], out: Path | None) -> None:
    """``niah score --format mm-niah-official FILES... --out scores.json``."""
    from niah.benchmarks.mm_niah.official import score_response_files
    from niah.util.errors import ConfigError
    from niah.util.iox import write_json_atomic

    if out is None:
        raise ConfigError("--format mm-niah-official needs --out scores.json")
    result = score_response_files(paths)
    write_json_atomic(out, result, indent=1)
    typer.echo(f"wrote {out} ({len([k for k in result if k not in ('overall', 'context_ranges')])} tasks"
               f"{', with overall' if 'overall' in result else ', no overall (needs all 6 tasks)'})")


def text_only_command(
    dataset: Annotated[Path, typer.Argument(help="a niah MM-NIAH dataset directory (built or imported)")],
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    tasks: Annotated[list[str] | None, typer.Option(
        "--tasks", help="comma-separated text-needle tasks to keep (default: all three)")] = None,
    replacement: Annotated[str, typer.Option(
        "--replacement", help="text put where each image was (\\n for a newline); default: nothing, as the "
                              "paper omits the images")] = "",
    length_from: Annotated[str, typer.Option(
        "--length-from", help="original: keep the multimodal sample's context_length (rows line up with the "
                              "MLLM's); text: its text tokens")] = "original",
    media_root: Annotated[list[Path] | None, typer.Option(
        "--media-root", help="the images folder of an imported official set (read only to validate paths)")] = None,
) -> None:
    """The same samples with images removed, text-needle tasks only: the paper's LLM-vs-MLLM comparison
    (Tables 3-5). Run it with a text-only model and report it beside the MLLM's run on DATASET."""
    from niah.benchmarks.mm_niah.text_only import derive_text_only

    counts = derive_text_only(dataset, out, tasks=split_csv(tasks) or None,
                              replacement=replacement.replace("\\n", "\n"), length_from=length_from,
                              media_roots=tuple(media_root or ()))
    typer.echo(f"wrote {sum(counts.values())} text-only samples ({', '.join(f'{k}: {v}' for k, v in counts.items())}) "
               f"to {out}")
