"""The Python API: the pipeline's stages as functions, one per CLI verb, for scripts and notebooks.

Each function does what its verb does (the same checks, the same files) and returns what was done instead of
printing it::

    from niah.api import audit, build, load_dataset, report, run, score

    build(BENCHMARK, "ds", lengths="1k", per_cell=2)   # any family with a generator (niah list)
    run("ds", "baseline:oracle", "run")
    score("run")
    print(headlines("run"))        # {BENCHMARK: HeadlineFigure(value=100.0, ...)}
    report(["run"], "report")

See docs/python-api.md for every function and the types they return.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from niah.audit.dataset import AuditOptions, AuditReport
from niah.audit.samples import API_BUILD, audit_enough
from niah.benchmarks.protocol import Builder
from niah.benchmarks.registry import get_family
from niah.prompts.types import GenerationSettings
from niah.report.build import ReportOptions, ReportResult, build_report
from niah.report.inputs import load_inputs
from niah.run import RunSummary, run_dataset_sync
from niah.sample import Dataset
from niah.scoring.score import HeadlineFigure, RunScoreSummary, benchmark_blocks, headline_figure, score_run
from niah.util.errors import ConfigError
from niah.util.iox import NEW, REPLACE, claim_output_folder, read_json_file

__all__ = ["audit", "build", "builder_of", "headlines", "load_dataset", "report", "run", "score"]



def load_dataset(path: str | Path, *, media_roots: Sequence[str | Path] = ()) -> Dataset:
    """Open a dataset folder (``samples.jsonl``, ``manifest.json``, media). Samples stream on iteration;
    ``Dataset.validate()`` checks every line and media file first, as ``niah run`` does. ``media_roots``: folders
    outside the dataset its manifest may read media from (the CLI's ``--media-root``)."""
    return Dataset(path, media_roots=tuple(media_roots))


def builder_of(benchmark: str, name: str | None = None) -> Builder:
    """The generator ``build`` uses for ``benchmark`` (its first, or the one called ``name``)."""
    family = get_family(benchmark)
    builders = tuple(family.builders()) if family.builders is not None else ()
    if not builders:
        raise ConfigError(f"benchmark {family.name!r} has no generator; import its official files instead "
                          "(niah import)")
    if name is None:
        return builders[0]
    for builder in builders:
        if builder.name == name:
            return builder
    raise ConfigError(f"{family.name!r} has no builder {name!r} (its builders: "
                      f"{', '.join(b.name for b in builders)})")


def build(benchmark: str, out: str | Path, *, builder: str | None = None, overwrite: bool = False,
          progress: bool = True, **options: Any) -> Mapping[str, int]:
    """Generate a dataset of ``benchmark`` into ``out``; returns the number of samples per task.

    ``options`` are the builder's options by their CLI names with ``_`` for ``-`` (``lengths="1k,2k"``,
    ``per_cell=2``, ``seed=7``, ``corpus="./my-texts"``); an option the builder does not take, or a value of the
    wrong kind, is refused before anything is built. ``out`` must be new or empty; an earlier dataset there is
    replaced only with ``overwrite``."""
    from niah.build.record import is_dataset_folder, write_build_record
    from niah.eval.config import check_kind

    chosen = builder_of(benchmark, builder)
    checked: dict[str, Any] = {}
    for key, value in options.items():
        kind = chosen.option_kinds.get(key) if chosen.option_kinds else None
        if chosen.option_kinds and kind is None:
            raise ConfigError(f"the {chosen.name} builder takes no option {key!r} (its options: "
                              f"{', '.join(chosen.option_kinds)})")
        try:
            checked[key] = check_kind(value, kind) if kind is not None else value
        except ValueError as exc:
            raise ConfigError(f"option {key!r} of the {chosen.name} builder {exc}") from None
    target = Path(out)
    found = claim_output_folder(target, overwrite=overwrite, is_ours=is_dataset_folder, kind="a niah dataset",
                                option="out")
    if found not in (NEW, REPLACE):
        raise ConfigError(f"{target} already holds a dataset; pass overwrite=True to replace it, or choose a new "
                          "folder")
    if found == REPLACE:
        shutil.rmtree(target)
    counts = chosen.build(target, checked, progress)
    # the build record: what niah audit replays (with other seeds and a larger per_cell) to measure enough samples
    write_build_record(target, " ".join([*API_BUILD, chosen.name]), checked)
    return counts


def run(dataset: str | Path | Dataset, model: str, out: str | Path, *, sampling_seed: int | None = None,
        **settings: Any) -> RunSummary:
    """Run ``model`` (``openai:NAME`` with ``base_urls=[...]``, ``hf:PATH``, ``baseline:oracle``, ...) on
    ``dataset`` into the run folder ``out``, as ``niah run`` does: cached, resumable, concurrent. ``sampling_seed``
    is ``niah run --sampling-seed`` (sent with each request; ``seed`` is a build's seed, as in :func:`build`);
    ``settings`` are :func:`niah.run.run_dataset`'s keywords (``concurrency``, ``generation``, ``tasks``,
    ``limit``, ...)."""
    if sampling_seed is not None:
        generation = settings.get("generation") or GenerationSettings()
        if generation.seed is not None and generation.seed != sampling_seed:
            raise ConfigError("give the sampling seed once: sampling_seed and generation.seed differ")
        settings["generation"] = dataclasses.replace(generation, seed=sampling_seed)
    return run_dataset_sync(dataset, model, out, **settings)


def score(run_dir: str | Path, *, dataset: str | Path | None = None) -> RunScoreSummary:
    """Score a run officially (writes ``scored.jsonl`` and ``scores.json``, as ``niah score RUN``); its headline
    figures, the ones every report shows, are :func:`headlines` of the result."""
    return score_run(run_dir, dataset=dataset)


def headlines(scored: str | Path | RunScoreSummary) -> dict[str, HeadlineFigure]:
    """Per benchmark of a scored run (its folder, or what :func:`score` returned): the headline figure every
    report, leaderboard and ``niah score`` shows, with what it is (``what``), its 95% interval and, on a partial
    grid, the official figure labelled with what it lacks."""
    doc = (scored.scores if isinstance(scored, RunScoreSummary)
           else read_json_file(Path(scored) / "scores.json"))
    return {name: headline_figure(block) for name, block in benchmark_blocks(doc).items()}


def report(inputs: Sequence[str | Path], out: str | Path, *, names: Sequence[str] = (),
           options: ReportOptions | None = None) -> ReportResult:
    """Write the report (tables, heatmaps, HTML) of scored runs or scores.json files into ``out``, as
    ``niah report``; ``names`` label the inputs (default: each run's model)."""
    return build_report(load_inputs(list(inputs), names=names), out, options)


def audit(dataset: str | Path, *, progress: bool = True, max_per_task: int | None = None,
          **options: Any) -> AuditReport:
    """Try every shortcut on ``dataset``, as ``niah audit`` does: a dataset :func:`build` (or ``niah build``) made
    with an explicit ``seed`` and ``per_cell`` is measured on enough samples of its generator (more are built in a
    private temporary folder, up to ``max_per_task`` a task, as ``niah audit --max-per-task``) that each probe's
    noise allowance is within 5 points (``max_per_task=0``: the dataset as it is). The other ``options`` are
    :class:`niah.audit.dataset.AuditOptions` fields (``limit``, its name there, is the first N samples in
    :func:`run`: given here it still works, with a note). The report's ``passed`` says whether every probe stayed at
    chance; nothing is written."""
    if "limit" in options:
        print("note: audit(limit=...) is deprecated; use max_per_task (as niah audit --max-per-task)",
              file=sys.stderr)
        if max_per_task is not None and options["limit"] != max_per_task:
            raise ConfigError("give max_per_task once (its deprecated spelling limit was given too, with another "
                              "value)")
    if max_per_task is not None:
        options["limit"] = max_per_task
    return audit_enough(dataset, AuditOptions(**options), progress=progress)
