"""Sequential-NIAH generators: QA records, the official insertion, exact lengths, the niah dataset.

Insertion is the official algorithm (``Sequential_NIAH_building_PPL.py``): the candidate cut points are the
positions of ``.`` (EN) or ``。`` (ZH) in the long text -- every occurrence, as the official regex finds them;
a text with 80 or fewer is rejected (and counted); ``k`` of them are drawn without replacement and sorted;
the text is split into ``k + 1`` shards, each keeping its period; the needles, shuffled, go between them as
``shard_1 + B_1 + needle_1 + A_1 + shard_2 + ... + shard_{k+1}``. Two deviations keep the layout from giving
the needles away: cut points are sentence ends only (not every period), and a needle is placed like a sentence
of the long text itself instead of between the official single newlines, which put every needle on a line of
its own: ``A`` is empty (the text's own gap at the cut follows) and ``B`` is the gap before a sentence of the
text drawn among those followed by that same gap (:class:`SentenceGaps`,
:func:`deal_needles`), so a needle continues a line, opens a paragraph or stands alone as often as the text's
sentences do. The prompt is a document prefix (one of ``Document: ``, ``Document: \\n``, ``Document:``,
``Document:\\n``, empty; ZH ``文档：`` ... with full-width or ASCII colon), the text with needles, a blank
line, a question prefix (``Question: `` ... or ``Please answer the question:\\n``; ZH ``问题：`` ... or
``回答以下问题：\\n``) and the question; the document always comes first (the official question-first branch
has weight 0).

Length: the official ``length`` field is the number of tokens (GPT-4's ``cl100k_base``) of the whole ``input``:
document prefix, text with needles, the blank line, question prefix and question. A built sample's
``meta.length`` is exactly that count, in the named tokenizer, and equals its target: a length drawn
uniformly inside its bin (bins are ``8k-16k`` = [8000, 16000) tokens, and so on).

How the length is made exact without re-tokenizing a growing context: the long text is whole paragraphs of
corpus documents (:func:`render_units`: headings, list marker, paragraph and a line break; documents in a
random order) plus a tail cut from
the next paragraph at a word boundary (any character in Chinese). Each paragraph is tokenized once when the
corpus is pooled. For OpenAI BPE encodings a position right after a newline and before a non-space character
always starts a new pre-token, so the count of the text is the sum of the counts of its paragraphs; only the
pieces that change are counted again: the first paragraph with the document prefix, each paragraph that
receives a needle, and the tail with the question. The finished input is counted once to verify it (and, for
tokenizers without that property, repaired by re-cutting the tail).
"""

from __future__ import annotations

import hashlib
import random
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from niah.benchmarks.registry import corpus_readers
from niah.benchmarks.seq_niah import synth
from niah.benchmarks.seq_niah.sources import load_source
from niah.build.buildkey import build_key, path_digest, pool_digest
from niah.corpus import load_corpus
from niah.corpus.base import Corpus
from niah.sample import DatasetWriter, Sample, TextPart
from niah.tokens import TextTokenizer, get_tokenizer
from niah.util.console import progress_bar
from niah.util.errors import ConfigError

BENCHMARK = "seq-niah"
PIPELINES = ("synthetic-temporal", "real-temporal", "real-logical")
PPL = {"synthetic-temporal": "syn", "real-temporal": "tkg", "real-logical": "open"}
LENGTH_BINS: dict[str, tuple[int, int]] = {
    "8k-16k": (8000, 16000), "16k-32k": (16000, 32000), "32k-64k": (32000, 64000), "64k-128k": (64000, 128000),
}
#: Bins below the paper's 8K floor, for models with a small context window (built on request only; the
#: report's columns are then the bins built, the paper's four only for data on them; scores files group these by
#: name like any other).
SHORT_LENGTH_BINS: dict[str, tuple[int, int]] = {"2k-4k": (2000, 4000), "4k-8k": (4000, 8000)}
NEEDLE_GROUPS: dict[str, tuple[int, int]] = {"3-5": (3, 5), "6-10": (6, 10), ">10": (11, 15)}
MIN_CUT_POINTS = 81  # official: a text with <= 80 periods is rejected
OFFICIAL_SEED = 1024
#: The official minimum is for its 8K floor; a shorter bin (``SHORT_LENGTH_BINS``) needs as many cut points per
#: token, not as many in all (2K tokens of Chinese hold about 60 sentences: 81 could never be met).
OFFICIAL_FLOOR_TOKENS = 8000


def min_cut_points(target: int, needles: int) -> int:
    """Cut points a haystack of ``target`` tokens must offer: the official 81 from 8K up, the same density
    below (never fewer than twice the needles plus one, so their places are still drawn from many)."""
    if target >= OFFICIAL_FLOOR_TOKENS:
        return MIN_CUT_POINTS
    return max(2 * needles + 1, -(-MIN_CUT_POINTS * target // OFFICIAL_FLOOR_TOKENS))


DOC_PREFIXES = {"en": ("Document: ", "Document: \n", "Document:", "Document:\n", ""),
                "zh": ("文档：", "文档：\n", "文档:", "文档:\n", "")}
QUESTION_PREFIXES = {"en": ("Question: ", "Question: \n", "Question:", "Question:\n", "Please answer the question:\n"),
                     "zh": ("问题：", "问题：\n", "问题:", "问题:\n", "回答以下问题：\n")}
JOINER = "\n\n"  # between the text with needles and the question prefix
PERIOD = {"en": ".", "zh": "。"}


def needle_group(n: int) -> str:
    """The paper's needle-count group (Table 6, Figure 6b): ``3-5``, ``6-10`` or ``>10``."""
    return "3-5" if n <= 5 else ("6-10" if n <= 10 else ">10")


def length_bin(length: int) -> str | None:
    for name, (lo, hi) in (LENGTH_BINS | SHORT_LENGTH_BINS).items():
        if lo <= length < hi:
            return name
    return None


def length_bin_names(values: Iterable[str | int]) -> list[str]:
    """``--lengths`` in the one syntax of :mod:`niah.build.lengths`, mapped to the bins this builder draws lengths
    from: ``8k-16k`` and ``8000-16000`` both name the paper's first bin. An exact length, or a range that is
    not one of the bins, is refused in one line listing the bins; a bin given twice is built once."""
    from niah.build.lengths import length_items, parse_length

    bins = LENGTH_BINS | SHORT_LENGTH_BINS
    by_range = {span: name for name, span in bins.items()}
    allowed = ", ".join(bins)
    names: list[str] = []
    for item in length_items(values):
        lo, hi = parse_length(item)
        name = by_range.get((lo, hi))
        if name is None:
            what = "an exact length" if lo == hi else "not one of its bins"
            raise ConfigError(f"--lengths {item!r}: {what}; seq-niah draws lengths from the bins {allowed}")
        if name not in names:
            names.append(name)
    return names


def parse_needles(spec: str) -> tuple[int, int]:
    """``"3-15"`` or ``"5"`` -> inclusive range; the official range is 3..15."""
    lo_s, _, hi_s = spec.partition("-")
    try:
        lo, hi = int(lo_s), int(hi_s or lo_s)
    except ValueError:
        raise ConfigError(f"--needles must look like 3-15 or 5, not {spec!r}") from None
    if not 1 <= lo <= hi <= 40:
        raise ConfigError(f"--needles range {spec!r} must satisfy 1 <= lo <= hi <= 40")
    return lo, hi


# --- the long-text pool ------------------------------------------------------------------------------------

#: The line breaks of the long text, each drawn uniformly and independently: after every title, heading,
#: paragraph, list item and document. Real long texts mix both (the official Chinese texts use either between
#: paragraphs, the English ones a single newline after a heading); needles take the gaps of the text's own
#: sentences (:class:`SentenceGaps`), so the whitespace around them says nothing about whether they are.
BREAKS = ("\n", "\n\n")
#: Closing marks that may follow a sentence's period (a cut after the period would orphan them).
_CLOSERS = "\"'”’)]」』）"


def _layout_rng(doc_id: str, lang: str) -> random.Random:
    """The draws of a document's line breaks and list numbering: a function of the document, so that a
    document looks the same in every sample that shows it."""
    return random.Random(f"seq-niah-layout/{lang}/{doc_id}")


def render_units(doc: Any, banned: Sequence[str] = ()) -> list[str]:
    """A corpus document as the long text prints it, one unit per paragraph: the lines above it (title,
    section headings), its list marker (``- ``, ``1. ``), the paragraph and its line break. Paragraphs holding
    an excluded string are dropped (their headings pass to the next paragraph)."""
    rng = _layout_rng(doc.id, doc.lang)
    heads: dict[int, list[str]] = {}
    if getattr(doc, "title_in_text", False) and doc.title:
        heads.setdefault(0, []).append(doc.title)
    for i, text in getattr(doc, "headings", ()):
        heads.setdefault(i, []).append(text)
    kinds = getattr(doc, "kinds", ()) or ("p",) * len(doc.paragraphs)
    units: list[str] = []
    pending: list[str] = []
    number = 0
    prev_kind = ""
    for i, (para, kind) in enumerate(zip(doc.paragraphs, kinds, strict=True)):
        para = " ".join(para.split())
        lines = [h for h in heads.get(i, []) if h.strip() and not any(b in h.lower() for b in banned)]
        if not para or any(b in para.lower() for b in banned):
            pending += lines
            continue
        lines = pending + lines
        pending = []
        number = number + 1 if kind == "ol" and prev_kind == "ol" and not lines else 1
        prev_kind = kind
        marker = {"li": "- ", "ol": f"{number}. "}.get(kind, "")
        lead = "".join(" ".join(h.split()) + rng.choice(BREAKS) for h in lines)
        units.append(lead + marker + para + rng.choice(BREAKS))
    return units


_LIST_LINE = re.compile(r"^(?:- |\d+\. )")
_LINE_END = re.compile(r"[.!?。！？][\"'”’)\]）]*$")


@dataclass
class LongTextPool:
    """Paragraph units of a corpus (:func:`render_units`: headings, list marker, paragraph, line break), each
    tokenized once, grouped by document."""

    tokenizer: TextTokenizer
    lang: str
    units: list[str]
    unit_tokens: np.ndarray
    doc_starts: np.ndarray  # len(docs) + 1
    doc_ids: list[str]

    @classmethod
    def build(cls, corpus: Corpus, tokenizer: TextTokenizer, lang: str, *, exclude: Iterable[str] = ()) -> LongTextPool:
        banned = [e.lower() for e in exclude if e]
        units: list[str] = []
        starts = [0]
        ids: list[str] = []
        for doc in corpus.documents():
            rendered = render_units(doc, banned)
            if not rendered:
                continue
            units.extend(rendered)
            starts.append(len(units))
            ids.append(doc.id)
        if not units:
            raise ConfigError(f"the corpus has no {lang} text")
        if _line_led_additive(tokenizer):
            counts = np.asarray(tokenizer.count_batch(units), dtype=np.int64)
        else:  # counted where a unit stands: after a line break (SentencePiece adds a word-start piece alone)
            anchor = tokenizer.count(_ANCHOR)
            counts = np.asarray(tokenizer.count_batch([_ANCHOR + u for u in units]), dtype=np.int64) - anchor
        return cls(tokenizer, lang, units, counts, np.asarray(starts, dtype=np.int64), ids)

    @property
    def total_tokens(self) -> int:
        return int(self.unit_tokens.sum())

    @property
    def bare_lines(self) -> float:
        """Lines without a sentence end (titles, headings; list items aside) per line with one."""
        bare = ended = 0
        for unit in self.units:
            for line in unit.split("\n"):
                line = line.strip()
                if not line or _LIST_LINE.match(line):
                    continue
                if _LINE_END.search(line):
                    ended += 1
                else:
                    bare += 1
        return bare / max(ended, 1)


@dataclass
class Inserted:
    """A finished context: the prompt pieces, needle positions and provenance."""

    doc_prefix: str
    text_with_needles: str
    question_prefix: str
    length: int
    needle_offsets: list[int]  # char offset of each needle (inserted order) in doc_prefix + text_with_needles
    needle_depths: list[float]  # tokens of the input before each needle / length
    doc_ids: list[str]
    cut_points: int  # candidate cut points the text offered
    frames: list[tuple[str, str, str]]  # per needle: gap before, gap after, text it replaced (both empty here)
    placed: list[int]  # per needle in text order: its index in the needles given (:func:`deal_needles`)


class _Redraw(Exception):
    pass


#: What every unit but the first follows: the line break that ends the unit before it.
_ANCHOR = "\n"


def _line_led_additive(tok: TextTokenizer) -> bool:
    """True for the OpenAI encodings, where a position after a newline and before a non-space character
    always starts a pre-token, so a text's tokens are the sum of its line-led units' own counts."""
    from niah.tokens.text import OpenAIBPE

    return isinstance(tok, OpenAIBPE)


def _count_after_break(tok: TextTokenizer, text: str) -> int:
    """Tokens ``text`` adds after a line break (its own count for the OpenAI encodings)."""
    if _line_led_additive(tok):
        return tok.count(text)
    return tok.count(_ANCHOR + text) - tok.count(_ANCHOR)


def _cut_positions(text: str, lang: str) -> list[int]:
    """Offsets just after each sentence-ending period of ``text``: the official candidates (``.`` EN, ``。``
    ZH) where a sentence ends, i.e. not followed by a closing mark, nor in English by anything but whitespace.
    (The official regex takes every period; a cut inside ``3.5`` or ``e.g.`` would start the line after a
    needle in the middle of a sentence, which no other line does.)"""
    period = PERIOD[lang]
    out: list[int] = []
    for m in re.finditer(re.escape(period), text):
        nxt = text[m.end():m.end() + 1]
        if nxt and nxt in _CLOSERS:
            continue
        if lang != "zh" and nxt not in ("", " ", "\n"):
            continue
        out.append(m.end())
    return out


#: Whitespace that may stand between two sentences of a line (a run of it ends no line).
_INLINE_SPACE = " \t\u3000"


def gap_at(text: str, at: int) -> str:
    """The whitespace run of ``text`` starting at ``at``."""
    end = at
    while end < len(text) and text[end].isspace():
        end += 1
    return text[at:end]


#: Where a reader's sentence (or clause) starts: after a line break, after whitespace following a full stop,
#: question or exclamation mark, semicolon, colon or closing quote or bracket, and in Chinese right after
#: 。！？； (Chinese puts no space between sentences). A match is the gap before the piece that follows it.
_PIECE_GAP = re.compile(r"[ \t\u3000]*\n\s*|(?<=[.!?;:\"'\u201d\u2019)\]])[ \t\u3000]+|(?<=[\u3002\uff01\uff1f\uff1b])")

def gap_before_sentence(text: str, cut: int) -> str | None:
    """The gap before the sentence of ``text`` that ends at ``cut``: the last :data:`_PIECE_GAP` before its
    period, looked for from the line break its line starts after (that break itself for the first sentence of a
    line); None for a sentence that opens the text."""
    start = max(text.rfind("\n", 0, cut), 0)
    while start > 0 and text[start - 1].isspace():  # from the start of the whitespace run holding that break
        start -= 1
    gap = None
    for m in _PIECE_GAP.finditer(text, start, cut - 1):
        gap = m.group()
    return gap


def sentence_frames(text: str, lang: str) -> dict[str, list[str]]:
    """Every sentence of ``text`` that ends at a cut point, by the gap that follows it (a space or nothing
    between two sentences of a line, a line break or blank line where the line ends): the gaps before them
    (:func:`gap_before_sentence`), in text order."""
    frames: dict[str, list[str]] = {}
    for cut in _cut_positions(text, lang):
        before = gap_before_sentence(text, cut)
        if before is not None:
            frames.setdefault(gap_at(text, cut), []).append(before)
    return frames


class SentenceGaps:
    """Draws the gap before a sentence of ``text`` (one ending at a cut point of ``cuts``) among those followed
    by a given gap, each equally likely: a draw from what :func:`sentence_frames` lists, looking only at the
    sentences drawn (a few per needle, not a pass over a 100K-token text)."""

    _TRIES = 64

    def __init__(self, text: str, cuts: Sequence[int]) -> None:
        self.text = text
        self.cuts = cuts
        self._by_after: dict[str, list[int]] | None = None

    def draw_before(self, after: str, rng: random.Random) -> str:
        """The gap before a sentence followed by ``after`` (before any sentence where none is)."""
        for _ in range(self._TRIES if self.cuts else 0):  # rejection: uniform among those followed by ``after``
            cut = self.cuts[rng.randrange(len(self.cuts))]
            if gap_at(self.text, cut) == after:
                before = gap_before_sentence(self.text, cut)
                if before is not None:
                    return before
        if self._by_after is None:  # a rare gap: every sentence looked at once
            self._by_after = {}
            for cut in self.cuts:
                self._by_after.setdefault(gap_at(self.text, cut), []).append(cut)
        for pool in (self._by_after.get(after, []), self.cuts):
            found = [g for g in (gap_before_sentence(self.text, c) for c in pool) if g is not None]
            if found:
                return rng.choice(found)
        return rng.choice(BREAKS)


_LINE_GAP = re.compile(r"[ \t\u3000]*\n\s*")


def first_line_gap(needle: str, after_cut: str) -> str:
    """The gap that follows a needle's first line: its own first line break (a title or date on a line of its
    own), else the text's gap at the cut, which follows the whole needle."""
    inner = _LINE_GAP.search(needle)
    return inner.group() if inner else after_cut


def deal_needles(needles: Sequence[str], befores: Sequence[str], afters: Sequence[str], rng: random.Random,
                 ) -> list[int]:
    """Which needle takes each slot (a cut point: the gap drawn before it, the text's gap after it), as indices
    into ``needles``. A needle that holds line breaks starts a line within itself (its date or its event), so
    those go to the slots that start a line, as many as there are: the needles' line starts are then the text's
    own, not added to them. Any left over go where a line continues after the cut (a sentence that starts a
    line is more often followed by another than it ends its line), then anywhere; the other needles, in their
    (shuffled) order, take the rest."""
    line_slots = [i for i, b in enumerate(befores) if "\n" in b]
    inline_slots = [i for i, b in enumerate(befores) if "\n" not in b and "\n" not in afters[i]]
    closing_slots = [i for i, b in enumerate(befores) if "\n" not in b and "\n" in afters[i]]
    for group in (line_slots, inline_slots, closing_slots):
        rng.shuffle(group)
    multi = [j for j, n in enumerate(needles) if "\n" in n]
    single = [j for j, n in enumerate(needles) if "\n" not in n]
    dealt = [0] * len(needles)
    for j, slot in zip(multi + single, line_slots + inline_slots + closing_slots, strict=True):
        dealt[slot] = j
    return dealt


def _joins_needle(before: str) -> bool:
    """Whether the gap before a needle is inline whitespace that a tokenizer's word-start token takes in with
    the needle's first word (``" Diary"`` is one token in cl100k, one ``▁Diary`` piece in SentencePiece)."""
    return bool(before) and all(c in _INLINE_SPACE for c in before)


def _word_cuts(text: str, lang: str) -> list[int]:
    if lang == "zh":
        return list(range(1, len(text) + 1))
    cuts = [i for i in range(1, len(text)) if text[i] == " " and text[i - 1] != " "]
    return cuts + [len(text)]


def _exact_tail(tok: TextTokenizer, para: str, suffix: str, want: int, lang: str) -> str | None:
    """A word-boundary prefix ``p`` of ``para`` with ``count(p + suffix) == want``, if one exists."""
    cuts = _word_cuts(para.rstrip("\n"), lang)
    lo, hi = 0, len(cuts) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        c = tok.count(para[:cuts[mid]] + suffix)
        if c == want:
            return para[:cuts[mid]]
        if c < want:
            lo = mid + 1
        else:
            hi = mid - 1
    for j in range(max(0, hi - 2), min(len(cuts), hi + 3)):
        if tok.count(para[:cuts[j]] + suffix) == want:
            return para[:cuts[j]]
    return None


def insert_needles(pool: LongTextPool, target: int, needles: Sequence[str], question: str, rng: np.random.Generator,
                   py_rng: random.Random, *, doc_prefix: str, question_prefix: str) -> Inserted:
    """Lay out one sample of exactly ``target`` input tokens with ``needles`` (in inserted order) at
    official cut points. Raises :class:`_Redraw` when this draw of documents cannot work."""
    tok = pool.tokenizer
    k = len(needles)
    suffix = JOINER + question_prefix + question
    needle_cost = sum(tok.count(n) for n in needles) + 2 * k  # the gap before each: a token at most
    fixed = tok.count(doc_prefix) + tok.count(suffix) + needle_cost
    margin = 24 + 2 * k
    budget = target - fixed - margin
    if budget <= 0:
        raise ConfigError(f"a {target}-token sample cannot hold {k} needles and the question")
    if budget > pool.total_tokens - 512:
        raise ConfigError(f"the corpus holds {pool.total_tokens} {tok.name} tokens of {pool.lang} text, not enough "
                          f"for a {target}-token sample; use a larger corpus (--corpus) or a shorter length")
    body = _take_body(pool, budget, rng)
    slots = _needle_slots(pool, body.units, target, needles, rng, py_rng)
    placed = _place_in_units(pool, body.units, needles, slots, doc_prefix, py_rng)
    text = _with_exact_tail(pool, "".join(placed.pieces), body.tail_candidates, suffix, target,
                            target - placed.tokens)
    if any(text[at:at + len(needles[j])] != needles[j] for at, j in zip(placed.offsets, slots.dealt, strict=True)):
        raise AssertionError("needle offsets do not match the text")  # a bug, never a data problem
    return Inserted(doc_prefix, text[len(doc_prefix):], question_prefix, target, placed.offsets,
                    [t / target for t in placed.tokens_before], body.doc_ids, len(slots.cands), placed.frames,
                    slots.dealt)


@dataclass(frozen=True)
class _Body:
    """The haystack's units (whole documents in a random order, then a prefix of one more, within the budget),
    the documents they come from, and the units after them (the tail is cut from those)."""

    units: list[int]
    doc_ids: list[str]
    tail_candidates: list[int]


def _take_body(pool: LongTextPool, budget: int, rng: np.random.Generator) -> _Body:
    """Whole units of documents drawn in a random order while ``budget`` tokens allow."""
    order = rng.permutation(len(pool.doc_ids))
    body: list[int] = []
    used = 0
    docs_used: list[str] = []
    tail_candidates: list[int] = []
    for d in order:
        s, e = int(pool.doc_starts[d]), int(pool.doc_starts[d + 1])
        if tail_candidates:
            tail_candidates.extend(range(s, e))
            if len(tail_candidates) > 40:
                break
            continue
        doc_tok = int(pool.unit_tokens[s:e].sum())
        if used + doc_tok <= budget:
            body.extend(range(s, e))
            used += doc_tok
            docs_used.append(pool.doc_ids[d])
            continue
        cum = np.cumsum(pool.unit_tokens[s:e])
        j = int(np.searchsorted(cum, budget - used, side="right"))
        body.extend(range(s, s + j))
        used += int(cum[j - 1]) if j else 0
        docs_used.append(pool.doc_ids[d])
        tail_candidates.extend(range(s + j, e))
    if not body:
        raise _Redraw
    return _Body(body, docs_used, tail_candidates)


@dataclass(frozen=True)
class _NeedleSlots:
    """The candidate cut points (body position, offset in unit, in text order), the chosen ones by body
    position, each slot's gap before and after (text order), the needle dealt to each slot, and the haystack's
    sentence gaps (what a needle's own framing is drawn from)."""

    cands: list[tuple[int, int]]
    cuts_by_unit: dict[int, list[int]]
    befores: list[str]
    afters: list[str]
    dealt: list[int]
    haystack: SentenceGaps


def _needle_slots(pool: LongTextPool, body: list[int], target: int, needles: Sequence[str],
                  rng: np.random.Generator, py_rng: random.Random) -> _NeedleSlots:
    """Draw the needles' cut points among the official ones of the body. Each is framed like a sentence of this
    haystack: the text's own gap at the cut follows the needle, and the gap before it is drawn among the
    haystack's sentences followed by that same gap; the needles are then dealt to these slots (those holding
    line breaks to the slots that start a line)."""
    k = len(needles)
    cands = [(pos, off) for pos, u in enumerate(body) for off in _cut_positions(pool.units[u], pool.lang)]
    if len(cands) < min_cut_points(target, k):
        raise _TooFewCuts(len(cands))
    picks = sorted(int(i) for i in rng.choice(len(cands), size=k, replace=False))
    unit_starts = [0]
    for u in body:
        unit_starts.append(unit_starts[-1] + len(pool.units[u]))
    haystack = SentenceGaps("".join(pool.units[u] for u in body), [unit_starts[pos] + off for pos, off in cands])
    cuts_by_unit: dict[int, list[int]] = {}
    befores: list[str] = []
    afters: list[str] = []
    for i in picks:
        pos, off = cands[i]
        cuts_by_unit.setdefault(pos, []).append(off)
        afters.append(gap_at(pool.units[body[pos]], off))
        befores.append(haystack.draw_before(afters[-1], py_rng))
    dealt = deal_needles(needles, befores, afters, py_rng)
    return _NeedleSlots(cands, cuts_by_unit, befores, afters, dealt, haystack)


@dataclass
class _Placed:
    """The body's text pieces with the needles in (the document prefix first), their tokens, and per needle in
    text order: the tokens before it, its character offset and its frame."""

    pieces: list[str]
    tokens: int = 0
    tokens_before: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    frames: list[tuple[str, str, str]] = field(default_factory=list)


def _place_in_units(pool: LongTextPool, body: list[int], needles: Sequence[str], slots: _NeedleSlots,
                    doc_prefix: str, py_rng: random.Random) -> _Placed:
    """The body's units with the dealt needles at their cut points, counted unit by unit."""
    tok = pool.tokenizer
    placed = _Placed([doc_prefix])
    chars = len(doc_prefix)
    ni = 0
    for pos, u in enumerate(body):
        unit = pool.units[u]
        lead = doc_prefix if pos == 0 else ""
        if pos not in slots.cuts_by_unit:
            placed.tokens += tok.count(lead + unit) if pos == 0 else int(pool.unit_tokens[u])
            placed.pieces.append(unit)
            chars += len(unit)
            continue
        parts: list[str] = []
        prev = 0
        for off in slots.cuts_by_unit[pos]:
            needle = needles[slots.dealt[ni]]
            # a needle's first line is framed like a sentence followed by the gap that follows that line: the
            # slot's drawn gap for a one-line needle, a fresh draw for one whose first line ends in a break
            before = slots.befores[ni] if "\n" not in needle else slots.haystack.draw_before(
                first_line_gap(needle, slots.afters[ni]), py_rng)
            parts.append(unit[prev:off] + before)
            # tokens before the needle (small count: this paragraph only); a space joining the needle to the
            # sentence before is counted with the needle, whose first token holds it
            head = "".join(parts)
            if _joins_needle(before):
                head = head[:len(head) - len(before)]
            placed.tokens_before.append(placed.tokens + (tok.count(lead + head) if pos == 0 else
                                                         _count_after_break(tok, head)))
            placed.offsets.append(chars + sum(len(p) for p in parts))
            placed.frames.append((before, "", ""))
            parts.append(needle)
            ni += 1
            prev = off
        parts.append(unit[prev:])
        new_unit = "".join(parts)
        placed.tokens += tok.count(lead + new_unit) if pos == 0 else _count_after_break(tok, new_unit)
        placed.pieces.append(new_unit)
        chars += len(new_unit)
    return placed


def _with_exact_tail(pool: LongTextPool, text: str, tail_candidates: list[int], suffix: str, target: int,
                     want: int) -> str:
    """``text`` and a tail (whole paragraphs, then a word-boundary prefix of one more) such that it counts
    exactly ``target`` tokens with the question ``suffix``; ``want`` is the tail's estimated count."""
    tok = pool.tokenizer
    for attempt in range(4):
        full = text + _make_tail(pool, tail_candidates, suffix, want)
        actual = tok.count(full + suffix)  # verify once (repair for tokenizers that merge across newlines)
        if actual == target:
            return full
        want += target - actual
        if attempt == 3:
            break
    raise ConfigError(f"could not reach exactly {target} tokens with {tok.name}")


def _make_tail(pool: LongTextPool, candidates: list[int], suffix: str, want: int) -> str:
    tok = pool.tokenizer
    taken: list[str] = []
    have = 0
    for u in candidates:
        unit = pool.units[u]
        need = want - have
        piece = _exact_tail(tok, unit, suffix, need, pool.lang)
        if piece is not None:
            return "".join(taken) + piece
        if int(pool.unit_tokens[u]) + tok.count(suffix) < need:
            taken.append(unit)
            have += int(pool.unit_tokens[u])
    raise _Redraw


class _TooFewCuts(_Redraw):
    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


# --- samples ------------------------------------------------------------------------------------------------

def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def make_sample(qa: dict[str, Any], pipeline: str, pool: LongTextPool, target: int, rng: np.random.Generator,
                py_rng: random.Random, *, sample_id: str, stats: dict[str, int]) -> Sample:
    """One sample from a QA record: needles shuffled (gold order kept), inserted, exact ``target`` tokens."""
    lang = qa["meta"]["lang"]
    raw_needles = list(qa["needles"])
    order = list(range(len(raw_needles)))
    py_rng.shuffle(order)
    needles = [raw_needles[i] for i in order]
    doc_prefix = py_rng.choice(DOC_PREFIXES[lang])
    question_prefix = py_rng.choice(QUESTION_PREFIXES[lang])
    # the layout's draws (needle gaps, dealing) come from a stream of their own, seeded by one draw: how many
    # they take (needles, redraws) then never shifts the questions and lengths of the samples after this one
    layout_rng = random.Random(py_rng.getrandbits(64))
    for _ in range(12):
        try:
            ins = insert_needles(pool, target, needles, qa["question"], rng, layout_rng, doc_prefix=doc_prefix,
                                 question_prefix=question_prefix)
            break
        except _TooFewCuts:
            stats["rejected_texts"] = stats.get("rejected_texts", 0) + 1
        except _Redraw:
            stats["redraws"] = stats.get("redraws", 0) + 1
    else:
        raise ConfigError(f"could not build a {target}-token sample from this corpus (texts too short or no exact tail)")
    context_text = ins.doc_prefix + ins.text_with_needles
    full_input = context_text + JOINER + ins.question_prefix + qa["question"]
    needles_meta = [{"text": needles[j], "gold_index": order[j], "inserted_index": i, "offset": off,
                     "depth": round(d, 6), "before": fr[0], "after": fr[1], "replaced": fr[2]}
                    for i, (j, off, d, fr) in enumerate(zip(ins.placed, ins.needle_offsets, ins.needle_depths,
                                                            ins.frames, strict=True))]
    meta: dict[str, Any] = {
        "lang": lang, "pipeline": pipeline, "ppl": PPL[pipeline], "source": qa["meta"].get("source", PPL[pipeline]),
        "length": ins.length, "length_bin": length_bin(ins.length), "num_needles": len(needles),
        "needle_group": needle_group(len(needles)), "tokenizer": pool.tokenizer.name,
        "doc_prefix": ins.doc_prefix, "question_prefix": ins.question_prefix, "joiner": JOINER,
        "needles": needles_meta, "raw_needles": raw_needles, "depth": [round(d, 6) for d in ins.needle_depths],
        "md5": md5(full_input + qa["answer"]), "qa_md5": qa["md5"], "text_docs": ins.doc_ids,
        "cut_points": ins.cut_points, "order_required": True if pipeline == "real-logical" else None,
    }
    if "extrainfo_diary" in qa:
        meta["extrainfo_diary"] = qa["extrainfo_diary"]
    for key in ("entity_A", "entity_B", "relation_list", "items"):
        if key in qa["meta"]:
            meta[key] = qa["meta"][key]
    return Sample(id=sample_id, benchmark=BENCHMARK, task=pipeline, context=[TextPart(context_text)],
                  question=[TextPart(qa["question"])], answer=qa["answer"], meta=meta)


def prompt_text(sample: Sample) -> str:
    """The official ``input`` string of a sample: context, blank line, question prefix, question."""
    m = sample.meta
    context = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    question = "".join(p.text for p in sample.question if isinstance(p, TextPart))
    return context + m.get("joiner", JOINER) + m.get("question_prefix", "") + question


def raw_text_of(sample: Sample) -> str:
    """The long text without needles (the official ``meta_text.raw_text``), from the recorded offsets: each
    needle's own breaks (``before``/``after``) taken out and the text it replaced (``replaced``) put back; a
    needle without them (imported official samples) stands between single newlines."""
    context = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    text = context[len(sample.meta.get("doc_prefix", "")):]
    shift = len(sample.meta.get("doc_prefix", ""))
    out: list[str] = []
    prev = 0
    for nd in sorted(sample.meta["needles"], key=lambda n: n["offset"]):
        at = nd["offset"] - shift
        before, after = nd.get("before", "\n"), nd.get("after", "\n")
        out.append(text[prev:at - len(before)] + nd.get("replaced", ""))
        prev = at + len(nd["text"]) + len(after)
    out.append(text[prev:])
    return "".join(out)


# --- the build ----------------------------------------------------------------------------------------------

def _cells(pipelines: Sequence[str], langs: Sequence[str], lengths: Sequence[str], needles: tuple[int, int],
           ) -> list[tuple[str, str, str, str]]:
    groups = [g for g, (lo, hi) in NEEDLE_GROUPS.items() if lo <= needles[1] and hi >= needles[0]]
    return [(p, lang, b, g) for p in pipelines for lang in langs for b in lengths for g in groups]


def build_seq_niah(out: str | Path, *, pipelines: Sequence[str] = ("synthetic-temporal",),
                   langs: Sequence[str] = ("en", "zh"), lengths: Sequence[str] = tuple(LENGTH_BINS),
                   needles: str | tuple[int, int] = "3-15", per_cell: int = 5, seed: int = 0,
                   tokenizer: str = "cl100k_base", corpus: str = "default", source: str | Path | None = None,
                   progress: bool = True) -> dict[str, Any]:
    """Build a Sequential-NIAH dataset directory (benchmark ``seq-niah``); returns the manifest.

    Cells are pipeline x language x length bin x needle group (``3-5``, ``6-10``, ``>10`` within the needle
    range); each cell gets ``per_cell`` samples. The real pipelines take their QA records from ``source``
    (see :mod:`.sources`), each record used once, records of other languages or needle counts skipped."""
    for p in pipelines:
        if p not in PIPELINES:
            raise ConfigError(f"unknown pipeline {p!r}; choose from {', '.join(PIPELINES)}")
    lengths = length_bin_names(lengths)
    for lang in langs:
        if lang not in ("en", "zh"):
            raise ConfigError(f"unknown language {lang!r} (en, zh)")
    if per_cell < 1:
        raise ConfigError("--per-cell must be at least 1")
    need_range = parse_needles(needles) if isinstance(needles, str) else needles
    real = [p for p in pipelines if p != "synthetic-temporal"]
    if real and source is None:
        raise ConfigError(f"pipelines {', '.join(real)} need a QA source file (--source)")
    # validate the source before any work
    real_records: dict[str, list[dict[str, Any]]] = {}
    for p in real:
        assert source is not None
        real_records[p] = load_source(source, p, lang=langs[0])
    tok = get_tokenizer(tokenizer)
    cells = _cells(pipelines, langs, lengths, need_range)
    pools = {lang: LongTextPool.build(load_corpus(corpus, lang=lang, seed=seed, readers=corpus_readers()), tok, lang)
             for lang in dict.fromkeys(lang for _p, lang, _b, _g in cells)}
    # every draw (QA records, needles, lengths, layouts) keyed on the whole build, the long texts' content and
    # the QA source included (niah.build.buildkey): keyed on the seed alone, a question -> answer table of the default
    # build answered every synthetic sample of a build from another corpus
    key = build_key(BENCHMARK, seed, {
        "pipelines": list(pipelines), "langs": list(langs), "lengths": list(lengths), "needles": list(need_range),
        "per_cell": per_cell, "tokenizer": tok.name,
        "corpus_text": {lang: pool_digest(pool.units, pool.doc_starts) for lang, pool in pools.items()},
        "source": path_digest(source) if source is not None and real else None})
    py_rng = key.random("samples")
    np_rng = key.numpy("layouts")
    # diary needles break their lines as often as the corpus has lines without a sentence end
    break_shares = {lang: synth.line_break_share(lang, pool.bare_lines) for lang, pool in pools.items()}
    stats: dict[str, int] = {}
    skipped: dict[str, int] = {}
    used_real: dict[str, set[str]] = {p: set() for p in real}
    total = len(cells) * per_cell
    # the same progress bar as the other builders draw (it printed a counter line per twentieth before)
    with DatasetWriter(out) as writer, progress_bar(progress, total, "building seq-niah") as advance:
        for pipeline, lang, lbin, group in cells:
            pool = pools[lang]
            g_lo, g_hi = NEEDLE_GROUPS[group]
            lo_n, hi_n = max(g_lo, need_range[0]), min(g_hi, need_range[1])
            lo_len, hi_len = (LENGTH_BINS | SHORT_LENGTH_BINS)[lbin]
            for i in range(per_cell):
                if pipeline == "synthetic-temporal":
                    qa = synth.synthetic_temporal_qa(py_rng, lang, py_rng.randint(lo_n, hi_n), break_shares[lang])
                else:
                    pool_records = [r for r in real_records[pipeline] if r["meta"]["lang"] == lang
                                    and lo_n <= len(r["needles"]) <= hi_n and r["md5"] not in used_real[pipeline]]
                    if not pool_records:
                        skipped[f"{pipeline}/{lang}/{lbin}/{group}"] = per_cell - i
                        break
                    qa = py_rng.choice(pool_records)
                    used_real[pipeline].add(qa["md5"])
                target = py_rng.randrange(lo_len, hi_len)
                sid = f"{pipeline}-{lang}-{lbin}-n{group.replace('>', 'gt')}-{i:04d}"
                writer.write(make_sample(qa, pipeline, pool, target, np_rng, py_rng, sample_id=sid, stats=stats))
                advance()
        manifest: dict[str, Any] = {
            "benchmark": BENCHMARK, "split": "generated", "seed": seed, "build_key": key.digest, "tokenizer": tok.name, "corpus": corpus,
            "pipelines": list(pipelines), "langs": list(langs), "lengths": list(lengths),
            "needles": list(need_range), "per_cell": per_cell, "length_counted": "tokens of the whole input "
            "(document prefix + text with needles + blank line + question prefix + question)",
            "rejected_texts": stats.get("rejected_texts", 0), "redraws": stats.get("redraws", 0),
            "skipped_cells": skipped, "source": str(source) if source is not None else None,
        }
        if stats.get("rejected_texts"):
            print(f"seq-niah: {stats['rejected_texts']} drawn texts had <= 80 cut points and were rejected",
                  file=sys.stderr)
        writer.finish(manifest)
        manifest["num_samples"] = writer.count
    return manifest
