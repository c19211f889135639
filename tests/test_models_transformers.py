"""The transformers backend with a tiny random-weight LLaVA built in the test (no download, no torchvision):
an interleaved two-image sample goes through the processor and chat template with its images in order."""

from __future__ import annotations

import asyncio
import json

import pytest
import torch

from niah.models import load_backend
from niah.models.base import ModelRequest
from niah.prompts.render import render_prompt
from niah.run import RESPONSES_JSONL, run_dataset_sync
from niah.sample import Dataset, ImagePart
from support.datasets import write_mm_niah_like
from support.tiny_llava import build_tiny_llava


@pytest.fixture(scope="module")
def tiny_llava(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("llava") / "model")


@pytest.fixture(scope="module")
def two_image_dataset(tmp_path_factory):
    return write_mm_niah_like(tmp_path_factory.mktemp("ds") / "ds", per_task=1, tasks=("reasoning-image",),
                              filler_repeats=1)


def test_images_reach_the_processor_in_prompt_order(tiny_llava, two_image_dataset):
    ds = Dataset(two_image_dataset)
    sample = next(iter(ds))
    prompt = render_prompt(sample, ds.media_root)
    backend = load_backend(f"hf:{tiny_llava}", options={"dtype": "float32"})
    text, images = backend.build_inputs(ModelRequest(prompt=prompt, generation=prompt.generation, sample=sample))
    # the chat template wrote one placeholder per image, between the right pieces of text
    assert text.startswith("user : The river bends") and text.endswith("assistant : ")
    assert text.count("<image>") == 2
    before, first, rest = text.partition("<image>")
    assert "Children watch" in before and "The river" in rest.partition("<image>")[0]
    paths = [p.path for p in sample.context if isinstance(p, ImagePart)]
    from PIL import Image

    for img, rel in zip(images, paths, strict=True):
        with Image.open(ds.resolve_media(rel)) as original:
            assert img.tobytes() == original.convert("RGB").tobytes() and img.size == original.size
    # and the processor keeps that order: pixel_values[k] is image k processed alone
    processor = backend._processor
    batch = processor(text=text, images=images, return_tensors="pt")
    for k, img in enumerate(images):
        alone = processor.image_processor(images=[img], return_tensors="pt")["pixel_values"][0]
        assert torch.allclose(batch["pixel_values"][k], alone)
    image_id = processor.tokenizer.convert_tokens_to_ids("<image>")
    assert int((batch["input_ids"] == image_id).sum()) == 2 * 4  # 2 images x (28/14)^2 patch tokens


def test_run_dataset_with_the_hf_backend_answers_with_usage(tiny_llava, two_image_dataset, tmp_path):
    summary = run_dataset_sync(two_image_dataset, f"hf:{tiny_llava}", tmp_path / "run", progress=False,
                               model_options={"device": "cpu", "dtype": "float32"})
    assert summary.answered == 1 and summary.failed == 0
    row = json.loads((tmp_path / "run" / RESPONSES_JSONL).read_text())
    assert isinstance(row["response"], str)
    assert row["usage"]["completion_tokens"] <= 16 and row["usage"]["prompt_tokens"] > 8
    again = run_dataset_sync(two_image_dataset, f"hf:{tiny_llava}", tmp_path / "run2", progress=False,
                             model_options={"device": "cpu", "dtype": "float32"},
                             cache_dir=tmp_path / "run" / "cache")
    assert again.cached == 1  # same weights, prompt and settings: same key


def test_hf_backend_refuses_missing_paths_and_unknown_options(tmp_path):
    from niah.util.errors import ConfigError

    with pytest.raises(ConfigError, match="does not exist"):
        load_backend(f"hf:{tmp_path / 'nothing'}")
    with pytest.raises(ConfigError, match="unknown options"):
        load_backend(f"hf:{tmp_path}", options={"colour": "blue"})


def test_greedy_generation_is_deterministic(tiny_llava, two_image_dataset):
    ds = Dataset(two_image_dataset)
    sample = next(iter(ds))
    prompt = render_prompt(sample, ds.media_root)
    backend = load_backend(f"hf:{tiny_llava}")
    request = ModelRequest(prompt=prompt, generation=prompt.generation, sample=sample)
    first = asyncio.run(backend.generate(request))
    second = asyncio.run(backend.generate(request))
    assert first.text == second.text and first.usage == second.usage
