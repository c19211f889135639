"""Console helpers shared by the CLI verbs."""

from __future__ import annotations

from typing import Any


def wide_console(min_width: int = 130) -> Any:
    """A rich Console; when output is piped or captured (no terminal), wide enough that tables keep their
    labels instead of squeezing them into ellipses."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, min_width))
    return console
