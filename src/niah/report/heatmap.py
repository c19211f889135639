"""Heatmaps over any two axes of a family's report: red-yellow-green (or the family's colours), 0..1, the column
axis across, the row axis down, in the style of the published needle-in-a-haystack heatmaps.

matplotlib is imported inside the functions (it costs ~0.3 s) and only its object API with the Agg canvas is
used, so no global backend or pyplot state is touched. The figure is saved without ``bbox_inches="tight"`` so
the PNG's pixel size is exactly ``figsize * dpi``, which callers (and tests) can rely on.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from niah.benchmarks.protocol import Axis
from niah.iox import write_atomic

OFFICIAL_COLORS: tuple[str, str, str] = ("#DC143C", "#FFD700", "#3CB371")  # crimson, gold, medium sea green
HEATMAP_FIGSIZE: tuple[float, float] = (9.0, 4.0)
HEATMAP_DPI = 100
EMPTY_CELL_TEXT = "–"  # a cell without samples: grey and printed as a dash (the official aggregation counts it 0)
EMPTY_CELL_COLOR = "#C8C8C8"


def official_colormap(colors: Sequence[str] = OFFICIAL_COLORS) -> Any:
    """A ``LinearSegmentedColormap`` through ``colors`` (default: #DC143C through #FFD700 to #3CB371)."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("niah_heatmap", list(colors))


def heatmap_size_px(figsize: tuple[float, float] = HEATMAP_FIGSIZE, dpi: int = HEATMAP_DPI) -> tuple[int, int]:
    return round(figsize[0] * dpi), round(figsize[1] * dpi)


def render_heatmap_png(acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None, title: str, *,
                       x: Axis, y: Axis, colors: Sequence[str] = OFFICIAL_COLORS,
                       figsize: tuple[float, float] = HEATMAP_FIGSIZE, dpi: int = HEATMAP_DPI) -> bytes:
    """PNG bytes of one task's heatmap; ``acc[y bin][x bin]`` in [0, 1], each value printed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows, columns = len(y.labels), len(x.labels)
    if len(acc) != rows or any(len(r) != columns for r in acc):
        raise ValueError(f"expected a {rows}x{columns} table")
    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    import numpy as np

    cmap = official_colormap(colors)
    cmap = cmap.with_extremes(bad=EMPTY_CELL_COLOR)  # a cell without samples is grey, never a score
    values = np.ma.masked_array([list(map(float, r)) for r in acc],
                                mask=[[counts is not None and counts[d][b] == 0 for b in range(columns)]
                                      for d in range(rows)])
    image = ax.imshow(values, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest")
    ax.set_xticks(range(columns), labels=list(x.labels))
    # The row axis runs top to bottom; with edge labels (depth 0.0, 0.2, ...) ticks sit on the cell borders.
    if y.edges is not None:
        ax.set_yticks([i - 0.5 for i in range(rows + 1)], labels=list(y.edges))
    else:
        ax.set_yticks(range(rows), labels=list(y.labels))
    ax.set_xlabel(x.title)
    ax.set_ylabel(y.title)
    ax.set_title(title if len(title) <= 90 else title[:87] + "...", fontsize=11)
    for d in range(rows):
        for b in range(columns):
            empty = counts is not None and counts[d][b] == 0
            ax.text(b, d, EMPTY_CELL_TEXT if empty else f"{float(acc[d][b]):.2f}",
                    ha="center", va="center", fontsize=8, color="black")
    fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def write_heatmap(path: str | Path, acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None,
                  title: str, **kwargs: Any) -> Path:
    """Render and write a heatmap PNG atomically; returns the path."""
    path = Path(path)
    write_atomic(path, render_heatmap_png(acc, counts, title, **kwargs))
    return path
