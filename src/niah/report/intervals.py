"""95% intervals for every number of the report's per-bin tables (each bin, each Overall), family-neutral.

What a figure's interval is depends on what the report knows about the samples behind it:

* a run (its scored rows are loaded): a figure that is the plain mean of its samples (a bin of one task in the
  usual layouts, a row's Overall when every bin holds as many samples) gets :func:`niah.scoring.stats.mean_interval`:
  Wilson's when every sample scored 0 or 1, else the seeded bootstrap of the mean. Any other figure (a family's
  aggregation: a mean of bins or of tasks, a share over the defined bins) gets a seeded bootstrap of that very
  aggregation: each resample redraws the scores of every (task, column bin) stratum with replacement, puts them
  back into the stratum's own cells (so no cell that had samples is left empty, and no weighting changes) and
  recomputes the family's ``per_bin`` / ``overall`` rules and the table row exactly as the report does;
* a scores file (only means and, maybe, counts): the normal approximation over the bin's samples
  (:func:`niah.scoring.stats.normal_interval`), Wilson's at 0 and 100 where the normal one has no width; no interval
  where the counts are unknown;
* a bin without samples prints ``-`` and has no interval.

Intervals are kept in percent (x100), like the table values.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from niah.benchmarks.protocol import ReportSpec
from niah.report.inputs import ReportInput, cell_table, per_bin_scores
from niah.report.tables import OVERALL_KEY, TableRow, row_from_bin_scores
from niah.scoring.stats import (
    BOOTSTRAP,
    NORMAL,
    bootstrap_intervals,
    interval_points,
    is_binary,
    mean_interval,
    normal_interval,
    strata_alike_interval,
    wilson_interval,
)

Interval = tuple[float, float]
#: A figure whose value is within this of the plain mean of its samples is that mean (float round-off aside).
_SAME_VALUE = 1e-9


@dataclass(frozen=True, slots=True)
class RowIntervals:
    """The intervals (percent) of one table row's figures: each bin, the Overall and the Overall over the bins
    with samples (None: no interval), and the methods they came from (``wilson``, ``bootstrap``, ``normal``)."""

    values: tuple[Interval | None, ...]
    overall: Interval | None
    filled: Interval | None
    methods: frozenset[str]
    overall_method: str | None = None  # the method of ``overall`` alone


def _percent(found: tuple[float, float] | None) -> Interval | None:
    return None if found is None else (found[0] * 100.0, found[1] * 100.0)


def table_rows(inp: ReportInput, spec: ReportSpec, task_scores: dict[str, list[float]],
               overall: list[float] | None, covered: dict[str, list[float]] | None = None,
               covered_overall: list[float] | None = None) -> dict[str, TableRow]:
    """The rows the report's tables print for the input, from (possibly resampled) per-bin scores: one per task
    and, when there is an overall, one under :data:`OVERALL_KEY` (the same calls as ``build_tables``);
    ``covered`` and ``covered_overall``: the bins' figures over their cells with samples, where printed."""
    from niah.report.build import overall_counts

    num_bins = len(spec.columns.labels)
    covered = covered or {}
    rows = {task: row_from_bin_scores(inp.name, scores, num_bins, inp.bin_counts.get(task),
                                      weighted=spec.weighted_overall, shown=covered.get(task))
            for task, scores in task_scores.items()}
    if overall is not None:
        rows[OVERALL_KEY] = row_from_bin_scores(inp.name, overall, num_bins, overall_counts(inp),
                                                weighted=spec.weighted_overall, shown=covered_overall)
    return rows


def overall_table_row(inp: ReportInput, spec: ReportSpec) -> TableRow | None:
    """The overall row the report's table prints for the input (its Overall over the bins with samples as
    shown there, ``covered_overall`` included), or None without an overall."""
    return table_rows(inp, spec, {}, inp.overall, None, inp.covered_overall).get(OVERALL_KEY)


def _overall(spec: ReportSpec, task_scores: dict[str, list[float]],
             bin_counts: dict[str, list[int]]) -> list[float] | None:
    """The family's overall per bin, as ``load_run_dir`` computes it."""
    if spec.overall_counted is not None:
        counted = spec.overall_counted(task_scores, bin_counts)
        return None if counted is None else counted[0]
    return spec.overall(task_scores)


def _figures(row: TableRow) -> list[float | None]:
    """A row's figures in a fixed order (fractions): its bins, then Overall, then the Overall over filled bins."""
    return [None if v is None else v / 100.0 for v in (*row.values, row.overall, row.filled)]


def row_samples(inp: ReportInput, key: str, num_bins: int) -> tuple[list[list[float]], list[float]]:
    """The scores behind a row: per column bin, and all of them (the overall row: every task's samples in the
    bins where the family's overall is defined)."""
    tasks = [key] if key != OVERALL_KEY else list(inp.samples)
    defined = inp.overall_counts if key == OVERALL_KEY else None
    per_bin: list[list[float]] = [[] for _ in range(num_bins)]
    for task in tasks:
        for column, _row, score in inp.samples.get(task, ()):
            if defined is None or defined[column]:
                per_bin[column].append(score)
    return per_bin, [s for scores in per_bin for s in scores]


def _mean_interval(scores: Sequence[float]) -> tuple[Interval, str]:
    """The interval of the plain mean of ``scores`` (percent) and its method. Graded scores that are all alike
    (one sample, say) give the bootstrap nothing to resample: a zero-width interval would claim certainty, so
    they get the normal approximation with the largest variance a score of that mean can have."""
    found = mean_interval(scores) if len(set(scores)) > 1 or is_binary(scores) else None
    if found is None:
        low, high = normal_interval(sum(scores) / len(scores), len(scores))
        return (low * 100.0, high * 100.0), NORMAL
    return (found[0][0] * 100.0, found[0][1] * 100.0), found[1]


def _recomputed(inp: ReportInput, spec: ReportSpec, samples: dict[str, list[tuple[int, int, float]]],
                ) -> dict[str, TableRow]:
    """The table rows of the input with its samples' scores replaced by ``samples`` (same cells, same order)."""
    shape = inp.cell_shape
    assert shape is not None
    tables = {task: cell_table(entries, *shape) for task, entries in samples.items()}
    scores = {task: per_bin_scores(spec, *table, task=task) for task, table in tables.items()}
    overall = _overall(spec, scores, inp.bin_counts) if inp.overall is not None else None
    covered: dict[str, list[float]] = {}
    covered_overall = None
    if spec.per_bin_covered is not None:  # the same tasks as the input's (the cells, so their gaps, are its own)
        covered = {task: spec.per_bin_covered(*tables[task]) for task in inp.covered_scores}
        if inp.covered_overall is not None and spec.overall_covered is not None:
            covered_overall = spec.overall_covered({**scores, **covered}, inp.bin_counts)
    return table_rows(inp, spec, {t: scores[t] for t in inp.task_scores}, overall, covered, covered_overall)


def _run_intervals(inp: ReportInput, spec: ReportSpec) -> dict[str, RowIntervals]:
    num_bins = len(spec.columns.labels)
    rows = table_rows(inp, spec, inp.task_scores, inp.overall, inp.covered_scores, inp.covered_overall)
    keys = list(rows)
    width = num_bins + 2
    direct: dict[tuple[str, int], tuple[Interval, str]] = {}
    needs_bootstrap = False
    for key in keys:
        per_bin, everything = row_samples(inp, key, num_bins)
        groups = [*per_bin, everything, everything]
        for position, value in enumerate(_figures(rows[key])):
            group = groups[position]
            if value is None or not group:
                continue

            def figure_with(new_score: Callable[[int, float], float], key: str = key, position: int = position
                            ) -> float | None:
                """The figure with the score of every sample behind it (the i-th, scored s) set to
                ``new_score(i, s)``."""
                tasks = set(inp.samples) if key == OVERALL_KEY else {key}
                defined = inp.overall_counts if key == OVERALL_KEY else None
                seen = itertools.count()
                moved = {task: [(c, r, new_score(next(seen), score)
                                 if task in tasks and (position >= num_bins or c == position)
                                 and (defined is None or defined[c]) else score) for c, r, score in entries]
                         for task, entries in inp.samples.items()}
                return _figures(_recomputed(inp, spec, moved)[key])[position]

            # A plain mean of its samples (here, and again with probe scores: equal by structure, not by chance,
            # as an aggregation over empty cells happens to be at 0): that mean's interval.
            probes = [(i * 0.6180339887) % 1.0 for i in range(1, len(group) + 1)]
            def probe(i: int, _score: float, probes: list[float] = probes) -> float:
                return probes[i]

            probed = figure_with(probe)
            if (abs(value - sum(group) / len(group)) <= _SAME_VALUE and probed is not None
                    and abs(probed - sum(probes) / len(probes)) <= _SAME_VALUE):
                direct[(key, position)] = _mean_interval(group)
            elif len(set(group)) == 1:
                # an aggregation of samples that all scored alike: a bootstrap has nothing to redraw (it would
                # print a zero-width interval). The interval of the samples' common score, each value of it put
                # in for every one of them, bounds the figure (at points across it: a rule need not be monotone)
                (low, high), method = _mean_interval(group)
                def constant(bound: float) -> Callable[[int, float], float]:
                    return lambda _i, _score: bound

                ends = [figure_with(constant(bound)) for bound in interval_points(low / 100.0, high / 100.0)]
                moved_ends = [value if end is None else end for end in ends]
                direct[(key, position)] = (min(moved_ends) * 100.0, max(moved_ends) * 100.0), method
            else:
                needs_bootstrap = True
    boot: list[Interval | None] = []
    if needs_bootstrap:
        # strata: (task, column bin) -> that stratum's entries, in load order (the cells they go back into)
        strata = {task: [[e for e in entries if e[0] == b] for b in range(num_bins)]
                  for task, entries in inp.samples.items()}

        def replicate(rng: random.Random) -> list[float | None]:
            redrawn = {task: [(column, cell_row, score)
                              for stratum in by_bin if stratum
                              for (column, cell_row, _), score in zip(
                                  stratum, rng.choices([e[2] for e in stratum], k=len(stratum)), strict=True)]
                       for task, by_bin in strata.items()}
            again = _recomputed(inp, spec, redrawn)
            return [f for key in keys for f in (_figures(again[key]) if key in again else [None] * width)]

        boot = [_percent(found) for found in bootstrap_intervals(replicate, width * len(keys))]
        for k, key in enumerate(keys):
            for position in range(width):
                found_ci = boot[k * width + position] if k * width + position < len(boot) else None
                if found_ci is not None and found_ci[0] == found_ci[1] and (key, position) not in direct:
                    alike = _strata_alike_interval(inp, spec, key, position, num_bins)
                    if alike is not None:
                        direct[(key, position)] = alike
    out: dict[str, RowIntervals] = {}
    for k, key in enumerate(keys):
        found: list[Interval | None] = []
        used: list[str | None] = []
        for position, value in enumerate(_figures(rows[key])):
            if value is None:
                found.append(None)
                used.append(None)
            elif (key, position) in direct:
                ci, method = direct[(key, position)]
                found.append(ci)
                used.append(method)
            else:
                found.append(boot[k * width + position] if boot else None)
                used.append(BOOTSTRAP)
        out[key] = RowIntervals(values=tuple(found[:num_bins]), overall=found[num_bins], filled=found[num_bins + 1],
                                methods=frozenset(m for m in used if m is not None),
                                overall_method=used[num_bins] if found[num_bins] is not None else None)
    return out


def _strata_alike_interval(inp: ReportInput, spec: ReportSpec, key: str, position: int, num_bins: int,
                           ) -> tuple[Interval, str] | None:
    """The interval of a figure whose bootstrap had nothing to redraw although its samples differ: every
    stratum behind it (a task at one length bin, what the bootstrap redraws within) scored alike, one task all
    right and another all wrong, say. :func:`niah.scoring.stats.strata_alike_interval` carries each stratum's own
    uncertainty through the figure. None where some stratum's samples differ (the bootstrap holds)."""
    tasks = set(inp.samples) if key == OVERALL_KEY else {key}
    defined = inp.overall_counts if key == OVERALL_KEY else None

    def counts(task: str, column: int) -> bool:
        return (task in tasks and (position >= num_bins or column == position)
                and (defined is None or bool(defined[column])))

    behind: dict[tuple[str, int], list[float]] = {}
    for task, entries in inp.samples.items():
        for column, _row, score in entries:
            if counts(task, column):
                behind.setdefault((task, column), []).append(score)
    if not behind or any(len(set(scores)) > 1 for scores in behind.values()):
        return None

    def figure_at(values: dict[tuple[str, int], float]) -> float | None:
        moved = {task: [(column, cell_row, values[(task, column)] if counts(task, column) else score)
                        for column, cell_row, score in entries] for task, entries in inp.samples.items()}
        return _figures(_recomputed(inp, spec, moved)[key])[position]

    found = strata_alike_interval(figure_at, {stratum: scores[0] for stratum, scores in behind.items()},
                                  {stratum: len(scores) for stratum, scores in behind.items()})
    if found is None:
        return None
    return (found[0] * 100.0, found[1] * 100.0), NORMAL


def _normal(value: float | None, n: int | None) -> Interval | None:
    """The normal-approximation interval of a mean (percent) over ``n`` samples; at 0 or 100, where that
    interval has no width (it would claim certainty), Wilson's, which holds for any score in [0, 1]."""
    if value is None or not n:
        return None
    mean = value / 100.0
    at_bound = mean <= 0.0 or mean >= 1.0
    return _percent(wilson_interval(mean, n) if at_bound else normal_interval(mean, n))


def _counts_intervals(inp: ReportInput, spec: ReportSpec) -> dict[str, RowIntervals]:
    """Intervals of a scores file's rows from its means and samples per bin (none where the counts are unknown)."""
    from niah.report.build import overall_counts

    num_bins = len(spec.columns.labels)
    rows = table_rows(inp, spec, inp.task_scores, inp.overall)
    out: dict[str, RowIntervals] = {}
    for key, row in rows.items():
        counts: Sequence[int] | None = overall_counts(inp) if key == OVERALL_KEY else inp.bin_counts.get(key)
        if counts is None or len(counts) != num_bins:
            continue
        total = sum(int(n) for n in counts)
        values = tuple(_normal(v, int(n)) for v, n in zip(row.values, counts, strict=True))
        found = RowIntervals(values=values, overall=_normal(row.overall, total), filled=_normal(row.filled, total),
                             methods=frozenset({NORMAL}), overall_method=NORMAL)
        out[key] = found
    return out


def input_intervals(inp: ReportInput) -> dict[str, RowIntervals]:
    """Task (or :data:`OVERALL_KEY`) -> the intervals of the input's table row; a row without any is left out."""
    spec = inp.spec
    if spec is None:
        return {}
    if inp.interval_cache is None:
        found = (_run_intervals(inp, spec) if inp.samples and inp.cell_shape is not None
                 else _counts_intervals(inp, spec))
        inp.interval_cache = _stored_headline_intervals(inp, spec, found)
    return inp.interval_cache


def _stored_headline_intervals(inp: ReportInput, spec: ReportSpec, found: dict[str, RowIntervals],
                               ) -> dict[str, RowIntervals]:
    """The overall row's Overall and Overall over the bins with samples take the intervals niah score stored
    beside those figures in scores.json (``ci95``, ``covered_ci95``), where the row shows the same figures: the
    headline's interval is computed once, and every table prints that one."""
    import dataclasses

    from niah.scoring.score import headline_figure

    current = found.get(OVERALL_KEY)
    if inp.headline is None or current is None:
        return found
    head = headline_figure(inp.headline)
    row = overall_table_row(inp, spec)
    if row is None or head.ci95 is None or head.value is None:
        return found
    stored = (head.ci95[0], head.ci95[1])
    shown = row.overall if head.basis == "official" else row.filled
    if shown is None or abs(shown - head.value) >= 0.05:  # the table prints another figure: its own interval
        return found
    if head.basis == "official":
        return {**found, OVERALL_KEY: dataclasses.replace(current, overall=stored,
                                                          overall_method=head.ci_method or current.overall_method)}
    return {**found, OVERALL_KEY: dataclasses.replace(current, filled=stored)}


def with_intervals(row: TableRow, found: RowIntervals | None) -> TableRow:
    """``row`` carrying ``found`` (its figures unchanged)."""
    if found is None:
        return row
    import dataclasses

    return dataclasses.replace(row, value_intervals=found.values, overall_interval=found.overall,
                               filled_interval=found.filled)
