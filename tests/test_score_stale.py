"""Scores never grade old answers against a rebuilt dataset, and a report never shows scores older than the
responses they grade (issue 21)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from niah.run import run_dataset_sync
from support.datasets import write_text_prompts
from support.processes import niah_env


def _niah(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, timeout=120,
                          env=niah_env())


def _rebuild_with_new_gold(ds: Path, lines_to_change: set[int]) -> None:
    """The dataset rebuilt in place: the same ids, other gold (and question) on the given 1-based lines."""
    samples = ds / "samples.jsonl"
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    for i in lines_to_change:
        rows[i - 1]["answer"] = "elm"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_rebuilt_dataset_is_reported_stale_per_sample_and_scored_as_missing(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(4)])
    run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False)
    _rebuild_with_new_gold(ds, {2, 4})
    done = _niah("score", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "STALE: 2 response(s)" in done.stderr
    assert f"{ds / 'samples.jsonl'}:2: sample 'retrieval-text/00001'" in done.stderr
    assert f"{ds / 'samples.jsonl'}:4: sample 'retrieval-text/00003'" in done.stderr
    scored = [json.loads(line) for line in (tmp_path / "run" / "scored.jsonl").read_text().splitlines()]
    assert [r["id"] for r in scored] == ["retrieval-text/00000", "retrieval-text/00002"]
    assert all(r["score"] == 1.0 for r in scored)  # the oracle's answers still match the unchanged samples
    status = json.loads((tmp_path / "run" / "scores.json").read_text())["run_status"]
    assert status["complete"] is False and status["stale"] == 2 and status["missing"] == 2
    stale = [json.loads(line)["id"] for line in (tmp_path / "run" / "stale.jsonl").read_text().splitlines()]
    assert stale == ["retrieval-text/00001", "retrieval-text/00003"]
    # asked again, the run is current and complete; the stale list goes away
    run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False)
    assert _niah("score", str(tmp_path / "run")).returncode == 0
    status = json.loads((tmp_path / "run" / "scores.json").read_text())["run_status"]
    assert status["complete"] is True and "stale" not in status and not (tmp_path / "run" / "stale.jsonl").exists()


def test_report_rescores_when_scored_jsonl_is_older_than_the_responses(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(6)])
    run_dir = tmp_path / "run"
    run_dataset_sync(ds, "baseline:oracle", run_dir, progress=False, limit=2)
    assert _niah("score", str(run_dir)).returncode == 0
    scored = run_dir / "scored.jsonl"
    os.utime(scored, ns=(scored.stat().st_mtime_ns - 10**9,) * 2)  # the run finishes after it was scored
    run_dataset_sync(ds, "baseline:oracle", run_dir, progress=False)
    done = _niah("report", str(run_dir), "--out", str(tmp_path / "report"), "--no-samples")
    assert done.returncode == 0, done.stderr
    assert "rescored" in done.stderr and "responses.jsonl changed" in done.stderr
    assert len(scored.read_text().splitlines()) == 6
    assert "INCOMPLETE RUN" not in (tmp_path / "report" / "tables.md").read_text()
