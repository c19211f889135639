"""What a run would cost, before it is started: ``niah run --dry-run`` totals and a price estimate.

Prompt tokens are counted on the prompts the run would send (after the capability fit: truncation, dropped
images), system text included, with the dataset's tokenizer (its manifest's ``tokenizer``; cl100k_base when it
names none); images by the sample's own image accounting (``meta.image_tokens`` over ``meta.num_images``) and,
where a sample has none, by the manifest's image rule. An image or frame with neither (an imported official set
that records no image cost) is counted apart, and the totals say so: the estimate leaves it out. A model's own
tokenizer counts differently: the estimate is exact in the dataset's accounting, not in every server's.
"""

from __future__ import annotations

import math
from typing import Any

from niah.models.base import GenerationSettings
from niah.prompts.types import RenderedPrompt
from niah.sample import ImagePart, Sample, TextPart, VideoPart
from niah.util.errors import ConfigError

DEFAULT_TOKENIZER = "cl100k_base"


def parse_price(value: str) -> tuple[float, float]:
    """``--price-per-mtok IN,OUT``: dollars (or any currency) per million input and output tokens."""
    head, sep, tail = value.partition(",")
    try:
        price_in, price_out = float(head), float(tail if sep else head)
    except ValueError:
        raise ConfigError(f"--price-per-mtok takes IN,OUT prices per million tokens, e.g. 2.5,10 (not {value!r})"
                          ) from None
    if not (math.isfinite(price_in) and math.isfinite(price_out)) or price_in < 0 or price_out < 0:
        raise ConfigError(f"--price-per-mtok prices must be finite and not negative, not {value!r}")
    return price_in, price_out


class DryRunTotals:
    """Accumulates the totals of the prompts a dry run renders."""

    def __init__(self, manifest: dict[str, Any]) -> None:
        from niah.tokens.text import get_tokenizer

        name = manifest.get("tokenizer")
        self.tokenizer_name = name if isinstance(name, str) and name else DEFAULT_TOKENIZER
        try:
            self._tokenizer = get_tokenizer(self.tokenizer_name)
        except ConfigError:  # a tokenizer file that is not here: count with the default, and say so
            self.tokenizer_name = DEFAULT_TOKENIZER
            self._tokenizer = get_tokenizer(DEFAULT_TOKENIZER)
        rule = manifest.get("image_tokens_rule")
        self._image_rule_name = rule if isinstance(rule, str) else None
        self._image_rule: Any = None
        self.samples = self.sent = self.skipped = 0
        self.prompt_tokens = self.text_tokens = self.image_tokens = 0
        self.images = self.frames = self.videos = 0
        self.uncounted_images = 0  # images and frames of the sent prompts with no token count (left out)
        self.max_output_tokens = 0
        self.output_unbounded = 0  # requests whose max_tokens is unset: no bound on their output

    def _per_image(self, sample: Sample, prompt: RenderedPrompt, part_path: str | None) -> int:
        tokens = self._image_tokens(sample, prompt, part_path)
        if tokens is None:
            self.uncounted_images += 1
            return 0
        return tokens

    def _image_tokens(self, sample: Sample, prompt: RenderedPrompt, part_path: str | None) -> int | None:
        """One image's tokens in the dataset's accounting; None when the dataset gives no way to count them."""
        meta = sample.meta
        tokens, count = meta.get("image_tokens"), meta.get("num_images")
        if isinstance(tokens, int) and isinstance(count, int) and count > 0:
            return round(tokens / count)
        if self._image_rule_name is None or part_path is None:
            return None
        try:
            if self._image_rule is None:
                from niah.tokens.image import get_image_rule

                self._image_rule = get_image_rule(self._image_rule_name)
            return int(self._image_rule.tokens_for_file(prompt.resolve(part_path)))
        except (ConfigError, OSError, ValueError):
            self._image_rule_name = None  # an unknown rule: images are left uncounted from here on
            return None

    def add(self, sample: Sample, prompt: RenderedPrompt | None, generation: GenerationSettings) -> None:
        self.samples += 1
        if prompt is None:
            self.skipped += 1
            return
        self.sent += 1
        texts = [p.text for p in prompt.parts if isinstance(p, TextPart)]
        if prompt.system:
            texts.append(prompt.system)
        text_tokens = sum(self._tokenizer.count_batch(texts)) if texts else 0
        image_tokens = 0
        for part in prompt.parts:
            if isinstance(part, ImagePart):
                self.images += 1
                image_tokens += self._per_image(sample, prompt, part.path)
            elif isinstance(part, VideoPart):
                if part.frames:
                    self.frames += len(part.frames)
                    image_tokens += sum(self._per_image(sample, prompt, f) for f in part.frames)
                else:
                    self.videos += 1
        self.text_tokens += text_tokens
        self.image_tokens += image_tokens
        self.prompt_tokens += text_tokens + image_tokens
        if generation.max_tokens is None:
            self.output_unbounded += 1
        else:
            self.max_output_tokens += generation.max_tokens

    def to_json(self, *, judge_calls: int = 0, price: tuple[float, float] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "samples": self.samples, "requests": self.sent, "skipped": self.skipped,
            "prompt_tokens": self.prompt_tokens, "text_tokens": self.text_tokens,
            "image_tokens": self.image_tokens, "images": self.images, "frames": self.frames,
            "videos": self.videos, "uncounted_images": self.uncounted_images,
            "max_output_tokens": self.max_output_tokens,
            "requests_without_max_tokens": self.output_unbounded, "judge_calls": judge_calls,
            "tokenizer": self.tokenizer_name,
        }
        if price is not None:
            out["cost"] = cost(self.prompt_tokens, self.max_output_tokens, price)
        return out


def cost(prompt_tokens: int, output_tokens: int, price: tuple[float, float]) -> float:
    """Input tokens at ``price[0]`` plus output tokens at ``price[1]``, both per million."""
    return round(prompt_tokens / 1e6 * price[0] + output_tokens / 1e6 * price[1], 6)


def totals_lines(totals: dict[str, Any], price: tuple[float, float] | None = None) -> list[str]:
    """The dry run's totals as the lines ``niah run --dry-run`` prints on stderr."""
    media = f"{totals['images']} images, {totals['frames']} video frames"
    if totals["videos"]:
        media += f", {totals['videos']} video files (tokens not estimated)"
    if totals.get("uncounted_images"):
        media += (f"; {totals['uncounted_images']} of these images and frames have no token count in this dataset "
                  "and are not in the prompt tokens (a hosted API bills them)")
    lines = [
        f"totals: {totals['samples']} samples, {totals['requests']} requests ({totals['skipped']} skipped by the "
        f"over-limit policy)",
        f"prompt tokens: {totals['prompt_tokens']:,} ({totals['text_tokens']:,} text by {totals['tokenizer']}, "
        f"{totals['image_tokens']:,} image); {media}",
        f"max output tokens: {totals['max_output_tokens']:,}"
        + (f" (+ {totals['requests_without_max_tokens']} requests without max_tokens)"
           if totals["requests_without_max_tokens"] else ""),
        f"judge calls: up to {totals['judge_calls']} (made later by `niah judge`, not by this run)"
        if totals["judge_calls"] else "judge calls: 0",
    ]
    if price is not None:
        price_in, price_out = price
        total = cost(totals["prompt_tokens"], totals["max_output_tokens"], price)
        uncounted = totals.get("uncounted_images") or 0
        left_out = f" and {uncounted} uncounted images" if uncounted else ""
        lines.append(f"cost estimate: {total:.4f} at {price_in:g} in / {price_out:g} out per million tokens "
                     f"(input {cost(totals['prompt_tokens'], 0, price):.4f} + output at most "
                     f"{cost(0, totals['max_output_tokens'], price):.4f}; retries{left_out} not included)")
    return lines


def judge_calls_bound(benchmark: Any, samples: int) -> int:
    """An upper bound on the judge calls a benchmark's judge verb makes for ``samples`` answered samples: one
    per sample when the family scores with stored judge verdicts (its verb judges only the tasks that need
    it), else 0."""
    from niah.benchmarks.registry import find_family

    family = find_family(benchmark) if isinstance(benchmark, str) else None
    if family is None or family.scorer is None:
        return 0
    return samples if family.scorer().judged is not None else 0
