"""How a haystack duration is written (``90s``, ``3m``, ``1h``): in sample ids, messages and the report's
columns. Light on purpose: the report imports it without the builder's image stack."""

from __future__ import annotations

from typing import Any


def duration_label(seconds: float) -> str:
    """Whole hours as ``1h``, whole minutes as ``3m``, anything else in seconds (``90s``, ``7.5s``)."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    return f"{seconds:g}s"


def duration_column(seconds: Any) -> str | None:
    """A report column's label for a scored row's ``duration_s`` (None: not a positive number of seconds)."""
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds > 0:
        return None
    return duration_label(float(seconds))
