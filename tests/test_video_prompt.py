"""Video parts through the prompt stage and the runner: sampled frames in order (checked by barcode), subtitles
per frame or as a transcript, native video, the frame cache, and what run.json records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.models.base import Capabilities
from niah.models.media import ImageEncoder, openai_messages
from niah.prompts.render import fit_to_capabilities, render_prompt
from niah.prompts.types import PromptOptions
from niah.run import run_dataset_sync
from niah.run.cache import MediaHasher, request_fingerprint
from niah.sample import DatasetWriter, ImagePart, Sample, TextPart, VideoPart
from support.videos import barcode_video, read_barcode

FPS = 8
SRT = """1
00:00:00,200 --> 00:00:00,900
First line.

2
00:00:04,100 --> 00:00:04,800
Second line.
"""


@pytest.fixture(autouse=True)
def frame_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "frames"
    monkeypatch.setenv("NIAH_FRAME_CACHE", str(cache))
    return cache


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vp")
    (root / "media").mkdir()
    barcode_video(root / "media" / "v.mp4", seconds=6, fps=FPS, keyframe_interval=1)
    (root / "media" / "v.srt").write_text(SRT, encoding="utf-8")
    return root


def _sample(subtitles: str | None = None) -> Sample:
    return Sample(id="s1", benchmark="vbench", task="watch",
                  context=[TextPart("Watch."), VideoPart(path="media/v.mp4", subtitles=subtitles)],
                  question=[TextPart("What happened?")], answer="x")


def test_video_file_becomes_sampled_frames_in_order(media: Path, frame_cache: Path) -> None:
    sample = _sample()
    prompt = render_prompt(sample, media)
    fit = fit_to_capabilities(prompt, sample, Capabilities(), PromptOptions(max_frames=4))
    assert fit.prompt is not None
    frames = [p for p in fit.prompt.parts if isinstance(p, ImagePart)]
    assert [f.path for f in frames] == [f"media/v.mp4#t={t:.3f}" for t in (0.75, 2.25, 3.75, 5.25)]
    # Each frame file is the frame on screen at its time (the barcode carries the frame index).
    from PIL import Image

    for f, t in zip(frames, (0.75, 2.25, 3.75, 5.25), strict=True):
        path = fit.prompt.resolve(f.path)
        assert path.is_relative_to(frame_cache)
        with Image.open(path) as im:
            assert read_barcode(im) == int(t * FPS)
    assert fit.policy == "video: 4 frames sampled uniformly, at most 4"
    # Backends see ordinary images, and the fingerprint hashes the frames' bytes.
    content = openai_messages(fit.prompt, ImageEncoder())[0]["content"]
    assert [c["type"] for c in content] == ["text", "image_url", "image_url", "image_url", "image_url", "text"]
    key = request_fingerprint({"m": 1}, fit.prompt, fit.prompt.generation, MediaHasher())
    again = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(), PromptOptions(max_frames=4))
    assert again.prompt is not None
    assert request_fingerprint({"m": 1}, again.prompt, again.prompt.generation, MediaHasher()) == key


def test_fps_sampling_is_capped_by_the_frame_budget(media: Path) -> None:
    sample = _sample()
    fit = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(), PromptOptions(video_fps=1.0))
    assert fit.prompt is not None
    assert fit.prompt.num_images == 6
    capped = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(max_images=3),
                                 PromptOptions(video_fps=1.0))
    assert capped.prompt is not None and capped.prompt.num_images == 3


def test_subtitles_per_frame_or_as_transcript(media: Path) -> None:
    sample = _sample("media/v.srt")
    fit = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(), PromptOptions(max_frames=3))
    assert fit.prompt is not None
    text = fit.prompt.text()
    assert "[1.0s] First line.\n" in text and "[5.0s] Second line.\n" in text
    assert fit.policy is not None and "subtitles per frame" in fit.policy
    fit = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(),
                              PromptOptions(max_frames=3, subtitle_mode="transcript"))
    assert fit.prompt is not None
    assert "Subtitles:\nFirst line.\nSecond line.\n" in fit.prompt.text()
    assert "[1.0s]" not in fit.prompt.text()
    none = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(),
                               PromptOptions(max_frames=3, subtitle_mode="none"))
    assert none.prompt is not None and "line" not in none.prompt.text()
    native = fit_to_capabilities(render_prompt(sample, media), sample, Capabilities(video=True))
    assert native.prompt is not None and native.prompt.has_video and native.prompt.num_images == 0
    assert "Subtitles:\nFirst line." in native.prompt.text()
    content = openai_messages(native.prompt, ImageEncoder())[0]["content"]
    assert content[1]["type"] == "video_url"


def test_runner_records_the_video_options(media: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    with DatasetWriter(ds) as w:
        w.write_media("v.mp4", (media / "media" / "v.mp4").read_bytes())
        w.write_media("v.srt", SRT.encode())
        w.write(_sample("media/v.srt"))
        w.finish({"benchmark": "vbench"})
    options = PromptOptions(max_frames=5, video_fps=2.0, subtitle_mode="transcript")
    summary = run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", prompt_options=options, progress=False)
    assert summary.answered == 1
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["prompt_options"] == {"question_first": False, "over_limit": "skip", "max_frames": 5,
                                     "video_fps": 2.0, "subtitle_mode": "transcript"}
    row = json.loads((tmp_path / "run" / "responses.jsonl").read_text())
    assert row["prompt_policy"] == "video: 5 frames sampled at 2 fps, at most 5, subtitles as a transcript"


def test_dataset_validation_checks_video_and_subtitle_parts(tmp_path: Path, media: Path) -> None:
    from niah.sample import Dataset, DatasetInvalid

    ds = tmp_path / "bad"
    with DatasetWriter(ds) as w:
        w.write_media("v.mp4", (media / "media" / "v.mp4").read_bytes())
        w.write_media("v.srt", b"1\n00:00:05,000 --> 00:00:01,000\nBackwards.\n")
        w.write_media("fake.mp4", b"not a video at all")
        w.write(_sample("media/v.srt"))
        w.write(Sample(id="s2", benchmark="vbench", task="watch", context=[VideoPart(path="media/fake.mp4")],
                       question=[TextPart("?")], answer="x"))
        w.finish({"benchmark": "vbench"})
    with pytest.raises(DatasetInvalid) as caught:
        Dataset(ds).validate()
    text = str(caught.value)
    assert "samples.jsonl:1: media[1]: 'media/v.srt': not readable subtitles" in text
    assert "samples.jsonl:2: media[0]: 'media/fake.mp4'" in text
    bad_fps = {"type": "video", "frames": ["a.jpg"], "fps": 0}
    from niah.sample import part_from_json
    from niah.util.errors import DataError

    with pytest.raises(DataError, match="positive"):
        part_from_json(bad_fps, where="context[0]")
    with pytest.raises(DataError, match="subtitles"):
        part_from_json({"type": "video", "path": "v.mp4", "subtitles": 3}, where="context[0]")


def test_fingerprint_covers_the_subtitles(tmp_path: Path, media: Path) -> None:
    root = tmp_path / "m"
    (root / "media").mkdir(parents=True)
    (root / "media" / "v.mp4").write_bytes((media / "media" / "v.mp4").read_bytes())
    sample = _sample("media/v.srt")
    keys = []
    for text in (SRT, SRT.replace("Second", "Third")):
        (root / "media" / "v.srt").write_text(text, encoding="utf-8")
        prompt = render_prompt(sample, root)
        keys.append(request_fingerprint({"m": 1}, prompt, prompt.generation, MediaHasher()))
    assert keys[0] != keys[1]
