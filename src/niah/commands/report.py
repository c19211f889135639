"""`niah report`: tables, heatmaps and a static HTML report from run directories or scores.json files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    inputs: Annotated[list[Path], typer.Argument(
        help="Run directories (scored.jsonl + run.json) or scores.json files; one table row per input.",
        metavar="RUN_OR_SCORES...")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Report folder (created; files are replaced).")],
    name: Annotated[list[str] | None, typer.Option(
        "--name", help="Model name per input, in input order (default: run.json's model, or the file/folder "
                       "name of a scores file; inputs named alike get their folder added). Give it once per input.")] = None,
    published: Annotated[bool, typer.Option(
        "--published/--no-published",
        help="Show a benchmark's published rows (e.g. its paper's tables) beside yours when the inputs are that "
             "benchmark with official scoring.")] = True,
    dataset: Annotated[Path | None, typer.Option(
        "--dataset", "-d", help="Dataset folder for the sample browser, instead of the one run.json names.")] = None,
    title: Annotated[str, typer.Option(help="Report title.")] = "niah report",
    samples: Annotated[bool, typer.Option("--samples/--no-samples", help="Write the per-sample browser.")] = True,
    samples_per_cell: Annotated[int, typer.Option(
        min=0, help="List at most N samples per (task, length bin, depth cell) in the browser; 0 = all.")] = 0,
    thumbs_per_cell: Annotated[int, typer.Option(
        min=0, help="Image thumbnails for the first N samples of each (task, length bin, depth cell).")] = 3,
    chunk_size: Annotated[int, typer.Option(min=1, help="Samples per browser data file.")] = 100,
    media_root: Annotated[list[Path] | None, typer.Option(
        "--media-root", help="Allow thumbnails from this folder outside the dataset (an imported official set "
                             "read in place); repeatable.")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No stage lines on stderr.")] = False,
) -> None:
    """Per-length tables (Markdown, CSV, LaTeX), official heatmaps and an HTML report with a sample browser."""
    from niah.report import BrowserOptions, ReportOptions, build_report, load_inputs
    from niah.scoring.score import score_run, scores_out_of_date
    from niah.util.iox import check_folder_option

    check_folder_option(out)
    from niah.report.build import check_report_out

    check_report_out(out)  # before any work: "." (the folder you are in), a folder of your own

    def say(line: str) -> None:
        if not no_progress:
            typer.echo(line, err=True)

    say(f"report: reading {len(inputs)} input(s)")
    for path in inputs:  # a report never shows scores older than the responses they grade
        why = scores_out_of_date(path) if path.is_dir() else None
        if why is not None:
            score_run(path)
            typer.echo(f"note: rescored {path} ({why})", err=True)
    loaded = load_inputs(inputs, names=name or (), dataset=dataset)
    options = ReportOptions(
        published=published, title=title, sample_browser=samples,
        browser=BrowserOptions(thumbs_per_cell=thumbs_per_cell, samples_per_cell=samples_per_cell,
                               chunk_size=chunk_size, media_roots=tuple(media_root or ())),
    )
    result = build_report(loaded, out, options, progress=say)
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"tables:   {len(result.tables)} ({out / 'tables.md'})")
    typer.echo(f"heatmaps: {len(result.heatmaps)}"
               + (f" (+{len(result.compare_heatmaps)} side by side)" if result.compare_heatmaps else ""))
    for chart in result.charts:
        typer.echo(f"chart:    {chart}")
    if result.leaderboard_files:
        typer.echo(f"leaderboard: {result.leaderboard_files[0]}")
    for page in result.sample_pages:
        typer.echo(f"samples:  {page}")
    typer.echo(f"report:   {result.index_html}")
