"""Token accounting for a sampled video: frames x a per-frame image rule, plus subtitle text tokens."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from niah.tokens.image import ImageTokenRule, get_image_rule
from niah.tokens.text import TextTokenizer


@dataclass(frozen=True, slots=True)
class VideoTokens:
    frames: int
    frame_tokens: int
    subtitle_tokens: int
    image_rule: str
    tokenizer: str | None

    @property
    def total(self) -> int:
        return self.frame_tokens + self.subtitle_tokens

    def to_json(self) -> dict[str, int | str | None]:
        return {"frames": self.frames, "frame_tokens": self.frame_tokens, "subtitle_tokens": self.subtitle_tokens,
                "total": self.total, "image_rule": self.image_rule, "tokenizer": self.tokenizer}


def count_video_tokens(frame_sizes: Sequence[tuple[int, int]], rule: ImageTokenRule | str,
                       subtitle_texts: Sequence[str] = (), tokenizer: TextTokenizer | None = None) -> VideoTokens:
    """Tokens of a sampled video: each frame's size under ``rule``, plus each subtitle text counted alone.

    Subtitle texts are what the prompt carries (one transcript, or one text per frame); a tokenizer is needed
    as soon as any of them is non-empty.
    """
    image_rule = get_image_rule(rule) if isinstance(rule, str) else rule
    frame_tokens = sum(image_rule.tokens(w, h) for w, h in frame_sizes)
    texts = [t for t in subtitle_texts if t]
    if texts and tokenizer is None:
        raise ValueError("subtitle tokens need a tokenizer")
    sub_tokens = sum(tokenizer.count_batch(texts)) if texts and tokenizer is not None else 0
    return VideoTokens(frames=len(frame_sizes), frame_tokens=frame_tokens, subtitle_tokens=sub_tokens,
                       image_rule=image_rule.name, tokenizer=tokenizer.name if tokenizer is not None else None)
