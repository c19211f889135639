"""HTML pages of the report: the index (inputs, tables, heatmaps) and one sample-browser shell per run.

Pages are built as strings with every piece of run, model or dataset text passed through ``html.escape``;
the sample browser's data lives in separate script files (see ``niah.report.samples``) and is rendered by a
static script with ``textContent``, so nothing from a run is ever parsed as markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from niah.report.heatmap import CELL_LEGEND, heatmap_size_px
from niah.report.tables import ResultTable, to_html

esc = html.escape


@dataclass(slots=True)
class HeatmapLink:
    input_name: str
    task: str
    src: str                 # relative to the report root
    samples: int
    unbinned: int
    title: str = ""
    unbinned_note: str = "not binned"
    legend: str = CELL_LEGEND  # what the figure's cells are worth (heatmap.cell_legend of its counts)


@dataclass(slots=True)
class CompareLink:
    """A side-by-side figure of one task: a panel per model (``models``, in report order)."""

    task: str
    title: str
    src: str                 # relative to the report root
    models: list[str]
    left_out: list[str]      # runs of the family binned on another row axis
    width: int
    height: int
    legend: str = CELL_LEGEND


@dataclass(slots=True)
class InputSummary:
    name: str
    kind: str
    source: str
    benchmark: str | None
    split: str | None
    rows: int
    samples_page: str | None
    notes: list[str] = field(default_factory=list)


def _page(title: str, body: str, scripts: list[str]) -> str:
    script_tags = "\n".join(f'<script src="{esc(src)}"></script>' for src in scripts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        # No network at all: the report is self-contained (images and scripts from its own folder only).
        # 'self' covers a served report, file: one opened from disk (where some browsers give 'self' no match).
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' file:; "
        "script-src 'self' file:; style-src 'self' file:; object-src 'none'; base-uri 'none'\">\n"
        f"<title>{esc(title)}</title>\n<link rel=\"stylesheet\" href=\"assets/report.css\">\n</head>\n"
        f"<body>\n{body}\n{script_tags}\n</body>\n</html>\n"
    )


def index_page(*, title: str, inputs: list[InputSummary], tables: list[ResultTable],
               heatmaps: list[HeatmapLink], downloads: list[tuple[str, str]], notes: list[str],
               modes_html: str = "", footnotes: list[str] | None = None,
               incomplete: list[str] | None = None, compare_html: str = "",
               compare_heatmaps: list[CompareLink] | None = None, reading: Sequence[str] = ()) -> str:
    parts = [f"<h1>{esc(title)}</h1>"]
    for note in incomplete or ():  # partial runs must never pass for finished ones
        parts.append(f'<div class="banner incomplete" role="alert"><strong>Incomplete run</strong> {esc(note)}</div>')
    parts.append('<table class="inputs"><caption>Inputs</caption><thead><tr><th>Model</th><th>Source</th>'
                 "<th>Kind</th><th>Benchmark</th><th>Split</th><th>Scored rows</th><th>Samples</th>"
                 "</tr></thead><tbody>")
    for item in inputs:
        link = (f'<a href="{esc(quote(item.samples_page))}">browse samples</a>' if item.samples_page else "-")
        parts.append(f"<tr><th scope=\"row\">{esc(item.name)}</th><td>{esc(item.source)}</td>"
                     f"<td>{esc(item.kind)}</td><td>{esc(item.benchmark or '-')}</td>"
                     f"<td>{esc(item.split or '-')}</td><td>{item.rows if item.kind == 'run' else '-'}</td>"
                     f"<td>{link}</td></tr>")
    parts.append("</tbody></table>")
    all_notes = list(notes) + [f"{item.name}: {n}" for item in inputs for n in item.notes]
    if all_notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in all_notes) + "</ul>")
    if tables:
        parts.append("<nav><p>Tables: " + " · ".join(
            f'<a href="#task-{esc(t.key)}">{esc(t.title)}</a>' for t in tables) + "</p></nav>")
    if reading:  # how to read the intervals, before the first number (it was one dense paragraph at the end)
        parts.append('<details class="reading" open><summary>How to read the numbers</summary><ul>'
                     + "".join(f"<li>{esc(item)}</li>" for item in reading) + "</ul></details>")
    if compare_html:  # the leaderboard and accuracy-vs-length charts, escaped by niah.report.compare
        parts.append(compare_html)
    by_task: dict[str, list[HeatmapLink]] = {}
    for hm in heatmaps:
        by_task.setdefault(hm.task, []).append(hm)
    side_by_side: dict[str, list[CompareLink]] = {}
    for figure in compare_heatmaps or ():
        side_by_side.setdefault(figure.task, []).append(figure)
    pages: dict[str, str | None] = {item.name: item.samples_page for item in inputs if item.samples_page}
    shown_tasks = {t.key for t in tables}
    for table in tables:
        parts.append(f'<section id="task-{esc(table.key)}"><h2>{esc(table.title)}</h2>')
        parts.append(to_html(table))
        parts.append(_compare_figures(side_by_side.pop(table.key, [])))
        parts.append(_heatmap_figures(by_task.get(table.key, []), pages))
        parts.append("</section>")
    for task, links in by_task.items():  # heatmaps of tasks without a table (should not happen, but show them)
        if task not in shown_tasks:
            parts.append(f'<section id="task-{esc(task)}"><h2>{esc(links[0].title or task)}</h2>')
            parts.append(_heatmap_figures(links, pages))
            parts.append("</section>")
    if modes_html:  # already escaped by niah.report.tables.scoring_modes_html
        parts.append(modes_html)
    if downloads:
        parts.append("<h2>Downloads</h2><ul>" + "".join(
            f'<li><a href="{esc(quote(href))}">{esc(label)}</a></li>' for label, href in downloads) + "</ul>")
    for note in footnotes or ():  # each family's note on how its values are computed
        parts.append(f'<p class="notes">{esc(note)}</p>')
    return _page(title, "\n".join(parts), ["assets/report.js"])


def _heatmap_figures(links: list[HeatmapLink], pages: dict[str, str | None]) -> str:
    out = []
    for hm in links:
        page = pages.get(hm.input_name)
        browse = ""
        if page:
            base = esc(quote(page))
            task = esc(quote(hm.task))
            browse = (f' · <a href="{base}#task={task}">browse samples</a>'
                      f' · <a href="{base}#task={task}&amp;status=wrong">wrong answers</a>')
        extra = f", {hm.unbinned} {hm.unbinned_note}" if hm.unbinned else ""
        width, height = heatmap_size_px()
        out.append(f'<figure class="heatmap"><img src="{esc(quote(hm.src))}" '
                   f'alt="{esc(hm.input_name)}: {esc(hm.task)} heatmap" width="{width}" height="{height}">'
                   f"<figcaption>{esc(hm.input_name)} - {esc(hm.title or hm.task)}: {hm.samples} samples"
                   f"{esc(extra)}. {esc(hm.legend)}{browse}</figcaption></figure>")
    return "\n".join(out)


def _compare_figures(links: list[CompareLink]) -> str:
    out = []
    for link in links:
        src = esc(quote(link.src))
        left_out = f"; left out (binned on another row axis): {', '.join(link.left_out)}" if link.left_out else ""
        out.append(f'<figure class="heatmap compare"><a href="{src}"><img src="{src}" '
                   f'alt="{esc(link.title)}: heatmaps side by side" width="{link.width}" height="{link.height}"></a>'
                   f"<figcaption>{esc(link.title)}, side by side: {esc(', '.join(link.models))}{esc(left_out)}. One "
                   f'colour scale for all panels. {esc(link.legend)} · <a href="{src}">full size</a></figcaption>'
                   "</figure>")
    return "\n".join(out)


def samples_page(*, title: str, input_name: str, index_script: str) -> str:
    body = (f'<p><a href="index.html">&larr; report</a></p><h1>{esc(title)}</h1>'
            f"<p>Samples of <strong>{esc(input_name)}</strong>. Filters are kept in the address (#...), so a "
            "filtered view can be bookmarked.</p>"
            '<noscript><p class="note">The sample browser needs JavaScript.</p></noscript>'
            '<div id="browser"></div>')
    return _page(title, body, [index_script, "assets/samples.js"])
