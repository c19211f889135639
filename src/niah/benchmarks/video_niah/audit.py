"""What video-niah tells ``niah audit`` and the runner's delivery check: where each needle is, blind chance, and
the closed answer pools.

A needle of a frame-list video is its frames (``NeedleSpot("video", part, frames)``): it reaches the model when
the runner's frame sampling keeps one of them. The builder gives every needle of a sample frames of its own (a
cartoon tile at its own place), so a needle is never "seen" through another needle's identical frame. A
subtitle needle is its line (a text spot: the line must be among the subtitle text the prompt carries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from niah.benchmarks.protocol import AuditSpec, NeedleSpot
from niah.benchmarks.video_niah.pools import COUNT_RANGE, answer_pool
from niah.sample import Sample, VideoPart


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first_frames(meta: dict[str, Any], fps: float, span: int) -> list[int]:
    """Each needle's first frame: recorded (``needle_first_frames``), else from its middle frame's time."""
    recorded = meta.get("needle_first_frames")
    if isinstance(recorded, list) and all(_int(v) is not None for v in recorded):
        return list(recorded)
    times = meta.get("needle_times")
    if not isinstance(times, list):
        return []
    return [round(float(t) * fps) - (span - 1) // 2 for t in times if isinstance(t, (int, float))]


def locate(sample: Sample) -> list[NeedleSpot]:
    meta = sample.meta or {}
    index = next((i for i, p in enumerate(sample.context) if isinstance(p, VideoPart)), None)
    if index is None:
        return []
    part = sample.context[index]
    assert isinstance(part, VideoPart)
    labels = meta.get("needle_labels")
    if meta.get("needle_kind") == "subtitle":
        if not isinstance(labels, list):
            return []
        return [NeedleSpot("text", text=f"The secret word is {label}.") for label in labels]
    fps = float(part.fps or meta.get("fps") or 1.0)
    if not part.frames:  # a video file: the needles' time spans
        span_s = (_int(meta.get("needle_frames")) or 1) / fps
        times = meta.get("needle_times") or []
        return [NeedleSpot("video", part=index, start=float(t) - span_s / 2, end=float(t) + span_s / 2)
                for t in times if isinstance(t, (int, float))]
    span = _int(meta.get("needle_frames")) or 1
    spots = []
    for first in _first_frames(meta, fps, span):
        frames = part.frames[max(0, first):max(0, first + span)]
        if frames:
            spots.append(NeedleSpot("video", part=index, frames=tuple(frames)))
    return spots


def chance(sample: Sample) -> float:
    """A blind guess's expected score: one over the options, over the counts, over the retrieval pool."""
    if sample.choices:
        return 1 / len(sample.choices)
    if sample.task == "counting":
        return 1 / (COUNT_RANGE[1] - COUNT_RANGE[0] + 1)
    pool = answer_pool(sample)
    return 1 / len(pool) if pool else 0.0


def pool(task: str, samples: Sequence[Sample]) -> Sequence[str] | None:
    """Open retrieval: the word or object pool the needles come from; counting: the counts it draws."""
    if task == "counting":
        return [str(c) for c in range(COUNT_RANGE[0], COUNT_RANGE[1] + 1)]
    if task != "retrieval":
        return None
    out: list[str] = []
    for sample in samples:
        if sample.task == task:
            out += [w for w in answer_pool(sample) or () if w not in out]
    return out or None


AUDIT = AuditSpec(locate=locate, chance=chance, pool=pool)
