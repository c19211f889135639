"""Subtitles (SRT via ``srt``, WebVTT via ``webvtt-py``) and their alignment to sampled frames.

Two modes a run records as ``subtitle_mode``:
- ``per_frame``: each sampled frame gets the lines of its time span. Frame i's span runs from the midpoint
  between frame i-1 and frame i to the midpoint between frame i and frame i+1 (the first span starts at -inf,
  the last ends at +inf), so the spans tile the whole video. With ``assign="start"`` (default) a line belongs to
  the one span holding its start time, so every line is given exactly once; ``assign="overlap"`` gives a line
  to every span it overlaps (lines spanning several frames repeat).
- ``transcript``: all lines in time order as one text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from niah.util.errors import DataError
from niah.util.iox import open_regular

SubtitleMode = Literal["none", "per_frame", "transcript"]
SUBTITLE_MODES: tuple[str, ...] = ("none", "per_frame", "transcript")

_VTT_STAMP = r"(?:\d{2,}:)?\d{2}:\d{2}\.\d{3}"
_VTT_TIMING = re.compile(rf"{_VTT_STAMP}\s+-->\s+{_VTT_STAMP}(?:\s.*)?$")
_VTT_STAMP_START = re.compile(r"\d+:\d")
_VTT_NON_CUE = re.compile(r"(?:NOTE|STYLE|REGION)(?:[ \t]|$)")
_TAG = re.compile(r"</?[a-zA-Z][^<>]*>|\{\\[^{}]*\}")  # <i>, <font ...>, <c.yellow>, {\an8}


@dataclass(frozen=True, slots=True)
class Cue:
    start: float  # seconds
    end: float
    text: str  # markup removed, lines joined with "\n"


def clean_text(text: str) -> str:
    lines = [" ".join(_TAG.sub("", line).split()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


#: A film's subtitles are a few hundred KB; a bigger file is refused rather than held in memory.
MAX_SUBTITLE_BYTES = 64 << 20


def _read_text(path: Path) -> str:
    try:
        with open_regular(path, "subtitles file") as fh:
            raw = fh.read(MAX_SUBTITLE_BYTES + 1)
    except OSError as exc:
        raise DataError(f"unreadable subtitle file: {exc.strerror}", file=path) from None
    if len(raw) > MAX_SUBTITLE_BYTES:
        raise DataError(f"subtitle file is larger than {MAX_SUBTITLE_BYTES >> 20} MiB; refused", file=path)
    for enc in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            continue
    raise DataError("subtitle file is not text (neither UTF-8 nor cp1252)", file=path)


def parse_srt(text: str, *, file: str | Path | None = None) -> list[Cue]:
    import srt  # type: ignore[import-untyped,unused-ignore]

    try:
        subs = list(srt.parse(text))
    except srt.SRTParseError as exc:
        line = text.count("\n", 0, exc.expected_start) + 1
        raise DataError(f"invalid SRT: cannot parse {exc.unmatched_content[:60]!r}", file=file, line=line) from None
    return _checked([Cue(s.start.total_seconds(), s.end.total_seconds(), clean_text(s.content)) for s in subs],
                    file)


def parse_vtt(text: str, *, file: str | Path | None = None) -> list[Cue]:
    import webvtt
    from webvtt.errors import MalformedFileError

    _check_vtt_timings(text, file)
    try:
        vtt = webvtt.from_string(text)
    except (MalformedFileError, ValueError) as exc:
        raise DataError(f"invalid WebVTT: {exc}", file=file) from None
    return _checked([Cue(_secs(c.start), _secs(c.end), clean_text(c.text)) for c in vtt.captions], file)


def _vtt_blocks(text: str) -> list[list[tuple[int, str]]]:
    """The file's blocks (runs of non-blank lines), each line with its 1-based number (CRLF, LF or CR ends one)."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for lineno, raw in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        if raw.strip():
            current.append((lineno, raw.strip()))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _check_vtt_timings(text: str, file: str | Path | None) -> None:
    """Refuse a cue block whose timing line is malformed or missing, naming its line.

    webvtt-py skips any block without ``-->`` in its first two lines and any timing it cannot read, so
    ``00:01.000 -> 00:03.000`` (one dash) or a timing line with no arrow would silently lose the cue.
    """
    for i, block in enumerate(_vtt_blocks(text)):
        for lineno, line in block:
            if "-->" in line and not _VTT_TIMING.match(line):
                raise DataError(f"invalid WebVTT cue timing {line[:60]!r}", file=file, line=lineno)
        if i == 0 or _VTT_NON_CUE.match(block[0][1]):
            continue  # the WEBVTT header (webvtt-py checks it), NOTE / STYLE / REGION blocks
        # A cue's timing is the block's first line, or its second after a cue identifier.
        if any("-->" in line for _, line in block[:2]):
            continue
        stamped = [(n, t) for n, t in block[:2] if _VTT_STAMP_START.match(t)]
        if stamped:  # "00:01.000 -> 00:03.000", "00:01.000 00:03.000": a timing line without its arrow
            lineno, line = stamped[0]
            raise DataError(f"invalid WebVTT cue timing {line[:60]!r} (expected 'start --> end')",
                            file=file, line=lineno)
        lineno, line = block[0]  # text with no timing at all (e.g. after a blank line inside a cue)
        raise DataError(f"WebVTT cue block without a 'start --> end' timing line: {line[:60]!r}",
                        file=file, line=lineno)


def _secs(stamp: str) -> float:
    """'hh:mm:ss.mmm' or 'mm:ss.mmm' to seconds (webvtt-py keeps the milliseconds only in the string)."""
    parts = stamp.replace(",", ".").split(":")
    total = 0.0
    for part in parts:
        total = total * 60 + float(part)
    return total


def _checked(cues: list[Cue], file: str | Path | None) -> list[Cue]:
    for i, c in enumerate(cues):
        if c.end < c.start:
            raise DataError(f"cue {i + 1} ends before it starts ({c.start:.3f} s > {c.end:.3f} s)", file=file)
    return sorted((c for c in cues if c.text), key=lambda c: (c.start, c.end))


def load_subtitles(path: str | Path) -> list[Cue]:
    """Read an SRT or WebVTT file (chosen by suffix, or by a ``WEBVTT`` header), cues sorted by start."""
    p = Path(path)
    if not p.is_file():
        raise DataError("subtitle file not found", file=p)
    text = _read_text(p)
    if p.suffix.lower() == ".vtt" or text.lstrip().startswith("WEBVTT"):
        return parse_vtt(text, file=p)
    if p.suffix.lower() in (".srt", ""):
        return parse_srt(text, file=p)
    raise DataError(f"unknown subtitle format {p.suffix!r} (expected .srt or .vtt)", file=p)


def frame_spans(times: Sequence[float]) -> list[tuple[float, float]]:
    """Each frame's span: midpoints to its neighbours; -inf / +inf at the ends."""
    if any(b < a for a, b in zip(times, times[1:], strict=False)):
        raise ValueError("frame times must be in increasing order")
    mids = [(a + b) / 2 for a, b in zip(times, times[1:], strict=False)]
    starts = [float("-inf"), *mids]
    ends = [*mids, float("inf")]
    return list(zip(starts, ends, strict=True))


def align_to_frames(cues: Sequence[Cue], times: Sequence[float], *,
                    assign: Literal["start", "overlap"] = "start") -> list[list[str]]:
    """The subtitle lines of each frame's span (see the module docstring)."""
    if not times:
        return []
    spans = frame_spans(times)
    out: list[list[str]] = [[] for _ in times]
    mids = [s for s, _ in spans[1:]]
    for c in cues:
        first = bisect.bisect_right(mids, c.start)
        if assign == "start":
            out[first].append(c.text)
            continue
        last = bisect.bisect_left(mids, c.end) if c.end > c.start else first
        for k in range(first, max(first, last) + 1):
            out[k].append(c.text)
    return out


def transcript(cues: Sequence[Cue]) -> str:
    return "\n".join(c.text for c in cues)
