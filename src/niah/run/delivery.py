"""Which needles reach the model: a sample's needles (its family's :class:`~niah.benchmarks.protocol.NeedleSpot`
list) against the prompt the runner actually sends.

A needle hidden in a one-hour video is worthless if frame sampling drops it: the model is then scored on a
question it was never shown. ``niah run`` records ``needle_shown`` per row and ``niah audit`` reports the
delivered share; both call :func:`delivered` on the prompt after :func:`niah.prompts.render.fit_to_capabilities`, so
that the check follows the runner's own sampling and truncation path, never a copy of it.

A needle is delivered when the sent prompt holds it: a text needle's text in the sent context text, an image
needle's image among the sent images, a video needle's frame among the sent frames (a frame list's frame by
path, a video file's sampled frame by its time inside the needle's span), or the video itself for models that
take video natively.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from niah.sample import ImagePart, TextPart, VideoPart

if TYPE_CHECKING:
    from niah.benchmarks.protocol import NeedleSpot
    from niah.prompts.types import RenderedPrompt
    from niah.sample import Sample

#: Frames sampled from a video file are named ``<video path>#t=<seconds>`` in the sent prompt.
_FRAME_TIME = re.compile(r"#t=(-?\d+(?:\.\d+)?)$")
#: Tolerance when comparing a sampled frame's time with a needle span (frame times are rounded to 1 ms).
_TIME_SLACK = 1e-3


def default_locate(sample: Sample) -> list[NeedleSpot]:
    """Needles from the shared meta conventions: ``meta.needles`` strings that name an image part's path are
    image needles (every part showing it), strings found in the context text are text needles."""
    from niah.benchmarks.protocol import NeedleSpot

    needles = (sample.meta or {}).get("needles")
    if not isinstance(needles, list):
        return []
    image_parts: dict[str, list[int]] = {}
    for i, part in enumerate(sample.context):
        if isinstance(part, ImagePart):
            image_parts.setdefault(part.path, []).append(i)
    text = "".join(p.text for p in sample.context if isinstance(p, TextPart))
    spots: list[NeedleSpot] = []
    seen_images: set[str] = set()
    for needle in needles:
        if not isinstance(needle, str) or not needle:
            continue
        if needle in image_parts:
            if needle not in seen_images:
                seen_images.add(needle)
                spots.extend(NeedleSpot("image", part=i) for i in image_parts[needle])
        elif needle in text:
            spots.append(NeedleSpot("text", text=needle))
    return spots


def needle_locator(benchmark: str) -> Callable[[Sample], Sequence[NeedleSpot]]:
    """The family's needle locator (``AuditSpec.locate``), else :func:`default_locate`."""
    from niah.benchmarks.registry import find_family

    family = find_family(benchmark)
    if family is not None and family.audit is not None:
        locate = family.audit().locate
        if locate is not None:
            return locate
    return default_locate


def _video_frames_sent(prompt: RenderedPrompt) -> tuple[set[str], dict[str, list[float]], set[str]]:
    """(sent image paths, video file path -> sent frame times, video paths sent natively)."""
    images: set[str] = set()
    times: dict[str, list[float]] = {}
    native: set[str] = set()
    for part in prompt.parts:
        if isinstance(part, ImagePart):
            images.add(part.path)
            match = _FRAME_TIME.search(part.path)
            if match:
                times.setdefault(part.path[:match.start()], []).append(float(match.group(1)))
        elif isinstance(part, VideoPart):
            native.add(_video_key(part))
    return images, times, native


def _video_key(part: Any) -> str:
    if part.path is not None:
        return str(part.path)
    frames = part.frames or ()
    return "frames:" + (frames[0] if frames else "")


def delivered(sample: Sample, spots: Sequence[NeedleSpot], prompt: RenderedPrompt) -> list[bool]:
    """For each needle spot of ``sample``, whether the sent ``prompt`` (after the capability fit) holds it."""
    images, times, native = _video_frames_sent(prompt)
    sent_text = "".join(p.text for p, role in zip(prompt.parts, prompt.roles, strict=True)
                        if isinstance(p, TextPart) and role == "context")
    out: list[bool] = []
    for spot in spots:
        if spot.kind == "text":
            out.append(spot.text is not None and spot.text != "" and spot.text in sent_text)
        elif spot.kind == "image":
            part = sample.context[spot.part] if spot.part is not None and spot.part < len(sample.context) else None
            out.append(isinstance(part, ImagePart) and part.path in images)
        elif spot.kind == "video":
            part = sample.context[spot.part] if spot.part is not None and spot.part < len(sample.context) else None
            if not isinstance(part, VideoPart):
                out.append(False)
            elif _video_key(part) in native:
                out.append(True)
            elif spot.frames:
                out.append(any(f in images for f in spot.frames))
            elif part.path is not None and spot.start is not None:
                end = spot.end if spot.end is not None else spot.start
                out.append(any(spot.start - _TIME_SLACK <= t <= end + _TIME_SLACK
                               for t in times.get(part.path, ())))
            else:
                out.append(False)
        else:
            out.append(False)
    return out
