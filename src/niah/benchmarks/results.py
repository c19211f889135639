"""What a family's report hooks exchange with the report stage: one model's results read for a report
(:class:`ReportInput`, its heatmap cells :class:`TaskCells`), table rows (:class:`TableRow`) and a paper's published
results (:class:`PublishedResults`). They are plain values beside the protocol, which names them in its hooks'
signatures, so that the protocol depends on nothing above it; :mod:`niah.report` reads and renders them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from niah.benchmarks.protocol import Axis, ReportSpec


MISSING = "-"


def format_pct(value: float | None) -> str:
    """A percentage with one decimal, rounded half-up on its decimal form; ``-`` for a missing value."""
    if value is None:
        return MISSING
    return str(Decimal(repr(float(value))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


@dataclass(frozen=True, slots=True)
class TableRow:
    """One model's row; ``values`` and ``overall`` are percentages (x100), None where there is no number."""

    model: str
    values: tuple[float | None, ...]
    overall: float | None
    filled: float | None = None   # mean over the bins that have samples, when some bins have none
    # 95% intervals (percent) of ``values``, ``overall`` and ``filled``; empty / None: not known
    value_intervals: tuple[tuple[float, float] | None, ...] = ()
    overall_interval: tuple[float, float] | None = None
    filled_interval: tuple[float, float] | None = None

    def value_interval(self, index: int) -> tuple[float, float] | None:
        return self.value_intervals[index] if index < len(self.value_intervals) else None

    def cells(self) -> list[str]:
        """The bare numbers (no intervals): bins then Overall."""
        return [format_pct(v) for v in self.values] + [format_pct(self.overall)]


@dataclass(slots=True)
class PublishedSection:
    """Rows copied from a paper table, shown below the report's own rows and marked as published."""

    label: str               # e.g. "Published: <paper>, Table 6 (test split, official scoring)"
    rows: list[TableRow]
    notes: dict[str, str] = field(default_factory=dict)  # model -> caveat (RAG, text tasks only, ...)


@dataclass(frozen=True, slots=True)
class PublishedTable:
    table: int               # the paper's table number
    task: str                # "overall" or a task name
    caption: str
    rows: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True)
class PublishedResults:
    protocol: dict[str, Any]
    source: dict[str, Any]
    model_notes: dict[str, str]
    tables: dict[str, PublishedTable]
    source_label: str = "paper"

    def matches(self, *, benchmark: str | None, scoring: str | None) -> bool:
        """Same benchmark and the official scorer: the only case where the paper's numbers are comparable."""
        return benchmark == self.protocol.get("benchmark") and scoring == self.protocol.get("scoring")

    def section(self, task: str) -> PublishedSection | None:
        table = self.tables.get(task)
        if table is None:
            return None
        split = self.protocol.get("split")
        label = (f"Published: {self.source_label}, Table {table.table}"
                 f" ({split} split, {self.protocol.get('scoring')} scoring)" if split else
                 f"Published: {self.source_label}, Table {table.table}")
        notes = {m: n for m, n in self.model_notes.items() if any(r.model == m for r in table.rows)}
        return PublishedSection(label=label, rows=list(table.rows), notes=notes)


@dataclass(slots=True)
class TaskCells:
    """Heatmap cells of one task: accuracy and sample count per (row bin, column bin) of the family's axes."""

    acc: list[list[float]]
    counts: list[list[int]]
    unbinned: int = 0        # rows left out of the cells (the family's unbinned_note says why)


@dataclass(slots=True)
class ReportInput:
    name: str
    path: Path
    kind: str                                # "run" or "scores"
    benchmark: str | None
    scoring: str
    split: str | None
    task_scores: dict[str, list[float]]      # task -> per-bin scores in [0, 1]
    overall: list[float] | None              # benchmark overall per bin, or None
    cells: dict[str, TaskCells] = field(default_factory=dict)
    scored_path: Path | None = None
    dataset_path: Path | None = None
    run_meta: dict[str, Any] = field(default_factory=dict)
    num_rows: int = 0
    # improved scoring modes beside the official one (e.g. "lenient"): mode -> task -> per-bin scores,
    # and mode -> task -> number of samples whose score differs from the official score
    mode_scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    mode_disagreements: dict[str, dict[str, int]] = field(default_factory=dict)
    spec: ReportSpec | None = None           # the family's report spec (None: unknown family, no tables)
    run_status: dict[str, Any] | None = None  # scores.json's run_status (complete, answered, failed, ...)
    bin_counts: dict[str, list[int]] = field(default_factory=dict)  # task -> samples per column bin
    # breakdown title -> bucket label -> (sum of official scores, samples)
    breakdowns: dict[str, dict[str, tuple[float, int]]] = field(default_factory=dict)
    # the row axis this input is binned on: the spec's, or the one its ``from_values`` built from the rows
    rows_axis: Axis | None = None
    # per column bin of the overall, 0 where it is undefined; None: the sum of bin_counts over the tasks
    overall_counts: list[int] | None = None
    # every binned sample scored 0 or 1 (a run's rows say; unknown for a scores file): intervals are Wilson's
    binary_scores: bool = False
    # task -> (column bin, row bin, official score) of every binned sample (runs only; empty for a scores file):
    # what the 95% intervals of the tables are computed from
    samples: dict[str, list[tuple[int, int, float]]] = field(default_factory=dict)
    # the (rows, columns) shape of the cell tables the samples are binned into (runs only)
    cell_shape: tuple[int, int] | None = None
    # a family whose official rule counts an empty cell 0 (ReportSpec.per_bin_covered), runs only: task -> per-bin
    # figures over the cells with samples, and the overall per bin from them (what the tables print in the bins)
    covered_scores: dict[str, list[float]] = field(default_factory=dict)
    covered_overall: list[float] | None = None
    # the benchmark's block of scores.json (current layout) as `niah score` wrote it: the headline figure the
    # leaderboard shows is read from it (niah.scoring.score.headline_figure), never computed a second way
    headline: dict[str, Any] | None = None
    # report.intervals.input_intervals, once computed (the tables and the leaderboard share one bootstrap)
    interval_cache: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def breakdown_sums(self, title: str) -> dict[str, tuple[float, int]]:
        return self.breakdowns.get(title, {})

    @property
    def incomplete(self) -> bool:
        return bool(self.run_status) and not self.run_status.get("complete", True)  # type: ignore[union-attr]

    @property
    def task_order(self) -> tuple[str, ...]:
        return self.spec.task_order if self.spec is not None else ()
