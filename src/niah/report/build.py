"""Build a report folder from loaded inputs: tables (Markdown, CSV, LaTeX), heatmaps, HTML, report.json.

Layout of DIR:
  index.html                   inputs, overall and per-task tables (with published rows), heatmaps
  samples-<slug>.html          sample browser of one run (filters by task, length, depth, correctness)
  tables.md                    every table in Markdown, in report order
  tables/mm_niah_<key>.{md,csv,tex}
  report.json                  the numbers behind the tables, for scripts
  assets/                      report.css, report.js, samples.js, heatmaps/<slug>/<task>.png,
                               samples/<slug>/{index,chunk-NNNNN}.js, thumbs/*.jpg
Every file is written atomically; nothing outside DIR is referenced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.iox import write_atomic, write_json_atomic
from niah.report.assets import REPORT_CSS, REPORT_JS, SAMPLES_JS
from niah.report.heatmap import write_heatmap
from niah.report.html import HeatmapLink, InputSummary, index_page, samples_page
from niah.report.inputs import ReportInput
from niah.report.published import PublishedResults, load_mm_niah_paper
from niah.report.samples import BrowserOptions, ThumbnailWriter, write_sample_browser
from niah.report.tables import (
    OVERALL_KEY,
    ResultTable,
    ordered_tasks,
    row_from_bin_scores,
    scoring_modes_html,
    scoring_modes_markdown,
    task_title,
    to_csv,
    to_latex,
    to_markdown,
)


@dataclass(slots=True)
class ReportOptions:
    published: bool = True           # show the MM-NIAH paper's rows when the protocol matches
    title: str = "niah report"
    browser: BrowserOptions = field(default_factory=BrowserOptions)
    sample_browser: bool = True


@dataclass(slots=True)
class ReportResult:
    out: Path
    index_html: Path
    tables: list[ResultTable]
    table_files: list[Path]
    heatmaps: list[Path]
    sample_pages: list[Path]
    notes: list[str]


def slugify(text: str, *, max_len: int = 40) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:max_len]
    return slug or "input"


def build_tables(inputs: Sequence[ReportInput], published: PublishedResults | None) -> list[ResultTable]:
    """Overall table (only inputs that have all six tasks) then one table per task, one row per input."""
    tasks = ordered_tasks({t for inp in inputs for t in inp.task_scores})
    tables: list[ResultTable] = []
    overall_rows = [row_from_bin_scores(inp.name, inp.overall) for inp in inputs if inp.overall is not None]
    if overall_rows:
        tables.append(ResultTable(key=OVERALL_KEY, title=task_title(OVERALL_KEY), rows=overall_rows,
                                  published=published.section(OVERALL_KEY) if published else None))
    for task in tasks:
        rows = [row_from_bin_scores(inp.name, inp.task_scores[task]) for inp in inputs if task in inp.task_scores]
        tables.append(ResultTable(key=task, title=task_title(task), rows=rows,
                                  published=published.section(task) if published else None))
    return tables


def _published_for(inputs: Sequence[ReportInput], enabled: bool, notes: list[str]) -> PublishedResults | None:
    if not enabled:
        return None
    paper = load_mm_niah_paper()
    mismatched = [inp for inp in inputs if not paper.matches(benchmark=inp.benchmark, scoring=inp.scoring)]
    if mismatched:
        notes.append("published MM-NIAH rows are not shown: "
                     + "; ".join(f"{inp.name} is benchmark {inp.benchmark or 'unknown'} with {inp.scoring} scoring"
                                 for inp in mismatched)
                     + " (they need benchmark mm-niah with official scoring)")
        return None
    split = paper.protocol.get("split")
    other = sorted({inp.split for inp in inputs if inp.split and inp.split != split})
    if other:
        notes.append(f"the published rows are from the {split} split; this report's inputs use "
                     f"{', '.join(other)}: compare with care")
    return paper


def _report_json(inputs: Sequence[ReportInput], tables: list[ResultTable], published: bool) -> dict[str, Any]:
    return {
        "format_version": 1,
        "inputs": [{"name": inp.name, "path": str(inp.path), "kind": inp.kind, "benchmark": inp.benchmark,
                    "scoring": inp.scoring, "split": inp.split, "rows": inp.num_rows,
                    "scores": {**inp.task_scores, **({OVERALL_KEY: inp.overall} if inp.overall else {})},
                    "cells": {t: {"acc": c.acc, "counts": c.counts, "unbinned": c.unbinned}
                              for t, c in inp.cells.items()}}
                   for inp in inputs],
        "tables": [t.key for t in tables],
        "published_shown": published,
    }


def build_report(inputs: Sequence[ReportInput], out: str | Path,
                 options: ReportOptions | None = None) -> ReportResult:
    """Write the whole report for ``inputs`` into ``out`` (created if needed) and return what was written."""
    options = options or ReportOptions()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    write_atomic(out / "assets" / "report.css", REPORT_CSS)
    write_atomic(out / "assets" / "report.js", REPORT_JS)
    write_atomic(out / "assets" / "samples.js", SAMPLES_JS)

    slugs: list[str] = []
    for i, inp in enumerate(inputs):
        slugs.append(f"{i + 1}-{slugify(inp.name)}")

    published = _published_for(inputs, options.published, notes)
    tables = build_tables(inputs, published)
    table_files: list[Path] = []
    downloads: list[tuple[str, str]] = []
    for table in tables:
        for ext, render in (("md", to_markdown), ("csv", to_csv), ("tex", to_latex)):
            rel = f"tables/{table.slug}.{ext}"
            write_atomic(out / rel, render(table))
            table_files.append(out / rel)
            downloads.append((f"{task_title(table.key)} ({ext})", rel))
    combined = "\n".join(to_markdown(t) for t in tables) + "\n" + scoring_modes_markdown(inputs)
    write_atomic(out / "tables.md", f"# {options.title}\n\n" + combined)
    downloads.insert(0, ("All tables (Markdown)", "tables.md"))

    heatmap_links: list[HeatmapLink] = []
    heatmap_files: list[Path] = []
    for inp, slug in zip(inputs, slugs, strict=True):
        for task in ordered_tasks(set(inp.cells)):
            cells = inp.cells[task]
            rel = f"assets/heatmaps/{slug}/{slugify(task)}.png"
            write_heatmap(out / rel, cells.acc, cells.counts, f"{inp.name} - {task_title(task)}")
            heatmap_files.append(out / rel)
            heatmap_links.append(HeatmapLink(input_name=inp.name, task=task, src=rel,
                                             samples=sum(map(sum, cells.counts)), unbinned=cells.unbinned))

    summaries: list[InputSummary] = []
    sample_pages: list[Path] = []
    thumbs = ThumbnailWriter(out, max_px=options.browser.thumb_px)
    for inp, slug in zip(inputs, slugs, strict=True):
        item = InputSummary(name=inp.name, kind=inp.kind, source=str(inp.path), benchmark=inp.benchmark,
                            split=inp.split, rows=inp.num_rows, samples_page=None)
        if inp.kind == "scores":
            item.notes.append("scores file only: tables, no heatmaps or samples")
        if options.sample_browser and inp.scored_path is not None:
            summary = write_sample_browser(inp, out, slug, options.browser, thumbs)
            page = out / summary.page
            write_atomic(page, samples_page(title=f"Samples: {inp.name}", input_name=inp.name,
                                            index_script=f"assets/samples/{slug}/index.js"))
            item.samples_page = summary.page
            item.notes.extend(summary.notes)
            sample_pages.append(page)
        summaries.append(item)

    index = out / "index.html"
    write_atomic(index, index_page(title=options.title, inputs=summaries, tables=tables,
                                   heatmaps=heatmap_links, downloads=downloads, notes=notes,
                                   modes_html=scoring_modes_html(inputs)))
    write_json_atomic(out / "report.json", _report_json(inputs, tables, published is not None))
    return ReportResult(out=out, index_html=index, tables=tables, table_files=table_files,
                        heatmaps=heatmap_files, sample_pages=sample_pages, notes=notes)
