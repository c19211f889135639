"""MMLongBench per-sample metrics and their post-processing, as in the official ``utils.py`` / ``data.py``.

Official post-processing (``default_post_process``): the generation is scored after the assistant prefix
(``Answer:``; ``label:`` for the ICL tasks) has been prepended to it, then the *parsed* output (the text after
the first case-insensitive match of the prefix) is scored too, and the larger score is kept. Both candidates
can score, so a response may be right "by accident" through either one; that is the official behaviour.

Binary accuracy (visual haystack) is different: the official code scores only the prefixed output, replaces an
unparseable answer by a default that cycles ``[0, 1, 1, 0]`` over the samples *in order* (the cycle advances
for every scored sample, whether or not its default is used), and flips a data-set score below 50 to
``100 - score`` (:func:`binary_acc_dataset_score`).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Sequence
from typing import Any

from niah.scoring.metrics.base import MetricInputError, require_response

DEFAULT_PREFIX = "Answer:"
ICL_PREFIX = "label:"
#: Defaults used by the official visual-haystack loader, one per sample in order, cycling.
BINARY_DEFAULT_CYCLE: tuple[int, ...] = (0, 1, 1, 0)

_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lowercase, delete ASCII punctuation, replace articles a/an/the by a space, collapse whitespace."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def normalize_answer_with_punc(text: str) -> str:
    """Like :func:`normalize_answer` but punctuation is kept (used by the yes/no and count parsers)."""
    text = re.sub(r"\b(a|an|the)\b", " ", text.lower())
    return " ".join(text.split())


def parse_output(output: str, prefix: str = DEFAULT_PREFIX) -> str:
    """Official ``parse_output``: the text after the first case-insensitive match of ``prefix``.

    Quirks kept: ``prefix`` is used as a regular expression (not escaped) for the search; when it does not occur
    the whole output is used; a repeated prefix at the start of the remainder is removed once more (chat models
    sometimes repeat it). The official fallback regex always matches, so this never returns ``None``.
    """
    try:
        official = re.compile(f"(?:{prefix})(.*)", flags=re.IGNORECASE | re.DOTALL)
    except re.error as exc:  # the official code crashes on it too
        raise MetricInputError(f"prefix {prefix[:40]!r} is not a valid regular expression ({exc}); the official "
                               "code searches for it as one", field="prefix") from None
    for pattern in (official, re.compile(r"(?:^)(.*)", flags=re.IGNORECASE | re.DOTALL)):
        match = pattern.search(output)
        if match is not None:
            remainder = match[1].strip()
            remainder = re.sub(f"^{re.escape(prefix)}", "", remainder, flags=re.IGNORECASE)
            return remainder.strip()
    raise AssertionError("unreachable: the fallback pattern always matches")


def _max_over_prefix(
    metric: Callable[[str], float], response: str | None, prefix: str | None, default_prefix: str
) -> float:
    """Score ``prefix + response`` and its parsed form; keep the max (official ``default_post_process``)."""
    response = require_response(response)
    if response is None:
        return 0.0
    if prefix is None:
        prefix = default_prefix
    elif not isinstance(prefix, str):
        raise MetricInputError("must be a string", field="prefix")
    output = prefix + response
    score = float(metric(output))
    parsed = parse_output(output, prefix=prefix)
    return max(score, float(metric(parsed)))


# ---------------------------------------------------------------- SubEM


def _gold_strings(answer: Any) -> list[str]:
    """Official ``drqa_metric_max_over_ground_truths`` gold handling, crash for crash.

    A string is one gold; a list whose *first* item is a list is flattened by iterating every item (so a string
    item beside it contributes its characters, a dict its keys); any other list is used as it is. The official
    code crashes (and so cannot score the line) on: a non-list non-string gold, an empty list, an item that cannot
    be iterated while flattening, a gold that is not a string (``normalize_answer`` calls ``.lower()``), and an
    empty flattened list (``max`` of nothing).
    """
    if isinstance(answer, str):
        return [answer]
    if not isinstance(answer, list):
        raise MetricInputError(f"gold must be a string or a list, got {type(answer).__name__} "
                               "(the official code crashes on it)", field="answer")
    if not answer:
        raise MetricInputError("gold list is empty (the official code indexes its first item)", field="answer")
    golds: list[Any]
    if isinstance(answer[0], list):
        golds = []
        for group in answer:
            if not isinstance(group, (list, str, dict)):
                raise MetricInputError(f"a gold group of type {type(group).__name__} cannot be flattened "
                                       "(the official code crashes on it)", field="answer")
            golds.extend(group)
    else:
        golds = list(answer)
    if not golds:
        raise MetricInputError("no gold answer after flattening (the official code takes max of nothing)",
                               field="answer")
    for gold in golds:
        if not isinstance(gold, str):
            raise MetricInputError(f"every gold answer must be a string, got {type(gold).__name__} "
                                   "(the official code crashes on it)", field="answer")
    return golds


def substring_exact_match(prediction: str, gold: str) -> bool:
    """SubEM for one gold: normalized gold is a substring of the normalized prediction (no word boundary)."""
    return normalize_answer(gold) in normalize_answer(prediction)


def score_sub_em(answer: Any, response: str | None, prefix: str | None = None) -> float:
    """Official ``sub_em`` with prefix post-processing: max over golds, max over raw/parsed output.

    The prefixed raw output has no space after the prefix when the model emits none (``Answer:oak``), and
    SubEM is a plain substring test, so ``oak`` is found in ``answeroak``; ``oak`` is also found in ``oaks``.
    """
    golds = _gold_strings(answer)
    return _max_over_prefix(
        lambda text: max(float(substring_exact_match(text, g)) for g in golds), response, prefix, DEFAULT_PREFIX
    )


# ---------------------------------------------------------------- multiple choice


def extract_choice_letter(prediction: str) -> int:
    """Official ``extract_choice_letter``: 0-based index or -1.

    Order: first ``answer is \\(?([A-J])\\)?`` (case-sensitive ``answer is``), then ``[aA]nswer:\\s*([A-J])``,
    then the last standalone capital A-J. Quirk: ``Answer:Based on ...`` yields ``B`` from the second pattern.
    """
    prediction = " ".join(prediction.split())
    match = re.search(r"answer is \(?([A-J])\)?", prediction)
    if match:
        return ord(match.group(1)) - ord("A")
    match = re.search(r"[aA]nswer:\s*([A-J])", prediction)
    if match:
        return ord(match.group(1)) - ord("A")
    match = re.search(r"\b[A-J]\b(?!.*\b[A-J]\b)", prediction, re.DOTALL)
    if match:
        return ord(match.group(0)) - ord("A")
    return -1


def _official_equal(index: int, answer: Any) -> bool:
    """The official ``int(choice == answers)``: Python equality between the parsed int and the gold as loaded.

    It never fails, so every gold is scored: ``2.0`` and ``true`` equal ``2`` and ``1``; a string gold (``"2"``),
    a list or null never equals an int and scores 0.
    """
    return bool(index == answer)


def score_mc_acc(answer: Any, response: str | None, prefix: str | None = None) -> float:
    """Official ``mc_acc``: extracted letter index == gold (Python ``==``, so a string gold scores 0); max over
    prefixed raw and parsed output."""
    return _max_over_prefix(lambda text: float(_official_equal(extract_choice_letter(text), answer)), response, prefix,
                            DEFAULT_PREFIX)


# ---------------------------------------------------------------- counting (sum rule)


def _to_int_list(items: Any) -> list[int]:
    """Official ``turn_int_list``: keep the items ``int()`` accepts (``"3"`` -> 3, ``3.7`` -> 3, ``true`` -> 1)."""
    out: list[int] = []
    for item in items:
        try:
            out.append(int(item))
        except Exception:  # the official code uses a bare except
            continue
    return out


def extract_count_list(prediction: str) -> list[Any]:
    """Official ``extract_cnt_list``.

    After lowercasing and article removal: the last ``[digits, spaces, commas]`` group parsed as JSON; else the
    last ``[...]`` (non-greedy) parsed as JSON with items passed through ``int()``; else every run of digits.
    A group that is not valid JSON (``[1 2]``, ``[1,]``, ``[01]``) falls through to the next step.
    """
    prediction = normalize_answer_with_punc(prediction)
    matches = re.findall(r"\[[\d\s,]+\]", prediction, re.IGNORECASE | re.DOTALL)
    if matches:
        try:
            return json.loads(matches[-1])
        except json.JSONDecodeError:
            pass
    matches = re.findall(r"\[.*?\]", prediction, re.IGNORECASE | re.DOTALL)
    if matches:
        try:
            return _to_int_list(json.loads(matches[-1]))
        except json.JSONDecodeError:
            pass
    return [int(x) for x in re.findall(r"\d+", prediction)]


def official_gold_sum(answer: Any) -> float:
    """Python's ``sum(answer)`` as the official ``get_soft_acc`` computes it, refusing exactly where it raises.

    Anything empty that ``sum`` can iterate sums to 0 (``[]``, ``""``, ``{}``); a list of numbers sums them
    (``true`` counts 1); a non-empty string or object, a non-iterable gold, or a list holding a non-number
    (a string, a list, null) makes the official code raise ``TypeError``.
    """
    if isinstance(answer, (str, dict)) and not answer:
        return 0
    if not isinstance(answer, list):
        raise MetricInputError(f"gold must be a list of numbers, got {type(answer).__name__} "
                               "(the official sum() raises on it)", field="answer")
    for item in answer:
        if not isinstance(item, (int, float)):
            raise MetricInputError(f"gold list holds a {type(item).__name__} (the official sum() raises on it)",
                                   field="answer")
    return sum(answer)


def score_soft_acc(answer: Any, response: str | None, prefix: str | None = None) -> float:
    """MMLongBench ``soft_acc``: correct iff ``sum(predicted counts) == sum(gold counts)``.

    This is NOT MM-NIAH's positional soft accuracy: ``[2, 1]`` against gold ``[1, 2]`` is correct here.
    Max over prefixed raw and parsed output.
    """
    gold_sum = official_gold_sum(answer)
    return _max_over_prefix(lambda text: float(sum(extract_count_list(text)) == gold_sum), response, prefix,
                            DEFAULT_PREFIX)


# ---------------------------------------------------------------- classification (ICL)


def extract_class_number(prediction: str) -> int:
    """Official ``extract_class_num``: ``label:\\s*(\\d+)``, else the last standalone number, else the first
    digit run anywhere (``class12b`` -> 12), else -1."""
    prediction = " ".join(prediction.split())
    match = re.search(r"label:\s*(\d+)", prediction, re.IGNORECASE)
    if match:
        return int(match.group(1))
    match = re.search(r"\b(\d+)\b(?!.*\b\d+\b)", prediction)
    if match:
        return int(match.group(1))
    numbers = re.findall(r"\d+", prediction)
    if numbers:
        return int(numbers[0])
    return -1


def score_cls_acc(answer: Any, response: str | None, prefix: str | None = None) -> float:
    """Official ``cls_acc`` (prefix ``label:`` by default): parsed class == gold under Python ``==``, so a string
    gold such as ``"3"`` scores 0 as in the official code; max over prefixed raw and parsed output."""
    return _max_over_prefix(lambda text: float(_official_equal(extract_class_number(text), answer)), response, prefix,
                            ICL_PREFIX)


# ---------------------------------------------------------------- binary (visual haystack)


def extract_binary_label(prediction: str) -> int:
    """Official ``extract_binary_label``: the last standalone yes/no (1/0); else an all-digit text as int; else -1."""
    prediction = normalize_answer_with_punc(prediction)
    match = re.search(r"\b(?:yes|no)\b(?!.*\b(?:yes|no)\b)", prediction, re.IGNORECASE | re.DOTALL)
    if match:
        return {"yes": 1, "no": 0}[match.group(0)]
    if prediction.strip().isdigit():
        return int(prediction.strip())
    return -1


def score_binary_acc(
    answer: Any, response: str | None, default_answer: int = BINARY_DEFAULT_CYCLE[0], prefix: str | None = None
) -> float:
    """Official per-sample binary accuracy given the sample's default answer (0 or 1).

    Scored alone, a sample takes the default of the first position (0); the registry rule
    ``mmlongbench/binary_acc`` gives each row the default of its position (:func:`binary_default_for_position`).

    The prefix is prepended (as the official loop does for every task) but there is no parsed-output max for
    this task. An unparseable prediction takes ``default_answer``. The gold goes through the same parser.
    """
    if not isinstance(answer, str):
        raise MetricInputError("gold must be a string such as 'yes' or 'no'", field="answer")
    if default_answer not in (0, 1) or isinstance(default_answer, bool):
        raise MetricInputError("must be 0 or 1", field="default_answer")
    if prefix is not None and not isinstance(prefix, str):
        raise MetricInputError("must be a string", field="prefix")
    response = require_response(response)
    if response is None:
        return 0.0
    if prefix is None:
        prefix = DEFAULT_PREFIX
    label = extract_binary_label(prefix + response)
    if label == -1:
        label = default_answer
    return float(label == extract_binary_label(answer))


def binary_default_for_position(position: int) -> dict[str, int]:
    """The official default answer of the sample at 0-based ``position``: 0, 1, 1, 0, 0, 1, 1, 0, ...

    The official loop advances the cycle once per scored sample; it skips failed generations without advancing,
    so to reproduce such a run exactly give each row its ``default_answer`` explicitly.
    """
    return {"default_answer": BINARY_DEFAULT_CYCLE[position % len(BINARY_DEFAULT_CYCLE)]}


def binary_acc_dataset_score(scores: Sequence[float]) -> float:
    """Data-set binary accuracy in percent, flipped to ``100 - acc`` when below 50 (official figure scripts)."""
    if not scores:
        raise ValueError("no scores to average")
    accuracy = sum(scores) / len(scores) * 100
    return 100 - accuracy if accuracy < 50 else accuracy
