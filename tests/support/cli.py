"""The niah CLI run in-process (typer's CliRunner), for tests that drive whole commands."""

from __future__ import annotations

from typer.testing import CliRunner

from niah.cli import app

runner = CliRunner()


def invoke_ok(args: list[str], codes: tuple[int, ...] = (0,)) -> str:
    """Run ``niah ARGS`` and return its output; fail the test (with the output and exception) unless it exits
    with one of ``codes`` (0 alone by default)."""
    res = runner.invoke(app, args)
    assert res.exit_code in codes, res.output + repr(res.exception)
    return res.output
