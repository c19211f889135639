"""MMLongBench's CLI commands: ``niah import mmlongbench`` and ``niah judge mmlongbench`` (summarization)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from niah.commands import deprecated_alias, one_of_repeatable, pick_alias
from niah.commands import judge_options as jo

#: ``--lengths`` on every MMLongBench command: the shared syntax, naming the official lengths.
_LENGTHS_HELP = ("official lengths, comma-separated or repeated: 8k,16k,32k,64k,128k (K = 1024 tokens; 8192 "
                 "also names 8k)")


def _csv(values: list[str] | None) -> list[str]:
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def import_command(
    data_root: Annotated[Path, typer.Argument(help="the official data root (vrag/, NIAH/, ICL/, summ/, documentQA/)")],
    out: Annotated[Path, typer.Option("--out", "-o", help="dataset directory to write")],
    media_root: Annotated[list[Path] | None, typer.Option("--media-root", help="the official image root the records "
                                                          "point into (required, once)")] = None,
    image_root: Annotated[Path | None, deprecated_alias("--image-root", "--media-root")] = None,
    datasets: Annotated[list[str] | None, typer.Option("--datasets", help="comma-separated data sets (default: "
                                                       "every official file found)")] = None,
    lengths: Annotated[list[str] | None, typer.Option("--lengths", help=_LENGTHS_HELP + " (default: every length "
                                                      "found)")] = None,
    ids: Annotated[str | None, typer.Option("--ids", help="which sample ids: 'official' (the default: 100 ids, 50 "
                                            "for MM-NIAH), 'all', or N")] = None,
    samples: Annotated[str | None, deprecated_alias("--samples", "--ids")] = None,
    seed: Annotated[int, typer.Option("--seed", help="seed of the draw of ids (--ids official or N): the same "
                                      "seed keeps the same ids")] = 0,
) -> None:
    """Official MMLongBench test files -> a niah dataset (images read in place from --media-root)."""
    from niah.benchmarks.mmlongbench.datasets import length_bins
    from niah.benchmarks.mmlongbench.official import write_mmlongbench_dataset
    from niah.util.errors import ConfigError

    image_root = pick_alias(one_of_repeatable(media_root, "--media-root", "the records point into one image root"),
                            image_root, "--media-root", required=True)

    samples = pick_alias(ids, samples, "--ids") or "official"
    max_samples: int | None | str
    if samples == "official":
        max_samples = "official"
    elif samples == "all":
        max_samples = None
    else:
        try:
            max_samples = int(samples)
        except ValueError:
            raise ConfigError(f"--ids must be 'official', 'all' or a positive integer, not {samples!r}") from None
    ks = length_bins(lengths or []) or None
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
    run_dir: Annotated[Path, typer.Argument(help="a run directory on MMLongBench data")],
    judge: Annotated[str, typer.Option("--judge", help="judge model spec, e.g. openai:gpt-4o")],
    base_url: jo.BaseUrls = None,
    api_key_env: jo.ApiKeyEnv = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-c", help="judge requests in flight")] = 8,
    dataset: Annotated[Path | None, typer.Option("--dataset", "-d", help="dataset of the run (default: run.json's)")]
    = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="ask again the judgements whose stored "
                                               "verdict failed (no reply, or a reply that did not parse)")] = False,
    timeout: jo.Timeout = None,
    max_attempts: jo.MaxAttempts = None,
    retry_delay: jo.RetryDelay = None,
) -> None:
    """Judge the summarization samples of a run (fluency x F1) and score the run with them. Verdicts are stored in
    the run (judgments.jsonl) and reused; niah score RUN applies them again."""
    from niah.scoring.judges import Judge

    reach = jo.transport(base_url, api_key_env, timeout, max_attempts, retry_delay).judge_kwargs()

    def make(kind: str) -> Judge:
        from niah.benchmarks.mmlongbench.summ_judge import JUDGE_GENERATION, PARSERS, TEMPLATES

        return Judge(judge, template=TEMPLATES[kind], parser=PARSERS[kind], generation=JUDGE_GENERATION,
                     max_parse_attempts=1, **reach)

    result = judge_run(run_dir, make, concurrency=concurrency, dataset=dataset, retry_failed=retry_failed)
    typer.echo(json.dumps({"judged": result["judged"], "judge_failures": result["judge_failures"],
                           "reused": result["reused"], "asked": result["asked"],
                           "overall": result["scores"]["overall"]}))
    jo.note_flagged(result["flagged"])
    from niah.util.outcome import exit_if_judge_failures

    failures = result["judge_failures"]  # per data set and length
    exit_if_judge_failures(sum(failures.values()) if isinstance(failures, dict) else int(failures),
                           int(result["judged"]), f"niah judge mmlongbench {run_dir}")


def judge_run(run_dir: str | Path, make_judge: Any, *, concurrency: int = 8, dataset: str | Path | None = None,
              retry_failed: bool = False, progress: bool = True) -> dict[str, Any]:
    """Judge every answered summarization sample of a run (``make_judge(kind)`` returns a
    :class:`niah.scoring.judges.Judge` for ``fluency``, ``recall`` or ``precision``), store the verdicts in the run
    (:mod:`niah.scoring.verdicts`: stored ones are reused, failed ones asked again only with ``retry_failed``) and score
    the run with them: a summary's ``score`` becomes fluency x F1 (``judged`` true, the judge numbers in
    ``judge``), and ``scores.json`` the official aggregation with them. Samples whose replies do not parse are
    left out of the means (official) and counted in ``judge_failures``."""
    from niah.benchmarks.mmlongbench.score import JUDGE_KINDS
    from niah.benchmarks.mmlongbench.summ_judge import summary_text
    from niah.run.rundir import read_responses, read_run_json, resolve_run_dataset
    from niah.sample import Dataset
    from niah.scoring.score import score_run
    from niah.scoring.verdicts import JudgeItem, flagged_items, judge_items, record_pass, response_key
    from niah.util.errors import DataError

    run_dir = Path(run_dir)
    ds = Dataset(resolve_run_dataset(run_dir, read_run_json(run_dir), dataset))
    responses = read_responses(run_dir / "responses.jsonl")
    items: list[JudgeItem] = []
    benchmark = "mmlongbench"
    for lineno, sample in ds.iter_numbered():
        row = responses.get(sample.id)
        if (sample.meta or {}).get("metric") != "summ_judge" or row is None:
            continue
        benchmark = sample.benchmark
        keypoints = sample.meta.get("keypoints")
        if not isinstance(keypoints, list):
            raise DataError(f"sample {sample.id!r} has no key points (import with summ/*_claims.jsonl present)",
                            file=ds.samples_path, line=lineno, field="meta.keypoints")
        summary = summary_text(row.get("response"))
        for kind in JUDGE_KINDS:
            gold = ("\n".join(f"{i + 1}. {kp}" for i, kp in enumerate(keypoints)) if kind == "recall"
                    else str(sample.answer))
            items.append(JudgeItem(sample.id, kind, "", gold, summary, response_key(row)))
    judges = {kind: make_judge(kind) for kind in JUDGE_KINDS}
    stats = judge_items(run_dir, items, judges, concurrency=concurrency, retry_failed=retry_failed,
                        progress=progress)
    record_pass(run_dir, benchmark, judges)
    scored = score_run(run_dir, dataset=dataset)
    from niah.benchmarks.protocol import official_structure

    structure, _in_percent = official_structure(scored.scores, benchmark)
    scores = structure if isinstance(structure, dict) else {}
    failed = {sample_id for (sample_id, _kind), v in stats.verdicts.items() if v.failed}
    return {"judged": len({item.sample_id for item in items}) - len(failed),
            "judge_failures": scores.get("judge_failures", {}), "reused": stats.reused, "asked": stats.asked,
            "scores": scores, "flagged": flagged_items(items)}


def build_vh_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
    lengths: Annotated[list[str] | None, typer.Option("--lengths", help=_LENGTHS_HELP + " (default: all five)")]
    = None,
    per_cell: Annotated[int, typer.Option("--per-cell", help="samples per length (half yes, half no)")] = 4,
    per_length: Annotated[int | None, deprecated_alias("--per-length", "--per-cell")] = None,
    needles: Annotated[int, typer.Option("--needles", help="1: vh_single; K > 1: vh_multi with K query images")] = 1,
    source: Annotated[Path | None, typer.Option("--source", help="folder of haystack and needle images to build "
                                                "from, copied into the dataset (default: the embedded pool)")] = None,
    media_root: Annotated[Path | None, deprecated_alias("--media-root", "--source")] = None,
    images: Annotated[Path | None, deprecated_alias("--images", "--source")] = None,
    seed: Annotated[int, typer.Option("--seed", help="build seed: the same seed gives the same samples")] = 0,
    tokenizer: Annotated[str, typer.Option("--tokenizer", help="text tokenizer (default llama2-sp)")] = "llama2-sp",
    min_pixels: Annotated[int, typer.Option("--min-pixels", help="qwen2vl-28px min_pixels")] = 4 * 28 * 28,
    max_pixels: Annotated[int, typer.Option("--max-pixels", help="qwen2vl-28px max_pixels")] = 16384 * 28 * 28,
    max_side: Annotated[int, typer.Option("--max-side", help="longest image side in 28-pixel patches")] = 12,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="no progress output")] = False,
) -> None:
    """Visual-haystack samples (yes/no, single or multi needle) at exactly 8K..128K tokens."""
    from niah.benchmarks.mmlongbench.build import build_vh
    from niah.benchmarks.mmlongbench.datasets import LENGTHS_K, length_bins

    ks = length_bins(lengths or []) or list(LENGTHS_K)
    counts = build_vh(out, lengths=ks, per_length=per_cell if per_length is None else per_length, needles=needles,
                      images=pick_alias(source, pick_alias(media_root, images, "--source"), "--source"), seed=seed,
                      tokenizer=tokenizer, min_pixels=min_pixels, max_pixels=max_pixels, max_side=max_side,
                      progress=not no_progress)
    typer.echo(f"built {sum(counts.values())} samples ({', '.join(f'{t}: {n}' for t, n in counts.items())}) in {out}")


def build_niah_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="output directory")],
    tasks: Annotated[list[str] | None, typer.Option("--tasks", help="MM-NIAH tasks, default all six")] = None,
    lengths: Annotated[list[str] | None, typer.Option("--lengths", help=_LENGTHS_HELP + " (default: all five)")]
    = None,
    depth_cells: Annotated[list[str] | None, typer.Option(
        "--depth-cells", help="depth cells: 5 (MM-NIAH's official ones, the default) or cell edges 0.2 apart, "
                              "e.g. 0,0.2,0.4 (the first two)")] = None,
    depths: Annotated[list[str] | None, deprecated_alias("--depths", "--depth-cells")] = None,
    per_cell: Annotated[int, typer.Option("--per-cell", help="samples per task x length x depth cell")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="build seed: the same seed gives the same samples")] = 0,
    corpus: Annotated[str, typer.Option("--corpus", help="'default' (embedded) or a corpus path")] = "default",
    tokenizer: Annotated[str, typer.Option("--tokenizer", help="text tokenizer (default llama2-sp)")] = "llama2-sp",
    min_pixels: Annotated[int, typer.Option("--min-pixels", help="qwen2vl-28px min_pixels")] = 4 * 28 * 28,
    max_pixels: Annotated[int, typer.Option("--max-pixels", help="qwen2vl-28px max_pixels")] = 16384 * 28 * 28,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="no progress output")] = False,
) -> None:
    """MMLongBench's text/image needle sets (MM-NIAH tasks) at exactly 8K..128K haystack tokens."""
    from niah.benchmarks.mm_niah.build import DEFAULT_DEPTHS
    from niah.benchmarks.mm_niah.cli import cells_option
    from niah.benchmarks.mmlongbench.build import NIAH_TASKS, build_niah
    from niah.benchmarks.mmlongbench.datasets import LENGTHS_K, length_bins

    ks = length_bins(lengths or []) or list(LENGTHS_K)
    cells = cells_option(depth_cells, depths) or list(DEFAULT_DEPTHS)
    counts = build_niah(out, tasks=_csv(tasks) or NIAH_TASKS, lengths=ks, per_cell=per_cell, depths=cells,
                        seed=seed, corpus=corpus, tokenizer=tokenizer, min_pixels=min_pixels, max_pixels=max_pixels,
                        progress=not no_progress)
    typer.echo(f"built {sum(counts.values())} samples ({', '.join(f'{t}: {n}' for t, n in counts.items())}) in {out}")
