"""A requests-per-minute limit for hosted APIs (``niah run --rpm N``): a token bucket shared by every worker."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class RateLimiter:
    """At most ``rpm`` acquisitions per minute on average, bursts of at most ``burst``.

    The bucket starts full and refills at ``rpm / 60`` tokens a second; :meth:`acquire` takes one, waiting for
    it when the bucket is empty. In any window of ``t`` seconds at most ``burst + rpm * t / 60`` acquisitions
    pass. ``clock`` and ``sleep`` are injectable so that tests run on a fake clock."""

    def __init__(self, rpm: float, *, burst: int = 1, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if not rpm > 0:
            raise ValueError(f"rpm must be positive, not {rpm!r}")
        if burst < 1:
            raise ValueError("burst must be at least 1")
        self.rate = rpm / 60.0
        self.burst = burst
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._stamp = clock()
        self._lock = asyncio.Lock()
        #: acquisitions so far and the seconds spent waiting for them
        self.acquired = 0
        self.waited_s = 0.0

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    async def acquire(self) -> None:
        async with self._lock:  # one waiter at a time: the others queue behind it in order
            self._refill()
            if self._tokens < 1.0:
                wait = (1.0 - self._tokens) / self.rate
                await self._sleep(wait)
                self.waited_s += wait
                self._refill()
                self._tokens = max(self._tokens, 1.0)  # a clock that did not advance fully still owes this one
            self._tokens -= 1.0
            self.acquired += 1
