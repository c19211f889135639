"""`niah eval`: build (or load) + run + score + report in one command.

With no arguments it runs the embedded default: a small grid of the registry's default family built from the
embedded corpus, answered by the offline RAG baseline (BM25 retrieval + extractive reader, no model download), scored exactly like the
official code and reported. Each stage writes into OUT (dataset/, run/, report/), so any stage can be re-run
alone with its own verb, and rerunning `niah eval` resumes the run instead of repeating requests.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer

from niah.commands import deprecated_alias, pick_alias, split_csv
from niah.util.iox import check_folder_option


def evaluate(*, out: Path, dataset: Path | None, model: str, base_urls: list[str], api_key_env: str | None,
             concurrency: int, tasks: list[str], lengths: list[str], per_cell: int, seed: int, corpus: str | None,
             tokenizer: str | None, image_tokens: str | None, limit: int | None, progress: bool,
             published: bool, benchmark: str | None = None,
             media_roots: tuple[Path, ...] = (), audit: bool = True, overwrite: bool = False) -> dict:
    """Run the whole loop; returns {"dataset", "run", "report", "scores"} paths and the run summary.

    Without ``dataset`` it builds the small grid of ``benchmark``'s first builder (default: the registry's
    default family): its ``eval_defaults``, with ``tasks`` and ``lengths`` when given. An OUT that holds an
    earlier eval resumes it when the build asked is the same (its record in OUT/dataset says), and is refused
    naming what differs otherwise; ``overwrite`` replaces its dataset, run and report. An OUT that holds
    anything else is refused."""
    from niah.util.errors import NiahError
    from niah.util.iox import REPLACE, claim_output_folder

    check_folder_option(out)
    found = claim_output_folder(out, overwrite=overwrite, is_ours=_is_eval_folder, kind="a niah eval folder")
    if found == REPLACE:
        import shutil

        for part in ((out / "dataset",) if dataset is None else ()) + (out / "run", out / "report"):
            if part.is_dir():
                shutil.rmtree(part)
    if dataset is None and lengths:
        from niah.build.lengths import parse_lengths

        parse_lengths(lengths)  # a bad length is refused before OUT is made
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        return _evaluate_in(out=out, dataset=dataset, model=model, base_urls=base_urls, api_key_env=api_key_env,
                            concurrency=concurrency, tasks=tasks, lengths=lengths, per_cell=per_cell, seed=seed,
                            corpus=corpus, tokenizer=tokenizer, image_tokens=image_tokens, limit=limit,
                            progress=progress, published=published, benchmark=benchmark,
                            media_roots=media_roots, audit=audit)
    except NiahError:
        if created and not (out / "run").exists():  # refused before any request: leave nothing behind
            import shutil

            shutil.rmtree(out, ignore_errors=True)
        raise


def _evaluate_in(*, out: Path, dataset: Path | None, model: str, base_urls: list[str], api_key_env: str | None,
                 concurrency: int, tasks: list[str], lengths: list[str], per_cell: int, seed: int, corpus: str | None,
                 tokenizer: str | None, image_tokens: str | None, limit: int | None, progress: bool, published: bool,
                 benchmark: str | None, media_roots: tuple[Path, ...], audit: bool) -> dict:
    from niah.benchmarks.registry import DEFAULT_FAMILY, get_family
    from niah.report import BrowserOptions, ReportOptions, build_report, load_inputs
    from niah.run import run_dataset_sync
    from niah.scoring.score import score_run
    from niah.util.errors import ConfigError

    if dataset is None:
        from niah.build.record import differing_options, option_digests, read_build_record, write_build_record

        dataset = out / "dataset"
        family = get_family(benchmark or DEFAULT_FAMILY)
        # what this eval asks to build: the same again resumes, another build is refused (--overwrite replaces)
        asked = {"family": family.name, "tasks": tasks or None, "lengths": lengths or None, "per_cell": per_cell,
                 "seed": seed, "corpus": corpus, "tokenizer": tokenizer, "image_tokens": image_tokens}
        inputs = option_digests({"corpus": corpus, "tokenizer": tokenizer})  # the content they name counts
        if (dataset / "samples.jsonl").is_file():
            differs = differing_options(read_build_record(dataset), "eval", asked, inputs)
            if differs:
                raise ConfigError(f"{out} holds an eval of another build: " + "; ".join(differs)
                                  + "; pass --overwrite to replace its dataset, run and report, or choose a new "
                                    "--out")
        else:  # built once; reruns resume the same samples
            builders = family.builders() if family.builders else ()
            if not builders:
                raise ConfigError(f"benchmark {family.name!r} has no builder; give a DATASET")
            builder = builders[0]
            # only what the user set: a family keeps its own tokenizer, image rule and corpus defaults
            given = {k: v for k, v in {"corpus": corpus, "tokenizer": tokenizer,
                                        "image_tokens": image_tokens}.items() if v is not None}
            # an option the builder does not take is refused, not silently dropped (a text-only family has no
            # image cost; another sets its image cost through its own pixel options)
            ignored = [k for k in given if builder.option_kinds and k not in builder.option_kinds]
            if ignored:
                spelled = ", ".join("--" + k.replace("_", "-") for k in ignored)
                raise ConfigError(f"{spelled} does not apply to the {builder.name} builder; build the dataset "
                                  f"with `niah build {builder.name}` (see --help) and give it as DATASET")
            options = {**builder.eval_defaults, "per_cell": per_cell, "seed": seed, **given}
            if tasks:
                options["tasks"] = tasks
            if lengths:
                options["lengths"] = lengths
            builder.build(dataset, options, progress)
            write_build_record(dataset, "eval", asked, inputs)
    run_dir = out / "run"
    summary = run_dataset_sync(dataset, model, run_dir, concurrency=concurrency, progress=progress,
                               base_urls=base_urls or None, api_key_env=api_key_env, limit=limit,
                               media_roots=media_roots)
    score_summary = score_run(run_dir)
    audit_report = None
    if audit:  # what this run sent, checked for shortcuts; the report shows it beside the scores
        from niah.audit.dataset import AUDIT_FILE, AuditOptions, audit_dataset, options_from_run, write_audit

        settings, _ = options_from_run(run_dir)
        audit_options = AuditOptions(media_roots=tuple(str(p) for p in media_roots),
                                     **{k: v for k, v in settings.items() if v is not None})
        audit_report = audit_dataset(dataset, audit_options, progress=progress)
        write_audit(audit_report, run_dir / AUDIT_FILE)
    report_dir = out / "report"
    result = build_report(load_inputs([run_dir]), report_dir,
                          ReportOptions(published=published, browser=BrowserOptions(media_roots=media_roots)))
    return {"dataset": dataset, "run": run_dir, "report": result.index_html, "summary": summary,
            "scores": score_summary, "audit": audit_report}


def _is_eval_folder(path: Path) -> bool:
    """A folder `niah eval` wrote: its dataset, run or report is there."""
    return any((path / part).is_dir() for part in ("dataset", "run", "report"))


def register(app: typer.Typer) -> None:
    @app.command("eval")
    def eval_command(
        ctx: typer.Context,
        dataset: Annotated[Path | None, typer.Argument(
            help="an existing dataset directory; omit to build a small grid of --family")] = None,
        family: Annotated[str | None, typer.Option(
            "--family", help="the family whose small grid to build, as an eval config's family key (default: the "
                             "registry's default)")] = None,
        benchmark: Annotated[str | None, deprecated_alias("--benchmark", "--family")] = None,
        out: Annotated[Path, typer.Option("--out", "-o", help="Output folder: dataset/, run/ and report/ are "
                                          "written in it; rerun to resume.")] = Path("out/eval"),
        model: Annotated[str, typer.Option("--model", "-m", help="Model spec, as for niah run: openai:NAME, "
                                           "hf:PATH, vllm:PATH, baseline:random|oracle|rag.")] = "baseline:rag",
        base_url: Annotated[list[str] | None, typer.Option(
            "--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1; repeat for a pool of "
                               "replicas.")] = None,
        api_key_env: Annotated[str | None, typer.Option(
            "--api-key-env", help="Environment variable holding the API key.")] = None,
        concurrency: Annotated[int, typer.Option("--concurrency", "-c", help="Requests in flight per "
                                                                             "endpoint.")] = 8,
        tasks: Annotated[list[str] | None, typer.Option(
            "--tasks", help="Tasks to build (comma-separated; repeatable; default: the family's small grid).")] = None,
        lengths: Annotated[list[str] | None, typer.Option(
            "--lengths", help="Lengths to build: 8k, 8192 or a range 8k-12k (comma-separated; repeatable).")] = None,
        per_cell: Annotated[int, typer.Option("--per-cell", help="Samples per task x length x depth cell.")] = 1,
        seed: Annotated[int, typer.Option("--seed", help="Build seed: the same seed gives the same "
                                                         "samples.")] = 0,
        corpus: Annotated[str | None, typer.Option("--corpus", help="Haystack corpus: default (embedded), obelics:PATH, "
                                                             "textdir:PATH, jsonl:PATH (default: the family's own).")] = None,
        tokenizer: Annotated[str | None, typer.Option("--tokenizer", help="Tokenizer the lengths are exact in: "
                                                                   "cl100k_base, o200k_base, hf:PATH, "
                                                                   "sp:PATH (default: the family's "
                                                                   "own).")] = None,
        image_tokens: Annotated[str | None, typer.Option("--image-tokens", metavar="RULE", help="Image token rule: "
                                                  "internvl, internvl-1tile, qwen2vl-28px, fixed:N "
                                                  "(niah list; default: the family's own).")] = None,
        limit: Annotated[int | None, typer.Option("--limit", help="Only the first N samples.")] = None,
        no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bars.")] = False,
        published: Annotated[bool, typer.Option("--published/--no-published", help="Show the published rows in "
                                                                                 "the report's tables.")] = True,
        allow_failures: Annotated[bool, typer.Option(
            "--allow-failures", help="Exit 0 even when requests failed or were skipped (default: exit 3 "
                                     "then, after the report is written).")] = False,
        media_root: Annotated[list[Path] | None, typer.Option(
            "--media-root", help="Allow media from this folder outside DATASET (repeatable).")] = None,
        audit: Annotated[bool, typer.Option(
            "--audit/--no-audit", help="Audit the dataset for shortcuts (niah audit, with the run's settings) and "
                                       "show it in the report.")] = True,
        overwrite: Annotated[bool, typer.Option(
            "--overwrite", help="Replace the dataset, run and report already in --out (by default the same eval "
                                "resumes and another build is refused).")] = False,
        config: Annotated[Path | None, typer.Option(
            "--config", metavar="FILE", help="An eval config (TOML): several models x benchmarks, one report over "
                                             "every run. Every setting then comes from the file (only "
                                             "--no-progress and --allow-failures go with it).")] = None,
    ) -> None:
        """Build (or load) a dataset, run a model on it, score it officially and write the report.

        With --config FILE: every model x benchmark the file names, one report over all the runs (docs/eval.md).

        Exit status: 0 when every request was answered, 3 when some failed or were skipped (after the report;
        --allow-failures gives 0), 2 on an error (nothing is written on bad arguments)."""
        from niah.util.console import wide_console

        if config is not None:
            from niah.commands.eval_config import eval_from_config

            eval_from_config(ctx, config, progress=not no_progress, allow_failures=allow_failures)
            return
        res = evaluate(out=out, dataset=dataset, model=model, base_urls=split_csv(base_url), api_key_env=api_key_env,
                       concurrency=concurrency, tasks=split_csv(tasks),
                       lengths=split_csv(lengths), per_cell=per_cell, seed=seed,
                       corpus=corpus, tokenizer=tokenizer, image_tokens=image_tokens, limit=limit,
                       progress=not no_progress, published=published,
                       benchmark=pick_alias(family, benchmark, "--family"),
                       media_roots=tuple(media_root or ()), audit=audit, overwrite=overwrite)
        from rich.text import Text

        console = wide_console()
        s = res["summary"]
        console.print(f"run: {s.answered} answered, {s.failed} failed, {s.skipped} skipped; "
                      f"{s.requests} requests sent, {s.resumed} resumed from an earlier run, {s.cached} from "
                      f"cache; {s.wall_s:.1f} s -> {res['run']}")
        _print_scores(console, Path(res["run"]))
        audited = res["audit"]
        if audited is not None:
            if audited.passed:
                console.print(f"audit: all {len(audited.probes)} shortcut probes within chance + "
                              f"{audited.options.margin:g} points plus their sampling noise")
            else:
                worst = ", ".join(f"{p.task}/{p.probe}" for p in audited.failed[:4])
                console.print(Text.assemble(
                    (f"audit: {len(audited.failed)} of {len(audited.probes)} shortcut probes beat chance",
                     "bold red"), f" ({worst}{', ...' if len(audited.failed) > 4 else ''}); "
                    f"see the report's Audit section or `niah audit {res['dataset']}`"))
        console.print(f"report: {res['report']}")
        from niah.commands.run import exit_on_unanswered

        exit_on_unanswered(s, allow_failures=allow_failures)


def _print_scores(console: Any, run_dir: Path) -> None:
    """Per task: official accuracy per bin (x100; empty bins print as -) and overall, as in the paper's tables,
    with the mean over the bins that have samples beside it; an incomplete run is flagged first."""
    from niah.report import load_input

    if not (run_dir / "scored.jsonl").is_file():
        return
    inp = load_input(run_dir)
    rs = inp.run_status
    if rs and inp.incomplete:
        console.print(f"INCOMPLETE RUN: {rs.get('answered')} answered, {rs.get('failed')} failed, "
                      f"{rs.get('skipped')} skipped, {rs.get('missing')} missing of {rs.get('total')} samples",
                      style="bold yellow")
    from niah.commands.score import print_bin_table

    if not print_bin_table(console, inp):
        return
    scores = run_dir / "scores.json"
    if scores.is_file():  # the headline niah score prints, from the file it wrote (interval included)
        import json

        from niah.commands.score import headline_lines

        with contextlib.suppress(OSError, ValueError):
            doc = json.loads(scores.read_text(encoding="utf-8"))
            for line in headline_lines(doc if isinstance(doc, dict) else {})[:1]:
                console.print(line, highlight=False, markup=False)
