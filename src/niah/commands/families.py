"""The verbs whose commands come from the benchmark families: ``niah build <family>``, ``niah import <family>``,
``niah export <name>``, and any other verb a family contributes (``niah <verb> <name>``, or a top-level command).

Nothing here names a family: every command is a :class:`~niah.benchmarks.protocol.Command` from the registry.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from niah.benchmarks.protocol import Command
from niah.benchmarks.registry import family_commands as family_commands  # the CLI lists them from here
from niah.build.record import (
    differing_options,
    input_digests,
    is_dataset_folder,
    option_digests,
    read_build_record,
    write_build_record,
)

VERB_HELP: dict[str, str] = {
    "build": "Generate benchmark samples.",
    "import": "Read a benchmark's official files (or a Hugging Face export: import hf) as a niah dataset.",
    "export": "Write niah datasets or runs as a benchmark's official files (or a Hugging Face dataset: export hf).",
    "derive": "Write a new dataset derived from a benchmark dataset (e.g. its text-only version).",
}


#: Verbs whose commands write a niah dataset at ``--out``: each gets ``--overwrite`` and the folder rule.
DATASET_VERBS = frozenset({"build", "import", "derive"})
def _guarded(verb: str, command: Command) -> Callable[..., Any]:
    """The command with ``--overwrite`` and the output-folder rule (:func:`niah.util.iox.claim_output_folder`): a
    folder holding something else is refused; a dataset this very command wrote with the same options is left as
    it is (the build is done); one written otherwise is refused naming what differs, unless ``--overwrite``."""
    function = command.function
    signature = inspect.signature(function, eval_str=True)
    if "out" not in signature.parameters or "overwrite" in signature.parameters:
        return function
    name = f"{verb} {command.name}"
    # the files a command reads are its path arguments (options name folders read in place, such as media)
    read_arguments = {p.name for p in signature.parameters.values() if _is_argument(p.annotation)}

    @functools.wraps(function)
    def run(*args: Any, overwrite: bool = False, **kwargs: Any) -> Any:
        from niah.util.errors import ConfigError
        from niah.util.iox import OURS, claim_output_folder

        bound = signature.bind_partial(*args, **kwargs)
        out = Path(bound.arguments["out"])
        options = {k: v for k, v in bound.arguments.items() if k != "out"}
        inputs = input_digests({k: v for k, v in options.items() if k in read_arguments})
        if verb == "build":  # a generator copies what its options name (a corpus, images): their content counts
            inputs.update(option_digests({k: v for k, v in options.items() if k not in read_arguments}))
        found = claim_output_folder(out, overwrite=overwrite, is_ours=is_dataset_folder, kind="a niah dataset")
        if found == OURS:
            differs = differing_options(read_build_record(out), name, options, inputs)
            if not differs:
                typer.echo(f"{out} already holds this build (`niah {name}` with the same options): nothing to do; "
                           "--overwrite builds it again", err=True)
                return None
            raise ConfigError(f"{out} holds another dataset: " + "; ".join(differs)
                              + "; pass --overwrite to replace it, or choose a new --out")
        result = function(*args, **kwargs)
        if out.is_dir():
            write_build_record(out, name, options, inputs)
        return result

    extra = inspect.Parameter("overwrite", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=Annotated[
        bool, typer.Option("--overwrite", help="Replace the dataset already at --out (by default the same "
                                               "command resumes it and another one is refused).")])
    params = list(signature.parameters.values())
    run.__signature__ = signature.replace(parameters=[*params, extra])  # type: ignore[attr-defined]
    run.__annotations__ = {**{p.name: p.annotation for p in params}, "overwrite": extra.annotation}
    return run


def _is_argument(annotation: Any) -> bool:
    """An ``Annotated[..., typer.Argument(...)]`` parameter (a positional argument of the command)."""
    return any(isinstance(meta, typer.models.ArgumentInfo) for meta in getattr(annotation, "__metadata__", ()))


def register_verb(app: typer.Typer, verb: str, commands: list[Command]) -> None:
    """Add group ``verb`` holding the given commands (in order) to ``app``; a dataset verb's commands get
    ``--overwrite`` and the output-folder rule (:func:`_guarded`)."""
    group = typer.Typer(help=VERB_HELP.get(verb, f"Benchmark-specific {verb} commands."), no_args_is_help=True)
    app.add_typer(group, name=verb)
    for command in commands:
        function = _guarded(verb, command) if verb in DATASET_VERBS else command.function
        group.command(command.name, help=command.help)(function)


def register_top_level(app: typer.Typer, commands: list[Command]) -> None:
    for command in commands:
        if command.verb is None:
            app.command(command.name, help=command.help)(command.function)
