"""Enough samples for ``niah audit``: more of a generated dataset's own generator, built until every probe's
noise allowance is within a few points.

A probe's verdict allows its sampling noise (:data:`niah.audit.dataset.NOISE_Z` standard errors of its mean): on a
30-sample try that is 10-40 points, so a shortcut worth 20 points passes, and luck alone fails a clean build.
A dataset that records how it was built (its ``.niah-build.json``, written by every ``niah build``) can be
measured on as many samples as the verdict needs: the same command with the same options, other seeds (a
build key the dataset does not share) and a larger ``--per-cell``, built into a private temporary folder and
audited with the dataset's own samples as one set per task. An imported or hand-made dataset is audited as it
is, its allowance reported. :func:`audit_enough` is what ``niah audit`` runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.audit.dataset import (
    DELIVERY,
    MIN_VERDICT_SAMPLES,
    NOISE_Z,
    AuditOptions,
    AuditReport,
    AuditSource,
    audit_dataset,
)
from niah.util.errors import DataError

#: The most samples of a task the audit measures unless ``--limit`` says otherwise: a probe whose per-sample
#: scores are 0 or 1 at 50% needs 271 for an allowance of 5 points at 95%, and none measured on every sample
#: of its task needs more; one measured on a share of them (the gold in the haystack, where the gold is a
#: text) needs that many of its own.
DEFAULT_LIMIT = 500
#: Samples a task is measured on at least, when more can be built: the spread of a few samples is no estimate
#: (five that all read 0 say little), and a probe reading 0 on all of 90 rules out a true rate above 5% at 99%.
MIN_TASK_SAMPLES = 90
#: The allowance the audit builds for is stated at 95% one-sided (the verdict itself allows 99%).
ALLOWANCE_Z = 1.645
#: Builds at most: the first is sized from the dataset's own spread, a second corrects that estimate.
MAX_ROUNDS = 2


def allowance_95(noise: float) -> float:
    """A probe's noise allowance (99% one-sided, as ``audit.json`` gives it) at 95% one-sided."""
    return noise * ALLOWANCE_Z / NOISE_Z


def samples_needed(report: AuditReport, allowance: float) -> dict[str, int]:
    """Per task, the samples at which every probe that can fail would have its allowance within ``allowance``
    points at 95% (the allowance shrinks as one over the square root of the samples), and at least
    :data:`MIN_TASK_SAMPLES`. Diagnostics and the exact delivery probes need no more."""
    need: dict[str, float] = {task: MIN_TASK_SAMPLES for task in report.tasks}
    for p in report.probes:
        if p.kind == DELIVERY or p.advisory or p.n < MIN_VERDICT_SAMPLES or p.task not in need:
            continue
        have = report.tasks[p.task]
        wanted = allowance_95(p.noise)
        if wanted <= allowance:
            continue
        need[p.task] = max(need[p.task], math.inf if allowance <= 0 else math.ceil(have * (wanted / allowance) ** 2))
    return {task: int(min(n, sys.maxsize)) for task, n in need.items()}


#: The command a dataset built by :func:`niah.api.build` records (with its builder's name after it).
API_BUILD = ("api", "build")


@dataclass(frozen=True)
class BuildRecipe:
    """How a dataset was built (its build record): the command and its options, replayed with other seeds."""

    command: tuple[str, ...]
    options: Mapping[str, Any]

    @classmethod
    def of(cls, dataset: Path) -> BuildRecipe | None:
        """The dataset's recipe, or None when it records none a builder can replay (an import, a derived or
        hand-made dataset, or a build without a seed and a ``--per-cell``)."""
        from niah.build.record import read_build_record

        record = read_build_record(dataset)
        if record is None:
            return None
        command, options = record.get("command"), record.get("options")
        if not isinstance(command, str) or not isinstance(options, dict) or (
                command.split()[:1] != ["build"] and command.split()[:2] != list(API_BUILD)):
            return None
        if any(not isinstance(options.get(k), int) or isinstance(options.get(k), bool) for k in ("seed", "per_cell")):
            return None
        if options.get("per_cell", 0) < 1:
            return None
        return cls(tuple(command.split()), options)

    @property
    def name(self) -> str:
        if self.command[:2] == API_BUILD:
            return f"niah.api.build (the {' '.join(self.command[2:])} builder)"
        return "niah " + " ".join(self.command)

    def seed(self, round_: int) -> int:
        """The seed of the ``round_``-th extra build: drawn from the dataset's seed, so the same dataset gets
        the same extra samples, and far from the small seeds people build their own reference builds with."""
        digest = hashlib.sha256(f"niah audit: more of seed {self.options['seed']}, build {round_}".encode()).digest()
        return int.from_bytes(digest[:4], "big") >> 1

    def build(self, out: Path, seed: int, per_cell: int, progress: bool) -> AuditSource:
        """The dataset's build again, with this seed and ``--per-cell``, into ``out`` (its summary goes to
        stderr: stdout is the audit's)."""
        if self.command[:2] == API_BUILD:  # built from Python: the family's builder again, with these options
            builder = _family_builder(" ".join(self.command[2:]))
            if builder is None:
                raise DataError(f"no builder for `{self.name}` in this niah")
            with contextlib.redirect_stdout(sys.stderr):
                builder.build(out, {**self.options, "seed": seed, "per_cell": per_cell}, progress)
            if not (out / "samples.jsonl").is_file():
                raise DataError(f"`{self.name}` wrote no niah dataset (samples.jsonl) at {out}")
            return AuditSource(out, built=True, about={"command": self.name, "seed": seed, "per_cell": per_cell})
        command = _family_command(self.command)
        if command is None:
            raise DataError(f"no command `{self.name}` in this niah")
        values = {**self.options, "seed": seed, "per_cell": per_cell}
        if "no_progress" in values:
            values["no_progress"] = not progress
        with contextlib.redirect_stdout(sys.stderr):
            command.main(args=[*_arguments(command, values), "--out", str(out)], prog_name=self.name,
                         standalone_mode=False)
        if not (out / "samples.jsonl").is_file():
            raise DataError(f"`{self.name}` wrote no niah dataset (samples.jsonl) at {out}")
        return AuditSource(out, built=True, about={"command": self.name, "seed": seed, "per_cell": per_cell})


def _family_builder(name: str) -> Any:
    """The :class:`~niah.benchmarks.protocol.Builder` called ``name`` of a registered family, or None."""
    from niah.benchmarks.registry import family_builders

    return next((builder for builder in family_builders() if builder.name == name), None)


def _family_command(words: tuple[str, ...]) -> Any:
    """The click command of the family command ``VERB NAME`` (``build <family>``), made from the family's own
    :class:`~niah.benchmarks.protocol.Command` as ``niah`` makes it (the audit stage sits below the command line,
    so it asks the registry, not the CLI), or None."""
    import typer
    import typer.main

    from niah.benchmarks.registry import family_commands

    if len(words) != 2:
        return None
    verb, name = words
    found = next((c for c in family_commands() if c.verb == verb and c.name == name), None)
    if found is None:
        return None
    app = typer.Typer()
    app.command(name)(found.function)
    return typer.main.get_command(app)


def _arguments(command: Any, values: Mapping[str, Any]) -> list[str]:
    """The command line that gives ``command`` these parameter values (as its build record wrote them)."""
    args: list[str] = []
    for param in command.params:
        value = values.get(param.name or "")
        # a hidden option is an old spelling the build was given (--depths): replayed as given, or the build differs
        if value is None or param.name == "out":
            continue
        if param.param_type_name == "argument":
            args.extend(str(v) for v in (value if isinstance(value, list) else [value]))
            continue
        flag = next((o for o in param.opts if o.startswith("--")), param.opts[0])
        if param.is_flag:
            if param.secondary_opts:
                args.append(flag if value else param.secondary_opts[0])
            elif value:
                args.append(flag)
        elif param.multiple:
            for item in value if isinstance(value, list) else [value]:
                args.extend([flag, str(item)])
        elif not isinstance(value, (list, dict)):
            args.extend([flag, str(value)])
    return args


def _more_per_cell(report: AuditReport, need: Mapping[str, int], limit: int) -> int:
    """How many times the dataset's ``--per-cell`` the next build takes so that every task reaches the
    samples it needs, no task going past ``limit``; 0 when none is needed or allowed."""
    own = report.sources[0].get("tasks", {}) if report.sources else {}
    factor = 0
    cap: int | None = None
    for task, have in report.tasks.items():
        base = int(own.get(task, 0))
        if base <= 0:
            continue
        room = (limit - have) // base
        cap = room if cap is None else min(cap, room)
        if need.get(task, 0) > have:
            factor = max(factor, math.ceil((need[task] - have) / base))
    return max(0, min(factor, cap if cap is not None else 0))


def audit_enough(dataset: str | Path, options: AuditOptions | None = None, *,
                 progress: bool = True) -> AuditReport:
    """Audit ``dataset``; when it records how it was built, on as many samples of its generator as every
    probe's allowance needs (:func:`samples_needed`), at most ``options.limit`` a task. The extra builds live in
    a private temporary folder, removed afterwards; the report says where each task's samples came from."""
    options = options or AuditOptions()
    report = audit_dataset(dataset, options, progress=progress)
    recipe = BuildRecipe.of(Path(dataset))
    limit = DEFAULT_LIMIT if options.limit is None else options.limit
    if recipe is None:
        return _noted(report, options, "it records no build niah can repeat (an import, or made by hand): "
                                       "audited as it is")
    own = report.sources[0].get("tasks", {}) if report.sources else {}
    if int(recipe.options["per_cell"]) > max(own.values(), default=0):
        # every builder's --per-cell is a count of samples in each task's cells: a record asking for more than
        # any task holds is not this dataset's (a record must not make the audit build something else, or huge)
        report.notes.append(f"its build record (--per-cell {recipe.options['per_cell']}) does not match its samples "
                            "(no task holds that many): audited as it is")
        return _noted(report, options, "audited as it is")
    more: list[AuditSource] = []
    why = f"{MAX_ROUNDS} builds made"  # why the allowance may still be wide when the loop ends
    with tempfile.TemporaryDirectory(prefix="niah-audit-") as tmp:  # created 0700: private to this user
        for round_ in range(MAX_ROUNDS):
            factor = _more_per_cell(report, samples_needed(report, options.allowance), limit)
            if factor == 0:
                why = f"--limit {limit} samples a task"
                break
            seed, per_cell = recipe.seed(round_), int(recipe.options["per_cell"]) * factor
            if progress:
                print(f"audit: building more samples of `{recipe.name}` (--per-cell {per_cell}, seed {seed}) for "
                      f"a noise allowance within {options.allowance:g} points", file=sys.stderr)
            try:
                more.append(recipe.build(Path(tmp) / f"more-{round_}", seed, per_cell, progress))
            except Exception as exc:  # any builder's failure (a corpus no longer there): audit what there is
                report.notes.append(f"could not build more samples with `{recipe.name}`: {exc}")
                why = "no more could be built"
                break
            report = audit_dataset(dataset, options, progress=progress, more=more)
    return _noted(report, options, why)


def _noted(report: AuditReport, options: AuditOptions, why: str) -> AuditReport:
    """The report, with a note naming the probes whose allowance is still above the target, and why."""
    wide = [p for p in report.probes if p.kind != DELIVERY and not p.advisory
            and allowance_95(p.noise) > options.allowance]
    if wide:
        shown = ", ".join(f"{p.task}/{p.probe} {allowance_95(p.noise):.1f}" for p in wide[:6])
        report.notes.append(f"{len(wide)} probe(s) with a noise allowance above {options.allowance:g} points at 95% "
                            f"({why}): {shown}{', ...' if len(wide) > 6 else ''}")
    return report


__all__ = ["ALLOWANCE_Z", "DEFAULT_LIMIT", "MIN_TASK_SAMPLES", "BuildRecipe", "allowance_95", "audit_enough",
           "samples_needed"]
