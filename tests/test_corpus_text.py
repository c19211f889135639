"""Sentence and paragraph splitting: where it cuts, where it must not, and exact reconstruction."""

from __future__ import annotations

import random

import pytest

from niah.corpus.text import normalize_whitespace, split_paragraphs, split_sentences


@pytest.mark.parametrize(("paragraph", "expected"), [
    ("One. Two! Three? Four.", ["One.", "Two!", "Three?", "Four."]),
    ("Mr. Smith met Dr. Jones at St. Mary's. They talked.", ["Mr. Smith met Dr. Jones at St. Mary's.", "They talked."]),
    ("Use a tool, e.g. a spade. It helps.", ["Use a tool, e.g. a spade.", "It helps."]),
    ("Some plants, i.e. ferns, grow. Others do not.", ["Some plants, i.e. ferns, grow.", "Others do not."]),
    ("It rose 3.5 metres in 2.25 hours. Then it fell.", ["It rose 3.5 metres in 2.25 hours.", "Then it fell."]),
    ('"Come in," she said. "Sit down." He sat.', ['"Come in," she said.', '"Sit down."', "He sat."]),
    ("He asked (quietly.) Nobody answered.", ["He asked (quietly.)", "Nobody answered."]),
    ("J. R. Hartley wrote it. The end.", ["J. R. Hartley wrote it.", "The end."]),
    ("See No. 5 on the list. Done.", ["See No. 5 on the list.", "Done."]),
    ("The answer was no. Then we left.", ["The answer was no.", "Then we left."]),
    ("Wait... what? Yes.", ["Wait... what?", "Yes."]),
    ("lowercase after stop. does not split", ["lowercase after stop. does not split"]),
    ("No terminator at all", ["No terminator at all"]),
    ("Twice.  Spaced. Once.", ["Twice.  Spaced.", "Once."]),
])
def test_english_splits(paragraph, expected):
    assert split_sentences(paragraph, "en") == expected
    assert " ".join(expected) == paragraph


@pytest.mark.parametrize(("paragraph", "expected"), [
    ("今天下雨。明天放晴！你去吗？", ["今天下雨。", "明天放晴！", "你去吗？"]),
    ("他说：“我来了。”她笑了。", ["他说：“我来了。”", "她笑了。"]),
    ("“好吗？”“好！”", ["“好吗？”", "“好！”"]),
    ("他想了想……“算了吧。”", ["他想了想……“算了吧。”"]),
    ("“真的吗……”她问。", ["“真的吗……”", "她问。"]),
    ("没有句号的句子", ["没有句号的句子"]),
    ("第一句。（注释。）第二句。", ["第一句。", "（注释。）", "第二句。"]),
])
def test_chinese_splits(paragraph, expected):
    assert split_sentences(paragraph, "zh") == expected
    assert "".join(expected) == paragraph


def test_reconstruction_on_random_text():
    rng = random.Random(1234)
    alphabet = list("abcXYZ 12.!?\"'()”“。！？，e.g.Mr.") + ["Dr. ", " No. 4", "3.14", "“好。”"]
    for _ in range(2000):
        text = normalize_whitespace("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))))
        en = split_sentences(text, "en")
        assert " ".join(en) == text
        assert all(en) or text == ""
        zh = split_sentences(text, "zh")
        assert "".join(zh) == text
        assert all(zh)


def test_empty_paragraph():
    assert split_sentences("", "en") == []
    assert split_sentences("", "zh") == []


def test_split_paragraphs():
    assert split_paragraphs("A\nb.\n\n\n  C.  \n \nD") == ["A b.", "C.", "D"]
    assert split_paragraphs("一。\n二。\r\n三。") == ["一。", "二。", "三。"]  # no blank line: one per line
    assert split_paragraphs("\u3000\u3000首行缩进。\n\n第二段。") == ["首行缩进。", "第二段。"]
    assert split_paragraphs(" \n\n ") == []
