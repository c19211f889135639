"""Frame sampling: exact frames at requested times (checked by a barcode each frame carries), plans, folders."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from niah.util.errors import DataError
from niah.video import (
    fps_times,
    frames_at,
    list_frame_folder,
    plan_times,
    probe,
    sample_frame_folder,
    sample_video,
    uniform_times,
)
from niah.video.frames import iter_frames_at
from support.videos import barcode_video, read_barcode

FPS = 24


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return barcode_video(tmp_path_factory.mktemp("v") / "bar.mp4", seconds=20, fps=FPS, keyframe_interval=2)


def _expected_index(t: float, n: int = 20 * FPS) -> int:
    return min(n - 1, max(0, math.floor(t * FPS + 1e-9)))


def test_probe(video: Path) -> None:
    info = probe(video)
    assert (info.width, info.height, info.codec) == (320, 240, "h264")
    assert info.duration == pytest.approx(20.0)
    assert info.fps == pytest.approx(24.0)
    assert info.num_frames == 480


def test_frames_are_the_ones_on_screen(video: Path) -> None:
    # Out of order, duplicates, keyframe boundaries, just before a boundary, outside the video.
    times = [5.3, 0.0, 1.999, 2.0, 2.041, 5.3, 19.99, 30.0, -1.0, 10.0417, 3.9, 4.0]
    frames = frames_at(video, times)
    assert [f.requested for f in frames] == times
    for f in frames:
        idx = _expected_index(f.requested)
        assert read_barcode(f.image) == idx, f.requested
        assert f.time == pytest.approx(idx / FPS)
        assert f.time <= max(f.requested, 0.0) + 1e-9


def test_many_targets_in_one_gop_and_across(video: Path) -> None:
    times = [i * 0.37 for i in range(54)]
    got = [read_barcode(f.image) for f in iter_frames_at(video, times)]
    assert got == [_expected_index(t) for t in times]


def test_exact_with_b_frames_and_a_long_gop(tmp_path: Path) -> None:
    # B-frames reorder decoding; presentation times still decide which frame is on screen.
    video = barcode_video(tmp_path / "b.mp4", seconds=12, fps=FPS, keyframe_interval=5, preset="fast", bframes=3)
    times = [0.0, 4.99, 5.0, 5.02, 7.77, 11.99, 3.3, 9.0]
    assert [read_barcode(f.image) for f in frames_at(video, times)] == [_expected_index(t, 12 * FPS) for t in times]


def test_exact_at_every_frame_boundary_with_b_frames(tmp_path: Path) -> None:
    # Non-reference B-frames are skipped on the way to a target: the frame on screen must still be exact at
    # every frame start, just before it, and for sparse targets that cross GOPs.
    video = barcode_video(tmp_path / "b3.mp4", seconds=6, fps=FPS, keyframe_interval=3, bframes=3)
    n = 6 * FPS
    times = [i / FPS for i in range(n)] + [i / FPS - 1e-4 for i in range(1, n)] + [0.9, 2.95, 3.4, 5.99]
    got = [read_barcode(f.image) for f in frames_at(video, times)]
    assert got == [_expected_index(t, n) for t in times]


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_b_frame_seeks_land_in_the_targets_gop(tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # With B-frames a container's index holds decode times, a little before each keyframe's presentation time;
    # seeking to those landed a whole GOP early (twice the decoding). Count the packets demuxed per target.
    import niah.video.frames as frames_module

    video = barcode_video(tmp_path / f"g{suffix}", seconds=16, fps=FPS, keyframe_interval=4, bframes=3)
    demuxed = 0
    real_open = frames_module._open

    class CountingContainer:
        def __init__(self, container: Any) -> None:
            self.container = container

        def __getattr__(self, name: str) -> Any:
            return getattr(self.container, name)

        def demux(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
            nonlocal demuxed
            for packet in self.container.demux(*args, **kwargs):
                demuxed += 1
                yield packet

        def decode(self, *args: Any, **kwargs: Any) -> Iterator[Any]:  # demuxes and decodes, one frame a packet
            nonlocal demuxed
            for frame in self.container.decode(*args, **kwargs):
                demuxed += 1
                yield frame

    def counting_open(path: Path) -> CountingContainer:
        return CountingContainer(real_open(path))

    monkeypatch.setattr(frames_module, "_open", counting_open)
    times = [4.5, 8.5, 12.5]  # half a second into each GOP
    assert [read_barcode(f.image) for f in frames_at(video, times)] == [_expected_index(t, 16 * FPS) for t in times]
    assert demuxed < len(times) * 2 * FPS  # about 0.5 s + decoder delay each, never a GOP (4 s) more


@pytest.mark.parametrize("workers", [2, 3])
def test_parallel_decoders_give_the_same_frames(tmp_path: Path, workers: int) -> None:
    # Several decoders split the time-sorted targets into runs; the answer for a time must not depend on it,
    # with B-frames, targets in any order, repeated, and outside the video.
    video = barcode_video(tmp_path / "p.mp4", seconds=10, fps=FPS, keyframe_interval=2, bframes=3)
    n = 10 * FPS
    times = [((i * 7919) % (n + 40)) / FPS - 1.0 for i in range(150)] + [0.0, 0.0, 9.99, 2.0, 1.999]
    expected = [_expected_index(t, n) for t in times]
    assert [read_barcode(f.image) for f in frames_at(video, times, workers=workers)] == expected
    assert [f.requested for f in frames_at(video, times, workers=workers, output="jpeg")] == times
    frames = iter_frames_at(video, sorted(times), workers=workers)
    assert read_barcode(next(frames).image) == 0
    frames.close()  # stopping early shuts the decoders down


def test_parallel_decoding_reports_a_broken_video(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all" * 100)
    with pytest.raises(DataError):
        frames_at(bad, [i * 0.5 for i in range(20)], workers=2)


def test_uniform_and_fps_plans() -> None:
    assert uniform_times(10, 4) == [1.25, 3.75, 6.25, 8.75]
    assert fps_times(3, 1) == [0, 1, 2]
    assert fps_times(2.5, 2) == [0, 0.5, 1.0, 1.5, 2.0]
    assert plan_times(100, fps=1, max_frames=4) == uniform_times(100, 4)
    with pytest.raises(ValueError):
        plan_times(10, count=3, fps=1)
    with pytest.raises(ValueError):
        uniform_times(10, 0)


def test_sample_video_by_count_and_fps(video: Path) -> None:
    s = sample_video(video, count=8, output="jpeg")
    assert len(s.frames) == 8 and all(f.jpeg and f.jpeg[:2] == b"\xff\xd8" for f in s.frames)
    assert [read_barcode(f.to_image()) for f in s.frames] == [_expected_index(t) for t in uniform_times(20, 8)]
    assert s.plan["mode"] == "count" and s.plan["num_frames"] == 8
    s = sample_video(video, fps=0.5, max_side=160)
    assert [f.time for f in s.frames] == pytest.approx([2.0 * k for k in range(10)])
    assert s.frames[0].size == (160, 120)


def test_unreadable_video_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "junk.mp4"
    bad.write_bytes(b"\x00\x01not a video" * 100)
    with pytest.raises(DataError) as err:
        probe(bad)
    assert err.value.file == str(bad)
    with pytest.raises(DataError, match="not found"):
        sample_video(tmp_path / "missing.mp4", count=2)
    text = tmp_path / "notes.mp4"
    text.write_text("just some text\n" * 50)
    with pytest.raises(DataError) as err:
        frames_at(text, [0.0])
    assert err.value.file == str(text)


def test_truncated_video_is_a_data_error(video: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(video.read_bytes()[: len(video.read_bytes()) // 3])
    with pytest.raises(DataError) as err:
        frames_at(cut, [1.0, 15.0])
    assert err.value.file == str(cut)


def test_frame_folder_natural_order_and_sampling(tmp_path: Path) -> None:
    for i in (0, 1, 2, 10, 11, 3):
        Image.new("RGB", (4, 4), (i * 20, 0, 0)).save(tmp_path / f"frame{i}.jpg")
    (tmp_path / "notes.txt").write_text("x")
    names = [p.name for p in list_frame_folder(tmp_path)]
    assert names == ["frame0.jpg", "frame1.jpg", "frame2.jpg", "frame3.jpg", "frame10.jpg", "frame11.jpg"]
    s = sample_frame_folder(tmp_path, count=3)  # 6 frames at 1 fps: centres 1, 3, 5 s
    assert [Path(f.path).name for f in s.frames] == ["frame1.jpg", "frame3.jpg", "frame11.jpg"]
    assert [f.time for f in s.frames] == [1.0, 3.0, 5.0]
    s = sample_frame_folder(tmp_path, fps=1, folder_fps=2, load=True)  # 3 s of video
    assert [Path(f.path).name for f in s.frames] == ["frame0.jpg", "frame2.jpg", "frame10.jpg"]
    assert s.frames[1].image is not None and s.frames[1].size == (4, 4)
    with pytest.raises(DataError, match="no image files"):
        list_frame_folder(_empty_dir(tmp_path))


def _empty_dir(tmp_path: Path) -> Path:
    d = tmp_path / "empty"
    d.mkdir()
    return d
