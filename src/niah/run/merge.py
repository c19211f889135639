"""``niah merge RUN... --out RUN``: join the run directories of ``niah run --shard I/N`` into one run.

The merged run is the run one ``niah run`` without ``--shard`` would have written: ``responses.jsonl`` holds
every shard's rows in dataset order and ``run.json`` the unsharded configuration, so ``niah score`` and
``niah report`` give the same figures (scored.jsonl byte for byte), and a later ``niah run`` of the same
dataset and model into the merged directory resumes it (rows are reused by their request key).

Refused, with a message naming the runs: a run that was not sharded or is still being written; runs whose
dataset, model, settings, shard count or selection (``--tasks``, ``--limit``) differ; a shard given twice, or
one sample answered in two runs; a row of a sample outside its shard. Missing shards are refused too, unless
``partial`` (``--partial``) asks for what is there (the merged run is then marked incomplete).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from niah.run import LOCK_FILE, REQUESTS_LOG, RESPONSES_JSONL, RUN_JSON, iter_selected
from niah.run.rundir import read_responses, read_run_json, resolve_run_dataset
from niah.run.shards import Shard, shard_of
from niah.sample import Dataset
from niah.util.errors import ConfigError, DataError
from niah.util.iox import dumps_line, staged_dir, write_atomic, write_json_atomic

#: run.json counts that add up over shards.
_SUMMED = ("total", "answered", "failed", "skipped", "missing", "requests", "retries", "prompt_tokens",
           "completion_tokens")


@dataclass
class MergeSummary:
    """What :func:`merge_runs` wrote."""

    out_dir: Path
    shards: int
    merged: list[str] = field(default_factory=list)  # "I/N" of each merged run, in shard order
    missing: list[str] = field(default_factory=list)  # "I/N" of the shards not given (with ``partial``)
    incomplete: list[str] = field(default_factory=list)  # run directories whose own run was not complete
    judged: list[str] = field(default_factory=list)  # run directories holding judge verdicts (not merged)
    rows: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    complete: bool = False


@dataclass
class _ShardRun:
    path: Path
    run: dict[str, Any]
    config: dict[str, Any]
    shard: Shard


def _not_running(run_dir: Path) -> None:
    """Refuse a run directory that a ``niah run`` is still writing (it holds the run lock)."""
    lock = run_dir / LOCK_FILE
    if not lock.exists():
        return
    fd = os.open(lock, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ConfigError(f"{run_dir}: a niah run is still writing it; merge when every shard has finished") from None
    finally:
        os.close(fd)


def _read_shard_run(run_dir: Path) -> _ShardRun:
    _not_running(run_dir)
    run = read_run_json(run_dir)
    config = run.get("config")
    if not isinstance(config, dict):
        raise DataError("missing or not an object", file=run_dir / RUN_JSON, field="config")
    raw = config.get("shard")
    if raw is None:
        raise ConfigError(f"{run_dir}: not a sharded run (its run.json has no config.shard); niah merge joins the "
                          "runs of `niah run --shard I/N`")
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), int) for k in ("index", "count")):
        raise DataError("must be an object with integer index and count", file=run_dir / RUN_JSON,
                        field="config.shard")
    try:
        shard = Shard(raw["index"], raw["count"])
    except ConfigError as exc:
        raise DataError(str(exc), file=run_dir / RUN_JSON, field="config.shard") from None
    return _ShardRun(run_dir, run, config, shard)


def _same_setup(runs: list[_ShardRun]) -> None:
    """Every run must be a shard of one run: one dataset, model, settings, shard count and selection."""
    first = runs[0]

    def setup(r: _ShardRun) -> dict[str, Any]:
        shard = {k: v for k, v in r.config["shard"].items() if k != "index"}
        return {**{k: v for k, v in r.config.items() if k != "shard"}, "shard": shard}

    reference = setup(first)
    for other in runs[1:]:
        theirs = setup(other)
        for key in sorted(set(reference) | set(theirs)):
            if reference.get(key) != theirs.get(key):
                what = {"shard": "shard count or selection (--tasks, --limit)", "model_id": "model identity",
                        "generation_overrides": "generation settings", "prompt_options": "prompt options"}
                raise ConfigError(
                    f"{first.path} and {other.path} are not shards of one run: they differ in "
                    f"{what.get(key, key)} ({_short(reference.get(key))} vs {_short(theirs.get(key))})")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass(frozen=True)
class _Tallies:
    """The shard runs' run.json tables summed: ``counts`` (of the whole selection), ``needle_delivery``,
    ``errors``."""

    counts: dict[str, int]
    needles: dict[str, int]
    errors: dict[str, int]


def merge_runs(run_dirs: Sequence[str | Path], out_dir: str | Path, *, partial: bool = False,
               overwrite: bool = False) -> MergeSummary:
    """Merge the shard runs ``run_dirs`` into ``out_dir`` (see the module docstring); returns what was done."""
    if not run_dirs:
        raise ConfigError("niah merge needs at least one run directory")
    out = Path(out_dir)
    runs = [_read_shard_run(Path(p)) for p in run_dirs]
    for r in runs:
        if r.path.resolve() == out.resolve():
            raise ConfigError(f"--out {out} is one of the runs being merged; choose a new directory")
    _same_setup(runs)
    by_index = _by_shard_index(runs)
    count = runs[0].shard.count
    missing = [Shard(i, count).label() for i in range(count) if i not in by_index]
    if missing and not partial:
        raise ConfigError(f"missing shard(s) {', '.join(missing)} of {count}: run them (niah run --shard I/{count}), "
                          "or pass --partial to merge the shards there are")
    _check_out_dir(out, overwrite)
    ordered = [by_index[i] for i in sorted(by_index)]
    lines, selected = _rows_in_dataset_order(ordered, count)
    summary = MergeSummary(out_dir=out, shards=count, merged=[r.shard.label() for r in ordered], missing=missing,
                           rows=len(lines))
    tallies = _sum_tallies(ordered, selected, summary)
    summary.counts = tallies.counts
    summary.complete = not missing and not summary.incomplete
    merged = _merged_run_json(ordered, tallies, summary)
    _write_merged_run(out, lines, runs, merged)
    return summary


def _by_shard_index(runs: list[_ShardRun]) -> dict[int, _ShardRun]:
    """The runs by their shard index; a shard given twice is refused."""
    by_index: dict[int, _ShardRun] = {}
    for r in runs:
        seen = by_index.get(r.shard.index)
        if seen is not None:
            raise ConfigError(f"shard {r.shard.label()} is given twice: {seen.path} and {r.path}")
        by_index[r.shard.index] = r
    return by_index


def _check_out_dir(out: Path, overwrite: bool) -> None:
    """Refuse an ``--out`` that is not a directory, or holds something other than a run ``overwrite`` replaces."""
    if out.exists() and (out.is_symlink() or not out.is_dir()):
        raise ConfigError(f"--out {out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(f"--out {out} exists and is not empty (use --overwrite to replace its run)")
        if not (out / RUN_JSON).is_file():
            raise ConfigError(f"--out {out} is not a run directory (no run.json); refusing to replace it")


def _rows_in_dataset_order(ordered: list[_ShardRun], count: int) -> tuple[list[str], int]:
    """The shards' response rows as the lines one unsharded run writes (the selection's order), and the number
    of samples in the selection. A sample answered twice, in a run that is not its shard's, or outside the
    selection is refused."""
    first = ordered[0]
    selection = first.config["shard"]
    tasks = set(selection["tasks"]) if selection.get("tasks") else None
    rows: dict[int, dict[str, dict[str, Any]]] = {}  # shard index -> rows by sample id
    owner: dict[str, Path] = {}
    for r in ordered:
        rows[r.shard.index] = read_responses(r.path / RESPONSES_JSONL)
        for sample_id in rows[r.shard.index]:
            if sample_id in owner:
                raise ConfigError(f"sample {sample_id!r} is answered in two runs: {owner[sample_id]} and {r.path}")
            owner[sample_id] = r.path

    # the rows in the order one unsharded run writes them: the selection's order; each in its own shard
    ds = Dataset(resolve_run_dataset(first.path, first.run))
    shard_paths = {r.shard.index: r.path for r in ordered}
    lines: list[str] = []
    selected = 0  # samples of the selection: what one unsharded run asks
    for position, sample in enumerate(iter_selected(ds, tasks, selection.get("limit"))):
        selected = position + 1
        index = shard_of(position, count)
        path = owner.pop(sample.id, None)
        if path is None:
            continue
        if path != shard_paths.get(index):
            raise ConfigError(f"{path}: holds a row for sample {sample.id!r}, which belongs to shard {index}/{count}, "
                              "not to this run's shard; was it run with another dataset or selection?")
        lines.append(dumps_line(rows[index][sample.id]))
    if owner:
        stray, path = next(iter(owner.items()))
        raise ConfigError(f"{path}: holds a row for sample {stray!r}, which is not in the selected samples of "
                          f"{ds.root} ({len(owner)} such row(s))")
    return lines, selected


def _sum_tallies(ordered: list[_ShardRun], selected: int, summary: MergeSummary) -> _Tallies:
    """Sum the runs' counts, needle deliveries and errors (``total`` and ``missing`` over the whole selection,
    missing shards included); note in ``summary`` the runs that were incomplete or hold judge verdicts."""
    counts = dict.fromkeys(_SUMMED, 0)
    needles: dict[str, int] = {}
    errors: dict[str, int] = {}
    for r in ordered:
        theirs = r.run.get("counts")
        theirs = theirs if isinstance(theirs, dict) else {}
        for key in _SUMMED:
            value = theirs.get(key)
            counts[key] += value if isinstance(value, int) and not isinstance(value, bool) else 0
        for name, table in (("needle_delivery", needles), ("errors", errors)):
            part = r.run.get(name)
            if isinstance(part, dict):
                for key, value in part.items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        table[key] = table.get(key, 0) + value
        if not r.run.get("complete"):
            summary.incomplete.append(str(r.path))
        if (r.path / "judgments.jsonl").exists():
            summary.judged.append(str(r.path))
    counts["total"] = selected  # the whole selection, missing shards included
    counts["missing"] = max(selected - counts["answered"] - counts["failed"] - counts["skipped"], 0)
    return _Tallies(counts, needles, errors)


def _merged_run_json(ordered: list[_ShardRun], tallies: _Tallies, summary: MergeSummary) -> dict[str, Any]:
    """The merged run.json: the first shard's, with the unsharded config, the span of the shards' times, the
    summed tables, and ``merged`` recording each shard run."""
    first = ordered[0]
    selection = first.config["shard"]
    started = [r.run["started"] for r in ordered if isinstance(r.run.get("started"), str)]
    finished = [r.run.get("finished") for r in ordered]
    merged = {key: value for key, value in first.run.items()
              if key not in ("endpoints", "last_invocation", "resumed", "interrupted", "errors", "needle_delivery")}
    merged.update({
        "config": {k: v for k, v in first.config.items() if k != "shard"},
        "started": min(started) if started else None,
        "finished": max(f for f in finished if isinstance(f, str)) if all(isinstance(f, str) for f in finished)
        else None,
        "complete": summary.complete,
        "counts": tallies.counts,
        "wall_s": round(max(float(r.run.get("wall_s") or 0.0) for r in ordered), 3),
        "merged": {"shards": summary.shards,
                   "selection": {"tasks": selection.get("tasks"), "limit": selection.get("limit")},
                   "missing_shards": summary.missing,
                   "runs": [{"run": str(r.path.resolve()), "shard": r.shard.label(),
                             "complete": bool(r.run.get("complete")), "counts": r.run.get("counts"),
                             "wall_s": r.run.get("wall_s")} for r in ordered]},
    })
    if tallies.needles:
        merged["needle_delivery"] = tallies.needles
    if tallies.errors:
        merged["errors"] = tallies.errors
    return merged


def _write_merged_run(out: Path, lines: list[str], runs: list[_ShardRun], merged: dict[str, Any]) -> None:
    """Write the merged run (responses, the shards' request ledgers joined in shard order, run.json) into a
    hidden sibling folder and swap it in for ``out`` whole, so that a merge stopped half-way (Ctrl-C, SIGTERM, a
    full disk) leaves an earlier run at ``out`` as it was, never responses without their run.json."""
    with staged_dir(out, suffix=".merging") as staging:  # --overwrite: nothing of the old run stays
        write_atomic(staging / RESPONSES_JSONL, "".join(lines))
        # every request any shard sent, in shard order: the merged run counts what reached the servers
        ledgers = [r.path / REQUESTS_LOG for r in sorted(runs, key=lambda r: r.shard.index)]
        if any(p.is_file() for p in ledgers):
            parts = [p.read_bytes() for p in ledgers if p.is_file()]
            write_atomic(staging / REQUESTS_LOG,
                         b"".join(x if x.endswith(b"\n") or not x else x + b"\n" for x in parts))
        write_json_atomic(staging / RUN_JSON, merged)
