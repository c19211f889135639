"""`niah report`: tables from hand-made rows, published rows, heatmap PNGs, prompt previews, the CLI.

The fixtures here (a small dataset with PNG images, scored.jsonl, run.json, scores.json) follow the formats
in the helper brief; test_report_html.py reuses ``make_run``/``make_scores_json`` for the browser tests.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from niah.benchmarks.mm_niah.bins import CONTEXT_LABELS
from niah.benchmarks.mm_niah.family import TASKS as MM_NIAH_TASKS
from niah.benchmarks.mm_niah.report import SPEC as MM_NIAH_REPORT
from niah.benchmarks.mm_niah.report import load_paper as load_mm_niah_paper
from niah.benchmarks.mm_niah.report import overall_bin_scores
from niah.report import BrowserOptions, ReportOptions, build_report, load_input, load_inputs
from niah.report.build import build_tables
from niah.report.heatmap import heatmap_size_px, render_heatmap_png
from niah.report.samples import ThumbnailWriter, needle_strings, preview_parts, safe_json
from niah.report.tables import (
    ResultTable,
    format_pct,
    row_from_bin_scores,
    to_csv,
    to_latex,
    to_markdown,
)
from niah.sample import Dataset, DatasetWriter, ImagePart, Sample, TextPart
from niah.util.errors import ConfigError, DataError

XSS_RESPONSE = "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned2'\">"
NEEDLE = "The secret ingredient of the cake is cardamom."


def png_bytes(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


# (id, task, context_length, depth list, score, response, answer, choices?)
RUN_ROWS: list[dict[str, Any]] = [
    {"id": "rt-1", "task": "retrieval-text", "context_length": 1500, "depth": [0.1], "score": 1.0,
     "response": "cardamom", "answer": "cardamom"},
    {"id": "rt-2", "task": "retrieval-text", "context_length": 1500, "depth": [0.1], "score": 0.0,
     "response": XSS_RESPONSE, "answer": "cardamom"},
    {"id": "rt-3", "task": "retrieval-text", "context_length": 1500, "depth": [0.5], "score": 1.0,
     "response": "Cardamom.", "answer": "cardamom"},
    # depth 0.6 lands in cell 2 (0.6 / 0.2 == 2.9999999999999996): the official quirk
    {"id": "rt-4", "task": "retrieval-text", "context_length": 2500, "depth": [0.6], "score": 1.0,
     "response": "cardamom", "answer": "cardamom"},
    # >= 64000 is the 64k bin; depth 1.0 counts as 0.99 (cell 4)
    {"id": "rt-5", "task": "retrieval-text", "context_length": 70000, "depth": [1.0], "score": 1.0,
     "response": "cardamom", "answer": "cardamom"},
    # under 1000 tokens: dropped from the official aggregation
    {"id": "rt-6", "task": "retrieval-text", "context_length": 900, "depth": [0.3], "score": 1.0,
     "response": "cardamom", "answer": "cardamom"},
    {"id": "ci-1", "task": "counting-image", "context_length": 5000, "depth": [0.2, 0.4], "score": 0.5,
     "response": "[1, 0]", "answer": [1, 1]},
    {"id": "ri-1", "task": "retrieval-image", "context_length": 9000, "depth": [0.9], "score": 0.0,
     "response": None, "answer": 2, "error": "timeout after 3 retries"},
]


def make_dataset(root: Path, rows: list[dict[str, Any]] = RUN_ROWS) -> Path:
    """A dataset with one sample per scored row: long text with the needle sentence, and two PNG images."""
    out = root / "dataset"
    with DatasetWriter(out) as writer:
        red = writer.write_media("img/red.png", png_bytes((200, 30, 30)))
        blue = writer.write_media("img/blue.png", png_bytes((30, 30, 200), (300, 120)))
        for row in rows:
            filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 60
            context = [TextPart(filler), ImagePart(red), TextPart(filler + NEEDLE + " " + filler),
                       ImagePart(blue), TextPart("The end of the document <b>bold</b>.")]
            choices = None
            if row["task"] == "retrieval-image":
                choices = [[ImagePart(red)], [ImagePart(blue)], [ImagePart(red)], [ImagePart(blue)]]
            writer.write(Sample(
                id=row["id"], benchmark="mm-niah", task=row["task"], context=context,
                question=[TextPart("What is the secret ingredient? <i>one word</i>")],
                answer=row["answer"], choices=choices,
                meta={"context_length": row["context_length"], "depth": row["depth"], "num_images": 2,
                      "needles": [NEEDLE]},
            ))
        writer.finish({"benchmark": "mm-niah", "split": "val"})
    return out


def make_run(root: Path, *, rows: list[dict[str, Any]] = RUN_ROWS, model: str = "tiny-model",
             with_dataset: bool = True) -> Path:
    """RUN_DIR with run.json and scored.jsonl (and a dataset beside it) in the brief's formats."""
    run = root / "run"
    run.mkdir(parents=True)
    dataset = make_dataset(root, rows) if with_dataset else None
    (run / "run.json").write_text(json.dumps({
        "dataset": str(dataset) if dataset else None, "model": model, "model_id": model,
        "generation": {"temperature": 0}, "benchmark": "mm-niah", "started": "2024-01-01T00:00:00",
        "finished": "2024-01-01T00:10:00", "counts": {"samples": len(rows)}}))
    with (run / "scored.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            depth = sum(row["depth"]) / len(row["depth"])
            fh.write(json.dumps({
                "id": row["id"], "task": row["task"], "benchmark": "mm-niah",
                "context_length": row["context_length"], "depth": depth, "num_images": 2,
                "answer": row["answer"], "response": row["response"], "error": row.get("error"),
                "score": row["score"], "scores": {"official": row["score"], "lenient": row["score"]},
            }) + "\n")
    return run


def six_task_scores(offset: float) -> dict[str, list[float]]:
    """Hand-made official-structure scores: task i has bin b = offset + 0.1 * i (b-independent) except 64k = 0."""
    return {task: [round(offset + 0.1 * i, 6)] * 10 + [0.0] for i, task in enumerate(MM_NIAH_TASKS)}


def make_scores_json(path: Path, scores: dict[str, list[float]], *, suffix: str = "") -> Path:
    doc: dict[str, Any] = {f"{k}{suffix}": v for k, v in scores.items()}
    doc["context_ranges"] = list(CONTEXT_LABELS)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


# ------------------------------------------------------------------------------------------------ tables

def test_run_dir_bins_follow_the_official_rules(tmp_path: Path) -> None:
    inp = load_input(make_run(tmp_path))
    assert inp.name == "tiny-model" and inp.kind == "run" and inp.benchmark == "mm-niah"
    assert inp.split == "val"  # from the dataset manifest
    cells = inp.cells["retrieval-text"]
    assert cells.unbinned == 1
    assert cells.counts[0][0] == 2 and cells.acc[0][0] == 0.5
    assert cells.counts[2][0] == 1 and cells.acc[2][0] == 1.0
    assert cells.counts[2][1] == 1  # depth 0.6 -> cell 2
    assert cells.counts[4][10] == 1  # 70000 tokens -> 64k, depth 1.0 -> cell 4
    # bin = mean over five depth cells, empty cells counting 0
    assert inp.task_scores["retrieval-text"] == [0.3, 0.2, 0, 0, 0, 0, 0, 0, 0, 0, 0.2]
    assert inp.task_scores["counting-image"][2] == 0.1  # depth mean 0.3 -> cell 1, 4000 <= 5000 < 8000
    assert inp.overall is None  # not all six tasks


def test_task_table_numbers_by_hand(tmp_path: Path) -> None:
    inp = load_input(make_run(tmp_path))
    tables = {t.key: t for t in build_tables([inp], None)}
    assert "overall" not in tables
    assert list(tables) == ["retrieval-text", "retrieval-image", "counting-image"]  # paper order
    row = tables["retrieval-text"].rows[0]
    # a bin prints the mean over its depth cells with samples: 1K (0.5 + 1.0) / 2, 2K and 64K one cell each;
    # Overall = (0.3 + 0.2 + 0.2) / 11 = 0.0636... -> 6.4 (official: empty cells and bins count 0; bins print -)
    assert row.cells() == ["75.0", "100.0"] + ["-"] * 8 + ["100.0", "6.4"]
    # beside it, the mean over the 3 bins that have samples: (0.75 + 1.0 + 1.0) / 3
    assert format_pct(row.filled) == "91.7"
    md = to_markdown(tables["retrieval-text"])
    assert "91.7 over the 3 bins with samples" in md and "a bin's empty cells as 0: the official rule" in md


def test_overall_table_needs_all_six_tasks_and_averages_them(tmp_path: Path) -> None:
    scores = six_task_scores(0.1)
    assert overall_bin_scores({k: v for k, v in scores.items() if k != "reasoning-image"}) is None
    # bins 1k..48k: mean of 0.1, 0.2, ..., 0.6 = 0.35; 64k: 0
    assert overall_bin_scores(scores) == [0.35] * 10 + [0.0]
    inp = load_input(make_scores_json(tmp_path / "modelA" / "scores.json", scores))
    assert inp.name == "modelA" and inp.kind == "scores" and inp.benchmark == "mm-niah"
    tables = build_tables([inp], None)
    assert tables[0].key == "overall"
    # Overall column: 10 * 0.35 / 11 = 0.31818 -> 31.8
    assert tables[0].rows[0].cells() == ["35.0"] * 10 + ["0.0", "31.8"]
    assert [t.key for t in tables[1:]] == list(MM_NIAH_TASKS)
    assert tables[3].rows[0].cells()[0] == "30.0"  # reasoning-text is task index 2 -> 0.1 + 0.2


def test_scores_json_with_leaderboard_suffixes_and_its_own_overall(tmp_path: Path) -> None:
    scores = six_task_scores(0.0)
    path = make_scores_json(tmp_path / "Leader" / "scores_test.json", scores, suffix="-test")
    doc = json.loads(path.read_text())
    doc["overall"] = [0.5] * 11  # the file's own overall wins over a recomputation
    path.write_text(json.dumps(doc))
    inp = load_input(path)
    assert inp.name == "Leader" and inp.split == "test" and set(inp.task_scores) == set(MM_NIAH_TASKS)
    assert inp.overall == [0.5] * 11


def test_multi_model_tables_have_one_row_per_input(tmp_path: Path) -> None:
    a = make_scores_json(tmp_path / "a.json", six_task_scores(0.1))
    b = make_scores_json(tmp_path / "b.json", six_task_scores(0.2))
    inputs = load_inputs([a, b], names=["Model A", "Model B"])
    tables = build_tables(inputs, None)
    assert [r.model for r in tables[0].rows] == ["Model A", "Model B"]
    assert tables[0].rows[1].cells()[0] == "45.0"
    with pytest.raises(ConfigError):
        load_inputs([a, b], names=["only one"])


def test_inputs_named_alike_are_told_apart_by_their_folder(tmp_path: Path) -> None:
    # Two runs of one model (e.g. before and after a change) must not become two rows called the same.
    runs = []
    for folder in ("first", "second", "third"):
        run = tmp_path / folder / ("sub" if folder == "third" else "")
        make_scores_json(run / "scores.json", six_task_scores(0.1))
        (run / "run.json").write_text(json.dumps({"model": "api:gpt-x", "benchmark": "mm-niah"}))
        runs.append(run)
    other = tmp_path / "other"
    make_scores_json(other / "scores.json", six_task_scores(0.2))
    (other / "run.json").write_text(json.dumps({"model": "api:gpt-y", "benchmark": "mm-niah"}))
    names = [inp.name for inp in load_inputs([*runs, other])]
    assert names == ["api:gpt-x (first)", "api:gpt-x (second)", "api:gpt-x (sub)", "api:gpt-y"]
    same = load_inputs([runs[0], runs[0]])
    assert [inp.name for inp in same] == ["api:gpt-x (first) #1", "api:gpt-x (first) #2"]
    assert [inp.name for inp in load_inputs(runs[:2], names=["A", "A"])] == ["A", "A"]  # the user's say


def test_format_pct_rounds_half_up_on_the_decimal_value() -> None:
    assert format_pct(12.35) == "12.4"  # binary 12.3499... would print 12.3 with f"{:.1f}"
    assert format_pct(0.05) == "0.1"
    assert format_pct(None) == "-"
    assert row_from_bin_scores("m", [0.1235] + [0.0] * 10).cells()[0] == "12.4"


def _small_table(published: bool) -> ResultTable:
    paper = load_mm_niah_paper()
    return ResultTable(key="retrieval-text", title="Retrieval-Text-Needle",
                       rows=[row_from_bin_scores("my|model_1", [1.0, 0.5] + [0.0] * 9)],
                       published=paper.section("retrieval-text") if published else None,
                       columns=CONTEXT_LABELS, prefix="mm_niah_")


def test_markdown_csv_latex_render_the_same_numbers() -> None:
    table = _small_table(published=False)
    md = to_markdown(table).splitlines()
    assert md[2] == "| Model | 1K | 2K | 4K | 8K | 12K | 16K | 24K | 32K | 40K | 48K | 64K | Overall |"
    assert md[4] == "| my\\|model\\_1 | 100.0 | 50.0 | " + " | ".join(["0.0"] * 9) + " | 13.6 |"
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows[0] == ["section", "Model", *[lbl.upper() for lbl in CONTEXT_LABELS], "Overall", "source"]
    assert rows[1] == ["this report", "my|model_1", "100.0", "50.0"] + ["0.0"] * 9 + ["13.6", ""]
    tex = to_latex(table)
    assert r"\toprule" in tex and r"\bottomrule" in tex and r"\begin{tabular}{lrrrrrrrrrrrr}" in tex
    assert r"my|model\_1 & 100.0 & 50.0 & 0.0" in tex


def test_published_section_is_marked_in_every_format() -> None:
    table = _small_table(published=True)
    md = to_markdown(table)
    assert "*Published: MM-NIAH paper, Table 6 (test split, official scoring)*" in md
    assert "| *GPT-4V* | 97.5 | 98.2 | 95.6 | 96.0 | 100.0 | 100.0 | 95.6 | 96.0 | 76.0 | 92.5 | 95.0 | 94.8 |" in md
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    published = [r for r in rows if r[0] == "published"]
    assert len(published) == 10 and published[0][1] == "Emu2-Chat"
    assert published[-1][1:14] == ["Human"] + ["100.0"] * 12
    tex = to_latex(table)
    assert r"\multicolumn{13}{l}{\textit{Published: MM-NIAH paper, Table 6" in tex
    assert tex.index("my|model") < tex.index("Emu2-Chat")


def test_markdown_table_with_empty_bins_keeps_published_rows_inside_the_table() -> None:
    paper = load_mm_niah_paper()
    row = row_from_bin_scores("mine", [1.0, 0.5] + [0.0] * 9, counts=[2, 2] + [0] * 9)
    table = ResultTable(key="retrieval-text", title="Retrieval-Text-Needle", rows=[row],
                        published=paper.section("retrieval-text"), columns=CONTEXT_LABELS, prefix="mm_niah_")
    md = to_markdown(table).splitlines()
    # one contiguous block of table lines from the header to the last published row; notes come after it
    first = md.index(next(line for line in md if line.startswith("| Model ")))
    last = max(i for i, line in enumerate(md) if line.startswith("| *Human* |"))
    assert all(line.startswith("|") for line in md[first:last + 1])
    assert any("75.0 over the 2 bins with samples" in line for line in md[last + 1:])
    one = ResultTable(key="retrieval-text", title="Retrieval-Text-Needle", columns=CONTEXT_LABELS, prefix="mm_niah_",
                      rows=[row_from_bin_scores("one", [0.5] + [0.0] * 10, counts=[2] + [0] * 10)], published=None)
    assert "50.0 over the 1 bin with samples" in to_markdown(one)


# ------------------------------------------------------------------------------------- published data

def test_published_transcription_overall_is_the_mean_of_the_bins() -> None:
    """Catches typos: each printed Overall must equal the mean of its 11 printed bins within rounding
    (0.05 for the printed Overall + at most 0.05 carried from the rounded bins)."""
    paper = load_mm_niah_paper()
    checked = 0
    for table in paper.tables.values():
        for row in table.rows:
            if row.overall is None:
                assert all(v is None for v in row.values)
                continue
            mean = sum(row.values) / len(row.values)
            assert abs(mean - row.overall) <= 0.1 + 1e-9, (table.table, row.model, mean, row.overall)
            checked += 1
    assert checked == 10 * 4 - 1 + 9 * 3  # GPT-4V has no Table 2 values


def test_published_table2_is_the_mean_of_tables_6_to_11() -> None:
    paper = load_mm_niah_paper()
    per_task = {t: {r.model: r for r in paper.tables[t].rows} for t in MM_NIAH_TASKS}
    compared = 0
    for row in paper.tables["overall"].rows:
        if not all(row.model in per_task[t] for t in MM_NIAH_TASKS):
            continue
        for b in range(len(CONTEXT_LABELS)):
            mean = sum(per_task[t][row.model].values[b] for t in MM_NIAH_TASKS) / len(MM_NIAH_TASKS)
            assert abs(mean - row.values[b]) <= 0.1 + 1e-9, (row.model, CONTEXT_LABELS[b])
            compared += 1
    assert compared == 9 * 11


def test_published_data_shape_and_protocol() -> None:
    paper = load_mm_niah_paper()
    assert {t.table for t in paper.tables.values()} == {2, 6, 7, 8, 9, 10, 11}
    assert paper.tables["retrieval-text"].table == 6 and paper.tables["reasoning-image"].table == 11
    models = [r.model for r in paper.tables["overall"].rows]
    assert models == ["Emu2-Chat", "VILA-13B", "IDEFICS2", "LLaVA-1.6-13B", "LLaVA-1.6-34B", "InternVL-1.5",
                      "InternVL-1.5-RAG", "Gemini-1.5", "GPT-4V", "Human"]
    assert "GPT-4V" not in [r.model for r in paper.tables["counting-image"].rows]
    gemini = {r.model: r for r in paper.tables["counting-image"].rows}["Gemini-1.5"]
    assert gemini.values[0] == 52.1 and gemini.values[-1] == 6.4 and gemini.overall == 13.8
    assert paper.protocol["benchmark"] == "mm-niah" and paper.protocol["scoring"] == "official"
    assert paper.protocol["split"] == "test"
    assert paper.matches(benchmark="mm-niah", scoring="official")
    assert not paper.matches(benchmark="milebench", scoring="official")
    assert not paper.matches(benchmark="mm-niah", scoring="lenient")
    assert "RAG" in paper.model_notes["InternVL-1.5-RAG"]


# -------------------------------------------------------------------------------------------- heatmap

def test_heatmap_png_has_the_configured_size_and_official_colours() -> None:
    from PIL import Image

    acc = [[1.0] * 11 for _ in range(2)] + [[0.0] * 11 for _ in range(3)]
    counts = [[5] * 11 for _ in range(5)]  # 5 samples: drawn at full colour (fewer are faded)
    counts[4][0] = 0
    axes = {"x": MM_NIAH_REPORT.columns, "y": MM_NIAH_REPORT.rows}
    png = render_heatmap_png(acc, counts, "m - Retrieval-Text-Needle", **axes)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == heatmap_size_px() == (900, 400)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None

    def share(rgb: tuple[int, int, int]) -> float:
        near = sum(n for n, c in colours if all(abs(a - b) <= 6 for a, b in zip(c, rgb, strict=True)))
        return near / (image.size[0] * image.size[1])

    assert share((0x3C, 0xB3, 0x71)) > 0.08  # two rows at 1.0: medium sea green
    assert share((0xDC, 0x14, 0x3C)) > 0.12  # three rows at 0.0: crimson
    with pytest.raises(ValueError):
        render_heatmap_png([[0.0] * 10] * 5, None, "bad shape", **axes)


# -------------------------------------------------------------------------------------- sample preview

def test_preview_keeps_head_tail_and_needle_window_and_marks_the_needle() -> None:
    filler = "x" * 5000
    parts = [TextPart(filler), ImagePart("media/a.png"), TextPart(filler + NEEDLE + filler), TextPart("END")]
    seen: list[tuple[str, bool]] = []

    def ref(path: str, needle: bool) -> dict[str, Any]:
        seen.append((path, needle))
        return {"src": None, "name": path}

    segs = preview_parts(parts, [NEEDLE], ref, head=100, tail=50, window=20)
    kinds = [s[0] for s in segs]
    assert kinds == ["t", "g", "i", "g", "t", "n", "t", "g", "t", "t"]
    assert segs[0] == ["t", "x" * 100]
    assert segs[1] == ["g", 4900]  # the rest of the first part; the image keeps its place after it
    assert segs[5] == ["n", NEEDLE]
    assert segs[4] == ["t", "x" * 20] and segs[6] == ["t", "x" * 20]
    assert segs[-1] == ["t", "END"] and segs[-2] == ["t", "x" * 47]
    total_text = sum(len(p.text) for p in parts if isinstance(p, TextPart))
    shown = sum(len(s[1]) for s in segs if s[0] in ("t", "n")) + sum(s[1] for s in segs if s[0] == "g")
    assert shown == total_text  # every character is either shown or counted as omitted
    assert seen == [("media/a.png", False)]


def test_preview_of_short_text_is_whole_and_image_needles_are_flagged() -> None:
    parts = [TextPart("short " + NEEDLE), ImagePart("media/needles/cat.png")]
    segs = preview_parts(parts, needle_strings({"needles": [NEEDLE, "needles/cat.png"]}),
                         lambda p, n: {"src": None, "name": p, "needle": n})
    assert segs == [["t", "short "], ["n", NEEDLE], ["i", {"src": None, "name": "media/needles/cat.png",
                                                          "needle": True}]]


def test_preview_cuts_between_words_but_never_through_a_needle() -> None:
    words = "alpha beta gamma delta " * 200
    segs = preview_parts([TextPart(words + NEEDLE + " " + words)], [NEEDLE], lambda p, n: {},
                         head=100, tail=50, window=30)
    assert [s[0] for s in segs] == ["t", "g", "t", "n", "t", "g", "t"]
    head, before, after, tail = segs[0][1], segs[2][1], segs[4][1], segs[6][1]
    assert head.endswith("alpha") and len(head) <= 100  # cut at the last space before 100 characters
    assert before.startswith("delta ") and after == " alpha beta gamma delta alpha"
    assert tail.startswith("alpha ") and tail.endswith("delta ")
    assert segs[3] == ["n", NEEDLE]


def test_safe_json_cannot_close_a_script() -> None:
    text = safe_json({"r": "</script><!-- \u2028 & >"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"r": "</script><!-- \u2028 & >"}


def test_thumbnails_are_small_jpegs_inside_the_report(tmp_path: Path) -> None:
    from PIL import Image

    dataset = Dataset(make_dataset(tmp_path))
    thumbs = ThumbnailWriter(tmp_path / "report", max_px=40)
    rel = thumbs.thumb(dataset.resolve_media("media/img/blue.png"))
    assert rel is not None and rel.startswith("assets/thumbs/") and rel.endswith(".jpg")
    with Image.open(tmp_path / "report" / rel) as im:
        assert im.format == "JPEG" and max(im.size) == 40
    assert thumbs.thumb(dataset.resolve_media("media/img/blue.png")) == rel and thumbs.written == 1
    bogus = tmp_path / "dataset" / "media" / "not-an-image.png"
    bogus.write_bytes(b"nope")
    assert thumbs.thumb(bogus) is None
    with pytest.raises(DataError):
        dataset.resolve_media("../../outside.png")


# ------------------------------------------------------------------------------------------ build + CLI

def test_build_report_writes_everything(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    out = tmp_path / "report"
    result = build_report(load_inputs([run]), out, ReportOptions(browser=BrowserOptions(chunk_size=3)))
    assert (out / "index.html").is_file() and (out / "tables.md").is_file()
    assert sorted(p.name for p in result.heatmaps) == ["counting-image.png", "retrieval-image.png",
                                                       "retrieval-text.png"]
    for key in ("retrieval_text", "retrieval_image", "counting_image"):
        for ext in ("md", "csv", "tex"):
            assert (out / "tables" / f"mm_niah_{key}.{ext}").is_file()
    md = (out / "tables" / "mm_niah_retrieval_text.md").read_text()
    # 2K: one sample right in its one depth cell with samples: Wilson (1 of 1) [20.65, 100];
    # 1K: the bootstrap of (cell 0 mean + cell 2) / 2 over its three samples runs from all 0 to all 1: [0, 100]
    assert "| tiny-model | 75.0 [0.0-100.0] | 100.0 [20.7-100.0] |" in md
    assert "Each value is followed by its 95% interval" in (out / "tables.md").read_text()
    assert "Published: MM-NIAH paper, Table 6" in md  # mm-niah + official scoring: shown
    chunks = sorted((out / "assets" / "samples" / "1-tiny-model").glob("chunk-*.js"))
    assert len(chunks) == 3  # 8 samples, 3 per chunk
    index = (out / "assets" / "samples" / "1-tiny-model" / "index.js").read_text()
    assert index.startswith("window.NIAH_INDEX=") and "<" not in index
    thumbs = list((out / "assets" / "thumbs").glob("*.jpg"))
    assert len(thumbs) == 2  # two distinct source images, each thumbnailed once
    report = json.loads((out / "report.json").read_text())
    assert report["inputs"][0]["scores"]["retrieval-text"][0] == 0.3
    html_text = (out / "index.html").read_text()
    for href in ("assets/heatmaps/1-tiny-model/retrieval-text.png", "samples-1-tiny-model.html"):
        assert href in html_text
    assert "http://" not in html_text and "https://" not in html_text


def test_published_rows_hidden_for_other_protocols_and_on_request(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    build_report(load_inputs([run]), tmp_path / "r1", ReportOptions(published=False))
    assert "Published" not in (tmp_path / "r1" / "tables" / "mm_niah_retrieval_text.md").read_text()
    run_json = json.loads((run / "run.json").read_text())
    run_json["scoring"] = "lenient"  # the paper's numbers are official scores: not comparable
    (run / "run.json").write_text(json.dumps(run_json))
    result = build_report(load_inputs([run]), tmp_path / "r2")
    assert "Published" not in (tmp_path / "r2" / "tables" / "mm_niah_retrieval_text.md").read_text()
    assert any("not shown" in n for n in result.notes)


def test_thumbnail_cap_per_cell_and_sample_cap(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    out = tmp_path / "report"
    build_report(load_inputs([run]), out, ReportOptions(browser=BrowserOptions(thumbs_per_cell=0)))
    assert not list((out / "assets").glob("thumbs/*.jpg"))
    out2 = tmp_path / "report2"
    build_report(load_inputs([run]), out2, ReportOptions(browser=BrowserOptions(samples_per_cell=1)))
    index = (out2 / "assets" / "samples" / "1-tiny-model" / "index.js").read_text()
    data = json.loads(index[len("window.NIAH_INDEX="):-2])
    assert len(data["rows"]) == 7  # rt-1 and rt-2 share a cell; only the first is listed
    assert [r[7] for r in data["rows"]][:2] == ["rt-1", "rt-3"]


def test_bad_scored_row_names_file_line_and_field(tmp_path: Path) -> None:
    run = make_run(tmp_path, with_dataset=False)
    with (run / "scored.jsonl").open("a") as fh:
        fh.write(json.dumps({"id": "x", "task": "retrieval-text", "score": "high"}) + "\n")
    with pytest.raises(DataError) as info:
        load_input(run)
    assert info.value.line == len(RUN_ROWS) + 1 and info.value.field == "score"
    assert str(info.value.file).endswith("scored.jsonl")


def test_scores_json_with_wrong_length_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"retrieval-text": [0.1] * 10}))
    with pytest.raises(DataError) as info:
        load_input(path)
    assert info.value.field == "retrieval-text"


def test_cli_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    run = make_run(tmp_path)
    scores = make_scores_json(tmp_path / "other" / "scores.json", six_task_scores(0.2))
    out = tmp_path / "cli-report"
    result = CliRunner().invoke(app, ["report", str(run), str(scores), "--out", str(out),
                                      "--name", "Mine", "--name", "Other", "--thumbs-per-cell", "1"])
    assert result.exit_code == 0, result.output
    assert "report:" in result.output
    overall = (out / "tables" / "mm_niah_overall.md").read_text()
    # only "Other" has all six tasks; the paper's Table 2 sits below it
    assert "| Other | 45.0 |" in overall and "| Mine |" not in overall
    assert "*Published: MM-NIAH paper, Table 2 (test split, official scoring)*" in overall
    assert (out / "samples-1-Mine.html").is_file() and not (out / "samples-2-Other.html").exists()


def _chunk_records(out: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for chunk in sorted(out.glob("assets/samples/*/chunk-*.js")):
        text = chunk.read_text()
        records.extend(json.loads(text[text.index(",") + 1:-3]))
    return records


def test_media_paths_escaping_the_dataset_are_refused_not_thumbnailed(tmp_path: Path) -> None:
    rows = [dict(RUN_ROWS[0])]
    run = make_run(tmp_path, rows=rows)
    samples = tmp_path / "dataset" / "samples.jsonl"
    sample = json.loads(samples.read_text())
    secret = tmp_path / "secret.png"
    secret.write_bytes(png_bytes((1, 2, 3)))
    sample["context"][1] = {"type": "image", "path": "../secret.png"}
    samples.write_text(json.dumps(sample) + "\n")
    out = tmp_path / "report"
    build_report(load_inputs([run]), out)
    (record,) = _chunk_records(out)
    images = [seg[1] for seg in record["context"] if seg[0] == "i"]
    assert images[0] == {"src": None, "name": "secret.png", "note": "path outside the dataset (refused)"}
    assert images[1]["src"].startswith("assets/thumbs/")
    assert len(list((out / "assets" / "thumbs").glob("*.jpg"))) == 1  # only the in-dataset image


def test_browser_without_dataset_still_lists_responses(tmp_path: Path) -> None:
    run = make_run(tmp_path, with_dataset=False)
    out = tmp_path / "report"
    result = build_report(load_inputs([run]), out)
    records = _chunk_records(out)
    assert [r["id"] for r in records] == [r["id"] for r in RUN_ROWS]
    assert records[1]["response"] == XSS_RESPONSE and "context" not in records[1]
    assert records[-1]["gold"] == "2" and records[-1]["status"] == "error"
    assert result.sample_pages and "no dataset" in (out / "index.html").read_text()


def test_run_dir_with_only_scores_json_uses_run_json_model(tmp_path: Path) -> None:
    run = tmp_path / "run"
    make_scores_json(run / "scores.json", six_task_scores(0.1))
    (run / "run.json").write_text(json.dumps({"model": "api:gpt-x", "benchmark": "mm-niah"}))
    inp = load_input(run)
    assert inp.kind == "scores" and inp.name == "api:gpt-x" and inp.overall == [0.35] * 10 + [0.0]


def test_improved_scoring_modes_are_shown_beside_official_with_disagreements(tmp_path: Path) -> None:
    run = make_run(tmp_path, model="<b>m</b>", with_dataset=False)
    # rt-2 answered "(C)"-style: official 0, lenient 1 (one disagreement in retrieval-text)
    lines = (run / "scored.jsonl").read_text().splitlines()
    rows = [json.loads(x) for x in lines]
    for r in rows:
        if r["id"] == "rt-2":
            r["scores"]["lenient"] = 1.0
    (run / "scored.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    inp = load_input(run)
    assert inp.mode_disagreements == {"lenient": {"retrieval-text": 1, "counting-image": 0,
                                                  "retrieval-image": 0}}
    # rt-1 and rt-2 share the (1k, depth cell 0) cell: official 0.5, lenient 1.0 -> the 1k bin gains 0.5 / 5
    official, lenient = inp.task_scores["retrieval-text"], inp.mode_scores["lenient"]["retrieval-text"]
    assert round(lenient[0] - official[0], 6) == 0.1 and lenient[1:] == official[1:]
    result = build_report([inp], tmp_path / "rep", ReportOptions(published=False))
    md = (tmp_path / "rep" / "tables.md").read_text()
    assert "| Retrieval" not in md.split("**Scoring modes**")[1]  # the modes table uses task keys
    line = next(x for x in md.splitlines() if "| retrieval-text | lenient |" in x)
    assert line.endswith("| 1 |")
    page = result.index_html.read_text()
    assert "Scoring modes" in page and "&lt;b&gt;m&lt;/b&gt;" in page and "<b>m</b>" not in page


def test_breakdown_by_image_count_is_the_mean_per_bucket(tmp_path: Path) -> None:
    rows = [dict(r) for r in RUN_ROWS]
    result = build_report(load_inputs([make_run(tmp_path, rows=rows)]), tmp_path / "rep")
    md = (tmp_path / "rep" / "tables.md").read_text()
    # make_run writes num_images = 2 for every row: one bucket, the mean of all official scores
    mean = sum(r["score"] for r in rows) / len(rows) * 100
    assert f"| tiny-model | {format_pct(mean)} ({len(rows)}) |" in md
    assert "By images in the context" in result.index_html.read_text()


def test_column_headers_spell_token_counts_like_the_papers_and_keep_other_labels() -> None:
    from niah.report.tables import column_label

    assert [column_label(x) for x in ("1k-2k", "64k-72k", "128k", ">72k", "8K")] == [
        "1K-2K", "64K-72K", "128K", ">72K", "8K"]
    assert [column_label(x) for x in ("MCQ accuracy", "<=5m", "30m")] == ["MCQ accuracy", "<=5m", "30m"]


# ------------------------------------------------------------------------- issue 21: swap, marker, foreign folders


def test_a_report_killed_half_way_leaves_the_old_report_whole(tmp_path: Path, monkeypatch) -> None:
    import niah.report.build as build_module
    from niah.report.build import REPORT_MARKER

    inp = load_input(make_run(tmp_path))
    out = tmp_path / "report"
    build_report([inp], out, ReportOptions(sample_browser=False))
    marker = json.loads((out / REPORT_MARKER).read_text())
    assert marker["written_by"] == "niah report"
    before = {p: p.read_bytes() for p in (out / "tables.md", out / "index.html")}

    def killed(**_: Any) -> str:
        raise KeyboardInterrupt  # stands in for a kill after tables.md was written, before index.html
    monkeypatch.setattr(build_module, "index_page", killed)
    with pytest.raises(KeyboardInterrupt):
        build_report([inp], out, ReportOptions(sample_browser=False, title="a new title"))
    assert {p: p.read_bytes() for p in before} == before  # today's main: tables.md new, index.html old
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".report")) == []


def test_report_out_refuses_a_folder_it_did_not_write(tmp_path: Path) -> None:
    inp = load_input(make_run(tmp_path))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own notes")
    with pytest.raises(ConfigError, match="not written by niah report"):
        build_report([inp], mine, ReportOptions(sample_browser=False))
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    result = build_report([inp], empty, ReportOptions(sample_browser=False))
    assert result.index_html == empty / "index.html" and result.index_html.is_file()
    assert all(p.is_file() and p.is_relative_to(empty) for p in result.table_files)
    build_report([inp], empty, ReportOptions(sample_browser=False))  # its own report is replaced


def test_a_writer_killed_between_the_two_renames_leaves_nothing_behind_the_next_write(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from niah.util.iox import replace_dir

    inp = load_input(make_run(tmp_path))
    out = tmp_path / "report"
    build_report([inp], out, ReportOptions(sample_browser=False))
    # what a kill -9 between os.replace(out, trash) and os.replace(tmp, out) leaves: a dead writer's trash
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    out.rename(tmp_path / f".report.old-{dead.stdout.strip()}")
    alive = tmp_path / f".report.old-{os.getpid()}-x"  # not a pid: never touched
    alive.mkdir()
    build_report([inp], out, ReportOptions(sample_browser=False))
    assert (out / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".report")) == [alive.name]
    # a live writer's trash (its swap in progress) is left alone
    live = tmp_path / f".report.old-{os.getppid()}"
    live.mkdir()
    staging = tmp_path / "staging"
    staging.mkdir()
    replace_dir(staging, out)
    assert live.is_dir() and out.is_dir() and not any(out.iterdir())
