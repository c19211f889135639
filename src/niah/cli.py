"""The `niah` command line. Each verb lives in `niah.commands.<verb>`; heavy libraries load lazily inside them
so that `niah --help` starts fast."""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
import re
import signal
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from niah.util import interrupts
from niah.util.errors import ConfigError, NiahError
from niah.util.outcome import EXIT_ERROR
from niah.util.redact import redact

#: The order ``niah --help`` lists commands in: as the pipeline runs; commands a family adds come last.
PIPELINE_ORDER = ("list", "build", "import", "audit", "run", "merge", "score", "metric", "report", "export", "eval")


class _PipelineOrder(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        return [n for n in PIPELINE_ORDER if n in names] + [n for n in names if n not in PIPELINE_ORDER]


_READABLE_TYPES = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "path": "PATH", "file": "FILE",
                   "directory": "FOLDER", "int range": "INTEGER", "float range": "NUMBER", "Path": "PATH"}


def _readable_type(label: str | None) -> str | None:
    """Help shows types as users read them: ``TEXT``, ``INTEGER``, ``PATH``, ``TEXT...`` for a repeatable option,
    nothing for an on/off flag; never Python's ``<bool>`` or ``<list[str]>``."""
    if label is None:
        return None
    inner = label.strip()
    dots = inner.endswith("...")
    inner = inner.removesuffix("...")
    if not (inner.startswith("<") and inner.endswith(">")):
        return label  # a metavar the command chose
    inner = inner[1:-1]
    if inner == "bool":
        return None
    if inner.startswith("list[") and inner.endswith("]"):
        inner, dots = inner[5:-1], True
    readable = inner if "|" in inner else _READABLE_TYPES.get(inner, inner.upper())  # choices as typed
    return readable + ("..." if dots else "")


def _readable_help_types() -> None:
    from typer import core

    for cls in (getattr(core, "TyperOption", None), getattr(core, "TyperArgument", None)):
        original = getattr(cls, "display_type_rich", None)
        if cls is None or original is None or getattr(original, "_niah_readable", False):
            continue

        def display_type_rich(self: Any, ctx: Any, _original: Any = original) -> str | None:
            if getattr(self, "is_flag", False) and getattr(self, "metavar", None) is None:
                return None
            return _readable_type(_original(self, ctx))

        display_type_rich._niah_readable = True  # type: ignore[attr-defined]
        cls.display_type_rich = display_type_rich


_readable_help_types()


app = typer.Typer(
    cls=_PipelineOrder,
    name="niah",
    help="Build, run, score and report long-context needle-in-a-haystack benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def os_error_line(exc: OSError) -> str:
    """An OSError as users read it: ``File exists: out/run`` (no errno, no traceback)."""
    what = exc.strerror or type(exc).__name__
    where = exc.filename if exc.filename is not None else ""
    other = f" -> {exc.filename2}" if getattr(exc, "filename2", None) else ""
    return f"{what}: {where}{other}" if where else str(exc) or what


def _friendly_errors(callback):
    """Print a NiahError, or an OSError from the file system (a path that exists, a full disk, no permission),
    as one clear line and exit 2, instead of a traceback."""

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        try:
            _refuse_non_finite(kwargs)
            return callback(*args, **kwargs)
        except NiahError as exc:
            interrupts.check()  # an error of the stop itself (decoding stopped) is said as the stop
            typer.secho(f"error: {redact(str(exc))}", fg=typer.colors.RED, err=True)
            raise typer.Exit(EXIT_ERROR) from None
        except BrokenPipeError:
            # the reader went away (`niah score RUN | head`): what was asked is done and written; stop quietly,
            # as click does, with stdout pointed at nothing so the interpreter's last flush cannot fail again
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(1) from None
        except OSError as exc:
            interrupts.check()
            typer.secho(f"error: {redact(os_error_line(exc))}", fg=typer.colors.RED, err=True)
            raise typer.Exit(EXIT_ERROR) from None

    return wrapper


def _refuse_non_finite(kwargs: dict[str, Any]) -> None:
    """Every float option of every command must be finite: ``--temperature nan`` or ``--top-p inf`` parse as
    floats but no server, metric or JSON file can use them."""
    for name, value in kwargs.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            if isinstance(item, float) and not math.isfinite(item):
                raise ConfigError(f"{_option_flag(name)} must be a finite number, not {item}")


def _option_flag(name: str) -> str:
    """The flag a callback parameter was given as (``--top-p`` for ``top_p``), for messages."""
    import click

    ctx = click.get_current_context(silent=True)
    for param in ctx.command.params if ctx is not None else []:
        if param.name == name and param.opts:
            return max(param.opts, key=len)
    return "--" + name.replace("_", "-")


#: A line of a help paragraph that starts a new line on purpose: a list item (``- x``, ``* x``, ``1. x``).
_LIST_ITEM = re.compile(r"^\s*([-*]|\d+[.)])\s")


def reflow_help(text: str | None) -> str | None:
    """A command's help with the line breaks of its source joined, so that the terminal wraps it: typer's rich
    formatter keeps every newline after the first paragraph, which breaks a sentence wherever the docstring
    did ("stored in" / "the run"). Paragraphs (blank lines), list items and click's ``\\b`` blocks are kept."""
    if text is None:
        return None
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b"):
            paragraphs.append(paragraph)
            continue
        lines: list[str] = []
        for line in paragraph.splitlines():
            if lines and not _LIST_ITEM.match(line):
                lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _wrap_all(t: typer.Typer) -> None:
    """Every command: expected errors as one line (``_friendly_errors``), help that the terminal wraps."""
    t.info.help = reflow_help(t.info.help) if isinstance(t.info.help, str) else t.info.help
    for info in t.registered_commands:
        if info.callback is not None:
            info.help = reflow_help(info.help if info.help is not None else inspect.getdoc(info.callback))
            info.callback = _friendly_errors(info.callback)
    for group in t.registered_groups:
        if isinstance(group.help, str):
            group.help = reflow_help(group.help)
        if group.typer_instance is not None:
            _wrap_all(group.typer_instance)


def _register() -> None:
    """Commands in pipeline order (``niah --help`` lists them so); family commands come from the registry."""
    from niah.commands import (
        audit,
        families,
        harness,
        import_responses,
        listing,
        merge,
        metric,
        report,
        run,
        score,
    )
    from niah.commands import eval as eval_cmd

    by_verb: dict[str, list] = {}
    for command in [*families.family_commands(), *harness.commands()]:
        if command.verb is not None:
            by_verb.setdefault(command.verb, []).append(command)
    by_verb.setdefault("import", []).append(import_responses.command())  # not a family: any harness's replies
    listing.register(app)
    for verb in ("build", "import"):
        families.register_verb(app, verb, by_verb.pop(verb, []))
    for module in (audit, run, merge, score, metric, report):
        module.register(app)
    families.register_verb(app, "export", by_verb.pop("export", []))
    eval_cmd.register(app)
    for verb, commands in by_verb.items():  # verbs only some family offers, e.g. "judge-test"
        families.register_verb(app, verb, commands)
    families.register_top_level(app, families.family_commands())
    _wrap_all(app)


_register()


#: The status typer exits with on a KeyboardInterrupt (Ctrl-C, or niah.util.interrupts.Interrupted for SIGTERM).
EXIT_CTRL_C = 130
#: Verbs that keep what they finished and pick up where they stopped when the same command is run again.
RESUMABLE = {"run": "what was answered is kept", "eval": "what was built and answered is kept",
             "judge": "the verdicts stored so far are kept"}
#: Verbs named with a second word (``niah build FAMILY``), for the line an interrupted command prints.
_TWO_WORD_VERBS = ("build", "import", "judge", "export")


def interrupted_message(argv: list[str], signum: int = signal.SIGINT,
                        stopped_in: interrupts.Stage | None = None) -> str:
    """What a command stopped by ``signum`` says on its way out: what it was doing, what is kept, and how to
    go on. ``stopped_in``: the innermost stage the signal stopped (it knows better than the verb)."""
    words = [a for a in argv if not a.startswith("-")]
    verb = words[0] if words else ""
    command = " ".join(words[:2] if verb in _TWO_WORD_VERBS else words[:1])
    out = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--out", "-o")), None)
    if verb == "eval" and out is None and "--config" not in argv:
        out = "out/eval"  # niah eval's default output folder
    how = "interrupted (Ctrl-C)" if signum == signal.SIGINT else f"terminated ({signal.Signals(signum).name})"
    doing = f" while {stopped_in.what}" if stopped_in is not None else f" during niah {command}".rstrip()
    if verb in RESUMABLE:
        kept = RESUMABLE[verb] + (f" in {out}" if out and verb != "judge" else "")
        then = interrupts.RESUME
    else:
        kept, then = "nothing half-written is left (outputs are written whole)", interrupts.REDO
    if stopped_in is not None:
        kept, then = stopped_in.kept or kept, stopped_in.then or then
    return f"{how}{doing}: {kept}; {then}"


def main() -> None:
    with interrupts.handling_signals():
        try:
            app()
        except NiahError as exc:
            typer.secho(f"error: {redact(str(exc))}", fg=typer.colors.RED, err=True)
            sys.exit(EXIT_ERROR)
        except SystemExit as exc:
            signalled = interrupts.received()
            if exc.code == EXIT_CTRL_C or (signalled is not None and exc.code):
                signum = signalled or signal.SIGINT
                with contextlib.suppress(OSError):
                    line = interrupted_message(sys.argv[1:], signum, interrupts.stopped_in())
                    typer.echo(redact(line), err=True)
                sys.exit(interrupts.exit_status(signum))
            raise
        except Exception as exc:  # a bug: its traceback, with every registered secret masked (a URL, a key)
            import traceback

            sys.stderr.write(redact("".join(traceback.format_exception(exc))))
            sys.exit(1)


if __name__ == "__main__":
    main()
