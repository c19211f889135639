"""MileBench's official prompt and its official truncation, as a niah renderer and an ``official_fit``.

Source: the official repository (``MileBench/MileBench``): ``utils.py`` (``MileBenchDataset.__getitem__``) builds
the prompt and truncates it, ``generate.py`` passes it ``max_context_len`` and ``n_tokens_per_image`` from
``configs/model_configs.yaml``, whose ``gen_kwargs`` are the decoding settings.

Prompt (one user turn): the item's task instruction, ``\\n``, then the context with each ``{image#i}`` /
``{table#i}`` placeholder replaced by the model's image marker (in niah: the image parts sit where the
placeholders were, and the backend writes its own marker), then for items with a ``choice_list`` the official
suffix ``\\nChoice list: \\n`` + one ``A. option`` line per option (GPR1200: no letters) + ``\\nYour answer is: ``
(:func:`niah.benchmarks.milebench.official.render_choice_suffix`). The question is the end of the context; there
is no separate question and no question-first variant.

Decoding: greedy, at most 512 new tokens (``max_new_tokens: 512, do_sample: false, temperature: 0.0``). The
official ``min_new_tokens: 1`` is not set: it has no equivalent in the OpenAI API (servers reject unknown
fields); against a vLLM/SGLang server add it with ``-O extra_body='{"min_tokens": 1}'``.

Truncation (``--over-limit official``, :class:`MileBenchTruncation`): budget = the model's max context minus the
instruction's tokens; each image costs a fixed per-model token count (576 by default: the official config's
``n_tokens_per_image`` for its one configured model, LLaVA-1.5-7B, whose ``max_context_len`` is 4096). The
context (choices included) is split at the images into text fragments; walking from the last fragment to the
first, a fragment is kept if it fits (the last fragment, which holds the question, is cut to its last tokens
when it alone does not fit), then the image before it if its cost fits; the walk stops at the first thing that
does not fit. The prompt is the instruction, ``\\n`` and what was kept, so the instruction always survives.

Token counts: the official code counts with the model's own tokenizer. niah cannot load every model's tokenizer
offline, so the default is ``cl100k_base``; pass ``tokenizer="hf:PATH"`` (a local ``tokenizer.json``) to count
as the model does. Differences from the official code, all deliberate and small: kept whole fragments keep
the data set's text (the official code re-decodes every kept fragment, which with some tokenizers changes
whitespace); the cut fragment is decoded from its kept tokens, dropping the leading tokens (at most a few) that
start inside a multi-byte character, where the official decode would write U+FFFD.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from niah.benchmarks.milebench.official import NO_LETTER_DATASETS, render_choice_suffix
from niah.models.base import Capabilities, GenerationSettings
from niah.prompts.render import register_renderer
from niah.prompts.types import FitResult, PromptBody, PromptOptions, RenderedPrompt, Role
from niah.sample import ImagePart, Part, Sample, TextPart
from niah.tokens import TextTokenizer, get_tokenizer
from niah.util.errors import ConfigError, DataError

#: ``gen_kwargs.max_new_tokens`` of the official model config.
MAX_NEW_TOKENS = 512
#: ``n_tokens_per_image`` of the official model config (LLaVA-1.5-7B: 24x24 CLIP patches).
DEFAULT_IMAGE_TOKENS = 576
#: Offline stand-in for the model's tokenizer (the official code uses the model's own).
DEFAULT_TOKENIZER = "cl100k_base"
#: Prefix of the ``prompt_policy`` recorded when the official truncation changed a prompt.
POLICY_NAME = "milebench-official-truncation"


def official_generation() -> GenerationSettings:
    """Greedy with at most 512 new tokens (the official ``gen_kwargs``; ``min_new_tokens`` omitted, see module)."""
    return GenerationSettings(temperature=0.0, max_tokens=MAX_NEW_TOKENS)


def instruction_of(sample: Sample) -> str:
    """The item's task instruction (``meta.instruction``, set by the MileBench loader)."""
    instruction = (sample.meta or {}).get("instruction")
    if not isinstance(instruction, str):
        raise DataError(f"sample {sample.id!r}: a MileBench sample needs its task instruction", field="meta.instruction")
    return instruction


def dataset_name_of(sample: Sample) -> str:
    """The MileBench data set the sample comes from: it decides whether options get letters (GPR1200)."""
    name = (sample.meta or {}).get("dataset")
    return name if isinstance(name, str) else sample.task


def choice_texts(sample: Sample) -> list[str]:
    """The options as text (MileBench options are text; an image in an option is a data error)."""
    texts: list[str] = []
    for index, choice in enumerate(sample.choices or []):
        if not all(isinstance(part, TextPart) for part in choice):
            raise DataError(f"sample {sample.id!r}: MileBench options are text", field=f"choices[{index}]")
        texts.append("".join(part.text for part in choice if isinstance(part, TextPart)))
    return texts


def choice_suffix(sample: Sample) -> str | None:
    """The official choice list text, or None for an item without options.

    The official rule drops letters by data set name (GPR1200); ``meta.choice_labels`` written by the loader
    must agree with it, so a sample renamed by hand cannot silently change the prompt."""
    if sample.choices is None:
        return None
    name = dataset_name_of(sample)
    labels = (sample.meta or {}).get("choice_labels")
    expected = "none" if name in NO_LETTER_DATASETS else "letters"
    if labels is not None and labels != expected:
        raise DataError(f"sample {sample.id!r}: choice_labels {labels!r} but data set {name!r} uses {expected!r}",
                        field="meta.choice_labels")
    return render_choice_suffix(choice_texts(sample), name)


def combined_images(sample: Sample) -> int:
    """How many combined images lead a combined-image sample's context (0 for ordinary samples)."""
    if not (sample.meta or {}).get("combined"):
        return 0
    count = 0
    for part in sample.context:
        if not isinstance(part, ImagePart):
            break
        count += 1
    if count == 0:
        raise DataError(f"sample {sample.id!r}: a combined-image sample starts with its combined image",
                        field="context")
    return count


def render(sample: Sample, options: PromptOptions) -> PromptBody:
    """The official MileBench prompt: instruction, ``\\n``, context (images in place), choice list."""
    if options.question_first:
        raise ConfigError("MileBench has no question-first variant: the question is the end of the context")
    leading = combined_images(sample)
    if leading:
        # official combined-image prompt: the combined image(s), "\n", the instruction, "\n", the context
        segments: list[tuple[Role, Part]] = [("context", part) for part in sample.context[:leading]]
        segments.append(("instruction", TextPart("\n" + instruction_of(sample) + "\n")))
        segments += [("context", part) for part in sample.context[leading:]]
    else:
        segments = [("instruction", TextPart(instruction_of(sample) + "\n"))]
        segments += [("context", part) for part in sample.context]
    segments += [("question", part) for part in sample.question]  # empty for loaded MileBench samples
    suffix = choice_suffix(sample)
    if suffix is not None:
        segments.append(("choice", TextPart(suffix)))
    return PromptBody(segments=segments, generation=official_generation())


# ---------------------------------------------------------------------------------------------------------
# official truncation


@dataclass(slots=True)
class _Fragment:
    """The text between two images: role-tagged pieces (the last fragment mixes context and choices)."""

    pieces: list[tuple[Role, str]]

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.pieces)

    def suffix(self, tail: str) -> list[tuple[Role, str]]:
        """The pieces that make up ``tail``, a suffix of :attr:`text` (one context piece if it is not one)."""
        if not self.text.endswith(tail):
            return [("context", tail)]
        out: list[tuple[Role, str]] = []
        need = len(tail)
        for role, text in reversed(self.pieces):
            if need <= 0:
                break
            take = text[-need:] if need < len(text) else text
            out.insert(0, (role, take))
            need -= len(take)
        return out


def _split_at_images(parts: Sequence[Part], roles: Sequence[Role]) -> tuple[list[_Fragment], list[tuple[Role, Part]]]:
    """Fragments and images in prompt order; image ``i`` sits between fragments ``i`` and ``i + 1``, so there
    is always one more fragment than images (an image at either end has an empty fragment beside it)."""
    fragments = [_Fragment([])]
    images: list[tuple[Role, Part]] = []
    for part, role in zip(parts, roles, strict=True):
        if isinstance(part, TextPart):
            fragments[-1].pieces.append((role, part.text))
        else:
            images.append((role, part))
            fragments.append(_Fragment([]))
    return fragments, images


def _decode_tail(tokenizer: TextTokenizer, ids: list[int]) -> tuple[str, int]:
    """Decode kept tokens; tokens that begin inside a multi-byte character are dropped from the front."""
    for start in range(len(ids) + 1):
        try:
            return tokenizer.decode(ids[start:]), len(ids) - start
        except ValueError:
            continue
    return "", 0


@dataclass(frozen=True)
class MileBenchTruncation:
    """The official MileBench truncation as an ``official_fit`` (see the module docstring for the rule).

    ``tokenizer``: a niah tokenizer name (``cl100k_base`` default, ``hf:PATH`` for the model's own) or a
    tokenizer object. ``image_tokens``: the fixed token cost of one image for the model (official default 576).
    Without a declared ``max_context`` nothing is cut. The official code has no image-count limit, so a model's
    ``max_images`` (or ``vision=false``) that the truncated prompt still exceeds makes the sample skipped,
    with the reason recorded.
    """

    tokenizer: str | TextTokenizer = DEFAULT_TOKENIZER
    image_tokens: int = DEFAULT_IMAGE_TOKENS

    def __post_init__(self) -> None:
        if isinstance(self.image_tokens, bool) or not isinstance(self.image_tokens, int) or self.image_tokens < 0:
            raise ConfigError(f"image_tokens must be a non-negative integer, got {self.image_tokens!r}")

    def get_tokenizer(self) -> TextTokenizer:
        return get_tokenizer(self.tokenizer) if isinstance(self.tokenizer, str) else self.tokenizer

    def __call__(self, prompt: RenderedPrompt, sample: Sample, caps: Capabilities,
                 options: PromptOptions | None = None) -> FitResult:
        """Apply the rule; ``options.extra`` may override the tokenizer (``milebench_tokenizer``) and the
        per-image cost (``milebench_image_tokens``), as ``niah run -P milebench_tokenizer=hf:PATH`` does."""
        extra = dict(options.extra) if options is not None else {}
        if "milebench_tokenizer" in extra or "milebench_image_tokens" in extra:
            tokens = extra.get("milebench_image_tokens", self.image_tokens)
            try:
                tokens = int(tokens)
            except (TypeError, ValueError):
                raise ConfigError(f"milebench_image_tokens must be an integer, got {tokens!r}") from None
            return MileBenchTruncation(extra.get("milebench_tokenizer", self.tokenizer), tokens)(prompt, sample, caps)
        if prompt.has_video:
            return FitResult(None, "MileBench's official truncation handles images only, not video")
        instruction = instruction_of(sample)
        leading = combined_images(sample)
        if leading:
            return self._fit_combined(prompt, sample, caps, instruction, leading)
        head = prompt.parts[0] if prompt.parts else None
        if not (isinstance(head, TextPart) and prompt.roles[0] == "instruction" and head.text == instruction + "\n"):
            raise DataError(f"sample {sample.id!r}: prompt does not start with the MileBench instruction "
                            "(render it with niah.benchmarks.milebench.prompt.render)")
        fragments, images = _split_at_images(prompt.parts[1:], prompt.roles[1:])
        notes: list[str] = []
        fitted = prompt
        if caps.max_context_tokens is not None:
            fitted, note = self._truncate(prompt, instruction, fragments, images, caps.max_context_tokens)
            if note is not None:
                notes.append(note)
        kept_images = fitted.num_images
        if kept_images and not caps.vision:
            return FitResult(None, f"{kept_images} images but the model takes no images "
                                   "(MileBench's official truncation drops images only for length)", notes)
        if caps.max_images is not None and kept_images > caps.max_images:
            return FitResult(None, f"{kept_images} images exceed the model's max_images={caps.max_images} "
                                   "(MileBench's official truncation has no image-count limit)", notes)
        return FitResult(fitted, None, notes)

    def _fit_combined(self, prompt: RenderedPrompt, sample: Sample, caps: Capabilities, instruction: str,
                      leading: int) -> FitResult:
        """Combined-image variant: the official walk sees one text fragment (no image costs: the combined image
        is prepended after truncation), so only the end of the text is kept when it is too long."""
        head = prompt.parts[leading] if len(prompt.parts) > leading else None
        if not (isinstance(head, TextPart) and prompt.roles[leading] == "instruction"
                and head.text == "\n" + instruction + "\n"):
            raise DataError(f"sample {sample.id!r}: prompt does not have the MileBench combined-image layout "
                            "(render it with niah.benchmarks.milebench.prompt.render)")
        notes: list[str] = []
        fitted = prompt
        if caps.max_context_tokens is not None:
            body = replace(prompt, parts=prompt.parts[leading:], roles=prompt.roles[leading:])
            fragments, images = _split_at_images(body.parts[1:], body.roles[1:])
            cut, note = self._truncate(body, instruction, fragments, images, caps.max_context_tokens)
            if note is not None:
                notes.append(note)
                fitted = replace(cut, parts=prompt.parts[:leading] + cut.parts,
                                 roles=prompt.roles[:leading] + cut.roles)
        if not caps.vision:
            return FitResult(None, "a combined-image sample needs a model that takes images", notes)
        if caps.max_images is not None and leading > caps.max_images:
            return FitResult(None, f"{leading} images exceed the model's max_images={caps.max_images}", notes)
        return FitResult(fitted, None, notes)

    def _truncate(self, prompt: RenderedPrompt, instruction: str, fragments: list[_Fragment],
                  images: list[tuple[Role, Part]], max_context: int) -> tuple[RenderedPrompt, str | None]:
        """Walk fragments from the end as ``MileBenchDataset.__getitem__`` does; returns the prompt to send and
        the policy line (None when everything fit, in which case ``prompt`` is returned unchanged)."""
        tokenizer = self.get_tokenizer()
        instruction_tokens = tokenizer.count(instruction)
        budget = max_context - instruction_tokens
        counts = [tokenizer.count(fragment.text) for fragment in fragments]
        kept: list[tuple[Role, Part]] = []  # in prompt order, built from the end
        used = 0
        kept_text_tokens = 0
        kept_image_count = 0
        quirk: str | None = None
        for index in range(len(fragments) - 1, -1, -1):
            fragment = fragments[index]
            if counts[index] + used > budget:
                if not kept:  # the last fragment alone does not fit: keep its last tokens
                    ids = tokenizer.encode(fragment.text)
                    tail_ids = ids[-budget:]  # the official slice, also for budget <= 0 (see below)
                    tail, n_tail = _decode_tail(tokenizer, tail_ids)
                    kept = [(role, TextPart(text)) for role, text in fragment.suffix(tail) if text]
                    kept_text_tokens += n_tail
                    if budget <= 0:
                        quirk = (f"the instruction alone ({instruction_tokens} tokens) fills max_context="
                                 f"{max_context}; the official slice ids[-({budget}):] kept {n_tail} of "
                                 f"{len(ids)} tokens of the last fragment")
                break
            kept[:0] = [(role, TextPart(text)) for role, text in fragment.pieces if text]
            used += counts[index]
            kept_text_tokens += counts[index]
            if self.image_tokens + used > budget:
                break
            if index > 0:
                kept.insert(0, images[index - 1])
                used += self.image_tokens
                kept_image_count += 1
        cut_tokens = sum(counts) - kept_text_tokens
        if cut_tokens == 0 and kept_image_count == len(images) and quirk is None:
            return prompt, None
        note = (f"{POLICY_NAME}: kept {kept_image_count} of {len(images)} images, cut {cut_tokens} tokens "
                f"(budget {budget} = max_context {max_context} - {instruction_tokens} instruction tokens; "
                f"{self.image_tokens} tokens per image; tokenizer {tokenizer.name})")
        if quirk is not None:
            note += f"; {quirk}"
        parts: list[Part] = [prompt.parts[0]]
        roles: list[Role] = [prompt.roles[0]]
        for role, part in kept:
            parts.append(part)
            roles.append(role)
        return replace(prompt, parts=parts, roles=roles, policy=note), note


#: The registered official fit: cl100k_base counts, 576 tokens per image (the official LLaVA-1.5 config).
official_fit = MileBenchTruncation()


def use_official_truncation(tokenizer: str | TextTokenizer = DEFAULT_TOKENIZER,
                            image_tokens: int = DEFAULT_IMAGE_TOKENS) -> MileBenchTruncation:
    """Register the MileBench renderer with an official truncation for another model (its tokenizer, e.g.
    ``hf:/models/llava/tokenizer.json``, and its per-image token count); returns the fit now in use."""
    fit = MileBenchTruncation(tokenizer=tokenizer, image_tokens=image_tokens)
    fit.get_tokenizer()  # fail now on an unknown tokenizer, not in the middle of a run
    register_renderer("milebench", render, official_fit=fit)
    return fit


__all__ = [
    "DEFAULT_IMAGE_TOKENS", "DEFAULT_TOKENIZER", "MAX_NEW_TOKENS", "POLICY_NAME", "MileBenchTruncation",
    "choice_suffix", "choice_texts", "instruction_of", "official_fit", "official_generation", "render",
    "use_official_truncation",
]
