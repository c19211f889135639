"""MM-NIAH per-sample scoring: the official rule (``calculate_scores.is_correct``) and a lenient variant.

The official rule branches on the Python type of the gold answer. Every quirk is kept and listed in
:func:`score_mm_niah_official`; the lenient rule is a separate, named rule that only changes how a
multiple-choice letter is extracted when the official parser gives up.
"""

from __future__ import annotations

import json
import re
from typing import Any

from niah.scoring.metrics.base import MetricInputError, require_response
from niah.scoring.metrics.vqa import NUMBER_WORDS, has_word, normalize_vqa

_CAMERA_LEFT = "the camera is moving left"
_CAMERA_RIGHT = "the camera is moving right"


def official_choice(response: str) -> tuple[bool, int | None]:
    """Run the official multiple-choice parser on an already ``.``-stripped response.

    Returns ``(decided, index)``: ``decided`` is False when the official code gives up (scores 0 because the
    remaining text is not exactly one character); ``index`` is the 0-based option the response names, or
    ``None`` when it names none (``"none"``, or a digit string Python cannot convert).
    """
    if response.isdigit():
        # str.isdigit() accepts characters such as "²" or "①" that int() rejects: the official code raises on
        # them, so the official rule refuses the line (the lenient rule reads them as naming no option)
        try:
            return True, int(response)
        except ValueError:
            raise MetricInputError(f"the official MM-NIAH code raises on the reply {response!r}: it is made of "
                                   "digits for str.isdigit() but int() cannot read it", field="response") from None
    text = response.lower()
    text = text.replace("the answer is", "")
    text = text.replace("*", "")
    if text.find(".") != -1:
        text = text.split(".")[0]
        text = text.replace(",", "")
        text = text.strip()
    text = text.strip()
    if text == "none":
        return True, None
    if _CAMERA_LEFT in text:
        text = "a"
    elif _CAMERA_RIGHT in text:
        text = "b"
    if len(text) != 1:
        return False, None
    return True, ord(text) - ord("a")


def official_count_list(response: str) -> list[Any] | None:
    """The list the official counting parser reads from a (``.``-stripped) response, or ``None`` when it reads
    none (the official code then scores 0). Quirks kept: the substring ``json`` and code fences are deleted
    anywhere in the response; a JSON object is flattened by concatenating its values (values that are not lists
    make the response unparseable); anything that is not a list is not read."""
    text = response.replace("json", "").replace("```", "").strip()
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict):
            parsed = sum(list(parsed.values()), start=[])
    except Exception:  # the official code catches everything here, including TypeError from sum()
        return None
    if not isinstance(parsed, (list, tuple)):
        return None
    return list(parsed)


def _positional_accuracy(predicted: list[Any], answer: list[Any]) -> float:
    # items compared with Python == (so 2.0 and true equal 2 and 1); extra items ignored, missing ones wrong
    matches = sum(1 for pred, gold in zip(predicted, answer, strict=False) if pred == gold)
    return matches / len(answer)


def score_counting_official(answer: list[Any], response: str) -> float:
    """Official positional soft accuracy for counting tasks (response already ``.``-stripped): the list
    :func:`official_count_list` reads, item by item against the gold with Python ``==`` (so ``2.0`` and ``true``
    equal ``2`` and ``1``); extra predicted items are ignored and missing ones count as wrong; a response it
    reads no list from scores 0 (so "The little penguin counted 3 pebbles." scores 0 against ``[3]``).
    """
    if not answer:
        raise MetricInputError("empty gold count list (the official scorer divides by its length)", field="answer")
    parsed = official_count_list(response)
    return 0.0 if parsed is None else _positional_accuracy(parsed, answer)


#: A bracketed list of integers anywhere in a reply ("The counts are [3, 1].").
_BRACKETED_COUNTS = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
#: A count standing as its own word in prose: digits or an English number word ("LuckyGardener25" is no count,
#: nor the label of "Statement 2: 4").
_PROSE_COUNT = re.compile(r"(?<![\w.])(?<!statement )(\d+|" + "|".join(NUMBER_WORDS) + r")(?![\w]|\.\d)", re.IGNORECASE)


def prose_counts(response: str) -> list[int]:
    """The counts a reader takes from a reply the official parser reads no list from: the first bracketed list
    of integers if there is one, else every number in the prose in order, digits or words ("counted 3 pebbles",
    "three pebbles, then one"); an empty list when there is none."""
    from niah.scoring.metrics.negation import negated

    bracketed = _BRACKETED_COUNTS.search(response)
    if bracketed:
        return [int(x) for x in re.findall(r"\d+", bracketed.group(0))]
    # a negated count is none the reply gives ("not 3 pebbles", "3 is wrong"): niah's own reading, not official
    return [int(NUMBER_WORDS.get(m.group(1).lower(), m.group(1))) for m in _PROSE_COUNT.finditer(response)
            if not negated(response, m.start(), m.end())]


def _check_gold(answer: Any) -> None:
    if not isinstance(answer, (int, list, str)):
        raise MetricInputError(
            f"MM-NIAH gold must be an int (option index), a list (counts) or a string, got {type(answer).__name__}",
            field="answer",
        )


def score_mm_niah_official(answer: Any, response: str | None) -> float:
    """Score one MM-NIAH sample exactly as the official ``calculate_scores.py`` does.

    The response first loses leading and trailing ``.`` characters, then the branch is chosen by the gold's type:

    * **int** (multiple choice, 0-based option index): a response made only of digits is compared as a
      number, so ``"2"`` is option C (and ``" 2"`` with a space is not digits: it goes down the letter path and
      scores 0). Otherwise: lowercase; delete ``the answer is`` and ``*``; if a ``.`` remains keep the text before
      the first ``.`` and delete ``,``; strip; ``none`` scores 0; text containing ``the camera is moving
      left``/``right`` means ``a``/``b``; anything that is not exactly one character scores 0; else correct iff
      ``ord(c) - ord('a') == answer``. So ``C``, ``C.``, ``**C**``, ``The answer is C.`` are correct while
      ``(C)``, ``Answer: C`` and ``C, because`` score 0. A bool gold is an ``int`` in Python and takes this path.
      A reply of digits ``int()`` cannot read (``"²"``, ``"①"``: ``str.isdigit()`` accepts them) makes the
      official code raise: the line is refused (:class:`~niah.scoring.metrics.base.MetricInputError`), never scored 0.
    * **list** (counting): :func:`score_counting_official`.
    * **str** (open-ended): both sides get :func:`niah.scoring.metrics.vqa.normalize_vqa`; correct iff the normalized
      gold occurs in the normalized response as a whole word (``oak`` matches "an oak tree", not "oaks";
      ``two`` matches "2").

    A failed request (``response`` is ``None``) scores 0; the official script would crash on it.
    """
    _check_gold(answer)
    response = require_response(response)
    if response is None:
        return 0.0
    response = response.strip(".")
    if isinstance(answer, int):
        decided, index = official_choice(response)
        return float(decided and index is not None and index == answer)
    if isinstance(answer, list):
        return score_counting_official(answer, response)
    return float(has_word(normalize_vqa(response), normalize_vqa(answer)))


# Lenient letter patterns, tried in order when the official parser gives up.
_LENIENT_PATTERNS: tuple[re.Pattern[str], ...] = (
    # "(C)", "[c]", "( C )" at the start
    re.compile(r"^\s*[\(\[]\s*([A-Za-z])\s*[\)\]]"),
    # "Answer: C", "The answer is (C)" (the keyword in any case, the letter upper case)
    re.compile(r"\b(?i:answer)\s*(?:(?i:is)\s*)?[:：]?\s*[\(\[]?([A-Z])[\)\]]?(?![A-Za-z0-9])"),
    # "C, because ...", "C: the dog", "C)" at the start (upper-case letter only, so "A cat" is not option A)
    re.compile(r"^\s*([A-Z])\s*(?:[,:;)]|\.(?!\w))"),
)


def lenient_choice(response: str) -> int | None:
    """The 0-based option index named by ``response`` under the lenient patterns, or ``None``."""
    from niah.scoring.metrics.negation import negated

    text = response.replace("*", "")
    for pattern in _LENIENT_PATTERNS:
        match = pattern.search(text)
        if match:  # "Answer: not C" never matches; "(C) is wrong" names no option
            return None if negated(text, match.start(1), match.end(1)) else ord(match.group(1).upper()) - ord("A")
    return None


def score_mm_niah_lenient(answer: Any, response: str | None) -> float:
    """Like :func:`score_mm_niah_official`, with a better letter extractor for multiple choice.

    Only multiple-choice samples the official parser gives up on are re-read: ``(C)``, ``[C]``,
    ``Answer: C``, ``The answer is (C)``, ``C, because ...``, ``C: ...`` then name option C. Whenever the
    official parser reaches a decision (digits, one letter, ``none``, camera direction) the lenient rule
    agrees with it. Counting replies the official parser reads no list from are read as prose
    (:func:`prose_counts`: "The little penguin counted 3 pebbles in each statement." is ``[3]``) and scored with
    the same positional accuracy; a reply it reads a list from, and open-ended samples, are scored as official,
    except that an open-ended gold the reply mentions only negated ("NOT terracotta") scores 0: the official
    rule keeps its substring quirk, this one does not.
    """
    _check_gold(answer)
    response = require_response(response)
    if response is None:
        return 0.0
    if isinstance(answer, int):
        stripped = response.strip(".")
        try:
            decided, index = official_choice(stripped)
        except MetricInputError:  # digits int() cannot read ("²"): no option named
            decided, index = True, None
        if not decided:
            index = lenient_choice(response)
        return float(index is not None and index == answer)
    if isinstance(answer, list) and answer and official_count_list(response.strip(".")) is None:
        return _positional_accuracy(prose_counts(response), answer)
    score = score_mm_niah_official(answer, response)
    if score and isinstance(answer, str) and _only_negated(answer, response):
        return 0.0  # "It is definitely NOT terracotta" names no answer (the official substring rule scores it 1)
    return score


def _only_negated(answer: str, response: str) -> bool:
    """Whether every whole-word mention of ``answer`` in ``response`` is negated (False when none is found as
    written: the official match found it after normalization, which the lenient rule then accepts)."""
    import re

    from niah.scoring.metrics.negation import negated

    text = response.lower()
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, answer.lower().split())) + r"(?!\w)"
    found = [(m.start(), m.end()) for m in re.finditer(pattern, text)]
    return bool(found) and all(negated(text, start, end) for start, end in found)
