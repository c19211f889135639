"""`niah import responses`: inspect_ai and lmms-eval per-sample logs become niah runs that score exactly as a niah
run of the same replies does, and bad logs give one line naming file, line and field."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.interop.replay import NOT_IN_LOG, import_responses
from niah.models.baselines import format_gold
from niah.run import RESPONSES_JSONL, RUN_JSON, run_dataset_sync
from niah.sample import Dataset
from niah.scoring.score import score_run
from niah.util.errors import DataError
from support.datasets import write_mm_niah_like
from support.harness_logs import (
    inspect_sample,
    sample_keys,
    write_inspect_eval,
    write_inspect_json,
    write_lmms_eval,
)
from support.openai_server import MARKER, OpenAIServer


def _reply_for(index: int, answer: object) -> str:
    """Right, wrong and wrapped replies in turn, so the scores are neither all 0 nor all 100."""
    gold = format_gold(answer)
    return (gold, "I cannot tell.", f"The answer is {gold}.")[index % 3] + " \u00e9"[: index % 2 * 2]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A dataset, the replies, and a niah run (through the OpenAI stand-in server) that got those replies."""
    root = tmp_path_factory.mktemp("harness")
    dataset = write_mm_niah_like(root / "ds", per_task=2, filler_repeats=20)  # ~2k tokens: scored bins
    samples = list(Dataset(dataset))
    replies = {s.id: _reply_for(i, s.answer) for i, s in enumerate(samples)}

    def responder(body: dict) -> str:
        return replies[MARKER.search(json.dumps(body)).group(1)]

    with OpenAIServer(responder=responder) as server:
        run_dataset_sync(dataset, "openai:stand-in", root / "ref", base_urls=[server.base_url], progress=False)
    score_run(root / "ref")
    overall = [v for v in json.loads((root / "ref" / "scores.json").read_text())["official"]["overall"] if v is not None]
    assert any(0 < v < 100 for v in overall), overall  # a comparison of these figures can tell runs apart
    return dataset, replies, [s.id for s in samples], root / "ref"


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / RESPONSES_JSONL).read_text().splitlines()]


def _assert_scores_equal(run_dir: Path, ref_dir: Path) -> None:
    for name in ("scores.json", "scores.lenient.json"):
        assert json.loads((run_dir / name).read_text()) == json.loads((ref_dir / name).read_text()), name
    scored = [(r["id"], r["response"], r["scores"]) for r in map(json.loads, (run_dir / "scored.jsonl").open())]
    ref = [(r["id"], r["response"], r["scores"]) for r in map(json.loads, (ref_dir / "scored.jsonl").open())]
    assert scored == ref


@pytest.mark.parametrize("kind", ["inspect-json", "inspect-eval", "inspect-metadata-ids", "inspect-parts",
                                  "lmms-metric-ids", "lmms-doc-ids"])
def test_imported_logs_score_exactly_like_the_niah_run(reference, tmp_path, kind):
    dataset, replies, order, ref_dir = reference
    shuffled = dict(reversed(list(replies.items())))  # a harness may log samples in any order
    if kind == "inspect-json":
        harness, log = "inspect", write_inspect_json(tmp_path / "log.json", shuffled, keys=sample_keys(dataset))
    elif kind == "inspect-eval":
        harness, log = "inspect", write_inspect_eval(tmp_path / "log.eval", shuffled, keys=sample_keys(dataset))
    elif kind == "inspect-metadata-ids":
        harness, log = "inspect", write_inspect_eval(tmp_path / "log.eval", shuffled, id_in_metadata=True,
                                                      keys=sample_keys(dataset))
    elif kind == "inspect-parts":
        harness, log = "inspect", write_inspect_json(tmp_path / "log.json", shuffled, as_parts=True,
                                                      keys=sample_keys(dataset))
    else:
        harness = "lmms-eval"
        log = write_lmms_eval(tmp_path / "samples_niah.jsonl", shuffled, order,
                              id_in="metric" if kind == "lmms-metric-ids" else "doc", keys=sample_keys(dataset))
    summary, matched = import_responses(harness, log, dataset, tmp_path / "run")
    assert summary.answered == len(order) and not matched.missing
    score_run(tmp_path / "run")
    _assert_scores_equal(tmp_path / "run", ref_dir)
    rows, ref_rows = _rows(tmp_path / "run"), _rows(ref_dir)
    assert [r["id"] for r in rows] == order  # dataset order, one row per sample, as niah run writes
    assert [sorted(r) for r in rows] == [sorted(r) for r in ref_rows]
    assert all(r["status"] == "ok" and r["request_key"] and r["cache_key"] for r in rows)
    run = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert set(run) >= set(json.loads((ref_dir / RUN_JSON).read_text())) - {"endpoints"}
    assert run["complete"] and run["model_id"]["harness"] == harness and len(run["model_id"]["log_sha256"]) == 64


def test_the_cli_imports_and_report_renders_it(reference, tmp_path):
    dataset, replies, _order, _ref = reference
    log = write_inspect_eval(tmp_path / "log.eval", replies, keys=sample_keys(dataset))
    runner = CliRunner()
    result = runner.invoke(app, ["import", "responses", str(log), "--from", "inspect", "--dataset", str(dataset),
                                 "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "imported 12 replies" in result.output
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["model"] == "harness:inspect:mockllm/model"
    assert runner.invoke(app, ["score", str(tmp_path / "run")]).exit_code == 0
    report = runner.invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert any((tmp_path / "report").iterdir())
    # a second import of a changed log into the same run is refused, as a changed model is for niah run
    write_inspect_eval(log, {**replies, next(iter(replies)): "changed"}, keys=sample_keys(dataset))
    again = runner.invoke(app, ["import", "responses", str(log), "--from", "inspect", "--dataset", str(dataset),
                                "--out", str(tmp_path / "run")])
    assert again.exit_code == 2 and "different" in again.output


def test_samples_missing_from_the_log_are_refused_or_recorded_as_failed(reference, tmp_path):
    dataset, replies, order, _ref = reference
    partial = {sid: text for sid, text in replies.items() if sid != order[3]}
    log = write_lmms_eval(tmp_path / "samples_niah.jsonl", partial, order, keys=sample_keys(dataset))
    with pytest.raises(DataError) as info:
        import_responses("lmms-eval", log, dataset, tmp_path / "run")
    assert "samples.jsonl:4" in str(info.value) and order[3] in str(info.value) and "--allow-missing" in str(info.value)
    assert not (tmp_path / "run").exists()
    summary, matched = import_responses("lmms-eval", log, dataset, tmp_path / "run", allow_missing=True)
    assert summary.answered == 11 and summary.failed == 1 and matched.missing == [(4, order[3])]
    row = {r["id"]: r for r in _rows(tmp_path / "run")}[order[3]]
    assert row["status"] == "failed" and row["error"] == NOT_IN_LOG


def test_a_sample_error_in_an_inspect_log_is_a_failed_row(reference, tmp_path):
    dataset, replies, order, _ref = reference
    keys = sample_keys(dataset)
    samples = [inspect_sample(i, sid, text, key=keys[sid]) for i, (sid, text) in enumerate(replies.items())]
    samples[0] = {**samples[0], "error": {"message": "context window exceeded", "traceback": "..."}}
    log = write_inspect_eval(tmp_path / "log.eval", replies, samples=samples)
    summary, _ = import_responses("inspect", log, dataset, tmp_path / "run")
    assert summary.failed == 1
    assert _rows(tmp_path / "run")[0]["error"] == "harness error: context window exceeded"


def _lmms(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "samples_niah.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


_FIRST = "retrieval-text/000"


def _good_line(doc_id: int, sid: str = _FIRST, reply: str = "A") -> str:
    return json.dumps({"doc_id": doc_id, "resps": [[reply]], "filtered_resps": [reply],
                       "niah_score": {"niah_id": sid, "score": 1.0}})


@pytest.mark.parametrize(("lines", "where"), [
    ([_good_line(0), "{not json"], ("samples_niah.jsonl:2", "invalid JSON")),
    ([_good_line(0), json.dumps({"doc_id": 1, "resps": [[7]], "niah_score": {"niah_id": "counting-text/000"}})],
     ("samples_niah.jsonl:2", "field 'resps[0][0]'")),
    # lmms-eval's doc_id is its own position: a line naming no niah id is refused, never matched by position
    ([json.dumps({"doc_id": 0, "resps": [["A"]]})], ("samples_niah.jsonl:1", "names no niah sample id")),
    ([json.dumps({"doc_id": 0, "doc": {}, "resps": [["A"]], "niah_official": 1.0})],
     ("samples_niah.jsonl:1", "field 'doc.niah_id'")),
    ([json.dumps({"doc_id": 0, "doc": {"niah_id": _FIRST}, "resps": []})], ("samples_niah.jsonl:1", "field 'resps'")),
    ([json.dumps({"doc_id": 0, "doc": {"niah_id": _FIRST}})], ("samples_niah.jsonl:1", "no reply")),
    ([json.dumps([1, 2])], ("samples_niah.jsonl:1", "JSON object")),
    ([json.dumps({"doc_id": 0, "doc": {"niah_id": "nope/1"}, "resps": [["A"]]})],
     ("samples_niah.jsonl:1", "'nope/1' is not in the dataset")),
    ([json.dumps({"doc_id": 0, "doc": {"niah_id": 5}, "resps": [["A"]]})], ("samples_niah.jsonl:1", "doc.niah_id")),
    ([json.dumps({"doc_id": 0, "niah_score": {"niah_id": 5}, "resps": [["A"]]})],
     ("samples_niah.jsonl:1", "niah_score.niah_id")),
    ([_good_line(0), _good_line(3, reply="B")], ("samples_niah.jsonl:2", "second, different")),
    ([_good_line(0), "NaN"], ("samples_niah.jsonl:2", "finite")),
])
def test_hostile_lmms_eval_lines_give_one_located_error(reference, tmp_path, lines, where):
    dataset = reference[0]
    log = _lmms(tmp_path, lines)
    result = CliRunner().invoke(app, ["import", "responses", str(log), "--from", "lmms-eval", "--dataset",
                                      str(dataset), "--out", str(tmp_path / "run"), "--allow-missing"])
    assert result.exit_code == 2
    message = result.output.strip()
    assert message.startswith("error: ") and len(message.splitlines()) == 1 and "Traceback" not in result.output
    for part in where:
        assert part in message, message
    assert not (tmp_path / "run").exists()


def test_a_huge_line_is_refused_without_reading_it_all(reference, tmp_path, monkeypatch):
    import niah.util.iox

    monkeypatch.setattr(niah.util.iox, "MAX_LINE_BYTES", 1024)
    log = _lmms(tmp_path, [_good_line(0), _good_line(1, "counting-text/000", "x" * 5000)])
    with pytest.raises(DataError, match=r"samples_niah.jsonl:2.*longer than"):
        import_responses("lmms-eval", log, reference[0], tmp_path / "run", allow_missing=True)


def test_a_huge_reply_is_cut_as_niah_run_cuts_it(reference, tmp_path):
    from niah.run import MAX_RESPONSE_CHARS

    dataset, replies, order, _ref = reference
    log = write_lmms_eval(tmp_path / "samples_niah.jsonl", {**replies, order[0]: "y" * (MAX_RESPONSE_CHARS + 10)},
                          order, keys=sample_keys(dataset))
    import_responses("lmms-eval", log, dataset, tmp_path / "run")
    row = _rows(tmp_path / "run")[0]
    assert len(row["response"]) == MAX_RESPONSE_CHARS and row["truncated_from"] == MAX_RESPONSE_CHARS + 10


def test_hostile_inspect_logs_give_one_located_error(reference, tmp_path):
    dataset, replies, _order, _ref = reference
    cases: list[tuple[Path, tuple[str, ...]]] = []
    bad_type = json.loads(json.dumps(write_inspect_json(tmp_path / "a.json", replies, keys=sample_keys(dataset)) and
                                     json.loads((tmp_path / "a.json").read_text())))
    bad_type["samples"][2]["output"]["completion"] = 42
    (tmp_path / "a.json").write_text(json.dumps(bad_type))
    cases.append((tmp_path / "a.json", ("a.json", "field 'samples[2].output.completion'", "must be a string")))
    (tmp_path / "b.json").write_text('{"version": 2, "samples": {"x": 1}}')
    cases.append((tmp_path / "b.json", ("b.json", "field 'samples'")))
    (tmp_path / "c.json").write_text('{"version": 2,\n "samples": [')
    cases.append((tmp_path / "c.json", ("c.json:2", "invalid JSON")))
    (tmp_path / "d.eval").write_bytes(b"not a zip at all")
    cases.append((tmp_path / "d.eval", ("d.eval", "not an inspect .eval log")))
    unknown = [inspect_sample(0, "retrieval-text/999", "x")]
    write_inspect_eval(tmp_path / "e.eval", {}, samples=unknown)
    cases.append((tmp_path / "e.eval", ("e.eval:samples/retrieval-text/999_epoch_1.json", "not in the dataset")))
    with zipfile.ZipFile(tmp_path / "f.eval", "w") as archive:
        archive.writestr("header.json", "{}")
        archive.writestr("samples/1_epoch_1.json", "{broken")
    cases.append((tmp_path / "f.eval", ("f.eval:samples/1_epoch_1.json:1", "invalid JSON")))
    with zipfile.ZipFile(tmp_path / "g.eval", "w") as archive:
        archive.writestr("header.json", "{}")
    cases.append((tmp_path / "g.eval", ("g.eval", "no samples")))
    for log, parts in cases:
        result = CliRunner().invoke(app, ["import", "responses", str(log), "--from", "inspect", "--dataset",
                                          str(dataset), "--out", str(tmp_path / "run"), "--allow-missing"])
        message = result.output.strip()
        assert result.exit_code == 2 and len(message.splitlines()) == 1 and message.startswith("error: "), message
        for part in parts:
            assert part in message, message


def test_unknown_harness_is_refused(reference, tmp_path):
    result = CliRunner().invoke(app, ["import", "responses", "x", "--from", "vlmevalkit", "--dataset",
                                      str(reference[0]), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "unknown harness" in result.output


def test_fixtures_are_valid_for_the_real_inspect_ai_and_its_own_logs_import(reference, tmp_path):
    """Our fixture logs load with inspect_ai's own reader, and logs inspect_ai writes import the same."""
    inspect_log = pytest.importorskip("inspect_ai.log")

    dataset, replies, _order, ref_dir = reference
    for path in (write_inspect_json(tmp_path / "ours.json", replies, keys=sample_keys(dataset)),
                 write_inspect_eval(tmp_path / "ours.eval", replies, id_in_metadata=True, keys=sample_keys(dataset))):
        log = inspect_log.read_eval_log(str(path))
        assert log.samples is not None and [s.output.completion for s in log.samples] == list(replies.values())
    for name in ("theirs.eval", "theirs.json"):
        _inspect_written_eval(tmp_path / name, replies, sample_keys(dataset))
        import_responses("inspect", tmp_path / name, dataset, tmp_path / name.replace(".", "-"))
        score_run(tmp_path / name.replace(".", "-"))
        _assert_scores_equal(tmp_path / name.replace(".", "-"), ref_dir)


def test_an_eval_log_of_an_unfinished_eval_reads_its_model_from_the_journal(reference, tmp_path):
    """inspect writes header.json when an eval ends; before that the zip holds _journal/start.json."""
    dataset, replies, _order, _ref = reference
    full = write_inspect_eval(tmp_path / "full.eval", replies, keys=sample_keys(dataset))
    with zipfile.ZipFile(full) as src, zipfile.ZipFile(tmp_path / "running.eval", "w") as dst:
        dst.writestr("_journal/start.json", src.read("header.json"))
        for name in src.namelist():
            if name.startswith("samples/"):
                dst.writestr(name, src.read(name))
    import_responses("inspect", tmp_path / "running.eval", dataset, tmp_path / "run", model=None)
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["model"] == "harness:inspect:mockllm/model"


def test_several_logs_one_per_task_are_read_as_one(reference, tmp_path):
    dataset, replies, order, ref_dir = reference
    text_tasks = {sid: t for sid, t in replies.items() if "-text/" in sid}
    image_tasks = {sid: t for sid, t in replies.items() if "-image/" in sid}
    keys = sample_keys(dataset)
    a = write_lmms_eval(tmp_path / "samples_a.jsonl", text_tasks, order, keys=keys)
    b = write_lmms_eval(tmp_path / "samples_b.jsonl", image_tasks, order, id_in="doc", keys=keys)
    import_responses("lmms-eval", [a, b], dataset, tmp_path / "run")
    score_run(tmp_path / "run")
    _assert_scores_equal(tmp_path / "run", ref_dir)
    unnamed = write_lmms_eval(tmp_path / "samples_c.jsonl", image_tasks, order, id_in="none")
    with pytest.raises(DataError, match=r"samples_c.jsonl:1, field 'doc.niah_id': names no niah sample id"):
        import_responses("lmms-eval", [a, unnamed], dataset, tmp_path / "run2")


def test_lmms_eval_failure_placeholder_is_a_failed_request_and_the_model_name_is_read(reference, tmp_path):
    dataset, replies, order, _ref = reference
    logs = tmp_path / "logs" / "smollm2"
    logs.mkdir(parents=True)
    failed = {**replies, order[2]: "[LMMS_EVAL_REQUEST_FAILED after 3 retries] Connection refused"}
    log = write_lmms_eval(logs / "20261207_101500_samples_niah_mmniah.jsonl", failed, order,
                          keys=sample_keys(dataset))
    (logs / "20261207_101500_results.json").write_text(json.dumps({"model_name": "smollm2-135m", "results": {}}))
    summary, _ = import_responses("lmms-eval", log, dataset, tmp_path / "run")
    assert summary.answered == len(order) - 1 and summary.failed == 1
    row = {r["id"]: r for r in _rows(tmp_path / "run")}[order[2]]
    assert row["status"] == "failed" and row["response"] is None and "LMMS_EVAL_REQUEST_FAILED" in row["error"]
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["model"] == "harness:lmms-eval:smollm2-135m"


def test_an_oversized_zip_member_is_refused_before_it_is_read(reference, tmp_path, monkeypatch):
    import niah.interop.logs

    dataset, replies, _order, _ref = reference
    log = write_inspect_eval(tmp_path / "log.eval", replies, keys=sample_keys(dataset))
    monkeypatch.setattr(niah.interop.logs, "MAX_MEMBER_BYTES", 64)
    with pytest.raises(DataError, match=r"log.eval:header.json: is larger than 64 bytes uncompressed"):
        import_responses("inspect", log, dataset, tmp_path / "run")


def _inspect_written_eval(path: Path, replies: dict[str, str], keys: dict[str, str]) -> Path:
    """An .eval log written by inspect_ai itself (its members Zstandard-compressed in recent releases), of a task
    that logs the sample key as a niah export's does."""
    inspect_log = pytest.importorskip("inspect_ai.log")
    from inspect_ai.model import ModelOutput

    spec = inspect_log.EvalSpec(created="2026-01-01T00:00:00+00:00", task="niah",
                                dataset=inspect_log.EvalDataset(name="niah"), model="mockllm/model",
                                config=inspect_log.EvalConfig())
    samples = [inspect_log.EvalSample(id=sid, epoch=1, input="prompt", target="", metadata={"niah_sample_key": keys[sid]},
                                      output=ModelOutput.from_content("mockllm/model", text))
               for sid, text in replies.items()]
    inspect_log.write_eval_log(inspect_log.EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


def test_an_eval_log_inspect_writes_imports_in_a_fresh_interpreter(reference, tmp_path):
    """Importing inspect_ai patches zipfile to read Zstandard; a user's `niah import responses` never imports it,
    so the real log is read in a subprocess where zipfile knows no Zstandard."""
    import subprocess
    import sys

    dataset, replies, _order, ref_dir = reference
    log = _inspect_written_eval(tmp_path / "theirs.eval", replies, sample_keys(dataset))
    with zipfile.ZipFile(log) as archive:
        methods = {info.compress_type for info in archive.infolist()}
    if 93 not in methods:
        pytest.skip(f"this inspect_ai writes no Zstandard members ({methods})")
    done = subprocess.run([sys.executable, "-m", "niah", "import", "responses", str(log), "--from", "inspect",
                           "--dataset", str(dataset), "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    score_run(tmp_path / "run")
    _assert_scores_equal(tmp_path / "run", ref_dir)


def test_a_damaged_zstandard_member_is_one_located_error(reference, tmp_path):
    dataset, replies, _order, _ref = reference
    log = _inspect_written_eval(tmp_path / "theirs.eval", replies, sample_keys(dataset))
    with zipfile.ZipFile(log) as archive:
        info = next(i for i in archive.infolist() if i.filename.startswith("samples/"))
    if info.compress_type != 93:
        pytest.skip("this inspect_ai writes no Zstandard members")
    data = bytearray(log.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF  # one byte inside the compressed frame
    log.write_bytes(bytes(data))
    with pytest.raises(DataError, match=rf"theirs.eval:{info.filename}: cannot be read from the zip"):
        import_responses("inspect", log, dataset, tmp_path / "run")
