"""vLLM's offline engine (``vllm:<path>``), an optional extra (``pip install 'niah-bench[vllm]'``); not run in CI.

The runner sends one request per sample; this backend gathers the requests that arrive within a few
milliseconds into one ``LLM.chat`` call (up to ``batch_size``) so that vLLM's continuous batching sees a
full batch, and answers each request from its own output. Messages are the same OpenAI-style content parts
the server backend sends (images as base64 data URLs, in prompt order), so a prompt renders identically
whether a model runs behind ``vllm serve`` or in process.

Options: ``tensor_parallel_size``, ``pipeline_parallel_size``, ``max_model_len``, ``gpu_memory_utilization``,
``dtype``, ``max_images`` (vLLM's ``limit_mm_per_prompt``), ``image_size``, ``batch_size`` (default 64),
``distributed_executor_backend`` (``mp`` or ``ray``, for multi-node), ``trust_remote_code``.
For several GPUs, prefer one ``vllm serve`` per replica plus ``openai:`` with several base URLs (see
docs/running.md); this in-process engine is for single-node runs without a server.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from niah.models.base import Capabilities, ModelReply, ModelRequest, ModelSpec, PermanentModelError
from niah.models.media import ImageEncoder, openai_messages, parse_image_size
from niah.util.errors import ConfigError

_ENGINE_INT_OPTIONS = ("tensor_parallel_size", "pipeline_parallel_size", "max_model_len")


@dataclass(slots=True)
class _Pending:
    request: ModelRequest
    future: asyncio.Future[ModelReply]


class VLLMBackend:
    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        opts = dict(spec.options)
        self.engine_kwargs: dict[str, Any] = {}
        for key in _ENGINE_INT_OPTIONS:
            if key in opts:
                self.engine_kwargs[key] = int(opts.pop(key))
        if "gpu_memory_utilization" in opts:
            self.engine_kwargs["gpu_memory_utilization"] = float(opts.pop("gpu_memory_utilization"))
        for key in ("dtype", "distributed_executor_backend"):
            if key in opts:
                self.engine_kwargs[key] = str(opts.pop(key))
        if "trust_remote_code" in opts:
            self.engine_kwargs["trust_remote_code"] = str(opts.pop("trust_remote_code")).lower() in ("1", "true")
        self.image_size = parse_image_size(opts.pop("image_size", None))
        self.batch_size = int(opts.pop("batch_size", 64))
        if opts:
            raise ConfigError(f"unknown options for vllm backend: {', '.join(sorted(opts))}")
        self.capabilities = spec.capabilities or Capabilities()
        if self.capabilities.max_images is not None:
            self.engine_kwargs["limit_mm_per_prompt"] = {"image": self.capabilities.max_images}
        self.images = ImageEncoder(size=self.image_size)
        self._llm: Any = None
        self._queue: asyncio.Queue[_Pending] | None = None
        self._worker: asyncio.Task[None] | None = None

    def identity(self) -> dict[str, Any]:
        out: dict[str, Any] = {"provider": "vllm", "model": self.spec.name}
        for key in ("dtype", "max_model_len"):
            if key in self.engine_kwargs:
                out[key] = self.engine_kwargs[key]
        if self.image_size is not None:
            out["image_size"] = list(self.image_size)
        return out

    def max_in_flight(self, concurrency: int) -> int:
        """Keep two batches' worth of requests queued so the engine never waits for the runner."""
        return max(self.batch_size * 2, concurrency)

    def _load(self) -> Any:
        if self._llm is None:
            try:
                from vllm import LLM
            except ImportError as exc:
                raise ConfigError(f"vllm backend needs the 'vllm' extra: {exc}") from None
            self._llm = LLM(model=self.spec.name, **self.engine_kwargs)
        return self._llm

    def _sampling_params(self, request: ModelRequest) -> Any:
        from vllm import SamplingParams

        gen = request.generation
        kwargs: dict[str, Any] = {"max_tokens": gen.max_tokens or 128,
                                  "temperature": 0.0 if gen.greedy else gen.temperature}
        if gen.top_p is not None:
            kwargs["top_p"] = gen.top_p
        if gen.seed is not None:
            kwargs["seed"] = gen.seed
        if gen.stop:
            kwargs["stop"] = list(gen.stop)
        kwargs.update(dict(gen.extra))
        return SamplingParams(**kwargs)

    def _run_batch(self, batch: list[_Pending]) -> list[ModelReply]:
        llm = self._load()
        conversations = [openai_messages(p.request.prompt, self.images) for p in batch]
        params = [self._sampling_params(p.request) for p in batch]
        outputs = llm.chat(conversations, sampling_params=params, use_tqdm=False)
        replies = []
        for out in outputs:
            completion = out.outputs[0]
            prompt_tokens = len(out.prompt_token_ids or [])
            completion_tokens = len(completion.token_ids or [])
            replies.append(ModelReply(
                text=completion.text,
                usage={"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                       "total_tokens": prompt_tokens + completion_tokens},
                finish_reason=completion.finish_reason,
            ))
        return replies

    async def _serve(self) -> None:
        assert self._queue is not None
        while True:
            batch = [await self._queue.get()]
            await asyncio.sleep(0.005)  # let the runner's other workers enqueue theirs
            while len(batch) < self.batch_size and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                replies = await asyncio.to_thread(self._run_batch, batch)
            except ConfigError as exc:
                for p in batch:
                    p.future.set_exception(exc)
                continue
            except Exception as exc:  # an engine error fails this batch's requests, not the run
                for p in batch:
                    if not p.future.done():
                        p.future.set_exception(PermanentModelError(f"vLLM engine error: {type(exc).__name__}: {exc}"))
                continue
            for p, reply in zip(batch, replies, strict=True):
                if not p.future.done():
                    p.future.set_result(reply)

    async def generate(self, request: ModelRequest) -> ModelReply:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.create_task(self._serve())
        future: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Pending(request, future))
        return await future

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
        self._llm = None
