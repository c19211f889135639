"""video-niah scoring: the needle's word or name (open), the option letter (choices), the count (counting).

- ``retrieval``: 1 when the gold word (or object name) occurs in the reply as whole words, case-insensitive;
- ``retrieval-choice`` / ``ordering``: the option the reply names (a letter, ``(B)``, the option's name), by
  the rule matcher InfiniBench uses; a reply naming several options or none scores 0;
- ``counting``: the first number in the reply (digits or a number word up to twenty) equals the count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from niah.benchmarks.protocol import OFFICIAL, SampleScore, ScoredRows, Scorer
from niah.metrics.base import MetricInputError, MetricRule, require_response
from niah.sample import Sample

_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
_FIRST_NUMBER = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def contains_words(answer: Any, response: Any) -> float:
    reply = require_response(response)
    if not isinstance(answer, str) or not answer.strip():
        raise MetricInputError("must be a non-empty string", field="answer")
    if reply is None:
        return 0.0
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, answer.lower().split())) + r"(?!\w)"
    return float(re.search(pattern, reply.lower()) is not None)


def count_match(answer: Any, response: Any) -> float:
    reply = require_response(response)
    try:
        gold = int(answer)
    except (TypeError, ValueError):
        raise MetricInputError(f"must be a count, got {answer!r}", field="answer") from None
    if reply is None:
        return 0.0
    m = _FIRST_NUMBER.search(reply)
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
        value = contains_words(sample.answer, response)
    else:
        value = option_match(sample.answer, response, sample.meta.get("options"))
    return SampleScore({OFFICIAL: value})


def row_fields(sample: Sample) -> dict[str, Any]:
    return {"duration_s": sample.meta.get("duration_s"), "cell_depth": sample.meta.get("cell_depth"),
            "needle_kind": sample.meta.get("needle_kind"), "needle_times": sample.meta.get("needle_times")}


def aggregate(rows: ScoredRows, mode: str) -> dict[str, Any]:
    """Accuracy per task, per (duration, depth) cell of each task, and overall (mean over tasks)."""
    by_task: dict[str, list[float]] = {}
    cells: dict[str, dict[str, dict[str, list[float]]]] = {}
    for row, _info in rows:
        value = float(row["scores"][mode])
        by_task.setdefault(row["task"], []).append(value)
        duration = f"{row.get('duration_s')}s"
        depth = f"{row.get('cell_depth')}"
        cells.setdefault(row["task"], {}).setdefault(duration, {}).setdefault(depth, []).append(value)
    tasks = {t: sum(v) / len(v) for t, v in by_task.items()}
    return {
        "tasks": tasks,
        "cells": {t: {d: {p: sum(v) / len(v) for p, v in by_depth.items()} for d, by_depth in grid.items()}
                  for t, grid in cells.items()},
        "overall": sum(tasks.values()) / len(tasks) if tasks else None,
        "samples": sum(len(v) for v in by_task.values()),
    }


def extractive_answer(sample: Sample, sentences: Sequence[str], scores: Sequence[float]) -> str | None:
    """The rag baseline's model-free reader on the counting task: the first number of each text sentence that
    matches the question (:func:`niah.rag.evidence`), as a JSON list (the scorer reads its first number)."""
    if sample.task != "counting" or sample.choices is not None:
        return None
    from niah.rag import evidence, first_int

    return json.dumps([n for s in evidence(sentences, scores) if (n := first_int(s)) is not None])


SCORER = Scorer(score_sample, aggregate, (OFFICIAL,), row_fields=row_fields)

RULES: tuple[MetricRule, ...] = (
    MetricRule("video-niah/contains", "video-niah retrieval: the gold word or name occurs in the reply (whole "
               "words, any case)", contains_words),
    MetricRule("video-niah/count", "video-niah counting: the reply's first number (digits or words) equals the "
               "count", count_match),
    MetricRule("video-niah/option", "video-niah choices: the option the reply names (letter, (B), name) is the "
               "answer index", option_match, fields=("answer", "response", "options")),
)
