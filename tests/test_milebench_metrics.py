"""MileBench official per-sample rules: process, needle, substring, multiple choice, ROUGE-L."""

import pytest
from rouge import Rouge

from niah.benchmarks.milebench.metrics import (
    match_choice,
    option_letters,
    process,
    score_multi_choice,
    score_needle,
    score_rouge_l,
    score_substring,
)
from niah.scoring.metrics.base import MetricInputError
from niah.scoring.metrics.rouge import rouge_l

OPTIONS = ["a red car", "a blue bus", "a green tram", "a bike"]


def test_process_keeps_colons_and_apostrophes_and_strips_quotes():
    assert process(" 'It's 10:30 (roughly).'\n") == "it's 10:30 roughly"


def test_needle_is_a_whitespace_token_match():
    assert score_needle("oak", "The password is oak.") == 1.0
    assert score_needle("oak", "oaks") == 0.0
    assert score_substring("oak", "oaks") == 1.0  # MMCoQA's substring rule


def test_multi_choice_answer_is_b_yields_ab_and_scores_zero():
    options = {k: process(v) for k, v in zip("ABCD", OPTIONS, strict=True)}
    assert match_choice(process("The answer is B"), options) == "AB"
    assert score_multi_choice("a blue bus", "The answer is B", OPTIONS) == 0.0


def test_multi_choice_forms_that_match():
    assert score_multi_choice("a blue bus", "B", OPTIONS) == 1.0
    assert score_multi_choice("a blue bus", "B. a blue bus", OPTIONS) == 1.0
    assert score_multi_choice("a blue bus", "I saw a blue bus there", OPTIONS) == 1.0


def test_empty_prediction_means_option_c():
    assert score_multi_choice("a green tram", "", OPTIONS) == 1.0
    assert score_multi_choice("a green tram", "!!!", OPTIONS) == 1.0  # empty after processing
    assert score_multi_choice("a blue bus", "", OPTIONS) == 0.0
    # a failed request is not an empty prediction
    assert score_multi_choice("a green tram", None, OPTIONS) == 0.0


def test_gpr1200_without_letters_matches_option_text():
    options = ["golden retriever", "tabby cat", "gray whale"]
    assert score_multi_choice("tabby cat", "tabby cat", options) == 1.0
    assert score_multi_choice("tabby cat", "gray whale", options) == 0.0


def test_option_keys_beyond_z_are_aa_then_ba():
    letters = option_letters(54)
    assert letters[25] == "Z" and letters[26] == "AA" and letters[51] == "AZ" and letters[52:] == ["BA", "BB"]


def test_two_letter_keys_match_a_two_character_prediction():
    options = [f"option {i}" for i in range(30)]
    # gold index 27 has key "AB"; a bare "ab" (processed, so lower case) names it
    assert score_multi_choice("option 27", "ab", options) == 1.0
    assert score_multi_choice("option 27", "AB", options) == 1.0
    assert score_multi_choice("option 1", "b", options) == 1.0


def test_gold_must_be_an_option():
    with pytest.raises(MetricInputError) as info:
        score_multi_choice("a taxi", "A", OPTIONS)
    assert info.value.field == "answer"


def test_rouge_l_hand_computed():
    # reference words {the, cat, sat, on, mat} (5 distinct), hypothesis {the, cat, on, mat} (4 distinct)
    # LCS words: the cat on the mat -> distinct set {the, cat, on, mat} = 4; R = 4/5, P = 4/4
    score = rouge_l("the cat on the mat", "the cat sat on the mat")
    assert score.r == pytest.approx(0.8) and score.p == pytest.approx(1.0)
    assert score.f == pytest.approx(2 * 0.8 / 1.8, abs=1e-7)


def test_rouge_l_union_across_sentences_counts_each_word_once():
    # two reference sentences share "cat"; the union set holds it once
    assert rouge_l("cat dog", "cat. cat dog").r == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("hypothesis", "reference"),
    [
        ("a b c d e", "a c e b d"),
        ("the cat. the dog barked. a cat", "a dog. the cat sat on the cat mat"),
        ("x y x y x", "y x y"),
        ("one.  . two three", "two. one three three"),
        ("solo", "completely different words here"),
    ],
)
def test_rouge_l_equals_the_rouge_package(hypothesis, reference):
    expected = Rouge().get_scores(hypothesis, reference)[0]["rouge-l"]
    got = rouge_l(hypothesis, reference)
    assert (got.f, got.p, got.r) == (expected["f"], expected["p"], expected["r"])


def test_score_rouge_l_processes_and_handles_empty():
    assert score_rouge_l("A red car.", "a RED car") == pytest.approx(1.0, abs=1e-7)
    assert score_rouge_l("a red car", "...") == 0.0
    assert score_rouge_l("a red car", None) == 0.0
    with pytest.raises(MetricInputError):
        score_rouge_l("!!!", "x")


@pytest.mark.parametrize("gold", [".", "  ", "'\"'", "?!"])
@pytest.mark.parametrize("rule", [score_needle, score_substring, score_rouge_l])
def test_a_gold_empty_after_processing_is_refused_by_every_rule(rule, gold) -> None:
    """Substring matching would give it 1 for any reply, the token rule 0: neither says anything."""
    with pytest.raises(MetricInputError, match="gold answer is empty after processing"):
        rule(gold, "any reply at all")
