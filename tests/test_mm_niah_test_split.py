"""The official test split has no ground truth: import it, run it, export the leaderboard response files, and
have scoring and reports say that gold is missing instead of failing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.mm_niah.official import import_annotations
from niah.cli import app
from niah.sample import Dataset
from niah.scoring.score import GOLD_MISSING_KEY, score_run
from niah.util.errors import DataError
from support.cli import invoke_ok as _ok
from support.mm_niah_official import OfficialFolder

runner = CliRunner()


def _test_folder(root: Path, *, with_gold: int = 0) -> Path:
    folder = OfficialFolder(root / "mm_niah_test")
    for k in range(3):
        rec = folder.retrieval_text(with_answer=k < with_gold)
        if k == 1 and k >= with_gold:
            rec["answer"] = None  # null is read as missing too
    folder.retrieval_image(with_answer=False)
    return folder.write()


def test_import_accepts_records_without_answer_and_writes_null(tmp_path: Path) -> None:
    root = _test_folder(tmp_path)
    files = sorted((root / "annotations").glob("*.jsonl"))
    ds = import_annotations(files, root / "images", tmp_path / "ds")
    samples = list(ds)
    assert len(samples) == 4 and all(s.answer is None for s in samples)
    assert ds.manifest["split"] == "test" and ds.manifest["no_gold"] == 4
    raw = [json.loads(line) for line in (tmp_path / "ds" / "samples.jsonl").read_text().splitlines()]
    assert all("answer" in r and r["answer"] is None for r in raw)  # Dataset.validate needs the key
    Dataset(tmp_path / "ds", media_roots=(root / "images",)).validate()


def test_a_bad_answer_is_still_an_error(tmp_path: Path) -> None:
    folder = OfficialFolder(tmp_path / "mm_niah_test")
    folder.retrieval_text(answer={"not": "an answer"})
    root = folder.write()
    with pytest.raises(DataError) as err:
        list(import_annotations([root / "annotations" / "retrieval-text.jsonl"], root / "images", tmp_path / "ds"))
    assert err.value.field == "answer" and err.value.line == 1


def test_test_split_runs_exports_and_scores_say_gold_is_missing(tmp_path: Path) -> None:
    root = _test_folder(tmp_path)
    images = root / "images"
    ann = sorted((root / "annotations").glob("*.jsonl"))
    said = _ok(["import", "mm-niah", *map(str, ann), "--images", str(images), "--out", str(tmp_path / "ds")])
    assert "4 sample(s) have no gold answer" in said
    _ok(["run", str(tmp_path / "ds"), "--model", "baseline:random", "--out", str(tmp_path / "run"),
         "--no-progress", "--media-root", str(images)])
    out = _ok(["export", "mm-niah-responses", str(tmp_path / "run"), "--model-name", "mine", "--split", "test",
               "--out", str(tmp_path / "submit")])
    files = sorted((tmp_path / "submit").glob("*.jsonl"))
    assert [f.name for f in files] == ["mine_retrieval-image-test.jsonl", "mine_retrieval-text-test.jsonl"]
    assert str(files[1]) in out
    rows = [json.loads(line) for line in files[1].read_text().splitlines()]
    assert [r["question_id"] for r in rows] == [0, 1, 2]
    assert all(r["answer"] is None and isinstance(r["response"], str) for r in rows)
    assert set(rows[0]) == {"question_id", "question", "answer", "response", "context_length", "placed_depth"}

    scored = _ok(["score", str(tmp_path / "run")])
    assert "GOLD MISSING: 4 answered sample(s)" in scored and "nothing could be scored" in scored
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert scores[GOLD_MISSING_KEY] == 4
    assert scores["run_status"]["no_gold"] == 4 and scores["run_status"]["complete"] is True
    assert not any(isinstance(v, list) for v in scores.values())  # nothing aggregated
    assert (tmp_path / "run" / "scored.jsonl").read_text() == ""

    res = runner.invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report"),
                              "--media-root", str(images)])
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert "gold answers are missing for 4 answered sample(s)" in res.output
    assert "gold answers are missing" in (tmp_path / "report" / "index.html").read_text()


def test_mixed_gold_scores_the_rest_and_marks_the_missing(tmp_path: Path) -> None:
    root = _test_folder(tmp_path, with_gold=1)
    ds = import_annotations(sorted((root / "annotations").glob("*.jsonl")), root / "images", tmp_path / "ds")
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(tmp_path / "ds"), "model": "fixed"}))
    (run / "responses.jsonl").write_text("".join(
        json.dumps({"id": s.id, "response": "cardamom"}) + "\n" for s in ds))
    summary = score_run(run)
    assert summary.scored == 1 and summary.no_gold == 3
    doc = json.loads((run / "scores.json").read_text())
    assert doc[GOLD_MISSING_KEY] == 3
    scores = doc["official"]
    assert max(scores["retrieval-text"]) > 0  # the one sample with gold was scored (correctly)
    assert "retrieval-image" not in scores
