"""Baselines that need no model: ``random``, ``oracle`` and ``rag`` (retrieval, then a reader).

What each one sees (also in docs/running.md):

- ``random`` sees the sample's *shape* only: the number of options, the task name and what the family's own
  random answerer reads (``BaselineAnswers.random``, e.g. the number of context images); for open-ended questions it picks a word of the context. It never sees the
  gold answer. Its score is the chance level the official scorer gives a guesser. Seeded per sample id.
- ``oracle`` sees the gold answer and writes it the way the official scorer expects (a letter for options,
  a JSON list for counting, the text otherwise). It is a pipeline check: anything below 100% means the run,
  score or report stages lose or mangle something. It is an upper bound, not a model.
- ``rag`` sees the question and the context cut down by retrieval (niah.models.rag) to a token budget; the reader
  then answers from that shortened prompt only. The default reader (``extractive``) reads text only, never
  images; any other reader (``baseline:rag:openai:NAME``) receives the official prompt rendered from the
  shortened sample, images included, exactly as a full-context run would.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from niah.models.base import Capabilities, ModelReply, ModelRequest, ModelSpec, PermanentModelError
from niah.sample import Sample, parts_text
from niah.util.errors import ConfigError

if TYPE_CHECKING:
    from niah.benchmarks.protocol import BaselineAnswers
    from niah.models.rag import TextScorer

_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")


@lru_cache(maxsize=2)
def _context_words(text: str) -> tuple[str, ...]:
    """The distinct words of a context, sorted; cached for the latest contexts, since ``niah audit`` draws
    several seeds' replies for each sample in turn (reading a long context once, not once a seed)."""
    return tuple(sorted(set(_WORDS.findall(text))))


def _rng(seed: int, sample_id: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{sample_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _need_sample(request: ModelRequest) -> Sample:
    if request.sample is None:
        raise PermanentModelError("baselines answer samples; this request carries none")
    return request.sample


class _Baseline:
    """Shared plumbing: no endpoints, no limits, nothing to close."""

    kind = "baseline"

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.capabilities = spec.capabilities or Capabilities()

    def max_in_flight(self, concurrency: int) -> int:
        return max(1, concurrency)

    async def aclose(self) -> None:
        return None


class RandomBaseline(_Baseline):
    """Options: ``seed`` (default 0), and for a family's random answerer (``RandomShape``) ``count_max`` (largest
    random count, default 10) and ``count_items`` (largest number of counts in one reply, default 3).

    A request's sampling seed (``niah run --sampling-seed``), when set, replaces the ``seed`` option, as it would a
    model's: runs with different seeds are different draws (it was ignored, so every run repeated one draw).
    """

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        opts = dict(spec.options)
        self.seed = int(opts.pop("seed", 0))
        self.count_max = int(opts.pop("count_max", 10))
        self.count_items = int(opts.pop("count_items", 3))
        if opts:
            raise ConfigError(f"unknown options for baseline:random: {', '.join(sorted(opts))}")

    def identity(self) -> dict[str, Any]:
        return {"provider": "baseline", "kind": "random", "seed": self.seed, "count_max": self.count_max,
                "count_items": self.count_items}

    def answer(self, sample: Sample, seed: int | None = None) -> str:
        rng = _rng(self.seed if seed is None else seed, sample.id)
        answers = _family_answers(sample)
        if answers is not None and answers.random is not None:
            reply = answers.random(sample, RandomShape(rng, self.count_max, self.count_items))
            if reply is not None:
                return reply
        if sample.choices is not None:
            return chr(65 + rng.randrange(len(sample.choices)))
        words = _context_words(parts_text(sample.context))
        return rng.choice(words) if words else ""

    async def generate(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text=self.answer(_need_sample(request), request.generation.seed))


@dataclass(frozen=True, slots=True)
class RandomShape:
    """What a family's random answerer gets besides the sample: the seeded generator and the count options."""

    rng: random.Random
    count_max: int
    count_items: int


def _family_answers(sample: Sample) -> BaselineAnswers | None:
    """The family's own answer shapes for baselines (``Family.baselines``), when it declares them."""
    from niah.benchmarks.registry import find_family

    family = find_family(sample.benchmark)
    if family is None or family.baselines is None:
        return None
    return family.baselines()


def oracle_reply(sample: Sample) -> str:
    answers = _family_answers(sample)
    if answers is not None and answers.oracle is not None:
        reply = answers.oracle(sample)
        if reply is not None:
            return reply
    return format_gold(sample.answer)


def format_gold(answer: Any) -> str:
    """The gold answer as a reply: an option index as its letter, text as is, anything else as JSON."""
    if isinstance(answer, bool):
        return str(answer)
    if isinstance(answer, int):
        return chr(65 + answer)
    if isinstance(answer, str):
        return answer
    return json.dumps(answer, ensure_ascii=False)


class OracleBaseline(_Baseline):
    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        if spec.options:
            raise ConfigError(f"baseline:oracle takes no options (got {', '.join(sorted(spec.options))})")

    def identity(self) -> dict[str, Any]:
        return {"provider": "baseline", "kind": "oracle"}

    def sample_key_material(self, sample: Any) -> Any:
        """The reply is the gold answer, so two samples with one prompt but different golds differ."""
        return sample.answer

    async def generate(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text=oracle_reply(_need_sample(request)))


class RagBaseline(_Baseline):
    """Retrieval (niah.models.rag) then a reader. Options (all prefixed ``rag_``): ``rag_budget`` (tokens, 8192),
    ``rag_image_tokens`` (256), ``rag_retriever`` (``bm25`` | ``minilm``), ``rag_tokenizer`` (cl100k_base),
    ``rag_seed`` (the extractive reader's pick among image options it cannot see)."""

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        from niah.models.rag import RagConfig

        opts = dict(spec.options)
        try:
            self.config = RagConfig(
                budget_tokens=int(opts.pop("rag_budget", 8192)),
                image_tokens=int(opts.pop("rag_image_tokens", 256)),
                retriever=str(opts.pop("rag_retriever", "bm25")),
                tokenizer=str(opts.pop("rag_tokenizer", "cl100k_base")),
            )
            self.seed = int(opts.pop("rag_seed", 0))
        except ValueError as exc:
            raise ConfigError(f"bad RAG option: {exc}") from None
        if opts:
            raise ConfigError(f"unknown options for baseline:rag: {', '.join(sorted(opts))}")
        self.reader = None
        if spec.reader is not None:
            from niah.models.registry import load_backend

            self.reader = load_backend(spec.reader)
        self._scorer: TextScorer | None = None  # built on first use (the dense scorer loads a model)

    def identity(self) -> dict[str, Any]:
        reader = self.reader.identity() if self.reader is not None else {"kind": "extractive"}
        return {"provider": "baseline", "kind": "rag", "retrieval": self.config.to_json(), "reader": reader}

    def max_in_flight(self, concurrency: int) -> int:
        if self.reader is not None:
            return self.reader.max_in_flight(concurrency)
        return 1  # extractive reading is CPU work: one at a time in a worker thread

    def _retrieve(self, sample: Sample) -> Sample:
        from niah.models.rag import make_scorer, retrieve

        if self._scorer is None:
            self._scorer = make_scorer(self.config)
        shortened, _ = retrieve(sample, self.config, self._scorer)
        return shortened

    async def generate(self, request: ModelRequest) -> ModelReply:
        sample = _need_sample(request)
        shortened = await asyncio.to_thread(self._retrieve, sample)
        if self.reader is None:
            from niah.models.rag import extractive_answer

            pick = _rng(self.seed, sample.id).randrange(max(len(sample.choices or ()), 1))
            answers = _family_answers(shortened)
            reader = answers.extractive if answers is not None else None
            return ModelReply(text=extractive_answer(shortened, rng_pick=pick, family_reader=reader))
        from niah.prompts.render import fit_to_capabilities, render_prompt

        prompt = render_prompt(shortened, request.prompt.media_root, request.prompt_options)
        fit = fit_to_capabilities(prompt, shortened, self.reader.capabilities, request.prompt_options)
        if fit.prompt is None:
            raise PermanentModelError(f"retrieved prompt does not fit the reader: {fit.skip_reason}")
        return await self.reader.generate(ModelRequest(prompt=fit.prompt, generation=request.generation,
                                                       sample=shortened, prompt_options=request.prompt_options))

    async def aclose(self) -> None:
        if self.reader is not None:
            await self.reader.aclose()


def make_baseline(spec: ModelSpec) -> _Baseline:
    if spec.name == "random":
        return RandomBaseline(spec)
    if spec.name == "oracle":
        return OracleBaseline(spec)
    if spec.name == "rag":
        return RagBaseline(spec)
    raise ConfigError(f"unknown baseline {spec.name!r}")


__all__ = ["OracleBaseline", "RagBaseline", "RandomBaseline", "RandomShape", "format_gold", "make_baseline",
           "oracle_reply"]
