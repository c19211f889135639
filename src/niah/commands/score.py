"""`niah score`: score a run directory, or official files in their official format."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from niah.errors import ConfigError

FORMATS = ("run", "mm-niah-official", "milebench-official")


def register(app: typer.Typer) -> None:
    @app.command("score")
    def score(
        paths: list[Path] = typer.Argument(
            ...,
            help="run: RUN_DIR. mm-niah-official: response files {model}_{task}-{split}.jsonl. "
            "milebench-official: DATASET_DIR PRED_JSON.",
        ),
        format: str = typer.Option("run", "--format", "-f", help=f"One of: {', '.join(FORMATS)}."),
        out: Path | None = typer.Option(None, "--out", "-o", help="Where to write scores JSON (official formats)."),
        dataset: Path | None = typer.Option(None, "--dataset", help="run: dataset dir instead of run.json's."),
    ) -> None:
        """Score responses: a niah run (writes scored.jsonl and scores.json) or official files."""
        if format == "run":
            _score_run(paths, dataset)
        elif format == "mm-niah-official":
            _score_mm_niah_official(paths, out)
        elif format == "milebench-official":
            _score_milebench_official(paths, out)
        else:
            raise ConfigError(f"unknown format {format!r}; use one of: {', '.join(FORMATS)}")


def _score_run(paths: list[Path], dataset: Path | None) -> None:
    from niah.metrics.scorers import score_run

    if len(paths) != 1:
        raise ConfigError("--format run takes exactly one RUN_DIR")
    summary = score_run(paths[0], dataset=dataset)
    typer.echo(
        f"scored {summary.scored} samples ({summary.failed} failed requests scored 0, "
        f"{summary.missing} without a response not scored)"
    )
    for name, count in summary.disagreements.items():
        typer.echo(f"official and {name} disagree on {count} of {summary.scored} samples")
    overall = summary.scores.get("overall") if isinstance(summary.scores, dict) else None
    if isinstance(overall, list) and overall:
        typer.echo(f"MM-NIAH overall (mean of 11 bins x 100): {sum(overall) / len(overall) * 100:.2f}")
    for path in summary.written:
        typer.echo(f"wrote {path}")


def _score_mm_niah_official(paths: list[Path], out: Path | None) -> None:
    from niah.benchmarks.mm_niah.official import score_response_files
    from niah.iox import write_json_atomic

    if out is None:
        raise ConfigError("--format mm-niah-official needs --out scores.json")
    result = score_response_files(paths)
    write_json_atomic(out, result, indent=1)
    typer.echo(f"wrote {out} ({len([k for k in result if k not in ('overall', 'context_ranges')])} tasks"
               f"{', with overall' if 'overall' in result else ', no overall (needs all 6 tasks)'})")


def _score_milebench_official(paths: list[Path], out: Path | None) -> None:
    from niah.benchmarks.milebench.official import score_milebench_official
    from niah.iox import write_json_atomic

    if len(paths) != 2:
        raise ConfigError("--format milebench-official takes DATASET_DIR PRED_JSON")
    result = score_milebench_official(paths[0], paths[1])
    typer.echo(json.dumps({"dataset": result["dataset"], **result["result"]}, ensure_ascii=False))
    if out is not None:
        write_json_atomic(out, result)
        typer.echo(f"wrote {out}")
