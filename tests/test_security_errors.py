"""Issue 44, item 12: hostile inputs that used to end in a traceback are one-line errors naming the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    _one_line_error(_niah("score", "--format", "infinibench-v1-judged", folder), "summarization.json", "m2_0[0].score")


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


def test_an_official_response_file_with_a_4000_digit_length_names_the_field(tmp_path: Path) -> None:
    """Every reader of files from outside niah refuses an integer no float holds, naming the field (MM-NIAH's
    official scorer computed the bin of a 4000-digit context_length: OverflowError traceback)."""
    path = tmp_path / "model_retrieval-text-val.jsonl"
    row = {"question_id": 0, "question": "q", "answer": "a", "response": "a", "context_length": 5000,
           "placed_depth": [0.5]}
    for field in ("context_length", "placed_depth"):
        hostile = json.dumps(row).replace("5000" if field == "context_length" else "0.5", HUGE)
        path.write_text(hostile + "\n")
        where = "context_length" if field == "context_length" else "placed_depth[0]"
        _one_line_error(_niah("score", "--format", "mm-niah-official", path, "--out", tmp_path / "o.json"),
                        f"{path.name}:1, field '{where}'", "4000 digits")
    assert not (tmp_path / "o.json").exists()


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("where", ["official file", "import", "responses", "requests log"])
def test_a_fifo_where_niah_reads_is_refused_in_one_line_instead_of_blocking(tmp_path: Path, where: str) -> None:
    """A FIFO planted under the name of a file niah reads blocked the command forever (nothing ever writes to
    it); every input is opened without blocking and refused unless it is a regular file. The subprocess's
    timeout is the hang guard."""
    if where == "official file":
        proc = _niah("score", "--format", "mm-niah-official", _fifo(tmp_path / "model_retrieval-text-val.jsonl"),
                     "--out", tmp_path / "o.json")
        _one_line_error(proc, "model_retrieval-text-val.jsonl", "not a regular file")
    elif where == "import":
        proc = _niah("import", "seq-niah", _fifo(tmp_path / "NIAH_en.jsonl"), "--out", tmp_path / "ds")
        _one_line_error(proc, "NIAH_en.jsonl", "not a regular file")
    else:
        dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
        run = tmp_path / "run"
        run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
        name = "responses.jsonl" if where == "responses" else "requests.log"
        (run / name).unlink()
        _fifo(run / name)
        proc = (_niah("score", run) if where == "responses"
                else _niah("run", dataset, "--model", "baseline:oracle", "--out", run, "--no-progress"))
        _one_line_error(proc, name, "not a regular file")
