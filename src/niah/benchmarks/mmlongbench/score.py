"""MMLongBench's official metric rules by name, per-sample scoring of a run, and the official aggregation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niah.benchmarks.mmlongbench import metrics
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
from niah.scoring.metrics.base import MetricInputError, MetricRule

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


def _mean_present(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def headline(structure: dict[str, Any], rows: ScoredRows, mode: str) -> Headline:
    """The official overall (mean of the five categories, already in percent) averaged over the lengths the run
    holds: undefined when a data set is missing at one of them, as officially. Covered: the same means over
    only the data sets the run holds (a category of the data sets present, the overall of the categories
    present). Per data set: its official score (x 100, the binary sets flipped below 50) averaged over the
    lengths."""
    from niah.benchmarks.mmlongbench.aggregate import NIAH_PAIRS
    from niah.benchmarks.mmlongbench.datasets import CATEGORIES, CATEGORY_DATASETS, LENGTH_LABELS, LENGTHS_K

    label_of = dict(zip(LENGTHS_K, LENGTH_LABELS, strict=True))
    counts: dict[str, int] = {}
    held: set[str] = set()
    for row, info in rows:
        name = str(info.get("dataset") or row.get("task"))
        counts[name] = counts.get(name, 0) + 1
        if info.get("length_k") in label_of:
            held.add(label_of[info["length_k"]])
    labels = [label for label in LENGTH_LABELS if label in held]
    datasets: dict[str, dict[str, float | None]] = structure["datasets"]
    overall_values = [structure["overall"].get(label) for label in labels]
    overall = (None if not labels or any(v is None for v in overall_values)
               else sum(v for v in overall_values if v is not None) / len(labels))
    covered_values: list[float | None] = []
    for label in labels:
        def get(name: str, at: str = label) -> float | None:
            return datasets[name][at]

        per_category: list[float | None] = []
        for category in CATEGORIES:
            if category == "niah":
                per_category.append(_mean_present([get("vh_single"), get("vh_multi"),
                                                   *(_mean_present([get(t), get(i)]) for t, i in NIAH_PAIRS)]))
            else:
                per_category.append(_mean_present([get(name) for name in CATEGORY_DATASETS[category]]))
        covered_values.append(_mean_present(per_category))
    flips = {name: _flip_note(at) for name, at in (structure.get("flipped") or {}).items()}
    by_task = {name: TaskHeadline(_mean_present([datasets[name][label] for label in labels]), n,
                                  note=flips.get(name, ""))
               for name, n in counts.items() if name in datasets}
    return Headline(metric="score (mean of the five category scores, averaged over the run's lengths)",
                    overall=overall, covered=_mean_present(covered_values), n=len(rows), by_task=by_task,
                    note="; ".join(f"{name} {note}" for name, note in sorted(flips.items())))


def _flip_note(accuracies: dict[str, float]) -> str:
    """How a yes/no set's figure was flipped, as the official figure scripts do: ``official flip below 50:
    accuracy 20.0 at 8K reported as 80.0``."""
    at = ", ".join(f"{value:.1f} at {label}" for label, value in accuracies.items())
    return f"official flip below 50: accuracy {at} reported as 100 minus it"


def to_percent(structure: dict[str, Any]) -> dict[str, Any]:
    """The official aggregation (already in percent) with its scores rounded to 4 places."""
    def rounded(table: dict[str, float | None]) -> dict[str, float | None]:
        return {label: percent(value, 1.0) for label, value in table.items()}

    return {**structure, "datasets": {n: rounded(t) for n, t in structure["datasets"].items()},
            "categories": {c: rounded(t) for c, t in structure["categories"].items()},
            "overall": rounded(structure["overall"])}


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
    from niah.scoring.judges import judge_like_instructions

    if judge_like_instructions(response):  # the judges read the summary as it is: it may have steered them
        judged_row[JUDGE_INJECTION_KEY] = True
    return SampleScore({OFFICIAL: score.flu_f1}, {**rule.info, "judged": True, "judge_failed": False},
                       {**judged_row, "judged": True, "judge": score.to_json()})


def stratum(row: dict[str, Any], info: dict[str, Any]) -> tuple[Any, Any]:
    """The bootstrap redraws outcomes within a data set at one length (the official means are per such pair)."""
    return info.get("dataset") or row.get("task"), info.get("length_k")


SCORER = Scorer(score_sample, aggregate, row_fields=row_fields, stratum=stratum, judged=JudgedScoring(apply_verdicts),
                headline=headline, percent=to_percent)
