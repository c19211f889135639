"""How template-like the default haystack reads (bench/corpus_quality.py), on hand-checked text and on a
64K haystack built as `niah build mm-niah --lengths 64k --depth-cells 0.4,0.6 --seed 3 --tasks retrieval-text` does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import corpus_quality  # noqa: E402


def test_measure_counts_by_hand():
    text = ("The old mill stood by the river for a century. The old mill was pulled down in 1960.\n"
            "The old mill stood by the river for a century. Nobody in the village remembers it now.\n"
            "Short one.")
    q = corpus_quality.measure(text, "en")
    # Sentences of >= 6 words: 4 (the last is too short); one of them occurs twice.
    assert q.sentences == 4 and q.repeated == 1
    # "the old mill stood" opens two sentences, "the old mill was" one: 2 of 4 share with another.
    assert q.shared_open == pytest.approx(2 / 4)
    words = corpus_quality.words_of(text, "en")
    assert q.words == len(words) == 10 + 8 + 10 + 7 + 2
    grams3 = [tuple(words[i:i + 3]) for i in range(len(words) - 2)]
    assert q.distinct3 == pytest.approx(len(set(grams3)) / len(grams3))
    # Needle sentences are left out of the measurement.
    dropped = corpus_quality.measure(text, "en", drop=("Nobody in the village",))
    assert dropped.sentences == 3


def test_measure_chinese_uses_characters():
    q = corpus_quality.measure("河水从山里流下来。河水从山里流下来。", "zh")
    assert q.sentences == 2 and q.repeated == 1 and q.words == 16


# Issue 9's targets, asserted on the seed-3 haystack. With structure printed and kinds balanced it gives repeated
# 0, shared openings 11.3%, distinct 3-grams 77.8%, 6-grams 92.8% (docs/corpora.md); unbalanced and without
# structure it gave 0, 10.2%, 72.0% and 91.2%, and the corpus shipped before the rework 58, 56.7%, 55.3%, 74.9%.
TARGETS = {"repeated": 5, "shared_open": 0.25, "distinct3": 0.70, "distinct6": 0.90}


def test_default_haystack_meets_the_targets():
    assert TARGETS == corpus_quality.TARGETS
    text, needles = corpus_quality.build_haystack(3, "en")
    q = corpus_quality.measure(text, "en", drop=needles)
    assert q.words > 25_000
    assert all(q.meets().values()), q
    assert q.repeated <= TARGETS["repeated"], q
    assert q.shared_open <= TARGETS["shared_open"], q
    assert q.distinct3 >= TARGETS["distinct3"], q
    assert q.distinct6 >= TARGETS["distinct6"], q
    # no kind fills much of it (unbalanced, walks alone were 17% and four slot-rich kinds 52%)
    mix = corpus_quality.kind_mix(text, "en")
    assert max(v for k, v in mix.items() if k != "?") <= 0.12, mix
    assert sum(sorted((v for k, v in mix.items() if k != "?"), reverse=True)[:4]) <= 0.35, mix
    shape = corpus_quality.structure(text)
    assert shape["headings"] > 100 and shape["list_items"] > 100 and shape["paragraphs"] > 300, shape


def test_structure_by_hand():
    text = "A title\n\nFirst one. Second one.\n\n- Item one.\n2. Step two.\n\n---\n\nLast."
    assert corpus_quality.structure(text) == {"headings": 1, "list_items": 2, "paragraphs": 2}
