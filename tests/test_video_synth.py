"""Procedural video haystacks: decoding a needle's recorded timestamp shows the needle; determinism; placement."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from niah.util.errors import ConfigError
from niah.video import frames_at, load_subtitles, probe
from niah.video.synth import (
    ClipNeedle,
    ImageNeedle,
    OverlayNeedle,
    ProceduralScenes,
    SubtitleNeedle,
    VideoSource,
    build_haystack,
    letterbox,
    place_needles,
    render_caption,
)
from support.videos import barcode_video, read_barcode


def _diff(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute pixel difference (0-255)."""
    return float(np.abs(np.asarray(a, np.int16) - np.asarray(b.convert("RGB"), np.int16)).mean())


def _needle_image() -> Image.Image:
    im = Image.new("RGB", (300, 200), (250, 250, 240))
    d = ImageDraw.Draw(im)
    d.ellipse((40, 30, 160, 150), fill=(220, 30, 30))
    d.rectangle((180, 60, 280, 170), fill=(30, 60, 200))
    return im


def test_needles_show_at_their_recorded_times(tmp_path: Path) -> None:
    src = ProceduralScenes(60, fps=2, width=320, height=180, seed=11)
    plain = list(src.frames())
    clip = [Image.new("RGB", (320, 180), (255 * (i % 2), 40 * i, 200)) for i in range(4)]
    needles = [OverlayNeedle("The secret word is tangerine.", 0.25, seconds=2),
               ImageNeedle(_needle_image(), 0.6, seconds=1.5), ClipNeedle(clip, 0.9)]
    hs = build_haystack(tmp_path / "h.mp4", src, needles, keyframe_interval=2)
    assert probe(hs.path).duration == pytest.approx(60) and hs.num_frames == 120
    overlay, image, clipped = hs.needles
    assert (overlay.first_frame, overlay.num_frames) == (round(0.25 * 116), 4)
    assert overlay.start == overlay.first_frame / 2 and overlay.end == overlay.start + 2
    assert hs.needle_times == [n.time for n in hs.needles]

    got = frames_at(hs.path, hs.needle_times)
    expected_overlay = render_caption(plain[round(overlay.time * 2)], overlay.label)
    assert _diff(expected_overlay, got[0].image) < 4  # the needle rendering, up to compression
    assert _diff(plain[round(overlay.time * 2)], got[0].image) > 3 * _diff(expected_overlay, got[0].image)
    assert _diff(letterbox(_needle_image(), (320, 180)), got[1].image) < 4
    assert _diff(letterbox(clip[(clipped.num_frames - 1) // 2], (320, 180)), got[2].image) < 4

    # Every frame of the clip in order, and none of the needles just outside its span.
    clip_frames = frames_at(hs.path, [(clipped.first_frame + k) / 2 for k in range(4)])
    assert all(_diff(letterbox(c, (320, 180)), f.image) < 4 for c, f in zip(clip, clip_frames, strict=True))
    before, after = frames_at(hs.path, [overlay.start - 0.5, overlay.end])
    assert _diff(plain[overlay.first_frame - 1], before.image) < 4
    assert _diff(plain[overlay.first_frame + overlay.num_frames], after.image) < 4


def test_same_seed_same_bytes_other_seed_other_video(tmp_path: Path) -> None:
    def build(name: str, seed: int) -> bytes:
        src = ProceduralScenes(20, fps=1, width=160, height=90, seed=seed)
        return build_haystack(tmp_path / name, src, [OverlayNeedle("word", 0.5)]).path.read_bytes()

    assert build("a.mp4", 5) == build("b.mp4", 5)
    assert build("c.mp4", 6) != build("a.mp4", 5)


def test_scenes_move_and_change() -> None:
    frames = list(ProceduralScenes(40, fps=1, width=160, height=90, seed=2, scene_seconds=(5, 10)).frames())
    consecutive = [_diff(a, b) for a, b in zip(frames, frames[1:], strict=False)]
    assert min(consecutive) > 0.05  # motion in every step
    assert max(consecutive) > 10  # and scene cuts


def test_placement_edges_and_errors() -> None:
    first, last = place_needles([OverlayNeedle("a", 0.0, seconds=3), OverlayNeedle("b", 1.0, seconds=3)], 100, 1)
    assert (first.first_frame, last.first_frame, last.end) == (0, 97, 100.0)
    with pytest.raises(ConfigError, match="overlap"):
        place_needles([OverlayNeedle("a", 0.5, seconds=10), ImageNeedle(_needle_image(), 0.52)], 100, 1)
    # A subtitle needle may share a span with a visual one.
    assert len(place_needles([OverlayNeedle("a", 0.5), SubtitleNeedle("b", 0.5)], 100, 1)) == 2
    with pytest.raises(ConfigError, match="depth"):
        place_needles([OverlayNeedle("a", 1.5)], 100, 1)
    with pytest.raises(ConfigError, match="does not fit"):
        place_needles([OverlayNeedle("a", 0.5, seconds=200)], 100, 1)


def test_subtitle_needles_are_written_as_srt(tmp_path: Path) -> None:
    src = ProceduralScenes(30, fps=1, width=160, height=90, seed=1)
    hs = build_haystack(tmp_path / "s.mp4", src, [SubtitleNeedle("The password is 42.", 0.5, seconds=2)],
                        subtitles=[(1.0, 2.5, "Filler one."), (20.0, 21.0, "Filler two.")])
    assert hs.subtitles == tmp_path / "s.srt"
    cues = load_subtitles(hs.subtitles)
    assert [c.text for c in cues] == ["Filler one.", "The password is 42.", "Filler two."]
    needle = hs.needles[0]
    assert (cues[1].start, cues[1].end) == (needle.start, needle.end) == (14.0, 16.0)


def test_user_video_as_haystack(tmp_path: Path) -> None:
    user = barcode_video(tmp_path / "user.mp4", seconds=12, fps=24)
    src = VideoSource(user, fps=2)
    hs = build_haystack(tmp_path / "u.mp4", src, [OverlayNeedle("secret", 0.5, seconds=1)])
    assert hs.num_frames == 24 and (hs.width, hs.height) == (320, 240)
    plain = frames_at(hs.path, [3.0, 9.5])
    assert [read_barcode(f.image) for f in plain] == [72, 228]  # frame k of the haystack = source time k / 2
