"""What a run writes, reduced to what must not change when the runner's code is reorganised.

For a small build of every family (InfiniBench: an import of the test fixture), each model of :data:`MODELS` is
run and scored; each output file is reduced to one digest per row (volatile fields, such as latencies, start
times, paths and ports, dropped), so that a mismatch names the rows that changed. ``tools/pin_runs.py`` writes
the pins with the runner the checkout holds (``tests/data/run_pins.json``); ``tests/test_run_pinned.py`` checks
the runner against them.

The tiny llama.cpp server's replies are random-weight gibberish that depends on the CPU's float arithmetic;
its pins hold a canary (one greedy reply) so that a machine that computes differently compares only the
request side of those rows (keys, statuses, errors), not texts the runner never chose.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from niah.run import RetryPolicy, run_dataset_sync
from support.cli import invoke_ok

#: Family -> the `niah build` arguments of its small default build (one cell or two, seconds to build).
BUILDS: dict[str, list[str]] = {
    "mm-niah": ["mm-niah", "--per-cell", "1", "--lengths", "1k-2k"],
    "seq-niah": ["seq-niah", "--per-cell", "1", "--lengths", "8k-16k"],
    "mmlongbench-vh": ["mmlongbench-vh", "--lengths", "8k", "--per-cell", "3"],
    "milebench-niah": ["milebench-niah", "--per-cell", "2"],
    "video-niah": ["video-niah", "--durations", "1m", "--per-cell", "1"],
}
MODELS = ("baseline:oracle", "baseline:random", "openai:tiny")
FAST_RETRY = RetryPolicy(max_attempts=2, initial_delay=0.0, max_delay=0.0)
#: Row fields that vary from one identical run to the next.
VOLATILE_ROW = frozenset({"latency_s"})
#: run.json fields pinned (the rest holds times, paths, ports and versions).
RUN_JSON_PINNED = ("benchmark", "capabilities", "complete", "counts", "generation", "model", "model_id",
                   "needle_delivery", "prompt_options", "errors")
#: Fields of a reply row that only the server's arithmetic decides (compared only when the canary matches).
SERVER_TEXT_FIELDS = frozenset({"response", "usage", "truncated_from"})
CANARY_PROMPT = "The secret ingredient is oak. The river flows past the mill."


def build_datasets(root: Path, families: list[str] | None = None) -> dict[str, Path]:
    """Family -> its small build under ``root`` (InfiniBench: imported from the fixture QA files)."""
    from support.infinibench_fixtures import write_qa_files, write_videos

    out: dict[str, Path] = {}
    for family, args in BUILDS.items():
        if families is not None and family not in families:
            continue
        out[family] = root / family
        invoke_ok(["build", args[0], "--out", str(out[family]), "--no-progress", *args[1:]])
    if families is None or "infinibench" in families:
        src = root / "infinibench-src"
        write_videos(src / "videos")
        write_qa_files(src / "qa")
        out["infinibench"] = root / "infinibench"
        invoke_ok(["import", "infinibench", str(src / "qa"), "--media-root", str(src / "videos"),
                   "--out", str(out["infinibench"])])
    return out


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_SERVER_ADDRESS = re.compile(r"http://127\.0\.0\.1:\d+")


def _rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file, the local server's address (a new port each time) written as <server>."""
    text = _SERVER_ADDRESS.sub("<server>", path.read_text(encoding="utf-8"))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def reduce_run(run_dir: Path, *, server_text: bool = True) -> dict[str, Any]:
    """One digest per row of responses.jsonl and scored.jsonl, one of scores.json and of run.json's pinned part.
    ``server_text=False`` leaves out what a server's arithmetic alone decides (reply texts, their token counts,
    and so every score)."""
    responses = {}
    for row in _rows(run_dir / "responses.jsonl"):
        kept = {k: v for k, v in row.items() if k not in VOLATILE_ROW}
        if not server_text and row.get("error") is None:
            kept = {k: v for k, v in kept.items() if k not in SERVER_TEXT_FIELDS}
        responses[row["id"]] = _digest(kept)
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    pinned_meta = {k: meta.get(k) for k in RUN_JSON_PINNED}
    if not server_text:
        counts = dict(pinned_meta.get("counts") or {})
        counts.pop("prompt_tokens", None)
        counts.pop("completion_tokens", None)
        pinned_meta["counts"] = counts
    out: dict[str, Any] = {"responses": responses, "run.json": _digest(pinned_meta),
                           "order": _digest(list(responses))}
    if server_text:
        out["scored"] = {row["id"]: _digest(row) for row in _rows(run_dir / "scored.jsonl")}
        out["scores"] = _digest(json.loads((run_dir / "scores.json").read_text(encoding="utf-8")))
    return out


def media_roots(dataset: Path) -> tuple[Path, ...]:
    """The folders outside ``dataset`` its media may be read from (the imported fixture's videos)."""
    videos = dataset.parent / f"{dataset.name}-src" / "videos"
    return (videos,) if videos.is_dir() else ()


def dry_run_digest(dataset: Path, model: str, base_urls: list[str] | None) -> str:
    """The plan a dry run prints (one line per sample) and its totals."""
    stream = io.StringIO()
    summary = run_dataset_sync(dataset, model, dataset.parent / "unused-dry-run", dry_run=True, dry_run_stream=stream,
                               progress=False, base_urls=base_urls, media_roots=media_roots(dataset))
    return _digest({"lines": stream.getvalue(), "estimate": summary.estimate, "total": summary.total,
                    "needles": [summary.needles_checked, summary.needles_not_shown]})


def run_one(dataset: Path, model: str, run_dir: Path, base_urls: list[str] | None) -> None:
    """Run and score ``model`` on ``dataset`` (one request at a time: a server batching requests computes
    differently from one answering them alone)."""
    run_dataset_sync(dataset, model, run_dir, progress=False, base_urls=base_urls, concurrency=1, retry=FAST_RETRY,
                     media_roots=media_roots(dataset))
    invoke_ok(["score", str(run_dir)])


@contextmanager
def tiny_server(workdir: Path) -> Iterator[str]:
    """The tiny random-weight llama on 127.0.0.1, one request at a time; yields its base URL."""
    from support.llama_server import LlamaServer

    workdir.mkdir(parents=True, exist_ok=True)
    server = LlamaServer(workdir, n_parallel=1, n_ctx=32768)
    server.start()
    try:
        yield server.base_url
    finally:
        server.stop()


def canary(base_url: str) -> str:
    """One greedy reply of the tiny server: equal on machines whose arithmetic gives the same replies."""
    import httpx

    body = {"model": "tiny", "messages": [{"role": "user", "content": CANARY_PROMPT}], "max_tokens": 24,
            "temperature": 0.0, "seed": 0}
    reply = httpx.post(f"{base_url}/chat/completions", json=body, timeout=60).json()
    return str(reply["choices"][0]["message"]["content"])


def pin_runs(root: Path, families: list[str] | None = None) -> dict[str, Any]:
    """Everything :func:`reduce_run` pins, for every family and model, plus the server canary."""
    datasets = build_datasets(root / "datasets", families)
    pins: dict[str, Any] = {"families": {}}
    with tiny_server(root / "gguf") as base_url:
        pins["canary"] = canary(base_url)
        for family, dataset in sorted(datasets.items()):
            per_model: dict[str, Any] = {}
            for model in MODELS:
                urls = [base_url] if model.startswith("openai:") else None
                run_dir = root / "runs" / family / model.replace(":", "-")
                run_one(dataset, model, run_dir, urls)
                per_model[model] = {**reduce_run(run_dir),
                                    "dry_run": dry_run_digest(dataset, model, urls)}
                if model.startswith("openai:"):
                    per_model[model]["request_side"] = reduce_run(run_dir, server_text=False)
            pins["families"][family] = per_model
    return pins


def differences(expected: dict[str, Any], actual: dict[str, Any], *, server_text: bool) -> list[str]:
    """Where ``actual`` departs from ``expected``: one line per family, model, file and row that changed."""
    out: list[str] = []
    for family, models in expected["families"].items():
        for model, want in models.items():
            got = actual["families"].get(family, {}).get(model)
            if got is None:
                out.append(f"{family} {model}: not run")
                continue
            if model.startswith("openai:") and not server_text:
                want, got = ({**w["request_side"], "dry_run": w["dry_run"]} for w in (want, got))
            for part, value in want.items():
                if part == "request_side":
                    continue
                other = got.get(part)
                if isinstance(value, dict):
                    changed = sorted(k for k in value.keys() | (other or {}).keys()
                                     if value.get(k) != (other or {}).get(k))
                    if changed:
                        out.append(f"{family} {model} {part}: rows {', '.join(changed[:8])}"
                                   f"{' ...' if len(changed) > 8 else ''} differ")
                elif value != other:
                    out.append(f"{family} {model} {part} differs")
    return out
