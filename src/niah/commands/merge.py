"""`niah merge RUN... --out RUN`: join the run directories of `niah run --shard I/N` into one run."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("merge")
    def merge_command(
        runs: list[Path] = typer.Argument(..., help="The shard run directories (niah run --shard I/N)."),
        out: Path = typer.Option(..., "--out", "-o", help="The merged run directory (new, or --overwrite)."),
        partial: bool = typer.Option(False, "--partial", help="Merge even when shards are missing (the merged "
                                     "run is marked incomplete)."),
        overwrite: bool = typer.Option(False, "--overwrite", help="Replace the run at --out."),
    ) -> None:
        """Merge shard runs into the run one unsharded `niah run` writes: `niah score` and `niah report` on it
        give the same figures. Refuses runs of different datasets, models or settings, a shard given twice and
        (without --partial) missing shards."""
        from niah.run.merge import merge_runs

        summary = merge_runs(runs, out, partial=partial, overwrite=overwrite)
        c = summary.counts
        typer.echo(f"merged {len(summary.merged)} of {summary.shards} shards ({', '.join(summary.merged)}): "
                   f"{c['answered']} answered, {c['failed']} failed, {c['skipped']} skipped, {c['missing']} missing "
                   f"of {c['total']} -> {out}", err=True)
        if summary.missing:
            typer.secho(f"MISSING SHARDS: {', '.join(summary.missing)}; the merged run is incomplete",
                        fg=typer.colors.YELLOW, bold=True, err=True)
        for path in summary.incomplete:
            typer.secho(f"INCOMPLETE SHARD: {path} did not finish (rerun its niah run command, then merge again)",
                        fg=typer.colors.YELLOW, err=True)
        if summary.judged:
            typer.secho(f"judge verdicts in {', '.join(summary.judged)} are not merged: run the judge verb on "
                        f"{out}", fg=typer.colors.YELLOW, err=True)
