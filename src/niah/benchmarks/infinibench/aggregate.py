"""Official InfiniBench aggregation: per skill, per question type, and the unweighted overall.

- A skill's MCQ accuracy is correct / counted items x 100 (v1 leaves judge replies that did not parse out of
  the count; v2 counts every item, a missing prediction being wrong); its open-ended score is the mean of the
  parsed judge scores (0-5 under v1, 0-10 under v2), failures left out and counted.
- A question type (the paper's Table 3) averages the accuracies of its skills that have MCQ items and,
  separately, the scores of its skills that have open-ended items.
- Overall: the unweighted mean of skill accuracies and, separately, of skill scores (the paper's "AVG
  Accuracy" and "AVG Score"); the two are never mixed.
- Open-ended items of skills the paper scores by MCQ only (character actions, global appearance, scene
  transitions: the generator scripts write open-ended files for them) are reported per skill but enter neither
  a question type's score nor the overall score (``open.averaged`` is false; ``overall.open_apart`` lists them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from niah.benchmarks.infinibench.skills import QUESTION_TYPES, skill_by_name

SCORE_SCALE = {"v1": 5, "v2": 10}


@dataclass(frozen=True, slots=True)
class ItemScore:
    """One scored item. MCQ: ``correct`` (``excluded`` = out of the denominator; a share between 0 and 1 counts
    as that much of an item, which only the interval of an all-alike run puts in). Open: ``score`` or None when
    the judge reply failed (then excluded)."""

    skill: str
    format: str  # "mcq" | "open"
    correct: bool | float = False
    score: float | None = None
    excluded: bool = False


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def aggregate(items: Iterable[ItemScore], *, protocol: str) -> dict[str, Any]:
    if protocol not in SCORE_SCALE:
        raise ValueError(f"unknown InfiniBench protocol {protocol!r} (v1 or v2)")
    per: dict[str, dict[str, Any]] = {}
    for it in items:
        skill = skill_by_name(it.skill)
        if skill is None:
            raise ValueError(f"unknown InfiniBench skill {it.skill!r}")
        row = per.setdefault(skill.id, {"title": skill.title, "question_type": skill.qtype,
                                        "mcq": {"n": 0, "counted": 0, "correct": 0, "excluded": 0},
                                        "open": {"n": 0, "parsed": 0, "excluded": 0, "_sum": 0.0}})
        if it.format == "mcq":
            m = row["mcq"]
            m["n"] += 1
            if it.excluded:
                m["excluded"] += 1
            else:
                m["counted"] += 1
                m["correct"] += it.correct  # a bool adds as an int: counts stay integers
        elif it.format == "open":
            o = row["open"]
            o["n"] += 1
            if it.score is None or it.excluded:
                o["excluded"] += 1
            else:
                o["parsed"] += 1
                o["_sum"] += it.score
        else:
            raise ValueError(f"item format must be 'mcq' or 'open', got {it.format!r}")
    for row in per.values():
        m, o = row["mcq"], row["open"]
        m["accuracy"] = 100.0 * m["correct"] / m["counted"] if m["counted"] else None
        o["score"] = o.pop("_sum") / o["parsed"] if o["parsed"] else None
        if not m["n"]:
            row["mcq"] = None
        if not o["n"]:
            row["open"] = None
    apart = []
    for k, r in per.items():
        if r["open"] is not None:
            found = skill_by_name(k)
            r["open"]["averaged"] = found is not None and found.counts("open")
            if not r["open"]["averaged"]:
                apart.append(k)
    accuracies = {k: r["mcq"]["accuracy"] for k, r in per.items() if r["mcq"] and r["mcq"]["accuracy"] is not None}
    scores = {k: r["open"]["score"] for k, r in per.items()
              if r["open"] and r["open"]["score"] is not None and r["open"]["averaged"]}
    types = {}
    for qt, title in QUESTION_TYPES.items():
        members = [k for k, r in per.items() if r["question_type"] == qt]
        if not members:
            continue
        types[qt] = {"title": title, "skills": members,
                     "accuracy": _mean([accuracies[k] for k in members if k in accuracies]),
                     "score": _mean([scores[k] for k in members if k in scores])}
    return {
        "protocol": protocol,
        "score_scale": SCORE_SCALE[protocol],
        "skills": per,
        "question_types": types,
        "overall": {
            "accuracy": _mean(list(accuracies.values())),
            "score": _mean(list(scores.values())),
            "accuracy_skills": len(accuracies),
            "score_skills": len(scores),
            "excluded_mcq": sum(r["mcq"]["excluded"] for r in per.values() if r["mcq"]),
            "excluded_open": sum(r["open"]["excluded"] for r in per.values() if r["open"]),
            "open_apart": sorted(apart),
        },
    }
