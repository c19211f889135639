"""Reading report tables in tests: the values without their 95% intervals."""

from __future__ import annotations

import re

_INTERVAL = re.compile(r" \[\d+(?:\.\d+)?-\d+(?:\.\d+)?\]")


def without_intervals(text: str) -> str:
    """``text`` with every `` [low-high]`` interval after a table value left off (the values stay)."""
    return _INTERVAL.sub("", text)
