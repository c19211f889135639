"""What niah's own backend and both harness exports send: the official prompt, adjacent text parts merged into
one (a server joins separate parts its own way: llama.cpp with a newline), and a max-tokens override that
mirrors `niah run --max-tokens`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from niah.interop.lmms_task import export_lmms_eval
from niah.models.media import ImageEncoder, openai_messages
from niah.prompts.render import render_prompt
from niah.prompts.types import PromptOptions
from niah.sample import Dataset, ImagePart, TextPart, merge_text_parts
from support.datasets import write_mm_niah_like


def _texts_merged(kinds: list[str]) -> bool:
    return all(not (a == b == "text") for a, b in zip(kinds, kinds[1:], strict=False))


def test_merge_text_parts_joins_each_run_of_text_and_keeps_media_in_place() -> None:
    parts = [TextPart("a"), TextPart("b\n"), ImagePart("x.png"), TextPart("c"), TextPart(""), TextPart("d"),
             ImagePart("y.png")]
    assert merge_text_parts(parts) == [TextPart("ab\n"), ImagePart("x.png"), TextPart("cd"), ImagePart("y.png")]
    assert merge_text_parts([]) == []


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mm_niah_like(tmp_path_factory.mktemp("seams") / "ds", per_task=1)


def test_niah_backend_sends_each_run_of_text_as_one_part(dataset: Path) -> None:
    ds = Dataset(dataset)
    seen_images = 0
    for sample in ds:
        prompt = render_prompt(sample, ds.media_root, PromptOptions())
        (user,) = [m for m in openai_messages(prompt, ImageEncoder()) if m["role"] == "user"]
        if isinstance(user["content"], str):
            assert user["content"] == prompt.text()
            continue
        kinds = [c["type"] for c in user["content"]]
        seen_images += kinds.count("image_url")
        assert _texts_merged(kinds), (sample.id, kinds)
        assert "".join(c["text"] for c in user["content"] if c["type"] == "text") == prompt.text()
    assert seen_images


def test_inspect_samples_send_the_official_prompt_and_take_a_max_tokens_override(dataset: Path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ContentText

    from niah.interop.inspect_task import niah_task

    ds = Dataset(dataset)
    for max_tokens in (None, 7):
        task = niah_task(dataset, max_tokens=max_tokens)
        for item in task.dataset:
            sample = ds.get(str(item.id)) if hasattr(ds, "get") else next(s for s in ds if s.id == item.id)
            prompt = render_prompt(sample, ds.media_root, PromptOptions())
            user = item.input[-1]
            if isinstance(user.content, str):
                assert all(isinstance(p, TextPart) for p in prompt.parts) and user.content == prompt.text()
            else:
                kinds = ["text" if isinstance(c, ContentText) else "media" for c in user.content]
                assert _texts_merged(kinds), kinds
                assert "".join(c.text for c in user.content if isinstance(c, ContentText)) == prompt.text()
            wanted = prompt.generation.max_tokens if max_tokens is None else max_tokens
            assert item.metadata["generation"]["max_tokens"] == wanted


def test_the_inspect_task_file_and_the_lmms_eval_folder_take_max_tokens(dataset: Path, tmp_path: Path) -> None:
    from niah.interop.inspect_task import write_task_file

    text = write_task_file(dataset, tmp_path / "task.py", max_tokens=9).read_text(encoding="utf-8")
    assert "max_tokens: int | None = 9" in text and "max_tokens=max_tokens" in text
    summary = export_lmms_eval(dataset, tmp_path / "lmms", name="niah_toy", max_tokens=9)
    # one budget for every sample: one decoding setting, one task
    assert summary.tasks == ["niah_toy"] and summary.group is None
    task = yaml.load((tmp_path / "lmms" / "niah_toy.yaml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    assert task["generation_kwargs"]["max_new_tokens"] == "9"
    for line in (tmp_path / "lmms" / "docs" / "niah_toy.jsonl").read_text(encoding="utf-8").splitlines():
        kinds = [p["type"] for p in json.loads(json.loads(line)["prompt"])["parts"]]
        assert _texts_merged(kinds), kinds
    with pytest.raises(Exception, match="--max-tokens 0 must be a positive integer"):
        export_lmms_eval(dataset, tmp_path / "bad", name="niah_bad", max_tokens=0)


def test_the_lmms_eval_metric_names_are_not_parts_of_each_other() -> None:
    # lmms-eval matches a group's metrics by substring: `niah_official` matched `niah_official_scores` and the
    # group's aggregation multiplied a dict (TypeError: dict * int) after every request, saving nothing
    from niah.interop.lmms_task import OFFICIAL_METRIC, STRUCTURE_METRIC

    assert OFFICIAL_METRIC not in STRUCTURE_METRIC and STRUCTURE_METRIC not in OFFICIAL_METRIC
