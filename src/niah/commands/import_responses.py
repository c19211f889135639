"""`niah import responses --from inspect|lmms-eval LOG --dataset DATASET --out RUN`: another harness's replies
as a niah run directory, for ``niah score`` and ``niah report``. Not a benchmark family's command: it joins the
``import`` group beside the family importers (see :func:`command`)."""

from __future__ import annotations

from pathlib import Path

import typer

from niah.benchmarks.protocol import Command


def import_responses_command(
    logs: list[Path] = typer.Argument(..., help="inspect_ai log (.eval or .json) or lmms-eval "
                                      "samples_<task>.jsonl; several (one per task) are read as one."),
    harness: str = typer.Option(..., "--from", help="The harness that wrote LOG: inspect | lmms-eval."),
    dataset: Path = typer.Option(..., "--dataset", "-d", help="The niah dataset the harness ran."),
    out: Path = typer.Option(..., "--out", "-o", help="Run directory to write (run.json, responses.jsonl)."),
    model: str = typer.Option(None, "--model", "-m", help="Model name for the run (default: the one the log "
                              "names; lmms-eval samples files name none)."),
    epoch: int = typer.Option(1, "--epoch", help="inspect: which epoch's replies to import."),
    filtered: bool = typer.Option(False, "--filtered", help="lmms-eval: import filtered_resps instead of the "
                                  "raw resps (niah's official rules extract answers themselves)."),
    allow_missing: bool = typer.Option(False, "--allow-missing", help="Record dataset samples the log has no "
                                       "reply for as failed, instead of refusing."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a run already in --out."),
    media_root: list[Path] = typer.Option(None, "--media-root", help="Folder outside the dataset its media may "
                                          "be read from (repeatable)."),
) -> None:
    """Turn another harness's per-sample outputs into a niah run: `niah score` and `niah report` then give the
    official figures, heatmaps and browser for them."""
    from niah.interop.logs import HARNESSES
    from niah.interop.replay import import_responses

    if harness not in HARNESSES:
        from niah.util.errors import ConfigError

        raise ConfigError(f"--from {harness!r}: unknown harness (known: {', '.join(HARNESSES)})")
    summary, matched = import_responses(harness, list(logs), dataset, out, model=model, epoch=epoch,
                                        filtered=filtered, allow_missing=allow_missing, overwrite=overwrite,
                                        media_roots=tuple(media_root or ()))
    typer.echo(f"imported {len(matched.by_id)} replies from {len(logs)} log(s) into {out}: "
               f"{summary.answered} answered, {summary.failed} failed, {summary.skipped} skipped, {len(matched.missing)} not in the log")


def command() -> Command:
    """The ``import responses`` command, for the CLI to add to the ``import`` group."""
    return Command(verb="import", name="responses", function=import_responses_command,
                   help="Another harness's per-sample outputs (inspect_ai, lmms-eval) as a niah run.")
