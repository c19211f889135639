"""Per-bin result tables, paper style: one row per report input (``Model | <bin labels> | Overall``), the bins
being those of the family's report (``ReportSpec.columns``). Values are accuracies x100 printed
with one decimal like the paper, and an optional "published" section with the paper's own rows. Renderers
produce Markdown, CSV, LaTeX (booktabs) and an HTML fragment from the same numbers, so the formats can never
disagree.

Rounding: a value is rounded half-up on its decimal representation (0.1235 -> "12.4"), which is what a reader
expects from a 6-decimal official score; Python's ``f"{x:.1f}"`` would print "12.3" because 12.35 is stored
as 12.3499... in binary floating point.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from niah.benchmarks.results import MISSING, PublishedSection, TableRow, format_pct

if TYPE_CHECKING:
    from niah.benchmarks.protocol import ExtraTable, ReportSpec
    from niah.benchmarks.results import ReportInput

OVERALL_KEY = "overall"
OVERALL_OFFICIAL_LABEL = "Overall (official: empty bins 0)"
OVERALL_COVERED_LABEL = "Overall (bins with samples)"


def format_estimate(value: float | None, interval: tuple[float, float] | None) -> str:
    """A percentage and its 95% interval, number first (``87.5 [80.1-92.3]``): a reader and a script that takes
    the first number both find the value. ``-`` (never an interval) for a missing value; the bare number where
    no interval is known (a published row, a scores file without sample counts)."""
    if value is None:
        return MISSING
    if interval is None:
        return format_pct(value)
    return f"{format_pct(value)} [{format_pct(interval[0])}-{format_pct(interval[1])}]"


#: How to read the intervals of the tables, one point an item: the HTML report shows them as a list above the
#: tables, tables.md as one paragraph (INTERVALS_LEGEND).
INTERVALS_READING: tuple[str, ...] = (
    "Each value is followed by its 95% interval, number first: 87.5 [80.1-92.3]. Read the interval, not only the "
    "value: with one sample per cell every cell is 0 or 100.",
    "A plain mean of samples: Wilson's interval when every score is 0 or 1, else a seeded bootstrap of the mean "
    "(1000 resamples; graded scores that are all alike: the normal approximation with the largest variance).",
    "Any other figure (an Overall, a family's mean over cells or tasks): a seeded bootstrap of that very "
    "aggregation, each (task, bin) stratum redrawn into its own cells; where all its samples scored alike, the "
    "interval of their common score put through the aggregation.",
    "A scores file gives means and counts only: the normal approximation over the bin's samples (Wilson's at 0 "
    "and 100), no interval where counts are unknown.",
    "- is a bin without samples (no interval).",
)
INTERVALS_LEGEND = " ".join(INTERVALS_READING)


@dataclass(slots=True)
class ResultTable:
    key: str                 # "overall" or a task name
    title: str
    rows: list[TableRow]
    published: PublishedSection | None = None
    columns: tuple[str, ...] = ()   # bin labels, as the family's report names them
    prefix: str = ""                # file-name prefix of the family's tables
    empty_bins_zero: bool = False   # the official Overall counts an empty bin as 0 (shown beside the covered one)
    # with 2+ inputs: whether each one's difference from the best is inside the noise (niah.report.noise): a
    # heading line, then one sentence per input
    noise: tuple[str, ...] = ()
    # set when another table of the report has the same family prefix and key (the same task binned on other
    # axes, e.g. an imported official run and a generated one): keeps their files apart
    slug_suffix: str = ""

    @property
    def slug(self) -> str:
        return self.prefix + self.key.replace("-", "_") + self.slug_suffix

    @property
    def covered(self) -> bool:
        """Some row has empty bins: the table adds the Overall over the bins with samples."""
        return any(row.filled is not None for row in self.rows)

    @property
    def header(self) -> tuple[str, ...]:
        bins = tuple(column_label(label) for label in self.columns)
        if not self.covered:
            return ("Model", *bins, "Overall")
        official = OVERALL_OFFICIAL_LABEL if self.empty_bins_zero else "Overall"
        return ("Model", *bins, official, OVERALL_COVERED_LABEL)

    def cells(self, row: TableRow) -> list[str]:
        """A row's printed cells under :attr:`header`: an Overall over an empty bin is missing (``-``) unless
        the official rule counts empty bins as 0, and then the Overall over the covered bins stands beside it."""
        values = [format_estimate(v, row.value_interval(i)) for i, v in enumerate(row.values)]
        last = format_estimate(*self.last_figure(row))
        if not self.covered:
            return [*values, last]
        official = row.overall if (self.empty_bins_zero or row.filled is None) else None
        return [*values, format_estimate(official, row.overall_interval), last]

    def last_figure(self, row: TableRow) -> tuple[float | None, tuple[float, float] | None]:
        """The figure of the row's last printed column and its interval: the Overall, or, where the table has
        the covered column, the Overall over the bins with samples (the Overall itself when every bin has some;
        missing when a bin is empty and no covered figure is known)."""
        if not self.covered:
            return row.overall, row.overall_interval
        if row.filled is not None:
            return row.filled, row.filled_interval
        complete = all(v is not None for v in row.values)
        return (row.overall if complete else None), row.overall_interval


def column_label(label: str) -> str:
    """A column's header: token counts in the papers' spelling (``8k-16k`` -> ``8K-16K``); other labels (metric
    names, durations such as ``5m``) as they are."""
    return re.sub(r"(?<=\d)k\b", "K", label)


def row_from_bin_scores(model: str, bin_scores: Sequence[float], num_bins: int | None = None,
                        counts: Sequence[int] | None = None, *, weighted: bool = False,
                        shown: Sequence[float] | None = None) -> TableRow:
    """A table row from per-bin scores in [0, 1]; Overall is their mean (the leaderboard rule: an empty bin
    counts as 0). With ``counts`` (samples per bin), empty bins print as ``-`` and ``filled`` is the mean over
    the bins that have samples; with ``weighted`` too, Overall is the sample-weighted mean of the bins.

    ``shown`` (with ``counts``): the bins' figures over their cells with samples, given where ``bin_scores`` are
    official ones that count an empty cell 0 and some bin with samples has an empty cell. The bins
    print ``shown``, Overall stays the mean of ``bin_scores`` and ``filled`` is the mean of ``shown`` over the
    bins with samples."""
    if num_bins is not None and len(bin_scores) != num_bins:
        raise ValueError(f"expected {num_bins} bin scores, got {len(bin_scores)}")
    if shown is not None and len(shown) != len(bin_scores):
        raise ValueError(f"expected {len(bin_scores)} shown bin figures, got {len(shown)}")
    overall = sum(float(s) for s in bin_scores) / len(bin_scores) * 100.0
    counted = counts is not None and len(counts) == len(bin_scores)
    printed = shown if shown is not None and counted else bin_scores
    values: tuple[float | None, ...] = tuple(float(s) * 100.0 for s in printed)
    filled = None
    if counts is not None and counted and (printed is not bin_scores or not all(counts)):
        values = tuple(v if n else None for v, n in zip(values, counts, strict=True))
        kept = [float(s) for s, n in zip(printed, counts, strict=True) if n]
        filled = sum(kept) / len(kept) * 100.0 if kept else None
    if weighted and counts is not None and len(counts) == len(bin_scores) and any(counts):
        # the share of correct samples (the family's ReportSpec.weighted_overall), not the mean of the bins
        total = sum(int(n) for n in counts)
        overall = sum(float(s) * n for s, n in zip(bin_scores, counts, strict=True)) / total * 100.0
        filled = None
    return TableRow(model=model, values=values, overall=overall, filled=filled)


def filled_note(table: ResultTable) -> list[tuple[str, str, int]]:
    """(model, mean over filled bins, number of filled bins) for rows with empty bins."""
    return [(row.model, format_pct(row.filled), sum(v is not None for v in row.values))
            for row in table.rows if row.filled is not None]


def _zero_rule(table: ResultTable) -> str:
    """What the note under a table says the official Overall counts as 0."""
    if table.empty_bins_zero:
        return ("Overall counts empty bins, shown as -, and a bin's empty cells as 0: the official rule; a bin "
                "prints the mean over its cells with samples")
    return "Overall counts empty bins, shown as -, as 0: the official rule"


def _bins(count: int) -> str:
    return "1 bin" if count == 1 else f"{count} bins"


def ordered_tasks(task_keys: Sequence[str] | set[str], order: Sequence[str] = ()) -> list[str]:
    """The tasks of ``order`` (a family's report order) first, then any other task names sorted."""
    keys = set(task_keys)
    return [t for t in order if t in keys] + sorted(keys - set(order) - {OVERALL_KEY})


# ----------------------------------------------------------------------------------------------- Markdown

def _md_text(text: str) -> str:
    """Markdown-safe cell text: no table breaks, no emphasis surprises and no raw HTML."""
    out = html.escape(text.replace("\n", " "), quote=False)
    for ch in ("\\", "|", "*", "_", "`", "[", "]"):
        out = out.replace(ch, "\\" + ch)
    return out


def to_markdown(table: ResultTable) -> str:
    lines = [f"**{_md_text(table.title)}** (accuracy x100)", ""]
    header = table.header
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" + "---:|" * (len(header) - 1))
    for row in table.rows:
        lines.append("| " + " | ".join([_md_text(row.model), *table.cells(row)]) + " |")
    if table.published is not None and table.published.rows:
        blank = " |" * (len(header) - 1)
        lines.append(f"| *{_md_text(table.published.label)}* |{blank}")
        for row in table.published.rows:
            lines.append("| " + " | ".join([f"*{_md_text(row.model)}*", *table.cells(row)]) + " |")
    # Notes only after the last row: a paragraph inside the table would end it and leave the published rows
    # as loose text.
    for model, mean, bins in filled_note(table):
        lines.append("")
        lines.append(f"*{_md_text(model)}*: {mean} over the {_bins(bins)} with samples ({_zero_rule(table)})")
    if table.published is not None and table.published.rows:
        for model, note in table.published.notes.items():
            if any(r.model == model for r in table.published.rows):
                lines.append("")
                lines.append(f"*{_md_text(model)}*: {_md_text(note)}")
    if table.noise:
        lines += ["", _md_text(table.noise[0]), ""] + [f"- {_md_text(line)}" for line in table.noise[1:]]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------------- CSV

def _csv_text(text: str) -> str:
    """Neutralise spreadsheet formulas in free text cells (model names come from user input)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def to_csv(table: ResultTable) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["section", *table.header, "source"])
    for row in table.rows:
        writer.writerow(["this report", _csv_text(row.model), *table.cells(row), ""])
    if table.published is not None:
        for row in table.published.rows:
            writer.writerow(["published", _csv_text(row.model), *table.cells(row), _csv_text(table.published.label)])
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------- LaTeX

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text.replace("\n", " "))


def to_latex(table: ResultTable) -> str:
    ncols = len(table.header)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{latex_escape(table.title)}}}",
        rf"\label{{tab:{table.slug.replace('_', '-')}}}",
        r"\begin{tabular}{l" + "r" * (ncols - 1) + "}",
        r"\toprule",
        " & ".join(table.header) + r" \\",
        r"\midrule",
    ]
    for row in table.rows:
        lines.append(" & ".join([latex_escape(row.model), *table.cells(row)]) + r" \\")
    if table.published is not None and table.published.rows:
        lines.append(r"\midrule")
        lines.append(rf"\multicolumn{{{ncols}}}{{l}}{{\textit{{{latex_escape(table.published.label)}}}}} \\")
        for row in table.published.rows:
            lines.append(" & ".join([latex_escape(row.model), *table.cells(row)]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------- HTML

#: A value with its 95% interval as :func:`format_with_interval` prints it.
_WITH_INTERVAL = re.compile(r"(?P<value>.+?) (?P<interval>\[[^\[\]]+\])")


def _td(cell: str) -> str:
    """A table cell; a missing value is grey (class ``missing``), never a number. A value's 95% interval goes
    on a small second line, so that a table of eleven length bins still fits a page."""
    if cell == MISSING:
        return '<td class="missing">' + MISSING + "</td>"
    found = _WITH_INTERVAL.fullmatch(cell)
    if found is None:
        return f"<td>{html.escape(cell)}</td>"
    return (f'<td>{html.escape(found["value"])}<span class="ci">{html.escape(found["interval"])}</span></td>')


def baseline_tag(name: str) -> str:
    """A visible "offline baseline" tag for a row of one of niah's baselines (``baseline:rag``...), so that it never
    reads as a model standing above the published ones; empty for any other row."""
    shown = name.startswith("baseline:") or "(baseline:" in name  # compare.shown_name marks a renamed one so
    return ' <span class="tag baseline">offline baseline</span>' if shown else ""


def to_html(table: ResultTable) -> str:
    """An HTML <table>; every piece of text is escaped (model names come from run files)."""
    esc = html.escape
    out = ['<div class="table-scroll">', f'<table class="results" id="table-{esc(table.key)}">',
           f"<caption>{esc(table.title)} (accuracy x100)</caption>",
           "<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in table.header) + "</tr></thead>",
           "<tbody>"]
    for row in table.rows:
        out.append('<tr class="ours"><th scope="row">' + esc(row.model) + baseline_tag(row.model) + "</th>"
                   + "".join(_td(c) for c in table.cells(row)) + "</tr>")
    out.append("</tbody>")
    if table.published is not None and table.published.rows:
        out.append('<tbody class="published">')
        out.append(f'<tr class="section"><th colspan="{len(table.header)}">{esc(table.published.label)}</th></tr>')
        for row in table.published.rows:
            note = table.published.notes.get(row.model)
            title = f' title="{esc(note)}"' if note else ""
            out.append(f'<tr class="published"><th scope="row"{title}>' + esc(row.model)
                       + ("*" if note else "") + "</th>"
                       + "".join(_td(c) for c in table.cells(row)) + "</tr>")
        out.append("</tbody>")
    out.append("</table></div>")
    for model, mean, bins in filled_note(table):
        out.append(f'<p class="table-notes">{esc(model)}: {esc(mean)} over the {_bins(bins)} with samples '
                   f"({esc(_zero_rule(table))})</p>")
    notes = [] if table.published is None else [
        f"<li>{esc(m)}*: {esc(n)}</li>" for m, n in table.published.notes.items()
        if any(r.model == m for r in table.published.rows)]
    if notes:
        out.append('<ul class="table-notes">' + "".join(notes) + "</ul>")
    if table.noise:
        out.append(f'<div class="table-notes noise"><p>{esc(table.noise[0])}</p><ul>'
                   + "".join(f"<li>{esc(line)}</li>" for line in table.noise[1:]) + "</ul></div>")
    return "\n".join(out)


def scoring_mode_rows(inputs: Sequence[ReportInput]) -> list[tuple[str, str, str, str, str, int]]:
    """(model, task, mode, official overall, mode overall, samples that disagree) for every improved scoring
    mode a run carries (e.g. ``lenient``), in paper task order. Overall = mean of the 11 bins, x100."""
    rows = []
    for inp in inputs:
        for mode, by_task in sorted(inp.mode_scores.items()):
            for task in ordered_tasks(set(by_task), inp.task_order):
                official = inp.task_scores.get(task)
                alt = by_task[task]
                counts = inp.bin_counts.get(task)
                weighted = inp.spec is not None and inp.spec.weighted_overall

                def mean(values: Sequence[float], counts: Sequence[int] | None = counts,
                         weighted: bool = weighted) -> float | None:
                    return row_from_bin_scores("", values, None, counts, weighted=weighted).overall

                rows.append((inp.name, task, mode,
                             format_pct(mean(official)) if official else MISSING,
                             format_pct(mean(alt)),
                             inp.mode_disagreements.get(mode, {}).get(task, 0)))
    return rows


SCORING_MODES_NOTE = ("Improved scoring modes are reported beside the official scores, never instead of them; "
                      "the last column counts samples whose score differs from the official one.")


def scoring_modes_markdown(inputs: Sequence[ReportInput]) -> str:
    rows = scoring_mode_rows(inputs)
    if not rows:
        return ""
    out = ["**Scoring modes** (overall accuracy x100)", "",
           "| Model | Task | Mode | Official | Mode score | Samples that disagree |",
           "|---|---|---|---:|---:|---:|"]
    out += [f"| {_md_text(m)} | {_md_text(t)} | {_md_text(mode)} | {o} | {a} | {n} |"
            for m, t, mode, o, a, n in rows]
    return "\n".join(out) + "\n\n" + SCORING_MODES_NOTE + "\n"


def scoring_modes_html(inputs: Sequence[ReportInput]) -> str:
    rows = scoring_mode_rows(inputs)
    if not rows:
        return ""
    body = "".join(
        f"<tr><th scope=\"row\">{html.escape(m)}</th><td>{html.escape(t)}</td><td>{html.escape(mode)}</td>"
        f"<td class=\"num\">{o}</td><td class=\"num\">{a}</td><td class=\"num\">{n}</td></tr>"
        for m, t, mode, o, a, n in rows)
    return ('<section id="scoring-modes"><h2>Scoring modes</h2><table class="results"><caption>Official scores '
            "and improved modes (overall accuracy x100)</caption><thead><tr><th>Model</th><th>Task</th>"
            "<th>Mode</th><th>Official</th><th>Mode score</th><th>Samples that disagree</th></tr></thead>"
            f"<tbody>{body}</tbody></table><p class=\"notes\">{html.escape(SCORING_MODES_NOTE)}</p></section>")


# ------------------------------------------------------------------------------------------------ breakdowns

def breakdown_tables(inputs: Sequence[ReportInput]) -> list[tuple[str, list[str], list[tuple[str, list[str]]]]]:
    """(title, bucket labels, [(model, cells)]) for every breakdown a family's report asks for; a cell is the
    mean official score x100 and the number of samples, ``-`` where an input has none."""
    out: list[tuple[str, list[str], list[tuple[str, list[str]]]]] = []
    seen: list[tuple[int, str]] = []
    for inp in inputs:
        for breakdown in inp.spec.breakdowns if inp.spec is not None else ():
            key = (id(inp.spec), breakdown.title)
            if key in seen:
                continue
            seen.append(key)
            members = [i for i in inputs if i.spec is inp.spec and breakdown.title in i.breakdowns]
            labels = {label for i in members for label in i.breakdowns[breakdown.title]}
            ordered = [b for b in breakdown.order if b in labels] + sorted(labels - set(breakdown.order))
            rows = []
            for member in members:
                sums = member.breakdown_sums(breakdown.title)
                rows.append((member.name, [f"{format_pct(100 * sums[b][0] / sums[b][1])} ({sums[b][1]})"
                                           if b in sums else MISSING for b in ordered]))
            if rows:
                out.append((breakdown.title, ordered, rows))
    return out


def breakdowns_markdown(inputs: Sequence[ReportInput]) -> str:
    parts = []
    for title, labels, rows in breakdown_tables(inputs):
        lines = [f"**{_md_text(title)}** (accuracy x100, samples)", "",
                 "| Model | " + " | ".join(_md_text(b) for b in labels) + " |",
                 "|---|" + "---:|" * len(labels)]
        lines += ["| " + " | ".join([_md_text(model), *cells]) + " |" for model, cells in rows]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def breakdowns_html(inputs: Sequence[ReportInput]) -> str:
    esc = html.escape
    parts = []
    for title, labels, rows in breakdown_tables(inputs):
        head = "".join(f"<th>{esc(b)}</th>" for b in labels)
        body = "".join(f'<tr><th scope="row">{esc(model)}</th>' + "".join(_td(c) for c in cells)
                       + "</tr>" for model, cells in rows)
        parts.append(f'<table class="results breakdown"><caption>{esc(title)} (accuracy x100, samples)</caption>'
                     f"<thead><tr><th>Model</th>{head}</tr></thead><tbody>{body}</tbody></table>")
    return f'<section id="breakdowns"><h2>Breakdowns</h2>{"".join(parts)}</section>' if parts else ""


# ---------------------------------------------------------------------------------------------- extra tables

def extra_tables(inputs: Sequence[ReportInput]) -> list[ExtraTable]:
    """The tables each family computes itself (``ReportSpec.extra_tables``), from that family's inputs."""
    out: list[ExtraTable] = []
    specs: list[ReportSpec] = []
    for inp in inputs:
        if inp.spec is not None and inp.spec.extra_tables is not None and all(inp.spec is not s for s in specs):
            specs.append(inp.spec)
    for spec in specs:
        assert spec.extra_tables is not None
        out.extend(spec.extra_tables([i for i in inputs if i.spec is spec]))
    return out


def extra_tables_markdown(inputs: Sequence[ReportInput]) -> str:
    parts = []
    for table in extra_tables(inputs):
        lines = [f"**{_md_text(table.title)}**", "", "| " + " | ".join(_md_text(h) for h in table.header) + " |",
                 "|---|" + "---:|" * (len(table.header) - 1)]
        lines += ["| " + " | ".join(_md_text(c) for c in row) + " |" for row in table.rows]
        if table.note:
            lines += ["", _md_text(table.note)]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def extra_tables_html(inputs: Sequence[ReportInput]) -> str:
    esc = html.escape
    parts = []
    for table in extra_tables(inputs):
        head = "".join(f"<th>{esc(h)}</th>" for h in table.header)
        body = "".join("<tr>" + "".join(_td(c) for c in row) + "</tr>" for row in table.rows)
        note = f'<p class="table-notes">{esc(table.note)}</p>' if table.note else ""
        parts.append(f'<table class="results extra"><caption>{esc(table.title)}</caption><thead><tr>{head}</tr>'
                     f"</thead><tbody>{body}</tbody></table>{note}")
    return f'<section id="family-tables"><h2>More tables</h2>{"".join(parts)}</section>' if parts else ""
