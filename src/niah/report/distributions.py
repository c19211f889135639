"""Distribution plots: what each run's data is made of, over the axes a family's ReportSpec lists in
``distributions`` (e.g. context length, images per context, needle depth). One small PNG per run input, one
bar chart per axis, bars stacked by task; rows an axis does not bin (``bin_of`` gives None) are counted apart
and named in the chart. Renderers here never name a family: everything comes from the spec's axes.

matplotlib is imported inside the functions and used through its object API with the Agg canvas (no pyplot
state), as in :mod:`niah.report.heatmap`; the PNG's pixel size is ``figsize * dpi`` exactly.
"""

from __future__ import annotations

import html
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from niah.benchmarks.protocol import Axis
from niah.report.inputs import ReportInput, ScoredRow, iter_scored_rows
from niah.util.iox import write_atomic

PLOT_HEIGHT_IN = 3.0
PLOT_WIDTH_IN = 4.2  # per axis
#: Room at the right of the figure for the task legend, which stands outside the plots (inside, it covered bars).
LEGEND_WIDTH_IN = 1.35
PLOT_DPI = 100
# a colour-blind-friendly cycle (Okabe-Ito); tasks beyond it reuse it
TASK_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


@dataclass(slots=True)
class AxisCounts:
    """Samples per bin of one axis, per task, and how many rows the axis leaves unbinned."""

    axis: Axis
    by_task: dict[str, list[int]] = field(default_factory=dict)
    unbinned: int = 0

    @property
    def total(self) -> int:
        return sum(map(sum, self.by_task.values()))


@dataclass(frozen=True, slots=True)
class DistributionPlot:
    input_name: str
    src: str  # path relative to the report folder
    counts: tuple[AxisCounts, ...]


def count_rows(rows: Iterable[ScoredRow], axes: Sequence[Axis]) -> list[AxisCounts]:
    """Counts per (axis, task, bin) in one pass."""
    out = [AxisCounts(axis) for axis in axes]
    for row in rows:
        for counts in out:
            value = row.value(counts.axis.field)
            index = None if value is None else counts.axis.bin_of(value)
            if index is None or not 0 <= index < len(counts.axis.labels):
                counts.unbinned += 1
                continue
            bins = counts.by_task.setdefault(row.task, [0] * len(counts.axis.labels))
            bins[index] += 1
    return out


def render_distributions_png(counts: Sequence[AxisCounts], title: str, *, task_order: Sequence[str] = (),
                             dpi: int = PLOT_DPI) -> bytes:
    """PNG bytes: one stacked bar chart per axis, side by side."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(PLOT_WIDTH_IN * max(1, len(counts)), PLOT_HEIGHT_IN), dpi=dpi)
    FigureCanvasAgg(fig)
    tasks = [t for t in task_order if any(t in c.by_task for c in counts)]
    tasks += sorted({t for c in counts for t in c.by_task} - set(tasks))
    color = {t: TASK_COLORS[i % len(TASK_COLORS)] for i, t in enumerate(tasks)}
    for k, axis_counts in enumerate(counts):
        ax = fig.add_subplot(1, max(1, len(counts)), k + 1)
        labels = list(axis_counts.axis.labels)
        bottom = [0] * len(labels)
        for task in tasks:
            values = axis_counts.by_task.get(task)
            if values is None:
                continue
            ax.bar(range(len(labels)), values, bottom=bottom, color=color[task], label=task, width=0.8)
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        ax.set_xticks(range(len(labels)), labels=labels, rotation=45 if len(labels) > 6 else 0, fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel(axis_counts.axis.title, fontsize=8)
        if k == 0:
            ax.set_ylabel("samples", fontsize=8)
        note = f" ({axis_counts.unbinned} not binned)" if axis_counts.unbinned else ""
        ax.set_title(f"{axis_counts.total} samples{note}", fontsize=8)
    legend = bool(tasks and fig.axes[0].get_legend_handles_labels()[0])  # no bars drawn (every count 0): none
    if legend:  # beside the last chart, outside every plot: inside one it covered bars
        fig.axes[-1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                            frameon=False)
    fig.suptitle(title if len(title) <= 90 else title[:87] + "...", fontsize=10)
    # a fixed layout in inches (tight_layout would draw the figure once more just to measure it)
    width = PLOT_WIDTH_IN * max(1, len(counts))
    rotated = any(len(c.axis.labels) > 6 for c in counts)
    fig.subplots_adjust(left=0.55 / width, right=1.0 - (LEGEND_WIDTH_IN if legend else 0.15) / width, bottom=(0.95 if rotated else 0.6) / PLOT_HEIGHT_IN,
                        top=1.0 - 0.6 / PLOT_HEIGHT_IN, wspace=0.7 / (PLOT_WIDTH_IN - 0.7))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def write_distributions(out: Path, inputs: Sequence[ReportInput], slugs: Sequence[str]) -> list[DistributionPlot]:
    """One distribution PNG per run input whose family's spec lists distribution axes (scores files have no
    per-sample rows, so they get none)."""
    plots: list[DistributionPlot] = []
    for inp, slug in zip(inputs, slugs, strict=True):
        spec = inp.spec
        if spec is None or not spec.distributions or inp.scored_path is None or not inp.scored_path.is_file():
            continue
        counts = count_rows(iter_scored_rows(inp.scored_path), spec.distributions)
        if not any(c.by_task for c in counts):
            continue
        rel = f"assets/distributions/{slug}.png"
        write_atomic(out / rel, render_distributions_png(counts, f"{inp.name}: what the data is made of",
                                                         task_order=spec.task_order))
        plots.append(DistributionPlot(inp.name, rel, tuple(counts)))
    return plots


def distributions_html(plots: Sequence[DistributionPlot]) -> str:
    if not plots:
        return ""
    esc = html.escape
    figures = "".join(
        f'<figure class="heatmap"><img src="{esc(quote(p.src))}" alt="{esc(p.input_name)}: distributions of '
        f'{esc(", ".join(c.axis.title for c in p.counts))}"><figcaption>{esc(p.input_name)}'
        "</figcaption></figure>" for p in plots)
    return f'<section id="distributions"><h2>Data distributions</h2>{figures}</section>'


def distributions_json(plots: Sequence[DistributionPlot]) -> list[dict[str, object]]:
    """The counts behind the plots, for report.json."""
    return [{"input": p.input_name, "png": p.src,
             "axes": [{"title": c.axis.title, "field": c.axis.field, "labels": list(c.axis.labels),
                       "by_task": c.by_task, "unbinned": c.unbinned} for c in p.counts]} for p in plots]
