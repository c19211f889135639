"""Stage 1 of a run, **plan**: which samples to ask, and for each what it needs.

The settings are checked before anything is read; the selection is the dataset's samples of ``--tasks``, the
first ``--limit`` of them, and of those ``--shard``'s part. For each selected sample the plan computes the
request it would send (its cache key and ``request_key``, the prompt's fingerprint with what the capability fit
did to it) and decides: reuse the finished row that answers exactly that request (resume), record a skip, take
the reply from the response cache, or send it. A dry run prints what would be sent and totals its cost instead.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from niah.models.base import GenerationSettings, ModelSpec
from niah.models.registry import parse_model_spec
from niah.prompts.types import PromptOptions, RenderedPrompt
from niah.run.cache import CacheChain, MediaHasher, canonical_json, canonical_json_ascii, request_fingerprint
from niah.run.media import MediaStage
from niah.run.rundir import DISK_ERRNOS, ResponsesLog
from niah.run.send import Job, RetryPolicy
from niah.run.shards import Shard
from niah.sample import Dataset, DatasetStats, Sample
from niah.util.errors import ConfigError, DataError
from niah.util.redact import redact


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How one invocation runs, as the user asked (``run_dataset``'s keywords, defaults filled in)."""

    options: PromptOptions
    generation: GenerationSettings  # overrides of the family's per-task decoding
    retry: RetryPolicy
    concurrency: int
    rpm: float | None
    tasks: set[str] | None
    limit: int | None
    shard: Shard | None
    use_cache: bool
    cache_dir: str | Path | None
    overwrite: bool
    progress: bool


def check_settings(*, concurrency: int, generation: GenerationSettings, retry: RetryPolicy,
                   model_options: dict[str, Any] | None, limit: int | None, rpm: float | None) -> None:
    """Refuse settings no run can use, before the dataset is read."""
    if concurrency < 1:
        raise ConfigError("concurrency must be at least 1")
    # NaN and infinities: no server can use them, and run.json, the cache and responses.jsonl are strict JSON
    values = {**generation.to_json(), "retry initial_delay": retry.initial_delay,
              "retry max_delay": retry.max_delay, **(model_options or {})}
    for name, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{name} must be a finite number, not {value}")
    for name, why in generation.problems():
        raise ConfigError(f"--{name.replace('_', '-')} {why}")
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1 sample, not {limit} (--dry-run shows what a run would send "
                          "without asking anything)")
    if rpm is not None and not rpm > 0:  # NaN too
        raise ConfigError(f"--rpm must be a positive number of requests per minute, not {rpm!r}")


def as_spec(model: str | ModelSpec, *, base_urls: list[str] | tuple[str, ...] | None, api_key_env: str | None,
            model_options: dict[str, Any] | None) -> ModelSpec:
    if isinstance(model, ModelSpec):
        return model
    return parse_model_spec(model, base_urls=base_urls or (), api_key_env=api_key_env, options=model_options)


def check_out_dir(out_dir: Path, ds: Dataset, cache_dir: str | Path | None = None) -> None:
    """Refuse, before any work, a RUN_DIR or ``--cache-dir`` niah may not write into: the dataset or a folder
    inside it, or a folder that holds something else (:func:`niah.util.iox.output_dir_problem`: ``--out /``)."""
    from niah.run.rundir import is_run_dir
    from niah.util.iox import output_dir_problem

    if out_dir.resolve() == ds.root.resolve() or out_dir.resolve().is_relative_to(ds.root.resolve()):
        # a dataset folder is replaced whole by the next build into it: a run kept there would go with it
        raise ConfigError(f"--out {out_dir} is the dataset {ds.root} or lies inside it; a rebuild of the dataset "
                          "would delete the run: choose a folder outside it")
    why = output_dir_problem(out_dir, kind="run", ours=is_run_dir)
    if why is not None:
        raise ConfigError(f"--out {out_dir} {why}: choose a new folder for the run, or an earlier run's folder")
    if cache_dir is not None:
        cache = Path(cache_dir).resolve()
        if cache == ds.root.resolve() or cache.is_relative_to(ds.root.resolve()):
            raise ConfigError(f"--cache-dir {cache_dir} is the dataset {ds.root} or lies inside it: niah would write "
                              "its cache into the dataset; choose a folder outside it")


def check_tasks(stats: DatasetStats, tasks: set[str] | None, root: Path) -> None:
    unknown = sorted((tasks or set()) - set(stats.tasks))
    if unknown:
        raise ConfigError(f"no samples of task(s) {', '.join(unknown)} in {root} "
                          f"(it has: {', '.join(sorted(stats.tasks)) or 'none'})")


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


def count_selected(stats: DatasetStats, tasks: set[str] | None, limit: int | None,
                   shard: Shard | None = None) -> int:
    total = stats.samples if tasks is None else sum(n for t, n in stats.tasks.items() if t in tasks)
    total = min(total, limit) if limit is not None else total
    return shard.size(total) if shard is not None else total


def run_config(dataset: Dataset, spec: ModelSpec, identity: dict[str, Any] | None,
               settings: RunSettings) -> dict[str, Any]:
    """The part of run.json that must match for a rerun to resume into the same RUN_DIR."""
    config: dict[str, Any] = {
        "dataset": str(dataset.root.resolve()),
        "model": spec.spec_string(),
        "model_id": identity,
        "generation_overrides": settings.generation.to_json(),
        "prompt_options": settings.options.to_json(),
    }
    shard, tasks = settings.shard, settings.tasks
    if shard is not None:  # a rerun resumes only the same shard; niah merge compares the rest
        config["shard"] = {**shard.to_json(), "tasks": sorted(tasks) if tasks else None, "limit": settings.limit}
    return config


def request_key(prompt_key: str, sent_key: str | None, policy: str | None, skip_reason: str | None) -> str:
    """What a finished row answers: the request this run would send for its sample (the rendered prompt's
    fingerprint with model identity, media and settings, and what the capability fit did to it). A row is
    reused on resume only when its ``request_key`` equals the one computed now."""
    payload = {"prompt": prompt_key, "sent": sent_key, "policy": policy, "skip": skip_reason}
    return hashlib.sha256(canonical_json_ascii(payload).encode("ascii")).hexdigest()


StepKind = Literal["failed", "resumed", "skipped", "cached", "send"]


@dataclass(slots=True)
class Step:
    """What the plan decided for one sample (``kind``), with what the record and send stages need for it."""

    kind: StepKind
    sample: Sample
    error: str | None = None  # failed: the data error that kept it from being planned
    prompt: RenderedPrompt | None = None  # what is sent (None: skipped)
    generation: GenerationSettings | None = None
    policy: str | None = None
    skip_reason: str | None = None
    key: str | None = None  # the response cache key of the request sent
    req_key: str | None = None
    done_row: dict[str, Any] | None = None  # resumed: the earlier row reused
    changed: bool = False  # an earlier row answered another request
    hit: dict[str, Any] | None = None  # cached: the cache entry
    job: Job | None = None  # send: the request


class Planner:
    """The per-sample plan of one invocation; ``order`` collects the selection's ids as they are planned."""

    def __init__(self, ds: Dataset, media: MediaStage, *, identity: dict[str, Any],
                 sample_material: Callable[[Sample], Any] | None, generation: GenerationSettings,
                 log: ResponsesLog, caches: CacheChain | None, selection: Callable[[], Iterator[Sample]]) -> None:
        self.ds = ds
        self.media = media
        self.identity = identity
        self._identity_json = canonical_json(identity)
        # a backend whose reply depends on the sample beyond its prompt (the oracle) says so, for the cache key
        self.sample_material = sample_material
        self.generation = generation
        self.log = log
        self.caches = caches
        self.selection = selection
        self.hasher = MediaHasher()
        self.order: list[str] = []

    def _same_model(self, recorded: Any) -> bool:
        try:
            return canonical_json(recorded) == self._identity_json
        except (TypeError, ValueError):
            return False

    async def steps(self) -> AsyncGenerator[Step, None]:
        for sample in self.selection():
            self.order.append(sample.id)
            try:
                step = await self._plan(sample)
            except (OSError, DataError, ValueError) as exc:  # e.g. an unreadable image: this sample fails
                if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:
                    raise  # the frame cache's disk is full: every later video would fail alike
                step = Step("failed", sample, error=str(exc))
            yield step

    async def _plan(self, sample: Sample) -> Step:
        rendered = self.media.render(sample)
        material = self.sample_material(sample) if self.sample_material is not None else None
        prompt_key = request_fingerprint(self.identity, rendered, rendered.generation.merged(self.generation),
                                         self.hasher, material)
        fit = await self.media.fit(rendered, sample)
        key: str | None = None
        gen: GenerationSettings | None = None
        if fit.prompt is not None:
            gen = fit.prompt.generation.merged(self.generation)
            key = request_fingerprint(self.identity, fit.prompt, gen, self.hasher, material)
        req_key = request_key(prompt_key, key, fit.policy, fit.skip_reason)
        step = Step("send", sample, prompt=fit.prompt, generation=gen, policy=fit.policy,
                    skip_reason=fit.skip_reason, key=key, req_key=req_key)
        step.done_row = self.log.finished(sample.id, req_key)
        if step.done_row is not None:
            step.kind = "resumed"
            return step
        step.changed = self.log.stale(sample.id, req_key)
        if fit.prompt is None:
            step.kind = "skipped"
            return step
        assert key is not None and gen is not None
        hit = self.caches.get(key) if self.caches is not None else None
        # a cached reply counts only when it is a reply of this model (the record says whose it is); the cache
        # checks that it was filed under this request's key
        if hit is not None and isinstance(hit.get("response"), str) and self._same_model(hit.get("model")):
            step.kind, step.hit = "cached", hit
            return step
        step.job = Job(sample, fit.prompt, gen, key, req_key)
        return step


def print_dry_run(out: IO[str], sample: Sample, prompt: RenderedPrompt | None, generation: GenerationSettings,
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


async def dry_run(ds: Dataset, samples: Iterator[Sample], media: MediaStage, generation: GenerationSettings,
                  stream: IO[str], *, full: bool, needle_check: Callable[[Sample, RenderedPrompt | None], bool | None],
                  ) -> tuple[dict[str, Any], int, int, int]:
    """Print what a run would send and total it (:class:`niah.run.estimate.DryRunTotals`, with a bound on judge
    calls): (totals, samples, samples whose needles are located, of them sent without all their needles)."""
    from niah.run.estimate import DryRunTotals, judge_calls_bound

    totals = DryRunTotals(ds.manifest)
    count = checked = not_shown = 0
    for sample in samples:
        prompt = media.render(sample)
        fit = await media.fit(prompt, sample)
        gen = (fit.prompt or prompt).generation.merged(generation)
        print_dry_run(stream, sample, fit.prompt, gen, fit.policy, fit.skip_reason, full=full)
        totals.add(sample, fit.prompt, gen)
        count += 1
        shown = needle_check(sample, fit.prompt)
        checked += shown is not None
        not_shown += shown is False
    estimate = totals.to_json(judge_calls=judge_calls_bound(ds.manifest.get("benchmark"), totals.sent))
    return estimate, count, checked, not_shown
