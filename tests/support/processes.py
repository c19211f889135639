"""Stopping a niah command mid-way: run it as a real process, SIGKILL it once its output file holds enough rows
(the kill -9 tests), or send it SIGINT / SIGTERM once it is inside a stage (the interruption tests)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def niah_env() -> dict[str, str]:
    """The environment for a ``python -m niah.cli`` subprocess that imports this checkout's sources."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


def kill_when_lines(args: list[str], path: Path, lines: int, *, timeout_s: float = 300.0) -> None:
    """Run ``niah ARGS`` and SIGKILL it as soon as ``path`` holds at least ``lines`` lines; fails if the
    command ends first or the lines never come (``timeout_s`` is a hang guard, not a measurement)."""
    proc = subprocess.Popen([sys.executable, "-m", "niah.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=niah_env())
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if path.exists() and len(path.read_bytes().splitlines()) >= lines:
                break
            assert proc.poll() is None, "the command ended before it could be killed"
            time.sleep(0.02)
        else:
            raise AssertionError(f"{path} did not reach {lines} lines in {timeout_s:.0f} s")
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def _ctrl_c_as_in_a_terminal() -> None:
    """A job a shell starts in the background (``pytest ... &``, a CI runner's step) inherits SIGINT ignored, and
    a command then never sees Ctrl-C; the child takes SIGINT as a terminal's foreground command does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_niah(args: list[str], *, env: dict[str, str] | None = None,
               cwd: str | Path | None = None) -> subprocess.Popen[str]:
    """``python -m niah ARGS`` as a real process, stdout and stderr piped, taking SIGINT as from a terminal."""
    return subprocess.Popen([sys.executable, "-m", "niah", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env or niah_env(), cwd=cwd, preexec_fn=_ctrl_c_as_in_a_terminal)


def wait_until(proc: subprocess.Popen[str], ready: Callable[[], bool], *, timeout_s: float = 300.0) -> float:
    """Wait until ``ready()`` holds while ``proc`` still runs; returns the seconds waited. Fails (with the
    command's stderr) if the command ends first; ``timeout_s`` is a hang guard, not a measurement."""
    started = time.monotonic()
    while not ready():
        if proc.poll() is not None:
            raise AssertionError(f"the command ended (status {proc.returncode}) before it could be stopped: "
                                 f"{proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() - started > timeout_s:
            proc.kill()
            raise AssertionError(f"the stage to stop was not reached in {timeout_s:.0f} s")
        time.sleep(0.05)
    return time.monotonic() - started


def holds_open(proc: subprocess.Popen[str], path: Path) -> bool:
    """Whether the process has ``path`` open (Linux /proc): it is reading that file now."""
    target = str(path.resolve())
    fds = Path(f"/proc/{proc.pid}/fd")
    try:
        return any(os.readlink(fd) == target for fd in fds.iterdir())
    except OSError:  # an fd closed while listed, or the process gone: ask again
        return False


def stop_with(proc: subprocess.Popen[str], sig: signal.Signals, *, timeout_s: float = 120.0) -> tuple[str, float]:
    """Send ``sig`` and wait for the command to end: (its stderr, seconds from the signal to its end). A command
    still running after ``timeout_s`` is killed and the test fails."""
    proc.send_signal(sig)
    return _ended(proc, sig, time.monotonic(), timeout_s)


def _ended(proc: subprocess.Popen[str], sig: signal.Signals, since: float, timeout_s: float) -> tuple[str, float]:
    """Wait for the signalled command to end: (its stderr, seconds from ``since``); killed, and the test failed,
    when it still runs after ``timeout_s``."""
    try:
        _, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"still running {timeout_s:.0f} s after {sig.name}") from None
    return err, time.monotonic() - since


def _stopped(pid: int) -> bool:
    """Whether the process is stopped by SIGSTOP (``T`` in /proc/PID/stat)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in ("T", "t")


def signal_while_frozen(proc: subprocess.Popen[str], sig: signal.Signals, inside: Callable[[], bool],
                        *, timeout_s: float = 120.0) -> tuple[str, float] | None:
    """Freeze ``proc`` (SIGSTOP) and, if ``inside()`` holds while it cannot move on, send ``sig`` and let it go
    on (SIGCONT): the signal arrives at a point the test saw, however short the stage is. Returns what
    :func:`stop_with` returns, the seconds counted from SIGCONT; None (the process let go, left to finish) when
    it had already left the stage, for the caller to try again with a new process. Linux /proc only."""
    proc.send_signal(signal.SIGSTOP)
    deadline = time.monotonic() + 30
    while not _stopped(proc.pid):
        assert proc.poll() is None and time.monotonic() < deadline, "the process did not stop on SIGSTOP"
        time.sleep(0.001)
    if not inside():
        proc.send_signal(signal.SIGCONT)
        return None
    proc.send_signal(sig)  # pending until the process runs again
    proc.send_signal(signal.SIGCONT)
    return _ended(proc, sig, time.monotonic(), timeout_s)
