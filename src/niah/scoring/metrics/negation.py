"""Whether a reply negates what it mentions: "not 3", "It is definitely NOT terracotta", "I don't think it's a
cat". niah's own rules (not the official ones, which keep their quirks) score such a mention as no answer.

The test is local and plain: a negation word among the few words before the mention, in the same clause (a
comma, a semicolon, a sentence end, "but" or "it's" after a dash close the clause), so "not 4, it's 3" and
"3, not 4" still name 3; or, right after the mention, a verdict against it ("(C) is wrong", "3 is not right",
"terracotta isn't it"): :func:`negated` asks both."""

from __future__ import annotations

import re

#: Words that negate what follows them within a clause.
_NEGATIONS = frozenset({"not", "no", "never", "neither", "nor", "none", "nothing", "without", "isn't", "wasn't",
                        "aren't", "weren't", "don't", "doesn't", "didn't", "can't", "cannot", "couldn't", "won't",
                        "wouldn't", "shouldn't", "hardly", "instead"})
#: Two-word cues ("rather than X", "other than X", "instead of X").
_PAIRS = frozenset({("rather", "than"), ("other", "than"), ("instead", "of")})
_CLAUSE_END = re.compile(r"[.;:!?,()\[\]\n]|\bbut\b|\bhowever\b|\bactually\b|\s[-\u2013\u2014]\s", re.I)
_WORD = re.compile(r"[\w']+")
#: How many words before a mention a negation may stand ("is definitely not", "don't think it's").
WINDOW = 4


#: A verdict against the mention just before it: a copula then a negation or "wrong" ("is wrong", "is definitely
#: not", "was incorrect"), or a negated copula ("isn't", "is not"). "3 and not 4" is no verdict on 3.
_REJECTED_AFTER = re.compile(r"[\s)\]*\"'\u2019]*(?:(?:is|was|are|were|seems|looks)\s+(?:\w+ly\s+)?"
                             r"(?:not|never|wrong|incorrect|false|mistaken)|(?:isn|wasn|aren|weren)['\u2019]t)\b",
                             re.I)


def negated(text: str, start: int, end: int) -> bool:
    """Whether the mention ``text[start:end]`` is negated before it ("not 3") or rejected right after it
    ("3 is wrong")."""
    return negated_at(text, start) or bool(_REJECTED_AFTER.match(text, end))


def negated_at(text: str, start: int) -> bool:
    """Whether the mention starting at ``start`` in ``text`` is negated (see the module docstring)."""
    before = text[:start]
    ends = list(_CLAUSE_END.finditer(before))
    clause = before[ends[-1].end():] if ends else before
    words = [w.lower().replace("\u2019", "'") for w in _WORD.findall(clause.replace("\u2019", "'"))][-WINDOW:]
    if any(w in _NEGATIONS or w.endswith("n't") for w in words):
        return True
    return any(pair in _PAIRS for pair in zip(words, words[1:], strict=False))
