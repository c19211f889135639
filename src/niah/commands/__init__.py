"""CLI verbs: each module exposes ``register(app)``; heavy imports stay inside the command functions."""

from __future__ import annotations

from typing import Any

from niah.util.errors import ConfigError


def split_csv(values: list[str] | None) -> list[str]:
    """Repeatable options that also accept comma-separated lists: ``--tasks a,b --tasks c`` -> [a, b, c]."""
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


#: One spelling per concept on every command; the old spellings still work, for one release, as hidden aliases
#: that print a deprecation line (tests/test_cli_contract.py and tests/test_vocabulary.py walk the command tree and
#: the eval config's keys and fail on a second visible spelling).
CANONICAL_OPTIONS = {
    "--per-cell": ("--per-length",),  # samples per grid cell (a builder's cell may be a length alone)
    "--image-tokens": ("--image-rule",),  # the image token rule
    # a folder of media read in place (a builder's old --images was an image count: --images-per-sample now)
    "--media-root": ("--images", "--image-root", "--videos"),
    "--out": ("--output",),  # the file or folder a verb writes (niah metric said --output)
    "--family": ("--benchmark",),  # niah eval's family, as an eval config's family key
    "--no-progress": ("--progress",),  # progress is shown unless --no-progress (niah audit had a pair)
}


def deprecated_alias(old: str, new: str) -> Any:
    """A hidden option ``old`` standing for ``new``: it still works, and says once that it is deprecated."""
    import typer

    def warn(value: Any) -> Any:
        if value is not None:
            typer.echo(f"note: {old} is deprecated; use {new}", err=True)
        return value

    # used inside Annotated[...]: the default is the parameter's own (None), so the first argument is a name
    return typer.Option(old, hidden=True, callback=warn, help=f"Deprecated spelling of {new}.")


def one_of_repeatable(values: list[Any] | None, option: str, why: str) -> Any:
    """The one value of an option that is repeatable everywhere else (``--media-root``) where this command takes one
    (an importer reads an official set from one root): None when not given, an error naming ``why`` for several."""
    if values and len(values) > 1:
        raise ConfigError(f"{option} given {len(values)} times: {why}; give it once")
    return values[0] if values else None


def pick_alias(value: Any, old_value: Any, new: str, *, required: bool = False) -> Any:
    """The value given under the new spelling or its deprecated alias (not both)."""
    if old_value is not None and value is not None and old_value != value:
        raise ConfigError(f"give {new} once (its deprecated spelling was given too, with another value)")
    chosen = value if value is not None else old_value
    if required and chosen is None:
        raise ConfigError(f"missing option {new}")
    return chosen
