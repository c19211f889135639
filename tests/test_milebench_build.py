"""``niah build milebench-niah``: exact official lengths (the truncation boundary), needles, scoring, determinism."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from niah.benchmarks.milebench.build import NEEDLE, build_milebench_niah, official_length
from niah.benchmarks.milebench.prompt import MileBenchTruncation
from niah.benchmarks.milebench.score import score_sample
from niah.models.base import Capabilities
from niah.prompts.render import render_prompt
from niah.sample import Dataset, ImagePart, TextPart, parts_text
from niah.tokens import get_tokenizer


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Dataset:
    out = tmp_path_factory.mktemp("mb") / "ds"
    build_milebench_niah(out, lengths=(2048, 3000), per_length=2, images_per_sample=3, seed=4, image_tokens=100)
    return Dataset(out)


def test_lengths_are_exact_where_the_official_truncation_draws_the_line(built):
    tok = get_tokenizer("cl100k_base")
    fit = MileBenchTruncation(tokenizer=tok, image_tokens=100)
    for sample in built:
        n = sample.meta["context_length"]
        assert official_length(sample, tok, 100) == n
        prompt = render_prompt(sample, built.media_root)
        whole = fit(prompt, sample, Capabilities(max_context_tokens=n))
        assert whole.policy is None and whole.prompt.preview() == prompt.preview()
        cut = fit(prompt, sample, Capabilities(max_context_tokens=n - 1))
        assert cut.policy is not None and cut.prompt.preview().endswith("What is the passkey?")


def test_the_passkey_is_in_the_text_or_on_one_image_and_the_gold_scores(built):
    samples = list(built)
    assert {s.task for s in samples} == {"TextNeedleInAHaystack", "ImageNeedleInAHaystack"}
    for sample in samples:
        text = parts_text(sample.context)
        sentence = NEEDLE.format(key=sample.answer)
        images = [p.path for p in sample.context if isinstance(p, ImagePart)]
        (needle,) = sample.meta["needles"]
        # every context image is named by its content in one folder: the name tells no needle
        assert {p.rsplit("/", 1)[0] for p in images} == {"media/images"}
        if sample.task == "TextNeedleInAHaystack":
            assert needle == sentence and text.count(sentence) == 1
        else:
            assert sample.answer not in text and images.count(needle) == 1
        assert len(images) == 3 and 0.0 <= sample.meta["depth"] <= 1.0
        assert score_sample(sample, f"The passkey is {sample.answer}.").scores["official"] == 1.0
        assert score_sample(sample, "I could not find it.").scores["official"] == 0.0
        assert isinstance(sample.context[-1], TextPart)


def test_same_seed_same_bytes(tmp_path):
    def digest(folder: Path) -> str:
        h = hashlib.sha256()
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "manifest.json"):
            h.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
        return h.hexdigest()

    for name in ("a", "b"):
        build_milebench_niah(tmp_path / name, lengths=(1500,), per_length=1, images_per_sample=2, seed=9)
    assert digest(tmp_path / "a") == digest(tmp_path / "b")


def _depth_by_position(sample, tok, image_tokens: int) -> float:
    """The needle's depth recounted from where it stands: context tokens (the text before it in one count,
    plus ``image_tokens`` per image) before the needle over all context tokens."""
    needle = sample.meta["needles"][0]
    text_before, images_before, found = "", 0, False
    for part in sample.context:
        if isinstance(part, ImagePart):
            if part.path == needle:
                found = True
                break
            images_before += 1
        elif needle in part.text:
            text_before += part.text[:part.text.index(needle)]
            found = True
            break
        else:
            text_before += part.text
    assert found, sample.id
    total = tok.count(parts_text(sample.context)) + image_tokens * sum(isinstance(p, ImagePart)
                                                                     for p in sample.context)
    return (tok.count(text_before) + image_tokens * images_before) / total


def test_depth_is_where_the_needle_stands(tmp_path):
    # image needles used to take the depth of the image drawn at the needle's index in placement order: off by
    # up to 0.79; six image samples with five images each make a lucky pass of the old code all but impossible
    out = tmp_path / "ds"
    build_milebench_niah(out, lengths=(2048,), per_length=6, images_per_sample=5, seed=1, image_tokens=100)
    tok = get_tokenizer("cl100k_base")
    samples = list(Dataset(out))
    assert {s.meta["needle"] for s in samples} == {"text", "image"}
    for sample in samples:
        assert abs(sample.meta["depth"] - _depth_by_position(sample, tok, 100)) < 0.005, sample.id
    depths = sorted(s.meta["depth"] for s in samples if s.meta["needle"] == "image")
    assert depths[-1] - depths[0] > 0.2  # drawn across the context, not clustered


def test_needle_image_position_tells_nothing(tmp_path):
    """Every image at its own random depth: the passkey image stands first, last and in between about as
    often as any image does (before, the evenly spread haystack images left it never first). Four images a
    sample, 4 seeds x 40 samples: about 40 first, 40 last and 80 in between; the bounds sit about 2.7
    standard deviations below (one build of 40 read 3 last once, by luck)."""
    from collections import Counter

    rank: Counter[str] = Counter()
    for seed in range(4):
        out = tmp_path / str(seed)
        build_milebench_niah(out, lengths=[4096], per_length=40, tasks=["ImageNeedleInAHaystack"], seed=seed)
        for s in Dataset(out):
            images = [p.path for p in s.context if isinstance(p, ImagePart)]
            k = images.index(s.meta["needles"][0])
            rank["first" if k == 0 else "last" if k == len(images) - 1 else "middle"] += 1
    assert rank["first"] >= 25 and rank["last"] >= 25 and rank["middle"] >= 60, rank


def test_the_shared_builder_vocabulary_reaches_the_builder(tmp_path) -> None:
    """niah eval hands every builder --per-cell and --lengths as written (8k): both builders without their own
    spelling translate them (they failed with "unexpected keyword argument 'per_cell'")."""
    from niah.benchmarks.milebench.build import build_from_options
    from niah.sample import Dataset

    counts = build_from_options(tmp_path / "ds", {"per_cell": 1, "lengths": ["4k"], "seed": 1,
                                                  "tasks": ["TextNeedleInAHaystack"]}, False)
    assert dict(counts) == {"TextNeedleInAHaystack": 1}
    (sample,) = list(Dataset(tmp_path / "ds"))
    assert sample.meta["context_length"] == 4000


@pytest.mark.parametrize("per_cell", [0, -3])
def test_a_build_of_no_samples_is_refused(tmp_path: Path, per_cell: int) -> None:
    from niah.util.errors import ConfigError

    with pytest.raises(ConfigError, match=f"--per-cell must be at least 1 sample per task and length, not {per_cell}"):
        build_milebench_niah(tmp_path / "ds", lengths=[4096], per_length=per_cell, progress=False)
    assert not (tmp_path / "ds").exists()
