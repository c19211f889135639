"""The `niah` command line. Each verb lives in `niah.commands.<verb>`; heavy libraries load lazily inside them
so that `niah --help` starts fast."""

from __future__ import annotations

import functools
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from niah.errors import NiahError
from niah.redact import redact

#: The order ``niah --help`` lists commands in: as the pipeline runs; commands a family adds come last.
PIPELINE_ORDER = ("list", "build", "import", "audit", "run", "score", "metric", "report", "export", "eval")


class _PipelineOrder(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        return [n for n in PIPELINE_ORDER if n in names] + [n for n in names if n not in PIPELINE_ORDER]


app = typer.Typer(
    cls=_PipelineOrder,
    name="niah",
    help="Build, run, score and report long-context needle-in-a-haystack benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _friendly_errors(callback):
    """Print a NiahError as one clear line and exit 2, instead of a traceback."""

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except NiahError as exc:
            typer.secho(f"error: {redact(str(exc))}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from None

    return wrapper


def _wrap_all(t: typer.Typer) -> None:
    for info in t.registered_commands:
        if info.callback is not None:
            info.callback = _friendly_errors(info.callback)
    for group in t.registered_groups:
        if group.typer_instance is not None:
            _wrap_all(group.typer_instance)


def _register() -> None:
    """Commands in pipeline order (``niah --help`` lists them so); family commands come from the registry."""
    from niah.commands import audit, families, import_responses, listing, metric, report, run, score
    from niah.commands import eval as eval_cmd

    by_verb: dict[str, list] = {}
    for command in families.family_commands():
        if command.verb is not None:
            by_verb.setdefault(command.verb, []).append(command)
    by_verb.setdefault("import", []).append(import_responses.command())  # not a family: any harness's replies
    listing.register(app)
    for verb in ("build", "import"):
        families.register_verb(app, verb, by_verb.pop(verb, []))
    for module in (audit, run, score, metric, report):
        module.register(app)
    families.register_verb(app, "export", by_verb.pop("export", []))
    eval_cmd.register(app)
    for verb, commands in by_verb.items():  # verbs only some family offers, e.g. "judge-test"
        families.register_verb(app, verb, commands)
    families.register_top_level(app, families.family_commands())
    _wrap_all(app)


_register()


def main() -> None:
    try:
        app()
    except NiahError as exc:
        typer.secho(f"error: {redact(str(exc))}", fg=typer.colors.RED, err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
