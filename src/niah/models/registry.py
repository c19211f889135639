"""Model spec parsing and the provider registry.

A model is named by one string, the same on the command line and in Python:

- ``openai:<served-name>``   an OpenAI-compatible chat-completions server (vLLM, SGLang, LMDeploy, Ollama,
                             llama.cpp, hosted APIs); base URLs and the API-key variable come as options;
- ``hf:<path>``              a local transformers image-text-to-text model (needs the ``torch`` extra);
- ``vllm:<path>``            vLLM's offline engine (needs the ``vllm`` extra);
- ``baseline:random``, ``baseline:oracle``, ``baseline:rag[:<reader>]`` where the reader is
  ``extractive`` (default, offline) or any other spec, e.g. ``baseline:rag:openai:qwen2-vl``.

Providers are imported only when a backend is built (like inspect_ai's lazily registered providers), so
importing niah or parsing a spec never loads httpx, torch or vLLM.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from niah import pip_install
from niah.models.base import Capabilities, ModelBackend, ModelSpec
from niah.util.errors import ConfigError
from niah.util.redact import redact_url, register_url_secrets

#: provider name -> "module:factory"; the factory takes a ModelSpec and returns a backend.
_PROVIDERS: dict[str, str | Callable[[ModelSpec], ModelBackend]] = {
    "openai": "niah.models.openai_compat:OpenAICompatBackend",
    "hf": "niah.models.transformers_backend:TransformersBackend",
    "vllm": "niah.models.vllm_backend:VLLMBackend",
    "baseline": "niah.models.baselines:make_baseline",
}

BASELINES = ("random", "oracle", "rag")
_CAPABILITY_OPTIONS = {"vision", "max_images", "max_context", "video"}


def register_provider(name: str, factory: str | Callable[[ModelSpec], ModelBackend]) -> None:
    """Add a provider: ``factory`` is a callable or a lazily imported ``"module:attr"`` string."""
    if not name.isidentifier():
        raise ConfigError(f"provider name {name!r} must be an identifier")
    _PROVIDERS[name] = factory


def providers() -> list[str]:
    return sorted(_PROVIDERS)


def parse_model_spec(
    spec: str,
    *,
    base_urls: Iterable[str] = (),
    api_key_env: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> ModelSpec:
    """Parse ``provider:name`` into a :class:`ModelSpec`. The name keeps any further colons (Ollama names
    such as ``qwen2.5vl:7b``). Capability options (``vision``, ``max_images``, ``max_context``, ``video``)
    become the spec's declared :class:`Capabilities`; the rest stay backend options."""
    if not isinstance(spec, str) or ":" not in spec:
        raise ConfigError(
            f"model spec {spec!r} must look like PROVIDER:NAME "
            f"(providers: {', '.join(providers())}; e.g. openai:qwen2-vl-7b, hf:/models/llava, baseline:oracle)"
        )
    provider, _, name = spec.partition(":")
    provider = provider.strip().lower()
    name = name.strip()
    if provider not in _PROVIDERS:
        raise ConfigError(f"unknown model provider {provider!r} in {spec!r} (known: {', '.join(providers())})")
    if not name:
        raise ConfigError(f"model spec {spec!r} has no model name after the provider")
    urls = tuple(u.rstrip("/") for u in base_urls)
    for url in urls:
        register_url_secrets(url)  # credentials written into a URL never reach a file or a message
        if not (url.startswith("http://") or url.startswith("https://")):
            raise ConfigError(f"base URL {redact_url(url)!r} must start with http:// or https://")
    opts = dict(options or {})
    caps = _capabilities_from_options(opts)
    reader = None
    if provider == "baseline":
        kind, _, rest = name.partition(":")
        if kind not in BASELINES:
            raise ConfigError(f"unknown baseline {kind!r} (known: {', '.join(BASELINES)})")
        if rest and kind != "rag":
            raise ConfigError(f"baseline:{kind} takes no reader (only baseline:rag:<reader> does)")
        if kind == "rag" and rest and rest != "extractive":
            # The reader gets the endpoints and key; the RAG wrapper keeps the retrieval options.
            reader_opts = {k: v for k, v in opts.items() if not k.startswith("rag_")}
            reader = parse_model_spec(rest, base_urls=urls, api_key_env=api_key_env, options=reader_opts)
            opts = {k: v for k, v in opts.items() if k.startswith("rag_")}
        name = kind
    elif provider == "openai" and not urls:
        raise ConfigError("openai:<name> needs --base-url (a local server, e.g. http://127.0.0.1:8000/v1, "
                          "or a hosted API, e.g. https://api.openai.com/v1)")
    return ModelSpec(provider=provider, name=name, base_urls=urls if provider != "baseline" else (),
                     api_key_env=api_key_env if provider != "baseline" else None, reader=reader,
                     options=opts, capabilities=caps)


def _capabilities_from_options(opts: dict[str, Any]) -> Capabilities | None:
    if not (_CAPABILITY_OPTIONS & set(opts)):
        return None
    def as_int(key: str) -> int | None:
        value = opts.pop(key, None)
        if value is None:
            return None
        try:
            out = int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"model option {key} must be an integer, got {value!r}") from None
        if out <= 0:
            raise ConfigError(f"model option {key} must be positive, got {out}")
        return out
    def as_bool(key: str, default: bool) -> bool:
        value = opts.pop(key, None)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"model option {key} must be true or false, got {value!r}")
    return Capabilities(
        vision=as_bool("vision", True),
        max_images=as_int("max_images"),
        max_context_tokens=as_int("max_context"),
        video=as_bool("video", False),
    )


def load_backend(spec: ModelSpec | str, **kwargs: Any) -> ModelBackend:
    """Build the backend for a spec, importing its provider module only now."""
    if isinstance(spec, str):
        spec = parse_model_spec(spec, **kwargs)
    factory = _PROVIDERS.get(spec.provider)
    if factory is None:
        raise ConfigError(f"unknown model provider {spec.provider!r}")
    if isinstance(factory, str):
        module_name, _, attr = factory.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            extra = {"hf": "torch", "vllm": "vllm"}.get(spec.provider)
            hint = f" (install the extra: {pip_install(extra)})" if extra else ""
            raise ConfigError(f"provider {spec.provider!r} is not available: {exc}{hint}") from None
        factory = getattr(module, attr)
    return factory(spec)
