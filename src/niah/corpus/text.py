"""Paragraph and sentence helpers shared by every corpus loader and the haystack builder.

The sentence splitter is deliberately conservative: it only cuts where a terminator is followed by what
clearly starts a new sentence, because a missed split merely makes one chunk longer, while a wrong split
(after "Mr." or "e.g.") puts a needle in the middle of somebody's name. Its contract is exact
reconstruction: ``" ".join(pieces) == paragraph`` for English, ``"".join(pieces) == paragraph`` for Chinese,
so placing text between sentences never changes the corpus text around it.
"""

from __future__ import annotations

import re

# Words that end with a full stop without ending a sentence (compared lower-case, without the final dot).
_ABBREVIATIONS = frozenset("""
mr mrs ms dr prof st sr jr mt ft vs fig figs vol vols ch chs pp ed eds approx cf al gen col lt capt
sgt rev hon gov sen rep messrs mme mlle e.g i.e a.m p.m u.s u.k inc ltd co corp dept est
jan feb mar apr jun jul aug sep sept oct nov dec
""".split())

_EN_END = re.compile(r"[.!?]+[\"'”’)\]]*(?= )")
_ZH_END = re.compile(r"(?:[。！？!?]+|…{1,2}(?=[”’」』]))[”’」』）)\]]*")
_WS = re.compile(r"\s+")
_BLANK = re.compile(r"\n[ \t\u3000]*\n")
_SENTENCE_START = re.compile(r"[A-Z0-9\"'“‘(\[]")


def normalize_whitespace(text: str) -> str:
    """Collapse every run of whitespace (newlines included) to one space and strip the ends."""
    return _WS.sub(" ", text).strip()


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs of a plain-text document.

    Blank lines separate paragraphs. A text with no blank line at all but several lines (the usual shape of
    Chinese long-text dumps, one paragraph a line) is read one paragraph per line. Whitespace inside a
    paragraph is normalized and empty paragraphs are dropped.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = _BLANK.split(text) if _BLANK.search(text) else text.split("\n")
    out = []
    for block in blocks:
        para = normalize_whitespace(block.replace("\u3000", " "))
        if para:
            out.append(para)
    return out


def _is_abbreviation(text: str, dot_index: int) -> bool:
    """Whether the word ending at ``dot_index`` (a '.') is an abbreviation or an initial."""
    start = dot_index
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:dot_index].lstrip("\"'“‘([").lower()
    if not word:
        return False
    if word in _ABBREVIATIONS:
        return True
    # Single-letter initials ("J. Smith") and dotted forms such as "e.g" / "u.s.a".
    return len(word) == 1 and word.isalpha() or bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", word))


def split_sentences(paragraph: str, lang: str) -> list[str]:
    """Split one paragraph into sentences.

    English (and any non-Chinese language): cut after ``.``, ``!`` or ``?`` (plus closing quotes or brackets)
    when exactly one space follows and the next character starts a sentence (capital, digit, opening quote
    or bracket), except after common abbreviations and initials; decimals never split because no space
    follows their dot. ``" ".join(result) == paragraph``.

    Chinese (``lang`` starting with "zh"): cut after ``。``, ``！`` or ``？`` (and an ellipsis before a closing
    quote), keeping closing quotes and brackets with the sentence. ``"".join(result) == paragraph``.
    """
    if not paragraph:
        return []
    if lang.lower().startswith("zh"):
        pieces: list[str] = []
        start = 0
        for m in _ZH_END.finditer(paragraph):
            end = m.end()
            if end < len(paragraph):
                pieces.append(paragraph[start:end])
                start = end
        pieces.append(paragraph[start:])
        return [p for p in pieces if p]
    pieces = []
    start = 0
    for m in _EN_END.finditer(paragraph):
        space = m.end()
        nxt = space + 1
        if nxt >= len(paragraph) or not _SENTENCE_START.match(paragraph[nxt]):
            continue
        if m.group(0)[0] == "." and len(m.group(0).rstrip("\"'”’)]")) == 1:
            if _is_abbreviation(paragraph, m.start()):
                continue
            if paragraph[nxt].isdigit() and (paragraph[:m.start()].rsplit(None, 1) or [""])[-1].lower() in ("no", "nos", "p", "pp"):
                continue  # "No. 5", "pp. 12"
        pieces.append(paragraph[start:space])
        start = nxt
    pieces.append(paragraph[start:])
    return pieces
