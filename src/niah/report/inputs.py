"""Read what a report is built from: run directories (scored.jsonl + run.json) or scores.json files.

A run directory gives everything: per-sample rows, hence heatmap cells (binned on the axes of the family's
:class:`~niah.benchmarks.protocol.ReportSpec`), per-bin scores (the family's ``per_bin`` aggregation), and the
dataset for the sample browser. A scores.json (the family's official aggregation structure, read by its
``read_scores``: under ``official`` in percent in the current layout, :data:`niah.benchmarks.protocol.SCORES_SCHEMA`,
or at top level on the family's own scale in older files) gives per-bin scores only, so it yields table rows but
no heatmaps.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from niah.benchmarks.protocol import Axis, ReportSpec
from niah.benchmarks.results import ReportInput, TaskCells
from niah.util.errors import DataError
from niah.util.iox import iter_jsonl, read_json_file

RUN_FILE = "run.json"
SCORED_FILE = "scored.jsonl"
SCORES_FILE = "scores.json"
OFFICIAL_SCORING = "official"
# scored.jsonl fields read into ScoredRow attributes; any other field lands in ScoredRow.extra
_ROW_FIELDS = frozenset({"id", "task", "benchmark", "context_length", "depth", "num_images", "answer", "response",
                         "error", "score", "scores"})


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
    extra: dict[str, Any] = field(default_factory=dict)   # fields a family adds to its scored rows

    def value(self, name: str) -> Any:
        """The row's field ``name`` (a report axis reads its field through this)."""
        return getattr(self, name) if name in _ROW_FIELDS else self.extra.get(name)


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
            answer=obj.get("answer"), response=response, error=error, score=float(cast(float, score)),
            scores=scores if isinstance(scores, dict) else {},
            extra={k: v for k, v in obj.items() if k not in _ROW_FIELDS},
        )


def _read_json(path: Path) -> Any:
    return read_json_file(path)


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
    except (OSError, ValueError):  # unreadable, not UTF-8, not JSON: the split is simply unknown
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


def report_spec(benchmark: str | None) -> ReportSpec | None:
    """The report spec of the family called ``benchmark`` (None: no such family, or it has no report)."""
    from niah.benchmarks.registry import find_family

    family = find_family(benchmark) if benchmark else None
    return family.report() if family is not None and family.report is not None else None


def _bin(axis: Axis | None, row: ScoredRow) -> int | None:
    if axis is None:
        return 0
    value = row.value(axis.field)
    return None if value is None else axis.bin_of(value)


def cell_table(entries: list[tuple[int, int, float]], num_rows: int, num_columns: int) -> tuple[
        list[list[float]], list[list[int]]]:
    """Mean score and count per (row bin, column bin) from (column, row, score) entries; an empty cell has
    accuracy 0.0 (it stays apart from filled cells through its count)."""
    totals = [[0.0] * num_columns for _ in range(num_rows)]
    counts = [[0] * num_columns for _ in range(num_rows)]
    for column, row, score in entries:
        totals[row][column] += float(score)
        counts[row][column] += 1
    acc = [[(totals[r][c] / counts[r][c]) if counts[r][c] else 0.0 for c in range(num_columns)]
           for r in range(num_rows)]
    return acc, counts


def _cell_missing(counts: Sequence[Sequence[int]]) -> bool:
    """Some column with samples has an empty cell: counts are ``[row][column]`` (the rows of one task's cell
    table, or one row per task of samples per column)."""
    return any(any(column) and not all(column) for column in zip(*counts, strict=True))


def per_bin_scores(spec: ReportSpec, acc: list[list[float]], counts: list[list[int]],
                   task: str | None = None) -> list[float]:
    """A task's per-bin figures from its cells, as the family's official rule gives them (with ``task``: its
    ``per_bin_of_task`` applied, e.g. a family's flip of a yes/no set below 50)."""
    scores = spec.per_bin_weighted(acc, counts) if spec.per_bin_weighted is not None else spec.per_bin(acc)
    return spec.per_bin_of_task(task, scores) if task is not None and spec.per_bin_of_task is not None else scores


def _values_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _value_fields(spec: ReportSpec) -> tuple[str, ...]:
    """The scored-row fields whose distinct values the spec's axes are made from: axes made across inputs
    (columns, rows, distributions) and a row axis made per input (``from_values``)."""
    axes = [spec.columns, *spec.distributions, *([spec.rows] if spec.rows is not None else [])]
    wanted = [a.field for a in axes if a.across_inputs]
    if spec.rows is not None and spec.rows.from_values is not None:
        wanted.append(spec.rows.field)
    return tuple(dict.fromkeys(wanted))


def distinct_values(scored: Path, fields: Sequence[str]) -> dict[str, list[Any]]:
    """The distinct non-null values of each of ``fields`` in ``scored``, in first-seen order (one pass)."""
    seen: dict[str, dict[str, Any]] = {f: {} for f in fields}
    if fields:
        for row in iter_scored_rows(scored):
            for name, values in seen.items():
                value = row.value(name)
                if value is not None:
                    values.setdefault(_values_key(value), value)
    return {name: list(values.values()) for name, values in seen.items()}


def union_values(per_input: Sequence[Mapping[str, Sequence[Any]]]) -> dict[str, list[Any]]:
    """The distinct values of each field across inputs, in first-seen order."""
    union: dict[str, dict[str, Any]] = {}
    for values in per_input:
        for name, items in values.items():
            bucket = union.setdefault(name, {})
            for value in items:
                bucket.setdefault(_values_key(value), value)
    return {name: list(bucket.values()) for name, bucket in union.items()}


#: Resolved specs by (family spec, values): inputs resolved on the same values share one spec object, so the
#: report groups them into one set of tables (it groups inputs by spec identity). Each entry keeps its family
#: spec, so an id reused by a later spec object never matches, and the oldest entries go past the bound (a
#: long-lived process reporting many runs).
_RESOLVED: OrderedDict[tuple[int, str], tuple[ReportSpec, ReportSpec]] = OrderedDict()
_RESOLVED_MAX = 256


def resolve_spec(spec: ReportSpec, values: Mapping[str, Sequence[Any]]) -> ReportSpec:
    """``spec`` with its axes made across inputs (:attr:`Axis.across_inputs`: columns, rows, distributions)
    resolved on ``values``, the distinct values of their fields across all the report's inputs; the spec itself
    when it has none. A row axis made per input (``from_values``) stays for :func:`load_run_dir`."""
    axes = [spec.columns, *spec.distributions, *([spec.rows] if spec.rows is not None else [])]
    if not any(a.across_inputs for a in axes):
        return spec
    fields = sorted({a.field for a in axes if a.across_inputs})
    key = (id(spec), _values_key({f: sorted(_values_key(v) for v in values.get(f, ())) for f in fields}))
    cached = _RESOLVED.get(key)
    if cached is not None and cached[0] is spec:
        _RESOLVED.move_to_end(key)
        return cached[1]

    def resolve(axis: Axis) -> Axis:
        return axis.resolved(values.get(axis.field, ())) if axis.across_inputs else axis

    resolved = dataclasses.replace(spec, columns=resolve(spec.columns),
                                   rows=resolve(spec.rows) if spec.rows is not None else None,
                                   distributions=tuple(resolve(a) for a in spec.distributions))
    _RESOLVED[key] = (spec, resolved)
    while len(_RESOLVED) > _RESOLVED_MAX:
        _RESOLVED.popitem(last=False)
    return resolved


@dataclass(frozen=True, slots=True)
class RunScan:
    """What a run directory's report needs before its rows are binned: run.json, its family's spec, and the
    distinct values of the fields the spec's axes are made from (one streaming pass, only for such axes)."""

    meta: dict[str, Any]
    benchmark: str | None
    spec: ReportSpec | None      # the family's spec as registered (not yet resolved)
    values: dict[str, list[Any]]


def _first_benchmark(scored: Path) -> str | None:
    for row in iter_scored_rows(scored):
        if row.benchmark:
            return row.benchmark
    return None


def scan_run(run_dir: Path) -> RunScan:
    meta: dict[str, Any] = {}
    if (run_dir / RUN_FILE).is_file():
        loaded = _read_json(run_dir / RUN_FILE)
        if not isinstance(loaded, dict):
            raise DataError("run.json must be a JSON object", file=run_dir / RUN_FILE)
        meta = loaded
    scored = run_dir / SCORED_FILE
    benchmark = meta.get("benchmark") if isinstance(meta.get("benchmark"), str) else _first_benchmark(scored)
    spec = report_spec(benchmark)
    values = distinct_values(scored, _value_fields(spec)) if spec is not None else {}
    return RunScan(meta=meta, benchmark=benchmark, spec=spec, values=values)


def load_run_dir(run_dir: Path, *, name: str | None = None, dataset: Path | None = None,
                 scan: RunScan | None = None, spec: ReportSpec | None = None) -> ReportInput:
    """Aggregate a run directory's scored.jsonl on its family's report axes (one streaming pass, after
    :func:`scan_run`'s for axes made from the data). ``spec``: the family's spec resolved across all the
    report's inputs (:func:`load_inputs`); by default it is resolved on this run's own values."""
    scan = scan if scan is not None else scan_run(run_dir)
    meta, benchmark = scan.meta, scan.benchmark
    scored = run_dir / SCORED_FILE
    if spec is None and scan.spec is not None:
        spec = resolve_spec(scan.spec, scan.values)
    rows_axis = spec.rows if spec is not None else None
    if rows_axis is not None and rows_axis.from_values is not None:
        rows_axis = rows_axis.from_values(scan.values.get(rows_axis.field, []))
    per_task: dict[str, list[tuple[int, int, float]]] = {}
    unbinned: dict[str, int] = {}
    num_rows = 0
    per_mode: dict[str, dict[str, list[tuple[int, int, float]]]] = {}
    disagreements: dict[str, dict[str, int]] = {}
    breakdowns: dict[str, dict[str, tuple[float, int]]] = {}
    binary = True
    for row in iter_scored_rows(scored):
        num_rows += 1
        modes = {m: float(v) for m, v in row.scores.items() if m != OFFICIAL_SCORING and _number(v)}
        for mode, value in modes.items():
            counts_by_task = disagreements.setdefault(mode, {})
            counts_by_task[row.task] = counts_by_task.get(row.task, 0) + (value != row.score)
        for breakdown in spec.breakdowns if spec is not None else ():
            raw = row.value(breakdown.field)
            label = None if raw is None else (breakdown.bucket(raw) if breakdown.bucket else str(raw))
            if label is not None:
                sums = breakdowns.setdefault(breakdown.title, {})
                total, n = sums.get(label, (0.0, 0))
                sums[label] = (total + row.score, n + 1)
        bucket = per_task.setdefault(row.task, [])
        if isinstance(row.value("variant_of"), str):
            # a noise variant (niah noise, official noise files): in its breakdown and the noise tables, not
            # pooled into the per-bin accuracy with the ordinary samples
            continue
        column = _bin(spec.columns, row) if spec is not None else None
        cell_row = _bin(rows_axis, row) if spec is not None else None
        if column is None or cell_row is None:
            unbinned[row.task] = unbinned.get(row.task, 0) + 1
            continue
        bucket.append((column, cell_row, row.score))
        binary = binary and row.score in (0.0, 1.0)
        for mode, value in modes.items():
            per_mode.setdefault(mode, {}).setdefault(row.task, []).append((column, cell_row, value))
    cells: dict[str, TaskCells] = {}
    task_scores: dict[str, list[float]] = {}
    covered_scores: dict[str, list[float]] = {}
    mode_scores: dict[str, dict[str, list[float]]] = {}
    shape: tuple[int, int] | None = None
    if spec is not None:
        shape = (len(rows_axis.labels) if rows_axis is not None else 1, len(spec.columns.labels))
        for task, entries in per_task.items():
            if not entries:
                continue
            acc, counts = cell_table(entries, *shape)
            if rows_axis is not None:
                cells[task] = TaskCells(acc=acc, counts=counts, unbinned=unbinned.get(task, 0))
            task_scores[task] = per_bin_scores(spec, acc, counts, task)
            if spec.per_bin_covered is not None and _cell_missing(counts):
                covered_scores[task] = spec.per_bin_covered(acc, counts)
        mode_scores = {mode: {task: per_bin_scores(spec, *cell_table(entries, *shape), task)
                              for task, entries in by_task.items()}
                       for mode, by_task in per_mode.items()}
    by_cells = spec is not None and spec.weigh_bins_by_cells
    bin_counts = {task: [sum(bool(n) if by_cells else n for n in column) for column in zip(*c.counts, strict=True)]
                  for task, c in cells.items()}
    overall: list[float] | None = None
    overall_counts: list[int] | None = None
    if spec is not None and spec.overall_counted is not None:
        counted = spec.overall_counted(task_scores, bin_counts)
        if counted is not None:
            overall, overall_counts = counted
    elif spec is not None:
        overall = spec.overall(task_scores)
    covered_overall: list[float] | None = None
    if spec is not None and spec.overall_covered is not None and overall is not None and (
            covered_scores or _cell_missing(list(bin_counts.values()))):
        covered_overall = spec.overall_covered({**task_scores, **covered_scores}, bin_counts)
    model = run_model_name(meta)
    dataset_path = dataset if dataset is not None else _dataset_path(meta.get("dataset"), run_dir)
    return ReportInput(
        name=name or (str(model) if model else run_dir.resolve().name),
        path=run_dir, kind="run", benchmark=benchmark,
        scoring=str(meta.get("scoring") or OFFICIAL_SCORING),
        split=meta.get("split") if isinstance(meta.get("split"), str) else _dataset_split(dataset_path),
        task_scores=task_scores, overall=overall, overall_counts=overall_counts, cells=cells,
        scored_path=scored, dataset_path=dataset_path, run_meta=meta, num_rows=num_rows,
        mode_scores=mode_scores, mode_disagreements=disagreements, spec=spec,
        run_status=_run_status(run_dir / SCORES_FILE), bin_counts=bin_counts, breakdowns=breakdowns,
        headline=headline_block(run_dir / SCORES_FILE, benchmark),
        rows_axis=rows_axis, binary_scores=binary,
        samples={task: entries for task, entries in per_task.items() if task in task_scores}, cell_shape=shape,
        covered_scores=covered_scores, covered_overall=covered_overall,
    )


def _run_status(scores_path: Path) -> dict[str, Any] | None:
    """``run_status`` of a scores.json written by ``niah score`` (None for older or official files)."""
    if not scores_path.is_file():
        return None
    doc = _read_json(scores_path)
    status = doc.get("run_status") if isinstance(doc, dict) else None
    return status if isinstance(status, dict) else None


def headline_block(scores_path: Path, benchmark: str | None) -> dict[str, Any] | None:
    """The block of ``benchmark`` in a scores.json of the current layout (the file itself for a one-benchmark
    run, its ``benchmarks`` entry otherwise); None for older or official files, or another benchmark's."""
    from niah.benchmarks.protocol import SCORES_SCHEMA

    if benchmark is None or not scores_path.is_file():
        return None
    doc = _read_json(scores_path)
    if not isinstance(doc, dict) or doc.get("schema") != SCORES_SCHEMA:
        return None
    several = doc.get("benchmarks")
    block = several.get(benchmark) if isinstance(several, dict) else doc
    if not isinstance(block, dict) or block.get("benchmark") != benchmark or block.get("schema") != SCORES_SCHEMA:
        return None
    return block


def scores_file_name(path: Path) -> str:
    """Model name for a scores file: its folder for ``scores*.json`` (run dirs, leaderboard folders), else
    the file stem."""
    return path.resolve().parent.name if path.stem.startswith("scores") else path.stem


def load_scores_json(path: Path, *, name: str | None = None) -> ReportInput:
    """Per-bin scores from a family's official-structure scores.json (tables only: no per-cell data). The file's
    ``benchmark`` field names the family; without one, the registry's default family reads it."""
    from niah.benchmarks.protocol import SCORES_SCHEMA
    from niah.benchmarks.registry import DEFAULT_FAMILY

    doc = _read_json(path)
    if isinstance(doc, dict) and doc.get("schema") == SCORES_SCHEMA and isinstance(doc.get("benchmarks"), dict):
        raise DataError(f"holds {len(doc['benchmarks'])} benchmarks ({', '.join(doc['benchmarks'])}); report the "
                        "run directory (its scored.jsonl) instead", file=path)
    named = doc.get("benchmark") if isinstance(doc, dict) and isinstance(doc.get("benchmark"), str) else None
    spec = report_spec(named) or report_spec(DEFAULT_FAMILY)
    if spec is None or spec.read_scores is None:
        raise DataError("no benchmark family reads this scores file", file=path)
    read_scores = spec.read_scores
    if spec.columns.across_inputs:
        # a scores file has per-bin scores but not the values its bins were made from
        spec = resolve_spec(spec, {})
        if not spec.columns.labels:
            raise DataError("this family's report columns are made from per-sample rows, which a scores file "
                            "does not have: report the run directory (its scored.jsonl) instead", file=path)
    read = read_scores(doc, path)
    return ReportInput(
        name=name or scores_file_name(path), path=path, kind="scores", benchmark=read.benchmark,
        scoring=read.scoring, split=read.split, task_scores=read.task_scores, overall=read.overall, spec=spec,
        run_status=_run_status(path), bin_counts=dict(read.bin_counts or {}), overall_counts=read.overall_counts,
        headline=headline_block(path, read.benchmark),
    )


def _scores_input(p: Path, name: str | None) -> ReportInput:
    """A run directory without scored.jsonl, read from its scores.json (named by its run.json's model)."""
    meta_name = name
    if meta_name is None and (p / RUN_FILE).is_file():
        meta = _read_json(p / RUN_FILE)
        if isinstance(meta, dict):
            meta_name = run_model_name(meta)
    return load_scores_json(p / SCORES_FILE, name=meta_name)


def _source_kind(p: Path) -> str:
    """``run`` (a directory with scored.jsonl), ``run-scores`` (a directory with only scores.json) or
    ``scores`` (a scores file); anything else is a DataError saying what to do."""
    if p.is_dir():
        if (p / SCORED_FILE).is_file():
            return "run"
        if (p / SCORES_FILE).is_file():
            return "run-scores"
        hint = (": it is a dataset; niah run it, then niah score the run" if (p / "manifest.json").is_file()
                else ": score it first (niah score RUN)" if (p / RUN_FILE).is_file() else "")
        raise DataError(f"neither {SCORED_FILE} nor {SCORES_FILE} in the run directory{hint}", file=p)
    if p.is_file():
        return "scores"
    raise DataError("no such run directory or scores file", file=p)


def load_input(path: str | Path, *, name: str | None = None, dataset: str | Path | None = None) -> ReportInput:
    """A run directory (scored.jsonl preferred, else its scores.json) or a scores.json file. Axes made from
    the data are made from this input's own rows; :func:`load_inputs` makes them across several inputs."""
    p = Path(path)
    kind = _source_kind(p)
    if kind == "run":
        loaded = load_run_dir(p, name=name, dataset=Path(dataset) if dataset is not None else None)
    else:
        loaded = _scores_input(p, name) if kind == "run-scores" else load_scores_json(p, name=name)
    return _said_to_be_a_baseline(loaded) if name is not None else loaded


def _axes_group(scan: RunScan) -> tuple[int, frozenset[str]]:
    """The runs whose axes are made together: one family's, whose rows carry values in the same axis fields."""
    return id(scan.spec), frozenset(name for name, values in scan.values.items() if values)


def load_inputs(paths: Sequence[str | Path], *, names: Sequence[str] = (),
                dataset: str | Path | None = None) -> list[ReportInput]:
    """Every input of one report. A family's axes made from the data (:attr:`Axis.across_inputs`) are made
    once from the values present across its run inputs of one kind, so that their columns line up in one table.
    Runs of a family whose rows carry different axis fields (an imported official data set with image counts
    only beside a generated set with lengths and depths too) are different kinds: each kind gets its own axes,
    hence its own tables, instead of the official runs' rows being unbinned on the passkey lengths."""
    if names and len(names) != len(paths):
        from niah.util.errors import ConfigError
        raise ConfigError(f"--name given {len(names)} times for {len(paths)} inputs (give one per input)")
    sources = [Path(p) for p in paths]
    kinds = [_source_kind(p) for p in sources]
    scans = {i: scan_run(p) for i, (p, kind) in enumerate(zip(sources, kinds, strict=True)) if kind == "run"}
    group_values: dict[tuple[int, frozenset[str]], list[dict[str, list[Any]]]] = {}
    for scan in scans.values():
        if scan.spec is not None:
            group_values.setdefault(_axes_group(scan), []).append(scan.values)
    shared = {key: resolve_spec(scan.spec, union_values(group_values[key]))
              for scan in scans.values() if scan.spec is not None for key in (_axes_group(scan),)}
    loaded = []
    for i, (p, kind) in enumerate(zip(sources, kinds, strict=True)):
        name = names[i] if names else None
        if kind == "run":
            scan = scans[i]
            loaded.append(load_run_dir(p, name=name, dataset=Path(dataset) if dataset is not None else None,
                                       scan=scan, spec=shared.get(_axes_group(scan))))
        else:
            loaded.append(_scores_input(p, name) if kind == "run-scores" else load_scores_json(p, name=name))
    return [_said_to_be_a_baseline(inp) for inp in loaded] if names else _distinct_names(loaded)


def _said_to_be_a_baseline(inp: ReportInput) -> ReportInput:
    """A run of one of niah's offline baselines given a name that does not say so (``--name RAG``) keeps its baseline
    beside that name (``RAG (baseline:rag)``), so that every table, chart and heatmap labels it a baseline."""
    model = run_model_name(inp.run_meta)
    if model is None or not model.startswith("baseline:") or "baseline" in inp.name:
        return inp
    return dataclasses.replace(inp, name=f"{inp.name} ({model})")


def _distinct_names(inputs: list[ReportInput]) -> list[ReportInput]:
    """Inputs named alike (two runs of one model) get their folder (then a number) added, so that every table
    row and heatmap names one input."""
    import dataclasses
    from collections import Counter

    def folder(inp: ReportInput) -> str:
        p = inp.path.resolve()
        return (p.parent if p.is_file() else p).name

    counts = Counter(inp.name for inp in inputs)
    renamed = [dataclasses.replace(inp, name=f"{inp.name} ({folder(inp)})") if counts[inp.name] > 1 else inp
               for inp in inputs]
    seen: Counter[str] = Counter()
    out = []
    totals = Counter(inp.name for inp in renamed)
    for inp in renamed:
        seen[inp.name] += 1
        out.append(dataclasses.replace(inp, name=f"{inp.name} #{seen[inp.name]}") if totals[inp.name] > 1 else inp)
    return out
