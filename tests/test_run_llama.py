"""The runner against a real llama.cpp server: xllamacpp serving a tiny random-weight GGUF written by the
test itself (tests/support/tiny_gguf.py) on 127.0.0.1. Replies are gibberish; what is checked is the path:
chat requests, greedy settings, usage, errors from a real server, and the declared-capability policy."""

from __future__ import annotations

import json

import pytest

from niah.run import RESPONSES_JSONL, RUN_JSON, RetryPolicy, run_dataset_sync
from support.datasets import write_mm_niah_like, write_text_prompts

FAST_RETRY = RetryPolicy(max_attempts=2, initial_delay=0.01, max_delay=0.02)


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    from support.llama_server import LlamaServer

    server = LlamaServer(tmp_path_factory.mktemp("gguf"), n_parallel=4)
    server.start()
    yield server
    server.stop()


def _rows(run_dir):
    return [json.loads(line) for line in (run_dir / RESPONSES_JSONL).read_text().splitlines()]


def test_text_samples_get_real_completions_with_usage(llama, tmp_path):
    prompts = [("The secret ingredient is oak. " + "The river flows past the mill. " * (5 + i)) for i in range(8)]
    ds = write_text_prompts(tmp_path / "ds", prompts)
    summary = run_dataset_sync(ds, "openai:tiny", tmp_path / "run", base_urls=[llama.base_url], concurrency=4,
                               progress=False)
    assert summary.answered == 8 and summary.failed == 0
    rows = _rows(tmp_path / "run")
    for row in rows:
        assert isinstance(row["response"], str)
        usage = row["usage"]
        assert usage["prompt_tokens"] > 20 and 1 <= usage["completion_tokens"] <= 16  # official max 16
        assert "prompt_tokens_details" not in usage  # only integer counts are kept
    assert summary.prompt_tokens == sum(r["usage"]["prompt_tokens"] for r in rows)
    longer = [r["usage"]["prompt_tokens"] for r in rows]
    assert longer == sorted(longer)  # longer prompts, more prompt tokens: the server tokenized our text
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["counts"]["completion_tokens"] == sum(r["usage"]["completion_tokens"] for r in rows)


def test_images_sent_to_a_server_without_vision_fail_visibly_or_skip_when_declared(llama, tmp_path):
    ds = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "counting-image"))
    summary = run_dataset_sync(ds, "openai:tiny", tmp_path / "sent", base_urls=[llama.base_url], progress=False,
                               retry=FAST_RETRY)
    rows = {r["id"]: r for r in _rows(tmp_path / "sent")}
    assert rows["retrieval-text/000"]["error"] is None
    failed = rows["counting-image/000"]
    assert failed["response"] is None and "image input is not supported" in failed["error"]
    assert failed["attempts"] == 2 and summary.failed == 1  # a 500 is retried, then recorded
    declared = run_dataset_sync(ds, "openai:tiny", tmp_path / "declared", base_urls=[llama.base_url],
                                progress=False, model_options={"vision": False})
    rows = {r["id"]: r for r in _rows(tmp_path / "declared")}
    assert rows["counting-image/000"]["status"] == "skipped"
    assert rows["counting-image/000"]["prompt_policy"] == "skip: 2 images but the model takes no images"
    assert declared.skipped == 1 and declared.answered == 1 and declared.requests == 1
