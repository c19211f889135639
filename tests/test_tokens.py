"""Token accounting: tokenizers by name, additivity of unit counts, image token rules (hand-checked)."""

from __future__ import annotations

import random

import pytest

from niah.tokens import get_image_rule, get_tokenizer
from niah.util.errors import ConfigError

WORDS = ("the of and a to in is was for on that with as by at from it an were are which this be or has had not "
         "but Paris 1999 3.5 don't (see note) \"quoted\" e.g. — naïve café x2 Überraschung 東京 emoji🙂").split()


def _sentences(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 25))]
        s = " ".join(words)
        out.append(" " + s[0].upper() + s[1:] + rng.choice([".", "!", "?", ".\"", ";", ":", ")", "..."]))
    return out


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama2-sp"])
def test_unit_counts_add_up_to_the_count_of_the_concatenation(name: str) -> None:
    tok = get_tokenizer(name)
    assert tok.additive
    rng = random.Random(7)
    units = _sentences(rng, 800)
    counts = tok.unit_counts(units)
    assert counts == [tok.unit_count(u) for u in units[:50]] + counts[50:]
    for _ in range(300):
        sel = rng.sample(range(len(units)), rng.randint(1, 40))
        first = units[sel[0]].lstrip(" ")
        text = first + "".join(units[i] for i in sel[1:])
        assert tok.count(text) == tok.count(first) + sum(counts[i] for i in sel[1:])


def test_known_counts() -> None:
    # hand-checked against tiktoken's published behaviour for cl100k_base
    cl = get_tokenizer("cl100k_base")
    assert cl.encode("hello world") == [15339, 1917]
    assert cl.count("") == 0
    sp = get_tokenizer("llama2-sp")
    assert sp.encode("Hello world.") == [22557, 1526, 28723]  # no BOS
    # SentencePiece counts exclude BOS and add the dummy-prefix space only once
    assert sp.count(" Hello") == sp.count("Hello") + 1


def test_unknown_tokenizer_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="unknown tokenizer"):
        get_tokenizer("gpt-17")


def test_hf_tokenizer_from_local_file(tmp_path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["the cat sat on the mat"] * 20, trainers.BpeTrainer(vocab_size=60,
                                                                                 special_tokens=["[UNK]"]))
    tok.save(str(tmp_path / "tokenizer.json"))
    hf = get_tokenizer(f"hf:{tmp_path}")
    assert hf.count("the cat sat") == len(tok.encode("the cat sat").ids)
    assert not hf.additive


@pytest.mark.parametrize(("w", "h", "tokens"), [
    (448, 448, 256),        # one tile, no thumbnail
    (1024, 768, 1792),      # aspect 4:3 -> closest allowed grid 3x2 (6 tiles) + thumbnail
    (800, 200, 1280),       # aspect 4 -> 4x1 + thumbnail
    (400, 400, 256),        # square and small: tie (1,1)/(2,2) keeps 1x1 (area below half of 2x2)
    (1000, 1000, 1280),     # square and large: tie-break moves to 2x2 + thumbnail
])
def test_internvl_dynamic_tiles(w: int, h: int, tokens: int) -> None:
    assert get_image_rule("internvl").tokens(w, h) == tokens


def test_internvl_parameters_and_one_tile() -> None:
    assert get_image_rule("internvl:max_tiles=12").tokens(1024, 768) == (12 + 1) * 256
    assert get_image_rule("internvl:max_tiles=1").tokens(1024, 768) == 256
    assert get_image_rule("internvl-1tile").tokens(4000, 100) == 256
    assert get_image_rule("internvl").name == "internvl-448-max6"


def test_qwen2vl_smart_resize_hand_checked() -> None:
    rule = get_image_rule("qwen2vl-28px")
    # 1024x768: h=round(768/28)*28=27*28=756, w=round(1024/28)*28=37*28=1036 -> 27*37 = 999 tokens
    assert rule.tokens(1024, 768) == 999
    # tiny image: min_pixels 4*28*28 -> scaled up to at least 2x2 tokens
    assert rule.tokens(10, 10) == 4
    # huge image capped by max_pixels=256*28*28: 4000x3000 -> beta=sqrt(12e6/200704), floor -> 16*12? compute
    small = get_image_rule("qwen2vl-28px:max_pixels=200704")
    # beta = sqrt(4000*3000/200704) = 7.7324; h = floor(3000/7.7324/28)*28 = 13*28; w = floor(4000/7.7324/28)*28 = 18*28
    assert small.tokens(4000, 3000) == 13 * 18
    assert get_image_rule("fixed:64").tokens(5, 5) == 64


@pytest.mark.parametrize("spec", ["internvl:max_tiles=x", "internvl:foo=1", "qwen2vl-28px:bar=2", "fixed:-1",
                                  "clip", "qwen2vl-28px:min_pixels=0", "qwen2vl-28px:min_pixels=9000,max_pixels=8000",
                                  "qwen2vl-28px:max_pixels=67108865", "qwen2vl-28px:min_pixels=100000000000"])
def test_bad_image_rules(spec: str) -> None:
    with pytest.raises(ConfigError):
        get_image_rule(spec)


@pytest.mark.parametrize("spec", ["internvl", "internvl:max_tiles=12", "internvl:min_tiles=2,thumbnail=0",
                                  "internvl-1tile", "qwen2vl-28px", "qwen2vl-28px:min_pixels=3136,max_pixels=200704",
                                  "fixed:64"])
def test_recorded_rule_names_parse_back_to_the_same_rule(spec: str) -> None:
    """Datasets record ``meta.image_tokens_rule`` = rule.name; a checker can rebuild the rule from it."""
    rule = get_image_rule(spec)
    again = get_image_rule(rule.name)
    assert again.name == rule.name
    for w, h in ((448, 448), (1024, 768), (300, 1200), (2000, 150)):
        assert again.tokens(w, h) == rule.tokens(w, h)
