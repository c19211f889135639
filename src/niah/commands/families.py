"""The verbs whose commands come from the benchmark families: ``niah build <family>``, ``niah import <family>``,
``niah export <name>``, and any other verb a family contributes (``niah <verb> <name>``, or a top-level command).

Nothing here names a family: every command is a :class:`~niah.benchmarks.protocol.Command` from the registry.
"""

from __future__ import annotations

import typer

from niah.benchmarks.protocol import Command

VERB_HELP: dict[str, str] = {
    "build": "Generate benchmark samples.",
    "import": "Read a benchmark's official files (or a Hugging Face export: import hf) as a niah dataset.",
    "export": "Write niah datasets or runs as a benchmark's official files (or a Hugging Face dataset: export hf).",
    "derive": "Write a new dataset derived from a benchmark dataset (e.g. its text-only version).",
}


def family_commands() -> list[Command]:
    from niah.benchmarks.registry import families

    return [command for family in families() if family.commands for command in family.commands()]


def register_verb(app: typer.Typer, verb: str, commands: list[Command]) -> None:
    """Add group ``verb`` holding the given commands (in order) to ``app``."""
    group = typer.Typer(help=VERB_HELP.get(verb, f"Benchmark-specific {verb} commands."), no_args_is_help=True)
    app.add_typer(group, name=verb)
    for command in commands:
        group.command(command.name, help=command.help)(command.function)


def register_top_level(app: typer.Typer, commands: list[Command]) -> None:
    for command in commands:
        if command.verb is None:
            app.command(command.name, help=command.help)(command.function)
