"""Issue 44 item 8 for the verbs whose output is one file (`niah score --format ... --out`, `niah metric --out`,
`niah audit --out`, `niah judge-test seq-niah --out`, `niah export inspect --out`): a file niah did not write is
refused in one line naming it and left byte for byte as it was; niah's own earlier output is replaced; --overwrite
replaces the user's file when asked. Real files, the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.registry import families
from niah.cli import app
from support.cli import invoke_ok

runner = CliRunner()

#: A file of the user's own, valid JSON (and one JSON line): only its content says whose it is.
USERS = b'{"my": "notes", "score": 1}\n'


def _refused(path: Path, *args: object) -> None:
    """``niah ARGS`` refuses to replace ``path`` (the user's file) in one line naming it and leaves it as it was."""
    path.write_bytes(USERS)
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if line.strip()]
    assert len(error) == 1 and str(path) in error[0] and "--overwrite" in error[0], result.output
    assert path.read_bytes() == USERS


def _score_formats() -> list[str]:
    return sorted(fmt.name for family in families() if family.score_formats for fmt in family.score_formats())


@pytest.mark.parametrize("fmt", _score_formats())
def test_every_score_format_refuses_a_file_it_did_not_write(tmp_path: Path, fmt: str) -> None:
    # refused before any input is read: the inputs need not exist
    _refused(tmp_path / "notes.json", "score", "--format", fmt, tmp_path / "in", "--out", tmp_path / "notes.json")


def test_every_score_format_knows_its_own_file_from_another_formats(tmp_path: Path) -> None:
    """No format's recogniser reads the user's JSON, nor another format's scores, as its own."""
    formats = {fmt.name: fmt for family in families() if family.score_formats for fmt in family.score_formats()}
    users = tmp_path / "notes.json"
    users.write_bytes(USERS)
    assert not any(fmt.is_output(users) for fmt in formats.values())


def _metric_input(path: Path) -> Path:
    path.write_text(json.dumps({"answer": "oak", "response": "the oak"}) + "\n", encoding="utf-8")
    return path


def test_metric_replaces_only_its_own_output_unless_overwrite(tmp_path: Path) -> None:
    src = _metric_input(tmp_path / "in.jsonl")
    mine = tmp_path / "mine.jsonl"
    _refused(mine, "metric", "mm-niah/lenient", "--input", src, "--out", mine)
    out = tmp_path / "scored.jsonl"
    invoke_ok(["metric", "mm-niah/lenient", "--input", str(src), "--out", str(out)])
    first = out.read_bytes()
    src.write_text(json.dumps({"answer": "elm", "response": "the oak"}) + "\n", encoding="utf-8")
    invoke_ok(["metric", "mm-niah/lenient", "--input", str(src), "--out", str(out)])  # its own: replaced
    assert out.read_bytes() != first and json.loads(out.read_text())["answer"] == "elm"
    invoke_ok(["metric", "mm-niah/lenient", "--input", str(src), "--out", str(mine), "--overwrite"])
    assert json.loads(mine.read_text())["answer"] == "elm"


def test_the_input_file_is_never_read_as_the_metrics_own_output(tmp_path: Path) -> None:
    # a scored row carries a score (a number, or null with the refusal); an input row never does
    src = _metric_input(tmp_path / "in.jsonl")
    before = src.read_bytes()
    result = runner.invoke(app, ["metric", "mm-niah/lenient", "--input", str(src), "--out", str(src)])
    assert result.exit_code == 2 and f"--out {src} exists and is not a scored JSONL" in result.output
    assert src.read_bytes() == before


def test_judge_test_replaces_only_its_own_numbers_unless_overwrite(tmp_path: Path) -> None:
    mine = tmp_path / "mine.json"
    _refused(mine, "judge-test", "seq-niah", "--n", "1", "--out", mine)
    out = tmp_path / "numbers.json"
    for seed in ("1", "2"):  # the second replaces the first
        invoke_ok(["judge-test", "seq-niah", "--n", "1", "--seed", seed, "--out", str(out)])
    assert json.loads(out.read_text())["n"] == 1
    mine.write_bytes(USERS)
    invoke_ok(["judge-test", "seq-niah", "--n", "1", "--out", str(mine), "--overwrite"])
    assert "table4" in json.loads(mine.read_text())


def test_a_link_or_a_fifo_at_out_is_refused_even_with_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(USERS)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    src = _metric_input(tmp_path / "in.jsonl")
    result = runner.invoke(app, ["metric", "mm-niah/lenient", "--input", str(src), "--out", str(link), "--overwrite"])
    assert result.exit_code == 2 and "symbolic link" in result.output
    assert target.read_bytes() == USERS and link.is_symlink()
