"""Many models in one report: the Wilson/normal intervals, the accuracy-vs-length chart and the leaderboard."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from niah.report import ReportOptions, build_report, load_inputs
from niah.report.compare import length_series
from niah.scoring.stats import normal_interval, wilson_interval
from test_report import RUN_ROWS, make_run, make_scores_json, six_task_scores


def test_wilson_interval_matches_the_hand_formula() -> None:
    # 8/10, z = 1.96: centre (0.8 + 0.19207) / 1.38415 = 0.71673, half 1.96 * 0.16001 / 1.38415 = 0.22657
    low, high = wilson_interval(0.8, 10)
    assert low == pytest.approx(0.4902, abs=5e-5) and high == pytest.approx(0.9433, abs=5e-5)
    # 0/10: [0, 2 * 0.13876]; 10/10 mirrors it
    assert wilson_interval(0.0, 10) == pytest.approx((0.0, 0.2775), abs=5e-5)
    assert wilson_interval(1.0, 10) == pytest.approx((0.7225, 1.0), abs=5e-5)
    # 1 sample right: [0.2065, 1]
    assert wilson_interval(1.0, 1) == pytest.approx((0.2065, 1.0), abs=5e-5)
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)


def test_normal_interval_for_mean_scores_is_clipped_to_0_1() -> None:
    # 0.5 over 100: 1.96 * sqrt(0.25 / 100) = 0.098
    assert normal_interval(0.5, 100) == pytest.approx((0.402, 0.598), abs=5e-4)
    # 0.2 over 7: 1.96 * sqrt(0.16 / 7) = 0.2963, clipped below at 0
    assert normal_interval(0.2, 7) == pytest.approx((0.0, 0.4963), abs=5e-5)


def _two_runs(tmp_path: Path) -> list[Path]:
    # model B answers every sample right except the counting one (all scores 0 or 1: Wilson intervals);
    # model A is the shared fixture (a 0.5 counting score: normal intervals)
    rows_b = [{**row, "score": 0.0 if row["task"] == "counting-image" else 1.0} for row in RUN_ROWS]
    return [make_run(tmp_path / "a", model="baseline:model-a"),
            make_run(tmp_path / "b", rows=rows_b, model="baseline:model-b")]


def test_two_model_report_has_the_length_chart_and_the_leaderboard(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = build_report(load_inputs(_two_runs(tmp_path)), out, ReportOptions(sample_browser=False))
    assert [p.name for p in result.charts] == ["1-mm-niah-accuracy-vs-length.png"]
    png = result.charts[0].read_bytes()
    assert png.startswith(b"\x89PNG")
    from PIL import Image

    assert Image.open(io.BytesIO(png)).size == (1050, 450)
    assert sorted(p.name for p in result.leaderboard_files) == ["leaderboard.csv", "leaderboard.md"]

    # Pooled over the three tasks' bins, weighed by samples (the tasks' per-bin scores as their tables show):
    # A: (0.3*3 + 0.2 + 0.1 + 0.0 + 0.2) / 7 = 0.2; B: (0.4*3 + 0.2 + 0.0 + 0.2 + 0.2) / 7 = 0.2571
    rows = list(csv.DictReader(io.StringIO((out / "tables" / "leaderboard.csv").read_text())))
    assert [(r["model"], r["family"], r["overall"], r["n"], r["ci_low"], r["ci_high"], r["interval"])
            for r in rows] == [("baseline:model-b", "mm-niah", "25.7", "7", "6.9", "61.7", "wilson"),
                               ("baseline:model-a", "mm-niah", "20.0", "7", "0.0", "49.6", "normal")]
    md = (out / "tables" / "leaderboard.md").read_text()
    assert "| baseline:model-b | mm-niah | 25.7 | 7 | [6.9, 61.7] | wilson | pooled |" in md
    assert "| baseline:model-a | mm-niah | 20.0 | 7 | [0.0, 49.6] | normal | pooled |" in md

    html_text = (out / "index.html").read_text()
    assert 'src="assets/charts/1-mm-niah-accuracy-vs-length.png"' in html_text
    assert 'id="leaderboard"' in html_text and 'href="tables/leaderboard.csv"' in html_text
    assert "<th scope=\"row\">baseline:model-a</th>" in html_text

    charts = json.loads((out / "report.json").read_text())["length_charts"]
    series = {s["name"]: s for s in charts[0]["series"]}
    # bins 12k..48k have no sample: no point at all (never a 0)
    assert [p["bin"] for p in series["baseline:model-a"]["points"]] == ["1k", "2k", "4k", "8k", "64k"]
    assert [p["n"] for p in series["baseline:model-a"]["points"]] == [3, 1, 1, 1, 1]
    # a bin's point is the figure its table prints, over its depth cells with samples (model B got all three
    # 1K samples right: 1.0, not the official bin's 0.4 that counts its two empty cells 0)
    first = series["baseline:model-b"]["points"][0]
    assert first["score"] == pytest.approx(1.0)
    assert (first["low"], first["high"]) == pytest.approx(wilson_interval(1.0, 3))


def test_an_empty_bin_is_not_a_point(tmp_path: Path) -> None:
    only_long = [row for row in RUN_ROWS if row["context_length"] >= 64000]
    (inp,) = load_inputs([make_run(tmp_path, rows=only_long)])
    assert inp.spec is not None
    series = length_series(inp, inp.spec)
    # one sample right in one of the bin's five depth cells: 1.0 over the cell with samples (the official bin,
    # 0.2, counts the four empty cells 0)
    assert series is not None and [(p.label, p.score, p.n) for p in series.points] == [("64k", 1.0, 1)]


def test_scores_files_without_counts_are_ranked_without_interval_and_not_drawn(tmp_path: Path) -> None:
    a = make_scores_json(tmp_path / "a.json", six_task_scores(0.1))
    b = make_scores_json(tmp_path / "b.json", six_task_scores(0.2))
    result = build_report(load_inputs([a, b], names=["Model A", "Model B"]), tmp_path / "rep",
                          ReportOptions(sample_browser=False))
    assert result.charts == [] and len(result.leaderboard_files) == 2
    md = (tmp_path / "rep" / "tables" / "leaderboard.md").read_text()
    # the family's overall as its overall table shows it: ten bins of 35.0 and 64k = 0 -> 350 / 11 = 31.8
    assert "| Model A | mm-niah | 31.8 | - | - | - | overall |" in md
    assert md.index("| Model B |") < md.index("| Model A |")  # best first
    assert "| Model A | 31.8 |" not in md and "31.8 |" in (tmp_path / "rep" / "tables" / "mm_niah_overall.md").read_text()


def test_a_one_input_report_has_neither_chart_nor_leaderboard(tmp_path: Path) -> None:
    result = build_report(load_inputs([make_run(tmp_path)]), tmp_path / "rep", ReportOptions(sample_browser=False))
    assert result.charts == [] and result.leaderboard_files == []
    assert not (tmp_path / "rep" / "tables" / "leaderboard.md").exists()
    assert "leaderboard" not in (tmp_path / "rep" / "index.html").read_text()
    assert "leaderboard" not in json.loads((tmp_path / "rep" / "report.json").read_text())


def test_cli_lists_the_chart_and_the_leaderboard(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    out = tmp_path / "cli-report"
    result = CliRunner().invoke(app, ["report", *map(str, _two_runs(tmp_path)), "--out", str(out), "--no-samples"])
    assert result.exit_code == 0, result.output
    assert f"chart:    {out / 'assets' / 'charts' / '1-mm-niah-accuracy-vs-length.png'}" in result.output
    assert f"leaderboard: {out / 'tables' / 'leaderboard.md'}" in result.output


def test_a_ranked_overall_carries_the_interval_its_table_prints(tmp_path: Path) -> None:
    from niah.report.build import build_tables, group_by_spec
    from niah.report.compare import leaderboard
    from niah.report.tables import OVERALL_KEY
    from niah.run import run_dataset_sync
    from niah.scoring.score import score_run
    from support.datasets import write_mm_niah_like

    dataset = write_mm_niah_like(tmp_path / "ds", per_task=4, filler_repeats=20)
    runs = []
    for model in ("baseline:random", "baseline:oracle"):
        run = tmp_path / model.split(":")[1]
        run_dataset_sync(dataset, model, run, progress=False)
        score_run(run)
        runs.append(run)
    inputs = load_inputs(runs)
    (overall,) = [t for t in build_tables(inputs, None) if t.key == OVERALL_KEY]
    board = leaderboard(group_by_spec(inputs))
    assert [r.model for r in board] == ["baseline:oracle", "baseline:random"]
    for r in board:
        (row,) = [row for row in overall.rows if row.model == r.model]
        # a partial grid: the Overall over the bins with samples the table prints (scores.json's covered, the
        # headline niah score prints), and the interval printed beside it; the official Overall (empty bins 0)
        # named beside it
        assert r.basis == "covered" and row.filled is not None
        assert r.score * 100 == pytest.approx(row.filled, abs=5e-5)
        assert row.filled_interval is not None
        assert (r.low * 100, r.high * 100) == pytest.approx(row.filled_interval)
        assert r.note.startswith(f"official overall {row.overall:.1f}% counts the parts of the grid")
    # a mean over bins, not a share of samples: bootstrapped; the oracle's samples all scored alike (nothing to
    # redraw): Wilson's interval of their common score put through the aggregation, as its table says
    assert [r.method for r in board] == ["wilson", "bootstrap"]


def test_the_length_chart_draws_an_interval_that_float_round_off_put_below_its_point(tmp_path: Path) -> None:
    from niah.report.compare import LengthPoint, LengthSeries, render_length_chart_png

    (inp,) = load_inputs([make_run(tmp_path)])
    assert inp.spec is not None
    # an upper bound a hair under its point, as an interval computed in floats can have
    point = LengthPoint(0, "1k", 1.0, 30, 0.886, 0.9999999999999999)
    png = render_length_chart_png([LengthSeries("oracle", "wilson", "overall", [point])], inp.spec, "chart")
    assert png.startswith(b"\x89PNG")


def test_the_length_chart_labels_baselines_draws_chance_and_keeps_its_legend_off_the_plot(tmp_path: Path) -> None:
    """Points anywhere on the plot (an oracle at 100 in every bin, a model mid-height at the left), so that a legend
    placed inside it would cover some: it stands beside the plot. A baseline:random run gives the chance line."""
    from niah.report.compare import LengthChart, LengthPoint, LengthSeries, charts_html, length_chart_figure

    (inp,) = load_inputs([make_run(tmp_path)])
    assert inp.spec is not None
    bins = list(enumerate(inp.spec.columns.labels))

    def series(name: str, scores: list[float], baseline: str | None) -> LengthSeries:
        points = [LengthPoint(b, label, s, 20, max(0.0, s - 0.2), min(1.0, s + 0.2))
                  for (b, label), s in zip(bins, scores, strict=False)]
        return LengthSeries(name, "wilson", "overall", points, baseline=baseline)

    n = len(bins)
    chart = [series("my-model", [0.5] * n, None), series("RAG", [0.45] * n, "baseline:rag"),
             series("baseline:random", [0.1, 0.2] * n, "baseline:random"),
             series("baseline:oracle", [1.0] * n, "baseline:oracle")]
    fig = length_chart_figure(chart, inp.spec, "chart")
    (ax,) = fig.axes
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    legend = ax.get_legend()
    assert legend is not None
    assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    assert fig.get_window_extent(renderer).contains(*legend.get_window_extent(renderer).max)  # not cut off
    labels = [t.get_text() for t in legend.get_texts()]
    assert {"my-model", "RAG (baseline:rag)"} <= set(labels)  # a renamed baseline still says it is one
    chance = [line for line in ax.get_lines() if line.get_label().startswith("chance (baseline:random, ")]
    assert chart[2].pooled is not None and len(chance) == 1
    assert list(chance[0].get_ydata()) == pytest.approx([100.0 * chart[2].pooled] * 2)
    styles = {c.get_label(): c.lines[0].get_linestyle() for c in ax.containers}  # errorbar containers
    assert styles["my-model"] == "-" and styles["RAG (baseline:rag)"] == "--" and styles["baseline:oracle"] == "--"
    caption = charts_html([LengthChart("mm-niah", "c.png", chart, [])])
    assert "dashed lines are niah&#x27;s offline baselines" in caption and "the dotted line is chance" in caption
    plain = charts_html([LengthChart("mm-niah", "c.png", chart[:1], [])])
    assert "dashed" not in plain and "dotted" not in plain


def test_a_baseline_given_another_name_is_still_labelled_a_baseline(tmp_path: Path) -> None:
    """``niah report RUN --name RAG`` on a baseline:rag run: every table row, heatmap and chart line says baseline."""
    rag = make_run(tmp_path / "rag", model="baseline:rag")
    mine = make_run(tmp_path / "mine", model="openai:mine")
    inputs = load_inputs([rag, mine], names=["RAG", "Mine"])
    assert [inp.name for inp in inputs] == ["RAG (baseline:rag)", "Mine"]
    out = tmp_path / "rep"
    build_report(inputs, out, ReportOptions(sample_browser=False))
    html_text = (out / "index.html").read_text(encoding="utf-8")
    tagged = '<th scope="row">RAG (baseline:rag) <span class="tag baseline">offline baseline</span></th>'
    assert tagged in html_text and '<th scope="row">Mine</th>' in html_text
    assert '<th scope="row">RAG</th>' not in html_text
