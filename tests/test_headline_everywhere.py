"""One headline figure per run, printed the same by every reader: `niah score`, `niah eval`, and the report's
leaderboard (Markdown, CSV, HTML, report.json), its overall table and its accuracy-vs-length chart data, for a
small build of every family with a builder (a full grid, partial grids, MMLongBench's flip below 50) and an
imported InfiniBench set (no builder: its official QA files, read in place)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from niah.report.tables import baseline_tag, format_pct
from niah.scoring.score import headline_figure
from support.cli import invoke_ok

#: family -> the options of a small build that `niah eval` makes (each a different shape of grid)
BUILDS: dict[str, list[str]] = {
    # six tasks at two of eleven lengths: the official overall counts nine empty bins 0
    "mm-niah-partial": ["--family", "mm-niah", "--lengths", "1k,2k"],
    # the README's walk-through: one length, one sample a cell; a run that answers nothing right is still partial
    "mm-niah-1k": ["--family", "mm-niah", "--lengths", "1k", "--per-cell", "1"],
    # three of six tasks: the official overall is undefined
    "mm-niah-text": ["--family", "mm-niah", "--tasks", "retrieval-text,counting-text,reasoning-text",
                     "--lengths", "1k,2k"],
    "seq-niah": ["--family", "seq-niah"],
    "milebench": ["--family", "milebench"],
    # one yes/no set: the random baseline's accuracy below 50 is flipped as officially
    "mmlongbench": ["--family", "mmlongbench"],
    "video-niah": ["--family", "video-niah"],
    # no builder: official-shaped QA files imported (MCQ scored by rule, open-ended items waiting for a judge)
    "infinibench": [],
}


def _dataset_args(build: str, root: Path) -> tuple[list[str], list[str]]:
    """What `niah eval` is given to make or load the build's dataset, and what every command reading the
    dataset's media needs besides."""
    if build != "infinibench":
        return BUILDS[build], []
    from support.infinibench_fixtures import write_qa_files, write_videos

    write_videos(root / "videos")
    write_qa_files(root / "qa")
    media = ["--media-root", str(root / "videos")]
    invoke_ok(["import", "infinibench", str(root / "qa"), *media, "--out", str(root / "dataset")])
    return [str(root / "dataset")], media


def _value(cell: str) -> str:
    return cell.split(" [", 1)[0]


def _answer_nothing_right(oracle: Path, out: Path) -> None:
    """A copy of the oracle's run under another model name, every reply replaced by one no task accepts."""
    shutil.copytree(oracle, out)
    rows = [json.loads(line) for line in (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()]
    (out / "responses.jsonl").write_text("".join(json.dumps({**row, "response": "nothing", "model": WRONG}) + "\n"
                                                 for row in rows), encoding="utf-8")
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    run["model"] = run["model_spec"]["spec"] = WRONG
    (out / "run.json").write_text(json.dumps(run), encoding="utf-8")
    for name in ("scores.json", "scores.lenient.json", "scored.jsonl", "scored.sources.json"):
        (out / name).unlink(missing_ok=True)


#: the model name of the run that answers nothing right
WRONG = "answers-nothing"


def _interval_cell(ci95: list[float] | None) -> str:
    """An interval as the leaderboard's Markdown prints it."""
    return "-" if ci95 is None else f"[{format_pct(ci95[0])}, {format_pct(ci95[1])}]"


def _figure(run: Path) -> tuple[str, Any]:
    doc = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    head = headline_figure(doc)
    assert head.value is not None
    return format_pct(head.value), head


@pytest.mark.slow
@pytest.mark.parametrize("build", sorted(BUILDS))
def test_every_reader_prints_the_same_headline(tmp_path: Path, build: str) -> None:
    out = tmp_path / "ev"
    source, media = _dataset_args(build, tmp_path)
    printed_eval = invoke_ok(["eval", *source, "--model", "baseline:random", "--out", str(out), *media,
                              "--no-progress", "--no-audit", "--no-published"])
    dataset = out / "dataset" if (out / "dataset").is_dir() else tmp_path / "dataset"
    oracle = out / "oracle"
    invoke_ok(["run", str(dataset), "--model", "baseline:oracle", "--out", str(oracle), "--no-progress", *media])
    runs = {"baseline:random": out / "run", "baseline:oracle": oracle}
    if build == "mm-niah-1k":
        _answer_nothing_right(oracle, tmp_path / "wrong")
        runs[WRONG] = tmp_path / "wrong"
    printed_score = {model: invoke_ok(["score", str(run)]) for model, run in runs.items()}
    report = tmp_path / "report"
    invoke_ok(["report", *map(str, runs.values()), "--out", str(report), "--no-published", *media])

    board_csv = {r["model"]: r for r in csv.DictReader(io.StringIO(
        (report / "tables" / "leaderboard.csv").read_text(encoding="utf-8")))}
    board_md = (report / "tables" / "leaderboard.md").read_text(encoding="utf-8")
    html = (report / "index.html").read_text(encoding="utf-8")
    doc = json.loads((report / "report.json").read_text(encoding="utf-8"))
    board_json = {r["model"]: r for r in doc["leaderboard"]}
    overall_csv = sorted((report / "tables").glob("*overall.csv"))
    overall_rows = ({r["Model"]: r for r in csv.DictReader(io.StringIO(overall_csv[0].read_text(encoding="utf-8")))
                     if r["section"] == "this report"} if overall_csv else {})
    charts = {s["name"]: s for c in doc["length_charts"] for s in c["series"]}
    assert all((report / c["src"]).is_file() for c in doc["length_charts"])  # each chart drawn from its data
    for model, run in runs.items():
        figure, head = _figure(run)
        benchmark = json.loads((run / "scores.json").read_text(encoding="utf-8"))["benchmark"]
        # niah score's headline line, and niah eval's (the random run) the same line
        line = next(x for x in printed_score[model].splitlines() if x.startswith(f"{benchmark}: ") and ", n=" in x)
        assert f" {figure}%" in line.split(", n=")[0], (line, figure)
        if head.basis != "official":  # a partial grid: the official figure is labelled, never the headline
            assert "official overall" in line
        if head.ci95 is not None:  # an interval holds its figure (a resample mixing item kinds broke it)
            assert head.ci95[0] <= head.value <= head.ci95[1], head
        # every figure printed has its interval, the one niah score stored beside it
        assert head.ci95 is not None, head
        assert f" {figure}% (95% CI {head.ci95[0]:.1f}-{head.ci95[1]:.1f}" in line, (line, head)
        if model == WRONG:  # all wrong on part of the grid: still the part's figure, with its own interval
            assert head.basis == "covered" and head.value == 0.0 and 10.0 < head.ci95[1] < 12.0, head
        if model == "baseline:random":
            assert line.replace(" ", "") in printed_eval.replace("\n", "").replace(" ", "")
        # the leaderboard in every format
        assert board_csv[model]["overall"] == figure and board_csv[model]["basis"] == head.basis
        assert board_csv[model]["official_overall"] == head.official_note
        assert (board_csv[model]["ci_low"], board_csv[model]["ci_high"]) == (
            format_pct(head.ci95[0]), format_pct(head.ci95[1])), (board_csv[model], head)
        assert f"| {model} | {benchmark} | {figure} | {head.n} | {_interval_cell(head.ci95)} |" in board_md
        assert f"<td>{figure}</td><td>{head.n}</td><td>{_interval_cell(head.ci95)}</td>" in html
        assert [format_pct(board_json[model][end] * 100) for end in ("low", "high")] == [
            format_pct(end) for end in head.ci95]
        # an offline baseline's row carries its visible tag (report.tables.baseline_tag)
        assert f'<th scope="row">{model}{baseline_tag(model)}</th><td>{benchmark}</td><td>{figure}</td>' in html
        assert format_pct(board_json[model]["score"] * 100) == figure
        if build == "mmlongbench" and model == "baseline:random":  # its yes/no accuracy below 50, flipped: labelled
            flip = "vh_single official flip below 50: accuracy 0.0 at 8K reported as 100 minus it"
            assert flip in line and flip in board_csv[model]["official_overall"] and flip in board_md
            assert "  vh_single: 100.0% (95% CI" in printed_score[model] and flip.split(" ", 1)[1] in printed_score[model]
        # the overall table's last column: the Overall, or the Overall over the bins with samples
        if model in overall_rows:
            row = overall_rows[model]
            assert _value(list(row.values())[-2]) == figure, row
            if head.basis == "covered":  # the figure over the bins with samples, with the one stored interval
                shown = list(row.values())[-2]
                assert shown.endswith(f"[{format_pct(head.ci95[0])}-{format_pct(head.ci95[1])}]"), (shown, head)
        # the chart's points are the bins its table prints; their mean is the headline where it is a mean of bins
        if build == "infinibench":  # skills, no length axis: no accuracy-vs-length chart
            assert model not in charts
            continue
        series = charts[model]
        points = [p["score"] * 100 for p in series["points"]]
        if model in overall_rows:
            row = overall_rows[model]
            assert [format_pct(p) for p in points] == [_value(row[_label(p["bin"])]) for p in series["points"]]
        if series["basis"] == "covered":
            assert format_pct(sum(points) / len(points)) == figure


def _label(label: str) -> str:
    from niah.report.tables import column_label

    return column_label(label)
