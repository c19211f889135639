"""video-niah samples a model cannot game: the haystack sampled to N frames with the needle among them, so that
``niah run --max-frames N`` sends every needle (checked through niah.run.delivery on the runner's own prompt path);
no two samples with different golds send one prompt; exact depths are all seen alike; replies listing the
closed pool score 0; baseline:random is at chance; runs record needle_shown and scores report it."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from niah.benchmarks.video_niah.audit import AUDIT
from niah.benchmarks.video_niah.build import WORDS, build
from niah.benchmarks.video_niah.pools import object_pool
from niah.benchmarks.video_niah.score import score_sample
from niah.cli import app
from niah.models.base import Capabilities, ModelSpec
from niah.models.baselines import RandomBaseline
from niah.prompts.render import fit_to_capabilities, render_prompt
from niah.prompts.types import PromptOptions
from niah.run.delivery import delivered, needle_locator
from niah.sample import Dataset, ImagePart, Sample, TextPart, VideoPart

SMALL = {"durations": "30s,2m", "width": 96, "height": 64, "seed": 4}  # the default --frames 64


@pytest.fixture(scope="module")
def default_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vnf") / "ds"
    build(out, SMALL, False)
    return out


def _sent(ds: Path, sample: Sample, max_frames: int | None) -> object:
    options = PromptOptions(max_frames=max_frames)
    fit = fit_to_capabilities(render_prompt(sample, ds, options), sample, Capabilities(), options)
    assert fit.prompt is not None
    return fit.prompt


def _shown(ds: Path, max_frames: int | None) -> dict[str, list[bool]]:
    dataset = Dataset(ds)
    locate = needle_locator("video-niah")
    out = {}
    for s in dataset:
        spots = locate(s)
        assert len(spots) == len(s.meta["needle_times"])
        out[s.id] = delivered(s, spots, _sent(dataset.media_root, s, max_frames))  # type: ignore[arg-type]
    return out


def _prompt_key(prompt: object) -> str:
    return json.dumps([p.path if isinstance(p, ImagePart) else p.text  # type: ignore[union-attr]
                       for p in prompt.parts])  # type: ignore[attr-defined]


def test_every_needle_is_sent_at_the_recommended_max_frames(default_build: Path) -> None:
    """--frames 64 and niah run --max-frames 64: every needle of every sample is in the sent prompt (before:
    the haystack's every frame at 1 fps, and 64 of its 3,600 frames sent, 80% of the needles in none)."""
    samples = list(Dataset(default_build))
    assert all(s.meta["num_frames"] == 64 and s.meta["frame_sampling"] == "uniform" for s in samples)
    shown = _shown(default_build, 64)
    assert sum(len(v) for v in shown.values()) > len(samples) and all(all(v) for v in shown.values())
    # the check bites: a smaller budget than the dataset's frames drops needles again
    assert not all(all(v) for v in _shown(default_build, 16).values())


def test_frames_keep_their_times_and_show_the_needle(default_build: Path) -> None:
    """Frame k of a D-second haystack sampled to N frames is the video at k D / N (fps = N / D), and the frame
    at a needle's recorded time shows it (a caption drawn over that frame)."""
    from PIL import Image

    from niah.video.expand import pick_folder_frames
    from niah.video.synth import ProceduralScenes

    samples = {s.id: s for s in Dataset(default_build)}
    s = samples["retrieval/2m/d0.4-0.6/000"]
    part = s.context[0]
    assert isinstance(part, VideoPart) and part.frames is not None and part.fps == 64 / 120
    _, times = pick_folder_frames(part.frames, folder_fps=part.fps, fps=None, cap=64)
    assert times == pytest.approx([k * 120 / 64 for k in range(64)])
    (first,) = s.meta["needle_first_frames"]
    assert s.meta["needle_times"] == [pytest.approx(first * 120 / 64)] and s.meta["needle_frames"] == 1
    assert s.meta["depth"] == [round(first / 63, 6)]
    # the plain haystack: at each position the frame most samples of the duration share
    plain = [Counter(o.context[0].frames[k] for o in samples.values()  # type: ignore[union-attr]
                     if o.meta["duration"] == "2m").most_common(1)[0][0] for k in range(64)]
    assert [k for k in range(64) if part.frames[k] != plain[k]] == [first]  # only the needle frame
    with Image.open(default_build / part.frames[first]) as a, Image.open(default_build / plain[first]) as b:
        assert float(np.abs(np.asarray(a, np.int16) - np.asarray(b, np.int16)).mean()) > 4.0
    # the procedural footage rendered at chosen times is the footage: at whole frames, its frames exactly
    scenes = ProceduralScenes(20, fps=1, width=96, height=64, seed=9)
    for got, want in zip(scenes.frames_at([0.0, 7.0, 19.0]), [f for k, f in enumerate(scenes.frames())
                                                               if k in (0, 7, 19)], strict=True):
        assert np.array_equal(np.asarray(got), np.asarray(want))


def test_no_two_samples_with_different_golds_send_one_prompt(default_build: Path, tmp_path: Path) -> None:
    def clashes(ds: Path, max_frames: int) -> int:
        golds: dict[str, set[str]] = defaultdict(set)
        dataset = Dataset(ds)
        for s in dataset:
            golds[_prompt_key(_sent(dataset.media_root, s, max_frames))].add(json.dumps(s.answer))
        return sum(len(g) for g in golds.values() if len(g) > 1)

    assert clashes(default_build, 64) == 0
    # before: every frame at 1 fps and a frame budget that drops the needles, so prompts repeat across golds
    old = tmp_path / "old"
    build(old, {**SMALL, "durations": "2m", "frames": "all", "per_cell": 2, "tasks": "counting,retrieval"}, False)
    assert clashes(old, 8) > 0


def test_exact_depths_are_all_seen_alike(tmp_path: Path) -> None:
    """Exact depths among the N frames: each depth row has all its needles sent (before: the runner's uniform
    sampler kept the first and last frame, so depths 0 and 1 were seen and 0.25-0.75 never: a U-shape)."""
    def seen_by_depth(ds: Path, max_frames: int) -> dict[float, float]:
        shown = _shown(ds, max_frames)
        rows: dict[float, list[bool]] = defaultdict(list)
        for s in Dataset(ds):
            rows[s.meta["depth_cell"][0]].append(shown[s.id][0])  # the needle placed at the exact depth
        return {d: sum(v) / len(v) for d, v in rows.items()}

    exact = {**SMALL, "durations": "2m", "depth_mode": "exact", "tasks": "retrieval,retrieval-choice"}
    new = tmp_path / "new"
    build(new, {**exact, "frames": 64}, False)
    assert seen_by_depth(new, 64) == {0.0: 1.0, 0.25: 1.0, 0.5: 1.0, 0.75: 1.0, 1.0: 1.0}
    assert [s.meta["depth"][0] for s in Dataset(new) if s.task == "retrieval"] == [
        round(round(d * 63) / 63, 6) for d in (0, 0.25, 0.5, 0.75, 1)]
    # every frame kept (120) under an 8-frame budget: the runner's sampler takes segment centres, as for a video
    # file, so the needles are lost at every depth alike (it once kept the first and last frame: depths 0 and
    # 1 were seen and 0.25-0.75 never); `niah audit --max-frames 8` says so in needles-delivered
    old = tmp_path / "old"
    build(old, {**exact, "frames": "all"}, False)
    assert seen_by_depth(old, 8) == {0.0: 0.0, 0.25: 0.0, 0.5: 0.0, 0.75: 0.0, 1.0: 0.0}


def test_replies_listing_the_pool_score_zero(default_build: Path) -> None:
    samples = {s.id: s for s in Dataset(default_build)}
    s = samples["retrieval/30s/d0-0.2/000"]
    assert s.answer in WORDS and AUDIT.pool is not None
    assert score_sample(s, f"The word is {s.answer}.").scores["official"] == 1.0
    assert score_sample(s, " ".join(WORDS)).scores["official"] == 0.0  # was 1.0: the pool holds the gold
    other = next(w for w in WORDS if w != s.answer)
    assert score_sample(s, f"{s.answer} or {other}").scores["official"] == 0.0
    assert list(AUDIT.pool("retrieval", list(samples.values())) or ()) == list(WORDS)
    objects = Sample(id="o", benchmark="video-niah", task="retrieval", context=[VideoPart(frames=("a.jpg",))],
                     question=[TextPart("?")], answer="heart balloon", meta={"needle_kind": "frame"})
    assert score_sample(objects, "A heart balloon.").scores["official"] == 1.0
    assert score_sample(objects, ", ".join(object_pool())).scores["official"] == 0.0


def test_chance_and_random_baseline_at_chance(default_build: Path) -> None:
    """AuditSpec.chance per task, and baseline:random at it: a count in the range for counting (it answered ''
    before, scoring 0 against a chance of 25%), a pool word for retrieval, a letter for the choices."""
    assert AUDIT.chance is not None
    samples = list(Dataset(default_build))
    chance = {s.task: AUDIT.chance(s) for s in samples}
    assert chance == {"retrieval": 1 / len(WORDS), "retrieval-choice": 0.25, "counting": 0.25, "ordering": 0.5}
    means: dict[str, float] = {}
    for task in chance:
        of_task = [s for s in samples if s.task == task]
        scores = [score_sample(s, RandomBaseline(ModelSpec("baseline", "random", options={"seed": seed}))
                               .answer(s)).scores["official"]
                  for seed in range(1600 // len(of_task)) for s in of_task]
        means[task] = sum(scores) / len(scores)
    for task, level in chance.items():
        assert abs(means[task] - level) < 0.05, (task, means[task], level)
    counting = next(s for s in samples if s.task == "counting")
    replies = Counter(RandomBaseline(ModelSpec("baseline", "random", options={"seed": i})).answer(counting)
                      for i in range(400))
    assert set(replies) == {"1", "2", "3", "4"}


def test_runs_record_needle_shown_and_scores_report_it(default_build: Path, tmp_path: Path) -> None:
    runner = CliRunner()

    def ok(args: list[str]) -> str:
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output + repr(res.exception)
        return res.output

    full, cut = tmp_path / "full", tmp_path / "cut"
    out = ok(["run", str(default_build), "--model", "baseline:oracle", "--out", str(full), "--no-progress",
              "--max-frames", "64"])
    assert "NEEDLES NOT SHOWN" not in out
    rows = [json.loads(line) for line in (full / "responses.jsonl").read_text().splitlines()]
    assert rows and all(r["needle_shown"] is True for r in rows)
    run = json.loads((full / "run.json").read_text())
    assert run["needle_delivery"] == {"checked": len(rows), "shown": len(rows), "not_shown": 0}
    ok(["score", str(full)])
    scores = json.loads((full / "scores.json").read_text())
    assert scores["overall"] == 100.0 and scores["needle_shown"]["shown_rate"] == 100.0

    out = ok(["run", str(default_build), "--model", "baseline:oracle", "--out", str(cut), "--no-progress",
              "--max-frames", "32"])
    rows = [json.loads(line) for line in (cut / "responses.jsonl").read_text().splitlines()]
    dropped = sum(r["needle_shown"] is False for r in rows)
    assert 0 < dropped < len(rows) and f"NEEDLES NOT SHOWN: {dropped} of {len(rows)} samples" in out
    assert json.loads((cut / "run.json").read_text())["needle_delivery"]["not_shown"] == dropped
    out = ok(["score", str(cut)])
    scores = json.loads((cut / "scores.json").read_text())
    shown = scores["needle_shown"]
    assert shown["samples"] == len(rows) and shown["shown"] == len(rows) - dropped
    assert shown["score_shown"] == 100.0 and set(shown["tasks"]) == {"retrieval", "retrieval-choice", "counting",
                                                                    "ordering"}
    assert {"tasks", "durations", "cells", "overall"} <= set(scores["official"])  # the official keys stay
    assert "run_status" in scores
    assert f"needles shown in {len(rows) - dropped} of {len(rows)} samples" in out
    scored = [json.loads(line) for line in (cut / "scored.jsonl").read_text().splitlines()]
    assert sum(r["needle_shown"] is False for r in scored) == dropped


def test_a_user_video_is_sampled_at_the_frame_times(tmp_path: Path) -> None:
    """A user's video with --frames N: frame k is the video's frame on screen at k x D / N."""
    from PIL import Image

    from support.videos import barcode_video, read_barcode

    video = barcode_video(tmp_path / "mine.mp4", seconds=28, fps=4, keyframe_interval=1, width=320, height=240)
    out = tmp_path / "user"
    build(out, {"haystack": str(video), "durations": "24s", "frames": 12, "depth_cells": "0,1", "width": 320,
                "tasks": "retrieval"}, False)
    (s,) = list(Dataset(out))
    part = s.context[0]
    assert isinstance(part, VideoPart) and part.frames is not None and part.fps == 0.5
    (needle,) = s.meta["needle_first_frames"]
    for k, rel in enumerate(part.frames):
        if k != needle:  # the caption needle is drawn over the bottom; the barcode is at the top anyway
            with Image.open(out / rel) as im:
                assert read_barcode(im) == 8 * k  # 2 s apart at 4 fps


def test_same_seed_byte_identical(default_build: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build(again, SMALL, False)
    assert (again / "samples.jsonl").read_bytes() == (default_build / "samples.jsonl").read_bytes()
    assert {p.name: p.read_bytes() for p in (again / "media" / "frames").iterdir()} == {
        p.name: p.read_bytes() for p in (default_build / "media" / "frames").iterdir()}
