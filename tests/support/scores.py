"""Reading scores files in tests: the family's official structure inside the shared scores.json layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from niah.benchmarks.protocol import SCORES_SCHEMA, official_structure


def official_scores(path: Path, benchmark: str | None = None) -> Any:
    """The ``official`` structure of a scores.json (in percent), ``benchmark``'s where the run holds several."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc.get("schema") == SCORES_SCHEMA, f"{path}: not the current scores layout"
    found, _in_percent = official_structure(doc, benchmark)
    return found
