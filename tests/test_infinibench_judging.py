"""InfiniBench v1 and v2 judge reply parsing (official quirks included) and per-item MCQ outcomes."""

from __future__ import annotations

import pytest

from niah.benchmarks.infinibench.judging import (
    V1_MCQ_TEMPLATE,
    V2_JUDGE_GENERATION,
    mcq_outcome,
    needs_judge,
    options_listing,
    parse_v1_decision,
    parse_v1_score,
    parse_v2_score,
)
from niah.judges import JudgeParseError

OPTIONS = ["the apartment, then the cafeteria", "the cafeteria, then the apartment", "the store, then the lab",
           "the lab, then the store", "the roof, then the car", "I don't know"]


@pytest.mark.parametrize("reply, value", [
    ("{'decision': 2}", 2),
    ('{"decision": 0}', 0),
    ("```python\n{'decision': 5}\n```", 5),
    ("{'decision': '3'}", 3),  # a digit string: int() as the official code
    ("{'decision': 4.9}", 4),  # integer part
])
def test_v1_decision_parses(reply: str, value: int) -> None:
    assert parse_v1_decision(reply) == value


@pytest.mark.parametrize("reply", [
    "2", "decision: 2", "{'choice': 2}", "{'decision': 'two'}", "{'decision': True}", "{'decision': -1}",
    "{'decision': None}", "[2]", "",
])
def test_v1_decision_unparseable(reply: str) -> None:
    with pytest.raises(JudgeParseError):
        parse_v1_decision(reply)


@pytest.mark.parametrize("reply, value", [
    ("{'score': 4}", 4),
    ("{'score': 3.7}", 3),  # the integer part, not rounding
    ("{'score': '5'}", 5),
    ("```\n{'score': 0}\n```", 0),
    ("{'score': 7}", 7),  # no range check in the official v1 code
])
def test_v1_score_parses(reply: str, value: int) -> None:
    assert parse_v1_score(reply) == value


@pytest.mark.parametrize("reply", ["{'score': '3.5'}", "Score: 4", "{'score': [4]}", "{'rating': 4}", "four"])
def test_v1_score_unparseable(reply: str) -> None:
    with pytest.raises(JudgeParseError):
        parse_v1_score(reply)


@pytest.mark.parametrize("reply, value", [
    ('{"score": 7, "justification": "Close, misses the setting."}', 7),
    ('{"score": 0, "justification": "Wrong."}', 0),
    ('{\n  "score": 10,\n  "justification": "Same meaning."\n}', 10),
])
def test_v2_score_parses(reply: str, value: int) -> None:
    assert parse_v2_score(reply) == value


@pytest.mark.parametrize("reply", [
    '{"score": 11, "justification": "x"}',  # out of range
    '{"score": -1, "justification": "x"}',
    '{"score": 7.5, "justification": "x"}',  # not an integer
    '{"score": "7", "justification": "x"}',
    '{"score": 7}',  # justification missing
    '{"score": 7, "justification": null}',  # JSON null is not a Python literal (official quirk)
    "7/10",
])
def test_v2_score_failures(reply: str) -> None:
    with pytest.raises(JudgeParseError):
        parse_v2_score(reply)


def test_v2_judge_settings() -> None:
    assert V2_JUDGE_GENERATION.temperature == 0.1


def test_options_listing_and_mcq_template() -> None:
    listing = options_listing(OPTIONS[:2])
    assert listing == "option 0 : the apartment, then the cafeteria\noption 1 : the cafeteria, then the apartment"
    prompt = V1_MCQ_TEMPLATE.render("Q?\n" + listing, "", "it was the cafeteria first")
    text = prompt.parts[0].text  # type: ignore[union-attr]
    assert "option 1 : the cafeteria" in text and "{'decision': 2}" in text and "it was the cafeteria" in text


def test_mcq_outcomes_v1() -> None:
    # rules decide: no judge call
    assert not needs_judge(OPTIONS, "B", protocol="v1")
    out = mcq_outcome(OPTIONS, 1, "B", protocol="v1")
    assert (out.choice, out.decided_by, out.correct, out.excluded) == (1, "rule:letter", True, False)
    # picking "I don't know" is a wrong answer, not an exclusion
    out = mcq_outcome(OPTIONS, 1, "I'm not sure", protocol="v1")
    assert (out.choice, out.correct, out.excluded) == (5, False, False)
    # undecided: the judge decides, or its unparseable reply excludes the item
    assert needs_judge(OPTIONS, "A or B", protocol="v1")
    out = mcq_outcome(OPTIONS, 1, "A or B", protocol="v1", judge_decision=1.0)
    assert (out.choice, out.decided_by, out.correct) == (1, "judge", True)
    out = mcq_outcome(OPTIONS, 1, "A or B", protocol="v1", judge_unparsed=True)
    assert (out.decided_by, out.correct, out.excluded) == ("judge-unparsed", False, True)
    with pytest.raises(ValueError):
        mcq_outcome(OPTIONS, 1, "A or B", protocol="v1")


def test_mcq_outcomes_v2() -> None:
    assert not needs_judge(OPTIONS, "A or B", protocol="v2")
    assert mcq_outcome(OPTIONS, 3, "(d)", protocol="v2").correct
    undecided = mcq_outcome(OPTIONS, 1, "A or B", protocol="v2")
    assert (undecided.choice, undecided.decided_by, undecided.correct, undecided.excluded) == (
        None, "undecided", False, False)
    missing = mcq_outcome(OPTIONS, 1, None, protocol="v2")
    assert (missing.decided_by, missing.correct, missing.excluded) == ("missing", False, False)
    with pytest.raises(ValueError):
        mcq_outcome(OPTIONS, 1, "B", protocol="v3")
