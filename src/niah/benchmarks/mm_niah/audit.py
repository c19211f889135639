"""What MM-NIAH adds to ``niah audit``: the blind chance level of each sample and two gold-distribution probes.

Chance (``chance(sample)``, the expected official score of a guess that does not read the document, 0-1):

- multiple choice (retrieval-image, reasoning-image, reasoning-text with ``--reasoning-choices``): one over the
  number of options; the builder draws the correct option's place uniformly;
- counting-image: 1/4. Every document image holds 0..3 pasted cartoons, each count uniform and independent
  (``build.draw_image_counts``), and the scorer gives each position of the gold list its share; a guess that
  lists one uniform count in 0..3 per image (the number of images is what the model sees, not what it must
  find) is right at each position with probability 1/4 whatever the gold, and so is any constant count on
  average over samples;
- counting-text: 1/10. Each statement's count is uniform on 1..10 and a sample has 1..3 statements; a guess of
  three uniform counts covers every statement (extra items cost nothing) and is right at each with
  probability 1/10;
- open-ended (retrieval-text, reasoning-text, the image-count probe): 0. The answer is a slot value drawn per
  sample from a generated vocabulary of millions of made-up words (``templates.made_up_word``), checked absent
  from the question and the haystack, so a guess that reads neither needle has no answer to copy.

``locate`` is left to :func:`niah.run.delivery.default_locate`: ``meta.needles`` holds each text needle exactly as
it stands in the context (its leading space dropped, which the containment test does not need) and each image
needle's media path, which is the path of its context image part.

``probes`` adds, per task, the share that the most frequent gold value (counting: a count at any list
position; multiple choice: an option index) would score against the chance level, so a skewed generator shows
up even on a build too small for the audit's learned shortcuts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from niah.benchmarks.mm_niah.needles import COUNT_RANGE, IMAGE_COUNT_RANGE
from niah.benchmarks.protocol import AuditSpec, ProbeResult
from niah.sample import Sample, parts_text

#: How far (points) a probe's score may lie above its chance level and still pass (the audit's margin).
MARGIN = 5.0


def chance(sample: Sample) -> float:
    """Expected official score (0-1) of a blind guess at ``sample``; see the module docstring."""
    if sample.choices:
        return 1.0 / len(sample.choices)
    if sample.task == "counting-image":
        low, high = IMAGE_COUNT_RANGE
        return 1.0 / (high - low + 1)
    if sample.task == "counting-text":
        low, high = COUNT_RANGE
        return 1.0 / (high - low + 1)
    return 0.0


def _loo_constant(shares: Sequence[Mapping[Any, float]]) -> tuple[list[float | None], Any]:
    """The audit's leave-one-out best constant over per-sample ``{value: score}`` maps (a value absent from a
    sample's map scores 0 there); returns (each sample's score 0-1, the value best on all samples)."""
    from niah.audit.dataset import leave_one_out_best

    values = {v for row in shares for v in row}
    loo = leave_one_out_best({v: [row.get(v, 0.0) for row in shares] for v in values})
    return loo.scores, loo.best


def _verdict(name: str, task: str, samples: Sequence[Sample], scores: Sequence[float | None],
             detail: str) -> ProbeResult:
    """The shared verdict (chance + margin + the sampling noise of the mean)."""
    from niah.audit.dataset import judge_probe

    probe = judge_probe(name, task, "gold", dict(enumerate(scores)),
                        {i: chance(s) for i, s in enumerate(samples)}, MARGIN, detail)
    assert probe is not None
    return probe


def _counting_probe(task: str, samples: Sequence[Sample]) -> ProbeResult:
    """A constant count learned from the other samples (the reply ``[v, v, v, ...]``, which the official soft
    accuracy gives the share of ``v`` in the gold list), against the mean chance."""
    shares = [{v: n / len(s.answer) for v, n in Counter(s.answer).items()} for s in samples]
    scores, value = _loo_constant(shares)
    return _verdict("constant-count", task, samples, scores,
                    f"a constant reply like [{value}, {value}, ...], chosen on the other samples")


def _position_probe(task: str, samples: Sequence[Sample]) -> ProbeResult:
    """A constant option letter learned from the other samples, against the mean chance of the options."""
    scores, index = _loo_constant([{s.answer: 1.0} for s in samples])
    return _verdict("constant-option", task, samples, scores,
                    f"a constant option (most often {chr(65 + int(index))}), chosen on the other samples")


def probes(samples: Sequence[Sample], options: Mapping[str, Any]) -> list[ProbeResult]:
    """Per task: the best constant count (counting tasks) or option (multiple choice) against chance."""
    by_task: dict[str, list[Sample]] = {}
    for s in samples:
        by_task.setdefault(s.task, []).append(s)
    out: list[ProbeResult] = []
    for task, rows in sorted(by_task.items()):
        if task.startswith("counting"):
            rows = [s for s in rows if isinstance(s.answer, list) and s.answer]
            if rows:
                out.append(_counting_probe(task, rows))
        else:
            rows = [s for s in rows if s.choices and isinstance(s.answer, int) and not isinstance(s.answer, bool)]
            if rows:
                out.append(_position_probe(task, rows))
    return out


# ------------------------------------------------------------------------------------------ diagnostics

#: The retrieval-text diagnostics of :func:`retrieval_diagnostics`, by key, as a report names them.
DIAGNOSTICS: dict[str, str] = {
    "type_scan": "type scan: reply a value of the answer's type found anywhere in the context (%)",
    "outlier_needle_top1": "vocabulary outlier: the sentence with the most words no other sample holds is the "
                           "needle (%)",
}


def _type_scan_score(sample: Sample) -> float | None:
    """Expected official score (0-1) of replying one of the context's values of the answer's type (not named by
    the question), drawn at random; None when the answer is not a generated value (an imported sample)."""
    from niah.benchmarks.mm_niah.templates import contains, find_values, value_kind

    if not isinstance(sample.answer, str) or (kind := value_kind(sample.answer)) is None:
        return None
    question = parts_text(sample.question)
    found = {v for v in find_values(parts_text(sample.context), kind) if not contains(question, v)}
    if not found:
        return 0.0
    return sum(contains(v, sample.answer) and contains(sample.answer, v) for v in found) / len(found)


_MIN_SENTENCE_WORDS = 5
_WORD = re.compile(r"[^\W\d_]+")


def _outlier_hit(sample: Sample, lang: str, samples_with: Counter[str]) -> bool | None:
    """Whether the context sentence (of at least five words, ending as a sentence does) with the largest share
    of words found in no other sample's context of the build (``samples_with``: word -> contexts holding it)
    is (part of) the needle; None without a text needle. Haystack documents recur across a build's samples,
    a needle's made-up words do not."""
    from niah.corpus.text import split_sentences

    needles = [n.strip() for n in sample.meta.get("needles") or [] if isinstance(n, str) and n.strip()]
    if not needles:
        return None
    # sentences of prose only (a needle is one): titles, headings and list labels are short
    sentences = [s for block in parts_text(sample.context).split("\n") if block.strip()
                 for s in split_sentences(block.strip(), lang)
                 if s.rstrip().endswith((".", "!", "?")) and len(s.split()) >= _MIN_SENTENCE_WORDS]
    words = [_WORD.findall(s.lower()) for s in sentences]
    best = max(range(len(sentences)), default=None,
               key=lambda i: sum(samples_with[w] == 1 for w in words[i]) / max(len(words[i]), 1))
    return best is not None and any(sentences[best] in n or n in sentences[best] for n in needles)


def retrieval_diagnostics(samples: Sequence[Sample]) -> dict[str, float | int | None]:
    """Two per-build diagnostics of retrieval-text (not pass/fail probes: they show what the paper's task is),
    in percent over the build's retrieval-text samples (None when no sample applies):

    - ``type_scan``: the official score of replying a value of the answer's type found anywhere in the
      context, without locating the needle (a random one of them where the context holds several). Without
      ``--distractors`` the answer is the only value of its type in the context, so this reads near 100;
      with N distractors, near 100 / (N + 1).
    - ``outlier_needle_top1``: how often the context's sentence with the largest share of words found in no
      other sample of the build is the needle (a vocabulary-outlier detector: haystack documents recur across
      a build, a needle's made-up names do not); with N distractors it picks one of N + 1 like sentences.

    ``samples`` is any iterable of :class:`~niah.sample.Sample` (a whole build: other tasks are skipped). The
    result also holds ``samples``, the number of retrieval-text samples read. Pure: reads only what a model
    is sent, plus ``meta.needles`` to tell whether the outlier sentence is the needle.
    """
    samples = list(samples)
    rows = [s for s in samples if s.task == "retrieval-text"]
    scans = [v for v in (_type_scan_score(s) for s in rows) if v is not None]
    samples_with: Counter[str] = Counter()
    for s in samples:
        samples_with.update(set(_WORD.findall(parts_text(s.context).lower())))
    hits = [v for v in (_outlier_hit(s, str(s.meta.get("lang") or "en"), samples_with) for s in rows)
            if v is not None]
    return {
        "samples": len(rows),
        "type_scan": round(100 * sum(scans) / len(scans), 1) if scans else None,
        "outlier_needle_top1": round(100 * sum(hits) / len(hits), 1) if hits else None,
    }


SPEC = AuditSpec(chance=chance, probes=probes, needles_in_lists=False)  # haystack.assemble keeps needles out of lists
