"""The matcher on the tricky replies listed in docs/infinibench.md ("Matcher cases"): letters in brackets,
option text, two letters, negation, hedging, lower case, "none of them", an option inside another."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from niah.benchmarks.infinibench.matcher import match_option

DOC = Path(__file__).resolve().parents[1] / "docs" / "infinibench.md"
OPTIONS = {
    "characters": ["Leonard", "Sheldon", "Penny", "Howard", "Raj", "I don't know"],
    "stores": ["the store", "the comic book store", "the store room", "I don't know"],
    "yes/no": ["Yes", "No"],
}
ROW = re.compile(r"^\| (?P<options>[a-z/]+) \| `(?P<reply>.*)` \| (?P<decision>.+) \|$")


def _cases() -> list[tuple[str, str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Matcher cases", 1)[1].split("\n## ", 1)[0]
    rows = [ROW.match(line) for line in section.splitlines() if line.startswith("| ") and "`" in line]
    return [(m["options"], m["reply"].replace("\\|", "|"), m["decision"]) for m in rows if m]


CASES = _cases()


def test_the_table_is_long_enough() -> None:
    assert len(CASES) >= 60
    kinds = " ".join(d for _, _, d in CASES)
    for reason in ("hedged", "negated", "ambiguous", "none-of-them", "idk", "letter", "mention", "normalized",
                   "contrast"):
        assert reason in kinds


@pytest.mark.parametrize("options, reply, decision", CASES, ids=[r for _, r, _ in CASES])
def test_matcher_case(options: str, reply: str, decision: str) -> None:
    choice, rule = match_option(OPTIONS[options], reply)
    got = f"{'ABCDEFGH'[choice]} ({rule})" if choice is not None else f"undecided ({rule})"
    assert got == decision


@pytest.mark.parametrize("reply", ["I would say B, but I'm not sure", "Probably C, though I don't know for sure",
                                   "None of them; Leonard never appears"])
def test_the_issue_replies_go_to_the_judge(reply: str) -> None:
    # the three replies once decided wrongly ("I don't know", "I don't know", Leonard) are now undecided
    assert match_option(OPTIONS["characters"], reply)[0] is None


@pytest.mark.parametrize("reply", ["I'm not sure, but I think it's B", "Not sure, B", "Unsure: C",
                                   "I'm not certain, B"])
def test_unsure_of_a_named_option_is_not_i_dont_know(reply: str) -> None:
    # these once read as a decided "I don't know" (or, "not certain", as no match): they name an option, so the
    # judge decides them; saying unsure alone is still the abstention
    assert match_option(OPTIONS["characters"], reply) == (None, "hedged")
    assert match_option(OPTIONS["characters"], reply.split(",")[0].split(":")[0]) == (5, "idk")
