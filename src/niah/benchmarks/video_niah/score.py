"""video-niah scoring: the needle's word or name (open), the option letter (choices), the count (counting).

- ``retrieval``: 1 when the gold word (or object name) occurs in the reply as whole words, case-insensitive, and
  no other word of the closed pool the needles are drawn from does (a reply listing the pool names several
  answers, which a multiple-choice matcher would judge wrong too: it must not score);
- ``retrieval-choice`` / ``ordering``: the option the reply names (a letter, ``(B)``, the option's name), by
  the rule matcher InfiniBench uses; a reply naming several options or none scores 0;
- ``counting``: the first number in the reply (digits or a number word up to twenty) equals the count.

These are niah's own rules: a negated mention ("not 3", "not tangerine", :mod:`niah.scoring.metrics.negation`) is no
answer.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

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
from niah.scoring.metrics.base import MetricInputError, MetricRule, require_response
from niah.scoring.metrics.negation import negated

if TYPE_CHECKING:
    import numpy as np

_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
_FIRST_NUMBER = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def _says(phrase: str, reply: str, *, affirmed: bool = False) -> bool:
    """Whether ``phrase`` occurs in ``reply`` (lower case) as whole words, any whitespace between them; with
    ``affirmed``, at least once not negated ("not tangerine" names no answer)."""
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.lower().split())) + r"(?!\w)"
    return any(not (affirmed and negated(reply, m.start(), m.end())) for m in re.finditer(pattern, reply))


def contains_words(answer: Any, response: Any, pool: Any = None) -> float:
    """1 when the gold occurs as whole words and, given the closed answer ``pool``, no other pool entry does
    (an entry inside a named longer one, "balloon" in "heart balloon", is not counted apart)."""
    reply = require_response(response)
    if not isinstance(answer, str) or not answer.strip():
        raise MetricInputError("must be a non-empty string", field="answer")
    if pool is not None and (not isinstance(pool, (list, tuple)) or not all(isinstance(w, str) for w in pool)):
        raise MetricInputError("must be a list of strings", field="pool")
    if reply is None:
        return 0.0
    text = reply.lower()
    if not _says(answer, text, affirmed=True):  # "not tangerine" does not answer tangerine
        return 0.0
    named = [w.lower() for w in pool or () if w.strip() and _says(w, text, affirmed=True)]  # "not an apple": unnamed
    others = {w for w in named if w != answer.lower()
              and not any(w != v and _says(w, v) for v in [*named, answer.lower()])}
    return float(not others)


def count_match(answer: Any, response: Any) -> float:
    reply = require_response(response)
    try:
        gold = int(answer)
    except (TypeError, ValueError):
        raise MetricInputError(f"must be a count, got {answer!r}", field="answer") from None
    if reply is None:
        return 0.0
    # the first number the reply affirms: "not 3" and "3 is wrong" give none, "not 3 but 4" gives 4
    m = next((m for m in _FIRST_NUMBER.finditer(reply) if not negated(reply, m.start(), m.end())), None)
    if m is None:
        return 0.0
    token = m.group(1).lower()
    value = int(token) if token.isdigit() else _NUMBER_WORDS.index(token)
    return float(value == gold)


def option_match(answer: Any, response: Any, options: Any) -> float:
    from niah.benchmarks.infinibench.matcher import match_option

    reply = require_response(response)
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options) or len(options) < 2:
        raise MetricInputError("must be a list of at least two option names", field="options")
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
        raise MetricInputError(f"must be a 0-based option index, got {answer!r}", field="answer")
    return float(match_option(options, reply)[0] == answer)


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    if sample.task == "counting":
        value = count_match(sample.answer, response)
    elif sample.task == "retrieval":
        from niah.benchmarks.video_niah.pools import answer_pool

        value = contains_words(sample.answer, response, answer_pool(sample))
    else:
        value = option_match(sample.answer, response, sample.meta.get("options"))
    return SampleScore({OFFICIAL: value})


def valid_depth_cell(value: Any) -> bool:
    """A depth row as recorded in ``meta.depth_cell``: ``[lo, hi]`` with 0 <= lo <= hi <= 1 (lo == hi: exact)."""
    return (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            and 0.0 <= value[0] <= value[1] <= 1.0)


def depth_cell_label(cell: Any) -> str:
    """``0.2-0.4`` for a cell, ``0.25`` for an exact depth (the build's row labels)."""
    lo, hi = float(cell[0]), float(cell[1])
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def sample_depth_cell(sample: Sample) -> list[float] | None:
    cell = sample.meta.get("depth_cell")
    if isinstance(cell, list) and valid_depth_cell(cell):
        return [float(cell[0]), float(cell[1])]
    old = sample.meta.get("cell_depth")  # datasets built before depth cells: the exact row depth
    if isinstance(old, (int, float)) and not isinstance(old, bool) and 0.0 <= old <= 1.0:
        return [float(old), float(old)]
    return None


def row_fields(sample: Sample) -> dict[str, Any]:
    return {"duration_s": sample.meta.get("duration_s"), "depth_cell": sample_depth_cell(sample),
            "needle_kind": sample.meta.get("needle_kind"), "needle_times": sample.meta.get("needle_times")}


AGGREGATION = ("cells: the mean of each (duration, depth cell) cell's samples; durations and tasks: the mean over "
               "their cells that have samples (a cell without samples is absent and left out of every mean, never "
               "counted 0: video-niah has no official aggregation that would); overall: the mean over the tasks")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def aggregate(rows: ScoredRows, mode: str) -> dict[str, Any]:
    """Accuracy per (duration, depth cell) cell of each task, per duration and per task (means over the cells
    that have samples), and overall (the mean over tasks); see :data:`AGGREGATION`."""
    cells: dict[str, dict[str, dict[str, list[float]]]] = {}
    for row, _info in rows:
        task, duration, depth = _cell_key(row)
        cells.setdefault(task, {}).setdefault(duration, {}).setdefault(depth, []).append(float(row["scores"][mode]))
    cell_acc = {t: {d: {c: _mean(v) for c, v in by_cell.items()} for d, by_cell in grid.items()}
                for t, grid in cells.items()}
    tasks = {t: _mean([a for by_cell in grid.values() for a in by_cell.values()]) for t, grid in cell_acc.items()}
    return {
        "tasks": tasks,
        "durations": {t: {d: _mean(list(by_cell.values())) for d, by_cell in grid.items()}
                      for t, grid in cell_acc.items()},
        "cells": cell_acc,
        "cell_samples": {t: {d: {c: len(v) for c, v in by_cell.items()} for d, by_cell in grid.items()}
                         for t, grid in cells.items()},
        "overall": _mean(list(tasks.values())) if tasks else None,
        "samples": sum(len(v) for grid in cells.values() for by_cell in grid.values() for v in by_cell.values()),
        "aggregation": AGGREGATION,
    }


def random_answer(sample: Sample, shape: Any) -> str | None:
    """``baseline:random``: a count drawn uniformly from the counting task's range, a word of the closed pool
    for open retrieval (both chance: 1 / the range, 1 / the pool), a random option letter otherwise (None)."""
    from niah.benchmarks.video_niah.pools import COUNT_RANGE, answer_pool

    rng = shape.rng
    if sample.task == "counting":
        return str(rng.randint(*COUNT_RANGE))
    if sample.task == "retrieval":
        pool = answer_pool(sample)
        return rng.choice(pool) if pool else None
    return None


def extractive_answer(sample: Sample, sentences: Sequence[str], scores: Sequence[float]) -> str | None:
    """The rag baseline's model-free reader on the counting task: the first number of each text sentence that
    matches the question (:func:`niah.models.rag.evidence`), as a JSON list (the scorer reads its first number)."""
    if sample.task != "counting" or sample.choices is not None:
        return None
    from niah.models.rag import evidence, first_int

    return json.dumps([n for s in evidence(sentences, scores) if (n := first_int(s)) is not None])


def headline(structure: dict[str, Any], rows: ScoredRows, mode: str, *, counts: dict[str, int] | None = None,
             n: int | None = None) -> Headline:
    """Accuracy: the aggregation's overall x 100 (the mean over tasks of the mean over their cells with
    samples: no cell is counted 0, so covered is the same number); per task its mean over its cells.
    ``counts`` and ``n``: the samples per task and in all, where the rows are not built (the bootstrap)."""
    if counts is None:
        counts = defaultdict(int)
        for row, _info in rows:
            counts[row["task"]] += 1
    overall = structure.get("overall")
    value = None if overall is None else 100 * overall
    return Headline(metric="accuracy (mean over tasks of the mean over their duration x depth cells)",
                    overall=value, covered=value, n=len(rows) if n is None else n,
                    by_task={task: TaskHeadline(100 * score, counts[task]) for task, score in structure["tasks"].items()})


def _cell_key(row: dict[str, Any]) -> tuple[str, str, str]:
    """The (task, duration, depth cell) labels :func:`aggregate` files a row under."""
    cell = row.get("depth_cell")
    return row["task"], f"{row.get('duration_s')}s", depth_cell_label(cell) if valid_depth_cell(cell) else "none"


def resampler(rows: ScoredRows, mode: str, positions: Sequence[int],
              ) -> Callable[[np.ndarray], list[Headline]] | None:
    """The bootstrap's headlines from sums per cell (:class:`Scorer` ``resampler``): a resample whose drawn rows
    each keep their position's task and duration (the stratum the bootstrap draws within) fills the same cells
    in the same order, so only the cells' sums change, added in the rows' order as :func:`aggregate` adds them;
    any other resample is aggregated from its rows. None where a row has no score or no depth cell field."""
    import numpy as np

    if any("depth_cell" not in row for row, _info in rows):
        return None
    try:
        score_of = np.array([float(row["scores"][mode]) for row, _info in rows], dtype=np.float64)
    except (KeyError, TypeError, ValueError):
        return None
    keys = [_cell_key(row) for row, _info in rows]
    order = list(positions)
    cell_index: dict[tuple[str, str, str], int] = {}
    cell_at = np.array([cell_index.setdefault(keys[p], len(cell_index)) for p in order], dtype=np.intp)
    cells = list(cell_index)
    sizes = np.bincount(cell_at, minlength=len(cells)).tolist()
    homes: dict[tuple[str, str], int] = {}
    home_of_row = np.array([homes.setdefault(key[:2], len(homes)) for key in keys], dtype=np.intp)
    home_at = home_of_row[np.asarray(order, dtype=np.intp)]
    counts: dict[str, int] = defaultdict(int)
    for p in order:
        counts[keys[p][0]] += 1

    def from_rows(picks: list[int]) -> Headline:
        sample = [({**rows[pick][0], "depth_cell": rows[p][0]["depth_cell"]}, rows[pick][1])
                  for p, pick in zip(order, picks, strict=True)]
        return headline(aggregate(sample, mode), sample, mode)

    def headlines(drawn: np.ndarray) -> list[Headline]:
        count = drawn.shape[0]
        kept = (home_of_row[drawn] == home_at).all(axis=1)
        where = (cell_at + len(cells) * np.arange(count)[:, None]).ravel()
        sums = np.bincount(where, score_of[drawn].ravel(), count * len(cells)).reshape(count, len(cells)).tolist()
        out = []
        for r in range(count):
            if not kept[r]:
                out.append(from_rows(drawn[r].tolist()))
                continue
            # nested as aggregate nests them (task, then duration, then depth cell), so the means add alike
            grid: dict[str, dict[str, list[float]]] = {}
            for (task, duration, _depth), total, n in zip(cells, sums[r], sizes, strict=True):
                grid.setdefault(task, {}).setdefault(duration, []).append(total / n)
            tasks = {task: _mean([a for by_depth in by_duration.values() for a in by_depth])
                     for task, by_duration in grid.items()}
            out.append(headline({"tasks": tasks, "overall": _mean(list(tasks.values())) if tasks else None},
                                [], mode, counts=counts, n=len(order)))
        return out

    return headlines


def to_percent(structure: dict[str, Any]) -> dict[str, Any]:
    """The aggregation with every accuracy x 100 (sample counts unchanged)."""
    return {
        **structure,
        "tasks": {t: percent(v) for t, v in structure["tasks"].items()},
        "durations": {t: {d: percent(v) for d, v in by.items()} for t, by in structure["durations"].items()},
        "cells": {t: {d: {c: percent(v) for c, v in by_cell.items()} for d, by_cell in grid.items()}
                  for t, grid in structure["cells"].items()},
        "overall": percent(structure.get("overall")),
    }


def stratum(row: dict[str, Any], info: dict[str, Any]) -> tuple[str, Any]:
    """The bootstrap redraws outcomes within a task's duration, onto the duration's own depth cells."""
    return row["task"], row.get("duration_s")


SCORER = Scorer(score_sample, aggregate, (OFFICIAL,), row_fields=row_fields, headline=headline,
                stratum=stratum, layout_fields=("depth_cell",), percent=to_percent, resampler=resampler)

RULES: tuple[MetricRule, ...] = (
    MetricRule("video-niah/contains", "video-niah retrieval: the gold word or name occurs in the reply (whole "
               "words, any case); with 'pool' (the closed answer pool), no other pool entry does",
               contains_words, optional_fields=("pool",)),
    MetricRule("video-niah/count", "video-niah counting: the reply's first number (digits or words) equals the "
               "count", count_match),
    MetricRule("video-niah/option", "video-niah choices: the option the reply names (letter, (B), name) is the "
               "answer index", option_match, fields=("answer", "response", "options")),
)
