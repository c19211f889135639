"""A real OpenAI-compatible HTTP server for tests (stdlib only), with an echo reply and fault injection.

It speaks HTTP/1.1 keep-alive on 127.0.0.1, answers ``POST /v1/chat/completions`` and ``GET /v1/models``,
and by default replies with a JSON *echo* of what it received: the prompt text, the number of images and the
SHA-256 of each decoded image in the order the parts arrived. Tests use the echo to check the image plumbing
(interleaved order, base64 data URLs) where llama.cpp without a vision projector cannot.

Fault injection is deterministic per prompt (a hash of the messages picks the fault), so a retried request
hits the same plan: ``FaultPlan(share={"429": 0.1, "500": 0.1, ...}, fail_attempts=1)`` makes the first
``fail_attempts`` attempts of that share of prompts fail; ``permanent`` makes a share fail forever. Every
request is logged (``server.log``) so tests can count requests per prompt at the server.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

MARKER = re.compile(r"\[sample:([^\]]+)\]")
FAULT_KINDS = ("429", "500", "503", "timeout", "garbage", "no_choices", "400", "surrogate", "drip", "echo401",
               "huge")


@dataclass
class FaultPlan:
    """Which prompts fail, how, and for how many attempts.

    ``share`` maps a fault kind to the fraction of prompts that get it; ``fail_attempts`` is how many
    attempts of such a prompt fail before it succeeds; prompts in the ``permanent`` share fail with a 500
    on every attempt. ``timeout_s`` is how long a "timeout" fault stalls before answering. ``by_order``
    places each prompt by the order in which distinct prompts first arrive (alternately at 1/8 and 5/8)
    instead of by its hash: a share of 0.5 then faults exactly every other prompt, whatever the prompts say (a
    hash can put all of a handful of prompts on one side)."""

    share: dict[str, float] = field(default_factory=dict)
    fail_attempts: int = 1
    permanent: float = 0.0
    timeout_s: float = 2.0
    drip_s: float = 0.5
    huge_bytes: int = 20 * 1024 * 1024
    by_order: bool = False

    def fault_for(self, prompt_hash: str, attempt: int, ordinal: int = 0) -> str | None:
        u = ((ordinal % 2) + 0.25) / 2 if self.by_order else int(prompt_hash[:8], 16) / 0xFFFFFFFF
        edge = 0.0
        for kind in FAULT_KINDS:
            edge += self.share.get(kind, 0.0)
            if u < edge:
                return kind if attempt <= self.fail_attempts else None
        if u < edge + self.permanent:
            return "500"
        return None


@dataclass
class LoggedRequest:
    index: int
    marker: str | None
    prompt_hash: str
    attempt: int
    fault: str | None
    authorized: bool
    body: dict[str, Any]
    path: str = ""  # the request target as sent, query string included


def _image_digest(url: str) -> str:
    if url.startswith("data:"):
        _, _, payload = url.partition(",")
        return hashlib.sha256(base64.b64decode(payload)).hexdigest()
    if url.startswith("file://"):
        from urllib.parse import unquote, urlparse

        with open(unquote(urlparse(url).path), "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    return "url:" + url


def echo_reply(body: dict[str, Any]) -> str:
    """What the server saw, as a JSON string: text (all text parts joined), images in order, settings."""
    texts: list[str] = []
    images: list[str] = []
    order: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
            order.append("text")
            continue
        for part in content or []:
            if part.get("type") == "text":
                texts.append(part["text"])
                order.append("text")
            elif part.get("type") == "image_url":
                images.append(_image_digest(part["image_url"]["url"]))
                order.append("image")
            elif part.get("type") == "video_url":
                images.append("video:" + _image_digest(part["video_url"]["url"]))
                order.append("video")
    return json.dumps({"text": "".join(texts), "images": images, "order": order,
                       "max_tokens": body.get("max_tokens"), "temperature": body.get("temperature"),
                       "model": body.get("model")})



class HeldAfter:
    """A responder that answers the first ``count`` requests with ``responder`` and holds every later one until
    :meth:`release` (or 300 s, a hang guard): a command killed once ``count`` replies are in cannot have
    finished first, however slowly a busy machine lets the test poll. Release it as soon as the kill is done
    (a ``with`` block releases on exit)."""

    def __init__(self, count: int, responder: Callable[[dict[str, Any]], str] = echo_reply) -> None:
        self.count = count
        self.responder = responder
        self.answered = 0
        self._lock = threading.Lock()
        self._released = threading.Event()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.answered += 1
            held = self.answered > self.count
        if held:
            self._released.wait(300)
        return self.responder(body)

    def release(self) -> None:
        self._released.set()

    def __enter__(self) -> HeldAfter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog (5) drops bursts of connects: 1 s SYN-retry stalls
    daemon_threads = True


class OpenAIServer:
    """Start with :meth:`start` (returns the ``/v1`` base URL), stop with :meth:`stop` or as a context manager.

    ``responder(body) -> str`` builds the reply text (default: :func:`echo_reply`); ``delay_s`` stalls every
    request (to keep requests in flight); ``api_key`` makes the server demand ``Authorization: Bearer KEY``;
    ``count_prompt_tokens(body) -> int`` is the ``usage.prompt_tokens`` it reports (default: a word count).
    """

    def __init__(self, *, responder: Callable[[dict[str, Any]], str] = echo_reply, faults: FaultPlan | None = None,
                 delay_s: float = 0.0, api_key: str | None = None, report_usage: bool = True,
                 count_prompt_tokens: Callable[[dict[str, Any]], int] | None = None) -> None:
        self.responder = responder
        self.faults = faults or FaultPlan()
        self.delay_s = delay_s
        self.api_key = api_key
        self.report_usage = report_usage
        self.count_prompt_tokens = count_prompt_tokens
        self.log: list[LoggedRequest] = []
        self._attempts: dict[str, int] = {}
        self._ordinals: dict[str, int] = {}  # distinct prompts in the order they first arrived
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    # -- bookkeeping --------------------------------------------------------------------------------------

    def requests_by_marker(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        with self._lock:
            for r in self.log:
                if r.marker is not None:
                    counts[r.marker] = counts.get(r.marker, 0) + 1
        return counts

    def _register(self, body: dict[str, Any], authorized: bool, path: str = "") -> LoggedRequest:
        canonical = json.dumps(body.get("messages"), sort_keys=True)
        prompt_hash = hashlib.sha256(canonical.encode()).hexdigest()
        m = MARKER.search(canonical)
        with self._lock:
            ordinal = self._ordinals.setdefault(prompt_hash, len(self._ordinals))
            attempt = self._attempts.get(prompt_hash, 0) + 1
            self._attempts[prompt_hash] = attempt
            fault = self.faults.fault_for(prompt_hash, attempt, ordinal) if authorized else None
            entry = LoggedRequest(len(self.log), m.group(1) if m else None, prompt_hash, attempt, fault,
                                  authorized, body, path)
            self.log.append(entry)
        return entry

    # -- HTTP ----------------------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms delayed-ACK stalls

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                return

            def _send(self, status: int, payload: bytes, content_type: str = "application/json",
                      headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:
                if urlsplit(self.path).path.rstrip("/").endswith("/models"):
                    self._send(200, json.dumps({"object": "list", "data": [{"id": "echo", "object": "model"}]})
                               .encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not urlsplit(self.path).path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": "not found"}')
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, b'{"error": {"message": "invalid JSON"}}')
                    return
                authorized = server.api_key is None or self.headers.get("Authorization") == f"Bearer {server.api_key}"
                entry = server._register(body, authorized, self.path)
                if not authorized:
                    self._send(401, b'{"error": {"message": "invalid api key"}}')
                    return
                if server.delay_s:
                    time.sleep(server.delay_s)
                fault = entry.fault
                if fault in ("429", "500", "503", "400"):
                    headers = {"Retry-After": "0"} if fault == "429" else None
                    self._send(int(fault), json.dumps({"error": {"message": f"injected {fault}"}}).encode(),
                               headers=headers)
                    return
                if fault == "timeout":
                    time.sleep(server.faults.timeout_s)
                if fault == "garbage":
                    self._send(200, b"<html>definitely not json", content_type="text/html")
                    return
                if fault == "no_choices":
                    self._send(200, b'{"object": "chat.completion", "choices": []}')
                    return
                if fault == "echo401":
                    authorization = self.headers.get("Authorization") or ""
                    credentials = None  # a gateway that decodes Basic auth and echoes user:password in clear
                    if authorization.startswith("Basic "):
                        credentials = base64.b64decode(authorization[6:]).decode("utf-8", "replace")
                    echoed = json.dumps({"error": {"message": "unauthorized",
                                                   "received_authorization": authorization or None,
                                                   "received_credentials": credentials,
                                                   "url": self.path}}, ensure_ascii=False)
                    self._send(401, echoed.encode())
                    return
                if fault == "surrogate":
                    raw = (b'{"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop", '
                           b'"message": {"role": "assistant", "content": "oak \\ud800 half"}}]}')
                    self._send(200, raw)
                    return
                if fault == "drip":
                    payload = json.dumps({"choices": [{"message": {"content": "slow " * 20}}]}).encode()
                    try:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        for i in range(len(payload)):
                            self.wfile.write(payload[i:i + 1])
                            self.wfile.flush()
                            time.sleep(server.faults.drip_s)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                if fault == "huge":
                    head = b'{"choices": [{"message": {"content": "'
                    tail = b'"}}]}'
                    size = server.faults.huge_bytes
                    try:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(head) + size + len(tail)))
                        self.end_headers()
                        self.wfile.write(head)
                        block = b"x" * 65536
                        left = size
                        while left > 0:
                            self.wfile.write(block[:left])
                            left -= len(block)
                        self.wfile.write(tail)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                text = server.responder(body)
                reply: dict[str, Any] = {
                    "id": f"chatcmpl-{entry.index}", "object": "chat.completion", "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                }
                if server.report_usage:
                    counter = server.count_prompt_tokens
                    prompt_tokens = (counter(body) if counter is not None
                                     else len(json.dumps(body.get("messages")).split()))
                    completion_tokens = len(text.split())
                    reply["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                      "total_tokens": prompt_tokens + completion_tokens}
                self._send(200, json.dumps(reply).encode())

        return Handler

    def start(self) -> str:
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="openai-test-server", daemon=True)
        self._thread.start()
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        return self.base_url

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
