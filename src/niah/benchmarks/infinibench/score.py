"""InfiniBench through the shared stages: per-sample scores, the official aggregation, the metric rule, and the
judge pass (``niah judge infinibench RUN``).

``niah score RUN`` needs no judge: MCQ replies are decided by the rule matcher (an undecided reply is wrong,
as under v2, and counted as undecided), open-ended replies stay undecided (no score; counted). ``niah judge
infinibench RUN --judge MODEL --protocol v1|v2`` asks the judge only what the rules leave undecided (v1: the
undecided MCQ replies and every open-ended reply; v2: the open-ended replies), writes every verdict to
``judgments.<protocol>.jsonl`` and scores the run again under that protocol (scored.jsonl, scores.json).

Per-sample official score: 1/0 for an MCQ item; the judge's score divided by the protocol's maximum (0-1) for
an open-ended item. The aggregation (scores.json) is the paper's: per-skill accuracy (%) and score (0-5 or
0-10), the four question types, and the overall accuracy and score, never mixed.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from niah.benchmarks.infinibench.aggregate import SCORE_SCALE, ItemScore, aggregate
from niah.benchmarks.infinibench.matcher import match_option
from niah.benchmarks.infinibench.skills import QUESTION_TYPES
from niah.benchmarks.protocol import OFFICIAL, SampleScore, ScoredRows, Scorer
from niah.metrics.base import MetricInputError, MetricRule, require_response
from niah.sample import Sample

RULES_ONLY = "rules"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's verdict on one reply: an MCQ decision (option index) or an open-ended score; None when the
    judge's reply did not parse (or the judge call failed)."""

    value: float | None
    raw: str | None = None
    error: str | None = None


@dataclass(slots=True)
class _Judging:
    protocol: str
    verdicts: Mapping[str, Verdict]  # by verdict_key(sample id, response)
    judge: str | None = None


_ACTIVE: _Judging | None = None


def verdict_key(sample_id: str, response: str | None) -> str:
    """What a verdict answers: this sample's this reply (a rerun with another reply is not covered)."""
    digest = hashlib.sha256((response or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{sample_id}#{digest}"


@contextlib.contextmanager
def judging(protocol: str, verdicts: Mapping[str, Verdict], judge: str | None = None) -> Iterator[None]:
    """Score with these verdicts under ``protocol`` (the judge pass wraps ``score_run`` in it)."""
    global _ACTIVE
    if protocol not in SCORE_SCALE:
        raise ValueError(f"unknown InfiniBench protocol {protocol!r} (v1 or v2)")
    previous, _ACTIVE = _ACTIVE, _Judging(protocol, verdicts, judge)
    try:
        yield
    finally:
        _ACTIVE = previous


def _options(sample: Sample) -> list[str]:
    options = sample.meta.get("options")
    if isinstance(options, list) and all(isinstance(o, str) for o in options):
        return options
    from niah.sample import parts_text

    return [parts_text(c) for c in sample.choices or []]


def is_mcq(sample: Sample) -> bool:
    return sample.meta.get("format") == "mcq" or (sample.meta.get("format") is None and bool(sample.choices))


def needs_verdict(sample: Sample, response: str | None, protocol: str) -> bool:
    """Whether the judge is asked about this reply under ``protocol``."""
    if response is None:
        return False
    if is_mcq(sample):
        return protocol == "v1" and match_option(_options(sample), response)[0] is None
    return True


#: (sample id, whether its score is decided) of the sample scored last: ``niah score`` asks for a sample's row
#: fields right after its score, and the report bins only decided open-ended scores.
_last_scored: tuple[str, bool] = ("", False)


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    global _last_scored
    result = _score_sample(sample, response)
    _last_scored = (sample.id, result.info.get("decided_by") not in ("undecided", "judge-unparsed"))
    return result


def _score_sample(sample: Sample, response: str | None) -> SampleScore:
    judging_now = _ACTIVE
    protocol = judging_now.protocol if judging_now is not None else RULES_ONLY
    verdict = judging_now.verdicts.get(verdict_key(sample.id, response)) if judging_now is not None else None
    info: dict[str, Any] = {"skill": sample.task, "protocol": protocol}
    if is_mcq(sample):
        options = _options(sample)
        answer = sample.answer
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
            raise MetricInputError(f"MCQ answer must be an option index, got {answer!r}", field="answer")
        info["format"] = "mcq"
        if response is None:
            info.update(choice=None, decided_by="missing")
            return SampleScore({OFFICIAL: 0.0}, info)
        choice, rule = match_option(options, response)
        if choice is not None:
            info.update(choice=choice, decided_by=f"rule:{rule}")
        elif protocol == "v1" and verdict is not None:
            if verdict.value is None:
                info.update(choice=None, decided_by="judge-unparsed", excluded=True)
            else:
                choice = int(verdict.value)
                info.update(choice=choice, decided_by="judge")
        else:
            info.update(choice=None, decided_by="undecided", reason=rule)
        return SampleScore({OFFICIAL: float(choice is not None and choice == answer)}, info)
    info["format"] = "open"
    if response is None:
        info.update(score=0.0, decided_by="missing")
        return SampleScore({OFFICIAL: 0.0}, info)
    if verdict is None:
        info.update(score=None, decided_by="undecided")
        return SampleScore({OFFICIAL: 0.0}, info)
    if verdict.value is None:
        info.update(score=None, decided_by="judge-unparsed")
        return SampleScore({OFFICIAL: 0.0}, info)
    scale = SCORE_SCALE[protocol]
    info.update(score=verdict.value, decided_by="judge")
    return SampleScore({OFFICIAL: max(0.0, min(1.0, verdict.value / scale))}, info)


def row_fields(sample: Sample) -> dict[str, Any]:
    """Fields the report bins: MCQ rows by ``format`` and ``mcq_question_type``; open-ended rows whose score
    is decided (judged, or a missing reply) by ``open_skill``."""
    mcq = is_mcq(sample)
    decided = _last_scored == (sample.id, True)
    qtype = sample.meta.get("question_type")
    return {"skill": sample.task, "question_type": qtype, "format": "mcq" if mcq else "open",
            "mcq_question_type": QUESTION_TYPES.get(str(qtype), qtype) if mcq else None,
            "open_skill": sample.task if not mcq and decided else None}


def aggregate_rows(rows: ScoredRows, mode: str) -> dict[str, Any]:
    protocols = {info.get("protocol", RULES_ONLY) for _, info in rows}
    protocol = protocols.pop() if len(protocols) == 1 else RULES_ONLY
    items: list[ItemScore] = []
    undecided = {"mcq": 0, "open": 0}
    decided_by: dict[str, int] = {}
    for _row, info in rows:
        how = str(info.get("decided_by"))
        decided_by[how] = decided_by.get(how, 0) + 1
        if info.get("format") == "mcq":
            if how == "undecided":
                undecided["mcq"] += 1
            items.append(ItemScore(info["skill"], "mcq", correct=_row["scores"][mode] == 1.0,
                                   excluded=bool(info.get("excluded"))))
        else:
            if how == "undecided":
                undecided["open"] += 1
            items.append(ItemScore(info["skill"], "open", score=info.get("score")))
    out = aggregate(items, protocol=protocol if protocol in SCORE_SCALE else "v1")
    out["protocol"] = protocol
    out["judge"] = _ACTIVE.judge if _ACTIVE is not None else None
    if protocol == RULES_ONLY:
        out["score_scale"] = None
        out["note"] = ("rules only, no judge: MCQ replies the matcher leaves undecided count as wrong, open-ended "
                       "replies are not scored; run `niah judge infinibench RUN --judge MODEL` to judge them")
    out["undecided"] = undecided
    out["decided_by"] = dict(sorted(decided_by.items()))
    return out


SCORER = Scorer(score_sample, aggregate_rows, (OFFICIAL,), row_fields=row_fields)


# ---------------------------------------------------------------------------------------------------------------
# The metric rule


def _rule_args(options: Any, response: Any) -> tuple[list[str], str | None]:
    if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
        raise MetricInputError("must be a non-empty list of option strings", field="options")
    return options, require_response(response)


def _answer_index(answer: Any, n: int) -> int:
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < n:
        raise MetricInputError(f"must be a 0-based option index below {n}, got {answer!r}", field="answer")
    return answer


def mcq_match_score(options: Any, response: Any, answer: Any = None) -> float:
    """With ``answer`` (0-based index): 1 when the matcher picks it. Without: 1 when the matcher decides."""
    opts, reply = _rule_args(options, response)
    choice, _rule = match_option(opts, reply)
    if answer is None:
        return float(choice is not None)
    return float(choice == _answer_index(answer, len(opts)))


def mcq_match_details(options: Any, response: Any, answer: Any = None) -> dict[str, Any]:
    opts, reply = _rule_args(options, response)
    choice, rule = match_option(opts, reply)
    return {"choice": choice, "rule": rule}


RULES: tuple[MetricRule, ...] = (
    MetricRule("infinibench/mcq-match",
               "InfiniBench rule matcher: option chosen by letter, index or text, or undecided (choice null); "
               "score = picks answer (with 'answer') or decided",
               mcq_match_score, fields=("options", "response"), optional_fields=("answer",),
               details=mcq_match_details),
)
