"""The `niah` command line. Each verb lives in `niah.commands.<verb>`; heavy libraries load lazily inside them
so that `niah --help` starts fast."""

from __future__ import annotations

import sys

import typer

from niah.errors import NiahError

app = typer.Typer(
    name="niah",
    help="Build, run, score and report long-context needle-in-a-haystack benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    from niah.commands import build, eval as eval_cmd, metric, report, run, score

    for module in (build, metric, score, report, run, eval_cmd):
        module.register(app)


_register()


def main() -> None:
    try:
        app()
    except NiahError as exc:
        typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
