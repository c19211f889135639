"""CLI verbs: each module exposes ``register(app)``; heavy imports stay inside the command functions."""

from __future__ import annotations


def split_csv(values: list[str] | None) -> list[str]:
    """Repeatable options that also accept comma-separated lists: ``--tasks a,b --tasks c`` -> [a, b, c]."""
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out
