"""`niah build BENCHMARK`: generate a dataset directory (or the benchmark's official file layout)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from niah.commands import split_csv


def build_mm_niah(cfg, out: Path, *, fmt: str = "niah", progress: bool = True) -> dict[str, int]:
    """Build MM-NIAH samples into ``out`` (niah dataset dir, or the official layout with fmt='official')."""
    from niah.benchmarks.mm_niah.build import MMNIAHBuilder, plan_grid
    from niah.sample import DatasetWriter

    if fmt not in ("niah", "official"):
        from niah.errors import ConfigError

        raise ConfigError(f"unknown --format {fmt!r} (niah or official)")
    if fmt == "official" and cfg.doc_separator is None:  # the official files separate documents by </s>
        from niah.haystack import OFFICIAL_DOC_SEPARATOR

        cfg.doc_separator = OFFICIAL_DOC_SEPARATOR
    target = out
    tmpdir = None
    if fmt == "official":
        tmpdir = tempfile.TemporaryDirectory(prefix="niah-build-")
        target = Path(tmpdir.name) / "dataset"
    counts: dict[str, int] = {}
    try:
        with DatasetWriter(target) as writer:
            builder = MMNIAHBuilder(cfg, writer.write_media)
            plans = plan_grid(cfg)
            with _progress(progress, len(plans), "building mm-niah") as advance:
                for sample in builder.samples(plans):
                    writer.write(sample)
                    counts[sample.task] = counts.get(sample.task, 0) + 1
                    advance()
            writer.finish(builder.manifest(counts))
        for warning in builder.warnings:  # also recorded in manifest.json
            typer.secho(f"warning: {warning}", fg=typer.colors.YELLOW, err=True)
        if fmt == "official":
            from niah.benchmarks.mm_niah.export import export_official

            export_official(target, out)
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
    return counts


class _progress:
    """A rich progress bar (or nothing); yields an ``advance()`` callable."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.enabled, self.total, self.label = enabled, total, label
        self._bar = None

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), TimeRemainingColumn(), transient=False)
        self._bar.__enter__()
        task = self._bar.add_task(self.label, total=self.total)
        bar = self._bar
        return lambda: bar.advance(task)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)


def summarize_dataset(path: Path) -> None:
    """Print a table: per task, samples, context length range, mean images, depth cells covered."""
    from rich.table import Table

    from niah.benchmarks.mm_niah.bins import depth_cell
    from niah.console import wide_console
    from niah.sample import Dataset

    stats: dict[str, dict] = {}
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


def register(app: typer.Typer) -> None:
    build_app = typer.Typer(help="Generate benchmark samples.", no_args_is_help=True)
    app.add_typer(build_app, name="build")

    @build_app.command("mm-niah")
    def mm_niah(
        out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
        tasks: Annotated[list[str] | None, typer.Option("--tasks", help="comma-separated tasks (default: all six)")] = None,
        lengths: Annotated[list[str] | None, typer.Option(
            "--lengths", help="lengths: 8k (exact) or 8k-12k (range); default: the paper's 11 bins 1k..72k")] = None,
        depths: Annotated[list[str] | None, typer.Option(
            "--depths", help="official depth cells by lower edge, default 0,0.2,0.4,0.6,0.8")] = None,
        per_cell: Annotated[int, typer.Option("--per-cell", help="samples per task x length x depth cell")] = 1,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        corpus: Annotated[str, typer.Option(
            "--corpus", help="'default' (embedded) or a path (obelics:, textdir:, jsonl: prefixes)")] = "default",
        lang: Annotated[str, typer.Option("--lang", help="corpus language for the embedded corpus")] = "en",
        tokenizer: Annotated[str, typer.Option(
            "--tokenizer", help="cl100k_base, o200k_base, llama2-sp, hf:PATH (tokenizer.json), sp:PATH (.model)")] = "cl100k_base",
        image_tokens: Annotated[str, typer.Option(
            "--image-tokens", help="internvl[:max_tiles=N], internvl-1tile, qwen2vl-28px, fixed:N")] = "internvl",
        text_per_image: Annotated[int, typer.Option(
            "--text-tokens-per-image", help="about one image per this many text tokens")] = 2000,
        fmt: Annotated[str, typer.Option("--format", help="niah (dataset dir) or official (MM-NIAH layout)")] = "niah",
        # --- issue 9 options (haystack shape and answer formats) ---
        no_images: Annotated[bool, typer.Option(
            "--no-images", help="text-only contexts (text-needle tasks only; the default task list becomes "
                                "the three text tasks)")] = False,
        doc_separator: Annotated[str | None, typer.Option(
            "--doc-separator", help="text between concatenated documents (\\n for a newline); default "
                                    "'\\n\\n---\\n\\n', or '</s>' with --format official")] = None,
        reasoning_choices: Annotated[bool, typer.Option(
            "--reasoning-choices", help="reasoning-text as multiple choice (default: open-ended, as the paper)")] = False,
        # --- end of issue 9 options ---
        no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="no summary table")] = False,
    ) -> None:
        """Build MM-NIAH samples (six tasks, length x depth grid) from a corpus."""
        from niah.benchmarks.mm_niah.build import DEFAULT_DEPTHS, DEFAULT_LENGTHS, TASKS, BuildConfig
        from niah.errors import ConfigError

        try:
            depth_values = [float(d) for d in split_csv(depths)] or list(DEFAULT_DEPTHS)
        except ValueError:
            raise ConfigError("--depths takes numbers, e.g. 0,0.2,0.4") from None
        default_tasks = [t for t in TASKS if t.endswith("-text")] if no_images else list(TASKS)
        cfg = BuildConfig(tasks=split_csv(tasks) or default_tasks, lengths=split_csv(lengths) or list(DEFAULT_LENGTHS),
                          depths=depth_values, per_cell=per_cell, seed=seed, corpus=corpus, lang=lang,
                          tokenizer=tokenizer, image_tokens=image_tokens, text_tokens_per_image=text_per_image,
                          images=not no_images, reasoning_choices=reasoning_choices,
                          doc_separator=None if doc_separator is None else doc_separator.replace("\\n", "\n"))
        build_mm_niah(cfg, out, fmt=fmt, progress=not no_progress)
        if not quiet and fmt == "niah":
            summarize_dataset(out)
        elif not quiet:
            typer.echo(f"wrote official MM-NIAH layout to {out}")
