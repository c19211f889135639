"""MileBench's official prompt (instruction, context with images in place, choice list) and its official
truncation (keep the end, instruction always kept, per-image token cost), end to end through a run."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from niah.benchmarks.milebench.official import load_milebench, write_milebench_dataset
from niah.benchmarks.milebench.prompt import (
    DEFAULT_IMAGE_TOKENS,
    MAX_NEW_TOKENS,
    POLICY_NAME,
    MileBenchTruncation,
    use_official_truncation,
)
from niah.models.base import Capabilities, GenerationSettings
from niah.prompts.render import fit_to_capabilities, has_official_fit, render_prompt
from niah.prompts.types import PromptOptions
from niah.run import run_dataset_sync
from niah.sample import ImagePart, Sample
from niah.scoring.score import score_run
from niah.tokens import TextTokenizer, get_tokenizer
from niah.util.errors import ConfigError, DataError
from support.datasets import png_bytes
from support.scores import official_scores

OFFICIAL = PromptOptions(over_limit="official")


class CharTokenizer(TextTokenizer):
    """One token per character, so every budget in these tests can be checked by counting characters."""

    name = "chars"

    def encode(self, text: str) -> list[int]:
        return [ord(ch) for ch in text]

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(chr(i) for i in ids)


def _write_milebench(root: Path, name: str, question_type: str, items: list[dict],
                     instructions: Sequence[str]) -> Path:
    """A MileBench data set folder as documented: ``{name}/{name}.json`` and ``{name}/images/``."""
    folder = root / name
    (folder / "images").mkdir(parents=True)
    meta = {"dataset": name, "split": "test", "num_sample": len(items), "task_instruction": list(instructions),
            "question_type": question_type}
    (folder / f"{name}.json").write_text(json.dumps({"meta_data": meta, "data": items}), encoding="utf-8")
    for item in items:
        for rel in item["task_instance"]["images_path"]:
            (folder / "images" / rel).write_bytes(png_bytes(zlib.crc32(rel.encode())))  # real, distinct images
    return folder


def _item(sample_id: int, context: str, images: list[str], response: str, choices: list[str] | None = None,
          instruction_id: int = 0) -> dict:
    instance: dict = {"context": context, "images_path": images}
    if choices is not None:
        instance["choice_list"] = choices
    return {"sample_id": sample_id, "task_instruction_id": instruction_id, "task_instance": instance,
            "response": response, "image_quantity_level": "Few"}


def _one_sample(tmp_path: Path, context: str, images: list[str], *, instruction: str = "Ins",
                choices: list[str] | None = None, name: str = "WebQA") -> Sample:
    question_type = "multi-choice" if choices is not None else "open-ended"
    answer = choices[0] if choices else "x"
    folder = _write_milebench(tmp_path, name, question_type, [_item(0, context, images, answer, choices)],
                              [instruction])
    (sample,) = load_milebench(folder)
    return sample


# ------------------------------------------------------------------------------------------- prompt text


def test_multi_choice_prompt_is_instruction_context_with_images_then_lettered_choice_list(tmp_path):
    folder = _write_milebench(tmp_path, "ALFRED", "multi-choice", [
        _item(7, "Goal: make tea. Step 1: {image#1} Step 2: {image#2} What is the next step?", ["1.jpg", "2.jpg"],
              "boil water", ["boil water", "pour milk"], instruction_id=1),
    ], ["Unused instruction.", "Predict the next step."])
    (sample,) = load_milebench(folder)
    prompt = render_prompt(sample, folder / "images")
    assert prompt.preview() == (
        "Predict the next step.\nGoal: make tea. Step 1: <image: 1.jpg> Step 2: <image: 2.jpg> What is the next step?"
        "\nChoice list: \nA. boil water\nB. pour milk\nYour answer is: ")
    assert [p.path for p in prompt.parts if isinstance(p, ImagePart)] == ["1.jpg", "2.jpg"]
    assert prompt.roles == ["instruction", "context", "context", "context", "context", "context", "choice"]
    assert prompt.generation == GenerationSettings(temperature=0.0, max_tokens=MAX_NEW_TOKENS) == \
        GenerationSettings(temperature=0.0, max_tokens=512)
    assert prompt.system is None


def test_open_ended_prompt_has_no_choice_list_and_tables_are_images(tmp_path):
    sample = _one_sample(tmp_path, "{image#1} and {table#2}: Where was this photo taken?", ["a.jpg", "t.png"],
                         instruction="Answer the question.")
    prompt = render_prompt(sample, tmp_path)
    assert prompt.preview() == "Answer the question.\n<image: a.jpg> and <image: t.png>: Where was this photo taken?"
    assert prompt.text() == "Answer the question.\n and : Where was this photo taken?"


def test_gpr1200_options_have_no_letters(tmp_path):
    sample = _one_sample(tmp_path, "Query: {image#1}", ["q.jpg"], instruction="Find the match.",
                         choices=["cat photo", "dog photo"], name="GPR1200")
    assert render_prompt(sample, tmp_path).preview() == (
        "Find the match.\nQuery: <image: q.jpg>\nChoice list: \ncat photo\ndog photo\nYour answer is: ")


def test_renderer_refuses_what_the_official_prompt_cannot_express(tmp_path):
    sample = _one_sample(tmp_path, "q {image#1}", ["1.jpg"], choices=["a", "b"], name="TQA")
    with pytest.raises(ConfigError, match="no question-first variant"):
        render_prompt(sample, tmp_path, PromptOptions(question_first=True))
    relabelled = replace(sample, meta={**sample.meta, "choice_labels": "none"})
    with pytest.raises(DataError, match="choice_labels"):
        render_prompt(relabelled, tmp_path)
    no_instruction = replace(sample, meta={k: v for k, v in sample.meta.items() if k != "instruction"})
    with pytest.raises(DataError, match="task instruction"):
        render_prompt(no_instruction, tmp_path)


# ------------------------------------------------------------------------------------------- truncation


def _truncate(sample: Sample, max_context: int | None, image_tokens: int = 5, **caps):
    fit = MileBenchTruncation(tokenizer=CharTokenizer(), image_tokens=image_tokens)
    return fit(render_prompt(sample, Path(".")), sample, Capabilities(max_context_tokens=max_context, **caps))


@pytest.fixture
def three_fragments(tmp_path) -> Sample:
    # fragments "aaaa" | "bb" | "cccccc?" (4, 2, 7 chars) with images 1 and 2 between; instruction "Ins" (3)
    return _one_sample(tmp_path, "aaaa{image#1}bb{image#2}cccccc?", ["1.jpg", "2.jpg"])


def test_everything_fits_at_the_exact_budget_and_nothing_is_recorded(three_fragments):
    # 3 instruction + 13 text + 2 * 5 image tokens = 26
    result = _truncate(three_fragments, 26)
    assert result.prompt is not None and result.policy is None and result.notes == []
    assert result.prompt.preview() == "Ins\naaaa<image: 1.jpg>bb<image: 2.jpg>cccccc?"
    assert _truncate(three_fragments, None).prompt.preview() == result.prompt.preview()


def test_truncation_keeps_the_end_and_a_leading_image_when_the_next_text_does_not_fit(three_fragments):
    # budget 22: "cccccc?" 7, image 2 -> 12, "bb" -> 14, image 1 -> 19, "aaaa" would make 23 > 22: stop
    result = _truncate(three_fragments, 25)
    assert result.prompt.preview() == "Ins\n<image: 1.jpg>bb<image: 2.jpg>cccccc?"
    assert result.policy == (f"{POLICY_NAME}: kept 2 of 2 images, cut 4 tokens (budget 22 = max_context 25 - 3 "
                             "instruction tokens; 5 tokens per image; tokenizer chars)")
    assert result.prompt.policy == result.policy


def test_an_image_whose_cost_does_not_fit_ends_the_walk_even_if_earlier_text_would_fit(three_fragments):
    # budget 18: "cccccc?" 7, image 2 -> 12, "bb" -> 14, image 1 would make 19 > 18: stop ("aaaa" would fit)
    result = _truncate(three_fragments, 21)
    assert result.prompt.preview() == "Ins\nbb<image: 2.jpg>cccccc?"
    assert result.policy.startswith(f"{POLICY_NAME}: kept 1 of 2 images, cut 4 tokens (budget 18 ")
    # budget 10: "cccccc?" 7, image 2 would make 12 > 10: stop with the question only
    result = _truncate(three_fragments, 13)
    assert result.prompt.preview() == "Ins\ncccccc?"
    assert result.policy.startswith(f"{POLICY_NAME}: kept 0 of 2 images, cut 6 tokens (budget 10 ")


def test_the_last_fragment_alone_too_long_is_cut_to_its_last_tokens(three_fragments):
    # budget 4 < 7: the question fragment keeps its last 4 characters, the instruction stays whole
    result = _truncate(three_fragments, 7)
    assert result.prompt.preview() == "Ins\nccc?"
    assert result.prompt.roles == ["instruction", "context"]
    assert result.policy.startswith(f"{POLICY_NAME}: kept 0 of 2 images, cut 9 tokens (budget 4 ")


def test_budget_at_or_below_zero_follows_the_official_slice(three_fragments):
    # ids[-0:] is the whole fragment; ids[-(-2):] drops its first 2 tokens. The instruction is never cut.
    result = _truncate(three_fragments, 3)
    assert result.prompt.preview() == "Ins\ncccccc?"
    assert "kept 7 of 7 tokens of the last fragment" in result.policy
    result = _truncate(three_fragments, 1)
    assert result.prompt.preview() == "Ins\ncccc?"
    assert "the instruction alone (3 tokens) fills max_context=1" in result.policy


def test_cutting_the_last_fragment_keeps_the_choice_list_end_and_its_roles(tmp_path):
    sample = _one_sample(tmp_path, "x{image#1}Which?", ["1.jpg"], choices=["p", "q"], name="TQA")
    suffix = "\nChoice list: \nA. p\nB. q\nYour answer is: "
    # instruction "Ins" (3); keep the last len(suffix) + 3 characters: "ch?" + the whole choice list
    result = _truncate(sample, 3 + len(suffix) + 3)
    assert result.prompt.preview() == "Ins\nch?" + suffix
    assert result.prompt.roles == ["instruction", "context", "choice"]
    assert result.policy.startswith(f"{POLICY_NAME}: kept 0 of 1 images, cut 4 tokens ")


def test_image_count_limits_still_apply_after_the_official_truncation(three_fragments):
    result = _truncate(three_fragments, 100, max_images=1)
    assert result.prompt is None and "2 images exceed the model's max_images=1" in result.policy
    result = _truncate(three_fragments, 13, max_images=1)  # truncation leaves no image: fine
    assert result.prompt is not None and result.prompt.num_images == 0
    assert _truncate(three_fragments, 100, vision=False).prompt is None


def test_registered_default_counts_with_cl100k_and_576_tokens_per_image(tmp_path):
    sample = _one_sample(tmp_path, "{image#1} Where?", ["a.jpg"], instruction="Answer.")
    assert has_official_fit("milebench") and DEFAULT_IMAGE_TOKENS == 576
    prompt = render_prompt(sample, tmp_path)
    tokens = get_tokenizer("cl100k_base")
    text_tokens = tokens.count("Answer.") + tokens.count(" Where?")
    fitted = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=text_tokens + 576), OFFICIAL)
    assert fitted.policy is None and fitted.prompt.num_images == 1
    fitted = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=text_tokens + 575), OFFICIAL)
    assert fitted.prompt.preview() == "Answer.\n Where?"
    assert fitted.policy == (f"{POLICY_NAME}: kept 0 of 1 images, cut 0 tokens (budget {text_tokens + 575 - 2} = "
                             f"max_context {text_tokens + 575} - 2 instruction tokens; 576 tokens per image; "
                             "tokenizer cl100k_base)")


def test_prompt_options_override_the_image_cost_and_tokenizer_from_the_cli(tmp_path):
    """`niah run -P milebench_image_tokens=100 -P milebench_tokenizer=o200k_base` reaches the official rule."""
    sample = _one_sample(tmp_path, "{image#1} Where?", ["a.jpg"], instruction="Answer.")
    prompt = render_prompt(sample, tmp_path)
    tokens = get_tokenizer("o200k_base")
    text_tokens = tokens.count("Answer.") + tokens.count(" Where?")
    opts = PromptOptions(over_limit="official", extra=(("milebench_image_tokens", "100"),
                                                       ("milebench_tokenizer", "o200k_base")))
    fitted = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=text_tokens + 100), opts)
    assert fitted.policy is None and fitted.prompt.num_images == 1  # 576 would not have fit
    fitted = fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=text_tokens + 99), opts)
    assert fitted.prompt.num_images == 0
    assert "100 tokens per image; tokenizer o200k_base" in fitted.policy
    with pytest.raises(ConfigError, match="integer"):
        fit_to_capabilities(prompt, sample, Capabilities(max_context_tokens=10), PromptOptions(
            over_limit="official", extra=(("milebench_image_tokens", "many"),)))


def test_a_cut_inside_a_multibyte_character_drops_the_partial_token(tmp_path):
    tokens = get_tokenizer("cl100k_base")
    text = "héllo 日本語 wörld"
    ids = tokens.encode(text)
    with pytest.raises(ValueError):  # the last 4 tokens start inside 語
        tokens.decode(ids[-4:])
    sample = _one_sample(tmp_path, text, [], instruction="I")
    assert tokens.count("I") == 1
    result = MileBenchTruncation()(render_prompt(sample, tmp_path), sample, Capabilities(max_context_tokens=5))
    assert result.prompt.preview() == "I\n wörld"
    assert f"cut {len(ids) - 3} tokens" in result.policy


def test_use_official_truncation_registers_another_models_settings(tmp_path, three_fragments):
    try:
        fit = use_official_truncation(CharTokenizer(), image_tokens=5)
        result = fit_to_capabilities(render_prompt(three_fragments, tmp_path), three_fragments,
                                     Capabilities(max_context_tokens=21), OFFICIAL)
        assert result.prompt.preview() == "Ins\nbb<image: 2.jpg>cccccc?" and fit.image_tokens == 5
        with pytest.raises(ConfigError):
            use_official_truncation("no-such-tokenizer")
        with pytest.raises(ConfigError):
            MileBenchTruncation(image_tokens=-1)
    finally:
        use_official_truncation()


# ------------------------------------------------------------------------------------------- end to end


@pytest.mark.parametrize(("name", "question_type", "choices", "metric_key"), [
    ("ALFRED", "multi-choice", ["turn left", "turn right", "open the fridge"], "Accuracy"),
    ("GPR1200", "multi-choice", ["a red car", "a blue boat", "a green tree"], "Accuracy"),
    ("TextNeedleInAHaystack", "open-ended", None, "Accuracy"),
    ("WebQA", "open-ended", None, "Rouge-L f"),
])
def test_oracle_run_with_official_truncation_scores_one(tmp_path, name, question_type, choices, metric_key):
    if choices:
        golds = choices[1:] + choices[:1]
    else:  # a needle gold is one word (it must be one of the reply's words); ROUGE-L takes phrases
        golds = ["4821", "oak", "seven"] if "Needle" in name else ["a red car", "the blue house", "seven"]
    long_text = "A sentence of filler that the truncation may cut. " * 20
    items = [
        _item(0, "Short {image#1} question?", ["0.jpg"], golds[0], choices),
        _item(1, long_text + "{image#1} more {image#2} and {image#3} What is it?", ["1a.jpg", "1b.jpg", "1c.jpg"],
              golds[1], choices),
        _item(2, "Text only: what is the needle?", [], golds[2], choices),
    ]
    folder = _write_milebench(tmp_path / "data", name, question_type, items, ["Look closely.", "Unused."])
    dataset = write_milebench_dataset(folder, tmp_path / "ds")
    run_dir = tmp_path / "run"
    summary = run_dataset_sync(dataset, "baseline:oracle", run_dir, progress=False, prompt_options=OFFICIAL,
                               model_options={"max_context": 1400})
    assert summary.finished and summary.answered == 3 and summary.failed == summary.skipped == 0
    rows = [json.loads(line) for line in (run_dir / "responses.jsonl").read_text().splitlines()]
    policies = {row["id"]: row["prompt_policy"] for row in rows}
    # item 1: 3 images (1728 tokens) cannot all fit in 1400; the others fit as they are
    assert policies[f"{name}/0"] is None and policies[f"{name}/2"] is None
    assert policies[f"{name}/1"].startswith(f"{POLICY_NAME}: kept 2 of 3 images, cut ")
    run = json.loads((run_dir / "run.json").read_text())
    assert run["generation"]["by_task"][name] == {"max_tokens": 512, "temperature": 0.0}
    score_summary = score_run(run_dir)
    assert score_summary.scored == 3
    scores = official_scores(run_dir / "scores.json")
    assert scores[name][metric_key] == pytest.approx(100.0)


# ------------------------------------------------------------------------------------ truncation edges, sweep


@pytest.mark.parametrize(("max_context", "expected"), [
    # instruction "Ins" = 3; fragments "aaaa" | "bb" | "cccccc?" = 4, 2, 7; each image 5
    (26, "aaaa<image: 1.jpg>bb<image: 2.jpg>cccccc?"),  # exactly everything
    (25, "<image: 1.jpg>bb<image: 2.jpg>cccccc?"),  # one short: "aaaa" no longer fits
    (22, "<image: 1.jpg>bb<image: 2.jpg>cccccc?"),  # exactly up to image 1 (19) + 3 spare: still no "aaaa"
    (21, "bb<image: 2.jpg>cccccc?"),  # budget 18 = exactly at the "bb" boundary (14) + 4: image 1 (5) does not fit
    (17, "bb<image: 2.jpg>cccccc?"),  # budget 14: exactly the fragment boundary after "bb"
    (16, "<image: 2.jpg>cccccc?"),  # budget 13: one short of "bb"
    (15, "<image: 2.jpg>cccccc?"),  # budget 12: exactly question + image 2
    (14, "cccccc?"),  # budget 11: image 2 (12) no longer fits
    (10, "cccccc?"),  # budget 7: exactly the last fragment
    (9, "ccccc?"),  # budget 6: the last fragment alone is too long, its last 6 tokens survive
])
def test_truncation_sweep_keeps_the_instruction_and_the_end(three_fragments, max_context, expected):
    result = _truncate(three_fragments, max_context)
    assert result.prompt.preview() == "Ins\n" + expected
    assert result.prompt.preview().endswith("?")  # the question's end always survives


# ------------------------------------------------------------------------------------ combined-image variant


def _combined_folder(root: Path, name: str = "Spot") -> Path:
    folder = root / name
    (folder / "images").mkdir(parents=True)
    (folder / "combined_1_images").mkdir()
    (folder / "combined_4_images").mkdir()
    meta = {"dataset": name, "split": "test", "num_sample": 1, "task_instruction": ["Compare the images."],
            "question_type": "open-ended"}
    item = {"sample_id": 7, "task_instruction_id": 0, "response": "a car moved",
            "task_instance": {"context": "Before {image#1} after {image#2}: what changed?",
                              "images_path": ["0.jpg", "1.jpg"], "combined_1_images": ["7.jpg"],
                              "combined_4_images": ["7_4.jpg"]},
            "image_quantity_level": "Few"}
    for rel in ("images/0.jpg", "images/1.jpg", "combined_1_images/7.jpg", "combined_4_images/7_4.jpg"):
        (folder / rel).write_bytes(png_bytes(zlib.crc32(rel.encode())))
    (folder / f"{name}.json").write_text(json.dumps({"meta_data": meta, "data": [item]}), encoding="utf-8")
    (folder / f"{name}_combined_4.json").write_text(json.dumps({"meta_data": meta, "data": [item]}),
                                                   encoding="utf-8")
    return folder


def test_combined_variant_prompt_puts_the_combined_image_first(tmp_path):
    folder = _combined_folder(tmp_path)
    (sample,) = load_milebench(folder, combined=4)
    assert sample.id == "Spot_combined_4/7" and sample.task == "Spot_combined_4" and sample.meta["combined"] == 4
    prompt = render_prompt(sample, folder / "combined_4_images")
    # official: "<ImageHere>\n" + instruction + "\n" + context with {image#i} -> "<Image i> "
    assert prompt.preview() == ("<image: 7_4.jpg>\nCompare the images.\nBefore <Image 1>  after <Image 2> : "
                                "what changed?")
    (base,) = load_milebench(folder, combined=1)  # k = 1 reads {name}.json in combined mode
    assert [p.path for p in base.context if isinstance(p, ImagePart)] == ["7.jpg"]
    with pytest.raises(DataError, match="Spot_combined_2.json"):
        list(load_milebench(folder, combined=2))


def test_combined_variant_truncation_cuts_only_text_and_keeps_the_image(tmp_path):
    folder = _combined_folder(tmp_path)
    (sample,) = load_milebench(folder, combined=4)
    fit = MileBenchTruncation(tokenizer=CharTokenizer(), image_tokens=1000)
    prompt = render_prompt(sample, folder / "combined_4_images")
    # instruction "Compare the images." = 19 chars; the text after it is 49 chars; budget 30 - 19 = 11
    result = fit(prompt, sample, Capabilities(max_context_tokens=30))
    assert result.prompt.preview() == "<image: 7_4.jpg>\nCompare the images.\nat changed?"
    assert "kept 0 of 0 images, cut 38 tokens" in result.policy
    whole = fit(prompt, sample, Capabilities(max_context_tokens=100))  # image cost is never counted here
    assert whole.prompt.preview() == prompt.preview() and whole.policy is None


def test_combined_items_without_their_image_list_are_refused(tmp_path):
    folder = _combined_folder(tmp_path)
    doc = json.loads((folder / "Spot_combined_4.json").read_text())
    del doc["data"][0]["task_instance"]["combined_4_images"]
    (folder / "Spot_combined_4.json").write_text(json.dumps(doc))
    with pytest.raises(DataError) as info:
        list(load_milebench(folder, combined=4))
    assert info.value.field == "data[0].task_instance.combined_4_images"


def test_gpr1200_with_more_than_26_options_end_to_end(tmp_path):
    options = [f"photo of landmark {i}" for i in range(30)]
    folder = _write_milebench(tmp_path, "GPR1200", "multi-choice", [
        _item(0, "Query: {image#1}", ["q0.jpg"], options[27], options),
        _item(1, "Query: {image#1}", ["q1.jpg"], options[3], options),
    ], ["Find the matching image."])
    ds = write_milebench_dataset(folder, tmp_path / "ds")
    sample = next(iter(ds))
    text = render_prompt(sample, ds.media_root).preview()
    assert "\nChoice list: \nphoto of landmark 0\nphoto of landmark 1\n" in text  # no letters
    from niah.benchmarks.milebench.score import score_sample

    # a bare two-letter key "AB" is option 27 under the official keys (A..Z, AA, AB, ...)
    assert score_sample(sample, "AB").scores["official"] == 1.0
    # official quirk: the option texts are tried as one regex alternation in option order, so "...landmark 2"
    # matches inside "...landmark 27" first and the reply names option C
    assert score_sample(sample, "photo of landmark 27").scores["official"] == 0.0
    second = list(ds)[1]
    assert score_sample(second, "photo of landmark 3").scores["official"] == 1.0
