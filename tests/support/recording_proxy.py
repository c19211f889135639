"""A loopback recording proxy in front of a llama.cpp server: every chat request any harness sends is forwarded
unchanged, and what the model was given is recorded as the server itself renders it (its ``/apply-template`` of
the request's messages), beside the reply it returned. So runs through different harnesses can be compared on
the exact text the model saw, byte for byte."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


@dataclass
class Exchange:
    """One chat request as the model got it: the templated prompt text, the generation fields, and the reply."""

    prompt: str
    max_tokens: Any
    temperature: Any
    reply: str | None
    #: the request's other fields (decoding settings, model), for telling why two replies differ
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class RecordingProxy:
    """``with RecordingProxy(upstream_root) as proxy:`` serves ``proxy.base_url`` (``/v1``) and records every
    chat completion in ``proxy.exchanges``; ``upstream_root`` is the llama.cpp server's root (no ``/v1``)."""

    upstream: str
    exchanges: list[Exchange] = field(default_factory=list)
    base_url: str = ""
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def __enter__(self) -> RecordingProxy:
        proxy = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def _reply(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                got = httpx.get(proxy.upstream + self.path, timeout=60)
                self._reply(got.status_code, got.content, got.headers.get("content-type", "application/json"))

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                got = httpx.post(proxy.upstream + self.path, content=raw, timeout=1800,
                                 headers={"Content-Type": "application/json"})
                if self.path.rstrip("/").endswith("/chat/completions"):
                    body = json.loads(raw)
                    rendered = httpx.post(proxy.upstream + "/apply-template", json={"messages": body["messages"]},
                                          timeout=60).json()["prompt"]
                    reply = None
                    if got.status_code == 200:
                        reply = got.json()["choices"][0]["message"]["content"]
                    with lock:
                        proxy.exchanges.append(Exchange(rendered, body.get("max_tokens", body.get(
                            "max_completion_tokens")), body.get("temperature"), reply,
                            {k: v for k, v in body.items() if k != "messages"}))
                self._reply(got.status_code, got.content, got.headers.get("content-type", "application/json"))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def take(self) -> list[Exchange]:
        """The exchanges so far (and a fresh list for the next harness)."""
        out, self.exchanges = self.exchanges, []
        return out
