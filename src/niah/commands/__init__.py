"""CLI verbs: each module exposes ``register(app)``; heavy imports stay inside the command functions."""

from __future__ import annotations

from pathlib import Path

from niah.errors import ConfigError


def split_csv(values: list[str] | None) -> list[str]:
    """Repeatable options that also accept comma-separated lists: ``--tasks a,b --tasks c`` -> [a, b, c]."""
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def check_out_dir(path: Path, option: str = "--out") -> None:
    """Refuse, before anything is written, an output folder option that names an existing file."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {path} is a file; {option} names a folder (created if missing, "
                          "or an existing folder)")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"{option} {path}: {parent} is a file, not a folder")
            break
