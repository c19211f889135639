"""MM-NIAH official per-sample rule and the lenient variant, one test per documented quirk."""

import pytest

from niah.benchmarks.mm_niah.metrics import score_mm_niah_lenient, score_mm_niah_official
from niah.scoring.metrics.base import MetricInputError

C = 2  # 0-based index of option C


@pytest.mark.parametrize("response", ["C", "C.", "**C**", "The answer is C.", "c", "..C..", "The answer is C"])
def test_multiple_choice_forms_the_official_parser_accepts(response):
    assert score_mm_niah_official(C, response) == 1.0


@pytest.mark.parametrize("response", ["(C)", "Answer: C", "C, because it is red", "C, because it is red.", "C)"])
def test_multiple_choice_forms_official_rejects_but_lenient_accepts(response):
    assert score_mm_niah_official(C, response) == 0.0
    assert score_mm_niah_lenient(C, response) == 1.0


def test_lenient_still_needs_the_right_letter():
    assert score_mm_niah_lenient(C, "(B)") == 0.0
    assert score_mm_niah_lenient(C, "Answer: D") == 0.0
    # "A cat" is not read as option A by the lenient rule
    assert score_mm_niah_lenient(0, "A cat sits on the mat") == 0.0


def test_lenient_agrees_with_official_when_official_decides():
    # official reads "B" (one letter); lenient must not override it with anything later in the text
    assert score_mm_niah_lenient(C, "B. Answer: C") == score_mm_niah_official(C, "B. Answer: C") == 0.0
    assert score_mm_niah_lenient(C, "none") == 0.0


def test_digit_response_is_a_zero_based_index():
    assert score_mm_niah_official(2, "2") == 1.0
    assert score_mm_niah_official(2, "3") == 0.0
    # digits are tested before any stripping of spaces: " 2" takes the letter path and fails
    assert score_mm_niah_official(2, " 2") == 0.0


def test_comma_removed_only_when_a_period_remains():
    # "c, d." -> before the first period "c, d" -> commas removed -> "c d" -> not one character
    assert score_mm_niah_official(C, "C, D.") == 0.0
    # without any period the comma stays and the text is not one character
    assert score_mm_niah_official(C, "C,") == 0.0
    # "c,. x" -> "c," -> comma removed -> "c"
    assert score_mm_niah_official(C, "C,. x") == 1.0


def test_camera_direction_maps_to_a_and_b():
    assert score_mm_niah_official(0, "The camera is moving left.") == 1.0
    assert score_mm_niah_official(1, "the camera is moving right") == 1.0
    assert score_mm_niah_official(1, "The camera is moving left") == 0.0


def test_none_scores_zero_even_for_letter_n():
    assert score_mm_niah_official(ord("n") - ord("a"), "none") == 0.0
    assert score_mm_niah_official(ord("n") - ord("a"), "n") == 1.0


def test_counting_positional_soft_accuracy():
    gold = [1, 2, 3]
    assert score_mm_niah_official(gold, "[1, 2, 3]") == 1.0
    assert score_mm_niah_official(gold, "[1, 0, 3]") == pytest.approx(2 / 3)
    # extra predicted items are ignored, missing ones count as wrong
    assert score_mm_niah_official(gold, "[1, 2, 3, 4, 5]") == 1.0
    assert score_mm_niah_official(gold, "[1]") == pytest.approx(1 / 3)
    # order matters (positional), unlike MMLongBench's sum rule
    assert score_mm_niah_official(gold, "[3, 2, 1]") == pytest.approx(1 / 3)


def test_counting_json_fences_and_the_word_json_are_removed():
    assert score_mm_niah_official([2, 1], "```json\n[2, 1]\n```") == 1.0
    assert score_mm_niah_official([2, 1], "[2, 1].") == 1.0  # trailing period stripped first


def test_counting_dict_is_flattened_by_concatenating_values():
    assert score_mm_niah_official([1, 2, 3], '{"image 1": [1, 2], "image 2": [3]}') == 1.0
    # a value that is not a list makes the concatenation fail: 0
    assert score_mm_niah_official([1], '{"count": 1}') == 0.0


def test_counting_unparseable_or_not_a_list_scores_zero():
    assert score_mm_niah_official([2], "two") == 0.0
    assert score_mm_niah_official([2], "2") == 0.0  # JSON 2 is not a list
    assert score_mm_niah_official([2], "[2") == 0.0


def test_counting_python_equality_quirks():
    assert score_mm_niah_official([2, 1], "[2.0, true]") == 1.0
    assert score_mm_niah_official([2], '["2"]') == 0.0


def test_counting_empty_gold_is_an_input_error():
    with pytest.raises(MetricInputError) as info:
        score_mm_niah_official([], "[]")
    assert info.value.field == "answer"


def test_open_ended_whole_word_match_after_vqa_normalization():
    assert score_mm_niah_official("oak", "The needle is an oak tree.") == 1.0
    assert score_mm_niah_official("oak", "The needle is in the oaks.") == 0.0
    assert score_mm_niah_official("two", "There are 2 apples") == 1.0
    assert score_mm_niah_official("2", "There are two apples") == 1.0
    assert score_mm_niah_official("the red car", "A RED car!") == 1.0


def test_open_ended_33rd_period_is_not_removed():
    # 31 removable periods before "oak.tree": its period is the 32nd, removed -> "oaktree" matches
    assert score_mm_niah_official("oaktree", "x." * 31 + " oak.tree") == 1.0
    # 32 before it: its period is the 33rd, kept -> "oak.tree" does not contain the word "oaktree"
    assert score_mm_niah_official("oaktree", "x." * 32 + " oak.tree") == 0.0


def test_failed_request_scores_zero():
    assert score_mm_niah_official("oak", None) == 0.0
    assert score_mm_niah_official(2, None) == 0.0
    assert score_mm_niah_lenient([1], None) == 0.0


def test_bad_gold_and_response_types_are_input_errors():
    with pytest.raises(MetricInputError) as info:
        score_mm_niah_official(1.5, "x")
    assert info.value.field == "answer"
    with pytest.raises(MetricInputError) as info:
        score_mm_niah_official("oak", 3)
    assert info.value.field == "response"


def test_lenient_answer_keyword_forms():
    assert score_mm_niah_lenient(1, "The answer is (B), clearly") == 1.0
    assert score_mm_niah_lenient(1, "ANSWER: B because the dog is brown") == 1.0
    # an option merely mentioned is not an answer
    assert score_mm_niah_lenient(1, "Option B looks wrong to me") == 0.0


# Counting replies a real model (SmolLM2-135M-Instruct) wrote as prose, hand-checked: the official parser reads
# no list from them (0); the lenient rule reads the counts a person reads.
@pytest.mark.parametrize(("gold", "response", "lenient"), [
    ([3], "The little penguin counted 3 pebbles in each statement.", 1.0),
    ([1], "The little penguin counted in each statement is 1.", 1.0),
    ([9, 9], "The little penguin counted 9 seashells in each statement.", 0.5),  # one count for two statements
    ([9, 6, 4], "The little penguin counted 4 seashells in each statement.", 0.0),
    ([1, 1], "LuckyGardener25:\n\nThe little penguin counted 1 sleeping seal.\n\nThe reed warbler is", 0.5),
    ([7, 3], "The answer is: 1", 0.0),
    ([3, 1], "three pebbles in the first statement and one in the second", 1.0),  # number words
    ([3, 1], "The counts are [3, 1].", 1.0),  # a list inside prose
    ([4, 5], "Statement 1: 4, statement 2: 5", 1.0),  # statement labels are not counts
    ([3], "It was 3.5 metres away.", 0.0),  # a decimal is no count
])
def test_lenient_reads_counts_written_as_prose(gold, response, lenient):
    assert score_mm_niah_official(gold, response) == 0.0
    assert score_mm_niah_lenient(gold, response) == lenient


def test_lenient_counting_keeps_the_official_reading_of_a_list():
    # a reply the official parser reads a list from is scored as official, even with prose numbers beside it
    assert score_mm_niah_lenient([2, 1], "[2, 1]") == score_mm_niah_official([2, 1], "[2, 1]") == 1.0
    assert score_mm_niah_lenient([2, 1], '{"a": [2], "b": [3]}') == 0.5


@pytest.mark.parametrize("response", ["\u00b2", "\u2460", "\u2460."])
def test_digits_int_cannot_read_are_refused_officially_and_name_no_option_leniently(response):
    # the official code calls int() on any str.isdigit() reply and raises on these: refused, never a 0
    with pytest.raises(MetricInputError) as caught:
        score_mm_niah_official(2, response)
    assert caught.value.field == "response"
    assert score_mm_niah_lenient(2, response) == 0.0
