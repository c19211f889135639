"""MMLongBench's rule-based DocVQA score (official ``eval_docqa_score``), crash for crash.

The rule branches on the record's ``answer_format``:

* ``Integer``: the gold, cleaned (:func:`clean_string`), must be a whole number; correct iff one of the whole
  numbers in the cleaned prediction equals it.
* ``Float``: correct iff a number in the cleaned prediction is within 1% (relative) of the gold, the gold / 100
  or the gold x 100.
* ``String`` / ``None``: a gold that looks like a URL, file name, page, number range, time, date or e-mail
  needs to occur in the prediction as is (case-sensitive substring); any other gold scores the token F1 of
  the normalized texts.
* ``List``: the gold is a JSON list in a string; its plain-text items (not numbers, not needing an exact match)
  are merged into one string scored by F1, the others are scored one by one with the type they look like; the
  score is the mean over the merged list.

The prediction is the output after the assistant prefix (the official post-processing scores only the parsed
output for this task). Inputs the official code crashes on (a gold that is not a whole number under
``Integer``, not a number under ``Float``, not JSON under ``List``, an empty list, a nested list, an unknown
format) raise :class:`~niah.scoring.metrics.base.MetricInputError`.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any

from niah.benchmarks.mmlongbench.metrics import DEFAULT_PREFIX, normalize_answer, parse_output
from niah.scoring.metrics.base import MetricInputError, require_response

_SUFFIXES = ("kg", "meters", "acres", "minutes", "miles", "mile", "feet", "million", "thousand", "billion", "mm", "m")
_EXACT_PATTERNS = tuple(re.compile(p) for p in (
    r"https://",
    r".*\.(py|ipynb)$",
    r"^page",
    r"^\d+(-\d+|\s\d+)?$",
    r"(a\.m\.|p\.m\.)",
    r"^\d{4}[-/\s]\d{1,2}[-/\s]\d{1,2}$",
    r"^\d{1,2}[-/\s]\d{1,2}[-/\s]\d{2,4}$",
    r"^\d{4}[-/\s]\d{1,2}$",
    r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$",
))
_NUMBER = re.compile(r"(-?\d+(\.\d*)?|-?\.\d+)")


def clean_string(value: Any) -> str:
    """Official ``get_docqa_clean_string``: lowercase, drop commas, strip unit suffixes one after another
    (``kg``, ..., ``mm``, ``m``), surrounding quotes, ``$``, ``£`` and ``%``."""
    text = str(value).lower().strip().replace(",", "")
    for suffix in _SUFFIXES:
        text = re.sub(re.escape(suffix) + r"$", "", text).strip()
    text = re.sub(r"^['\"]|['\"]$", "", text).strip()
    return text.strip().strip("$").strip().strip().strip("£").strip().strip().strip("%").strip()


def needs_exact_match(text: str) -> bool:
    return any(pattern.search(text) for pattern in _EXACT_PATTERNS)


def number_list(prediction: str) -> list[float]:
    """Every finite number in the text (commas removed first)."""
    numbers: list[float] = []
    for match in _NUMBER.findall(prediction.replace(",", "")):
        value = float(match[0])
        if math.isfinite(value):
            numbers.append(value)
    return numbers


def str_type(text: str) -> str:
    """Official ``get_str_type``: Integer, Float or String, by what the cleaned text parses to."""
    try:
        number = float(clean_string(text))
        return "Integer" if number == int(number) and "%" not in text else "Float"
    except (ValueError, OverflowError):
        return "String"


def token_f1(prediction: str, gold: str) -> float:
    """Official ``f1_score`` (first element) on normalized whitespace tokens."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    same = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def _float(value: Any) -> float:
    try:
        return float(clean_string(str(value)))
    except ValueError:
        raise MetricInputError(f"gold {value!r} is not a number (the official code crashes on it)",
                               field="answer") from None


def docqa_score(gold: Any, prediction: str, answer_format: Any) -> float:
    """Official ``eval_docqa_score(gt, pred, answer_type)``."""
    if answer_format == "Integer":
        number = _float(gold)
        if not math.isfinite(number) or int(number) != number:
            raise MetricInputError(f"Integer gold {gold!r} is not a whole number (the official code asserts)",
                                   field="answer")
        target = int(number)
        cleaned = clean_string(str(prediction))
        return float(any(target == int(n) for n in number_list(cleaned) if int(n) == n))
    if answer_format == "Float":
        number = _float(gold)
        cleaned = clean_string(str(prediction))
        return float(any(any(math.isclose(ref, n, rel_tol=0.01) for ref in (number / 100, number, number * 100))
                         for n in number_list(cleaned)))
    if answer_format in ("String", "None"):
        if not isinstance(gold, str):
            raise MetricInputError(f"{answer_format} gold must be a string (the official code crashes on "
                                   f"{type(gold).__name__})", field="answer")
        if needs_exact_match(gold):
            return float(gold in prediction)
        return token_f1(prediction, gold)
    if answer_format == "List":
        if not isinstance(gold, str):
            raise MetricInputError("List gold must be a JSON list in a string (the official code json.loads it)",
                                   field="answer")
        try:
            items = json.loads(gold)
        except json.JSONDecodeError:
            raise MetricInputError("List gold is not valid JSON", field="answer") from None
        if not isinstance(items, list):
            raise MetricInputError("List gold must decode to a list", field="answer")
        merge = [isinstance(item, str) and str_type(item) == "String" and not needs_exact_match(item) for item in items]
        merged = " ".join(item for item, flag in zip(items, merge, strict=True) if flag).strip()
        if merged:
            items = [merged] + [item for item, flag in zip(items, merge, strict=True) if not flag]
        if not items:
            raise MetricInputError("List gold is empty (the official code divides by its length)", field="answer")
        scores: list[float] = []
        for item in items:
            if isinstance(item, list):
                raise MetricInputError("List gold holds a list (the official code asserts)", field="answer")
            if isinstance(item, int) and not isinstance(item, bool):
                kind = "Integer"
            elif isinstance(item, float):
                kind = "Float"
            elif isinstance(item, bool):
                kind = "Integer"  # isinstance(True, int) in Python; str(True) then fails to parse: refused below
            elif isinstance(item, str):
                kind = str_type(item)
            else:
                raise MetricInputError(f"List gold holds a {type(item).__name__} (the official code crashes on it)",
                                       field="answer")
            scores.append(docqa_score(item, prediction, kind))
        return sum(scores) / len(items)
    raise MetricInputError(f"unknown answer_format {answer_format!r} (String, Integer, Float, List or None)",
                           field="answer_format")


def score_doc_qa(answer: Any, response: str | None, answer_format: Any, prefix: str | None = None) -> float:
    """Per-sample DocVQA score: the prefixed output is parsed (text after the prefix) and scored."""
    response = require_response(response)
    if prefix is None:
        prefix = DEFAULT_PREFIX
    if response is None:
        docqa_score(answer, "", answer_format)  # a bad gold is refused even for a failed request
        return 0.0
    return docqa_score(answer, parse_output(prefix + response, prefix=prefix), answer_format)
