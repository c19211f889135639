"""MMLongBench's blind answers: ``baseline:random`` (``BaselineAnswers.random``) and ``niah audit``'s chance.

MMLongBench folds multiple-choice options into the question text (``\\nA. <option>`` lines, an image part
standing for an image option), so ``sample.choices`` is None and the shared random answerer, seeing no options,
used to answer a random context word (0 where chance is 25-50%). Here the options are read back from the
question: a random option's letter for the letter rule (``mc_acc``), its text for SubEM, a random ``yes``/``no``
for the visual haystack, a random class among the demonstrations' ``label: N`` for in-context classification.
"""

from __future__ import annotations

import re
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


def random_answer(sample: Sample, shape: Any) -> str | None:
    """A chance-level reply in the form the official rule reads; None (the shared default) for open answers."""
    metric = (sample.meta or {}).get("metric")
    rng = shape.rng
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
    classification; 0 for open answers (counting, retrieval, document QA, summaries)."""
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
