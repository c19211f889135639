"""What Sequential-NIAH adds to ``niah audit``: where each needle stands, and blind chance.

``meta.needles`` holds one record per inserted needle (``text``, ``offset`` in the context text, ...), not the
plain strings the shared locator reads; some files carry it as a JSON string. Chance is 0: the answer is an
open list of 3-15 items that must all be named (in order, where the question asks for it), which no reply made
without reading the context names but by luck. A noise variant (``meta.variant_of``: the base it was made
from, whose question and gold it keeps) is one group with its base, so no probe learns a base's gold from its
own variants.
"""

from __future__ import annotations

import json
from typing import Any

from niah.benchmarks.protocol import AuditSpec, NeedleSpot
from niah.sample import Sample, TextPart


def _records(sample: Sample) -> list[Any]:
    needles = (sample.meta or {}).get("needles")
    if isinstance(needles, str):
        try:
            needles = json.loads(needles)
        except ValueError:
            return []
    return needles if isinstance(needles, list) else []


def locate(sample: Sample) -> list[NeedleSpot]:
    """One text spot per inserted needle, its text exactly as it stands in the context (needle texts are
    inserted verbatim, line breaks inside them included; the breaks around them are not part of them)."""
    context = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    spots: list[NeedleSpot] = []
    for record in _records(sample):
        text = record.get("text") if isinstance(record, dict) else record if isinstance(record, str) else None
        if not isinstance(text, str) or not text:
            continue
        if text in context:  # a record whose text the context does not hold is no needle of this sample
            spots.append(NeedleSpot("text", text=text))
    return spots


def chance(sample: Sample) -> float:
    """Blind chance of the official (judged) score: 0 for the open ordered lists of every pipeline."""
    return 0.0


def group(sample: Sample) -> str:
    """The base sample a noise variant was made from (the variant's group), else the sample itself."""
    base = (sample.meta or {}).get("variant_of")
    return base if isinstance(base, str) and base else sample.id


SPEC = AuditSpec(locate=locate, chance=chance, group=group)
