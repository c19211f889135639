"""MMLongBench's blind answers: ``baseline:random`` (``BaselineAnswers.random``) and ``niah audit``'s chance.

MMLongBench folds multiple-choice options into the question text (``\\nA. <option>`` lines, an image part
standing for an image option), so ``sample.choices`` is None and the shared random answerer, seeing no options,
used to answer a random context word (0 where chance is 25-50%). Here the options are read back from the
question: a random option's letter for the letter rule (``mc_acc``), its text for SubEM, a random ``yes``/``no``
for the visual haystack, a random class among the demonstrations' ``label: N`` for in-context classification.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from niah.benchmarks.protocol import AuditSpec
from niah.sample import ImagePart, Sample, TextPart, parts_text

#: An option line as the official loaders fold them into the question: a newline, a capital A-J, ". ".
_OPTION = re.compile(r"\n([A-J])\. ")
_IMAGE = "\x00"  # an image part inside the question text (an image option)
_LABEL = re.compile(r"label: (\d+)")


def options(sample: Sample) -> list[tuple[str, str]]:
    """(letter, option text) of the options folded into the question, in order; [] when there are none. The
    letters must run A, B, C ... from the first option line on (other text that happens to look like one, such
    as a lone ``\\nB. `` inside a question, is not taken for options)."""
    text = "".join(p.text if isinstance(p, TextPart) else _IMAGE if isinstance(p, ImagePart) else ""
                   for p in sample.question)
    found = list(_OPTION.finditer(text))
    start = next((i for i, m in enumerate(found) if m.group(1) == "A"), None)
    if start is None:
        return []
    run: list[re.Match[str]] = []
    for m in found[start:]:
        if m.group(1) != chr(ord("A") + len(run)):
            break
        run.append(m)
    out = []
    for i, m in enumerate(run):
        end = run[i + 1].start() if i + 1 < len(run) else len(text)
        body = text[m.end():end].split("\n", 1)[0] if i + 1 == len(run) else text[m.end():end]
        out.append((m.group(1), body.replace(_IMAGE, "").strip()))
    return out if len(out) >= 2 else []


def _labels(sample: Sample) -> list[int]:
    return sorted({int(n) for n in _LABEL.findall(parts_text(sample.context))})


def _count_range(sample: Sample) -> tuple[int, int] | None:
    """The per-item count range of a generated counting set (the MM-NIAH generator's), else None."""
    from niah.benchmarks.mm_niah.needles import COUNT_RANGE, IMAGE_COUNT_RANGE

    if (sample.meta or {}).get("metric") != "soft_acc" or not isinstance(sample.answer, list):
        return None
    if sample.task.endswith("counting-image"):
        return IMAGE_COUNT_RANGE
    if sample.task.endswith("counting-text"):
        return COUNT_RANGE
    return None


@lru_cache(maxsize=256)
def _sum_rule_chance(task: str, prompt: str, items: int, low: int, high: int) -> tuple[float, str]:
    """The best fixed reply under the sum rule for a gold of ``items`` counts, each uniform in low..high."""
    from niah.audit.dataset import best_blind_reply

    sample = Sample(id="chance", benchmark="mmlongbench", task=task, context=[], question=[TextPart("")],
                    answer=[low] * items, meta={"metric": "soft_acc", "prompt": prompt})
    return best_blind_reply(sample, lambda rng: [rng.randint(low, high) for _ in range(items)])


def counting_chance(sample: Sample) -> tuple[float, str] | None:
    """Chance from the sum rule (sum of the predicted counts == sum of the gold's): the best fixed reply for
    the sample's number of counts (what the model sees: its images, its statements) and its expected score,
    or None for a sample that is no generated counting sample."""
    span = _count_range(sample)
    if span is None:
        return None
    return _sum_rule_chance(sample.task, str((sample.meta or {}).get("prompt")), len(sample.answer), *span)


def random_answer(sample: Sample, shape: Any) -> str | None:
    """A chance-level reply in the form the official rule reads; None (the shared default) for open answers.
    Generated counting: the best blind reply under the sum rule (its score is the chance the audit states)."""
    metric = (sample.meta or {}).get("metric")
    rng = shape.rng
    counted = counting_chance(sample)
    if counted is not None:
        return counted[1]
    if metric == "binary_acc":
        return rng.choice(("yes", "no"))
    if metric == "cls_acc":
        labels = _labels(sample)
        return f"label: {rng.choice(labels)}" if labels else None
    opts = options(sample)
    if not opts:
        return None
    letter, body = opts[rng.randrange(len(opts))]
    if metric == "sub_em" and body:
        return body
    return letter


def chance(sample: Sample) -> float:
    """Expected official score of a blind guess: 1/2 for yes/no, one over the number of options parsed from
    the question (or given as choices), one over the number of classes the demonstrations show for in-context
    classification; for generated counting the best fixed reply's score under the sum rule
    (:func:`counting_chance`); 0 for other open answers (retrieval, document QA, summaries)."""
    counted = counting_chance(sample)
    if counted is not None:
        return counted[0]
    metric = (sample.meta or {}).get("metric")
    if metric == "binary_acc":
        return 0.5
    if metric == "cls_acc":
        labels = _labels(sample)
        return 1.0 / len(labels) if labels else 0.0
    if sample.choices:
        return 1.0 / len(sample.choices)
    opts = options(sample)
    if opts and metric in ("mc_acc", "sub_em"):
        return 1.0 / len(opts)
    return 0.0


SPEC = AuditSpec(chance=chance)
