"""Exact-length haystack assembly: every context measures exactly its target, needles land where asked."""

from __future__ import annotations

import random

import numpy as np
import pytest

from niah.build.haystack import ImageSpec, NeedleSpec, TextPool, assemble
from niah.tokens import get_tokenizer
from niah.util.errors import ConfigError

EN_WORDS = ("river mountain village morning quiet market bridge lantern harvest winter story garden teacher "
            "music station 1987 3.25 don't e.g. Mr. naïve café (old) \"new\" well-known — ; :").split()
ZH_CHARS = "我们去了公园天气很好山水城市老师学生音乐火车站春夏秋冬历史文化的是在有和人这中大为上个国"


def _en_docs(n_docs: int, seed: int = 0):
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        sents = []
        for _ in range(rng.randint(20, 60)):
            words = [rng.choice(EN_WORDS) for _ in range(rng.randint(4, 28))]
            s = " ".join(words)
            sents.append(s[0].upper() + s[1:] + rng.choice([".", ".", "!", "?"]))
        docs.append((f"d{d}", sents))
    return docs


def _zh_docs(n_docs: int, seed: int = 0):
    rng = random.Random(seed)
    return [(f"z{d}", ["".join(rng.choice(ZH_CHARS) for _ in range(rng.randint(6, 40))) + rng.choice("。！？")
                       for _ in range(rng.randint(20, 50))]) for d in range(n_docs)]


@pytest.fixture(scope="module")
def en_pools():
    docs = _en_docs(220)
    return {name: TextPool.build(docs, get_tokenizer(name), "en") for name in ("cl100k_base", "o200k_base",
                                                                                "llama2-sp")}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama2-sp"])
def test_exact_lengths_with_images_and_needles(en_pools, name: str) -> None:
    pool = en_pools[name]
    tok = pool.tokenizer
    rng = np.random.default_rng(1)
    for target in (1000, 1001, 1777, 4096, 8000, 31999, 64000):
        needles = [NeedleSpec(" The best thing to do in Nanjing is eating hot dry noodles.", 0.5, (0.4, 0.6))]
        images = [ImageSpec(256), ImageSpec(1792)] if target > 4000 else []
        lay = assemble(pool, target, rng, images=images, needles=needles)
        text = lay.text()
        assert tok.count(text) == lay.text_tokens  # one call over the whole context text
        assert lay.text_tokens + lay.image_tokens == target == lay.context_length
        assert sum(it.tokens for it in lay.items) == target
        assert not text.startswith(" ")
        assert 0.4 <= lay.needle_depths[0] <= 0.6
        assert text.count("Nanjing") == 1


def test_non_additive_language_is_verified_and_repaired() -> None:
    tok = get_tokenizer("cl100k_base")
    pool = TextPool.build(_zh_docs(150), tok, "zh")
    assert not pool.additive
    rng = np.random.default_rng(2)
    for target in (1000, 3333, 20000):
        lay = assemble(pool, target, rng, needles=[NeedleSpec("小企鹅数了三根针。", 0.3, (0.2, 0.4))])
        assert tok.count(lay.text()) == lay.text_tokens == target


def test_no_unit_repeats_inside_one_haystack(en_pools) -> None:
    pool = en_pools["cl100k_base"]
    lay = assemble(pool, 60000, np.random.default_rng(3))
    sentences = [s for s in lay.text().replace("!", ".").replace("?", ".").split(".") if len(s) > 40]
    # documents are drawn without replacement, so a long sentence can only recur if the corpus repeats it
    counts = {}
    for s in sentences:
        counts[s] = counts.get(s, 0) + 1
    corpus_counts = {}
    for u in pool.units:
        for s in u.replace("!", ".").replace("?", ".").split("."):
            if len(s) > 40:
                corpus_counts[s] = corpus_counts.get(s, 0) + 1
    assert all(counts[s] <= corpus_counts.get(s, 1) for s in counts)


def test_depths_and_pinned_images(en_pools) -> None:
    pool = en_pools["cl100k_base"]
    rng = np.random.default_rng(4)
    for target_depth in (0.0, 0.1, 0.35, 0.5, 0.75, 0.99):
        lo, hi = max(0.0, target_depth - 0.1), min(1.0, target_depth + 0.1)
        lay = assemble(pool, 16000, rng, images=[ImageSpec(512), ImageSpec(256, target_depth=target_depth,
                                                                              window=(lo, hi))])
        pinned_depth = [d for it, d in zip([i for i in lay.items if i.kind == "image"], lay.image_depths,
                                           strict=True) if it.payload.target_depth is not None][0]
        assert lo <= pinned_depth <= hi
    # several needles keep their order by depth, and depth is tokens before / total
    needles = [NeedleSpec(f" Fact number {k} is here.", d) for k, d in enumerate((0.8, 0.2, 0.5))]
    lay = assemble(pool, 9000, rng, needles=needles)
    pos, seen = 0, {}
    for it in lay.items:
        if it.kind == "needle":
            seen[it.text] = pos / 9000
        pos += it.tokens
    assert [seen[n.text.lstrip()] if n.text.lstrip() in seen else seen[n.text] for n in needles] == \
        lay.needle_depths
    assert lay.needle_depths[1] < lay.needle_depths[2] < lay.needle_depths[0]


def test_same_seed_same_haystack(en_pools) -> None:
    pool = en_pools["o200k_base"]
    a = assemble(pool, 12345, np.random.default_rng(9), needles=[NeedleSpec(" X is y.", 0.3)]).text()
    b = assemble(pool, 12345, np.random.default_rng(9), needles=[NeedleSpec(" X is y.", 0.3)]).text()
    c = assemble(pool, 12345, np.random.default_rng(10), needles=[NeedleSpec(" X is y.", 0.3)]).text()
    assert a == b != c


def test_corpus_too_small_is_a_clear_error(en_pools) -> None:
    pool = TextPool.build(_en_docs(3), get_tokenizer("cl100k_base"), "en")
    with pytest.raises(ConfigError, match="not enough for a haystack"):
        assemble(pool, 200000, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="smaller than the images"):
        assemble(pool, 300, np.random.default_rng(0), images=[ImageSpec(1792)])


def test_excluded_phrases_never_enter_the_pool() -> None:
    docs = [("a", ["The little penguin counted five needles.", "Nothing to see here."] * 3)]
    pool = TextPool.build(docs, get_tokenizer("cl100k_base"), "en", exclude=("penguin",))
    assert all("penguin" not in u for u in pool.units)


def test_needles_kept_off_the_end_never_close_the_context(en_pools) -> None:
    """Three needles aimed at the very end, placed in depth order: by default the last ones are pushed past the
    last haystack sentence; with ``needle_ends=False`` a haystack sentence always follows them (as one always
    precedes them), and the exact length holds."""
    pool = en_pools["cl100k_base"]
    texts = [" Ardel is the sister of Brunmo.", " Brunmo is the son of Cethra.", " Cethra is the aunt of Dovlin."]

    def ends_on_a_needle(needle_ends: bool, seed: int) -> bool:
        needles = [NeedleSpec(t, d, (0.0, 1.0)) for t, d in zip(texts, (0.97, 0.985, 0.999), strict=True)]
        lay = assemble(pool, 1000, np.random.default_rng(seed), needles=needles, needle_ends=needle_ends)
        assert lay.context_length == 1000 and pool.tokenizer.count(lay.text()) == lay.text_tokens
        return lay.text().rstrip().endswith(tuple(t.strip() for t in texts))

    assert sum(ends_on_a_needle(True, seed) for seed in range(20)) >= 10  # the cue the option removes
    assert not any(ends_on_a_needle(False, seed) for seed in range(20))
