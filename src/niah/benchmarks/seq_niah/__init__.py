"""Sequential-NIAH (ordered needles in EN and ZH): generators, official files, judge, judge self-test, noise.

Modules: :mod:`.build` (``build_seq_niah``, the official insertion with exact lengths), :mod:`.synth`
(synthetic-temporal QA), :mod:`.sources` (real-temporal / real-logical QA from user files),
:mod:`.official` (official files in and out), :mod:`.judge` (deterministic order-aware judge, batch
metric, LLM-judge prompt and parser), :mod:`.judge_test` (the paper's judge test, Tables 4 and 7),
:mod:`.noise` (noise variants, consistency), :mod:`.prompt` (official prompt renderer). See docs/seq-niah.md.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def published() -> dict[str, Any]:
    """The paper's published numbers (package data: ``data/paper.json`` in this package)."""
    path = resources.files(__name__).joinpath("data", "paper.json")
    return json.loads(path.read_text(encoding="utf-8"))
