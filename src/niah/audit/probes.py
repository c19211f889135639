"""The audit's reading probes: shortcuts that read what the model is sent without doing the task.

:mod:`niah.audit.dataset` collects, per sample, the facts these probes need (in its second pass, when every other
sample's gold is known, so that nothing is learned from a sample's own gold) and turns them into verdicts:

``answer-pool-budget``
    For a task whose rule accepts the gold anywhere in a reply: the most frequent golds of the task's *other*
    samples, listed most frequent first, cut to the sample's own new-token budget (its generation settings,
    counted with the dataset's tokenizer). ``reference-pool``: the same list taken from the ``--reference``
    build (a model that memorised another build's answers).
``mention-frequency``
    The candidates of the answer's type in the context (phrases that were golds of the task's other samples
    or of the reference build, else words shaped like those golds), the question's words left out; the reply
    is the one mentioned exactly once (first or last of them), least, most, first or last. Which rule is used
    is learned on the other samples.
``learned``
    A conditional logit (softmax over a sample's candidates, numpy only) fitted on the other folds of the task
    (5 folds, groups kept together) to features of what the model is sent: for multiple choice each option's
    slot, length, overlap with the question, mentions in the context and image statistics (brightness, colour,
    edges, which half is bluer); for open answers each candidate word's mentions, positions, capitalisation and
    the rarity of the characters around it; for counts, whether the count equals one of the sample's visible
    counts (paragraphs, lines, sentences, images, options). The held-out pick is scored by the official rule.

None of these knows a family; a family shapes them only through its ``AuditSpec`` (chance, groups).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from niah.sample import ImagePart, Sample, TextPart

#: Folds of the learned probe (samples of one group share a fold).
FOLDS = 5
#: Candidate words per sample the learned and mention probes consider (the most mentioned are kept).
MAX_CANDIDATES = 300
#: Golds of the other samples a pool reply may list before the token budget is even counted.
POOL_LIST_MAX = 400
_WORD = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*", re.UNICODE)
_SENTENCE = re.compile(r"[^.!?\n\u3002]*[.!?\n\u3002]*")
_CAPITAL = re.compile(r"[A-Z\u00c0-\u00de]")
_MENTION_RULES = ("once-first", "once-last", "least-first", "least-last", "most", "first", "last")


def _norm(text: str) -> str:
    return " ".join(w.lower() for w in _WORD.findall(text))


@dataclass
class WordStats:
    """Where each word stands in a context: count, first and last position (0-1 of the context's words),
    and the largest rarity of the characters in a sentence holding it."""

    count: Counter[str] = field(default_factory=Counter)
    first: dict[str, float] = field(default_factory=dict)
    last: dict[str, float] = field(default_factory=dict)
    rarity: dict[str, float] = field(default_factory=dict)
    total: int = 0


def _sentence_rarity(text: str) -> tuple[list[int], list[float]]:
    """Start offsets of the context's sentences and each one's rarity: -log share of its rarest mark among
    the context's marks (a needle marked by an unusual mark stands out)."""
    marks = Counter({ch: n for ch, n in Counter(text).items() if not ch.isalnum() and not ch.isspace()})
    size = max(1, sum(marks.values()))
    starts: list[int] = []
    rarity: list[float] = []
    for m in _SENTENCE.finditer(text):
        if not m.group(0).strip():
            continue
        own = [marks[ch] for ch in m.group(0) if ch in marks]
        starts.append(m.start())
        rarity.append(-math.log(min(own) / size) if own else 0.0)
    return starts, rarity


def _record(stats: WordStats, key: str, offset: int, length: int, starts: list[int], rarity: list[float]) -> None:
    import bisect

    pos = offset / max(1, length - 1)
    stats.count[key] += 1
    stats.first.setdefault(key, pos)
    stats.last[key] = pos
    k = bisect.bisect_right(starts, offset) - 1
    if k >= 0 and rarity[k] > stats.rarity.get(key, 0.0):
        stats.rarity[key] = rarity[k]


@lru_cache(maxsize=65536)
def word_shape(word: str) -> str:
    """A word's shape: each letter as A or a, each digit as 9, other characters kept (``Theodora`` ->
    ``Aaaaaaaa``); the answer's type when golds are made-up words no list holds."""
    return "".join("A" if ch.isupper() else "a" if ch.isalpha() else "9" if ch.isdigit() else ch
                   for ch in word[:16])


def word_stats(text: str, pattern: re.Pattern[str] | None, shapes: Container[str]) -> WordStats:
    """Mentions in the context (lower case) of the phrases ``pattern`` matches (the golds of other samples)
    and of the words shaped like them."""
    stats = WordStats()
    starts, rarity = _sentence_rarity(text)
    stats.total = len(text)
    if pattern is not None:
        for m in pattern.finditer(text.lower()):
            _record(stats, m.group(0), m.start(), len(text), starts, rarity)
    if shapes:
        # each shaped word's count, first and last place (its rarity read where it first and last stands)
        counts = Counter(_WORD.findall(text))
        spots: dict[str, list[int]] = {}
        for word, n in counts.items():
            if word_shape(word) not in shapes:
                continue
            key = word.lower()
            first, last = text.find(word), text.rfind(word)
            got = spots.get(key)
            if got is None:
                spots[key] = [n, first, last]
            else:
                got[0] += n
                got[1], got[2] = min(got[1], first), max(got[2], last)
        for key, (n, first, last) in spots.items():
            if key in stats.count:
                continue
            _record(stats, key, first, len(text), starts, rarity)
            if n > 1:
                _record(stats, key, last, len(text), starts, rarity)
                stats.count[key] = n
    return stats


def phrase_pattern(phrases: Sequence[str]) -> re.Pattern[str] | None:
    """One regex finding any of ``phrases`` (lower case) as whole words, longest first."""
    kept = sorted({p for p in phrases if p.strip()}, key=lambda p: (-len(p), p))
    if not kept:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(p) for p in kept) + r")(?!\w)")


def lower_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def outlier_hit(text: str, needles: Sequence[str], needle_words: Mapping[str, int], own: Counter[str],
                haystack_words: Mapping[str, int]) -> tuple[float, float] | None:
    """The vocabulary-outlier detector on one context: whether the sentence whose words are most needle-like
    (naive Bayes: words of the other samples' needles against the task's contexts, add-half) is a needle
    sentence, and the needle share of sentences (its chance). ``own``: the sample's own needle words, taken out.
    None when no sentence holds a needle."""
    split = [(m.group(0).strip(), _WORD.findall(m.group(0).lower())) for m in _SENTENCE.finditer(text)]
    split = [(s, words) for s, words in split if len(words) >= 3]
    sentences = [s for s, _w in split]
    is_needle = [any(s in n or n in s for n in needles) for s in sentences]
    if not any(is_needle):
        return None
    needle_total = sum(needle_words.values()) - sum(own.values()) + 1
    hay_total = sum(haystack_words.values()) + 1

    ratio: dict[str, float] = {}

    def weight(w: str) -> float:
        got = ratio.get(w)
        if got is None:
            got = ratio[w] = (math.log((needle_words.get(w, 0) - own.get(w, 0) + 0.5) / needle_total)
                              - math.log((haystack_words.get(w, 0) + 0.5) / hay_total))
        return got

    def score(words: list[str]) -> float:
        return sum(weight(w) for w in words) / len(words)

    top = max(range(len(sentences)), key=lambda k: (score(split[k][1]), -k))
    return float(is_needle[top]), sum(is_needle) / len(sentences)


def question_words(sample: Sample) -> set[str]:
    text = "".join(p.text for p in sample.question if isinstance(p, TextPart))
    text += " " + " ".join("".join(p.text for p in c if isinstance(p, TextPart)) for c in sample.choices or ())
    return {w.lower() for w in _WORD.findall(text)}


def typed_candidates(stats: WordStats, asked: set[str]) -> list[str]:
    """The context's mentions of the answer's type, never a word of the question: the ``MAX_CANDIDATES // 2``
    least and most mentioned (a rule may look for either end)."""
    typed = sorted((w for w in stats.count if not set(w.split()) <= asked),
                   key=lambda w: (stats.count[w], stats.first[w]))
    half = MAX_CANDIDATES // 2
    return typed if len(typed) <= MAX_CANDIDATES else typed[:half] + typed[-half:]


def mention_picks(stats: WordStats, candidates: Sequence[str]) -> dict[str, str]:
    """The candidate each mention rule picks (a rule with no candidate picks nothing)."""
    if not candidates:
        return {}
    picks: dict[str, str] = {}
    once = [w for w in candidates if stats.count[w] == 1]
    if once:
        picks["once-first"] = min(once, key=lambda w: stats.first[w])
        picks["once-last"] = max(once, key=lambda w: stats.last[w])
    least = min(stats.count[w] for w in candidates)
    fewest = [w for w in candidates if stats.count[w] == least]
    picks["least-first"] = min(fewest, key=lambda w: stats.first[w])
    picks["least-last"] = max(fewest, key=lambda w: stats.last[w])
    picks["most"] = max(candidates, key=lambda w: (stats.count[w], -stats.first[w]))
    picks["first"] = min(candidates, key=lambda w: stats.first[w])
    picks["last"] = max(candidates, key=lambda w: stats.last[w])
    return picks


def word_features(stats: WordStats, candidates: Sequence[str], vocabulary: Container[str]) -> list[list[float]]:
    rows = []
    for w in candidates:
        n = stats.count[w]
        # how and where a candidate is mentioned, not what it looks like: a word's own form is its type, and
        # finding the answer by its type is the type scan's diagnostic
        rows.append([math.log1p(n), float(n == 1), stats.first[w], stats.last[w], 1.0 - stats.last[w],
                     float(w in vocabulary), stats.rarity.get(w, 0.0)])
    return rows


def _image_stats(path: Path) -> list[float]:
    """Mean brightness, contrast, red-blue balance, which half is bluer, edge energy of an image (0-1)."""
    import numpy as np
    from PIL import Image

    try:
        with Image.open(path) as img:
            img.draft("RGB", (128, 128))
            arr = np.asarray(img.convert("RGB").resize((32, 32)), dtype=np.float64) / 255.0
    except (OSError, ValueError, Image.DecompressionBombError):  # an unreadable option: no statistics
        return [0.0] * 6
    grey = arr.mean(axis=2)
    blue = arr[:, :, 2] - arr[:, :, :2].mean(axis=2)
    edges = float(np.abs(np.diff(grey, axis=0)).mean() + np.abs(np.diff(grey, axis=1)).mean())
    return [float(grey.mean()), float(grey.std()), float((arr[:, :, 0] - arr[:, :, 2]).mean()),
            float(blue[:16].mean() - blue[16:].mean()), float(blue[:, :16].mean() - blue[:, 16:].mean()), edges]


def option_features(sample: Sample, context_text: str, resolve: Callable[[str], Path | None]) -> list[list[float]]:
    """One row per option: slot (one-hot over 8), text length, word overlap with the question, mentions of
    its text in the context (and of its words), where it last stands, image statistics."""
    choices = sample.choices or []
    asked = {w.lower() for w in _WORD.findall("".join(p.text for p in sample.question if isinstance(p, TextPart)))}
    lowered = context_text.lower()
    rows = []
    for slot, choice in enumerate(choices):
        text = "".join(p.text for p in choice if isinstance(p, TextPart)).strip()
        words = [w.lower() for w in _WORD.findall(text)]
        phrase = text.lower()
        mentions = lowered.count(phrase) if phrase else 0
        last = lowered.rfind(phrase) / max(1, len(lowered)) if phrase and mentions else -1.0
        row = [float(slot == k) for k in range(8)]
        row += [math.log1p(len(text)), float(len(words)), sum(w in asked for w in words) / max(1, len(words)),
                math.log1p(mentions), last]
        images = [p for p in choice if isinstance(p, ImagePart)]
        stats = [0.0] * 6
        if images:
            path = resolve(images[0].path)
            if path is not None:
                stats = _image_stats(path)
        rows.append(row + stats)
    return _standardise_within(rows, keep=8)


def count_features(sample: Sample, context_text: str, counts: Sequence[int]) -> list[list[float]]:
    """One row per candidate count: whether it equals a visible count of the sample, and the count itself
    one-hot (the prior over counts)."""
    paragraphs = len([p for p in re.split(r"\n\s*\n", context_text) if p.strip()])
    lines = len([line for line in context_text.split("\n") if line.strip()])
    sentences = len(re.findall(r"[.!?\u3002](?:\s|$)", context_text))
    images = sum(isinstance(p, ImagePart) for p in sample.context)
    options = len(sample.choices or [])
    visible = [paragraphs, lines, sentences, images, options, paragraphs % 10, sentences % 10, lines % 10]
    lo = min(counts)
    return [[float(c == v) for v in visible] + [float(c - lo == k) for k in range(12)] for c in counts]


def _standardise_within(rows: list[list[float]], keep: int = 0) -> list[list[float]]:
    """Each column but the first ``keep`` centred and scaled within the sample: what sets an option apart from
    its siblings, not its absolute value."""
    if len(rows) < 2:
        return rows
    cols = list(zip(*rows, strict=True))
    out_cols = []
    for j, col in enumerate(cols):
        if j < keep:
            out_cols.append(list(col))
            continue
        mean = sum(col) / len(col)
        sd = math.sqrt(sum((x - mean) ** 2 for x in col) / len(col))
        out_cols.append([(x - mean) / sd if sd > 1e-9 else 0.0 for x in col])
    return [list(r) for r in zip(*out_cols, strict=True)]


@dataclass
class Choice:
    """One sample's candidates for the learned probe: feature rows, each candidate's official score (0-1),
    and its group (kept in one fold)."""

    features: list[list[float]]
    scores: list[float]
    group: str


def fit_conditional_logit(items: Sequence[Choice], *, steps: int = 150, l2: float = 1e-2) -> Any:
    """Weights of a softmax over each item's candidates, fitted to put mass on the candidates that score
    (plain gradient descent; the features are few and already scaled)."""
    import numpy as np

    width = next((len(c.features[0]) for c in items if c.features), 0)
    w = np.zeros(width)
    mats = [(np.asarray(c.features, dtype=np.float64), np.asarray(c.scores, dtype=np.float64))
            for c in items if c.features]
    mats = [(x, y / y.sum()) for x, y in mats if y.sum() > 0]
    if not mats:
        return w
    rate = 0.5
    for _ in range(steps):
        grad = l2 * w
        for x, y in mats:
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            grad -= x.T @ (y - p) / len(mats)
        w -= rate * grad
    return w


def learned_scores(items: Sequence[Choice]) -> list[float | None]:
    """Each item's held-out score: the candidate the model fitted on the other folds ranks first (ties: the
    first candidate), its official score. Folds are assigned by group, in sorted group order."""
    import numpy as np

    width = next((len(c.features[0]) for c in items if c.features), 0)
    if len(items) < FOLDS or not width:
        return [None] * len(items)
    groups = sorted({c.group for c in items})
    fold_of = {g: k % FOLDS for k, g in enumerate(groups)}
    out: list[float | None] = [None] * len(items)
    for fold in range(FOLDS):
        train = [c for c in items if fold_of[c.group] != fold]
        if not train:
            continue
        w = fit_conditional_logit(train)
        for i, c in enumerate(items):
            if fold_of[c.group] != fold:
                continue
            if not c.features:  # no candidate of the answer's type: nothing to reply
                out[i] = 0.0
                continue
            z = np.asarray(c.features, dtype=np.float64) @ w
            out[i] = c.scores[int(np.argmax(z))]
    return out


def pool_reply(ranked: Sequence[tuple[str, str]], budget: int | None, count: Callable[[str], int]) -> str:
    """The golds' reply texts (most frequent first) joined by ", " while the whole stays within ``budget``
    tokens (None: no cap)."""
    out: list[str] = []
    used = 0
    for _key, text in ranked:
        cost = count(text) + (1 if out else 0)
        if budget is not None and used + cost > budget:
            break
        out.append(text)
        used += cost
    return ", ".join(out)


def top_golds(counts: Counter[str], limit: int = POOL_LIST_MAX + 64) -> list[tuple[str, int]]:
    """A task's golds most frequent first (ties: sorted), the first ``limit``: sorted once per task."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def ranked_golds(top: Sequence[tuple[str, int]], own: Mapping[str, int], limit: int = POOL_LIST_MAX) -> list[str]:
    """The golds of ``top`` (most frequent first) once the sample's own group is taken out (ties: sorted)."""
    kept = [(k, n - own.get(k, 0)) for k, n in top[:limit + len(own)]]
    return [k for k, n in sorted(kept, key=lambda kv: (-kv[1], kv[0])) if n > 0][:limit]


__all__ = ["Choice", "FOLDS", "WordStats", "count_features", "fit_conditional_logit", "learned_scores",
           "lower_words", "mention_picks", "option_features", "outlier_hit", "pool_reply", "question_words", "ranked_golds",
           "phrase_pattern", "top_golds", "typed_candidates", "word_features", "word_shape", "word_stats", "_MENTION_RULES"]
