"""Scoring a niah run directory: each sample by its family's scorer, looked up by ``sample.benchmark``.

``score_run(RUN_DIR)`` reads ``run.json``, ``responses.jsonl`` and the dataset named in ``run.json``, scores every
sample that has a response with its benchmark's scorer, and writes (atomically):

* ``scored.jsonl``: one row per scored sample: ``{"id", "task", "benchmark", "context_length", "depth" (mean or
  null), "num_images", "answer", "response", "error", "score" (the official rule), "scores": {"official", ...}}``;
* ``scores.json``: the aggregation of the official scores. With one benchmark in the run it is that benchmark's
  family's official structure; with several it is ``{benchmark: structure}``;
* ``scores.<name>.json`` for every other named score mode of a family (``scores.lenient.json``), same layout;
* in each scores file, ``run_status``: ``{"complete", "answered", "failed", "skipped", "missing", "total"}``
  counted from the dataset and responses.jsonl (a row with an ``error`` is failed, ``status == "skipped"`` is
  skipped, a sample with no row is missing), plus ``requests`` (the lines of ``requests.log``: every request
  attempt ever sent, a killed run's included); ``complete`` only when every sample was answered; ``no_gold`` (only when some): samples
  whose gold answer is null (a test split whose ground truth is private). Those are answered but never scored;
  when some exist, every scores file also carries ``gold_missing`` (their number), and when no sample has gold,
  scores.json holds only that marker and ``run_status`` (nothing is aggregated) instead of the run failing.

When the run's rows carry ``needle_shown`` (``niah run`` records whether the sent prompt held every needle the
family locates; :mod:`niah.run.delivery`), each benchmark's structure in the scores files also holds
``needle_shown``: the shown rate and the mean per-sample score over all located samples and over those shown,
per task and overall (:func:`needle_shown_summary`), beside the official aggregation (which stays over every
sample); scored.jsonl rows carry the flag too.

Judge verdicts a judge verb stored in the run (:mod:`niah.scoring.verdicts`: ``judgments.jsonl``, ``judged.json``) are
applied through the family's ``Scorer.judged``, so scoring again reproduces the judged numbers; each scores file
of a judged benchmark then carries ``judged``: ``{"judges", "settings", "verdicts", "failed", "missing"}``
(``missing``: samples whose current response has no stored verdict). ``judged=False`` scores without them.

A failed request (``response`` null) scores 0 under every rule, as the official scorers see a missing response.
A sample with no response row at all is not scored (it is counted as missing). Families plug in through
:mod:`niah.benchmarks.registry` (``Family.scorer``).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.benchmarks.protocol import (
    JUDGE_INJECTION_KEY,
    JUDGE_MISSING,
    OFFICIAL,
    PERCENT_DECIMALS,
    SCORES_SCHEMA,
    Headline,
    SampleScore,
    ScoredRows,
    Scorer,
    TaskHeadline,
    percent,
)
from niah.benchmarks.registry import families, find_family
from niah.run.rundir import read_responses, read_run_json, resolve_run_dataset
from niah.sample import Dataset, Sample
from niah.scoring.metrics.base import MetricInputError
from niah.scoring.stats import (
    BOOTSTRAP,
    NORMAL,
    WILSON,
    alike_interval,
    interval_points,
    is_binary,
    percentile_interval,
    strata_alike_interval,
    stratified_draws,
    wilson_interval,
)
from niah.util import interrupts
from niah.util.errors import ConfigError, DataError
from niah.util.iox import (
    dumps_line,
    file_digest,
    read_json_file,
    refuse_link,
    write_atomic,
    write_json_atomic,
)

if TYPE_CHECKING:
    from niah.scoring.verdicts import JudgePass, VerdictStore

#: Top-level key of scores*.json holding the run's completeness: complete, answered, failed, skipped, missing, total.
RUN_STATUS_KEY = "run_status"
#: Top-level key of scores*.json present when some samples have no gold answer: how many (they are not scored).
GOLD_MISSING_KEY = "gold_missing"

#: Top-level key (per benchmark) of scores*.json when rows carry ``needle_shown``: see :func:`needle_shown_summary`.
NEEDLE_SHOWN_KEY = "needle_shown"

#: The fields of every scored.jsonl row; a family's ``row_fields`` add others.
_CORE_FIELDS = frozenset({"id", "task", "benchmark", "context_length", "depth", "num_images", "answer", "response",
                          "error", "score", "scores"})


def get_scorer(benchmark: str) -> Scorer:
    """The scorer of the family called ``benchmark`` (from the registry)."""
    family = find_family(benchmark)
    if family is None or family.scorer is None:
        scorable = [f.name for f in families() if f.scorer is not None]
        raise ConfigError(f"no scorer for benchmark {benchmark!r}; scorers exist for: {', '.join(scorable)}")
    return family.scorer()


# ------------------------------------------------------------------------------------------- runs


@dataclass
class RunScoreSummary:
    """What :func:`score_run` did."""

    scored: int = 0
    failed: int = 0
    missing: int = 0
    no_gold: int = 0  # answered samples without a gold answer (not scored)
    #: samples the official rule cannot score (the official code would crash on them): "file:line: field: why"
    refused: list[str] = field(default_factory=list)
    #: samples whose response row answers another version of the sample (the dataset was rebuilt after the
    #: run): "file:line: sample 'ID': why"; they are not scored (counted as missing)
    stale: list[str] = field(default_factory=list)
    disagreements: dict[str, int] = field(default_factory=dict)
    benchmarks: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)
    run_status: dict[str, Any] = field(default_factory=dict)
    #: benchmark -> what its stored judge verdicts did: judges, verdicts applied, failed, missing
    judged: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: benchmarks with a recorded judge pass that was not applied (``judged=False``)
    judged_skipped: list[str] = field(default_factory=list)
    #: benchmark -> :func:`needle_shown_summary` of the official scores (benchmarks whose rows carry the flag)
    needle_shown: dict[str, dict[str, Any]] = field(default_factory=dict)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def needle_shown_summary(rows: list[tuple[str, bool, float]]) -> dict[str, Any]:
    """``(task, needle_shown, score)`` rows -> the shown rate and the plain mean score over all of them and over
    the shown ones, overall and per task. A score over shown samples says what the model does with needles it
    was sent; the official score counts the others too (a needle the sampling dropped is a question unseen)."""
    def part(items: list[tuple[str, bool, float]]) -> dict[str, Any]:
        shown = [score for _task, flag, score in items if flag]
        return {"samples": len(items), "shown": len(shown), "shown_rate": len(shown) / len(items),
                "score_all": _mean([score for _task, _flag, score in items]), "score_shown": _mean(shown)}

    tasks: dict[str, list[tuple[str, bool, float]]] = defaultdict(list)
    for item in rows:
        tasks[item[0]].append(item)
    return {**part(rows), "tasks": {task: part(items) for task, items in tasks.items()},
            "note": "samples whose prompt held every needle (needle_shown), and the mean per-sample score over all "
                    "of them and over the shown ones; the official aggregation counts every sample"}


def count_request_log(run_dir: Path) -> int | None:
    """Lines of the run's ``requests.log`` (one per request attempt, written before it is sent; a torn last
    line counts), or None for a run without one (an imported run, or one from before the ledger)."""
    from niah.run import REQUESTS_LOG, read_request_log

    path = run_dir / REQUESTS_LOG
    return read_request_log(path)[0] if path.is_file() else None


# ------------------------------------------------------------------------------------------- scores.json layout

#: ``scale`` of every score in a scores.json of the current layout.
SCALE = "percent"


def percent_needle_shown(summary: dict[str, Any]) -> dict[str, Any]:
    """:func:`needle_shown_summary` with its rates and mean scores in percent (as every score of scores.json)."""
    def part(entry: dict[str, Any]) -> dict[str, Any]:
        return {**entry, **{key: percent(entry[key]) for key in ("shown_rate", "score_all", "score_shown")}}

    return {**part(summary), "tasks": {task: part(entry) for task, entry in summary["tasks"].items()}}


def _bounds(interval: tuple[float, float] | None, scale: float) -> list[float] | None:
    if interval is None:
        return None
    return [round(interval[0] * scale, PERCENT_DECIMALS), round(interval[1] * scale, PERCENT_DECIMALS)]


def plain_headline(structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    """The headline of a family whose scorer names none: the plain mean of the per-sample scores (0-1) x 100,
    overall and per task."""
    per_task: dict[str, list[float]] = defaultdict(list)
    for row, _info in rows:
        per_task[row["task"]].append(float(row["scores"][mode]))
    values = [v for task_values in per_task.values() for v in task_values]
    overall = 100 * sum(values) / len(values) if values else None
    return Headline(metric="mean score", overall=overall, covered=overall, n=len(values), plain=True,
                    by_task={t: TaskHeadline(100 * sum(v) / len(v), len(v), plain=True) for t, v in per_task.items()})


def _headline_of(scorer: Scorer, structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    return (scorer.headline or plain_headline)(structure, rows, mode)


def _headline(scorer: Scorer, rows: ScoredRows, mode: str) -> Headline:
    return _headline_of(scorer, scorer.aggregate(rows, mode), rows, mode)


@dataclass(frozen=True)
class GridHold:
    """Whether a run holds the whole grid its family's official figures are defined over (overall, and per
    by_task key): read from where the rows stand, never from their scores (a run that got everything wrong
    holds the part of the grid it holds)."""

    full: bool
    task_full: dict[str, bool]


def grid_hold(scorer: Scorer, rows: ScoredRows, mode: str) -> GridHold:
    """The headline of the same rows with every one scored 1: on a full grid its official figures equal the
    figures over the part the run holds; an empty part counted 0, or an official figure left undefined, tells
    them apart whatever the run's own scores are."""
    ones: ScoredRows = [({**row, "scores": {**row["scores"], mode: 1.0}}, info) for row, info in rows]
    head = _headline(scorer, ones, mode)
    full = head.overall is not None and (head.covered is None or abs(head.overall - head.covered) <= _SAME_FIGURE)
    return GridHold(full, {key: task.covered is None or (task.score is not None
                                                          and abs(task.covered - task.score) <= _SAME_FIGURE)
                           for key, task in head.by_task.items()})


@dataclass(frozen=True)
class Intervals:
    """95% intervals (percent) of a headline's figures: ``overall`` (with ``method``) and per by_task key; on a
    partial grid also those of the figures over the part the run holds (``covered``, per task ``task_covered``)."""

    overall: list[float] | None
    method: str | None
    tasks: dict[str, list[float] | None]
    covered: list[float] | None = None
    covered_method: str | None = None
    task_covered: dict[str, list[float] | None] = field(default_factory=dict)


def headline_intervals(scorer: Scorer, rows: ScoredRows, mode: str, head: Headline,
                       hold: GridHold) -> Intervals:
    """95% intervals (percent) of a headline's overall and by_task scores: Wilson for a plain mean of 0/1
    per-sample scores (a proportion), else the seeded percentile bootstrap over the scored rows, stratified as
    the family says (:class:`Scorer` ``stratum``: outcomes redrawn within a stratum onto its own positions),
    which recomputes the family's aggregation and headline on each resample. Where ``hold`` says the grid is
    partial, the figures over the part the run holds (``covered``) get theirs from the same resamples (the
    statistics added draw nothing: every other interval stays as it was). Undefined scores get None."""
    binary = is_binary([float(row["scores"][mode]) for row, _info in rows])

    def wilson(score: float | None, n: int) -> list[float] | None:
        return _bounds(wilson_interval(score / 100, n), 100.0) if score is not None and n > 0 else None

    boot: list[str] = []  # names of the statistics the bootstrap computes: "" (overall) and "task:KEY"
    overall: list[float] | None = None
    method: str | None = None
    if head.overall is not None:
        if head.plain and binary and head.n > 0:
            overall, method = wilson(head.overall, head.n), WILSON
        else:
            boot.append("")
    tasks: dict[str, list[float] | None] = {}
    for key, task in head.by_task.items():
        tasks[key] = None
        if task.score is None:
            continue
        if task.plain and binary and task.n > 0:
            tasks[key] = wilson(task.score, task.n)
        else:
            boot.append("task:" + key)
    # on a partial grid the built part's figures, always bootstrapped (a mean over the cells the run holds)
    if not hold.full and head.covered is not None:
        boot.append("covered")
    partial_tasks = [key for key, task in head.by_task.items()
                     if not hold.task_full.get(key, True) and task.covered is not None]
    boot.extend("covered:" + key for key in partial_tasks)
    covered: list[float] | None = None
    covered_method: str | None = None
    task_covered: dict[str, list[float] | None] = {}
    if boot:
        resampling = _Resampling(scorer, rows, mode, _strata_of(scorer, rows))
        intervals = dict(zip(boot, _bootstrap(resampling, boot), strict=True))
        if "" in intervals:
            overall, alike_method = _resampled(resampling, intervals[""], "", head.overall)
            method = (alike_method or BOOTSTRAP) if overall is not None else None
        for key, task in head.by_task.items():
            if "task:" + key in intervals:
                tasks[key] = _resampled(resampling, intervals["task:" + key], "task:" + key, task.score)[0]
        if "covered" in intervals:
            covered, alike_method = _resampled(resampling, intervals["covered"], "covered", head.covered)
            covered_method = (alike_method or BOOTSTRAP) if covered is not None else None
        for key in partial_tasks:
            task_covered[key] = _resampled(resampling, intervals["covered:" + key], "covered:" + key,
                                           head.by_task[key].covered)[0]
    return Intervals(overall, method, tasks, covered, covered_method, task_covered)


def _statistic(head: Headline, name: str) -> float | None:
    """One figure of a headline by its name in the bootstrap: "" the overall, "task:KEY" a task's score,
    "covered" and "covered:KEY" the same over the part of the grid the run holds."""
    if name in ("", "covered"):
        return head.overall if name == "" else head.covered
    kind, key = name.split(":", 1)
    task = head.by_task.get(key)
    if task is None:
        return None
    return task.score if kind == "task" else task.covered


@dataclass(frozen=True)
class _Resampling:
    """What the bootstrap of a headline redraws: the scored rows in one mode, and each row's stratum (what the
    bootstrap redraws within, and what an all-alike figure is bounded by)."""

    scorer: Scorer
    rows: ScoredRows
    mode: str
    stratum_of: list[Any]


def _strata_of(scorer: Scorer, rows: ScoredRows) -> list[Any]:
    """Each row's stratum: the family's (:class:`Scorer` ``stratum``), else its task."""
    return [scorer.stratum(row, info) if scorer.stratum is not None else row["task"] for row, info in rows]


def _bootstrap(resampling: _Resampling, boot: list[str]) -> list[tuple[float, float] | None]:
    """The seeded percentile bootstrap intervals (0-100) of the statistics named in ``boot``: on each resample,
    within each stratum, drawn outcomes are put at the stratum's own grid positions and the family's
    aggregation and headline recomputed (or the family's :class:`Scorer` ``resampler`` gives those headlines
    for a block of resamples at once: the same figures without building the rows)."""
    import numpy as np

    scorer, rows, mode = resampling.scorer, resampling.rows, resampling.mode
    strata: dict[Any, list[int]] = defaultdict(list)
    for position, stratum in enumerate(resampling.stratum_of):
        strata[stratum].append(position)
    groups = list(strata.values())
    # the positions stratum by stratum; a draw's index within its stratum, plus the stratum's start, is the
    # index of the drawn row's position here
    positions = [position for members in groups for position in members]
    sizes = [len(members) for members in groups]
    starts = np.repeat(np.cumsum([0, *sizes])[:-1], sizes)
    by_index = np.array(positions, dtype=np.intp)
    fast = scorer.resampler(rows, mode, positions) if scorer.resampler is not None else None
    layouts = [{k: row[k] for k in scorer.layout_fields if k in row} for row, _info in rows]

    def headlines(drawn: np.ndarray) -> list[Headline]:
        if fast is not None:
            return fast(drawn)
        out = []
        for picks in drawn.tolist():
            sample: ScoredRows = []
            for position, pick in zip(positions, picks, strict=True):
                row, info = rows[pick]
                sample.append((row if pick == position else {**row, **layouts[position]}, info))
            out.append(_headline(scorer, sample, mode))
        return out

    values: list[list[float]] = [[] for _ in boot]
    for draws in stratified_draws(sizes):
        for again in headlines(by_index[draws + starts]):
            for statistic, name in zip(values, boot, strict=True):
                value = _statistic(again, name)
                if value is not None:
                    statistic.append(float(value))
    return [percentile_interval(statistic) for statistic in values]


def _resampled(resampling: _Resampling, interval: tuple[float, float] | None, name: str,
               score: float | None) -> tuple[list[float] | None, str | None]:
    """A bootstrap interval as reported, and the method of the interval put in its place when it is that of a
    common score (None when it stays the bootstrap's).

    Outcomes that all came out alike give every resample the same figure: a zero-width interval that claims
    certainty. The figure with each value of the common score's own interval put in for every sample behind it
    bounds the figure (a perfect run: its Wilson interval over the samples; one filled bin of an official mean
    over all bins: that scaled; a flip below 50: never under 50)."""
    scorer, rows, mode, stratum_of = resampling.scorer, resampling.rows, resampling.mode, resampling.stratum_of
    bounds = _bounds(interval, 1.0)
    if bounds is None or bounds[0] != bounds[1] or score is None:
        return bounds, None
    task = name.split(":", 1)[1] if ":" in name else None
    behind = [k for k, (row, info) in enumerate(rows) if (task is None or row["task"] == task)
              and (scorer.counted is None or scorer.counted(row, info))] or list(range(len(rows)))
    # the strata behind the figure (those the bootstrap redraws within): each must have scored alike, though
    # they may differ from each other (one task all right, another all wrong)
    common_of: dict[Any, float] = {}
    sizes: dict[Any, int] = defaultdict(int)
    for k in behind:
        value = float(rows[k][0]["scores"][mode])
        if common_of.setdefault(stratum_of[k], value) != value:
            return bounds, None
        sizes[stratum_of[k]] += 1
    chosen = set(behind)

    def figure_at(scores: dict[Any, float]) -> float | None:
        """The figure (0-1) with each stratum's samples behind it all scored ``scores[stratum]``."""
        moved: ScoredRows = [
            ({**row, "scores": {**row["scores"], mode: scores[stratum_of[k]]}} if k in chosen else row, info)
            for k, (row, info) in enumerate(rows)]
        found = _statistic(_headline(scorer, moved, mode), name)
        return None if found is None else found / 100.0

    commons = set(common_of.values())
    if len(commons) > 1:  # strata unlike each other: each stratum's uncertainty, through the figure
        found = strata_alike_interval(figure_at, common_of, sizes)
        if found is None:
            return bounds, None
        return [round(found[0] * 100.0, PERCENT_DECIMALS), round(found[1] * 100.0, PERCENT_DECIMALS)], NORMAL
    # one common score: its interval over all the samples behind the figure, put in for every one of them (41
    # points across it: a rule need not be monotone)
    common = commons.pop()
    ends = []
    for bound in interval_points(*alike_interval(common, len(behind))):
        figure = figure_at(dict.fromkeys(common_of, bound))
        ends.append(score if figure is None else figure * 100.0)
    return ([round(min(ends), PERCENT_DECIMALS), round(max(ends), PERCENT_DECIMALS)],
            WILSON if common in (0.0, 1.0) else NORMAL)


def benchmark_block(scorer: Scorer, benchmark: str, rows: ScoredRows, mode: str) -> dict[str, Any]:
    """The scores.json of one benchmark's rows in one mode (see the module docstring), without run_status."""
    structure = scorer.aggregate(rows, mode)
    head = _headline_of(scorer, structure, rows, mode)
    hold = grid_hold(scorer, rows, mode)
    found = headline_intervals(scorer, rows, mode, head, hold)
    covered_ci, covered_method = ((found.overall, found.method) if hold.full
                                  else (found.covered, found.covered_method))
    return {
        "schema": SCORES_SCHEMA, "benchmark": benchmark, "mode": mode, "scale": SCALE, "metric": head.metric,
        "overall": percent(head.overall, 1.0), "ci95": found.overall, "ci_method": found.method,
        "covered": percent(head.covered, 1.0), "n": head.n,  # the samples behind the headline and its interval
        # whether the run holds the whole grid the official overall is defined over (where the rows stand, never
        # their scores), and the interval of covered: ci95's on a full grid
        "full_grid": hold.full, "covered_ci95": covered_ci, "covered_ci_method": covered_method,
        "by_task": {key: {"score": percent(task.score, 1.0), "n": task.n, "ci95": found.tasks[key],
                          # a task's figure over the part of the grid the run holds, where it lacks a part
                          **({"covered": percent(task.covered, 1.0), "covered_ci95": found.task_covered.get(key)}
                             if task.covered is not None and not hold.task_full.get(key, True) else {}),
                          **({"note": task.note} if task.note else {})}
                    for key, task in head.by_task.items()},
        **({"note": head.note} if head.note else {}),
        "official": scorer.percent(structure) if scorer.percent is not None else structure,
    }


#: overall and covered closer than this (percent) are one figure: the run holds what the official rule needs
_SAME_FIGURE = 1e-6


@dataclass(frozen=True)
class HeadlineFigure:
    """The one headline figure of a scores.json block, as every reader shows it (``niah score``, ``niah eval``,
    the report's leaderboard): chosen from the block by :func:`headline_figure`, never computed again.

    ``value`` (percent, None when nothing is defined) is the official overall where the run holds everything the
    official rule is defined over; otherwise the same rule over only the part the run built (``covered``), and
    ``official_note`` says what the official figure is and what it lacks, and what the family notes of it
    (scores.json's ``note``: e.g. an official flip applied). ``what`` names the figure in words,
    ``basis`` is ``official`` or ``covered``."""

    value: float | None
    what: str
    basis: str
    n: int | None
    ci95: list[float] | None
    ci_method: str | None
    official: float | None
    official_note: str = ""


def benchmark_blocks(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Benchmark name -> its block of a scores.json (current layout): each entry of ``benchmarks`` for a run of
    several, else the file itself, named by its ``benchmark``; empty when the file names none."""
    several = doc.get("benchmarks")
    if isinstance(several, dict):
        return several
    return {str(doc["benchmark"]): doc} if doc.get("benchmark") is not None else {}


def headline_figure(block: Mapping[str, Any]) -> HeadlineFigure:
    """The headline of one benchmark's scores.json block (current layout: ``metric``, ``overall``, ``covered``,
    ``n``, ``ci95``, ``ci_method``).

    A full grid (``overall`` equals ``covered``) shows the official figure with its interval. A partial grid
    never shows a number the official rule defines only for the full grid as if it were the score: an
    ``overall`` that counts the missing part as 0 (a grid family's empty bins) or is undefined without it
    (a family whose overall needs every task or every data set) stands beside the built part's figure,
    labelled with what it lacks."""
    metric = str(block.get("metric") or "score")
    short = metric.split(" (", 1)[0]
    overall = _finite_or_none(block.get("overall"))
    covered = _finite_or_none(block.get("covered"))
    raw_n = block.get("n")
    n = raw_n if isinstance(raw_n, int) and not isinstance(raw_n, bool) else None
    ci95, method = _stored_interval(block, "ci95", "ci_method")
    raw_note = block.get("note")
    family_note = raw_note if isinstance(raw_note, str) else ""
    full = block.get("full_grid")  # older files: where the two figures agree (a run all wrong reads as full)
    if full is True or (full is None and overall is not None
                        and (covered is None or abs(overall - covered) <= _SAME_FIGURE)):
        return HeadlineFigure(overall, metric, OFFICIAL, n, ci95, method, overall, family_note)
    what = f"{short} over the part of the grid the run holds (the official rule on it, no empty part counted 0)"
    if overall is None:
        note = "official overall undefined: the official rule needs parts of the grid (tasks, data sets) the run lacks"
    else:
        note = (f"official overall {overall:.1f}% counts the parts of the grid the run lacks as 0 (a figure for "
                "the full grid only)")
    # the built part's own interval, computed once by niah score (older files hold none)
    held_ci, held_method = _stored_interval(block, "covered_ci95", "covered_ci_method")
    return HeadlineFigure(covered, what, "covered", n, held_ci, held_method if held_ci else None, overall,
                          "; ".join(part for part in (note, family_note) if part))


def _stored_interval(block: Mapping[str, Any], key: str, method_key: str) -> tuple[list[float] | None, str | None]:
    """An interval a scores.json block holds under ``key`` (a pair of numbers, else None) and its method."""
    ci = block.get(key)
    method = block.get(method_key)
    return ([float(ci[0]), float(ci[1])] if isinstance(ci, list) and len(ci) == 2 else None,
            method if isinstance(method, str) else None)


def _finite_or_none(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _mean_or_none(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return None if not values or len(present) < len(values) else round(sum(present) / len(present),
                                                                          PERCENT_DECIMALS)


def combined_block(blocks: dict[str, dict[str, Any]], mode: str) -> dict[str, Any]:
    """scores.json of a run holding several benchmarks: each benchmark's block under ``benchmarks``, the
    unweighted mean of their overall (and covered; null if any is null), the sum of their samples, and every
    by_task entry named ``benchmark/task``."""
    return {
        "schema": SCORES_SCHEMA, "mode": mode, "scale": SCALE, "metric": "mean of the benchmarks' headlines",
        "overall": _mean_or_none([b["overall"] for b in blocks.values()]), "ci95": None, "ci_method": None,
        "covered": _mean_or_none([b["covered"] for b in blocks.values()]),
        "n": sum(b["n"] for b in blocks.values()),
        "full_grid": all(b.get("full_grid", True) for b in blocks.values()), "covered_ci95": None,
        "covered_ci_method": None,
        "by_task": {f"{name}/{task}": entry for name, b in blocks.items() for task, entry in b["by_task"].items()},
        "benchmarks": blocks,
    }


class _AtomicLines:
    """Stream lines to a temporary sibling file, renamed over the target on success only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        refuse_link(path)  # the rename would replace a link, not write through it; refused all the same
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.fchmod(fd, 0o644)  # as write_atomic: mkstemp makes 0600, and scores are shared like every other output
        self.tmp = Path(tmp)
        self.fh = os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    def write(self, line: str) -> None:
        self.fh.write(line)

    def commit(self) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        if not self.fh.closed:
            self.fh.close()
        self.tmp.unlink(missing_ok=True)


@dataclass
class _Tally:
    """What the pass over the samples gathers beside the summary: the counts behind ``run_status``, the rows
    each benchmark aggregates, the ``needle_shown`` flags, and the stale and refused rows (their own files)."""

    status: dict[str, int] = field(
        default_factory=lambda: {"answered": 0, "failed": 0, "skipped": 0, "missing": 0, "total": 0})
    kept: defaultdict[str, ScoredRows] = field(default_factory=lambda: defaultdict(list))
    shown_flags: defaultdict[str, list[tuple[str, bool, dict[str, float]]]] = field(
        default_factory=lambda: defaultdict(list))
    stale_rows: list[str] = field(default_factory=list)  # rows whose sample changed since the run (stale.jsonl)
    #: refusals are rare by nature; kept apart so scored.jsonl rows always hold a score
    refused_rows: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Judging:
    """The run's recorded judge passes, and the verdict store when they are applied (``judged=True``)."""

    passes: dict[str, JudgePass]
    store: VerdictStore | None


def score_run(run_dir: str | Path, *, dataset: str | Path | None = None, judged: bool = True) -> RunScoreSummary:
    """Score a run directory (with its stored judge verdicts unless ``judged`` is False); see the module
    docstring for what is written."""
    from niah.scoring.verdicts import VerdictStore, load_passes

    run_dir = Path(run_dir)
    ds = Dataset(resolve_run_dataset(run_dir, read_run_json(run_dir), dataset))
    sources = _source_digests(run_dir, ds.samples_path)  # before reading: a change while scoring reads as stale
    responses = read_responses(run_dir / "responses.jsonl")
    passes = load_passes(run_dir)
    judging = _Judging(passes, VerdictStore(run_dir) if passes and judged else None)
    summary = RunScoreSummary()
    tally = _Tally()
    out: _AtomicLines | None = None
    try:
        with interrupts.deferred():  # a stop between creating the file and naming it here would leave it
            out = _AtomicLines(run_dir / "scored.jsonl")
        _score_samples(ds, responses, judging, summary, tally, out)
        _refuse_nothing_scored(summary, run_dir)
        summary.benchmarks = list(tally.kept)
        summary.judged_skipped = [b for b in passes if not judged and b in tally.kept]
        aggregates = _aggregate_modes(tally, summary)
        summary.run_status = _run_status(tally.status, summary, run_dir)
        # scored.jsonl, the scores files and their sources are one set: a stop waits until all are written
        with interrupts.deferred():
            out.commit()
            summary.written.append(run_dir / "scored.jsonl")
            _write_rows_or_remove(run_dir / "stale.jsonl", tally.stale_rows, summary)
            _write_rows_or_remove(run_dir / "refused.jsonl", tally.refused_rows, summary)
            summary.scores = _write_scores_files(run_dir, aggregates, summary)
            write_json_atomic(run_dir / SOURCES_FILE, sources)
            summary.written.append(run_dir / SOURCES_FILE)
    except BaseException:
        if out is not None:
            out.abort()  # nothing once committed: its temporary file is then scored.jsonl
        raise
    return summary


def _score_samples(ds: Dataset, responses: dict[str, dict[str, Any]], judging: _Judging, summary: RunScoreSummary,
                   tally: _Tally, out: _AtomicLines) -> None:
    """Score every sample of ``ds`` that has a current response row, writing its scored.jsonl row to ``out`` and
    counting the rest (missing, stale, without gold, refused) in ``summary`` and ``tally``."""
    for lineno, sample in ds.iter_numbered():
        response_row = _current_response(ds, lineno, sample, responses, summary, tally)
        if response_row is None:
            continue
        if sample.answer is None:  # no ground truth (e.g. a test split): answered, exportable, not scorable
            summary.no_gold += 1
            continue
        scorer = get_scorer(sample.benchmark)
        response = response_row.get("response")
        try:
            result = _sample_score(scorer, sample, response_row, judging, summary)
        except MetricInputError as exc:
            # only this sample is refused (refused.jsonl says why); the rest are scored and aggregated
            _refuse(ds, lineno, sample, response, exc, summary, tally)
            continue
        if OFFICIAL not in result.scores:
            raise ConfigError(f"scorer for {sample.benchmark!r} returned no official score")
        row = _scored_row(scorer, sample, response_row, result)
        if row.get(JUDGE_INJECTION_KEY):
            tally.status[JUDGE_INJECTION_KEY] = tally.status.get(JUDGE_INJECTION_KEY, 0) + 1
        shown = response_row.get("needle_shown")
        if isinstance(shown, bool):
            row.setdefault(NEEDLE_SHOWN_KEY, shown)
            tally.shown_flags[sample.benchmark].append((sample.task, shown, dict(result.scores)))
        out.write(dumps_line(row))
        _count_scored(row, result, summary, tally)


def _current_response(ds: Dataset, lineno: int, sample: Sample, responses: dict[str, dict[str, Any]],
                      summary: RunScoreSummary, tally: _Tally) -> dict[str, Any] | None:
    """The response row answering this version of ``sample``, counted as answered, failed or skipped; None (the
    sample counted missing, or stale as well) when it has none or answers an earlier version of the sample."""
    status = tally.status
    response_row = responses.get(sample.id)
    status["total"] += 1
    if response_row is None:
        summary.missing += 1
        status["missing"] += 1
        return None
    recorded = response_row.get("sample_key")
    if isinstance(recorded, str) and recorded != sample.content_key():
        # the dataset changed under the row: its answer is to another question, never graded against this gold;
        # a rerun into the run directory asks it again
        summary.stale.append(f"{ds.samples_path}:{lineno}: sample {sample.id!r}: the response answers an "
                             "earlier version of this sample (the dataset was rebuilt after the run)")
        summary.missing += 1
        status["missing"] += 1
        status["stale"] = status.get("stale", 0) + 1
        tally.stale_rows.append(dumps_line({"id": sample.id, "task": sample.task, "line": lineno,
                                            "stale": "the response answers an earlier version of this sample"}))
        return None
    if response_row.get("status") == "skipped":
        status["skipped"] += 1
    elif response_row.get("error") is not None:
        status["failed"] += 1
    else:
        status["answered"] += 1
    return response_row


def _sample_score(scorer: Scorer, sample: Sample, response_row: dict[str, Any], judging: _Judging,
                  summary: RunScoreSummary) -> SampleScore:
    """The family's score of one response, with the stored judge verdicts applied when the benchmark has a
    judge pass and they are applied (counted in ``summary.judged``). Raises :class:`MetricInputError` when the
    official rule cannot score the sample."""
    from niah.scoring.verdicts import pass_verdicts, response_key

    response = response_row.get("response")
    result = scorer.score(sample, response)
    judge_pass = judging.passes.get(sample.benchmark) if judging.store is not None else None
    if judge_pass is None or scorer.judged is None or judging.store is None:
        return result
    verdicts = pass_verdicts(judging.store, judge_pass, sample.id, response_key(response_row))
    result = scorer.judged.apply(sample, response, result, verdicts, judge_pass.settings)
    counts = summary.judged.setdefault(sample.benchmark, {
        "judges": dict(judge_pass.identities), "settings": dict(judge_pass.settings),
        "verdicts": 0, "failed": 0, "missing": 0})
    counts["verdicts"] += len(verdicts)
    counts["failed"] += sum(v.failed for v in verdicts.values())
    counts["missing"] += bool(result.info.get(JUDGE_MISSING))
    return result


def _refuse(ds: Dataset, lineno: int, sample: Sample, response: str | None, exc: MetricInputError,
            summary: RunScoreSummary, tally: _Tally) -> None:
    """Record a sample the official rule refused: its message in ``summary.refused``, its refused.jsonl row."""
    where = f"{ds.samples_path}:{lineno}: {exc.field}" if exc.field else f"{ds.samples_path}:{lineno}"
    summary.refused.append(f"{where}: sample {sample.id!r}: {exc.message}")
    tally.refused_rows.append(dumps_line({
        "id": sample.id, "task": sample.task, "benchmark": sample.benchmark, "line": lineno,
        "answer": sample.answer, "response": response,
        "refused": f"{exc.field}: {exc.message}" if exc.field else exc.message}))


def _scored_row(scorer: Scorer, sample: Sample, response_row: dict[str, Any], result: SampleScore,
                ) -> dict[str, Any]:
    """One scored.jsonl row: the core fields, then the family's row fields and the score's own (a judge's
    reason), which never replace a core field."""
    row = {
        "id": sample.id,
        "task": sample.task,
        "benchmark": sample.benchmark,
        "context_length": sample.meta.get("context_length"),
        "depth": sample.depth,
        "num_images": sample.meta.get("num_images", sample.image_count()),
        "answer": sample.answer,
        "response": response_row.get("response"),
        "error": response_row.get("error"),
        "score": result.scores[OFFICIAL],
        "scores": result.scores,
    }
    if scorer.row_fields is not None:  # family fields a report axis may bin (e.g. a needle count)
        row.update({k: v for k, v in scorer.row_fields(sample).items() if k not in row})
    # e.g. a judge's reason; it may refine a family field (judged or not), never a core one
    row.update({k: v for k, v in result.row.items() if k not in _CORE_FIELDS})
    return row


def _count_scored(row: dict[str, Any], result: SampleScore, summary: RunScoreSummary, tally: _Tally) -> None:
    """Count a written row in ``summary`` (scored, failed, disagreements of other rules with the official one)
    and keep what its benchmark's aggregation needs."""
    summary.scored += 1
    summary.failed += row["response"] is None
    for name in result.scores:
        if name != OFFICIAL:
            summary.disagreements.setdefault(name, 0)
            summary.disagreements[name] += result.scores[name] != result.scores[OFFICIAL]
    # keep only what aggregation needs, never whole samples
    tally.kept[row["benchmark"]].append(({k: row[k] for k in ("id", "task", "context_length", "depth", "scores")}
                                         | {k: row[k] for k in row if k not in _CORE_FIELDS},
                                         result.info))


def _refuse_nothing_scored(summary: RunScoreSummary, run_dir: Path) -> None:
    """Raise :class:`DataError` saying why when no sample was scored and none lacks gold."""
    if summary.scored or summary.no_gold:
        return
    if summary.stale:
        raise DataError(f"every response answers an earlier version of its sample ({len(summary.stale)} "
                        "stale; the dataset was rebuilt after the run): nothing to score; rerun `niah run` "
                        "into the run directory to ask them again", file=run_dir / "responses.jsonl")
    if summary.refused:
        raise DataError("the official rule refused every answered sample:\n  " + "\n  ".join(summary.refused[:20]))
    raise DataError("no sample of the dataset has a response", file=run_dir / "responses.jsonl")


def _aggregate_modes(tally: _Tally, summary: RunScoreSummary) -> dict[str, dict[str, Any]]:
    """Score mode -> its scores file's content (without run_status): the official mode first, then every other
    mode a benchmark of the run has (its judged modes only when verdicts were applied). One benchmark's block
    as it is; several combined (:func:`combined_block`)."""
    def modes_of(benchmark: str) -> tuple[str, ...]:
        scorer = get_scorer(benchmark)
        extra = scorer.judged.modes if scorer.judged is not None and benchmark in summary.judged else ()
        return (*scorer.modes, *extra)

    names: list[str] = [OFFICIAL]
    for benchmark in tally.kept:
        names += [n for n in modes_of(benchmark) if n not in names]
    aggregates: dict[str, dict[str, Any]] = {}
    for name in names:
        blocks = {benchmark: _mode_block(benchmark, rows, name, tally, summary)
                  for benchmark, rows in tally.kept.items() if name in modes_of(benchmark)}
        aggregates[name] = next(iter(blocks.values())) if len(tally.kept) == 1 else combined_block(blocks, name)
    return aggregates


def _mode_block(benchmark: str, rows: ScoredRows, name: str, tally: _Tally, summary: RunScoreSummary,
                ) -> dict[str, Any]:
    """One benchmark's block in score mode ``name``, with its judge counts and needle_shown summary (the
    official one also kept in ``summary.needle_shown``)."""
    # a judged mode covers the rows the judge graded (a failed verdict gives no score in that mode)
    mode_rows = [r for r in rows if name in r[0]["scores"]]
    block = benchmark_block(get_scorer(benchmark), benchmark, mode_rows, name)
    if benchmark in summary.judged:
        block["judged"] = summary.judged[benchmark]
    flags = [(task, flag, scores[name]) for task, flag, scores in tally.shown_flags.get(benchmark, ())
             if name in scores]
    if flags and NEEDLE_SHOWN_KEY not in block:
        block[NEEDLE_SHOWN_KEY] = percent_needle_shown(needle_shown_summary(flags))
        if name == OFFICIAL:
            summary.needle_shown[benchmark] = block[NEEDLE_SHOWN_KEY]
    return block


def _write_rows_or_remove(path: Path, rows: list[str], summary: RunScoreSummary) -> None:
    """Write ``rows`` to ``path`` (atomically), or remove an earlier scoring's file when there are none."""
    if rows:
        write_atomic(path, "".join(rows))
        summary.written.append(path)
    else:
        path.unlink(missing_ok=True)


def _run_status(status: dict[str, int], summary: RunScoreSummary, run_dir: Path) -> dict[str, Any]:
    """The ``run_status`` of every scores file: the counts, ``complete`` only when every sample was answered and
    none refused, and the request attempts of ``requests.log``."""
    # a run with failed, skipped or missing samples is marked, so that partial numbers never pass for final ones
    run_status: dict[str, Any] = {"complete": status["answered"] == status["total"], **status}
    if summary.no_gold:
        run_status["no_gold"] = summary.no_gold
    if summary.refused:
        run_status["refused"] = len(summary.refused)
        run_status["complete"] = False
    requests = count_request_log(run_dir)
    if requests is not None:  # every attempt ever sent, a killed invocation's included (run.json may lag)
        run_status["requests"] = requests
    return run_status


def _write_scores_files(run_dir: Path, aggregates: dict[str, dict[str, Any]], summary: RunScoreSummary,
                        ) -> dict[str, Any]:
    """Write scores.json and scores.<mode>.json (each with the gold-missing marker and run_status), remove a
    judged mode's file that was not written now, and return what scores.json holds."""
    marker = {GOLD_MISSING_KEY: summary.no_gold} if summary.no_gold else {}
    if summary.scored == 0:  # every answered sample lacks gold: nothing to aggregate, say so
        aggregates = {OFFICIAL: {"schema": SCORES_SCHEMA, "benchmark": None, "mode": OFFICIAL, "scale": SCALE,
                                 "metric": None, "overall": None, "ci95": None, "ci_method": None,
                                 "covered": None, "n": 0, "full_grid": False, "covered_ci95": None,
                                 "covered_ci_method": None, "by_task": {}, "official": None}}
    written: dict[str, dict[str, Any]] = {}
    for name, aggregate in aggregates.items():
        path = run_dir / ("scores.json" if name == OFFICIAL else f"scores.{name}.json")
        written[name] = {**aggregate, **marker, RUN_STATUS_KEY: summary.run_status}
        write_json_atomic(path, written[name])
        summary.written.append(path)
    for benchmark in summary.benchmarks:  # a judged mode not applied now: its old file would pass for current
        scorer = get_scorer(benchmark)
        for name in scorer.judged.modes if scorer.judged is not None else ():
            if name not in written:
                (run_dir / f"scores.{name}.json").unlink(missing_ok=True)
    return written[OFFICIAL]


#: What scored.jsonl was scored from: the SHA-256 of each source file as score_run read it (absent ones as
#: null), so that staleness is decided by content, never by file times (``cp -p``, ``rsync -a`` and tar set
#: them back).
SOURCES_FILE = "scored.sources.json"


def _file_sha256(path: Path) -> str | None:
    try:
        return file_digest(path)
    except FileNotFoundError:
        return None


def _source_digests(run_dir: Path, samples_path: Path) -> dict[str, Any]:
    from niah.scoring.verdicts import PASSES_NAME, STORE_NAME

    files = {name: _file_sha256(run_dir / name) for name in ("responses.jsonl", STORE_NAME, PASSES_NAME)}
    return {"schema": 1, "files": files, "dataset": {"path": str(samples_path.resolve()),
                                                     "sha256": _file_sha256(samples_path)}}


def _recorded_sources(run_dir: Path) -> dict[str, Any] | None:
    """The digests :data:`SOURCES_FILE` holds, or None when it is missing or not what score_run writes."""
    try:
        recorded = read_json_file(run_dir / SOURCES_FILE, what=SOURCES_FILE)
    except DataError:
        return None
    if not (isinstance(recorded, dict) and isinstance(recorded.get("files"), dict)
            and isinstance(recorded.get("dataset"), dict)):
        return None
    return recorded


def scores_out_of_date(run_dir: str | Path) -> str | None:
    """Why ``scored.jsonl`` of a run directory no longer reflects what it was scored from (responses, judge
    verdicts or the dataset changed after it was written), or None when it is current or absent."""
    from niah.scoring.verdicts import PASSES_NAME, STORE_NAME

    run_dir = Path(run_dir)
    scored = run_dir / "scored.jsonl"
    if not scored.is_file() or not (run_dir / "responses.jsonl").is_file():
        return None
    recorded = _recorded_sources(run_dir)
    if recorded is not None:  # by content: what the scores were computed from against what is there now
        for name, digest in recorded["files"].items():
            if _file_sha256(run_dir / name) != digest:
                return f"{name} changed after scored.jsonl was written (its content differs)"
        with contextlib.suppress(DataError, ConfigError, OSError):
            samples = Dataset(resolve_run_dataset(run_dir, read_run_json(run_dir))).samples_path
            if _file_sha256(samples) != recorded["dataset"].get("sha256"):
                return f"{samples.name} changed after scored.jsonl was written (its content differs)"
        return None
    written = scored.stat().st_mtime_ns  # scored by a niah that recorded no digests: file times are all there is
    sources = [run_dir / "responses.jsonl", run_dir / STORE_NAME, run_dir / PASSES_NAME]
    with contextlib.suppress(DataError, ConfigError, OSError):  # a dataset that moved: the scores are what there is
        sources.append(Dataset(resolve_run_dataset(run_dir, read_run_json(run_dir))).samples_path)
    for source in sources:
        if source.is_file() and source.stat().st_mtime_ns > written:
            return f"{source.name} changed after scored.jsonl was written"
    return None
