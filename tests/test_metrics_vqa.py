"""The shared VQA normalization: punctuation rule, 32-period limit, number words, articles, contractions."""

from niah.scoring.metrics.vqa import has_word, normalize_vqa, process_digit_article, process_punctuation


def test_punctuation_next_to_space_is_deleted_else_replaced_by_space():
    # "-" never stands next to a space here, so it becomes a space; "," stands next to one, so it is deleted
    assert process_punctuation("well-known, fact") == "well known fact"
    # "-" next to a space somewhere in the ORIGINAL text: every "-" is deleted
    assert process_punctuation("well-known - fact") == "wellknown  fact"


def test_digit_comma_digit_anywhere_deletes_every_mark():
    assert process_punctuation("1,000 well-known") == "1000 wellknown"


def test_periods_not_followed_by_digit_are_removed_but_decimal_points_stay():
    assert process_punctuation("it is 3.5 m. long.") == "it is 3.5 m long"


def test_at_most_32_periods_are_removed():
    text = "x." * 40
    out = process_punctuation(text)
    assert out == "x" * 32 + "x." * 8
    assert out.count(".") == 8


def test_number_words_articles_and_contractions():
    assert process_digit_article("The TWO dogs dont see an Owl") == "2 dogs don't see owl"
    assert process_digit_article("twenty ninety twentyone") == "20 90 twentyone"
    # capitalised keys of the official contraction table can never match (text is lowercased first)
    assert process_digit_article("Im") == "im"
    # the official table's backwards entry is kept
    assert process_digit_article("somebody'd") == "somebodyd"


def test_normalize_vqa_full_chain():
    assert normalize_vqa("  The needle is\tan OAK tree!\n") == "needle is oak tree"


def test_has_word_uses_word_boundaries():
    assert has_word("needle is oak tree", "oak")
    assert not has_word("oaks grow", "oak")
    assert has_word("anything", "")  # official quirk: an empty gold matches any text with a word character
    assert not has_word("", "")
