"""What every model backend shares: the parsed model spec, generation settings, capabilities, the request and
reply types, and the two error classes the runner's retry loop understands.

Backends are duck-typed against :class:`ModelBackend`; the runner never imports a concrete backend, so the
default install (no torch, no vLLM) can run OpenAI-compatible servers and the baselines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from niah.prompts import PromptOptions, RenderedPrompt
    from niah.sample import Sample


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
    handled by an explicit, recorded policy (see :func:`niah.prompts.fit_to_capabilities`), never silently.
    """

    vision: bool = True
    max_images: int | None = None
    max_context_tokens: int | None = None
    video: bool = False

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(slots=True)
class ModelSpec:
    """A parsed ``--model`` string plus the options that go with it.

    ``provider`` is one of ``openai``, ``hf``, ``vllm``, ``baseline`` (or a provider registered later);
    ``name`` is the served model name, local path or baseline kind. Secrets are never stored here: only the
    *name* of the environment variable that holds an API key.
    """

    provider: str
    name: str
    base_urls: tuple[str, ...] = ()
    api_key_env: str | None = None
    #: For ``baseline:rag``: the answering model (``None`` means the offline extractive reader).
    reader: ModelSpec | None = None
    options: dict[str, Any] = field(default_factory=dict)
    capabilities: Capabilities | None = None

    def spec_string(self) -> str:
        """The spec as typed on the command line (no URLs, no keys)."""
        if self.provider == "baseline" and self.name == "rag":
            return "baseline:rag" + (f":{self.reader.spec_string()}" if self.reader is not None else "")
        return f"{self.provider}:{self.name}"

    def to_json(self) -> dict[str, Any]:
        """A record for run.json: what ran, where, and which variable held the key (never the key)."""
        out: dict[str, Any] = {"spec": self.spec_string(), "provider": self.provider, "name": self.name}
        if self.base_urls:
            from niah.util.redact import redact_url

            out["base_urls"] = [redact_url(u) for u in self.base_urls]
        if self.api_key_env:
            out["api_key_env"] = self.api_key_env
        if self.reader is not None:
            out["reader"] = self.reader.to_json()
        if self.options:
            out["options"] = {k: v for k, v in sorted(self.options.items())}
        if self.capabilities is not None:
            out["capabilities"] = self.capabilities.to_json()
        return out


@dataclass(slots=True)
class ModelRequest:
    """One request: the rendered prompt and the decoding settings; ``sample`` is there for baselines that
    need the raw sample (oracle reads the gold, RAG re-renders a shortened context). Model backends that talk
    to real models only read ``prompt`` and ``generation``."""

    prompt: RenderedPrompt
    generation: GenerationSettings
    sample: Sample | None = None
    prompt_options: PromptOptions | None = None


@dataclass(slots=True)
class ModelReply:
    text: str
    usage: dict[str, int] | None = None
    finish_reason: str | None = None


class ModelError(Exception):
    """A request that failed. ``retryable`` errors (429, 5xx, timeouts, malformed replies) are retried with
    backoff; the others (bad request, auth) are recorded at once. Messages never carry API keys."""

    retryable = False

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class RetryableModelError(ModelError):
    retryable = True


class PermanentModelError(ModelError):
    retryable = False


@runtime_checkable
class ModelBackend(Protocol):
    """The interface the runner drives. ``identity`` names everything that determines the model's output
    (never URLs, concurrency or keys) and goes into every cache key."""

    spec: ModelSpec
    capabilities: Capabilities

    def identity(self) -> dict[str, Any]: ...

    def max_in_flight(self, concurrency: int) -> int: ...

    async def generate(self, request: ModelRequest) -> ModelReply: ...

    async def aclose(self) -> None: ...
