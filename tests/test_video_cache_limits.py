"""The frame cache and the limits on one video, tried as an attacker would: a cache folder someone else owns or
can write, a planted or swapped entry, frames over the image pixel cap, a container claiming an enormous
duration, a frame folder over the frame limit, and SIGTERM/SIGINT while a long video is being decoded."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from niah.models.base import Capabilities
from niah.models.media import ImageEncoder, openai_messages
from niah.prompts.render import fit_to_capabilities, render_prompt
from niah.prompts.types import PromptOptions
from niah.sample import Dataset, DatasetInvalid, DatasetWriter, Sample, TextPart, VideoPart, media_problem
from niah.util.errors import ConfigError, DataError
from niah.video import expand, sample_video
from niah.video.frames import DEFAULT_FRAME_LIMIT, VideoInfo, VideoLimits, probe
from support.processes import niah_env, start_niah, stop_with, wait_until
from support.videos import barcode_video

SECRET = b"root-only: the password is hunter2\n"
#: The plan video_prompt_parts samples a video file with when no option is given (32 frames uniformly).
DEFAULT_PLAN = {"count": 32, "fps": None, "max_frames": None, "format": "jpeg", "quality": 90}


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vc")
    (root / "media").mkdir()
    barcode_video(root / "media" / "v.mp4", seconds=4, fps=8, keyframe_interval=1)
    return root


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "frames"
    monkeypatch.setenv("NIAH_FRAME_CACHE", str(folder))
    return folder


def _video_sample(part: VideoPart | None = None) -> Sample:
    return Sample(id="s1", benchmark="vbench", task="watch", context=[part or VideoPart(path="media/v.mp4")],
                  question=[TextPart("What happened?")], answer="x")


def _request(root: Path, options: PromptOptions | None = None, part: VideoPart | None = None) -> str:
    """The request body a backend would send for the video sample (frames as data URLs)."""
    sample = _video_sample(part)
    fit = fit_to_capabilities(render_prompt(sample, root), sample, Capabilities(), options or PromptOptions())
    assert fit.prompt is not None
    return json.dumps(openai_messages(fit.prompt, ImageEncoder()))


def _jpeg(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (320, 240), color).save(buf, format="JPEG")
    return buf.getvalue()


# ------------------------------------------------------------------------------------------------ the cache folder


def test_a_frame_cache_owned_by_someone_else_is_refused(media: Path, cache: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    cache.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(cache, 65534, 65534)  # really someone else's (nobody)
    else:
        mine = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: mine + 1)  # the folder's owner is then not the user
    with pytest.raises(ConfigError, match=r"frame cache .*frames is owned by uid \d+, not by you"):
        _request(media)
    assert list(cache.iterdir()) == []  # nothing was written into it


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1733], ids=["0777", "0770", "1733"])
def test_a_frame_cache_others_can_write_is_refused(media: Path, cache: Path, mode: int) -> None:
    cache.mkdir()
    os.chmod(cache, mode)
    with pytest.raises(ConfigError, match=f"open to other users \\(mode {mode:04o}\\).*chmod 700"):
        _request(media)
    with pytest.raises(ConfigError, match="open to other users"):  # checked on every use
        expand.sample_video_frames(media / "media" / "v.mp4", count=2, fps=None, max_frames=None)
    assert list(cache.iterdir()) == []


def test_a_frame_cache_of_ours_others_can_only_read_is_made_private(media: Path, cache: Path) -> None:
    cache.mkdir()
    os.chmod(cache, 0o755)  # what older versions created
    _request(media)
    assert (cache.stat().st_mode & 0o7777) == 0o700


def test_the_default_cache_is_created_private_and_a_link_there_is_refused(
        media: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NIAH_FRAME_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    default = tmp_path / "home-cache" / "niah" / "frames"
    _request(media)
    assert default.is_dir() and (default.stat().st_mode & 0o777) == 0o700
    default.rename(tmp_path / "elsewhere")
    default.symlink_to(tmp_path / "elsewhere")  # planted where the default cache goes
    with pytest.raises(ConfigError, match="is a symbolic link"):
        _request(media)


@pytest.mark.parametrize("xdg", [None, "", "relative/cache"])
def test_the_default_cache_is_in_the_home_folder_never_the_shared_temp_folder(
        xdg: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.delenv("NIAH_FRAME_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)  # empty or relative: ignored, as the XDG spec says
    default = expand.frame_cache_dir()
    assert default == tmp_path / "home" / ".cache" / "niah" / "frames"
    assert default.parent.parent.parent != Path(tempfile.gettempdir())


# ------------------------------------------------------------------------------------------------ entries


def _plant(cache: Path, video: Path, files: list[str], digests: list[str]) -> Path:
    cache.mkdir(mode=0o700, exist_ok=True)
    entry = cache / expand._plan_key(video, DEFAULT_PLAN)
    entry.mkdir(exist_ok=True)
    (entry / "plan.json").write_text(json.dumps({"files": files, "sha256": digests, "times": [0.0] * len(files),
                                                 "plan": {"mode": "count"}}))
    return entry


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link", "text-as-jpeg"])
def test_a_planted_entry_naming_another_file_is_never_sent(media: Path, cache: Path, tmp_path: Path,
                                                           how: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    video = media / "media" / "v.mp4"
    digest = hashlib.sha256(SECRET).hexdigest()  # forged too: only what the entry holds can decide
    name = "00000_0000000000ms.jpg"
    if how == "absolute":
        _plant(cache, video, [str(secret)], [digest])
    elif how == "dotdot":
        _plant(cache, video, ["../../secret.txt"], [digest])
    elif how == "link":
        (_plant(cache, video, [name], [digest]) / name).symlink_to(secret)
    else:
        (_plant(cache, video, [name], [digest]) / name).write_bytes(SECRET)
    body = _request(media)
    assert base64.b64encode(SECRET).decode() not in body and "text/plain" not in body
    assert body.count('"type": "image_url"') == 32  # the video's own 32 frames, sampled again over the entry
    # the entry now holds the real frames: its files are JPEGs inside it
    sampled = expand.sample_video_frames(video, count=32, fps=None, max_frames=None)
    assert all(p.parent.parent == cache and p.read_bytes()[:2] == b"\xff\xd8" for p in sampled.paths)


def test_a_swapped_frame_is_detected(media: Path, cache: Path) -> None:
    video = media / "media" / "v.mp4"
    first = expand.sample_video_frames(video, count=4, fps=None, max_frames=None)
    genuine = first.paths[0].read_bytes()
    swapped = _jpeg((255, 0, 0))
    first.paths[0].write_bytes(swapped)  # a valid JPEG, another picture
    again = expand.sample_video_frames(video, count=4, fps=None, max_frames=None)
    assert again.paths[0].read_bytes() == genuine != swapped


def test_an_intact_entry_is_reused(media: Path, cache: Path) -> None:
    video = media / "media" / "v.mp4"
    first = expand.sample_video_frames(video, count=4, fps=None, max_frames=None)
    stamps = [p.stat().st_mtime_ns for p in first.paths]
    again = expand.sample_video_frames(video, count=4, fps=None, max_frames=None)
    assert again.paths == first.paths and [p.stat().st_mtime_ns for p in again.paths] == stamps
    assert (cache.stat().st_mode & 0o777) == 0o700


# ------------------------------------------------------------------------------------------------ media limits


def test_frames_over_the_image_pixel_cap_are_refused_from_the_header(media: Path, cache: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # The cap is the one images get (Pillow's bomb limit, twice MAX_IMAGE_PIXELS); lowered here so that a
    # 320x240 video stands for a 16000x16000 one.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 20_000)
    video = media / "media" / "v.mp4"
    assert media_problem(video, "video") == ("video frames are 320x240 (76,800 pixels), over the 40,000-pixel "
                                             "limit images have")
    with pytest.raises(DataError, match=r"v\.mp4: video frames are 320x240 .* over the 40,000-pixel limit"):
        sample_video(video, count=2)
    with pytest.raises(DataError, match="40,000-pixel limit"):
        _request(media)
    ds = tmp_path / "ds"
    with DatasetWriter(ds) as w:
        w.write_media("v.mp4", video.read_bytes())
        w.write(_video_sample())
        w.finish({"benchmark": "vbench"})
    with pytest.raises(DatasetInvalid, match=r"samples\.jsonl:1: media\[0\]: 'media/v\.mp4': video frames are"):
        Dataset(ds).validate()


def _claiming(path: Path, seconds: int) -> Path:
    """A two-frame 64x64 MKV whose second frame is shown at ``seconds``: a few hundred bytes claiming that long."""
    import av

    container = av.open(str(path), "w")
    stream = container.add_stream("libx264", rate=Fraction(1, 1))
    stream.width = stream.height = 64
    stream.pix_fmt = "yuv420p"
    stream.options = {"preset": "ultrafast", "g": "1", "threads": "1"}
    stream.codec_context.time_base = Fraction(1, 1)
    frame = av.VideoFrame.from_ndarray(np.full((96, 64), 100, np.uint8), format="yuv420p")
    for pts in (0, seconds):
        frame.pts, frame.time_base = pts, Fraction(1, 1)
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)
    container.close()
    return path


def test_a_container_claiming_an_enormous_duration_is_refused_before_decoding(tmp_path: Path, cache: Path) -> None:
    video = _claiming(tmp_path / "claim.mkv", 1_000_000)
    assert video.stat().st_size < 4000 and probe(video).duration > 999_999
    with pytest.raises(DataError, match=r"claim\.mkv: video claims to last 1000001 s, over the limit of 86400 s "
                                        r"a video; raise it with --max-video-seconds"):
        sample_video(video, count=4)
    # raised, the duration passes, and sampling it at 1 fps meets the default frame limit instead
    with pytest.raises(DataError, match=f"sampling at 1 fps over 1000001 s gives 1000001 frames, over the limit "
                                        f"of {DEFAULT_FRAME_LIMIT} frames a video; send fewer with --max-frames N, "
                                        "or raise the limit with --frame-limit"):
        sample_video(video, fps=1.0, limits=VideoLimits(max_seconds=2e6))
    capped = sample_video(video, fps=1.0, max_frames=3, limits=VideoLimits(max_seconds=2e6))
    assert len(capped.frames) == 3
    # through the prompt stage: the sample fails with the message, nothing is decoded
    root = tmp_path / "root"
    (root / "media").mkdir(parents=True)
    video.rename(root / "media" / "claim.mkv")
    with pytest.raises(DataError, match="--max-video-seconds"):
        _request(root, PromptOptions(video_fps=1.0), VideoPart(path="media/claim.mkv"))
    assert not any(cache.rglob("*.jpg"))


def test_claimed_frame_counts_beyond_the_duration_are_refused() -> None:
    info = VideoInfo(path="x.mp4", duration=10.0, fps=30.0, width=64, height=64, codec="h264", start_time=0.0,
                     num_frames=1_000_000)
    with pytest.raises(DataError, match=r"x\.mp4: video claims 1000000 frames in 10\.0 s"):
        VideoLimits().check_info(info)
    VideoLimits().check_info(dataclasses.replace(info, num_frames=300))  # 30 fps: fine


def test_fps_sampling_over_the_frame_limit_fails_with_the_limit_named(media: Path, cache: Path) -> None:
    with pytest.raises(DataError, match="sampling at 8 fps over 4 s gives 32 frames, over the limit of 10 frames"):
        _request(media, PromptOptions(video_fps=8.0, frame_limit=10))
    with pytest.raises(DataError, match="sampling 16 frames gives 16 frames, over the limit of 10"):
        _request(media, PromptOptions(max_frames=16, frame_limit=10))
    body = _request(media, PromptOptions(video_fps=8.0, max_frames=10, frame_limit=10))
    assert body.count('"type": "image_url"') == 10


def test_a_frame_folder_over_the_frame_limit_fails_with_the_limit_named(tmp_path: Path) -> None:
    frames = tuple(f"media/f/{i:05d}.jpg" for i in range(DEFAULT_FRAME_LIMIT + 1))
    part = VideoPart(frames=frames)
    with pytest.raises(DataError, match=f"a frame folder of {DEFAULT_FRAME_LIMIT + 1} frames gives "
                                        f"{DEFAULT_FRAME_LIMIT + 1} frames, over the limit of {DEFAULT_FRAME_LIMIT} "
                                        "frames a video; send fewer with --max-frames N, or raise the limit with "
                                        "--frame-limit"):
        expand.video_prompt_parts(part, lambda rel: tmp_path / rel, max_frames=None, fps=None,
                                  subtitle_mode="none", native=False)
    parts, _, note = expand.video_prompt_parts(part, lambda rel: tmp_path / rel, max_frames=32, fps=None,
                                               subtitle_mode="none", native=False)
    assert len(parts) == 32 and note == f"video: 32 of {DEFAULT_FRAME_LIMIT + 1} frames sampled uniformly"
    raised = VideoLimits(frame_limit=DEFAULT_FRAME_LIMIT + 1)
    parts, _, _ = expand.video_prompt_parts(part, lambda rel: tmp_path / rel, max_frames=None, fps=None,
                                            subtitle_mode="none", native=False, limits=raised)
    assert len(parts) == DEFAULT_FRAME_LIMIT + 1


def test_a_run_records_the_over_limit_sample_as_failed_and_goes_on(tmp_path: Path, cache: Path) -> None:
    from niah.run import run_dataset_sync

    ds = tmp_path / "ds"
    jpeg = _jpeg((10, 120, 200))
    with DatasetWriter(ds) as w:
        for i in range(12):
            w.write_media(f"f/{i:02d}.jpg", jpeg)
        w.write(_video_sample(VideoPart(frames=tuple(f"media/f/{i:02d}.jpg" for i in range(12)))))
        w.write(Sample(id="s2", benchmark="vbench", task="watch",
                       context=[VideoPart(frames=tuple(f"media/f/{i:02d}.jpg" for i in range(4)))],
                       question=[TextPart("?")], answer="x"))
        w.finish({"benchmark": "vbench"})
    summary = run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False,
                               prompt_options=PromptOptions(frame_limit=10))
    assert summary.failed == 1 and summary.answered == 1
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "run" / "responses.jsonl").read_text().splitlines())}
    assert "a frame folder of 12 frames gives 12 frames, over the limit of 10" in rows["s1"]["error"]
    # the limits are no prompt option: raising them resumes into the same run directory
    again = run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False,
                             prompt_options=PromptOptions(frame_limit=12))
    assert again.failed == 0 and again.resumed == 1 and again.answered == 2  # resumed ones count as answered


def test_the_cli_refuses_a_limit_below_one(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "niah.cli", "run", str(tmp_path), "--model", "baseline:random",
                           "--out", str(tmp_path / "run"), "--frame-limit", "0"], capture_output=True, text=True,
                          env=niah_env(), timeout=60)
    assert done.returncode != 0 and "--frame-limit must be at least 1" in done.stderr


# ------------------------------------------------------------------------------------------------ interruption


@pytest.fixture(scope="module")
def slow_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4K video of two frames 999 s apart: `--video-fps 1 --max-frames 1000` makes 1000 4K frames to convert
    and encode, over a minute of work; a run stopped a second in must not wait for it."""
    import av

    root = tmp_path_factory.mktemp("slow")
    src = root / "4k.mp4"
    container = av.open(str(src), "w")
    stream = container.add_stream("libx264", rate=Fraction(1, 100))
    stream.width, stream.height, stream.pix_fmt = 3840, 2160, "yuv420p"
    stream.options = {"preset": "ultrafast", "g": "1", "threads": "1"}
    stream.codec_context.time_base = Fraction(1, 1)
    planes = np.full((2160 * 3 // 2, 3840), 128, np.uint8)
    for k in range(2):
        planes[:2160] = 30 + 100 * k
        frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
        frame.pts, frame.time_base = 999 * k, Fraction(1, 1)
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)
    container.close()
    ds = root / "ds"
    with DatasetWriter(ds) as w:
        w.write_media("v.mp4", src.read_bytes())
        w.write(_video_sample())
        w.finish({"benchmark": "vbench"})
    return ds


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_decoding_stops_the_run(slow_dataset: Path, tmp_path: Path, sig: signal.Signals) -> None:
    run_dir = tmp_path / "run"
    env = {**niah_env(), "NIAH_FRAME_CACHE": str(tmp_path / "frames")}
    proc = start_niah(["run", str(slow_dataset), "--model", "baseline:random", "--out", str(run_dir),
                       "--video-fps", "1", "--max-frames", "1000", "--no-progress"], env=env)
    # The reference: how long this machine, as busy as it is now, took to start the process and validate the
    # dataset (run.json is written just before the first sample is sampled). Stopping must take a few of those;
    # before the fix the decoding thread ran on through all 1000 frames, some thirty start-ups' worth of work on
    # a quiet machine and more on a busy one.
    start_up = wait_until(proc, (run_dir / "run.json").exists)
    time.sleep(0.4)
    err, stopping = stop_with(proc, sig, timeout_s=300)
    assert proc.returncode == 128 + sig, err
    assert stopping < 10 + 4 * start_up, (stopping, start_up)
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["complete"] is False and meta["finished"] is None
    assert meta["interrupted"] == sig.name  # Ctrl-C wrote null
    said = "terminated (SIGTERM)" if sig == signal.SIGTERM else "interrupted (Ctrl-C)"
    # said, with where the work is kept and how to resume (Ctrl-C exited 130 without a word)
    assert f"{said} while running: 0 answered so far are kept in {run_dir}; run the same command again" in err


def test_probe_with_limits_refuses_a_video_over_them(tmp_path: Path) -> None:
    from niah.video import VideoLimits as Exported

    assert Exported is VideoLimits  # importable from niah.video, as the docs show
    video = barcode_video(tmp_path / "clip.mp4", seconds=4, fps=8, width=64, height=48)
    assert probe(video).duration == pytest.approx(4.0, abs=0.2)  # no limits: the header as it claims
    with pytest.raises(DataError, match=r"clip\.mp4: video claims to last 4 s, over the limit of 2 s"):
        probe(video, limits=VideoLimits(max_seconds=2))
    assert probe(video, limits=VideoLimits(max_seconds=60)).duration == pytest.approx(4.0, abs=0.2)
