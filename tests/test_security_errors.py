"""Issue 44, item 12: hostile inputs that used to end in a traceback are one-line errors naming the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from niah.run import run_dataset_sync
from niah.scoring.score import score_run
from support.datasets import write_mm_niah_like
from support.processes import niah_env

HUGE = "9" * 4000  # under Python's 4300-digit parse limit, far over a float's range


def _niah(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah", *map(str, args)], capture_output=True, text=True,
                          env=niah_env(), cwd=cwd, timeout=300)


def _one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode not in (0, 1), proc.stderr  # 1 is Python's own exit on an uncaught exception
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and all(n in lines[0] for n in needles), proc.stderr


def test_a_toml_nested_100000_deep_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "deep.toml"
    config.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    _one_line_error(_niah("eval", "--config", config), "deep.toml", "nested too deeply")


def test_infinibench_v1_judged_with_a_4000_digit_score_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "judged"
    folder.mkdir()
    qa = {"Q": "q", "A": "a", "pred": "p"}
    (folder / "summarization.json").write_text(json.dumps({"m1_0": [{"score": 4}, qa]})[:-1]
                                               + f', "m2_0": [{{"score": {HUGE}}}, {json.dumps(qa)}]}}')
    _one_line_error(_niah("score", "--format", "infinibench-v1-judged", folder), "summarization.json", "m2_0.score")


def test_infinibench_v2_predictions_with_a_4000_digit_score_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "preds"
    folder.mkdir()
    (folder / "summarization.json").write_text(f'[{{"question": "q", "pred": "p", "gpt_score": {HUGE}}}]')
    _one_line_error(_niah("score", "--format", "infinibench-v2-predictions", folder, "--out", tmp_path / "o.json"),
                    "summarization.json", "gpt_score")


def test_report_out_dot_is_refused_before_any_work_or_written_into_an_empty_folder(tmp_path: Path) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    run = tmp_path / "run"
    run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    score_run(run)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    proc = _niah("report", run, "--out", ".", cwd=mine)
    _one_line_error(proc, "not written by niah report")
    assert "report:" not in proc.stderr  # refused before reading the inputs
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _niah("report", run, "--out", ".", cwd=empty)
    assert proc.returncode == 0, proc.stderr
    assert (empty / "index.html").is_file()
