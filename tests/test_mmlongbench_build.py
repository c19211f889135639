"""``niah build mmlongbench-vh``: exact lengths under llama2-sp + qwen2vl-28px, answers, needles, determinism."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from niah.benchmarks.mmlongbench.build import build_vh, grid_for, measure
from niah.sample import Dataset, ImagePart
from niah.tokens.image import Qwen2VLRule
from niah.util.errors import ConfigError
from support.scores import official_scores


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "manifest.json"):
        h.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    from PIL import Image

    root = tmp_path_factory.mktemp("imgs")
    for i in range(8):
        Image.new("RGB", (300 + 40 * i, 200 + 25 * (i % 3)), (30 * i, 90, 200 - 20 * i)).save(root / f"{i}.png")
    return root


def _colour(ds: Dataset, path: str) -> tuple[int, ...]:
    """The mean colour of a flat test picture, rounded past JPEG noise: which picture an image shows."""
    from PIL import Image, ImageStat

    with Image.open(ds.resolve_media(path)) as im:
        return tuple(round(v / 10) for v in ImageStat.Stat(im.convert("RGB")).mean)


def _images(sample) -> tuple[list[str], list[str]]:
    return ([p.path for p in sample.context if isinstance(p, ImagePart)],
            [p.path for p in sample.question if isinstance(p, ImagePart)])


@pytest.mark.parametrize("needles", [1, 3])
def test_every_sample_measures_exactly_its_length(tmp_path, folder, needles):
    build_vh(tmp_path / "ds", lengths=(8, 16), per_length=4, needles=needles, seed=3, images=folder)
    ds = Dataset(tmp_path / "ds")
    samples = list(ds)
    assert len(samples) == 8
    for sample in samples:
        assert measure(sample, ds.media_root, "llama2-sp", Qwen2VLRule()) == sample.meta["length_k"] * 1024
        context, queries = _images(sample)
        assert len(queries) == needles
        # a query is its picture, transformed: the same colour (these pictures are flat) in another file
        present = [_colour(ds, q) in {_colour(ds, c) for c in context} for q in queries]
        assert present == sample.meta["query_present"]
        if sample.answer == "yes":
            assert all(present)
        elif needles == 1:
            assert not any(present)
        else:
            assert sum(present) == needles - 1  # exactly one query image is missing
        shown = {_colour(ds, q) for q, p in zip(queries, present, strict=True) if p}
        assert sample.meta["needle_positions"] == [i for i, c in enumerate(context) if _colour(ds, c) in shown]
        assert set(sample.meta["needles"]) == {context[i] for i in sample.meta["needle_positions"]}
    for k in (8, 16):
        assert sorted(s.answer for s in samples if s.meta["length_k"] == k) == ["no", "no", "yes", "yes"]


def test_same_seed_same_bytes_and_other_seed_other_positions(tmp_path, folder):
    build_vh(tmp_path / "a", lengths=(8,), per_length=2, seed=5, images=folder)
    build_vh(tmp_path / "b", lengths=(8,), per_length=2, seed=5, images=folder)
    build_vh(tmp_path / "c", lengths=(8,), per_length=2, seed=6, images=folder)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b") != _digest(tmp_path / "c")


@pytest.mark.parametrize("needles", [1, 2])
def test_neither_counting_pictures_nor_comparing_files_answers(tmp_path, folder, needles):
    # the old builder showed one more distinct picture in every yes sample than in every no sample, and its
    # query was a byte copy of the haystack image (the same file, even)
    import numpy as np
    from PIL import Image

    build_vh(tmp_path / "ds", lengths=(8, 16), per_length=4, needles=needles, seed=2, images=folder)
    ds = Dataset(tmp_path / "ds")
    samples = list(ds)
    for k in (8, 16):
        counts = {s.answer: len({_colour(ds, c) for c in _images(s)[0]}) for s in samples if s.meta["length_k"] == k}
        assert set(counts) == {"yes", "no"} and counts["yes"] == counts["no"] == 8 - needles, counts
    transforms = set()
    for sample in samples:
        context, queries = _images(sample)
        files = {ds.resolve_media(c).read_bytes() for c in context}
        for query, shown in zip(queries, sample.meta["query_present"], strict=True):
            assert query not in context and ds.resolve_media(query).read_bytes() not in files
            with Image.open(ds.resolve_media(query)) as im:
                pixels = np.asarray(im.convert("RGB"))
            if shown:  # same picture, never the same pixels: another size than any copy of it in the haystack
                twins = [c for c in context if _colour(ds, c) == _colour(ds, query)]
                assert twins and all(Image.open(ds.resolve_media(c)).size != pixels.shape[1::-1] for c in twins)
        transforms.update(repr(t) for t in sample.meta["query_transforms"])
    assert len(transforms) == sum(len(_images(s)[1]) for s in samples)  # drawn per query, from the seed


def test_pixel_limits_are_parameters(tmp_path, folder):
    rule = Qwen2VLRule(min_pixels=8 * 28 * 28, max_pixels=64 * 28 * 28)
    build_vh(tmp_path / "ds", lengths=(8,), per_length=2, images=folder, min_pixels=rule.min_pixels,
             max_pixels=rule.max_pixels, seed=1)
    ds = Dataset(tmp_path / "ds")
    for sample in ds:
        assert measure(sample, ds.media_root, "llama2-sp", rule) == 8192
        assert sample.meta["image_tokens_rule"] == rule.name
        for path in _images(sample)[0]:
            assert 8 <= rule.tokens_for_file(ds.media_root / path) <= 64


def test_grid_for_is_exact_and_keeps_the_aspect_near():
    rule = Qwen2VLRule()
    assert grid_for(120, 1.3, rule) == (12, 10)  # 12 x 10 = 120: aspect 1.2 is the closest factor pair
    assert grid_for(13, 1.0, rule) is None  # 13 x 1 is far from square
    assert grid_for(3, 3.0, Qwen2VLRule()) is None  # under min_pixels (4 patches)


def test_bad_options_are_config_errors(tmp_path):
    with pytest.raises(ConfigError):
        build_vh(tmp_path / "x", lengths=(12,))
    with pytest.raises(ConfigError):
        build_vh(tmp_path / "x", needles=0)
    (tmp_path / "few").mkdir()
    with pytest.raises(ConfigError):
        build_vh(tmp_path / "x", images=tmp_path / "few")


def test_cli_build_run_score(tmp_path):
    def niah(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, cwd=tmp_path,
                              check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    # the embedded image pool (default) once, here
    assert "built 2 samples (vh_multi: 2)" in niah("build", "mmlongbench-vh", "--out", "ds", "--lengths", "8k",
                                                   "--per-cell", "2", "--needles", "2", "--no-progress")
    niah("run", "ds", "--model", "baseline:oracle", "--out", "run", "--no-progress")
    printed = niah("score", "run")

    scores = official_scores(tmp_path / "run" / "scores.json")
    assert scores["datasets"]["vh_multi"]["8K"] == 100.0
    # two correct samples are no certainty: the interval is Wilson's over them (34.2-100), not the bootstrap's
    # zero width, put through the official rule, whose flip below 50 keeps every value of it at 50 or more;
    # and an overall the official rule leaves undefined (one category of four) says so
    task = json.loads((tmp_path / "run" / "scores.json").read_text())["by_task"]["vh_multi"]
    assert task["score"] == 100.0 and 50.0 <= task["ci95"][0] < 52.0 and task["ci95"][1] == 100.0
    assert ("mmlongbench: score over the part of the grid the run holds 100.0% (95% CI 50.7-100.0, wilson), n=2; "
            "official overall undefined: the official rule needs parts of the grid (tasks, data sets) the run lacks; "
            "per task below") in printed


def test_text_and_image_needle_sets_have_exact_haystack_lengths(tmp_path):
    from niah.benchmarks.mmlongbench.build import NIAH_TASKS, build_niah
    from niah.benchmarks.mmlongbench.score import score_sample
    from niah.models.baselines import format_gold
    from niah.sample import TextPart
    from niah.tokens import get_tokenizer

    rule = Qwen2VLRule(min_pixels=4 * 784, max_pixels=256 * 784)
    counts = build_niah(tmp_path / "ds", lengths=(8,), depths=(0.4,), seed=2, max_pixels=rule.max_pixels)
    assert counts == {f"mm_niah_{t}": 1 for t in NIAH_TASKS}
    ds = Dataset(tmp_path / "ds")
    tok = get_tokenizer("llama2-sp")
    for sample in ds:
        text = "".join(p.text for p in sample.context if isinstance(p, TextPart))
        images = [p.path for p in sample.context if isinstance(p, ImagePart)]
        assert tok.count(text) + sum(rule.tokens_for_file(ds.resolve_media(p)) for p in images) == 8192
        assert sample.meta["context_length"] == 8192 and sample.meta["length_k"] == 8
        assert 0.4 <= sample.depth < 0.6  # a random depth inside the requested cell
        # the gold, answered as the oracle does, scores 1 under the data set's official rule
        assert score_sample(sample, format_gold(sample.answer)).scores["official"] == 1.0


def test_image_needle_sets_record_the_files_they_show_and_the_audit_finds_them(tmp_path):
    from niah.audit.dataset import AuditOptions, audit_dataset
    from niah.benchmarks.mmlongbench.build import build_niah

    image_tasks = [f"mm_niah_{t}" for t in ("retrieval-image", "counting-image", "reasoning-image")]
    build_niah(tmp_path / "ds", tasks=[t.removeprefix("mm_niah_") for t in image_tasks], lengths=(8,),
               depths=(0.2, 0.6), seed=1)
    ds = Dataset(tmp_path / "ds")
    for sample in ds:
        # the needle list names the very files the parts show (media/K8/...), which exist in the dataset
        shown = {p.path for p in sample.context if isinstance(p, ImagePart)}
        assert sample.meta["needles"] and set(sample.meta["needles"]) <= shown, sample.id
        assert all(ds.resolve_media(path).is_file() for path in sample.meta["needles"])
    report = audit_dataset(tmp_path / "ds", AuditOptions(), progress=False)
    delivered = {p.task: p.score for p in report.probes if p.probe == "needles-delivered"}
    assert delivered == dict.fromkeys(image_tasks, 100.0)
    assert {p.task for p in report.probes if p.probe.startswith("image-position")} == set(image_tasks)


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Fail the test (instead of hanging the suite) when its body runs longer than ``seconds``."""
    def expire(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Six 56x56 pictures: 4 tokens each, and only 4, 6, 8, 9 ... tokens near their square aspect."""
    from PIL import Image

    root = tmp_path_factory.mktemp("tiny")
    for i in range(6):
        Image.new("RGB", (56, 56), (40 * i, 100, 200 - 30 * i)).save(root / f"{i}.jpg")
    return root


def test_tiny_images_fill_the_length_exactly_without_spinning(tmp_path, tiny):
    rule = Qwen2VLRule(min_pixels=4 * 784, max_pixels=16384 * 784)
    with _within(8):
        build_vh(tmp_path / "ds", lengths=(8,), per_length=2, images=tiny)
    ds = Dataset(tmp_path / "ds")
    assert [measure(s, ds.media_root, "llama2-sp", rule) for s in ds] == [8192, 8192]


def test_a_length_the_images_cannot_sum_to_fails_fast(tmp_path, tiny):
    # every image exactly 2x2 patches (the pixel limits allow no other size): 16K is out of reach
    with _within(8), pytest.raises(ConfigError, match="cannot fill 16384 tokens exactly with these images"):
        build_vh(tmp_path / "ds", lengths=(16,), per_length=2, images=tiny, max_pixels=4 * 784)


def test_nearest_orders_as_sorting_by_distance():
    from niah.benchmarks.mmlongbench.build import _nearest

    for center in (-3.0, 0.5, 1.0, 4.5, 7.25, 9.0, 12.0):
        for low, high in ((1, 9), (3, 3), (5, 2)):
            expected = sorted(range(low, high + 1), key=lambda t: abs(t - center))
            assert list(_nearest(center, low, high)) == expected, (center, low, high)
