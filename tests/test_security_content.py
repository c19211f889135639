"""Issue 44, items 5 and 6: a harness log is checked against the dataset it is imported for (its samples' inputs
and targets), and `niah report` decides whether scores are stale by content, never by file times."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.interop.lmms_task import export_lmms_eval
from niah.interop.replay import import_responses
from niah.run import run_dataset_sync
from niah.sample import SAMPLES_FILE
from niah.scoring.score import score_run
from niah.util.errors import DataError
from support.datasets import write_mm_niah_like

runner = CliRunner()
TASKS = ("retrieval-text", "counting-text")


def _other_golds(dataset: Path) -> None:
    """The same ids with other golds (another build): every retrieval answer renamed."""
    path = dataset / SAMPLES_FILE
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        if row["task"] == "retrieval-text":
            row["answer"] = "elm" + row["answer"]
            row["context"][0]["text"] = row["context"][0]["text"].replace("oak", "elmoak")
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


@pytest.fixture()
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """Dataset A and dataset B: the same ids, B with other inputs and golds."""
    a = write_mm_niah_like(tmp_path / "a", per_task=2, tasks=TASKS)
    b = write_mm_niah_like(tmp_path / "b", per_task=2, tasks=TASKS)
    _other_golds(b)
    return a, b


def _lmms_log_of(dataset: Path, tmp_path: Path) -> Path:
    """A --log_samples file of dataset's lmms-eval export, the gold given as every reply."""
    export_lmms_eval(dataset, tmp_path / "task", name="niah_a")
    lines = []
    for docs in sorted((tmp_path / "task" / "docs").glob("*.jsonl")):
        for doc_id, line in enumerate(docs.read_text().splitlines()):
            doc = json.loads(line)
            lines.append({"doc_id": doc_id, "doc": doc, "target": doc["target"], "resps": [[doc["target"]]],
                          "filtered_resps": [doc["target"]]})
    log = tmp_path / "samples_niah_a.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return log


def test_an_lmms_eval_log_of_another_dataset_is_refused_naming_the_first_mismatch(pair: tuple[Path, Path],
                                                                                   tmp_path: Path) -> None:
    a, b = pair
    log = _lmms_log_of(a, tmp_path)
    with pytest.raises(DataError) as err:
        import_responses("lmms-eval", log, b, tmp_path / "run-b")
    assert err.value.field == "doc.sample" and err.value.line == 1 and str(log) in str(err.value.file)
    assert "retrieval-text/000" in err.value.message and "another dataset" in err.value.message
    assert not (tmp_path / "run-b").exists()
    summary, _ = import_responses("lmms-eval", log, a, tmp_path / "run-a")  # its own dataset: imported
    assert summary.answered == 4  # type: ignore[attr-defined]


def test_a_foreign_lmms_log_stating_another_gold_is_refused(pair: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = pair
    rows = [json.loads(line) for line in (a / SAMPLES_FILE).read_text().splitlines()]
    log = tmp_path / "samples_foreign.jsonl"
    log.write_text("".join(json.dumps({"doc_id": i, "doc": {"niah_id": r["id"]}, "target": json.dumps(r["answer"])
                                       if not isinstance(r["answer"], str) else r["answer"],
                                       "resps": [["x"]]}) + "\n" for i, r in enumerate(rows)))
    with pytest.raises(DataError) as err:
        import_responses("lmms-eval", log, b, tmp_path / "run")
    assert err.value.field == "target" and "'oak0'" in err.value.message and "'elmoak0'" in err.value.message


def _inspect_log_of(dataset: Path, path: Path, *, keep_key: bool = True) -> Path:
    """An .eval log written by inspect_ai itself from the exported task's samples, the gold as every reply."""
    inspect_log = pytest.importorskip("inspect_ai.log")
    from inspect_ai.model import ModelOutput

    from niah.interop.inspect_task import niah_task

    task = niah_task(dataset)
    spec = inspect_log.EvalSpec(created="2026-01-01T00:00:00+00:00", task="niah",
                                dataset=inspect_log.EvalDataset(name="niah"), model="mockllm/model",
                                config=inspect_log.EvalConfig())
    samples = []
    for sample in task.dataset:
        metadata = dict(sample.metadata or {})
        if not keep_key:
            metadata.pop("niah_sample_key", None)
        samples.append(inspect_log.EvalSample(id=sample.id, epoch=1, input=sample.input, target=sample.target,
                                              metadata=metadata,
                                              output=ModelOutput.from_content("mockllm/model", str(sample.target))))
    inspect_log.write_eval_log(inspect_log.EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


@pytest.mark.parametrize(("keep_key", "field"), [(True, "metadata.niah_sample_key"), (False, "target")])
def test_an_inspect_log_of_another_dataset_is_refused_naming_the_first_mismatch(pair: tuple[Path, Path],
                                                                                 tmp_path: Path, keep_key: bool,
                                                                                 field: str) -> None:
    a, b = pair
    log = _inspect_log_of(a, tmp_path / "a.eval", keep_key=keep_key)
    with pytest.raises(DataError) as err:
        import_responses("inspect", log, b, tmp_path / "run-b")
    assert err.value.field == field and "retrieval-text/000" in err.value.message
    assert str(log) in str(err.value.file)
    summary, _ = import_responses("inspect", log, a, tmp_path / "run-a")
    assert summary.answered == 4  # type: ignore[attr-defined]


def _prompt_text(sample: dict) -> str:
    """What a task of the user's own might send for a sample: its text parts, joined its own way."""
    return "\n".join(p["text"] for p in sample["context"] + sample["question"] if p.get("type") == "text")


def _foreign_logs(dataset: Path, tmp_path: Path, *, with_input: bool) -> dict[str, Path]:
    """Logs of tasks niah did not export (no niah sample key), answering ``dataset``'s samples with an empty
    target: an inspect .eval written by inspect_ai itself, and an lmms-eval samples file."""
    inspect_log = pytest.importorskip("inspect_ai.log")
    from inspect_ai.model import ModelOutput

    rows = [json.loads(line) for line in (dataset / SAMPLES_FILE).read_text().splitlines()]
    spec = inspect_log.EvalSpec(created="2026-01-01T00:00:00+00:00", task="mine",
                                dataset=inspect_log.EvalDataset(name="mine"), model="mockllm/model",
                                config=inspect_log.EvalConfig())
    samples = [inspect_log.EvalSample(id=r["id"], epoch=1, input=_prompt_text(r) if with_input else [], target="",
                                      output=ModelOutput.from_content("mockllm/model", "oak")) for r in rows]
    inspect_path = tmp_path / "mine.eval"
    inspect_log.write_eval_log(inspect_log.EvalLog(eval=spec, samples=samples, status="success"), str(inspect_path))
    lmms_path = tmp_path / "samples_mine.jsonl"
    lines = [{"doc_id": i, "doc": {"niah_id": r["id"]}, "target": "", "resps": [["oak"]], "filtered_resps": ["oak"],
              **({"arguments": [_prompt_text(r), {"max_new_tokens": 8}]} if with_input else {})}
             for i, r in enumerate(rows)]
    lmms_path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {"inspect": inspect_path, "lmms-eval": lmms_path}


@pytest.mark.parametrize("harness", ["inspect", "lmms-eval"])
def test_a_foreign_log_is_checked_by_the_input_it_logged(pair: tuple[Path, Path], tmp_path: Path,
                                                         harness: str) -> None:
    """Leftover of item 5: a log of a task niah did not export (no sample key, an empty target) imported into
    any dataset with the same ids; now the input it logged must hold the dataset's sample text."""
    a, b = pair
    log = _foreign_logs(a, tmp_path, with_input=True)[harness]
    with pytest.raises(DataError) as err:
        import_responses(harness, log, b, tmp_path / "run-b")
    assert err.value.field == {"inspect": "input", "lmms-eval": "arguments"}[harness]
    assert "does not hold text context[0] of sample 'retrieval-text/000'" in err.value.message
    assert str(log) in str(err.value.file) and not (tmp_path / "run-b").exists()
    summary, _ = import_responses(harness, log, a, tmp_path / "run-a")  # the dataset it answers: imported
    assert summary.answered == 4  # type: ignore[attr-defined]


@pytest.mark.parametrize("harness", ["inspect", "lmms-eval"])
def test_a_foreign_log_that_identifies_no_sample_is_refused(pair: tuple[Path, Path], tmp_path: Path,
                                                            harness: str) -> None:
    a, _b = pair
    log = _foreign_logs(a, tmp_path, with_input=False)[harness]
    with pytest.raises(DataError) as err:
        import_responses(harness, log, a, tmp_path / "run")
    assert "records nothing that identifies sample 'retrieval-text/000'" in err.value.message
    assert "niah export" in err.value.message and not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------------------ item 6: staleness


def _set_back(path: Path, seconds: float = 3600) -> None:
    """What cp -p, rsync -a and tar do: the file's time is not when its content changed."""
    st = path.stat()
    os.utime(path, (st.st_atime - seconds, st.st_mtime - seconds))


def test_report_refuses_scores_of_golds_rewritten_under_an_old_file_time(tmp_path: Path) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=2, tasks=TASKS)
    run = tmp_path / "run"
    run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    score_run(run)
    _other_golds(dataset)
    _set_back(dataset / SAMPLES_FILE)
    result = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    # rescored as niah score would: the rewritten samples' responses answer their earlier version
    assert result.exit_code == 0 and "samples.jsonl changed" in result.output, result.output
    assert json.loads((run / "scores.json").read_text())["run_status"]["stale"] == 2
    _other_golds(dataset)  # every sample rewritten now: nothing is left to score, and the report says so
    rows = [json.loads(line) for line in (dataset / SAMPLES_FILE).read_text().splitlines()]
    for row in rows:
        row["answer"] = row["answer"] if row["task"] == "retrieval-text" else [9, 9]
    (dataset / SAMPLES_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))
    _set_back(dataset / SAMPLES_FILE)
    result = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report2")])
    assert result.exit_code != 0 and "earlier version" in result.output, result.output
    assert not (tmp_path / "report2" / "index.html").exists()


def test_report_rescores_responses_changed_under_an_old_file_time(tmp_path: Path) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=2, tasks=TASKS)
    run = tmp_path / "run"
    run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    score_run(run)
    responses = run / "responses.jsonl"
    rows = [json.loads(line) for line in responses.read_text().splitlines()]
    rows[0]["response"] = "something else"
    responses.write_text("".join(json.dumps(row) + "\n" for row in rows))
    _set_back(responses)
    result = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    assert result.exit_code == 0 and "note: rescored" in result.output, result.output
    scores = json.loads((run / "scores.json").read_text())
    assert scores["run_status"]["answered"] == 4
    scored = {json.loads(line)["id"]: json.loads(line)["score"] for line in (run / "scored.jsonl").read_text()
              .splitlines()}
    assert scored[rows[0]["id"]] == 0.0 and sum(scored.values()) == 3.0
