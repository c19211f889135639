"""Incomplete runs are marked in scores.json, the console, tables.md and the HTML report; empty heatmap cells are
grey, never painted as a score."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

from niah.sample import Dataset
from support.datasets import write_mm_niah_like


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, check=False)


def _partial_run(tmp_path: Path) -> Path:
    ds = write_mm_niah_like(tmp_path / "ds", per_task=2, tasks=("retrieval-text",))
    ids = [s.id for s in Dataset(ds)]
    assert len(ids) == 2 * 1
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(ds), "model": "m", "benchmark": "mm-niah"}))
    rows = [{"id": ids[0], "response": "x", "error": None}]  # ids[1]: no row at all (killed run) -> missing
    (run / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def test_incomplete_run_is_marked_everywhere(tmp_path: Path) -> None:
    run = _partial_run(tmp_path)
    proc = _cli("score", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "INCOMPLETE RUN: 1 answered, 0 failed, 0 skipped, 1 missing of 2 samples" in proc.stderr  # a warning: stdout stays the summary
    status = json.loads((run / "scores.json").read_text())["run_status"]
    assert status == {"complete": False, "answered": 1, "failed": 0, "skipped": 0, "missing": 1, "total": 2}
    proc = _cli("report", str(run), "--out", str(tmp_path / "rep"), "--no-samples")
    assert proc.returncode == 0, proc.stderr
    tables = (tmp_path / "rep" / "tables.md").read_text()
    assert "**INCOMPLETE RUN** m: 1 answered, 0 failed, 0 skipped, 1 missing of 2 samples" in tables
    index = (tmp_path / "rep" / "index.html").read_text()
    assert '<div class="banner incomplete" role="alert"><strong>Incomplete run</strong> m: 1 answered' in index


def test_failed_and_skipped_rows_are_counted(tmp_path: Path) -> None:
    run = _partial_run(tmp_path)
    ids = [s.id for s in Dataset(tmp_path / "ds")]
    rows = [{"id": ids[0], "response": None, "error": "HTTP 500"},
            {"id": ids[1], "response": None, "error": None, "status": "skipped"}]
    (run / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = _cli("score", str(run))
    assert proc.returncode == 0, proc.stderr
    # a skipped sample was never sent: the summary must not call it a failed request
    assert "(2 failed or skipped requests scored 0, 0 without a response not scored)" in proc.stdout
    status = json.loads((run / "scores.lenient.json").read_text())["run_status"]
    assert status == {"complete": False, "answered": 0, "failed": 1, "skipped": 1, "missing": 0, "total": 2}


def test_complete_run_has_no_banner(tmp_path: Path) -> None:
    run = _partial_run(tmp_path)
    ids = [s.id for s in Dataset(tmp_path / "ds")]
    (run / "responses.jsonl").write_text("".join(json.dumps({"id": i, "response": "x", "error": None}) + "\n"
                                                 for i in ids))
    proc = _cli("score", str(run))
    assert "INCOMPLETE" not in proc.stdout + proc.stderr
    assert json.loads((run / "scores.json").read_text())["run_status"]["complete"] is True
    assert _cli("report", str(run), "--out", str(tmp_path / "rep"), "--no-samples").returncode == 0
    assert "INCOMPLETE" not in (tmp_path / "rep" / "tables.md").read_text()
    assert "banner incomplete" not in (tmp_path / "rep" / "index.html").read_text()


def test_empty_heatmap_cells_are_grey_not_crimson() -> None:
    from PIL import Image

    from niah.benchmarks.mm_niah.report import SPEC
    from niah.report.heatmap import EMPTY_CELL_COLOR, render_heatmap_png

    acc = [[0.0] * 11 for _ in range(5)]
    counts = [[0] * 11 for _ in range(5)]
    counts[0][0] = 1  # one filled cell scoring 0: crimson; every other cell is empty
    png = render_heatmap_png(acc, counts, "t", x=SPEC.columns, y=SPEC.rows)
    colours = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 20) or []
    grey = tuple(int(EMPTY_CELL_COLOR[i:i + 2], 16) for i in (1, 3, 5))

    def pixels(rgb: tuple[int, ...]) -> int:
        return sum(n for n, c in colours if all(abs(a - b) <= 6 for a, b in zip(c, rgb, strict=True)))

    crimson = pixels((0xDC, 0x14, 0x3C))
    assert pixels(grey) > 20 * crimson > 0  # 54 grey cells, one crimson cell (plus the colour bar's end)


def test_help_lists_commands_in_pipeline_order() -> None:
    out = _cli("--help").stdout
    names = [m.group(1) for line in out.splitlines() if (m := re.match(r"│ ([a-z][a-z-]*) ", line))]
    assert names[:11] == ["list", "build", "import", "audit", "run", "merge", "score", "metric", "report", "export",
                          "eval"]


def test_build_progress_goes_to_stderr(tmp_path: Path) -> None:
    proc = _cli("build", "mm-niah", "--out", str(tmp_path / "ds"), "--lengths", "1k-2k", "--tasks",
                "retrieval-text", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # stdout stays pipeable
    assert "building mm-niah" in proc.stderr


def test_score_and_report_say_what_to_do_with_a_dataset_or_an_unscored_run(tmp_path: Path) -> None:
    run = _partial_run(tmp_path)
    proc = _cli("score", str(tmp_path / "ds"))  # a dataset given where a run belongs
    assert proc.returncode != 0 and "it is a dataset; niah run it, then score the run" in proc.stderr
    proc = _cli("report", str(tmp_path / "ds"), "--out", str(tmp_path / "rep"))
    assert proc.returncode != 0 and "it is a dataset; niah run it" in proc.stderr
    proc = _cli("report", str(run), "--out", str(tmp_path / "rep"))  # run, not scored yet
    assert proc.returncode != 0 and "score it first (niah score RUN)" in proc.stderr
