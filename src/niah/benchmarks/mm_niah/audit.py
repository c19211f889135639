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

``locate`` is left to :func:`niah.delivery.default_locate`: ``meta.needles`` holds each text needle exactly as
it stands in the context (its leading space dropped, which the containment test does not need) and each image
needle's media path, which is the path of its context image part.

``probes`` adds, per task, the share that the most frequent gold value (counting: a count at any list
position; multiple choice: an option index) would score against the chance level, so a skewed generator shows
up even on a build too small for the audit's learned shortcuts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from niah.benchmarks.mm_niah.needles import COUNT_RANGE, IMAGE_COUNT_RANGE
from niah.benchmarks.protocol import AuditSpec, ProbeResult
from niah.sample import Sample

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
    from niah.audit import leave_one_out_best

    values = {v for row in shares for v in row}
    loo = leave_one_out_best({v: [row.get(v, 0.0) for row in shares] for v in values})
    return loo.scores, loo.best


def _verdict(name: str, task: str, samples: Sequence[Sample], scores: Sequence[float | None],
             detail: str) -> ProbeResult:
    """The shared verdict (chance + margin + the sampling noise of the mean)."""
    from niah.audit import judge_probe

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


SPEC = AuditSpec(chance=chance, probes=probes, needles_in_lists=False)  # haystack.assemble keeps needles out of lists
