"""Rule-based multiple-choice matching: map a free-text reply to one option, or leave it undecided.

InfiniBench v1 asks a judge model to map every prediction to an option (or to "I don't know"). Most replies
need no judge: a letter, "(b)", "Option 2", the option's own text. :func:`match_option` decides those and
returns ``None`` whenever a reply names more than one option, negates the one it names, or names none, so a
judge (or, under v2, a wrong answer) handles only what rules cannot decide. It never guesses.

Rules, tried in this order (the first that applies decides or refuses):
1. ``empty``: a blank reply is undecided.
2. ``exact``: the reply is exactly one option's text (after trimming quotes, markdown and a final period).
3. ``normalized``: equal to one option's text ignoring case, punctuation and spacing.
4. ``letter``: the reply is a lone letter: ``B``, ``(b)``, ``B.``, ``b)``, ``Option B``, ``Answer: B``.
5. ``index``: the reply is a lone number: ``2``, ``(2)``, ``Option 2`` (a position counted from
   ``index_base``: 1 when the prompt shows letters, 0 for the official ``option 0 : ...`` listing).
6. ``final-answer``: a reply with one explicit final choice ("my final answer is option 2", "Final answer: C")
   is decided by it, whatever it mentioned before.
7. ``mention``: otherwise every option the reply names is collected: letter markers (``(B)``, ``B)``,
   ``B.`` or ``B:`` opening the reply, ``option B``, ``answer is B``), number markers (``option 2``), and
   option texts occurring as whole words. Exactly one named option decides; several are ``ambiguous``; a
   named option preceded by a negation ("not (B)") makes it ``negated``; markers outside the option range are
   ``out-of-range``.
8. ``idk``: a reply saying it does not know ("I'm not sure", "cannot be determined") picks the "I don't know"
   option when there is one.
9. ``no-match``: nothing named; undecided.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

IDK_TEXT = "I don't know"

_LETTERS = string.ascii_uppercase
_QUOTES = "\"'`*_ \t\r\n"
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_PUNCT = re.compile(r"[^\w\s]+", re.UNICODE)
# A negation just before a mention (at most two words between): "not (B)", "isn't option B", "except C".
_NEGATION = re.compile(r"\b(?:not|never|nor|except|wrong|rather than|instead of|"
                       r"(?:is|are|was|were|do|does|did|ca|could|would|should|has|have|wo)n'?t)\W+(?:\w+\W+){0,2}$")
_IDK_PHRASES = (
    "i don't know", "i do not know", "i dont know", "don't know", "not sure", "i'm not sure", "i am not sure",
    "unsure", "cannot be determined", "can't be determined", "cannot determine", "can't determine",
    "unable to determine", "not enough information", "no information", "unknown", "none of the above",
    "none of the options", "cannot answer", "can't answer", "unable to answer",
)

_LONE_LETTER = re.compile(
    r"^(?:(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)(?:\s+is)?\s*[:\-]?\s*)?"
    r"[\(\[]?([A-Za-z])[\)\]]?[.:)]?$", re.I)
_LONE_NUMBER = re.compile(
    r"^(?:(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)(?:\s+(?:is|number|no\.?))?\s*[:\-#]?\s*)?"
    r"[\(\[]?(\d{1,3})[\)\]]?[.:)]?$", re.I)
_FINAL = re.compile(
    r"final\s+(?:answer|choice|decision)\s*(?:is|will\s+be|would\s+be|:|-)?\s*:?\s*"
    r"(?:(?:option|choice)\s*)?(?:[\(\[]([A-Za-z])[\)\]]|((?-i:[A-Z]))(?![A-Za-z])|[\(\[]?(\d{1,3})(?!\d))", re.I)
_MARK_PAREN = re.compile(r"[\(\[]([A-Za-z])[\)\]]")
_MARK_OPTION_LETTER = re.compile(r"\b(?:option|choice)\s*[\(\[]?([A-Za-z])(?![A-Za-z])", re.I)
_MARK_ANSWER_LETTER = re.compile(r"\banswer\s*(?:is|:)\s*[\(\[]?([A-Z])(?![A-Za-z])")
_MARK_OPENING_LETTER = re.compile(r"^[\(\[]?([A-Za-z])\s*[.:)\]]\s+")
# A reply that is only letters and connectors: "A or B", "B/C", "(A), (D)".
_LETTER_LIST = re.compile(r"^(?:[\(\[]?[A-Z][\)\]]?\s*(?:,|/|\bor\b|\band\b|&)\s*)+[\(\[]?[A-Z][\)\]]?$")
_MARK_NUMBER = re.compile(r"\b(?:option|choice)\s*(?:number|no\.?|#)?\s*[\(\[]?(\d{1,3})(?!\d)", re.I)


def normalize(text: str) -> str:
    """Lower case, curly apostrophes straightened, punctuation to spaces, whitespace collapsed."""
    text = text.translate(_APOSTROPHES).casefold().replace("'", "")
    return " ".join(_PUNCT.sub(" ", text).split())


def _clean(response: str) -> str:
    text = response.translate(_APOSTROPHES).strip().strip(_QUOTES).strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def idk_index(options: Sequence[str]) -> int | None:
    """The position of the "I don't know" option, if any."""
    for i, opt in enumerate(options):
        if normalize(opt) == normalize(IDK_TEXT):
            return i
    return None


def _says_idk(text: str) -> bool:
    low = text.translate(_APOSTROPHES).casefold()
    return any(p in low for p in _IDK_PHRASES)


def match_option(options: Sequence[str], response: str | None, *, index_base: int = 1) -> tuple[int | None, str]:
    """(0-based option index, rule) or (None, reason) when the reply does not name exactly one option."""
    if not options:
        return None, "no-options"
    if response is None or not response.strip():
        return None, "empty"
    n = len(options)
    text = _clean(response)
    if not text:
        return None, "empty"

    exact = [i for i, opt in enumerate(options) if _clean(opt) == text]
    if len(exact) == 1:
        return exact[0], "exact"
    norm = normalize(text)
    normalized = [i for i, opt in enumerate(options) if normalize(opt) == norm and norm]
    if len(normalized) == 1:
        return normalized[0], "normalized"
    if len(exact) > 1 or len(normalized) > 1:
        return None, "ambiguous"  # duplicate option texts

    m = _LONE_LETTER.match(text)
    if m:
        k = _LETTERS.index(m.group(1).upper())
        return (k, "letter") if k < n else (None, "out-of-range")
    m = _LONE_NUMBER.match(text)
    if m:
        k = int(m.group(1)) - index_base
        return (k, "index") if 0 <= k < n else (None, "out-of-range")

    finals = {(_LETTERS.index((a or b).upper()) if (a or b) else int(d) - index_base)
              for a, b, d in _FINAL.findall(text)}
    if len(finals) == 1:
        k = finals.pop()
        return (k, "final-answer") if 0 <= k < n else (None, "out-of-range")
    if len(finals) > 1:
        return None, "ambiguous"

    named: set[int] = set()
    out_of_range = False
    negated = False

    def name(k: int, start: int) -> None:
        nonlocal out_of_range, negated
        if not 0 <= k < n:
            out_of_range = True
            return
        if _NEGATION.search(text[max(0, start - 40):start].casefold()):
            negated = True
        named.add(k)

    if _LETTER_LIST.match(text):
        for m in re.finditer(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])", text):
            name(_LETTERS.index(m.group(1)), m.start())
    for pattern in (_MARK_PAREN, _MARK_OPTION_LETTER, _MARK_ANSWER_LETTER, _MARK_OPENING_LETTER):
        for m in pattern.finditer(text):
            name(_LETTERS.index(m.group(1).upper()), m.start())
    for m in _MARK_NUMBER.finditer(text):
        name(int(m.group(1)) - index_base, m.start())
    # Option texts as whole words of the normalized reply (a shorter option inside a longer named one is the
    # longer one's words, not a second mention).
    spans: list[tuple[int, int, int]] = []
    for i, opt in enumerate(options):
        o = normalize(opt)
        if not o:
            continue
        for m in re.finditer(rf"(?<!\w){re.escape(o)}(?!\w)", norm):
            spans.append((m.start(), m.end(), i))
    for s, e, i in spans:
        if any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, j in spans if j != i):
            continue
        if i == idk_index(options) and len({j for _, _, j in spans}) > 1:
            named.add(i)  # "I don't know, but maybe B": a hedge plus an option is ambiguous
            continue
        if _NEGATION.search(norm[max(0, s - 40):s]):
            negated = True
        named.add(i)

    if len(named) > 1:
        return None, "ambiguous"
    if negated:
        return None, "negated"
    if len(named) == 1:
        return named.pop(), "mention"
    if out_of_range:
        return None, "out-of-range"
    if _says_idk(text):
        idk = idk_index(options)
        return (idk, "idk") if idk is not None else (None, "idk-without-option")
    return None, "no-match"
