"""What a Sequential-NIAH report shows: per pipeline, accuracy per length bin (heatmaps: length bin x needle
group); breakdowns by pipeline, language and needle count (Figure 6); failure-mode shares per model (Table 8);
noise accuracy and consistency (Table 5); the paper's published accuracies beside the user's (Figure 4, Tables 5
and 8). Per-bin values are sample-weighted means over the needle groups (the paper's accuracy is a plain share
of correct samples)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.benchmarks.protocol import (
    OFFICIAL,
    Axis,
    Breakdown,
    ExtraTable,
    ReportSpec,
    ScoresFile,
    official_structure,
)
from niah.benchmarks.seq_niah.build import (
    LENGTH_BINS,
    NEEDLE_GROUPS,
    PIPELINES,
    SHORT_LENGTH_BINS,
    needle_group,
)
from niah.benchmarks.seq_niah.judge import FAILURE_MODES
from niah.report.published import PublishedResults, PublishedTable
from niah.report.tables import PublishedSection, TableRow, format_pct
from niah.util.errors import DataError

if TYPE_CHECKING:
    from niah.report.inputs import ReportInput

LENGTH_LABELS: tuple[str, ...] = tuple(LENGTH_BINS)
GROUP_LABELS: tuple[str, ...] = tuple(NEEDLE_GROUPS)
NOISE_KINDS = ("tiny-move", "big-move", "reorder", "semantic", "all")
TASK_TITLES = {"synthetic-temporal": "Synthetic temporal (diaries)", "real-temporal": "Real temporal (relations)",
               "real-logical": "Real logical (steps)", "test": "Official test set", "unknown": "Unknown pipeline"}


def _index(labels: tuple[str, ...]) -> Any:
    return lambda value: labels.index(value) if value in labels else None


#: Every length bin the builder draws from (the paper's and the short ones), by name: (low, high) tokens.
ALL_LENGTH_BINS: dict[str, tuple[int, int]] = LENGTH_BINS | SHORT_LENGTH_BINS


def _bin_name(value: Any) -> str | None:
    return value if isinstance(value, str) and value in ALL_LENGTH_BINS else None


def _bin_floor(value: Any) -> int:
    return ALL_LENGTH_BINS[value][0]


def length_axis(title: str) -> Axis:
    """Length-bin columns: the paper's four bins (all of them) when every sample is on them, as official and
    default builds are; otherwise one column per bin present across the report's runs, ordered by length (a
    ``--lengths 2k-4k,4k-8k`` build has those two columns, not four empty ones)."""
    official = Axis(title, "length_bin", LENGTH_LABELS, _index(LENGTH_LABELS))
    return Axis.from_data(title, "length_bin", _bin_name, order=_bin_floor, grid=official)


def _num_bins(task_scores: Mapping[str, Sequence[float]]) -> int:
    """The number of length columns the scores are on (the official four for a scores file)."""
    return len(next(iter(task_scores.values()))) if task_scores else len(LENGTH_LABELS)


def per_bin(acc: list[list[float]]) -> list[float]:
    """Unweighted mean over the needle groups (used only without counts)."""
    return [sum(row[c] for row in acc) / len(acc) for c in range(len(acc[0]))]


def per_bin_weighted(acc: list[list[float]], counts: list[list[int]]) -> list[float]:
    """Share of correct samples per length bin: the cells' accuracies weighted by their sample counts."""
    out = []
    for c in range(len(acc[0])):
        n = sum(row[c] for row in counts)
        out.append(sum(acc[r][c] * counts[r][c] for r in range(len(acc))) / n if n else 0.0)
    return out


def overall(task_scores: Mapping[str, Sequence[float]]) -> list[float] | None:
    """Mean over the pipelines present, per length bin (without counts: every pipeline counts in every bin)."""
    if not task_scores:
        return None
    rows = list(task_scores.values())
    return [sum(r[c] for r in rows) / len(rows) for c in range(_num_bins(task_scores))]


def overall_counted(task_scores: Mapping[str, Sequence[float]],
                    counts: Mapping[str, Sequence[int]]) -> tuple[list[float], list[int]] | None:
    """Per length bin, the mean over the pipelines that have samples in it (a pipeline without samples there is
    not a 0), and the samples of the bin (0: no pipeline has any, printed as -)."""
    if not task_scores:
        return None
    values: list[float] = []
    totals: list[int] = []
    num_bins = _num_bins(task_scores)
    for c in range(num_bins):
        present = [task_scores[t][c] for t in task_scores if (counts.get(t) or [0] * num_bins)[c] > 0]
        values.append(sum(present) / len(present) if present else 0.0)
        totals.append(sum((counts.get(t) or [0] * num_bins)[c] for t in task_scores))
    return values, totals


def read_scores(doc: Any, path: Path) -> ScoresFile:
    """A seq-niah ``scores.json`` (niah score): per task, accuracy per length bin (percent, in the current
    layout's ``official`` as in older files)."""
    doc, _in_percent = official_structure(doc, "seq-niah")
    if not isinstance(doc, dict) or doc.get("benchmark") != "seq-niah" or not isinstance(doc.get("tasks"), dict):
        raise DataError("not a Sequential-NIAH scores.json (no 'tasks')", file=path)
    tasks = {task: bins for task, bins in doc["tasks"].items() if isinstance(bins, dict)}
    task_scores = {task: [float((bins.get(b) or {}).get("accuracy", 0.0)) / 100 for b in LENGTH_LABELS]
                   for task, bins in tasks.items()}
    counts = {task: [int((bins.get(b) or {}).get("n", 0)) for b in LENGTH_LABELS] for task, bins in tasks.items()}
    counted = overall_counted(task_scores, counts)
    return ScoresFile(task_scores=task_scores, overall=counted[0] if counted else None, split=None,
                      benchmark="seq-niah", scoring=str(doc.get("scoring") or OFFICIAL), bin_counts=counts,
                      overall_counts=counted[1] if counted else None)


class _PaperResults(PublishedResults):
    """The paper's overall accuracies (Figure 4), labelled as a figure measured with the paper's own judge."""

    def section(self, task: str) -> PublishedSection | None:
        found = super().section(task)
        if found is not None:
            found.label = ("Published: Sequential-NIAH paper, Figure 4 (overall accuracy on its 2,000 test samples, "
                           "graded by its fine-tuned judge)")
        return found


def published() -> PublishedResults:
    from niah.benchmarks.seq_niah import published as paper

    doc = paper()
    rows = tuple(TableRow(model=m, values=(None,) * len(LENGTH_LABELS), overall=float(v))
                 for m, v in doc["overall"].items())
    notes = {m: f"model version {v}" for m, v in (doc.get("model_versions") or {}).items()}
    protocol = {"benchmark": "seq-niah", "scoring": OFFICIAL, "split": (doc.get("protocol") or {}).get("split")}
    return _PaperResults(protocol=protocol, source=dict(doc["source"]),
                         model_notes=notes, tables={"overall": PublishedTable(4, "overall", "Figure 4", rows)},
                         source_label="Sequential-NIAH paper")


def _scores_doc(inp: ReportInput) -> dict[str, Any] | None:
    path = inp.path / "scores.json" if inp.kind == "run" else inp.path
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    structure, _in_percent = official_structure(doc, "seq-niah")  # percent in both layouts
    return structure if isinstance(structure, dict) else None


def _share(count: Any, total: Any) -> str:
    return f"{format_pct(100.0 * count / total)}% ({count})" if total else "-"


def extra_tables(inputs: Sequence[ReportInput]) -> list[ExtraTable]:
    from niah.benchmarks.seq_niah import published as paper

    doc = paper()
    docs = [(inp.name, _scores_doc(inp)) for inp in inputs]
    tables: list[ExtraTable] = []
    header = ("Model", *FAILURE_MODES, "incorrect samples")
    rows = []
    for name, scores in docs:
        fm = (scores or {}).get("failure_modes")
        if isinstance(fm, dict):
            total = fm.get("incorrect_samples", 0)
            rows.append((name, *(_share(fm.get(m, 0), total) for m in FAILURE_MODES), str(total)))
    if rows:
        for model, counts in doc["failure_modes"]["models"].items():
            total = counts["incorrect_samples"]
            rows.append((f"{model} (paper)", *(_share(counts[m], total) for m in FAILURE_MODES), str(total)))
        tables.append(ExtraTable(
            "Failure modes (Table 8 layout): share of incorrect samples showing each mode", header, tuple(rows),
            "A sample may show several modes, so shares add up to more than 100%. Paper rows: its fine-tuned "
            "judge on 2,000 test samples."))
    noise_rows = []
    for name, scores in docs:
        noise = (scores or {}).get("noise")
        if not isinstance(noise, dict):
            continue
        kinds = noise.get("kinds") or {}
        noise_rows.append((name, "base", format_pct(noise.get("base_accuracy")), "-", "-", "-",
                           str(noise.get("bases", "-"))))
        for kind in NOISE_KINDS:
            k = kinds.get(kind)
            if isinstance(k, dict):
                noise_rows.append((name, kind, f"{format_pct(k['accuracy'])} ± {format_pct(k['accuracy_std'])}",
                                   format_pct(k["consistency"]), format_pct(k["consistently_correct"]),
                                   format_pct(k["consistently_wrong"]), str(k["bases"])))
    if noise_rows:
        for model, entry in doc["noise"]["models"].items():
            noise_rows.append((f"{model} (paper)", "base", format_pct(entry["ref"]), "-", "-", "-", "200"))
            for kind in NOISE_KINDS:
                if kind in entry["acc"]:
                    acc, std = entry["acc"][kind]
                    noise_rows.append((f"{model} (paper)", kind, f"{format_pct(acc)} ± {format_pct(std)}",
                                       format_pct(entry["cons"].get(kind)), "-", "-", "200"))
        tables.append(ExtraTable(
            "Noise (Table 5 layout): accuracy (mean ± std over variant rounds) and consistency",
            ("Model", "Noise", "Accuracy", "Consistency", "Consistently correct", "Consistently wrong", "Bases"),
            tuple(noise_rows),
            "Consistency: share of base samples judged the same on the base and on every variant of the kind "
            "(all: every variant of every kind), split into consistently correct and consistently wrong."))
    fig7 = []
    for name, scores in docs:
        noise = (scores or {}).get("noise")
        if not isinstance(noise, dict):
            continue
        for field, title, order in (("length_bin", "length", LENGTH_LABELS), ("needle_group", "needles",
                                                                              GROUP_LABELS)):
            by = noise.get(f"by_{field}") or {}
            for value in [v for v in order if v in by] + sorted(set(by) - set(order)):
                k = by[value]
                fig7.append((name, f"{title} {value}", format_pct(k["consistency"]),
                             format_pct(k["consistently_correct"]), format_pct(k["consistently_wrong"]),
                             str(k["bases"])))
    if fig7:
        tables.append(ExtraTable(
            "Noise consistency by length and needle count (Figure 7 layout), all noise kinds together",
            ("Model", "Group", "Consistency", "Consistently correct", "Consistently wrong", "Bases"), tuple(fig7),
            "A group holds the base samples of that length bin or needle group; consistency: judged the same on "
            "the base and on every variant."))
    return tables


SPEC = ReportSpec(
    columns=length_axis("Input length (tokens)"),
    rows=Axis("Needles", "needle_group", GROUP_LABELS, _index(GROUP_LABELS)),
    per_bin=per_bin,
    per_bin_weighted=per_bin_weighted,
    weighted_overall=True,
    overall=overall,
    overall_counted=overall_counted,
    task_order=(*PIPELINES, "test"),
    task_titles=TASK_TITLES,
    overall_title="Overall (mean of the pipelines)",
    table_prefix="seq_niah_",
    read_scores=read_scores,
    published=published,
    unbinned_note="outside the report's length bins",
    footnote="Values: share of samples the deterministic order-aware judge marks correct, x100, per length bin "
             "(samples weighted over needle groups). The paper's numbers come from its own fine-tuned judge.",
    breakdowns=(
        Breakdown("By pipeline", "pipeline", None, PIPELINES),
        Breakdown("By language", "lang", lambda v: str(v).upper(), ("EN", "ZH")),
        Breakdown("By needle count", "num_needles", lambda n: needle_group(int(n)) if isinstance(n, int) else None,
                  GROUP_LABELS),
        Breakdown("By noise kind", "noise_kind", None, ("base", *NOISE_KINDS[:-1])),
    ),
    distributions=(
        length_axis("Length bin"),
        Axis("Needles", "num_needles", tuple(str(n) for n in range(3, 16)),
             lambda n: n - 3 if isinstance(n, int) and 3 <= n <= 15 else None),
    ),
    extra_tables=extra_tables,
)
