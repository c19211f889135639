"""Prompt rendering (MM-NIAH official prompt) and the capability policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from niah.benchmarks.mm_niah.prompt import MULTIPLE_CHOICE_INSTRUCTION, OPEN_INSTRUCTION
from niah.models.base import Capabilities, GenerationSettings
from niah.prompts.render import fit_to_capabilities, register_renderer, render_prompt
from niah.prompts.types import PromptOptions
from niah.sample import ImagePart, Sample, TextPart, VideoPart
from niah.util.errors import ConfigError


def _sample(task: str = "retrieval-text", *, context=None, question="What is it?", choices=None, answer="oak",
            meta=None, benchmark: str = "mm-niah") -> Sample:
    return Sample(id=f"{task}/0", benchmark=benchmark, task=task,
                  context=context if context is not None else [TextPart("Hay. The needle is oak. Hay.")],
                  question=[TextPart(question)], answer=answer, choices=choices, meta=meta or {})


def test_open_ended_prompt_is_context_newline_question_newline_instruction():
    prompt = render_prompt(_sample(), Path("."))
    assert prompt.text() == f"Hay. The needle is oak. Hay.\nWhat is it?\n{OPEN_INSTRUCTION}"
    assert prompt.generation == GenerationSettings(temperature=0.0, max_tokens=16)
    assert prompt.system is None


def test_counting_tasks_get_32_new_tokens_and_the_open_instruction():
    prompt = render_prompt(_sample("counting-text", answer=[1, 2]), Path("."))
    assert prompt.generation.max_tokens == 32
    assert prompt.text().endswith("\n" + OPEN_INSTRUCTION)
    assert render_prompt(_sample("counting-image", answer=[0]), Path(".")).generation.max_tokens == 32


def test_text_options_are_lettered_lines_before_the_choice_instruction():
    sample = _sample("reasoning-text", choices=[[TextPart("red")], [TextPart("blue")], [TextPart("green")]],
                     answer=1)
    prompt = render_prompt(sample, Path("."))
    assert prompt.text() == ("Hay. The needle is oak. Hay.\nWhat is it?\nA. red\nB. blue\nC. green\n"
                             + MULTIPLE_CHOICE_INSTRUCTION)
    assert prompt.generation.max_tokens == 16


def test_image_options_sit_where_the_official_image_placeholders_are():
    context = [TextPart("Doc one."), ImagePart("media/c0.png"), TextPart("Doc two.")]
    choices = [[ImagePart(f"media/o{i}.png")] for i in range(2)]
    sample = _sample("retrieval-image", context=context, question="Which image?", choices=choices, answer=0)
    prompt = render_prompt(sample, Path("."))
    assert prompt.preview() == ("Doc one.<image: media/c0.png>Doc two.\nWhich image?\nA. <image: media/o0.png>"
                                f"\nB. <image: media/o1.png>\n{MULTIPLE_CHOICE_INSTRUCTION}")
    images = [p.path for p in prompt.parts if isinstance(p, ImagePart)]
    assert images == ["media/c0.png", "media/o0.png", "media/o1.png"]  # images_list, then choice images


def test_question_first_variant_puts_question_and_options_before_the_context():
    sample = _sample("reasoning-text", choices=[[TextPart("red")], [TextPart("blue")]], answer=0)
    prompt = render_prompt(sample, Path("."), PromptOptions(question_first=True))
    assert prompt.text() == ("What is it?\nA. red\nB. blue\nHay. The needle is oak. Hay.\n"
                             + MULTIPLE_CHOICE_INSTRUCTION)


def test_unknown_family_uses_the_generic_renderer_and_registered_families_their_own():
    generic = render_prompt(_sample(benchmark="some-bench"), Path("."))
    assert generic.text() == "Hay. The needle is oak. Hay.\nWhat is it?"
    assert generic.generation.max_tokens == 128

    def shouting(sample, options):
        from niah.prompts.types import PromptBody

        return PromptBody(segments=[("question", TextPart("Q!"))], generation=GenerationSettings(max_tokens=3),
                          system="be loud")

    register_renderer("shout-bench", shouting)
    prompt = render_prompt(_sample(benchmark="shout-bench"), Path("."))
    assert (prompt.text(), prompt.system, prompt.generation.max_tokens) == ("Q!", "be loud", 3)


def _image_sample(n_images: int = 4) -> Sample:
    context: list = []
    for i in range(n_images):
        context += [TextPart(f"Sentence {i} " * 50), ImagePart(f"media/{i}.png")]
    meta = {"text_tokens": sum(len(p.text) for p in context if isinstance(p, TextPart)) // 4,
            "image_tokens": 256 * n_images, "num_images": n_images}
    return _sample("counting-image", context=context, question="How many?", answer=[0] * n_images, meta=meta)


def test_within_limits_nothing_changes_and_no_policy_is_recorded():
    sample = _image_sample()
    fit = fit_to_capabilities(render_prompt(sample, Path(".")), sample, Capabilities(max_images=8))
    assert fit.prompt is not None and fit.policy is None and fit.prompt.num_images == 4


def test_skip_policy_records_the_reason():
    sample = _image_sample()
    fit = fit_to_capabilities(render_prompt(sample, Path(".")), sample, Capabilities(max_images=2))
    assert fit.prompt is None
    assert fit.policy == "skip: 4 images exceed the model's max_images=2"
    fit = fit_to_capabilities(render_prompt(sample, Path(".")), sample, Capabilities(vision=False))
    assert fit.prompt is None and "takes no images" in fit.policy


def test_truncate_drops_middle_context_images_and_says_so():
    sample = _image_sample()
    fit = fit_to_capabilities(render_prompt(sample, Path(".")), sample, Capabilities(max_images=2),
                              PromptOptions(over_limit="truncate"))
    assert fit.prompt is not None
    kept = [p.path for p in fit.prompt.parts if isinstance(p, ImagePart)]
    assert kept == ["media/0.png", "media/3.png"]
    assert fit.policy == "truncate: dropped 2 middle context images (max_images=2)"


def test_truncate_cuts_context_text_from_the_middle_but_never_the_question():
    sample = _image_sample(2)
    prompt = render_prompt(sample, Path("."))
    fit = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=700),
                              PromptOptions(over_limit="truncate"))
    assert fit.prompt is not None
    text = fit.prompt.text()
    assert text.startswith("Sentence 0") and text.endswith(OPEN_INSTRUCTION)
    assert "How many?" in text and len(text) < len(prompt.text())
    assert fit.policy.startswith("truncate: cut ")


def test_downscale_shrinks_images_to_meet_the_context_and_skip_when_text_alone_is_too_long():
    sample = _image_sample(4)
    prompt = render_prompt(sample, Path("."))
    fit = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=700),
                              PromptOptions(over_limit="downscale"))
    assert fit.prompt is not None and 0 < fit.prompt.image_scale < 1
    assert fit.policy.startswith("downscale: images scaled by")
    fit = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=50),
                              PromptOptions(over_limit="downscale"))
    assert fit.prompt is None and "downscaling images cannot help" in fit.policy


def test_official_policy_needs_a_registered_rule():
    sample = _image_sample()
    with pytest.raises(ConfigError, match="no official over-limit rule"):
        fit_to_capabilities(render_prompt(sample, Path(".")), sample, Capabilities(max_images=1),
                            PromptOptions(over_limit="official"))


def test_video_frames_become_uniformly_sampled_images_for_models_without_video():
    frames = tuple(f"media/f{i}.png" for i in range(10))
    sample = _sample("video-task", context=[TextPart("Watch."), VideoPart(frames=frames)], benchmark="vbench")
    fit = fit_to_capabilities(render_prompt(sample, Path(".")), sample, Capabilities(max_images=4))
    assert fit.prompt is not None
    # the centre of each of 4 equal segments of the 10 frames, as a video file is sampled (not first and last)
    assert [p.path for p in fit.prompt.parts if isinstance(p, ImagePart)] == [
        "media/f1.png", "media/f3.png", "media/f6.png", "media/f8.png"]
    assert fit.policy == "video: 4 of 10 frames sampled uniformly"
    file_only = _sample("video-task", context=[VideoPart(path="media/v.mp4")], benchmark="vbench")
    fit = fit_to_capabilities(render_prompt(file_only, Path(".")), file_only, Capabilities(video=True))
    assert fit.prompt is not None and fit.prompt.has_video

