"""Ctrl-C (SIGINT) and SIGTERM, handled one way in every stage.

The command line installs :func:`handling_signals` for the whole invocation (library callers get it for the
length of :func:`run_async`). The first signal raises :class:`Interrupted`, a ``KeyboardInterrupt``, in the
main thread at once, so a long loop (validating samples, decoding media, tokenizing, scoring) stops at its
next Python step; ``with`` blocks and ``finally`` clauses remove what was half-written (every output is
written under a temporary name and renamed whole). The command line then prints one line naming what was
stopped and how to resume or redo it, and exits 128 + the signal's number (130, 143), as a shell reports it.

Two places cannot simply be interrupted:

- an event loop (:func:`run_async`): cutting the loop's own code mid-step could leave it unusable, so a signal
  that arrives while the loop or another task runs cancels the main task (as ``asyncio.run`` does for Ctrl-C),
  which cleans up (a run writes its run.json); one that arrives while the main task runs its own synchronous
  code (validating the dataset before a run) raises there at once;
- threads (a video's decoding pool): they call :func:`stop_requested` at each packet and end themselves.

A few steps must not be cut apart (creating a temporary file and noting its name for the clean-up, the two
renames that swap a finished folder in): inside :func:`deferred` a signal is noted and raised on leaving.

A signal that lands where Python ignores exceptions (a weakref callback or a ``__del__`` the garbage collector
runs in the middle of the command's code) would be lost there, and the command would go on to its end; it is
sent again (:func:`_on_unraisable`), to land in the command's own code.

A second signal within :data:`REPEAT_GRACE_S` of the first is not raised again, so that the first one's
cleanup (removing a temporary folder, writing run.json) is not itself cut short; a later one is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

#: Signals that stop niah; each exits with 128 + its number.
HANDLED = (signal.SIGINT, signal.SIGTERM)
#: How a stopped command that keeps its finished work tells the user to go on.
RESUME = "run the same command again to resume (nothing finished is done again)"
#: How a stopped command whose outputs are written whole tells the user to go on.
REDO = "run the same command again"
#: Seconds after a first signal in which a repeated one is ignored, letting the first one's cleanup finish.
REPEAT_GRACE_S = 3.0


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; what was finished is kept, what was half-written removed on the way out."""

    def __init__(self, signum: int) -> None:
        self.signum = signal.Signals(signum)
        super().__init__(self.signum.name)

    @property
    def exit_status(self) -> int:
        return exit_status(self.signum)


def exit_status(signum: int) -> int:
    """The status a command stopped by ``signum`` exits with, as a shell reports a killed command."""
    return 128 + int(signum)


@dataclass(slots=True)
class Stage:
    """What an invocation is doing, for the line it prints when stopped: ``what`` it was doing ("validating
    ds"), what is ``kept`` ("nothing was written"), and how to go on (``then``: "run the same command again")."""

    what: str
    kept: str | None = None
    then: str | None = None


@dataclass(slots=True)
class _State:
    received: signal.Signals | None = None
    received_at: float = 0.0
    main_task: asyncio.Task[Any] | None = None
    stopped_in: Stage | None = None
    deferring: int = 0  # depth of :func:`deferred` blocks
    held: signal.Signals | None = None  # a signal that arrived inside them, raised on leaving
    redeliver: bool = False  # the signal is being sent again: its stop was swallowed where it landed


_state = _State()


def received() -> signal.Signals | None:
    """The signal that stopped this invocation, or None."""
    return _state.received


def stop_requested() -> bool:
    """True once a signal arrived: what a thread's loop checks (threads are never interrupted from outside)."""
    return _state.received is not None


def check() -> None:
    """Raise :class:`Interrupted` if a signal arrived (for code that caught it, or runs in a thread)."""
    if _state.received is not None:
        raise Interrupted(_state.received)


def stopped_in() -> Stage | None:
    """The innermost :func:`stage` the signal stopped, or None."""
    return _state.stopped_in


def reset() -> None:
    """Forget a signal received (a library caller going on after handling an :class:`Interrupted`)."""
    _state.received, _state.stopped_in, _state.held = None, None, None


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold a signal that arrives inside until the block ends, then raise it: for steps that a stop must not
    cut apart, such as creating a temporary file and keeping its name where the clean-up finds it (a signal
    between the two would leave a file no one removes)."""
    _state.deferring += 1
    try:
        yield
    finally:
        _state.deferring -= 1
    if _state.deferring == 0 and _state.held is not None:
        signum, _state.held = _state.held, None
        raise Interrupted(signum)


@contextlib.contextmanager
def stage(what: str, *, kept: str | None = None, then: str | None = None) -> Iterator[Stage]:
    """Name what runs inside, for the line a stop prints; the caller may fill in ``kept`` as work is done."""
    current = Stage(what, kept, then)
    try:
        yield current
    finally:
        if _state.received is not None and _state.stopped_in is None:
            _state.stopped_in = current  # the innermost stage is left first


def _cancel(task: asyncio.Task[Any]) -> None:
    if not task.done():
        task.cancel()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    now = time.monotonic()
    if _state.redeliver:
        _state.redeliver = False
    elif _state.received is not None and now - _state.received_at < REPEAT_GRACE_S:
        return
    else:
        _state.received, _state.received_at = signal.Signals(signum), now
    task = _state.main_task
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None and task is not None and not task.done() and asyncio.current_task(loop) is not task:
        loop.call_soon_threadsafe(_cancel, task)  # the loop's own code is never cut mid-step
        return
    if _state.deferring:
        _state.held = signal.Signals(signum)
        return
    raise Interrupted(signum)


def _on_unraisable(unraisable: Any) -> None:
    """``sys.unraisablehook`` while signals are handled: an :class:`Interrupted` raised where exceptions are
    ignored (a weakref callback, a ``__del__``) is not printed but sent again, from a helper thread a moment
    later, so that it lands in the command's own code; anything else goes to the hook there was before."""
    exc = unraisable.exc_value
    if isinstance(exc, Interrupted):
        _state.redeliver = True
        # not raised from here: the handler would run inside this hook and be swallowed again
        resend = threading.Timer(0.01, os.kill, (os.getpid(), int(exc.signum)))
        resend.daemon = True
        resend.start()
        return
    _previous_unraisable(unraisable)


_previous_unraisable = sys.unraisablehook


@contextlib.contextmanager
def handling_signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` while inside (main thread only; a signal the parent set
    to be ignored, as a shell does for a background job's SIGINT, stays ignored). Re-entering is a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in HANDLED}
    # a handler set outside Python (None) could not be put back: left as it is, as an ignored signal is
    installed = [sig for sig, handler in previous.items() if handler not in (None, signal.SIG_IGN, _on_signal)]
    for sig in installed:
        signal.signal(sig, _on_signal)
    global _previous_unraisable
    hook = sys.unraisablehook
    if installed and hook is not _on_unraisable:  # entered again: the outer block's hook stays
        _previous_unraisable, sys.unraisablehook = hook, _on_unraisable
    try:
        yield
    finally:
        for sig in installed:
            signal.signal(sig, previous[sig])
        sys.unraisablehook = hook


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` under :func:`handling_signals`: a signal cancels ``coro``'s task (its cleanup
    runs) and then raises :class:`Interrupted`."""

    async def main() -> T:
        _state.main_task = asyncio.current_task()
        try:
            return await coro
        finally:
            _state.main_task = None

    with handling_signals():
        try:
            return asyncio.run(main())
        except asyncio.CancelledError:
            if _state.received is not None:
                raise Interrupted(_state.received) from None
            raise
