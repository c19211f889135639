"""Issue 44, item 15 (matchers): niah's own rules do not score a negated mention as the answer; the official
rules keep their quirks."""

from __future__ import annotations

import pytest

from niah.benchmarks.mm_niah.metrics import score_mm_niah_lenient, score_mm_niah_official
from niah.benchmarks.video_niah.score import contains_words, count_match
from niah.metrics.negation import negated_at


@pytest.mark.parametrize(("gold", "reply", "expected"), [
    (3, "not 3", 0.0), (3, "It is not 3.", 0.0), (3, "I don't think it's 3", 0.0), (3, "3", 1.0),
    (3, "There are 3.", 1.0), (4, "Not 3 but 4", 1.0), (3, "3, not 4", 1.0), (3, "It is not 4, it is 3", 1.0),
    (3, "three, not four", 1.0), (3, "never three", 0.0),
])
def test_video_niah_count_ignores_negated_numbers(gold: int, reply: str, expected: float) -> None:
    assert count_match(gold, reply) == expected


@pytest.mark.parametrize(("reply", "expected"), [
    ("not tangerine", 0.0), ("It is definitely not a tangerine.", 0.0), ("tangerine", 1.0),
    ("It was a tangerine, not an apple.", 1.0), ("An apple, not a tangerine.", 0.0),
    ("Rather than tangerine, apple.", 0.0),
])
def test_video_niah_contains_ignores_negated_mentions(reply: str, expected: float) -> None:
    assert contains_words("tangerine", reply, ["tangerine", "apple", "plum"]) == expected


def test_mm_niah_lenient_refuses_a_negated_gold_and_the_official_rule_keeps_its_quirk() -> None:
    reply = "It is definitely NOT terracotta"
    assert score_mm_niah_official("terracotta", reply) == 1.0  # the official substring rule, as published
    assert score_mm_niah_lenient("terracotta", reply) == 0.0
    assert score_mm_niah_lenient("terracotta", "I'm not sure, but it is terracotta.") == 1.0
    assert score_mm_niah_lenient("terracotta", "terracotta") == 1.0


def test_negation_is_local_to_its_clause() -> None:
    text = "it is not blue; it is red"
    assert negated_at(text, text.index("blue")) and not negated_at(text, text.index("red"))
