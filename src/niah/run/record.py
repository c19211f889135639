"""Stage 4 of a run, **record**: what happened to each sample, kept where a kill cannot lose it.

Each reply goes to the response cache and then to ``responses.jsonl`` (flushed) before the next one is handled;
run.json is rewritten every :data:`CHECKPOINT_INTERVAL_S` while the run goes and once at its end, with the
totals over every invocation, the needle delivery (whether each sent prompt held every needle its family
locates) and how the run ended. :func:`exit_status` turns a run stopped by a full disk into the error the
command exits with (a signal's record is ``interrupted`` in run.json); what was done stays on disk either way.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah import __version__
from niah.models.base import Capabilities, ModelSpec
from niah.prompts.types import RenderedPrompt
from niah.run.cache import CacheChain
from niah.run.plan import RunSettings, Step
from niah.run.rundir import LOCAL_WRITE_ERRORS, RUN_JSON, RequestLedger, ResponsesLog, now
from niah.run.send import CallOutcome, Job
from niah.sample import Dataset, Sample
from niah.util.errors import NiahError
from niah.util.iox import write_json_atomic
from niah.util.outcome import failure_reason
from niah.util.redact import redact


class RunDiskError(NiahError):
    """Writing the run's own files failed (disk full, gone, read-only): the run stopped at once; what it had
    written stays and a rerun resumes once the disk is fixed."""


#: Seconds between the run.json rewrites made while a run goes (what a kill -9 leaves behind).
CHECKPOINT_INTERVAL_S = 2.0
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


def build_row(sample: Sample, *, response: str | None, error: str | None, usage: dict[str, int] | None,
              latency_s: float, key: str | None, model: str, policy: str | None, status: str, attempts: int,
              cached: bool, req_key: str | None, needle_shown: bool | None = None) -> dict[str, Any]:
    """One line of responses.jsonl, its texts cleaned (:func:`clean_text`) and capped."""
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
    #: failed samples of this invocation per short reason (:func:`niah.util.outcome.failure_reason`)
    errors: dict[str, int] = field(default_factory=dict)
    #: skipped samples (this invocation's selection, resumed ones included) per reason
    skip_reasons: dict[str, int] = field(default_factory=dict)
    #: a dry run's totals (:class:`niah.run.estimate.DryRunTotals`): samples, prompt tokens, images, frames, output
    estimate: dict[str, Any] = field(default_factory=dict)
    #: over the run's rows (every invocation; a dry run: its prompts): samples whose needles the family locates,
    #: and those of them sent without all their needles (frame or image sampling, truncation dropped one)
    needles_checked: int = 0
    needles_not_shown: int = 0
    #: why the run stopped before asking every sample (a server nobody could connect to), or None
    stopped: str | None = None

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

    def count_skip(self, error: Any) -> None:
        kind = failure_reason(error)
        self.skip_reasons[kind] = self.skip_reasons.get(kind, 0) + 1


class NeedleCheck:
    """``needle_shown`` of a sent prompt: whether it holds every needle its family locates (None: none located).

    Family-agnostic (:mod:`niah.run.delivery`), one locator per benchmark, and it never ends a run: a locator that
    fails on a sample gives None for that sample."""

    def __init__(self) -> None:
        from niah.run.delivery import delivered

        self._delivered = delivered
        self._locators: dict[str, Any] = {}

    def __call__(self, sample: Sample, prompt: RenderedPrompt | None) -> bool | None:
        try:
            locate = self._locators.get(sample.benchmark)
            if locate is None:
                from niah.run.delivery import needle_locator

                locate = self._locators[sample.benchmark] = needle_locator(sample.benchmark)
            spots = locate(sample)
            if not spots:
                return None
            if prompt is None:  # skipped: nothing was sent
                return False
            return all(self._delivered(sample, spots, prompt))
        except Exception:  # a delivery check is a report, never a reason to stop
            return None


class Progress:
    """A rich progress bar on stderr: done/total, requests/s, ETA, failures and cache hits."""

    def __init__(self, total: int | None, enabled: bool, label: str) -> None:
        self._progress = None
        self._task = None
        self._started = time.monotonic()
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
        if self._progress is None or self._task is None:
            return
        elapsed = max(time.monotonic() - self._started, 1e-6)
        done = summary.answered + summary.failed + summary.skipped
        self._progress.update(self._task, completed=done, rate=f"{done / elapsed:.2f}/s",
                              failed=summary.failed, reused=summary.cached + summary.resumed)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def _rows_of_run(log: ResponsesLog, summary: RunSummary, order: list[str]) -> list[dict[str, Any]]:
    """The rows the totals count: a finished run's selected samples (``order``), an interrupted one's all."""
    return [log.rows[i] for i in order if i in log.rows] if summary.finished else list(log.rows.values())


def run_totals(log: ResponsesLog, summary: RunSummary, previous: Any, order: list[str],
               ledger: RequestLedger | None = None) -> dict[str, Any]:
    """Counts over the whole run (every invocation), from the rows on disk: what ``niah score`` will see.
    Requests and retries come from the request ledger, which a killed invocation wrote too (a run directory
    from before the ledger: the earlier run.json counts plus this invocation's, whichever is larger)."""
    answered = failed = skipped = prompt_tokens = completion_tokens = 0
    for row in _rows_of_run(log, summary, order):
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


def needle_delivery(log: ResponsesLog, summary: RunSummary, order: list[str]) -> dict[str, int]:
    """Over the run's rows (as :func:`run_totals` picks them): samples whose needles were located
    (``needle_shown`` not null), and how many of them were sent without all their needles."""
    values = [row.get("needle_shown") for row in _rows_of_run(log, summary, order)]
    checked = sum(isinstance(v, bool) for v in values)
    not_shown = sum(v is False for v in values)
    return {"checked": checked, "shown": checked - not_shown, "not_shown": not_shown}


class Recorder:
    """Everything one invocation writes about its samples: rows, cache entries, counts and run.json.

    ``order`` is the selection's sample ids as planned so far (shared with the plan); ``run_json`` the run.json
    written at the start, updated in place."""

    def __init__(self, *, out_dir: Path, summary: RunSummary, log: ResponsesLog, ledger: RequestLedger,
                 caches: CacheChain | None, run_json: dict[str, Any], previous: dict[str, Any] | None,
                 order: list[str], identity: dict[str, Any], bar: Progress, checkpoint_interval_s: float) -> None:
        self.out_dir = out_dir
        self.summary = summary
        self.log = log
        self.ledger = ledger
        self.caches = caches
        self.run_json = run_json
        self.previous = previous
        self.order = order
        self.identity = identity
        self.bar = bar
        self.model = summary.model
        self.interval = checkpoint_interval_s
        self.needle_check = NeedleCheck()
        self._last_checkpoint = time.monotonic()
        self.disk_error: str | None = None
        self.disk_where = out_dir

    # ---- rows, as the plan and the sender hand them over

    def planned(self, step: Step) -> None:
        """A sample the plan decided on: counted, recorded, or (to be sent) given its needle check."""
        summary, sample = self.summary, step.sample
        if step.kind == "failed":
            self._write(self._failed_row(sample, f"data error: {step.error}", None))
            return
        if step.kind == "resumed":
            summary.resumed += 1
            if step.done_row is not None and step.done_row.get("status") == "skipped":
                summary.skipped += 1
                summary.count_skip(step.done_row.get("error"))
            else:
                summary.answered += 1
            self.bar.update(summary)
            return
        shown = self.needle_check(sample, step.prompt)
        summary.changed += step.changed
        if step.kind == "skipped":
            self._write(build_row(sample, response=None, error=f"skipped: {step.skip_reason}", usage=None,
                                  latency_s=0.0, key=None, model=self.model, policy=step.policy, status="skipped",
                                  attempts=0, cached=False, req_key=step.req_key, needle_shown=shown))
            return
        assert step.generation is not None
        generation = self.run_json["generation"]["by_task"]
        generation.setdefault(sample.task, step.generation.to_json())
        if step.kind == "cached":
            hit = step.hit or {}
            summary.cached += 1
            self._write(build_row(sample, response=hit["response"], error=None, usage=hit.get("usage"),
                                  latency_s=float(hit.get("latency_s") or 0.0), key=step.key, model=self.model,
                                  policy=step.policy, status="ok", attempts=0, cached=True, req_key=step.req_key,
                                  needle_shown=shown))
        elif step.job is not None:
            step.job.needle_shown = shown

    def outcome(self, job: Job, outcome: CallOutcome) -> None:
        """A sent request's end: its reply cached and recorded, or its error recorded."""
        self.summary.requests += outcome.attempts
        self.summary.retries += outcome.attempts - 1
        reply, latency = outcome.reply, outcome.latency_s
        if reply is None:
            self._write(self._sent_row(job, outcome, response=None, error=outcome.error, usage=None))
            return
        text = reply.text if isinstance(reply.text, str) else str(reply.text)
        row = self._sent_row(job, outcome, response=text, error=None, usage=reply.usage)
        if self.caches is not None:
            finish = reply.finish_reason
            entry = {"response": row["response"], "usage": row["usage"],
                     "finish_reason": clean_text(finish)[:64] if isinstance(finish, str) else None,
                     "latency_s": round(latency, 4), "model": self.identity, "created": now()}
            if "truncated_from" in row:
                entry["truncated_from"] = row["truncated_from"]
            self.caches.put(job.key, entry)
        self._write(row)

    def _sent_row(self, job: Job, outcome: CallOutcome, *, response: str | None, error: str | None,
                  usage: dict[str, int] | None) -> dict[str, Any]:
        return build_row(job.sample, response=response, error=error, usage=usage, latency_s=outcome.latency_s,
                         key=job.key, model=self.model, policy=job.prompt.policy,
                         status="failed" if response is None else "ok", attempts=outcome.attempts, cached=False,
                         req_key=job.req_key, needle_shown=job.needle_shown)

    def crash(self, job: Job, exc: Exception) -> None:
        """An exception that escaped while handling ``job``'s reply: the sample fails, the run goes on."""
        self._write(build_row(job.sample, response=None, error=f"internal error: {type(exc).__name__}: {exc}",
                              usage=None, latency_s=0.0, key=job.key, model=self.model, policy=job.prompt.policy,
                              status="failed", attempts=0, cached=False, req_key=job.req_key,
                              needle_shown=job.needle_shown))

    def _failed_row(self, sample: Sample, error: str, req_key: str | None) -> dict[str, Any]:
        return build_row(sample, response=None, error=error, usage=None, latency_s=0.0, key=None, model=self.model,
                         policy=None, status="failed", attempts=0, cached=False, req_key=req_key)

    def _write(self, row: dict[str, Any]) -> None:
        self.log.append(row)
        summary = self.summary
        if row["status"] == "ok":
            summary.answered += 1
        elif row["status"] == "skipped":
            summary.skipped += 1
            summary.count_skip(row["error"])
        else:
            summary.failed += 1
            kind = failure_reason(row["error"])
            summary.errors[kind] = summary.errors.get(kind, 0) + 1
        usage = row.get("usage") or {}
        summary.prompt_tokens += int(usage.get("prompt_tokens", 0) or 0)
        summary.completion_tokens += int(usage.get("completion_tokens", 0) or 0)
        self.bar.update(summary)
        self._checkpoint()

    def write_run_json_now(self) -> None:
        write_json_atomic(self.out_dir / RUN_JSON, self.run_json)

    def checkpoint(self) -> None:
        """run.json's counts now, unless they were written less than the interval ago (the run's ticker calls
        this every interval, so counts are refreshed while no reply comes in)."""
        self._checkpoint()

    def _checkpoint(self) -> None:
        # run.json is rewritten every few seconds while the run goes, so a kill -9 leaves counts that are at
        # most the interval old (the request ledger itself is exact at every moment)
        moment = time.monotonic()
        if moment - self._last_checkpoint < self.interval:
            return
        self._last_checkpoint = moment
        self.run_json["counts"] = run_totals(self.log, self.summary, self.previous, self.order, self.ledger)
        self.run_json["updated"] = now()
        write_json_atomic(self.out_dir / RUN_JSON, self.run_json)

    # ---- the end of the invocation

    def disk_failed(self, exc: BaseException) -> None:
        """The local disk failed: note where (the frame cache or a shared cache may be on another disk)."""
        self.disk_error = f"{type(exc).__name__}: {exc}"
        filename = getattr(exc, "filename", None)  # the cache names its file on OSError and sqlite3.Error
        failed_file = Path(filename) if isinstance(filename, str) else None
        if failed_file is not None and not failed_file.resolve().is_relative_to(self.out_dir.resolve()):
            self.disk_where = failed_file  # not the run's own folder: free space there

    def write_run_json(self, endpoints: Any, *, interrupted: str | None = None) -> None:
        """The last run.json of this invocation: totals over every invocation, delivery, how it ended
        (``interrupted``: the signal that stopped it, ``SIGINT`` or ``SIGTERM``)."""
        summary, run_json, previous = self.summary, self.run_json, self.previous or {}
        if endpoints is not None:
            run_json["endpoints"] = endpoints  # requests per replica: shows how the pool was used
        totals = run_totals(self.log, summary, previous.get("counts"), self.order, self.ledger)
        run_json["finished"] = now() if summary.finished else None
        run_json["complete"] = summary.finished and totals["missing"] == 0
        run_json["counts"] = totals
        delivery = needle_delivery(self.log, summary, self.order)
        summary.needles_checked, summary.needles_not_shown = delivery["checked"], delivery["not_shown"]
        if delivery["checked"]:  # a run of a family that locates its needles says whether they were sent
            run_json["needle_delivery"] = delivery
        else:
            run_json.pop("needle_delivery", None)
        run_json["last_invocation"] = {**summary.counts(), "wall_s": round(summary.wall_s, 3)}
        run_json["wall_s"] = round(summary.wall_s + float(previous.get("wall_s") or 0.0), 3)
        if interrupted is not None:
            run_json["interrupted"] = interrupted
        if self.disk_error is not None:
            run_json["interrupted"] = "disk error"
            run_json["status"] = "failed"
            run_json["error"] = redact(self.disk_error)[:500]
        else:
            run_json.pop("status", None)
            run_json.pop("error", None)
        if summary.errors:
            run_json["errors"] = summary.errors
        try:
            write_json_atomic(self.out_dir / RUN_JSON, run_json)
        except LOCAL_WRITE_ERRORS as exc:
            if self.disk_error is None:
                raise
            self.disk_error += f"; run.json could not be updated either ({exc})"



def start_run_json(*, ds: Dataset, spec: ModelSpec, identity: dict[str, Any], caps: Capabilities,
                   settings: RunSettings, previous: dict[str, Any] | None, config: dict[str, Any]) -> dict[str, Any]:
    """The run.json an invocation starts with (the record stage writes it, and updates it in place).

    The effective decoding per task is kept across resumes: a task whose samples were all answered before
    sends nothing now, and its settings stay what the earlier invocation recorded."""
    earlier = (previous or {}).get("generation") or {}
    earlier_by_task = earlier.get("by_task") if isinstance(earlier, dict) else None
    by_task: dict[str, dict[str, Any]] = {}
    if isinstance(earlier_by_task, dict):
        by_task.update({str(t): dict(g) for t, g in earlier_by_task.items() if isinstance(g, dict)})
    retry = settings.retry
    run_json = {
        "dataset": str(ds.root.resolve()),
        "model": spec.spec_string(),
        "model_id": identity,
        "model_spec": spec.to_json(),
        "capabilities": caps.to_json(),
        "benchmark": ds.manifest.get("benchmark"),
        "generation": {"overrides": settings.generation.to_json(), "by_task": by_task},
        "prompt_options": settings.options.to_json(),
        "concurrency": settings.concurrency,
        "retry": {"max_attempts": retry.max_attempts, "initial_delay": retry.initial_delay,
                  "max_delay": retry.max_delay},
        "cache_dir": str(settings.cache_dir) if settings.cache_dir is not None else None,
        "started": (previous or {}).get("started") or now(),
        "resumed": now() if previous else None,
        "finished": None,
        "complete": False,
        "counts": (previous or {}).get("counts") or {},
        "niah_version": __version__,
        "config": config,
    }
    return run_json


def exit_status(summary: RunSummary, *, disk_error: str | None, disk_where: Path) -> RunSummary:
    """The invocation's exit status: the summary, or the error a disk failure ends it with (a signal ends it
    with :class:`niah.util.interrupts.Interrupted`, raised on its way out)."""
    if disk_error is not None:
        raise RunDiskError(f"stopped on a disk error writing {disk_where} ({disk_error}); the {summary.answered} "
                           "answers so far are kept; free space and rerun the same command to resume")
    return summary
