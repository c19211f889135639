"""What every model backend shares: the parsed model spec, generation settings, capabilities, the request and
reply types, and the two error classes the runner's retry loop understands.

Backends are duck-typed against :class:`ModelBackend`; the runner never imports a concrete backend, so the
default install (no torch, no vLLM) can run OpenAI-compatible servers and the baselines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

# The value types a prompt is sent with and fitted to live with the prompt types (below the family protocol);
# they are part of this module's API too.
from niah.prompts.types import MAX_TEMPERATURE, Capabilities, GenerationSettings

if TYPE_CHECKING:
    from niah.prompts.types import PromptOptions, RenderedPrompt
    from niah.sample import Sample

__all__ = ["MAX_TEMPERATURE", "Capabilities", "GenerationSettings", "ModelBackend", "ModelError", "ModelReply",
           "ModelRequest", "ModelSpec", "PermanentModelError", "RetryableModelError"]


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
