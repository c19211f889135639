"""Read what a report is built from: run directories (scored.jsonl + run.json) or scores.json files.

A run directory gives everything: per-sample rows, hence heatmap cells (via the official binning in
``niah.benchmarks.mm_niah.bins``), per-bin scores, and the dataset for the sample browser. A scores.json
(the official aggregation structure ``{task: [11 floats], "overall": [11], "context_ranges": [...]}``, also
accepted with the leaderboard's ``-val``/``-test`` key suffixes) gives per-bin scores only, so it yields
table rows but no heatmaps.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.benchmarks.mm_niah.bins import CONTEXT_LABELS, bin_scores, cell_table
from niah.errors import DataError
from niah.iox import iter_jsonl
from niah.report.tables import MM_NIAH_TASKS, OVERALL_KEY, overall_bin_scores

RUN_FILE = "run.json"
SCORED_FILE = "scored.jsonl"
SCORES_FILE = "scores.json"
OFFICIAL_SCORING = "official"
# Key suffixes of the official leaderboard score files (e.g. "retrieval-text-test"); longest first.
_SPLIT_SUFFIXES = ("-rag-val", "-rag-test", "-val", "-test")


@dataclass(slots=True)
class TaskCells:
    """Official heatmap cells of one task: accuracy and sample count per (depth cell, context bin)."""

    acc: list[list[float]]
    counts: list[list[int]]
    unbinned: int = 0        # rows left out of the cells: under 1000 tokens (official) or without a depth


@dataclass(slots=True)
class ReportInput:
    name: str
    path: Path
    kind: str                                # "run" or "scores"
    benchmark: str | None
    scoring: str
    split: str | None
    task_scores: dict[str, list[float]]      # task -> 11 per-bin scores in [0, 1]
    overall: list[float] | None              # benchmark overall per bin (all six tasks), or None
    cells: dict[str, TaskCells] = field(default_factory=dict)
    scored_path: Path | None = None
    dataset_path: Path | None = None
    run_meta: dict[str, Any] = field(default_factory=dict)
    num_rows: int = 0
    # improved scoring modes beside the official one (e.g. "lenient"): mode -> task -> 11 per-bin scores,
    # and mode -> task -> number of samples whose score differs from the official score
    mode_scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    mode_disagreements: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScoredRow:
    """The fields of one scored.jsonl row the report uses, validated."""

    lineno: int
    id: str
    task: str
    benchmark: str | None
    context_length: float | None
    depth: float | None
    num_images: int | None
    answer: Any
    response: str | None
    error: str | None
    score: float
    scores: dict[str, Any]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def iter_scored_rows(path: Path) -> Iterator[ScoredRow]:
    """Stream and validate scored.jsonl; a bad row raises DataError naming file, line and field."""
    for lineno, obj in iter_jsonl(path):
        def bad(message: str, name: str, _lineno: int = lineno) -> DataError:
            return DataError(message, file=path, line=_lineno, field=name)

        if not isinstance(obj, dict):
            raise DataError("a scored row must be a JSON object", file=path, line=lineno)
        sample_id = obj.get("id")
        if not isinstance(sample_id, (str, int)) or isinstance(sample_id, bool):
            raise bad("missing or not a string", "id")
        task = obj.get("task")
        if not isinstance(task, str) or not task:
            raise bad("missing or not a non-empty string", "task")
        score = obj.get("score")
        if not _number(score):
            raise bad("missing or not a finite number", "score")
        length = obj.get("context_length")
        if length is not None and not _number(length):
            raise bad("must be a number or null", "context_length")
        depth = obj.get("depth")
        if isinstance(depth, list):  # tolerate the un-averaged form; the official rule takes the mean
            if not depth or not all(_number(d) for d in depth):
                raise bad("must be a number, a non-empty list of numbers, or null", "depth")
            depth = sum(depth) / len(depth)
        elif depth is not None and not _number(depth):
            raise bad("must be a number or null", "depth")
        response = obj.get("response")
        if response is not None and not isinstance(response, str):
            response = json.dumps(response, ensure_ascii=False)
        error = obj.get("error")
        if error is not None and not isinstance(error, str):
            error = str(error)
        scores = obj.get("scores")
        num_images = obj.get("num_images")
        yield ScoredRow(
            lineno=lineno, id=str(sample_id), task=task,
            benchmark=obj.get("benchmark") if isinstance(obj.get("benchmark"), str) else None,
            context_length=None if length is None else float(length),
            depth=None if depth is None else float(depth),
            num_images=num_images if isinstance(num_images, int) and not isinstance(num_images, bool) else None,
            answer=obj.get("answer"), response=response, error=error, score=float(score),
            scores=scores if isinstance(scores, dict) else {},
        )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None


def _dataset_path(raw: Any, run_dir: Path) -> Path | None:
    """run.json's dataset path, resolved like ``niah score`` does: absolute as written, else relative to the run
    directory when it exists there, else relative to the working directory."""
    if not isinstance(raw, str) or not raw:
        return None
    candidate = Path(raw)
    if candidate.is_absolute():
        return candidate
    beside = run_dir / candidate
    return beside if beside.exists() else candidate


def _dataset_split(dataset: Path | None) -> str | None:
    if dataset is None or not (dataset / "manifest.json").is_file():
        return None
    try:
        manifest = json.loads((dataset / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    split = manifest.get("split") if isinstance(manifest, dict) else None
    return split if isinstance(split, str) else None


def run_model_name(meta: dict[str, Any]) -> str | None:
    """The name to show for a run: its model spec string (``openai:gpt-4o``, ``baseline:rag``); the
    structured ``model_id`` (a dict identifying the model for the cache) only when no spec is recorded."""
    for key in ("model", "model_id"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def load_run_dir(run_dir: Path, *, name: str | None = None, dataset: Path | None = None) -> ReportInput:
    """Aggregate a run directory's scored.jsonl with the official binning (one streaming pass)."""
    meta: dict[str, Any] = {}
    if (run_dir / RUN_FILE).is_file():
        loaded = _read_json(run_dir / RUN_FILE)
        if not isinstance(loaded, dict):
            raise DataError("run.json must be a JSON object", file=run_dir / RUN_FILE)
        meta = loaded
    scored = run_dir / SCORED_FILE
    per_task: dict[str, list[tuple[float, float, float]]] = {}
    unbinned: dict[str, int] = {}
    benchmark = meta.get("benchmark") if isinstance(meta.get("benchmark"), str) else None
    num_rows = 0
    per_mode: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
    disagreements: dict[str, dict[str, int]] = {}
    for row in iter_scored_rows(scored):
        num_rows += 1
        if benchmark is None and row.benchmark:
            benchmark = row.benchmark
        modes = {m: float(v) for m, v in row.scores.items() if m != OFFICIAL_SCORING and _number(v)}
        for mode, value in modes.items():
            counts_by_task = disagreements.setdefault(mode, {})
            counts_by_task[row.task] = counts_by_task.get(row.task, 0) + (value != row.score)
        bucket = per_task.setdefault(row.task, [])
        if row.context_length is None or row.depth is None or row.context_length < 1000:
            unbinned[row.task] = unbinned.get(row.task, 0) + 1
            continue
        bucket.append((row.context_length, row.depth, row.score))
        for mode, value in modes.items():
            per_mode.setdefault(mode, {}).setdefault(row.task, []).append((row.context_length, row.depth, value))
    cells: dict[str, TaskCells] = {}
    task_scores: dict[str, list[float]] = {}
    for task, rows in per_task.items():
        if not rows:
            continue
        acc, counts = cell_table(rows)
        cells[task] = TaskCells(acc=acc, counts=counts, unbinned=unbinned.get(task, 0))
        task_scores[task] = bin_scores(acc)
    model = run_model_name(meta)
    dataset_path = dataset if dataset is not None else _dataset_path(meta.get("dataset"), run_dir)
    return ReportInput(
        name=name or (str(model) if model else run_dir.resolve().name),
        path=run_dir, kind="run", benchmark=benchmark,
        scoring=str(meta.get("scoring") or OFFICIAL_SCORING),
        split=meta.get("split") if isinstance(meta.get("split"), str) else _dataset_split(dataset_path),
        task_scores=task_scores, overall=overall_bin_scores(task_scores), cells=cells,
        scored_path=scored, dataset_path=dataset_path, run_meta=meta, num_rows=num_rows,
        mode_scores={mode: {task: bin_scores(cell_table(rows)[0]) for task, rows in by_task.items()}
                     for mode, by_task in per_mode.items()},
        mode_disagreements=disagreements,
    )


def _split_task_key(key: str) -> tuple[str, str | None]:
    for suffix in _SPLIT_SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)], suffix[1:]
    return key, None


def _bin_list(value: Any, *, path: Path, key: str) -> list[float]:
    if not isinstance(value, list) or len(value) != len(CONTEXT_LABELS) or not all(_number(v) for v in value):
        raise DataError(f"expected a list of {len(CONTEXT_LABELS)} numbers (one per context range)",
                        file=path, field=key)
    return [float(v) for v in value]


def scores_file_name(path: Path) -> str:
    """Model name for a scores file: its folder for ``scores*.json`` (run dirs, leaderboard folders), else
    the file stem."""
    return path.resolve().parent.name if path.stem.startswith("scores") else path.stem


def load_scores_json(path: Path, *, name: str | None = None) -> ReportInput:
    """Per-bin scores from an official-structure scores.json (tables only: it has no per-cell data)."""
    doc = _read_json(path)
    if not isinstance(doc, dict):
        raise DataError("scores.json must be a JSON object", file=path)
    ranges = doc.get("context_ranges")
    if ranges is not None and [str(r).lower() for r in ranges] != list(CONTEXT_LABELS):
        raise DataError(f"context_ranges {ranges!r} differ from the official {list(CONTEXT_LABELS)!r}",
                        file=path, field="context_ranges")
    task_scores: dict[str, list[float]] = {}
    overall: list[float] | None = None
    splits: set[str] = set()
    for key, value in doc.items():
        if key == "context_ranges" or not isinstance(value, list):
            continue  # other metadata keys are allowed and ignored
        if key == OVERALL_KEY:
            overall = _bin_list(value, path=path, key=key)
            continue
        task, split = _split_task_key(key)
        if split:
            splits.add(split)
        if task in task_scores:
            raise DataError(f"task {task!r} appears twice (keys with different split suffixes?)",
                            file=path, field=key)
        task_scores[task] = _bin_list(value, path=path, key=key)
    if not task_scores and overall is None:
        raise DataError("no per-task score lists found", file=path)
    if overall is None:
        overall = overall_bin_scores(task_scores)
    benchmark = doc.get("benchmark") if isinstance(doc.get("benchmark"), str) else (
        "mm-niah" if set(task_scores) <= set(MM_NIAH_TASKS) else None)
    scoring = doc.get("scoring") if isinstance(doc.get("scoring"), str) else OFFICIAL_SCORING
    return ReportInput(
        name=name or scores_file_name(path), path=path, kind="scores", benchmark=benchmark, scoring=scoring,
        split=splits.pop() if len(splits) == 1 else None, task_scores=task_scores, overall=overall,
    )


def load_input(path: str | Path, *, name: str | None = None, dataset: str | Path | None = None) -> ReportInput:
    """A run directory (scored.jsonl preferred, else its scores.json) or a scores.json file."""
    p = Path(path)
    if p.is_dir():
        if (p / SCORED_FILE).is_file():
            return load_run_dir(p, name=name, dataset=Path(dataset) if dataset is not None else None)
        if (p / SCORES_FILE).is_file():
            meta_name = name
            if meta_name is None and (p / RUN_FILE).is_file():
                meta = _read_json(p / RUN_FILE)
                if isinstance(meta, dict):
                    meta_name = run_model_name(meta)
            return load_scores_json(p / SCORES_FILE, name=meta_name)
        raise DataError(f"neither {SCORED_FILE} nor {SCORES_FILE} in the run directory", file=p)
    if p.is_file():
        return load_scores_json(p, name=name)
    raise DataError("no such run directory or scores file", file=p)


def load_inputs(paths: Sequence[str | Path], *, names: Sequence[str] = (),
                dataset: str | Path | None = None) -> list[ReportInput]:
    if names and len(names) != len(paths):
        from niah.errors import ConfigError
        raise ConfigError(f"--name given {len(names)} times for {len(paths)} inputs (give one per input)")
    return [load_input(p, name=names[i] if names else None, dataset=dataset) for i, p in enumerate(paths)]
