"""`niah eval --config FILE`: the command-line side of :mod:`niah.eval.config` (options, output, exit status)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from niah.util.errors import ConfigError

#: The options that may go with --config: how the command behaves, not what it evaluates.
WITH_CONFIG = frozenset({"config", "no_progress", "allow_failures"})


def refuse_mixed_options(ctx: typer.Context) -> None:
    """--config takes every setting from its file; any other option given with it is refused, so that no flag is
    silently ignored and no file setting silently overridden."""

    def given_here(name: str) -> bool:
        source = ctx.get_parameter_source(name)
        return source is not None and source.name != "DEFAULT"  # typed on the command line or from the environment

    given = [param for param in ctx.command.params
             if param.name is not None and param.name not in WITH_CONFIG and given_here(param.name)]
    if given:
        shown = ", ".join(param.opts[0] if param.param_type_name == "argument" else max(param.opts, key=len)
                          for param in given)
        raise ConfigError(f"--config takes every setting from its file; {shown} given too (write it in the file; "
                          "only --no-progress and --allow-failures go with --config)")


def eval_from_config(ctx: typer.Context, path: Path, *, progress: bool, allow_failures: bool) -> None:
    """Check the options and the whole file, then run it; exit 3 when a run left requests unanswered."""
    from niah.commands.run import unanswered_lines
    from niah.eval.config import load_eval_config, run_eval_config
    from niah.util.outcome import EXIT_INCOMPLETE

    refuse_mixed_options(ctx)
    config = load_eval_config(path)

    def say(line: str) -> None:
        if progress:
            typer.echo(line, err=True)

    result = run_eval_config(config, progress=progress, say=say)
    _print_leaderboard(result.leaderboard)
    typer.echo(f"leaderboard: {result.leaderboard_files[0]} ({result.leaderboard_files[1].name})")
    typer.echo(f"report: {result.report}")
    unanswered = [(o, unanswered_lines(o.summary)) for o in result.runs]
    unanswered = [(o, lines) for o, lines in unanswered if lines]
    for outcome, lines in unanswered:
        for line in lines:
            typer.secho(f"{outcome.model} on {outcome.benchmark}: {line}",
                        fg=typer.colors.RED if not allow_failures else None, err=True)
    if unanswered and not allow_failures:
        typer.echo(f"exit {EXIT_INCOMPLETE}: not every request was answered in {len(unanswered)} of "
                   f"{len(result.runs)} runs (rerun the same command to retry the failed ones; --allow-failures "
                   "exits 0)", err=True)
        raise typer.Exit(EXIT_INCOMPLETE)


def _print_leaderboard(board: list[Any]) -> None:
    """The leaderboard as ``OUT/leaderboard.md`` has it: model, family, overall, n and the 95% interval."""
    from rich.table import Table

    from niah.report.tables import format_pct
    from niah.util.console import wide_console

    table = Table(title="leaderboard (official overall x100, 95% interval over n samples)")
    for label in ("model", "family", "overall", "n", "95% interval"):
        table.add_column(label, justify="left" if label in ("model", "family") else "right")
    for row in board:
        span = ("-" if row.low is None or row.high is None
                else f"[{format_pct(row.low * 100.0)}, {format_pct(row.high * 100.0)}]")
        table.add_row(row.model, row.family, format_pct(row.score * 100.0), str(row.n) if row.n else "-", span)
    wide_console().print(table)
