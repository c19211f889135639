"""Many models in one report: an accuracy-vs-length chart per family and a leaderboard across families.

Both are built from the family-neutral :class:`ReportInput` data only (``task_scores``, ``bin_counts``,
``cells``, ``overall``) and the family's :class:`ReportSpec` (``columns``), so no family is named here.

The numbers are the family's own per-bin scores (the same as its tables); each carries a 95% interval over the
bin's number of samples: a Wilson interval when every per-sample score of the input is 0 or 1, else the normal
approximation with the largest variance a score in [0, 1] with that mean can have (``p (1 - p) / n``). A bin
without samples has no point and no interval (it is never drawn or listed as 0).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.benchmarks.protocol import ReportSpec
from niah.report.inputs import ReportInput
from niah.report.tables import format_pct, row_from_bin_scores
from niah.scoring.stats import NORMAL, WILSON, interval
from niah.util.iox import write_atomic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: wide enough for the plot and, beside it, a legend of model names up to 40 characters
CHART_FIGSIZE: tuple[float, float] = (10.5, 4.5)
CHART_DPI = 100


def interval_method(inp: ReportInput) -> str:
    """Wilson when every scored sample of the input is 0 or 1 (known for runs), else the normal approximation."""
    return WILSON if inp.binary_scores else NORMAL


def samples_per_bin(inp: ReportInput, num_bins: int) -> dict[str, list[int]] | None:
    """Task -> samples per column bin: counted from the heatmap cells where the input has them (a family may
    weigh its bins by cells in ``bin_counts``), else its ``bin_counts``; None when some task has no counts."""
    out: dict[str, list[int]] = {}
    for task in inp.task_scores:
        cells = inp.cells.get(task)
        if cells is not None:
            out[task] = [sum(row[b] for row in cells.counts) for b in range(num_bins)]
        elif task in inp.bin_counts and len(inp.bin_counts[task]) == num_bins:
            out[task] = list(inp.bin_counts[task])
        else:
            return None
    return out


@dataclass(frozen=True, slots=True)
class LengthPoint:
    bin: int
    label: str
    score: float             # in [0, 1]
    n: int
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class LengthSeries:
    name: str
    method: str
    # "overall": the family's overall per bin as its table prints it; "covered": the same over the tasks the run
    # holds (no overall table); "pooled": the tasks' bins weighed by samples
    basis: str
    points: list[LengthPoint]
    # the run's model when it is one of niah's offline baselines (baseline:random, baseline:oracle, ...), else None
    baseline: str | None = None

    @property
    def pooled(self) -> float | None:
        """The score over every point's samples (each bin weighed by its samples), in [0, 1]."""
        total = sum(p.n for p in self.points)
        return sum(p.score * p.n for p in self.points) / total if total else None


def baseline_model(inp: ReportInput) -> str | None:
    """The model of a run of one of niah's offline baselines (``baseline:random``...), else None."""
    from niah.report.inputs import run_model_name

    model = run_model_name(inp.run_meta)
    return model if model is not None and model.startswith("baseline:") else None


def shown_name(inp: ReportInput) -> str:
    """The input's name, with its baseline beside it when it is one and its name does not say so (``--name``)."""
    baseline = baseline_model(inp)
    return inp.name if baseline is None or "baseline" in inp.name else f"{inp.name} ({baseline})"


def length_series(inp: ReportInput, spec: ReportSpec) -> LengthSeries | None:
    """The input's score per column bin with its interval; bins without samples are left out. None when the
    samples per bin are unknown (a scores file that does not carry them)."""
    labels = spec.columns.labels
    per_task = samples_per_bin(inp, len(labels))
    if per_task is None or not per_task:
        return None
    totals = [sum(counts[b] for counts in per_task.values()) for b in range(len(labels))]
    method = interval_method(inp)
    points: list[LengthPoint] = []
    # the bins' figures the tables print: over the cells with samples where the official rule counts an empty
    # cell 0 (covered_scores), so that no point is pulled down by a cell the run never built
    shown = {**inp.task_scores, **inp.covered_scores}
    covered = (spec.overall_covered(shown, per_task) if inp.overall is None and spec.overall_covered is not None
               else None)
    if inp.overall is not None and len(inp.overall) == len(labels):
        basis = "overall"
        defined = inp.overall_counts  # 0 where the family leaves its overall undefined
        by_bin = inp.covered_overall if inp.covered_overall is not None else inp.overall
        for b, label in enumerate(labels):
            if totals[b] and (defined is None or defined[b]):
                score = float(by_bin[b])
                points.append(LengthPoint(b, label, score, totals[b], *interval(score, totals[b], method)))
    elif covered is not None and len(covered) == len(labels):
        basis = "covered"  # the family's overall per bin over the tasks the run holds (its headline's bins)
        for b, label in enumerate(labels):
            if totals[b]:
                score = float(covered[b])
                points.append(LengthPoint(b, label, score, totals[b], *interval(score, totals[b], method)))
    else:
        basis = "pooled"
        for b, label in enumerate(labels):
            if totals[b]:
                score = sum(float(shown[t][b]) * n[b] for t, n in per_task.items()) / totals[b]
                points.append(LengthPoint(b, label, score, totals[b], *interval(score, totals[b], method)))
    return LengthSeries(name=inp.name, method=method, basis=basis, points=points, baseline=baseline_model(inp))


def render_length_chart_png(series: Sequence[LengthSeries], spec: ReportSpec, title: str, *,
                            figsize: tuple[float, float] = CHART_FIGSIZE, dpi: int = CHART_DPI) -> bytes:
    """PNG bytes: one line per series over the column bins, accuracy 0-100 with 95% error bars."""
    fig = length_chart_figure(series, spec, title, figsize=figsize, dpi=dpi)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def length_chart_figure(series: Sequence[LengthSeries], spec: ReportSpec, title: str, *,
                        figsize: tuple[float, float] = CHART_FIGSIZE, dpi: int = CHART_DPI) -> Figure:
    """The length chart as a matplotlib figure: baselines dashed and named as baselines, a dotted chance line at a
    ``baseline:random`` run's level, and the legend beside the plot (inside it, it covered points and bars)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    labels = spec.columns.labels
    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    spread = 0.08  # lines side by side so that their error bars do not hide each other
    for i, s in enumerate(series):
        shift = (i - (len(series) - 1) / 2) * spread
        xs = [p.bin + shift for p in s.points]
        ys = [p.score * 100.0 for p in s.points]
        # never negative (matplotlib refuses it), whatever an interval's float round-off
        below = [max(0.0, (p.score - p.low) * 100.0) for p in s.points]
        above = [max(0.0, (p.high - p.score) * 100.0) for p in s.points]
        name = s.name if len(s.name) <= 40 else s.name[:37] + "..."
        if s.baseline is not None and "baseline" not in name:  # a baseline reads as one: named, dashed, lighter
            name += f" ({s.baseline})"
        ax.errorbar(xs, ys, yerr=[below, above], marker="o", markersize=4, capsize=3,
                    linewidth=1.0 if s.baseline else 1.5, linestyle="--" if s.baseline else "-",
                    alpha=0.75 if s.baseline else 1.0, label=name)
        chance = s.pooled if s.baseline == "baseline:random" else None
        if chance is not None:  # the level a reply that does not read scores: the line to clear
            ax.axhline(chance * 100.0, color="#555555", linestyle=":", linewidth=1.2,
                       label=f"chance ({s.baseline}, {chance * 100.0:.1f})")
    ax.set_xticks(range(len(labels)), labels=list(labels))
    ax.set_xlim(-0.5, len(labels) - 0.5)
    ax.set_ylim(-2.0, 102.0)  # points at 0 or 100 stay visible
    ax.set_xlabel(spec.columns.title)
    ax.set_ylabel("accuracy (%)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_title(title if len(title) <= 90 else title[:87] + "...", fontsize=11)
    if series:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()  # the plot narrows to leave the legend its room
    return fig


def chart_size_px() -> tuple[int, int]:
    return round(CHART_FIGSIZE[0] * CHART_DPI), round(CHART_FIGSIZE[1] * CHART_DPI)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    model: str
    family: str
    score: float             # in [0, 1]
    n: int | None            # samples behind the score (None: unknown)
    low: float | None
    high: float | None
    method: str
    basis: str
    #: beside a figure over the part of the grid the run holds: the official overall and what it lacks
    note: str = ""


def _headline_row(inp: ReportInput) -> LeaderboardRow | None:
    """The input's headline as ``niah score`` wrote and printed it (:func:`niah.scoring.score.headline_figure` on its
    scores.json block): the official overall on a full grid, with its interval; on a partial grid the figure
    over the part the run holds with the interval niah score stored beside it (``covered_ci95``). A file
    written before that key: the interval the overall table prints beside the figure where the table has it,
    else Wilson's (0/1 scores) or the normal one over its samples."""
    from niah.scoring.score import headline_figure

    assert inp.headline is not None
    head = headline_figure(inp.headline)
    if head.value is None:
        return None
    family = inp.benchmark or "-"
    score = head.value / 100.0
    if head.ci95 is not None:
        return LeaderboardRow(inp.name, family, score, head.n, head.ci95[0] / 100.0, head.ci95[1] / 100.0,
                              head.ci_method or interval_method(inp), head.basis, head.official_note)
    from niah.report.intervals import input_intervals, overall_table_row
    from niah.report.tables import OVERALL_KEY

    found = input_intervals(inp).get(OVERALL_KEY) if inp.overall is not None else None
    if found is not None and found.filled is not None and inp.spec is not None:
        row = overall_table_row(inp, inp.spec)
        if row is not None and row.filled is not None and abs(row.filled - head.value) < 0.05:  # the table's figure
            return LeaderboardRow(inp.name, family, score, head.n, found.filled[0] / 100.0, found.filled[1] / 100.0,
                                  found.overall_method or interval_method(inp), head.basis, head.official_note)
    method = interval_method(inp)
    low, high = interval(score, head.n, method) if head.n else (None, None)
    return LeaderboardRow(inp.name, family, score, head.n, low, high, method, head.basis, head.official_note)


def leaderboard_row(inp: ReportInput, spec: ReportSpec) -> LeaderboardRow | None:
    """The input's headline: the figure ``niah score`` prints (its scores.json block) where the input has one;
    else (an older or official scores file, rows without scores.json) its overall as its family's overall
    table shows it, else the sample-weighted mean of its tasks' bins, with the interval over all its binned
    samples. None: the input has no scores."""
    if inp.headline is not None:
        return _headline_row(inp)
    labels = spec.columns.labels
    per_task = samples_per_bin(inp, len(labels))
    method = interval_method(inp)
    family = inp.benchmark or "-"
    n: int | None = None
    if inp.overall is not None and len(inp.overall) == len(labels):
        from niah.report.build import overall_counts

        row = row_from_bin_scores(inp.name, inp.overall, len(labels), overall_counts(inp),
                                  weighted=spec.weighted_overall)
        if row.overall is None:
            return None
        score, basis = row.overall / 100.0, "overall"
        if per_task is not None:
            defined = inp.overall_counts
            n = sum(sum(c[b] for c in per_task.values()) for b in range(len(labels))
                    if defined is None or defined[b])
        from niah.report.intervals import input_intervals
        from niah.report.tables import OVERALL_KEY

        found = input_intervals(inp).get(OVERALL_KEY)
        if found is not None and found.overall is not None:  # the interval the overall table prints beside it
            return LeaderboardRow(shown_name(inp), family, score, n or None, found.overall[0] / 100.0,
                                  found.overall[1] / 100.0, found.overall_method or method, basis)
    elif per_task:
        n = sum(map(sum, per_task.values()))
        if not n:
            return None
        score = sum(float(s) * c for t, counts in per_task.items()
                    for s, c in zip(inp.task_scores[t], counts, strict=True)) / n
        basis = "pooled"
    else:
        return None  # no overall and no sample counts: nothing to rank on
    low, high = interval(score, n, method) if n else (None, None)
    return LeaderboardRow(shown_name(inp), family, score, n or None, low, high, method, basis)


def leaderboard(groups: Sequence[tuple[ReportSpec, Sequence[ReportInput]]]) -> list[LeaderboardRow]:
    """One row per input, families in report order, best score first within a family (ties: input order)."""
    rows: list[LeaderboardRow] = []
    for spec, members in groups:
        family_rows = [r for r in (leaderboard_row(inp, spec) for inp in members) if r is not None]
        rows.extend(sorted(family_rows, key=lambda r: -r.score))
    return rows


def _interval_text(row: LeaderboardRow) -> str:
    if row.low is None or row.high is None:
        return "-"
    return f"[{format_pct(row.low * 100.0)}, {format_pct(row.high * 100.0)}]"


LEADERBOARD_HEADER = ("Model", "Family", "Overall", "n", "95% interval", "Interval", "Basis", "Official overall")

#: What each basis means, said under the leaderboard (Markdown and HTML).
LEADERBOARD_NOTE = (
    "Overall is the headline niah score prints (scores.json): basis official, the family's official overall "
    "(the run holds the whole grid the official rule is defined over); basis covered, the official rule over "
    "the part of the grid the run holds, with the official overall and what it lacks beside it. Inputs without "
    "a scores.json of the current layout: basis overall, the overall as the family's overall table shows it; "
    "pooled, the sample-weighted mean of its tasks' bins. 95% interval: for an official or table overall the "
    "one printed beside it (Wilson for a share of 0/1 scores, else a seeded bootstrap of the family's "
    "aggregation; normal for a scores file), otherwise over its n samples (Wilson for 0/1 scores, else normal).")


def _cells(row: LeaderboardRow) -> list[str]:
    return [row.model, row.family, format_pct(row.score * 100.0), str(row.n) if row.n else "-",
            _interval_text(row), row.method if row.low is not None else "-", row.basis, row.note or "-"]


def leaderboard_markdown(rows: Sequence[LeaderboardRow]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["## Leaderboard", "",
             "| " + " | ".join(LEADERBOARD_HEADER) + " |", "|" + "|".join(["---"] * len(LEADERBOARD_HEADER)) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in _cells(r)) + " |" for r in rows]
    lines += ["", LEADERBOARD_NOTE, ""]
    return "\n".join(lines)


def leaderboard_csv(rows: Sequence[LeaderboardRow]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["model", "family", "overall", "n", "ci_low", "ci_high", "interval", "basis", "official_overall"])
    for r in rows:
        writer.writerow([r.model, r.family, format_pct(r.score * 100.0), r.n or "",
                         "" if r.low is None else format_pct(r.low * 100.0),
                         "" if r.high is None else format_pct(r.high * 100.0),
                         r.method if r.low is not None else "", r.basis, r.note])
    return buf.getvalue()


def leaderboard_html(rows: Sequence[LeaderboardRow], links: Sequence[tuple[str, str]]) -> str:
    from html import escape as esc
    from urllib.parse import quote

    head = "".join(f"<th>{esc(h)}</th>" for h in LEADERBOARD_HEADER)
    from niah.report.tables import baseline_tag

    body = "".join("<tr><th scope=\"row\">" + esc(c[0]) + baseline_tag(c[0]) + "</th>"
                   + "".join(f"<td>{esc(x)}</td>" for x in c[1:]) + "</tr>" for c in (_cells(r) for r in rows))
    files = " · ".join(f'<a href="{esc(quote(href))}">{esc(label)}</a>' for label, href in links)
    return (f'<section id="leaderboard"><h2>Leaderboard</h2><table class="leaderboard"><thead><tr>{head}</tr>'
            f"</thead><tbody>{body}</tbody></table><p class=\"notes\">{esc(LEADERBOARD_NOTE)} {files}</p></section>")


@dataclass(frozen=True, slots=True)
class LengthChart:
    family: str
    src: str                 # relative to the report root
    series: list[LengthSeries]
    skipped: list[str]       # inputs without samples per bin (no interval can be drawn)


def write_length_charts(out: Path, groups: Sequence[tuple[ReportSpec, Sequence[ReportInput]]]) -> list[LengthChart]:
    """One chart per family with at least one input whose samples per bin are known."""
    from niah.report.build import slugify

    charts: list[LengthChart] = []
    for i, (spec, members) in enumerate(groups):
        family = next((m.benchmark for m in members if m.benchmark), None) or "family"
        series: list[LengthSeries] = []
        skipped: list[str] = []
        for inp in members:
            s = length_series(inp, spec)
            if s is None or not s.points:
                skipped.append(inp.name)
            else:
                series.append(s)
        if not series:
            continue
        rel = f"assets/charts/{i + 1}-{slugify(family)}-accuracy-vs-length.png"
        write_atomic(out / rel, render_length_chart_png(series, spec, f"{family}: accuracy vs {spec.columns.title}"))
        charts.append(LengthChart(family=family, src=rel, series=series, skipped=skipped))
    return charts


def charts_html(charts: Sequence[LengthChart]) -> str:
    from html import escape as esc
    from urllib.parse import quote

    if not charts:
        return ""
    width, height = chart_size_px()
    parts = ['<section id="accuracy-vs-length"><h2>Accuracy vs length</h2>']
    for c in charts:
        skipped = (f"; not drawn (samples per bin unknown): {', '.join(c.skipped)}" if c.skipped else "")
        # what the line styles mean, said where the chart draws them
        styles = ("; dashed lines are niah's offline baselines, not models" if any(s.baseline for s in c.series)
                  else "")
        styles += ("; the dotted line is chance, the level of replies written without reading (baseline:random)"
                   if any(s.baseline == "baseline:random" and s.points for s in c.series) else "")
        parts.append(f'<figure class="chart"><img src="{esc(quote(c.src))}" alt="{esc(c.family)}: accuracy vs '
                     f'length" width="{width}" height="{height}"><figcaption>{esc(c.family)}: one line per input, '
                     f"95% intervals; bins without samples are left out{esc(styles)}{esc(skipped)}"
                     "</figcaption></figure>")
    parts.append("</section>")
    return "\n".join(parts)


def charts_json(charts: Sequence[LengthChart]) -> list[dict[str, Any]]:
    return [{"family": c.family, "src": c.src, "skipped": c.skipped,
             "series": [{"name": s.name, "interval": s.method, "basis": s.basis,
                         "points": [{"bin": p.label, "score": p.score, "n": p.n, "low": p.low, "high": p.high}
                                    for p in s.points]} for s in c.series]}
            for c in charts]


def leaderboard_json(rows: Sequence[LeaderboardRow]) -> list[dict[str, Any]]:
    return [{"model": r.model, "family": r.family, "score": r.score, "n": r.n, "low": r.low, "high": r.high,
             "interval": r.method, "basis": r.basis, "official_overall": r.note} for r in rows]
