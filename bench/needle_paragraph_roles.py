"""Where a built dataset's text needles stand in their paragraphs, beside the haystack's own sentences (a
benchmark script, not a test).

A paragraph is a block between blank lines (a text part's edge, next to an image or the context's ends, is a
blank line too). Haystack sentences are counted in plain paragraphs only: blocks that are not list items,
headings (no sentence terminator at the end) or the document separator; needle sentences are left out of
them. Each sentence is *alone* (a one-sentence paragraph), *opens* or *closes* its paragraph, or stands
*inside* it; a needle's role counts the needles beside it as sentences of its paragraph.

    python bench/needle_paragraph_roles.py DATASET [DATASET ...]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from niah.build.haystack import ends_sentence
from niah.corpus.text import split_sentences
from niah.sample import Dataset, TextPart

ROLES = ("alone", "opens", "closes", "inside")
_LIST_LINE = re.compile(r"^(- |\d+\. )")


def _role(opens: bool, closes: bool) -> str:
    return {(True, True): "alone", (True, False): "opens", (False, True): "closes"}.get((opens, closes), "inside")


def roles(dataset: Path) -> tuple[Counter[str], Counter[str], int]:
    """(needle roles, haystack plain-paragraph sentence roles, needles not found)."""
    needles: Counter[str] = Counter()
    haystack: Counter[str] = Counter()
    missing = 0
    for sample in Dataset(dataset).iter_samples():
        texts = [n for n in sample.meta.get("needles") or [] if isinstance(n, str) and n
                 and not n.startswith("media/")]  # image needles are paths
        parts = [p.text for p in sample.context if isinstance(p, TextPart)]
        for needle in texts:
            for text in parts:
                s = text.find(needle)
                if s >= 0:
                    e = s + len(needle)
                    before, after = text[:s].rstrip(" "), text[e:].lstrip(" ")
                    needles[_role(not before or before.endswith("\n\n"), not after or after.startswith("\n\n"))] += 1
                    break
            else:
                missing += 1
        wanted = set(texts)
        for text in parts:
            for block in text.split("\n\n"):
                block = block.strip()
                if not block or "\n" in block or block == "---" or _LIST_LINE.match(block) or not ends_sentence(block):
                    continue
                sentences = [s for s in split_sentences(block, "en") if s not in wanted]
                for k in range(len(sentences)):
                    haystack[_role(k == 0, k == len(sentences) - 1)] += 1
    return needles, haystack, missing


def _shares(counts: Counter[str]) -> str:
    total = sum(counts.values()) or 1
    return "  ".join(f"{r} {100 * counts[r] / total:5.1f}%" for r in ROLES) + f"  (n={sum(counts.values())})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    args = parser.parse_args()
    for path in args.datasets:
        needles, haystack, missing = roles(path)
        print(path)
        print("  text needles:             ", _shares(needles), f"not found {missing}" if missing else "")
        print("  plain-paragraph sentences:", _shares(haystack))


if __name__ == "__main__":
    main()
