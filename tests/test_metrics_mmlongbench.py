"""MMLongBench rules: prefix max post-processing, regex orders, the sum rule, binary defaults and flip."""

import pytest

from niah.benchmarks.mmlongbench.metrics import (
    binary_acc_dataset_score,
    extract_choice_letter,
    extract_class_number,
    extract_count_list,
    normalize_answer,
    parse_output,
    score_binary_acc,
    score_cls_acc,
    score_mc_acc,
    score_soft_acc,
    score_sub_em,
)
from niah.scoring.metrics.base import MetricInputError
from niah.scoring.metrics.registry import get_rule


def test_normalize_answer():
    assert normalize_answer("The Oak-Tree, an  answer!") == "oaktree answer"


def test_parse_output_takes_text_after_first_prefix_and_strips_a_repeat():
    assert parse_output("Answer: Answer: oak") == "oak"
    assert parse_output("I think. ANSWER: oak tree") == "oak tree"
    assert parse_output("no prefix here") == "no prefix here"


def test_sub_em_substring_and_max_over_golds():
    assert score_sub_em("oak", "oaks everywhere") == 1.0  # substring, no word boundary
    assert score_sub_em(["pine", "oak"], "an oak") == 1.0
    assert score_sub_em([["pine"], ["birch"]], "an oak") == 0.0


def test_sub_em_prefixed_raw_output_counts_too():
    # the prefixed raw output "Answer:..." contains "answer", so this gold matches any response
    assert score_sub_em("answer", "no idea") == 1.0
    assert score_sub_em("answer", "no idea", prefix="") == 0.0


def test_mc_acc_regex_order():
    assert extract_choice_letter("The answer is (B). Answer: C") == 1
    assert extract_choice_letter("Answer: C but maybe D") == 2
    assert extract_choice_letter("I think D is wrong, so B") == 1
    assert extract_choice_letter("answer is b") == -1  # letters must be capitals


def test_mc_acc_max_over_raw_and_parsed():
    # raw "Answer:Based on ..." yields B through the "Answer:" pattern; parsed text yields the last capital, C
    response = "Based on the image, C"
    assert score_mc_acc(1, response) == 1.0
    assert score_mc_acc(2, response) == 1.0
    assert score_mc_acc(0, response) == 0.0


def test_soft_acc_is_a_sum_rule():
    gold = [1, 2]
    assert score_soft_acc(gold, "[2, 1]") == 1.0
    assert score_soft_acc(gold, "[3]") == 1.0
    assert score_soft_acc(gold, "[1, 3]") == 0.0
    assert score_soft_acc(gold, "I count 1 and then 2") == 1.0


def test_soft_acc_parse_fallbacks():
    assert extract_count_list("first [9] then [1, 2]") == [1, 2]  # last int list
    assert extract_count_list('["1", "2", "x", 3.7]') == [1, 2, 3]  # bracket list through int()
    assert extract_count_list("[1 2]") == [1, 2]  # invalid JSON: every digit run
    assert extract_count_list("nothing") == []


def test_cls_acc_fallbacks():
    assert extract_class_number("label: 3") == 3
    assert extract_class_number("maybe 5, or 7") == 7
    assert extract_class_number("class12b") == 12  # no standalone number: first digit run
    assert extract_class_number("no idea") == -1


def test_cls_acc_uses_label_prefix_and_both_candidates_can_score():
    # raw "label:3 because 5" -> 3 via "label:"; parsed "3 because 5" -> last number 5
    assert score_cls_acc(3, "3 because 5") == 1.0
    assert score_cls_acc(5, "3 because 5") == 1.0
    assert score_cls_acc(4, "3 because 5") == 0.0


def test_binary_acc_last_yes_no_and_default():
    assert score_binary_acc("yes", "No, wait, yes.") == 1.0
    assert score_binary_acc("no", "maybe", default_answer=0) == 1.0
    assert score_binary_acc("no", "maybe", default_answer=1) == 0.0


def test_binary_acc_cycling_defaults_by_row_order():
    rule = get_rule("mmlongbench/binary_acc")
    rows = [{"answer": "yes", "response": "unsure"} for _ in range(6)]
    # defaults 0, 1, 1, 0, 0, 1 -> correct (gold yes = 1) at positions 1, 2, 5
    assert rule.score_rows(rows) == [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    rows[0]["default_answer"] = 1
    assert rule.score_rows(rows)[0] == 1.0


def test_binary_dataset_score_flips_below_50():
    assert binary_acc_dataset_score([1, 0, 0, 0]) == 75.0
    assert binary_acc_dataset_score([1, 1, 0, 0]) == 50.0
    assert binary_acc_dataset_score([1, 1, 1, 0]) == 75.0


def test_failed_request_scores_zero():
    assert score_sub_em("oak", None) == 0.0
    assert score_mc_acc(1, None) == 0.0


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        # official int(choice == answers): Python equality, never an error
        ("B", "B", 0.0),  # extracted 1 != "B"
        ("1", "B", 0.0),
        (1.0, "B", 1.0),  # 1 == 1.0
        (True, "B", 1.0),  # 1 == True
        (None, "B", 0.0),
        ([1], "B", 0.0),
    ],
)
def test_mc_acc_scores_every_gold_type_like_python_equality(answer, response, expected):
    assert score_mc_acc(answer, response) == expected


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        ("3", "label: 3", 0.0),  # the official parsed label is an int, a string gold never matches
        (3, "label: 3", 1.0),
        (3.0, "label: 3", 1.0),
        (False, "label: 0", 1.0),
        ({"id": 3}, "label: 3", 0.0),
    ],
)
def test_cls_acc_scores_every_gold_type_like_python_equality(answer, response, expected):
    assert score_cls_acc(answer, response) == expected


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        ([True, 2], "[3]", 1.0),  # sum([True, 2]) == 3
        ([1.5, 1.5], "[3]", 1.0),  # sum 3.0 == 3
        ([], "no numbers", 1.0),  # sum([]) == 0 == sum of nothing found
        ("", "none", 1.0),  # sum("") == 0 too
        ({}, "[0]", 1.0),  # and sum({}) == 0
        ([], "[1]", 0.0),
    ],
)
def test_soft_acc_gold_sum_follows_python_sum(answer, response, expected):
    assert score_soft_acc(answer, response) == expected


@pytest.mark.parametrize(
    "answer",
    ["[1, 2]", 3, None, ["1", 2], [[1]], {"a": 1}],  # sum() raises TypeError on each
)
def test_soft_acc_refuses_golds_the_official_sum_cannot_add(answer):
    with pytest.raises(MetricInputError) as info:
        score_soft_acc(answer, "[1, 2]")
    assert info.value.field == "answer"


@pytest.mark.parametrize(
    ("answer", "response", "expected"),
    [
        ([["oa"], "k"], "k", 1.0),  # first item is a list: every item is iterated, "k" gives its letter
        ([["pine"], {"oak": 1}], "an oak", 1.0),  # ... and a dict gives its keys
        ("", "anything", 1.0),  # the empty normalized gold is in every output
    ],
)
def test_sub_em_flattening_quirks(answer, response, expected):
    assert score_sub_em(answer, response) == expected


@pytest.mark.parametrize(
    "answer",
    [[], 3, None, {"oak": 1}, ["oak", 3], [["oak"], 3], [[]], ["oak", ["pine"]]],
)
def test_sub_em_refuses_what_the_official_code_crashes_on(answer):
    with pytest.raises(MetricInputError):
        score_sub_em(answer, "oak")


def test_binary_acc_refuses_a_non_string_gold():
    # the official code runs extract_binary_label(gold), which calls gold.lower()
    with pytest.raises(MetricInputError):
        score_binary_acc(1, "yes")
    # an all-digit gold parses to its number; "Answer:1" is not all digits, so the prediction takes the default
    assert score_binary_acc("1", "1", default_answer=1) == 1.0
    assert score_binary_acc("1", "1", default_answer=0) == 0.0
