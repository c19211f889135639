"""End-to-end runs with the offline baselines: the oracle as a pipeline check, random and RAG rows, the
progress bar, and per-sample data errors that must not stop a run."""

from __future__ import annotations

import json

import pytest

from niah.models.baselines import format_gold
from niah.prompts.types import PromptOptions
from niah.run import RESPONSES_JSONL, RUN_JSON, run_dataset, run_dataset_sync
from niah.sample import Dataset
from niah.util.errors import ConfigError
from support.datasets import write_mm_niah_like


@pytest.fixture()
def dataset(tmp_path):
    return write_mm_niah_like(tmp_path / "ds", per_task=2)


def _rows(run_dir):
    return [json.loads(line) for line in (run_dir / RESPONSES_JSONL).read_text().splitlines()]


def test_oracle_run_returns_every_gold_answer_in_scorer_form(dataset, tmp_path):
    summary = run_dataset_sync(dataset, "baseline:oracle", tmp_path / "run", progress=False)
    gold = {s.id: format_gold(s.answer) for s in Dataset(dataset)}
    rows = _rows(tmp_path / "run")
    assert {r["id"]: r["response"] for r in rows} == gold
    assert summary.answered == 12 and summary.finished
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["model_id"] == {"provider": "baseline", "kind": "oracle"} and meta["finished"]


def test_random_and_rag_runs_answer_every_sample_reproducibly(dataset, tmp_path):
    for spec in ("baseline:random", "baseline:rag"):
        a = run_dataset_sync(dataset, spec, tmp_path / f"{spec[9:]}-a", progress=False, use_cache=False)
        b = run_dataset_sync(dataset, spec, tmp_path / f"{spec[9:]}-b", progress=False, use_cache=False)
        assert a.answered == b.answered == 12
        assert [r["response"] for r in _rows(tmp_path / f"{spec[9:]}-a")] == \
            [r["response"] for r in _rows(tmp_path / f"{spec[9:]}-b")]
    rag = {r["id"]: r["response"] for r in _rows(tmp_path / "rag-a")}
    assert rag["retrieval-text/001"] == "oak1"  # the extractive reader finds the text needle
    assert json.loads(rag["counting-text/001"]) == [2, 3]


def test_run_dataset_is_awaitable_and_shows_a_progress_bar(dataset, tmp_path, capsys):
    import asyncio

    summary = asyncio.run(run_dataset(dataset, "baseline:oracle", tmp_path / "run", progress=True, limit=5))
    assert summary.total == 5 and summary.answered == 5
    err = capsys.readouterr().err
    assert "baseline:oracle" in err and "5/5" in err and "0 failed" in err


def test_a_missing_image_is_refused_before_the_run_or_fails_its_sample_only(dataset, tmp_path):
    from niah.sample import DatasetInvalid

    ds = Dataset(dataset)
    victim = next(s for s in ds if s.task == "counting-image")
    ds.resolve_media(victim.all_media()[0]).unlink()
    with pytest.raises(DatasetInvalid, match=r"samples.jsonl:\d+: media\[0\]: .*file not found"):
        run_dataset_sync(dataset, "baseline:oracle", tmp_path / "refused", progress=False)
    assert not (tmp_path / "refused").exists()
    # without the media check (the API's check_media=False), the run goes on and only that sample fails
    summary = run_dataset_sync(dataset, "baseline:oracle", tmp_path / "run", progress=False, check_media=False)
    rows = {r["id"]: r for r in _rows(tmp_path / "run")}
    assert rows[victim.id]["status"] == "failed" and rows[victim.id]["error"].startswith("data error:")
    assert summary.failed == 1 and summary.answered == 11 and summary.finished


def test_official_over_limit_policy_is_refused_before_anything_runs(dataset, tmp_path):
    with pytest.raises(ConfigError, match="no official over-limit rule"):
        run_dataset_sync(dataset, "baseline:oracle", tmp_path / "run", progress=False,
                         prompt_options=PromptOptions(over_limit="official"))
    assert not (tmp_path / "run").exists()


def test_oracle_cache_keys_include_the_gold(tmp_path):
    """Two samples with the same prompt but different golds must not share a cached oracle reply."""
    from niah.sample import DatasetWriter, Sample, TextPart

    with DatasetWriter(tmp_path / "ds") as w:
        for i, gold in enumerate(["oak", "elm"]):
            w.write(Sample(id=f"retrieval-text/{i}", benchmark="mm-niah", task="retrieval-text",
                           context=[TextPart("Same context.")], question=[TextPart("Same question?")],
                           answer=gold, meta={"depth": [0.5], "context_length": 1000}))
        w.finish({"benchmark": "mm-niah"})
    summary = run_dataset_sync(tmp_path / "ds", "baseline:oracle", tmp_path / "run", progress=False)
    assert summary.cached == 0
    assert [r["response"] for r in _rows(tmp_path / "run")] == ["oak", "elm"]
