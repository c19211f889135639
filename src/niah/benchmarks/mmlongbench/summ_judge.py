"""MMLongBench's summarization score: an LLM judge's fluency x F1 (official ``scripts/eval_gpt4_summ.py``).

Three judge calls per summary, each at temperature 0.1 (the official setting):

* fluency: is the summary fluent (``{"fluency": 0|1}``);
* recall: how many of the expert key points (``summ/*_claims.jsonl``) the summary contains (``{"recall": N}``);
* precision: how many of the summary's sentences the expert summary supports (``{"precision": P,
  "sentence_count": S}``).

recall = N / #key points (0 without key points), precision = P / S (0 when S = 0), F1 = harmonic mean (0 when
both are 0), score = fluency x F1. The summary judged is the output without its ``Summary:`` prefix. As in the
official script, a reply is read from its last ``{...}`` (or a fenced ``json`` block); a sample for which any of
the three replies does not parse is left out of the data set's mean (and counted). The prompts are niah's own
wording of the official rubric (the official few-shot prompts are not reproduced); their replies have the
official JSON shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from niah.models.base import GenerationSettings
from niah.scoring.judges import JudgeParseError, JudgeTemplate

JUDGE_GENERATION = GenerationSettings(temperature=0.1, max_tokens=4096)

_SYSTEM = "You are an impartial judge of summaries. You follow the rubric and end with the JSON it asks for."
FLUENCY = JudgeTemplate(
    name="mmlongbench-summ-fluency-v1", system=_SYSTEM,
    user=("Judge the fluency of the text below: it must be coherent, not repetitive, fluent and grammatical. "
          "Score 1 if it is, 0 if it is not (for example: repeated sentences, unfinished or garbled text, a list of "
          "fragments instead of prose).\n\nText:\n{prediction}\n\nGive a one-sentence reason, then your "
          "score as JSON: {{\"fluency\": 1}} or {{\"fluency\": 0}}."))
RECALL = JudgeTemplate(
    name="mmlongbench-summ-recall-v1", system=_SYSTEM,
    user=("Below are the key points of an expert summary and a summary to evaluate. For each key point, "
          "decide whether the summary states it (paraphrase counts, a related but different claim does not). "
          "\n\nKey points:\n{gold}\n\nSummary:\n{prediction}\n\nReason briefly in one paragraph, then give the "
          "number of key points the summary contains as JSON: {{\"recall\": 2}}."))
PRECISION = JudgeTemplate(
    name="mmlongbench-summ-precision-v1", system=_SYSTEM,
    user=("Below are an expert summary and a summary to evaluate. Split the summary to evaluate into "
          "sentences and decide, for each, whether the expert summary supports it (minor details may be missing "
          "from the expert summary; a contradiction or an unsupported claim is not supported).\n\nExpert summary:\n"
          "{gold}\n\nSummary:\n{prediction}\n\nReason briefly in one paragraph, then give the number of supported "
          "sentences and the number of sentences as JSON: {{\"precision\": 3, \"sentence_count\": 4}}."))


def official_json(text: str) -> dict[str, Any]:
    """The official ``parse_json``: the last ``{...}`` (non-greedy) of the reply, else a fenced ``json`` block."""
    matches = re.findall(r"\{.*?\}", text, re.DOTALL)
    if not matches:
        raise JudgeParseError(f"no JSON object in the reply: {text[:80]!r}")
    try:
        obj = json.loads(matches[-1])
    except json.JSONDecodeError:
        fenced = re.findall(r"(?:```json)(.+)(?:```)", text, re.DOTALL)
        if not fenced:
            raise JudgeParseError(f"the last {{...}} is not JSON: {matches[-1][:80]!r}") from None
        try:
            obj = json.loads(fenced[-1])
        except json.JSONDecodeError:
            raise JudgeParseError("the fenced json block is not JSON") from None
    if not isinstance(obj, dict):
        raise JudgeParseError("the JSON reply is not an object")
    return obj


def _count(obj: dict[str, Any], key: str) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise JudgeParseError(f"{key!r} must be a non-negative number, got {value!r}")
    return float(value)


def parse_fluency(text: str) -> float:
    value = _count(official_json(text), "fluency")
    if value not in (0.0, 1.0):
        raise JudgeParseError(f"fluency must be 0 or 1, got {value:g}")
    return value


def parse_recall(text: str) -> float:
    return _count(official_json(text), "recall")


def parse_precision(text: str) -> float:
    """precision / sentence_count (0 when the count is 0), as the official script computes it."""
    obj = official_json(text)
    precision, sentences = _count(obj, "precision"), _count(obj, "sentence_count")
    return precision / sentences if sentences > 0 else 0.0


@dataclass(frozen=True)
class SummaryScore:
    fluency: float
    recall: float
    precision: float

    @property
    def f1(self) -> float:
        total = self.recall + self.precision
        return 2 * self.recall * self.precision / total if total > 0 else 0.0

    @property
    def flu_f1(self) -> float:
        return self.fluency * self.f1

    def to_json(self) -> dict[str, float]:
        return {"fluency": self.fluency, "recall": self.recall, "precision": self.precision, "f1": self.f1,
                "flu_f1": self.flu_f1}


def combine(fluency: float, recall_found: float, keypoints: int, precision: float) -> SummaryScore:
    return SummaryScore(fluency, recall_found / keypoints if keypoints > 0 else 0.0, precision)


def summary_text(response: str | None) -> str | None:
    """What the judge reads: the output without the ``Summary:`` prefix (official: prefix prepended, then cut)."""
    return None if response is None else response.strip()


PARSERS: dict[str, Callable[[str], float]] = {"fluency": parse_fluency, "recall": parse_recall,
                                              "precision": parse_precision}
TEMPLATES: dict[str, JudgeTemplate] = {"fluency": FLUENCY, "recall": RECALL, "precision": PRECISION}
