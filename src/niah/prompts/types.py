"""The types a prompt is made of, and what it is sent with and fitted to.

A family's renderer (:data:`Renderer`) turns a sample into a :class:`PromptBody`; :mod:`niah.prompts.render`
merges it into a :class:`RenderedPrompt` and fits that to a model's :class:`Capabilities`
(:class:`FitResult`); backends send it with its :class:`GenerationSettings`. These are plain values that the
family protocol, the model backends and the runner share, so they sit below all of them: this module imports
only the sample model and the helpers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from niah.sample import ImagePart, Part, Sample, TextPart, VideoPart
from niah.util.iox import resolve_under
from niah.video.frames import DEFAULT_FRAME_LIMIT, DEFAULT_MAX_VIDEO_SECONDS

#: The highest sampling temperature niah sends (OpenAI's API accepts up to 2; beyond it text is noise).
MAX_TEMPERATURE = 2.0


@dataclass(frozen=True, slots=True)
class GenerationSettings:
    """Decoding settings. ``None`` means "not set here": the benchmark's official default (or the server's)
    applies. ``merged`` lays explicit user settings over a benchmark's per-sample defaults."""

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    #: Backend-specific extras passed through unchanged (e.g. ``{"top_k": 1}`` for vLLM/SGLang servers).
    extra: tuple[tuple[str, Any], ...] = ()

    def merged(self, override: GenerationSettings | None) -> GenerationSettings:
        if override is None:
            return self
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for f in dataclasses.fields(override):
            value = getattr(override, f.name)
            if f.name == "extra":
                values["extra"] = tuple(sorted({**dict(self.extra), **dict(value)}.items()))
            elif value is not None:
                values[f.name] = value
        return GenerationSettings(**values)

    def to_json(self) -> dict[str, Any]:
        """Only the settings that are set, in a stable form (part of every cache key)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "extra":
                if value:
                    out["extra"] = dict(value)
            elif value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> GenerationSettings:
        if not obj:
            return cls()
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(obj) - known
        extra = dict(obj.get("extra") or {})
        for name in unknown:
            extra[name] = obj[name]
        stop = obj.get("stop")
        return cls(
            max_tokens=obj.get("max_tokens"),
            temperature=obj.get("temperature"),
            top_p=obj.get("top_p"),
            seed=obj.get("seed"),
            stop=tuple(stop) if stop is not None else None,
            extra=tuple(sorted(extra.items())),
        )

    def problems(self) -> list[tuple[str, str]]:
        """(setting, why) for each setting outside the range every server accepts: max_tokens at least 1,
        temperature in [0, MAX_TEMPERATURE], top_p in (0, 1] (a value outside is sent as given by no client;
        servers answer it with an error per request, or worse, silently clamp it)."""
        out: list[tuple[str, str]] = []
        if self.max_tokens is not None and (isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            out.append(("max_tokens", f"must be an integer of at least 1, not {self.max_tokens!r}"))
        if self.temperature is not None and not 0.0 <= self.temperature <= MAX_TEMPERATURE:  # NaN too
            out.append(("temperature", f"must be between 0 and {MAX_TEMPERATURE:g}, not {self.temperature!r}"))
        if self.top_p is not None and not 0.0 < self.top_p <= 1.0:
            out.append(("top_p", f"must be greater than 0 and at most 1, not {self.top_p!r}"))
        return out

    @property
    def greedy(self) -> bool:
        return self.temperature is None or self.temperature == 0.0


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a model accepts in one request. ``None`` means "no known limit".

    The runner checks every rendered prompt against these before sending it; a prompt that exceeds them is
    handled by an explicit, recorded policy (see :func:`niah.prompts.render.fit_to_capabilities`), never silently.
    """

    vision: bool = True
    max_images: int | None = None
    max_context_tokens: int | None = None
    video: bool = False

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: Where a part of a rendered prompt came from. Truncation only ever touches ``context`` parts.
Role = Literal["system", "context", "question", "choice", "instruction"]

OverLimitPolicy = Literal["skip", "truncate", "downscale", "official"]
OVER_LIMIT_POLICIES: tuple[str, ...] = ("skip", "truncate", "downscale", "official")

#: Image token cost assumed when a sample carries no image token count (one 448x448 InternVL tile = 256).
DEFAULT_IMAGE_TOKENS = 256


@dataclass(frozen=True, slots=True)
class PromptOptions:
    """Rendering choices that are not part of the sample.

    ``question_first`` renders the question before the context (an ablation: a family's renderer says what it
    means for its prompt, and its docs what the paper reports). ``over_limit`` is the policy for a prompt that
    exceeds the model's capabilities. ``extra`` carries family-specific switches for other renderers.
    """

    question_first: bool = False
    over_limit: OverLimitPolicy = "skip"
    #: Video for models without native video: at most ``max_frames`` frames per video, sampled every
    #: 1/``video_fps`` s when given (else uniformly), with subtitles per frame or as one transcript.
    max_frames: int | None = None
    video_fps: float | None = None
    subtitle_mode: str = "frames"
    extra: tuple[tuple[str, Any], ...] = ()
    #: Safety limits on one video (frames sent, claimed duration): they refuse a video, never change a prompt,
    #: so they are not part of :meth:`to_json` (a run raising them resumes into the same run directory).
    frame_limit: int = DEFAULT_FRAME_LIMIT
    max_video_seconds: float = DEFAULT_MAX_VIDEO_SECONDS
    #: A system message sent with every request (``--system-prompt``), in place of the family's own, if any.
    system_prompt: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"question_first": self.question_first, "over_limit": self.over_limit}
        if self.max_frames is not None:
            out["max_frames"] = self.max_frames
        if self.video_fps is not None:
            out["video_fps"] = self.video_fps
        if self.subtitle_mode != "frames":
            out["subtitle_mode"] = self.subtitle_mode
        if self.extra:
            out["extra"] = dict(self.extra)
        if self.system_prompt is not None:
            out["system_prompt"] = self.system_prompt
        return out


@dataclass(slots=True)
class PromptBody:
    """What a renderer returns: role-tagged parts in order, the family's default decoding, a system text."""

    segments: list[tuple[Role, Part]]
    generation: GenerationSettings
    system: str | None = None


@dataclass(slots=True)
class RenderedPrompt:
    """A prompt ready to send: one user turn of interleaved parts (adjacent text of one role merged), with
    media paths relative to ``media_root`` (resolved through :meth:`resolve`, which refuses escapes)."""

    parts: list[Part]
    roles: list[Role]
    media_root: Path
    generation: GenerationSettings
    system: str | None = None
    #: What the capability fit did ("truncate: ...", "downscale: ..."), or None when the prompt fit as is.
    policy: str | None = None
    #: Linear scale applied to every image before sending (set only by the downscale policy).
    image_scale: float | None = None
    #: Files made for this prompt outside the media root (frames sampled from a video), by their part path.
    derived: dict[str, Path] = field(default_factory=dict)

    def resolve(self, rel: str) -> Path:
        made = self.derived.get(rel)
        return made if made is not None else resolve_under(self.media_root, rel)

    @property
    def num_images(self) -> int:
        n = 0
        for p in self.parts:
            if isinstance(p, ImagePart):
                n += 1
            elif isinstance(p, VideoPart):
                n += len(p.frames or ())
        return n

    @property
    def has_video(self) -> bool:
        return any(isinstance(p, VideoPart) for p in self.parts)

    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    def preview(self) -> str:
        """The prompt as the official code would write it: text with ``<image>`` where images go."""
        out: list[str] = []
        if self.system:
            out.append(f"[system] {self.system}\n")
        for p in self.parts:
            if isinstance(p, TextPart):
                out.append(p.text)
            elif isinstance(p, ImagePart):
                out.append(f"<image: {p.path}>")
            else:
                label = p.path or f"{len(p.frames or ())} frames"
                out.append(f"<video: {label}>")
        return "".join(out)


Renderer = Callable[[Sample, PromptOptions], PromptBody]
#: An official fit: returns the prompt changed to fit (with ``policy`` set) or None to skip it. It gets the
#: PromptOptions too, so family switches (``options.extra``, e.g. a model's tokenizer) reach it from the CLI.
OfficialFit = Callable[[RenderedPrompt, Sample, Capabilities, "PromptOptions"], "FitResult"]


@dataclass(slots=True)
class FitResult:
    """The prompt to send (``policy`` says what was changed) or a reason to skip the sample."""

    prompt: RenderedPrompt | None
    skip_reason: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def policy(self) -> str | None:
        if self.skip_reason is not None:
            return f"skip: {self.skip_reason}"
        return self.prompt.policy if self.prompt is not None else None
