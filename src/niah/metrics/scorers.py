"""Scoring a niah run directory: one scorer per benchmark, keyed by ``sample.benchmark``.

``score_run(RUN_DIR)`` reads ``run.json``, ``responses.jsonl`` and the dataset named in ``run.json``, scores every
sample that has a response with its benchmark's scorer, and writes (atomically):

* ``scored.jsonl``: one row per scored sample: ``{"id", "task", "benchmark", "context_length", "depth" (mean or
  null), "num_images", "answer", "response", "error", "score" (the official rule), "scores": {"official", ...}}``;
* ``scores.json``: the aggregation of the official scores. With one benchmark in the run it is that benchmark's
  structure (for MM-NIAH the official ``{task: [11], "overall": [11] (all 6 tasks), "context_ranges": [...]}``);
  with several it is ``{benchmark: structure}``;
* ``scores.<name>.json`` for every other named score (``scores.lenient.json`` for MM-NIAH), same layout.

A failed request (``response`` null) scores 0 under every rule, as the official scorers see a missing response.
A sample with no response row at all is not scored (it is counted as missing). Other benchmarks plug in with
:func:`register_scorer`, or by defining ``SCORER = BenchmarkScorer(...)`` in ``niah.benchmarks.<name>.score``.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.errors import ConfigError, DataError
from niah.iox import dumps_line, iter_jsonl, write_json_atomic
from niah.metrics.base import MetricInputError
from niah.sample import Dataset, ImagePart, Sample, parts_text

OFFICIAL = "official"


@dataclass(frozen=True)
class SampleScore:
    """Named scores of one sample (``official`` always present) and the few facts its aggregation needs."""

    scores: dict[str, float]
    info: dict[str, Any] = field(default_factory=dict)


#: Rows handed to an aggregation: (scored row as written to scored.jsonl, SampleScore.info).
ScoredRows = list[tuple[dict[str, Any], dict[str, Any]]]


@dataclass(frozen=True)
class BenchmarkScorer:
    """How one benchmark scores a sample and aggregates scored rows (by a named score)."""

    benchmark: str
    score: Callable[[Sample, str | None], SampleScore]
    aggregate: Callable[[ScoredRows, str], dict[str, Any]]
    score_names: tuple[str, ...] = (OFFICIAL,)


SCORERS: dict[str, BenchmarkScorer] = {}


def register_scorer(scorer: BenchmarkScorer) -> None:
    """Make ``scorer`` the scorer of samples whose ``benchmark`` is ``scorer.benchmark``."""
    SCORERS[scorer.benchmark] = scorer


def get_scorer(benchmark: str) -> BenchmarkScorer:
    """The scorer for ``benchmark``: registered here, or found as ``SCORER`` in the module
    ``niah.benchmarks.<benchmark with - as _>.score`` (so a benchmark package can plug in without editing this
    file)."""
    if benchmark in SCORERS:
        return SCORERS[benchmark]
    if re.fullmatch(r"[a-z][a-z0-9_-]*", benchmark):
        module_name = f"niah.benchmarks.{benchmark.replace('-', '_')}.score"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module_name.startswith(exc.name):
                raise
        else:
            scorer = getattr(module, "SCORER", None)
            if isinstance(scorer, BenchmarkScorer):
                register_scorer(scorer)
                return scorer
    raise ConfigError(f"no scorer for benchmark {benchmark!r}; scorers exist for: {', '.join(sorted(SCORERS))}")


# ------------------------------------------------------------------------------------------- MM-NIAH


def _mm_niah_score(sample: Sample, response: str | None) -> SampleScore:
    from niah.metrics.mm_niah import score_mm_niah_lenient, score_mm_niah_official

    answer = sample.answer
    if sample.task.startswith("counting") and isinstance(answer, str):
        try:  # the official scorer decodes counting answers that arrive as JSON strings
            answer = json.loads(answer)
        except json.JSONDecodeError as exc:
            raise MetricInputError(f"counting answer is not JSON: {exc.msg}", field="answer") from None
    return SampleScore({
        OFFICIAL: score_mm_niah_official(answer, response),
        "lenient": score_mm_niah_lenient(answer, response),
    })


def _mm_niah_aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    from niah.benchmarks.mm_niah.official import aggregate_rows

    by_task: dict[str, list[tuple[float, Any, float]]] = defaultdict(list)
    for row, _info in rows:
        if row["context_length"] is None or row["depth"] is None:
            raise DataError(f"sample {row['id']!r}: MM-NIAH aggregation needs meta.context_length and meta.depth",
                            field="meta")
        by_task[row["task"]].append((row["context_length"], row["depth"], row["scores"][score_name]))
    return aggregate_rows(by_task)


register_scorer(BenchmarkScorer("mm-niah", _mm_niah_score, _mm_niah_aggregate, (OFFICIAL, "lenient")))


# ------------------------------------------------------------------------------------------- MileBench


def _milebench_rule_name(sample: Sample) -> str:
    from niah.benchmarks.milebench.official import metric_rule_name

    rule = sample.meta.get("metric")
    if isinstance(rule, str):
        return rule
    question_type = sample.meta.get("question_type")
    if not isinstance(question_type, str):
        raise MetricInputError("MileBench samples need meta.metric or meta.question_type", field="meta.question_type")
    return metric_rule_name(sample.task, question_type)


def _milebench_score(sample: Sample, response: str | None) -> SampleScore:
    from niah.benchmarks.milebench.official import image_quantity_level
    from niah.metrics.registry import get_rule

    rule_name = _milebench_rule_name(sample)
    row: dict[str, Any] = {"answer": sample.answer, "response": response}
    if rule_name == "milebench/multi-choice":
        if sample.choices is None:
            raise MetricInputError("a multiple-choice sample needs choices", field="choices")
        row["choices"] = [parts_text(choice) for choice in sample.choices]
    level = sample.meta.get("image_quantity_level")
    if level is None:
        count = sum(1 for p in sample.context + sample.question if isinstance(p, ImagePart))
        level = image_quantity_level({"task_instance": {"images_path": [None] * count}})
    return SampleScore({OFFICIAL: get_rule(rule_name).score(row)}, {"metric": rule_name, "level": level})


def _milebench_aggregate(rows: ScoredRows, score_name: str) -> dict[str, Any]:
    from niah.benchmarks.milebench.official import aggregate_official

    by_task: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for row, info in rows:
        by_task[row["task"]].append((row["scores"][score_name], info["level"], info["metric"]))
    out: dict[str, Any] = {}
    for task, entries in by_task.items():
        metrics = {metric for _, _, metric in entries}
        if len(metrics) != 1:
            raise DataError(f"task {task!r} mixes metrics {sorted(metrics)}")
        out[task] = aggregate_official(metrics.pop(), [s for s, _, _ in entries], [lvl for _, lvl, _ in entries])
    return out


register_scorer(BenchmarkScorer("milebench", _milebench_score, _milebench_aggregate))


# ------------------------------------------------------------------------------------------- runs


@dataclass
class RunScoreSummary:
    """What :func:`score_run` did."""

    scored: int = 0
    failed: int = 0
    missing: int = 0
    disagreements: dict[str, int] = field(default_factory=dict)
    benchmarks: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    scores: dict[str, Any] = field(default_factory=dict)


def read_run_json(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "run.json"
    if not path.is_file():
        raise DataError("no run.json in the run directory", file=run_dir)
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    if not isinstance(run, dict):
        raise DataError("must be a JSON object", file=path)
    return run


def resolve_run_dataset(run_dir: Path, run: dict[str, Any], override: str | Path | None = None) -> Path:
    """The dataset of a run: ``override`` if given, else ``run.json``'s ``dataset`` (absolute, or relative to
    the run directory if it exists there, else relative to the working directory)."""
    if override is not None:
        return Path(override)
    value = run.get("dataset")
    if not isinstance(value, str) or not value:
        raise DataError("missing or not a string", file=run_dir / "run.json", field="dataset")
    path = Path(value)
    if path.is_absolute():
        return path
    beside = run_dir / path
    return beside if beside.exists() else path


def read_responses(path: Path) -> dict[str, dict[str, Any]]:
    """Response rows by sample id (a later row for the same id wins: resumed runs may re-record a sample)."""
    if not path.is_file():
        raise DataError("no responses.jsonl in the run directory", file=path.parent)
    rows: dict[str, dict[str, Any]] = {}
    for lineno, obj in iter_jsonl(path):
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            raise DataError("a response row must be an object with a string 'id'", file=path, line=lineno,
                            field="id")
        response = obj.get("response")
        if response is not None and not isinstance(response, str):
            raise DataError("must be a string or null", file=path, line=lineno, field="response")
        rows[obj["id"]] = obj
    return rows


class _AtomicLines:
    """Stream lines to a temporary sibling file, renamed over the target on success only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        self.tmp = Path(tmp)
        self.fh = os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    def write(self, line: str) -> None:
        self.fh.write(line)

    def commit(self) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        if not self.fh.closed:
            self.fh.close()
        self.tmp.unlink(missing_ok=True)


def score_run(run_dir: str | Path, *, dataset: str | Path | None = None) -> RunScoreSummary:
    """Score a run directory; see the module docstring for what is written."""
    run_dir = Path(run_dir)
    run = read_run_json(run_dir)
    ds = Dataset(resolve_run_dataset(run_dir, run, dataset))
    responses = read_responses(run_dir / "responses.jsonl")
    summary = RunScoreSummary()
    kept: dict[str, ScoredRows] = defaultdict(list)
    out = _AtomicLines(run_dir / "scored.jsonl")
    try:
        for sample in ds:
            response_row = responses.get(sample.id)
            if response_row is None:
                summary.missing += 1
                continue
            scorer = get_scorer(sample.benchmark)
            response = response_row.get("response")
            try:
                result = scorer.score(sample, response)
            except MetricInputError as exc:
                raise DataError(f"sample {sample.id!r}: {exc.message}", file=ds.samples_path,
                                field=exc.field) from None
            if OFFICIAL not in result.scores:
                raise ConfigError(f"scorer for {sample.benchmark!r} returned no official score")
            row = {
                "id": sample.id,
                "task": sample.task,
                "benchmark": sample.benchmark,
                "context_length": sample.meta.get("context_length"),
                "depth": sample.depth,
                "num_images": sample.meta.get("num_images",
                                              sum(1 for _ in sample.all_media())),
                "answer": sample.answer,
                "response": response,
                "error": response_row.get("error"),
                "score": result.scores[OFFICIAL],
                "scores": result.scores,
            }
            out.write(dumps_line(row))
            summary.scored += 1
            summary.failed += response is None
            other = [name for name in result.scores if name != OFFICIAL]
            for name in other:
                summary.disagreements.setdefault(name, 0)
                summary.disagreements[name] += result.scores[name] != result.scores[OFFICIAL]
            # keep only what aggregation needs, never whole samples
            kept[sample.benchmark].append(({k: row[k] for k in ("id", "task", "context_length", "depth", "scores")},
                                           result.info))
        if summary.scored == 0:
            raise DataError("no sample of the dataset has a response", file=run_dir / "responses.jsonl")
        summary.benchmarks = list(kept)
        names: list[str] = [OFFICIAL]
        for benchmark in kept:
            names += [n for n in get_scorer(benchmark).score_names if n not in names]
        aggregates: dict[str, dict[str, Any]] = {}
        for name in names:
            per_benchmark = {
                benchmark: get_scorer(benchmark).aggregate(rows, name)
                for benchmark, rows in kept.items()
                if name in get_scorer(benchmark).score_names
            }
            aggregates[name] = (
                next(iter(per_benchmark.values())) if len(kept) == 1 else per_benchmark
            )
        out.commit()
    except BaseException:
        out.abort()
        raise
    summary.written.append(run_dir / "scored.jsonl")
    for name, aggregate in aggregates.items():
        path = run_dir / ("scores.json" if name == OFFICIAL else f"scores.{name}.json")
        write_json_atomic(path, aggregate)
        summary.written.append(path)
    summary.scores = aggregates[OFFICIAL]
    return summary
