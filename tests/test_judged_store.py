"""Judge verdicts are run data (niah.scoring.verdicts): every judge verb stores them in RUN/judgments.jsonl and reuses
them, ``niah score RUN`` applies the last pass's verdicts again (``--no-judged`` leaves them out), a changed
response or a killed judge run is handled, failed verdicts are kept until ``--retry-failed``. One pass per
family with a judge verb (MMLongBench, InfiniBench, Sequential-NIAH), against a local judge server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.scoring.verdicts import STORE_NAME, VerdictStore
from support.infinibench_fixtures import judge_reply, write_qa_files, write_videos
from support.mmlongbench_fixtures import write_data_root
from support.openai_server import HeldAfter, OpenAIServer
from support.processes import kill_when_lines

runner = CliRunner()


def _cli(*args: str, code: int = 0) -> str:
    """A CLI call and its output; ``code`` 3 for a judge pass that stores failed verdicts."""
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, res.output + repr(res.exception)
    return res.output


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _official(path: Path) -> dict:
    """The family's official structure in a scores file (the shared layout keeps it under ``official``)."""
    return _read(path)["official"]


def _edit_response(run: Path, sample_id: str, text: str) -> None:
    rows = [json.loads(line) for line in (run / "responses.jsonl").read_text().splitlines()]
    assert any(r["id"] == sample_id for r in rows)
    for row in rows:
        if row["id"] == sample_id:
            row["response"] = text
    (run / "responses.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


# --------------------------------------------------------------------------------------------- seq-niah


def _seq_responder(body: dict) -> str:
    user = body["messages"][-1]["content"]
    gold = user.split("must contain):\n", 1)[1].split("\n\nRules:", 1)[0].strip()
    response = user.split("\n<response-to-check>\n", 1)[1].split("\n</response-to-check>", 1)[0].strip()
    if "UNPARSEABLE" in response:
        return "no JSON here; my key is sk-ABCDEFGHIJKLMNOPQRST123"
    if gold == response:
        return '{"verdict": "correct", "failure_modes": [], "reason": "same items"}'
    return '{"verdict": "incorrect", "failure_modes": ["other"], "reason": "different"}'


@pytest.fixture(scope="module")
def seq_ds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("judged-seq")
    _cli("build", "seq-niah", "--out", str(root / "ds"), "--lengths", "8k-16k", "--per-cell", "1", "--lang", "en,zh",
         "--no-progress")
    return root


def _seq_run(root: Path, name: str, model: str = "baseline:oracle") -> Path:
    _cli("run", str(root / "ds"), "--model", model, "--out", str(root / name), "--no-progress", "--overwrite")
    return root / name


def test_seq_niah_judge_then_score_reproduces_and_reuses(seq_ds: Path) -> None:
    run = _seq_run(seq_ds, "oracle")
    _cli("score", str(run))
    with OpenAIServer(responder=_seq_responder) as srv:
        out = _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 6 and "0 verdicts reused, 6 asked" in out
    judged_llm = _read(run / "scores.llm.json")
    judged_rows = (run / "scored.jsonl").read_text()
    assert judged_llm["overall"] == 100.0 and judged_llm["n"] == 6
    # scoring again keeps the judge's results (it used to drop them)
    out = _cli("score", str(run))
    assert "seq-niah: applied 6 stored judge verdicts (0 failed)" in out
    assert _read(run / "scores.llm.json") == judged_llm
    assert (run / "scored.jsonl").read_text() == judged_rows
    assert all(json.loads(line)["scores"]["llm"] == 1.0 for line in judged_rows.splitlines())
    # judging again asks nothing
    with OpenAIServer(responder=_seq_responder) as srv:
        out = _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 0 and "6 verdicts reused, 0 asked" in out
    assert _read(run / "scores.llm.json") == judged_llm
    # --no-judged: the judge-less numbers, no stale scores.llm.json
    _cli("score", str(run), "--no-judged")
    assert not (run / "scores.llm.json").exists()
    assert all("llm" not in json.loads(line)["scores"] for line in (run / "scored.jsonl").read_text().splitlines())
    _cli("score", str(run))
    assert _read(run / "scores.llm.json") == judged_llm


def test_seq_niah_changed_response_is_judged_again(seq_ds: Path) -> None:
    run = _seq_run(seq_ds, "changing")
    with OpenAIServer(responder=_seq_responder) as srv:
        _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 6
    sample_id = json.loads((run / "responses.jsonl").read_text().splitlines()[0])["id"]
    _edit_response(run, sample_id, "1. something else entirely")
    res = runner.invoke(app, ["score", str(run)])
    assert res.exit_code == 0 and "NOT JUDGED: 1 seq-niah sample(s)" in res.output
    assert _read(run / "scores.llm.json")["n"] == 5  # the old verdict never covers the new response
    with OpenAIServer(responder=_seq_responder) as srv:
        _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 1
    assert _read(run / "scores.llm.json")["n"] == 6 and _read(run / "scores.llm.json")["overall"] < 100.0
    # a rerun with another model: every response changed, every sample judged again
    _seq_run(seq_ds, "changing", "baseline:random")
    with OpenAIServer(responder=_seq_responder) as srv:
        _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 6
    # and the judge's prompt is part of its identity: another judge model is asked again too
    with OpenAIServer(responder=_seq_responder) as srv:
        _cli("judge", "seq-niah", str(run), "--judge", "openai:other-judge", "--base-url", srv.base_url)
        assert len(srv.log) == 6


def test_seq_niah_failed_verdicts_are_kept_until_retry(seq_ds: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _seq_run(seq_ds, "failing")
    sample_id = json.loads((run / "responses.jsonl").read_text().splitlines()[0])["id"]
    _edit_response(run, sample_id, "UNPARSEABLE")
    monkeypatch.setenv("JUDGE_TEST_KEY", "judge-secret-4711")
    with OpenAIServer(responder=_seq_responder, api_key="judge-secret-4711") as srv:
        out = _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                   "--api-key-env", "JUDGE_TEST_KEY", code=3)
        assert len(srv.log) == 6 + 2  # the shared judge re-asks a reply that does not parse, 3 tries in all
    assert "judged 5 samples (1 unparsed" in out
    written = "".join(p.read_text() for p in run.iterdir() if p.is_file())
    assert "judge-secret-4711" not in written and "sk-ABCDEFGHIJKLMNOPQRST123" not in written
    assert "sk-***" in (run / STORE_NAME).read_text()  # the failed reply is stored, redacted
    assert _read(run / "scores.llm.json")["n"] == 5 and _read(run / "scores.llm.json")["judged"]["failed"] == 1
    with OpenAIServer(responder=_seq_responder) as srv:
        # reused, the failed verdict still stands: status 3 again, until --retry-failed asks it
        out = _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url, code=3)
        assert len(srv.log) == 0 and "1 of them failed (pass --retry-failed" in out
    with OpenAIServer(responder=lambda body: '{"verdict": "incorrect", "failure_modes": ["other"], '
                      '"reason": "r"}') as srv:
        _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url, "--retry-failed")
        assert len(srv.log) == 1
    assert _read(run / "scores.llm.json")["n"] == 6


def test_seq_niah_killed_judge_run_resumes(seq_ds: Path) -> None:
    run = _seq_run(seq_ds, "killed")
    # two verdicts, then the server holds every request until the kill: the pass cannot end first on a busy machine
    with HeldAfter(2, _seq_responder) as two_then_held, OpenAIServer(responder=two_then_held, delay_s=0.4) as srv:
        kill_when_lines(["judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                         "--concurrency", "1"], run / STORE_NAME, 2)
    done = len(VerdictStore(run).rows)
    assert 2 <= done < 6
    with OpenAIServer(responder=_seq_responder) as srv:
        out = _cli("judge", "seq-niah", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 6 - done and f"{done} verdicts reused" in out
    assert _read(run / "scores.llm.json")["n"] == 6


# ------------------------------------------------------------------------------------------ mmlongbench


def _summ_responder(body: dict) -> str:
    user = body["messages"][-1]["content"]
    if "fluency" in user:
        return 'no json' if "UNPARSEABLE" in user else 'Fluent enough. {"fluency": 1}'
    if "Key points:" in user:
        return 'One of two is there. {"recall": 1}'
    return 'Half supported. {"precision": 1, "sentence_count": 2}'


def _niah(cwd: Path, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, cwd=cwd,
                          check=False)
    assert proc.returncode == 0, proc.stderr


def test_mmlongbench_judge_then_score_reproduces_and_reuses(tmp_path: Path) -> None:
    write_data_root(tmp_path, lengths=(8,), datasets=("gov-report", "multi-lexsum"))
    _niah(tmp_path, "import", "mmlongbench", "data", "--image-root", "images", "--out", "ds")
    _niah(tmp_path, "run", "ds", "--model", "baseline:oracle", "--out", "oracle", "--no-progress", "--media-root", "images")
    run = tmp_path / "oracle"
    _cli("score", str(run))
    unjudged = _official(run / "scores.json")
    assert unjudged["needs_judge"] == ["gov-report", "multi-lexsum"]
    with OpenAIServer(responder=_summ_responder) as srv:
        out = _cli("judge", "mmlongbench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        asked = len(srv.log)
    summaries = len((run / "responses.jsonl").read_text().splitlines())
    assert asked == 3 * summaries and f'"asked": {asked}' in out
    judged = _official(run / "scores.json")
    rows = (run / "scored.jsonl").read_text()
    assert judged["datasets"]["gov-report"]["8K"] == pytest.approx(50.0) and judged["needs_judge"] == []
    assert judged["judge_failures"] == {} and _read(run / "scores.json")["judged"]["verdicts"] == asked
    out = _cli("score", str(run))
    assert f"mmlongbench: applied {asked} stored judge verdicts" in out
    assert _official(run / "scores.json") == judged and (run / "scored.jsonl").read_text() == rows
    with OpenAIServer(responder=_summ_responder) as srv:
        _cli("judge", "mmlongbench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 0
    assert _official(run / "scores.json") == judged
    _cli("score", str(run), "--no-judged")
    assert _official(run / "scores.json")["needs_judge"] == ["gov-report", "multi-lexsum"]
    # a changed summary is judged again (three requests), and a failed fluency verdict is excluded and counted
    sample_id = json.loads((run / "responses.jsonl").read_text().splitlines()[0])["id"]
    _edit_response(run, sample_id, "UNPARSEABLE summary.")
    res = runner.invoke(app, ["score", str(run)])
    assert "NOT JUDGED: 1 mmlongbench sample(s)" in res.output
    with OpenAIServer(responder=_summ_responder) as srv:
        _cli("judge", "mmlongbench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url, code=3)
        assert len(srv.log) == 3
    failed = _official(run / "scores.json")
    assert sum(failed["judge_failures"].values()) == 1 and _read(run / "scores.json")["judged"]["failed"] == 1
    _cli("score", str(run))
    assert _official(run / "scores.json") == failed
    with OpenAIServer(responder=_summ_responder) as srv:
        _cli("judge", "mmlongbench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url, code=3)
        assert len(srv.log) == 0  # the failed verdict is kept (and the pass still ends with status 3) ...
        _cli("judge", "mmlongbench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
             "--retry-failed", code=3)
        assert len(srv.log) == 1  # ... until asked again (this judge still cannot read that summary)
    # a rerun with another model: every summary judged again
    _niah(tmp_path, "run", "ds", "--model", "baseline:random", "--out", "oracle", "--no-progress", "--overwrite",
          "--media-root", "images")
    with OpenAIServer(responder=_summ_responder) as srv:
        _cli("judge", "mmlongbench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url)
        assert len(srv.log) == 3 * summaries


# ------------------------------------------------------------------------------------------ infinibench




def test_infinibench_judge_then_score_reproduces_and_reuses(tmp_path: Path) -> None:
    write_videos(tmp_path / "videos")
    write_qa_files(tmp_path / "qa")
    _cli("import", "infinibench", str(tmp_path / "qa"), "--media-root", str(tmp_path / "videos"), "--out",
         str(tmp_path / "ds"))
    run = tmp_path / "run"

    def run_model(model: str) -> None:
        _cli("run", str(tmp_path / "ds"), "--model", model, "--out", str(run), "--no-progress", "--media-root",
             str(tmp_path / "videos"), "--max-frames", "3", "--overwrite")

    def judge(protocol: str, *extra: str) -> int:
        with OpenAIServer(responder=judge_reply) as srv:
            _cli("judge", "infinibench", str(run), "--judge", "openai:judge", "--base-url", srv.base_url,
                 "--protocol", protocol, *extra)
            return len(srv.log)

    run_model("baseline:oracle")
    _cli("score", str(run))
    assert _official(run / "scores.json")["protocol"] == "rules"
    assert judge("v1") == 4
    v1 = _official(run / "scores.json")
    v1_rows = (run / "scored.jsonl").read_text()
    assert v1["protocol"] == "v1" and v1["overall"]["score"] == 5.0 and v1["undecided"] == {"mcq": 0, "open": 0}
    out = _cli("score", str(run))
    assert "infinibench: applied 4 stored judge verdicts (0 failed)" in out
    assert _official(run / "scores.json") == v1 and (run / "scored.jsonl").read_text() == v1_rows
    assert judge("v1") == 0
    assert judge("v2") == 4  # another protocol is another judge (prompt, parser, settings)
    v2 = _official(run / "scores.json")
    assert v2["protocol"] == "v2" and v2["overall"]["score"] == 10.0
    _cli("score", str(run))
    assert _official(run / "scores.json") == v2  # the last pass is the one applied
    assert judge("v1") == 0 and _official(run / "scores.json") == v1  # both passes stay stored
    _cli("score", str(run), "--no-judged")
    assert _official(run / "scores.json")["protocol"] == "rules"
    # an MCQ reply the rules cannot decide goes to the v1 judge; only that one is asked
    _edit_response(run, "global_appearance/00000", "A or B")
    assert judge("v1") == 1
    assert _official(run / "scores.json")["decided_by"]["judge"] == 5
    # another model's replies: every open-ended reply judged again
    run_model("baseline:random")
    assert judge("v1") == 4
    assert _official(run / "scores.json")["overall"]["score"] == 1.0
