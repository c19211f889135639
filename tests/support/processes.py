"""Killing a niah command mid-way (the kill -9 tests): run it as a real process, SIGKILL it once its output
file holds enough rows."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def niah_env() -> dict[str, str]:
    """The environment for a ``python -m niah.cli`` subprocess that imports this checkout's sources."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


def kill_when_lines(args: list[str], path: Path, lines: int, *, timeout_s: float = 60.0) -> None:
    """Run ``niah ARGS`` and SIGKILL it as soon as ``path`` holds at least ``lines`` lines; fails if the
    command ends first or the lines never come."""
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
