"""The image-count probe (paper Fig. 4): built on request only, the answer is the number of context images,
scored by the official word match, aggregated by image count, and shown as a report breakdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.mm_niah.build import TASKS, BuildConfig
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.benchmarks.mm_niah.report import image_count_probe_bucket
from niah.cli import app
from niah.report import build_report, load_inputs
from niah.sample import Dataset, ImagePart
from niah.scoring.score import score_run
from niah.util.errors import ConfigError

runner = CliRunner()


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probe") / "ds"
    build_mm_niah(BuildConfig(tasks=["image-count", "retrieval-text"], lengths=["1k-2k", "8k-12k", "24k-32k"],
                              depths=[0.0, 0.4], seed=5), out, progress=False)
    return out


def test_probe_is_off_by_default_and_needs_images() -> None:
    assert "image-count" not in BuildConfig().tasks and "image-count" not in TASKS
    with pytest.raises(ConfigError, match="image-count"):
        BuildConfig(tasks=["image-count"], images=False).validate()


def test_answer_is_the_number_of_context_images(probe: Path) -> None:
    samples = [s for s in Dataset(probe) if s.task == "image-count"]
    assert len(samples) == 3 * 2
    counts = set()
    for s in samples:
        n = sum(isinstance(p, ImagePart) for p in s.context)
        assert s.answer == str(n) == str(s.meta["image_count"]) == str(s.meta["num_images"])
        assert n >= 1 and s.meta["depth"] is None and s.meta["needles"] == [] and s.choices is None
        assert "How many images" in s.question[0].text  # type: ignore[union-attr]
        counts.add(n)
    assert len(counts) >= 3  # longer documents hold more images


def _run_with(probe: Path, run: Path, reply: dict[str, str]) -> None:
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(probe), "model": "hand", "benchmark": "mm-niah"}))
    (run / "responses.jsonl").write_text("".join(
        json.dumps({"id": s.id, "response": reply.get(s.id, "no idea")}) + "\n" for s in Dataset(probe)))


def test_scoring_by_image_count_hand_checked(probe: Path, tmp_path: Path) -> None:
    samples = [s for s in Dataset(probe) if s.task == "image-count"]
    words = {1: "one", 3: "three", 8: "eight"}
    reply = {}
    for k, s in enumerate(samples):
        n = int(s.answer)
        # correct as a digit, correct as a word (the VQA normalization maps it), wrong as a near miss
        reply[s.id] = (f"There are {n} images." if k % 3 == 0 else words.get(n, str(n)) if k % 3 == 1
                       else str(n + 10))
    _run_with(probe, tmp_path / "run", reply)
    summary = score_run(tmp_path / "run")
    official = summary.scores["official"]  # in percent
    probe_scores = official["image-count"]
    expected: dict[str, list[float]] = {}
    for k, s in enumerate(samples):
        expected.setdefault(s.answer, []).append(0.0 if k % 3 == 2 else 1.0)
    assert probe_scores["samples"] == len(samples)
    assert probe_scores["accuracy"] == round(100 * round(sum(sum(v) for v in expected.values()) / len(samples), 6), 4)
    assert {n: v["accuracy"] for n, v in probe_scores["by_images"].items()} == {
        n: round(100 * round(sum(v) / len(v), 6), 4) for n, v in expected.items()}
    assert "retrieval-text" in official and "image-count" not in official["context_ranges"]
    # the probe is no official task: its own row in by_task, outside the headline
    rows = [json.loads(line) for line in (tmp_path / "run" / "scored.jsonl").read_text().splitlines()]
    assert all(("image_count" in r) == (r["task"] == "image-count") for r in rows)

    result = build_report(load_inputs([tmp_path / "run"]), tmp_path / "report")
    md = (tmp_path / "report" / "tables.md").read_text()
    assert "Image-count probe (paper Fig. 4)" in md
    assert not any("image-count" in str(p) for p in result.heatmaps)  # no depth: no heatmap


def test_probe_buckets() -> None:
    assert [image_count_probe_bucket(n) for n in (0, 5, 6, 10, 11, 20, 21)] == [
        "0", "5", "6-10", "6-10", "11-20", "11-20", "21+"]
    assert image_count_probe_bucket(None) is None and image_count_probe_bucket(True) is None


def test_cli_builds_the_probe(tmp_path: Path) -> None:
    res = runner.invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "ds"), "--tasks", "image-count",
                              "--lengths", "4k", "--depth-cells", "0,0.2", "--no-progress", "--quiet"])
    assert res.exit_code == 0, res.output
    (sample,) = list(Dataset(tmp_path / "ds"))
    assert sample.task == "image-count" and sample.meta["context_length"] == 4000


def test_official_exports_leave_the_probe_out(probe: Path, tmp_path: Path) -> None:
    from niah.benchmarks.mm_niah.export import export_official
    from niah.benchmarks.mm_niah.official import write_official_responses

    skipped: dict[str, int] = {}
    counts = export_official(probe, tmp_path / "official", skipped=skipped)
    assert counts == {"retrieval-text": 6} and skipped == {"image-count": 6}
    assert [p.name for p in (tmp_path / "official" / "annotations").iterdir()] == ["retrieval-text.jsonl"]
    _run_with(probe, tmp_path / "run", {})
    paths = write_official_responses(tmp_path / "run", probe, tmp_path / "responses", "m", "val")
    assert [p.name for p in paths] == ["m_retrieval-text-val.jsonl"]
