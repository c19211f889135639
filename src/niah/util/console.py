"""Console helpers shared by the CLI verbs."""

from __future__ import annotations

from typing import Any


def wide_console(min_width: int = 130) -> Any:
    """A rich Console; when output is piped or captured (no terminal), wide enough that tables keep their
    labels instead of squeezing them into ellipses. Markup is off: what it prints holds dataset, model and
    path text, in which ``[/x]`` would raise and ``[name]`` vanish; styles are given as ``style=`` or
    :class:`rich.text.Text`."""
    from rich.console import Console

    console = Console(markup=False)
    if not console.is_terminal:
        console = Console(width=max(console.width, min_width), markup=False)
    return console


class progress_bar:
    """A rich progress bar (or nothing) for a loop of known length; yields an ``advance()`` callable."""

    def __init__(self, enabled: bool, total: int, label: str) -> None:
        self.enabled, self.total, self.label = enabled, total, label
        self._bar: Any = None

    def __enter__(self) -> Any:
        if not self.enabled:
            return lambda: None
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        # progress goes to stderr, like niah run's, so that stdout can be piped
        self._bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), TimeRemainingColumn(), transient=False,
                             console=Console(stderr=True))
        self._bar.__enter__()
        task = self._bar.add_task(self.label, total=self.total)
        bar = self._bar
        return lambda: bar.advance(task)

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)


def counter(label: str, done: int, total: int, unit: str = "") -> None:
    """A done/total counter on stderr: redrawn in place on a terminal; in a log (no terminal) one whole line
    per update, at most about twenty of them, so that a log never holds one huge carriage-return line."""
    import sys

    text = f"{label}: {done}/{total}{' ' + unit if unit else ''}"
    stream = sys.stderr
    if stream.isatty():
        print(f"\r{text}", end="\n" if done >= total else "", file=stream, flush=True)
        return
    step = max(1, total // 20)
    if done % step == 0 or done >= total:
        print(text, file=stream, flush=True)
