"""MileBench per-sample scoring, as in the official ``evaluate.py`` (class ``Eval``).

All rules first apply the official ``process``: newlines/tabs to spaces, strip, the VQA punctuation rule with
at most 32 periods removed (:func:`niah.scoring.metrics.vqa.process_punctuation`), strip ``'`` then ``"`` at the ends,
strip, lowercase. Colons and apostrophes are kept; there is no number-word or article handling.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from niah.scoring.metrics.base import MetricInputError, require_response
from niah.scoring.metrics.rouge import rouge_l
from niah.scoring.metrics.vqa import process_punctuation

#: Regex characters the official ``preprocess_option_string`` escapes, in its order ("\\" first).
_REGEX_SPECIAL = ("\\", ".", "^", "$", "*", "+", "?", "{", "}", "[", "]", "|", "(", ")")
#: What the official matcher returns for an empty (processed) prediction.
EMPTY_PREDICTION_CHOICE = "C"


def process(text: str) -> str:
    """Official MileBench ``Eval.process``."""
    text = text.replace("\n", " ").replace("\t", " ").strip()
    text = process_punctuation(text)
    text = text.strip("'").strip('"')
    return text.strip().lower()


def _gold(answer: Any) -> str:
    if not isinstance(answer, str):
        raise MetricInputError("MileBench gold must be a string", field="answer")
    return answer


def _processed_gold(answer: Any) -> str:
    """The processed gold, refused when nothing is left: the official ROUGE-L path asserts on it, and the
    token and substring paths would score it 0 or 1 for any reply (an empty string is in every text), a
    figure that says nothing about the model."""
    gold = process(_gold(answer))
    if gold == "":
        raise MetricInputError("gold answer is empty after processing", field="answer")
    return gold


def score_needle(answer: Any, response: str | None) -> float:
    """Needle data sets (``*NeedleInAHaystack``): processed gold is one of the whitespace tokens of the
    processed prediction. A failed request scores 0 (the official script would crash)."""
    gold = _processed_gold(answer)
    response = require_response(response)
    if response is None:
        return 0.0
    return float(gold in process(response).split())


def score_substring(answer: Any, response: str | None) -> float:
    """``MMCoQA``: processed gold is a substring of the processed prediction (official ``needle=False`` path)."""
    gold = _processed_gold(answer)
    response = require_response(response)
    if response is None:
        return 0.0
    return float(gold in process(response))


def score_rouge_l(answer: Any, response: str | None) -> float:
    """Open-ended data sets: ROUGE-L F of rouge 1.0.1 between processed prediction and processed gold.

    An empty processed prediction scores 0 (official). A processed gold that is empty is a data error (the
    official code asserts). A prediction that is not empty but has no sentence for the package (only periods
    left after the 32-period limit) makes the package raise; we score it 0 instead.
    """
    gold = _processed_gold(answer)
    response = require_response(response)
    if response is None:
        return 0.0
    prediction = process(response)
    if prediction == "":
        return 0.0
    try:
        return rouge_l(prediction, gold).f
    except ValueError:
        return 0.0


def option_key(index: int) -> str:
    """Official ``Eval.char``: A..Z for 0-25, then ``A`` + A..Z (AA..AZ) for 26-51, then ``B`` + the letter from
    ``chr(index + 13)`` (BA, BB, ...) beyond; GPR1200 has more than 26 options."""
    if index < 26:
        return chr(index + 65)
    if index < 52:
        return "A" + chr(index + 65 - 26)
    return "B" + chr(index + 65 - 26 - 26)


def option_letters(count: int) -> list[str]:
    """The official option keys of ``count`` options (:func:`option_key`)."""
    return [option_key(i) for i in range(count)]


def _escape_option(text: str) -> str:
    processed = process(text)
    for char in _REGEX_SPECIAL:
        if char in processed:
            processed = processed.replace(char, "\\" + char)
    return processed


def match_choice(text: str, options: dict[str, str]) -> str:
    """Official ``match_choice``: which option key(s) a processed prediction names.

    In order: (1) the first place in ``text`` where any processed ``"<key> <option>"`` string occurs returns
    the upper-cased first character of the match; (2) an option text with spaces removed found in the
    prediction with spaces removed returns that option's key (quirk: the found text is compared with the
    *escaped* option text, so an option holding a regex character never matches here); (3) a 1- or 2-character
    prediction equal to a key (``"ab"`` names option AB); else (4) the concatenation of every prediction character whose upper case is a
    key, so "the answer is b" with options A-D yields "AB" and scores 0. An empty prediction yields "C".
    If building or running a pattern raises, the prediction itself is returned (official ``except``).
    """
    if text == "":
        return EMPTY_PREDICTION_CHOICE
    try:
        pattern = "|".join(_escape_option(f"{key} {value}") for key, value in options.items())
        found = re.search(rf"({pattern})", text, re.S)
        if found:
            return found.group(0)[0].upper()
        pattern = "|".join(_escape_option(value).replace(" ", "") for value in options.values())
        found = re.search(rf"({pattern})", text.replace(" ", ""), re.S)
        if found:
            for key, value in options.items():
                if found[0].strip() == _escape_option(value).replace(" ", ""):
                    return key.upper()
        if len(text) in (1, 2) and text.upper() in options:
            return text.upper()
    except Exception:  # the official code catches everything and returns the text
        return text
    return "".join(ch.upper() for ch in text if ch.upper() in options)


def score_multi_choice(answer: Any, response: str | None, choices: Any) -> float:
    """Official multiple-choice scoring: gold, prediction and options are processed, the gold's letter is
    the official key (A..Z, AA..) of the processed gold's first index among the processed options, and the sample is
    correct iff :func:`match_choice` returns exactly that letter. So an empty prediction is correct when the
    gold is option C. A failed request scores 0 (it is not an empty prediction)."""
    gold_text = _gold(answer)
    if not isinstance(choices, Sequence) or isinstance(choices, str) or not choices:
        raise MetricInputError("must be a non-empty list of option texts", field="choices")
    if not all(isinstance(c, str) for c in choices):
        raise MetricInputError("every option must be a string", field="choices")
    processed_choices = [process(c) for c in choices]
    gold = process(gold_text)
    if gold not in processed_choices:
        raise MetricInputError(f"gold {gold_text!r} is not one of the options (after processing)", field="answer")
    response = require_response(response)
    if response is None:
        return 0.0
    options = dict(zip(option_letters(len(processed_choices)), processed_choices, strict=True))
    gold_letter = option_key(processed_choices.index(gold))
    return float(match_choice(process(response), options) == gold_letter)
