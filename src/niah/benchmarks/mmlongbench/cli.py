"""MMLongBench's CLI commands: ``niah import mmlongbench`` and ``niah judge mmlongbench`` (summarization)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer


def _csv(values: list[str] | None) -> list[str]:
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def import_command(
    data_root: Annotated[Path, typer.Argument(help="the official data root (vrag/, NIAH/, ICL/, summ/, documentQA/)")],
    image_root: Annotated[Path, typer.Option("--image-root", help="the official image root the records point into")],
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    datasets: Annotated[list[str] | None, typer.Option("--datasets", help="comma-separated data sets (default: "
                                                       "every official file found)")] = None,
    lengths: Annotated[list[str] | None, typer.Option("--lengths", help="comma-separated K values: 8,16,32,64,128")]
    = None,
    samples: Annotated[str, typer.Option("--samples", help="'official' (100 ids, 50 for MM-NIAH), 'all', or N")]
    = "official",
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Official MMLongBench test files -> a niah dataset (images read in place from --image-root)."""
    from niah.benchmarks.mmlongbench.official import write_mmlongbench_dataset
    from niah.errors import ConfigError

    max_samples: int | None | str
    if samples == "official":
        max_samples = "official"
    elif samples == "all":
        max_samples = None
    else:
        try:
            max_samples = int(samples)
        except ValueError:
            raise ConfigError(f"--samples must be 'official', 'all' or a positive integer, not {samples!r}") from None
    try:
        ks = [int(k.upper().removeprefix("K")) for k in _csv(lengths)] or None
    except ValueError:
        raise ConfigError("--lengths takes K values such as 8,16,32") from None
    ds, reports = write_mmlongbench_dataset(data_root, image_root, out, datasets=_csv(datasets) or None, lengths=ks,
                                            max_samples=max_samples, seed=seed)
    for report in reports:
        dropped = "".join(f"; dropped {n}: {why}" for why, n in report.dropped.items())
        unknown = f"; unknown fields (kept out): {', '.join(sorted(report.unknown_fields))}" if report.unknown_fields \
            else ""
        typer.echo(f"{report.path}: {report.rows} rows, {report.kept} samples{dropped}{unknown}", err=True)
    typer.echo(f"wrote {len(ds)} samples to {out} (images read in place from {ds.media_root}; niah reads outside a "
               f"dataset only when told: pass --media-root {ds.media_root} to run and report)", err=True)


def judge_command(
    run_dir: Annotated[Path, typer.Argument(help="a scored run directory (niah score first)")],
    judge: Annotated[str, typer.Option("--judge", help="judge model spec, e.g. openai:gpt-4o")],
    base_url: Annotated[list[str] | None, typer.Option("--base-url", help="judge endpoint(s)")] = None,
    api_key_env: Annotated[str | None, typer.Option("--api-key-env", help="env var holding the judge's key")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency")] = 8,
    dataset: Annotated[Path | None, typer.Option("--dataset", help="dataset of the run (default: run.json's)")]
    = None,
) -> None:
    """Judge the summarization samples of a scored run (fluency x F1) and rewrite its scores with them."""
    from niah.judges import Judge

    def make(kind: str) -> Judge:
        from niah.benchmarks.mmlongbench.summ_judge import JUDGE_GENERATION, PARSERS, TEMPLATES

        return Judge(judge, template=TEMPLATES[kind], parser=PARSERS[kind], generation=JUDGE_GENERATION,
                     max_parse_attempts=1, base_urls=base_url or (), api_key_env=api_key_env)

    result = judge_run(run_dir, make, concurrency=concurrency, dataset=dataset)
    typer.echo(json.dumps({"judged": result["judged"], "judge_failures": result["judge_failures"],
                           "overall": result["scores"]["overall"]}))


def judge_run(run_dir: str | Path, make_judge: Any, *, concurrency: int = 8,
              dataset: str | Path | None = None) -> dict[str, Any]:
    """Judge every summarization sample of a scored run; rewrite ``scored.jsonl`` (their ``score`` becomes
    fluency x F1, ``judged`` true and the three judge numbers are added) and ``scores.json`` (the official
    aggregation with them). ``make_judge(kind)`` returns a :class:`niah.judges.Judge` for ``fluency``,
    ``recall`` or ``precision``. Samples whose replies do not parse are left out of the means (official) and
    counted in ``judge_failures``."""
    from niah.benchmarks.mmlongbench.aggregate import aggregate_scores
    from niah.benchmarks.mmlongbench.summ_judge import combine, summary_text
    from niah.benchmarks.protocol import OFFICIAL
    from niah.errors import DataError
    from niah.iox import dumps_line, iter_jsonl, read_json_file, write_atomic, write_json_atomic
    from niah.sample import Dataset
    from niah.scoring import RUN_STATUS_KEY, read_run_json, resolve_run_dataset

    run_dir = Path(run_dir)
    scored_path = run_dir / "scored.jsonl"
    if not scored_path.is_file():
        raise DataError("no scored.jsonl: run niah score first", file=run_dir)
    rows = [row for _, row in iter_jsonl(scored_path)]
    ds = Dataset(resolve_run_dataset(run_dir, read_run_json(run_dir), dataset))
    summ_ids = {row["id"] for row in rows if row.get("judged") is False}
    samples = {s.id: s for s in ds if s.id in summ_ids}
    todo: list[tuple[dict[str, Any], list[str]]] = []
    for row in rows:
        if row["id"] not in summ_ids:
            continue
        sample = samples.get(row["id"])
        if sample is None:
            raise DataError(f"sample {row['id']!r} of scored.jsonl is not in the dataset", file=scored_path)
        keypoints = sample.meta.get("keypoints")
        if not isinstance(keypoints, list):
            raise DataError(f"sample {sample.id!r} has no key points (import with summ/*_claims.jsonl present)",
                            field="meta.keypoints")
        todo.append((row, keypoints))
    judges = {kind: make_judge(kind) for kind in ("fluency", "recall", "precision")}

    async def go() -> list[list[Any]]:
        try:
            out = []
            for kind, judge in judges.items():
                items = []
                for row, keypoints in todo:
                    summary = summary_text(row.get("response"))
                    gold = ("\n".join(f"{i + 1}. {kp}" for i, kp in enumerate(keypoints)) if kind == "recall"
                            else str(row.get("answer")))
                    items.append(("", gold, summary))
                out.append(await judge.judge_many(items, concurrency=concurrency))
            return out
        finally:
            for judge in judges.values():
                await judge.aclose()

    fluency, recall, precision = asyncio.run(go()) if todo else ([], [], [])
    failures: dict[str, int] = {}
    dropped: set[str] = set()
    for index, (row, keypoints) in enumerate(todo):
        verdicts = (fluency[index], recall[index], precision[index])
        if any(v.score is None for v in verdicts):
            key = f"{row.get('dataset')}/K{row.get('length_k')}"
            failures[key] = failures.get(key, 0) + 1
            dropped.add(row["id"])
            row["judge_error"] = next(v.error for v in verdicts if v.score is None)
            continue
        score = combine(float(verdicts[0].score or 0), float(verdicts[1].score or 0), len(keypoints),
                        float(verdicts[2].score or 0))
        row.update({"score": score.flu_f1, "judged": True, "judge": score.to_json()})
        row["scores"] = {**row.get("scores", {}), OFFICIAL: score.flu_f1}
    kept = [(row, {"dataset": row.get("dataset") or row["task"], "length_k": row.get("length_k"),
                   "judged": row.get("judged", True) is not False})
            for row in rows if row["id"] not in dropped]
    scores = aggregate_scores(kept, OFFICIAL)
    previous: dict[str, Any] = {}
    if (run_dir / "scores.json").is_file():
        loaded = read_json_file(run_dir / "scores.json", what="scores.json")
        previous = loaded if isinstance(loaded, dict) else {}
    write_atomic(scored_path, "".join(dumps_line(row) for row in rows))
    document = {**scores, "judge": {kind: judge.identity() for kind, judge in judges.items()},
                "judge_failures": failures}
    if RUN_STATUS_KEY in previous:
        document[RUN_STATUS_KEY] = previous[RUN_STATUS_KEY]
    write_json_atomic(run_dir / "scores.json", document)
    return {"judged": len(todo) - len(dropped), "judge_failures": failures, "scores": scores}


def build_vh_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
    lengths: Annotated[list[str] | None, typer.Option("--lengths", help="K values, default 8,16,32,64,128")] = None,
    per_length: Annotated[int, typer.Option("--per-length", help="samples per length (half yes, half no)")] = 4,
    needles: Annotated[int, typer.Option("--needles", help="1: vh_single; K > 1: vh_multi with K query images")] = 1,
    images: Annotated[Path | None, typer.Option("--images", help="image folder (default: the embedded pool)")]
    = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    tokenizer: Annotated[str, typer.Option("--tokenizer", help="text tokenizer (default llama2-sp)")] = "llama2-sp",
    min_pixels: Annotated[int, typer.Option("--min-pixels", help="qwen2vl-28px min_pixels")] = 4 * 28 * 28,
    max_pixels: Annotated[int, typer.Option("--max-pixels", help="qwen2vl-28px max_pixels")] = 16384 * 28 * 28,
    max_side: Annotated[int, typer.Option("--max-side", help="longest image side in 28-pixel patches")] = 12,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
) -> None:
    """Visual-haystack samples (yes/no, single or multi needle) at exactly 8K..128K tokens."""
    from niah.benchmarks.mmlongbench.build import build_vh
    from niah.errors import ConfigError

    try:
        ks = [int(k.upper().removeprefix("K")) for k in _csv(lengths)] or [8, 16, 32, 64, 128]
    except ValueError:
        raise ConfigError("--lengths takes K values such as 8,16,32") from None
    counts = build_vh(out, lengths=ks, per_length=per_length, needles=needles, images=images, seed=seed,
                      tokenizer=tokenizer, min_pixels=min_pixels, max_pixels=max_pixels, max_side=max_side,
                      progress=not no_progress)
    typer.echo(f"built {sum(counts.values())} samples ({', '.join(f'{t}: {n}' for t, n in counts.items())}) in {out}")


def build_niah_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
    tasks: Annotated[list[str] | None, typer.Option("--tasks", help="MM-NIAH tasks, default all six")] = None,
    lengths: Annotated[list[str] | None, typer.Option("--lengths", help="K values, default 8,16,32,64,128")] = None,
    depths: Annotated[list[str] | None, typer.Option("--depths", help="depth cells, default 0,0.2,0.4,0.6,0.8")]
    = None,
    per_cell: Annotated[int, typer.Option("--per-cell", help="samples per task x length x depth cell")] = 1,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    corpus: Annotated[str, typer.Option("--corpus", help="'default' (embedded) or a corpus path")] = "default",
    tokenizer: Annotated[str, typer.Option("--tokenizer", help="text tokenizer (default llama2-sp)")] = "llama2-sp",
    min_pixels: Annotated[int, typer.Option("--min-pixels", help="qwen2vl-28px min_pixels")] = 4 * 28 * 28,
    max_pixels: Annotated[int, typer.Option("--max-pixels", help="qwen2vl-28px max_pixels")] = 16384 * 28 * 28,
    no_progress: Annotated[bool, typer.Option("--no-progress")] = False,
) -> None:
    """MMLongBench's text/image needle sets (MM-NIAH tasks) at exactly 8K..128K haystack tokens."""
    from niah.benchmarks.mmlongbench.build import NIAH_TASKS, build_niah
    from niah.errors import ConfigError

    try:
        ks = [int(k.upper().removeprefix("K")) for k in _csv(lengths)] or [8, 16, 32, 64, 128]
        cells = [float(d) for d in _csv(depths)] or [0.0, 0.2, 0.4, 0.6, 0.8]
    except ValueError:
        raise ConfigError("--lengths takes K values such as 8,16; --depths numbers in [0, 1]") from None
    counts = build_niah(out, tasks=_csv(tasks) or NIAH_TASKS, lengths=ks, per_cell=per_cell, depths=cells,
                        seed=seed, corpus=corpus, tokenizer=tokenizer, min_pixels=min_pixels, max_pixels=max_pixels,
                        progress=not no_progress)
    typer.echo(f"built {sum(counts.values())} samples ({', '.join(f'{t}: {n}' for t, n in counts.items())}) in {out}")
