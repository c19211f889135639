"""`niah run --shard I/N` and `niah merge`: a grid split over jobs and joined scores exactly like one run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from niah.run import RESPONSES_JSONL, RUN_JSON, run_dataset_sync
from niah.run.merge import merge_runs
from niah.run.shards import Shard
from niah.scoring.score import score_run
from niah.util.errors import ConfigError
from support.datasets import write_mm_niah_like


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mm_niah_like(tmp_path_factory.mktemp("shards") / "ds", per_task=3)  # 18 samples


def _ids(run_dir: Path) -> list[str]:
    return [json.loads(line)["id"] for line in (run_dir / RESPONSES_JSONL).read_text().splitlines()]


def _shards(dataset: Path, root: Path, model: str, count: int, **kwargs) -> list[Path]:
    runs = []
    for index in range(count):
        run = root / f"shard{index}"
        run_dataset_sync(dataset, model, run, progress=False, shard=Shard(index, count), **kwargs)
        runs.append(run)
    return runs


def test_shard_parse_and_partition() -> None:
    assert Shard.parse("2/4") == Shard(2, 4) and Shard.parse(" 0 / 1 ").label() == "0/1"
    for bad in ("4/4", "1", "a/b", "-1/3", "1/0"):
        with pytest.raises(ConfigError, match="shard"):
            Shard.parse(bad)
    parts = [[k for k in range(10) if Shard(i, 3).holds(k)] for i in range(3)]
    assert parts == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    assert [Shard(i, 3).size(10) for i in range(3)] == [4, 3, 3]


@pytest.mark.parametrize("model", ["baseline:rag", "baseline:random"])
def test_sharded_then_merged_run_scores_byte_for_byte_like_one_run(dataset: Path, tmp_path: Path, model: str) -> None:
    whole = tmp_path / "whole"
    run_dataset_sync(dataset, model, whole, progress=False)
    runs = _shards(dataset, tmp_path, model, 4)
    sizes = [len(_ids(r)) for r in runs]
    assert sizes == [5, 5, 4, 4] and len(set().union(*map(set, map(_ids, runs)))) == 18
    merged = tmp_path / "merged"
    summary = merge_runs(list(reversed(runs)), merged)  # any order of the arguments
    assert summary.complete and summary.rows == 18 and summary.merged == ["0/4", "1/4", "2/4", "3/4"]
    assert _ids(merged) == _ids(whole)
    score_run(whole)
    score_run(merged)
    assert (merged / "scored.jsonl").read_bytes() == (whole / "scored.jsonl").read_bytes()
    assert (merged / "scores.json").read_bytes() == (whole / "scores.json").read_bytes()
    meta = json.loads((merged / RUN_JSON).read_text())
    assert meta["config"] == json.loads((whole / RUN_JSON).read_text())["config"]
    assert meta["complete"] and meta["counts"]["answered"] == 18 and meta["merged"]["shards"] == 4
    # the merged run is the unsharded run: running it again resumes everything, asks nothing
    again = run_dataset_sync(dataset, model, merged, progress=False)
    assert again.resumed == 18 and again.requests == 0 and again.changed == 0


def test_shards_follow_the_selection_and_resume_their_own_samples(dataset: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    run_dataset_sync(dataset, "baseline:oracle", whole, progress=False, tasks=["retrieval-text", "counting-text"],
                     limit=5)
    runs = _shards(dataset, tmp_path, "baseline:oracle", 2, tasks=["retrieval-text", "counting-text"], limit=5)
    assert [len(_ids(r)) for r in runs] == [3, 2]
    again = run_dataset_sync(dataset, "baseline:oracle", runs[0], progress=False, shard=Shard(0, 2),
                             tasks=["retrieval-text", "counting-text"], limit=5)
    assert again.resumed == 3 and again.requests == 0
    with pytest.raises(ConfigError, match="different shard"):
        run_dataset_sync(dataset, "baseline:oracle", runs[0], progress=False, shard=Shard(1, 2),
                         tasks=["retrieval-text", "counting-text"], limit=5)
    merge_runs(runs, tmp_path / "merged")
    assert _ids(tmp_path / "merged") == _ids(whole)


def test_merge_refuses_runs_that_are_not_shards_of_one_run(dataset: Path, tmp_path: Path) -> None:
    runs = _shards(dataset, tmp_path / "a", "baseline:oracle", 2)
    other_model = _shards(dataset, tmp_path / "b", "baseline:random", 2)
    with pytest.raises(ConfigError, match="differ in model"):
        merge_runs([runs[0], other_model[1]], tmp_path / "m1")
    other_data = write_mm_niah_like(tmp_path / "ds2", per_task=1)
    elsewhere = _shards(other_data, tmp_path / "c", "baseline:oracle", 2)
    with pytest.raises(ConfigError, match="differ in dataset"):
        merge_runs([runs[0], elsewhere[1]], tmp_path / "m2")
    settings = tmp_path / "d"
    from niah.models.base import GenerationSettings

    run_dataset_sync(dataset, "baseline:oracle", settings, progress=False, shard=Shard(1, 2),
                     generation=GenerationSettings(max_tokens=7))
    with pytest.raises(ConfigError, match="differ in generation settings"):
        merge_runs([runs[0], settings], tmp_path / "m3")
    three = _shards(dataset, tmp_path / "e", "baseline:oracle", 3)
    with pytest.raises(ConfigError, match="shard count or selection"):
        merge_runs([runs[0], three[1]], tmp_path / "m4")
    unsharded = tmp_path / "whole"
    run_dataset_sync(dataset, "baseline:oracle", unsharded, progress=False)
    with pytest.raises(ConfigError, match="not a sharded run"):
        merge_runs([runs[0], unsharded], tmp_path / "m5")
    assert not any((tmp_path / f"m{i}").exists() for i in range(1, 6))


def test_merge_reports_overlapping_and_missing_shards(dataset: Path, tmp_path: Path) -> None:
    runs = _shards(dataset, tmp_path / "a", "baseline:oracle", 3)
    twice = _shards(dataset, tmp_path / "b", "baseline:oracle", 3)
    with pytest.raises(ConfigError, match=r"shard 1/3 is given twice"):
        merge_runs([*runs, twice[1]], tmp_path / "m")
    with pytest.raises(ConfigError, match=r"missing shard\(s\) 2/3 of 3.*--partial"):
        merge_runs(runs[:2], tmp_path / "m")
    summary = merge_runs(runs[:2], tmp_path / "m", partial=True)
    assert summary.missing == ["2/3"] and not summary.complete
    meta = json.loads((tmp_path / "m" / RUN_JSON).read_text())
    assert not meta["complete"] and meta["counts"]["missing"] == 6 and meta["counts"]["total"] == 18
    assert score_run(tmp_path / "m").missing == 6
    # a row smuggled into the wrong shard is caught
    stray = json.loads((runs[2] / RESPONSES_JSONL).read_text().splitlines()[0])
    with (runs[1] / RESPONSES_JSONL).open("a") as fh:
        fh.write(json.dumps(stray) + "\n")
    with pytest.raises(ConfigError, match="answered in two runs"):
        merge_runs(runs, tmp_path / "m2")
    with pytest.raises(ConfigError, match="belongs to shard 2/3"):
        merge_runs(runs[:2], tmp_path / "m2", partial=True)
    with pytest.raises(ConfigError, match="not empty"):
        merge_runs(runs[:1], tmp_path / "m", partial=True)


def test_cli_shard_and_merge(dataset: Path, tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", "from niah.cli import main; main()", *args],
                              capture_output=True, text=True, timeout=120)

    for index in range(2):
        proc = cli("run", str(dataset), "--model", "baseline:oracle", "--out", str(tmp_path / f"s{index}"),
                   "--shard", f"{index}/2", "--no-progress", "--limit", "4")
        assert proc.returncode == 0, proc.stderr
        assert "2 answered" in proc.stderr
    bad = cli("run", str(dataset), "--model", "baseline:oracle", "--out", str(tmp_path / "x"), "--shard", "2/2")
    assert bad.returncode == 2 and "error: shard index 2 is not in 0..1" in bad.stderr
    missing = cli("merge", str(tmp_path / "s0"), "--out", str(tmp_path / "m"))
    assert missing.returncode == 2 and "missing shard(s) 1/2" in missing.stderr and "Traceback" not in missing.stderr
    proc = cli("merge", str(tmp_path / "s0"), str(tmp_path / "s1"), "--out", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    assert "merged 2 of 2 shards (0/2, 1/2): 4 answered" in proc.stderr
