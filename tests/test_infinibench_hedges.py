"""Hedged replies (docs/infinibench.md, "Hedged replies"): a reply offering two or more options as alternatives
stays undecided, in every phrasing the table lists (letters, option numbers, option texts, mixed); a reply
naming a single option, "or" in the reply or inside the option's own text, is still decided."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from niah.benchmarks.infinibench.matcher import match_option, offers_alternatives
from support.cli import invoke_ok as _ok

DOC = Path(__file__).resolve().parents[1] / "docs" / "infinibench.md"
OPTIONS = {
    "characters": ["Leonard", "Sheldon", "Penny", "Howard", "Raj", "I don't know"],
    "stores": ["the store", "the comic book store", "the store room", "I don't know"],
    "yes/no": ["Yes", "No"],
    "weather": ["rain or snow", "sunshine", "fog", "hail", "I don't know"],
    "hours": ["1 hour", "2 hours", "3 hours", "I don't know"],
    "either": ["Leonard", "Penny", "Leonard or Penny", "I don't know"],
}
ROW = re.compile(r"^\| (?P<options>[a-z/]+) \| `(?P<reply>.*)` \| (?P<decision>.+) \|$")


def _rows() -> list[tuple[str, str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Hedged replies", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    rows = [ROW.match(line) for line in section.splitlines() if line.startswith("| ") and "`" in line]
    return [(m["options"], m["reply"].replace("\\|", "|"), m["decision"]) for m in rows if m]


ROWS = _rows()
HEDGES = [r for r in ROWS if r[2].startswith("undecided")]
SINGLE = [r for r in ROWS if not r[2].startswith("undecided")]


def test_the_table_holds_enough_hedges_in_several_phrasings() -> None:
    assert len(HEDGES) >= 30 and len(SINGLE) >= 20
    replies = [r for _, r, _ in HEDGES]
    assert {d for _, _, d in HEDGES} == {"undecided (ambiguous)"}
    # letters, option numbers and option texts; "or", "/", "|", "vs", "and/or", "between", "one of", "possible"
    assert sum(bool(re.fullmatch(r"\W*(?:[A-Za-z]\W+)*(?:or|and/or|vs)?\W*[A-Za-z]\W*", r)) for r in replies) >= 5
    assert sum(bool(re.search(r"\d", r)) for r in replies) >= 6
    assert sum(o in ("weather", "hours", "either", "stores") or "Leonard" in r for o, r, _ in HEDGES) >= 10
    for marker in (" or ", "/", "|", " vs ", "and/or", "between", "one of", "possible", "final answer"):
        assert any(marker in r.casefold() for r in replies), marker
    # the single-option rows cover options that contain "or" and replies that say "or" about something else
    assert sum(o in ("weather", "either") for o, _, _ in SINGLE) >= 8
    assert sum(" or " in r.casefold() for _, r, _ in SINGLE) >= 10


@pytest.mark.parametrize(("options", "reply", "decision"), ROWS, ids=[f"{o}:{r}" for o, r, _ in ROWS])
def test_hedge_table_row(options: str, reply: str, decision: str) -> None:
    choice, rule = match_option(OPTIONS[options], reply)
    got = f"{'ABCDEFGH'[choice]} ({rule})" if choice is not None else f"undecided ({rule})"
    assert got == decision
    # a committed choice is made after alternatives were offered
    assert offers_alternatives(OPTIONS[options], reply) == (decision.startswith("undecided")
                                                            or decision.endswith("(committed)"))


def test_the_zero_based_listing_reads_numbers_as_the_judge_prompt_shows_them() -> None:
    # under the official "option 0 : ..." listing, "option 0 or 2" is two options, "option 0, I think" one
    opts = OPTIONS["characters"]
    assert match_option(opts, "option 0 or 2", index_base=0) == (None, "ambiguous")
    assert match_option(opts, "option 0 or option 0", index_base=0) == (0, "mention")


def test_the_metric_rule_leaves_hedges_null(tmp_path: Path) -> None:
    rows = [{"options": OPTIONS["characters"], "response": "either A or B", "answer": 1},
            {"options": OPTIONS["weather"], "response": "It was rain or snow.", "answer": 0},
            {"options": OPTIONS["hours"], "response": "2 or 3 hours", "answer": 1}]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _ok(["metric", "infinibench/mcq-match", "--input", str(tmp_path / "in.jsonl"), "--out",
         str(tmp_path / "out.jsonl")])
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(r["choice"], r["rule"], r["score"]) for r in out] == [
        (None, "ambiguous", 0.0), (0, "mention", 1.0), (None, "ambiguous", 0.0)]
