"""Distribution plots in reports: counts per axis, task and bin from scored rows (hand-checked), a PNG of the
promised size, and the MM-NIAH report's length / image-count / depth plots end to end."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from niah.benchmarks.mm_niah.build import BuildConfig
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.benchmarks.protocol import Axis
from niah.report import build_report, load_inputs
from niah.report.distributions import (
    PLOT_DPI,
    PLOT_HEIGHT_IN,
    PLOT_WIDTH_IN,
    count_rows,
    render_distributions_png,
)
from niah.report.inputs import ScoredRow
from niah.sample import Dataset
from niah.scoring.score import score_run


def _row(task: str, length: float | None, images: int | None) -> ScoredRow:
    return ScoredRow(lineno=1, id=f"{task}-{length}", task=task, benchmark="toy", context_length=length, depth=None,
                     num_images=images, answer="x", response="x", error=None, score=1.0, scores={})


LENGTH = Axis("Length", "context_length", ("short", "long"), lambda v: 0 if v < 100 else 1 if v < 1000 else None)
IMAGES = Axis("Images", "num_images", ("none", "some"), lambda n: 0 if n == 0 else 1)


def test_counts_per_axis_task_and_bin() -> None:
    rows = [_row("a", 10, 0), _row("a", 500, 3), _row("b", 50, 1), _row("b", 5000, None), _row("a", None, 2)]
    length, images = count_rows(rows, (LENGTH, IMAGES))
    assert length.by_task == {"a": [1, 1], "b": [1, 0]} and length.unbinned == 2  # 5000 and None
    assert images.by_task == {"a": [1, 2], "b": [0, 1]} and images.unbinned == 1
    assert length.total == 3 and images.total == 4


def test_png_has_the_promised_size() -> None:
    counts = count_rows([_row("a", 10, 0)], (LENGTH, IMAGES))
    png = render_distributions_png(counts, "toy")
    with Image.open(__import__("io").BytesIO(png)) as im:
        assert im.size == (round(2 * PLOT_WIDTH_IN * PLOT_DPI), round(PLOT_HEIGHT_IN * PLOT_DPI))


def test_mm_niah_report_plots_length_images_and_depth(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    build_mm_niah(BuildConfig(tasks=["retrieval-text", "counting-image", "image-count"],
                              lengths=["1k-2k", "8k-12k"], depths=[0.0, 0.8], seed=2), ds, progress=False)
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(ds), "model": "m", "benchmark": "mm-niah"}))
    samples = list(Dataset(ds))
    (run / "responses.jsonl").write_text("".join(json.dumps({"id": s.id, "response": "x"}) + "\n" for s in samples))
    score_run(run)
    result = build_report(load_inputs([run]), tmp_path / "report")
    assert [p.name for p in result.distributions] == ["1-m.png"]
    assert result.distributions[0].is_file()
    doc = json.loads((tmp_path / "report" / "report.json").read_text())
    (plot,) = doc["distributions"]
    axes = {a["field"]: a for a in plot["axes"]}
    assert set(axes) == {"context_length", "num_images", "depth"}
    # hand-check against the dataset: lengths land in bins 1k and 8k, 4 samples per task
    lengths = axes["context_length"]["by_task"]
    assert {t: sum(v) for t, v in lengths.items()} == {"retrieval-text": 4, "counting-image": 4, "image-count": 4}
    assert lengths["retrieval-text"][0] == 2 and lengths["retrieval-text"][3] == 2
    images = axes["num_images"]["by_task"]
    labels = axes["num_images"]["labels"]
    for task, values in images.items():
        expected = [0] * len(labels)
        for s in samples:
            if s.task == task:
                n = s.meta["num_images"]
                expected[next(i for i, hi in enumerate((0, 1, 2, 4, 8, 16, 36, 10**9)) if n <= hi)] += 1
        assert values == expected, task
    depth = axes["depth"]
    assert depth["unbinned"] == 4  # the image-count probe has no needle
    assert sum(depth["by_task"]["retrieval-text"][:2]) == 2 and sum(depth["by_task"]["retrieval-text"][8:]) == 2
    assert "Data distributions" in (tmp_path / "report" / "index.html").read_text()
