"""A text needle stands as a paragraph of its own about as often as a sentence of a plain paragraph does, beside
a plain paragraph of its document (never under a heading, never between two list items), and the context stays
exact to the token with every tokenizer."""

from __future__ import annotations

import numpy as np
import pytest

from niah.build.haystack import ImageSpec, NeedleSpec, TextPool, assemble
from niah.tokens import get_tokenizer
from test_haystack_structure import (
    _END,
    _MARKER,
    NEEDLE,
    OFFICIAL_DOC_SEPARATOR,
    ZH_NEEDLE,
    _structured_docs,
)

OTHER = " A quiet lantern hung over the third bridge of the harbour."


def _lines(block: str) -> list[str]:
    return [ln for ln in block.split("\n") if ln.strip()]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama2-sp"])
def test_needles_stand_alone_as_often_as_plain_sentences_and_stay_exact(name: str) -> None:
    tok = get_tokenizer(name)
    pool = TextPool.build(_structured_docs(300, seed=11), tok, "en", doc_separator=OFFICIAL_DOC_SEPARATOR)
    assert 0.04 < pool.alone_share < 0.1
    rng = np.random.default_rng(3)
    alone = needles = 0
    for target in [int(t) for t in rng.integers(1000, 16000, 150)]:
        specs = [NeedleSpec(NEEDLE, float(rng.uniform(0.05, 0.95))), NeedleSpec(OTHER, float(rng.uniform(0.05, 0.95)))]
        lay = assemble(pool, target, rng, images=[ImageSpec(120), ImageSpec(80)], needles=specs)
        text = lay.text()
        assert tok.count(text) == lay.text_tokens == target - 200, (name, target)
        assert sum(it.tokens for it in lay.items) == target
        pos = 0
        for it in lay.items:  # each needle's depth is the tokens before it
            if it.kind == "needle":
                assert lay.needle_depths[specs.index(it.payload)] == pos / target
            pos += it.tokens
        for spec in specs:
            needles += 1
            at = text.index(spec.text.strip())
            end = at + len(spec.text.strip())
            if not (text[:at].endswith("\n\n") and text[end:].startswith("\n\n")):
                continue
            alone += 1
            above, below = _lines(text[:at])[-1], _lines(text[end:])[0]
            # after a paragraph of its document (no heading, no document separator right above it) ...
            assert _END.search(above) and above != OFFICIAL_DOC_SEPARATOR.strip(), above
            # ... beside a plain one: never between two list items
            assert not (_MARKER.match(above) and _MARKER.match(below)), (above, below)
            assert not text[end + 2:].startswith(("\n", " "))
    share = alone / needles
    assert abs(share - pool.alone_share) <= 0.035, (share, pool.alone_share)  # 0 before; 300 needles


def test_a_needle_alone_keeps_builds_deterministic() -> None:
    pool = TextPool.build(_structured_docs(120, seed=2), get_tokenizer("cl100k_base"), "en")

    def texts(seed: int) -> list[str]:
        rng = np.random.default_rng(seed)
        return [assemble(pool, 3000, rng, images=[ImageSpec(100)],
                         needles=[NeedleSpec(NEEDLE, 0.3), NeedleSpec(OTHER, 0.7)]).text() for _ in range(40)]

    first = texts(4)
    assert first == texts(4)
    assert any("\n\n" + NEEDLE.strip() + "\n\n" in t or "\n\n" + OTHER.strip() + "\n\n" in t for t in first)


def test_unspaced_languages_keep_needles_in_paragraphs() -> None:
    pool = TextPool.build(_structured_docs(200, "zh", seed=5), get_tokenizer("cl100k_base"), "zh")
    assert pool.alone_share == 0.0
    rng = np.random.default_rng(1)
    for target in (2000, 6000):
        lay = assemble(pool, target, rng, needles=[NeedleSpec(ZH_NEEDLE, 0.5)])
        text = lay.text()
        at = text.index(ZH_NEEDLE)
        assert not (text[:at].endswith("\n\n") and text[at + len(ZH_NEEDLE):].startswith("\n\n"))
