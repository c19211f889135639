"""MM-NIAH heatmaps drawn like the official ones: red-yellow-green, 0..1, context bins across, depth down.

matplotlib is imported inside the functions (it costs ~0.3 s) and only its object API with the Agg canvas is
used, so no global backend or pyplot state is touched. The figure is saved without ``bbox_inches="tight"`` so
the PNG's pixel size is exactly ``figsize * dpi``, which callers (and tests) can rely on.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from niah.benchmarks.mm_niah.bins import CONTEXT_LABELS, NUM_DEPTH_CELLS
from niah.iox import write_atomic

OFFICIAL_COLORS: tuple[str, str, str] = ("#DC143C", "#FFD700", "#3CB371")  # crimson, gold, medium sea green
HEATMAP_FIGSIZE: tuple[float, float] = (9.0, 4.0)
HEATMAP_DPI = 100
EMPTY_CELL_TEXT = "–"  # a cell without samples: coloured as 0 (the official rule) but printed as a dash


def official_colormap():
    """The official ``LinearSegmentedColormap`` from #DC143C through #FFD700 to #3CB371."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("mm_niah_official", list(OFFICIAL_COLORS))


def heatmap_size_px(figsize: tuple[float, float] = HEATMAP_FIGSIZE, dpi: int = HEATMAP_DPI) -> tuple[int, int]:
    return round(figsize[0] * dpi), round(figsize[1] * dpi)


def render_heatmap_png(acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None, title: str, *,
                       figsize: tuple[float, float] = HEATMAP_FIGSIZE, dpi: int = HEATMAP_DPI) -> bytes:
    """PNG bytes of one task's heatmap; ``acc[depth_cell][context_bin]`` in [0, 1], each value printed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if len(acc) != NUM_DEPTH_CELLS or any(len(r) != len(CONTEXT_LABELS) for r in acc):
        raise ValueError(f"expected a {NUM_DEPTH_CELLS}x{len(CONTEXT_LABELS)} table")
    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow([list(map(float, r)) for r in acc], cmap=official_colormap(), vmin=0.0, vmax=1.0,
                      aspect="auto", interpolation="nearest")
    ax.set_xticks(range(len(CONTEXT_LABELS)), labels=list(CONTEXT_LABELS))
    # Depth runs from 0.0 at the top to 1.0 at the bottom; ticks sit on the cell borders (0.0, 0.2, ...).
    ax.set_yticks([i - 0.5 for i in range(NUM_DEPTH_CELLS + 1)],
                  labels=[f"{i / NUM_DEPTH_CELLS:.1f}" for i in range(NUM_DEPTH_CELLS + 1)])
    ax.set_xlabel("Context length (tokens)")
    ax.set_ylabel("Needle depth")
    ax.set_title(title if len(title) <= 90 else title[:87] + "...", fontsize=11)
    for d in range(NUM_DEPTH_CELLS):
        for b in range(len(CONTEXT_LABELS)):
            empty = counts is not None and counts[d][b] == 0
            ax.text(b, d, EMPTY_CELL_TEXT if empty else f"{float(acc[d][b]):.2f}",
                    ha="center", va="center", fontsize=8, color="black")
    fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def write_heatmap(path: str | Path, acc: Sequence[Sequence[float]], counts: Sequence[Sequence[int]] | None,
                  title: str, **kwargs) -> Path:
    """Render and write a heatmap PNG atomically; returns the path."""
    path = Path(path)
    write_atomic(path, render_heatmap_png(acc, counts, title, **kwargs))
    return path
