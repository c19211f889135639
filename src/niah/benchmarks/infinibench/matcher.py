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
6. ``alternatives``: a reply offering two or more options as alternatives is ``ambiguous``, whatever else it
   says ("either A or B", "it could be B or D", "A/C", "option 2 or 4", "Leonard or Penny", "between B and C",
   "one of B, C or D", "It's A or it's C", "2 or 3 hours" and "2-3 hours" beside the options "2 hours" and "3
   hours", "B, although D is possible"),
   unless the alternatives are negated ("not A or B") or come before an explicit final choice (a final answer,
   or ``committed``: one option stated after the last "the answer is" / "I'll go with"). Option texts are
   read first, whole, so an option that itself reads "rain or snow" is one option, not two (see
   :func:`offers_alternatives`).
7. ``final-answer``: a reply with one explicit final choice ("my final answer is option 2", "Final answer: C")
   is decided by it, whatever it mentioned before.
8. ``mention``: otherwise every option the reply names is collected: letter markers (``(B)``, ``B)``,
   ``B.`` or ``B:`` opening the reply, ``option B``, ``answer is B``, ``B is correct``), number markers
   (``option 2``), and option texts occurring as whole words. Exactly one named option decides, unless it is
   joined to another option no marker reads ("D and E are both wrong; B"); several are ``ambiguous``,
   unless every one but one is rejected as the answer and that one is not negated (``contrast``: "Penny, not
   Sheldon", "A. (Not B or C.)", "Sheldon is wrong, Penny is right", "A and C are wrong, B is right", "C, or
   rather D"); a named option preceded by a negation
   ("not (B)") makes it ``negated``; markers outside the option range are ``out-of-range``.
9. ``idk``: a reply saying it does not know and naming no option ("I'm not sure", "Unsure.", "cannot be
   determined") picks the "I don't know" option when there is one. Unsure of a named option ("Not sure, B",
   "I'm not sure, but I think it's B") is ``hedged`` instead: undecided, never "I don't know".
10. ``no-match``: nothing named; undecided.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence

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
# A mention rejected as the answer, beside another that is not ("Penny, not Sheldon", "A. (Not B or C.)", "D rather
# than C", "It isn't Sheldon, it's Penny", "Option B is wrong; it is A"): right after "not", "rather than", "instead of"
# (only other options or "option" between), or followed by "is wrong" / "is incorrect". Matched on normalized text.
_REJECT_AFTER = re.compile(r"^(?:is|was|are|were|would be|seems)\s+(?:wrong|incorrect|false|not (?:right|correct|it))\b|"
                           # "Howard, or rather Raj": corrected to the option after it
                           r"^(?:isnt|arent)\s+(?:right|correct|it)\b|^or rather\b|"
                           # "A and C are wrong", "A, B and D are incorrect" (read at A)
                           r"^(?:(?:and\s+)?[a-z]\s+)+(?:are|were)\s+(?:wrong|incorrect|false|not (?:right|correct))\b")
# Hedges: a reply naming an option but saying it is unsure is left to the judge ("I would say B, but I'm not
# sure", "Probably C", "Maybe Penny?"). "I think" and "I believe" commit; they are not hedges.
# Saying one is unsure: with an option named a hedge, alone an abstention ("Not sure." is "I don't know").
_UNSURE = r"not\s+(?:\w+\s+)?(?:sure|certain)|unsure|uncertain|(?:can'?t|cannot)\s+be\s+(?:sure|certain)"
_HEDGE = re.compile(r"\b(?:probably|maybe|perhaps|possibly|likely|presumably|guess|guessing|i\s+suppose|(?:could|might|may)\s+be|"
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
_MARK_OPTION_LETTER = re.compile(r"\b(?:options?|choices?)\b\s*[\(\[]?([A-Za-z])(?![A-Za-z])", re.I)
# "answer is B", "Answer: E, ..."; a lower-case letter only when nothing follows it ("the answer is a visit"
# names no option).
_MARK_ANSWER_LETTER = re.compile(r"\b(?i:answer|guess|choice)\s*(?:(?i:is)|:)\s*[\(\[]?"
                                 r"(?:([A-Z])(?![A-Za-z])|([a-z])(?=\s*[\)\].]?\s*$))")
# A capital letter after a verb of choosing: "I would say B", "I'd go with C", "I pick D".
_MARK_CHOSEN_LETTER = re.compile(r"\b(?i:say|pick|choose|select|go\s+with|opt\s+for|guess)\s+[\(\[]?([A-Z])(?![A-Za-z'])")
# A capital letter after a hedge or a conjunction: "Probably C", "Likely A", "B, maybe C", "Both B and D".
_MARK_HEDGED_LETTER = re.compile(r"(?:^|\b(?i:probably|maybe|perhaps|possibly|likely|presumably|both|and|or(?:\s+rather)?))"
                                 r"\s*,?\s*"
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
# A capital letter the reply rejects: "Not A, it's B", "It's not A but B", "The answer is not A; it is B" (a
# mention, so the rejection lead decides it and the option after it is judged on its own words).
_MARK_REJECTED_LETTER = re.compile(r"\b(?i:not|isn'?t|wasn'?t)\s+(?:(?i:option|choice)\s+)?[\(\[]?([A-Z])[\)\]]?"
                                   r"(?=\s*(?:[,;.:!?\-\u2013\u2014]|$|\s(?i:but|it|the|or|nor)\b))")
# A capital letter given a verdict: "B is correct", "C is the answer", "B seems right", "A is wrong" (named with its
# end at the letter, so the verdict after it is read as what it says of that option).
_VERDICT = (r"(?:the\s+)?(?:(?:correct|right|best|true)(?:\s+(?:answer|option|choice))?|answer)|"
            r"wrong|incorrect|false|not\s+(?:right|correct)")
_MARK_VERDICT_LETTER = re.compile(r"(?<![\w'])[\(\[]?([A-Z])[\)\]]?(?=\s+(?i:is|seems|looks|must\s+be|would\s+be)\s+"
                                  rf"(?i:{_VERDICT})\b)")
# Letters rejected together: "A and C are wrong", "B, C and D are incorrect" (each named with its end at the list's
# end, so "are wrong" is read after every one of them).
_MARK_REJECTED_LIST = re.compile(r"(?<![\w'])((?:[\(\[]?[A-Z][\)\]]?\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*))+"
                                 r"[\(\[]?[A-Z][\)\]]?)(?=\s+(?i:are|were)\s+(?i:wrong|incorrect|false|not\s+(?:right|correct))\b)")
_MARK_OPENING_LETTER = re.compile(r"^[\(\[]?([A-Za-z])\s*[.:)\]]\s+")
# A reply that is only letters and connectors: "A or B", "B/C", "(A), (D)".
_LETTER_LIST = re.compile(r"^(?:[\(\[]?[A-Z][\)\]]?\s*(?:,|/|\bor\b|\band\b|&|\+|\?)\s*)+[\(\[]?[A-Z][\)\]]?\??$")
_MARK_NUMBER = re.compile(r"\b(?:options?|choices?)\s*(?:number|no\.?|#)?\s*[\(\[]?(\d{1,3})(?!\d)", re.I)


# --- alternatives: a reply offering several options ("either A or B", "B/C", "Leonard or Penny") -------------
# The reply is read as a skeleton: apostrophes dropped and every option text (longest first, whole words, any
# case and punctuation between its words) replaced by one private-use character standing for that option, so an
# option reading "rain or snow" is one reference and its "or" is no connector.
_PLACEHOLDER = 0xE000
_PH_CLASS = "[\ue000-\ue0ff]"
_BETWEEN_WORDS = "[^\\w\ue000-\ue0ff]+"
_TOKEN = re.compile(
    rf"(?P<text>{_PH_CLASS})"
    r"|(?P<optn>\b(?i:options?|choices?)\s*(?:(?i:number|no\.?)\s*|#\s*)?[\(\[]?(?P<optn_v>\d{1,3})[\)\]]?(?!\d))"
    r"|(?P<optl>\b(?i:options?|choices?)\s*[\(\[]?(?P<optl_v>[A-Za-z])[\)\]]?(?![-\w']))"
    r"|(?P<parn>[\(\[](?P<parn_v>\d{1,3})[\)\]])"
    r"|(?P<parl>[\(\[](?P<parl_v>[A-Za-z])[\)\]])"
    r"|(?P<andor>\b(?i:and\s*/\s*or)\b)"
    r"|(?P<or>(?:[,.]|(?<=[\w\)\]\ue000-\ue0ff])-)?\s*\(?\s*\b(?i:or)\b"
    r"(?:\s+(?i:maybe|perhaps|possibly|probably|else|even|also)\b)?"
    # "It's A or it's C", "A or it could be C" (apostrophes are dropped in the skeleton)
    r"(?:\s+(?i:its|it\s+(?:is|was)|(?:it\s+)?(?:could|might|may|must|would)\s+(?:also\s+)?be)\b)?"
    r"(?:-(?=[\w\(\[\ue000-\ue0ff]))?"
    # "B, otherwise D", "B; if not, D", "B. Alternatively, D": a fallback offered beside the first choice
    r"|[,;.]?\s*\(?\s*\b(?i:otherwise|if\s+not|failing\s+that|alternatively)\b,?)"
    # a range of numbers: "2-3 hours", "2 to 3 hours" beside the options "2 hours" and "3 hours"
    r"|(?P<range>(?<=\d)(?:\s*[-\u2013\u2014]\s*|\s+(?i:to)\s+)(?=[\d\ue000-\ue0ff]))"
    r"|(?P<vs>\b(?i:vs\b\.?|versus\b))"
    r"|(?P<and>\b(?i:and)\b)"
    r"|(?P<slash>[/|\\])"
    r"|(?P<comma>,)"
    # a capital standing alone; "A" and "I" only when no ordinary lower-case word follows (the article, the pronoun)
    # (a hyphen beside it only in "B-or-D": "T-shirt" and "X-ray" name no option)
    r"|(?P<cap>(?:(?<![-\w'])|(?<=\b[oO][rR]-))"
    r"(?:[B-HJ-Z]|[AI](?!\s+(?!(?:or|and|nor|vs|versus|is|are|seems|would|could|might|may)\b)"
    r"[a-z]))(?:(?![-\w'])|(?=-[oO][rR]\b)))"
    r"|(?P<low>(?<![-\w'])[a-hj-z](?![-\w'])(?!\s+(?!(?:or|and|vs|versus)\b)[a-z]))"
    r"|(?P<num>(?<![\w.,])\d{1,3}(?![\w]|[.,]\d))"
    r"|(?P<word>\w+)"
    r"|(?P<other>\S)")
_OR_LIKE = frozenset({"or", "slash", "andor", "vs", "range"})
# What may join the options of a chain: "B or C", "B, C", "B and C" (whether it offers them as alternatives is
# decided by the connectors and what surrounds the chain).
_JOINS = _OR_LIKE | {"and", "comma"}
# What may stand before a chain of bare lower-case letters or bare numbers ("b or c", "it could be 2 or 4",
# "Answer: 1/3") and after it, for such a chain to be read as options ("2 or 3 times" is not).
_BARE_LEAD = re.compile(r"(?:^|[.:;!?]\s*|\b(?:either|answer|answer\s+is|options?|choices?|its|it\s+is|"
                        r"(?:could|might|may|must|would|should)\s+be|think|guess|believe|say|pick|choose|"
                        r"maybe|probably|perhaps|possibly|between|one\s+of)\s*[:\-]?\s*)$", re.I)
_BARE_TAIL = re.compile(r"^\s*(?:$|[?.!,;)]|(?:is|are|seems?|maybe|perhaps|probably|possibly|both|either|hard|"
                        r"not|i)\b)", re.I)
_AND_LEAD = re.compile(r"\b(?:between|one\s+of)\s*(?:the\s+)?(?:options?\s+|choices?\s+)?$", re.I)
_FINAL_WORD = re.compile(r"\bfinal\s+(?:answer|choice|decision)\b", re.I)
# A choice stated after weighing alternatives ("A or C? The answer is C.", "B or D. I'll go with D.")
_COMMITMENT = re.compile(
    r"\b(?:(?:the|my)\s+(?:(?:correct|right|best|actual)\s+)?answer\s+(?:is|would\s+be|will\s+be|must\s+be)"
    r"|i(?:'ll|\s+will|'d|\s+would)?\s+(?:go\s+with|choose|pick|select|opt\s+for))\b\s*:?", re.I)
_CLAUSE_END = re.compile(r"[.;!?\n]\s|[.;!?\n]$|,\s|\s(?:because|since|as|given)\s", re.I)
_NEITHER = re.compile(r"\b(?:neither|nor|both)\W*$", re.I)
# "B, although D is possible", "A; C could also be right", "A; C also works": a second option offered beside
# the first.
_ALSO_AFTER = re.compile(r"^[\)\]]?\s*(?:(?:is|are|seems?|looks?|would\s+be|could\s+be|might\s+be|may\s+be)\s+)?"
                         r"(?:also|equally|both)?\s*(?:possible|plausible|an\s+option|a\s+possibility)\b|"
                         r"^[\)\]]?\s*(?:could|might|may)\s+(?:also|both)\s+be\s+(?:it|right|correct|the\s+answer)\b|"
                         # "A; C also works", "C fits too", "C works as well", "A and C both fit"
                         r"^[\)\]]?\s*(?:(?:also|too|both)\s+(?:works?|fits?)|(?:works?|fits?)\s+(?:too|as\s+well))\b", re.I)
_ALSO_BEFORE = re.compile(r"\b(?:could|might|may)\s+also\s+be\s*$|\b(?:also|equally)\s+(?:possible|plausible)"
                          r"\s*(?:is|:)?\s*$", re.I)


def _skeleton(options: Sequence[str], text: str) -> str:
    sk = text.translate(_APOSTROPHES).replace("'", "")
    order = sorted(range(len(options)), key=lambda i: -len(normalize(options[i])))
    for i in order:
        words = normalize(options[i]).split()
        if words and i < 256:
            pattern = r"(?<!\w)" + _BETWEEN_WORDS.join(map(re.escape, words)) + r"(?!\w)"
            sk = re.sub(pattern, chr(_PLACEHOLDER + i), sk, flags=re.I)
    return sk


def _tokens(options: Sequence[str], sk: str, index_base: int) -> list[tuple[str, object, bool, int, int]]:
    """(kind, key, strong, start, end): kind ``ref`` (key the option index, or a marker outside the options),
    a connector kind (``or``, ``slash``, ...), ``word`` or ``other``."""
    n = len(options)
    out: list[tuple[str, object, bool, int, int]] = []
    for m in _TOKEN.finditer(sk):
        kind = m.lastgroup or "other"
        kind = kind.removesuffix("_v")
        start, end = m.start(), m.end()
        if kind == "text":
            out.append(("ref", ord(m.group("text")) - _PLACEHOLDER, True, start, end))
        elif kind in ("optn", "parn", "num"):
            k = int(m.group(f"{kind}_v") if kind != "num" else m.group("num")) - index_base
            out.append(("ref", k if 0 <= k < n else ("number", k), kind != "num", start, end))
        elif kind in ("optl", "parl", "cap", "low"):
            letter = (m.group(f"{kind}_v") if kind in ("optl", "parl") else m.group(kind)).upper()
            k = _LETTERS.index(letter)
            if letter == "I" and k >= n:
                out.append(("word", m.group(0), False, start, end))  # the pronoun
                continue
            out.append(("ref", k if k < n else ("letter", k), kind != "low", start, end))
        else:
            out.append((kind, m.group(0), False, start, end))
    return out


def _singular(text: str) -> str:
    """Words with a plural "s" dropped, so "1 or 2 hours" stands for "1 hour" beside "2 hours"."""
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in text.split())


def _elided(options: Sequence[str], word: str, other: int) -> int | None:
    """The option a lone word stands for beside another option's text: "2 or 3 hours" beside the options "2
    hours" and "3 hours" (the word takes the place of the other option's first or last word)."""
    words = normalize(options[other]).split()
    w = normalize(word)
    if not w or len(words) < 2:
        return None
    for candidate in ([w, *words[1:]], [*words[:-1], w]):
        text = _singular(" ".join(candidate))
        found = [i for i, opt in enumerate(options) if i != other and _singular(normalize(opt)) == text]
        if len(found) == 1:
            return found[0]
    return None


def offers_alternatives(options: Sequence[str], text: str, *, index_base: int = 1) -> bool:
    """Whether the reply offers two or more options as alternatives (and so names no single answer): options
    joined by "or", "/", "|", "vs" or "and/or" ("either A or B", "B, C or D", "option 2 or 4", "Leonard or
    Penny"), by "and" after "between" or "one of", or a second option said to be possible too ("B, although D
    is possible"). Not when the alternatives are negated ("not A or B", "neither A or B") or all come before an
    explicit final choice ("A or B? My final answer is B")."""
    sk = _skeleton(options, text)
    toks = _tokens(options, sk, index_base)
    # a lone word or number beside an option's text can stand for another option ("2 or 3 hours")
    for i, (kind, _key, strong, s, e) in enumerate(toks):
        if kind not in ("word", "ref") or strong:
            continue
        for conn, j in ((i + 1, i + 2), (i - 1, i - 2)):
            if not (0 <= j < len(toks) and toks[conn][0] in _OR_LIKE and toks[j][0] == "ref"):
                continue
            other = toks[j][1]
            if isinstance(other, int) and sk[toks[j][3]:toks[j][4]] == chr(_PLACEHOLDER + other):
                found = _elided(options, sk[s:e], other)
                if found is not None:
                    toks[i] = ("ref", found, True, s, e)
                    break
    finals = [m.start() for m in _FINAL_WORD.finditer(sk)]
    last_final = finals[-1] if finals else -1

    def negated(start: int) -> bool:
        before = sk[max(0, start - 40):start]
        return bool(_NEGATION.search(before.casefold()) or _NEITHER.search(before))

    i = 0
    while i < len(toks):
        if toks[i][0] != "ref":
            i += 1
            continue
        chain, j = [toks[i]], i + 1
        conns: list[str] = []
        while j + 1 < len(toks) and toks[j][0] in _JOINS and toks[j + 1][0] == "ref":
            conns.append(toks[j][0])
            chain.append(toks[j + 1])
            j += 2
        if len(chain) > 1 and _is_alternatives(sk, chain, conns, last_final, negated):
            return True
        i = j
    # "B, although D is possible": two options named, one of them offered as possible too
    named = [t for t in toks if t[0] == "ref" and t[2] and isinstance(t[1], int)]
    if len({t[1] for t in named}) > 1:
        for _kind, _key, _strong, s, e in named:
            if (_ALSO_AFTER.match(sk[e:e + 40]) or _ALSO_BEFORE.search(sk[max(0, s - 30):s])) and not negated(s):
                return True
    return False


def _is_alternatives(sk: str, chain: list[tuple[str, object, bool, int, int]], conns: list[str],
                     last_final: int, negated: Callable[[int], bool]) -> bool:
    start, end = chain[0][3], chain[-1][4]
    if len({t[1] for t in chain}) < 2 or negated(start) or end <= last_final:
        return False
    if not _OR_LIKE.intersection(conns) and not _AND_LEAD.search(sk[:start]):
        return False  # "Both B and D", "A, B": several options named, not offered as alternatives
    strong_kinds = {_ref_kind(sk, t) for t in chain if t[2]}
    if all(t[2] or _ref_kind(sk, t) in strong_kinds for t in chain) and (chain[-1][2] or _BARE_TAIL.match(sk[end:])):
        return True  # "option 2 or 4", "B or c" (but not "option 3, 2 or 3 times")
    # bare lower-case letters or numbers only count as options standing alone ("b or c", "it's 2 or 4")
    return bool(_BARE_LEAD.search(sk[:start]) and _BARE_TAIL.match(sk[end:]))


def _ref_kind(sk: str, tok: tuple[str, object, bool, int, int]) -> str:
    piece = sk[tok[3]:tok[4]]
    if re.search(_PH_CLASS, piece):
        return "text"
    return "number" if re.search(r"\d", piece) else "letter"


def normalize(text: str) -> str:
    """Lower case, curly apostrophes straightened, punctuation to spaces, whitespace collapsed."""
    text = text.translate(_APOSTROPHES).casefold().replace("'", "")
    return " ".join(_PUNCT.sub(" ", text).split())


def _rejection_lead(options: Sequence[str]) -> re.Pattern[str]:
    """What rejects the mention right after it, in normalized text (see _REJECT_AFTER): "not", "rather than",
    "instead of", "isn't" or "wasn't", then only other options joined by "or" ("not b or")."""
    items = "|".join([re.escape(o) for o in sorted({normalize(x) for x in options}, key=len, reverse=True) if o]
                     + [r"[a-z]", r"\d{1,3}"])
    return re.compile(r"(?:^|\s)(?:not|rather than|instead of|isnt|wasnt)(?:\s+(?:the\s+)?(?:option|choice))?"
                      rf"(?:\s+(?:{items})\s+(?:or|and|nor))*$")


def _committed_after_alternatives(options: Sequence[str], text: str, index_base: int) -> tuple[int | None, str]:
    """A hedging reply that then states one choice ("Either A or C would fit, but the answer is C") is decided
    by what follows its last commitment, when every alternative it offered comes before that commitment and the
    rest names exactly one option; any other hedging reply stays undecided."""
    commitments = list(_COMMITMENT.finditer(text))
    if not commitments:
        return None, "ambiguous"
    last = commitments[-1]
    head, tail = text[:last.start()], text[last.end():]
    if not offers_alternatives(options, head, index_base=index_base):
        return None, "ambiguous"  # the alternatives are offered after it ("The answer is A or C")
    if offers_alternatives(options, tail, index_base=index_base):
        return None, "ambiguous"  # "The answer is A, or maybe C"
    # the choice is the clause right after the commitment, not a reason given for it ("C because Leonard left")
    k, _rule = match_option(options, _CLAUSE_END.split(tail, maxsplit=1)[0], index_base=index_base)
    return (k, "committed") if k is not None else (None, "ambiguous")


def _names_another(options: Sequence[str], text: str, index_base: int, named: set[int]) -> bool:
    """Whether the reply joins a named option to another option the mention rules did not collect ("Both A and C
    are possible", "A and C could both be right": the C before a verb is no marker), so that such a reply stays
    undecided instead of decided as the one collected. Only a pair joined by "and", "&", a comma or an "or"-like
    connector counts: a stray letter elsewhere ("in scene B", "Plan B") names no option."""
    toks = _tokens(options, _skeleton(options, text), index_base)
    for left, conn, right in zip(toks, toks[1:], toks[2:], strict=False):
        if conn[0] not in _JOINS or left[0] != "ref" or right[0] != "ref" or not (left[2] and right[2]):
            continue  # only strong references: capital letters, option markers, option texts
        keys = {left[1], right[1]}
        if all(isinstance(k, int) for k in keys) and len(keys) == 2 and keys & named and keys - named:
            return True
    return False


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


_LEAD_ONLY = re.compile(r"[\s,;.:)\]]*(?:but\s+|and\s+)?(?:not|rather\s+than|instead\s+of|it\s+(?:is|was)\s+not|"
                        r"it\s+(?:isnt|wasnt|isn't|wasn't))(?:\s+(?:the\s+)?(?:option|choice))?[\s(\[]*", re.I)


def _judge_mentions(options: Sequence[str], text: str, norm: str, mentions: list[tuple[int, str, int, int, int]]
                    ) -> tuple[set[int], set[int], int | None]:
    """The options named, those with a negated mention, and the one option kept when every other option named
    is only rejected ("Penny, not Sheldon") and it is never negated; a negation is looked for only up to the
    neighbouring mention of another option, and "not" leading into that mention negates that one, not this."""
    named: set[int] = set()
    negated_ks: set[int] = set()
    rejected_ks: set[int] = set()
    stated_ks: set[int] = set()
    low = text.casefold().replace("'", "")
    lead = _rejection_lead(options) if len({m[0] for m in mentions}) > 1 else None  # only weighs several options
    for k, space, s, e, core in mentions:
        src, after_src = (text, low) if space == "text" else (norm, norm)
        others = [(s2, e2) for k2, sp2, s2, e2, _c2 in mentions if sp2 == space and k2 != k]
        lo = max([e2 for _s2, e2 in others if e2 <= s], default=0)
        hi = min([s2 for s2, _e2 in others if s2 >= e], default=len(src))
        after = after_src[e:min(e + 30, hi)]
        lead_of_next = hi < e + 30 and bool(_LEAD_ONLY.fullmatch(src[e:hi]))
        yes_no = space == "norm" and normalize(options[k]) in ("yes", "no")  # "No, not before": no comma in norm
        before = src[max(0, s - 40, lo):s].casefold()
        if lo and _REJECT_AFTER.match(plain := normalize(before)):  # "Sheldon is wrong, Penny": Sheldon's "wrong"
            before = _REJECT_AFTER.sub("", plain, count=1) + " "
        if (_NEGATION.search(before)
                or (not yes_no and not lead_of_next and _NEGATION_AFTER.match(after))):
            negated_ks.add(k)
        rejected = lead is not None and bool(lead.search(normalize(src[max(0, core - 80):core]))
                                             or _REJECT_AFTER.match(normalize(src[e:e + 40])))
        (rejected_ks if rejected else stated_ks).add(k)
        named.add(k)
    kept = named - (rejected_ks - stated_ks)
    contrast = next(iter(kept)) if len(named) > 1 and len(kept) == 1 and not kept & negated_ks else None
    return named, negated_ks, contrast


#: What :func:`match_option` returns: the 0-based option index and the rule that found it, or None and why not.
OptionMatch = tuple[int | None, str]


def match_option(options: Sequence[str], response: str | None, *, index_base: int = 1) -> OptionMatch:
    """(0-based option index, rule) or (None, reason) when the reply does not name exactly one option."""
    if not options:
        return None, "no-options"
    if response is None or not response.strip():
        return None, "empty"
    text = _clean(response)
    if not text:
        return None, "empty"
    whole = _whole_reply(options, text, index_base)
    if whole is not None:
        return whole
    if offers_alternatives(options, text, index_base=index_base):
        return _committed_after_alternatives(options, text, index_base)
    hedged = bool(_HEDGE.search(text))
    final = _final_answer(text, len(options), index_base, hedged)
    if final is not None:
        return final
    mentions, out_of_range = _marked_mentions(text, len(options), index_base)
    idk = idk_index(options)
    norm = normalize(text)
    idk_beside_option = _option_text_mentions(options, norm, idk, mentions)
    named, negated_ks, contrast = _judge_mentions(options, text, norm, mentions)
    if idk_beside_option and idk is not None:
        named.add(idk)
        contrast = None
    return _mentions_verdict(options, text, index_base, named, negated_ks, contrast, idk, hedged, out_of_range)


def _whole_reply(options: Sequence[str], text: str, index_base: int) -> OptionMatch | None:
    """The reply as a whole is an option (as written, or normalized), a lone letter or a lone number; None
    when it is none of these."""
    n = len(options)
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
    return None


def _final_answer(text: str, n: int, index_base: int, hedged: bool) -> OptionMatch | None:
    """The option a final-answer line names (``Answer: C``); None without one."""
    finals = {(_LETTERS.index((a or b or c).upper()) if (a or b or c) else int(d) - index_base)
              for a, b, d, c in _FINAL.findall(text)}
    if len(finals) > 1:
        return None, "ambiguous"
    if len(finals) == 1:
        k = finals.pop()
        if not 0 <= k < n:
            return None, "out-of-range"
        return (None, "hedged") if hedged else (k, "final-answer")
    return None


def _marked_mentions(text: str, n: int, index_base: int) -> tuple[list[tuple[int, str, int, int, int]], bool]:
    """Each option the reply names by a letter or number marker, as (option, "text", start, end, where the letter
    or number itself starts: after a marker such as "or" in "or C"); and whether one names no option."""
    out_of_range = False
    mentions: list[tuple[int, str, int, int, int]] = []

    def name(k: int, start: int, end: int, core: int | None = None) -> None:
        nonlocal out_of_range
        if not 0 <= k < n:
            out_of_range = True
            return
        mentions.append((k, "text", start, end, start if core is None else core))

    if _LETTER_LIST.match(text):
        for m in re.finditer(r"(?<![A-Za-z])([A-Z])(?![A-Za-z])", text):
            name(_LETTERS.index(m.group(1)), m.start(), m.end())
    for pattern in (_MARK_PAREN, _MARK_OPTION_LETTER, _MARK_ANSWER_LETTER, _MARK_OPENING_LETTER,
                    _MARK_CHOSEN_LETTER, _MARK_HEDGED_LETTER, _MARK_STATED_LETTER, _MARK_UNSURE_LETTER):
        for m in pattern.finditer(text):
            group = next(g for g in range(1, len(m.groups()) + 1) if m.group(g))
            name(_LETTERS.index(m.group(group).upper()), m.start(), m.end(), m.start(group))
    for m in _MARK_REJECTED_LETTER.finditer(text):  # the mention starts at the letter: its "not" is before it
        name(_LETTERS.index(m.group(1)), m.start(1), m.end(), m.start(1))
    for m in _MARK_VERDICT_LETTER.finditer(text):
        name(_LETTERS.index(m.group(1)), m.start(1), m.end(1))
    for m in _MARK_REJECTED_LIST.finditer(text):
        for letter in re.finditer(r"[A-Z]", m.group(1)):
            name(_LETTERS.index(letter.group(0)), m.start(1) + letter.start(), m.end(1))
    for m in _MARK_NUMBER.finditer(text):
        name(int(m.group(1)) - index_base, m.start(), m.end(), m.start(1))
    return mentions, out_of_range


def _option_text_mentions(options: Sequence[str], norm: str, idk: int | None,
                          mentions: list[tuple[int, str, int, int, int]]) -> bool:
    """Add to ``mentions`` the option texts the normalized reply holds as whole words (a shorter option inside a
    longer named one is the longer one's words, not a second mention); True when the "I don't know" option
    stands beside another option (a hedge plus an option is ambiguous)."""
    spans: list[tuple[int, int, int]] = []
    for i, opt in enumerate(options):
        o = normalize(opt)
        if not o:
            continue
        for m in re.finditer(rf"(?<!\w){re.escape(o)}(?!\w)", norm):
            spans.append((m.start(), m.end(), i))
    idk_beside_option = False
    for s, e, i in spans:
        if any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, j in spans if j != i):
            continue
        if i == idk and len({j for _, _, j in spans}) > 1:
            idk_beside_option = True  # "I don't know, but maybe B": a hedge plus an option is ambiguous
            continue
        mentions.append((i, "norm", s, e, s))
    return idk_beside_option


def _mentions_verdict(options: Sequence[str], text: str, index_base: int, named: set[int], negated_ks: set[int],
                      contrast: int | None, idk: int | None, hedged: bool, out_of_range: bool) -> OptionMatch:
    """The option the judged mentions settle on, or why none."""
    none_of = bool(_NONE_OF.search(text))
    if named and none_of:
        return None, "none-of-them"
    if contrast is not None and contrast != idk:
        return (None, "hedged") if hedged else (contrast, "contrast")
    if hedged and len(named - {idk}) == 1:  # "Probably C, though I don't know for sure"
        return None, "hedged"
    if len(named) > 1:
        return None, "ambiguous"
    if negated_ks:
        return None, "negated"
    if len(named) == 1:
        if _names_another(options, text, index_base, named):
            return None, "ambiguous"  # "A and C are both possible": C, followed by a verb, is no marker above
        return named.pop(), "mention"
    if out_of_range:
        return None, "out-of-range"
    if _says_idk(text) or none_of:
        return (idk, "idk") if idk is not None else (None, "idk-without-option")
    return None, "no-match"
