"""Sequential-NIAH layout: whitespace says nothing about where the needles are.

The old builder printed the haystack with blank lines only and each needle between single newlines, so a
regex on whitespace found nearly every needle; the next one gave each needle a line of its own, which half of
the haystack's sentences are not (they continue a line). Here a whitespace-only finder (per sample, the lines of
the whitespace class most needle-like over the other samples) must do no better than the needles' share of lines,
and the audit's finders over sentences and lines (their whitespace, their paragraph role) no better than chance.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections import Counter, defaultdict

import pytest

from niah.audit.dataset import AuditOptions, audit_dataset
from niah.benchmarks.registry import find_family
from niah.benchmarks.seq_niah.build import build_seq_niah, deal_needles, raw_text_of, sentence_frames
from niah.sample import Dataset


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("layout") / "ds"
    build_seq_niah(out, langs=("en", "zh"), lengths=("8k-16k",), needles="3-15", per_cell=2, seed=11, progress=False)
    return out


@pytest.fixture(scope="module")
def samples(built):
    return list(Dataset(built))


def _lines(sample):
    """(whitespace class, holds a needle) per line: the newline runs before and after it, and whether it starts
    or ends with a space."""
    text = sample.context[0].text
    spans = [(n["offset"], n["offset"] + len(n["text"])) for n in sample.meta["needles"]]
    out = []
    for m in re.finditer(r"[^\n]+", text):
        s, e = m.span()
        before = len(text[:s]) - len(text[:s].rstrip("\n"))
        after = len(text[e:]) - len(text[e:].lstrip("\n"))
        cls = (before, m.group()[:1] == " ", after, m.group()[-1:] == " ")
        out.append((cls, any(s < b and a < e for a, b in spans)))
    return out


def test_a_whitespace_finder_scores_at_chance(samples):
    per_sample = [_lines(s) for s in samples]
    totals: dict[tuple, Counter] = defaultdict(Counter)
    for lines in per_sample:
        for cls, needle in lines:
            totals[cls][needle] += 1
    hits, shares = [], []
    for lines in per_sample:
        own: dict[tuple, Counter] = defaultdict(Counter)
        for cls, needle in lines:
            own[cls][needle] += 1
        rate = {c: (totals[c][True] - own[c][True]) / max(1, sum(totals[c].values()) - sum(own[c].values()))
                for c in own}
        best = max(rate.values())
        picked = [needle for cls, needle in lines if rate[cls] == best]
        hits.append(sum(picked) / len(picked))
        shares.append(sum(needle for _, needle in lines) / len(lines))
    hit, share = 100 * sum(hits) / len(hits), 100 * sum(shares) / len(shares)
    assert hit <= share + 5, (hit, share)  # the old layout: 100 against a share of about 6


def test_gaps_before_needles_are_the_haystack_sentences_gaps(samples):
    gaps: Counter = Counter()
    for s in samples:
        text = s.context[0].text
        assert "\n\n\n" not in text and "\n " not in text  # no run or line start that only a needle makes
        haystack = {g for frame in sentence_frames(raw_text_of(s), s.meta["lang"]).values() for g in frame}
        for n in s.meta["needles"]:
            assert n["before"] in haystack and n["after"] == n["replaced"] == ""
            gaps["line" if "\n" in n["before"] else "inline"] += 1
            inner = n["text"]
            # a needle's own whitespace is what the haystack has: single spaces, and in Chinese none at all
            assert "  " not in inner and "\n\n\n" not in inner
            assert s.meta["lang"] == "en" or " " not in inner
    # some needles continue the line of the sentence before them, as most haystack sentences do, some start one
    # (how often each, sentence by sentence, is what the audit's skew below compares with the haystack)
    assert gaps["inline"] >= 5 and gaps["line"] >= 5, gaps


@pytest.mark.parametrize("probe", ["text-paragraph-role", "text-whitespace"])
def test_the_audits_layout_finders_score_at_chance(built, probe):
    """The audit's finder (per sample, the segments of the class most needle-like over the other samples) picks
    needles no more often than their share of segments, without the noise allowance (before: the paragraph role
    'alone' picked needles at about four times their share, every needle being a line of its own)."""
    report = audit_dataset(built, AuditOptions(), progress=False)
    (finder,) = [p for p in report.probes if p.probe == probe]
    assert finder.score <= finder.chance + 5, (finder.score, finder.chance, finder.detail)
    (skew,) = [p for p in report.probes if p.probe == f"{probe}-skew"]
    # the needles' sentences stand as the haystack's do: their classes no further from those of sentences
    # drawn at random than random draws themselves are (95th percentile), give or take the margin
    assert skew.score <= skew.chance + 5, (skew.score, skew.chance, skew.detail)


def test_needles_holding_line_breaks_take_the_slots_that_start_a_line():
    rng = random.Random(0)
    needles = ["A\nB.", "C.", "D\n\nE.", "F.", "G\nH."]
    befores = [" ", "\n", " ", "\n\n", " "]
    afters = ["\n", " ", " ", "\n", "\n"]
    for _ in range(20):
        dealt = deal_needles(needles, befores, afters, rng)
        assert sorted(dealt) == list(range(5))
        # two line starts for three line-holding needles: the third goes where the line continues after it
        assert {dealt[1], dealt[3]} <= {0, 2, 4} and dealt[2] in (0, 2, 4)
def test_audit_locates_every_needle_as_it_stands(samples):
    family = find_family("seq-niah")
    assert family is not None and family.audit is not None
    spec = family.audit()
    assert spec.locate is not None and spec.chance is not None
    for s in samples:
        spots = spec.locate(s)
        assert [spot.text for spot in spots] == [n["text"] for n in s.meta["needles"]]
        assert all(spot.kind == "text" and spot.text in s.context[0].text for spot in spots)
        assert spec.chance(s) == 0.0
    # files that carry meta.needles as a JSON string are read too
    first = samples[0]
    as_string = dataclasses.replace(first, meta={**first.meta, "needles": json.dumps(first.meta["needles"])})
    assert len(spec.locate(as_string)) == first.meta["num_needles"]
