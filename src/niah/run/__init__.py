"""The runner: send every sample of a dataset to a model, crash-safe, and write RUN_DIR.

A run is four stages, each in its own module, wired together by :func:`run_dataset`:

1. **plan** (:mod:`niah.run.plan`): check the settings, select the samples, compute each request's keys and
   decide per sample: resume its finished row, skip it, take its reply from the cache, or send it; a dry run
   prints the plan and totals its cost instead;
2. **expand media** (:mod:`niah.run.media`): a sample's rendered prompt made into what is sent, videos into
   sampled frames (cached in the run directory or ``--cache-dir``) and the over-limit policy applied;
3. **send** (:mod:`niah.run.send`): a bounded pool of workers, ``--rpm``, retries with backoff and jitter,
   every attempt in the request ledger before it goes;
4. **record** (:mod:`niah.run.record`): rows to the cache and ``responses.jsonl``, the needle delivery, the
   totals in run.json, and the exit status.

:mod:`niah.run.rundir` holds the files of RUN_DIR the stages share.

Contract (design.md, "Runner contract"):

- a request is (sample, rendered prompt parts, generation settings); its cache key hashes exactly those plus
  the model identity (:func:`niah.run.cache.request_fingerprint`);
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
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from niah.models.base import Capabilities, GenerationSettings, ModelBackend, ModelSpec
from niah.models.registry import load_backend
from niah.prompts.render import has_official_fit
from niah.prompts.types import PromptOptions
from niah.run.cache import CACHE_JSONL, CACHE_LOCK, CACHE_SQLITE, CacheChain, ResponseCache
from niah.run.media import MediaStage, frame_cache_for
from niah.run.plan import (
    Planner,
    RunSettings,
    as_spec,
    check_out_dir,
    check_settings,
    check_tasks,
    count_selected,
    iter_selected,
    request_key,
    run_config,
)
from niah.run.plan import dry_run as plan_dry_run
from niah.run.record import (
    CHECKPOINT_INTERVAL_S,
    MAX_RESPONSE_CHARS,
    NeedleCheck,
    Progress,
    Recorder,
    RunDiskError,
    RunSummary,
    clean_text,
    clean_usage,
    exit_status,
    start_run_json,
)
from niah.run.rundir import (
    CACHE_SUBDIR,
    LOCAL_WRITE_ERRORS,
    LOCK_FILE,
    REQUESTS_LOG,
    RESPONSES_JSONL,
    RUN_JSON,
    RequestLedger,
    ResponsesLog,
    check_resume,
    claim_run_dir,
    read_request_log,
)
from niah.run.send import CallOutcome, RetryPolicy, Sender, ServerUnreachable, call_with_retries
from niah.run.shards import Shard
from niah.sample import Dataset, DatasetStats
from niah.util import interrupts
from niah.util.errors import ConfigError


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
    ``shard`` runs only that part of the selected samples (``--shard I/N``; :mod:`niah.run.shards`), for
    ``niah merge`` to join.
    ``rpm`` caps request attempts per minute over the whole run (a token bucket, :mod:`niah.run.ratelimit`).

    Before anything is sent or written, the whole dataset is validated in one streaming pass
    (:meth:`Dataset.validate`): a bad dataset raises :class:`~niah.sample.DatasetInvalid` listing every
    problem, and no run directory is created. Rerunning into the same ``out_dir`` resumes: a finished row is
    reused only when it answers exactly the request this run would send (its ``request_key``); rows for
    changed requests are asked again and counted in ``summary.changed``.
    """
    ds = dataset if isinstance(dataset, Dataset) else Dataset(dataset, media_roots=media_roots)
    settings = RunSettings(options=prompt_options or PromptOptions(), generation=generation or GenerationSettings(),
                           retry=retry or RetryPolicy(), concurrency=concurrency, rpm=rpm,
                           tasks=set(tasks) if tasks else None, limit=limit, shard=shard, use_cache=use_cache,
                           cache_dir=cache_dir, overwrite=overwrite, progress=progress)
    check_settings(concurrency=concurrency, generation=settings.generation, retry=settings.retry,
                   model_options=model_options, limit=limit, rpm=rpm)
    backend: ModelBackend | None = None
    if isinstance(model, (str, ModelSpec)):
        spec = as_spec(model, base_urls=base_urls, api_key_env=api_key_env, model_options=model_options)
    else:
        backend, spec = model, model.spec
    out_path = Path(out_dir)
    check_out_dir(out_path, ds, cache_dir)
    summary = RunSummary(out_dir=out_path, model=spec.spec_string(), dataset=str(ds.root), dry_run=dry_run)
    started = time.monotonic()
    stats = _validate(ds, check_media)
    check_tasks(stats, settings.tasks, ds.root)
    if dry_run:
        media = MediaStage(ds.media_root, spec.capabilities or Capabilities(), settings.options,
                           frame_cache_for(None, cache_dir))
        try:  # Ctrl-C stops a video being sampled instead of waiting for it
            summary.estimate, summary.total, summary.needles_checked, summary.needles_not_shown = await plan_dry_run(
                ds, iter_selected(ds, settings.tasks, limit, shard), media, settings.generation,
                dry_run_stream or sys.stdout, full=dry_run_full, needle_check=NeedleCheck())
        finally:
            media.close()
        summary.wall_s = time.monotonic() - started
        return summary
    benchmark = ds.manifest.get("benchmark")
    if settings.options.over_limit == "official" and not (isinstance(benchmark, str) and has_official_fit(benchmark)):
        raise ConfigError(f"{benchmark or 'this dataset'} has no official over-limit rule; "
                          "use --over-limit skip, truncate or downscale")
    summary.total = count_selected(stats, settings.tasks, limit, shard)
    return await _run_stages(ds, spec, backend, out_path, settings, summary, started)


def _validate(ds: Dataset, check_media: bool) -> DatasetStats:
    """Every problem of the dataset, file:line: field, before any work; a signal stops it at once."""
    with interrupts.stage(f"validating {ds.root}", kept="nothing of this run was sent or written yet",
                          then=interrupts.REDO):
        return ds.validate(check_media=check_media)


@dataclass(slots=True)
class _Held:
    """What an invocation holds open, each None until it is opened; :func:`_release` closes what is."""

    backend: ModelBackend | None
    lock_fd: int | None = None
    media: MediaStage | None = None
    caches: CacheChain | None = None
    log: ResponsesLog | None = None
    ledger: RequestLedger | None = None
    bar: Progress | None = None
    recorder: Recorder | None = None
    interrupted: str | None = None  # the signal that stopped it (niah.util.interrupts cancels the run's task)


async def _run_stages(ds: Dataset, spec: ModelSpec, backend: ModelBackend | None, out_path: Path,
                      settings: RunSettings, summary: RunSummary, started: float) -> RunSummary:
    """Open the stages, let the plan feed the sender and both feed the record, then close what was opened."""
    held = _Held(backend)
    created_out = not out_path.exists()
    try:
        with interrupts.stage("running", then=interrupts.RESUME) as running:
            planner, sender, recorder = _open_stages(held, ds, spec, out_path, settings, summary)
            try:
                await _serve(planner, sender, recorder)
            finally:  # said when a signal stops the run
                running.kept = f"{summary.answered} answered so far are kept in {out_path}"
        summary.finished = True
    except (asyncio.CancelledError, KeyboardInterrupt):
        signalled = interrupts.received()
        held.interrupted = signalled.name if signalled is not None else "cancelled"
        raise
    except LOCAL_WRITE_ERRORS as exc:
        if held.recorder is None:  # before the run started (RUN_DIR not writable): as any other error
            raise
        held.recorder.disk_failed(exc)
    except ServerUnreachable as exc:  # a dead server: the failed rows are recorded, the rest stays to resume
        summary.stopped = str(exc)
    finally:
        summary.wall_s = time.monotonic() - started
        await _release(held, out_path, created_out)
    return exit_status(summary, disk_error=held.recorder.disk_error if held.recorder is not None else None,
                       disk_where=held.recorder.disk_where if held.recorder is not None else out_path)


async def _serve(planner: Planner, sender: Sender, recorder: Recorder) -> None:
    """Let the plan feed the sender and both feed the record; rewrite run.json meanwhile; compact at the end."""

    async def produce() -> None:
        async with contextlib.aclosing(planner.steps()) as steps:
            async for step in steps:
                recorder.planned(step)
                if step.job is not None:
                    await sender.submit(step.job)
        await sender.no_more_jobs()

    ticker = asyncio.create_task(_refresh_run_json(recorder))
    try:
        await sender.serve(produce, recorder.outcome, recorder.crash)
    finally:
        ticker.cancel()
        await asyncio.gather(ticker, return_exceptions=True)
    recorder.log.compact(planner.order)


async def _refresh_run_json(recorder: Recorder) -> None:
    """Rewrite run.json's counts every checkpoint interval while the run goes, whether or not a reply came in
    (requests in flight for minutes still show in ``requests``); a failed write is left to the next one, and to
    the recorder, whose own writes stop the run on a disk error."""
    while True:
        # half the interval: a write never lags it by a whole one (and never a busy loop at interval 0)
        await asyncio.sleep(max(recorder.interval / 2, 0.01))
        with contextlib.suppress(*LOCAL_WRITE_ERRORS):
            recorder.checkpoint()


def _open_stages(held: _Held, ds: Dataset, spec: ModelSpec, out_path: Path, settings: RunSettings,
                 summary: RunSummary) -> tuple[Planner, Sender, Recorder]:
    """Load the model, claim RUN_DIR, check a resume, open the logs and caches, and build the four stages."""
    if held.backend is None:
        held.backend = load_backend(spec)  # a model that cannot load fails here, before RUN_DIR exists
    backend = held.backend
    identity, caps = backend.identity(), backend.capabilities
    held.media = MediaStage(ds.media_root, caps, settings.options,
                            frame_cache_for(out_path / CACHE_SUBDIR, settings.cache_dir))
    config = run_config(ds, spec, identity, settings)
    held.lock_fd = claim_run_dir(out_path, settings.overwrite)
    previous = check_resume(out_path, config)
    if settings.use_cache:
        chain = [ResponseCache(out_path / CACHE_SUBDIR)]
        if settings.cache_dir is not None:
            chain.append(ResponseCache(settings.cache_dir, shared=True))
        held.caches = CacheChain(chain)
    held.log = ResponsesLog(out_path / RESPONSES_JSONL)
    held.ledger = RequestLedger(out_path / REQUESTS_LOG)
    run_json = start_run_json(ds=ds, spec=spec, identity=identity, caps=caps, settings=settings,
                              previous=previous, config=config)
    held.bar = Progress(summary.total, settings.progress, spec.spec_string())
    planner = Planner(ds, held.media, identity=identity, sample_material=getattr(backend, "sample_key_material", None),
                      generation=settings.generation, log=held.log, caches=held.caches,
                      selection=lambda: iter_selected(ds, settings.tasks, settings.limit, settings.shard))
    held.recorder = Recorder(out_dir=out_path, summary=summary, log=held.log, ledger=held.ledger, caches=held.caches,
                             run_json=run_json, previous=previous, order=planner.order, identity=identity,
                             bar=held.bar, checkpoint_interval_s=CHECKPOINT_INTERVAL_S)
    held.recorder.write_run_json_now()
    sender = Sender(backend, concurrency=settings.concurrency, retry=settings.retry, rpm=settings.rpm,
                    ledger=held.ledger, options=settings.options)
    return planner, sender, held.recorder


async def _release(held: _Held, out_path: Path, created_out: bool) -> None:
    """Close what the invocation opened (a write that failed may fail again on close: ignored), write the last
    run.json, release RUN_DIR, and leave no empty run directory when nothing was started."""
    if held.media is not None:
        held.media.close()  # threads still sampling a video stop at the next frame
    if held.bar is not None:
        held.bar.close()
    for closable in (held.log, held.ledger, held.caches):
        if closable is not None:
            with contextlib.suppress(*LOCAL_WRITE_ERRORS):
                closable.close()
    endpoints = None
    if held.backend is not None:
        stats_fn = getattr(held.backend, "endpoint_stats", None)
        if held.recorder is not None and callable(stats_fn):
            endpoints = stats_fn()
        await held.backend.aclose()
    if held.recorder is not None:
        held.recorder.write_run_json(endpoints, interrupted=held.interrupted)
    if held.lock_fd is not None:
        os.close(held.lock_fd)
    elif created_out and out_path.is_dir() and not any(out_path.iterdir()):
        out_path.rmdir()


def run_dataset_sync(*args: Any, **kwargs: Any) -> RunSummary:
    """:func:`run_dataset` for callers without an event loop; Ctrl-C or SIGTERM stops it as the command line's
    run (:func:`niah.util.interrupts.run_async`): run.json says so and :class:`niah.util.interrupts.Interrupted` is raised."""
    return interrupts.run_async(run_dataset(*args, **kwargs))


__all__ = [
    "CACHE_JSONL", "CACHE_LOCK", "CACHE_SQLITE", "CACHE_SUBDIR", "CHECKPOINT_INTERVAL_S", "LOCAL_WRITE_ERRORS",
    "LOCK_FILE", "MAX_RESPONSE_CHARS", "REQUESTS_LOG", "RESPONSES_JSONL", "RUN_JSON", "CallOutcome",
    "RetryPolicy", "RunDiskError", "RunSummary", "call_with_retries", "clean_text",
    "clean_usage", "iter_selected", "read_request_log", "request_key", "run_dataset", "run_dataset_sync",
]
