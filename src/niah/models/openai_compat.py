"""OpenAI-compatible chat completions (vLLM, SGLang, LMDeploy, Ollama, llama.cpp servers, hosted APIs).

One backend may hold several base URLs (data-parallel replicas of one model); each request goes to the
endpoint with the fewest requests in flight, and each endpoint has its own concurrency limit and its own
keep-alive connection pool. Images travel in prompt order as base64 data URLs (default) or as ``file://``
URLs for local servers that may read the dataset directory themselves (vLLM's
``--allowed-local-media-path``); video goes as sampled frames, or as a ``video_url`` when the model declares
native video support.

Errors are classified for the runner: 429, 408, 5xx, timeouts, dropped connections and malformed replies are
retryable; other 4xx are not. The API key is read from the named environment variable when the backend is
built and lives only in the request header; it never appears in identities, records or messages.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import time
from dataclasses import dataclass
from typing import Any

import httpx

from niah.models.base import (
    Capabilities,
    ModelReply,
    ModelRequest,
    ModelSpec,
    PermanentModelError,
    RetryableModelError,
)
from niah.models.media import ImageEncoder, openai_messages, parse_image_size
from niah.prompts.types import RenderedPrompt
from niah.util.errors import ConfigError
from niah.util.redact import add_secret, redact, redact_url, register_url_secrets, split_query

DEFAULT_TIMEOUT_S = 600.0
#: The most bytes one reply may carry; a larger body is cut off while it streams in and recorded as an error,
#: so that a broken or hostile server cannot make one reply cost more memory than this.
DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


@dataclass(slots=True)
class Endpoint:
    base_url: str
    client: httpx.AsyncClient
    semaphore: asyncio.Semaphore
    in_flight: int = 0
    sent: int = 0


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _option_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")


class OpenAICompatBackend:
    """``openai:<served model name>`` with ``base_urls`` and an optional ``api_key_env``.

    Options: ``timeout`` (seconds for the whole request, default 600), ``max_reply_bytes`` (default 8 MiB),
    ``image_transport`` (``data`` | ``file``), ``image_size``
    (e.g. ``448x448``: resize every image before sending), ``max_tokens_field`` (``max_tokens`` or
    ``max_completion_tokens`` for APIs that renamed it), ``extra_body`` (JSON object merged into each request),
    ``identity`` (a free label that separates caches of different models served under one name).
    """

    def __init__(self, spec: ModelSpec) -> None:
        if not spec.base_urls:
            raise ConfigError("openai:<name> needs at least one base URL")
        self.spec = spec
        self.capabilities = spec.capabilities or Capabilities()
        opts = dict(spec.options)
        self.timeout = float(opts.pop("timeout", DEFAULT_TIMEOUT_S))
        if not self.timeout > 0:
            raise ConfigError("timeout must be a positive number of seconds")
        self.max_reply_bytes = int(opts.pop("max_reply_bytes", DEFAULT_MAX_REPLY_BYTES))
        if self.max_reply_bytes < 1024:
            raise ConfigError("max_reply_bytes must be at least 1024")
        self.image_transport = str(opts.pop("image_transport", "data"))
        if self.image_transport not in ("data", "file"):
            raise ConfigError(f"image_transport must be 'data' or 'file', got {self.image_transport!r}")
        self.image_size = parse_image_size(opts.pop("image_size", None))
        self.max_tokens_field = str(opts.pop("max_tokens_field", "max_tokens"))
        extra_body = opts.pop("extra_body", None)
        if isinstance(extra_body, str):
            try:
                extra_body = json.loads(extra_body)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"extra_body is not valid JSON: {exc.msg}") from None
        if extra_body is not None and not isinstance(extra_body, dict):
            raise ConfigError("extra_body must be a JSON object")
        self.extra_body: dict[str, Any] = extra_body or {}
        self.identity_label = opts.pop("identity", None)
        self.trust_env = _option_bool(opts.pop("trust_env", False))
        if opts:
            raise ConfigError(f"unknown options for openai backend: {', '.join(sorted(opts))}")
        self._headers = {"Content-Type": "application/json"}
        if spec.api_key_env:
            key = os.environ.get(spec.api_key_env)
            if not key:
                raise ConfigError(f"environment variable {spec.api_key_env} (the API key) is not set or empty")
            add_secret(key)
            self._headers["Authorization"] = f"Bearer {key}"
        for url in spec.base_urls:
            register_url_secrets(url)
        self.images = ImageEncoder(size=self.image_size)
        self._per_endpoint = 8
        self._endpoints: list[Endpoint] | None = None
        self._next = 0

    # -- runner interface --------------------------------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        out: dict[str, Any] = {"provider": "openai", "model": self.spec.name}
        if self.image_size is not None:
            out["image_size"] = list(self.image_size)
        if self.max_tokens_field != "max_tokens":
            out["max_tokens_field"] = self.max_tokens_field
        if self.extra_body:
            out["extra_body"] = self.extra_body
        if self.identity_label:
            out["label"] = self.identity_label
        return out

    def max_in_flight(self, concurrency: int) -> int:
        """``concurrency`` is per endpoint; the runner keeps that many requests in flight per replica."""
        if self._endpoints is not None:
            raise RuntimeError("max_in_flight must be set before the first request")
        self._per_endpoint = max(int(concurrency), 1)
        return self._per_endpoint * len(self.spec.base_urls)

    def endpoint_stats(self) -> list[dict[str, Any]]:
        return [{"base_url": redact_url(e.base_url), "sent": e.sent, "in_flight": e.in_flight}
                for e in self._endpoints or []]

    def _make_endpoints(self) -> list[Endpoint]:
        limits = httpx.Limits(max_connections=self._per_endpoint, max_keepalive_connections=self._per_endpoint)
        timeout = httpx.Timeout(self.timeout, connect=min(self.timeout, 30.0))
        endpoints = []
        for url in self.spec.base_urls:
            # a query in the base URL (?api-version=..., ?key=...) goes after the request path, on every request
            path_url, query = split_query(url)
            client = httpx.AsyncClient(base_url=path_url, params=httpx.QueryParams(query), headers=self._headers, limits=limits,
                                       timeout=timeout, trust_env=self.trust_env)
            endpoints.append(Endpoint(base_url=url, client=client, semaphore=asyncio.Semaphore(self._per_endpoint)))
        return endpoints

    def _pick_endpoint(self) -> Endpoint:
        """Fewest in flight wins; ties rotate so that idle replicas share the first requests evenly."""
        if self._endpoints is None:
            self._endpoints = self._make_endpoints()
        n = len(self._endpoints)
        start = self._next
        self._next = (self._next + 1) % n
        best = self._endpoints[start]
        for k in range(1, n):
            candidate = self._endpoints[(start + k) % n]
            if candidate.in_flight < best.in_flight:
                best = candidate
        return best

    # -- request building ----------------------------------------------------------------------------------

    def build_messages(self, prompt: RenderedPrompt) -> list[dict[str, Any]]:
        return openai_messages(prompt, self.images, transport=self.image_transport)

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        gen = request.generation
        body: dict[str, Any] = {"model": self.spec.name, "messages": self.build_messages(request.prompt)}
        if gen.max_tokens is not None:
            body[self.max_tokens_field] = gen.max_tokens
        if gen.temperature is not None:
            body["temperature"] = gen.temperature
        if gen.top_p is not None:
            body["top_p"] = gen.top_p
        if gen.seed is not None:
            body["seed"] = gen.seed
        if gen.stop:
            body["stop"] = list(gen.stop)
        body.update(dict(gen.extra))
        body.update(self.extra_body)
        return body

    # -- sending -----------------------------------------------------------------------------------------

    async def generate(self, request: ModelRequest) -> ModelReply:
        body = self.build_body(request)
        endpoint = self._pick_endpoint()
        where = redact_url(endpoint.base_url)
        endpoint.in_flight += 1
        try:
            async with endpoint.semaphore:
                endpoint.sent += 1
                try:
                    # One deadline for the whole request (connect, send, every byte of the reply): httpx's own
                    # timeout is per read, so a server dripping a byte a second would otherwise never time out.
                    async with asyncio.timeout(self.timeout):
                        status, headers, raw = await self._post(endpoint, body, where)
                except TimeoutError:
                    raise RetryableModelError(f"no complete reply within {self.timeout:g}s at {where}") from None
                except httpx.TimeoutException as exc:
                    raise RetryableModelError(f"timeout after {self.timeout:g}s ({type(exc).__name__}) "
                                              f"at {where}") from None
                except httpx.TransportError as exc:
                    raise RetryableModelError(redact(f"connection error at {where}: "
                                                     f"{type(exc).__name__}: {exc}")) from None
        finally:
            endpoint.in_flight -= 1
        return self._parse(status, headers, raw, where)

    async def _post(self, endpoint: Endpoint, body: dict[str, Any], where: str
                    ) -> tuple[int, httpx.Headers, bytes]:
        """POST and read the reply as it streams, refusing to hold more than ``max_reply_bytes``."""
        async with endpoint.client.stream("POST", "/chat/completions", json=body) as response:
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_reply_bytes:
                    raise PermanentModelError(
                        f"reply from {where} is larger than {self.max_reply_bytes} bytes (max_reply_bytes); "
                        "read up to the cap and discarded", status=response.status_code)
                chunks.append(chunk)
            return response.status_code, response.headers, b"".join(chunks)

    @staticmethod
    def _parse(status: int, headers: httpx.Headers, raw: bytes, where: str) -> ModelReply:
        if status != 200:
            snippet = redact(raw[:300].decode("utf-8", "replace").replace("\n", " "))
            message = f"HTTP {status} from {where}: {snippet}"
            if status in RETRYABLE_STATUS or status >= 500:
                raise RetryableModelError(message, status=status,
                                          retry_after=_retry_after_seconds(headers.get("retry-after")))
            raise PermanentModelError(message, status=status)
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            preview = redact(raw[:120].decode("utf-8", "replace"))
            raise RetryableModelError(f"malformed reply from {where}: not JSON: {preview!r}") from None
        if not isinstance(data, dict):
            raise RetryableModelError(f"malformed reply from {where}: JSON is not an object")
        if isinstance(data.get("error"), (dict, str)) and not data.get("choices"):
            detail = redact(json.dumps(data["error"], ensure_ascii=True)[:300])
            raise RetryableModelError(f"error reply from {where}: {detail}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise RetryableModelError(f"malformed reply from {where}: no choices")
        reply_message = choices[0].get("message")
        if not isinstance(reply_message, dict):
            raise RetryableModelError(f"malformed reply from {where}: choice has no message")
        content = reply_message.get("content")
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise RetryableModelError(f"malformed reply from {where}: content is {type(content).__name__}")
        usage = data.get("usage")
        usage_out = None
        if isinstance(usage, dict):
            usage_out = {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
        finish = choices[0].get("finish_reason")
        return ModelReply(text=content, usage=usage_out or None, finish_reason=finish if isinstance(finish, str) else None)

    async def aclose(self) -> None:
        for endpoint in self._endpoints or []:
            await endpoint.client.aclose()
