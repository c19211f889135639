"""Noise variants (tiny / big movement, reorder, semantic) and the consistency metric."""

import bisect
import json
import re

import pytest

from niah.benchmarks.seq_niah.build import _cut_positions, build_seq_niah, raw_text_of, sentence_frames
from niah.benchmarks.seq_niah.judge import judge
from niah.benchmarks.seq_niah.noise import consistency, gold_unchanged, make_variants, noise_samples
from niah.benchmarks.seq_niah.official import read_official
from niah.sample import Dataset, Sample, TextPart
from niah.tokens import get_tokenizer
from niah.util.errors import DataError
from support.seq_niah import official_record


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    out = tmp_path_factory.mktemp("noise") / "ds"
    build_seq_niah(out, langs=("en",), lengths=("8k-16k",), needles="6-10", per_cell=1, seed=4, progress=False)
    return next(iter(Dataset(out)))


def _periods(text):
    return _cut_positions(text, "en")  # the builder's sentence ends


def _raw_cuts(sample):
    """Raw-text offsets of the needles, in text order."""
    shift = len(sample.meta["doc_prefix"])
    out, removed = [], 0
    for n in sorted(sample.meta["needles"], key=lambda n: n["offset"]):
        out.append(n["offset"] - shift - len(n["before"]) - removed)
        removed += len(n["before"]) + len(n["text"]) + len(n["after"]) - len(n["replaced"])
    return out


def _check_layout(v):
    """Each needle right after a sentence end, after a gap that stands before some sentence of the text (as the
    builder frames them); the text's own gap follows it, nothing replaced."""
    ctx = v.context[0].text
    gaps = {g for frame in sentence_frames(raw_text_of(v), "en").values() for g in frame}
    for n in v.meta["needles"]:
        at, end = n["offset"], n["offset"] + len(n["text"])
        assert ctx[at:end] == n["text"] and n["before"] in gaps and ctx[at - len(n["before"]):at] == n["before"]
        assert ctx[at - len(n["before"]) - 1] == "."
        assert n["after"] == n["replaced"] == "" and ctx[end] in " \n"


def test_tiny_move_stays_within_three_sentence_ends_in_order(base):
    raw = raw_text_of(base)
    periods = _periods(raw)
    before = [bisect.bisect_left(periods, c) for c in _raw_cuts(base)]
    for v in make_variants(base, "tiny-move", variants=3, seed=1):
        _check_layout(v)
        assert raw_text_of(v) == raw and gold_unchanged(base, v) and v.meta["noise_type"] == "little_moving"
        after = [bisect.bisect_left(periods, c) for c in _raw_cuts(v)]
        assert all(abs(a - b) <= 3 for a, b in zip(after, before, strict=True))
        assert after == sorted(after) and len(set(after)) == len(after)
        order = [n["text"] for n in sorted(v.meta["needles"], key=lambda n: n["offset"])]
        assert order == [n["text"] for n in sorted(base.meta["needles"], key=lambda n: n["offset"])]
        assert after != before


def test_big_move_keeps_order_and_reorder_keeps_positions(base):
    order0 = [n["text"] for n in sorted(base.meta["needles"], key=lambda n: n["offset"])]
    for v in make_variants(base, "big-move", variants=3, seed=2):
        _check_layout(v)
        assert [n["text"] for n in sorted(v.meta["needles"], key=lambda n: n["offset"])] == order0
        assert raw_text_of(v) == raw_text_of(base)
    for v in make_variants(base, "reorder", variants=3, seed=2):
        _check_layout(v)
        assert _raw_cuts(v) == _raw_cuts(base)
        assert [n["text"] for n in sorted(v.meta["needles"], key=lambda n: n["offset"])] != order0
        assert v.meta["noise_type"] == "order"


def test_semantic_noise_look_alikes_gold_unchanged(base):
    tok = get_tokenizer("cl100k_base")
    name = base.meta["extrainfo_diary"][0][0]
    variants = make_variants(base, "semantic", variants=3, seed=3, tokenizer=tok)
    assert [v.meta["noise_type"] for v in variants] == ["syn_1", "syn_2", "syn_1+2"]
    for v in variants:
        _check_layout(v)
        ctx = v.context[0].text
        assert gold_unchanged(base, v)
        assert v.meta["length"] > base.meta["length"] == v.meta["base_length"]
        for sentence in v.meta["noise_sentences"]:
            at = ctx.index(sentence)  # after a sentence end and a gap of the text's kind, like the needles
            assert ctx[at - 1] in " \n" and ctx[:at].rstrip().endswith(".")
            assert ctx[at + len(sentence)] in " \n"
    first = variants[0].meta["noise_sentences"][0]
    other = re.search(r"of (\w+ \w+)", first).group(1)
    assert other != name and other.split()[-1] == name.split()[-1]
    # the look-alike is not an answer: listing it is redundant
    gold_lines = base.answer.splitlines()[1:]
    assert judge(base.question[0].text, base.answer, "\n".join(gold_lines + [first]))[0] == 0


def test_variants_of_imported_official_records(tmp_path):
    path = tmp_path / "NIAH_en.jsonl"
    path.write_text(json.dumps(official_record(11)) + "\n", encoding="utf-8")
    (s,) = read_official([path])
    variants = list(noise_samples([s], variants=3, seed=0))
    assert [v.id for v in variants] == [f"{s.id}_{i}" for i in range(1, 13)]
    assert [v.meta["noise_type"] for v in variants[:9]] == ["little_moving"] * 3 + ["large_moving"] * 3 + ["order"] * 3
    assert all(gold_unchanged(s, v) for v in variants)
    sem = variants[9].meta["noise_sentences"][0]
    assert "Lee" in sem and "Ann Lee" not in sem


def test_needs_needle_positions():
    s = Sample(id="x", benchmark="b", task="t", context=[TextPart("a. b.")], question=[TextPart("q")], answer="a")
    with pytest.raises(DataError, match="meta.needles"):
        make_variants(s, "reorder")


def test_consistency_hand_checked():
    base = {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.0}
    variants = {"a_1": 1.0, "a_2": 1.0, "b_1": 0.0, "b_2": 0.0, "c_1": 0.0, "c_2": 1.0, "d_1": 1.0, "d_2": 0.0}
    variant_of = {v: v.split("_")[0] for v in variants}
    kind = {v: "reorder" for v in variants}
    r = consistency(base, variants, variant_of, kind)["reorder"]
    # rounds: _1 -> a,b,c,d = 1,0,0,1 (50%); _2 -> 1,0,1,0 (50%)
    assert r.accuracy == 50.0 and r.accuracy_std == 0.0 and r.bases == 4
    assert (r.consistency, r.consistently_correct, r.consistently_wrong) == (50.0, 25.0, 25.0)
    kind2 = dict(kind, a_2="tiny-move", b_2="tiny-move", c_2="tiny-move", d_2="tiny-move")
    res = consistency(base, variants, variant_of, kind2)
    # tiny-move (_2 only): a 1=1, b 0=0, c 1=1, d 0=0 -> 100; reorder (_1 only): c and d flip -> 50
    assert res["tiny-move"].consistency == 100.0 and res["reorder"].consistency == 50.0
    assert res["all"].consistency == 50.0 and res["tiny-move"].consistently_correct == 50.0
