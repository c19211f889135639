"""run.json is rewritten while a run goes, so what a kill -9 leaves behind counts what was done and sent."""

from __future__ import annotations

import json
from typing import Any

import niah.run
from niah.run import RUN_JSON, run_dataset_sync
from support.datasets import write_text_prompts
from support.openai_server import OpenAIServer


def test_run_json_counts_follow_the_run_before_it_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(niah.run, "CHECKPOINT_INTERVAL_S", 0.0)  # rewrite after every row
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}." for i in range(6)])
    run_dir = tmp_path / "run"
    seen: list[dict[str, Any]] = []

    def responder(body: dict[str, Any]) -> str:
        # what run.json says at the moment each request reaches the server (one request in flight at a time)
        path = run_dir / RUN_JSON
        seen.append(json.loads(path.read_text())["counts"] if path.exists() else {})
        return "ok"

    with OpenAIServer(responder=responder) as server:
        summary = run_dataset_sync(ds, "openai:echo", run_dir, base_urls=[server.base_url], concurrency=1,
                                   progress=False)
    assert summary.answered == 6
    # request k (from 0) arrives after k rows were recorded, each followed by a checkpoint of run.json; the
    # run's own refresh (every interval, replies or not) may already count request k itself, logged as sent
    assert [c.get("answered", 0) for c in seen] == [0, 1, 2, 3, 4, 5]
    assert all(c.get("requests", 0) in (k, k + 1) for k, c in enumerate(seen)), seen
    final = json.loads((run_dir / RUN_JSON).read_text())
    assert final["complete"] is True and final["counts"]["requests"] == 6 and final["counts"]["answered"] == 6


def test_score_counts_every_logged_request_even_when_run_json_lags(tmp_path):
    from niah.run import REQUESTS_LOG
    from niah.scoring.score import score_run
    from support.datasets import write_mm_niah_like

    ds = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "counting-text"))
    run_dir = tmp_path / "run"
    with OpenAIServer() as server:
        run_dataset_sync(ds, "openai:echo", run_dir, base_urls=[server.base_url], progress=False)
    # what a kill -9 during a later invocation leaves: two more attempts logged, one line torn, run.json as before
    with (run_dir / REQUESTS_LOG).open("a") as fh:
        fh.write('{"id": "x", "at": "2026-12-02T00:00:00Z", "attempt": 1}\n{"id": "y", "at')
    assert json.loads((run_dir / RUN_JSON).read_text())["counts"]["requests"] == 2
    summary = score_run(run_dir)
    assert summary.run_status["requests"] == 4
    scores = json.loads((run_dir / "scores.json").read_text())
    assert scores["run_status"]["requests"] == 4


def test_resume_keeps_the_effective_generation_settings_of_every_task(tmp_path):
    # A resume that sends nothing (every sample answered before) must not wipe run.json's settings per task.
    from support.datasets import write_mm_niah_like

    ds = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "counting-text"))
    run_dir = tmp_path / "run"
    run_dataset_sync(ds, "baseline:oracle", run_dir, progress=False)
    first = json.loads((run_dir / RUN_JSON).read_text())["generation"]["by_task"]
    assert set(first) == {"retrieval-text", "counting-text"}
    summary = run_dataset_sync(ds, "baseline:oracle", run_dir, progress=False)
    assert summary.resumed == 2
    assert json.loads((run_dir / RUN_JSON).read_text())["generation"]["by_task"] == first
