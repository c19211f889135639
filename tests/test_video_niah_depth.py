"""video-niah depth rows: needles placed at random inside depth cells (uniform over the valid placements, none
pinned to a frame), an exact-depth mode, any list of cells; empty cells left out of every mean; the report's
rows follow the dataset's cells."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from PIL import Image

from niah.benchmarks.video_niah.build import (
    BuildOptions,
    DepthRow,
    build,
    parse_depth_rows,
    place_in_cell,
    placement_feasible,
)
from niah.benchmarks.video_niah.report import per_bin_filled
from niah.benchmarks.video_niah.score import aggregate
from niah.report import load_input
from niah.report.build import build_report, build_tables
from niah.sample import Dataset
from niah.util.errors import ConfigError

SMALL = {"width": 96, "height": 64, "seed": 5, "frames": "all"}  # every frame at 1 fps


def _cell(lo: str, hi: str) -> DepthRow:
    return DepthRow(Fraction(lo), Fraction(hi))


def _valid(row: DepthRow, count: int, span: int, frames: int) -> set[tuple[int, ...]]:
    """Every placement of ``count`` non-touching needles with the mean depth in ``row``, by brute force."""
    room = frames - span
    out = set()
    for starts in itertools.combinations(range(room + 1), count):
        if all(b - a > span for a, b in itertools.pairwise(starts)):
            mean = Fraction(sum(starts), count * room)
            if row.lo <= mean and (mean < row.hi or (row.hi == 1 and mean <= 1)):
                out.add(starts)
    return out


@pytest.mark.parametrize(("lo", "hi", "count"), [("0", "0.2", 1), ("0.8", "1", 1), ("0", "0.2", 2),
                                                 ("0.4", "0.6", 3), ("0.8", "1", 3), ("0.9", "1", 2)])
def test_cell_placement_is_uniform_over_the_valid_placements(lo: str, hi: str, count: int) -> None:
    row, span, frames = _cell(lo, hi), 2, (40 if count < 3 else 27)
    valid = _valid(row, count, span, frames)
    assert valid and placement_feasible(row, count, span, frames)
    rng = random.Random(11)
    draws = 200 * len(valid)
    seen = Counter(tuple(place_in_cell(rng, row, count, span, frames)) for _ in range(draws))
    assert set(seen) == valid  # every valid placement occurs, nothing else does
    # each placement about equally often: 200 expected, far from a skewed sampler's counts
    assert max(seen.values()) < 300 and min(seen.values()) > 120


def test_feasibility_is_exact() -> None:
    for lo, hi in (("0", "0.2"), ("0.8", "1"), ("0.45", "0.5"), ("0", "0.05")):
        row = _cell(lo, hi)
        for count in (1, 2, 3, 4):
            for frames in (24, 30, 41):
                assert placement_feasible(row, count, 2, frames) == bool(_valid(row, count, 2, frames)), \
                    (lo, hi, count, frames)


def test_built_grid_pins_no_needle(tmp_path: Path) -> None:
    """Over a built grid, a row's samples put their needles at different frames, the first and last cells do
    not start/end on the first/last frame (before: depth 0 meant frame 0 in every sample), mean depths lie in
    the cell, and multi-needle spans never overlap or touch."""
    out = tmp_path / "ds"
    build(out, {**SMALL, "durations": "2m", "per_cell": 6}, False)
    samples = list(Dataset(out))
    assert len(samples) == 4 * 5 * 6
    span = 2
    at_edge = {1: 0, 2: 0}  # needles on the first or last frame: of one-needle samples, of the others
    by_row: dict[tuple[str, tuple[float, float]], list[tuple[int, ...]]] = {}
    for s in samples:
        lo, hi = s.meta["depth_cell"]
        depths = s.meta["depth"]
        firsts = [round(d * (120 - span)) for d in depths]
        assert lo <= sum(depths) / len(depths) <= hi + 1e-6
        assert all(abs(a - b) > span for a, b in itertools.combinations(firsts, 2))
        assert [round(t - (span - 1) // 2) for t in s.meta["needle_times"]] == firsts  # 1 fps: time = frame
        at_edge[min(len(firsts), 2)] += sum(f in (0, 120 - span) for f in firsts)
        by_row.setdefault((s.task, (lo, hi)), []).append(tuple(firsts))
    assert len(by_row) == 20
    assert all(len(set(v)) >= 4 for v in by_row.values())  # 6 samples of a row: (nearly) all at different frames
    # random placement: ~1/24 of the 24-odd edge-cell single needles (pinned: all of them); several needles
    # whose mean lies in an edge cell stand near the edge more often, but pinned they would be 40 and more
    assert at_edge[1] <= 4
    assert at_edge[2] <= 12


def test_any_depth_cells_and_exact_depths_build_and_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    runner = CliRunner()
    ds = tmp_path / "ds"
    res = runner.invoke(app, ["build", "video-niah", "--out", str(ds), "--durations", "1m", "--depth-cells",
                              "0,0.1,0.5,1", "--tasks", "retrieval,counting", "--width", "96", "--height", "64",
                              "--per-cell", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    samples = list(Dataset(ds))
    assert sorted({tuple(s.meta["depth_cell"]) for s in samples}) == [(0.0, 0.1), (0.1, 0.5), (0.5, 1.0)]
    manifest = json.loads((ds / "manifest.json").read_text())
    assert manifest["depth_mode"] == "cell" and manifest["depth_cells"] == [[0, 0.1], [0.1, 0.5], [0.5, 1]]
    for args in (["run", str(ds), "--model", "baseline:oracle", "--out", str(tmp_path / "run"), "--no-progress",
                  "--max-frames", "4"], ["score", str(tmp_path / "run")]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
    inp = load_input(tmp_path / "run")
    assert inp.rows_axis is not None and inp.rows_axis.labels == ("0-0.1", "0.1-0.5", "0.5-1")
    assert inp.rows_axis.edges == ("0", "0.1", "0.5", "1")
    assert inp.spec is not None and inp.spec.columns.labels == ("1m",)  # the one duration built, no empty bins
    assert inp.cells["retrieval"].counts == [[2], [2], [2]]
    report = build_report([inp], tmp_path / "rep")
    assert len(report.distributions) == 1  # durations and exact mean depths plotted
    with Image.open(next(p for p in report.heatmaps if p.name == "retrieval.png")) as im:
        assert im.size == (900, 400)
    index = (tmp_path / "rep" / "assets" / "samples" / "1-baseline-oracle" / "index.js").read_text()
    assert '"depths":["0-0.1","0.1-0.5","0.5-1"]' in index  # the browser's depth filter follows the cells

    # exact mode: any depths (not only quarters), eight cells, one cell: all build
    exact = tmp_path / "exact"
    build(exact, {**SMALL, "durations": "1m", "depth_mode": "exact", "depths": "0.1,0.33,0.9",
                  "tasks": "retrieval"}, False)
    got = {s.id: s.meta for s in Dataset(exact)}
    assert sorted(got) == ["retrieval/1m/d0.1/000", "retrieval/1m/d0.33/000", "retrieval/1m/d0.9/000"]
    assert got["retrieval/1m/d0.33/000"]["depth"] == [round(round(0.33 * 58) / 58, 6)]
    assert got["retrieval/1m/d0.33/000"]["depth_cell"] == [0.33, 0.33]
    assert len(BuildOptions.from_mapping({"depth_cells": 8}).rows) == 8
    assert [r.label for r in parse_depth_rows("cell", "1", None)] == ["0-1"]


def test_depth_options_fail_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--depth-mode exact"):
        BuildOptions.from_mapping({"depths": "0,0.5"})
    with pytest.raises(ConfigError, match="exact mode takes --depths"):
        BuildOptions.from_mapping({"depth_mode": "exact", "depth_cells": "5"})
    with pytest.raises(ConfigError, match="must increase"):
        BuildOptions.from_mapping({"depth_cells": "0,0.5,0.5,1"})
    with pytest.raises(ConfigError, match="in \\[0, 1\\]"):
        BuildOptions.from_mapping({"depth_cells": "0,1.5"})
    with pytest.raises(ConfigError, match="--depth-mode must be"):
        BuildOptions.from_mapping({"depth_mode": "fixed"})
    with pytest.raises(ConfigError, match="distinct"):
        BuildOptions.from_mapping({"depth_mode": "exact", "depths": "0.5,0.5"})
    # 50 cells of a 30-frame haystack: the first cell cannot hold two needles, said before anything is written
    with pytest.raises(ConfigError, match="depth cell 0-0.02 of the 30s haystack .* cannot hold 2 needle"):
        build(tmp_path / "ds", {**SMALL, "durations": "30s", "depth_cells": "50"}, False)
    assert not (tmp_path / "ds").exists()


def _row(task: str, duration: float, cell: list[float], score: float) -> tuple[dict, dict]:
    return {"task": task, "duration_s": duration, "depth_cell": cell, "scores": {"official": score}}, {}


def test_empty_cells_are_left_out_of_every_mean() -> None:
    a, b = [0.0, 0.2], [0.2, 0.4]
    rows = [_row("retrieval", 60.0, a, 1.0), _row("retrieval", 60.0, a, 0.0), _row("retrieval", 60.0, a, 0.0),
            _row("retrieval", 60.0, b, 1.0), _row("retrieval", 120.0, a, 0.0),  # (120 s, b) is empty
            _row("counting", 60.0, a, 1.0)]
    agg = aggregate(rows, "official")
    assert agg["cells"]["retrieval"] == {"60.0s": {"0-0.2": 1 / 3, "0.2-0.4": 1.0}, "120.0s": {"0-0.2": 0.0}}
    assert agg["cell_samples"]["retrieval"]["60.0s"] == {"0-0.2": 3, "0.2-0.4": 1}
    assert agg["durations"]["retrieval"] == {"60.0s": pytest.approx(2 / 3), "120.0s": 0.0}
    # the mean over the three cells with samples: not over samples (2/5), not with the empty cell as 0 (1/3)
    assert agg["tasks"]["retrieval"] == pytest.approx(4 / 9)
    assert agg["overall"] == pytest.approx((4 / 9 + 1.0) / 2)
    assert per_bin_filled([[0.5, 0.0], [1.0, 0.0]], [[2, 1], [1, 0]]) == [0.75, 0.0]


def test_report_tables_leave_empty_cells_out(tmp_path: Path) -> None:
    """A run whose grid has an empty (duration, depth) cell: the column is the mean of its filled cells, the
    table's Overall the mean over all filled cells (before: the empty cell and the empty bins counted 0)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"benchmark": "video-niah", "model": "m"}))
    lines = []
    for i, (duration, cell, score) in enumerate([(60, [0, 0.5], 1.0), (60, [0.5, 1], 0.0), (600, [0, 0.5], 1.0),
                                                 (600, [0, 0.5], 1.0)]):
        lines.append(json.dumps({"id": f"s{i}", "task": "retrieval", "benchmark": "video-niah", "score": score,
                                 "scores": {"official": score}, "duration_s": duration, "depth_cell": cell}))
    (run / "scored.jsonl").write_text("\n".join(lines) + "\n")
    inp = load_input(run)
    assert inp.cells["retrieval"].counts == [[1, 2], [1, 0]]  # columns 1m and 10m, the durations present
    (table,) = [t for t in build_tables([inp], None) if t.key == "retrieval"]
    assert table.columns == ("1m", "10m")
    (row,) = table.rows
    assert row.cells() == ["50.0", "100.0", "66.7"]  # (1 + 0 + 1) / 3 cells


def test_frame_and_clip_needles_shown_at_their_random_times(tmp_path: Path) -> None:
    """Frame and clip needles placed at random: the frame at each recorded time is the cartoon's rendering."""
    import numpy as np

    from niah.benchmarks.video_niah.build import NEEDLE_PLACES, _cartoon_tile

    for kind in ("frame", "clip"):
        out = tmp_path / kind
        build(out, {**SMALL, "durations": "1m", "needle": kind, "tasks": "retrieval,counting"}, False)
        for s in Dataset(out):
            frames = s.context[0].frames  # type: ignore[union-attr]
            for t, depth, name in zip(s.meta["needle_times"], s.meta["depth"],
                                      s.meta["needle_labels"], strict=True):
                first = round(depth * (60 - 2))
                assert int(t) == first  # 1 fps, 2-frame needles: the middle frame is the first
                with Image.open(out / frames[first]) as im:
                    got = np.asarray(im.convert("RGB"), np.int16)
                # each needle at its own place (a frame's left-right, a clip's height); a clip's first frame
                # has the cartoon at (0 + 0.5) / 2 across
                places = [(p + 0.5) / NEEDLE_PLACES for p in range(NEEDLE_PLACES)]
                wants = [_cartoon_tile(name.replace(" ", "_"), (96, 64), offset=0.25, rise=q) if kind == "clip"
                         else _cartoon_tile(name.replace(" ", "_"), (96, 64), offset=q) for q in places]
                best = min(float(np.abs(got - np.asarray(w, np.int16)).mean()) for w in wants)
                assert best < 4.0, (s.id, kind)
            # every needle of a sample has frames of its own (a counting sample's cartoons are not one file)
            spans = [set(frames[f:f + 2]) for f in s.meta["needle_first_frames"]]
            assert all(not a & b for a, b in itertools.combinations(spans, 2)), s.id
