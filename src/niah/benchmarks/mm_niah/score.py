"""MM-NIAH per-sample scoring (official and lenient), its metric rules, and the official aggregation of a run."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from niah.benchmarks.mm_niah.metrics import score_mm_niah_lenient, score_mm_niah_official
from niah.benchmarks.protocol import (
    OFFICIAL,
    Headline,
    SampleScore,
    ScoredRows,
    Scorer,
    TaskHeadline,
    percent,
)
from niah.sample import Sample
from niah.scoring.metrics.base import MetricInputError, MetricRule
from niah.util.errors import DataError

if TYPE_CHECKING:
    import numpy as np

RULES: tuple[MetricRule, ...] = (
    MetricRule(
        "mm-niah",
        "MM-NIAH official: int gold -> option letter rule, list -> positional soft accuracy, str -> VQA word match",
        score_mm_niah_official,
    ),
    MetricRule(
        "mm-niah/lenient",
        "MM-NIAH with a lenient letter extractor ('(C)', 'Answer: C', 'C, because') and counts read from prose "
        "('counted 3 pebbles'); otherwise official",
        score_mm_niah_lenient,
    ),
)


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    answer = sample.answer
    if sample.task.startswith("counting") and isinstance(answer, str):
        try:  # the official scorer decodes counting answers that arrive as JSON strings
            answer = json.loads(answer)
        except json.JSONDecodeError as exc:
            raise MetricInputError(f"counting answer is not JSON: {exc.msg}", field="answer") from None
    return SampleScore({
        OFFICIAL: score_mm_niah_official(answer, response),
        "lenient": score_mm_niah_lenient(answer, response),
    })


#: The image-count probe (paper Fig. 4) is not an official task: it is aggregated on its own, by image count.
IMAGE_COUNT_TASK = "image-count"


def row_fields(sample: Sample) -> dict[str, Any]:
    """``image_count``: the gold count of an image-count probe sample (other tasks get no field), which the
    report's probe breakdown reads."""
    count = sample.meta.get("image_count") if sample.task == IMAGE_COUNT_TASK else None
    return {"image_count": count} if isinstance(count, int) and not isinstance(count, bool) else {}


def image_count_summary(rows: list[tuple[int | None, float]]) -> dict[str, Any]:
    """Accuracy of the image-count probe overall and per number of images in the document (Fig. 4)."""
    by_count: dict[int, list[float]] = defaultdict(list)
    for count, score in rows:
        if count is not None:
            by_count[count].append(score)
    scores = [score for _count, score in rows]
    return {
        "accuracy": round(sum(scores) / len(scores), 6) if scores else None,
        "samples": len(scores),
        "by_images": {str(n): {"accuracy": round(sum(v) / len(v), 6), "samples": len(v)}
                      for n, v in sorted(by_count.items())},
    }


CellTables = dict[str, tuple[list[list[float]], list[list[int]]]]
# The cell tables of the last rows aggregated (a strong reference: ``is`` can never match a new list that took
# a freed one's id): the headline reads the same tables as the aggregation, once per bootstrap resample.
_last_cells: tuple[ScoredRows, str, CellTables] | None = None


#: (context_length, depth) -> (context bin or None, depth cell): the bootstrap bins the same layout 1000 times
_CELL_OF: dict[tuple[Any, ...], tuple[int | None, int]] = {}


def _cell_of(row: dict[str, Any]) -> tuple[int | None, int]:
    """The official (context bin, depth cell) of a row, its fields checked as the official aggregation does."""
    from niah.benchmarks.mm_niah.official import sample_cell

    if row["context_length"] is None or row["depth"] is None:
        raise DataError(f"sample {row['id']!r}: MM-NIAH aggregation needs meta.context_length and meta.depth",
                        field="meta")
    return sample_cell(row["context_length"], row["depth"])


def task_cells(rows: ScoredRows, score_name: str) -> CellTables:
    """Per official task, the (depth cell x context bin) accuracy and sample-count tables of its rows, binned
    as officially (depth lists averaged, 1.0 as 0.99; under 1000 tokens dropped)."""
    global _last_cells
    if _last_cells is not None and _last_cells[0] is rows and _last_cells[1] == score_name:
        return _last_cells[2]
    from niah.benchmarks.mm_niah import bins

    num_bins, num_cells = len(bins.CONTEXT_EDGES), bins.NUM_DEPTH_CELLS
    totals: dict[str, list[list[float]]] = {}
    counts: dict[str, list[list[int]]] = {}
    for row, _info in rows:
        task = row["task"]
        if task == IMAGE_COUNT_TASK:
            continue
        length, depth = row["context_length"], row["depth"]
        # the types in the key: True == 1 must not pass as a cached length
        key = (type(length), length, type(depth), tuple(depth) if isinstance(depth, list) else depth)
        hashable = True
        try:
            where = _CELL_OF.get(key)
        except TypeError:  # an unhashable depth (nested lists): checked, and refused, below
            where, hashable = None, False
        if where is None:
            where = _cell_of(row)
            if hashable:
                if len(_CELL_OF) > 100_000:  # bounded: a long session scoring many datasets
                    _CELL_OF.clear()
                _CELL_OF[key] = where
        b, c = where
        if b is None:  # under 1000 tokens: dropped, as officially
            continue
        if task not in totals:
            totals[task] = [[0.0] * num_bins for _ in range(num_cells)]
            counts[task] = [[0] * num_bins for _ in range(num_cells)]
        totals[task][c][b] += float(row["scores"][score_name])
        counts[task][c][b] += 1
    cells = _cell_tables(totals, counts)
    _last_cells = (rows, score_name, cells)
    return cells


def _cell_tables(totals: dict[str, list[list[float]]], counts: dict[str, list[list[int]]]) -> CellTables:
    """Per task, its (depth cell x context bin) accuracies (an empty cell 0.0) and sample counts."""
    return {task: ([[t / n if n else 0.0 for t, n in zip(totals[task][c], counts[task][c], strict=True)]
                    for c in range(len(totals[task]))], counts[task]) for task in totals}


def aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    probe = [(row.get("image_count"), row["scores"][score_name]) for row, _info in rows
             if row["task"] == IMAGE_COUNT_TASK]
    return _aggregate_cells(task_cells(rows, score_name), image_count_summary(probe) if probe else None)


def _aggregate_cells(cells: CellTables, probe: dict[str, Any] | None) -> dict[str, Any]:
    """The official structure from the tasks' cell tables, with the image-count probe's summary (if any)."""
    from niah.benchmarks.mm_niah import bins
    from niah.benchmarks.mm_niah.official import aggregate_task_scores

    # the official bin scores (niah.benchmarks.mm_niah.official.bin_scores, from tables shared with the headline)
    out = aggregate_task_scores({task: bins.bin_scores(acc) for task, (acc, _n) in cells.items()})
    if probe is not None:  # an object, not a per-bin list: readers of the official structure skip it
        out[IMAGE_COUNT_TASK] = probe
    return out


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def covered_overall(rows: ScoredRows, mode: str) -> float | None:
    """The official overall over only the cells the run holds (0-1): per task and context bin the mean over its
    depth cells with samples (the official rule counts an empty cell 0), rounded to 6 places as officially; per
    bin the mean over the tasks with samples there; then the mean over the bins with samples. Equal to the
    official overall on a full grid (every cell of every bin of the six tasks filled)."""
    return _covered_from_cells(task_cells(rows, mode))


def _covered_from_cells(cells: CellTables) -> float | None:
    from niah.benchmarks.mm_niah import bins

    per_bin: list[list[float]] = [[] for _ in bins.CONTEXT_EDGES]
    for acc, counts in cells.values():
        covered = bins.bin_scores_covered(acc, counts)
        for b in range(len(bins.CONTEXT_EDGES)):
            if any(counts[c][b] for c in range(bins.NUM_DEPTH_CELLS)):
                per_bin[b].append(covered[b])
    return _mean([round(sum(v) / len(v), 6) for v in per_bin if v])


def headline(structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    """Accuracy: the mean of the official overall's 11 bins x 100 (defined when all six tasks are present;
    empty bins and cells count 0, as officially); per task the mean of its 11 bin scores x 100; the image-count
    probe (not an official task) by its own accuracy."""
    counts: dict[str, int] = defaultdict(int)
    for row, _info in rows:
        counts[row["task"]] += 1
    return _headline_from(structure, task_cells(rows, mode), counts)


def _headline_from(structure: dict[str, Any], cells: CellTables, counts: dict[str, int], *,
                   covered: bool = True) -> Headline:
    """The headline from the official structure, the tasks' cell tables and the samples per task; without the
    covered figures (None) where ``covered`` is False (the bootstrap reads none: half its time per resample)."""
    from niah.benchmarks.mm_niah import bins
    from niah.benchmarks.mm_niah.official import is_official_task

    by_task: dict[str, TaskHeadline] = {}
    for key, value in structure.items():
        if isinstance(value, list) and is_official_task(key):
            task_covered = None
            if covered and key in cells:  # the task's mean over its bins with samples, each over its cells with samples
                acc, cell_counts = cells[key]
                held = [figure for b, figure in enumerate(bins.bin_scores_covered(acc, cell_counts))
                        if any(cell_counts[c][b] for c in range(bins.NUM_DEPTH_CELLS))]
                task_covered = 100 * sum(held) / len(held) if held else None
            by_task[key] = TaskHeadline(100 * sum(value) / len(value), counts[key], covered=task_covered)
    probe = structure.get(IMAGE_COUNT_TASK)
    if isinstance(probe, dict):
        accuracy = probe.get("accuracy")
        by_task[IMAGE_COUNT_TASK] = TaskHeadline(None if accuracy is None else 100 * accuracy,
                                                 int(probe.get("samples", 0)), plain=True)
    overall = structure.get("overall")
    held_overall = _covered_from_cells(cells) if covered else None
    return Headline(
        metric="accuracy (mean over the 11 context bins of the six tasks' mean, empty bins as 0)",
        overall=100 * sum(overall) / len(overall) if isinstance(overall, list) and overall else None,
        covered=None if held_overall is None else 100 * held_overall,
        n=sum(n for task, n in counts.items() if task != IMAGE_COUNT_TASK), by_task=by_task)


def resampler(rows: ScoredRows, mode: str, positions: Sequence[int],
              ) -> Callable[[np.ndarray], list[Headline]] | None:
    """The bootstrap's headlines from sums per cell (:class:`Scorer` ``resampler``): a resampled row adds the
    drawn row's score to the cell of its position (the layout is the position's), in the rows' order, as
    :func:`task_cells` adds them; the image-count probe's accuracy is summed alike (its breakdown by image
    count, which the headline does not read, is left out; so are the covered figures on a full grid, where they
    are the official ones). None where a position has no cell to give."""
    import numpy as np

    from niah.benchmarks.mm_niah import bins
    from niah.benchmarks.mm_niah.official import TASKS, is_official_task

    num_bins, num_cells = len(bins.CONTEXT_EDGES), bins.NUM_DEPTH_CELLS
    tasks = list(dict.fromkeys(row["task"] for row, _info in rows))
    code = {task: k for k, task in enumerate(tasks)}
    probe_code = code.get(IMAGE_COUNT_TASK, -1)
    scores = [row["scores"][mode] for row, _info in rows]
    if any(type(score) not in (int, float) for score in scores):
        return None  # sums of other types (bool, a float subclass) are left to the rows themselves
    cell_of_row: list[int] = []
    for row, _info in rows:
        try:
            b, c = _cell_of(row) if all(k in row for k in SCORER.layout_fields) else (None, -1)
        except Exception:  # noqa: BLE001 - the rows themselves then give the error, where a resample meets it
            return None
        if c < 0:
            return None
        cell_of_row.append(-1 if b is None else c * num_bins + b)
    task_of = np.array([code[row["task"]] for row, _info in rows], dtype=np.intp)
    score_of = np.array(scores, dtype=np.float64)
    cell_at = np.array(cell_of_row, dtype=np.intp)[np.asarray(positions, dtype=np.intp)]
    per_task = num_cells * num_bins
    # a resample keeps each position's task and cell, so which cells are filled is the rows' own: where any of
    # the six tasks' cells is empty, the figures over the part of the grid the run holds are bootstrapped too
    held_slots = {(row["task"], cell) for (row, _info), cell in zip(rows, cell_of_row, strict=True)
                  if cell >= 0 and is_official_task(row["task"])}
    official_tasks = {task for task, _cell in held_slots}
    partial = len(official_tasks) < len(TASKS) or len(held_slots) < len(official_tasks) * per_task

    def headlines(drawn: np.ndarray) -> list[Headline]:
        count, width = drawn.shape
        drawn_task, drawn_score = task_of[drawn], score_of[drawn]
        binned = (cell_at >= 0) & (drawn_task != probe_code)
        # one bin per (resample, task, cell), the last for what no cell counts; bincount adds in order
        slots = len(tasks) * per_task
        where = np.where(binned, drawn_task * per_task + cell_at + slots * np.arange(count)[:, None], count * slots)
        totals = np.bincount(where.ravel(), drawn_score.ravel(), count * slots + 1)[:-1].reshape(count, len(tasks), -1)
        filled = np.bincount(where.ravel(), None, count * slots + 1)[:-1].reshape(count, len(tasks), -1)
        # the order the tasks first get a cell in (the order of task_cells' tables)
        column = np.where(binned, np.arange(width), width)
        first = np.stack([np.where(drawn_task == k, column, width).min(axis=1) for k in range(len(tasks))], axis=1)
        is_probe = drawn_task == probe_code
        probe_sums = np.bincount(np.nonzero(is_probe)[0], drawn_score[is_probe], count)
        probe_counts = is_probe.sum(axis=1)
        out = []
        for r in range(count):
            sums, held = totals[r].tolist(), filled[r].tolist()
            order = sorted((k for k in range(len(tasks)) if first[r, k] < width), key=lambda k: first[r, k])
            cells = _cell_tables({tasks[k]: [sums[k][c * num_bins:(c + 1) * num_bins] for c in range(num_cells)]
                                  for k in order},
                                 {tasks[k]: [held[k][c * num_bins:(c + 1) * num_bins] for c in range(num_cells)]
                                  for k in order})
            n_probe = int(probe_counts[r])
            probe = ({"accuracy": round(float(probe_sums[r]) / n_probe, 6), "samples": n_probe}
                     if n_probe else None)
            samples: dict[str, int] = defaultdict(int)
            samples.update({tasks[k]: n for k, n in enumerate(np.bincount(drawn_task[r], None, len(tasks)).tolist())
                            if n})
            out.append(_headline_from(_aggregate_cells(cells, probe), cells, samples, covered=partial))
        return out

    return headlines


def to_percent(structure: dict[str, Any]) -> dict[str, Any]:
    """The official structure with every bin score x 100 (after the official rounding to 6 places on 0-1)."""
    out: dict[str, Any] = {}
    for key, value in structure.items():
        if key != "context_ranges" and isinstance(value, list):
            out[key] = [percent(v) for v in value]
        elif key == IMAGE_COUNT_TASK and isinstance(value, dict):
            out[key] = {**value, "accuracy": percent(value.get("accuracy")),
                        "by_images": {n: {**entry, "accuracy": percent(entry["accuracy"])}
                                      for n, entry in value["by_images"].items()}}
        else:
            out[key] = value
    return out


def stratum(row: dict[str, Any], info: dict[str, Any]) -> tuple[str, int | None]:
    """The bootstrap redraws outcomes within a task's context bin, onto the bin's own depth cells."""
    from niah.benchmarks.mm_niah.bins import context_bin

    return row["task"], context_bin(row["context_length"])


SCORER = Scorer(score_sample, aggregate, (OFFICIAL, "lenient"), row_fields=row_fields, headline=headline,
                stratum=stratum, percent=to_percent, resampler=resampler)
