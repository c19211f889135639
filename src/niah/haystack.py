"""Exact-length haystack assembly by prefix sums.

Each corpus sentence becomes a *unit* that is tokenized once, in the context where it will stand
(``TextTokenizer.unit_count``); a haystack is chosen by binary search over prefix sums of unit counts, and
the last few tokens are made up exactly by cutting one more unit at a word boundary. Nothing re-tokenizes a
growing context. For tokenizers whose unit counts are provably additive (``tokenizer.additive`` and a
space-separated language) the result is exact by construction; otherwise one verify-and-repair pass counts
the finished text once and re-cuts the tail until it is exact.

Layout: a haystack is a list of slots (boundaries between units) into which images and needles go. Depth is
the fraction of context tokens (text + image) before a needle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from niah.errors import ConfigError
from niah.tokens.text import TextTokenizer

# Languages whose sentences are joined with a space (units start with " "); others are joined with nothing.
SPACED_LANGS = frozenset({"en", "de", "fr", "es", "it", "pt", "nl"})


def make_unit(sentence: str, lang: str) -> str:
    """The unit form of a sentence: space-led for spaced languages so units concatenate into prose."""
    return (" " + sentence) if lang in SPACED_LANGS else sentence


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
    text: str = ""  # all units concatenated, so a run of consecutive units is one slice
    char_off: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))

    def __post_init__(self) -> None:
        if not self.text and self.units:
            self.text = "".join(self.units)
            off = np.zeros(len(self.units) + 1, dtype=np.int64)
            np.cumsum([len(u) for u in self.units], out=off[1:])
            self.char_off = off

    def span_text(self, a: int, b: int) -> str:
        return self.text[int(self.char_off[a]): int(self.char_off[b])]

    def span_tokens(self, a: int, b: int) -> int:
        return int(self.unit_cum[b] - self.unit_cum[a])

    @property
    def additive(self) -> bool:
        return self.tokenizer.additive and self.lang in SPACED_LANGS

    @property
    def total_tokens(self) -> int:
        return int(self.unit_cum[-1])

    @property
    def num_docs(self) -> int:
        return len(self.doc_ids)

    @classmethod
    def build(cls, documents: Iterable[tuple[str, Sequence[str]]], tokenizer: TextTokenizer, lang: str,
              *, exclude: Iterable[str] = ()) -> TextPool:
        """``documents`` yields (doc_id, sentences). Sentences containing any ``exclude`` string are dropped
        (so a haystack never already contains a needle's wording)."""
        banned = [e.lower() for e in exclude if e]
        units: list[str] = []
        starts = [0]
        ids: list[str] = []
        for doc_id, sentences in documents:
            doc_units = [make_unit(s, lang) for s in sentences
                         if s and not any(b in s.lower() for b in banned)]
            if not doc_units:
                continue
            units.extend(doc_units)
            starts.append(len(units))
            ids.append(doc_id)
        if not units:
            raise ConfigError("the corpus has no text")
        counts = np.asarray(tokenizer.unit_counts(units), dtype=np.int64)
        cum = np.zeros(len(units) + 1, dtype=np.int64)
        np.cumsum(counts, out=cum[1:])
        return cls(tokenizer, lang, units, counts, cum, np.asarray(starts, dtype=np.int64), ids)

    def doc_tokens(self) -> np.ndarray:
        return self.unit_cum[self.doc_starts[1:]] - self.unit_cum[self.doc_starts[:-1]]


@dataclass
class Selection:
    """Whole units (as index ranges, in reading order) plus an exact-size tail piece."""

    ranges: list[tuple[int, int]]
    tail: str
    tail_tokens: int
    next_units: list[int]  # units after the selection in the reading stream (tail candidates)


def select_text(pool: TextPool, n_tokens: int, rng: np.random.Generator) -> Selection:
    """Choose documents in a random order and take whole units until fewer than one unit's tokens remain.

    No unit is used twice in one haystack (documents are drawn without replacement). The remaining gap is
    left for ``cut_tail``. Cost: one permutation, two prefix-sum searches.
    """
    if n_tokens < 0:
        raise ConfigError("target length is smaller than the images and needles it must hold")
    if n_tokens > pool.total_tokens - 64:
        raise ConfigError(
            f"the corpus holds {pool.total_tokens} {pool.tokenizer.name} tokens of {pool.lang} text, "
            f"not enough for a haystack of {n_tokens} text tokens without repeating a passage; "
            "use a larger corpus (--corpus) or a shorter length"
        )
    order = rng.permutation(pool.num_docs)
    doc_tok = pool.doc_tokens()[order]
    cum = np.cumsum(doc_tok)
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
    Candidates whose every prefix jumps over the gap are skipped. Raises ConfigError when nothing fits."""
    if gap == 0:
        return ""
    tok = pool.tokenizer
    taken: list[str] = []
    left = gap
    for u in candidates:
        unit = pool.units[u]
        if standalone and not taken:
            piece = _exact_prefix(unit.lstrip(" "), pool.lang, left, tok.count)
            if piece is not None:
                return piece
            continue
        piece = _exact_prefix(unit, pool.lang, left, tok.unit_count)
        if piece is not None:
            return "".join(taken) + piece
        if int(pool.unit_tokens[u]) < left:
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
                 in_window: Any = None) -> int:
    """Slot index >= lo_slot whose depth is closest to target, preferring slots inside the window."""
    cand = depths[lo_slot:]
    ok = in_window(cand) if in_window is not None else (cand >= window[0]) & (cand <= window[1])
    dist = np.abs(cand - target)
    if ok.any():
        dist = np.where(ok, dist, np.inf)
    return lo_slot + int(np.argmin(dist))


class _Redraw(Exception):
    """This draw of documents cannot be made exact (rare: the first unit's re-count overshoots a tiny gap)."""


def assemble(pool: TextPool, target: int, rng: np.random.Generator, *, images: Sequence[ImageSpec] = (),
             needles: Sequence[NeedleSpec] = (), in_window: Any = None) -> Layout:
    for _ in range(8):
        try:
            return _assemble_once(pool, target, rng, images=images, needles=needles, in_window=in_window)
        except _Redraw:
            continue
    raise ConfigError(f"could not assemble an exact {target}-token context from this corpus")


def _assemble_once(pool: TextPool, target: int, rng: np.random.Generator, *, images: Sequence[ImageSpec],
                   needles: Sequence[NeedleSpec], in_window: Any) -> Layout:
    """Lay out a context of exactly ``target`` tokens (text + images) with images and text needles placed.

    Images without a target depth are spread evenly (with jitter) over the text; images with a target depth
    and text needles go to the unit boundary whose depth is closest to their target inside their window.
    ``in_window(depths_array) -> bool array`` may replace the plain window test (MM-NIAH's binning quirks).
    """
    tok = pool.tokenizer
    needle_tokens = [tok.unit_count(n.text) for n in needles]
    image_total = sum(i.tokens for i in images)
    text_budget = target - image_total - sum(needle_tokens)
    sel = select_text(pool, text_budget, rng)
    # tokens before each unit boundary (slot), straight from the pool's prefix sums, one slice per document
    cum = pool.unit_cum
    pieces = [np.zeros(1, dtype=np.int64)]
    offset = 0
    for s_u, e_u in sel.ranges:
        pieces.append(cum[s_u + 1:e_u + 1] - cum[s_u] + offset)
        offset += int(cum[e_u] - cum[s_u])
    text_cum = np.concatenate(pieces)
    m = len(text_cum) - 1
    # slot j = before unit j (j == m: after the last whole unit, before the tail piece)

    # place free images evenly over text slots
    slot_images: dict[int, list[int]] = {}
    free = [k for k, im in enumerate(images) if im.target_depth is None]
    pinned = [k for k, im in enumerate(images) if im.target_depth is not None]
    n_free = len(free)
    if n_free:
        total_text = max(int(text_cum[-1]), 1)
        for r, k in enumerate(free):
            frac = (r + 0.5 + rng.uniform(-0.3, 0.3)) / n_free
            slot = int(np.searchsorted(text_cum, frac * total_text))
            slot_images.setdefault(min(slot, m), []).append(k)

    def combined_depths(extra_before: np.ndarray) -> np.ndarray:
        return (text_cum + extra_before) / float(target)

    def images_at_slot() -> np.ndarray:
        arr = np.zeros(m + 1, dtype=np.int64)
        for s, ks in slot_images.items():
            arr[s] += sum(images[k].tokens for k in ks)
        return arr

    # pinned images (image needles): closest slot to target depth; an image's depth counts the images
    # already at its slot (it is inserted first there, so the others are shifted after it)
    for k in sorted(pinned, key=lambda k: images[k].target_depth):
        im = images[k]
        at = images_at_slot()
        depths = combined_depths(np.cumsum(at) - at)
        slot = _choose_slot(depths, im.target_depth, im.window or (0.0, 1.0), 0, in_window)
        # after pinned images already at this slot (they have smaller targets), before the free ones
        at_slot = slot_images.setdefault(slot, [])
        at_slot.insert(sum(1 for q in at_slot if images[q].target_depth is not None), k)

    # needles in depth order, each after the previous one
    order = sorted(range(len(needles)), key=lambda i: needles[i].target_depth)
    slot_needles: dict[int, list[int]] = {}
    lo_slot = 0
    before_imgs = np.cumsum(images_at_slot())  # images at a slot come before needles there
    needle_before = np.zeros(m + 1, dtype=np.int64)
    for i in order:
        nd = needles[i]
        depths = combined_depths(before_imgs + needle_before)
        slot = _choose_slot(depths, nd.target_depth, nd.window, lo_slot, in_window)
        slot_needles.setdefault(slot, []).append(i)
        needle_before[slot + 1:] += needle_tokens[i]
        # a needle at slot j precedes later needles at the same slot: account within the slot via order
        lo_slot = slot

    # materialize: one text item per run of consecutive units between insertion slots
    items: list[Item] = []
    breaks = sorted(set(slot_images) | set(slot_needles))

    def insert_at_slot(j: int) -> None:
        for k in slot_images.get(j, []):
            items.append(Item("image", tokens=images[k].tokens, payload=images[k]))
        for i in slot_needles.get(j, []):
            items.append(Item("needle", text=needles[i].text, tokens=needle_tokens[i], payload=needles[i]))

    pos = 0  # slot index at the start of the current range
    bi = 0
    for s_u, e_u in sel.ranges:
        start = s_u
        while bi < len(breaks) and breaks[bi] < pos + (e_u - s_u):
            cut = s_u + (breaks[bi] - pos)
            if cut > start:
                items.append(Item("text", text=pool.span_text(start, cut), tokens=pool.span_tokens(start, cut),
                                  payload=start))
            insert_at_slot(breaks[bi])
            start = cut
            bi += 1
        if e_u > start:
            items.append(Item("text", text=pool.span_text(start, e_u), tokens=pool.span_tokens(start, e_u),
                              payload=start))
        pos += e_u - s_u
    while bi < len(breaks):  # slots at the very end (slot m)
        insert_at_slot(breaks[bi])
        bi += 1
    gap = int(sel.tail_tokens)
    layout = _finish(pool, items, gap, sel.next_units, target, image_total)
    by_spec = {id(it.payload): d for it, d in zip(
        (i for i in layout.items if i.kind == "needle"), layout.needle_depths, strict=True)}
    layout.needle_depths = [by_spec[id(n)] for n in needles]
    return layout


def _finish(pool: TextPool, items: list[Item], gap: int, candidates: list[int], target: int,
            image_total: int) -> Layout:
    """Strip the leading space of the first text, cut the tail to the exact gap, merge texts, verify."""
    tok = pool.tokenizer
    first = next((i for i in items if i.kind != "image"), None)
    if first is not None and first.text.startswith(" "):
        if first.kind == "text":
            u = first.payload
            unit, unit_tokens = pool.units[u], int(pool.unit_tokens[u])
        else:
            unit, unit_tokens = first.text, tok.unit_count(first.text)
        _stripped, delta = _unspaced_start(tok, unit, unit_tokens)
        first.text = first.text.lstrip(" ")
        first.tokens += delta
        gap -= delta
    if gap < 0:
        raise _Redraw
    # the tail goes after the last text/needle item (before trailing images, which keep their place)
    insert_at = len(items)
    while insert_at > 0 and items[insert_at - 1].kind == "image":
        insert_at -= 1
    standalone = first is None
    for _attempt in range(6):
        tail = cut_piece(pool, candidates, gap, standalone=standalone) if gap > 0 else ""
        trial = list(items)
        if tail:
            trial.insert(insert_at, Item("text", text=tail, tokens=gap))
        text = "".join(i.text for i in trial if i.kind != "image")
        want = target - image_total
        if pool.additive:
            break
        actual = tok.count(text)  # verify-and-repair: count the finished text once
        if actual == want:
            break
        gap += want - actual
        if gap < 0:
            raise ConfigError("could not reach the exact target length (tokenizer merges across units)")
    else:
        raise ConfigError("could not reach the exact target length after repairs")
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
    return Layout(merged, text_tokens, image_total,
                  needle_depths=needle_depths, image_depths=image_depths)


@dataclass
class SweepHaystack:
    """One text haystack, selected once, into which a needle can be put at any depth cheaply.

    ``with_needle`` costs a slot search and two string slices: no tokenization (the pool is additive and
    the needle was counted once). Used for depth sweeps, where only the needle position changes.
    """

    text: str  # the haystack text, without the needle
    slot_chars: np.ndarray  # char offset of each unit boundary
    slot_tokens: np.ndarray  # tokens before each unit boundary
    needle: str
    needle_tokens: int
    target: int

    def with_needle(self, depth: float) -> tuple[str, float]:
        """(context text with the needle at the boundary closest to ``depth``, realized depth)."""
        want = depth * self.target
        j = int(np.searchsorted(self.slot_tokens, want))
        if j > 0 and (j == len(self.slot_tokens) or want - self.slot_tokens[j - 1] <= self.slot_tokens[j] - want):
            j -= 1
        j = max(j, 1)  # slot 0 would make the needle the first text (its leading space is stripped there)
        c = int(self.slot_chars[j])
        return self.text[:c] + self.needle + self.text[c:], float(self.slot_tokens[j]) / self.target


def sweep_haystack(pool: TextPool, target: int, rng: np.random.Generator, needle: str) -> SweepHaystack:
    """Select and materialize a text-only haystack of ``target - needle`` tokens for a depth sweep."""
    if not pool.additive:
        raise ConfigError("depth sweeps need an additive tokenizer/language pair; use assemble() per depth")
    needle_tokens = pool.tokenizer.unit_count(needle)
    for _ in range(8):
        sel = select_text(pool, target - needle_tokens, rng)
        if not sel.ranges:
            break
        pieces: list[str] = []
        chars: list[np.ndarray] = []
        toks: list[np.ndarray] = []
        c0 = t0 = 0
        for s_u, e_u in sel.ranges:
            pieces.append(pool.span_text(s_u, e_u))
            chars.append(pool.char_off[s_u:e_u] - pool.char_off[s_u] + c0)
            toks.append(pool.unit_cum[s_u:e_u] - pool.unit_cum[s_u] + t0)
            c0 += len(pieces[-1])
            t0 += pool.span_tokens(s_u, e_u)
        first = sel.ranges[0][0]
        stripped, shift_t = _unspaced_start(pool.tokenizer, pool.units[first], int(pool.unit_tokens[first]))
        shift_c = len(pool.units[first]) - len(stripped)
        gap = sel.tail_tokens - shift_t
        if gap < 0:
            continue
        tail = cut_piece(pool, sel.next_units, gap)
        text = "".join(pieces)[shift_c:] + tail
        slot_chars = np.concatenate(chars + [np.array([c0])]) - shift_c
        slot_tokens = np.concatenate(toks + [np.array([t0])]) + shift_t
        slot_chars[0], slot_tokens[0] = 0, 0
        return SweepHaystack(text, slot_chars, slot_tokens, needle, needle_tokens, target)
    raise ConfigError(f"could not assemble an exact {target}-token haystack for a depth sweep")
