"""Video parts of a prompt turned into what a model without native video takes: sampled frames, in order.

A video file is sampled with :func:`niah.video.frames.sample_video` (keyframe seeks, exact timestamps) and its
frames are written once as JPEGs to a content-addressed frame cache, so that they travel the ordinary image
path: backends encode them like any image and the request fingerprint hashes their bytes. A frame folder
(``VideoPart.frames``) is sampled by index. Subtitles go with the frames: each frame preceded by the lines of
its time span (``frames`` mode) or all of them as one transcript after the frames (``transcript`` mode).

The frame cache lives in ``$NIAH_FRAME_CACHE`` or, by default, a per-user folder in the temp directory; an
entry is keyed by the video's resolved path, size and mtime and the sampling plan, so a changed video is
sampled again. Entries are written atomically (a finished entry has its ``plan.json``).

Whatever can write the cache decides what the model is sent, so the cache folder is created 0700 and, on
every use, must be a real folder owned by the user and closed to others (else a ConfigError says why). An
entry is used only when its ``plan.json`` names plain file names inside the entry, each a regular file whose
SHA-256 is the one recorded and that decodes as a JPEG (the check every dataset image gets); anything else is
sampled again over it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.util.errors import ConfigError, DataError
from niah.util.iox import name_failed_file, write_atomic
from niah.video.frames import VideoLimits

SUBTITLE_MODES = ("frames", "transcript", "none")
#: Frames sampled from a video file when neither a frame budget nor a sampling fps is given.
DEFAULT_MAX_FRAMES = 32
FRAME_CACHE_ENV = "NIAH_FRAME_CACHE"


def frame_cache_dir() -> Path:
    """Where sampled frames are stored when the caller names no folder: ``$NIAH_FRAME_CACHE``, else
    ``niah/frames`` in the user's cache folder (``$XDG_CACHE_HOME``, by default ``~/.cache``). Never a folder
    under the shared temp folder, where another user could create it first. Not checked here:
    :func:`private_cache_dir` checks it on every use."""
    env = os.environ.get(FRAME_CACHE_ENV)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"  # XDG: a relative value is ignored
    return base / "niah" / "frames"


def private_cache_dir(folder: Path, *, follow_links: bool) -> Path:
    """``folder``, created 0700 when missing, after checking that only this user can change it
    (:func:`niah.util.iox.private_dir`: whoever can write it decides what the model is sent). Raises ConfigError
    naming the folder and what to do otherwise."""
    from niah.util.iox import private_dir

    return private_dir(folder, what="frame cache", fix=f"remove it, or set {FRAME_CACHE_ENV} to a folder of your own",
                       follow_links=follow_links)


def _checked_cache(cache: Path | None) -> Path:
    if cache is not None:
        return private_cache_dir(cache, follow_links=True)
    return private_cache_dir(frame_cache_dir(), follow_links=bool(os.environ.get(FRAME_CACHE_ENV)))


@dataclass(frozen=True, slots=True)
class SampledFrames:
    """Frames of one video as files (``paths``, in order) with their presentation ``times`` (s)."""

    paths: list[Path]
    times: list[float]
    plan: dict[str, Any]


def _plan_key(path: Path, plan: dict[str, Any]) -> str:
    st = path.stat()
    material = {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "plan": plan, "v": 2}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]


#: The only file names an entry's plan.json may list: what :func:`sample_video_frames` writes.
_FRAME_NAME = re.compile(r"\d{5,}_-?\d{9,}ms\.jpg")


#: SHA-256 digests of frame files already decoded whole by :func:`_cached_entry` in this process: the same
#: bytes decode the same, so a frame shared by many samples' prompts is decoded once, yet hashed on every use.
_DECODED: set[str] = set()


def _cached_entry(entry: Path) -> SampledFrames | None:
    """The frames a finished entry holds, or None when it is missing, damaged or not what niah wrote: every
    listed name a plain frame name, a regular file in the entry (no link) with the recorded SHA-256, that
    decodes as a JPEG (the check every dataset image gets)."""
    from niah.sample import media_problem

    try:
        st = os.lstat(entry)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            return None
        recorded = json.loads((entry / "plan.json").read_text(encoding="utf-8"))
        names, digests, times = recorded["files"], recorded["sha256"], recorded["times"]
        if not (isinstance(names, list) and isinstance(digests, list) and isinstance(times, list)
                and len(names) == len(digests) == len(times) and isinstance(recorded["plan"], dict)):
            return None
        paths: list[Path] = []
        for name, digest in zip(names, digests, strict=True):
            if not isinstance(name, str) or not _FRAME_NAME.fullmatch(name):
                return None
            # a plain name (no separator, no "..") of a regular file (no link) in a real folder: inside the entry
            path = entry / name
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return None
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != digest or data[:3] != b"\xff\xd8\xff":  # a JPEG, as written
                return None
            if digest not in _DECODED:
                if media_problem(path, "image") is not None:
                    return None
                _DECODED.add(digest)
            paths.append(path)
        return SampledFrames(paths, [float(t) for t in times], recorded["plan"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def sample_video_frames(path: Path, *, count: int | None, fps: float | None, max_frames: int | None,
                        cache: Path | None = None, times: list[float] | None = None,
                        limits: VideoLimits | None = None) -> SampledFrames:
    """Frames of a video file by ``count`` (uniform) or ``fps`` (capped by ``max_frames``), or at the given
    ``times``, cached as JPEGs. ``limits`` are checked before anything is decoded; the cache folder is checked
    (:func:`private_cache_dir`) and a cached entry used only when it passes :func:`_cached_entry`."""
    from niah.video.frames import FrameSample, frames_at, sample_video

    limits = limits or VideoLimits()
    plan: dict[str, Any] = {"count": count, "fps": fps, "max_frames": max_frames, "format": "jpeg", "quality": 90}
    if times is not None:
        plan = {"times": [round(t, 6) for t in times], "format": "jpeg", "quality": 90}
    entry = _checked_cache(cache) / _plan_key(path, plan)
    hit = _cached_entry(entry)
    if hit is not None:
        limits.check_frames(len(hit.paths), path, "its cached sampling")
        return hit
    if times is not None:
        limits.check_frames(len(times), path, f"sampling {len(times)} given times")
        sample = FrameSample(frames_at(path, times, output="jpeg"), plan)
    else:
        sample = sample_video(path, count=count, fps=fps, max_frames=max_frames, output="jpeg", limits=limits)
    names: list[str] = []
    digests: list[str] = []
    try:
        with contextlib.suppress(FileExistsError):
            entry.mkdir(mode=0o700)
        if not stat.S_ISDIR(os.lstat(entry).st_mode):
            raise ConfigError(f"frame cache entry {entry} is not a folder; remove it")
        for i, frame in enumerate(sample.frames):
            name = f"{i:05d}_{round(frame.time * 1000):010d}ms.jpg"
            assert frame.jpeg is not None
            if (entry / name).is_symlink():  # planted in niah's private entry: replaced, never written through
                (entry / name).unlink()
            write_atomic(entry / name, frame.jpeg)  # replaces whatever stood at that name (a link included)
            names.append(name)
            digests.append(hashlib.sha256(frame.jpeg).hexdigest())
        times = [round(f.time, 6) for f in sample.frames]
        write_atomic(entry / "plan.json", json.dumps({"files": names, "sha256": digests, "times": times,
                                                      "plan": sample.plan}, sort_keys=True))
    except OSError as exc:
        name_failed_file(exc, entry)  # a full disk names no file: the cache entry, maybe on another disk
        raise
    return SampledFrames([entry / n for n in names], times, sample.plan)


def pick_folder_frames(frames: tuple[str, ...], *, folder_fps: float | None, fps: float | None,
                       cap: int | None) -> tuple[list[int], list[float]]:
    """Indices (and times) of the frames of a frame folder to keep: every 1/``fps`` s when given, then at most
    ``cap``, the frame at the centre of each of ``cap`` equal segments, as a video file is sampled (keeping the
    first and last frame would show a needle at either end always and one inside only where the grid falls:
    a U-shape over depth made by the sampler)."""
    rate = folder_fps or 1.0
    indices = list(range(len(frames)))
    if fps is not None and fps < rate:
        step = rate / fps
        indices = sorted({min(len(frames) - 1, math.floor(k * step + 1e-9))
                          for k in range(max(1, math.ceil(len(frames) / step - 1e-9)))})
    if cap is not None and len(indices) > cap:
        n = len(indices)
        indices = [] if cap <= 0 else [indices[min(n - 1, math.floor((k + 0.5) * n / cap + 1e-9))]
                                       for k in range(cap)]
    return indices, [i / rate for i in indices]


def subtitle_texts(subtitles: Path, times: list[float], mode: str, *,
                   end: float | None = None) -> tuple[list[str], str, list[str]]:
    """(one text per frame, transcript, cues past the end) of a subtitle file for frames at ``times`` under
    ``mode``. With ``end`` (the video's length, s), cues starting at or after it are returned apart instead
    of piling onto the last frame (subtitles timed on a longer cut than the video)."""
    from niah.video.subtitles import align_to_frames, load_subtitles, transcript

    if mode not in SUBTITLE_MODES:
        raise DataError(f"unknown subtitle mode {mode!r} (frames, transcript or none)")
    if mode == "none":
        return [""] * len(times), "", []
    cues = load_subtitles(subtitles)
    past = [c for c in cues if end is not None and c.start >= end]
    if past:
        cues = [c for c in cues if c not in past]
    if mode == "transcript":
        return [""] * len(times), transcript(cues), [c.text for c in past]
    return ["\n".join(lines) for lines in align_to_frames(cues, times)], "", [c.text for c in past]


def frame_label(time: float, lines: str) -> str:
    """The text put before a frame in ``frames`` mode: its timestamp and its subtitle lines."""
    return f"[{time:.1f}s] {lines}\n" if lines else ""


TRANSCRIPT_HEAD = "\nSubtitles:\n"
PAST_END_HEAD = "\nSubtitles after the video's end:\n"


def video_prompt_parts(part: Any, resolve: Callable[[str], Path], *, max_frames: int | None,
                       fps: float | None, subtitle_mode: str, native: bool,
                       cache: Path | None = None,
                       limits: VideoLimits | None = None) -> tuple[list[Any], dict[str, Path], str | None]:
    """The parts that replace one :class:`~niah.sample.VideoPart` in a prompt, the frame files they name
    (synthetic relative path -> file, for :meth:`RenderedPrompt.resolve`) and a note saying what was done.

    ``native``: the model takes video; the part stays and its subtitles follow it as a transcript. The note
    is None when nothing was left out or added (every frame of a frame folder, a native video alone).
    More frames than ``limits.frame_limit`` (a frame folder, or a video file's sampling) is a DataError."""
    from niah.sample import ImagePart, TextPart

    derived: dict[str, Path] = {}
    subs = resolve(part.subtitles) if part.subtitles is not None else None
    if native:
        out: list[Any] = [part]
        native_note: str | None = None
        if subs is not None and subtitle_mode != "none":
            _, text, _ = subtitle_texts(subs, [], "transcript")
            if text:
                out.append(TextPart(TRANSCRIPT_HEAD + text + "\n"))
                native_note = "video: sent as video, its subtitles as a transcript"
        return out, derived, native_note
    end: float | None = None
    if part.frames:
        indices, times = pick_folder_frames(part.frames, folder_fps=part.fps, fps=fps, cap=max_frames)
        (limits or VideoLimits()).check_frames(len(indices), resolve(part.frames[0]).parent,
                                               f"a frame folder of {len(part.frames)} frames")
        end = len(part.frames) / (part.fps or 1.0)
        rels = [part.frames[i] for i in indices]
        note: str | None = (f"video: {len(rels)} of {len(part.frames)} frames sampled uniformly"
                            if len(rels) != len(part.frames) else None)
    else:
        if part.path is None:
            raise DataError("video part has neither a file nor frames")
        cap = max_frames if max_frames is not None else (None if fps is not None else DEFAULT_MAX_FRAMES)
        if cap is not None and cap <= 0:
            return [], derived, "video: left out (no room for frames under max_images)"
        count = cap if fps is None else None
        sampled = sample_video_frames(resolve(part.path), count=count, fps=fps,
                                      max_frames=cap if fps is not None else None, cache=cache, limits=limits)
        times = sampled.times
        duration = sampled.plan.get("duration")
        end = float(duration) if isinstance(duration, (int, float)) and duration > 0 else None
        rels = []
        for path, t in zip(sampled.paths, times, strict=True):
            rel = f"{part.path}#t={t:.3f}"
            derived[rel] = path
            rels.append(rel)
        how = f"at {fps:g} fps" if fps is not None else "uniformly"
        budget = f", at most {cap}" if cap is not None else ""
        note = f"video: {len(rels)} frames sampled {how}{budget}"
    texts, transcript_text, past_end = (subtitle_texts(subs, times, subtitle_mode, end=end) if subs is not None
                                        else ([""] * len(times), "", []))
    out = []
    for rel, t, lines in zip(rels, times, texts, strict=True):
        label = frame_label(t, lines)
        if label:
            out.append(TextPart(label))
        out.append(ImagePart(rel))
    if transcript_text:
        out.append(TextPart(TRANSCRIPT_HEAD + transcript_text + "\n"))
    if past_end:
        out.append(TextPart(PAST_END_HEAD + "\n".join(past_end) + "\n"))
    if subs is not None and subtitle_mode != "none":
        note = (note or "video: all frames") + f", subtitles {'per frame' if subtitle_mode == 'frames' else 'as a transcript'}"
        if past_end:
            note += f", {len(past_end)} subtitle cue(s) past the video's end kept apart"
    return out, derived, note
