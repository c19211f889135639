"""The report's 95% intervals, heatmap sample counts and fades, side-by-side heatmaps and the noise note, on tiny
runs made through the CLI (``niah build seq-niah`` / ``niah run baseline:oracle`` / ``niah score``), hand-checked.

Three runs of one four-sample Sequential-NIAH dataset (one pipeline, one length bin, one needle group; the
family's figures are shares of correct samples): the oracle (4 of 4), ``model-x`` (the oracle's replies with the
first one replaced by a wrong one: 3 of 4) and ``constant-wrong`` (every reply the same wrong sentence: 0 of 4).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from niah.benchmarks.mm_niah.report import SPEC as MM_NIAH_REPORT
from niah.report import load_inputs
from niah.report.build import build_tables, write_compare_heatmaps
from niah.report.heatmap import (
    CELL_LEGEND,
    EMPTY_CELL_TEXT,
    FADE_BELOW,
    FADED_ALPHA,
    HeatmapPanel,
    cell_alpha,
    cell_text,
    compare_figsize,
    draw_cells,
    heatmap_size_px,
    official_colormap,
    render_compare_png,
    render_heatmap_png,
)
from niah.report.noise import format_p
from niah.report.tables import to_html, to_markdown
from niah.scoring.stats import two_proportion_p_value, wilson_interval
from support.cli import invoke_ok
from test_report import make_run

WRONG_REPLY = "I do not know."


def _rewrite_replies(run: Path, wrong: set[int]) -> None:
    """Replace the replies of the rows numbered in ``wrong`` (0-based, in file order) by :data:`WRONG_REPLY`; the run
    then stands in for a model's, and says so (a baseline's run is labelled a baseline in every table)."""
    path = run / "responses.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for i in wrong:
        rows[i]["response"] = WRONG_REPLY
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    (run / "run.json").write_text(json.dumps({**meta, "model": "openai:stand-in"}), encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("intervals")
    invoke_ok(["build", "seq-niah", "--out", str(root / "ds"), "--lengths", "8k-16k", "--per-cell", "4",
               "--lang", "en", "--needles", "3-5", "--no-progress"])
    out: dict[str, Path] = {}
    for name, wrong in (("oracle", set()), ("model-x", {0}), ("constant-wrong", {0, 1, 2, 3})):
        run = root / name
        invoke_ok(["run", str(root / "ds"), "--model", "baseline:oracle", "--out", str(run), "--no-progress"])
        if wrong:
            _rewrite_replies(run, wrong)
        invoke_ok(["score", str(run)])
        out[name] = run
    return out


@pytest.fixture(scope="module")
def report(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("intervals-report") / "rep"
    invoke_ok(["report", str(runs["oracle"]), str(runs["model-x"]), str(runs["constant-wrong"]),
               "--name", "baseline:oracle", "--name", "model-x", "--name", "constant-wrong", "--out", str(out),
               "--no-samples"])
    return out


def test_scores_are_what_the_replies_make_them(runs: dict[str, Path]) -> None:
    scores = {name: [json.loads(line)["score"] for line in (run / "scored.jsonl").read_text().splitlines()]
              for name, run in runs.items()}
    assert scores == {"oracle": [1.0] * 4, "model-x": [0.0, 1.0, 1.0, 1.0], "constant-wrong": [0.0] * 4}


def test_wilson_three_of_four_and_an_empty_bin_in_the_table(report: Path) -> None:
    # Wilson, 3 of 4, z = 1.96: centre (0.75 + 0.48015) / 1.96037 = 0.62751, half 0.99981 * sqrt(0.046875 +
    # 0.060023) = 0.32689 -> [30.06, 95.44]; 4 of 4 -> [51.0, 100]; 0 of 4 -> [0, 49.0]. The other three
    # length bins have no samples: "-" and no interval.
    assert wilson_interval(0.75, 4) == pytest.approx((0.3006, 0.9544), abs=5e-5)
    md = (report / "tables.md").read_text(encoding="utf-8")
    assert "| baseline:oracle | 100.0 [51.0-100.0] | - | - | - | 100.0 [51.0-100.0] |" in md
    assert "| model-x | 75.0 [30.1-95.4] | - | - | - | 75.0 [30.1-95.4] |" in md
    assert "| constant-wrong | 0.0 [0.0-49.0] | - | - | - | 0.0 [0.0-49.0] |" in md
    assert "- [" not in md  # an empty bin never carries an interval
    # HTML: the interval on a small second line of its cell, tables in a scrolling box (eleven bins fit a page)
    index = (report / "index.html").read_text(encoding="utf-8")
    assert '<td>75.0<span class="ci">[30.1-95.4]</span></td>' in index
    assert index.count('<div class="table-scroll">\n<table class="results"') == index.count('<table class="results"')
    assert '<td class="missing">-</td>' in index


def test_noise_note_inside_for_overlapping_outside_for_separated(report: Path) -> None:
    # pooled two-proportion z-test, 4/4 vs 3/4: pooled 7/8, se sqrt(0.875 * 0.125 * (1/4 + 1/4)) = 0.23385,
    # z = 0.25 / 0.23385 = 1.0690, p = erfc(z / sqrt 2) = 0.285; 4/4 vs 0/4: se sqrt(0.25 * 0.5) = 0.35355,
    # z = 2.8284, p = erfc(2) = 0.00468
    assert two_proportion_p_value(1.0, 4, 0.75, 4) == pytest.approx(0.2850, abs=5e-4)
    assert two_proportion_p_value(1.0, 4, 0.0, 4) == pytest.approx(math.erfc(2.0))
    inside = ("baseline:oracle vs model-x: 100.0 vs 75.0, difference 25.0 points is inside the noise "
              "(two-proportion z-test p = 0.29; 95% intervals overlap)")
    outside = ("baseline:oracle vs constant-wrong: 100.0 vs 0.0, difference 100.0 points is outside the noise "
               "(two-proportion z-test p = 0.005; 95% intervals do not overlap)")
    md = (report / "tables.md").read_text(encoding="utf-8")
    index = (report / "index.html").read_text(encoding="utf-8")
    for text in (md, index):
        assert text.count(inside) == 2 and text.count(outside) == 2  # the Overall table and the task's
        assert "Inside the noise?" in text
    assert '<div class="table-notes noise">' in index
    noise = json.loads((report / "report.json").read_text(encoding="utf-8"))["noise"]
    assert sorted(noise) == ["seq_niah_overall", "seq_niah_synthetic_temporal"]
    assert noise["seq_niah_overall"][1:] == [inside, outside]


def test_noise_note_is_escaped_and_absent_for_one_input(runs: dict[str, Path], tmp_path: Path) -> None:
    evil = "<b>x</b>"
    two = load_inputs([runs["oracle"], runs["model-x"]], names=["baseline:oracle", evil])
    html_text = "".join(to_html(table) for table in build_tables(two, None))
    assert "<b>x</b>" not in html_text and "baseline:oracle vs &lt;b&gt;x&lt;/b&gt;: 100.0 vs 75.0" in html_text
    one = load_inputs([runs["oracle"]])
    assert all(table.noise == () for table in build_tables(one, None))
    assert write_compare_heatmaps(tmp_path, one) == [] and not (tmp_path / "assets").exists()


def test_p_values_print_without_rounding_across_five_percent() -> None:
    assert [format_p(p) for p in (0.2851, 0.0494, 0.00468, 0.0004)] == ["p = 0.29", "p = 0.049", "p = 0.005",
                                                                       "p < 0.001"]


def test_side_by_side_heatmap_is_written_and_linked(report: Path) -> None:
    from PIL import Image

    rel = "assets/heatmaps/compare/1-seq-niah/synthetic-temporal.png"
    with Image.open(report / rel) as image:
        # three panels, two a row: 2 x 7.0 + 0.8 by 2 x 3.4 + 0.9 inches at 100 dpi
        assert image.size == heatmap_size_px(compare_figsize(3)) == (1480, 770)
    index = (report / "index.html").read_text(encoding="utf-8")
    assert f'<a href="{rel}"><img src="{rel}"' in index
    assert "side by side: baseline:oracle, model-x, constant-wrong" in index
    listed = json.loads((report / "report.json").read_text(encoding="utf-8"))["side_by_side_heatmaps"]
    assert listed == [{"task": "synthetic-temporal", "src": rel, "left_out": [],
                       "models": ["baseline:oracle", "model-x", "constant-wrong"]}]
    # next to the per-model heatmaps of the same task
    section = index[index.index(rel):]
    assert "assets/heatmaps/1-baseline-oracle/synthetic-temporal.png" in section.split("</section>")[0]


def test_bootstrap_intervals_are_identical_across_builds(tmp_path: Path) -> None:
    # the mm-niah fixture's 1K bin is an aggregation of graded cells: a seeded bootstrap (heatmap bytes: below)
    run = make_run(tmp_path)
    first, second = ("".join(to_markdown(t) for t in build_tables(load_inputs([run]), None)) for _ in range(2))
    assert "| tiny-model | 75.0 [0.0-100.0] |" in first and first == second


def test_cell_text_prints_the_score_and_n_and_the_fade_rule() -> None:
    assert cell_text(1.0, 1) == "100\nn=1"
    assert cell_text(0.125, 8) == "13\nn=8"  # half-up, as the tables round (Python's round would give 12)
    assert cell_text(0.75, None) == "75"       # counts unknown: the value only
    assert cell_text(0.0, 0) == EMPTY_CELL_TEXT
    assert [cell_alpha(n) for n in (None, 0, 1, FADE_BELOW - 1, FADE_BELOW, 40)] == [
        1.0, 0.0, FADED_ALPHA, FADED_ALPHA, 1.0, 1.0]
    assert f"n < {FADE_BELOW}" in CELL_LEGEND


def test_drawn_cells_carry_n(tmp_path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    acc = [[0.5] * 11 for _ in range(5)]
    counts = [[2] * 11 for _ in range(5)]
    counts[0][0] = 0
    draw_cells(ax, acc, counts, x=MM_NIAH_REPORT.columns, y=MM_NIAH_REPORT.rows, cmap=official_colormap(),
               fontsize=7)
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 55 and texts[0] == EMPTY_CELL_TEXT and texts[1:] == ["50\nn=2"] * 54


def _colour_share(png: bytes) -> Callable[[tuple[float, float, float]], float]:
    """The share of a PNG's pixels within 3 of a colour, per channel."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None

    def share(rgb: tuple[float, float, float]) -> float:
        near = sum(n for n, c in colours if all(abs(a - b) <= 3 for a, b in zip(c, rgb, strict=True)))
        return near / (image.size[0] * image.size[1])

    return share


def test_faded_cells_are_the_colour_mixed_with_white_and_empty_ones_hatched_grey() -> None:

    acc = [[1.0] * 11 for _ in range(5)]
    counts = [[FADE_BELOW] * 11, [FADE_BELOW] * 11, [1] * 11, [1] * 11, [0] * 11]
    png = render_heatmap_png(acc, counts, "fade", x=MM_NIAH_REPORT.columns, y=MM_NIAH_REPORT.rows)
    share = _colour_share(png)

    green = (0x3C, 0xB3, 0x71)
    faded = tuple(FADED_ALPHA * g + (1 - FADED_ALPHA) * 255 for g in green)  # (177, 225, 198)
    assert share(green) > 0.08 and share(faded) > 0.08  # two full rows, two faded rows
    assert share((0xC8, 0xC8, 0xC8)) > 0.03  # the empty row: grey under its hatching
    # same cells, same bytes (the PNG carries no time or version), one figure or side by side
    assert png == render_heatmap_png(acc, counts, "fade", x=MM_NIAH_REPORT.columns, y=MM_NIAH_REPORT.rows)
    panels = [HeatmapPanel("a", acc, counts), HeatmapPanel("b", acc, None)]
    pair = [render_compare_png(panels, "pair", x=MM_NIAH_REPORT.columns, y=MM_NIAH_REPORT.rows) for _ in range(2)]
    assert pair[0] == pair[1] and pair[0].startswith(b"\x89PNG")


def test_strata_each_alike_but_unlike_each_other_get_an_interval_not_a_zero_width(tmp_path: Path) -> None:
    """MM-NIAH, one 1K bin, five samples per task (one per depth cell): the three text tasks all right, the three
    image tasks all wrong. The bootstrap redraws within each task's bin, where every outcome is the same: it
    has nothing to redraw and would print 50.0 [50.0-50.0]. Each task's score gets its Agresti-Coull variance
    (z = 1.96: 5 of 5 -> (5 + 1.9208) / 8.8415 = 0.78277, variance 0.78277 x 0.21723 / 8.8415 = 0.019232; 0 of 5
    the same); the bin's overall is the mean of the six tasks (slope 1/6 on each), so its variance is
    6 x 0.019232 / 36 = 0.0032053, sd 0.056616, and 50.0 +- 1.96 x 5.6616 = 38.9 to 61.1."""
    from niah.benchmarks.mm_niah.official import TASKS
    from niah.report import ReportOptions, build_report

    rows = []
    for task in TASKS:
        right = task.endswith("-text")
        for cell in range(5):
            rows.append({"id": f"{task}-{cell}", "task": task, "context_length": 1500, "depth": [0.1 + 0.2 * cell],
                         "score": 1.0 if right else 0.0, "response": "x", "answer": "x" if right else "y"})
    run = make_run(tmp_path, rows=rows)
    out = tmp_path / "rep"
    build_report(load_inputs([run]), out, ReportOptions(sample_browser=False))
    md = (out / "tables.md").read_text(encoding="utf-8")
    overall = next(line for line in md.splitlines() if line.startswith("| tiny-model | 50.0"))
    assert overall.startswith("| tiny-model | 50.0 [38.9-61.1] |"), overall
    assert "[50.0-50.0]" not in md


def test_a_grid_of_small_cells_is_drawn_at_full_colour_and_says_what_its_cells_are_worth() -> None:
    """One sample per cell (the quick grid) faded every cell, which sets none apart: such a grid is drawn at full
    colour with a legend saying each score is coarse; a grid mixing small and larger cells still fades."""

    from niah.report.heatmap import SMALL_GRID_LEGEND, cell_legend, fades_small_cells

    assert not fades_small_cells([[[1, 1], [0, 2]]]) and fades_small_cells([[[1, FADE_BELOW]], None])
    assert cell_legend([[[1]]]) == SMALL_GRID_LEGEND and cell_legend([[[FADE_BELOW, 1]]]) == CELL_LEGEND
    acc = [[1.0] * 11 for _ in range(5)]
    png = render_heatmap_png(acc, [[1] * 11 for _ in range(5)], "one each", x=MM_NIAH_REPORT.columns,
                             y=MM_NIAH_REPORT.rows)
    share = _colour_share(png)

    green = (0x3C, 0xB3, 0x71)
    faded = tuple(FADED_ALPHA * g + (1 - FADED_ALPHA) * 255 for g in green)
    assert share(green) > 0.3 and share(faded) < 0.001


def test_the_colour_bar_reads_0_to_100_as_the_cells_print() -> None:
    """The bar ran 0-1 beside cells printing 0-100: its top tick is 100 now."""
    from unittest import mock

    import matplotlib.figure

    seen: list[tuple[float, float]] = []
    real = matplotlib.figure.Figure.colorbar

    def spy(self, mappable, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append((mappable.norm.vmin, mappable.norm.vmax))
        return real(self, mappable, *args, **kwargs)

    with mock.patch.object(matplotlib.figure.Figure, "colorbar", spy):
        render_heatmap_png([[0.5] * 11 for _ in range(5)], None, "bar", x=MM_NIAH_REPORT.columns,
                           y=MM_NIAH_REPORT.rows)
        render_compare_png([HeatmapPanel("a", [[0.5] * 11 for _ in range(5)], None)] * 2, "pair",
                           x=MM_NIAH_REPORT.columns, y=MM_NIAH_REPORT.rows)
    assert seen == [(0.0, 100.0), (0.0, 100.0)]


def test_a_random_baseline_draws_the_chance_line_and_baselines_are_tagged() -> None:
    from niah.report.compare import LengthPoint, LengthSeries
    from niah.report.tables import baseline_tag

    series = LengthSeries("baseline:random", "wilson", "overall",
                          [LengthPoint(0, "1k", 0.5, 10, 0.2, 0.8), LengthPoint(1, "2k", 0.2, 30, 0.1, 0.4)],
                          baseline="baseline:random")
    assert series.pooled == pytest.approx((0.5 * 10 + 0.2 * 30) / 40)
    from unittest import mock

    import matplotlib.axes

    from niah.report.compare import render_length_chart_png

    lines: list[tuple[float, str]] = []
    real = matplotlib.axes.Axes.axhline

    def spy(self, y=0, *args, **kwargs):  # type: ignore[no-untyped-def]
        lines.append((y, kwargs.get("label", "")))
        return real(self, y, *args, **kwargs)

    with mock.patch.object(matplotlib.axes.Axes, "axhline", spy):
        render_length_chart_png([series], MM_NIAH_REPORT, "chance")
        render_length_chart_png([dataclasses.replace(series, baseline="baseline:oracle", name="o")], MM_NIAH_REPORT,
                                "no chance")
    assert lines == [(pytest.approx(27.5), "chance (baseline:random, 27.5)")]  # none for an oracle
    assert "offline baseline" in baseline_tag("baseline:rag") and "offline baseline" in baseline_tag("mine (baseline:rag)")
    assert baseline_tag("openai:gpt-4o") == ""
