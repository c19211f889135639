"""Hostile judge servers and damaged verdict stores: the judge verbs (shared niah.scoring.judges / niah.scoring.verdicts) survive
any reply, end every item with a verdict or a recorded failure, honour --timeout as a whole-request deadline,
bound memory on huge replies, keep keys out of everything they write or print, and refuse a damaged
judgments.jsonl / judged.json with file:line instead of a traceback or silently wrong scores.

The judge server is a real HTTP server on 127.0.0.1 (tests/support/openai_server.py) with fault injection;
requests are counted at the server where reuse is claimed."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.scoring.verdicts import MAX_RAW_CHARS, PASSES_NAME, STORE_NAME, VerdictStore
from support.openai_server import FaultPlan, HeldAfter, OpenAIServer
from support.processes import kill_when_lines, niah_env, start_niah, stop_with, wait_until

runner = CliRunner()
CORRECT = '{"verdict": "correct", "failure_modes": [], "reason": "same items"}'
FAST = ("--retry-delay", "0.01")
ENV = niah_env()


def _cli(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output + repr(res.exception)
    return res.output


def _niah(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV)


def _store_rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / STORE_NAME).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def seq_ds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("judge-hardening")
    _cli("build", "seq-niah", "--out", str(root / "ds"), "--lengths", "8k-16k", "--per-cell", "1", "--lang", "en,zh",
         "--no-progress")
    return root


@pytest.fixture()
def run(seq_ds: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    _cli("run", str(seq_ds / "ds"), "--model", "baseline:oracle", "--out", str(out), "--no-progress")
    return out


def _judge(run: Path, srv: OpenAIServer, *extra: str) -> str:
    """A judge pass; it exits 3 exactly when some stored verdicts failed (and says how to ask them again)."""
    res = runner.invoke(app, ["judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                              *FAST, *extra])
    failed = re.search(r"\((\d+) unparsed;", res.output)
    assert failed is not None, res.output + repr(res.exception)
    if int(failed.group(1)):
        assert res.exit_code == 3 and "judge verdict(s) failed" in res.output and "--retry-failed" in res.output
    else:
        assert res.exit_code == 0, res.output + repr(res.exception)
    return res.output


# ------------------------------------------------------------------------------- transient faults, then success


def test_429_and_500_then_success_end_with_verdicts_and_are_not_asked_again(run: Path) -> None:
    plan = FaultPlan(share={"429": 0.3, "500": 0.3, "503": 0.2}, fail_attempts=2)
    with OpenAIServer(responder=lambda body: CORRECT, faults=plan) as srv:
        out = _judge(run, srv)
        faulted = {e.prompt_hash for e in srv.log if e.fault}
        assert faulted and len(srv.log) == 6 + 2 * len(faulted)
    assert "0 verdicts reused, 6 asked" in out
    assert [r["status"] for r in _store_rows(run)] == ["ok"] * 6
    assert json.loads((run / "scores.llm.json").read_text())["overall"] == 100.0
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        _judge(run, srv)
        assert len(srv.log) == 0


# ------------------------------------------------------------------------------- no reply ends a judge run


@pytest.mark.parametrize("kind", ["surrogate", "garbage", "no_choices", "400", "echo401", "huge"])
def test_no_reply_ends_a_judge_run(run: Path, kind: str) -> None:
    plan = FaultPlan(share={kind: 0.5}, fail_attempts=99, huge_bytes=9 * 1024 * 1024, by_order=True)
    with OpenAIServer(responder=lambda body: CORRECT, faults=plan) as srv:
        _judge(run, srv, "--max-attempts", "2")
        assert any(e.fault == kind for e in srv.log)
    rows = _store_rows(run)
    assert len(rows) == 6 and {r["status"] for r in rows} == {"ok", "failed"}
    assert all((r["score"] is None) == (r["status"] == "failed") for r in rows)
    assert all(r["error"] for r in rows if r["status"] == "failed")
    if kind == "surrogate":  # stored as a model's reply is: the lone surrogate replaced, not escaped
        raws = [r["raw"] for r in rows if r["raw"] and r["raw"].startswith("oak")]
        assert raws and set(raws) == {"oak \ufffd half"}
        assert not any("\ud800" in (r["raw"] or "") + (r["error"] or "") for r in rows)
    # scoring and reporting meet the stored data without dying
    _cli("score", str(run))
    _cli("report", str(run), "--out", str(run.parent / "report"))
    # judging again, the judge back: a call that got no reply is asked again on its own; a reply that did not
    # parse is the judge's answer and stays (until --retry-failed)
    unanswered = sum(r["status"] == "failed" and r["raw"] is None for r in rows)
    unparsed = sum(r["status"] == "failed" and r["raw"] is not None for r in rows)
    assert (unanswered > 0) == (kind != "surrogate")  # a body that is no reply at all vs. a reply text
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        _judge(run, srv)
        assert len(srv.log) == unanswered
    assert json.loads((run / "scores.llm.json").read_text())["judged"]["failed"] == unparsed


@pytest.mark.parametrize("reply", ["[" * 100_000, '{"verdict": ["correct"], "failure_modes": {}, "reason": 1}',
                                   "\x00\ud800" * 10, "null", "1e999999", "not a verdict " * 20_000])
def test_hostile_judge_reply_texts_become_recorded_failures(run: Path, reply: str) -> None:
    with OpenAIServer(responder=lambda body: reply) as srv:
        out = _judge(run, srv)
        assert len(srv.log) == 6 * 3  # three tries per item (the shared judge's re-asks), then a failure
    assert "judged 0 samples (6 unparsed" in out
    rows = _store_rows(run)
    assert all(r["status"] == "failed" and r["error"] for r in rows)
    assert all(len(r["raw"]) <= MAX_RAW_CHARS and "\x00" not in r["raw"] for r in rows)
    assert all(r.get("raw_truncated_from", 0) > MAX_RAW_CHARS for r in rows) == (len(reply) > MAX_RAW_CHARS)


# ------------------------------------------------------------------------------- deadlines and memory


@pytest.mark.parametrize("kind", ["timeout", "drip"])
def test_judge_timeout_is_a_whole_request_deadline(run: Path, kind: str) -> None:
    plan = FaultPlan(share={kind: 1.0}, fail_attempts=99, timeout_s=180.0, drip_s=1.2)
    with OpenAIServer(responder=lambda body: CORRECT, faults=plan) as srv:
        t0 = time.monotonic()
        out = _judge(run, srv, "--timeout", "1", "--max-attempts", "1", "--concurrency", "6")
        elapsed = time.monotonic() - t0
    # a hang guard with slack for a busy machine: each stall or drip would hold a request for 3 minutes
    assert elapsed < 90
    assert "6 unparsed" in out or "judged 0 samples" in out
    assert all("no complete reply within 1s" in r["error"] for r in _store_rows(run))


def _judge_peak_kib(run: Path, srv: OpenAIServer) -> int:
    code = ("import resource, runpy, sys; sys.argv = ['niah'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('niah.cli', run_name='__main__')\n"
            "finally:\n    print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, "judge", "seq-niah", str(run), "--judge", "openai:judge",
                           "--base-url", srv.base_url, "--max-attempts", "1", "--concurrency", "2"],
                          capture_output=True, text=True, timeout=300, env=ENV)
    # exit 3 when a verdict failed (a 100 MB reply is refused and stored as failed), 0 otherwise
    assert done.returncode in (0, 3) and (done.returncode == 3) == ("judge verdict(s) failed" in done.stderr), \
        done.stderr
    return int(done.stderr.rsplit("PEAK", 1)[1].split()[0])


def test_a_100_mb_judge_reply_keeps_memory_bounded(run: Path) -> None:
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        baseline_kib = _judge_peak_kib(run, srv)  # the same judge pass with ordinary replies
    (run / STORE_NAME).unlink()
    plan = FaultPlan(share={"huge": 1.0}, fail_attempts=99, huge_bytes=100 * 1024 * 1024)
    with OpenAIServer(responder=lambda body: CORRECT, faults=plan) as srv:
        peak_kib = _judge_peak_kib(run, srv)
        assert len(srv.log) == 6
    # two 100 MB replies in flight would add 200 MB of body alone; each is refused at max_reply_bytes (8 MiB)
    assert peak_kib - baseline_kib < 80 * 1024, (baseline_kib, peak_kib)
    assert all("larger than" in r["error"] for r in _store_rows(run))


# ------------------------------------------------------------------------------- kill -9, then rerun


def test_a_judge_run_killed_mid_way_asks_only_the_unfinished_items_again(run: Path) -> None:
    plan = FaultPlan(share={"500": 0.3}, fail_attempts=1)
    # two verdicts, then the server holds every request until the kill: the pass cannot end first on a busy machine
    with HeldAfter(2, lambda body: CORRECT) as two_then_held, \
            OpenAIServer(responder=two_then_held, faults=plan, delay_s=0.3) as srv:
        kill_when_lines(["judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                         "--concurrency", "2", *FAST], run / STORE_NAME, 2)
    # a torn line is possible only at the end; it counts as not judged
    done = len(VerdictStore(run).rows)
    assert 2 <= done < 6
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        out = _judge(run, srv)
        assert len(srv.log) == 6 - done and f"{done} verdicts reused, {6 - done} asked" in out
    assert len(VerdictStore(run).rows) == 6 and json.loads((run / "scores.llm.json").read_text())["n"] == 6


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_judge_keeps_the_stored_verdicts_and_says_how_to_resume(run: Path, sig: signal.Signals) -> None:
    """Issue 44, item 13: SIGTERM killed a judge pass without a word; now either signal stops it at once (the
    request in flight is dropped), exits 128 + the signal, says what is kept, and a rerun asks only the rest."""
    with OpenAIServer(responder=lambda body: CORRECT, delay_s=2.0) as srv:  # 6 items one by one: 12 s and more
        proc = start_niah(["judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                           "--concurrency", "1", *FAST], env=ENV)
        start_up = wait_until(proc, lambda: (run / STORE_NAME).is_file() and b"\n" in (run / STORE_NAME).read_bytes())
        err, stopping = stop_with(proc, sig)
    assert proc.returncode == 128 + sig, err
    assert stopping < 10 + 4 * start_up, (stopping, start_up)
    said = "terminated (SIGTERM)" if sig == signal.SIGTERM else "interrupted (Ctrl-C)"
    assert (f"{said} during niah judge seq-niah: the verdicts stored so far are kept; run the same command again "
            "to resume") in err, err
    done = len(VerdictStore(run).rows)
    assert 1 <= done < 6
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        out = _judge(run, srv)
        assert len(srv.log) == 6 - done and f"{done} verdicts reused, {6 - done} asked" in out


# ------------------------------------------------------------------------------- keys


def test_judge_keys_never_reach_a_file_or_a_message(run: Path) -> None:
    key = "sk-judge-VERYSECRET-0123456789abcdef"
    url_secret = "JUDGEURLPASSWORD-4242"
    plan = FaultPlan(share={"echo401": 0.5}, fail_attempts=99, by_order=True)
    with OpenAIServer(responder=lambda body: CORRECT, faults=plan) as srv:
        host = srv.base_url.removeprefix("http://")
        done = subprocess.run([sys.executable, "-m", "niah.cli", "judge", "seq-niah", str(run), "--judge",
                               "openai:judge", "--base-url", f"http://user:{url_secret}@{host}", "--api-key-env",
                               "NIAH_JUDGE_KEY", "--max-attempts", "1"], capture_output=True, text=True,
                              timeout=120, env={**ENV, "NIAH_JUDGE_KEY": key})
        assert done.returncode == 3, done.stderr  # some verdicts failed (the 401s): status 3, said on stderr
        assert any(e.fault == "echo401" for e in srv.log)
    assert any("401" in (r["error"] or "") for r in _store_rows(run))
    scored = _niah("score", str(run))
    reported = _niah("report", str(run), "--out", str(run.parent / "report"))
    assert scored.returncode == 0 and reported.returncode == 0, scored.stderr + reported.stderr
    written = "\n".join(p.read_bytes().decode("utf-8", "replace") for d in (run, run.parent / "report")
                        for p in d.rglob("*") if p.is_file())
    printed = "".join(p.stdout + p.stderr for p in (done, scored, reported))
    for secret in (key, url_secret):
        assert secret not in written and secret not in printed
    assert "***" in written


# ------------------------------------------------------------------------------- damaged verdict stores


@pytest.fixture(scope="module")
def judged_once(seq_ds: Path) -> Path:
    """The oracle's run with every verdict stored (a judge that answers correct): judged once for the module."""
    out = seq_ds / "judged"
    _cli("run", str(seq_ds / "ds"), "--model", "baseline:oracle", "--out", str(out), "--no-progress")
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        _judge(out, srv)
    return out


@pytest.fixture()
def judged(judged_once: Path, tmp_path: Path) -> Path:
    """A copy of :func:`judged_once` of the test's own to damage (the judge pass was the slow part of each)."""
    return Path(shutil.copytree(judged_once, tmp_path / "run"))


def _damage_line(run: Path, lineno: int, new: bytes) -> None:
    lines = (run / STORE_NAME).read_bytes().splitlines(keepends=True)
    lines[lineno - 1] = new + b"\n"
    (run / STORE_NAME).write_bytes(b"".join(lines))


def _row(run: Path, lineno: int, **changes: object) -> bytes:
    row = _store_rows(run)[lineno - 1]
    row.update(changes)
    return json.dumps(row).encode()


STORE_DAMAGE = {
    "invalid JSON": (lambda run: b'{"key": "abc", "score": ', "invalid JSON"),
    "invalid UTF-8": (lambda run: b'{"key": "\xff\xfe"}', "invalid"),
    "not an object": (lambda run: b"[1, 2]", "key"),
    "score a boolean": (lambda run: _row(run, 3, score=True), "score"),
    "score a string": (lambda run: _row(run, 3, score="1"), "score"),
    "score not finite": (lambda run: _row(run, 3, score=float("nan")), "score"),
    "raw not text": (lambda run: _row(run, 3, raw={"x": 1}), "raw"),
    "ok without a score": (lambda run: _row(run, 3, score=None, error=None), "score"),
}


@pytest.mark.parametrize("damage", sorted(STORE_DAMAGE))
def test_a_damaged_judgments_jsonl_is_refused_with_its_line(judged: Path, damage: str) -> None:
    run = judged
    make, field = STORE_DAMAGE[damage]
    _damage_line(run, 3, make(run))
    before = (run / "scores.llm.json").read_bytes()
    scored = _niah("score", str(run))
    assert scored.returncode == 2 and "Traceback" not in scored.stderr
    assert f"{STORE_NAME}:3" in scored.stderr and field in scored.stderr.split(f"{STORE_NAME}:3", 1)[1]
    assert (run / "scores.llm.json").read_bytes() == before  # no silently different scores
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        judged = _niah("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert judged.returncode == 2 and f"{STORE_NAME}:3" in judged.stderr and "Traceback" not in judged.stderr
        assert len(srv.log) == 0  # refused before any request


def test_a_torn_last_store_line_is_cut_and_only_that_item_asked_again(judged: Path) -> None:
    run = judged
    data = (run / STORE_NAME).read_bytes()
    (run / STORE_NAME).write_bytes(data[: data.rfind(b"\n", 0, len(data) - 1) + 1] + data[-1 - 40:-1 - 20])
    scored = _niah("score", str(run))
    assert scored.returncode == 0 and "NOT JUDGED: 1 seq-niah sample(s)" in scored.stdout + scored.stderr
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        _judge(run, srv)
        assert len(srv.log) == 1
    assert len(_store_rows(run)) == 6


PASSES_DAMAGE = {
    "invalid JSON": b'{"seq-niah": ',
    "invalid UTF-8": b'{"seq-niah": "\xff"}',
    "a list": b"[1]",
    "judges a list": b'{"seq-niah": {"judges": []}}',
    "fingerprint a number": b'{"seq-niah": {"judges": {"ordered": {"fingerprint": 7}}}}',
    "settings a list": b'{"seq-niah": {"judges": {}, "settings": [1]}}',
}


@pytest.mark.parametrize("damage", sorted(PASSES_DAMAGE))
def test_a_damaged_judged_json_is_refused_with_its_name(judged: Path, damage: str) -> None:
    run = judged
    (run / PASSES_NAME).write_bytes(PASSES_DAMAGE[damage])
    before = (run / "scores.llm.json").read_bytes()
    scored = _niah("score", str(run))
    assert scored.returncode == 2 and "Traceback" not in scored.stderr and PASSES_NAME in scored.stderr
    assert (run / "scores.llm.json").read_bytes() == before
    with OpenAIServer(responder=lambda body: CORRECT) as srv:
        judged = _niah("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert judged.returncode == 2 and PASSES_NAME in judged.stderr and "Traceback" not in judged.stderr
        assert len(srv.log) == 0


# ------------------------------------------------------------------------------- every judge verb, one transport


def _mmlongbench_run(root: Path) -> tuple[Path, list[str]]:
    from support.mmlongbench_fixtures import write_data_root

    write_data_root(root, lengths=(8,), datasets=("gov-report",))
    for args in (["import", "mmlongbench", "data", "--image-root", "images", "--out", "ds"],
                 ["run", "ds", "--model", "baseline:oracle", "--out", "run", "--no-progress", "--media-root", "images"]):
        done = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, cwd=root,
                              env=ENV, timeout=120)
        assert done.returncode == 0, done.stderr
    return root / "run", ["judge", "mmlongbench", str(root / "run")]


def _infinibench_run(root: Path) -> tuple[Path, list[str]]:
    from support.infinibench_fixtures import write_qa_files, write_videos

    write_videos(root / "videos")
    write_qa_files(root / "qa")
    _cli("import", "infinibench", str(root / "qa"), "--media-root", str(root / "videos"), "--out", str(root / "ds"))
    _cli("run", str(root / "ds"), "--model", "baseline:oracle", "--out", str(root / "run"), "--no-progress",
         "--media-root", str(root / "videos"), "--max-frames", "3")
    return root / "run", ["judge", "infinibench", str(root / "run"), "--protocol", "v2"]


@pytest.mark.parametrize("family", ["mmlongbench", "infinibench"])
def test_every_judge_verb_takes_the_deadline_and_retry_options(tmp_path: Path, family: str) -> None:
    run, verb = (_mmlongbench_run if family == "mmlongbench" else _infinibench_run)(tmp_path)
    plan = FaultPlan(share={"timeout": 1.0}, fail_attempts=99, timeout_s=180.0)
    with OpenAIServer(faults=plan) as srv:
        t0 = time.monotonic()
        res = runner.invoke(app, [*verb, "--judge", "openai:judge", "--base-url", srv.base_url, "--timeout", "1",
                                  "--max-attempts", "2", "--retry-delay", "0.01", "--concurrency", "16"])
        elapsed = time.monotonic() - t0
        # every verdict failed: each judge verb ends with status 3, saying how to ask them again
        assert res.exit_code == 3 and "--retry-failed` asks them again" in res.output, res.output
        asked = len(srv.log)
    rows = _store_rows(run)
    assert rows and asked == 2 * len(rows)  # --max-attempts 2, even where a protocol has its own (v2: 3)
    # a hang guard, not a speed measurement: every stall lasts 3 minutes, the deadline ends each at 1 s
    assert elapsed < 90 and rows and all("no complete reply within 1s" in r["error"] for r in rows)
