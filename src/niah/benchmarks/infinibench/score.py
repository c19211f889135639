"""InfiniBench through the shared stages: per-sample scores, the official aggregation, the metric rule, and the
judge pass (``niah judge infinibench RUN``).

``niah score RUN`` needs no judge: MCQ replies are decided by the rule matcher (an undecided reply is wrong,
as under v2, and counted as undecided), open-ended replies stay undecided (no score; counted). ``niah judge
infinibench RUN --judge MODEL --protocol v1|v2`` asks the judge only what the rules leave undecided (v1: the
undecided MCQ replies and every open-ended reply; v2: the open-ended replies), stores every verdict in the
run (:mod:`niah.scoring.verdicts`, kinds ``mcq`` and ``open``) and scores the run again under that protocol
(scored.jsonl, scores.json); ``niah score RUN`` then applies the stored verdicts of the last pass again
(:func:`apply_verdicts`).

Per-sample official score: 1/0 for an MCQ item; the judge's score divided by the protocol's maximum (0-1) for
an open-ended item. The aggregation (scores.json) is the paper's: per-skill accuracy (%) and score (0-5 or
0-10), the four question types, and the overall accuracy and score, never mixed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from niah.benchmarks.infinibench.aggregate import SCORE_SCALE, ItemScore, aggregate
from niah.benchmarks.infinibench.matcher import match_option
from niah.benchmarks.infinibench.skills import QUESTION_TYPES
from niah.benchmarks.protocol import (
    JUDGE_INJECTION_KEY,
    JUDGE_MISSING,
    OFFICIAL,
    UNSCORED,
    Headline,
    JudgedScoring,
    SampleScore,
    ScoredRows,
    Scorer,
    TaskHeadline,
    percent,
)
from niah.sample import Sample
from niah.scoring.judges import judge_like_instructions
from niah.scoring.metrics.base import MetricInputError, MetricRule, require_response

RULES_ONLY = "rules"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's verdict on one reply: an MCQ decision (option index) or an open-ended score; None when the
    judge's reply did not parse (or the judge call failed)."""

    value: float | None
    raw: str | None = None
    error: str | None = None


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


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    """Rules only (``niah score`` without a judge pass)."""
    return _score_sample(sample, response, RULES_ONLY, None, None)


def apply_verdicts(sample: Sample, response: str | None, rule: SampleScore, verdicts: Mapping[str, Any],
                   settings: Mapping[str, Any]) -> SampleScore:
    """The sample scored under the judge pass's protocol with its stored verdict (kind ``mcq`` or ``open``);
    a reply the protocol sends to the judge that has no verdict for its current text is flagged."""
    protocol = str(settings.get("protocol", "v1"))
    stored = verdicts.get("mcq" if is_mcq(sample) else "open")
    verdict = Verdict(stored.score, stored.raw, stored.error) if stored is not None else None
    judge = settings.get("judge")
    result = _score_sample(sample, response, protocol, verdict, judge if isinstance(judge, str) else None)
    if verdict is None and needs_verdict(sample, response, protocol):
        result.info[JUDGE_MISSING] = True
    return result


def _score_sample(sample: Sample, response: str | None, protocol: str, verdict: Verdict | None,
                  judge: str | None) -> SampleScore:
    result = _score_decided(sample, response, protocol, verdict, judge)
    # the report bins only decided open-ended scores (judged, or a missing reply)
    decided = result.info.get("decided_by") not in ("undecided", "judge-unparsed")
    open_skill = sample.task if result.info.get("format") == "open" and decided else None
    row: dict[str, Any] = {"open_skill": open_skill}
    how = result.info.get("decided_by")
    if how == "judge-unparsed":
        row[UNSCORED] = "the judge's reply did not parse: excluded and counted"
    elif how == "undecided" and result.info.get("format") == "open":
        row[UNSCORED] = "open-ended: not judged yet (niah judge infinibench)"
    if how == "judge" and judge_like_instructions(response):
        # the official template shows the reply to the judge as it is: a reply writing to the judge may have
        # steered the verdict, which is kept (fidelity) and flagged in the row, scores.json and the report
        row[JUDGE_INJECTION_KEY] = True
    return SampleScore(result.scores, result.info, row)


def _score_decided(sample: Sample, response: str | None, protocol: str, verdict: Verdict | None,
                   judge: str | None) -> SampleScore:
    if protocol not in SCORE_SCALE and protocol != RULES_ONLY:
        raise ValueError(f"unknown InfiniBench protocol {protocol!r} (v1 or v2)")
    info: dict[str, Any] = {"skill": sample.task, "protocol": protocol, "judge": judge}
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
    qtype = sample.meta.get("question_type")
    return {"skill": sample.task, "question_type": qtype, "format": "mcq" if mcq else "open",
            "mcq_question_type": QUESTION_TYPES.get(str(qtype), qtype) if mcq else None,
            "open_skill": None}  # the score's row sets it once the score is decided


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
            value = float(_row["scores"][mode])
            items.append(ItemScore(info["skill"], "mcq", correct=value == 1.0 if value in (0.0, 1.0) else value,
                                   excluded=bool(info.get("excluded"))))
        else:
            if how == "undecided":
                undecided["open"] += 1
            items.append(ItemScore(info["skill"], "open", score=info.get("score")))
    out = aggregate(items, protocol=protocol if protocol in SCORE_SCALE else "v1")
    out["protocol"] = protocol
    judges = {info.get("judge") for _, info in rows}
    out["judge"] = judges.pop() if len(judges) == 1 else None
    if protocol == RULES_ONLY:
        out["score_scale"] = None
        out["note"] = ("rules only, no judge: MCQ replies the matcher leaves undecided count as wrong, open-ended "
                       "replies are not scored; run `niah judge infinibench RUN --judge MODEL` to judge them")
    out["undecided"] = undecided
    out["decided_by"] = dict(sorted(decided_by.items()))
    return out


#: by_task key suffix of a skill's open-ended score (its MCQ accuracy is under the skill's own id).
OPEN_SUFFIX = ":open"


def headline(structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    """Accuracy: the paper's "AVG Accuracy" (the unweighted mean of the skills' MCQ accuracies, already in
    percent); no grid, so covered is the same number. Per skill its MCQ accuracy (a plain share of its counted
    items) and, under ``SKILL:open``, its open-ended judge score as a percent of the judge scale's maximum
    (the mean over the parsed verdicts)."""
    scale = SCORE_SCALE.get(str(structure.get("protocol")), SCORE_SCALE["v1"])
    by_task: dict[str, TaskHeadline] = {}
    for skill, entry in structure["skills"].items():
        if entry["mcq"] is not None:
            by_task[skill] = TaskHeadline(entry["mcq"]["accuracy"], entry["mcq"]["counted"], plain=True)
        if entry["open"] is not None:
            score = entry["open"]["score"]
            by_task[skill + OPEN_SUFFIX] = TaskHeadline(None if score is None else 100 * score / scale,
                                                        entry["open"]["parsed"], plain=True)
    overall = structure["overall"]["accuracy"]
    mcq = [t for key, t in by_task.items() if not key.endswith(OPEN_SUFFIX)]
    return Headline(metric="accuracy (MCQ, unweighted mean over skills)", overall=overall, covered=overall,
                    n=sum(t.n for t in mcq), by_task=by_task, plain=len(mcq) == 1)  # open-ended items are outside it


def to_percent(structure: dict[str, Any]) -> dict[str, Any]:
    """The official aggregation with its scores rounded to 4 places: accuracies are already percent; open-ended
    judge scores stay on the paper's 0-5 (v1) or 0-10 (v2) scale, as the paper prints them (``by_task`` has
    them as a percent of the scale's maximum)."""
    def skill(entry: dict[str, Any]) -> dict[str, Any]:
        out = dict(entry)
        if entry["mcq"] is not None:
            out["mcq"] = {**entry["mcq"], "accuracy": percent(entry["mcq"]["accuracy"], 1.0)}
        if entry["open"] is not None:
            out["open"] = {**entry["open"], "score": percent(entry["open"]["score"], 1.0)}
        return out

    return {**structure, "skills": {k: skill(v) for k, v in structure["skills"].items()},
            "question_types": {k: {**v, "accuracy": percent(v["accuracy"], 1.0), "score": percent(v["score"], 1.0)}
                               for k, v in structure["question_types"].items()},
            "overall": {**structure["overall"], "accuracy": percent(structure["overall"]["accuracy"], 1.0),
                        "score": percent(structure["overall"]["score"], 1.0)}}


def stratum(row: dict[str, Any], info: dict[str, Any]) -> tuple[Any, Any]:
    """The bootstrap redraws a skill's MCQ items among themselves and its open-ended ones among themselves: an
    open-ended outcome drawn into an MCQ item's place would leave the skill without MCQ items."""
    return row.get("task"), info.get("format")


def counted(_row: dict[str, Any], info: dict[str, Any]) -> bool:
    """The headline reads MCQ items the official rule keeps (open-ended items are scored apart)."""
    return info.get("format") == "mcq" and not info.get("excluded")


SCORER = Scorer(score_sample, aggregate_rows, (OFFICIAL,), row_fields=row_fields,
                judged=JudgedScoring(apply_verdicts), headline=headline, percent=to_percent, counted=counted,
                stratum=stratum)


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
