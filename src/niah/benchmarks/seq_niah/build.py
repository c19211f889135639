"""Sequential-NIAH generators: QA records, the official insertion, exact lengths, the niah dataset.

Insertion is the official algorithm (``Sequential_NIAH_building_PPL.py``): the candidate cut points are the
positions of ``.`` (EN) or ``。`` (ZH) in the long text -- every occurrence, as the official regex finds them;
a text with 80 or fewer is rejected (and counted); ``k`` of them are drawn without replacement and sorted;
the text is split into ``k + 1`` shards, each keeping its period; the needles, shuffled, go between them as
``shard_1 + B_1 + needle_1 + A_1 + shard_2 + ... + shard_{k+1}``. Two deviations keep the layout from giving
the needles away: cut points are sentence ends only (not every period), and the breaks ``B``/``A`` around a
needle are drawn like every line break of the long text (:data:`BREAKS`, :func:`frame_needle`) instead of the
official single newlines, which no other line of a text has. The prompt is a document prefix (one of
``Document: ``, ``Document: \\n``, ``Document:``, ``Document:\\n``, empty; ZH ``文档：`` ... with full-width or
ASCII colon), the text with needles, a blank line, a question prefix (``Question: `` ... or
``Please answer the question:\\n``; ZH ``问题：`` ... or ``回答以下问题：\\n``) and the question; the document
always comes first (the official question-first branch has weight 0).

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from niah.benchmarks.seq_niah import synth
from niah.benchmarks.seq_niah.sources import load_source
from niah.corpus import load_corpus
from niah.corpus.base import Corpus
from niah.errors import ConfigError
from niah.sample import DatasetWriter, Sample, TextPart
from niah.tokens import TextTokenizer, get_tokenizer

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
    """``--lengths`` in the one syntax of :mod:`niah.lengths`, mapped to the bins this builder draws lengths
    from: ``8k-16k`` and ``8000-16000`` both name the paper's first bin. An exact length, or a range that is
    not one of the bins, is refused in one line listing the bins; a bin given twice is built once."""
    from niah.lengths import length_items, parse_length

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
#: paragraph, list item and document, on each side of every needle. Real long texts mix both (the official
#: Chinese texts use either between paragraphs, the English ones a single newline after a heading), and with
#: one draw for every break, haystack lines and needle lines stand between breaks of one distribution: the
#: whitespace around a line says nothing about whether it is a needle.
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
    frames: list[tuple[str, str, str]]  # per needle: break before, break after, text it replaced (a space or "")


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


def frame_needle(text: str, cut: int, rng: random.Random) -> tuple[str, str, int]:
    """How a needle stands at the sentence end ``cut`` of ``text``: (line break before it, line break after it,
    characters of ``text`` it replaces). The needle is a line of its own like every other line: a break drawn
    from :data:`BREAKS` before it; after it, the text's own break where the paragraph ends there, else a
    drawn one that takes the place of the space between the two sentences (so the next line starts at a
    word, as lines do)."""
    before = rng.choice(BREAKS)
    nxt = text[cut:cut + 1]
    if nxt == "\n" or nxt == "":
        return before, "", 0
    return before, rng.choice(BREAKS), 1 if nxt == " " else 0


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
    lang = pool.lang
    k = len(needles)
    suffix = JOINER + question_prefix + question
    needle_cost = sum(tok.count(n) for n in needles) + 2 * k  # a break is one token, either run
    fixed = tok.count(doc_prefix) + tok.count(suffix) + needle_cost
    margin = 24 + 2 * k
    budget = target - fixed - margin
    if budget <= 0:
        raise ConfigError(f"a {target}-token sample cannot hold {k} needles and the question")
    if budget > pool.total_tokens - 512:
        raise ConfigError(f"the corpus holds {pool.total_tokens} {tok.name} tokens of {lang} text, not enough for "
                          f"a {target}-token sample; use a larger corpus (--corpus) or a shorter length")
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
    # candidate cut points (unit index, offset in unit), in text order
    cands: list[tuple[int, int]] = [(pos, off) for pos, u in enumerate(body) for off in _cut_positions(pool.units[u], lang)]
    if len(cands) < MIN_CUT_POINTS:
        raise _TooFewCuts(len(cands))
    picks = sorted(int(i) for i in rng.choice(len(cands), size=k, replace=False))
    cuts_by_unit: dict[int, list[int]] = {}
    for i in picks:
        pos, off = cands[i]
        cuts_by_unit.setdefault(pos, []).append(off)
    pieces: list[str] = [doc_prefix]
    total = 0
    chars = len(doc_prefix)
    needle_tokens_before: list[int] = []
    offsets: list[int] = []
    frames: list[tuple[str, str, str]] = []
    ni = 0
    for pos, u in enumerate(body):
        unit = pool.units[u]
        lead = doc_prefix if pos == 0 else ""
        if pos in cuts_by_unit:
            parts: list[str] = []
            prev = 0
            for off in cuts_by_unit[pos]:
                before, after, replaced = frame_needle(unit, off, py_rng)
                parts.append(unit[prev:off] + before)
                # tokens before the needle line (small count: this paragraph only)
                needle_tokens_before.append(total + (tok.count(lead + "".join(parts)) if pos == 0 else
                                                     _count_after_break(tok, "".join(parts))))
                offsets.append(chars + sum(len(p) for p in parts))
                frames.append((before, after, unit[off:off + replaced]))
                parts.append(needles[ni] + after)
                ni += 1
                prev = off + replaced
            parts.append(unit[prev:])
            new_unit = "".join(parts)
            total += tok.count(lead + new_unit) if pos == 0 else _count_after_break(tok, new_unit)
        else:
            new_unit = unit
            total += tok.count(lead + unit) if pos == 0 else int(pool.unit_tokens[u])
        pieces.append(new_unit)
        chars += len(new_unit)
    # the tail: whole paragraphs, then a word-boundary prefix of one more, counted with the question
    want = target - total
    tail = ""
    for attempt in range(4):
        tail = _make_tail(pool, tail_candidates, suffix, want)
        text = "".join(pieces) + tail
        full = text + suffix
        actual = tok.count(full)  # verify once (repair for tokenizers that merge across newlines)
        if actual == target:
            break
        want += target - actual
        if attempt == 3:
            raise ConfigError(f"could not reach exactly {target} tokens with {tok.name}")
    text_with_needles = text[len(doc_prefix):]
    if any(text[at:at + len(n)] != n for at, n in zip(offsets, needles, strict=True)):
        raise AssertionError("needle offsets do not match the text")  # a bug, never a data problem
    return Inserted(doc_prefix, text_with_needles, question_prefix, target, offsets,
                    [t / target for t in needle_tokens_before], docs_used, len(cands), frames)


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
    for _ in range(12):
        try:
            ins = insert_needles(pool, target, needles, qa["question"], rng, py_rng, doc_prefix=doc_prefix,
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
    needles_meta = [{"text": n, "gold_index": g, "inserted_index": i, "offset": off, "depth": round(d, 6),
                     "before": fr[0], "after": fr[1], "replaced": fr[2]}
                    for i, (n, g, off, d, fr) in enumerate(zip(needles, order, ins.needle_offsets, ins.needle_depths,
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
    py_rng = random.Random(f"seq-niah/{seed}")
    np_rng = np.random.default_rng(np.random.SeedSequence([seed, 1024]))
    pools: dict[str, LongTextPool] = {}
    stats: dict[str, int] = {}
    skipped: dict[str, int] = {}
    used_real: dict[str, set[str]] = {p: set() for p in real}
    total = len(cells) * per_cell
    done = 0
    with DatasetWriter(out) as writer:
        for pipeline, lang, lbin, group in cells:
            if lang not in pools:
                pools[lang] = LongTextPool.build(load_corpus(corpus, lang=lang, seed=seed), tok, lang)
            pool = pools[lang]
            g_lo, g_hi = NEEDLE_GROUPS[group]
            lo_n, hi_n = max(g_lo, need_range[0]), min(g_hi, need_range[1])
            lo_len, hi_len = (LENGTH_BINS | SHORT_LENGTH_BINS)[lbin]
            for i in range(per_cell):
                if pipeline == "synthetic-temporal":
                    qa = synth.synthetic_temporal_qa(py_rng, lang, py_rng.randint(lo_n, hi_n))
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
                done += 1
                if progress:
                    from niah.console import counter

                    counter("seq-niah", done, total, "samples")
        manifest: dict[str, Any] = {
            "benchmark": BENCHMARK, "split": "generated", "seed": seed, "tokenizer": tok.name, "corpus": corpus,
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
