"""Sequential-NIAH generators: exact lengths, official insertion, templates, determinism, user sources."""

import json
import re

import pytest

from niah.benchmarks.seq_niah import synth
from niah.benchmarks.seq_niah.build import (
    DOC_PREFIXES,
    LENGTH_BINS,
    QUESTION_PREFIXES,
    SHORT_LENGTH_BINS,
    build_seq_niah,
    min_cut_points,
    prompt_text,
    raw_text_of,
    sentence_frames,
)
from niah.benchmarks.seq_niah.judge import judge
from niah.benchmarks.seq_niah.sources import load_source
from niah.sample import Dataset
from niah.tokens import get_tokenizer
from niah.util.errors import ConfigError, DataError


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("sn") / "ds"
    manifest = build_seq_niah(out, langs=("en", "zh"), lengths=("8k-16k",), needles="3-12", per_cell=1, seed=5,
                              progress=False)
    return out, manifest, list(Dataset(out))


def test_lengths_are_exact_in_cl100k(built):
    _out, manifest, samples = built
    tok = get_tokenizer("cl100k_base")
    assert len(samples) == 6 and manifest["num_samples"] == 6  # 2 langs x 3 needle groups
    lo, hi = LENGTH_BINS["8k-16k"]
    for s in samples:
        assert tok.count(prompt_text(s)) == s.meta["length"]
        assert lo <= s.meta["length"] < hi and s.meta["length_bin"] == "8k-16k"


def test_short_bins_for_small_context_models_are_exact_and_named(tmp_path):
    out = tmp_path / "short"
    # Chinese too: 2K tokens hold fewer sentences than the official 81-cut minimum, which is scaled below 8K
    build_seq_niah(out, langs=("en", "zh"), lengths=("2k-4k", "4k-8k"), needles="3-15", per_cell=1, seed=0,
                   progress=False)
    tok = get_tokenizer("cl100k_base")
    samples = list(Dataset(out))
    assert sorted((s.meta["lang"], s.meta["length_bin"]) for s in samples) == sorted(
        (lang, b) for lang in ("en", "zh") for b in ("2k-4k", "4k-8k") for _group in range(3))
    assert min_cut_points(2000, 15) == 31 and min_cut_points(2000, 3) == 21 and min_cut_points(8000, 3) == 81
    for s in samples:
        lo, hi = SHORT_LENGTH_BINS[s.meta["length_bin"]]
        assert tok.count(prompt_text(s)) == s.meta["length"] and lo <= s.meta["length"] < hi


def test_needles_stand_like_sentences_right_after_a_sentence_end(built):
    for s in built[2]:
        ctx = s.context[0].text
        period = "。" if s.meta["lang"] == "zh" else "."
        haystack_gaps = {g for gaps in sentence_frames(raw_text_of(s), s.meta["lang"]).values() for g in gaps}
        assert haystack_gaps <= {" ", "", "\n", "\n\n"}
        needles = s.meta["needles"]
        assert [n["inserted_index"] for n in needles] == list(range(len(needles)))
        offsets = [n["offset"] for n in needles]
        assert offsets == sorted(offsets)
        for n in needles:
            at = n["offset"]
            assert ctx[at:at + len(n["text"])] == n["text"]
            # right after a sentence end, after a gap that stands before some sentence of the haystack (a space
            # or nothing continuing the line, a line break, a blank line); the text's own gap follows
            before = n["before"]
            assert before in haystack_gaps and ctx[at - len(before):at] == before
            assert ctx[at - len(before) - 1] == period
            end = at + len(n["text"])
            assert n["after"] == "" and n["replaced"] == ""
            if lang_spaced(s):  # the gap after the sentence end the needle follows: a space or a line break
                assert ctx[end] in (" ", "\n") and not ctx[end + 1].isspace() or ctx[end:end + 2] == "\n\n"
            assert ctx.count(n["text"]) == 1
        # gold order kept beside the inserted order; every needle once
        assert sorted(n["gold_index"] for n in needles) == list(range(len(needles)))
        assert [s.meta["raw_needles"][n["gold_index"]] for n in needles] == [n["text"] for n in needles]
        depths = [n["depth"] for n in needles]
        assert depths == sorted(depths) and depths[0] > 0 and depths[-1] < 1
        raw = raw_text_of(s)
        assert not any(n["text"] in raw for n in needles)
        assert len(re.findall(re.escape(period), raw)) >= 81


def lang_spaced(sample) -> bool:
    return sample.meta["lang"] != "zh"


def test_prompt_and_answer_templates(built):
    for s in built[2]:
        lang = s.meta["lang"]
        assert s.meta["doc_prefix"] in DOC_PREFIXES[lang] and s.meta["question_prefix"] in QUESTION_PREFIXES[lang]
        question = s.question[0].text
        text = prompt_text(s)
        assert text.startswith(s.meta["doc_prefix"]) and text.endswith("\n\n" + s.meta["question_prefix"] + question)
        lines = s.answer.splitlines()
        if lang == "en":
            assert re.fullmatch(r"List the specific contents of .+ in order\.", question)
            assert re.fullmatch(r"The specific contents of .+ are as follows:", lines[0])
            assert all(re.match(r"- [A-Z][a-z]+ \d{1,2}, \d{4}：", x) for x in lines[1:])
        else:
            assert question.startswith("按日期罗列") and question.endswith("的内容")
            assert lines[0].endswith("的内容如下：")
            assert all(re.match(r"- \d{4}年\d{2}月\d{2}日：", x) for x in lines[1:])
        days = [(r[4], r[5], r[6]) for r in s.meta["extrainfo_diary"]]
        assert days == sorted(days) and len(set(days)) == len(days)  # chronological, distinct
        # the canonical date in the record's language (official: November 6, 2010 / 2006年02月04日); the
        # year-month-day sort key above replaces the canonical strings, which sort as dates only in Chinese
        canonical = [r[3] for r in s.meta["extrainfo_diary"]]
        pattern = r"\d{4}年\d{2}月\d{2}日" if s.meta["lang"] == "zh" else r"[A-Z][a-z]+ \d{1,2}, \d{4}"
        assert all(re.fullmatch(pattern, c) for c in canonical), canonical
        assert len(lines) - 1 == s.meta["num_needles"]
        # the gold answer judges itself correct
        assert judge(question, s.answer, s.answer)[0] == 1


def test_same_seed_same_bytes_other_seed_other_samples(built, tmp_path):
    out, _m, _s = built
    again = tmp_path / "again"
    build_seq_niah(again, langs=("en", "zh"), lengths=("8k-16k",), needles="3-12", per_cell=1, seed=5, progress=False)
    assert (again / "samples.jsonl").read_bytes() == (out / "samples.jsonl").read_bytes()
    other = tmp_path / "other"
    build_seq_niah(other, langs=("en",), lengths=("8k-16k",), needles="3-5", per_cell=1, seed=6, progress=False)
    assert next(iter(Dataset(other))).answer != built[2][0].answer


def test_synthetic_qa_unlimited_and_official_shape():
    import random

    rng = random.Random(1)
    seen = {synth.synthetic_temporal_qa(rng, "en", 5)["md5"] for _ in range(300)}
    assert len(seen) == 300
    rec = synth.synthetic_temporal_qa(random.Random(2), "zh", 4)
    assert set(rec) == {"md5", "question", "answer", "needles", "extrainfo_diary", "meta"}
    assert rec["meta"] == {"source": "syn", "ppl": "syn", "lang": "zh"}
    for needle, row in zip(rec["needles"], rec["extrainfo_diary"], strict=True):
        assert needle.startswith(row[1]) and row[2] in needle and needle.endswith(row[7])


def test_bad_options():
    with pytest.raises(ConfigError):
        build_seq_niah("/tmp/x", pipelines=("nope",))
    with pytest.raises(ConfigError):
        build_seq_niah("/tmp/x", lengths=("1k-2k",))
    with pytest.raises(ConfigError, match="--source"):
        build_seq_niah("/tmp/x", pipelines=("real-logical",))


def test_sources_validate_hostile_input(tmp_path):
    f = tmp_path / "rel.jsonl"
    f.write_text('["A", "Consult", "B", "2010-01-02"]\n["A", "Meet", "B", "2009-05-06"]\n'
                 '["A", "Praise", "B", "2011-13-01"]\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_source(f, "real-temporal")
    assert info.value.line == 3 and info.value.field == "relation[3]" and str(f) in str(info.value)
    f.write_text('{"question": "How?", "items": ["one"]}\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_source(f, "real-logical")
    assert info.value.line == 1 and info.value.field == "items"
    f.write_text('{"question": "How?", "answer": "x", "needles": ["a", 3], "meta": {"lang": "en"}}\n',
                 encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_source(f, "real-logical")
    assert info.value.field == "needles"
    f.write_text("{oops\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_source(f, "real-logical")
    assert info.value.line == 1


def test_source_checked_against_its_pipeline(tmp_path):
    """An official diary QA file given as the real-temporal source is refused, naming the record's ppl; an
    official benchmark file given as a source is refused too (before: it became real-temporal samples)."""
    import random

    diary = synth.synthetic_temporal_qa(random.Random(3), "en", 4)
    f = tmp_path / "QA_en.jsonl"
    f.write_text(json.dumps(diary) + "\n", encoding="utf-8")
    for pipeline in ("real-temporal", "real-logical"):
        with pytest.raises(DataError, match="'syn' .synthetic-temporal record.*takes") as info:
            load_source(f, pipeline)
        assert info.value.line == 1 and info.value.field == "meta.ppl"
    logical = {"question": "How?", "answer": "1. a\n2. b", "needles": ["a", "b"],
               "meta": {"source": "x", "ppl": "open", "lang": "en"}}
    f.write_text(json.dumps(logical) + "\n", encoding="utf-8")
    assert load_source(f, "real-logical")[0]["meta"]["ppl"] == "open"
    with pytest.raises(DataError, match="'open'.*real-temporal"):
        load_source(f, "real-temporal")
    f.write_text(json.dumps({"md5": "x", "input": "i", "output": "o", "text_with_needles": "t"}) + "\n",
                 encoding="utf-8")
    with pytest.raises(DataError, match="niah import seq-niah"):
        load_source(f, "real-temporal")


def test_real_temporal_relations_grouped_in_date_order(tmp_path):
    f = tmp_path / "rel.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in [
        ["Serbia", "Engage in negotiation", "Kosovo", "2018-03-01"],
        ["Serbia", "Express intent to cooperate", "Kosovo", "2018-01-16"],
        ["Serbia", "Defy norms, law", "Kosovo", "2018-03-27"],
    ]) + "\n", encoding="utf-8")
    (rec,) = load_source(f, "real-temporal")
    assert [r[3] for r in rec["meta"]["relation_list"]] == ["2018-01-16", "2018-03-01", "2018-03-27"]
    assert rec["needles"][0].startswith("On January 16, 2018, Serbia")
    assert "chronological order" in rec["question"]
    assert judge(rec["question"], rec["answer"], "\n".join(rec["needles"]))[0] == 1


def test_real_logical_build(tmp_path):
    src = tmp_path / "qa.jsonl"
    src.write_text(json.dumps({"question": "How do I make tea?", "lang": "en", "items": [
        "Boil fresh water in a kettle.", "Warm the teapot with a splash of hot water.",
        "Add one spoon of leaves per cup.", "Pour the water and steep for four minutes."]}) + "\n",
        encoding="utf-8")
    out = tmp_path / "ds"
    build_seq_niah(out, pipelines=("real-logical",), langs=("en",), lengths=("8k-16k",), needles="3-5",
                   per_cell=1, source=src, progress=False)
    (s,) = list(Dataset(out))
    assert s.task == "real-logical" and s.meta["order_required"] is True
    assert s.meta["items"][0] == "Boil fresh water in a kettle."
    assert get_tokenizer("cl100k_base").count(prompt_text(s)) == s.meta["length"]


def test_too_few_cut_points_is_an_error(tmp_path):
    corpus = tmp_path / "c"
    corpus.mkdir()
    # plenty of tokens but only a handful of periods: every drawn text is rejected (official rule: <= 80)
    (corpus / "a.txt").write_text(("word " * 40000).strip() + ". End.", encoding="utf-8")
    with pytest.raises(ConfigError, match="could not build"):
        build_seq_niah(tmp_path / "ds", langs=("en",), lengths=("8k-16k",), needles="3-5", per_cell=1,
                       corpus=f"textdir:{corpus}", progress=False)


def test_bytes_do_not_depend_on_the_hash_seed(tmp_path):
    import os
    import subprocess
    import sys

    code = ("import sys; from niah.benchmarks.seq_niah.build import build_seq_niah; "
            "build_seq_niah(sys.argv[1], langs=('zh',), lengths=('8k-16k',), needles='3-5', per_cell=1, seed=9, "
            "progress=False)")
    outs = []
    for h in ("1", "2"):
        out = tmp_path / f"h{h}"
        env = dict(os.environ, PYTHONHASHSEED=h)
        subprocess.run([sys.executable, "-c", code, str(out)], check=True, env=env)
        outs.append((out / "samples.jsonl").read_bytes())
    assert outs[0] == outs[1]


def test_llama2_sp_pool_counts_add_up_to_the_text():
    """SentencePiece adds a word-start piece to a text of its own: the pool counts each paragraph after a line
    break, so the counts of consecutive paragraphs add up to the whole text (before: each counted alone, the sum
    drifted a token per paragraph and 64K-128K llama2-sp builds aborted with no exact tail)."""
    from niah.benchmarks.seq_niah.build import LongTextPool
    from niah.corpus import load_corpus
    from niah.tokens import get_tokenizer

    tok = get_tokenizer("llama2-sp")
    for lang in ("en", "zh"):
        pool = LongTextPool.build(load_corpus("default", lang=lang, seed=0), tok, lang)
        units = pool.units[1:200]
        assert int(pool.unit_tokens[1:200].sum()) == tok.count(pool.units[0] + "".join(units)) - tok.count(
            pool.units[0]), lang


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "llama2-sp"])
def test_needles_continuing_a_line_keep_lengths_and_depths_exact(tmp_path, tokenizer):
    """A needle that continues a line after a space tokenizes with it (``" Diary"`` is one cl100k token,
    ``"▁Diary"`` one SentencePiece piece), unlike one after a line break: the length the build claims is still
    the count of the whole input re-tokenized, and each depth is the tokens of the input before the needle (the
    joining space counted with the needle), at a token boundary of the whole input."""
    out = tmp_path / "ds"
    build_seq_niah(out, langs=("en", "zh"), lengths=("8k-16k",), needles="6-10", per_cell=1, seed=3,
                   tokenizer=tokenizer, progress=False)
    tok = get_tokenizer(tokenizer)
    joined = 0
    for s in Dataset(out):
        text = prompt_text(s)
        length = s.meta["length"]
        assert tok.count(text) == length and s.meta["tokenizer"] == tok.name
        for n in s.meta["needles"]:
            space = n["before"] == " "
            joined += space
            split = n["offset"] - (1 if space else 0)
            before = tok.count(text[:split])
            assert round(before / length, 6) == n["depth"], (n["before"], n["text"][:30])
            if tokenizer == "cl100k_base":  # a token boundary of the whole input (SentencePiece would add a
                assert before + tok.count(text[split:]) == length  # word-start piece to the second half)
    assert joined  # some needles do continue a line after a space


def test_diary_needles_break_lines_only_as_the_corpus_does(tmp_path):
    """A diary needle sets its title or date on a line of its own a quarter of the time, as often as titles and
    headings stand among the embedded corpus's lines; a corpus of plain prose has no such line, so there its
    needles never break one (before: every short line without a full stop in its haystacks was a needle's, the
    audit's whitespace finder read 41.2 against 2.0). The embedded corpus keeps the full share (its builds are
    unchanged)."""
    import random

    from niah.benchmarks.seq_niah.build import LongTextPool
    from niah.corpus import load_corpus

    tok = get_tokenizer("cl100k_base")
    for lang in ("en", "zh"):
        embedded = LongTextPool.build(load_corpus("default", lang=lang, seed=0), tok, lang)
        assert synth.line_break_share(lang, embedded.bare_lines) == synth.LINE_BREAK_SHARE[lang]
    corpus = tmp_path / "prose"
    corpus.mkdir()
    (corpus / "a.txt").write_text("\n\n".join("The river ran high. Boats stayed in. Nobody minded." for _ in range(50)),
                                  encoding="utf-8")
    prose = LongTextPool.build(load_corpus(f"textdir:{corpus}", lang="en", seed=0), tok, "en")
    assert prose.bare_lines == 0.0 and synth.line_break_share("en", prose.bare_lines) == 0.0
    records = [synth.synthetic_temporal_qa(random.Random(k), "en", 6, 0.0) for k in range(40)]
    assert not any("\n" in needle for r in records for needle in r["needles"])
    broken = [synth.synthetic_temporal_qa(random.Random(k), "en", 6) for k in range(40)]
    assert any("\n" in needle for r in broken for needle in r["needles"])  # the default still breaks some
