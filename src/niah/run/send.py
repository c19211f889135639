"""Stage 3 of a run, **send**: planned requests go to the model, a bounded number in flight.

Workers take jobs from a bounded queue (so planning stays a little ahead of sending, never the whole dataset
ahead); each request is retried on retryable failures with exponential backoff and full jitter, honouring the
server's ``Retry-After``; ``--rpm`` caps attempts per minute over the whole run; every attempt is written to the
request ledger before it is sent. A request that keeps failing ends as an outcome with its error, never as an
exception: nothing a server sends ends a run. Per-request deadlines are the backend's (its HTTP timeouts).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from niah.models.base import GenerationSettings, ModelBackend, ModelError, ModelReply, ModelRequest
from niah.prompts.types import PromptOptions, RenderedPrompt
from niah.run.rundir import LOCAL_WRITE_ERRORS, RequestLedger
from niah.sample import Sample


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with full jitter: attempt k waits uniform(0, min(max_delay, initial * 2**k)),
    at least the server's Retry-After when it sent one (capped at max_delay)."""

    max_attempts: int = 6
    initial_delay: float = 1.0
    max_delay: float = 60.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        ceiling = min(self.max_delay, self.initial_delay * (2 ** (attempt - 1)))
        wait = random.uniform(0.0, ceiling)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_delay))
        return wait


@dataclass(slots=True)
class CallOutcome:
    """The end of one request's retries: a reply, or the error that ended it."""

    reply: ModelReply | None
    error: str | None
    attempts: int
    latency_s: float


async def call_with_retries(backend: ModelBackend, request: ModelRequest, retry: RetryPolicy,
                            before_attempt: Callable[[int], Awaitable[None]] | None = None) -> CallOutcome:
    """Send ``request``, retrying retryable failures with backoff; never raises for a failed request.

    ``before_attempt(n)`` is awaited before attempt ``n`` is sent (the rate limit, the request ledger).
    ``latency_s`` is the duration of the last attempt. Unexpected exceptions from a backend are recorded as
    "internal error" instead of stopping the run; cancellation still propagates."""
    attempts = 0
    while True:
        attempts += 1
        if before_attempt is not None:
            await before_attempt(attempts)
        t0 = time.monotonic()
        try:
            reply = await backend.generate(request)
            return CallOutcome(reply, None, attempts, time.monotonic() - t0)
        except ModelError as exc:
            latency = time.monotonic() - t0
            if exc.retryable and attempts < retry.max_attempts:
                await asyncio.sleep(retry.delay(attempts, exc.retry_after))
                continue
            error = f"{exc} (gave up after {attempts} attempts)" if exc.retryable else str(exc)
            return CallOutcome(None, error, attempts, latency)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a backend bug must not stop the run: record it
            return CallOutcome(None, f"internal error: {type(exc).__name__}: {exc}", attempts,
                               time.monotonic() - t0)


@dataclass(slots=True)
class Job:
    """One request the plan decided to send: the prompt as expanded and fitted, its settings and keys."""

    sample: Sample
    prompt: RenderedPrompt
    generation: GenerationSettings
    key: str
    req_key: str
    needle_shown: bool | None = None


#: What the record stage is handed: a job's outcome, or an exception that escaped while handling it.
OnOutcome = Callable[[Job, CallOutcome], None]
OnCrash = Callable[[Job, Exception], None]


#: A run stops early once this many requests in a row, from its first on, failed to connect (nothing listens at
#: the server's address): asking the rest would take each request's retries for nothing.
UNREACHABLE_STOP_AFTER = 3
#: What a failed request's error says when the server could not be reached at all (httpx's connect errors).
_UNREACHABLE_MARKS = ("ConnectError", "Connection refused", "Name or service not known", "nodename nor servname")


def unreachable(error: str | None) -> bool:
    """Whether a failed request never reached its server (refused, no such host), as opposed to a server that
    answered badly or slowly."""
    return error is not None and error.startswith("connection error at ") and any(
        mark in error for mark in _UNREACHABLE_MARKS)


class ServerUnreachable(Exception):
    """Every request of the run so far failed to connect: the run stops, keeping what is done."""


class Sender:
    """The worker pool of one run: ``backend.max_in_flight(concurrency)`` workers on a queue twice that long.

    When the first :data:`UNREACHABLE_STOP_AFTER` requests that end all failed to connect (and none reached the
    server), the pool stops with :class:`ServerUnreachable` instead of spending every other request's retries
    against a server that is not there."""

    def __init__(self, backend: ModelBackend, *, concurrency: int, retry: RetryPolicy, rpm: float | None,
                 ledger: RequestLedger, options: PromptOptions) -> None:
        from niah.run.ratelimit import RateLimiter

        self.backend = backend
        self.retry = retry
        self.ledger = ledger
        self.options = options
        self.limiter = RateLimiter(rpm) if rpm is not None else None
        self.workers = max(1, backend.max_in_flight(concurrency))
        self._queue: asyncio.Queue[Job | None] = asyncio.Queue(maxsize=self.workers * 2)
        self.reached = False       # some request reached the server (a reply, or an error it sent)
        self.unreachable = 0       # requests that ended failing to connect
        self.last_unreachable: str | None = None

    async def submit(self, job: Job) -> None:
        await self._queue.put(job)

    async def no_more_jobs(self) -> None:
        for _ in range(self.workers):
            await self._queue.put(None)

    async def _send(self, job: Job) -> CallOutcome:
        request = ModelRequest(prompt=job.prompt, generation=job.generation, sample=job.sample,
                               prompt_options=self.options)

        async def before_attempt(attempt: int) -> None:
            if self.limiter is not None:
                await self.limiter.acquire()
            self.ledger.note(job.sample.id, attempt)  # before sending: a kill now still counts it

        return await call_with_retries(self.backend, request, self.retry, before_attempt)

    async def _work(self, on_outcome: OnOutcome, on_crash: OnCrash) -> None:
        while True:
            job = await self._queue.get()
            if job is None:
                return
            try:
                outcome = await self._send(job)
                on_outcome(job, outcome)
            except asyncio.CancelledError:
                raise
            except LOCAL_WRITE_ERRORS:
                raise  # the local disk failed (full, gone): stopping is right, what is written stays
            except Exception as exc:  # nothing about one reply may end the run: record it and go on
                on_crash(job, exc)
                continue
            self._note_reach(outcome)

    def _note_reach(self, outcome: CallOutcome) -> None:
        """Count a request that failed to connect; stop the pool when every one so far did."""
        if not unreachable(outcome.error):
            self.reached = True
            return
        self.unreachable += 1
        self.last_unreachable = outcome.error
        if not self.reached and self.unreachable >= UNREACHABLE_STOP_AFTER:
            raise ServerUnreachable(f"stopped early: the first {self.unreachable} requests all failed to connect "
                                    f"({(outcome.error or '')[:300]}); is the server running at that address? What "
                                    "is done is kept; rerun the same command once it is up to resume")

    async def serve(self, produce: Callable[[], Coroutine[Any, Any, None]], on_outcome: OnOutcome,
                    on_crash: OnCrash) -> None:
        """Run ``produce`` (which submits jobs, then calls :meth:`no_more_jobs`) beside the workers until all end.

        The producer runs as a task beside the workers: when a worker stops on a disk error the producer,
        perhaps waiting on a full queue, is cancelled at once instead of waiting for workers that are gone."""
        tasks = [asyncio.create_task(produce()),
                 *(asyncio.create_task(self._work(on_outcome, on_crash)) for _ in range(self.workers))]
        try:
            pending: set[asyncio.Task[None]] = set(tasks)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
                for task in done:
                    failure = task.exception()
                    if failure is not None:
                        raise failure
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
