"""Report axes made from the data: one column per duration (video-niah) or length (MileBench passkey sets)
present across all inputs of a report, labelled with the real value, sorted by it, one axis for every run;
official MileBench data sets, which carry no length, keep their image-count buckets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from niah.benchmarks.protocol import Axis
from niah.report import load_input, load_inputs
from niah.report.build import ReportOptions, build_report, build_tables
from niah.report.compare import length_series
from niah.report.tables import MISSING, ResultTable, TableRow
from support.tables import without_intervals


def _values(table: ResultTable, row: TableRow) -> list[str]:
    """A row's printed cells with their 95% intervals left off (the intervals have tests of their own)."""
    return [without_intervals(cell) for cell in table.cells(row)]


def _run(root: Path, name: str, benchmark: str, rows: list[dict[str, Any]]) -> Path:
    """A scored run from hand-made rows (``score`` per row, default 1), without a dataset."""
    run = root / name
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"dataset": None, "model": name, "benchmark": benchmark}))
    with (run / "scored.jsonl").open("w", encoding="utf-8") as fh:
        for i, row in enumerate(rows):
            score = row.pop("score", 1.0)
            fh.write(json.dumps({"id": f"s{i}", "benchmark": benchmark, "answer": "a", "response": "a",
                                 "score": score, "scores": {"official": score}, **row}) + "\n")
    return run


def _video_rows(durations: list[float], score: float = 1.0) -> list[dict[str, Any]]:
    return [{"task": "retrieval", "duration_s": d, "depth_cell": cell, "depth": 0.3, "score": score}
            for d in durations for cell in ([0.0, 0.5], [0.5, 1.0])]


def test_data_axis_orders_by_value_and_merges_equal_labels() -> None:
    axis = Axis.from_data("Duration", "duration_s", lambda v: None if v < 0 else f"{v:g}s", order=float)
    assert axis.across_inputs and axis.labels == ()
    resolved = axis.resolved([100, 30, 7.0, 30.0, -1])
    assert resolved.labels == ("7s", "30s", "100s")  # by value, not by text ("100s" < "30s" as strings)
    assert [resolved.bin_of(v) for v in (30, 30.0, 7, 100, 5, -1)] == [1, 1, 0, 2, None, None]
    assert not resolved.across_inputs
    fixed = Axis("All", "n", ("all",), lambda _v: 0)
    with_fallback = Axis.from_data("Length", "context_length", str, fallback=fixed)
    assert with_fallback.resolved([]) is fixed and with_fallback.resolved([5]).labels == ("5",)


def test_video_niah_columns_are_the_durations_built(tmp_path: Path) -> None:
    """A 1m/3m run: exactly two columns, 1m and 3m (before: six fixed bins, 3m under <=5m, four of them grey)."""
    inp = load_input(_run(tmp_path, "m", "video-niah", _video_rows([180.0, 60.0])))
    assert inp.spec is not None and inp.spec.columns.labels == ("1m", "3m")
    assert inp.cells["retrieval"].counts == [[1, 1], [1, 1]]
    (table,) = [t for t in build_tables([inp], None) if t.key == "retrieval"]
    assert table.header == ("Model", "1m", "3m", "Overall")
    assert _values(table, table.rows[0]) == ["100.0", "100.0", "100.0"]
    assert inp.spec.distributions[0].labels == ("1m", "3m")  # the distribution plot bins the same way


def test_runs_with_different_durations_share_one_axis(tmp_path: Path) -> None:
    a = _run(tmp_path, "A", "video-niah", _video_rows([60.0, 180.0]))
    b = _run(tmp_path, "B", "video-niah", _video_rows([180.0, 3600.0], score=0.0))
    first, second = load_inputs([a, b])
    assert first.spec is second.spec  # one axis, hence one set of tables for both runs
    assert first.spec is not None and first.spec.columns.labels == ("1m", "3m", "1h")
    assert first.cells["retrieval"].counts == [[1, 1, 0], [1, 1, 0]]
    assert second.cells["retrieval"].counts == [[0, 1, 1], [0, 1, 1]]
    (table,) = [t for t in build_tables([first, second], None) if t.key == "retrieval"]
    assert table.header == ("Model", "1m", "3m", "1h", "Overall")
    # a duration a run does not have is missing, never a 0 (B scored 0 where it has samples)
    assert [_values(table, row) for row in table.rows] == [["100.0", "100.0", MISSING, "100.0"],
                                                        [MISSING, "0.0", "0.0", "0.0"]]
    series = length_series(second, second.spec)  # type: ignore[arg-type]
    assert series is not None and [(p.label, p.n) for p in series.points] == [("3m", 2), ("1h", 2)]
    # alone, each run is binned on its own durations
    alone = load_input(b)
    assert alone.spec is not None and alone.spec.columns.labels == ("3m", "1h")


def test_report_of_two_runs_writes_one_table_per_task_on_the_shared_axis(tmp_path: Path) -> None:
    a = _run(tmp_path, "A", "video-niah", _video_rows([60.0]))
    b = _run(tmp_path, "B", "video-niah", _video_rows([90.0]))
    result = build_report(load_inputs([a, b]), tmp_path / "rep", ReportOptions(sample_browser=False))
    table = without_intervals((tmp_path / "rep" / "tables" / "video_niah_retrieval.md").read_text(encoding="utf-8"))
    assert "| Model | 1m | 90s | Overall |" in table
    assert "| A | 100.0 | - | 100.0 |" in table and "| B | - | 100.0 | 100.0 |" in table
    report = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    (chart,) = report["length_charts"]
    assert [[p["bin"] for p in s["points"]] for s in chart["series"]] == [["1m"], ["90s"]]
    assert len(result.heatmaps) == 2


def _passkey_rows(lengths: list[int], depths: list[float]) -> list[dict[str, Any]]:
    return [{"task": "TextNeedleInAHaystack", "context_length": n, "depth": d, "num_images": 4,
             "score": 1.0 if d < 0.5 else 0.0} for n in lengths for d in depths]


def test_milebench_passkey_run_is_length_by_depth(tmp_path: Path) -> None:
    """Two lengths x two depths: a two-column heatmap, depth rows in fifths (before: one row, image buckets)."""
    inp = load_input(_run(tmp_path, "m", "milebench", _passkey_rows([8000, 4096], [0.1, 0.9])))
    assert inp.spec is not None and inp.spec.columns.labels == ("4096", "8k")
    assert inp.rows_axis is not None and inp.rows_axis.edges == ("0.0", "0.2", "0.4", "0.6", "0.8", "1.0")
    cells = inp.cells["TextNeedleInAHaystack"]
    assert cells.counts == [[1, 1], [0, 0], [0, 0], [0, 0], [1, 1]]
    assert cells.acc[0] == [1.0, 1.0] and cells.acc[4] == [0.0, 0.0]
    (table,) = build_tables([inp], None)
    assert table.header == ("Model", "4096", "8K", "Overall")
    assert _values(table, table.rows[0]) == ["50.0", "50.0", "50.0"]  # one of each length's two samples found
    result = build_report([inp], tmp_path / "rep", ReportOptions(sample_browser=False))
    assert [p.name for p in result.heatmaps] == ["TextNeedleInAHaystack.png"]


def test_milebench_official_sets_keep_their_image_buckets(tmp_path: Path) -> None:
    rows = [{"task": "ALFRED", "num_images": 3, "score": 1.0}, {"task": "ALFRED", "num_images": 40, "score": 0.0}]
    inp = load_input(_run(tmp_path, "m", "milebench", rows))
    assert inp.spec is not None and inp.spec.columns.labels == ("Few", "Medium", "Many")
    assert inp.rows_axis is not None and inp.rows_axis.labels == ("all",)
    (table,) = build_tables([inp], None)
    assert _values(table, table.rows[0]) == ["100.0", MISSING, "0.0", "50.0"]
