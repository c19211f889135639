"""``niah audit``: can a dataset be scored without doing its task?

A generated benchmark is only worth its scores if no shortcut reaches them. This module tries the shortcuts a
careful reviewer (or an over-fitted model) would, on the dataset alone, and says per task whether each stays at
blind chance. It knows no family: needles come from the family's ``AuditSpec.locate`` (or the shared meta
conventions, :func:`niah.run.delivery.default_locate`), chance from ``AuditSpec.chance``, replies are scored with the
family's own official per-sample score, and families add probes of their own (``AuditSpec.probes``).

Probes (each a :class:`~niah.benchmarks.protocol.ProbeResult`, scores in percent):

``no-read`` (replies written without reading the context, scored by the official rule)
    ``random``: the family's ``baseline:random`` reply (must sit at chance, within the margin either way);
    ``question-echo``: the question (and option texts) sent back; ``majority-task``: the most frequent gold of
    the other samples of the task; ``majority-question``: the most frequent gold of the other samples asking the
    same question text (the task's when none does); ``constant``: the single reply that scores best on the
    task's other samples (a list gold: one value repeated as many times as the gold has items), cross-fitted by
    :func:`leave_one_out_best`; ``answer-pool``: every distinct gold of
    an open-answer task listed in one reply; ``reference-table``: the gold a second build (``--reference``,
    another seed) gives the same question text.
``layout`` (can whitespace or position alone pick out a needle?)
    The context is cut into segments (sentences and lines, as whitespace and sentence ends cut it) and images;
    each gets a layout class (the whitespace before and after it, its paragraph role, whether it stands first,
    last or next to an image). A finder learns on the other samples which class is most needle-like and, in
    each sample, picks among the segments (images) of that class: its hit rate is the probe's score, the needle
    share of segments (images) its chance. ``*-skew`` probes compare the class distributions of needles and
    haystack directly (total variation distance, against what random placement gives: ``chance`` is the 95th
    percentile of that distance when needles are a random subset of the same segments).
``reading`` (:mod:`niah.audit.probes`: shortcuts that read what the model is sent without doing the task)
    ``answer-pool-budget``: the other samples' most frequent golds within the sample's new-token budget, for
    open-answer tasks whose rule accepts the gold anywhere in a reply; ``reference-pool``: the same from the
    ``--reference`` build; ``mention-frequency``: the candidate of the answer's type mentioned once, least,
    most, first or last; ``learned``: a softmax over each sample's candidates (options, words, counts) fitted
    on other folds to features of what the model is sent; ``type-scan`` (a diagnostic): the answer found by
    its type alone. ``vocabulary-outlier`` (a layout diagnostic): needle sentences found by their words.
``leak``
    ``gold-in-haystack``: the gold answer text found in the context with the needles taken out.
``delivery`` (what the model is actually sent, through the runner's own rendering, frame sampling and
capability fit)
    ``needles-delivered``: samples whose every needle is in the sent prompt (must be 100%);
    ``same-prompt``: samples that send exactly the prompt of another sample with a different gold (must be 0).

A probe passes when its score is at most chance + ``margin`` points (``random``: within the margin of chance;
the delivery probes: exactly 100 and 0). :func:`audit_dataset` returns an :class:`AuditReport`; the CLI prints a
table per task, writes ``audit.json`` and exits 1 when a probe fails.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from niah.benchmarks.protocol import UNSCORED, AuditSpec, NeedleSpot, ProbeResult
from niah.sample import Dataset, ImagePart, Sample, TextPart, VideoPart
from niah.util.errors import ConfigError, DataError

AUDIT_FILE = "audit.json"
#: Points a probe may beat chance by before it fails (the issue's stated margin).
DEFAULT_MARGIN = 5.0
#: An open-answer task with at most this many distinct golds has a closed answer pool a model could list.
POOL_MAX = 50
#: Gold texts shorter than this, or numbers, are too common to count as leaked when found in the haystack.
LEAK_MIN_CHARS = 3
LEAK_MAX_CHARS = 100
#: The most frequent gold texts of a task whose presence in other samples' haystacks sets the leak base rate.
LEAK_GOLDS = 300
#: One-sided 99% normal quantile: the sampling noise a verdict allows beyond the margin.
NOISE_Z = 2.33
#: The kind of the probes that check what the model is sent: a failure there is a sample that cannot be
#: answered from its prompt, not a way to score without doing the task.
DELIVERY = "delivery"
#: Random-placement draws for the skew probes' chance level.
SKEW_DRAWS = 200

# Segment boundaries: any whitespace run holding a line break, whitespace after a sentence end, or the point
# after a CJK sentence end (CJK text has no spaces).
_BOUNDARY = re.compile(r"[ \t\u3000]*\n\s*|(?<=[.!?;:\"'\u201d\u2019)\]])[ \t\u3000]+|(?<=[\u3002\uff01\uff1f\uff1b])")
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]]*$")
#: A line that is a list item (a bullet or a number, then a space): its sentences are no fair comparison for
#: needles, which stand only in plain paragraphs.
_LIST_LINE = re.compile(r"[ \t]*(?:[-*\u2022]|\d+[.)])[ \t]")


@dataclass(frozen=True)
class AuditOptions:
    """The audit's settings: what the run would send (frame and image budgets, capability fit) and how strict
    the verdicts are."""

    margin: float = DEFAULT_MARGIN
    max_frames: int | None = None
    video_fps: float | None = None
    subtitle_mode: str = "frames"
    max_images: int | None = None
    max_context: int | None = None
    over_limit: str = "skip"
    vision: bool = True
    native_video: bool = False
    reference: Path | None = None
    #: Seeds of the ``random`` probe's baseline reply per sample (each sample's score is their mean).
    random_draws: int = 10
    seed: int = 0
    media_roots: tuple[str, ...] = ()
    #: The most samples of a task the audit measures, the dataset's own and those it builds of the same
    #: generator (:func:`niah.audit.samples.audit_enough`); None: ``niah.audit.samples.DEFAULT_LIMIT``; at or
    #: below the dataset's own size (0, say), none are built.
    limit: int | None = None
    #: The noise allowance (points, at 95% one-sided) that samples are built for.
    allowance: float = 5.0
    #: Where the delivery probe's sampled frames are cached: a run's own ``cache/frames`` when the audit reads a
    #: run, else :func:`niah.video.expand.frame_cache_dir`. Where the frames live changes no verdict, so it is
    #: left out of audit.json (which stays the same wherever the audit ran).
    frame_cache: Path | None = None

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["reference"] = str(self.reference) if self.reference is not None else None
        out["media_roots"] = list(self.media_roots)
        del out["frame_cache"]
        return out


@dataclass
class AuditReport:
    dataset: str
    samples: int
    options: AuditOptions
    probes: list[ProbeResult]
    tasks: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Where the measured samples came from: the dataset, then any more of its generator the audit built
    #: (each with its samples per task).
    sources: list[dict[str, Any]] = field(default_factory=list)

    def built(self, task: str) -> int:
        """Samples of ``task`` the audit built beyond the dataset's own."""
        return sum(int(s.get("tasks", {}).get(task, 0)) for s in self.sources if s.get("built"))

    @property
    def passed(self) -> bool:
        return all(p.passed for p in self.probes if not p.advisory)

    @property
    def failed(self) -> list[ProbeResult]:
        return [p for p in self.probes if not p.passed and not p.advisory]

    @property
    def skewed(self) -> list[ProbeResult]:
        return [p for p in self.probes if not p.passed and p.advisory]

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "samples": self.samples,
            "tasks": self.tasks,
            "options": self.options.to_json(),
            "passed": self.passed,
            "failed": len(self.failed),
            "skewed": len(self.skewed),
            "margin": self.options.margin,
            "sources": self.sources,
            "probes": [dataclasses.asdict(p) for p in self.probes],
            "notes": self.notes,
        }


# ---------------------------------------------------------------------------------------------------------
# family hooks


def _audit_spec(benchmark: str) -> AuditSpec:
    from niah.benchmarks.registry import find_family

    family = find_family(benchmark)
    if family is not None and family.audit is not None:
        spec = family.audit()
        if not isinstance(spec, AuditSpec):
            raise ConfigError(f"{benchmark}: Family.audit must return an AuditSpec")
        return spec
    return AuditSpec()


def default_chance(sample: Sample) -> float:
    """A blind guess at a multiple-choice sample is right once in as many options; an open answer never."""
    return 1.0 / len(sample.choices) if sample.choices else 0.0


def best_blind_reply(sample: Sample, draw_gold: Callable[[Any], Any], *, candidates: int = 16,
                     draws: int = 400, seed: int = 0) -> tuple[float, str]:
    """Chance computed from the rule: the best expected official score (0-1) of a blind reply to ``sample``,
    and that reply. ``draw_gold(rng)`` draws a gold as the generator draws them for a sample that looks like
    this one (a ``random.Random`` is passed). The candidates are the oracle replies of ``candidates`` drawn
    golds (a guesser who knows the generator's distribution answers one of its likely golds); each is scored by
    the family's rule against fresh draws, the best picked on one half of them and measured on the other
    (picking and measuring on the same draws would count luck as chance)."""
    import random

    rng = random.Random(seed)
    replies = sorted({_reply_for(sample, draw_gold(rng)) for _ in range(candidates)})
    golds = [draw_gold(rng) for _ in range(draws)]
    pick, measure = golds[: draws // 2], golds[draws // 2:]

    def mean(reply: str, on: Sequence[Any]) -> float:
        got = [_official(dataclasses.replace(sample, answer=g), reply) for g in on]
        return sum(v for v in got if v is not None) / max(1, len(on))

    best = max(replies, key=lambda r: (mean(r, pick), r))
    return mean(best, measure), best


class _Hooks:
    """The family hooks of every benchmark met, loaded once."""

    def __init__(self) -> None:
        self._specs: dict[str, AuditSpec] = {}

    def spec(self, benchmark: str) -> AuditSpec:
        if benchmark not in self._specs:
            self._specs[benchmark] = _audit_spec(benchmark)
        return self._specs[benchmark]

    def locate(self, sample: Sample) -> list[NeedleSpot]:
        from niah.run.delivery import default_locate

        locate = self.spec(sample.benchmark).locate or default_locate
        return list(locate(sample))

    def chance(self, sample: Sample) -> float:
        chance = self.spec(sample.benchmark).chance or default_chance
        return float(chance(sample))

    def group(self, sample: Sample) -> str:
        group = self.spec(sample.benchmark).group
        return "id:" + sample.id if group is None else "group:" + str(group(sample))

    def needles_in_lists(self, sample: Sample) -> bool:
        return self.spec(sample.benchmark).needles_in_lists


def _official(sample: Sample, reply: str | None) -> float | None:
    """The family's official per-sample score of ``reply`` (0-1), or None when the rule leaves it unscored."""
    from niah.scoring.metrics.base import MetricInputError
    from niah.scoring.score import get_scorer

    try:
        result = get_scorer(sample.benchmark).score(sample, reply)
    except MetricInputError:
        return None
    if result.row.get(UNSCORED):
        return None
    value = result.scores.get("official")
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _reply_for(sample: Sample, gold: Any) -> str:
    """The reply the oracle would give if ``gold`` were this sample's answer (the family's answer form)."""
    from niah.models.baselines import oracle_reply

    return oracle_reply(dataclasses.replace(sample, answer=gold))


def _random_reply(sample: Sample, seed: int) -> str:
    from niah.models.base import ModelSpec
    from niah.models.baselines import RandomBaseline

    return RandomBaseline(ModelSpec("baseline", "random", options={"seed": str(seed)})).answer(sample)


# ---------------------------------------------------------------------------------------------------------
# per-sample facts (one streaming pass; samples are never all held in memory)


def _gold_key(answer: Any) -> str:
    return json.dumps(answer, sort_keys=True, ensure_ascii=False)


def _question_key(sample: Sample) -> str:
    def text(parts: Sequence[Any]) -> str:
        return "".join(p.text if isinstance(p, TextPart) else f"<{p.type}>" for p in parts)

    choices = [text(c) for c in sample.choices or ()]
    return text(sample.question) + "\x00" + "\x01".join(choices)


@lru_cache(maxsize=4096)
def _ws_class(gap: str) -> str:
    """A whitespace run as a layout class: line breaks counted (3+ as one class), other whitespace by length."""
    breaks = gap.count("\n")
    rest = len(gap) - breaks
    if breaks:
        return f"{min(breaks, 3)}nl" + (f"+{min(rest, 3)}sp" if rest else "")
    return "none" if not gap else ("sp" if gap == " " else f"{min(rest, 4)}ws")


def _paragraph_edge(cls: str) -> bool:
    return cls in ("start", "end", "image", "video") or cls.startswith(("2nl", "3nl"))


def _text_segments(sample: Sample, needles: Sequence[str], *,
                   lists_count: bool = True) -> tuple[list[tuple[str, str, bool, bool]], list[str]]:
    """(class before, class after, is needle, is a sentence) of every text segment of the context, and the
    needle texts that were not found in it. A heading is no sentence; with ``lists_count`` False neither is a
    list item (a line a bullet or a number opens) nor its number."""
    out: list[tuple[str, str, bool, bool]] = []
    pending = [n for n in needles if n]
    context = sample.context
    for index, part in enumerate(context):
        if not isinstance(part, TextPart):
            continue
        text = part.text
        spans: list[tuple[int, int]] = []
        still: list[str] = []
        taken: list[tuple[int, int]] = []
        for needle in pending:
            start = 0
            found = -1
            while True:
                pos = text.find(needle, start)
                if pos < 0:
                    break
                if all(pos >= e or pos + len(needle) <= s for s, e in taken):
                    found = pos
                    break
                start = pos + 1
            if found < 0:
                still.append(needle)
            else:
                taken.append((found, found + len(needle)))
                spans.append((found, found + len(needle)))
        pending = still
        spans.sort()
        before_edge = "start" if index == 0 else context[index - 1].type
        after_edge = "end" if index == len(context) - 1 else context[index + 1].type
        segments: list[tuple[int, int]] = []
        pos = 0
        for m in _BOUNDARY.finditer(text):
            if m.start() > pos:
                segments.append((pos, m.start()))
            pos = max(pos, m.end())
        if pos < len(text):
            segments.append((pos, len(text)))
        # leading/trailing whitespace of a part belongs to the gap, not to a segment
        cleaned: list[tuple[int, int]] = []
        for s, e in segments:
            piece = text[s:e]
            ls = len(piece) - len(piece.lstrip())
            rs = len(piece) - len(piece.rstrip())
            if e - rs > s + ls:
                cleaned.append((s + ls, e - rs))
        span_at = 0
        last = len(cleaned) - 1
        for k, (s, e) in enumerate(cleaned):
            gap_before = text[cleaned[k - 1][1]:s] if k else text[:s]
            gap_after = text[e:cleaned[k + 1][0]] if k < last else text[e:]
            before = _ws_class(gap_before) if k or gap_before else before_edge
            after = _ws_class(gap_after) if k < last or gap_after else after_edge
            if k == 0 and "\n" not in gap_before and before_edge != "start":
                before = before_edge if not gap_before else f"{before_edge}+{_ws_class(gap_before)}"
            if k == last and "\n" not in gap_after and after_edge != "end":
                after = after_edge if not gap_after else f"{after_edge}+{_ws_class(gap_after)}"
            while span_at < len(spans) and spans[span_at][1] <= s:  # spans and segments are both in order
                span_at += 1
            is_needle = span_at < len(spans) and spans[span_at][0] < e
            in_list = not lists_count and _LIST_LINE.match(text, text.rfind("\n", 0, s) + 1) is not None
            out.append((before, after, is_needle, _SENTENCE_END.search(text, s, e) is not None and not in_list))
    return out, pending


def _image_classes(sample: Sample, needle_parts: set[int]) -> list[tuple[str, bool]]:
    """(position class, is needle) of every context image: first/last item, next to another image, first/last
    of the images, and whether a paragraph break stands before and after it."""
    context = sample.context
    images = [i for i, p in enumerate(context) if isinstance(p, ImagePart)]
    out: list[tuple[str, bool]] = []
    for rank, i in enumerate(images):
        flags = []
        if i == 0:
            flags.append("first-item")
        if i == len(context) - 1:
            flags.append("last-item")
        if i > 0 and isinstance(context[i - 1], ImagePart):
            flags.append("after-image")
        if i + 1 < len(context) and isinstance(context[i + 1], ImagePart):
            flags.append("before-image")
        if rank == 0:
            flags.append("first-image")
        if rank == len(images) - 1:
            flags.append("last-image")
        prev = context[i - 1] if i > 0 else None
        nxt = context[i + 1] if i + 1 < len(context) else None
        if isinstance(prev, TextPart):
            flags.append("after-break" if prev.text.endswith("\n\n") else "after-text")
        if isinstance(nxt, TextPart):
            flags.append("before-break" if nxt.text.startswith("\n\n") else "before-text")
        out.append(("|".join(flags) or "middle", i in needle_parts))
    return out


@dataclass
class _Facts:
    """What the audit keeps of one sample between its passes."""

    task: str
    gold: str
    question: str
    chance: float
    random: float | None
    echo: float | None
    text_classes: dict[str, Counter[tuple[str, bool]]] = field(default_factory=dict)
    sentence_classes: dict[str, Counter[tuple[str, bool]]] = field(default_factory=dict)
    image_classes: Counter[tuple[str, bool]] = field(default_factory=Counter)
    leak_gold: str | None = None
    needle_texts: tuple[str, ...] = ()
    needles: int = 0
    needles_delivered: int | None = None
    prompt_hash: str | None = None
    shape: str = ""
    delivery_error: str | None = None
    group: str = ""  # samples of one group are left out together (AuditSpec.group; default its id)
    outlier: tuple[float, float] | None = None  # (the most needle-like sentence is a needle, the needle share)
    random_kinds: int = 1  # distinct baseline:random replies (one: a fixed best blind reply averages no luck away)
    budget: int | None = None  # the new-token budget of the sample's generation settings
    tokenizer: str | None = None  # the dataset's text tokenizer (meta.tokenizer)
    source: int = 0  # which of the audit's sources it came from (0: the dataset itself)


def _leak_text(sample: Sample) -> str | None:
    """The gold as a text that could stand in a haystack (an option's text for multiple choice), or None when
    the gold is no such text (numbers, lists, image options, very short or long texts)."""
    gold = sample.answer
    if sample.choices is not None and isinstance(gold, int) and 0 <= gold < len(sample.choices):
        parts = sample.choices[gold]
        if not all(isinstance(p, TextPart) for p in parts):
            return None
        gold = "".join(p.text for p in parts if isinstance(p, TextPart))
    if not isinstance(gold, str):
        return None
    gold = gold.strip().lower()
    if not (LEAK_MIN_CHARS <= len(gold) <= LEAK_MAX_CHARS) or gold.replace(".", "").isdigit():
        return None
    return gold if _WORD.search(gold) else None


def _haystack_text(sample: Sample, needles: Sequence[str]) -> str:
    context = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    for needle in needles:
        context = context.replace(needle, " ")
    return context.lower()


class _LeakFinder:
    """Which of a task's gold texts stand in a haystack, in one regex pass over it."""

    def __init__(self, golds: Counter[str]) -> None:
        self.counts = golds
        common = [g for g, _n in golds.most_common(LEAK_GOLDS)]
        spaced = sorted((g for g in common if all(ord(ch) < 0x3000 for ch in g)), key=len, reverse=True)
        self.cjk = [g for g in common if g not in spaced]
        self.pattern = re.compile(r"(?<!\w)(?:" + "|".join(
            r"\W+".join(re.escape(w) for w in _WORD.findall(g)) for g in spaced) + r")(?!\w)") if spaced else None
        self.normal = {" ".join(_WORD.findall(g)): g for g in spaced}

    def found(self, haystack: str) -> set[str]:
        hits: set[str] = set()
        if self.pattern is not None:
            for m in self.pattern.finditer(haystack):
                gold = self.normal.get(" ".join(_WORD.findall(m.group(0))))
                if gold is not None:
                    hits.add(gold)
        hits.update(g for g in self.cjk if g in haystack)
        return hits

    def has(self, gold: str, haystack: str, hits: set[str]) -> bool:
        if gold in self.normal.values() or gold in self.cjk:
            return gold in hits
        if all(ord(ch) < 0x3000 for ch in gold):
            pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in _WORD.findall(gold)) + r"(?!\w)"
            return re.search(pattern, haystack) is not None
        return gold in haystack


def _sent_prompt(sample: Sample, media_root: Path, options: AuditOptions) -> Any:
    from niah.models.base import Capabilities
    from niah.prompts.render import expand_media, fit_to_capabilities, render_prompt
    from niah.prompts.types import PromptOptions

    prompt_options = PromptOptions(over_limit=options.over_limit,  # type: ignore[arg-type]
                                   max_frames=options.max_frames, video_fps=options.video_fps,
                                   subtitle_mode=options.subtitle_mode)
    caps = Capabilities(vision=options.vision, max_images=options.max_images,
                        max_context_tokens=options.max_context, video=options.native_video)
    prompt = render_prompt(sample, media_root, prompt_options)
    expanded, notes = expand_media(prompt, caps, prompt_options, frame_cache=options.frame_cache)
    return fit_to_capabilities(expanded, sample, caps, prompt_options, expanded_notes=notes)


def _prompt_hash(prompt: Any, *, media_tag: str = "") -> str:
    """The prompt's digest; ``media_tag`` names the source a media path is relative to (two builds may each
    hold a ``media/0.png`` that are different images)."""
    digest = hashlib.sha256()
    tag = media_tag.encode()
    digest.update((prompt.system or "").encode())
    for part in prompt.parts:
        if isinstance(part, TextPart):
            digest.update(b"\x00t" + part.text.encode("utf-8", "surrogatepass"))
        elif isinstance(part, ImagePart):
            digest.update(b"\x00i" + tag + part.path.encode("utf-8", "surrogatepass"))
        elif isinstance(part, VideoPart):
            digest.update(b"\x00v" + tag + json.dumps(part.to_json(), sort_keys=True).encode())
    return digest.hexdigest()


class _MediaHashes:
    """Content hashes of image files, each file read once however many samples show it."""

    def __init__(self, media_root: Path) -> None:
        self.root = media_root
        self.known: dict[str, str] = {}

    def __call__(self, rel: str) -> str:
        got = self.known.get(rel)
        if got is None:
            from niah.util.iox import resolve_under

            try:
                got = hashlib.sha256(resolve_under(self.root, rel).read_bytes()).hexdigest()
            except (DataError, OSError):
                got = "unreadable:" + rel
            self.known[rel] = got
        return got


def _shape(sample: Sample, media: _MediaHashes) -> str:
    """What a sample looks like without reading it: which question or option images are byte-identical copies
    of a context image, and how many context images repeat another (a count, not the image count itself, so
    that samples of different lengths can share a shape)."""
    context = [media(p.path) for p in sample.context if isinstance(p, ImagePart)]
    seen = set(context)
    query = [media(p.path) in seen for p in sample.question if isinstance(p, ImagePart)]
    options = [any(media(p.path) in seen for p in choice if isinstance(p, ImagePart)) for choice in sample.choices or ()]
    return json.dumps([query, options, len(context) - len(seen)])


def _facts(sample: Sample, hooks: _Hooks, media_root: Path, options: AuditOptions,
           media: _MediaHashes | None = None, *, source: int = 0) -> _Facts:
    spots = hooks.locate(sample)
    random_replies = [_random_reply(sample, options.seed + k) for k in range(options.random_draws)]
    random_scores = [_official(sample, reply) for reply in random_replies]
    known = [s for s in random_scores if s is not None]
    echo_reply = "\n".join(
        ["".join(p.text for p in sample.question if isinstance(p, TextPart))]
        + ["".join(p.text for p in c if isinstance(p, TextPart)) for c in sample.choices or ()])
    facts = _Facts(task=sample.task, gold=_gold_key(sample.answer), question=_question_key(sample),
                   chance=hooks.chance(sample), random=sum(known) / len(known) if known else None,
                   echo=_official(sample, echo_reply), needles=len(spots), random_kinds=len(set(random_replies)),
                   # ids repeat across builds: a built sample's group is its own
                   group=hooks.group(sample) if not source else f"{source}/{hooks.group(sample)}", source=source)
    texts = [s.text for s in spots if s.kind == "text" and s.text]
    facts.needle_texts = tuple(texts)
    if texts:
        segments, _missing = _text_segments(sample, texts, lists_count=hooks.needles_in_lists(sample))
        facts.text_classes = {
            "text-whitespace": Counter((f"{b} / {a}", n) for b, a, n, _s in segments),
            "text-paragraph-role": Counter((_role(b, a), n) for b, a, n, _s in segments),
        }
        # the skew of sentences alone: needles are sentences, so headings (and list items, for a family whose
        # needles never stand in one) are no fair comparison
        facts.sentence_classes = {
            "text-whitespace": Counter((f"{b} / {a}", n) for b, a, n, s in segments if s),
            "text-paragraph-role": Counter((_role(b, a), n) for b, a, n, s in segments if s),
        }
    needle_parts = {s.part for s in spots if s.kind == "image" and s.part is not None}
    if needle_parts:
        facts.image_classes = Counter(_image_classes(sample, needle_parts))
    facts.leak_gold = _leak_text(sample)
    tokenizer = (sample.meta or {}).get("tokenizer")
    facts.tokenizer = tokenizer if isinstance(tokenizer, str) else None
    if media is not None:
        facts.shape = _shape(sample, media)
    try:
        fit = _sent_prompt(sample, media_root, options)
    except (DataError, ConfigError, OSError) as exc:
        facts.delivery_error = str(exc)
        return facts
    if fit.prompt is None:
        facts.delivery_error = f"not sent: {fit.skip_reason}"
        facts.needles_delivered = 0
        return facts
    from niah.run.delivery import delivered

    facts.needles_delivered = sum(delivered(sample, spots, fit.prompt))
    facts.prompt_hash = _prompt_hash(fit.prompt, media_tag=str(source) if source else "")
    facts.budget = fit.prompt.generation.max_tokens
    return facts


@lru_cache(maxsize=4096)
def _role(before: str, after: str) -> str:
    opens, closes = _paragraph_edge(before), _paragraph_edge(after)
    return {(True, True): "alone", (True, False): "opens", (False, True): "closes"}.get((opens, closes), "inside")


# ---------------------------------------------------------------------------------------------------------
# probes over the collected facts


class _TopCounts:
    """Leave-one-out modes (the most frequent key once some counts are taken out; ties: the smaller key)
    without a pass over every distinct key per sample: with counts taken from at most ``width - 1`` keys, the
    best remaining key is a touched one or among the ``width`` best."""

    def __init__(self, counts: Counter[str], width: int = 2) -> None:
        self.counts = counts
        self.width = max(2, width)
        self.top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:self.width]

    def mode_without_counts(self, removed: Counter[str]) -> str | None:
        """The mode once ``removed`` (a sample's group: its golds and how often) is taken out."""
        if len(removed) >= self.width:
            pool = dict(self.counts)  # a group touching more keys than the kept top: count them all
        else:
            pool = dict(self.top) | {k: self.counts[k] for k in removed if k in self.counts}
        best: tuple[int, str] | None = None
        for key, count in pool.items():
            left = count - removed.get(key, 0)
            if left > 0 and (best is None or (-left, key) < (-best[0], best[1])):
                best = (left, key)
        return best[1] if best is not None else None


Label = TypeVar("Label")
#: Samples whose leave-one-out picks are worked out at once (bounds the labels x samples array).
_LOO_CHUNK = 512


@dataclass(frozen=True)
class LeaveOneOut(Generic[Label]):
    """What :func:`leave_one_out_best` found: each sample's score (0-1, None: unscored) of the label picked
    for it, that label, and the label with the best total over all samples."""

    scores: list[float | None]
    picks: list[Label]
    best: Label

    def most_picked(self) -> tuple[Label, int]:
        """The label picked for the most samples (ties: the one whose ``repr`` sorts first) and how many."""
        counts = Counter(self.picks)
        top = max(counts.values())
        return min((label for label, n in counts.items() if n == top), key=repr), top


def leave_one_out_best(scores: Mapping[Label, Sequence[float | None]],
                       groups: Sequence[str] | None = None) -> LeaveOneOut[Label]:
    """The best constant reply, cross-fitted: for each sample, the label with the best total score over the
    *other* samples, scored on this one. The maximum over labels on the same samples would count each label's
    own luck as a shortcut (on a task of all-distinct golds one sample's own gold scores 1/n against chance 0).

    ``scores`` maps each label to its score on every sample (0-1, all vectors as long). None is a reply that
    earns nothing there (the official rule left it unscored, or the label is no reply for that sample): it
    adds nothing to the label's total when picking, and the sample stays unscored when its pick is None there,
    so a probe's mean covers only the samples its pick can be scored on. Ties go to the label whose ``repr``
    sorts first. Work is one pass over labels x samples. ``groups`` (one name per sample): a sample's whole
    group is left out when its label is picked (variants of one item would otherwise teach each other)."""
    import numpy as np

    labels = sorted(scores, key=repr)
    if not labels:
        raise ValueError("leave_one_out_best needs at least one label")
    rows = [scores[label] for label in labels]
    n = len(rows[0])
    if any(len(r) != n for r in rows):
        raise ValueError("leave_one_out_best: every label needs one score per sample")
    # totals summed in sample order, as a running count would: ties between labels then break the same way
    # whatever array code computes the rest
    totals = np.asarray([sum(v for v in r if v is not None) for r in rows], dtype=np.float64)
    if groups is not None and len(groups) != n:
        raise ValueError("leave_one_out_best: one group per sample")
    grouped = groups is not None and len(set(groups)) < n
    if grouped:
        assert groups is not None
        names = sorted(set(groups))
        member = np.searchsorted(np.asarray(names), np.asarray(groups))
        everything = np.nan_to_num(np.array(rows, dtype=np.float64), nan=0.0)
        by_group = np.zeros((len(labels), len(names)), dtype=np.float64)
        np.add.at(by_group.T, member, everything.T)  # each sample's scores summed into its group's column
    picks: list[Label] = []
    out: list[float | None] = []
    for start in range(0, n, _LOO_CHUNK):
        stop = min(n, start + _LOO_CHUNK)
        if grouped:
            own = by_group[:, member[start:stop]]  # the sample's group, itself included
        else:
            own = np.nan_to_num(np.array([r[start:stop] for r in rows], dtype=np.float64), nan=0.0)  # None: nan
        chosen = np.argmax(totals[:, None] - own, axis=0)  # first maximum: the label sorted first
        for offset, k in enumerate(chosen.tolist()):
            picks.append(labels[k])
            out.append(rows[k][start + offset])
    best = labels[int(np.argmax(totals))]
    return LeaveOneOut(out, picks, best)


def _layout_probe(name: str, task: str, rows: Sequence[Counter[tuple[str, bool]]], margin: float,
                  unit: str, skew_rows: Sequence[Counter[tuple[str, bool]]] | None = None) -> list[ProbeResult]:
    """The leave-one-out layout finder over per-sample class counts, and the skew probe over ``skew_rows``
    (default: the same rows)."""
    rows = [r for r in rows if any(n for (_c, n) in r)]
    if not rows:
        return []
    needles_by: Counter[str] = Counter()
    total_by: Counter[str] = Counter()
    for r in rows:
        for (cls, is_needle), k in r.items():
            total_by[cls] += k
            if is_needle:
                needles_by[cls] += k
    hits: list[float] = []
    shares: list[float] = []
    picked: Counter[str] = Counter()
    for r in rows:
        own_total: Counter[str] = Counter()
        own_needles: Counter[str] = Counter()
        for (cls, is_needle), k in r.items():
            own_total[cls] += k
            if is_needle:
                own_needles[cls] += k
        best_cls, best_rate = None, -1.0
        for cls in sorted(own_total):
            n_other = needles_by[cls] - own_needles[cls]
            t_other = total_by[cls] - own_total[cls]
            rate = (n_other + 0.5) / (t_other + 1.0)
            if rate > best_rate:
                best_cls, best_rate = cls, rate
        assert best_cls is not None
        picked[best_cls] += 1
        hits.append(own_needles[best_cls] / own_total[best_cls])
        shares.append(sum(own_needles.values()) / sum(own_total.values()))
    top = picked.most_common(1)[0][0]
    finder = judge_probe(name, task, "layout", dict(enumerate(hits)), dict(enumerate(shares)), margin,
                    f"picks {unit} by layout class alone (most picked: {top!r}, needle rate "
                    f"{needles_by[top]}/{total_by[top]}); chance is the needle share of {unit}") or _never()
    # skew: the needles' class distribution against the one needles placed uniformly at random among the same
    # samples' units would have (each sample compared with itself: a sample with fewer units holds a larger
    # needle share, so pooling all haystack units would be no fair comparison)
    skew_samples = [r for r in (skew_rows if skew_rows is not None else rows) if any(n for (_c, n) in r)]
    if skew_rows is not None:
        unit = "sentences"
    observed, expected, classes = _skew_counts(skew_samples)
    n_needles = sum(observed.values())
    if n_needles == 0 or len(classes) < 2:
        return [finder]
    tv = 50 * sum(abs(observed[c] - expected[c]) for c in classes) / n_needles
    null = _null_skew(skew_samples, classes, expected, n_needles)
    worst = max(classes, key=lambda c: abs(observed[c] - expected[c]))
    skew = ProbeResult(
        f"{name}-skew", task, "layout", round(tv, 2), round(null, 2), len(skew_samples), tv <= null + margin,
        f"distance between the layout classes of needle {unit} and of {unit} drawn at random in the same samples "
        f"(most different: {worst!r}, {100 * observed[worst] / n_needles:.1f}% of needles vs "
        f"{100 * expected[worst] / n_needles:.1f}% at random); chance is the 95th percentile of that distance "
        "under random placement", advisory=True)
    return [finder, skew]


#: Samples a probe needs before its verdict can fail an audit (below this it is a diagnostic: with 1-4
#: samples a constant reply or a layout rule fitted to the samples themselves "wins" by construction).
MIN_VERDICT_SAMPLES = 5


def judge_probe(name: str, task: str, kind: str, values: Mapping[int, float | None], chances: Mapping[int, float],
           margin: float, detail: str, *, two_sided: bool = False, replies: int | None = None) -> ProbeResult | None:
    """A probe's verdict from per-sample scores (0-1) and chances: the mean may beat chance by ``margin`` points
    plus the sampling noise of that mean (one-sided 99%; ``two_sided``: may also fall short by as much).

    ``replies``: each value is the mean score of that many replies (1: one reply) whose blind score has the
    sample's chance as its mean. Their spread under chance is then known (at most ``c (1 - c) / replies`` per
    sample, a score in [0, 1] of mean c), and the noise is never estimated below it: five samples whose
    spread happens to be small must not fail a guess on luck."""
    pairs = [(v, chances.get(i, 0.0)) for i, v in values.items() if v is not None]
    if not pairs:
        return None
    n = len(pairs)
    score = 100 * sum(v for v, _c in pairs) / n
    chance = 100 * sum(c for _v, c in pairs) / n
    diffs = [100 * (v - c) for v, c in pairs]
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    if replies is not None:
        sd = max(sd, 100 * math.sqrt(sum(c * (1 - c) for _v, c in pairs) / n / replies))
    noise = NOISE_Z * sd / math.sqrt(n)
    gap = abs(score - chance) if two_sided else score - chance
    few = n < MIN_VERDICT_SAMPLES  # one or two samples cannot show a shortcut (nor rule one out): advisory only
    if few:
        detail = f"{detail}; only {n} sample(s): too few for a verdict, shown as a diagnostic".lstrip("; ")
    return ProbeResult(name, task, kind, round(score, 2), round(chance, 2), n, gap <= margin + noise, detail,
                       noise=round(noise, 2), advisory=few)


def _never() -> ProbeResult:
    raise AssertionError("a probe with samples always has a verdict")


def _skew_counts(samples: Sequence[Counter[tuple[str, bool]]]) -> tuple[Counter[str], dict[str, float], list[str]]:
    """Observed needle counts per class, the counts uniform placement within each sample would give, classes."""
    observed: Counter[str] = Counter()
    expected: dict[str, float] = defaultdict(float)
    for r in samples:
        totals: Counter[str] = Counter()
        needles = 0
        for (cls, is_needle), k in r.items():
            totals[cls] += k
            if is_needle:
                observed[cls] += k
                needles += k
        units = sum(totals.values())
        for cls, k in totals.items():
            expected[cls] += needles * k / units
    classes = sorted(set(expected) | set(observed))
    return observed, dict(expected), classes


def _null_skew(samples: Sequence[Counter[tuple[str, bool]]], classes: Sequence[str], expected: Mapping[str, float],
               n_needles: int) -> float:
    """95th percentile of the skew distance (percent) when each sample's needles are drawn at random among its
    own units: what placement that ignores layout shows through sampling noise alone."""
    import numpy as np

    index = {c: k for k, c in enumerate(classes)}
    rng = np.random.default_rng(0)
    drawn = np.zeros((SKEW_DRAWS, len(classes)), dtype=np.int64)
    for r in samples:
        totals = np.zeros(len(classes), dtype=np.int64)
        needles = 0
        for (cls, is_needle), k in r.items():
            totals[index[cls]] += k
            needles += k if is_needle else 0
        needles = min(needles, int(totals.sum()))
        if needles:
            drawn += rng.multivariate_hypergeometric(totals, needles, size=SKEW_DRAWS)
    want = np.asarray([expected.get(c, 0.0) for c in classes])
    tv = 50 * np.abs(drawn - want[None, :]).sum(axis=1) / n_needles
    return float(np.percentile(tv, 95))


def _iter(ds: Dataset, progress: Callable[[], None] | None = None) -> Iterable[Sample]:
    for sample in ds.iter_samples():
        yield sample
        if progress is not None:
            progress()


def _reference_table(path: Path, media_roots: tuple[str, ...]) -> dict[tuple[str, str], Counter[str]]:
    ref = Dataset(path, media_roots=media_roots)
    ref.validate(check_media=False, media=False)
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for sample in ref.iter_samples():
        table[(sample.task, _question_key(sample))][_gold_key(sample.answer)] += 1
    return table


class _Lexicon:
    """Word counts per task of the needles and of the contexts: the vocabulary-outlier diagnostic learns from
    the other samples' needles which words mark a needle sentence."""

    def __init__(self) -> None:
        self.needles: dict[str, Counter[str]] = defaultdict(Counter)
        self.contexts: dict[str, Counter[str]] = defaultdict(Counter)

    @staticmethod
    def _context(sample: Sample) -> str:
        return "\n".join(p.text for p in sample.context if isinstance(p, TextPart))

    def add(self, task: str, sample: Sample, needles: Sequence[str]) -> None:
        from niah.audit.probes import lower_words

        self.contexts[task].update(lower_words(self._context(sample)))
        for needle in needles:
            self.needles[task].update(lower_words(needle))

    def hit(self, task: str, sample: Sample, needles: Sequence[str]) -> tuple[float, float] | None:
        from niah.audit.probes import lower_words, outlier_hit

        own: Counter[str] = Counter()
        for needle in needles:
            own.update(lower_words(needle))
        return outlier_hit(self._context(sample), [n.strip() for n in needles], self.needles[task], own,
                           self.contexts[task])


def reference_golds(table: Mapping[tuple[str, str], Counter[str]]) -> dict[str, Counter[str]]:
    """The reference build's gold counts per task."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for (task, _question), golds in table.items():
        out[task].update(golds)
    return dict(out)


#: Whether a rule accepts the gold anywhere in a reply is tried with the gold inside this frame.
_ANYWHERE = "Perhaps it is {}, or maybe something else."
#: Counts a learned count probe considers at most (the task's gold range, from its smallest gold on).
_COUNT_CANDIDATES = 12


class _LeftOut:
    """The keys of ``counts`` still counted once ``own`` is taken out (membership only: no copy per sample)."""

    def __init__(self, counts: Mapping[str, int], own: Mapping[str, int]) -> None:
        self.counts = counts
        self.own = own

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.counts.get(key, 0) > self.own.get(key, 0)

    def __bool__(self) -> bool:
        return any(n > self.own.get(k, 0) for k, n in self.counts.items())


class _Reader:
    """The reading probes' facts (:mod:`niah.audit.probes`), gathered in the audit's second pass, when every
    other sample's gold is known: per sample, the score of the budget-cut pool replies, of each mention rule,
    and the learned probe's candidates."""

    def __init__(self, gold_counts: Mapping[str, Counter[str]], media_root: Path,
                 reference: Mapping[str, Counter[str]] | None) -> None:
        self.gold_counts = gold_counts
        self.root = media_root
        self.reference = reference
        self.vocab: dict[str, Counter[str]] = {}
        self.pool: dict[str, dict[int, float | None]] = defaultdict(dict)
        self.listed: dict[str, list[int]] = defaultdict(list)
        self.mention: dict[str, dict[str, dict[int, float | None]]] = defaultdict(lambda: defaultdict(dict))
        self.choices: dict[str, dict[int, Any]] = defaultdict(dict)
        self._counters: dict[str | None, Callable[[str], int]] = {}
        self._tokens: dict[tuple[str | None, str], int] = {}
        self._replies: dict[tuple[str, str], str] = {}
        self._budget: dict[str, set[int]] = defaultdict(set)
        self.groups: dict[int, str] = {}
        self.patterns: dict[str, Any] = {}
        self.shapes: dict[str, Counter[str]] = {}
        self._top: dict[str, list[tuple[str, int]]] = {}

    # -- helpers
    def _count(self, tokenizer: str | None, text: str) -> int:
        key = (tokenizer, text)
        got = self._tokens.get(key)
        if got is None:
            counter = self._counters.get(tokenizer)
            if counter is None:
                counter = self._counters[tokenizer] = _token_counter(tokenizer)
            got = self._tokens[key] = counter(text)
        return got

    def _gold_reply(self, sample: Sample, key: str) -> str:
        got = self._replies.get((sample.task, key))
        if got is None:
            got = self._replies[(sample.task, key)] = _reply_for(sample, json.loads(key))
        return got

    def _vocabulary(self, task: str, own: Counter[str]) -> tuple[Any, _LeftOut, _LeftOut]:
        """The answer's type, learned without the sample's own gold: the task's gold phrases (this build's
        and the reference build's) as one pattern, those of the other samples, and the shapes of their
        one-word golds (made-up answers are typed by shape)."""
        from niah.audit.probes import _norm, phrase_pattern, word_shape

        got = self.vocab.get(task)
        if got is None:
            phrases: Counter[str] = Counter()
            for key, n in self.gold_counts[task].items():
                gold = json.loads(key)
                if isinstance(gold, str) and _norm(gold):
                    phrases[_norm(gold)] += n
            for key in (self.reference or {}).get(task, {}):
                gold = json.loads(key)
                if isinstance(gold, str) and _norm(gold):
                    phrases[_norm(gold)] += 1 + sum(self.gold_counts[task].values())
            got = self.vocab[task] = phrases
            self.patterns[task] = phrase_pattern(list(phrases))
            shapes: Counter[str] = Counter()
            for key, n in self.gold_counts[task].items():
                gold = json.loads(key)
                if isinstance(gold, str) and len(gold.split()) == 1:
                    shapes[word_shape(gold.strip())] += n
            self.shapes[task] = shapes
        mine = Counter(_norm(json.loads(k)) for k, n in own.items() for _ in range(n)
                       if isinstance(json.loads(k), str))
        mine_shapes = Counter(word_shape(json.loads(k).strip()) for k, n in own.items() for _ in range(n)
                              if isinstance(json.loads(k), str) and len(json.loads(k).split()) == 1)
        return self.patterns[task], _LeftOut(got, mine), _LeftOut(self.shapes[task], mine_shapes)

    def _resolve(self, rel: str) -> Path | None:
        from niah.util.iox import resolve_under

        try:
            return resolve_under(self.root, rel)
        except DataError:
            return None

    # -- per sample
    def read(self, i: int, sample: Sample, f: _Facts, own: Counter[str]) -> None:
        from niah.audit import probes as rp

        task = f.task
        self.groups[i] = f.group
        gold = sample.answer
        context = "\n".join(p.text for p in sample.context if isinstance(p, TextPart))
        oracle = _reply_for(sample, gold)
        alone = _official(sample, oracle)
        if alone and f.chance == 0 and f.budget is not None and (_official(sample, _ANYWHERE.format(oracle)) or 0.0) >= alone:
            self._budget[task].add(f.budget)

            def count(text: str) -> int:
                return self._count(f.tokenizer, text)

            if task not in self._top:
                self._top[task] = rp.top_golds(self.gold_counts[task])
                self._top["\x00reference:" + task] = rp.top_golds((self.reference or {}).get(task, Counter()))
            ranked = [(k, self._gold_reply(sample, k)) for k in rp.ranked_golds(self._top[task], own)]
            reply = rp.pool_reply(ranked, f.budget, count)
            self.pool["answer-pool-budget"][i] = _official(sample, reply)
            self.listed[task].append(reply.count(", ") + 1 if reply else 0)
            if self.reference is not None and task in self.reference:
                ranked = [(k, self._gold_reply(sample, k))
                          for k in rp.ranked_golds(self._top["\x00reference:" + task], {})]
                self.pool["reference-pool"][i] = _official(sample, rp.pool_reply(ranked, f.budget, count))

        def scored(reply_gold: Any) -> float:
            return _official(sample, _reply_for(sample, reply_gold)) or 0.0

        if sample.choices:
            rows = rp.option_features(sample, context, self._resolve)
            self.choices[task][i] = rp.Choice(rows, [scored(k) for k in range(len(sample.choices))], f.group)
        elif isinstance(gold, str) and gold.strip():
            pattern, vocabulary, shapes = self._vocabulary(task, own)
            stats = rp.word_stats(context, pattern, shapes)
            candidates = rp.typed_candidates(stats, rp.question_words(sample))
            named = [w for w in candidates if w in vocabulary]  # golds seen elsewhere, named in this context
            shaped = [w for w in candidates if w not in vocabulary]
            gold_words = set(rp._norm(gold).split())

            def word_score(word: str) -> float:
                return scored(word) if set(rp._norm(word).split()) <= gold_words else 0.0

            picks = rp.mention_picks(stats, named)
            for rule in rp._MENTION_RULES:
                self.mention[task][rule][i] = word_score(picks[rule]) if rule in picks else 0.0
            typed = named or shaped
            if typed:  # the type scan: the least mentioned word of the golds' type (often the only one)
                self.pool["type-scan"][i] = word_score(min(typed, key=lambda w: (stats.count[w], stats.first[w])))
            if len(shaped) != 1:  # an answer that is the only word of its shape is the type scan's, not learned
                self.choices[task][i] = rp.Choice(rp.word_features(stats, candidates, vocabulary),
                                                  [word_score(w) for w in candidates], f.group)
        elif isinstance(gold, int) and not isinstance(gold, bool):
            ints = sorted(v for v in (json.loads(k) for k in self.gold_counts[task])
                          if isinstance(v, int) and not isinstance(v, bool))
            counts = list(range(ints[0], min(ints[-1], ints[0] + _COUNT_CANDIDATES - 1) + 1))
            self.choices[task][i] = rp.Choice(rp.count_features(sample, context, counts),
                                              [scored(c) for c in counts], f.group)

    # -- verdict inputs
    def probes(self, task: str, idx: Sequence[int]) -> list[tuple[str, dict[int, float | None], str]]:
        from niah.audit.probes import FOLDS, learned_scores

        out: list[tuple[str, dict[int, float | None], str]] = []
        budgets = sorted(self._budget.get(task, ()))
        listed = self.listed.get(task, [])
        if budgets:
            shown = "/".join(map(str, budgets))
            mean = sum(listed) / len(listed) if listed else 0
            for name, detail in (
                    ("answer-pool-budget", f"the other samples' most frequent golds, {mean:.1f} on average, "
                                           f"within the task's {shown} new tokens"),
                    ("reference-pool", f"the reference build's most frequent golds within {shown} new tokens")):
                got = self.pool.get(name, {})
                values = {i: got[i] for i in idx if i in got}
                if values:
                    out.append((name, values, detail))
        got = self.pool.get("type-scan", {})
        scan = {i: got[i] for i in idx if i in got}
        if scan:
            out.append(("type-scan", scan, "the least mentioned context word of the golds' type (a gold seen "
                                           "elsewhere, else a word shaped like one; a diagnostic: the answer found "
                                           "by its type, without the needle)"))
        rules = self.mention.get(task)
        if rules:
            loo = leave_one_out_best({rule: [rules[rule].get(i) for i in idx] for rule in sorted(rules)},
                                     groups=[self.groups[i] for i in idx])
            label, times = loo.most_picked()
            out.append(("mention-frequency", dict(zip(idx, loo.scores, strict=True)),
                        f"the candidate of the answer's type mentioned once / least / most, the rule chosen on "
                        f"the other samples (most often {label}, {times} of {len(idx)})"))
        items = self.choices.get(task, {})
        if len(items) >= FOLDS:
            order = [i for i in idx if i in items]
            scores = learned_scores([items[i] for i in order])
            out.append(("learned", dict(zip(order, scores, strict=True)),
                        f"a softmax over each sample's candidates fitted on the other {FOLDS - 1} of {FOLDS} folds "
                        "to features of what the model is sent (options: slot, length, overlap, mentions, image "
                        "statistics; words: mentions, positions, case, rare marks nearby; counts: visible counts)"))
        return out


def _token_counter(name: str | None) -> Callable[[str], int]:
    """Token counts in the dataset's tokenizer (``meta.tokenizer``), else cl100k_base, else about four
    characters a token when neither loads."""
    from niah.tokens.text import get_tokenizer

    for candidate in (name, "cl100k_base"):
        if candidate is None:
            continue
        try:
            return get_tokenizer(candidate).count
        except Exception:  # a tokenizer file that is missing or broken: the next one
            continue
    return lambda text: max(1, len(text) // 4)


@dataclass(frozen=True)
class AuditSource:
    """A folder of samples the audit measures: the dataset itself, or more samples of its generator that the
    audit built (:mod:`niah.audit.samples`; ``about`` says how: the command, its seed and size)."""

    path: Path
    built: bool = False
    about: Mapping[str, Any] = field(default_factory=dict)


def audit_dataset(dataset: str | Path, options: AuditOptions | None = None, *, progress: bool = True,
                  more: Sequence[AuditSource] = ()) -> AuditReport:
    """Run every probe on ``dataset`` (streamed twice) and return the report; nothing is written. ``more``:
    further samples of the same generator, measured with the dataset's own as one set per task."""
    options = _checked(options or AuditOptions())
    sources = [_Opened.of(AuditSource(Path(dataset)), 0, options), *(
        _Opened.of(source, k, options) for k, source in enumerate(more, start=1))]
    reference = _reference_table(options.reference, options.media_roots) if options.reference else None
    hooks = _Hooks()
    seen = _read_facts(sources, hooks, options, progress)
    tables = _Tables.of(seen.facts)
    reader = _Reader(tables.gold_counts, sources[0].media_root,
                     reference_golds(reference) if reference is not None else None)
    replies = _reply_without_the_task(sources, seen, tables, hooks, reader, reference, progress)
    probes: list[ProbeResult] = []
    notes: list[str] = []
    for task in sorted(tables.by_task):
        judged, note = _judge_task(task, tables.by_task[task], seen.facts, replies, reader, options)
        probes.extend(judged)
        notes.extend(note)
    probes.extend(_family_probes(seen.probe_samples, hooks, options))
    return AuditReport(str(dataset), len(seen.facts), options, probes,
                       tasks={t: len(idx) for t, idx in sorted(tables.by_task.items())}, notes=notes,
                       sources=[s.summary(seen.facts) for s in sources])


def _checked(options: AuditOptions) -> AuditOptions:
    """The options, refused in one line when a setting cannot be used (before any work)."""
    if options.margin < 0 or not math.isfinite(options.margin):
        raise ConfigError("--margin must be a finite number of points >= 0")
    from niah.prompts.types import OVER_LIMIT_POLICIES

    if options.over_limit not in OVER_LIMIT_POLICIES:
        raise ConfigError(f"unknown --over-limit {options.over_limit!r} (choose from {', '.join(OVER_LIMIT_POLICIES)})")
    if options.video_fps is not None and not (math.isfinite(options.video_fps) and options.video_fps > 0):
        raise ConfigError("--video-fps must be a positive number of frames per second")
    if options.limit is not None and options.limit < 0:
        raise ConfigError("--limit must be a number of samples >= 0")
    return options


@dataclass
class _Opened:
    """A source opened and checked: its dataset, its place among the sources and its media hashes."""

    source: AuditSource
    index: int
    ds: Dataset
    samples: int
    media: _MediaHashes

    @classmethod
    def of(cls, source: AuditSource, index: int, options: AuditOptions) -> _Opened:
        ds = Dataset(source.path, media_roots=options.media_roots)
        stats = ds.validate(check_media=False)
        return cls(source, index, ds, stats.samples, _MediaHashes(ds.media_root))

    @property
    def media_root(self) -> Path:
        return self.ds.media_root

    def summary(self, facts: Sequence[_Facts]) -> dict[str, Any]:
        """Where this source's samples came from and how many of each task the audit measured."""
        tasks = Counter(f.task for f in facts if f.source == self.index)
        out: dict[str, Any] = {"built": self.source.built, "samples": self.samples, "tasks": dict(sorted(tasks.items()))}
        if self.source.built:
            out.update(self.source.about)
        else:
            out["path"] = str(self.source.path)
        return out


def _stream(sources: Sequence[_Opened], progress: bool, label: str) -> Iterator[tuple[_Opened, Sample]]:
    """Every sample of every source, in order, with a progress bar on stderr."""
    from niah.util.console import progress_bar

    with progress_bar(progress, sum(s.samples for s in sources), label) as advance:
        for source in sources:
            for sample in _iter(source.ds, advance):
                yield source, sample


@dataclass
class _Seen:
    """The first pass: each sample's facts, the samples the family probes read (without their contexts), and
    the vocabulary diagnostic's word counts."""

    facts: list[_Facts] = field(default_factory=list)
    probe_samples: dict[str, list[Sample]] = field(default_factory=lambda: defaultdict(list))
    lexicon: _Lexicon = field(default_factory=lambda: _Lexicon())


def _read_facts(sources: Sequence[_Opened], hooks: _Hooks, options: AuditOptions, progress: bool) -> _Seen:
    seen = _Seen()
    for source, sample in _stream(sources, progress, "audit: reading samples"):
        f = _facts(sample, hooks, source.media_root, options, source.media, source=source.index)
        seen.facts.append(f)
        if f.needle_texts:  # the vocabulary detector's word counts (diagnostic)
            seen.lexicon.add(f.task, sample, f.needle_texts)
        if hooks.spec(sample.benchmark).probes is not None:
            seen.probe_samples[sample.benchmark].append(dataclasses.replace(sample, context=[]))
    return seen


@dataclass
class _Tables:
    """What the other samples teach, counted once: golds per task, per question text and per shape, each
    sample's group (itself, or a base and its variants) per key, so that leaving it out takes its group away."""

    by_task: dict[str, list[int]]
    gold_counts: dict[str, Counter[str]]
    group_golds: dict[tuple[str, ...], Counter[str]]
    task_top: dict[str, _TopCounts]
    question_top: dict[tuple[str, str], _TopCounts]
    shape_top: dict[tuple[str, str], _TopCounts]
    candidates: dict[str, _ConstantCandidates]
    leak_finders: dict[str, _LeakFinder]

    @classmethod
    def of(cls, facts: Sequence[_Facts]) -> _Tables:
        by_task: dict[str, list[int]] = defaultdict(list)
        for i, f in enumerate(facts):
            by_task[f.task].append(i)
        gold_counts = {t: Counter(facts[i].gold for i in idx) for t, idx in by_task.items()}
        group_golds: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
        question_golds: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        shape_golds: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for f in facts:
            for key in ((f.task,), (f.task, "q", f.question), (f.task, "s", f.shape)):
                group_golds[(*key, f.group)][f.gold] += 1
            question_golds[(f.task, f.question)][f.gold] += 1
            shape_golds[(f.task, f.shape)][f.gold] += 1
        width = 1 + max((len(c) for c in group_golds.values()), default=1)
        leak_counts = {t: Counter(g for g in (facts[i].leak_gold for i in idx) if g is not None)
                       for t, idx in by_task.items()}
        return cls(by_task, gold_counts, group_golds, {t: _TopCounts(c, width) for t, c in gold_counts.items()},
                   {k: _TopCounts(c, width) for k, c in question_golds.items()},
                   {k: _TopCounts(c, width) for k, c in shape_golds.items()},
                   {t: _ConstantCandidates.of(c) for t, c in gold_counts.items()},
                   {t: _LeakFinder(c) for t, c in leak_counts.items() if c})

    def left_out(self, f: _Facts, *key: str) -> Counter[str]:
        """The golds of ``f``'s group under ``key``: what leaving the sample out takes away."""
        return self.group_golds[(*key, f.group)]


@dataclass
class _Replies:
    """The second pass: per probe, each sample's score (0-1) of the reply the other samples suggest."""

    scores: dict[str, dict[int, float | None]] = field(default_factory=lambda: defaultdict(dict))
    constants: dict[str, dict[str, dict[int, float | None]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(dict)))
    pools: dict[str, list[str] | None] = field(default_factory=dict)
    declared_pool: dict[str, bool] = field(default_factory=dict)
    leaks: dict[int, tuple[float, float]] = field(default_factory=dict)


def _reply_without_the_task(sources: Sequence[_Opened], seen: _Seen, tables: _Tables, hooks: _Hooks,
                            reader: _Reader, reference: Mapping[tuple[str, str], Counter[str]] | None,
                            progress: bool) -> _Replies:
    """The second pass: replies that depend on the other samples (tables, constants, pools), the reading
    probes' facts, the vocabulary diagnostic and the leak finder."""
    out = _Replies()
    for i, (source, sample) in enumerate(_stream(sources, progress, "audit: no-read replies")):
        f = seen.facts[i]
        _table_replies(i, sample, f, tables, reference, out)
        for label, reply in tables.candidates[f.task].replies(sample):
            out.constants[f.task][label][i] = _official(sample, reply)
        _pool_reply(i, sample, f, tables, hooks, out)
        reader.root = source.media_root
        reader.read(i, sample, f, tables.left_out(f, f.task))
        if f.needle_texts:
            f.outlier = seen.lexicon.hit(f.task, sample, f.needle_texts)
        leak = _leak(sample, f, tables.leak_finders.get(f.task))
        if leak is not None:
            out.leaks[i] = leak
    return out


def _table_replies(i: int, sample: Sample, f: _Facts, tables: _Tables,
                   reference: Mapping[tuple[str, str], Counter[str]] | None, out: _Replies) -> None:
    """The most frequent gold of the other samples of the task, of its question text, of its shape, and the
    reference build's gold of its question text."""
    task = f.task
    own_mode = tables.task_top[task].mode_without_counts(tables.left_out(f, task))
    if own_mode is not None:
        out.scores["majority-task"][i] = _official(sample, _reply_for(sample, json.loads(own_mode)))
    q_mode = tables.question_top[(task, f.question)].mode_without_counts(
        tables.left_out(f, task, "q", f.question)) or own_mode
    if q_mode is not None:
        out.scores["majority-question"][i] = _official(sample, _reply_for(sample, json.loads(q_mode)))
    if len(tables.shape_top) > len(tables.by_task):  # samples of some task differ in shape
        s_mode = tables.shape_top[(task, f.shape)].mode_without_counts(
            tables.left_out(f, task, "s", f.shape)) or own_mode
        if s_mode is not None:
            out.scores["shape-table"][i] = _official(sample, _reply_for(sample, json.loads(s_mode)))
    if reference is not None:
        ref = reference.get((task, f.question))
        if ref:
            gold = sorted(ref.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            out.scores["reference-table"][i] = _official(sample, _reply_for(sample, json.loads(gold)))
        else:
            out.scores["reference-table"][i] = None if own_mode is None else _official(
                sample, _reply_for(sample, json.loads(own_mode)))


def _pool_reply(i: int, sample: Sample, f: _Facts, tables: _Tables, hooks: _Hooks, out: _Replies) -> None:
    """Every gold of the task's closed answer pool (the family's, else the other samples') in one reply."""
    task = f.task
    if task not in out.pools:
        out.declared_pool[task] = hooks.spec(sample.benchmark).pool is not None
        out.pools[task] = _pool(hooks.spec(sample.benchmark), task, tables.gold_counts[task], sample)
    pool = out.pools[task]
    if pool:
        if not out.declared_pool.get(task):  # learned from the other samples: a unique gold is not in it
            mine = tables.left_out(f, task)
            pool = [g for g in pool if tables.gold_counts[task][_gold_key(g)] > mine.get(_gold_key(g), 0)]
        out.scores["answer-pool"][i] = _official(sample, ", ".join(pool))


def _leak(sample: Sample, f: _Facts, finder: _LeakFinder | None) -> tuple[float, float] | None:
    """Whether the gold text stands in the haystack with the needles taken out, and the rate at which the
    task's other golds stand in it."""
    if finder is None or f.leak_gold is None:
        return None
    haystack = _haystack_text(sample, f.needle_texts)
    hits = finder.found(haystack)
    own = finder.has(f.leak_gold, haystack, hits)
    others = sum(finder.counts[g] for g in hits) - (1 if own and f.leak_gold in hits else 0)
    eligible = sum(finder.counts.values()) - 1
    return float(own), others / eligible if eligible > 0 else float(own)


def _judge_task(task: str, idx: Sequence[int], facts: Sequence[_Facts], replies: _Replies, reader: _Reader,
                options: AuditOptions) -> tuple[list[ProbeResult], list[str]]:
    """Every probe's verdict on one task, and the notes it leaves."""
    judge = _TaskJudge(task, idx, facts, options.margin)
    _no_read_probes(judge, replies, options)
    _reading_probes(judge, reader)
    _leak_probes(judge, replies)
    _layout_probes(judge)
    notes = _delivery_probes(judge)
    return judge.probes, notes


@dataclass
class _TaskJudge:
    """One task's samples and the verdicts found on them so far."""

    task: str
    idx: Sequence[int]
    facts: Sequence[_Facts]
    margin: float
    probes: list[ProbeResult] = field(default_factory=list)

    @property
    def chances(self) -> dict[int, float]:
        return {i: self.facts[i].chance for i in self.idx}

    def add(self, name: str, kind: str, values: Mapping[int, float | None], detail: str, *,
            two_sided: bool = False, replies: int = 1, advisory: bool = False) -> None:
        """A probe judged from per-sample scores (each no-read value is the score of a blind reply, or the mean
        of ``replies`` of them); ``advisory``: a diagnostic, shown but never failing."""
        probe = judge_probe(name, self.task, kind, values, self.chances, self.margin, detail, two_sided=two_sided,
                            replies=replies)
        if probe is not None:
            self.probes.append(dataclasses.replace(probe, advisory=True) if advisory else probe)


def _no_read_probes(judge: _TaskJudge, replies: _Replies, options: AuditOptions) -> None:
    idx, facts = judge.idx, judge.facts
    fixed = 2 * sum(facts[i].random_kinds == 1 for i in idx) > len(idx)  # one best blind reply: no luck to average
    judge.add("random", "no-read", {i: facts[i].random for i in idx},
              f"baseline:random ({options.random_draws} seeds) must sit at chance", two_sided=True,
              replies=1 if fixed else options.random_draws)
    judge.add("question-echo", "no-read", {i: facts[i].echo for i in idx}, "the question and option texts sent back")
    for name, detail in (("majority-task", "most frequent gold of the task's other samples"),
                         ("majority-question", "most frequent gold of the other samples asking the same "
                                               "question (else the task's)"),
                         ("shape-table", "most frequent gold of the other samples of the same shape "
                                         "(question or option images copied byte for byte into the "
                                         "context, repeated context images)"),
                         ("reference-table", f"gold of the same question in {options.reference}"),
                         ("answer-pool", f"every distinct gold listed in one reply "
                                         f"({len(replies.pools.get(judge.task) or [])} answers)")):
        got = replies.scores.get(name, {})
        judge.add(name, "no-read", {i: got[i] for i in idx if i in got}, detail)
    constants = replies.constants.get(judge.task)
    if constants:  # a label that is no reply for some sample (a list gold among others) is None there
        loo = leave_one_out_best({label: [got.get(i) for i in idx] for label, got in constants.items()},
                                 groups=[facts[i].group for i in idx])
        label, times = loo.most_picked()
        picked = f"for all {len(idx)} samples" if times == len(idx) else f"most often, {times} of {len(idx)}"
        judge.add("constant", "no-read", dict(zip(idx, loo.scores, strict=True)),
                  f"best constant reply on the other samples: {label} ({picked})")


def _reading_probes(judge: _TaskJudge, reader: _Reader) -> None:
    for name, values, detail in reader.probes(judge.task, judge.idx):
        # the type scan is a diagnostic, as the skews are: scanning for the type is not a shortcut
        judge.add(name, "reading", values, detail, advisory=name == "type-scan")


def _leak_probes(judge: _TaskJudge, replies: _Replies) -> None:
    """The vocabulary diagnostic (needle sentences found by their words) and the gold in the haystack."""
    idx, facts = judge.idx, judge.facts
    outliers = {i: hit for i in idx if (hit := facts[i].outlier) is not None}
    if outliers:
        found = judge_probe("vocabulary-outlier", judge.task, "layout", {i: v[0] for i, v in outliers.items()},
                            {i: v[1] for i, v in outliers.items()}, judge.margin,
                            "the sentence whose words are most like the other samples' needles' (naive Bayes "
                            "against the task's contexts) is a needle (a diagnostic: needles lexically out of "
                            "place); chance is the needle share of sentences")
        if found is not None:
            judge.probes.append(dataclasses.replace(found, advisory=True))
    task_leaks = {i: replies.leaks[i] for i in idx if i in replies.leaks}
    if task_leaks:
        judge.probes.append(judge_probe(
            "gold-in-haystack", judge.task, "leak", {i: v[0] for i, v in task_leaks.items()},
            {i: v[1] for i, v in task_leaks.items()}, judge.margin,
            "the gold text stands in its own haystack (needles taken out); chance: another sample's gold "
            "in this haystack") or _never())


def _layout_probes(judge: _TaskJudge) -> None:
    idx, facts = judge.idx, judge.facts
    for name in sorted({name for i in idx for name in facts[i].text_classes}):
        judge.probes.extend(_layout_probe(name, judge.task, [facts[i].text_classes.get(name, Counter()) for i in idx],
                                          judge.margin, "text segments",
                                          [facts[i].sentence_classes.get(name, Counter()) for i in idx]))
    judge.probes.extend(_layout_probe("image-position", judge.task, [facts[i].image_classes for i in idx],
                                      judge.margin, "images"))


def _delivery_probes(judge: _TaskJudge) -> list[str]:
    """Every needle in the prompt the run would send, and no prompt sent for two different golds; the note
    for a task whose needles could not be located."""
    idx, facts, task = judge.idx, judge.facts, judge.task
    notes: list[str] = []
    located = [i for i in idx if facts[i].needles]
    if not located:
        notes.append(f"{task}: no needles located; delivery and layout probes not run")
    else:
        ok = [i for i in located if facts[i].needles_delivered == facts[i].needles]
        errors = [facts[i].delivery_error for i in located if facts[i].delivery_error]
        shown = sum(facts[i].needles_delivered or 0 for i in located)
        needed = sum(facts[i].needles for i in located)
        detail = f"{shown} of {needed} needles in the sent prompts"
        if errors:
            detail += f"; {len(errors)} not rendered (first: {errors[0]})"
        judge.probes.append(ProbeResult("needles-delivered", task, DELIVERY, round(100 * len(ok) / len(located), 2),
                                        100.0, len(located), len(ok) == len(located), detail))
    hashed = [i for i in idx if facts[i].prompt_hash is not None]
    if hashed:
        golds_by_prompt: dict[str, set[str]] = defaultdict(set)
        for i in hashed:
            golds_by_prompt[facts[i].prompt_hash or ""].add(facts[i].gold)
        clash = [i for i in hashed if len(golds_by_prompt[facts[i].prompt_hash or ""]) > 1]
        judge.probes.append(ProbeResult("same-prompt", task, DELIVERY, round(100 * len(clash) / len(hashed), 2), 0.0,
                                        len(hashed), not clash, "samples sending exactly another sample's prompt "
                                                                "with a different gold"))
    return notes


def _family_probes(probe_samples: Mapping[str, list[Sample]], hooks: _Hooks,
                   options: AuditOptions) -> list[ProbeResult]:
    out: list[ProbeResult] = []
    for benchmark, samples in sorted(probe_samples.items()):
        family_probes = hooks.spec(benchmark).probes
        assert family_probes is not None
        out.extend(family_probes(samples, {**options.to_json(), "margin": options.margin}))
    return out


@dataclass(frozen=True)
class _ConstantCandidates:
    """A task's candidate constant replies, as gold values: its most frequent golds, every count in its
    integer range, and (for list golds) the range of their items, each repeated as many times as a sample's
    gold has items."""

    values: tuple[Any, ...]
    counts: tuple[int, ...]
    items: tuple[int, ...]

    @classmethod
    def of(cls, golds: Counter[str]) -> _ConstantCandidates:
        decoded = [json.loads(k) for k in golds]
        ints = [v for v in decoded if isinstance(v, int) and not isinstance(v, bool)]
        items = [x for v in decoded if isinstance(v, list) for x in v if isinstance(x, int) and not isinstance(x, bool)]

        def span(xs: list[int]) -> tuple[int, ...]:
            return tuple(range(max(min(xs), -1000), min(max(xs), 1000) + 1)) if xs else ()

        values = tuple(v for v in (json.loads(k) for k, _n in golds.most_common(10)) if not isinstance(v, list))
        return cls(values, span(ints), span(items))

    def replies(self, sample: Sample) -> list[tuple[str, str]]:
        out = {_gold_key(v): _reply_for(sample, v) for v in self.values}
        if sample.choices is None:
            out.update({_gold_key(k): _reply_for(sample, k) for k in self.counts})
        if isinstance(sample.answer, list):
            out.update({f"[{k}, {k}, ...]": _reply_for(sample, [k] * len(sample.answer)) for k in self.items})
        return sorted(out.items())


def _pool(spec: AuditSpec, task: str, golds: Counter[str], sample: Sample) -> list[str] | None:
    """The closed answer pool of an open-answer task, when it has one a reply could list: the family's, else
    the task's distinct golds when they are strings, at most ``POOL_MAX`` of them and repeated (fewer distinct
    golds than half the samples): unique golds such as random passkeys are no pool."""
    if spec.pool is not None:
        got = spec.pool(task, [sample])
        return list(got) if got else None
    if sample.choices is not None:
        return None
    values = [json.loads(k) for k in sorted(golds)]
    if not values or len(values) > POOL_MAX or len(values) < 2 or not all(isinstance(v, str) for v in values):
        return None
    if len(values) > sum(golds.values()) / 2:
        return None
    return values


# ---------------------------------------------------------------------------------------------------------
# output


def write_audit(report: AuditReport, path: Path) -> None:
    from niah.util.iox import write_json_atomic

    write_json_atomic(path, report.to_json())


def is_audit_file(path: Path) -> bool:
    """Whether ``path`` reads back as an audit.json :func:`write_audit` wrote (only such a file is replaced)."""
    from niah.util.iox import json_file_is

    return json_file_is(path, lambda data: isinstance(data.get("probes"), list)
                        and {"dataset", "samples", "options"} <= set(data))


def read_audit(path: Path) -> dict[str, Any] | None:
    """A stored audit.json, or None when there is none (a malformed one is a DataError naming the file)."""
    from niah.util.iox import read_json_file

    if not path.is_file():
        return None
    data = read_json_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("probes"), list):
        raise DataError(f"{path}: not an audit.json (no 'probes' list)")
    return data


def verdict_label(passed: bool, advisory: bool, kind: str) -> str:
    """A probe's verdict as the tables print it."""
    if passed:
        return "ok"
    if advisory:
        return "skewed"
    return "NOT SENT" if kind == DELIVERY else "SHORTCUT"


def print_report(report: AuditReport, stream: Any = None) -> None:
    """One table per task: probe, kind, score, chance, n, the noise allowance, verdict."""
    from rich.table import Table
    from rich.text import Text

    from niah.util.console import wide_console

    console = wide_console()
    if stream is not None:
        from rich.console import Console

        console = Console(file=stream, width=140, markup=False)  # task names and details are dataset text
    by_task: dict[str, list[ProbeResult]] = defaultdict(list)
    for p in report.probes:
        by_task[p.task].append(p)
    for task, probes in by_task.items():
        built = report.built(task)
        where = f": {report.tasks[task] - built} of the dataset, {built} built" if built and task in report.tasks else ""
        table = Table(title=f"{task} ({report.tasks.get(task, '?')} samples{where})", title_justify="left")
        for col in ("probe", "kind", "score", "chance", "n", "noise", "verdict"):
            table.add_column(col, justify="right" if col in ("score", "chance", "n", "noise") else "left")
        for p in probes:
            label = verdict_label(p.passed, p.advisory, p.kind)
            verdict = Text(label, style={"ok": "green", "skewed": "yellow"}.get(label, "bold red"))
            table.add_row(p.probe, p.kind, f"{p.score:.1f}", f"{p.chance:.1f}", str(p.n), f"{p.noise:.1f}", verdict)
        console.print(table)
    for note in report.notes:
        console.print(f"note: {note}")
    shortcuts = [p for p in report.failed if p.kind != DELIVERY]
    unsent = [p for p in report.failed if p.kind == DELIVERY]
    if shortcuts:
        console.print(f"{len(shortcuts)} probe(s) beat chance by more than {report.options.margin:g} "
                      "points plus their sampling noise:", style="bold red")
        for p in shortcuts:
            console.print(f"  {p.task} / {p.probe}: {p.score:.1f} vs chance {p.chance:.1f} ({p.detail})")
    if unsent:
        console.print(f"{len(unsent)} delivery probe(s) failed: samples that cannot be answered from what the "
                      "model is sent:", style="bold red")
        for p in unsent:
            console.print(f"  {p.task} / {p.probe}: {p.score:.1f} vs {p.chance:.1f} expected ({p.detail})")
    if not report.failed:
        console.print(f"every probe within chance + {report.options.margin:g} points plus its sampling noise "
                      "(99% one-sided; each probe's noise is in audit.json)")
    for p in report.skewed:
        console.print(Text.assemble(("skewed (a diagnostic, not a shortcut by itself):", "yellow"),
                                    f" {p.task} / {p.probe}: {p.score:.1f} vs {p.chance:.1f} ({p.detail})"))


def options_from_run(run_dir: Path) -> tuple[dict[str, Any], Path]:
    """The delivery settings of a run (its prompt options and model capabilities) and its dataset folder."""
    from niah.run.rundir import read_run_json, resolve_run_dataset

    run = read_run_json(run_dir)
    prompt_raw, caps_raw = run.get("prompt_options"), run.get("capabilities")
    prompt: dict[str, Any] = prompt_raw if isinstance(prompt_raw, dict) else {}
    caps: dict[str, Any] = caps_raw if isinstance(caps_raw, dict) else {}
    settings: dict[str, Any] = {
        "max_frames": prompt.get("max_frames"),
        "video_fps": prompt.get("video_fps"),
        "subtitle_mode": prompt.get("subtitle_mode", "frames"),
        "over_limit": prompt.get("over_limit", "skip"),
        "max_images": caps.get("max_images"),
        "max_context": caps.get("max_context_tokens"),
        "vision": caps.get("vision", True),
        "native_video": caps.get("video", False),
    }
    # The frames the run sampled, where the run kept them (RUN_DIR/cache/frames). run.json's cache_dir is not
    # followed: a run folder someone handed over must not point the audit at a folder of their choosing.
    # $NIAH_FRAME_CACHE, when set, is the default anyway.
    from niah.run.media import FRAMES_SUBDIR
    from niah.run.rundir import CACHE_SUBDIR
    from niah.video.expand import FRAME_CACHE_ENV

    run_frames = run_dir / CACHE_SUBDIR / FRAMES_SUBDIR
    if not os.environ.get(FRAME_CACHE_ENV) and run_frames.is_dir() and not run_frames.is_symlink():
        settings["frame_cache"] = run_frames
    return settings, resolve_run_dataset(run_dir, run)


__all__ = ["AUDIT_FILE", "DELIVERY", "AuditOptions", "AuditReport", "LeaveOneOut", "audit_dataset",
           "best_blind_reply", "default_chance",
           "judge_probe", "leave_one_out_best", "options_from_run", "print_report", "read_audit", "verdict_label", "write_audit"]
