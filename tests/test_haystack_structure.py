"""Haystacks print document structure as a web page reads after text extraction (titles and headings on lines
of their own, "- " and "1. " list items, blank lines between paragraphs), needles only ever stand inside plain
paragraphs, and document kinds are balanced; lengths stay exact and contexts still end on sentences."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from niah.benchmarks.mm_niah.corpus import DOC_SEPARATOR as OFFICIAL_DOC_SEPARATOR  # a family's own
from niah.build.haystack import (
    LIST_BULLET,
    LIST_NONE,
    LIST_NUMBERED,
    ImageSpec,
    NeedleSpec,
    PoolDocument,
    TextPool,
    assemble,
    pool_document,
    sweep_haystack,
)
from niah.corpus import load_corpus
from niah.corpus.base import CorpusDocument
from niah.corpus.embedded import _raw_documents
from niah.sample import Dataset, TextPart, parts_text
from niah.tokens import get_tokenizer

WORDS = ("river mountain village morning quiet market bridge lantern harvest winter story garden teacher "
         "music station 1987 3.25 don't e.g. Mr. naïve café (old) \"new\" well-known — ; : unquestionably").split()
ZH_CHARS = "我们去了公园天气很好山水城市老师学生音乐火车站春夏秋冬历史文化的是在有和人这中大为上个国"
NEEDLE = " The best thing to do in Nanjing is eating hot dry noodles."
ZH_NEEDLE = "小企鹅数了三根针。"
_MARKER = re.compile(r"^(?:- |\d+\. )")
_END = re.compile(r"[.!?。！？][\"'”’)\]）]*$")


def _sentence(rng: random.Random, lang: str) -> str:
    if lang == "zh":
        return "".join(rng.choice(ZH_CHARS) for _ in range(rng.randint(6, 40))) + rng.choice("。！？")
    s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
    return s[0].upper() + s[1:] + rng.choice([".", ".", "!", "?", '."', ".)"])


def _structured_docs(n_docs: int, lang: str = "en", seed: int = 0) -> list[PoolDocument]:
    """Documents with a title, sections under headings, bulleted and numbered lists between paragraphs."""
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        paragraphs: list[list[str]] = []
        headings: list[list[str]] = []
        lists: list[str] = []
        for section in range(rng.randint(1, 4)):
            head = [f"Section {section} of {rng.choice(WORDS)}"] if section else [f"Title {d} {rng.choice(WORDS)}"]
            for k in range(rng.randint(1, 3)):
                paragraphs.append([_sentence(rng, lang) for _ in range(rng.randint(1, 5))])
                headings.append(head if k == 0 else [])
                lists.append(LIST_NONE)
            if rng.random() < 0.6:
                style = rng.choice([LIST_BULLET, LIST_NUMBERED])
                for _ in range(rng.randint(2, 6)):
                    paragraphs.append([_sentence(rng, lang) for _ in range(rng.randint(1, 2))])
                    headings.append([])
                    lists.append(style)
        docs.append(PoolDocument(f"s{d}", paragraphs, headings=headings, lists=lists, group=f"g{d % 3}"))
    return docs


def _lines_around(text: str, at: int) -> tuple[str, str]:
    """(the line holding position ``at``, the nearest non-empty line above it)."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start: len(text) if end < 0 else end]
    above = [ln for ln in text[:start].split("\n") if ln.strip()]
    return line, (above[-1] if above else "")


def _heading_above(text: str, needle: str, start: int = 0) -> str:
    """The heading or title line right above the needle (its first occurrence from ``start``) when the needle
    opens a paragraph under one, else "" (the line above ends a sentence, is a document separator, or there
    is none). A heading after an official separator shares its line with the document before: only the part
    after the separator is returned."""
    at = text.index(needle.strip(), start)
    _line, above = _lines_around(text, at)
    opens = text[text.rfind("\n", 0, at) + 1: at].strip() == ""
    if not opens or not above or _END.search(above) or above.strip() in ("---", OFFICIAL_DOC_SEPARATOR):
        return ""
    return above.rsplit(OFFICIAL_DOC_SEPARATOR, 1)[-1]


def _assert_needle_in_a_paragraph(text: str, needle: str, start: int = 0) -> bool:
    """The needle (its first occurrence from ``start``) stands in a plain paragraph: its line is no list item
    and, when the needle opens that line under a heading or title, that line is printed whole right above it
    with one blank line between (never a list item). Returns whether the needle opens its paragraph."""
    at = text.index(needle.strip(), start)
    line, _above = _lines_around(text, at)
    assert not _MARKER.match(line), line[:80]
    opens = text[text.rfind("\n", 0, at) + 1: at].strip() == ""
    head = _heading_above(text, needle, start)
    if head:
        assert not _MARKER.match(head) and text[:at].endswith(head + "\n\n"), (head, line[:60])
    return opens


def test_structure_is_printed_numbered_and_kept_through_exclusions() -> None:
    doc = PoolDocument("d", [["Intro one.", "Intro two."], ["Step a."], ["Step b.", "More b."], ["Dropped."],
                             ["Step c."], ["Bullet."], ["Closing words."]],
                       headings=[["The title"], ["Method"], [], ["Later"], [], [], []],
                       lists=[LIST_NONE, LIST_NUMBERED, LIST_NUMBERED, LIST_NUMBERED, LIST_NUMBERED, LIST_BULLET,
                              LIST_NONE])
    pool = TextPool.build([doc], get_tokenizer("cl100k_base"), "en", exclude=("dropped",))
    text = pool.span_text(0, len(pool.units))
    # the excluded item's heading passes to the next item, which starts a new list at 1
    assert text == ("The title\n\nIntro one. Intro two.\n\nMethod\n\n1. Step a.\n2. Step b. More b.\n\n"
                    "Later\n\n1. Step c.\n- Bullet.\n\nClosing words." + pool.doc_separator)
    assert list(pool.struct_start) == [True, False, True, True, False, True, True, False]
    assert list(pool.in_list) == [False, False, True, True, True, True, True, False]
    # an excluded string is never printed in a heading either
    banned = PoolDocument("h", [["One."], ["Two."]], headings=[["Title"], ["The needle room"]])
    text = TextPool.build([banned], get_tokenizer("cl100k_base"), "en", exclude=("needle",)).text
    assert "needle" not in text and text.startswith("Title\n\nOne.\n\nTwo.")


def test_pool_document_renders_a_corpus_document() -> None:
    doc = CorpusDocument(id="x", lang="en", title="A walk", paragraphs=("Start here. Go on.", "Turn left.", "End."),
                         headings=((1, "Route"), (3, "Nothing under me")), kinds=("p", "ol", "p"),
                         title_in_text=True, genre="walk")
    pd = pool_document(doc)
    assert pd.paragraphs == [["Start here.", "Go on."], ["Turn left."], ["End."]]
    assert pd.headings == [["A walk"], ["Route"], []] and pd.lists == ["", "1.", ""] and pd.group == "walk"
    untitled = pool_document(CorpusDocument(id="y", lang="en", title="file_03", paragraphs=("Text.",)))
    assert untitled.headings == [] and untitled.lists == []  # a file name is not printed as a title


@pytest.mark.parametrize(("lang", "name"), [("en", "cl100k_base"), ("en", "o200k_base"), ("en", "llama2-sp"),
                                            ("zh", "cl100k_base"), ("zh", "llama2-sp")])
def test_structured_contexts_are_exact_and_end_on_sentences(lang: str, name: str) -> None:
    tok = get_tokenizer(name)
    pool = TextPool.build(_structured_docs(400, lang, seed=1), tok, lang, doc_separator=OFFICIAL_DOC_SEPARATOR)
    rng = np.random.default_rng(2)
    needle = NEEDLE if lang == "en" else ZH_NEEDLE
    targets = [int(t) for t in rng.integers(1000, 40000, 40)]
    ends = 0
    for target in targets:
        lay = assemble(pool, target, rng, images=[ImageSpec(300)] * 2,
                       needles=[NeedleSpec(needle, float(d)) for d in rng.uniform(0, 1, 3)])
        text = lay.text()
        assert tok.count(text) == lay.text_tokens == target - 600, (name, target)
        ends += lay.sentence_end
        if target > 8000:
            assert "\n1. " in text and "\n2. " in text and "\n- " in text and "\n\nSection " in text
        start = 0
        for _ in range(3):
            _assert_needle_in_a_paragraph(text, needle, start)
            start = text.index(needle.strip(), start) + 1
    assert ends / len(targets) >= 0.98


def test_needle_positions_in_a_paragraph_are_as_likely_as_chance() -> None:
    """Over many draws a needle stands as a paragraph of its own about as often as a plain paragraph's
    sentence does; otherwise it opens, continues or closes its paragraph about as often as a randomly chosen
    allowed position of a plain paragraph would (n sentences give n - 1 inner positions, one closing, and one
    opening, under a heading too: after its lines), so that "the paragraph's last sentence" is no cue; it
    never follows a list marker and never stands in a list. Opening a paragraph is a little rarer than
    its naive chance: where it would change the token count (the next sentence loses or gains a token
    without its leading space), that position is not allowed."""
    pool = TextPool.build(_structured_docs(300, seed=9), get_tokenizer("cl100k_base"), "en")
    rng = np.random.default_rng(8)
    got: Counter[str] = Counter()
    draws = 1000
    for _ in range(draws):
        lay = assemble(pool, 3000, rng, needles=[NeedleSpec(NEEDLE, float(rng.uniform(0.05, 0.95)))])
        text = lay.text()
        opens = _assert_needle_in_a_paragraph(text, NEEDLE)
        end = text.index(NEEDLE.strip()) + len(NEEDLE.strip())
        closes = text[end: end + 1] in ("\n", "")
        got["alone" if opens and closes else "open" if opens else "close" if closes else "inner"] += 1
    plain = ~pool.in_list
    assert 0.04 < pool.alone_share < 0.1  # these documents' paragraphs hold 1-5 sentences
    assert abs(got["alone"] / draws - pool.alone_share) <= 0.025, (got, pool.alone_share)  # 62 of 1000 vs 0.066
    positions = {"inner": int((plain & pool.lead_space).sum()), "close": int((plain & (pool.trail_kind > 0)).sum()),
                 "open": int((plain & ~pool.lead_space).sum())}
    chance = {k: v / sum(positions.values()) for k, v in positions.items()}
    share = {k: got[k] / (draws - got["alone"]) for k in positions}  # among the needles in a longer paragraph
    assert abs(share["close"] - chance["close"]) <= 0.04, (share, chance)  # was 0.40 vs 0.28
    assert abs(share["inner"] - chance["inner"]) <= 0.05, (share, chance)
    # a quarter of these openings would change the count (0.196 against 0.248; under headings too, which this
    # chance counts now); was 0.04 vs 0.14 when openings went uncounted, and 0 under headings
    assert chance["open"] - 0.07 <= share["open"] <= chance["open"] + 0.03, (share, chance)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama2-sp"])
def test_needles_open_paragraphs_under_headings(name: str) -> None:
    """A needle opens a plain paragraph under a heading or title as it opens any other: after the heading's
    lines, printed whole right above it with one blank line between, and before the paragraph's first
    sentence, which follows after a space. Contexts keep their exact length and a needle's recorded depth is
    the tokens before it (none opened a headed paragraph before)."""
    tok = get_tokenizer(name)
    docs = _structured_docs(300, seed=4)
    pool = TextPool.build(docs, tok, "en")
    heads = {h for d in docs for hs in d.headings for h in hs}
    firsts = {p[0] for d in docs for p, hs in zip(d.paragraphs, d.headings, strict=True) if hs}
    rng = np.random.default_rng(3)
    draws, headed = 300, 0
    for _ in range(draws):
        target = int(rng.integers(1500, 6000))
        lay = assemble(pool, target, rng, images=[ImageSpec(200)],
                       needles=[NeedleSpec(NEEDLE, float(rng.uniform(0.05, 0.95)))])
        text = lay.text()
        assert tok.count(text) == lay.text_tokens == target - 200, target
        _assert_needle_in_a_paragraph(text, NEEDLE)
        k = next(n for n, it in enumerate(lay.items) if it.kind == "needle")
        before = lay.items[:k]
        prefix = "".join(it.text for it in before if it.kind != "image")
        images = sum(it.tokens for it in before if it.kind == "image")
        assert tok.count(prefix) + images == round(lay.needle_depths[0] * target), target
        at = text.index(NEEDLE.strip())
        above = text[:at - 2].rsplit("\n", 1)[-1].rsplit("---", 1)[-1]  # a title follows a separator
        if text[:at].endswith("\n\n") and above in heads:
            headed += 1
            after = text[at + len(NEEDLE.strip()):]
            assert after.startswith(" ") and any(after[1:].startswith(f) for f in firsts), after[:60]
    # 17, 29 and 25 of 300 here on cl100k, o200k and llama2-sp; 9.8% of 2,000 draws on cl100k (opening a
    # paragraph under a heading is an eighth of the plain paragraphs' positions, and a quarter of those openings
    # would change the count); 0 before
    assert headed >= 0.03 * draws, headed


@pytest.mark.parametrize(("lang", "name"), [("en", "cl100k_base"), ("en", "llama2-sp"), ("zh", "cl100k_base")])
def test_images_stand_between_paragraphs(lang: str, name: str) -> None:
    """Images (spread ones and pinned ones) stand where a web page puts them: at the start of a paragraph or
    list, or after the last sentence of one, never inside a paragraph or between two list items; a needle
    closing a paragraph comes before the images there. Lengths stay exact and pinned depths in their windows."""
    tok = get_tokenizer(name)
    pool = TextPool.build(_structured_docs(300, lang, seed=3), tok, lang, doc_separator=OFFICIAL_DOC_SEPARATOR)
    rng = np.random.default_rng(6)
    needle = NEEDLE if lang == "en" else ZH_NEEDLE
    placed = 0
    for target in [int(t) for t in rng.integers(1500, 30000, 30)]:
        depth = float(rng.uniform(0.05, 0.95))
        window = (max(0.0, depth - 0.1), min(1.0, depth + 0.1))
        images = [ImageSpec(200) for _ in range(4)] + [ImageSpec(150, target_depth=depth, window=window)]
        lay = assemble(pool, target, rng, images=images,
                       needles=[NeedleSpec(needle, float(d)) for d in rng.uniform(0.05, 0.95, 2)])
        assert tok.count(lay.text()) == lay.text_tokens == target - 950, (name, target)
        before = ""
        for n, item in enumerate(lay.items):
            if item.kind == "image":
                at_end = all(i.kind == "image" for i in lay.items[n:])
                assert not before or at_end or before.endswith(("\n\n", OFFICIAL_DOC_SEPARATOR)), before[-80:]
                placed += 1
            else:
                before += item.text
        assert lay.images_off_boundary == 0
        pinned = [d for it, d in zip([i for i in lay.items if i.kind == "image"], lay.image_depths, strict=True)
                  if it.payload.target_depth is not None]
        assert window[0] <= pinned[0] <= window[1]
    assert placed == 150


def test_a_window_without_paragraph_boundaries_takes_a_sentence_boundary() -> None:
    """A needle image whose depth window holds no paragraph boundary goes to the sentence boundary nearest its
    target inside the window, and the layout counts it."""
    rng = random.Random(2)
    docs = [(f"d{i}", [_sentence(rng, "en") for _ in range(200)]) for i in range(40)]  # one long paragraph each
    pool = TextPool.build(docs, get_tokenizer("cl100k_base"), "en")
    gen = np.random.default_rng(1)
    lay = assemble(pool, 3000, gen, images=[ImageSpec(100, target_depth=0.5, window=(0.45, 0.55))])
    assert lay.images_off_boundary == 1 and 0.45 <= lay.image_depths[0] <= 0.55
    assert get_tokenizer("cl100k_base").count(lay.text()) == 2900
    # a window that holds a boundary (the context's start) uses it
    lay = assemble(pool, 3000, gen, images=[ImageSpec(100, target_depth=0.0, window=(0.0, 0.1))])
    assert lay.images_off_boundary == 0 and lay.image_depths == [0.0]


def test_sweep_slots_avoid_lists() -> None:
    pool = TextPool.build(_structured_docs(300, seed=4), get_tokenizer("cl100k_base"), "en")
    sweep = sweep_haystack(pool, 20000, np.random.default_rng(3), NEEDLE)
    for depth in np.linspace(0.01, 1.0, 60):
        text, _realized = sweep.with_needle(float(depth))
        line, _above = _lines_around(text, text.index(NEEDLE.strip()))
        assert not _MARKER.match(line)


def test_document_kinds_are_balanced_by_weight() -> None:
    """A kind with 9x the text of another fills about 3x as much of a haystack (weights tokens ** -0.5),
    not 9x; without kinds the order is a plain permutation."""
    rng = random.Random(0)
    docs = [PoolDocument(f"d{i}", [[_sentence(rng, "en") for _ in range(8)]], group="big" if i % 10 else "small")
            for i in range(1000)]
    pool = TextPool.build(docs, get_tokenizer("cl100k_base"), "en")
    assert pool.doc_weight is not None
    share_small = []
    gen = np.random.default_rng(5)
    small = np.array([d.group == "small" for d in docs])
    tok = pool.doc_tokens()
    for _ in range(200):
        first = pool.draw_order(gen)[:50]
        share_small.append(tok[first][small[first]].sum() / tok[first].sum())
    assert 0.2 < float(np.mean(share_small)) < 0.32  # sqrt(1/9) / (1 + sqrt(1/9)) = 0.25; unweighted 0.1
    plain = TextPool.build([(d.id, d.paragraphs) for d in docs], get_tokenizer("cl100k_base"), "en")
    assert plain.doc_weight is None
    assert list(plain.draw_order(np.random.default_rng(1))) == list(np.random.default_rng(1).permutation(1000))


def test_embedded_titles_are_shown_once() -> None:
    docs = list(load_corpus("default", lang="en").documents())
    shown = Counter(d.title for d in docs if d.title_in_text)
    assert set(shown.values()) == {1} and len(shown) == len({d.title for d in docs})


#: How far from its chance a needle opens, closes, or stands alone as a paragraph in the long run (seeds 5-12
#: of the build below, about 1,000 needles, MM-NIAH's needles placed like sentences: opening -0.002, closing
#: -0.025, alone -0.012; each position as likely, opening read +0.026 against its n + 1 position chance).
OPENING_EXCESS = -0.002
CLOSING_EXCESS = -0.025
ALONE_EXCESS = -0.012


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    from niah.benchmarks.mm_niah.build import BuildConfig
    from niah.benchmarks.mm_niah.cli import build_mm_niah

    out = tmp_path_factory.mktemp("structured") / "ds"
    cfg = BuildConfig(tasks=["retrieval-text", "counting-text", "reasoning-text"], lengths=["8k", "24k"],
                      depths=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0], per_cell=2, seed=5)
    build_mm_niah(cfg, out, progress=False)
    return out


def test_built_haystacks_print_titles_headings_and_lists(built: Path) -> None:
    titles = {r["title"] for r in _raw_documents("en")}
    headings = {h for r in _raw_documents("en") for _i, h in r.get("headings", ())}
    long_ones = numbered = 0
    for s in Dataset(built):
        if s.meta["context_length"] < 20000:
            continue
        long_ones += 1
        text = parts_text(s.context)
        lines = [ln for ln in text.split("\n") if ln.strip()]
        head_lines = [ln for ln in lines if not _MARKER.match(ln) and not _END.search(ln) and ln != "---"]
        # every line without end punctuation is a title or heading of the corpus, printed alone on its line
        assert set(head_lines) <= titles | headings, set(head_lines) - titles - headings
        assert sum(ln in titles for ln in head_lines) >= 3 and sum(ln in headings for ln in head_lines) >= 3
        assert any(ln.startswith("- ") for ln in lines)
        numbered += bool(re.search(r"\n1\. [^\n]+\n2\. ", text))  # a numbered list counts up, one item a line
        assert "\n\n---\n\n" in text and "\n\n" in text.replace("\n\n---\n\n", "")
    # Numbered steps come from the few how-tos and recipes (about 2% of the documents), so a 24K haystack of
    # a dozen documents now and then has none; nearly all of them do.
    assert long_ones >= 20 and numbered >= 0.9 * long_ones, (numbered, long_ones)


def test_built_needles_sit_in_paragraphs_and_contexts_end_on_sentences(built: Path) -> None:
    """Needles of every text task stand in plain paragraphs, alone about as often as the haystack's plain
    paragraph sentences do, and otherwise open (under a heading or title too: after its lines, printed whole)
    and close one about as often as a sentence of a plain paragraph does (MM-NIAH places them like sentences:
    ``assemble(like_sentences=True)``), images stand between paragraphs, and contexts end on sentences."""
    titles = {r["title"] for r in _raw_documents("en")}
    headings = {h for r in _raw_documents("en") for _i, h in r.get("headings", ())}
    sentence_gap = re.compile(r"[.!?][\"')]* (?=[A-Z0-9\"'(])")
    opens = closes = total = ends = samples = alone = headed = 0
    open_positions = close_positions = positions = sentences = alone_sentences = 0
    # per sample: needles opening, closing, in a longer paragraph, alone
    per_sample: list[tuple[int, int, int, int]] = []
    for s in Dataset(built):
        before_sample = (opens, closes, total, alone)
        text = parts_text(s.context)
        samples += 1
        before = ""
        for n, part in enumerate(s.context):  # an image follows a paragraph break, or stands first or last
            if isinstance(part, TextPart):
                before += part.text
            elif before and any(isinstance(p, TextPart) and p.text for p in s.context[n:]):
                assert before.endswith(("\n\n", OFFICIAL_DOC_SEPARATOR)), before[-80:]
        ends += bool(_END.search(text.rstrip()))
        for needle in dict.fromkeys(s.meta["needles"]):
            opened = _assert_needle_in_a_paragraph(text, needle)
            head = _heading_above(text, needle)
            assert not head or head in titles | headings, head
            end = text.index(needle.strip()) + len(needle.strip())
            closed = text[end: end + 2] == "\n\n" or end == len(text.rstrip())
            if opened and closed:
                alone += 1
                continue
            opens += opened
            closes += closed
            headed += bool(head)
            total += 1
        per_sample.append((opens - before_sample[0], closes - before_sample[1], total - before_sample[2],
                           alone - before_sample[3]))
        blocks = text.split("\n\n")
        for block in blocks:  # plain paragraphs: n sentences weigh n positions, a lone one 2 (before, after)
            if block and "\n" not in block and not _MARKER.match(block) and _END.search(block):
                open_positions += 1
                close_positions += 1
                n = len(sentence_gap.findall(block)) + 1
                positions += max(n, 2)
                sentences += n
                alone_sentences += n == 1
    assert ends / samples >= 0.98
    chance, close_chance = open_positions / positions, close_positions / positions
    # Each share within 3.5 standard errors of where the long run sits. The error is this build's own, its
    # needles clustered by sample (a sample's needles share one haystack: counting-text's statements often
    # open or skip openings together), 0.038-0.049 for opening and closing on these 122-133 needles; seeds
    # 5-12 lie -1.3 .. 1.4 errors from the opening centre, -0.9 .. 1.2 from the closing one, -1.7 .. 1.0
    # from the alone one (the half error beyond 3 allows for an error estimated from one build). A fixed band around chance was seed-lucky. The centres are measured, not assumed: over
    # seeds 5-12 (1,009 needles, placed like sentences) opening read -0.051 .. +0.060 against its chance
    # (each position as likely, it read 0.342 against 0.316, and a band centred on chance failed seeds 6 and
    # 10 on luck). Before a needle refused an opening that would change the
    # count tried other openings first (haystack.KIND_TRIES), opening sat 0.04-0.08 below chance (seeds 5-8:
    # 0.188, 0.352, 0.244, 0.317 with reasoning-text's decoys); the defect it guards read 0.115 against 0.22
    share = opens / total
    error = _clustered_error([(o, t) for o, _c, t, _a in per_sample], share)
    centre = chance + OPENING_EXCESS
    assert total >= 100 and abs(share - centre) <= 3.5 * error, (share, centre, error)
    # under a heading or title: 0.112 against 0.124 of the positions (none before; seeds 6-8: 0.104, 0.083, 0.135)
    assert headed / total >= 0.05, (headed, total)
    # closing: seeds 5-12 gave -0.020, -0.047, +0.033, -0.031, -0.047, -0.022, +0.001, -0.066 against chance
    # (each position as likely: +0.042, -0.055, -0.031, -0.031, -0.067, -0.030, -0.021, -0.009)
    # (before haystack.KIND_TRIES sent a refused opening to the nearest other openings, seeds 5-8 gave +0.107,
    # +0.046, +0.106, +0.023: refused openings went to closings)
    share = closes / total
    error = _clustered_error([(c, t) for _o, c, t, _a in per_sample], share)
    assert abs(share - (close_chance + CLOSING_EXCESS)) <= 3.5 * error, (share, close_chance, error)
    # alone against the plain paragraphs' sentences standing alone: seeds 5-12 gave -0.035, +0.012, -0.052,
    # +0.018, -0.005, -0.019, -0.007, -0.011 (0 of 144 needles stood alone before)
    share = alone / (alone + total)
    error = _clustered_error([(a, t + a) for _o, _c, t, a in per_sample], share)
    assert abs(share - (alone_sentences / sentences + ALONE_EXCESS)) <= 3.5 * error, (share, alone_sentences / sentences)


def _clustered_error(counts: list[tuple[int, int]], share: float) -> float:
    """The standard error of ``share`` = sum(hits) / sum(needles) over samples given as (hits, needles): the
    ratio estimator's, which counts a sample's needles together (they share one haystack)."""
    total = sum(n for _h, n in counts)
    return math.sqrt(sum((h - share * n) ** 2 for h, n in counts)) / total
