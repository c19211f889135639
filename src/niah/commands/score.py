"""`niah score`: score a run directory, or official files in their official format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from niah.benchmarks.protocol import OFFICIAL, ScoreFormat
from niah.util.errors import ConfigError


def _formats() -> dict[str, ScoreFormat]:
    from niah.benchmarks.registry import families

    return {fmt.name: fmt for family in families() if family.score_formats for fmt in family.score_formats()}


def register(app: typer.Typer) -> None:
    formats = _formats()
    names = ("run", *formats)
    path_help = " ".join(["run: RUN_DIR.", *(f"{f.name}: {f.help}." for f in formats.values())])

    @app.command("score")
    def score(
        paths: list[Path] = typer.Argument(..., help=path_help),
        format: str = typer.Option("run", "--format", "-f", help=f"One of: {', '.join(names)}."),
        out: Path | None = typer.Option(None, "--out", "-o", help="Where to write scores JSON (official formats)."),
        dataset: Path | None = typer.Option(None, "--dataset", "-d", help="run: dataset dir instead of run.json's."),
        no_judged: bool = typer.Option(False, "--no-judged", help="run: ignore the judge verdicts stored in the "
                                       "run (judgments.jsonl) and score without them."),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace a file at --out that is not an "
                                       "earlier scores file of this --format (by default it is refused)."),
    ) -> None:
        """Score responses: a niah run (writes scored.jsonl and scores.json, applying the verdicts a judge verb
        stored in the run) or official files."""
        if format == "run":
            if out is not None or overwrite:
                raise ConfigError("--out and --overwrite are for official formats; a run's scores are written "
                                  "into the run folder (scores.json, scored.jsonl): copy them from there")
            _score_run(paths, dataset, judged=not no_judged)
        elif dataset is not None or no_judged:
            raise ConfigError(f"--dataset and --no-judged are for --format run, not {format}")
        elif format in formats:
            if out is not None:  # only an earlier scores file of this format is replaced unasked
                from niah.util.iox import claim_output_file

                claim_output_file(out, overwrite=overwrite, is_ours=formats[format].is_output,
                                  kind=f"a scores file niah score --format {format} wrote")
            formats[format].function(paths, out)
        else:
            raise ConfigError(f"unknown format {format!r}; use one of: {', '.join(names)}")


def _score_run(paths: list[Path], dataset: Path | None, *, judged: bool = True) -> None:
    from niah.scoring.score import score_run

    if len(paths) != 1:
        raise ConfigError("--format run takes exactly one RUN_DIR")
    summary = score_run(paths[0], dataset=dataset, judged=judged)
    typer.echo(
        f"scored {summary.scored} samples ({summary.failed} failed or skipped requests scored 0, "
        f"{summary.missing} without a response not scored)"
    )
    for benchmark, shown in summary.needle_shown.items():
        line = (f"{benchmark}: needles shown in {shown['shown']} of {shown['samples']} samples "
                f"({shown['shown_rate']:.1f}%)")
        if shown["shown"] < shown["samples"]:
            over = shown["score_shown"]
            line += (f"; mean score {shown['score_all']:.1f}% over all, "
                     + (f"{over:.1f}% over the samples shown" if over is not None else "none shown")
                     + " (scores.json: needle_shown)")
        typer.echo(line)
    for benchmark, info in summary.judged.items():
        judges = sorted({str((ident or {}).get("model", {}).get("model", "?")) if isinstance(ident, dict) else "?"
                         for ident in info["judges"].values()})
        typer.echo(f"{benchmark}: applied {info['verdicts']} stored judge verdicts ({info['failed']} failed) of "
                   f"the last `niah judge {benchmark}` pass (judge {', '.join(judges)}); --no-judged scores "
                   "without them")
        if info["missing"]:
            typer.secho(f"NOT JUDGED: {info['missing']} {benchmark} sample(s) have no stored verdict for their "
                        f"current response; run `niah judge {benchmark} {paths[0]}` again (it asks only those)",
                        fg=typer.colors.YELLOW, bold=True, err=True)
    for benchmark in summary.judged_skipped:
        typer.echo(f"{benchmark}: stored judge verdicts not applied (--no-judged)")
    if summary.no_gold:
        typer.secho(f"GOLD MISSING: {summary.no_gold} answered sample(s) have no gold answer (a test split whose "
                    "ground truth is private) and are not scored"
                    + ("; nothing could be scored" if summary.scored == 0 else "; scores cover the others")
                    + ". Export the responses for the benchmark's leaderboard (see niah export --help).",
                    fg=typer.colors.YELLOW, bold=True, err=True)
    if summary.refused:
        typer.secho(f"REFUSED: {len(summary.refused)} sample(s) the official rule cannot score (the official code "
                    "would stop on them); they are left out of the scores and listed in refused.jsonl:",
                    fg=typer.colors.YELLOW, bold=True, err=True)
        for line in summary.refused[:20]:
            typer.echo(f"  {line}", err=True)
        if len(summary.refused) > 20:
            typer.echo(f"  ... and {len(summary.refused) - 20} more", err=True)
    if summary.stale:
        typer.secho(f"STALE: {len(summary.stale)} response(s) answer an earlier version of their sample (the dataset "
                    "was rebuilt after the run); they are scored as missing, never against the new gold; rerun "
                    f"`niah run` into {paths[0]} to ask them again:", fg=typer.colors.YELLOW, bold=True, err=True)
        for line in summary.stale[:20]:
            typer.echo(f"  {line}", err=True)
        if len(summary.stale) > 20:
            typer.echo(f"  ... and {len(summary.stale) - 20} more", err=True)
    rs = summary.run_status
    if rs and not rs["complete"]:
        typer.secho(f"INCOMPLETE RUN: {rs['answered']} answered, {rs['failed']} failed, {rs['skipped']} skipped, "
                    f"{rs['missing']} missing of {rs['total']} samples; failed and skipped ones score 0, missing ones are left out",
                    fg=typer.colors.YELLOW, bold=True, err=True)
    for name, count in summary.disagreements.items():
        typer.echo(f"official and {name} disagree on {count} of {summary.scored} samples")
    for line in headline_lines(summary.scores):
        typer.echo(line)
    _print_run_table(paths[0])
    for path in summary.written:
        typer.echo(f"wrote {path}")


def _print_run_table(run_dir: Path) -> None:
    """The per-bin table `niah eval` prints, after the run's headline."""
    from niah.report import load_input
    from niah.util.console import wide_console

    print_bin_table(wide_console(), load_input(run_dir))


def _pct(value: Any) -> str:
    """A percentage as every table of the report prints it (rounded half-up on its decimal form), with ``%``."""
    from niah.report.tables import format_pct

    return "-" if value is None else f"{format_pct(float(value))}%"


def _ci(interval: Any, method: str | None = None) -> str:
    if not isinstance(interval, list) or len(interval) != 2:
        return ""
    return f" (95% CI {float(interval[0]):.1f}-{float(interval[1]):.1f}" + (f", {method})" if method else ")")


def headline_lines(doc: dict[str, Any]) -> list[str]:
    """Per benchmark of a scores.json: its headline figure (:func:`niah.scoring.score.headline_figure`, the one the
    report's leaderboard shows): ``NAME: METRIC X% (95% CI lo-hi, method), n=N; covered Y%`` on a full grid;
    on a partial one the figure over the part the run holds, then the official overall labelled with what it
    lacks. Then one indented line per task (``by_task``); with several benchmarks a last line gives their
    unweighted mean."""
    from niah.scoring.score import benchmark_blocks, headline_figure

    blocks = benchmark_blocks(doc)
    lines: list[str] = []
    for name, block in blocks.items():
        head = headline_figure(block)
        short = head.what.split(" (", 1)[0]
        if head.basis == OFFICIAL:
            lines.append(f"{name}: {short} {_pct(head.value)}{_ci(head.ci95, head.ci_method)}, n={head.n}; "
                         f"covered {_pct(block.get('covered'))}" + (f"; {head.official_note}" if head.official_note
                                                                     else ""))
        else:
            lines.append(f"{name}: {short} {_pct(head.value)}{_ci(head.ci95, head.ci_method)}, n={head.n}; "
                         f"{head.official_note}"
                         + ("; per task below" if block.get("by_task") else ""))
        for task, entry in (block.get("by_task") or {}).items():
            note = f"; {entry['note']}" if isinstance(entry.get("note"), str) else ""  # e.g. an official flip
            if entry.get("covered") is not None:  # a partial grid: the built part first, the official labelled
                lines.append(f"  {task}: {_pct(entry['covered'])}{_ci(entry.get('covered_ci95'))} over its part of "
                             f"the grid, n={entry.get('n')}; "
                             f"official {_pct(entry.get('score'))} counts the parts it lacks as 0{note}")
            else:
                lines.append(f"  {task}: {_pct(entry.get('score'))}{_ci(entry.get('ci95'))}, n={entry.get('n')}{note}")
    if len(blocks) > 1:
        lines.append(f"all benchmarks (unweighted mean): {_pct(doc.get('overall'))}, n={doc.get('n')}; covered "
                     f"{_pct(doc.get('covered'))}")
    return lines

def print_bin_table(console: Any, inp: Any) -> bool:
    """Per task: official accuracy per bin (x100; empty bins print as -) and overall, as in the paper's tables,
    with the mean over the bins that have samples beside it (``niah score`` and ``niah eval`` print the same
    table). ``inp``: the run as :func:`niah.report.load_input` reads it. False when the family has no table."""
    from rich.table import Table

    from niah.report.tables import format_pct, ordered_tasks, row_from_bin_scores

    if inp.spec is None or not inp.task_scores:
        return False
    labels = inp.spec.columns.labels
    table = Table(title="official scores (accuracy x100; empty bins shown as -; overall = share of correct samples)"
                  if inp.spec.weighted_overall else
                  "official scores (accuracy x100; a bin over its cells with samples; empty bins, shown as -, and "
                  "empty cells count as 0 in overall, as the official code does)" if inp.spec.empty_bins_count_zero
                  else
                  "official scores (accuracy x100; empty bins and an overall over them shown as -)")
    table.add_column("task")
    for label in [*labels, "overall", "bins with samples"]:
        table.add_column(label, justify="right")
    for task in ordered_tasks(set(inp.task_scores), inp.task_order):
        row = row_from_bin_scores(task, inp.task_scores[task], len(labels), inp.bin_counts.get(task),
                                  weighted=inp.spec.weighted_overall, shown=inp.covered_scores.get(task))
        filled = row.overall if row.filled is None else row.filled
        cells = row.cells()
        if row.filled is not None and not inp.spec.empty_bins_count_zero:
            cells[-1] = format_pct(None)  # an overall over an empty bin is missing, never a 0 counted in
        table.add_row(task, *cells, format_pct(filled))
    console.print(table)
    return True
