"""Noise variants of needle samples and the consistency metric (paper Section 5.3, Table 5, Figure 7).

Works on any text-needle sample whose ``meta.needles`` records each needle's ``text`` and character
``offset`` in the (single) text context part -- Sequential-NIAH samples, built or imported, and any family
that records positions the same way. A needle standing on its own line (``"\\n" + needle + "\\n"``, the
Sequential-NIAH layout of imported files) keeps that wrapping when it moves; a needle that records its own breaks
(``before``/``after``/``replaced``: niah-built Sequential-NIAH samples) moves the way the builder places one, its
gap before drawn afresh from the text's own sentences (:class:`niah.benchmarks.seq_niah.build.SentenceGaps`),
and so do the look-alike sentences of semantic noise; its cut points are then the builder's sentence ends.

Kinds (official names in ``meta.noise_type``):

* ``tiny-move`` (``little_moving``): each needle moves to another sentence end within +-3 sentence ends of
  its own; when two needles' windows overlap they are split at the midpoint, so the order is kept;
* ``big-move`` (``large_moving``): ``k`` fresh sentence ends drawn uniformly from the whole text, order kept;
* ``reorder`` (``order``): positions kept, needle order reshuffled until it differs;
* ``semantic`` (``syn_1``, ``syn_2``, ``syn_1+2`` ...): one or two look-alike sentences that are not answers,
  each inserted after a random sentence end of a different shard; the gold answer is unchanged. Diaries: an
  entry of another person with the same surname on a nearby date, and a sentence about the subject with no
  date. Relations: an event between one of the two entities and a third one, on a nearby date. Steps: a
  remark on the question's topic that is not a step.

Sentence ends are the official cut points (``.`` EN, ``。`` ZH) of the text without needles. A variant's
``meta.length`` is recounted with the sample's tokenizer when one is named (the official noise files keep the
base length), ``meta.base_length`` keeps the base; its needle depths are character fractions.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from niah.benchmarks.seq_niah import synth
from niah.benchmarks.seq_niah.dates import find_dates, format_date
from niah.benchmarks.seq_niah.judge import question_subject
from niah.sample import Sample, TextPart
from niah.util.errors import DataError

KINDS = ("tiny-move", "big-move", "reorder", "semantic")
OFFICIAL_NOISE_TYPE = {"tiny-move": "little_moving", "big-move": "large_moving", "reorder": "order"}
WINDOW = 3


@dataclass(slots=True)
class _Layout:
    """A sample taken apart: text before the haystack, the haystack without needles, needle cut points."""

    head: str  # context text before the haystack (the document prefix)
    raw: str  # haystack text without needles
    cuts: list[int]  # raw offset where each needle (inserted order) stands
    needles: list[dict[str, Any]]  # meta entries in inserted order
    wrap: str
    tail: str  # context text after the haystack (empty for seq-niah)
    framed: bool = False  # needles record their own breaks (niah-built): re-placed with fresh ones


def _context(sample: Sample) -> str:
    if len(sample.context) != 1 or not isinstance(sample.context[0], TextPart):
        raise DataError("noise needs a sample whose context is one text part", field="context")
    return sample.context[0].text


def _take_apart(sample: Sample) -> _Layout:
    needles = sample.meta.get("needles")
    if not isinstance(needles, list) or not needles or not all(
            isinstance(n, dict) and isinstance(n.get("text"), str) and isinstance(n.get("offset"), int)
            for n in needles):
        raise DataError("noise needs meta.needles with each needle's text and offset", field="meta.needles")
    ctx = _context(sample)
    order = sorted(needles, key=lambda n: n["offset"])
    first = order[0]
    framed = all(isinstance(n.get("before"), str) and isinstance(n.get("after"), str)
                 and isinstance(n.get("replaced"), str) for n in order)
    wrap = "" if framed else "\n" if all(ctx[n["offset"] - 1:n["offset"]] == "\n" and
                       ctx[n["offset"] + len(n["text"]):n["offset"] + len(n["text"]) + 1] == "\n"
                       for n in order) else ""
    for n in order:
        if ctx[n["offset"]:n["offset"] + len(n["text"])] != n["text"]:
            raise DataError(f"needle text not found at its offset {n['offset']}", field="meta.needles")
    head_len = len(sample.meta.get("doc_prefix", "")) if first["offset"] >= len(sample.meta.get("doc_prefix", "")) \
        else 0
    head = ctx[:head_len]
    pieces: list[str] = []
    cuts: list[int] = []
    prev = head_len
    raw_len = 0
    for n in order:
        before = n["before"] if framed else wrap
        start = n["offset"] - len(before)
        pieces.append(ctx[prev:start])
        raw_len += start - prev
        cuts.append(raw_len)
        if framed:  # the text the needle's break replaced (a space between two sentences) goes back
            pieces.append(n["replaced"])
            raw_len += len(n["replaced"])
        prev = n["offset"] + len(n["text"]) + len(n["after"] if framed else wrap)
    pieces.append(ctx[prev:])
    return _Layout(head, "".join(pieces), cuts, order, wrap, "", framed)


def _periods(text: str, lang: str, framed: bool = False) -> list[int]:
    """Offsets just after each official cut character of ``text`` (the builder's sentence ends when framed)."""
    if framed:
        from niah.benchmarks.seq_niah.build import _cut_positions

        return _cut_positions(text, lang)
    return [m.end() for m in re.finditer("。" if lang == "zh" else r"\.", text)]


def _assemble(sample: Sample, lay: _Layout, cuts: Sequence[int], needles: Sequence[dict[str, Any]], *,
              extra: Sequence[tuple[int, str]] = (), suffix: str, noise_type: str, kind: str,
              tokenizer: Any) -> Sample:
    """A variant: needles (in this order) at these raw cut offsets, plus extra sentences at offsets."""
    events = sorted([(c, 0, i, n["text"]) for i, (c, n) in enumerate(zip(cuts, needles, strict=True))] +
                    [(c, 1, j, t) for j, (c, t) in enumerate(extra)])
    out = [lay.head]
    prev = 0
    new_meta: list[dict[str, Any]] = []
    pos = len(lay.head)
    frame_rng = random.Random(f"seq-niah-noise-frame/{sample.id}/{kind}/{suffix}")
    haystack = None
    if lay.framed:
        from niah.benchmarks.seq_niah.build import SentenceGaps, first_line_gap, gap_at

        haystack = SentenceGaps(lay.raw, _periods(lay.raw, sample.meta.get("lang", "en"), framed=True))
    for c, is_extra, idx, text in events:
        if c > prev:
            out.append(lay.raw[prev:c])
            pos += c - prev
        if lay.framed:
            # placed like a sentence of the text, as the builder does (two at one sentence end follow each other
            # as two sentences would); the text's own gap follows, nothing is replaced. Needles keep their order
            # here: each is framed where it goes, none dealt to a line start
            assert haystack is not None
            before = haystack.draw_before(first_line_gap(text, gap_at(lay.raw, c)), frame_rng)
            after, replaced = "", 0
            frame = {"before": before, "after": after, "replaced": ""}
        else:
            wrap = lay.wrap or ("\n" if is_extra else "")
            before, after, replaced = wrap, wrap, 0
            frame = {}
        out.append(before)
        pos += len(before)
        if not is_extra:
            m = dict(needles[idx])
            m.update(frame)
            m["offset"] = pos
            m["inserted_index"] = idx
            new_meta.append(m)
        out.append(text)
        pos += len(text)
        out.append(after)
        pos += len(after)
        prev = max(prev, c + replaced)
    out.append(lay.raw[prev:])
    ctx = "".join(out)
    meta = dict(sample.meta)
    question = "".join(p.text for p in sample.question if isinstance(p, TextPart))
    full_len = len(ctx) + len(meta.get("joiner", "")) + len(meta.get("question_prefix", "")) + len(question)
    for m in new_meta:
        m["depth"] = round(m["offset"] / full_len, 6)
    meta["needles"] = sorted(new_meta, key=lambda m: m["inserted_index"])
    meta["depth"] = [m["depth"] for m in meta["needles"]]
    meta["depth_unit"] = "chars"
    meta["noise_type"] = noise_type
    meta["noise_kind"] = kind
    meta["variant_of"] = sample.id
    meta["base_length"] = sample.meta.get("length")
    # the official noise files number each variant's md5 on from its base's: {md5}_{i}
    meta["md5"] = f"{sample.meta.get('md5', sample.id)}_{suffix}"
    meta.pop("raw_text", None)
    if extra:
        from niah.benchmarks.seq_niah.build import raw_text_of

        # the inserted look-alike sentences (official: meta_QA.insert_needles); the text without needles is
        # still the base's (official meta_text.raw_text), not the one with the look-alikes
        meta["noise_sentences"] = [t for _c, t in extra]
        meta["raw_text"] = sample.meta.get("raw_text", raw_text_of(sample))
    variant = Sample(id=f"{sample.id}_{suffix}", benchmark=sample.benchmark, task=sample.task,
                     context=[TextPart(ctx)], question=list(sample.question), answer=sample.answer,
                     choices=sample.choices, meta=meta)
    if tokenizer is not None:
        variant.meta["length"] = tokenizer.count(ctx + meta.get("joiner", "") + meta.get("question_prefix", "")
                                                 + question)
    return variant


def _tiny_move_cuts(rng: random.Random, periods: list[int], cuts: list[int]) -> list[int]:
    idx = [_nearest_period(periods, c) for c in cuts]
    k = len(idx)
    new: list[int] = []
    for i, p in enumerate(idx):
        lo, hi = max(p - WINDOW, 0), min(p + WINDOW, len(periods) - 1)
        if i > 0:  # split an overlap with the previous needle's window at the midpoint
            lo = max(lo, (idx[i - 1] + p) // 2 + 1, (new[-1] + 1) if new else 0)
        if i < k - 1:
            hi = min(hi, (p + idx[i + 1]) // 2)
        window = [j for j in range(lo, hi + 1) if j != p] or [max(p, lo)]
        new.append(rng.choice(window))
    return [periods[j] for j in new]


def _nearest_period(periods: list[int], cut: int) -> int:
    """Index of the cut point at or before ``cut`` (a needle always follows one in the official layout)."""
    import bisect

    j = bisect.bisect_right(periods, cut) - 1
    return max(j, 0)


def _semantic_sentences(rng: random.Random, sample: Sample) -> list[str]:
    """One or two look-alike sentences (see the module docstring)."""
    m = sample.meta
    lang = m.get("lang", "en")
    diary = m.get("extrainfo_diary")
    subject = question_subject("".join(p.text for p in sample.question if isinstance(p, TextPart)))
    if not diary and m.get("ppl") == "syn" and subject and isinstance(sample.answer, str):
        # an imported diary sample: the subject from the question, the title from a needle, dates from the gold
        needle = m["needles"][0]["text"]
        title = needle[:needle.index(subject) + len(subject)] if subject in needle else subject
        if lang == "zh" and needle[len(title):len(title) + 2] in ("记事", "日记"):
            title += needle[len(title):len(title) + 2]
        gold_days = [min(d.days, key=str) for d in find_dates(sample.answer)]
        diary = [[subject, title, "", "", y, mo, dd, ""] for y, mo, dd in gold_days if y is not None]
    if diary:
        name, title = diary[0][0], diary[0][1]
        days = {date(r[4], r[5], r[6]) for r in diary}
        other = synth.same_surname_name(rng, name, lang)
        near = [b + timedelta(days=o) for b in sorted(days) for o in (-3, -2, -1, 1, 2, 3)]
        free = sorted({x for x in near if x not in days})  # a nearby day that is no gold day
        d = rng.choice(free)
        event = synth.random_event(rng, lang, rng.choice(synth.ZH_EVENTS if lang == "zh" else synth.EN_EVENTS))
        other_title = title.replace(name, other)
        first, _ = synth.render_needle(rng, other_title, d, event, lang)
        second = (f"{name}性格开朗，平时喜欢和朋友们聊天，也很愿意帮助身边的人。" if lang == "zh" else
                  f"{name} is known among friends as a cheerful person who enjoys long conversations and likes "
                  "helping others.")
        return [first, second]
    a, b = m.get("entity_A"), m.get("entity_B")
    if a and b:
        third = rng.choice([c for c in ("Norway", "Chile", "Vietnam", "Ghana", "Portugal", "Mongolia", "Uruguay")
                            if c not in (a, b)])
        rels = m.get("relation_list") or []
        rel_days = sorted(date.fromisoformat(r[3]) for r in rels) or [date(2010, 1, 1)]
        near_day = rng.choice(rel_days) + timedelta(days=rng.choice((-9, -5, -2, 2, 5, 9)))
        ds = format_date(near_day, "zh" if lang == "zh" else "month-day")
        if lang == "zh":
            return [f"{ds}，{a}与{third}举行了会谈。", f"{ds}，{b}与{third}签署了一项合作协议。"]
        return [f"On {ds}, {a} held talks with {third}.", f"On {ds}, {b} signed a cooperation agreement with {third}."]
    question = "".join(p.text for p in sample.question if isinstance(p, TextPart)).rstrip("?？")
    if m.get("ppl") == "tkg" and isinstance(sample.answer, str):
        # an imported relation timeline (the official files keep no entities): the subject from the question,
        # a nearby date from the gold, a third party
        tkg_days = sorted(date(y, mo, dd) for d in find_dates(sample.answer) for y, mo, dd in [min(d.days, key=str)]
                          if y is not None) or [date(2010, 1, 1)]
        who = subject or ("双方" if lang == "zh" else "the two parties")
        near_day = rng.choice(tkg_days) + timedelta(days=rng.choice((-9, -5, -2, 2, 5, 9)))
        ds = format_date(near_day, "zh" if lang == "zh" else "month-day")
        if lang == "zh":
            return [f"{ds}，{who}与挪威举行了会谈。", f"{ds}，{who}与智利签署了一项合作协议。"]
        return [f"On {ds}, {who} held talks with Norway.", f"On {ds}, {who} signed a cooperation agreement with Chile."]
    # steps: three distinct remarks on the question's topic that are not steps (official open_1..3)
    if lang == "zh":
        return [f"关于“{question}”这个话题，网上流传着许多说法，并不是每一种都可靠。",
                f"很多人第一次遇到“{question}”这个问题时，都会先向身边有经验的人请教。",
                f"“{question}”这个话题在论坛上经常被讨论，相关的帖子有成百上千条。"]
    return [f"Many different opinions circulate about the topic \"{question}\", and not all of them are reliable.",
            f"People who first face the question \"{question}\" often ask a friend with more experience.",
            f"The topic \"{question}\" comes up often in online forums, with hundreds of threads about it."]


def semantic_names(sample: Sample) -> tuple[str, str, str]:
    """The official ``noise_type`` names of a sample's three semantic variants, by its pipeline (``ppl``)."""
    m = sample.meta
    ppl = m.get("ppl")
    if ppl == "tkg" or (ppl is None and m.get("entity_A") and m.get("entity_B")):
        return ("tkg_1", "tkg_2", "tkg_1+2")
    if ppl == "syn" or (ppl is None and m.get("extrainfo_diary")):
        return ("syn_1", "syn_2", "syn_1+2")
    return ("open_1", "open_2", "open_3")


def make_variants(sample: Sample, kind: str, *, variants: int = 3, seed: int = 0, tokenizer: Any = None,
                  start_index: int = 1) -> list[Sample]:
    """``variants`` noisy copies of ``sample`` of one kind (ids ``{id}_{start_index}``, ...)."""
    if kind not in KINDS:
        raise ValueError(f"unknown noise kind {kind!r}; choose from {', '.join(KINDS)}")
    lay = _take_apart(sample)
    lang = sample.meta.get("lang", "en")
    periods = _periods(lay.raw, lang, lay.framed)
    k = len(lay.needles)
    if len(periods) < k:
        raise DataError(f"the text has {len(periods)} cut points, fewer than its {k} needles")
    rng = random.Random(f"seq-niah-noise/{seed}/{sample.id}/{kind}")
    out: list[Sample] = []
    for v in range(variants):
        suffix = str(start_index + v)
        if kind == "tiny-move":
            cuts = _tiny_move_cuts(rng, periods, lay.cuts)
            out.append(_assemble(sample, lay, cuts, lay.needles, suffix=suffix, noise_type="little_moving",
                                 kind=kind, tokenizer=tokenizer))
        elif kind == "big-move":
            cuts = sorted(rng.sample(periods, k))
            out.append(_assemble(sample, lay, cuts, lay.needles, suffix=suffix, noise_type="large_moving",
                                 kind=kind, tokenizer=tokenizer))
        elif kind == "reorder":
            if k < 2:
                raise DataError("reordering needs at least two needles")
            order = list(lay.needles)
            while [n["text"] for n in order] == [n["text"] for n in lay.needles]:
                rng.shuffle(order)
                if len({n["text"] for n in order}) < 2:
                    raise DataError("reordering needs two different needles")
            out.append(_assemble(sample, lay, lay.cuts, order, suffix=suffix, noise_type="order", kind=kind,
                                 tokenizer=tokenizer))
        else:
            sentences = _semantic_sentences(rng, sample)
            labels = semantic_names(sample)
            if labels[0] == "open_1":  # three distinct remarks, one per variant
                chosen, names = [sentences[v % len(sentences)]], labels[v % 3]
            else:  # the first, the second, both
                chosen, names = [[sentences[0]], [sentences[-1]], sentences][v % 3], labels[v % 3]
            shard_bounds = [0] + lay.cuts + [len(lay.raw)]
            shards = rng.sample(range(len(shard_bounds) - 1), min(len(chosen), len(shard_bounds) - 1))
            extra: list[tuple[int, str]] = []
            for s_idx, text in zip(shards, chosen, strict=False):
                lo, hi = shard_bounds[s_idx], shard_bounds[s_idx + 1]
                inside = [p for p in periods if lo < p < hi] or [p for p in periods if lo <= p <= hi] or [hi]
                extra.append((rng.choice(inside), text))
            out.append(_assemble(sample, lay, lay.cuts, lay.needles, extra=extra, suffix=suffix,
                                 noise_type=names, kind=kind, tokenizer=tokenizer))
    return out


def noise_samples(samples: Iterable[Sample], kinds: Sequence[str] = KINDS, *, variants: int = 3, seed: int = 0,
                  tokenizer: Any = None) -> Iterable[Sample]:
    """Every sample's variants, kind after kind, numbered on like the official files (``_1`` .. ``_9`` for
    three movement/reorder kinds of three variants, semantic after them)."""
    for sample in samples:
        index = 1
        for kind in kinds:
            yield from make_variants(sample, kind, variants=variants, seed=seed, tokenizer=tokenizer,
                                     start_index=index)
            index += variants


# --- consistency ---------------------------------------------------------------------------------------------

@dataclass(slots=True)
class NoiseGroupResult:
    kind: str
    accuracy: float  # mean over variants, %
    accuracy_std: float  # std over variants (population), %
    consistency: float  # % of base samples judged the same on the base and every variant of the group
    consistently_correct: float
    consistently_wrong: float
    bases: int
    without_base: int = 0  # base samples not scored: judged the same on every variant of theirs only

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "accuracy": self.accuracy, "accuracy_std": self.accuracy_std,
                "consistency": self.consistency, "consistently_correct": self.consistently_correct,
                "consistently_wrong": self.consistently_wrong, "bases": self.bases,
                "without_base": self.without_base}


def consistency(base_scores: Mapping[str, float], variant_scores: Mapping[str, float],
                variant_of: Mapping[str, str], kind_of: Mapping[str, str]) -> dict[str, NoiseGroupResult]:
    """Table 5: per noise kind and ``all`` kinds together, accuracy (mean +- std over the variant rounds) and
    consistency (share of base samples whose verdict is the same on the base and every variant), split into
    consistently correct and consistently wrong. A base sample without a score (an official noise file scored
    without its test file) counts as consistent when its variants all agree (``without_base``)."""
    groups: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for vid, score in variant_scores.items():
        base = variant_of.get(vid)
        if base is None:
            continue
        kind = kind_of.get(vid, "unknown")
        for g in (kind, "all"):
            groups.setdefault(g, {}).setdefault(base, []).append((vid, score))
    out: dict[str, NoiseGroupResult] = {}
    for g, per_base in groups.items():
        rounds: dict[int, list[float]] = {}
        same = correct = wrong = missing = 0
        for base, rows in per_base.items():
            scores = [s for _v, s in sorted(rows, key=lambda r: _variant_number(r[0]))]
            b = base_scores.get(base)
            if b is None:
                missing += 1
                b = scores[0]
            for r, s in enumerate(scores):
                rounds.setdefault(r, []).append(s)
            if all(s == b for s in scores):
                same += 1
                correct += int(b >= 1)
                wrong += int(b < 1)
        accs = [100.0 * sum(v) / len(v) for v in rounds.values() if v]
        n = len(per_base)
        out[g] = NoiseGroupResult(g, statistics.fmean(accs) if accs else 0.0,
                                  statistics.pstdev(accs) if len(accs) > 1 else 0.0,
                                  100.0 * same / n, 100.0 * correct / n, 100.0 * wrong / n, n, missing)
    return out


def _variant_number(vid: str) -> int:
    tail = vid.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def gold_unchanged(sample: Sample, variant: Sample) -> bool:
    """True when a variant keeps the gold answer and every needle (a check for tests and reports)."""
    return sample.answer == variant.answer and sorted(n["text"] for n in sample.meta["needles"]) == \
        sorted(n["text"] for n in variant.meta["needles"])


__all__ = ["KINDS", "NoiseGroupResult", "consistency", "gold_unchanged", "make_variants",
           "noise_samples"]
