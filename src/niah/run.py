"""The runner: send every sample of a dataset to a model, crash-safe, and write RUN_DIR.

Contract (design.md, "Runner contract"):

- a request is (sample, rendered prompt parts, generation settings); its cache key hashes exactly those plus
  the model identity (:func:`niah.cache.request_fingerprint`);
- each reply is written to the response cache (JSONL flushed + SQLite WAL) and then appended to
  ``responses.jsonl`` and flushed before the next one is handled, so a run killed at any point (even
  ``kill -9``) resumes without repeating a finished request: finished samples are skipped, and a reply that
  reached the cache but not ``responses.jsonl`` is taken from the cache;
- concurrency is bounded (per endpoint for servers); 429/5xx/timeouts/malformed replies retry with
  exponential backoff and full jitter (honouring ``Retry-After``); a request that keeps failing is recorded
  with its error, never dropped, never crashing the run; failed samples are retried on the next run;
- a prompt that exceeds the model's declared capabilities is handled by the recorded over-limit policy.

At the end ``responses.jsonl`` is rewritten (atomically) with exactly one row per sample in dataset order;
while running it is append-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import hashlib
import json
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from niah import __version__
from niah.cache import (
    CACHE_JSONL,
    CACHE_LOCK,
    CACHE_SQLITE,
    CacheChain,
    MediaHasher,
    ResponseCache,
    canonical_json_ascii,
    request_fingerprint,
)
from niah.errors import ConfigError, DataError, NiahError
from niah.iox import (
    dumps_line,
    read_append_log,
    read_json_file,
    remove_stale_temp_files,
    write_atomic,
    write_json_atomic,
)
from niah.models.base import (
    Capabilities,
    GenerationSettings,
    ModelBackend,
    ModelError,
    ModelReply,
    ModelRequest,
    ModelSpec,
)
from niah.models.registry import load_backend, parse_model_spec
from niah.outcome import failure_reason
from niah.prompts import PromptOptions, RenderedPrompt, fit_to_capabilities, has_official_fit, render_prompt
from niah.redact import redact
from niah.sample import Dataset, DatasetStats, Sample
from niah.shards import Shard
from niah.video.frames import DecodeStop


class RunInterrupted(NiahError):
    """The run was stopped by SIGTERM; what it finished is on disk and a rerun resumes."""


class RunDiskError(NiahError):
    """Writing the run's own files failed (disk full, gone, read-only): the run stopped at once; what it had
    written stays and a rerun resumes once the disk is fixed."""


#: What a failed local write raises: the OS's error, or SQLite's for the cache index on a full disk.
LOCAL_WRITE_ERRORS: tuple[type[BaseException], ...] = (OSError, sqlite3.Error)
#: The OS errors that say a disk cannot take more, whichever file was written (the run's, or the frame cache's
#: while a prompt is built): the run stops on them instead of failing sample after sample.
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


RUN_JSON = "run.json"
RESPONSES_JSONL = "responses.jsonl"
#: One line per request attempt, appended (and flushed) before the attempt is sent: what run.json counts as
#: requests, so a run killed with ``kill -9`` never under-reports what reached the server (or was billed).
REQUESTS_LOG = "requests.log"
#: Seconds between the run.json rewrites made while a run goes (what a kill -9 leaves behind).
CHECKPOINT_INTERVAL_S = 2.0
CACHE_SUBDIR = "cache"
LOCK_FILE = ".niah-run.lock"


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
class RunSummary:
    """What a run did. ``answered`` + ``failed`` + ``skipped`` = ``total`` when the run finished."""

    out_dir: Path
    model: str
    dataset: str
    total: int = 0
    answered: int = 0
    failed: int = 0
    skipped: int = 0
    cached: int = 0
    resumed: int = 0
    #: samples whose earlier row answered a different request (dataset, model or settings changed): asked again
    changed: int = 0
    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    dry_run: bool = False
    finished: bool = False
    #: failed samples of this invocation per short reason (:func:`niah.outcome.failure_reason`)
    errors: dict[str, int] = field(default_factory=dict)
    #: skipped samples (this invocation's selection, resumed ones included) per reason
    skip_reasons: dict[str, int] = field(default_factory=dict)
    #: a dry run's totals (:func:`dry_run_totals`): samples, prompt tokens, images, frames, output tokens
    estimate: dict[str, Any] = field(default_factory=dict)
    #: over the run's rows (every invocation; a dry run: its prompts): samples whose needles the family locates,
    #: and those of them sent without all their needles (frame or image sampling, truncation dropped one)
    needles_checked: int = 0
    needles_not_shown: int = 0

    def counts(self) -> dict[str, Any]:
        return {
            "total": self.total, "answered": self.answered, "failed": self.failed, "skipped": self.skipped,
            "cached": self.cached, "resumed": self.resumed, "changed": self.changed, "requests": self.requests, "retries": self.retries,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
        }

    def to_json(self) -> dict[str, Any]:
        return {"out_dir": str(self.out_dir), "model": self.model, "dataset": self.dataset, **self.counts(),
                "wall_s": round(self.wall_s, 3), "dry_run": self.dry_run, "finished": self.finished,
                "errors": self.errors}


class _NeedleCheck:
    """``needle_shown`` of a sent prompt: whether it holds every needle its family locates (None: none located).

    Family-agnostic (:mod:`niah.delivery`), one locator per benchmark, and it never ends a run: a locator that
    fails on a sample gives None for that sample."""

    def __init__(self) -> None:
        from niah.delivery import delivered

        self._delivered = delivered
        self._locators: dict[str, Any] = {}

    def __call__(self, sample: Sample, prompt: RenderedPrompt | None) -> bool | None:
        try:
            locate = self._locators.get(sample.benchmark)
            if locate is None:
                from niah.delivery import needle_locator

                locate = self._locators[sample.benchmark] = needle_locator(sample.benchmark)
            spots = locate(sample)
            if not spots:
                return None
            if prompt is None:  # skipped: nothing was sent
                return False
            return all(self._delivered(sample, spots, prompt))
        except Exception:  # a delivery check is a report, never a reason to stop
            return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_SURROGATES = re.compile("[\ud800-\udfff]")
#: Longest response text stored; longer replies are cut and the row records ``truncated_from``.
MAX_RESPONSE_CHARS = 200_000


def clean_text(text: str) -> str:
    """A server's text made safe to store: lone surrogates (valid JSON escapes, invalid Unicode) become
    U+FFFD, NULs are dropped, and secrets are masked."""
    if _SURROGATES.search(text):
        text = _SURROGATES.sub("\ufffd", text)
    return redact(text.replace("\x00", ""))


def clean_usage(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    out = {clean_text(str(k))[:64]: v for k, v in usage.items()
           if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**53}
    return out or None


def request_key(prompt_key: str, sent_key: str | None, policy: str | None, skip_reason: str | None) -> str:
    """What a finished row answers: the request this run would send for its sample (the rendered prompt's
    fingerprint with model identity, media and settings, and what the capability fit did to it). A row is
    reused on resume only when its ``request_key`` equals the one computed now."""
    payload = {"prompt": prompt_key, "sent": sent_key, "policy": policy, "skip": skip_reason}
    return hashlib.sha256(canonical_json_ascii(payload).encode("ascii")).hexdigest()


# ---------------------------------------------------------------------------------------------------------
# responses.jsonl


class ResponsesLog:
    """``responses.jsonl`` during a run: append-only, flushed per row; a torn last line is cut on open."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, dict[str, Any]] = {}
        if path.exists():
            for _lineno, row in read_append_log(path, repair=True,
                                                hint="; move the file away to start the run again"):
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    previous = self.rows.get(row["id"])
                    if previous is None or previous.get("error") is not None or row.get("error") is None:
                        self.rows[row["id"]] = row
        self._fh: IO[str] = path.open("a", encoding="utf-8", newline="\n")

    def finished(self, sample_id: str, key: str) -> dict[str, Any] | None:
        """The row of a sample that needs no new request: answered (or skipped by policy) for exactly the
        request ``key`` this run would send. A row for another request (the dataset, the model, the settings
        or the capabilities changed) is not reused."""
        row = self.rows.get(sample_id)
        if row is None or row.get("request_key") != key:
            return None
        if row.get("error") is None or row.get("status") == "skipped":
            return row
        return None

    def stale(self, sample_id: str, key: str) -> bool:
        """Whether the sample has a finished row that answers a different request than ``key``."""
        row = self.rows.get(sample_id)
        return row is not None and row.get("request_key") != key and (
            row.get("error") is None or row.get("status") == "skipped")

    def append(self, row: dict[str, Any]) -> None:
        self._fh.write(dumps_line(row))
        self._fh.flush()
        self.rows[row["id"]] = row

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def compact(self, order: list[str]) -> None:
        """Rewrite with one row per sample, in dataset order (rows of samples not in ``order`` follow)."""
        self.close()
        seen = set(order)
        lines = [dumps_line(self.rows[i]) for i in order if i in self.rows]
        lines += [dumps_line(row) for i, row in self.rows.items() if i not in seen]
        write_atomic(self.path, "".join(lines))


def read_request_log(path: Path) -> tuple[int, int]:
    """(attempts, retries) a ``requests.log`` holds: one line per attempt (a torn last line counts: the attempt
    was made), a retry being any attempt after the first; (0, 0) when there is no log."""
    attempts = retries = 0
    if path.exists():
        with path.open("rb") as fh:
            for line in fh:
                attempts += 1
                retries += b'"attempt": 1}' not in line
    return attempts, retries


class RequestLedger:
    """``requests.log``: one line per request attempt, written and flushed before the attempt is sent.

    It outlives every invocation (only ``--overwrite`` removes it), so its line count is every request the run
    directory ever sent, a killed invocation's included; a torn last line still counts (the attempt was made)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.before, self.before_retries = read_request_log(path)
        self.sent = self.retries = 0
        self._fh: IO[str] = path.open("a", encoding="utf-8", newline="\n")

    def note(self, sample_id: str, attempt: int) -> None:
        self._fh.write(json.dumps({"id": sample_id, "at": _now(), "attempt": attempt}, ensure_ascii=True) + "\n")
        self._fh.flush()
        self.sent += 1
        self.retries += attempt > 1

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


# ---------------------------------------------------------------------------------------------------------
# progress


class _Progress:
    """A rich progress bar on stderr: done/total, requests/s, ETA, failures and cache hits."""

    def __init__(self, total: int | None, enabled: bool, label: str) -> None:
        self._progress = None
        self._task = None
        self._started = time.monotonic()
        self._done = 0
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
            TextColumn("[red]{task.fields[failed]} failed"), TextColumn("{task.fields[reused]} reused"),
            console=Console(stderr=True), transient=False, refresh_per_second=4,
        )
        self._progress.start()
        self._task = self._progress.add_task(label, total=total, rate="", failed=0, reused=0)

    def update(self, summary: RunSummary) -> None:
        self._done += 1
        if self._progress is None or self._task is None:
            return
        elapsed = max(time.monotonic() - self._started, 1e-6)
        done = summary.answered + summary.failed + summary.skipped
        self._progress.update(self._task, completed=done, rate=f"{done / elapsed:.2f}/s",
                              failed=summary.failed, reused=summary.cached + summary.resumed)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


# ---------------------------------------------------------------------------------------------------------
# the run


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
class _Job:
    sample: Sample
    prompt: RenderedPrompt
    generation: GenerationSettings
    key: str
    req_key: str
    needle_shown: bool | None = None


def _refuse_non_finite(values: dict[str, Any]) -> None:
    """NaN and infinities are refused before anything is sent: no server can use them and run.json, the
    cache and responses.jsonl are strict JSON."""
    for name, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{name} must be a finite number, not {value}")


def _open_dataset(dataset: Dataset | str | Path, media_roots: tuple[str | Path, ...] = ()) -> Dataset:
    return dataset if isinstance(dataset, Dataset) else Dataset(dataset, media_roots=media_roots)


def iter_selected(ds: Dataset, tasks: set[str] | None, limit: int | None,
                   shard: Shard | None = None) -> Iterator[Sample]:
    """The samples a run asks, in dataset order: those of ``tasks``, the first ``limit`` of them, and of those
    the ones ``shard`` holds (``niah merge`` walks the same selection to put shard rows back in order)."""
    n = 0
    for sample in ds:
        if tasks is not None and sample.task not in tasks:
            continue
        if limit is not None and n >= limit:
            return
        n += 1
        if shard is None or shard.holds(n - 1):  # the shard of the selection, after --tasks and --limit
            yield sample


def _count_selected(stats: DatasetStats, tasks: set[str] | None, limit: int | None,
                    shard: Shard | None = None) -> int:
    total = stats.samples if tasks is None else sum(n for t, n in stats.tasks.items() if t in tasks)
    total = min(total, limit) if limit is not None else total
    return shard.size(total) if shard is not None else total


def _as_spec(model: str | ModelSpec, *, base_urls: list[str] | tuple[str, ...] | None, api_key_env: str | None,
             model_options: dict[str, Any] | None) -> ModelSpec:
    if isinstance(model, ModelSpec):
        return model
    return parse_model_spec(model, base_urls=base_urls or (), api_key_env=api_key_env, options=model_options)


def _run_config(dataset: Dataset, spec: ModelSpec, identity: dict[str, Any] | None, generation: GenerationSettings,
                options: PromptOptions) -> dict[str, Any]:
    """The part of run.json that must match for a rerun to resume into the same RUN_DIR."""
    return {
        "dataset": str(dataset.root.resolve()),
        "model": spec.spec_string(),
        "model_id": identity,
        "generation_overrides": generation.to_json(),
        "prompt_options": options.to_json(),
    }


def _claim_run_dir(out_dir: Path, overwrite: bool) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(out_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ConfigError(f"another niah run is writing {out_dir}") from None
    # we hold the lock, so temporary files of atomic writes are left from a killed run: remove them
    remove_stale_temp_files(out_dir, (RUN_JSON, RESPONSES_JSONL))
    if overwrite:
        for name in (RUN_JSON, RESPONSES_JSONL, REQUESTS_LOG):
            (out_dir / name).unlink(missing_ok=True)
        shutil.rmtree(out_dir / CACHE_SUBDIR, ignore_errors=True)
    return fd


def _check_resume(out_dir: Path, config: dict[str, Any]) -> dict[str, Any] | None:
    path = out_dir / RUN_JSON
    if not path.exists():
        return None
    previous = read_json_file(path, what="run.json")
    if not isinstance(previous, dict):
        raise DataError("must be a JSON object; move it away to start the run again", file=path)
    old = previous.get("config") or {}
    if not isinstance(old, dict):
        old = {}
    differs = [k for k in config if old.get(k) != config[k]]
    if differs:
        raise ConfigError(
            f"{out_dir} holds a run with a different {', '.join(differs)}; "
            "use another --out, or --overwrite to start it again"
        )
    return previous


def _row(sample: Sample, *, response: str | None, error: str | None, usage: dict[str, int] | None,
         latency_s: float, key: str | None, model: str, policy: str | None, status: str, attempts: int,
         cached: bool, req_key: str | None, needle_shown: bool | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": sample.id, "task": sample.task, "response": None, "error": None, "usage": clean_usage(usage),
        "latency_s": round(latency_s, 4), "cache_key": key, "model": model, "prompt_policy": policy,
        "status": status, "attempts": attempts, "cached": cached, "request_key": req_key,
        "sample_key": sample.content_key(), "needle_shown": needle_shown,
    }
    if response is not None:
        text = clean_text(response)
        if len(text) > MAX_RESPONSE_CHARS:
            row["truncated_from"] = len(text)
            text = text[:MAX_RESPONSE_CHARS]
        row["response"] = text
    if error is not None:
        row["error"] = clean_text(error)[:2000]
    return row


def _print_dry_run(out: IO[str], sample: Sample, prompt: RenderedPrompt | None, generation: GenerationSettings,
                   policy: str | None, skip_reason: str | None, *, full: bool) -> None:
    """One line per sample (what would be sent, not the haystack); ``full`` adds the prompt preview."""
    meta = sample.meta
    fields = [sample.id, sample.task]
    if isinstance(meta.get("context_length"), int):
        fields.append(f"tokens={meta['context_length']}")
    if prompt is not None:
        fields += [f"images={prompt.num_images}", f"prompt_chars={len(prompt.text())}"]
    fields.append(f"generation={json.dumps(generation.to_json(), sort_keys=True)}")
    if policy:
        fields.append(f"policy={policy}")
    if skip_reason:
        fields.append(f"skip={skip_reason}")
    out.write(redact("\t".join(fields)) + "\n")
    if full and prompt is not None:
        out.write(redact(prompt.preview()) + "\n")


async def run_dataset(
    dataset: Dataset | str | Path,
    model: str | ModelSpec | ModelBackend,
    out_dir: str | Path,
    *,
    concurrency: int = 8,
    generation: GenerationSettings | None = None,
    prompt_options: PromptOptions | None = None,
    progress: bool = True,
    base_urls: list[str] | tuple[str, ...] | None = None,
    api_key_env: str | None = None,
    model_options: dict[str, Any] | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    retry: RetryPolicy | None = None,
    tasks: list[str] | None = None,
    limit: int | None = None,
    overwrite: bool = False,
    dry_run: bool = False,
    dry_run_stream: IO[str] | None = None,
    dry_run_full: bool = False,
    media_roots: tuple[str | Path, ...] = (),
    check_media: bool = True,
    shard: Shard | None = None,
    rpm: float | None = None,
) -> RunSummary:
    """Run ``model`` on every sample of ``dataset`` and write RUN_DIR (run.json, responses.jsonl, cache/).

    ``model`` is a spec string (``openai:NAME`` with ``base_urls``/``api_key_env``, ``hf:PATH``,
    ``vllm:PATH``, ``baseline:random|oracle|rag[:READER]``), a parsed :class:`ModelSpec`, or a backend object.
    ``generation`` overrides the benchmark's official per-task decoding (unset fields keep the official
    value). ``concurrency`` is the number of requests in flight per endpoint. ``dry_run`` prints one line per
    sample (``dry_run_full``: and its prompt) to ``dry_run_stream`` (stdout) and calls nothing.
    ``media_roots`` are folders outside the dataset the user allows media to be read from (``--media-root``).
    ``shard`` runs only that part of the selected samples (``--shard I/N``; :mod:`niah.shards`), for
    ``niah merge`` to join.
    ``rpm`` caps request attempts per minute over the whole run (a token bucket, :mod:`niah.ratelimit`).

    Before anything is sent or written, the whole dataset is validated in one streaming pass
    (:meth:`Dataset.validate`): a bad dataset raises :class:`~niah.sample.DatasetInvalid` listing every
    problem, and no run directory is created. Rerunning into the same ``out_dir`` resumes: a finished row is
    reused only when it answers exactly the request this run would send (its ``request_key``); rows for
    changed requests are asked again and counted in ``summary.changed``.
    """
    ds = _open_dataset(dataset, media_roots)
    options = prompt_options or PromptOptions()
    user_generation = generation or GenerationSettings()
    retry = retry or RetryPolicy()
    if concurrency < 1:
        raise ConfigError("concurrency must be at least 1")
    _refuse_non_finite({**user_generation.to_json(), "retry initial_delay": retry.initial_delay,
                        "retry max_delay": retry.max_delay, **(model_options or {})})
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1 sample, not {limit} (--dry-run shows what a run would send "
                          "without asking anything)")
    if rpm is not None and not rpm > 0:  # NaN too
        raise ConfigError(f"--rpm must be a positive number of requests per minute, not {rpm!r}")
    task_filter = set(tasks) if tasks else None
    backend: ModelBackend | None = None
    if isinstance(model, (str, ModelSpec)):
        spec = _as_spec(model, base_urls=base_urls, api_key_env=api_key_env, model_options=model_options)
    else:
        backend = model
        spec = backend.spec
    out_path = Path(out_dir)
    if out_path.resolve() == ds.root.resolve() or out_path.resolve().is_relative_to(ds.root.resolve()):
        # a dataset folder is replaced whole by the next build into it: a run kept there would go with it
        raise ConfigError(f"--out {out_dir} is the dataset {ds.root} or lies inside it; a rebuild of the dataset "
                          "would delete the run: choose a folder outside it")
    summary = RunSummary(out_dir=out_path, model=spec.spec_string(), dataset=str(ds.root), dry_run=dry_run)
    started_clock = time.monotonic()

    stats = ds.validate(check_media=check_media)  # every problem, file:line: field, before any work
    if task_filter is not None:
        unknown = sorted(task_filter - set(stats.tasks))
        if unknown:
            raise ConfigError(f"no samples of task(s) {', '.join(unknown)} in {ds.root} "
                              f"(it has: {', '.join(sorted(stats.tasks)) or 'none'})")

    if dry_run:
        stream = dry_run_stream or sys.stdout
        caps = spec.capabilities or Capabilities()
        dry_check = _NeedleCheck()
        from niah.estimate import DryRunTotals, judge_calls_bound

        dry_totals = DryRunTotals(ds.manifest)
        dry_decoding = DecodeStop()  # Ctrl-C stops a video being sampled instead of waiting for it
        try:
            for sample in iter_selected(ds, task_filter, limit, shard):
                prompt = render_prompt(sample, ds.media_root, options)
                if prompt.has_video:
                    fit = await asyncio.to_thread(fit_to_capabilities, prompt, sample, caps, options)
                else:
                    fit = fit_to_capabilities(prompt, sample, caps, options)
                gen = (fit.prompt or prompt).generation.merged(user_generation)
                _print_dry_run(stream, sample, fit.prompt, gen, fit.policy, fit.skip_reason, full=dry_run_full)
                dry_totals.add(sample, fit.prompt, gen)
                summary.total += 1
                shown = dry_check(sample, fit.prompt)
                summary.needles_checked += shown is not None
                summary.needles_not_shown += shown is False
        finally:
            dry_decoding.close()
        summary.estimate = dry_totals.to_json(
            judge_calls=judge_calls_bound(ds.manifest.get("benchmark"), dry_totals.sent))
        summary.wall_s = time.monotonic() - started_clock
        return summary

    benchmark = ds.manifest.get("benchmark")
    if options.over_limit == "official" and not (isinstance(benchmark, str) and has_official_fit(benchmark)):
        raise ConfigError(f"{benchmark or 'this dataset'} has no official over-limit rule; "
                          "use --over-limit skip, truncate or downscale")
    created_out = not out_path.exists()
    lock_fd: int | None = None
    caches: CacheChain | None = None
    log: ResponsesLog | None = None
    ledger: RequestLedger | None = None
    bar: _Progress | None = None
    run_json: dict[str, Any] = {}
    previous: dict[str, Any] | None = None
    terminated = False
    disk_error: str | None = None
    disk_where = out_path
    loop = asyncio.get_running_loop()
    main_task = asyncio.current_task()
    sigterm_installed = False
    order_ref: list[str] = []

    def on_sigterm() -> None:  # handled like Ctrl-C: stop, keep what is done, write run.json
        nonlocal terminated
        terminated = True
        decoding.stop()  # a sampling thread would otherwise decode on, and exit would wait for it
        if main_task is not None:
            main_task.cancel()

    decoding = DecodeStop()
    try:
        if backend is None:
            backend = load_backend(spec)  # a model that cannot load fails here, before RUN_DIR exists
        identity = backend.identity()
        # a backend whose reply depends on the sample beyond its prompt (the oracle) says so, for the cache key
        sample_material = getattr(backend, "sample_key_material", None)
        caps = backend.capabilities
        config = _run_config(ds, spec, identity, user_generation, options)
        if shard is not None:  # a rerun resumes only the same shard; niah merge compares the rest
            config["shard"] = {**shard.to_json(), "tasks": sorted(task_filter) if task_filter else None,
                               "limit": limit}
        lock_fd = _claim_run_dir(out_path, overwrite)
        previous = _check_resume(out_path, config)
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGTERM, on_sigterm)
            sigterm_installed = True
        if use_cache:
            chain = [ResponseCache(out_path / CACHE_SUBDIR)]
            if cache_dir is not None:
                chain.append(ResponseCache(cache_dir))
            caches = CacheChain(chain)
        log = ResponsesLog(out_path / RESPONSES_JSONL)
        ledger = RequestLedger(out_path / REQUESTS_LOG)
        from niah.ratelimit import RateLimiter

        limiter = RateLimiter(rpm) if rpm is not None else None
        # The effective settings per task, kept across resumes: a task whose samples were all answered
        # before sends nothing now, and its settings stay what the earlier invocation recorded.
        effective_generation: dict[str, dict[str, Any]] = {}
        earlier = ((previous or {}).get("generation") or {})
        earlier_by_task = earlier.get("by_task") if isinstance(earlier, dict) else None
        if isinstance(earlier_by_task, dict):
            effective_generation.update({str(t): dict(g) for t, g in earlier_by_task.items() if isinstance(g, dict)})
        run_json = {
            "dataset": str(ds.root.resolve()),
            "model": spec.spec_string(),
            "model_id": identity,
            "model_spec": spec.to_json(),
            "capabilities": caps.to_json(),
            "benchmark": ds.manifest.get("benchmark"),
            "generation": {"overrides": user_generation.to_json(), "by_task": effective_generation},
            "prompt_options": options.to_json(),
            "concurrency": concurrency,
            "retry": {"max_attempts": retry.max_attempts, "initial_delay": retry.initial_delay,
                      "max_delay": retry.max_delay},
            "cache_dir": str(cache_dir) if cache_dir is not None else None,
            "started": (previous or {}).get("started") or _now(),
            "resumed": _now() if previous else None,
            "finished": None,
            "complete": False,
            "counts": (previous or {}).get("counts") or {},
            "niah_version": __version__,
            "config": config,
        }
        write_json_atomic(out_path / RUN_JSON, run_json)

        total = _count_selected(stats, task_filter, limit, shard)
        summary.total = total
        workers = max(1, backend.max_in_flight(concurrency))
        bar = _Progress(total, progress, spec.spec_string())
        hasher = MediaHasher()
        queue: asyncio.Queue[_Job | None] = asyncio.Queue(maxsize=workers * 2)
        order = order_ref
        model_name = spec.spec_string()
        needle_check = _NeedleCheck()

        last_checkpoint = time.monotonic()

        def checkpoint() -> None:
            # run.json is rewritten every few seconds while the run goes, so a kill -9 leaves counts that are
            # at most CHECKPOINT_INTERVAL_S old (the request ledger itself is exact at every moment)
            nonlocal last_checkpoint
            now = time.monotonic()
            if now - last_checkpoint < CHECKPOINT_INTERVAL_S:
                return
            last_checkpoint = now
            assert log is not None
            run_json["counts"] = _run_totals(log, summary, previous, order, ledger)
            run_json["updated"] = _now()
            write_json_atomic(out_path / RUN_JSON, run_json)

        def record(row: dict[str, Any]) -> None:
            assert log is not None
            log.append(row)
            if row["status"] == "ok":
                summary.answered += 1
            elif row["status"] == "skipped":
                summary.skipped += 1
            else:
                summary.failed += 1
                kind = failure_reason(row["error"])
                summary.errors[kind] = summary.errors.get(kind, 0) + 1
            if row["status"] == "skipped":
                kind = failure_reason(row["error"])
                summary.skip_reasons[kind] = summary.skip_reasons.get(kind, 0) + 1
            usage = row.get("usage") or {}
            summary.prompt_tokens += int(usage.get("prompt_tokens", 0) or 0)
            summary.completion_tokens += int(usage.get("completion_tokens", 0) or 0)
            assert bar is not None
            bar.update(summary)
            checkpoint()

        def fail_row(sample: Sample, error: str, req_key: str | None) -> dict[str, Any]:
            return _row(sample, response=None, error=error, usage=None, latency_s=0.0, key=None,
                        model=model_name, policy=None, status="failed", attempts=0, cached=False, req_key=req_key)

        async def produce() -> None:
            assert log is not None
            for sample in iter_selected(ds, task_filter, limit, shard):
                order.append(sample.id)
                try:
                    prompt = render_prompt(sample, ds.media_root, options)
                    material = sample_material(sample) if sample_material is not None else None
                    base_gen = prompt.generation.merged(user_generation)
                    prompt_key = request_fingerprint(identity, prompt, base_gen, hasher, material)
                    if prompt.has_video:  # frames are decoded here: off the event loop, requests keep flowing
                        fit = await asyncio.to_thread(fit_to_capabilities, prompt, sample, caps, options)
                    else:
                        fit = fit_to_capabilities(prompt, sample, caps, options)
                    key: str | None = None
                    if fit.prompt is not None:
                        gen = fit.prompt.generation.merged(user_generation)
                        key = request_fingerprint(identity, fit.prompt, gen, hasher, material)
                    req_key = request_key(prompt_key, key, fit.policy, fit.skip_reason)
                except (OSError, DataError, ValueError) as exc:  # e.g. an unreadable image: this sample fails
                    if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:
                        raise  # the frame cache's disk is full: every later video would fail alike
                    record(fail_row(sample, f"data error: {exc}", None))
                    continue
                done_row = log.finished(sample.id, req_key)
                shown = needle_check(sample, fit.prompt) if done_row is None else None
                if done_row is not None:
                    summary.resumed += 1
                    if done_row.get("status") == "skipped":
                        summary.skipped += 1
                        kind = failure_reason(done_row.get("error"))
                        summary.skip_reasons[kind] = summary.skip_reasons.get(kind, 0) + 1
                    else:
                        summary.answered += 1
                    assert bar is not None
                    bar.update(summary)
                    continue
                if log.stale(sample.id, req_key):
                    summary.changed += 1
                if fit.prompt is None:
                    record(_row(sample, response=None, error=f"skipped: {fit.skip_reason}", usage=None,
                                latency_s=0.0, key=None, model=model_name, policy=fit.policy, status="skipped",
                                attempts=0, cached=False, req_key=req_key, needle_shown=shown))
                    continue
                assert key is not None
                effective_generation.setdefault(sample.task, gen.to_json())
                hit = caches.get(key) if caches is not None else None
                if hit is not None and isinstance(hit.get("response"), str):
                    summary.cached += 1
                    record(_row(sample, response=hit["response"], error=None, usage=hit.get("usage"),
                                latency_s=float(hit.get("latency_s") or 0.0), key=key, model=model_name,
                                policy=fit.policy, status="ok", attempts=0, cached=True, req_key=req_key,
                                needle_shown=shown))
                    continue
                await queue.put(_Job(sample, fit.prompt, gen, key, req_key, shown))
            for _ in range(workers):
                await queue.put(None)

        async def handle(job: _Job) -> None:
            assert backend is not None
            request = ModelRequest(prompt=job.prompt, generation=job.generation, sample=job.sample,
                                   prompt_options=options)

            async def before_attempt(attempt: int) -> None:
                if limiter is not None:
                    await limiter.acquire()
                assert ledger is not None
                ledger.note(job.sample.id, attempt)  # before sending: a kill now still counts it

            outcome = await call_with_retries(backend, request, retry, before_attempt)
            summary.requests += outcome.attempts
            summary.retries += outcome.attempts - 1
            reply, latency, attempts = outcome.reply, outcome.latency_s, outcome.attempts
            if reply is None:
                record(_row(job.sample, response=None, error=outcome.error, usage=None, latency_s=latency,
                            key=job.key, model=model_name, policy=job.prompt.policy, status="failed",
                            attempts=attempts, cached=False, req_key=job.req_key, needle_shown=job.needle_shown))
                return
            text = reply.text if isinstance(reply.text, str) else str(reply.text)
            row = _row(job.sample, response=text, error=None, usage=reply.usage, latency_s=latency,
                       key=job.key, model=model_name, policy=job.prompt.policy, status="ok",
                       attempts=attempts, cached=False, req_key=job.req_key, needle_shown=job.needle_shown)
            if caches is not None:
                finish = reply.finish_reason
                entry = {"response": row["response"], "usage": row["usage"],
                         "finish_reason": clean_text(finish)[:64] if isinstance(finish, str) else None,
                         "latency_s": round(latency, 4), "model": identity, "created": _now()}
                if "truncated_from" in row:
                    entry["truncated_from"] = row["truncated_from"]
                caches.put(job.key, entry)
            record(row)

        async def work() -> None:
            while True:
                job = await queue.get()
                if job is None:
                    return
                try:
                    await handle(job)
                except asyncio.CancelledError:
                    raise
                except LOCAL_WRITE_ERRORS:
                    raise  # the local disk failed (full, gone): stopping is right, what is written stays
                except Exception as exc:  # nothing about one reply may end the run: record it and go on
                    record(_row(job.sample, response=None, error=f"internal error: {type(exc).__name__}: {exc}",
                                usage=None, latency_s=0.0, key=job.key, model=model_name,
                                policy=job.prompt.policy, status="failed", attempts=0, cached=False,
                                req_key=job.req_key, needle_shown=job.needle_shown))

        # The producer runs as a task beside the workers: when a worker stops on a disk error the producer,
        # perhaps waiting on a full queue, is cancelled at once instead of waiting for workers that are gone.
        run_tasks = [asyncio.create_task(produce()), *(asyncio.create_task(work()) for _ in range(workers))]
        try:
            pending: set[asyncio.Task[None]] = set(run_tasks)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
                for task in done:
                    failure = task.exception()
                    if failure is not None:
                        raise failure
        except BaseException:
            for task in run_tasks:
                task.cancel()
            await asyncio.gather(*run_tasks, return_exceptions=True)
            raise
        log.compact(order)
        summary.finished = True
    except asyncio.CancelledError:
        if not terminated:
            raise
    except LOCAL_WRITE_ERRORS as exc:
        if not run_json:  # before the run started (a backend that cannot load, RUN_DIR not writable): as before
            raise
        disk_error = f"{type(exc).__name__}: {exc}"
        filename = getattr(exc, "filename", None)  # the cache names its file on OSError and sqlite3.Error
        failed_file = Path(filename) if isinstance(filename, str) else None
        if failed_file is not None and not failed_file.resolve().is_relative_to(out_path.resolve()):
            disk_where = failed_file  # not the run's own folder (the frame cache): free space there
    finally:
        decoding.close()  # SIGTERM, Ctrl-C or an error: threads still sampling a video stop at the next frame
        if sigterm_installed:
            loop.remove_signal_handler(signal.SIGTERM)
        summary.wall_s = time.monotonic() - started_clock
        if bar is not None:
            bar.close()
        if log is not None:
            with contextlib.suppress(*LOCAL_WRITE_ERRORS):  # a write that failed may fail again on close
                log.close()
        if ledger is not None:
            with contextlib.suppress(*LOCAL_WRITE_ERRORS):
                ledger.close()
        if caches is not None:
            with contextlib.suppress(*LOCAL_WRITE_ERRORS):
                caches.close()
        if backend is not None:
            stats_fn = getattr(backend, "endpoint_stats", None)
            if run_json and callable(stats_fn):
                run_json["endpoints"] = stats_fn()  # requests per replica: shows how the pool was used
            await backend.aclose()
        if run_json and log is not None:
            totals = _run_totals(log, summary, (previous or {}).get("counts"), order_ref, ledger)
            run_json["finished"] = _now() if summary.finished else None
            run_json["complete"] = summary.finished and totals["missing"] == 0
            run_json["counts"] = totals
            delivery = _needle_delivery(log, summary, order_ref)
            summary.needles_checked, summary.needles_not_shown = delivery["checked"], delivery["not_shown"]
            if delivery["checked"]:  # a run of a family that locates its needles says whether they were sent
                run_json["needle_delivery"] = delivery
            else:
                run_json.pop("needle_delivery", None)
            run_json["last_invocation"] = {**summary.counts(), "wall_s": round(summary.wall_s, 3)}
            run_json["wall_s"] = round(summary.wall_s + float((previous or {}).get("wall_s") or 0.0), 3)
            if terminated:
                run_json["interrupted"] = "SIGTERM"
            if disk_error is not None:
                run_json["interrupted"] = "disk error"
                run_json["status"] = "failed"
                run_json["error"] = redact(disk_error)[:500]
            else:
                run_json.pop("status", None)
                run_json.pop("error", None)
            if summary.errors:
                run_json["errors"] = summary.errors
            try:
                write_json_atomic(out_path / RUN_JSON, run_json)
            except LOCAL_WRITE_ERRORS as exc:
                if disk_error is None:
                    raise
                disk_error += f"; run.json could not be updated either ({exc})"
        if lock_fd is not None:
            os.close(lock_fd)
        elif created_out and out_path.is_dir() and not any(out_path.iterdir()):
            out_path.rmdir()  # nothing was started: leave no empty run directory behind
    if disk_error is not None:
        raise RunDiskError(f"stopped on a disk error writing {disk_where} ({disk_error}); the {summary.answered} "
                           "answers so far are kept; free space and rerun the same command to resume")
    if terminated:
        raise RunInterrupted(f"terminated (SIGTERM); {summary.answered} answered so far are kept in {out_path}; "
                             "rerun the same command to resume")
    return summary


def _run_totals(log: ResponsesLog, summary: RunSummary, previous: Any, order: list[str],
                ledger: RequestLedger | None = None) -> dict[str, Any]:
    """Counts over the whole run (every invocation), from the rows on disk: what ``niah score`` will see.
    A finished run counts the rows of its selected samples (``order``); an interrupted one every row.
    Requests and retries come from the request ledger, which a killed invocation wrote too (a run directory
    from before the ledger: the earlier run.json counts plus this invocation's, whichever is larger)."""
    answered = failed = skipped = prompt_tokens = completion_tokens = 0
    rows = [log.rows[i] for i in order if i in log.rows] if summary.finished else list(log.rows.values())
    for row in rows:
        status = row.get("status")
        if status == "skipped":
            skipped += 1
        elif row.get("error") is None and row.get("response") is not None:
            answered += 1
        else:
            failed += 1
        usage = row.get("usage") or {}
        if isinstance(usage, dict):
            prompt_tokens += int(usage.get("prompt_tokens", 0) or 0)
            completion_tokens += int(usage.get("completion_tokens", 0) or 0)
    prev = previous if isinstance(previous, dict) else {}
    total = summary.total
    return {
        "total": total, "answered": answered, "failed": failed, "skipped": skipped,
        "missing": max(total - answered - failed - skipped, 0),
        "requests": max(int(prev.get("requests", 0) or 0) + summary.requests,
                        ledger.before + ledger.sent if ledger is not None else 0),
        "retries": max(int(prev.get("retries", 0) or 0) + summary.retries,
                       ledger.before_retries + ledger.retries if ledger is not None else 0),
        "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
        "changed_last_invocation": summary.changed,
    }


def _needle_delivery(log: ResponsesLog, summary: RunSummary, order: list[str]) -> dict[str, int]:
    """Over the run's rows (as :func:`_run_totals` picks them): samples whose needles were located
    (``needle_shown`` not null), and how many of them were sent without all their needles."""
    rows = [log.rows[i] for i in order if i in log.rows] if summary.finished else list(log.rows.values())
    values = [row.get("needle_shown") for row in rows]
    checked = sum(isinstance(v, bool) for v in values)
    not_shown = sum(v is False for v in values)
    return {"checked": checked, "shown": checked - not_shown, "not_shown": not_shown}


def run_dataset_sync(*args: Any, **kwargs: Any) -> RunSummary:
    """:func:`run_dataset` for callers without an event loop."""
    return asyncio.run(run_dataset(*args, **kwargs))


__all__ = [
    "CACHE_JSONL", "CACHE_LOCK", "CACHE_SQLITE", "REQUESTS_LOG", "RESPONSES_JSONL", "RUN_JSON", "RetryPolicy", "RunSummary",
    "run_dataset", "run_dataset_sync",
]
