"""What MileBench adds to ``niah audit``: blind chance per sample (needles are found by the shared locator from
``meta.needles``: the passkey sentence, or the path of the image that carries the passkey)."""

from __future__ import annotations

from niah.benchmarks.protocol import AuditSpec
from niah.sample import Sample

#: The generated passkey tasks: a fresh five-digit key per sample, which no blind reply names but by luck.
PASSKEY_TASKS = frozenset({"TextNeedleInAHaystack", "ImageNeedleInAHaystack"})


def chance(sample: Sample) -> float:
    """Expected official score of a blind guess: 0 for the passkey tasks (1 in 90,000 keys) and open
    answers, one over the number of options for the official multiple-choice sets."""
    if sample.task in PASSKEY_TASKS:
        return 0.0
    if sample.choices:
        return 1.0 / len(sample.choices)
    return 0.0


SPEC = AuditSpec(chance=chance, needles_in_lists=False)  # haystack.assemble keeps needles out of lists
