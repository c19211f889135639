"""Haystacks read like documents: paragraph breaks, a separator between documents, whole-sentence endings,
and lengths that stay exact with every tokenizer (issue 9, defect 2)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from niah.benchmarks.mm_niah.corpus import DOC_SEPARATOR as OFFICIAL_DOC_SEPARATOR  # a family's own
from niah.build.haystack import (
    DEFAULT_DOC_SEPARATOR,
    ImageSpec,
    NeedleSpec,
    TextPool,
    assemble,
    ends_sentence,
    sweep_haystack,
)
from niah.tokens import get_tokenizer

WORDS = ("river mountain village morning quiet market bridge lantern harvest winter story garden teacher "
         "music station 1987 3.25 don't e.g. Mr. naïve café (old) \"new\" well-known — ; : Pythagoras "
         "unquestionably").split()
ZH_CHARS = "我们去了公园天气很好山水城市老师学生音乐火车站春夏秋冬历史文化的是在有和人这中大为上个国"
NEEDLE = " The best thing to do in Nanjing is eating hot dry noodles."


def _en_docs(n_docs: int, seed: int = 0) -> list[tuple[str, list[list[str]]]]:
    """Documents of 2-8 paragraphs of 1-6 sentences of varied length and ending."""
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        paragraphs = []
        for _ in range(rng.randint(2, 8)):
            sents = []
            for _ in range(rng.randint(1, 6)):
                s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
                sents.append(s[0].upper() + s[1:] + rng.choice(['.', '.', '!', '?', '."', '.)']))
            paragraphs.append(sents)
        docs.append((f"d{d}", paragraphs))
    return docs


def _zh_docs(n_docs: int, seed: int = 0) -> list[tuple[str, list[list[str]]]]:
    rng = random.Random(seed)
    return [(f"z{d}", [["".join(rng.choice(ZH_CHARS) for _ in range(rng.randint(6, 40))) + rng.choice("。！？")
                        for _ in range(rng.randint(1, 5))] for _ in range(rng.randint(2, 6))])
            for d in range(n_docs)]


def _sp_model_path() -> Path:
    import mistral_common

    return Path(mistral_common.__file__).parent / "data" / "tokenizer.model.v1"


def _hf_tokenizer(tmp_path: Path) -> str:
    """A byte-level BPE trained here (a stand-in for a local tokenizer.json): not additive."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    texts = [" ".join(s for p in body for s in p) for _, body in _en_docs(60, seed=5)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=500, show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    return f"hf:{path}"


def _check_contexts(pool: TextPool, targets: list[int], seed: int) -> float:
    """Assemble contexts with needles and images; every one exact; returns the share ending on a sentence."""
    tok = pool.tokenizer
    rng = np.random.default_rng(seed)
    ends = 0
    spaced = pool.lang == "en"
    needle = NEEDLE if spaced else "小企鹅数了三根针。"
    for target in targets:
        needles = [NeedleSpec(needle, float(d)) for d in rng.uniform(0, 1, 3)]
        images = [ImageSpec(256), ImageSpec(512)] if target > 3000 else []
        lay = assemble(pool, target, rng, images=images, needles=needles)
        text = lay.text()
        assert tok.count(text) == lay.text_tokens == target - lay.image_tokens, (tok.name, target)
        assert sum(it.tokens for it in lay.items) == target
        assert lay.sentence_end == ends_sentence(text)
        ends += lay.sentence_end
        assert not text[:1].isspace() and text == text.rstrip()
        if target >= 4000:
            assert pool.paragraph_break in text
            assert pool.doc_separator.strip() in text
        if spaced:  # needles join prose: never a space after a break, never glued to the next sentence
            assert "\n " not in text
            start = text.index("Nanjing")
            after = text[text.index("noodles.", start) + len("noodles."):]
            assert after == "" or after[0] in " \n" or after.startswith(pool.doc_separator)
    return ends / len(targets)


TARGETS = [1000, 1001, 1777, 2500, 4096, 8000, 12345, 31999, 47000, 64000]


@pytest.mark.parametrize("separator", [DEFAULT_DOC_SEPARATOR, OFFICIAL_DOC_SEPARATOR])
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama2-sp", "sp:"])
def test_english_contexts_end_on_sentences_exactly(name: str, separator: str) -> None:
    if name == "sp:":
        name = f"sp:{_sp_model_path()}"
    pool = TextPool.build(_en_docs(400), get_tokenizer(name), "en", doc_separator=separator)
    assert _check_contexts(pool, TARGETS * 2, seed=1) >= 0.98


def test_local_hf_tokenizer_ends_on_sentences_exactly(tmp_path: Path) -> None:
    tok = get_tokenizer(_hf_tokenizer(tmp_path))
    pool = TextPool.build(_en_docs(300), tok, "en")
    assert not pool.additive  # goes through verify-and-repair
    assert _check_contexts(pool, TARGETS, seed=2) >= 0.98


@pytest.mark.parametrize("name", ["cl100k_base", "llama2-sp"])
def test_chinese_contexts_end_on_sentences_exactly(name: str) -> None:
    pool = TextPool.build(_zh_docs(500), get_tokenizer(name), "zh", doc_separator=OFFICIAL_DOC_SEPARATOR)
    assert not pool.additive
    assert _check_contexts(pool, TARGETS, seed=3) >= 0.9  # 10 contexts: at most one word cut
    share = _check_contexts(pool, [int(x) for x in np.random.default_rng(4).integers(1000, 30000, 40)], seed=5)
    assert share >= 0.98


def test_needles_may_close_or_open_a_paragraph() -> None:
    """Between two paragraphs a needle is sometimes the last sentence of the first, sometimes the first of
    the second: no place in a paragraph is free of needles."""
    pool = TextPool.build(_en_docs(300, seed=9), get_tokenizer("cl100k_base"), "en")
    rng = np.random.default_rng(8)
    seen = {"closes": 0, "opens": 0}
    for _ in range(300):
        lay = assemble(pool, 3000, rng, needles=[NeedleSpec(NEEDLE, float(rng.uniform(0.05, 0.95)))])
        text = lay.text()
        assert pool.tokenizer.count(text) == 3000
        at = text.index(NEEDLE.strip())
        end = at + len(NEEDLE.strip())
        seen["closes"] += text[end:end + 2] == "\n\n"
        seen["opens"] += text[max(0, at - 2):at] == "\n\n"
    assert seen["closes"] >= 10 and seen["opens"] >= 10, seen


def test_paragraphs_and_documents_keep_their_order_and_breaks() -> None:
    docs = _en_docs(60, seed=7)
    pool = TextPool.build(docs, get_tokenizer("cl100k_base"), "en", doc_separator=OFFICIAL_DOC_SEPARATOR)
    lay = assemble(pool, 20000, np.random.default_rng(0))
    text = lay.text()
    whole = {"\n\n".join(" ".join(p) for p in body) for _, body in docs}
    parts = text.split(OFFICIAL_DOC_SEPARATOR)
    assert len(parts) >= 3
    # every document but the last is whole, its paragraphs separated by blank lines; the last is a prefix
    assert all(p in whole for p in parts[:-1])
    assert any(d.startswith(parts[-1]) for d in whole)
    assert ends_sentence(parts[-1])


def test_word_cut_fallback_is_exact_and_reported() -> None:
    """Sentences that all count 10 tokens cannot add up to 1005: the last sentence is cut, and said so."""
    tok = get_tokenizer("cl100k_base")
    base = " ".join(["river"] * 9)
    sentence = base[0].upper() + base[1:] + "."
    assert tok.count(sentence) == 10 and tok.unit_count(" " + sentence) == 10
    docs = [(f"d{i}", [[sentence] * 30]) for i in range(60)]
    pool = TextPool.build(docs, tok, "en", doc_separator=" ")
    lay = assemble(pool, 1005, np.random.default_rng(0))
    assert tok.count(lay.text()) == 1005 and not lay.sentence_end


def test_sweep_haystack_ends_on_a_sentence_and_keeps_paragraphs() -> None:
    pool = TextPool.build(_en_docs(300), get_tokenizer("cl100k_base"), "en")
    sweep = sweep_haystack(pool, 30000, np.random.default_rng(2), NEEDLE)
    assert sweep.sentence_end and ends_sentence(sweep.text) and "\n\n" in sweep.text
    tok = pool.tokenizer
    for depth in (0.0, 0.3, 0.77, 1.0):
        text, realized = sweep.with_needle(depth)
        assert tok.count(text) == 30000
        assert "\n " not in text and re.search(r"noodles\.($| )", text)
        assert realized > 0


def test_a_separator_that_glues_words_is_verified_not_trusted() -> None:
    """With no separator the next document's first word joins the previous sentence's full stop in one
    pre-token; the pool notices, takes the verify-and-repair path, and stays exact."""
    tok = get_tokenizer("cl100k_base")
    pool = TextPool.build(_en_docs(300, seed=4), tok, "en", doc_separator="")
    assert not pool.additive
    assert TextPool.build(_en_docs(5), tok, "en", doc_separator="***").additive
    assert _check_contexts(pool, [1500, 9000, 30000], seed=6) >= 2 / 3
