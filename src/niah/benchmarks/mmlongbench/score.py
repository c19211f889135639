"""MMLongBench's official metric rules by name, per-sample scoring of a run, and the official aggregation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niah.benchmarks.mmlongbench import metrics
from niah.benchmarks.protocol import (
    JUDGE_MISSING,
    OFFICIAL,
    UNSCORED,
    JudgedScoring,
    SampleScore,
    ScoredRows,
    Scorer,
)
from niah.metrics.base import MetricInputError, MetricRule
from niah.sample import Sample

RULES: tuple[MetricRule, ...] = (
    MetricRule(
        "mmlongbench/sub_em",
        "MMLongBench SubEM: normalized gold is a substring of the normalized output; max over raw/parsed",
        metrics.score_sub_em,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/mc_acc",
        "MMLongBench option letter ('answer is X', 'Answer: X', last capital A-J) == int gold; max raw/parsed",
        metrics.score_mc_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/soft_acc",
        "MMLongBench counting: sum of the predicted count list == sum of the gold list; max raw/parsed",
        metrics.score_soft_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/cls_acc",
        "MMLongBench ICL class: 'label: N', else last number, else first number == int gold; max raw/parsed",
        metrics.score_cls_acc,
        optional_fields=("prefix",),
    ),
    MetricRule(
        "mmlongbench/binary_acc",
        "MMLongBench yes/no: last yes/no, unparseable -> cycling default [0,1,1,0] by row order",
        metrics.score_binary_acc,
        optional_fields=("prefix", "default_answer"),
        position_defaults=metrics.binary_default_for_position,
    ),
)


# ------------------------------------------------------------------------------------------------ run scoring


def _doc_qa_rule() -> MetricRule:
    from niah.benchmarks.mmlongbench.docqa import score_doc_qa

    return MetricRule("mmlongbench/doc_qa", "MMLongBench DocVQA rule by answer_format (Integer, Float, String, "
                      "List, None) on the output after the prefix", score_doc_qa,
                      fields=("answer", "response", "answer_format"), optional_fields=("prefix",))


RULES = (*RULES, _doc_qa_rule())
_BY_METRIC: dict[str, MetricRule] = {rule.name.split("/", 1)[1]: rule for rule in RULES}
#: Scores kept beside ``official`` for summarization until the judge has run (``niah judge mmlongbench``).
UNJUDGED = "unjudged"


def score_sample(sample: Sample, response: str | None) -> SampleScore:
    """One sample under its data set's official rule, with the assistant prefix prepended to the output.

    Summarization is scored by the LLM judge (:mod:`niah.benchmarks.mmlongbench.summ_judge`); until it has
    run, a summarization sample's ``official`` is a placeholder 0 marked ``judged: false``, and every aggregate
    that needs it is undefined."""
    from niah.benchmarks.mmlongbench.prompt import prefix_of

    meta = sample.meta or {}
    metric = meta.get("metric")
    info = {"dataset": meta.get("dataset", sample.task), "length_k": meta.get("length_k"), "metric": metric,
            "judged": True}
    if metric == "summ_judge":
        return SampleScore({OFFICIAL: 0.0}, {**info, "judged": False},
                           {UNSCORED: "summarization: not judged yet (niah judge mmlongbench)"})
    rule = _BY_METRIC.get(metric) if isinstance(metric, str) else None
    if rule is None:
        raise MetricInputError(f"unknown MMLongBench metric {metric!r}", field="meta.metric")
    row: dict[str, Any] = {"answer": sample.answer, "response": response, "prefix": prefix_of(sample)}
    if metric == "binary_acc":
        position = meta.get("position", 0)
        if isinstance(position, bool) or not isinstance(position, int) or position < 0:
            raise MetricInputError("must be a non-negative integer", field="meta.position")
        row["default_answer"] = meta.get("default_answer", metrics.binary_default_for_position(position)[
            "default_answer"])
    if metric == "doc_qa":
        row["answer_format"] = meta.get("answer_format")
    return SampleScore({OFFICIAL: rule.score(row)}, info)


def row_fields(sample: Sample) -> dict[str, Any]:
    meta = sample.meta or {}
    out = {"length_k": meta.get("length_k"), "category": meta.get("category"), "dataset": meta.get("dataset")}
    if meta.get("metric") == "summ_judge":
        out["judged"] = False
    return out


def aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    from niah.benchmarks.mmlongbench.aggregate import aggregate_scores

    return aggregate_scores(rows, score_name)


#: The three judges of a summary (official ``eval_gpt4_summ.py``), each a judge kind in the verdict store.
JUDGE_KINDS = ("fluency", "recall", "precision")


def apply_verdicts(sample: Sample, response: str | None, rule: SampleScore, verdicts: Mapping[str, Any],
                   settings: Mapping[str, Any]) -> SampleScore:
    """A summarization sample's official score from its three stored verdicts: fluency x F1. A sample for which
    a verdict failed is left out of its data set's mean and counted (``judge_failures``), as officially; one
    without all three verdicts for its current response stays unjudged."""
    from niah.benchmarks.mmlongbench.summ_judge import combine

    if (sample.meta or {}).get("metric") != "summ_judge":
        return rule
    got = [verdicts.get(kind) for kind in JUDGE_KINDS]
    if any(v is None for v in got):
        return SampleScore(rule.scores, {**rule.info, JUDGE_MISSING: True}, rule.row)
    failed = next((v for v in got if v is not None and v.score is None), None)
    if failed is not None:
        return SampleScore(rule.scores, {**rule.info, "judged": True, "judge_failed": True},
                           {**rule.row, "judge_error": failed.error,
                            UNSCORED: "a judge verdict failed: excluded and counted"})
    keypoints = (sample.meta or {}).get("keypoints")
    fluency, recall, precision = (float(v.score or 0) if v is not None else 0.0 for v in got)
    score = combine(fluency, recall, len(keypoints) if isinstance(keypoints, list) else 0, precision)
    judged_row = {k: v for k, v in rule.row.items() if k != UNSCORED}
    return SampleScore({OFFICIAL: score.flu_f1}, {**rule.info, "judged": True, "judge_failed": False},
                       {**judged_row, "judged": True, "judge": score.to_json()})


SCORER = Scorer(score_sample, aggregate, row_fields=row_fields, judged=JudgedScoring(apply_verdicts))
