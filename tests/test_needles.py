"""MM-NIAH text needle pools: sizes, validity of every shipped entry, and that validation rejects bad data."""

from __future__ import annotations

import dataclasses
import re

import pytest

from niah.benchmarks.mm_niah.needles import (
    COUNT_RANGE,
    REASONING_KINDS,
    CountingVariant,
    ReasoningTriple,
    RetrievalNeedle,
    load_counting_variants,
    load_reasoning_triples,
    load_retrieval_needles,
    parse_counting_variants,
    parse_reasoning_triples,
    parse_retrieval_needles,
)
from niah.util.errors import DataError


def whole_word(phrase: str, text: str) -> bool:
    """Independent of the module's own check: case-insensitive regex whole-word match."""
    return re.search(rf"\b{re.escape(phrase)}\b", text, re.IGNORECASE) is not None


# ---------------------------------------------------------------------------------------------- retrieval


def test_retrieval_pool_size_and_types() -> None:
    needles = load_retrieval_needles()
    assert len(needles) >= 40
    assert all(isinstance(n, RetrievalNeedle) for n in needles)
    assert len({n.id for n in needles}) == len(needles)
    assert len({n.needle for n in needles}) == len(needles)
    assert len({n.answer.lower() for n in needles}) == len(needles)


def test_retrieval_answers_are_stated_by_their_needle_and_not_by_the_question() -> None:
    for n in load_retrieval_needles():
        assert whole_word(n.answer, n.needle), n.id
        assert not whole_word(n.answer, n.question), n.id
        assert n.question.endswith("?"), n.id
        assert len(n.answer.split()) <= 3, n.id  # a word or short phrase


def test_retrieval_needles_are_frozen() -> None:
    needle = load_retrieval_needles()[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        needle.answer = "x"  # type: ignore[misc]


def test_retrieval_validation_rejects_answer_missing_from_needle() -> None:
    item = {"id": "x", "needle": "The cat sleeps on the red sofa.", "question": "Where does the cat sleep?",
            "answer": "blue sofa"}
    with pytest.raises(DataError, match="not stated in the needle") as info:
        parse_retrieval_needles("pool.json", [item])
    assert info.value.field == "answer" and info.value.file == "pool.json"


def test_retrieval_validation_rejects_partial_word_match() -> None:
    item = {"id": "x", "needle": "The cat likes oaks.", "question": "What does the cat like?", "answer": "oak"}
    with pytest.raises(DataError):
        parse_retrieval_needles("pool.json", [item])


def test_retrieval_validation_rejects_answer_given_away_by_question() -> None:
    item = {"id": "x", "needle": "The cat sleeps on the red sofa.",
            "question": "Does the cat sleep on the red sofa?", "answer": "red sofa"}
    with pytest.raises(DataError, match="gives the answer"):
        parse_retrieval_needles("pool.json", [item])


def test_retrieval_validation_accepts_number_word_and_rejects_duplicate_ids() -> None:
    good = {"id": "x", "needle": "The bell rang seven times.", "question": "How often did the bell ring?",
            "answer": "7"}
    assert parse_retrieval_needles("p", [good])[0].answer == "7"
    other = dict(good, answer="bell", question="What rang seven times?", needle="The bell rang seven times!")
    with pytest.raises(DataError, match="duplicate id"):
        parse_retrieval_needles("p", [good, other])


def test_retrieval_validation_requires_fields() -> None:
    with pytest.raises(DataError) as info:
        parse_retrieval_needles("p", [{"id": "x", "needle": "A b.", "question": "Q?"}])
    assert info.value.field == "answer"


# ---------------------------------------------------------------------------------------------- counting


def test_counting_pool_size_and_rendering() -> None:
    variants = load_counting_variants()
    assert len(variants) >= 12
    assert all(isinstance(v, CountingVariant) for v in variants)
    assert len({v.template for v in variants}) == len(variants)
    low, high = COUNT_RANGE
    assert (low, high) == (1, 10)
    for v in variants:
        assert "little penguin" in v.template
        assert "list" in v.question.lower() and "penguin" in v.question
        for n in range(low, high + 1):
            text = v.render(n)
            assert re.findall(r"\d+", text) == [str(n)], (v.id, text)
            assert "{" not in text
        assert v.render(1) == v.template_one.format(n=1)
        assert v.render(2) == v.template.format(n=2)


@pytest.mark.parametrize("bad", [0, 11, -1, 2.0, True, "3"])
def test_counting_render_rejects_out_of_range(bad: object) -> None:
    with pytest.raises(ValueError):
        load_counting_variants()[0].render(bad)  # type: ignore[arg-type]


def test_counting_validation_rejects_bad_templates() -> None:
    base = {"id": "c", "template": "The penguin counted {n} stones.", "template_one": "The penguin counted {n} stone.",
            "question": "How many stones? List them."}
    assert parse_counting_variants("p", [base])[0].render(4) == "The penguin counted 4 stones."
    for key, value in (("template", "The penguin counted stones."), ("template", "{n} and {n}"),
                       ("template_one", "The penguin counted {m} stone.")):
        with pytest.raises(DataError) as info:
            parse_counting_variants("p", [dict(base, **{key: value})])
        assert info.value.field == key


# --------------------------------------------------------------------------------------------- reasoning


def test_reasoning_pool_size_and_mix() -> None:
    triples = load_reasoning_triples()
    assert len(triples) >= 50
    assert all(isinstance(t, ReasoningTriple) for t in triples)
    assert len({t.id for t in triples}) == len(triples)
    assert {t.kind for t in triples} == set(REASONING_KINDS)
    with_choices = [t for t in triples if t.choices is not None]
    assert 10 <= len(with_choices) < len(triples)  # both forms are present
    assert len({t.answer for t in with_choices}) >= 3  # correct option position varies


def test_reasoning_triples_are_well_formed() -> None:
    for t in load_reasoning_triples():
        assert len(t.needles) == 3 and len(set(t.needles)) == 3, t.id
        assert all(s.endswith(".") for s in t.needles), t.id
        assert t.question.endswith("?"), t.id
        if t.choices is None:
            assert isinstance(t.answer, str) and t.answer.strip(), t.id
            assert not whole_word(t.answer, t.question), t.id
            assert t.answer_text == t.answer
        else:
            assert len(t.choices) == 4 and len({c.lower() for c in t.choices}) == 4, t.id
            assert isinstance(t.answer, int) and 0 <= t.answer < 4, t.id
            assert t.answer_text == t.choices[t.answer]


def test_reasoning_non_numeric_answers_come_from_the_statements() -> None:
    """Names, colours and places in answers must be introduced by the needles (days and months may be derived)."""
    derived = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January",
               "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"}
    for t in load_reasoning_triples():
        answer = t.answer_text
        if answer.isdigit() or answer in derived:
            continue
        assert whole_word(answer, " ".join(t.needles)), t.id


def test_reasoning_arithmetic_answers_spot_check() -> None:
    by_question = {t.question: t.answer_text for t in load_reasoning_triples()}
    assert by_question["How many stamps does Fridolin have?"] == "11"  # 2 * 4 + 3
    assert by_question["How old is Wilhelmina?"] == "62"  # 4 + 28 + 30
    assert by_question["How many great-grandchildren does Umberto have?"] == "6"  # 3 * 2 * 1


def test_reasoning_validation_rejects_bad_items() -> None:
    base = {"id": "r", "kind": "logic", "needles": ["A is B.", "B is C.", "C is D."],
            "question": "What is A ultimately?", "choices": None, "answer": "D"}
    assert parse_reasoning_triples("p", [base])[0].answer == "D"
    cases = [
        ({"needles": ["A is B.", "B is C."]}, "needles"),
        ({"needles": ["A is B.", "A is B.", "C is D."]}, "needles"),
        ({"kind": "astrology"}, "kind"),
        ({"answer": 1}, "answer"),
        ({"question": "Is A ultimately D?"}, "question"),
        ({"choices": ["B", "C", "D"], "answer": 2}, "choices"),
        ({"choices": ["B", "C", "D", "d"], "answer": 2}, "choices"),
        ({"choices": ["B", "C", "D", "E"], "answer": 4}, "answer"),
        ({"choices": ["B", "C", "D", "E"], "answer": "D"}, "answer"),
        ({"choices": ["B", "C", "D", "E"], "answer": True}, "answer"),
    ]
    for change, field in cases:
        with pytest.raises(DataError) as info:
            parse_reasoning_triples("p", [dict(base, **change)])
        assert info.value.field == field, change


def test_pools_share_no_ids() -> None:
    ids = [n.id for n in load_retrieval_needles()] + [v.id for v in load_counting_variants()]
    ids += [t.id for t in load_reasoning_triples()]
    assert len(ids) == len(set(ids))
