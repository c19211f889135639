"""The project's docs stand alone: no references to files outside the repository, no dead relative links."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)")


def test_docs_do_not_point_outside_the_repository() -> None:
    assert len(DOCS) > 1
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, doc.name
        for target in LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            resolved = (doc.parent / target).resolve()
            assert resolved.is_relative_to(ROOT) and resolved.exists(), (doc.name, target)
