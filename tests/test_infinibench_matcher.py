"""The rule-based MCQ matcher on hand-made replies: what it decides, by which rule, and what it refuses."""

from __future__ import annotations

import pytest

from niah.benchmarks.infinibench.matcher import match_option, normalize

OUTFITS = [
    "red t-shirt, grey jacket, brown blazer",
    "grey jacket, red t-shirt, brown blazer",
    "brown blazer, grey jacket, red t-shirt",
    "grey jacket, brown blazer, red t-shirt",
    "a green hoodie, a black vest, a white shirt",
    "I don't know",
]
YES_NO = ["Yes", "No", "I don't know"]
PLACES = ["the apartment", "the cafeteria", "the comic book store", "the laundry room", "the university",
          "I don't know"]


@pytest.mark.parametrize("response, expected", [
    # exact / normalized option text
    ("grey jacket, red t-shirt, brown blazer", (1, "exact")),
    ('"brown blazer, grey jacket, red t-shirt."', (2, "exact")),
    ("Brown blazer, grey jacket, red t-shirt", (2, "normalized")),
    ("GREY JACKET - BROWN BLAZER - RED T-SHIRT", (3, "normalized")),
    ("**I don\u2019t know**", (5, "exact")),
    # lone letters
    ("B", (1, "letter")),
    ("(b)", (1, "letter")),
    ("c.", (2, "letter")),
    ("D)", (3, "letter")),
    ("Option E", (4, "letter")),
    ("Answer: A", (0, "letter")),
    ("The correct answer is (F)", (5, "letter")),
    # lone numbers, 1-based when the prompt shows letters
    ("2", (1, "index")),
    ("Option 2", (1, "index")),
    ("(6)", (5, "index")),
    # explicit final choice wins over earlier mentions (the paper's own example)
    ("I think option 1 is close, but my final answer will be option 2.", (1, "final-answer")),
    ("Between (A) and (C), my final answer: C", (2, "final-answer")),
    # one option named inside a longer reply
    ("The answer is (C) because he changes into the blazer first.", (2, "mention")),
    ("B. He wears the grey jacket first, then the t-shirt.", (1, "mention")),
    ("He wears a green hoodie, a black vest, a white shirt in that order.", (4, "mention")),
    ("Leonard changes outfits as follows: option D is right.", (3, "mention")),
    # saying it does not know picks the "I don't know" option
    ("I'm not sure from the video.", (5, "idk")),
    ("It cannot be determined.", (5, "idk")),
])
def test_decided(response: str, expected: tuple[int, str]) -> None:
    assert match_option(OUTFITS, response) == expected


@pytest.mark.parametrize("response, reason", [
    ("", "empty"),
    ("   \n", "empty"),
    (None, "empty"),
    ("A or B", "ambiguous"),
    ("B/C", "ambiguous"),
    ("(A) and (B) are both plausible", "ambiguous"),
    ("Option 1 or option 3, hard to say", "ambiguous"),
    ("I don't know, but probably (B)", "hedged"),
    ("It is not (B).", "negated"),
    ("Definitely isn't option C", "negated"),
    ("H", "out-of-range"),
    ("Option 9", "out-of-range"),
    ("He first wears a purple sweater.", "no-match"),
    ("The sequence is unclear but involves jackets.", "no-match"),
    ("My final answer is (A), no wait, final answer (B)", "ambiguous"),
])
def test_undecided(response: str | None, reason: str) -> None:
    assert match_option(OUTFITS, response) == (None, reason)


def test_yes_no_items() -> None:
    assert match_option(YES_NO, "Yes") == (0, "exact")
    assert match_option(YES_NO, "no.") == (1, "normalized")
    assert match_option(YES_NO, "Yes, the wedding happens before the fight.") == (0, "mention")
    assert match_option(YES_NO, "No, it happens afterwards.") == (1, "mention")
    # "know" is not "no"; "I don't know" is its own option
    assert match_option(YES_NO, "I don't know") == (2, "exact")
    assert match_option(YES_NO, "Yes and no") == (None, "ambiguous")
    assert match_option(YES_NO, "Probably") == (None, "no-match")


def test_shorter_option_inside_a_longer_one_is_not_a_second_mention() -> None:
    opts = ["the store", "the comic book store", "I don't know"]
    assert match_option(opts, "They go to the comic book store next.") == (1, "mention")
    assert match_option(opts, "They go to the store next.") == (0, "mention")


def test_places_and_words_that_look_like_letters() -> None:
    # A sentence starting with the article "A" is not option A.
    assert match_option(PLACES, "A scene in the cafeteria comes next.") == (1, "mention")
    assert match_option(PLACES, "My final answer is a visit to the laundry room.") == (3, "mention")


def test_zero_based_numbering_for_the_official_listing() -> None:
    assert match_option(OUTFITS, "option 0", index_base=0) == (0, "index")
    assert match_option(OUTFITS, "2", index_base=0) == (2, "index")
    assert match_option(OUTFITS, "Option 6", index_base=0) == (None, "out-of-range")


def test_no_idk_option_means_undecided() -> None:
    local = ["Sheldon", "Leonard", "Penny", "Howard", "Raj"]  # local questions: five options, no "I don't know"
    assert match_option(local, "I don't know") == (None, "idk-without-option")
    assert match_option(local, "penny") == (2, "normalized")
    assert match_option(local, "It was Penny who knocked.") == (2, "mention")
    assert match_option(local, "Penny and Raj") == (None, "ambiguous")
    assert match_option([], "A") == (None, "no-options")


def test_normalize() -> None:
    assert normalize("  Don\u2019t   STOP--now! ") == "dont stop now"
