"""Prompt rendering shared by all benchmark families, and the capability policy (the types: :mod:`niah.prompts.types`).

Each benchmark family registers a renderer that turns a :class:`~niah.sample.Sample` into its official
prompt as a list of parts (text, image, video) in the order the model must see them, so that backends send
images interleaved exactly where the official prompt has its ``<image>`` placeholders. Renderers are looked up
by ``sample.benchmark`` and imported lazily.

A rendered prompt is then fitted to the model's declared :class:`~niah.models.base.Capabilities` by
:func:`fit_to_capabilities`: a prompt that exceeds them is skipped with a reason, truncated, or downscaled,
and whichever happened is recorded in the response row's ``prompt_policy``. Nothing is dropped silently.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from niah.prompts.types import (
    DEFAULT_IMAGE_TOKENS,
    OVER_LIMIT_POLICIES,
    Capabilities,
    FitResult,
    GenerationSettings,
    OfficialFit,
    PromptBody,
    PromptOptions,
    RenderedPrompt,
    Renderer,
    Role,
)
from niah.sample import ImagePart, Part, Sample, TextPart, VideoPart
from niah.util.errors import ConfigError

# Renderers registered at run time; otherwise each family's own (``Family.renderer``) from the registry.
_RENDERERS: dict[str, str | Renderer] = {}
_OFFICIAL_FITS: dict[str, str | OfficialFit] = {}


def register_renderer(benchmark: str, renderer: str | Renderer, *, official_fit: str | OfficialFit | None = None,
                      ) -> None:
    """Register a family's renderer (a callable or a lazily imported ``"module:attr"``) and, when the
    family's official code truncates over-long inputs in its own way, that rule as ``official_fit``."""
    _RENDERERS[benchmark] = renderer
    if official_fit is not None:
        _OFFICIAL_FITS[benchmark] = official_fit


def _load(ref: str | Callable[..., Any]) -> Callable[..., Any]:
    if not isinstance(ref, str):
        return ref
    module_name, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def _family_hook(benchmark: str, hook: str) -> Callable[..., Any] | None:
    from niah.benchmarks.registry import find_family

    family = find_family(benchmark)
    loader = getattr(family, hook, None) if family is not None else None
    return loader() if loader is not None else None


def get_renderer(benchmark: str) -> Renderer:
    ref = _RENDERERS.get(benchmark)
    if ref is None:
        ref = _family_hook(benchmark, "renderer")
        if ref is None:
            return render_generic
    renderer = _load(ref)
    _RENDERERS[benchmark] = renderer
    return renderer


def get_official_fit(benchmark: str) -> OfficialFit | None:
    ref = _OFFICIAL_FITS.get(benchmark)
    if ref is None:
        ref = _family_hook(benchmark, "official_fit")
        if ref is None:
            return None
    fit = _load(ref)
    _OFFICIAL_FITS[benchmark] = fit
    return fit


def has_official_fit(benchmark: str) -> bool:
    from niah.benchmarks.registry import find_family

    if benchmark in _OFFICIAL_FITS:
        return True
    family = find_family(benchmark)
    return family is not None and family.official_fit is not None


def render_generic(sample: Sample, options: PromptOptions) -> PromptBody:
    """Fallback for a family without its own renderer: context, newline, question, lettered options.

    Greedy with at most 128 new tokens, so that an unknown family never runs unbounded generations."""
    segments: list[tuple[Role, Part]] = []
    body: list[tuple[Role, Part]] = [("question", p) for p in sample.question]
    for i, choice in enumerate(sample.choices or []):
        body.append(("choice", TextPart(f"\n{chr(65 + i)}. ")))
        body.extend(("choice", p) for p in choice)
    context: list[tuple[Role, Part]] = [("context", p) for p in sample.context]
    if options.question_first:
        segments = body + [("question", TextPart("\n"))] + context
    else:
        segments = context + [("question", TextPart("\n"))] + body
    return PromptBody(segments=segments, generation=GenerationSettings(temperature=0.0, max_tokens=128))


def render_prompt(sample: Sample, media_root: str | Path, options: PromptOptions | None = None) -> RenderedPrompt:
    """Render ``sample`` with its family's official prompt; text parts of one role are merged."""
    options = options or PromptOptions()
    body = get_renderer(sample.benchmark)(sample, options)
    parts: list[Part] = []
    roles: list[Role] = []
    for role, part in body.segments:
        if isinstance(part, TextPart):
            if not part.text:
                continue
            if parts and isinstance(parts[-1], TextPart) and roles[-1] == role:
                parts[-1] = TextPart(parts[-1].text + part.text)
                continue
        parts.append(part)
        roles.append(role)
    system = options.system_prompt if options.system_prompt is not None else body.system
    return RenderedPrompt(parts=parts, roles=roles, media_root=Path(media_root), generation=body.generation,
                          system=system)


# ---------------------------------------------------------------------------------------------------------
# Capability policy


def estimate_tokens(prompt: RenderedPrompt, sample: Sample) -> int:
    """Prompt length in tokens, estimated from the sample's own accounting.

    The dataset records ``text_tokens`` (under its named tokenizer) and ``image_tokens`` (under its image
    rule); their ratio to the context's characters and images converts the rendered prompt. This is the
    dataset tokenizer's count, not the model's: declare ``max_context`` with a margin.
    """
    meta = sample.meta or {}
    context_chars = sum(len(p.text) for p in sample.context if isinstance(p, TextPart))
    text_tokens = meta.get("text_tokens")
    chars_per_token = 4.0
    if isinstance(text_tokens, (int, float)) and text_tokens > 0 and context_chars > 0:
        chars_per_token = context_chars / text_tokens
    image_tokens = meta.get("image_tokens")
    num_images = meta.get("num_images")
    per_image = float(DEFAULT_IMAGE_TOKENS)
    if isinstance(image_tokens, (int, float)) and isinstance(num_images, int) and num_images > 0:
        per_image = image_tokens / num_images
    scale = 1.0 if prompt.image_scale is None else prompt.image_scale
    text_chars = sum(len(p.text) for p in prompt.parts if isinstance(p, TextPart)) + len(prompt.system or "")
    return math.ceil(text_chars / chars_per_token) + math.ceil(prompt.num_images * per_image * scale * scale)


def _videos_to_frames(prompt: RenderedPrompt, caps: Capabilities, options: PromptOptions,
                      notes: list[str], frame_cache: Path | None) -> None:
    """Models without native video get a video's frames as images in order (a video file sampled by
    :mod:`niah.video.expand`, a frame folder by index), with its subtitles per frame or as a transcript;
    models with native video get the video and its subtitles as a transcript."""
    from niah.video.expand import video_prompt_parts
    from niah.video.frames import VideoLimits

    limits = VideoLimits(frame_limit=options.frame_limit, max_seconds=options.max_video_seconds)
    parts: list[Part] = []
    roles: list[Role] = []
    non_video_images = sum(1 for p in prompt.parts if isinstance(p, ImagePart))
    derived = dict(prompt.derived)
    for part, role in zip(prompt.parts, prompt.roles, strict=True):
        if not isinstance(part, VideoPart):
            parts.append(part)
            roles.append(role)
            continue
        cap = options.max_frames
        if caps.max_images is not None and not caps.video:
            room = max(caps.max_images - non_video_images, 0)
            cap = room if cap is None else min(cap, room)
        new_parts, made, note = video_prompt_parts(part, prompt.resolve, max_frames=cap, fps=options.video_fps,
                                                   subtitle_mode=options.subtitle_mode, native=caps.video,
                                                   cache=frame_cache, limits=limits)
        derived.update(made)
        if note:
            notes.append(note)
        parts.extend(new_parts)
        roles.extend([role] * len(new_parts))
    prompt.parts, prompt.roles, prompt.derived = parts, roles, derived


def _drop_middle_context_images(prompt: RenderedPrompt, excess: int) -> int:
    """Remove ``excess`` context images, nearest the middle of the context first; returns how many went."""
    context_images = [i for i, (p, r) in enumerate(zip(prompt.parts, prompt.roles, strict=True))
                      if r == "context" and isinstance(p, ImagePart)]
    if not context_images:
        return 0
    middle = (len(context_images) - 1) / 2
    by_closeness = sorted(range(len(context_images)), key=lambda k: (abs(k - middle), k))
    drop = {context_images[k] for k in by_closeness[:excess]}
    prompt.parts = [p for i, p in enumerate(prompt.parts) if i not in drop]
    prompt.roles = [r for i, r in enumerate(prompt.roles) if i not in drop]
    return len(drop)


def _cut_middle_context_text(prompt: RenderedPrompt, cut_chars: int) -> int:
    """Cut ``cut_chars`` characters of context text around the middle of the context; returns chars cut."""
    spans: list[tuple[int, int, int]] = []  # (part index, start offset, length) of context text parts
    total = 0
    for i, (p, r) in enumerate(zip(prompt.parts, prompt.roles, strict=True)):
        if r == "context" and isinstance(p, TextPart):
            spans.append((i, total, len(p.text)))
            total += len(p.text)
    cut_chars = min(cut_chars, total)
    if cut_chars <= 0:
        return 0
    lo = (total - cut_chars) // 2
    hi = lo + cut_chars
    for i, start, length in spans:
        a, b = max(lo - start, 0), min(hi - start, length)
        if a < b:
            text = prompt.parts[i].text  # type: ignore[union-attr]
            prompt.parts[i] = TextPart(text[:a] + text[b:])
    return cut_chars


def _check_policy(options: PromptOptions) -> None:
    if options.over_limit not in OVER_LIMIT_POLICIES:
        raise ConfigError(f"unknown over-limit policy {options.over_limit!r} "
                          f"(choose from {', '.join(OVER_LIMIT_POLICIES)})")


def expand_media(prompt: RenderedPrompt, caps: Capabilities, options: PromptOptions | None = None, *,
                 frame_cache: Path | None = None) -> tuple[RenderedPrompt, list[str]]:
    """A copy of ``prompt`` with its media turned into what the model is sent, and notes saying what was done:
    for a model without native video, each video becomes its sampled frames in order (frames written to
    ``frame_cache``, by default :func:`niah.video.expand.frame_cache_dir`) with its subtitles per frame or as a
    transcript; for a model with native video, the video stays and its subtitles follow as a transcript.
    Images are left as they are (the capability fit decides which are sent). Decoding happens here: call it off
    the event loop for a prompt with video."""
    options = options or PromptOptions()
    _check_policy(options)
    prompt = replace(prompt, parts=list(prompt.parts), roles=list(prompt.roles))
    notes: list[str] = []
    if prompt.has_video:
        _videos_to_frames(prompt, caps, options, notes, frame_cache)
    return prompt, notes


def fit_to_capabilities(prompt: RenderedPrompt, sample: Sample, caps: Capabilities,
                        options: PromptOptions | None = None, *,
                        expanded_notes: list[str] | None = None) -> FitResult:
    """Check a rendered prompt against the model's capabilities and apply the over-limit policy.

    - ``skip``: a prompt over any limit is not sent; the row records the reason (default, and the faithful
      choice for a family whose official code has no truncation rule);
    - ``truncate``: context images nearest the middle are dropped to meet ``max_images``, then context text
      is cut from the middle to meet ``max_context`` (question, options and instruction are never cut);
    - ``downscale``: images are scaled down so that their (area-proportional) token cost meets
      ``max_context``; an image-count overflow cannot be fixed this way and is skipped;
    - ``official``: the family's registered official rule (an error for families that have none).
    Video parts become sampled frames for models without native video, under every policy, and say so (a
    video that cannot be read raises DataError, which the runner records as that sample's failure); a prompt
    :func:`expand_media` already expanded comes with its ``expanded_notes`` and is not expanded (nor copied)
    again: pass the copy :func:`expand_media` returned.
    """
    options = options or PromptOptions()
    policy = options.over_limit
    _check_policy(options)
    if expanded_notes is None:  # media not expanded yet (a caller outside the runner): expand it here
        prompt, notes = expand_media(prompt, caps, options)
    else:  # the copy expand_media returned, which is the caller's to give away: changed in place
        notes = list(expanded_notes)
    if policy == "official":
        fit = get_official_fit(sample.benchmark)
        if fit is None:
            raise ConfigError(f"{sample.benchmark} has no official over-limit rule; use skip, truncate or downscale")
        return fit(prompt, sample, caps, options)

    if not caps.vision and prompt.num_images:
        if policy != "truncate":
            return FitResult(None, f"{prompt.num_images} images but the model takes no images")
        kept = [(p, r) for p, r in zip(prompt.parts, prompt.roles, strict=True) if not isinstance(p, ImagePart)]
        notes.append(f"truncate: dropped all {prompt.num_images} images (text-only model)")
        prompt.parts = [p for p, _ in kept]
        prompt.roles = [r for _, r in kept]

    if caps.max_images is not None and prompt.num_images > caps.max_images:
        excess = prompt.num_images - caps.max_images
        if policy != "truncate":
            return FitResult(None, f"{prompt.num_images} images exceed the model's max_images={caps.max_images}")
        dropped = _drop_middle_context_images(prompt, excess)
        if dropped < excess:
            return FitResult(None, f"{prompt.num_images + dropped} images exceed max_images={caps.max_images} "
                                   "even after dropping every context image")
        notes.append(f"truncate: dropped {dropped} middle context images (max_images={caps.max_images})")

    if caps.max_context_tokens is not None:
        estimate = estimate_tokens(prompt, sample)
        if estimate > caps.max_context_tokens:
            if policy == "skip":
                return FitResult(None, f"about {estimate} tokens exceed the model's max_context="
                                       f"{caps.max_context_tokens}")
            if policy == "downscale":
                text_only = estimate_tokens(replace(prompt, image_scale=0.0), sample)
                image_part = estimate - text_only
                room = caps.max_context_tokens - text_only
                if image_part <= 0 or room <= 0:
                    return FitResult(None, f"about {text_only} text tokens alone exceed max_context="
                                           f"{caps.max_context_tokens}; downscaling images cannot help")
                scale = (prompt.image_scale or 1.0) * math.sqrt(room / image_part)
                prompt.image_scale = round(scale, 4)
                notes.append(f"downscale: images scaled by {prompt.image_scale} to meet max_context="
                             f"{caps.max_context_tokens}")
            else:  # truncate
                meta_chars = estimate_tokens(replace(prompt, parts=[TextPart("x" * 10000)], image_scale=0.0),
                                             sample)
                chars_per_token = 10000 / max(meta_chars, 1)
                cut = math.ceil((estimate - caps.max_context_tokens) * chars_per_token)
                done = _cut_middle_context_text(prompt, cut)
                if estimate_tokens(prompt, sample) > caps.max_context_tokens:
                    return FitResult(None, f"about {estimate} tokens exceed max_context={caps.max_context_tokens} "
                                           "even with all context text cut")
                notes.append(f"truncate: cut {done} context characters from the middle "
                             f"(max_context={caps.max_context_tokens})")
    prompt.policy = "; ".join(notes) if notes else None
    return FitResult(prompt, None, notes)
