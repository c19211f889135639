"""A perfect oracle on a partial grid reads 100 wherever there are samples, in every family's report: an
aggregate over an empty bin is missing ("-", grey in HTML), never 0; where the official rule counts empty bins
as 0 (MM-NIAH's Overall), that figure stands labelled beside the Overall over the bins with samples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from niah.report import load_input
from niah.report.build import build_report, build_tables
from niah.report.tables import MISSING, OVERALL_OFFICIAL_LABEL, ResultTable, to_html, to_markdown


def _run(root: Path, benchmark: str, rows: list[dict[str, Any]]) -> Path:
    """A scored run of baseline:oracle (every score 1) from hand-made rows, without a dataset."""
    run = root / benchmark
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"dataset": None, "model": "baseline:oracle", "benchmark": benchmark,
                                              "counts": {"samples": len(rows)}}))
    with (run / "scored.jsonl").open("w", encoding="utf-8") as fh:
        for i, row in enumerate(rows):
            fh.write(json.dumps({"id": f"s{i}", "benchmark": benchmark, "answer": "a", "response": "a",
                                 "score": 1.0, "scores": {"official": 1.0}, **row}) + "\n")
    return run


def _rows(benchmark: str) -> list[dict[str, Any]]:
    if benchmark == "mm-niah":  # three of eleven length bins, two of six tasks
        # counting-image's 1K bin lacks its deepest cell, as niah build mm-niah makes it (an image costs 256+
        # tokens); retrieval-text fills every depth cell of its bins
        return [{"task": task, "context_length": length, "depth": depth}
                for task in ("retrieval-text", "counting-image") for length in (1500, 3000, 5000)
                for depth in (0.1, 0.3, 0.5, 0.7, 0.9) if (task, length, depth) != ("counting-image", 1500, 0.9)]
    if benchmark == "seq-niah":  # two pipelines in different length bins: none shares a bin with the other
        return ([{"task": "synthetic-temporal", "length_bin": "8k-16k", "needle_group": g, "lang": "en",
                  "pipeline": "synthetic-temporal", "num_needles": n} for g, n in (("3-5", 4), ("6-10", 8))]
                + [{"task": "real-temporal", "length_bin": "16k-32k", "needle_group": "3-5", "lang": "zh",
                    "pipeline": "real-temporal", "num_needles": 3}])
    if benchmark == "mmlongbench":  # two data sets at two of the five lengths
        return [{"task": task, "length_k": k, "category": "niah"} for task in ("infoseek", "cars196")
                for k in (8, 16)]
    if benchmark == "milebench":  # Few images only
        return [{"task": "TextNeedleInAHaystack", "num_images": 2}, {"task": "ImageNeedleInAHaystack",
                                                                     "num_images": 3}]
    if benchmark == "video-niah":  # two of six durations, one depth cell each
        return [{"task": "retrieval", "duration_s": d, "depth_cell": [0.0, 0.5], "depth": 0.2} for d in (30, 200)]
    if benchmark == "infinibench":
        return [{"task": "global_appearance", "format": "mcq"}, {"task": "summarization", "format": "open"}]
    raise AssertionError(benchmark)


FAMILIES = ("mm-niah", "seq-niah", "mmlongbench", "milebench", "video-niah", "infinibench")


def _value(cell: str) -> str:
    """A printed cell's value, its 95% interval (`` [low-high]``) left off."""
    return cell.split(" [", 1)[0]


def _values(cells: list[str]) -> list[str]:
    return [_value(c) for c in cells]


def _numbers(table: ResultTable) -> list[str]:
    """Every printed value of the report's own rows except the labelled official Overall (intervals left off;
    every value but ``-`` carries one)."""
    header = table.header
    out: list[str] = []
    for row in table.rows:
        cells = [c for h, c in zip(header[1:], table.cells(row), strict=True) if h != OVERALL_OFFICIAL_LABEL]
        assert all((c == MISSING) == (" [" not in c) for c in cells), cells
        out += _values(cells)
    return out


@pytest.mark.parametrize("benchmark", FAMILIES)
def test_oracle_reads_100_wherever_there_are_samples(tmp_path: Path, benchmark: str) -> None:
    inp = load_input(_run(tmp_path, benchmark, _rows(benchmark)))
    tables = build_tables([inp], None)
    assert tables, benchmark
    for table in tables:
        cells = _numbers(table)
        assert set(cells) <= {"100.0", MISSING}, (benchmark, table.key, table.header, cells)
        assert "100.0" in cells, (benchmark, table.key)
        html = to_html(table)
        if MISSING in cells:
            assert f'<td class="missing">{MISSING}</td>' in html  # grey, not a number
    for breakdown in ("By pipeline", "By language"):
        assert all(v[0] == v[1] for v in inp.breakdown_sums(breakdown).values())


def test_seq_niah_overall_averages_only_pipelines_with_samples(tmp_path: Path) -> None:
    """Before: the per-length Overall averaged the empty pipeline as 0 (50.0 per bin)."""
    inp = load_input(_run(tmp_path, "seq-niah", _rows("seq-niah")))
    overall = next(t for t in build_tables([inp], None) if t.key == "overall")
    # the first length: 2 of 2 right, Wilson [34.2, 100]; the second 1 of 1, [20.7, 100]; Overall 3 of 3
    assert overall.cells(overall.rows[0]) == ["100.0 [34.2-100.0]", "100.0 [20.7-100.0]", "-", "-",
                                              "100.0 [43.9-100.0]"]
    # the same from the run's scores.json shape
    doc = {"benchmark": "seq-niah", "scoring": "official",
           "tasks": {"synthetic-temporal": {"8k-16k": {"accuracy": 100.0, "n": 2}},
                     "real-temporal": {"16k-32k": {"accuracy": 100.0, "n": 1}}}}
    path = tmp_path / "o" / "scores.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    inp = load_input(path)
    overall = next(t for t in build_tables([inp], None) if t.key == "overall")
    assert _values(overall.cells(overall.rows[0])) == ["100.0", "100.0", "-", "-", "100.0"]


def test_mm_niah_shows_the_official_and_the_covered_overall_labelled(tmp_path: Path) -> None:
    inp = load_input(_run(tmp_path, "mm-niah", _rows("mm-niah")))
    table = next(t for t in build_tables([inp], None) if t.key == "retrieval-text")
    assert table.header[-2:] == (OVERALL_OFFICIAL_LABEL, "Overall (bins with samples)")
    cells = table.cells(table.rows[0])
    assert _values(cells[-2:]) == ["27.3", "100.0"]  # 3 of 11 bins: the official rule, and the bins with samples
    out = build_report([inp], tmp_path / "rep")
    md = (out.out / "tables.md").read_text(encoding="utf-8")
    assert "| Model | 1K | 2K | 4K |" in md and "| Overall (official: empty bins 0) | Overall (bins with samples) |" in md


def test_mm_niah_bins_with_empty_depth_cells_and_tasks_read_100(tmp_path: Path) -> None:
    """Before: a bin with samples but an empty depth cell printed the official bin (the empty cell counted 0):
    80.0 for an image task's 1K bin, 90.0 in the overall table, beside scores.json's covered 100."""
    from niah.benchmarks.mm_niah.family import TASKS

    rows = [{"task": task, "context_length": length, "depth": depth} for task in TASKS for length in (1500, 3000)
            for depth in (0.1, 0.3, 0.5, 0.7, 0.9)
            if not (task.endswith("-image") and length == 1500 and depth == 0.9)  # the deepest 1K cell
            and not (task == "reasoning-image" and length == 3000)]  # one task without the 2K bin
    inp = load_input(_run(tmp_path, "mm-niah", rows))
    tables = {t.key: t for t in build_tables([inp], None)}
    assert set(tables) == {"overall", *TASKS}
    for table in tables.values():
        assert table.header[-2:] == (OVERALL_OFFICIAL_LABEL, "Overall (bins with samples)"), table.key
        assert _values(table.cells(table.rows[0]))[2:-2] == [MISSING] * 9, table.key
    # the bins and the Overall over them read 100; the official Overall counts the empty cells and bins 0:
    # overall bins 1K (3 x 1.0 + 3 x 0.8) / 6 = 0.9 and 2K 5 / 6, (0.9 + 0.833333) / 11 -> 15.8
    overall = tables["overall"]
    assert _values(overall.cells(overall.rows[0])) == ["100.0", "100.0", *[MISSING] * 9, "15.8", "100.0"]
    image = tables["counting-image"]
    assert _values(image.cells(image.rows[0])) == ["100.0", "100.0", *[MISSING] * 9, "16.4", "100.0"]
    text = tables["retrieval-text"]  # every cell filled: the bins are the official ones
    assert _values(text.cells(text.rows[0])) == ["100.0", "100.0", *[MISSING] * 9, "18.2", "100.0"]
    md = to_markdown(overall)
    assert "a bin's empty cells as 0: the official rule" in md


def test_mmlongbench_scores_json_missing_lengths_are_null(tmp_path: Path) -> None:
    """A null length stays missing in the data-set row, its Overall and the overall row (docs: undefined)."""
    nulls = {"8K": 100.0, "16K": 100.0, "32K": None, "64K": None, "128K": None}
    doc = {"benchmark": "mmlongbench", "scoring": "official", "datasets": {"infoseek": nulls},
           "categories": {"vrag": nulls}, "overall": nulls}
    path = tmp_path / "m" / "scores.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    tables = {t.key: t for t in build_tables([load_input(path)], None)}
    for key in ("overall", "infoseek"):
        cells = tables[key].cells(tables[key].rows[0])
        assert _values(cells) == ["100.0", "100.0", "-", "-", "-", "-", "100.0"], key
