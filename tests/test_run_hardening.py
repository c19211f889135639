"""Hostile datasets and hostile servers: the runner reads nothing outside a dataset without the user's say,
refuses bad datasets before any request, reuses only answers to the exact request, survives any reply, keeps
keys out of everything it writes, bounds each request in time and memory, and keeps whole-run totals.

Servers are real HTTP servers on 127.0.0.1 (tests/support/openai_server.py) with fault injection."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from niah.run import RESPONSES_JSONL, RUN_JSON, RetryPolicy, run_dataset_sync
from niah.sample import DatasetInvalid, DatasetWriter, ImagePart, Sample, TextPart
from niah.util.errors import ConfigError
from support.datasets import png_bytes, write_mm_niah_like, write_text_prompts
from support.openai_server import FaultPlan, HeldAfter, OpenAIServer

FAST_RETRY = RetryPolicy(max_attempts=2, initial_delay=0.01, max_delay=0.02)


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / RESPONSES_JSONL).read_text().splitlines() if line.strip()]


def _everything_written(*dirs: Path) -> str:
    out = []
    for d in dirs:
        for path in d.rglob("*"):
            if path.is_file():
                out.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


# ------------------------------------------------------------------------------- 1. reads outside the dataset


def _dataset_with_image_part(root: Path, rel: str, manifest_extra: dict | None = None) -> Path:
    with DatasetWriter(root) as w:
        w.write(Sample("s/0", "mm-niah", "retrieval-image", [TextPart("Look: "), ImagePart(rel)],
                       [TextPart("What is shown?")], answer="x"))
        w.finish({"benchmark": "mm-niah", **(manifest_extra or {})})
    return root


@pytest.mark.parametrize("media_root, rel", [("/", "etc/passwd"), ("..", "secret.txt"), (None, "../secret.txt"),
                                             (None, "/etc/passwd")])
def test_a_dataset_cannot_make_the_runner_read_outside_it(tmp_path, media_root, rel):
    (tmp_path / "secret.txt").write_text("top secret")
    extra = {"media_root": media_root} if media_root is not None else {}
    ds = _dataset_with_image_part(tmp_path / "ds", rel, extra)
    with OpenAIServer() as srv:
        with pytest.raises(DatasetInvalid) as info:
            run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        assert not srv.log  # nothing was sent
    assert not (tmp_path / "run").exists()  # nothing was written
    message = str(info.value)
    assert ("--media-root" in message) or ("escapes the media root" in message)


def test_a_symlink_out_of_the_media_folder_is_refused(tmp_path):
    (tmp_path / "secret.png").write_bytes(png_bytes(1))
    ds = _dataset_with_image_part(tmp_path / "ds", "media/link.png")
    (ds / "media" / "link.png").symlink_to(tmp_path / "secret.png")
    with pytest.raises(DatasetInvalid, match=r"samples.jsonl:1: media\[0\]: .*escapes"):
        run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False)


def test_media_must_be_what_they_claim(tmp_path):
    ds = _dataset_with_image_part(tmp_path / "ds", "media/id_rsa.png")
    (ds / "media" / "id_rsa.png").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n")
    with pytest.raises(DatasetInvalid, match=r"samples.jsonl:1: media\[0\]: 'media/id_rsa.png': not a decodable "
                                             r"image"):
        run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False)
    # a truncated PNG is refused too
    (ds / "media" / "id_rsa.png").write_bytes(png_bytes(2, (64, 64))[:120])
    with pytest.raises(DatasetInvalid, match="not a decodable image"):
        run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False)


def test_an_outside_media_root_is_read_only_when_the_user_allows_it(tmp_path):
    images = tmp_path / "official-images"
    images.mkdir()
    (images / "a.png").write_bytes(png_bytes(3))
    ds = _dataset_with_image_part(tmp_path / "ds", "a.png", {"media_root": str(images)})
    with pytest.raises(DatasetInvalid, match=f"pass --media-root {images}"):
        run_dataset_sync(ds, "baseline:random", tmp_path / "run", progress=False)
    summary = run_dataset_sync(ds, "baseline:random", tmp_path / "run", progress=False, media_roots=(images,))
    assert summary.finished and summary.answered == 1


# ------------------------------------------------------------------------------- 2. request-exact resume


def test_a_rebuilt_dataset_is_asked_again_not_scored_with_old_answers(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i} [sample:t/{i}]" for i in range(6)])
    with OpenAIServer() as srv:
        first = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        assert first.answered == 6 and len(srv.log) == 6
        # rebuilt in place: same ids, three prompts changed
        write_text_prompts(tmp_path / "ds", [f"Prompt {i}{' (new)' if i % 2 else ''} [sample:t/{i}]"
                                             for i in range(6)])
        second = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        assert second.changed == 3 and second.resumed == 3 and len(srv.log) == 9
    rows = {r["id"]: r for r in _rows(tmp_path / "run")}
    for i in range(6):
        assert json.loads(rows[f"retrieval-text/{i:05d}"]["response"])["text"].startswith(f"Prompt {i}{' (new)' if i % 2 else ''}")


def test_capabilities_changed_between_runs_ask_the_skipped_samples(tmp_path):
    ds = write_mm_niah_like(tmp_path / "ds", per_task=1)
    with OpenAIServer() as srv:
        text_only = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                     model_options={"vision": False})
        assert text_only.skipped == 3 and text_only.answered == 3
        vision = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        assert vision.changed == 3 and vision.skipped == 0 and vision.answered == 6
    assert all(r["status"] == "ok" for r in _rows(tmp_path / "run"))
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["counts"]["skipped"] == 0


def test_another_model_after_run_json_was_deleted_does_not_keep_old_rows(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(4)])
    with OpenAIServer() as srv:
        run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        (tmp_path / "run" / RUN_JSON).unlink()
        other = run_dataset_sync(ds, "openai:other-model", tmp_path / "run", base_urls=[srv.base_url],
                                 progress=False)
        assert other.changed == 4 and other.resumed == 0 and len(srv.log) == 8
    assert {json.loads(r["response"])["model"] for r in _rows(tmp_path / "run")} == {"other-model"}


# ------------------------------------------------------------------------------- 3. no reply ends a run


@pytest.mark.parametrize("kind", ["surrogate", "garbage", "no_choices"])
def test_no_reply_ends_the_run(tmp_path, kind):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i} [sample:t/{i}]" for i in range(12)])
    plan = FaultPlan(share={kind: 0.5}, fail_attempts=99)
    with OpenAIServer(faults=plan) as srv:
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                   retry=FAST_RETRY, concurrency=4)
        assert summary.finished and summary.answered + summary.failed == 12
        rows = _rows(tmp_path / "run")
        assert len(rows) == 12 and all((r["response"] is None) != (r["error"] is None) for r in rows)
        if kind == "surrogate":
            odd = [r for r in rows if r["response"] and r["response"].startswith("oak")]
            assert odd and all(r["response"] == "oak \ufffd half" for r in odd) and summary.failed == 0
        # and a rerun meets the same replies without dying
        again = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                 retry=FAST_RETRY)
        assert again.finished


# ------------------------------------------------------------------------------- 4. bad input before any work


def _good_line(i: int) -> dict:
    return {"id": f"t/{i}", "benchmark": "mm-niah", "task": "retrieval-text", "context": [{"type": "text",
            "text": f"Context {i}."}], "question": [{"type": "text", "text": "Q?"}], "answer": "a",
            "meta": {"depth": [0.5], "context_length": 10}}


BROKEN = {
    "invalid JSON": (lambda i: b'{"id": "t/29", "benchmark": ', "invalid JSON"),
    "invalid UTF-8": (lambda i: b'{"id": "t/\xff"}', "invalid UTF-8"),
    "missing field": (lambda i: json.dumps({k: v for k, v in _good_line(i).items() if k != "question"}).encode(),
                      "question: missing"),
    "wrong type": (lambda i: json.dumps({**_good_line(i), "task": 7}).encode(), "task: "),
    "duplicate id": (lambda i: json.dumps({**_good_line(i), "id": "t/3"}).encode(), "id: duplicate"),
    "escaping media": (lambda i: json.dumps({**_good_line(i), "context": [{"type": "image", "path":
                                                                           "../../x.png"}]}).encode(),
                       "media[0]: "),
    "depth not a number": (lambda i: json.dumps({**_good_line(i), "meta": {"depth": "deep"}}).encode(),
                           "meta.depth: "),
    "lone surrogate": (lambda i: json.dumps({**_good_line(i), "answer": "\ud800"}).encode(), "surrogate"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_bad_line_30_of_40_is_refused_before_any_request(tmp_path, kind):
    make, expected = BROKEN[kind]
    ds = tmp_path / "ds"
    ds.mkdir()
    lines = [json.dumps(_good_line(i)).encode() for i in range(40)]
    lines[29] = make(29)
    (ds / "samples.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (ds / "manifest.json").write_text(json.dumps({"benchmark": "mm-niah", "num_samples": 40}))
    with OpenAIServer() as srv:
        with pytest.raises(DatasetInvalid) as info:
            run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        assert not srv.log
    assert not (tmp_path / "run").exists()
    assert "samples.jsonl:30: " in str(info.value) and expected in str(info.value)


def test_manifest_problems_are_named(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", ["a", "b"])
    manifest = json.loads((ds / "manifest.json").read_text())
    (ds / "manifest.json").write_text(json.dumps({**manifest, "num_samples": 5}))
    with pytest.raises(DatasetInvalid, match=r"manifest.json: num_samples: says 5 but samples.jsonl holds 2"):
        run_dataset_sync(ds, "baseline:random", tmp_path / "run", progress=False)
    (ds / "manifest.json").write_text("[1, 2]")
    from niah.util.errors import DataError

    with pytest.raises(DataError, match="manifest.json: must be a JSON object"):
        run_dataset_sync(ds, "baseline:random", tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_cli_reports_every_problem_with_file_and_line(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    lines = [json.dumps(_good_line(i)) for i in range(5)]
    lines[1] = "not json"
    lines[3] = json.dumps({**_good_line(3), "meta": {"context_length": -4}})
    (ds / "samples.jsonl").write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "niah.cli", "run", str(ds), "--model", "baseline:random",
                          "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2
    assert "samples.jsonl:2: invalid JSON" in out.stderr
    assert "samples.jsonl:4: meta.context_length: must be a non-negative integer" in out.stderr
    assert not (tmp_path / "run").exists()


def test_a_model_that_cannot_load_leaves_no_run_dir(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", ["a"])
    with pytest.raises(ConfigError):
        run_dataset_sync(ds, "hf:/does/not/exist", tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------- 5. keys never written


def test_keys_echoed_by_a_gateway_or_written_into_a_url_never_reach_a_file(tmp_path, monkeypatch):
    key = "sk-test-VERYSECRET-0123456789abcdef"
    url_secret = "URLPASSWORD-987654"
    monkeypatch.setenv("NIAH_TEST_KEY", key)
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(6)])
    with OpenAIServer(faults=FaultPlan(share={"echo401": 0.5}, fail_attempts=99)) as srv:
        host = srv.base_url.removeprefix("http://")
        cmd = [sys.executable, "-m", "niah.cli", "run", str(ds), "--model", "openai:echo", "--api-key-env",
               "NIAH_TEST_KEY", "--base-url", f"http://user:{url_secret}@{host}", "--out", str(tmp_path / "run"),
               "--no-progress", "--max-attempts", "1"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ})
        assert done.returncode == 3, done.stderr  # some requests failed (401): exit 3, reasons on stderr
        assert "failed: HTTP 401 x" in done.stderr
        assert any(e.fault == "echo401" for e in srv.log)
    rows = _rows(tmp_path / "run")
    assert any(r["error"] and "HTTP 401" in r["error"] for r in rows)
    subprocess.run([sys.executable, "-m", "niah.cli", "score", str(tmp_path / "run")], capture_output=True,
                   timeout=120, check=True)
    subprocess.run([sys.executable, "-m", "niah.cli", "report", str(tmp_path / "run"), "--out",
                    str(tmp_path / "report")], capture_output=True, timeout=120, check=True)
    written = _everything_written(tmp_path / "run", tmp_path / "report")
    assert key not in written and url_secret not in written
    assert key not in done.stderr + done.stdout and url_secret not in done.stderr + done.stdout
    assert "***" in written  # the echoed header was masked, not dropped silently


def test_a_bad_url_error_does_not_print_its_credentials(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", ["a"])
    out = subprocess.run([sys.executable, "-m", "niah.cli", "run", str(ds), "--model", "openai:x", "--base-url",
                          "ftp://me:PASSWORD-XYZ-123@host/v1", "--out", str(tmp_path / "run")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "PASSWORD-XYZ-123" not in out.stderr and "must start with http" in out.stderr


# ------------------------------------------------------------------------------- 6. deadlines and reply size


def test_timeout_is_a_deadline_for_the_whole_request(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", ["drip me"])
    with OpenAIServer(faults=FaultPlan(share={"drip": 1.0}, fail_attempts=99, drip_s=1.2)) as srv:
        t0 = time.monotonic()
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                   model_options={"timeout": 1.0}, retry=RetryPolicy(max_attempts=1))
        elapsed = time.monotonic() - t0
    # a hang guard, not a speed measurement: the drip takes about 3 minutes in all, the deadline ends it at 1 s
    assert summary.failed == 1 and elapsed < 90
    assert "no complete reply within 1s" in _rows(tmp_path / "run")[0]["error"]


def test_a_huge_reply_is_capped_and_recorded(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i} [sample:t/{i}]" for i in range(8)])
    plan = FaultPlan(share={"huge": 0.4}, fail_attempts=99, huge_bytes=3 * 1024 * 1024)
    with OpenAIServer(faults=plan) as srv:
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False,
                                   model_options={"max_reply_bytes": 1024 * 1024}, retry=FAST_RETRY)
    rows = _rows(tmp_path / "run")
    huge = [r for r in rows if r["error"] and "larger than 1048576 bytes" in r["error"]]
    assert summary.finished and huge and summary.failed == len(huge) and summary.answered == 8 - len(huge)
    assert all(r["attempts"] == 1 for r in huge)  # a reply too large is not asked again and again


def test_a_long_response_is_stored_truncated_with_the_fact_recorded(tmp_path):
    from niah.run import record as run_module  # the record stage stores responses

    ds = write_text_prompts(tmp_path / "ds", ["x" * 500])
    with OpenAIServer() as srv:
        old = run_module.MAX_RESPONSE_CHARS
        run_module.MAX_RESPONSE_CHARS = 100
        try:
            run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
        finally:
            run_module.MAX_RESPONSE_CHARS = old
    row = _rows(tmp_path / "run")[0]
    assert len(row["response"]) == 100 and row["truncated_from"] > 500


# ------------------------------------------------------------------------------- 7. partial runs, totals, SIGTERM


def test_run_json_totals_cover_every_invocation(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(10)])
    with OpenAIServer() as srv:
        run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False, limit=4)
        partial = json.loads((tmp_path / "run" / RUN_JSON).read_text())
        assert partial["counts"]["answered"] == 4
        (tmp_path / "run" / ".run.json.stale123.tmp").write_text("{")
        run_dataset_sync(ds, "openai:echo", tmp_path / "run", base_urls=[srv.base_url], progress=False)
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    rows = _rows(tmp_path / "run")
    assert meta["counts"]["answered"] == 10 and meta["counts"]["missing"] == 0 and meta["complete"] is True
    assert meta["counts"]["prompt_tokens"] == sum(r["usage"]["prompt_tokens"] for r in rows)
    assert meta["counts"]["requests"] == 10 and meta["last_invocation"]["requests"] == 6
    assert not list((tmp_path / "run").glob(".run.json.*.tmp"))


def test_sigterm_keeps_what_is_done_and_writes_counts(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(40)])
    run_dir = tmp_path / "run"
    # five replies, then the server holds every request until the signal: the run cannot finish first on a busy
    # machine
    with HeldAfter(5) as five_then_held, OpenAIServer(delay_s=0.1, responder=five_then_held) as srv:
        cmd = [sys.executable, "-m", "niah.cli", "run", str(ds), "--model", "openai:echo", "--base-url",
               srv.base_url, "--out", str(run_dir), "--no-progress", "--concurrency", "2"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300  # a hang guard
        while time.monotonic() < deadline:
            if (run_dir / RESPONSES_JSONL).exists() and len(_rows(run_dir)) >= 5:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        five_then_held.release()
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 143 and "terminated (SIGTERM) while running" in err, err
        meta = json.loads((run_dir / RUN_JSON).read_text())
        assert meta["interrupted"] == "SIGTERM" and meta["complete"] is False
        assert meta["counts"]["answered"] >= 5 and meta["counts"]["missing"] > 0
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    meta = json.loads((run_dir / RUN_JSON).read_text())
    assert meta["complete"] is True and meta["counts"]["answered"] == 40


def test_score_refuses_only_the_sample_the_official_rule_cannot_score(tmp_path):
    """An empty gold count list makes the official MM-NIAH scorer divide by zero: that sample is refused with its
    file:line, the others are scored, and the run is marked incomplete."""
    from niah.scoring.score import score_run

    ds = tmp_path / "ds"
    with DatasetWriter(ds) as w:
        for i in range(4):
            w.write(Sample(f"counting-text/{i}", "mm-niah", "counting-text", [TextPart(f"Context {i}.")],
                           [TextPart("How many?")], answer=[] if i == 2 else [1, 2],
                           meta={"context_length": 1500, "depth": [0.5]}))
        w.finish({"benchmark": "mm-niah"})
    run_dataset_sync(ds, "baseline:random", tmp_path / "run", progress=False)
    summary = score_run(tmp_path / "run")
    assert summary.scored == 3 and len(summary.refused) == 1
    assert summary.refused[0].startswith(f"{ds / 'samples.jsonl'}:3: answer: sample 'counting-text/2'")
    scored = [json.loads(line) for line in (tmp_path / "run" / "scored.jsonl").read_text().splitlines()]
    assert [r["id"] for r in scored] == ["counting-text/0", "counting-text/1", "counting-text/3"]
    refused = [json.loads(line) for line in (tmp_path / "run" / "refused.jsonl").read_text().splitlines()]
    assert len(refused) == 1 and refused[0]["line"] == 3 and refused[0]["refused"].startswith("answer: empty")
    status = json.loads((tmp_path / "run" / "scores.json").read_text())["run_status"]
    assert status["refused"] == 1 and status["complete"] is False
    out = subprocess.run([sys.executable, "-m", "niah.cli", "score", str(tmp_path / "run")], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0 and "REFUSED: 1 sample" in out.stderr and "samples.jsonl:3: answer" in out.stderr
    report = subprocess.run([sys.executable, "-m", "niah.cli", "report", str(tmp_path / "run"), "--out",
                             str(tmp_path / "report")], capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr


def test_url_passwords_in_both_forms_and_query_secrets_never_reach_a_file(tmp_path):
    """Issue 21: a percent-encoded password is masked decoded too (a gateway echoes the decoded Basic
    credentials), and a key in the base URL's query string is masked in run.json, error rows and messages."""
    password, query_key = "p%40ss%21WORD-5531", "QUERYKEY-778812"
    decoded = "p@ss!WORD-5531"
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(3)])
    with OpenAIServer(faults=FaultPlan(share={"echo401": 1.0}, fail_attempts=99)) as srv:
        host = srv.base_url.removeprefix("http://")
        base = f"http://user:{password}@{host}?api_key={query_key}&api-version=2024-06-01"
        cmd = [sys.executable, "-m", "niah.cli", "run", str(ds), "--model", "openai:echo", "--base-url", base,
               "--out", str(tmp_path / "run"), "--no-progress", "--max-attempts", "1"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 3, done.stderr  # every request failed (401): exit 3, the reason on stderr
        assert "3 failed: HTTP 401 x 3" in done.stderr
        echoed = [json.dumps(e.path) for e in srv.log]
    assert len(echoed) == 3 and all(query_key in p for p in echoed)  # the server did see (and echo) them
    rows = _rows(tmp_path / "run")
    assert all(r["error"] and "HTTP 401" in r["error"] for r in rows)
    written = _everything_written(tmp_path / "run") + done.stdout + done.stderr
    for secret in (password, decoded, query_key, "WORD-5531"):
        assert secret not in written, secret
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["model_spec"]["base_urls"] == [f"http://***@{host}?api_key=***&api-version=***"]  # every value


def test_a_base_url_query_goes_after_the_request_path(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", ["a", "b"])
    with OpenAIServer() as srv:
        summary = run_dataset_sync(ds, "openai:echo", tmp_path / "run", progress=False,
                                   base_urls=[srv.base_url + "?api-version=2024-06-01&key=QK-99887766"])
        paths = [e.path for e in srv.log]
    assert summary.answered == 2
    assert paths == ["/v1/chat/completions?api-version=2024-06-01&key=QK-99887766"] * 2
    assert "QK-99887766" not in _everything_written(tmp_path / "run")


def test_a_url_password_is_masked_decoded_and_encoded_and_query_secrets_too():
    from niah.util.redact import redact, redact_url, register_url_secrets

    url = "http://user:p%40ss%21ZQ-4410@host/v1?token=TOK-5566778&api-version=2024"
    register_url_secrets(url)
    echoed = "got user:p@ss!ZQ-4410 and p%40ss%21ZQ-4410 and Basic dXNlcjpwQHNzIVpRLTQ0MTA= at /v1?token=TOK-5566778"
    masked = redact(echoed)
    assert "ZQ-4410" not in masked and "TOK-5566778" not in masked and "dXNlcjpwQHNzIVpRLTQ0MTA" not in masked
    assert redact("see http://h/x?a=1&access_token=abcdef123&b=2") == "see http://h/x?a=1&access_token=***&b=2"
    assert redact_url(url) == "http://***@host/v1?token=***&api-version=***"  # every query value of a base URL


def test_a_truncated_image_is_refused_even_when_another_library_lets_pil_load_them(tmp_path, monkeypatch):
    from PIL import ImageFile

    from niah.sample import media_problem

    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)  # what importing lmms-eval does
    path = tmp_path / "cut.png"
    path.write_bytes(png_bytes(2, (64, 64))[:120])
    assert "not a decodable image" in (media_problem(path, "image") or "")
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True  # the other library's setting is left as it was


def test_a_run_inside_its_dataset_folder_is_refused(tmp_path: Path) -> None:
    """The next build into a dataset folder replaces it whole: a run written there would go with it."""
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1)
    for out in (dataset, dataset / "runs" / "r1"):
        with pytest.raises(ConfigError, match="is the dataset .* or lies inside it"):
            run_dataset_sync(dataset, "baseline:oracle", out, progress=False)
    assert not (dataset / RUN_JSON).exists() and not (dataset / "runs").exists()


def test_a_limit_of_no_samples_is_refused(tmp_path: Path) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1)
    with pytest.raises(ConfigError, match="--limit must be at least 1 sample, not 0"):
        run_dataset_sync(dataset, "baseline:oracle", tmp_path / "run", limit=0, progress=False)
    assert not (tmp_path / "run").exists()
