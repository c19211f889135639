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
from niah.scoring.judges import JudgeParseError

OPTIONS = ["the apartment, then the cafeteria", "the cafeteria, then the apartment", "the store, then the lab",
           "the lab, then the store", "the roof, then the car", "I don't know"]


# 34 judge replies and what the official scripts make of them (None: the item is skipped as unparsed).
# v1 (GPT4_MCQ.py / GPT4_score.py): fences, "python" and newlines removed, a Python literal, int(value).
# v2 (eval_script.py): a Python literal of the reply as written, a dict with both fields, isinstance(int)
# (so True is 1) and 0 <= score <= 10.
OFFICIAL_READINGS: list[tuple[str, str, int | None]] = [
    ("v1-decision", "{'decision': 2}", 2),
    ("v1-decision", '{"decision": 0}', 0),
    ("v1-decision", "```python\n{'decision': 5}\n```", 5),
    ("v1-decision", "{'decision': '3'}", 3),  # a digit string: int()
    ("v1-decision", "{'decision': 4.9}", 4),  # integer part
    ("v1-decision", "{'decision': True}", 1),  # int(True)
    ("v1-decision", "{'decision': -1}", -1),  # an option no answer has: counted wrong, not skipped
    ("v1-decision", "{'decision': 'two'}", None),
    ("v1-decision", "{'decision': None}", None),
    ("v1-decision", "2", None),  # not a dictionary
    ("v1-decision", "[2]", None),
    ("v1-decision", "decision: 2", None),
    ("v1-score", "{'score': 4}", 4),
    ("v1-score", "{'score': 3.7}", 3),  # the integer part, not rounding
    ("v1-score", "{'score': '5'}", 5),
    ("v1-score", "```\n{'score': 0}\n```", 0),
    ("v1-score", "{'score': 7}", 7),  # no range check
    ("v1-score", "{'score': False}", 0),  # int(False)
    ("v1-score", "{'score': '3.5'}", None),
    ("v1-score", "Score: 4", None),
    ("v1-score", "{'score': [4]}", None),
    ("v1-score", "{'rating': 4}", None),
    ("v2-score", '{"score": 7, "justification": "Close, misses the setting."}', 7),
    ("v2-score", '{"score": 0, "justification": "Wrong."}', 0),
    ("v2-score", '{\n  "score": 10,\n  "justification": "Same meaning."\n}', 10),
    ("v2-score", '```\n{"score": 8, "justification": "Good."}\n```', None),  # no fence removal in v2
    ("v2-score", '{"score": True, "justification": "x"}', 1),  # isinstance(True, int)
    ("v2-score", '{"score": 11, "justification": "x"}', None),  # out of range
    ("v2-score", '{"score": -1, "justification": "x"}', None),
    ("v2-score", '{"score": 7.5, "justification": "x"}', None),  # not an integer
    ("v2-score", '{"score": "7", "justification": "x"}', None),
    ("v2-score", '{"score": 7}', None),  # justification missing
    ("v2-score", '{"score": 7, "justification": null}', None),  # JSON null is not a Python literal
    ("v2-score", "7/10", None),
]
PARSERS = {"v1-decision": parse_v1_decision, "v1-score": parse_v1_score, "v2-score": parse_v2_score}


def read_as_niah(kind: str, reply: str) -> int | None:
    try:
        return int(PARSERS[kind](reply))
    except JudgeParseError:
        return None


def test_the_reading_table() -> None:
    assert len(OFFICIAL_READINGS) == 34
    assert sum(read_as_niah(k, r) == v for k, r, v in OFFICIAL_READINGS) == 34


@pytest.mark.parametrize("kind, reply, official", OFFICIAL_READINGS, ids=[r for _, r, _ in OFFICIAL_READINGS])
def test_judge_replies_read_as_officially(kind: str, reply: str, official: int | None) -> None:
    assert read_as_niah(kind, reply) == official


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


def test_v2_judge_settings_are_the_official_ones() -> None:
    from niah.benchmarks.infinibench.judging import V2_JUDGE_ATTEMPTS, V2_JUDGE_GENERATION

    assert V2_JUDGE_ATTEMPTS == 4  # the first request and 3 retries
    assert dict(V2_JUDGE_GENERATION.extra) == {"response_format": {"type": "json_object"}}
    assert (V2_JUDGE_GENERATION.temperature, V2_JUDGE_GENERATION.max_tokens) == (0.1, 500)
