"""video-niah: the recorded needle timestamps show the needles; byte-identical rebuilds; tasks and answers; user
videos as haystacks; end to end with the baselines (oracle 100%) and a report with the duration x depth grid."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from niah.benchmarks.video_niah.build import build, parse_duration
from niah.benchmarks.video_niah.score import contains_words, count_match, option_match
from niah.sample import Dataset, ImagePart, VideoPart
from niah.util.errors import ConfigError
from niah.video.expand import pick_folder_frames
from niah.video.synth import render_caption
from support.cli import invoke_ok as _ok
from support.tables import without_intervals
from support.videos import barcode_video

OPTIONS = {"durations": "30s,70s", "width": 160, "height": 96, "seed": 3, "frames": "all"}  # every frame at 1 fps
EXACT = {**OPTIONS, "depth_mode": "exact", "depths": "0,0.5,1"}  # V-NIAH-style fixed depths


def _diff(a: Image.Image, b: Image.Image) -> float:
    return float(np.abs(np.asarray(a.convert("RGB"), np.int16) - np.asarray(b.convert("RGB"), np.int16)).mean())


def _load(ds: Path, rel: str) -> Image.Image:
    with Image.open(ds / rel) as im:
        return im.convert("RGB")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vn") / "ds"
    counts = build(out, OPTIONS, False)
    assert counts == {"retrieval": 10, "retrieval-choice": 10, "counting": 10, "ordering": 10}
    return out


@pytest.fixture(scope="module")
def built_exact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vn") / "exact"
    counts = build(out, EXACT, False)
    assert counts == {"retrieval": 6, "retrieval-choice": 6, "counting": 6, "ordering": 6}
    return out


def test_decoding_the_recorded_needle_time_shows_the_needle(built: Path) -> None:
    """Depth cells: wherever the random placement put it, the frame on screen at meta.needle_times is the
    needle's rendering, and the frames just outside its span are the plain haystack."""
    samples = {s.id: s for s in Dataset(built).iter_samples(check_media=True)}
    retrieval = [s for s in samples.values() if s.task == "retrieval" and s.meta["duration"] == "70s"]
    assert len(retrieval) == 5
    for s in retrieval:
        part = s.context[0]
        assert isinstance(part, VideoPart) and part.frames is not None and len(part.frames) == 70
        (t,) = s.meta["needle_times"]
        (depth,) = s.meta["depth"]
        lo, hi = s.meta["depth_cell"]
        assert lo <= depth <= hi and s.meta["depth_mode"] == "cell"
        indices, times = pick_folder_frames(part.frames, folder_fps=part.fps, fps=None, cap=None)
        k = times.index(t)
        first = round(depth * (70 - 2))  # the needle's first frame from its recorded exact depth
        assert k in (first, first + 1)
        plain = _haystack_frame_of(samples, k)
        expected = render_caption(_load(built, plain), f"The secret word is {s.answer}.")
        assert _diff(_load(built, part.frames[indices[k]]), expected) < 4.0  # JPEG noise only
        assert _diff(_load(built, part.frames[indices[k]]), _load(built, plain)) > 4.0
        for outside in (first - 1, first + 2):
            if 0 <= outside < 70:
                assert part.frames[outside] == _haystack_frame_of(samples, outside)


def test_exact_mode_needle_at_the_fixed_depth(built_exact: Path) -> None:
    samples = {s.id: s for s in Dataset(built_exact).iter_samples(check_media=True)}
    plain = samples["retrieval/70s/d0/000"].context[0]
    assert isinstance(plain, VideoPart) and plain.frames is not None and plain.fps == 1.0
    for depth in ("0", "0.5", "1"):
        s = samples[f"retrieval/70s/d{depth}/000"]
        part = s.context[0]
        assert isinstance(part, VideoPart) and part.frames is not None and len(part.frames) == 70
        (t,) = s.meta["needle_times"]
        assert s.meta["depth"] == [float(depth)]
        # The frame on screen at the recorded time, as the runner's frame sampling picks it.
        indices, times = pick_folder_frames(part.frames, folder_fps=part.fps, fps=None, cap=None)
        k = times.index(t)
        needle_frame = _load(built_exact, part.frames[indices[k]])
        expected = render_caption(_load(built_exact, _haystack_frame_of(samples, k)),
                                  f"The secret word is {s.answer}.")
        assert _diff(needle_frame, expected) < 4.0  # JPEG noise only
        assert _diff(needle_frame, _load(built_exact, _haystack_frame_of(samples, k))) > 4.0
        # away from the needle the sample shows the plain haystack
        far = (k + 20) % 70
        assert part.frames[far] == _haystack_frame_of(samples, far)
    assert samples["retrieval/70s/d0/000"].meta["needle_times"] == [0.0]
    assert samples["retrieval/70s/d1/000"].meta["needle_times"] == [68.0]  # 2-frame needle ending on the last
    assert samples["retrieval/70s/d1/000"].meta["depth_cell"] == [1.0, 1.0]


def _haystack_frame_of(samples: dict, k: int) -> str:
    """Frame k of the plain 70 s haystack: the frame most samples share at position k."""
    from collections import Counter

    votes = Counter(s.context[0].frames[k] for s in samples.values() if s.meta["duration"] == "70s")
    return votes.most_common(1)[0][0]


def test_tasks_answers_and_lengths(built: Path, built_exact: Path) -> None:
    exact = {s.id: s for s in Dataset(built_exact)}
    count = exact["counting/70s/d0.5/000"]
    n = int(count.answer)
    assert 1 <= n <= 4 and len(count.meta["depth"]) == n == len(count.meta["needle_times"])
    assert count.meta["depth"][0] == 0.5 and count.meta["depth_cell"] == [0.5, 0.5]
    samples = {s.id: s for s in Dataset(built)}
    order = samples["ordering/70s/d0.4-0.6/000"]
    first = min(range(2), key=lambda i: order.meta["needle_times"][i])
    assert order.meta["options"][order.answer] == order.meta["needle_labels"][first]
    choice = samples["retrieval-choice/30s/d0.8-1/000"]
    assert choice.meta["options"][choice.answer] == choice.meta["needle_labels"][0]
    meta = samples["retrieval/30s/d0-0.2/000"].meta
    assert meta["num_frames"] == 30 and meta["image_tokens"] == 30 * 256 == meta["context_length"]
    assert meta["image_tokens_rule"] == "internvl-448-1tile"
    manifest = json.loads((built / "manifest.json").read_text())
    assert [h["frames"] for h in manifest["haystacks"]] == [30, 70]


def test_same_seed_byte_identical_and_image_options(tmp_path: Path, built: Path) -> None:
    again = tmp_path / "again"
    build(again, OPTIONS, False)
    assert (again / "samples.jsonl").read_bytes() == (built / "samples.jsonl").read_bytes()
    digest = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (built / "media" / "frames").iterdir()}
    assert digest == {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in (again / "media" / "frames").iterdir()}
    frames = tmp_path / "frames"
    build(frames, {**OPTIONS, "durations": "30s", "needle": "clip", "tasks": "retrieval-choice,ordering"}, False)
    for s in Dataset(frames):
        assert s.choices is not None and all(isinstance(c[0], ImagePart) for c in s.choices)
    with pytest.raises(ConfigError, match="--depth-mode exact"):
        build(tmp_path / "odd", {**OPTIONS, "depths": "0.3"}, False)  # exact depths need the exact mode
    with pytest.raises(ConfigError, match="too few"):
        build(tmp_path / "short", {**OPTIONS, "durations": "5s"}, False)
    assert parse_duration("1h30m") == 5400 and parse_duration("90s") == 90
    with pytest.raises(ConfigError):
        parse_duration("5 minutes")


def test_user_video_haystack_read_in_place(tmp_path: Path) -> None:
    video = barcode_video(tmp_path / "mine.mp4", seconds=28, fps=4, keyframe_interval=1, width=160, height=96)
    out = tmp_path / "user"
    build(out, {"haystack": str(video), "durations": "26s", "depth_cells": "0.4,0.6", "width": 160,
                "tasks": "retrieval", "frames": "all"}, False)
    s = next(iter(Dataset(out)))
    assert s.meta["haystack"] == str(video.resolve()) and s.meta["num_frames"] == 26
    assert not any(p.suffix == ".mp4" for p in out.rglob("*"))  # the video itself is never copied
    with pytest.raises(ConfigError, match="shorter than"):
        build(tmp_path / "long", {"haystack": str(video), "durations": "1m", "width": 160}, False)


def test_rules() -> None:
    assert contains_words("lantern", "The word is Lantern.") == 1.0
    assert contains_words("lantern", "lanterns") == 0.0
    assert contains_words("heart balloon", "a heart  balloon") == 1.0
    assert count_match("3", "I count three.") == 1.0 and count_match("3", "3 or 4") == 1.0
    assert count_match("3", "Twice") == 0.0 and count_match("2", None) == 0.0
    assert option_match(1, "(B)", ["cat", "owl"]) == 1.0 and option_match(1, "the owl", ["cat", "owl"]) == 1.0
    assert option_match(1, "A or B", ["cat", "owl"]) == 0.0


def test_end_to_end_with_baselines_and_the_grid(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    out = _ok(["build", "video-niah", "--out", str(ds), "--durations", "30s,70s", "--frames", "all", "--width", "160", "--height", "96",
               "--no-progress"])
    assert "wrote 40 samples" in out  # 4 tasks x 2 durations x the five default depth cells
    _ok(["run", str(ds), "--model", "baseline:oracle", "--out", str(tmp_path / "oracle"), "--no-progress",
         "--max-frames", "8"])
    _ok(["score", str(tmp_path / "oracle")])
    doc = json.loads((tmp_path / "oracle" / "scores.json").read_text())
    assert doc["overall"] == 100.0 and {t["score"] for t in doc["by_task"].values()} == {100.0}
    scores = doc["official"]  # in percent, as every score of scores.json
    assert scores["overall"] == 100.0 and set(scores["tasks"].values()) == {100.0}
    assert scores["cells"]["retrieval"]["70.0s"] == {"0-0.2": 100.0, "0.2-0.4": 100.0, "0.4-0.6": 100.0,
                                                     "0.6-0.8": 100.0, "0.8-1": 100.0}
    assert "never counted 0" in scores["aggregation"]
    rows = [json.loads(line) for line in (tmp_path / "oracle" / "responses.jsonl").read_text().splitlines()]
    assert all(r["prompt_policy"] == "video: 8 of 70 frames sampled uniformly" for r in rows if "/70s/" in r["id"])
    _ok(["run", str(ds), "--model", "baseline:random", "--out", str(tmp_path / "random"), "--no-progress",
         "--max-frames", "8"])
    _ok(["score", str(tmp_path / "random")])
    _ok(["report", str(tmp_path / "oracle"), str(tmp_path / "random"), "--out", str(tmp_path / "rep")])
    table = without_intervals((tmp_path / "rep" / "tables" / "video_niah_retrieval.md").read_text())
    # one column per duration built, labelled as built (before: fixed bins <=1m ... >60m, four of them empty)
    assert "| Model | 30s | 70s | Overall |" in table
    assert "| baseline:oracle | 100.0 | 100.0 | 100.0 |" in table
    assert (tmp_path / "rep" / "assets" / "heatmaps" / "1-baseline-oracle" / "counting.png").is_file()

    # The sample browser shows sampled frames and the needle frame as thumbnails with their timestamps.
    chunk = (tmp_path / "rep" / "assets" / "samples" / "1-baseline-oracle" / "chunk-00000.js").read_text()
    records = json.loads(chunk[chunk.index(",") + 1:chunk.rindex(");")])
    record = next(r for r in records if r["id"] == "retrieval/70s/d0.4-0.6/000")
    (video,) = [seg[1] for seg in record["context"] if seg[0] == "v"]
    sample = next(s for s in Dataset(ds) if s.id == "retrieval/70s/d0.4-0.6/000")
    part = sample.context[0]
    assert isinstance(part, VideoPart) and part.frames is not None
    _indices, sampled = pick_folder_frames(part.frames, folder_fps=part.fps, fps=None, cap=8)
    needle = [t for t in video["thumbs"] if t["needle"]]
    # every frame the needle is on screen is marked (it spans meta.needle_frames frames), not only the middle one
    (span,) = sample.meta["needle_spans"]
    span_times = [k / part.fps for k in range(round(span[0] * part.fps), round(span[1] * part.fps) + 1)]
    assert len(span_times) == sample.meta["needle_frames"] and sample.meta["needle_times"][0] in span_times
    assert video["frames"] == 70 and [t["t"] for t in needle] == span_times
    assert video["name"] == "frame folder"  # frame files are content hashes: never shown as the video's name
    assert record["context_label"] == "Context preview (a video of 70 frames, needle frames marked)"
    assert "a video of 70 frames" in record["meta_line"] and not any("image" in m for m in record["meta_line"])
    assert "haystack duration 70s" in record["meta_line"]
    # the 8 sampled frames, plus the needle frames the sampling missed
    assert sorted({t["t"] for t in video["thumbs"]}) == sorted(set(sampled) | set(span_times))
    assert all((tmp_path / "rep" / t["src"]).is_file() for t in video["thumbs"])
    assert [t["t"] for t in video["thumbs"]] == sorted(t["t"] for t in video["thumbs"])


def test_subtitle_needles_reach_the_prompt_at_their_time(tmp_path: Path) -> None:
    from niah.models.base import Capabilities
    from niah.prompts.render import fit_to_capabilities, render_prompt
    from niah.prompts.types import PromptOptions
    from niah.video import load_subtitles

    out = tmp_path / "subs"
    build(out, {"durations": "40s", "needle": "subtitle", "width": 160, "height": 96, "seed": 2}, False)
    ds = Dataset(out)
    ds.validate()  # subtitle files parse
    samples = {s.id: s for s in ds}
    s = samples["counting/40s/d0.4-0.6/000"]
    part = s.context[0]
    assert isinstance(part, VideoPart) and part.subtitles is not None
    cues = load_subtitles(out / part.subtitles)
    word = s.question[0].text.split("secret word ")[1].split()[0]  # type: ignore[union-attr]
    needle_cues = [c for c in cues if c.text == f"The secret word is {word}."]
    assert len(needle_cues) == int(s.answer) == len(s.meta["needle_times"])
    # each needle line lies inside the span its frame shows (2 s or one frame's time, whichever is less), and
    # is shaped like the filler lines: lengths from one distribution, starts off the frame grid
    room = min(2.0, 1 / part.fps)
    for cue, t in zip(needle_cues, sorted(s.meta["needle_times"]), strict=True):
        assert t <= cue.start and cue.end <= t + room + 1e-3
    lengths = [c.end - c.start for c in cues]
    assert min(lengths) >= room / 2 - 1e-3 and max(lengths) <= room + 1e-3
    assert not any(abs(c.start * part.fps - round(c.start * part.fps)) < 1e-3 for c in needle_cues)
    # every haystack frame is untouched: the needle is in the subtitles only
    plain = samples["retrieval/40s/d0-0.2/000"].context[0]
    assert isinstance(plain, VideoPart) and plain.frames == part.frames
    fit = fit_to_capabilities(render_prompt(s, out), s, Capabilities(), PromptOptions())
    assert fit.prompt is not None
    t = sorted(s.meta["needle_times"])[0]
    assert f"[{t:.1f}s] The secret word is {word}.\n" in fit.prompt.text()


def test_default_build_deals_balanced_golds_per_task_and_row(tmp_path: Path) -> None:
    """The categorical golds come from a deck over each task's grid: every count, ordering answer, option letter
    and secret word as often as 20 samples allow (drawn per sample, 13 of 20 ordering answers fell on one
    option), and no duration or depth row one-sided; a second build with the seed is byte-identical."""
    from collections import Counter

    from niah.benchmarks.video_niah.build import WORDS
    from niah.benchmarks.video_niah.pools import COUNT_RANGE

    options = {"width": 160, "height": 96, "seed": 0}  # the default grid: 4 durations x 5 depth cells
    build(tmp_path / "a", options, False)
    samples = list(Dataset(tmp_path / "a"))
    values = {"counting": [str(c) for c in range(COUNT_RANGE[0], COUNT_RANGE[1] + 1)], "ordering": [0, 1],
              "retrieval-choice": [0, 1, 2, 3], "retrieval": list(WORDS)}
    for task, expected in values.items():
        mine = [s for s in samples if s.task == task]
        assert len(mine) == 20
        for group in _groups(mine):
            counts = Counter(s.answer for s in group)
            assert set(counts) <= set(expected), (task, counts)
            spread = max(counts[v] for v in expected) - min(counts[v] for v in expected)
            assert spread <= 1, (task, counts)
    build(tmp_path / "b", options, False)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")


def _groups(samples: list) -> list[list]:
    """The task as a whole, then each duration row and each depth row."""
    rows: dict[object, list] = {}
    for s in samples:
        rows.setdefault(("duration", s.meta["duration"]), []).append(s)
        rows.setdefault(("depth", tuple(s.meta["depth_cell"])), []).append(s)
    return [samples, *rows.values()]


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()
