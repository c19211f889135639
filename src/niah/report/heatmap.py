"""Heatmaps over any two axes of a family's report: red-yellow-green (or the family's colours), 0..100, the column
axis across, the row axis down, in the style of the published needle-in-a-haystack heatmaps.

Each cell prints its score (percent, like the tables) and its sample count, ``n``: a cell of one sample can
only be 0 or 100, and a reader must see that before reading it. The colour of a cell with fewer than
:data:`FADE_BELOW` samples is mixed with white (:data:`FADED_ALPHA` of the colour is kept), and a cell without
samples is grey and hatched, never a score; :data:`CELL_LEGEND` says so under every figure. A grid whose every
cell is small (one sample per cell) is not faded at all (fading every cell sets none apart):
:data:`SMALL_GRID_LEGEND` says what its cells are worth instead.

matplotlib is imported inside the functions (it costs ~0.3 s) and only its object API with the Agg canvas is
used, so no global backend or pyplot state is touched. The figure is saved without ``bbox_inches="tight"`` so
the PNG's pixel size is exactly ``figsize * dpi``, which callers (and tests) can rely on. The fade is mixed into
opaque colours here (no alpha channel to composite) and the PNG's metadata is fixed, so the same cells give the
same bytes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from niah.benchmarks.protocol import Axis
from niah.util.iox import write_atomic

OFFICIAL_COLORS: tuple[str, str, str] = ("#DC143C", "#FFD700", "#3CB371")  # crimson, gold, medium sea green
HEATMAP_FIGSIZE: tuple[float, float] = (9.0, 4.0)
HEATMAP_DPI = 100
EMPTY_CELL_TEXT = "–"  # a cell without samples: grey and printed as a dash (the official aggregation counts it 0)
EMPTY_CELL_COLOR = "#C8C8C8"
EMPTY_CELL_HATCH = "//"
#: A cell with fewer samples than this is drawn faded: its score says little (with 4 samples a Wilson interval
#: around 50 runs from 15 to 85).
FADE_BELOW = 5
#: The share of a faded cell's colour that is kept (the rest is white).
FADED_ALPHA = 0.4
CELL_LEGEND = (f"Each cell: score (x100) and n, its samples. Cells with n < {FADE_BELOW} are faded; "
               "grey hatched cells have no samples.")
#: The legend of a grid where every cell is small (one sample per cell, a quick grid): nothing is faded, since
#: fading every cell tells a reader nothing, and the legend says what the cells are worth instead.
SMALL_GRID_LEGEND = (f"Each cell: score (x100) and n, its samples. Every cell has n < {FADE_BELOW}: each score is "
                     "coarse (one sample scores 0 or 100); grey hatched cells have no samples.")
#: Panels of a side-by-side figure per row (more models wrap onto further rows), and each panel's size.
COMPARE_COLUMNS = 2
COMPARE_PANEL_SIZE: tuple[float, float] = (7.0, 3.4)
#: PNG text chunks: matplotlib writes its version under "Software" by default; a fixed value keeps the bytes the
#: same across matplotlib updates that draw alike.
_PNG_METADATA = {"Software": "niah"}


def official_colormap(colors: Sequence[str] = OFFICIAL_COLORS) -> Any:
    """A ``LinearSegmentedColormap`` through ``colors`` (default: #DC143C through #FFD700 to #3CB371)."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("niah_heatmap", list(colors))


def heatmap_size_px(figsize: tuple[float, float] = HEATMAP_FIGSIZE, dpi: int = HEATMAP_DPI) -> tuple[int, int]:
    return round(figsize[0] * dpi), round(figsize[1] * dpi)


def fades_small_cells(counts: Sequence[Sequence[Sequence[int]] | None]) -> bool:
    """Whether small cells are faded in a figure of these count grids: only where some cell has
    :data:`FADE_BELOW` samples or more, so that the fade sets weak cells apart from the others."""
    return any(c >= FADE_BELOW for grid in counts if grid is not None for row in grid for c in row)


def cell_legend(counts: Sequence[Sequence[Sequence[int]] | None]) -> str:
    """The legend under a figure of these count grids (:data:`CELL_LEGEND` or :data:`SMALL_GRID_LEGEND`)."""
    return CELL_LEGEND if fades_small_cells(counts) else SMALL_GRID_LEGEND


def cell_alpha(n: int | None) -> float:
    """How much of a cell's colour is drawn: all of it for ``FADE_BELOW`` samples or more (or an unknown count),
    :data:`FADED_ALPHA` for fewer, nothing (the cell is grey) for none."""
    if n is None or n >= FADE_BELOW:
        return 1.0
    return FADED_ALPHA if n > 0 else 0.0


def cell_text(value: float, n: int | None) -> str:
    """What a cell prints: the score in percent, rounded half-up to a whole number (``100``), then its sample
    count (``n=1``) where counts are known; :data:`EMPTY_CELL_TEXT` for a cell without samples."""
    if n == 0:
        return EMPTY_CELL_TEXT
    percent = Decimal(repr(float(value) * 100.0)).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
    return f"{percent}" if n is None else f"{percent}\nn={n}"


@dataclass(frozen=True, slots=True)
class HeatmapPanel:
    """One model's cells in a side-by-side figure: ``acc[y bin][x bin]`` in [0, 1] and samples per cell."""

    name: str
    acc: Sequence[Sequence[float]]
    counts: Sequence[Sequence[int]] | None


def _check_shape(acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None, rows: int,
                 columns: int) -> None:
    if len(acc) != rows or any(len(r) != columns for r in acc):
        raise ValueError(f"expected a {rows}x{columns} table")
    if counts is not None and (len(counts) != rows or any(len(r) != columns for r in counts)):
        raise ValueError(f"expected {rows}x{columns} sample counts")


def draw_cells(ax: Any, acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None, *, x: Axis,
                y: Axis, cmap: Any, fontsize: float, x_title: bool = True, y_title: bool = True,
                fade: bool | None = None) -> None:
    """Paint the cells on ``ax`` (colours mixed with white by :func:`cell_alpha` when ``fade``, by default when
    :func:`fades_small_cells`; empty cells grey and hatched) and print :func:`cell_text` in each."""
    if fade is None:
        fade = fades_small_cells([counts])
    import numpy as np
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Rectangle

    rows, columns = len(y.labels), len(x.labels)
    grey = np.array(to_rgb(EMPTY_CELL_COLOR))
    white = np.ones(3)
    rgb = np.zeros((rows, columns, 3))
    for d in range(rows):
        for b in range(columns):
            n = None if counts is None else int(counts[d][b])
            alpha = cell_alpha(n) if fade or n == 0 else 1.0
            colour = np.array(cmap(min(1.0, max(0.0, float(acc[d][b]))))[:3])
            rgb[d, b] = grey if alpha == 0.0 else alpha * colour + (1.0 - alpha) * white
    ax.imshow(rgb, aspect="auto", interpolation="nearest")
    for d in range(rows):
        for b in range(columns):
            n = None if counts is None else int(counts[d][b])
            if n == 0:
                ax.add_patch(Rectangle((b - 0.5, d - 0.5), 1.0, 1.0, fill=False, hatch=EMPTY_CELL_HATCH,
                                       edgecolor="#9A9A9A", linewidth=0.0))
            ax.text(b, d, cell_text(float(acc[d][b]), n), ha="center", va="center", fontsize=fontsize,
                    color="black" if n is None or n >= FADE_BELOW or not fade else "#404040", linespacing=1.0)
    ax.set_xticks(range(columns), labels=list(x.labels))
    # The row axis runs top to bottom; with edge labels (depth 0.0, 0.2, ...) ticks sit on the cell borders.
    if y.edges is not None:
        ax.set_yticks([i - 0.5 for i in range(rows + 1)], labels=list(y.edges))
    else:
        ax.set_yticks(range(rows), labels=list(y.labels))
    if x_title:
        ax.set_xlabel(x.title)
    if y_title:
        ax.set_ylabel(y.title)


def _row_label_chars(y: Axis) -> int:
    """The longest row tick label (edges where the axis labels its cell borders), in characters: the fixed
    layouts leave that much room left of the cells (about 7 px a character at the tick font size)."""
    labels = list(y.edges) if y.edges is not None else list(y.labels)
    return max((len(str(label)) for label in labels), default=3)


def _png(fig: Any, dpi: int) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata=_PNG_METADATA)
    return buf.getvalue()


def _short(title: str, limit: int) -> str:
    return title if len(title) <= limit else title[:limit - 3] + "..."


def render_heatmap_png(acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None, title: str, *,
                       x: Axis, y: Axis, colors: Sequence[str] = OFFICIAL_COLORS,
                       figsize: tuple[float, float] = HEATMAP_FIGSIZE, dpi: int = HEATMAP_DPI) -> bytes:
    """PNG bytes of one task's heatmap; ``acc[y bin][x bin]`` in [0, 1], each value printed with its n."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows, columns = len(y.labels), len(x.labels)
    _check_shape(acc, counts, rows, columns)
    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    # A fixed layout, from the figure size and the longest row label (tight_layout would draw the figure once
    # more just to measure it: a third of a report's time went there).
    width_px, height_px = figsize[0] * dpi, figsize[1] * dpi
    left = (48 + 7 * _row_label_chars(y)) / width_px
    bottom = (62 + (20 if counts is not None else 0)) / height_px
    top = 1.0 - 30 / height_px
    bar_width, bar_gap, right_pad = 14 / width_px, 16 / width_px, 44 / width_px
    plot_width = 1.0 - left - bar_gap - bar_width - right_pad
    ax = fig.add_axes((left, bottom, plot_width, top - bottom))
    cmap = official_colormap(colors)
    draw_cells(ax, acc, counts, x=x, y=y, cmap=cmap, fontsize=7)
    ax.set_title(_short(title, 90), fontsize=11)
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    bar = fig.add_axes((left + plot_width + bar_gap, bottom, bar_width, top - bottom))
    # the bar reads 0-100, as the cells print their scores (the colours are computed on 0-1)
    fig.colorbar(ScalarMappable(norm=Normalize(vmin=0.0, vmax=100.0), cmap=cmap), cax=bar)
    if counts is not None:
        fig.text(0.01, 0.01, cell_legend([counts]), fontsize=7, ha="left", va="bottom", color="#404040")
    return _png(fig, dpi)


def compare_figsize(panels: int) -> tuple[float, float]:
    """The size (inches) of a side-by-side figure of ``panels`` models: :data:`COMPARE_COLUMNS` panels a row."""
    columns = min(COMPARE_COLUMNS, max(1, panels))
    rows = math.ceil(max(1, panels) / columns)
    return COMPARE_PANEL_SIZE[0] * columns + 0.8, COMPARE_PANEL_SIZE[1] * rows + 0.9


def render_compare_png(panels: Sequence[HeatmapPanel], title: str, *, x: Axis, y: Axis,
                       colors: Sequence[str] = OFFICIAL_COLORS, dpi: int = HEATMAP_DPI) -> bytes:
    """PNG bytes of one task's heatmaps side by side, one panel per model, on one colour scale (one colour bar)
    and the same axes; :data:`COMPARE_COLUMNS` panels a row, further models wrap onto new rows."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not panels:
        raise ValueError("a side-by-side heatmap needs at least one panel")
    rows, columns = len(y.labels), len(x.labels)
    for panel in panels:
        _check_shape(panel.acc, panel.counts, rows, columns)
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    width, height = compare_figsize(len(panels))
    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    grid_columns = min(COMPARE_COLUMNS, len(panels))
    # A fixed layout in inches (a layout engine would draw the figure again just to measure it): each panel in
    # its COMPARE_PANEL_SIZE slot with room for its row labels, title and ticks; the suptitle above, the legend
    # below, one colour bar in the right strip.
    panel_w, panel_h = COMPARE_PANEL_SIZE
    left_pad = 0.48 + 0.07 * _row_label_chars(y)
    top_band, top_pad, bottom_pad, right_pad = 0.45, 0.32, 0.62, 0.15
    cmap = official_colormap(colors)
    fade = fades_small_cells([panel.counts for panel in panels])  # one rule for every panel of the figure
    axes = []
    for index, panel in enumerate(panels):
        row, column = divmod(index, grid_columns)
        box = ((column * panel_w + left_pad) / width,
               (height - top_band - (row + 1) * panel_h + bottom_pad) / height,
               (panel_w - left_pad - right_pad) / width, (panel_h - top_pad - bottom_pad) / height)
        ax = fig.add_axes(box)
        axes.append(ax)
        last_in_column = index + grid_columns >= len(panels)
        draw_cells(ax, panel.acc, panel.counts, x=x, y=y, cmap=cmap, fontsize=6,
                    x_title=last_in_column, y_title=column == 0, fade=fade)
        ax.set_title(_short(panel.name, 60), fontsize=10)
    fig.suptitle(_short(title, 110), fontsize=12, y=1.0 - 0.12 / height)
    bar = fig.add_axes(((grid_columns * panel_w + 0.2) / width, (height - top_band - math.ceil(
        len(panels) / grid_columns) * panel_h + bottom_pad) / height, 0.15 / width,
        (math.ceil(len(panels) / grid_columns) * panel_h - top_pad - bottom_pad) / height))
    fig.colorbar(ScalarMappable(norm=Normalize(vmin=0.0, vmax=100.0), cmap=cmap), cax=bar)
    fig.text(0.01, 0.005, cell_legend([panel.counts for panel in panels]), fontsize=7, ha="left", va="bottom",
             color="#404040")
    return _png(fig, dpi)


def write_heatmap(path: str | Path, acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None,
                  title: str, **kwargs: Any) -> Path:
    """Render and write a heatmap PNG atomically; returns the path."""
    path = Path(path)
    write_atomic(path, render_heatmap_png(acc, counts, title, **kwargs))
    return path


def write_compare_heatmap(path: str | Path, panels: Sequence[HeatmapPanel], title: str, **kwargs: Any) -> Path:
    """Render and write a side-by-side heatmap PNG atomically; returns the path."""
    path = Path(path)
    write_atomic(path, render_compare_png(panels, title, **kwargs))
    return path
