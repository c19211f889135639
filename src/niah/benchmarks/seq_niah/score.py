"""Sequential-NIAH scoring of a run: the deterministic judge per sample, the aggregation written to scores.json
(accuracy by length bin, needle group, pipeline, language; failure-mode counts as the paper's Table 8; noise
accuracy and consistency as its Table 5 when the dataset holds noise variants), the ``seq-niah/judge`` metric
rule, and the baselines' answer shapes."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from niah.benchmarks.protocol import (
    JUDGE_INJECTION_KEY,
    JUDGE_MISSING,
    JUDGES_DISAGREE,
    OFFICIAL,
    BaselineAnswers,
    Headline,
    JudgedScoring,
    SampleScore,
    ScoredRows,
    Scorer,
    TaskHeadline,
)
from niah.benchmarks.seq_niah.build import LENGTH_BINS, NEEDLE_GROUPS
from niah.benchmarks.seq_niah.judge import FAILURE_MODES, judge_full, score_seq_niah
from niah.sample import Sample, parts_text
from niah.scoring.metrics.base import MetricInputError, MetricRule

#: ``meta.noise_kind`` of a base sample in a noise dataset (its variants name their kind).
BASE_KIND = "base"
#: Score mode written by ``niah judge seq-niah RUN --judge SPEC`` (the LLM judge), beside the official one.
LLM_MODE = "llm"


def _question(sample: Sample) -> str:
    return parts_text(sample.question)


def _ordered(sample: Sample) -> bool | None:
    return True if sample.meta.get("order_required") is True else None


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    """The deterministic judge's verdict (official mode); its failure modes go to the aggregation."""
    question = _question(sample)
    if not isinstance(sample.answer, str) or not sample.answer.strip():
        raise MetricInputError("a Sequential-NIAH gold answer must be a non-empty string", field="answer")
    if not question.strip():
        raise MetricInputError("the sample has no question text", field="question")
    j = judge_full(question, sample.answer, response, ordered=_ordered(sample))
    return SampleScore({OFFICIAL: float(j.score)}, {"failure_modes": list(j.modes)},
                       row={"reason": j.reason, "failure_modes": list(j.modes)})


def row_fields(sample: Sample) -> dict[str, Any]:
    """Fields the report bins and the noise aggregation groups by."""
    m = sample.meta
    out: dict[str, Any] = {"length": m.get("length"), "length_bin": m.get("length_bin"),
                           "num_needles": m.get("num_needles"), "needle_group": m.get("needle_group"),
                           "lang": m.get("lang"), "pipeline": m.get("pipeline", sample.task)}
    if "noise_kind" in m:
        out["noise_kind"] = m["noise_kind"]
        out["variant_of"] = m.get("variant_of")
    return out


def _accuracy(values: list[float]) -> float:
    return round(100.0 * sum(values) / len(values), 4) if values else 0.0


def _by(rows: ScoredRows, mode: str, name: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[float]] = {}
    for row, _info in rows:
        value = row.get(name)
        if value is not None:
            groups.setdefault(str(value), []).append(float(row["scores"][mode]))
    return {k: {"accuracy": _accuracy(v), "n": len(v)} for k, v in groups.items()}


def aggregate(rows: ScoredRows, mode: str) -> dict[str, Any]:
    """scores.json: accuracies in percent (overall, per length bin, needle group, pipeline, language and per
    task and length bin), failure-mode counts (paper Table 8: a sample may show several) and, for noise
    datasets, accuracy and consistency per noise kind (Table 5)."""
    all_rows = rows
    # noise variants are scored as noise (below), not pooled into accuracy as ordinary samples
    rows = [(row, info) for row, info in rows if not isinstance(row.get("variant_of"), str)]
    values = [float(row["scores"][mode]) for row, _ in rows]
    out: dict[str, Any] = {"benchmark": "seq-niah", "scoring": mode, "n": len(values),
                           "accuracy": _accuracy(values) if values else None}
    if len(rows) < len(all_rows):
        out["noise_variants"] = len(all_rows) - len(rows)
    for name in ("length_bin", "needle_group", "pipeline", "lang"):
        out[f"by_{name}"] = _by(rows, mode, name)
    tasks: dict[str, dict[str, list[float]]] = {}
    for row, _ in rows:
        tasks.setdefault(row["task"], {}).setdefault(str(row.get("length_bin")), []).append(
            float(row["scores"][mode]))
    out["tasks"] = {t: {b: {"accuracy": _accuracy(v), "n": len(v)} for b, v in bins.items()}
                    for t, bins in tasks.items()}
    if mode == OFFICIAL:
        counts: Counter[str] = Counter()
        wrong = 0
        for row, info in rows:
            if float(row["scores"][mode]) < 1:
                wrong += 1
                counts.update(info.get("failure_modes") or ["other"])
        out["failure_modes"] = {**{m: counts.get(m, 0) for m in FAILURE_MODES}, "incorrect_samples": wrong}
    noise = noise_aggregate(all_rows, mode)
    if noise:
        out["noise"] = noise
    return out


def headline(structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    """Accuracy: the share of (non-variant) samples judged correct x 100, overall and per task: plain
    proportions, with no grid of which a cell could be empty (covered is the same number)."""
    per_task: dict[str, list[float]] = {}
    for row, _info in rows:
        if not isinstance(row.get("variant_of"), str):
            per_task.setdefault(row["task"], []).append(float(row["scores"][mode]))
    return Headline(metric="accuracy", overall=structure["accuracy"], covered=structure["accuracy"],
                    n=structure["n"], plain=True,
                    by_task={task: TaskHeadline(100 * sum(v) / len(v), len(v), plain=True)
                             for task, v in per_task.items()})


def noise_aggregate(rows: ScoredRows, mode: str) -> dict[str, Any]:
    """Accuracy and consistency per noise kind and ``all`` (Table 5) from the base rows and variant rows of one
    run on a ``niah noise`` dataset; empty when the run holds no variants."""
    from niah.benchmarks.seq_niah.noise import consistency

    base: dict[str, float] = {}
    variants: dict[str, float] = {}
    variant_of: dict[str, str] = {}
    kind_of: dict[str, str] = {}
    groups: dict[str, dict[str, Any]] = {}  # base id -> its length bin and needle group (Figure 7)
    for row, _ in rows:
        kind = row.get("noise_kind")
        if kind is None:
            continue
        score = float(row["scores"][mode])
        if kind == BASE_KIND:
            base[row["id"]] = score
            groups[row["id"]] = {g: row.get(g) for g in _FIGURE7}
        elif isinstance(row.get("variant_of"), str):
            variants[row["id"]] = score
            variant_of[row["id"]] = row["variant_of"]
            kind_of[row["id"]] = kind
            groups.setdefault(row["variant_of"], {g: row.get(g) for g in _FIGURE7})
    if not variants:
        return {}
    result = consistency(base, variants, variant_of, kind_of)
    out: dict[str, Any] = {"base_accuracy": _accuracy(list(base.values())) if base else None, "bases": len(base),
                           "kinds": {k: v.to_json() for k, v in result.items()}}
    for field in _FIGURE7:  # Figure 7: consistency over every kind, per length bin and per needle group
        by: dict[str, Any] = {}
        for value in sorted({str(g[field]) for g in groups.values() if g.get(field) is not None}):
            mine = {b for b, g in groups.items() if str(g.get(field)) == value}
            vids = {v: s for v, s in variants.items() if variant_of[v] in mine}
            part = consistency({b: s for b, s in base.items() if b in mine}, vids, variant_of, kind_of)
            if "all" in part:
                by[value] = part["all"].to_json()
        out[f"by_{field}"] = by
    return out


#: The groups of the paper's Figure 7 (consistency by input length and by needle count).
_FIGURE7 = ("length_bin", "needle_group")


def llm_order_required(sample: Sample) -> bool:
    """The order rule the LLM judge's prompt states, decided as the deterministic judge decides it."""
    from niah.benchmarks.seq_niah.dates import find_dates
    from niah.benchmarks.seq_niah.judge import question_asks_order, split_gold

    gold = sample.answer if isinstance(sample.answer, str) else ""
    if sample.meta.get("order_required") is True or not any(find_dates(g) for g in split_gold(gold)):
        return True
    return question_asks_order(_question(sample))


def llm_judge_kind(sample: Sample) -> str:
    """Which LLM judge (prompt) grades this sample: ``ordered`` or ``unordered``."""
    return "ordered" if llm_order_required(sample) else "unordered"


def apply_verdicts(sample: Sample, response: str | None, rule: SampleScore, verdicts: Mapping[str, Any],
                   settings: Mapping[str, Any]) -> SampleScore:
    """The stored LLM-judge verdict as the ``llm`` mode beside the deterministic official score; a failed
    verdict gives no ``llm`` score (left out of scores.llm.json, counted), a missing one is flagged."""
    verdict = verdicts.get(llm_judge_kind(sample))
    if verdict is None:
        return SampleScore(rule.scores, {**rule.info, JUDGE_MISSING: True}, rule.row)
    if verdict.score is None:
        return SampleScore(rule.scores, rule.info, {**rule.row, "llm_judge": {"error": verdict.error}})
    row: dict[str, Any] = {**rule.row, "llm_judge": {"raw": verdict.raw}}
    from niah.scoring.judges import judge_like_instructions

    if judge_like_instructions(response):  # an answer writing to the LLM judge may have steered its verdict
        row[JUDGE_INJECTION_KEY] = True
    official = rule.scores.get(OFFICIAL)
    if official is not None and float(official) != float(verdict.score):
        # two judges, two verdicts: a reader should look (a judge fooled by the answer, or a rule misread)
        row[JUDGES_DISAGREE] = (f"deterministic judge {float(official):g}, LLM judge {float(verdict.score):g} "
                                f"({rule.row.get('reason') or 'no reason'})")
    return SampleScore({**rule.scores, LLM_MODE: float(verdict.score)}, rule.info, row)


SCORER = Scorer(score_sample, aggregate, row_fields=row_fields,
                judged=JudgedScoring(apply_verdicts, modes=(LLM_MODE,)), headline=headline)


def _judge_details(question: Any, answer: Any, response: Any) -> dict[str, Any]:
    score_seq_niah(question, answer, response)  # the same input checks as the score
    j = judge_full(question, answer, response)
    return {"reason": j.reason, "failure_modes": list(j.modes)}


def _rule_score(question: Any, answer: Any, response: Any) -> float:
    try:
        return score_seq_niah(question, answer, response)
    except ValueError as exc:  # judge's _FieldError carries the field
        raise MetricInputError(str(exc), field=getattr(exc, "field", "answer")) from None


RULES: tuple[MetricRule, ...] = (
    MetricRule("seq-niah/judge", "Sequential-NIAH order-aware judge: 1 iff every gold item, no extra or wrong item, "
               "gold order when the question asks for it (output adds reason and failure_modes)",
               _rule_score, fields=("question", "answer", "response"), details=_judge_details),
)


# --------------------------------------------------------------------------------------------- baselines

_SENTENCE = re.compile(r"[^.。\n]{12,}[.。]")


def oracle_answer(sample: Sample) -> str | None:
    return sample.answer if isinstance(sample.answer, str) else None


def random_answer(sample: Sample, shape: Any) -> str | None:
    """As many context sentences as the sample has needles, drawn at random (the shape of an answer, chance
    content): never the gold answer."""
    sentences = _SENTENCE.findall(parts_text(sample.context))
    if not sentences:
        return None
    k = int(sample.meta.get("num_needles") or 3)
    picked = shape.rng.sample(sentences, min(k, len(sentences)))
    return "\n".join(f"- {s.strip()}" for s in picked)


BASELINES = BaselineAnswers(oracle=oracle_answer, random=random_answer)

LENGTH_LABELS: tuple[str, ...] = tuple(LENGTH_BINS)
NEEDLE_LABELS: tuple[str, ...] = tuple(NEEDLE_GROUPS)
