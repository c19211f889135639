"""Sequential-NIAH report columns: the paper's four length bins for data on them (every one, even an empty one),
one column per built bin for data on other bins (a ``--lengths 2k-4k,4k-8k`` build for a small-context model)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from niah.benchmarks.seq_niah.report import SPEC, length_axis
from niah.cli import app
from support.tables import without_intervals

runner = CliRunner()


def _cli(*args: str) -> None:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output + repr(res.exception)


def test_length_columns_are_the_official_grid_unless_the_data_is_off_it() -> None:
    axis = length_axis("Input length (tokens)")
    official = ("8k-16k", "16k-32k", "32k-64k", "64k-128k")
    assert axis.resolved(["8k-16k"]).labels == official       # on the grid: all four, the empty ones too
    assert axis.resolved([]).labels == official               # no value (a scores file): the grid
    assert axis.resolved(["4k-8k", "2k-4k"]).labels == ("2k-4k", "4k-8k")   # ordered by length, not by first seen
    mixed = axis.resolved(["16k-32k", "2k-4k"])
    assert mixed.labels == ("2k-4k", "16k-32k") and mixed.bin_of("16k-32k") == 1 and mixed.bin_of("8k-16k") is None
    assert SPEC.columns.across_inputs


def test_a_small_grid_build_reports_one_column_per_built_bin(tmp_path: Path) -> None:
    _cli("build", "seq-niah", "--out", str(tmp_path / "ds"), "--lengths", "2k-4k,4k-8k", "--per-cell", "1",
         "--lang", "en", "--needles", "3-5", "--no-progress")
    _cli("run", str(tmp_path / "ds"), "--model", "baseline:oracle", "--out", str(tmp_path / "run"), "--no-progress")
    _cli("score", str(tmp_path / "run"))
    rows = [json.loads(line) for line in (tmp_path / "run" / "scored.jsonl").read_text().splitlines()]
    assert sorted(r["length_bin"] for r in rows) == ["2k-4k", "4k-8k"]  # one sample per bin
    _cli("report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--no-samples")
    table = without_intervals((tmp_path / "rep" / "tables" / "seq_niah_synthetic_temporal.md").read_text())
    assert "| Model | 2K-4K | 4K-8K | Overall |" in table
    assert "| baseline:oracle | 100.0 | 100.0 | 100.0 |" in table
    md = without_intervals((tmp_path / "rep" / "tables.md").read_text())
    assert "| baseline:oracle | 100.0 | 100.0 | 100.0 |" in md   # the overall table too
    assert "| *Gemini-1.5* | - | - | 63.5 |" in md               # the paper's overall-only rows fit the columns
    assert (tmp_path / "rep" / "assets" / "heatmaps" / "1-baseline-oracle" / "synthetic-temporal.png").is_file()
