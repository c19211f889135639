"""The niah CLI run in-process (typer's CliRunner), for tests that drive whole commands."""

from __future__ import annotations

from typer.testing import CliRunner

from niah.cli import app

runner = CliRunner()


def invoke_ok(args: list[str]) -> str:
    """Run ``niah ARGS`` and return its output; fail the test (with the output and exception) unless it exits 0."""
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output + repr(res.exception)
    return res.output
