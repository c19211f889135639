"""Exact-length haystack assembly by prefix sums, ending on a whole sentence.

Each corpus sentence becomes a *unit* that is tokenized once, in the context where it will stand: a unit is
``lead + sentence + trail``, where ``lead`` is the space that joins it to the previous sentence of its
paragraph (spaced languages) and ``trail`` is the paragraph break after a paragraph's last sentence or the
document separator after a document's last sentence. A unit is counted after an anchor that ends the way
its real predecessor ends (``count(anchor + unit) - count(anchor)``), so that, for the tokenizers whose
counts are provably additive over these boundaries, the count of any concatenation of whole documents is
the sum of its unit counts.

Documents keep their structure as text extraction leaves a web page: a title and section headings on lines
of their own, list items as lines led by "- " or "1. " (one newline between items of one list), blank lines
between paragraphs (``PoolDocument``, ``pool_document``). A heading or list marker is part of the unit of
the sentence it stands before, so no slot ever falls between a heading and its paragraph; needles go only
into plain paragraphs (never into a list, never before a heading or marker), so where a needle stands
carries no formatting cue. A needle that opens a paragraph under a heading goes inside that unit: after the
heading lines (``TextPool.lead_len``), before the sentence.

A haystack is whole documents in a random order plus a prefix of one more document. When documents carry
a kind (``PoolDocument.group``), the order is drawn with weights that keep the large kinds from filling
most of a haystack (``GROUP_BALANCE``). Its length is made
exact by choosing that last prefix among all documents not used yet so that its count (with the trail of
its last sentence removed) is exactly what is left: an indexed lookup over precomputed prefix sums. When no
document has such a prefix, the last whole document is swapped for others (each swap changes what is left);
only when all of that fails is the last sentence cut at a word boundary (``Layout.sentence_end`` is False;
callers count how often). Nothing re-tokenizes a growing context. For tokenizers or languages whose counts
are not additive, a verify-and-repair pass counts the finished text once and re-chooses the ending.

Layout: a haystack is a list of slots (boundaries between units) into which images and needles go. Images
go only to paragraph boundaries, as web pages (OBELICS) place them. A needle stands as a paragraph of its own
as often as a sentence of a plain paragraph does in the corpus (``TextPool.alone_share``, spaced languages);
otherwise it goes to one of the allowed positions in a paragraph near its target depth, drawn uniformly, so
that opening, continuing or closing a paragraph is as likely as chance. Depth is the fraction of context
tokens (text + image) before a needle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from niah.tokens.text import TextTokenizer
from niah.util.errors import ConfigError

# Languages whose sentences are joined with a space (units start with " "); others are joined with nothing.
SPACED_LANGS = frozenset({"en", "de", "fr", "es", "it", "pt", "nl"})
#: What separates two paragraphs of one document.
PARAGRAPH_BREAK = "\n\n"
#: What separates two concatenated documents by default (a Markdown rule between blank lines); a family whose
#: official files use another separator passes its own (``TextPool.build(doc_separator=...)``).
DEFAULT_DOC_SEPARATOR = "\n\n---\n\n"
#: What separates two items of one list (each item is a line of its own).
LIST_BREAK = "\n"
#: Document order is drawn with weight ``group_tokens ** -GROUP_BALANCE`` per document, so a kind's expected
#: share of a haystack goes as ``group_tokens ** (1 - GROUP_BALANCE)``: 0 draws documents uniformly (a kind
#: twice as large fills twice as much), 1 gives every kind the same share.
GROUP_BALANCE = 0.5
_ANCHOR = "Anchor."
# A sentence ends with a terminator, optionally followed by closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f\u2026][\"'\u201d\u2019)\]\u300d\u300f\uff09]*$")
TRAIL_NONE, TRAIL_PARAGRAPH, TRAIL_DOCUMENT, TRAIL_LINE = 0, 1, 2, 3
#: List styles of a paragraph (``PoolDocument.lists``): a plain paragraph, a bulleted or a numbered item.
LIST_NONE, LIST_BULLET, LIST_NUMBERED = "", "-", "1."


def make_unit(sentence: str, lang: str) -> str:
    """The unit form of a sentence: space-led for spaced languages so units concatenate into prose."""
    return (" " + sentence) if lang in SPACED_LANGS else sentence


def ends_sentence(text: str) -> bool:
    """Whether ``text`` (trailing whitespace ignored) ends with a sentence terminator."""
    return bool(_SENTENCE_END.search(text.rstrip()))


def _counts_after(tok: TextTokenizer, texts: Sequence[str], anchor: str) -> list[int]:
    """Tokens each text adds after ``anchor`` (one batched call)."""
    if not texts:
        return []
    if anchor == _ANCHOR:
        return list(tok.unit_counts(texts))
    base = tok.count(anchor)
    return [c - base for c in tok.count_batch([anchor + t for t in texts])]


def _as_paragraphs(body: Sequence[Any]) -> list[list[str]]:
    """A document body as paragraphs of sentences; a flat list of sentences is one paragraph."""
    if all(isinstance(s, str) for s in body):
        return [list(body)]
    return [list(p) for p in body]


@dataclass(frozen=True)
class PoolDocument:
    """A document as a haystack prints it: paragraphs of sentences and how the page lays them out.

    ``headings[i]``: the lines printed above paragraph ``i`` (section headings; the title above the first);
    ``lists[i]``: ``LIST_NONE``, ``LIST_BULLET`` or ``LIST_NUMBERED`` (numbers count up within a list);
    ``group``: the document's kind (genre), which balances kinds in a haystack. Empty sequences: no structure.
    """

    id: str
    paragraphs: Sequence[Sequence[str]]
    headings: Sequence[Sequence[str]] = ()
    lists: Sequence[str] = ()
    group: str = ""


_LIST_OF_KIND = {"p": LIST_NONE, "li": LIST_BULLET, "ol": LIST_NUMBERED}


def pool_document(doc: Any) -> PoolDocument:
    """A ``niah.corpus.CorpusDocument`` split into sentences, with its title (when a reader sees it), section
    headings and list items, ready for ``TextPool.build``."""
    from niah.corpus.text import split_sentences

    n = len(doc.paragraphs)
    headings: list[list[str]] = [[] for _ in range(n)]
    if doc.title_in_text and doc.title and n:
        headings[0].append(doc.title)
    for i, text in doc.headings:
        if i < n:  # a heading after the last paragraph heads nothing: not printed
            headings[i].append(text)
    lists = [_LIST_OF_KIND[k] for k in doc.kinds] if doc.kinds else []
    return PoolDocument(doc.id, [split_sentences(p, doc.lang) for p in doc.paragraphs],
                        headings=headings if any(headings) else [], lists=lists, group=doc.genre)


def _structured(doc: Any, paragraph_break: str, banned: list[str]
                ) -> tuple[str, list[list[str]], list[str], list[str], list[bool]]:
    """(id, paragraphs of kept sentences, lead text of each paragraph, list style of each paragraph, whether
    headings stand above each paragraph).

    Excluded strings drop sentences and heading lines alike. A paragraph whose every sentence is excluded
    goes; its headings pass to the next paragraph when that one has none of its own (so a title survives the loss of a first paragraph). Numbered items are numbered
    here, after exclusions, counting up within a run of items that no heading interrupts."""
    if isinstance(doc, PoolDocument):
        doc_id, body = doc.id, [list(p) for p in doc.paragraphs]
        heads = [list(h) for h in doc.headings] or [[] for _ in body]
        styles = list(doc.lists) or [LIST_NONE] * len(body)
        if len(heads) != len(body) or len(styles) != len(body):
            raise ConfigError(f"document {doc_id!r}: headings and lists must have one entry per paragraph")
    else:
        doc_id, raw = doc
        body = _as_paragraphs(raw)
        heads, styles = [[] for _ in body], [LIST_NONE] * len(body)
    paragraphs: list[list[str]] = []
    leads: list[str] = []
    kept_styles: list[str] = []
    headed: list[bool] = []
    pending: list[str] = []
    number = 0
    for sentences, head, style in zip(body, heads, styles, strict=True):
        kept = [s for s in sentences if s and not any(b in s.lower() for b in banned)]
        head = [h for h in head if h and not any(b in h.lower() for b in banned)] or pending
        if not kept:
            pending = head
            continue
        pending = []
        number = number + 1 if (style == LIST_NUMBERED and not head and kept_styles
                                and kept_styles[-1] == LIST_NUMBERED) else 1
        marker = {LIST_NONE: "", LIST_BULLET: "- ", LIST_NUMBERED: f"{number}. "}[style]
        paragraphs.append(kept)
        leads.append("".join(h + paragraph_break for h in head) + marker)
        kept_styles.append(style)
        headed.append(bool(head))
    return doc_id, paragraphs, leads, kept_styles, headed


@dataclass
class TextPool:
    """All sentence units of a corpus, tokenized once, with prefix sums per unit and per document."""

    tokenizer: TextTokenizer
    lang: str
    units: list[str]
    unit_tokens: np.ndarray  # int64, tokens each unit adds in context
    unit_cum: np.ndarray  # len(units)+1 prefix sums
    doc_starts: np.ndarray  # len(docs)+1, first unit of each document
    doc_ids: list[str]
    lead_space: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # unit starts with " "
    trail_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))  # TRAIL_*
    trail_len: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # chars of the trail
    end_tokens: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # as the last unit
    first_delta: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # per doc, at start
    sentence_end: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    # the unit opens with a heading, title or list marker (nothing may be put before it)
    struct_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    in_list: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # unit of a list item
    # chars of the heading lines (with their breaks) and list marker that open the unit (0: none)
    lead_len: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    doc_weight: np.ndarray | None = None  # per document, for the draw order (None: uniform)
    paragraph_break: str = PARAGRAPH_BREAK
    doc_separator: str = DEFAULT_DOC_SEPARATOR
    clean_boundaries: bool = True  # unit boundaries never merge tokens (see ``additive``)
    text: str = ""  # all units concatenated, so a run of consecutive units is one slice
    char_off: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))

    def __post_init__(self) -> None:
        n = len(self.units)
        if not self.text and self.units:
            self.text = "".join(self.units)
            off = np.zeros(n + 1, dtype=np.int64)
            np.cumsum([len(u) for u in self.units], out=off[1:])
            self.char_off = off
        if len(self.end_tokens) != n:  # a pool made by hand: no trails, every unit may end a context
            self.lead_space = np.array([u.startswith(" ") for u in self.units], dtype=bool)
            self.trail_kind = np.zeros(n, dtype=np.int8)
            self.trail_len = np.zeros(n, dtype=np.int64)
            self.end_tokens = self.unit_tokens.copy()
            self.first_delta = np.zeros(len(self.doc_ids), dtype=np.int64)
            self.sentence_end = np.array([ends_sentence(u) for u in self.units], dtype=bool)
        if len(self.struct_start) != n:
            self.struct_start = np.zeros(n, dtype=bool)
            self.in_list = np.zeros(n, dtype=bool)
        if len(self.lead_len) != n:
            self.lead_len = np.zeros(n, dtype=np.int64)
        # the prefix-end index: for each unit that ends a sentence, the tokens of its document's prefix up to
        # and including it (trail removed); sorted so that "which prefixes have exactly R tokens" is a lookup
        self.doc_of_unit = np.repeat(np.arange(len(self.doc_ids)), np.diff(self.doc_starts))
        rel = self.unit_cum[:-1] - self.unit_cum[self.doc_starts[self.doc_of_unit]] + self.end_tokens
        ok = np.flatnonzero(self.sentence_end)
        self._end_units, self._end_vals = _sorted_index(ok, rel[ok])
        # the same when the prefix is the whole context (its first unit is counted standalone); a one-unit
        # prefix is left out (its start and end corrections are not independent)
        ok_first = ok[ok != self.doc_starts[self.doc_of_unit[ok]]]
        self._first_units, self._first_vals = _sorted_index(
            ok_first, rel[ok_first] + self.first_delta[self.doc_of_unit[ok_first]])
        self.alone_share = self._alone_share()

    def _alone_share(self) -> float:
        """The share of plain-paragraph sentences (not list items) that are a paragraph of their own, each
        document weighted as the draw order weights it (about how often it enters a haystack): how often a
        needle stands alone. 0 where a needle never does: unspaced languages (as they never open or close a
        paragraph either), and pools without a paragraph break inside a document."""
        if self.lang not in SPACED_LANGS or not (self.trail_kind == TRAIL_PARAGRAPH).any():
            return 0.0
        plain = ~self.in_list
        alone = plain & ~self.lead_space & (self.trail_kind != TRAIL_NONE)
        w = np.ones(len(self.units)) if self.doc_weight is None else self.doc_weight[self.doc_of_unit]
        total = float(w[plain].sum())
        return float(w[alone].sum()) / total if total else 0.0

    def span_text(self, a: int, b: int) -> str:
        return self.text[int(self.char_off[a]): int(self.char_off[b])]

    def span_tokens(self, a: int, b: int) -> int:
        return int(self.unit_cum[b] - self.unit_cum[a])

    @property
    def additive(self) -> bool:
        """Counts of concatenated units are exact sums: an additive tokenizer, a spaced language, and
        boundaries that never merge (the trail ends in whitespace, or the tokenizer pre-splits by regex)."""
        return self.tokenizer.additive and self.lang in SPACED_LANGS and self.clean_boundaries

    @property
    def total_tokens(self) -> int:
        return int(self.unit_cum[-1])

    @property
    def num_docs(self) -> int:
        return len(self.doc_ids)

    @classmethod
    def build(cls, documents: Iterable[tuple[str, Sequence[Any]] | PoolDocument], tokenizer: TextTokenizer,
              lang: str, *, exclude: Iterable[str] = (), paragraph_break: str = PARAGRAPH_BREAK,
              doc_separator: str = DEFAULT_DOC_SEPARATOR) -> TextPool:
        """``documents`` yields (doc_id, paragraphs), each paragraph a list of sentences (a flat list of
        sentences is one paragraph), or ``PoolDocument``s with their headings and lists. Sentences containing
        any ``exclude`` string are dropped (so a haystack never already contains a needle's wording)."""
        banned = [e.lower() for e in exclude if e]
        spaced = lang in SPACED_LANGS
        units: list[str] = []
        lead: list[bool] = []
        kinds: list[int] = []
        prev_kinds: list[int] = []  # trail kind of the unit before (doc-initial units follow a separator)
        struct: list[bool] = []
        lead_chars: list[int] = []
        listed: list[bool] = []
        starts = [0]
        ids: list[str] = []
        groups: list[str] = []
        for doc in documents:
            doc_id, paragraphs, leads, styles, headed = _structured(doc, paragraph_break, banned)
            if not paragraphs:
                continue
            prev = TRAIL_DOCUMENT
            for pi, para in enumerate(paragraphs):
                in_list = styles[pi] != LIST_NONE
                for si, sentence in enumerate(para):
                    if si < len(para) - 1:
                        kind, trail = TRAIL_NONE, ""
                    elif pi < len(paragraphs) - 1:
                        # consecutive items of one list are lines; a heading above the next item starts a block
                        line = in_list and styles[pi + 1] != LIST_NONE and not headed[pi + 1]
                        kind, trail = (TRAIL_LINE, LIST_BREAK) if line else (TRAIL_PARAGRAPH, paragraph_break)
                    else:
                        kind, trail = TRAIL_DOCUMENT, doc_separator
                    space = spaced and si > 0
                    head = leads[pi] if si == 0 else ""
                    units.append((" " if space else "") + head + sentence + trail)
                    lead.append(space)
                    kinds.append(kind)
                    prev_kinds.append(prev)
                    struct.append(bool(head))
                    lead_chars.append(len(head))
                    listed.append(in_list)
                    prev = kind
            starts.append(len(units))
            ids.append(doc_id)
            groups.append(doc.group if isinstance(doc, PoolDocument) else "")
        if not units:
            raise ConfigError("the corpus has no text")
        trails = {TRAIL_NONE: "", TRAIL_PARAGRAPH: paragraph_break, TRAIL_DOCUMENT: doc_separator,
                  TRAIL_LINE: LIST_BREAK}
        counts = np.zeros(len(units), dtype=np.int64)
        end_counts = np.zeros(len(units), dtype=np.int64)
        kind_arr = np.asarray(kinds, dtype=np.int8)
        trail_len = np.array([len(trails[k]) for k in kinds], dtype=np.int64)
        prev_arr = np.asarray(prev_kinds, dtype=np.int8)
        for pk, trail_before in trails.items():  # one batched call per kind of predecessor
            idx = np.flatnonzero(prev_arr == pk)
            if not len(idx):
                continue
            anchor = _ANCHOR + trail_before
            counts[idx] = _counts_after(tokenizer, [units[i] for i in idx], anchor)
            trailed = idx[kind_arr[idx] != TRAIL_NONE]
            end_counts[idx] = counts[idx]
            end_counts[trailed] = _counts_after(
                tokenizer, [units[i][: len(units[i]) - int(trail_len[i])] for i in trailed], anchor)
        first = np.asarray(starts[:-1], dtype=np.int64)
        first_delta = np.asarray(tokenizer.count_batch([units[i] for i in first]), dtype=np.int64) - counts[first]
        cum = np.zeros(len(units) + 1, dtype=np.int64)
        np.cumsum(counts, out=cum[1:])
        used_trails = [trails[k] for k in (TRAIL_PARAGRAPH, TRAIL_DOCUMENT, TRAIL_LINE) if k in set(kinds)]
        clean = _boundaries_clean(tokenizer, used_trails or [paragraph_break, doc_separator], any(struct))
        ends = np.array([ends_sentence(u) for u in units], dtype=bool)
        doc_tok = cum[np.asarray(starts[1:])] - cum[np.asarray(starts[:-1])]
        return cls(tokenizer, lang, units, counts, cum, np.asarray(starts, dtype=np.int64), ids,
                   lead_space=np.asarray(lead, dtype=bool), trail_kind=kind_arr, trail_len=trail_len,
                   end_tokens=end_counts, first_delta=first_delta, sentence_end=ends,
                   struct_start=np.asarray(struct, dtype=bool), in_list=np.asarray(listed, dtype=bool),
                   lead_len=np.asarray(lead_chars, dtype=np.int64),
                   doc_weight=_group_weights(groups, doc_tok),
                   paragraph_break=paragraph_break, doc_separator=doc_separator, clean_boundaries=clean)

    def doc_tokens(self) -> np.ndarray:
        return self.unit_cum[self.doc_starts[1:]] - self.unit_cum[self.doc_starts[:-1]]

    def trail_before(self, u: int) -> str:
        """The text that precedes unit ``u`` in any haystack (its paragraph break or a document separator)."""
        if u == int(self.doc_starts[self.doc_of_unit[u]]):
            return self.doc_separator
        return {TRAIL_PARAGRAPH: self.paragraph_break, TRAIL_LINE: LIST_BREAK}.get(int(self.trail_kind[u - 1]), "")

    def draw_order(self, rng: np.random.Generator) -> np.ndarray:
        """A random order of all documents: uniform, or weighted by ``doc_weight`` (sampling without
        replacement by exponential races: the smaller ``Exp(1) / weight``, the earlier)."""
        if self.doc_weight is None:
            return rng.permutation(self.num_docs)
        return np.argsort(rng.exponential(size=self.num_docs) / self.doc_weight, kind="stable")

    def find_end(self, tokens: int, excluded: np.ndarray, rng: np.random.Generator, *,
                 as_first: bool = False) -> int | None:
        """A unit ending a sentence whose document prefix (up to it, trail removed) has exactly ``tokens``
        tokens, in a document not marked in ``excluded``; chosen at random among all such units."""
        units, vals = (self._first_units, self._first_vals) if as_first else (self._end_units, self._end_vals)
        a = int(np.searchsorted(vals, tokens, side="left"))
        b = int(np.searchsorted(vals, tokens, side="right"))
        if a == b:
            return None
        cand = units[a:b]
        cand = cand[~excluded[self.doc_of_unit[cand]]]
        if not len(cand):
            return None
        return int(cand[int(rng.integers(len(cand)))])


def _group_weights(groups: Sequence[str], doc_tok: np.ndarray) -> np.ndarray | None:
    """Per-document draw weights ``tokens_of_its_group ** -GROUP_BALANCE`` (None when there is one group)."""
    if len(set(groups)) < 2:
        return None
    names, index = np.unique(np.asarray(groups), return_inverse=True)
    group_tok = np.bincount(index, weights=doc_tok.astype(np.float64), minlength=len(names))
    return np.maximum(group_tok[index], 1.0) ** -GROUP_BALANCE


_SENTENCE_ENDINGS = ("end.", "end?", "end!", 'end."', "end.)", "end”", "end")
_SENTENCE_STARTS = ("The", "the", '"The', "'The", "(The", "1987", "“The", "Ça")
_STRUCTURED_STARTS = ("- The", "1. The", "12. The", "Route\n\nThe", "Route\n\n1. The")


def _boundaries_clean(tok: TextTokenizer, trails: Sequence[str], structured: bool = False) -> bool:
    """Whether a unit after ``trail`` counts the same whatever sentence ending precedes the trail.

    BPE tokenizers that pre-split by regex (cl100k, o200k) start a new pre-token after a run of newlines or
    whitespace, and after ``</s>`` the pre-token that reaches into the next word starts inside the trail,
    where the anchor reproduces it; an empty trail would glue the next word to the previous sentence's
    punctuation. That is checked here on typical endings and starts. SentencePiece merges anywhere inside a
    whitespace-free piece, so it is trusted only when every trail ends in whitespace.
    """
    if not hasattr(tok, "pretokenize"):
        return all(t[-1:].isspace() for t in trails)
    starts = _SENTENCE_STARTS + (_STRUCTURED_STARTS if structured else ())
    for trail in trails:
        base = tok.count(_ANCHOR + trail)
        for start in starts:
            after = tok.count(_ANCHOR + trail + start) - base
            for end in _SENTENCE_ENDINGS:
                if tok.count(end + trail + start) != tok.count(end + trail) + after:
                    return False
    return True


def _sorted_index(units: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(values, kind="stable")
    return units[order], values[order]


@dataclass
class Selection:
    """Whole units (as index ranges, in reading order), and how the context ends.

    ``sentence_end``: the last unit ends a sentence and the lengths add up exactly (its trail is dropped,
    ``first_delta`` corrects the count of the context's first unit, which stands at the very start).
    Otherwise ``tail_tokens`` are still missing and are cut from ``next_units`` at a word boundary.
    """

    ranges: list[tuple[int, int]]
    tail: str
    tail_tokens: int
    next_units: list[int]  # units after the selection in the reading stream (tail candidates)
    sentence_end: bool = False
    first_delta: int = 0


def select_text(pool: TextPool, n_tokens: int, rng: np.random.Generator, *,
                allow_sentence_end: bool = True) -> Selection:
    """Choose documents in a random order, take whole ones while they fit, and end on a document prefix
    that makes the count exact (see the module docstring); fall back to a word cut only when none exists.

    No unit is used twice in one haystack (documents are drawn without replacement). Cost: one permutation,
    a few prefix-sum lookups.
    """
    if n_tokens < 0:
        raise ConfigError("target length is smaller than the images and needles it must hold")
    if n_tokens > pool.total_tokens - 64:
        raise ConfigError(
            f"the corpus holds {pool.total_tokens} {pool.tokenizer.name} tokens of {pool.lang} text, "
            f"not enough for a haystack of {n_tokens} text tokens without repeating a passage; "
            "use a larger corpus (--corpus) or a shorter length"
        )
    order = pool.draw_order(rng)
    doc_tok = pool.doc_tokens()
    cum = np.cumsum(doc_tok[order])
    if allow_sentence_end and n_tokens > 0:
        sel = _exact_sentence_end(pool, n_tokens, order, doc_tok, cum, rng)
        if sel is not None:
            return sel
    k = int(np.searchsorted(cum, n_tokens, side="right"))  # docs order[:k] fit whole
    ranges: list[tuple[int, int]] = []
    for d in order[:k]:
        ranges.append((int(pool.doc_starts[d]), int(pool.doc_starts[d + 1])))
    used = int(cum[k - 1]) if k else 0
    remaining = n_tokens - used
    next_units: list[int] = []
    if k < len(order):
        d = int(order[k])
        s, e = int(pool.doc_starts[d]), int(pool.doc_starts[d + 1])
        # whole units of doc d that fit in the remaining budget
        j = int(np.searchsorted(pool.unit_cum[s:e + 1], pool.unit_cum[s] + remaining, side="right")) - 1
        if j > 0:
            ranges.append((s, s + j))
            remaining -= int(pool.unit_cum[s + j] - pool.unit_cum[s])
        next_units = list(range(s + j, e))
        for d2 in order[k + 1: k + 4]:  # more candidates in case no cut of the next unit is exact
            next_units.extend(range(int(pool.doc_starts[d2]), int(pool.doc_starts[d2 + 1])))
    return Selection(ranges=ranges, tail="", tail_tokens=remaining, next_units=next_units)


_SWAPS = 64  # documents tried in place of the last whole one before giving up on a sentence end


def _exact_sentence_end(pool: TextPool, n: int, order: np.ndarray, doc_tok: np.ndarray, cum: np.ndarray,
                        rng: np.random.Generator) -> Selection | None:
    """Whole documents plus one document prefix that together count exactly ``n`` tokens, or None."""
    excluded = np.zeros(pool.num_docs, dtype=bool)

    def attempt(whole: list[int]) -> Selection | None:
        if whole:
            delta = int(pool.first_delta[whole[0]])
            left = n - delta - int(doc_tok[whole].sum())
            if left <= 0:
                return None
            excluded[whole] = True
            u = pool.find_end(left, excluded, rng)
            excluded[whole] = False
        else:
            delta = 0
            u = pool.find_end(n, excluded, rng, as_first=True)
        if u is None:
            return None
        d = int(pool.doc_of_unit[u])
        if not whole:
            delta = int(pool.first_delta[d])
        ranges = [(int(pool.doc_starts[w]), int(pool.doc_starts[w + 1])) for w in whole]
        ranges.append((int(pool.doc_starts[d]), u + 1))
        return Selection(ranges=ranges, tail="", tail_tokens=0, next_units=[], sentence_end=True,
                         first_delta=delta)

    k = int(np.searchsorted(cum, n, side="right"))
    base = [int(x) for x in order[:k]]
    for j in range(k, max(-1, k - 3), -1):  # the k whole docs that fit, or one or two fewer
        sel = attempt(base[:j])
        if sel is not None:
            return sel
    # swap the last whole document for others (or, when none fits whole, put a shorter one first): each
    # changes what is left for the prefix
    for t in range(k, min(len(order), k + _SWAPS)):
        sel = attempt(base[:k - 1] + [int(order[t])] if k else [int(order[t])])
        if sel is not None:
            return sel
    return None


def _cut_points(unit: str, lang: str) -> list[int]:
    """Candidate cut positions: ends of words (before a space) for spaced languages, every char otherwise."""
    if lang in SPACED_LANGS:
        return [i for i in range(1, len(unit)) if unit[i] == " " and unit[i - 1] != " "]
    return list(range(1, len(unit)))


def _exact_prefix(unit: str, lang: str, gap: int, count: Any) -> str | None:
    """The prefix of ``unit`` ending at a word end whose count is exactly ``gap``, if there is one."""
    points = _cut_points(unit, lang)
    lo, hi = 0, len(points) - 1
    # binary search on the (monotone in practice) prefix count, then a short local scan for exactness
    while lo <= hi:
        mid = (lo + hi) // 2
        c = count(unit[: points[mid]])
        if c == gap:
            return unit[: points[mid]]
        if c < gap:
            lo = mid + 1
        else:
            hi = mid - 1
    for p in points[max(0, hi - 2): hi + 3]:
        if count(unit[:p]) == gap:
            return unit[:p]
    return None


def cut_piece(pool: TextPool, candidates: Sequence[int], gap: int, *, standalone: bool = False) -> str:
    """Text that adds exactly ``gap`` tokens: whole candidate units while they fit, then a word-boundary
    prefix of one more (counted like a unit, or standalone when it will be the whole context text).
    Candidates whose every prefix jumps over the gap are skipped. Raises ConfigError when nothing fits.
    This is the fallback when no whole-sentence ending adds up (``Layout.sentence_end`` is then False)."""
    if gap == 0:
        return ""
    tok = pool.tokenizer
    taken: list[str] = []
    left = gap
    for u in candidates:
        unit = pool.units[u].rstrip()
        if standalone and not taken:
            piece = _exact_prefix(unit.lstrip(" "), pool.lang, left, tok.count)
            if piece is not None:
                return piece
            continue
        piece = _exact_prefix(unit, pool.lang, left, tok.unit_count)
        if piece is not None:
            return "".join(taken) + piece
        if int(pool.unit_tokens[u]) < left and not pool.trail_kind[u]:
            taken.append(unit)
            left -= int(pool.unit_tokens[u])
    raise ConfigError(f"could not cut a text piece of exactly {gap} tokens from the corpus")


def _unspaced_start(tok: TextTokenizer, unit: str, unit_tokens: int) -> tuple[str, int]:
    """A context does not start with a space: the first unit without its leading space, and how many tokens
    that changes (only this unit is re-counted; additivity covers the rest)."""
    stripped = unit.lstrip(" ")
    return stripped, tok.count(stripped) - unit_tokens


@dataclass
class Item:
    """One element of a laid-out context, in order."""

    kind: str  # "text" | "image" | "needle"
    text: str = ""
    tokens: int = 0
    payload: Any = None  # image object for "image"; needle info for "needle"


@dataclass
class Layout:
    """A finished context: items in order, exact token totals, and the realized needle depths."""

    items: list[Item]
    text_tokens: int
    image_tokens: int
    needle_depths: list[float] = field(default_factory=list)  # one per needle, in needle order given
    image_depths: list[float] = field(default_factory=list)  # one per image item, in order
    sentence_end: bool = True  # False when the exact length needed a cut inside the last sentence
    # pinned images whose window held no paragraph boundary, placed at a sentence boundary inside it instead
    images_off_boundary: int = 0

    @property
    def context_length(self) -> int:
        return self.text_tokens + self.image_tokens

    def text(self) -> str:
        return "".join(i.text for i in self.items if i.kind != "image")


@dataclass
class ImageSpec:
    """An image to place: its token cost; ``target_depth`` pins it near a depth (image needles)."""

    tokens: int
    payload: Any = None
    target_depth: float | None = None
    window: tuple[float, float] | None = None


@dataclass
class NeedleSpec:
    """A text needle (already in unit form, i.e. space-led for spaced languages) and its depth request."""

    text: str
    target_depth: float
    window: tuple[float, float] = (0.0, 1.0)
    payload: Any = None


def _choose_slot(depths: np.ndarray, target: float, window: tuple[float, float], lo_slot: int,
                 in_window: Any = None, blocked: np.ndarray | None = None) -> int:
    """Slot index >= lo_slot whose depth is closest to target, preferring slots inside the window and
    never a ``blocked`` one (unless every slot is blocked)."""
    cand = depths[lo_slot:]
    ok = in_window(cand) if in_window is not None else (cand >= window[0]) & (cand <= window[1])
    dist = np.abs(cand - target)
    if blocked is not None:
        free = ~blocked[lo_slot:]
        if free.any():
            dist = np.where(free, dist, np.inf)
            ok = ok & free
    if ok.any():
        dist = np.where(ok, dist, np.inf)
    return lo_slot + int(np.argmin(dist))


#: A needle goes to one of the allowed positions nearest its target depth that together hold this many
#: positions, drawn uniformly (a paragraph boundary holds two: closing one paragraph, opening the next). The
#: plain nearest slot would favour the positions beside long stretches without any (lists, headed openings),
#: which close paragraphs, and give a boundary's two positions the weight of one.
NEAR_POSITIONS = 8


#: A needle refused an opening (or closing) that would change the count tries this many other such positions,
#: nearest first, before any position: redrawn among all positions, needles opened paragraphs 0.04-0.08 less
#: often than random positions (most refusals are a needle's first word counting otherwise after a break).
KIND_TRIES = 4


#: A needle that stands alone goes to one of this many paragraph boundaries nearest its target depth (they lie
#: a paragraph apart, where ``NEAR_POSITIONS`` positions lie about a sentence apart).
ALONE_NEAR = 2


def _choose_needle_slot(depths: np.ndarray, target: float, window: tuple[float, float], lo_slot: int,
                        in_window: Any, blocked: np.ndarray, weight: np.ndarray, rng: np.random.Generator,
                        positions: int = NEAR_POSITIONS) -> int:
    """A slot >= lo_slot inside the window, not blocked, drawn with probability proportional to ``weight``
    (its allowed positions) among the nearest slots to ``target`` holding ``positions`` positions; the
    nearest slot (``_choose_slot``) when the window holds none."""
    cand = depths[lo_slot:]
    ok = in_window(cand) if in_window is not None else (cand >= window[0]) & (cand <= window[1])
    ok &= ~blocked[lo_slot:] & (weight[lo_slot:] > 0)
    idx = np.flatnonzero(ok)
    if not len(idx):
        return _choose_slot(depths, target, window, lo_slot, in_window, blocked)
    c = int(np.searchsorted(cand[idx], target))  # depths grow with the slot index
    near = idx[max(0, c - positions): c + positions]  # every slot holds >= 1 position
    near = near[np.argsort(np.abs(cand[near] - target), kind="stable")]
    w = weight[lo_slot:][near]
    take = int(np.searchsorted(np.cumsum(w), positions)) + 1
    near, w = near[:take], w[:take]
    pick = int(np.searchsorted(np.cumsum(w), rng.random() * float(w.sum()), side="right"))
    return lo_slot + int(near[min(pick, len(near) - 1)])


def _window_mask(depths: np.ndarray, window: tuple[float, float], in_window: Any) -> np.ndarray:
    return in_window(depths) if in_window is not None else (depths >= window[0]) & (depths <= window[1])


class _Redraw(Exception):
    """This draw of documents cannot be made exact (rare: the first unit's re-count overshoots a tiny gap)."""


class _Retarget(Exception):
    """Non-additive tokenizer: the finished text counts ``diff`` tokens off; choose the ending again."""

    def __init__(self, diff: int) -> None:
        super().__init__(diff)
        self.diff = diff


_EXACT_TRIES = 8  # whole-sentence endings tried (non-additive pools re-aim after each) before a word cut
_ALONE_TRIES = _EXACT_TRIES + 3  # tries that may stand a needle alone (the last ones place needles as before)


def assemble(pool: TextPool, target: int, rng: np.random.Generator, *, images: Sequence[ImageSpec] = (),
             needles: Sequence[NeedleSpec] = (), in_window: Any = None, needle_ends: bool = True,
             like_sentences: bool = False) -> Layout:
    """See :func:`_assemble_once`; ``needle_ends=False`` keeps every needle off the context's end (at least one
    haystack sentence follows the last one), as every needle is kept off its start; ``like_sentences=True``
    places a needle inside a paragraph as often as a sentence of it stands there (:func:`_like_sentences`)."""
    adjust = 0
    for attempt in range(_EXACT_TRIES + 6):
        state = rng.bit_generator.state
        try:
            return _assemble_once(pool, target, rng, images=images, needles=needles, in_window=in_window,
                                  needle_ends=needle_ends, adjust=adjust, allow_sentence_end=attempt < _EXACT_TRIES,
                                  allow_alone=attempt < _ALONE_TRIES, like_sentences=like_sentences)
        except _Retarget as exc:
            rng.bit_generator.state = state  # same documents and placements, another ending
            adjust += exc.diff
        except _Redraw:
            adjust = 0
    raise ConfigError(f"could not assemble an exact {target}-token context from this corpus")


def _side_draws(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` uniform draws that leave ``rng`` where it was: from a copy of its stream jumped far ahead (its
    own stream when the bit generator cannot jump). A layout whose needles all stay in their paragraphs is
    then drawn exactly as without the choice (the same documents, images and slots)."""
    jumped = getattr(rng.bit_generator, "jumped", None)
    return (np.random.Generator(jumped()) if jumped is not None else rng).random(n)


def _assemble_once(pool: TextPool, target: int, rng: np.random.Generator, *, images: Sequence[ImageSpec],
                   needles: Sequence[NeedleSpec], in_window: Any, needle_ends: bool = True, adjust: int = 0,
                   allow_sentence_end: bool = True, allow_alone: bool = True, like_sentences: bool = False) -> Layout:
    """Lay out a context of exactly ``target`` tokens (text + images) with images and text needles placed.

    Images go only to paragraph boundaries (between blocks, as a web page places them; never inside a list
    or a paragraph): without a target depth they are spread evenly (with jitter) over the text, with one
    they go to the boundary closest to it inside their window (a window without any boundary: its nearest
    sentence boundary, counted in ``Layout.images_off_boundary``). Text needles go to one of the allowed
    positions near their target inside their window (``_choose_needle_slot``).
    ``in_window(depths_array) -> bool array`` may replace the plain window test (for depth bins that are not one
    closed interval).
    A needle never goes before the first sentence. At a paragraph start it becomes the paragraph's first
    sentence (the sentence it precedes gets the joining space), where that leaves the count unchanged, or the
    last sentence of the paragraph before. Under a heading or title it opens the paragraph after the heading
    lines and the break below them (a text item of its own, so its depth counts them), where that leaves the
    count unchanged and keeps it inside its window; spaced languages only. It stays out of list items and
    never stands before a heading, title or list marker (``closable`` / ``openable``), so it always reads as a
    sentence of a paragraph.

    A needle may instead be a paragraph of its own: each is, with probability ``pool.alone_share`` (the share
    of plain-paragraph sentences that stand alone), decided before the text is chosen, so that the paragraph
    break it adds comes out of the text budget and the count stays exact (the paragraphs around it keep their
    breaks and counts). Drawing the kind first is the same as giving the lone positions near a target
    together ``alone_share / (1 - alone_share)`` times the weight of all other positions there: a needle is then
    alone as often as a haystack sentence is. It goes to one of the ``ALONE_NEAR`` paragraph boundaries
    nearest its target inside its window, between two paragraphs of one document of which one is plain (the
    one before it not a list; or the one after it without heading or marker), never beside another needle; a
    window without such a boundary draws other documents. The draws come from a side stream
    (``_side_draws``), so layouts without a lone needle are drawn as they were.

    The steps, in the order they draw from ``rng`` (the same seed gives the same layout): which needles stand
    alone (:func:`_alone_needles`), the text (:func:`_select_context`), where each kind of item may go
    (:func:`_slot_masks`), the images (:func:`_place_images`), the needles (:class:`_NeedlePlacer`), then the
    items in reading order (:func:`_materialize`) and the exact tail (:func:`_finish`).
    """
    needle_tokens = [pool.tokenizer.unit_count(n.text) for n in needles]
    image_total = sum(i.tokens for i in images)
    alone, alone_extra = _alone_needles(pool, needles, needle_tokens, rng, allow_alone)
    text_budget = target - image_total - sum(needle_tokens) - sum(alone_extra) + adjust
    ctx = _select_context(pool, text_budget, rng, allow_sentence_end)
    slots = _slot_masks(pool, ctx, needle_ends)
    slots.like_sentences = like_sentences
    slot_images, off_boundary = _place_images(images, ctx, slots, target, rng, in_window)
    placer = _NeedlePlacer(pool, ctx, slots, needles, needle_tokens, alone, alone_extra,
                           _images_at_slot(slot_images, images, ctx.m), target, in_window, rng)
    placed = placer.place_all()
    items = _materialize(pool, ctx, placed, slot_images, images, needles, needle_tokens, alone_extra)
    layout = _finish(pool, items, int(ctx.sel.tail_tokens), ctx.sel.next_units, target, image_total,
                     ctx.sel.sentence_end)
    layout.images_off_boundary = off_boundary
    by_spec = {id(it.payload): d for it, d in zip(
        (i for i in layout.items if i.kind == "needle"), layout.needle_depths, strict=True)}
    layout.needle_depths = [by_spec[id(n)] for n in needles]
    return layout


def _alone_needles(pool: TextPool, needles: Sequence[NeedleSpec], needle_tokens: list[int],
                   rng: np.random.Generator, allow_alone: bool) -> tuple[list[bool], list[int]]:
    """Which needles stand as a paragraph of their own, drawn before the text so that the paragraph break each
    adds comes out of the text budget; and that break's tokens (``alone_extra``: the needle without its space,
    followed by a break, less the needle's own count), 0 for the others."""
    alone = [False] * len(needles)
    alone_extra = [0] * len(needles)
    if allow_alone and needles and pool.alone_share > 0:
        alone = [bool(u < pool.alone_share) for u in _side_draws(rng, len(needles))]
        picked = [i for i, a in enumerate(alone) if a]
        counts = _counts_after(pool.tokenizer, [needles[i].text.lstrip(" ") + pool.paragraph_break for i in picked],
                               _ANCHOR + pool.paragraph_break)
        for i, c in zip(picked, counts, strict=True):
            alone_extra[i] = c - needle_tokens[i]
    return alone, alone_extra


@dataclass
class _Context:
    """The text chosen for a layout: its selection, its context units (pool indices in reading order), each
    one's tokens as it stands in the context, and the tokens before each slot (slot j: before context unit j;
    j == m: after the last whole unit, before any tail piece)."""

    sel: Selection
    units: np.ndarray
    tokens: np.ndarray
    cum: np.ndarray

    @property
    def m(self) -> int:
        return len(self.units)

    @property
    def last(self) -> int:
        """The pool index of the last context unit (-1 for an empty context)."""
        return int(self.units[-1]) if len(self.units) else -1


def _select_context(pool: TextPool, text_budget: int, rng: np.random.Generator, allow_sentence_end: bool,
                    ) -> _Context:
    """The text of ``text_budget`` tokens (:func:`select_text`) as context units with their tokens: the first
    unit counted as the context's start, the last without its trail where the context ends on a sentence."""
    sel = select_text(pool, text_budget, rng, allow_sentence_end=allow_sentence_end)
    units = (np.concatenate([np.arange(s, e, dtype=np.int64) for s, e in sel.ranges]) if sel.ranges
             else np.zeros(0, dtype=np.int64))
    m = len(units)
    tokens = pool.unit_tokens[units].copy()
    if m:
        tokens[0] += sel.first_delta
        if sel.sentence_end:
            last = int(units[-1])
            tokens[-1] += int(pool.end_tokens[last] - pool.unit_tokens[last])
    cum = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(tokens, out=cum[1:])
    return _Context(sel, units, tokens, cum)


@dataclass
class _Slots:
    """Per slot (``m + 1`` of them), where each kind of item may go. Needle placement narrows ``blocked``,
    ``closable`` and ``openable`` as it refuses positions."""

    para_start: np.ndarray  # a paragraph starts after the slot (spaced languages)
    blocked: np.ndarray  # no needle in the text may go there
    closable: np.ndarray  # a needle may follow the sentence before the slot
    openable: np.ndarray  # a needle may stand before the sentence after the slot
    alone_ok: np.ndarray  # a needle may stand there as a paragraph of its own
    image_ok: np.ndarray  # a paragraph boundary (the context's start and end included)
    needle_ends: bool = True  # False: no needle may stand after the last unit, not even for want of a slot
    like_sentences: bool = False  # True: inner positions weighted so that needles take sentences' roles


def _slot_masks(pool: TextPool, ctx: _Context, needle_ends: bool = True) -> _Slots:
    """Where needles and images may go in the context (see :func:`_assemble_once`); ``needle_ends=False``
    blocks the slot after the last unit for needles."""
    spaced = pool.lang in SPACED_LANGS
    units, m = ctx.units, ctx.m
    para_start = np.zeros(m + 1, dtype=bool)
    if spaced and m:
        para_start[1:m] = ~pool.lead_space[units[1:]]
    blocked = np.zeros(m + 1, dtype=bool)
    # a needle belongs to a plain paragraph: it may follow the sentence before a slot only outside lists, and
    # stand before the sentence after it only outside lists (under the heading lines that open that sentence,
    # if any: spaced languages; unspaced ones never open a paragraph, and stay off sentences under a heading)
    closable = np.zeros(m + 1, dtype=bool)
    openable = np.zeros(m + 1, dtype=bool)
    plain_next = np.zeros(m + 1, dtype=bool)  # no heading, title or list marker opens the sentence after
    if m:
        closable[1:] = ~pool.in_list[units]
        plain_next[:m] = ~(pool.in_list[units] | pool.struct_start[units])
        openable[:m] = ~pool.in_list[units] if spaced else plain_next[:m]
        inner = np.zeros(m + 1, dtype=bool)  # slots between two sentences of one paragraph
        inner[1:m] = pool.trail_kind[units[:-1]] == TRAIL_NONE
        blocked[inner & ~openable] = True  # inside a list item
        if spaced:
            blocked[para_start & ~closable & ~openable] = True
        else:
            blocked[1:m] |= ~inner[1:m] & ~openable[1:m]  # the needle would open the next paragraph
        blocked[m] |= not closable[m]
    blocked[0] = m > 0  # a needle never opens the context
    if not needle_ends:
        # nor ends it: several needles placed in depth order, each at or after the one before, were pushed onto
        # the last slot (a family's three reasoning needles ended 16% of 1K contexts where 6% of sentences are
        # needles), so the context's last sentence picked a needle
        blocked[m] |= m > 0
    # a needle alone: a paragraph of its own between two paragraphs of one document, beside a plain one (after
    # it, or before it where it has no heading or marker); the breaks around it count the same as before
    alone_ok = np.zeros(m + 1, dtype=bool)
    if spaced and m > 1:
        alone_ok[1:m] = (para_start[1:m] & (pool.trail_kind[units[:-1]] == TRAIL_PARAGRAPH)
                         & (closable[1:m] | plain_next[1:m]))
    if m and not ctx.sel.sentence_end and pool.trail_kind[ctx.last]:
        blocked[m] = True  # the word-cut tail would follow the needle without a space
    image_ok = np.ones(m + 1, dtype=bool)
    if m:
        image_ok[1:m] = np.isin(pool.trail_kind[units[:-1]], (TRAIL_PARAGRAPH, TRAIL_DOCUMENT))
    return _Slots(para_start, blocked, closable, openable, alone_ok, image_ok, needle_ends)


def _images_at_slot(slot_images: dict[int, list[int]], images: Sequence[ImageSpec], m: int) -> np.ndarray:
    """The image tokens at each slot."""
    arr = np.zeros(m + 1, dtype=np.int64)
    for s, ks in slot_images.items():
        arr[s] += sum(images[k].tokens for k in ks)
    return arr


def _place_images(images: Sequence[ImageSpec], ctx: _Context, slots: _Slots, target: int, rng: np.random.Generator,
                  in_window: Any) -> tuple[dict[int, list[int]], int]:
    """Slot -> the indices of the images placed there (in order), and how many pinned images went to a sentence
    boundary for want of a paragraph boundary in their window."""
    bounds = np.flatnonzero(slots.image_ok)
    bound_tok = ctx.cum[bounds]
    # place free images evenly over the text, each at the paragraph boundary nearest its share
    slot_images: dict[int, list[int]] = {}
    free = [k for k, im in enumerate(images) if im.target_depth is None]
    pinned = [k for k, im in enumerate(images) if im.target_depth is not None]
    if free:
        total_text = max(int(ctx.cum[-1]), 1)
        for r, k in enumerate(free):
            want = (r + 0.5 + rng.uniform(-0.3, 0.3)) / len(free) * total_text
            b = int(np.searchsorted(bound_tok, want))
            if b == len(bounds) or (b > 0 and want - bound_tok[b - 1] <= bound_tok[b] - want):
                b -= 1
            slot_images.setdefault(int(bounds[b]), []).append(k)
    # pinned images (image needles): closest slot to target depth; an image's depth counts the images
    # already at its slot (it is inserted first there, so the others are shifted after it)
    off_boundary = 0
    for k in sorted(pinned, key=lambda k: images[k].target_depth or 0.0):
        im = images[k]
        at = _images_at_slot(slot_images, images, ctx.m)
        depths = (ctx.cum + (np.cumsum(at) - at)) / float(target)
        window = im.window or (0.0, 1.0)
        if (_window_mask(depths, window, in_window) & slots.image_ok).any():
            slot = _choose_slot(depths, im.target_depth or 0.0, window, 0, in_window, ~slots.image_ok)
        else:  # no paragraph boundary in the window: its nearest sentence boundary
            slot = _choose_slot(depths, im.target_depth or 0.0, window, 0, in_window)
            off_boundary += not slots.image_ok[slot]
        # after pinned images already at this slot (they have smaller targets), before the free ones
        at_slot = slot_images.setdefault(slot, [])
        at_slot.insert(sum(1 for q in at_slot if images[q].target_depth is not None), k)
    return slot_images, off_boundary


@dataclass
class _Placed:
    """Where the needles went: slot -> needle indices (in order), and the slots whose needles change the text
    around them."""

    slot_needles: dict[int, list[int]] = field(default_factory=dict)
    lead_fix: set[int] = field(default_factory=set)  # paragraph-start slots whose first needle opens the paragraph
    head_split: dict[int, tuple[str, int]] = field(default_factory=dict)  # of those, under a heading: its lines, tokens
    close_fix: set[int] = field(default_factory=set)  # paragraph-start slots whose needles close the paragraph before
    alone_fix: set[int] = field(default_factory=set)  # paragraph-start slots holding a needle standing alone


def _like_sentences(weight: np.ndarray, para_start: np.ndarray) -> np.ndarray:
    """Position weights under which a needle opens, closes or sits inside a paragraph as often as a sentence of
    it does. A paragraph of n sentences offers one opening, one closing and n - 1 inner positions, where only
    n - 2 of its sentences are inner: each inner position weighs (n - 2) / (n - 1) of a boundary position, so
    that inner positions together weigh n - 2 against the opening's and closing's 1 each. Each position as
    likely, needles sat inside more often than sentences do (a 1K build of one family: 42% of needles between two
    spaces against 37% of plain-paragraph sentences; the audit's whitespace finder read 10.2 against 6.1)."""
    out = weight.astype(np.float64)
    m = len(weight) - 1
    j = 1
    while j < m:
        if para_start[j]:
            j += 1
            continue
        k = j
        while k < m and not para_start[k]:
            k += 1
        inner = k - j  # the inner positions of a paragraph of inner + 1 sentences
        out[j:k] *= (inner - 1) / inner
        j = k
    return out


class _NeedlePlacer:
    """Places the text needles in depth order, each at or after the previous one (see :func:`_assemble_once`)."""

    def __init__(self, pool: TextPool, ctx: _Context, slots: _Slots, needles: Sequence[NeedleSpec],
                 needle_tokens: list[int], alone: list[bool], alone_extra: list[int], imgs_at: np.ndarray,
                 target: int, in_window: Any, rng: np.random.Generator) -> None:
        self.pool, self.ctx, self.slots, self.needles = pool, ctx, slots, needles
        self.needle_tokens, self.alone, self.alone_extra = needle_tokens, alone, alone_extra
        self.target, self.in_window, self.rng = target, in_window, rng
        self.imgs_at = imgs_at
        self.before_imgs = np.cumsum(imgs_at)  # images at a slot come before needles there (unless they close it)
        self.needle_before = np.zeros(ctx.m + 1, dtype=np.int64)
        self.head_tokens: dict[int, int] = {}  # tokens of the heading lines that open the sentence at a slot
        self.placed = _Placed()
        self.lo_slot = 0
        # allowed positions at each slot: one inside a paragraph, up to two at a paragraph boundary
        self.weight = (~slots.blocked).astype(np.int64)
        if pool.lang in SPACED_LANGS and ctx.m:
            para_start = slots.para_start
            self.weight[para_start] = ((slots.closable & (np.arange(ctx.m + 1) > 1)).astype(np.int64)
                                       + slots.openable.astype(np.int64))[para_start]
            if slots.like_sentences:
                self.weight = _like_sentences(self.weight, para_start)

    def place_all(self) -> _Placed:
        for i in sorted(range(len(self.needles)), key=lambda i: self.needles[i].target_depth):
            depths = (self.ctx.cum + self.before_imgs + self.needle_before) / float(self.target)
            if self.alone[i]:
                self._place_alone(i, depths)
                continue
            slot = self._draw_in_text(i, depths)
            if not self.slots.needle_ends and slot == self.ctx.m > 0:
                # every slot from the needle before it on was blocked: late needles pushed past the last unit
                raise _Redraw
            if slot in self.placed.alone_fix:
                raise _Redraw  # every slot was blocked (a tiny context): not beside a needle standing alone
            self.placed.slot_needles.setdefault(slot, []).append(i)
            self.weight[slot] = 1  # a later needle there has one position left: right after this one
            self.needle_before[slot + 1:] += self.needle_tokens[i]
            self.lo_slot = slot
        return self.placed

    def _place_alone(self, i: int, depths: np.ndarray) -> None:
        """A needle standing alone: at a paragraph boundary near its target, and nothing joins it there."""
        nd = self.needles[i]
        ok = self.slots.alone_ok & _window_mask(depths, nd.window, self.in_window)
        ok[:self.lo_slot] = False
        ok[list(self.placed.slot_needles)] = False
        if not ok.any():
            raise _Redraw  # no paragraph boundary for it in its window: other documents
        slot = _choose_needle_slot(depths, nd.target_depth, nd.window, self.lo_slot, self.in_window, ~ok,
                                   ok.astype(np.int64), self.rng, positions=ALONE_NEAR)
        self.placed.slot_needles[slot] = [i]
        self.placed.alone_fix.add(slot)
        self.slots.blocked[slot] = True  # it stays alone: no later needle joins it
        self.weight[slot] = 0
        self.needle_before[slot + 1:] += self.needle_tokens[i] + self.alone_extra[i]
        self.lo_slot = slot

    def _draw_in_text(self, i: int, depths: np.ndarray) -> int:
        """The slot of a needle in the text: drawn among the allowed positions near its target until one keeps
        the count exact (a refused opening or closing blocks that position and first looks for another of its
        kind nearby, ``KIND_TRIES`` times)."""
        nd, slots = self.needles[i], self.slots
        seek = ""  # after a refused opening or closing: the kind of position the next draws look for
        tries = 0
        while True:
            kind_ok = None
            if seek and tries < KIND_TRIES:
                # another position of the refused kind nearby, so that a refusal (a count the needle would
                # change there) does not move needles from openings to the middles of paragraphs
                kind_ok = slots.para_start & ~slots.blocked & (slots.openable if seek == "open" else slots.closable)
                kind_ok[:max(self.lo_slot, 2 if seek == "close" else 0)] = False
                kind_ok[list(self.placed.slot_needles)] = False
                kind_ok &= _window_mask(depths, nd.window, self.in_window)
                tries += 1
                if not kind_ok.any():
                    kind_ok = None
            if kind_ok is not None:
                slot = _choose_needle_slot(depths, nd.target_depth, nd.window, self.lo_slot, self.in_window,
                                           ~kind_ok, kind_ok.astype(np.int64), self.rng, positions=1)
            else:
                seek = ""
                slot = _choose_needle_slot(depths, nd.target_depth, nd.window, self.lo_slot, self.in_window,
                                           slots.blocked, self.weight, self.rng)
            if not slots.para_start[slot] or slots.blocked[slot]:
                return slot
            taken, seek = self._at_boundary(i, slot, float(depths[slot]), seek)
            if taken:
                return slot

    def _at_boundary(self, i: int, slot: int, depth: float, seek: str) -> tuple[bool, str]:
        """Between two paragraphs the needle either closes the first or opens the second (at random, so that no
        place in a paragraph is free of needles), where that keeps the count exact. Returns whether it takes
        ``slot``, and the kind of position to seek next when it does not (a refused position is blocked)."""
        pool, nd, slots, placed = self.pool, self.needles[i], self.slots, self.placed
        units = self.ctx.units
        if slot in placed.close_fix:  # it follows the needles already closing this paragraph
            if _closing_delta(pool, nd.text, self.needle_tokens[i], units, slot) != 0 or not (
                    self._closes_in_window(nd, slot, depth)):
                slots.blocked[slot] = True
                return False, seek
            return True, seek
        if slot in placed.slot_needles:
            return True, seek
        # one of the slot's positions, each as likely; one that would change the count is dropped and the draw
        # repeated (taking the other instead would make that one twice as likely), among the nearest positions
        # of its kind first (``KIND_TRIES``)
        can_close = slot > 1 and bool(slots.closable[slot]) and self._closes_in_window(nd, slot, depth)
        can_open = bool(slots.openable[slot]) and self._opens_in_window(nd, slot, depth)
        if not (can_close or can_open):
            slots.blocked[slot] = True
            return False, seek
        if seek == "open" and can_open:
            closing = False
        elif seek == "close" and can_close:
            closing = True
        else:
            closing = can_close and (not can_open or self.rng.random() < 0.5)
        if closing:
            if _closing_delta(pool, nd.text, self.needle_tokens[i], units, slot) == 0:
                placed.close_fix.add(slot)
                return True, seek
            slots.closable[slot] = False
            seek = "close"
        else:
            if _opening_delta(pool, nd.text, self.needle_tokens[i], units, self.ctx.tokens, slot, self.ctx.sel) == 0:
                placed.lead_fix.add(slot)
                head, tokens = self._heading_at(slot)
                if head:
                    placed.head_split[slot] = (head, tokens)
                return True, seek
            slots.openable[slot] = False
            seek = "open"
        self.weight[slot] -= 1
        slots.blocked[slot] |= self.weight[slot] <= 0
        return False, seek

    def _closes_in_window(self, nd: NeedleSpec, slot: int, depth: float) -> bool:
        """Closing a paragraph puts the needle before the images at its slot: still inside its window?"""
        if not self.imgs_at[slot]:
            return True
        d = np.array([depth - self.imgs_at[slot] / float(self.target)])
        return bool(_window_mask(d, nd.window, self.in_window)[0])

    def _heading_at(self, slot: int) -> tuple[str, int]:
        """The heading lines (with their breaks) that open the sentence at ``slot`` and their tokens."""
        pool = self.pool
        u = int(self.ctx.units[slot])
        head = pool.units[u][: int(pool.lead_len[u])]
        if head and slot not in self.head_tokens:
            self.head_tokens[slot] = _counts_after(pool.tokenizer, [head], _ANCHOR + pool.trail_before(u))[0]
        return head, self.head_tokens.get(slot, 0)

    def _opens_in_window(self, nd: NeedleSpec, slot: int, depth: float) -> bool:
        """Opening a paragraph under a heading puts the needle after the heading lines: still inside its
        window?"""
        head, tokens = self._heading_at(slot)
        if not head:
            return True
        d = np.array([depth + tokens / float(self.target)])
        return bool(_window_mask(d, nd.window, self.in_window)[0])


def _materialize(pool: TextPool, ctx: _Context, placed: _Placed, slot_images: dict[int, list[int]],
                 images: Sequence[ImageSpec], needles: Sequence[NeedleSpec], needle_tokens: list[int],
                 alone_extra: list[int]) -> list[Item]:
    """The items in reading order: one text item per run of consecutive units between insertion slots, the
    images and needles at their slots (a needle that closes or opens a paragraph, or stands alone, takes the
    break or the space the text around it gives up)."""
    items: list[Item] = []
    sel, units, cum, m = ctx.sel, ctx.units, ctx.cum, ctx.m
    close_fix, lead_fix, head_split = placed.close_fix, placed.lead_fix, placed.head_split

    def add_images(j: int) -> None:
        for k in slot_images.get(j, []):
            items.append(Item("image", tokens=images[k].tokens, payload=images[k]))

    def insert_at_slot(j: int) -> None:
        if j not in close_fix:
            add_images(j)
        if j in head_split:  # the heading lines above the paragraph the needle opens
            head, tokens = head_split[j]
            items.append(Item("text", text=head, tokens=tokens))
        at_slot = placed.slot_needles.get(j, [])
        for n, i in enumerate(at_slot):
            text = needles[i].text.lstrip(" ") if (n == 0 and j in lead_fix) else needles[i].text
            tokens = needle_tokens[i]
            if j in placed.alone_fix:  # after the break that ends the paragraph before, and its own break
                text = needles[i].text.lstrip(" ") + pool.paragraph_break
                tokens += alone_extra[i]
            if j in close_fix and n == len(at_slot) - 1:  # the paragraph's break follows its last needle
                p = int(units[j - 1])
                text += pool.units[p][len(pool.units[p]) - int(pool.trail_len[p]):]
                tokens += int(pool.unit_tokens[p] - pool.end_tokens[p])
            items.append(Item("needle", text=text, tokens=tokens, payload=needles[i]))
        if j in close_fix:  # the images follow the paragraph the needles close
            add_images(j)

    def add_text(ja: int, jb: int, pool_start: int) -> None:
        """Context units ja..jb-1 (pool units from ``pool_start``) as one text item."""
        text = pool.span_text(pool_start, pool_start + (jb - ja))
        tokens = int(cum[jb] - cum[ja])
        if (jb == m and sel.sentence_end) or jb in close_fix:
            p = int(units[jb - 1])
            text = text[: len(text) - int(pool.trail_len[p])]
            if jb in close_fix:
                tokens -= int(pool.unit_tokens[p] - pool.end_tokens[p])
        if ja in lead_fix:  # the paragraph's first sentence follows the needle (its heading lines precede it)
            head, head_toks = head_split.get(ja, ("", 0))
            text = " " + text[len(head):]
            tokens -= head_toks
        items.append(Item("text", text=text, tokens=tokens, payload=pool_start))

    breaks = sorted(set(slot_images) | set(placed.slot_needles))
    pos = 0  # context index of the start of the current range
    bi = 0
    for s_u, e_u in sel.ranges:
        start = pos
        end = pos + (e_u - s_u)
        while bi < len(breaks) and breaks[bi] < end:
            cut = breaks[bi]
            if cut > start:
                add_text(start, cut, s_u + (start - pos))
            insert_at_slot(cut)
            start = cut
            bi += 1
        if end > start:
            add_text(start, end, s_u + (start - pos))
        pos = end
    while bi < len(breaks):  # slots at the very end (slot m)
        insert_at_slot(breaks[bi])
        bi += 1
    return items


def _closing_delta(pool: TextPool, needle: str, needle_tokens: int, ctx_units: np.ndarray, slot: int) -> int:
    """How many tokens the context gains if the needle closes the paragraph before ``slot`` (after its last
    sentence, which then loses its paragraph break to the needle)."""
    p = int(ctx_units[slot - 1])
    trail = pool.units[p][len(pool.units[p]) - int(pool.trail_len[p]):]
    moved = pool.tokenizer.unit_count(needle + trail)
    return int(pool.end_tokens[p]) + moved - int(pool.unit_tokens[p]) - needle_tokens


def _opening_delta(pool: TextPool, needle: str, needle_tokens: int, ctx_units: np.ndarray,
                   ctx_tok: np.ndarray, slot: int, sel: Selection) -> int:
    """How many tokens the context gains if the needle opens the paragraph at ``slot`` (without its
    leading space, after the paragraph break and the heading lines above the paragraph, if any) and the
    sentence that opened it follows after a space."""
    tok = pool.tokenizer
    u = int(ctx_units[slot])
    unit = pool.units[u]
    if slot == len(ctx_units) - 1 and sel.sentence_end:
        unit = unit[: len(unit) - int(pool.trail_len[u])]
    head = int(pool.lead_len[u])
    opened = _counts_after(tok, [unit[:head] + needle.lstrip(" ")], _ANCHOR + pool.trail_before(u))[0]
    joined = tok.unit_count(" " + unit[head:])
    return opened + joined - needle_tokens - int(ctx_tok[slot])


def _finish(pool: TextPool, items: list[Item], gap: int, candidates: list[int], target: int,
            image_total: int, sentence_end: bool = False) -> Layout:
    """Cut the tail to the exact gap (word-cut fallback), merge texts, verify where counts may not add up."""
    tok = pool.tokenizer
    first = next((i for i in items if i.kind != "image"), None)
    if first is not None and first.text.startswith(" "):  # only pools built by hand start with a space
        if first.kind == "text":
            u = first.payload
            unit, unit_tokens = pool.units[u], int(pool.unit_tokens[u])
        else:
            unit, unit_tokens = first.text, tok.unit_count(first.text)
        _stripped, delta = _unspaced_start(tok, unit, unit_tokens)
        first.text = first.text.lstrip(" ")
        first.tokens += delta
        if sentence_end and delta:
            raise _Redraw
        gap -= delta
    if gap < 0:
        raise _Redraw
    want = target - image_total
    if sentence_end and gap == 0:
        trial = items
        if not pool.additive:
            actual = tok.count("".join(i.text for i in trial if i.kind != "image"))  # verify once
            if actual != want:
                raise _Retarget(want - actual)
            # unit counts are estimates here: the last text item absorbs the boundary merges, so that item
            # tokens still add up to the exact total (depths before it are exact up to those merges)
            error = want - sum(i.tokens for i in trial if i.kind != "image")
            if error:
                last_text = next((i for i in reversed(trial) if i.kind == "text"), None) or next(
                    i for i in reversed(trial) if i.kind != "image")
                last_text.tokens += error
    else:
        # the tail goes after the last text/needle item (before trailing images, which keep their place)
        insert_at = len(items)
        while insert_at > 0 and items[insert_at - 1].kind == "image":
            insert_at -= 1
        standalone = first is None
        # (a cut that cannot be made exact here, where the tokenizer merges across units, is tried again on
        # other documents)
        for _attempt in range(6):
            try:
                tail = cut_piece(pool, candidates, gap, standalone=standalone) if gap > 0 else ""
            except ConfigError:
                raise _Redraw from None
            trial = list(items)
            if tail:
                trial.insert(insert_at, Item("text", text=tail, tokens=gap))
            text = "".join(i.text for i in trial if i.kind != "image")
            actual = tok.count(text)  # verify-and-repair: count the finished text once
            if actual == want:
                break
            gap += want - actual
            if gap < 0:
                raise _Redraw
        else:
            raise _Redraw
        # a repair moved the tail's length by the merges elsewhere: the last text item absorbs them, so that
        # item tokens add up to the exact total (as on the sentence-end path)
        error = want - sum(i.tokens for i in trial if i.kind != "image")
        if error:
            next(i for i in reversed(trial) if i.kind == "text" or i.kind == "needle").tokens += error
        sentence_end = ends_sentence(text)
    items = trial
    # merge adjacent text units into single items (needles stay separate so they can be located)
    merged: list[Item] = []
    run: list[Item] = []  # consecutive text items, joined once (repeated += would copy the context n times)

    def flush() -> None:
        if len(run) == 1:
            merged.append(run[0])
        elif run:
            merged.append(Item("text", "".join(i.text for i in run), sum(i.tokens for i in run)))
        run.clear()

    for it in items:
        if it.kind == "text":
            run.append(it)
        else:
            flush()
            merged.append(it)
    flush()
    # realized depths
    pos = 0
    needle_depths: list[float] = []
    image_depths: list[float] = []
    for it in merged:
        if it.kind == "needle":
            needle_depths.append(pos / target)
        elif it.kind == "image":
            image_depths.append(pos / target)
        pos += it.tokens
    text_tokens = target - image_total
    return Layout(merged, text_tokens, image_total, needle_depths=needle_depths, image_depths=image_depths,
                  sentence_end=sentence_end)


@dataclass
class SweepHaystack:
    """One text haystack, selected once, into which a needle can be put at any depth cheaply.

    ``with_needle`` costs a slot search and two string slices: no tokenization (the pool is additive and
    the needle was counted once). Used for depth sweeps, where only the needle position changes. Slots are
    the boundaries inside paragraphs (and the end), where a space-led needle joins without changing counts.
    """

    text: str  # the haystack text, without the needle
    slot_chars: np.ndarray  # char offset of each usable unit boundary
    slot_tokens: np.ndarray  # tokens before each usable unit boundary
    needle: str
    needle_tokens: int
    target: int
    sentence_end: bool = True

    def with_needle(self, depth: float) -> tuple[str, float]:
        """(context text with the needle at the boundary closest to ``depth``, realized depth)."""
        want = depth * self.target
        j = int(np.searchsorted(self.slot_tokens, want))
        if j > 0 and (j == len(self.slot_tokens) or want - self.slot_tokens[j - 1] <= self.slot_tokens[j] - want):
            j -= 1
        c = int(self.slot_chars[j])
        return self.text[:c] + self.needle + self.text[c:], float(self.slot_tokens[j]) / self.target


def sweep_haystack(pool: TextPool, target: int, rng: np.random.Generator, needle: str) -> SweepHaystack:
    """Select and materialize a text-only haystack of ``target - needle`` tokens for a depth sweep."""
    if not pool.additive:
        raise ConfigError("depth sweeps need an additive tokenizer/language pair; use assemble() per depth")
    tok = pool.tokenizer
    needle_tokens = tok.unit_count(needle)
    for _ in range(8):
        sel = select_text(pool, target - needle_tokens, rng)
        if not sel.ranges:
            break
        ctx_units = np.concatenate([np.arange(s, e, dtype=np.int64) for s, e in sel.ranges])
        ctx_tok = pool.unit_tokens[ctx_units].copy()
        ctx_tok[0] += sel.first_delta
        text = "".join(pool.span_text(s, e) for s, e in sel.ranges)
        last = int(ctx_units[-1])
        if sel.sentence_end:
            ctx_tok[-1] += int(pool.end_tokens[last] - pool.unit_tokens[last])
            text = text[: len(text) - int(pool.trail_len[last])]
        else:
            gap = sel.tail_tokens
            for _attempt in range(6):  # word-cut fallback: verify the one finished text, re-cut the tail
                tail = cut_piece(pool, sel.next_units, gap)
                actual = tok.count(text + tail)
                if actual == target - needle_tokens:
                    break
                gap += target - needle_tokens - actual
                if gap < 0:
                    break
            else:
                continue
            if gap < 0:
                continue
            text += tail
        lens = np.array([len(pool.units[u]) for u in ctx_units], dtype=np.int64)
        chars = np.concatenate([[0], np.cumsum(lens)])
        if sel.sentence_end:
            chars[-1] = len(text)  # the end slot, after the last sentence (its trail was dropped)
        toks = np.concatenate([[0], np.cumsum(ctx_tok)])
        # boundaries inside a plain paragraph (never inside a list item)
        inner = np.flatnonzero(pool.lead_space[ctx_units[1:]] & ~pool.in_list[ctx_units[1:]]) + 1
        slots = np.concatenate([inner, [len(ctx_units)]])
        if (not sel.sentence_end and pool.trail_kind[last]) or pool.in_list[last]:
            slots = slots[:-1]
        return SweepHaystack(text, chars[slots], toks[slots], needle, needle_tokens, target,
                             sentence_end=sel.sentence_end)
    raise ConfigError(f"could not assemble an exact {target}-token haystack for a depth sweep")
