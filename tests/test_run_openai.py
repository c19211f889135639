"""The runner against a real local OpenAI-compatible HTTP server (tests/support/openai_server.py):
image plumbing, keys, faults and retries, caching, resume after kill -9, replica pools, dry runs."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from niah.models.base import GenerationSettings
from niah.prompts.types import PromptOptions
from niah.run import RESPONSES_JSONL, RUN_JSON, RetryPolicy, run_dataset_sync
from niah.sample import Dataset
from niah.util.errors import ConfigError
from support.datasets import write_mm_niah_like, write_text_prompts
from support.openai_server import FaultPlan, HeldAfter, OpenAIServer

FAST_RETRY = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.05)
ROW_KEYS = {"id", "task", "response", "error", "usage", "latency_s", "cache_key", "model", "prompt_policy"}


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / RESPONSES_JSONL).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def mm_dataset(tmp_path_factory) -> Path:
    return write_mm_niah_like(tmp_path_factory.mktemp("mm") / "ds", per_task=2)


@pytest.fixture()
def server():
    with OpenAIServer() as srv:
        yield srv


def test_images_arrive_interleaved_in_official_order_as_data_urls(mm_dataset, server, tmp_path):
    summary = run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[server.base_url],
                               progress=False)
    assert summary.finished and summary.answered == 12 and summary.failed == 0
    ds = Dataset(mm_dataset)
    samples = {s.id: s for s in ds}
    rows = _rows(tmp_path / "run")
    assert [r["id"] for r in rows] == list(samples)  # one row per sample, dataset order
    for row in rows:
        assert set(row) >= ROW_KEYS
        sample = samples[row["id"]]
        echo = json.loads(row["response"])
        expected = [hashlib.sha256(ds.resolve_media(p).read_bytes()).hexdigest() for p in sample.all_media()]
        assert echo["images"] == expected, row["id"]
        assert echo["max_tokens"] == (32 if sample.task.startswith("counting") else 16)
        assert echo["temperature"] == 0.0
        assert f"[sample:{sample.id}]" in echo["text"]
        assert row["usage"]["prompt_tokens"] > 0  # the server reported usage: it is recorded
    retrieval_image = json.loads(next(r for r in rows if r["id"] == "retrieval-image/000")["response"])
    # each run of adjacent text parts arrives as one part (llama.cpp would join separate parts with a newline)
    assert retrieval_image["order"] == ["text", "image", "text", "image", "text", "image", "text", "image", "text",
                                        "image", "text", "image", "text"]
    assert retrieval_image["text"].endswith("\nA. \nB. \nC. \nD. \nAnswer with the option's letter from the "
                                            "given choices directly.")


def test_run_json_records_the_run_and_counts(mm_dataset, server, tmp_path):
    run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[server.base_url], progress=False,
                     generation=GenerationSettings(seed=3))
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["model"] == "openai:echo" and meta["benchmark"] == "mm-niah"
    assert meta["model_id"] == {"provider": "openai", "model": "echo"}
    assert meta["finished"] is not None and meta["counts"]["answered"] == 12
    assert meta["generation"]["by_task"]["counting-text"] == {"max_tokens": 32, "temperature": 0.0, "seed": 3}
    assert meta["dataset"] == str(mm_dataset)


def test_file_urls_and_resizing_change_only_the_transport(mm_dataset, tmp_path):
    def sizes(body):
        from PIL import Image

        out = []
        for part in body["messages"][-1]["content"]:
            if part.get("type") == "image_url":
                url = part["image_url"]["url"]
                assert url.startswith("data:image/png;base64,")
                import base64

                out.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size)
        return json.dumps(out)

    with OpenAIServer() as echo:
        run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "file", base_urls=[echo.base_url], progress=False,
                         model_options={"image_transport": "file"}, tasks=["retrieval-image"])
        first = echo.log[0].body["messages"][-1]["content"]
        assert any(p.get("image_url", {}).get("url", "").startswith("file://") for p in first)
    direct = {r["id"]: json.loads(r["response"])["images"] for r in _rows(tmp_path / "file")}
    ds = Dataset(mm_dataset)
    for sample in ds:
        if sample.id in direct:
            assert direct[sample.id] == [hashlib.sha256(ds.resolve_media(p).read_bytes()).hexdigest()
                                         for p in sample.all_media()]
    with OpenAIServer(responder=sizes) as sized:
        run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "resized", base_urls=[sized.base_url],
                         progress=False, model_options={"image_size": "448x448"}, tasks=["counting-image"])
    assert all(json.loads(r["response"]) == [[448, 448], [448, 448]] for r in _rows(tmp_path / "resized"))


def test_api_key_goes_in_the_header_and_never_into_any_file(mm_dataset, tmp_path, monkeypatch):
    secret = "sk-test-0123456789abcdef-SECRET"
    monkeypatch.setenv("NIAH_TEST_KEY", secret)
    with OpenAIServer(api_key=secret) as srv:
        summary = run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[srv.base_url],
                                   api_key_env="NIAH_TEST_KEY", progress=False, cache_dir=tmp_path / "shared")
        assert summary.answered == 12 and all(r.authorized for r in srv.log)
    for path in [*(tmp_path / "run").rglob("*"), *(tmp_path / "shared").rglob("*")]:
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["model_spec"]["api_key_env"] == "NIAH_TEST_KEY"
    monkeypatch.delenv("NIAH_TEST_KEY")
    with pytest.raises(ConfigError, match="NIAH_TEST_KEY"):
        run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run2", base_urls=["http://127.0.0.1:9/v1"],
                         api_key_env="NIAH_TEST_KEY", progress=False)


def test_wrong_key_is_a_permanent_failure_recorded_per_sample(mm_dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("NIAH_TEST_KEY", "wrong")
    with OpenAIServer(api_key="right") as srv:
        summary = run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[srv.base_url],
                                   api_key_env="NIAH_TEST_KEY", progress=False, retry=FAST_RETRY)
        assert len(srv.log) == 12  # 401 is not retried
    assert summary.failed == 12 and summary.finished
    assert all(r["error"].startswith("HTTP 401") and r["response"] is None for r in _rows(tmp_path / "run"))


def _healthy_reply_deadline(tmp_path: Path) -> float:
    """A client deadline no healthy reply misses on this machine as busy as it is now: 20 times the slowest
    reply of a reference run of the same kind (16 prompts, 8 in flight) against a server without faults, and
    at least 1.5 s (a quiet machine answers in milliseconds; a loaded one once took 0.3 s)."""
    ds = write_text_prompts(tmp_path / "reference-ds", [f"Reference prompt {i}. " * 5 for i in range(16)])
    with OpenAIServer() as srv:
        run_dataset_sync(ds, "openai:echo", tmp_path / "reference-run", base_urls=[srv.base_url], progress=False,
                         concurrency=8)
    return max(1.5, 20 * max(float(r["latency_s"]) for r in _rows(tmp_path / "reference-run")))


def test_injected_faults_are_retried_and_persistent_ones_recorded(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt number {i}. " * 5 for i in range(60)])
    # the client gives up at a deadline measured against a reference run, the stalled replies take 3.5 s more: a
    # healthy reply on a loaded machine is not taken for a timeout, and the stalls (3 of 60, concurrent) cost
    # about one deadline
    deadline = _healthy_reply_deadline(tmp_path)
    plan = FaultPlan(share={"429": 0.1, "500": 0.1, "503": 0.05, "timeout": 0.05, "garbage": 0.1,
                            "no_choices": 0.05}, fail_attempts=1, permanent=0.1, timeout_s=deadline + 3.5)
    with OpenAIServer(faults=plan) as srv:
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                   retry=FAST_RETRY, model_options={"timeout": deadline}, concurrency=8)
        log = list(srv.log)
    rows = _rows(tmp_path / "run")
    assert len(rows) == 60 and len({r["id"] for r in rows}) == 60  # nothing dropped
    by_marker: dict[str, list] = {}
    for entry in log:
        by_marker.setdefault(entry.marker, []).append(entry)
    permanent = {m for m, es in by_marker.items() if all(e.fault == "500" for e in es) and len(es) == 3}
    transient = {m for m, es in by_marker.items() if es[0].fault is not None and m not in permanent}
    assert permanent and transient
    failed = {r["id"] for r in rows if r["error"] is not None}
    assert failed == permanent
    assert summary.failed == len(permanent) and summary.answered == 60 - len(permanent)
    assert all("gave up after 3 attempts" in r["error"] for r in rows if r["error"])
    assert all(len(by_marker[m]) == 2 for m in transient)  # one failure, one success
    assert summary.retries == sum(len(es) - 1 for es in by_marker.values())
    kinds = {by_marker[m][0].fault for m in transient}
    assert kinds == {"429", "500", "503", "timeout", "garbage", "no_choices"}


def test_client_errors_are_not_retried(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}." for i in range(20)])
    with OpenAIServer(faults=FaultPlan(share={"400": 0.3}, fail_attempts=99)) as srv:
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                   retry=FAST_RETRY)
        counts = srv.requests_by_marker()
    failed = [r for r in _rows(tmp_path / "run") if r["error"]]
    assert failed and summary.failed == len(failed)
    assert all(r["error"].startswith("HTTP 400") and r["attempts"] == 1 for r in failed)
    assert all(counts[r["id"]] == 1 for r in failed)


def test_rerun_retries_only_failed_samples_and_keeps_one_row_each(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}." for i in range(30)])
    with OpenAIServer(faults=FaultPlan(permanent=0.3)) as srv:
        first = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                 retry=FAST_RETRY)
    assert first.failed > 0
    failed_ids = {r["id"] for r in _rows(tmp_path / "run") if r["error"]}
    with OpenAIServer() as healthy:
        second = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[healthy.base_url],
                                  progress=False, retry=FAST_RETRY)
        assert set(healthy.requests_by_marker()) == failed_ids
    assert second.failed == 0 and second.resumed == 30 - len(failed_ids)
    rows = _rows(tmp_path / "run")
    assert len(rows) == 30 and all(r["error"] is None for r in rows)
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["resumed"] is not None


def test_shared_cache_answers_a_new_run_without_requests(mm_dataset, server, tmp_path):
    run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "a", base_urls=[server.base_url], progress=False,
                     cache_dir=tmp_path / "shared")
    sent = len(server.log)
    summary = run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "b", base_urls=[server.base_url],
                               progress=False, cache_dir=tmp_path / "shared")
    assert len(server.log) == sent and summary.cached == 12 and summary.requests == 0
    a, b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    assert [r["response"] for r in a] == [r["response"] for r in b]
    assert all(r["cached"] for r in b) and [r["cache_key"] for r in a] == [r["cache_key"] for r in b]
    # other generation settings are other requests
    run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "c", base_urls=[server.base_url], progress=False,
                     cache_dir=tmp_path / "shared", generation=GenerationSettings(max_tokens=5))
    assert len(server.log) == sent + 12


def test_a_run_dir_refuses_a_different_configuration_unless_overwritten(mm_dataset, server, tmp_path):
    run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[server.base_url], progress=False,
                     tasks=["retrieval-text"])
    with pytest.raises(ConfigError, match="different"):
        run_dataset_sync(mm_dataset, "baseline:oracle", tmp_path / "run", progress=False)
    summary = run_dataset_sync(mm_dataset, "baseline:oracle", tmp_path / "run", progress=False, overwrite=True)
    assert summary.answered == 12 and len(_rows(tmp_path / "run")) == 12


def test_requests_go_to_the_replica_with_fewest_in_flight(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}." for i in range(24)])
    # the slow replica takes 20 times as long: the count holds while the machine's own cost per request (the
    # same on both) stays under about 0.9 s (with 0.3 s against 0.05 s it held only under 0.2 s)
    with OpenAIServer(delay_s=0.05) as fast, OpenAIServer(delay_s=1.0) as slow:
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[fast.base_url, slow.base_url],
                                   concurrency=2, progress=False)
        n_fast, n_slow = len(fast.log), len(slow.log)
    assert summary.answered == 24 and n_fast + n_slow == 24
    assert n_slow >= 2 and n_fast > 2 * n_slow  # the busy replica gets fewer requests
    endpoints = json.loads((tmp_path / "run" / RUN_JSON).read_text())["endpoints"]
    assert [(e["base_url"], e["sent"]) for e in endpoints] == [(fast.base_url, n_fast), (slow.base_url, n_slow)]


def test_capability_limits_skip_with_a_recorded_reason(mm_dataset, server, tmp_path):
    summary = run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[server.base_url],
                               progress=False, model_options={"max_images": 3})
    rows = {r["id"]: r for r in _rows(tmp_path / "run")}
    skipped = {i for i, r in rows.items() if r["status"] == "skipped"}
    assert skipped == {"retrieval-image/000", "retrieval-image/001"}  # 2 context + 4 option images
    assert rows["retrieval-image/000"]["prompt_policy"] == "skip: 6 images exceed the model's max_images=3"
    assert summary.skipped == 2 and "retrieval-image/000" not in server.requests_by_marker()


def test_dry_run_prints_prompts_and_calls_nothing(mm_dataset, server, tmp_path):
    out = io.StringIO()
    summary = run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[server.base_url],
                               dry_run=True, dry_run_stream=out, limit=3,
                               prompt_options=PromptOptions(question_first=True))
    lines = out.getvalue().splitlines()
    assert summary.total == 3 and not server.log and not (tmp_path / "run").exists()
    # one summary line per sample, never the haystack itself
    assert [line.split("\t")[0] for line in lines] == ["retrieval-text/000", "retrieval-text/001",
                                                       "counting-text/000"]
    assert all("tokens=" in line and "images=0" in line for line in lines) and '"max_tokens": 16' in lines[0]
    assert "The river" not in out.getvalue()
    full = io.StringIO()
    run_dataset_sync(mm_dataset, "openai:echo", tmp_path / "run", base_urls=[server.base_url], dry_run=True,
                     dry_run_stream=full, dry_run_full=True, limit=1, prompt_options=PromptOptions(question_first=True))
    assert "What is the secret ingredient of the soup? [sample:retrieval-text/000]\nThe river" in full.getvalue()


def test_cli_dry_run_and_run(mm_dataset, server, tmp_path):
    cmd = [sys.executable, "-m", "niah.cli", "run", str(mm_dataset), "--model", "openai:echo",
           "--base-url", server.base_url, "--out", str(tmp_path / "run"), "--no-progress"]
    dry = subprocess.run([*cmd, "--dry-run", "--limit", "2"], capture_output=True, text=True, timeout=300)
    assert dry.returncode == 0, dry.stderr
    assert len(dry.stdout.splitlines()) == 2 and "<image:" not in dry.stdout and not server.log
    done = subprocess.run([*cmd, "--tasks", "counting-image", "-O", "image_size=32", "--max-tokens", "9"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "2 answered, 0 failed" in done.stderr
    assert all(e.body["max_tokens"] == 9 for e in server.log)
    bad = subprocess.run([sys.executable, "-m", "niah.cli", "run", str(mm_dataset), "--model", "nope:x",
                          "--out", str(tmp_path / "x")], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown model provider" in bad.stderr


def test_kill_9_mid_run_then_rerun_repeats_no_finished_request(tmp_path):
    n = 40
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}. " * 20 for i in range(n)])
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "niah.cli", "run", str(ds), "--model", "openai:echo", "--out", str(run_dir),
           "--concurrency", "3", "--no-progress"]
    # the server answers 12 requests, then holds the rest until the kill: however slowly this test polls on a
    # busy machine, the run cannot finish before it is killed
    with HeldAfter(12) as twelve_then_held, OpenAIServer(delay_s=0.08, responder=twelve_then_held) as srv:
        proc = subprocess.Popen([*cmd, "--base-url", srv.base_url], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 300  # a hang guard: the loop ends as soon as 12 rows are in
        responses = run_dir / RESPONSES_JSONL
        while time.monotonic() < deadline:
            if responses.exists() and responses.read_bytes().count(b"\n") >= 12:
                break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        twelve_then_held.release()
        assert proc.returncode == -signal.SIGKILL
        finished_before = set()
        for line in responses.read_text().splitlines():
            with contextlib.suppress(json.JSONDecodeError):  # a line torn by the kill
                finished_before.add(json.loads(line)["id"])
        assert 12 <= len(finished_before) < n
        requests_first = srv.requests_by_marker()
        again = subprocess.run([*cmd, "--base-url", srv.base_url], capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        counts = srv.requests_by_marker()
        reached = len(srv.log)
    # run.json counts the killed invocation's requests too (requests.log is written before each is sent): at
    # least every request that reached the server, at most those plus the few logged as the kill came
    sent = json.loads((run_dir / RUN_JSON).read_text())["counts"]["requests"]
    assert reached <= sent <= reached + 3, (sent, reached)
    rows = _rows(run_dir)
    assert sorted(r["id"] for r in rows) == sorted(f"retrieval-text/{i:05d}" for i in range(n))
    assert all(r["error"] is None and r["response"] for r in rows)  # every sample answered, once
    assert all(counts[i] == 1 for i in finished_before)  # no finished request was sent again
    repeated = {i for i, c in counts.items() if c > 1}
    assert repeated <= set(requests_first) - finished_before  # only requests in flight at the kill
    assert len(repeated) <= 3 and sum(counts.values()) <= n + 3


def test_run_json_counts_are_refreshed_while_no_reply_comes_in(tmp_path, monkeypatch):
    """run.json's counts are rewritten every checkpoint interval while the run goes (docs/running.md), not only
    when a reply is recorded: a request the server holds shows in ``requests`` before any reply."""
    import threading

    import niah.run

    monkeypatch.setattr(niah.run, "CHECKPOINT_INTERVAL_S", 0.05)
    release = threading.Event()

    def held(body: dict) -> str:
        release.wait(60)  # a hang guard: the test releases it as soon as it has seen run.json
        return "ok"

    ds = write_text_prompts(tmp_path / "ds", ["Prompt 0. The oak is old."])
    run_dir = tmp_path / "run"
    with OpenAIServer(responder=held) as srv:
        worker = threading.Thread(target=run_dataset_sync, args=(ds, "openai:echo", run_dir),
                                  kwargs={"base_urls": [srv.base_url], "progress": False})
        worker.start()
        try:
            seen: dict = {}
            deadline = time.monotonic() + 300  # a hang guard, not a speed measurement
            while time.monotonic() < deadline:
                with contextlib.suppress(OSError, ValueError):
                    seen = json.loads((run_dir / RUN_JSON).read_text())
                if (seen.get("counts") or {}).get("requests") == 1:
                    break
                time.sleep(0.02)
            assert seen["counts"]["requests"] == 1 and seen["counts"]["answered"] == 0 and seen.get("updated")
            assert not (run_dir / RESPONSES_JSONL).exists() or not (run_dir / RESPONSES_JSONL).read_text()
        finally:
            release.set()
            worker.join(60)
    assert json.loads((run_dir / RUN_JSON).read_text())["counts"]["answered"] == 1
