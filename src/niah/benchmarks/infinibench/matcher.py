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
8. ``idk``: a reply saying it does not know and naming no option ("I'm not sure", "Unsure.", "cannot be
   determined") picks the "I don't know" option when there is one. Unsure of a named option ("Not sure, B",
   "I'm not sure, but I think it's B") is ``hedged`` instead: undecided, never "I don't know".
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
# A negation just after a mention: "B is wrong", "Leonard never appears", "option C isn't right" (matched on the
# lower-cased text with apostrophes dropped; "no, it doesn't" is not one: a comma stands between).
_NEGATION_AFTER = re.compile(r"^[\)\]]?\s*(?:(?:is|was|are|were|does|did|do|can|could|would|should)\s+)?"
                             r"(?:not|never|isnt|wasnt|arent|werent|doesnt|didnt|dont|cant|cannot|wont|"
                             r"wrong|incorrect|false|unlikely)\b")
# Hedges: a reply naming an option but saying it is unsure is left to the judge ("I would say B, but I'm not
# sure", "Probably C", "Maybe Penny?"). "I think" and "I believe" commit; they are not hedges.
# Saying one is unsure: with an option named a hedge, alone an abstention ("Not sure." is "I don't know").
_UNSURE = r"not\s+(?:\w+\s+)?(?:sure|certain)|unsure|uncertain|(?:can'?t|cannot)\s+be\s+(?:sure|certain)"
_HEDGE = re.compile(r"\b(?:probably|maybe|perhaps|possibly|likely|guess|guessing|(?:could|might|may)\s+be|"
                    rf"{_UNSURE}|(?:don'?t|do\s+not)\s+know\s+for\s+(?:sure|certain)|"
                    r"hard\s+to\s+(?:say|tell))\b", re.I)
_UNSURE_ALONE = re.compile(rf"\b(?:{_UNSURE})\b", re.I)
# "None of them", "neither ...": the reply rejects the options; with an option named it goes to the judge,
# alone it is the "I don't know" choice (the official judge prompt maps a reply choosing none to it).
_NONE_OF = re.compile(r"\b(?:none\s+of\s+(?:them|these|those|the\s+(?:above|options|choices|answers))|"
                      r"neither|no\s+(?:option|choice)\s+(?:is|fits|matches))\b", re.I)
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
    r"(?:(?:option|choice)\s*)?(?:[\(\[]([A-Za-z])[\)\]]|((?-i:[A-Z]))(?![A-Za-z])|[\(\[]?(\d{1,3})(?!\d)|"
    r"((?-i:[a-z]))(?=\s*[.)\]]?\s*$))", re.I)
_MARK_PAREN = re.compile(r"[\(\[]([A-Za-z])[\)\]]")
_MARK_OPTION_LETTER = re.compile(r"\b(?:option|choice)\b\s*[\(\[]?([A-Za-z])(?![A-Za-z])", re.I)
# "answer is B", "Answer: E, ..."; a lower-case letter only when nothing follows it ("the answer is a visit"
# names no option).
_MARK_ANSWER_LETTER = re.compile(r"\b(?i:answer|guess|choice)\s*(?:(?i:is)|:)\s*[\(\[]?"
                                 r"(?:([A-Z])(?![A-Za-z])|([a-z])(?=\s*[\)\].]?\s*$))")
# A capital letter after a verb of choosing: "I would say B", "I'd go with C", "I pick D".
_MARK_CHOSEN_LETTER = re.compile(r"\b(?i:say|pick|choose|select|go\s+with|opt\s+for|guess)\s+[\(\[]?([A-Z])(?![A-Za-z'])")
# A capital letter after a hedge or a conjunction: "Probably C", "Likely A", "B, maybe C", "Both B and D".
_MARK_HEDGED_LETTER = re.compile(r"(?:^|\b(?i:probably|maybe|perhaps|possibly|likely|both|and|or))\s*,?\s*"
                                 r"[\(\[]?([A-Z])(?![A-Za-z'])(?!\s+(?!and\b|or\b)[a-z])")
# A capital letter standing as a word; "A" and "I" only when no lower-case word follows (the article, the pronoun:
# "A woman knocks", "but I think").
_CAPITAL = r"[\(\[]?(?:([B-HJ-Z])|([AI])(?!\s+[a-z]))(?![A-Za-z'])"
# A lower-case letter ending the reply ("not sure, but it's b"); not "i", which is the pronoun far more often.
_LOWER_LAST = r"[\(\[]?([a-hj-z])(?=\s*[\)\]]?\s*[.?!]?\s*$)"
# A letter after a statement of the answer: "I think it's B", "it is C", "it could be D", "Not sure but B".
_MARK_STATED_LETTER = re.compile(r"\b(?i:it'?s|it\s+(?:is|was|(?:would|must|should|might|could|may)\s+be)|"
                                 rf"think|believe|but)\s+(?:{_CAPITAL}|{_LOWER_LAST})")
# A letter right after saying one is unsure: "Not sure, B", "Unsure: C", "I'm not certain - maybe d" (without
# these, a hedged reply naming an option read as "I don't know").
_MARK_UNSURE_LETTER = re.compile(rf"\b(?i:{_UNSURE})\s*[,:;.\-\u2013\u2014]?\s*"
                                 r"(?:(?i:but|maybe|probably|perhaps|possibly)\s*,?\s*)?"
                                 rf"(?:{_CAPITAL}|{_LOWER_LAST})")
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
    return any(p in low for p in _IDK_PHRASES) or bool(_UNSURE_ALONE.search(low))


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

    finals = {(_LETTERS.index((a or b or c).upper()) if (a or b or c) else int(d) - index_base)
              for a, b, d, c in _FINAL.findall(text)}
    if len(finals) > 1:
        return None, "ambiguous"
    hedged = bool(_HEDGE.search(text))
    if len(finals) == 1:
        k = finals.pop()
        if not 0 <= k < n:
            return None, "out-of-range"
        return (None, "hedged") if hedged else (k, "final-answer")

    named: set[int] = set()
    out_of_range = False
    negated = False

    low = text.casefold().replace("'", "")

    def name(k: int, start: int, end: int) -> None:
        nonlocal out_of_range, negated
        if not 0 <= k < n:
            out_of_range = True
            return
        if _NEGATION.search(text[max(0, start - 40):start].casefold()) or _NEGATION_AFTER.match(low[end:end + 30]):
            negated = True
        named.add(k)

    if _LETTER_LIST.match(text):
        for m in re.finditer(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])", text):
            name(_LETTERS.index(m.group(1)), m.start(), m.end())
    for pattern in (_MARK_PAREN, _MARK_OPTION_LETTER, _MARK_ANSWER_LETTER, _MARK_OPENING_LETTER,
                    _MARK_CHOSEN_LETTER, _MARK_HEDGED_LETTER, _MARK_STATED_LETTER, _MARK_UNSURE_LETTER):
        for m in pattern.finditer(text):
            letter = next(g for g in m.groups() if g)
            name(_LETTERS.index(letter.upper()), m.start(), m.end())
    for m in _MARK_NUMBER.finditer(text):
        name(int(m.group(1)) - index_base, m.start(), m.end())
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
        yes_no = normalize(options[i]) in ("yes", "no")  # "No, not before": the comma is gone in norm
        if _NEGATION.search(norm[max(0, s - 40):s]) or (not yes_no and _NEGATION_AFTER.match(norm[e:e + 30])):
            negated = True
        named.add(i)

    none_of = bool(_NONE_OF.search(text))
    if named and none_of:
        return None, "none-of-them"
    idk = idk_index(options)
    if hedged and len(named - {idk}) == 1:  # "Probably C, though I don't know for sure"
        return None, "hedged"
    if len(named) > 1:
        return None, "ambiguous"
    if negated:
        return None, "negated"
    if len(named) == 1:
        return named.pop(), "mention"
    if out_of_range:
        return None, "out-of-range"
    if _says_idk(text) or none_of:
        return (idk, "idk") if idk is not None else (None, "idk-without-option")
    return None, "no-match"
