"""The whole pipeline through the CLI: build -> export official -> import -> run -> score -> export responses
-> official scoring -> report, and `niah eval`; plus a dataset whose media path escapes its root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.protocol import percent
from niah.cli import app
from niah.report.tables import format_pct
from niah.sample import Dataset
from support.cli import invoke_ok as _ok
from support.scores import official_scores

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pipe")
    _ok(["build", "mm-niah", "--out", str(root / "ds"), "--lengths", "1k-2k,8k-12k", "--per-cell", "1",
         "--no-progress", "--quiet", "--seed", "4"])
    return root


def test_official_roundtrip_and_scores_agree(built: Path) -> None:
    root = built
    _ok(["export", "mm-niah-dataset", str(root / "ds"), "--out", str(root / "official")])
    ann = sorted((root / "official" / "annotations").glob("*.jsonl"))
    assert len(ann) == 6
    _ok(["import", "mm-niah", *map(str, ann), "--media-root", str(root / "official" / "images"),
         "--out", str(root / "imported")])
    images = root / "official" / "images"
    imported = list(Dataset(root / "imported", media_roots=(images,)).iter_samples(check_media=True))
    original = list(Dataset(root / "ds"))
    assert len(imported) == len(original) == 6 * 2 * 5
    assert not (root / "imported" / "media").exists() or not any((root / "imported" / "media").iterdir())

    # the oracle answers every sample correctly; the official files, scored the official way, agree
    # the imported set reads its images in place, outside its own folder: only with the user's say-so
    refused = subprocess.run([sys.executable, "-m", "niah.cli", "run", str(root / "imported"), "--model",
                              "baseline:oracle", "--out", str(root / "refused"), "--no-progress"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--media-root" in refused.stderr and not (root / "refused").exists()
    _ok(["run", str(root / "imported"), "--model", "baseline:oracle", "--out", str(root / "run"),
         "--no-progress", "--media-root", str(images)])
    _ok(["score", str(root / "run")])
    ours = official_scores(root / "run" / "scores.json")  # in percent
    _ok(["export", "mm-niah-responses", str(root / "run"), "--model-name", "oracle", "--split", "val",
         "--out", str(root / "responses")])
    files = sorted((root / "responses").glob("oracle_*-val.jsonl"))
    assert len(files) == 6
    _ok(["score", "--format", "mm-niah-official", *map(str, files), "--out", str(root / "official.json")])
    official = json.loads((root / "official.json").read_text())
    for task in ("retrieval-text", "counting-text", "reasoning-text", "retrieval-image", "counting-image",
                 "reasoning-image"):
        key = next(k for k in official if k.startswith(task))
        assert [percent(v) for v in official[key]] == ours[task]  # the official file is on 0-1
        # 2 of 11 bins hold samples, each with all 5 depth cells answered correctly
        assert sorted(ours[task]) == [0.0] * 9 + [100.0, 100.0]
    assert [percent(v) for v in official["overall"]] == ours["overall"]

    bare = subprocess.run([sys.executable, "-m", "niah.cli", "report", str(root / "run"), "--out",
                           str(root / "report-bare")], capture_output=True, text=True, timeout=120)
    assert bare.returncode == 0 and "--media-root" in bare.stderr  # no thumbnails, said so
    assert not list((root / "report-bare").rglob("thumbs/*"))
    out = _ok(["report", str(root / "run"), "--out", str(root / "report"), "--media-root", str(images)])
    assert (root / "report" / "index.html").is_file()
    assert len(list((root / "report" / "assets" / "heatmaps").rglob("*.png"))) == 6, out


def test_dataset_with_an_escaping_media_path_is_refused_by_the_cli(built: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = (built / "ds" / "samples.jsonl").read_text().splitlines()
    sample = json.loads(lines[0])
    sample["context"].append({"type": "image", "path": "../../../etc/passwd"})
    (bad / "samples.jsonl").write_text(lines[1] + "\n" + json.dumps(sample) + "\n")
    res = runner.invoke(app, ["run", str(bad), "--model", "baseline:oracle", "--out", str(tmp_path / "run"),
                              "--no-progress"])
    assert res.exit_code != 0
    assert "samples.jsonl:2" in res.output and "escapes the media root" in res.output


def test_eval_small(tmp_path: Path) -> None:
    out = _ok(["eval", "--out", str(tmp_path / "ev"), "--tasks", "retrieval-text,counting-image",
               "--lengths", "2k-4k", "--no-progress", "--no-published"])
    assert "official scores" in out and "retrieval-text" in out
    # the headline niah score prints: two of the six tasks give no official overall (it needs all six)
    doc = json.loads((tmp_path / "ev" / "run" / "scores.json").read_text())
    assert doc["overall"] is None and doc["covered"] is not None
    low, high = doc["covered_ci95"]  # the interval of the figure over the part held, stored beside it
    line = (f"mm-niah: accuracy over the part of the grid the run holds {format_pct(doc['covered'])}% "
            f"(95% CI {low:.1f}-{high:.1f}, {doc['covered_ci_method']}), n=10; "
            "official overall undefined: the official rule needs parts of the grid (tasks, data sets) the run lacks")
    assert "".join(line.split()) in "".join(out.split())  # the console may wrap the line
    assert (tmp_path / "ev" / "report" / "index.html").is_file()
    # niah score prints the same per-bin table as niah eval (it printed only the headline)
    scored = _ok(["score", str(tmp_path / "ev" / "run")])

    def table(text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if "│" in line or "┃" in line]

    assert table(out) and table(scored) == table(out)
    assert "official scores" in scored and "retrieval-text" in scored
    # rerunning resumes: nothing is asked again
    out = _ok(["eval", "--out", str(tmp_path / "ev"), "--tasks", "retrieval-text,counting-image",
               "--lengths", "2k-4k", "--no-progress", "--no-published"])
    assert "10 answered" in out and "0 requests sent, 10 resumed" in out
