"""Build a report folder from loaded inputs: tables (Markdown, CSV, LaTeX), heatmaps, HTML, report.json.

Layout of DIR:
  index.html                   inputs, overall and per-task tables (with published rows), heatmaps
  samples-<slug>.html          sample browser of one run (filters by task, length, depth, correctness)
  tables.md                    every table in Markdown, in report order
  tables/<family prefix><key>.{md,csv,tex}
  tables/leaderboard.{md,csv}  (2+ inputs) one row per input across families: overall, n samples, 95% interval
  report.json                  the numbers behind the tables, for scripts (2+ inputs: side_by_side_heatmaps, and
                               noise: table slug -> the noise note's lines)
  assets/                      report.css, report.js, samples.js, heatmaps/<slug>/<task>.png,
                               heatmaps/compare/<n>-<family>/<task>.png (2+ runs of a family: a panel per run),
                               distributions/<slug>.png (the family's distribution axes),
                               charts/<n>-<family>-accuracy-vs-length.png (2+ inputs; a line per input, 95% intervals),
                               samples/<slug>/{index,chunk-NNNNN}.js, thumbs/*.jpg
  .niah-report.json            the marker: niah wrote this folder (version, time); only such a folder is replaced
The whole folder is written beside DIR and swapped in at the end; nothing outside DIR is referenced.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from niah import __version__
from niah.benchmarks.protocol import ReportSpec
from niah.report.assets import REPORT_CSS, REPORT_JS, SAMPLES_JS
from niah.report.audit_section import InputAudit, audit_html, audit_markdown, find_audits
from niah.report.compare import (
    LeaderboardRow,
    LengthChart,
    charts_html,
    charts_json,
    leaderboard,
    leaderboard_csv,
    leaderboard_html,
    leaderboard_json,
    leaderboard_markdown,
    write_length_charts,
)
from niah.report.distributions import (
    DistributionPlot,
    distributions_html,
    distributions_json,
    write_distributions,
)
from niah.report.heatmap import (
    HeatmapPanel,
    cell_legend,
    compare_figsize,
    heatmap_size_px,
    write_compare_heatmap,
    write_heatmap,
)
from niah.report.html import CompareLink, HeatmapLink, InputSummary, index_page, samples_page
from niah.report.inputs import ReportInput
from niah.report.intervals import input_intervals, with_intervals
from niah.report.noise import noise_lines
from niah.report.published import PublishedResults
from niah.report.samples import THUMBS_DIR, BrowserOptions, ThumbnailWriter, write_sample_browser
from niah.report.tables import (
    INTERVALS_LEGEND,
    INTERVALS_READING,
    OVERALL_KEY,
    PublishedSection,
    ResultTable,
    breakdowns_html,
    breakdowns_markdown,
    extra_tables_html,
    extra_tables_markdown,
    ordered_tasks,
    row_from_bin_scores,
    scoring_modes_html,
    scoring_modes_markdown,
    to_csv,
    to_latex,
    to_markdown,
)
from niah.util import interrupts
from niah.util.errors import ConfigError
from niah.util.iox import replace_dir, write_atomic, write_json_atomic


@dataclass(slots=True)
class ReportOptions:
    published: bool = True           # show a family's published rows when the protocol matches
    title: str = "niah report"
    browser: BrowserOptions = field(default_factory=BrowserOptions)
    sample_browser: bool = True


@dataclass(slots=True)
class ReportResult:
    out: Path
    index_html: Path
    tables: list[ResultTable]
    table_files: list[Path]
    heatmaps: list[Path]
    sample_pages: list[Path]
    notes: list[str]
    distributions: list[Path] = field(default_factory=list)
    charts: list[Path] = field(default_factory=list)            # accuracy-vs-length PNGs, one per family
    leaderboard_files: list[Path] = field(default_factory=list)  # tables/leaderboard.{md,csv}
    compare_heatmaps: list[Path] = field(default_factory=list)  # side-by-side heatmaps (2+ runs of a family)


def slugify(text: str, *, max_len: int = 40) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:max_len]
    return slug or "input"


def task_title(spec: ReportSpec | None, key: str) -> str:
    if spec is None:
        return key
    return spec.overall_title if key == OVERALL_KEY else spec.task_titles.get(key, key)


def group_by_spec(inputs: Sequence[ReportInput]) -> list[tuple[ReportSpec, list[ReportInput]]]:
    """Inputs grouped by family report spec, in input order; inputs without one make no tables."""
    groups: list[tuple[ReportSpec, list[ReportInput]]] = []
    for inp in inputs:
        if inp.spec is None:
            continue
        for spec, members in groups:
            if spec is inp.spec:
                members.append(inp)
                break
        else:
            groups.append((inp.spec, [inp]))
    return groups


def fit_published(section: PublishedSection | None, num_columns: int) -> PublishedSection | None:
    """``section`` with rows as wide as the table: a row with no per-bin number (an overall only, as a paper
    figure gives) is padded or cut to the table's bins, which may be made from the data; a section whose rows
    hold per-bin numbers on other bins is left out (its numbers would stand under the wrong columns)."""
    if section is None or all(len(row.values) == num_columns for row in section.rows):
        return section
    if any(value is not None for row in section.rows for value in row.values):
        return None
    rows = [dataclasses.replace(row, values=(None,) * num_columns, value_intervals=()) for row in section.rows]
    return dataclasses.replace(section, rows=rows)


def build_tables(inputs: Sequence[ReportInput],
                 published: PublishedResults | dict[int, PublishedResults | None] | None) -> list[ResultTable]:
    """Per family: the overall table (inputs that have an overall) then one table per task, one row per input.
    ``published`` is a family's published results (one family) or, by ``id(spec)``, each family's."""
    tables: list[ResultTable] = []
    for spec, members in group_by_spec(inputs):
        paper = published.get(id(spec)) if isinstance(published, dict) else published
        intervals = {id(inp): input_intervals(inp) for inp in members}
        columns = spec.columns.labels
        tasks = ordered_tasks({t for inp in members for t in inp.task_scores}, spec.task_order)
        weighted = spec.weighted_overall
        overall_inputs = [inp for inp in members if inp.overall is not None]
        overall_rows = [with_intervals(row_from_bin_scores(inp.name, inp.overall, len(columns), overall_counts(inp),
                                                           weighted=weighted, shown=inp.covered_overall),
                                       intervals[id(inp)].get(OVERALL_KEY))
                        for inp in overall_inputs if inp.overall is not None]
        if overall_rows:
            table = ResultTable(key=OVERALL_KEY, title=task_title(spec, OVERALL_KEY), rows=overall_rows,
                                published=fit_published(paper.section(OVERALL_KEY) if paper else None,
                                                        len(columns)), columns=columns,
                                prefix=spec.table_prefix, empty_bins_zero=spec.empty_bins_count_zero)
            table.noise = noise_lines(table, overall_inputs)
            tables.append(table)
        for task in tasks:
            task_inputs = [inp for inp in members if task in inp.task_scores]
            rows = [with_intervals(row_from_bin_scores(inp.name, inp.task_scores[task], len(columns),
                                                       inp.bin_counts.get(task), weighted=weighted,
                                                       shown=inp.covered_scores.get(task)),
                                   intervals[id(inp)].get(task))
                    for inp in task_inputs]
            table = ResultTable(key=task, title=task_title(spec, task), rows=rows,
                                published=fit_published(paper.section(task) if paper else None, len(columns)),
                                columns=columns,
                                prefix=spec.table_prefix, empty_bins_zero=spec.empty_bins_count_zero)
            table.noise = noise_lines(table, task_inputs)
            tables.append(table)
    return _distinct_slugs(tables)


def _distinct_slugs(tables: list[ResultTable]) -> list[ResultTable]:
    """A table whose file name another table already has (one family's task in two groups of inputs with their
    own axes: their headers tell them apart) gets a number after it, so that neither file is overwritten."""
    seen: dict[str, int] = {}
    for table in tables:
        slug = table.slug
        seen[slug] = seen.get(slug, 0) + 1
        if seen[slug] > 1:
            table.slug_suffix = f"_{seen[slug]}"
    return tables


def overall_counts(inp: ReportInput) -> list[int] | None:
    """Samples per bin over all tasks (a bin of the overall is empty when it is empty in every task), or the
    family's own counts (0 where its overall is undefined)."""
    if inp.overall_counts is not None:
        return list(inp.overall_counts)
    if not inp.bin_counts or set(inp.bin_counts) != set(inp.task_scores):
        return None
    return [sum(col) for col in zip(*inp.bin_counts.values(), strict=True)]


def _family_title(spec: ReportSpec, members: Sequence[ReportInput]) -> str:
    """The title of the family whose report ``spec`` is: the registered spec itself, or (a spec whose axes
    were made from the inputs' data is a copy) the family its inputs name."""
    from niah.benchmarks.registry import families, find_family

    for family in families():
        if family.report is not None and family.report() is spec:
            return family.title
    for inp in members:
        named = find_family(inp.benchmark) if inp.benchmark else None
        if named is not None:
            return named.title
    return "published"


def _published_for(inputs: Sequence[ReportInput], enabled: bool,
                   notes: list[str]) -> dict[int, PublishedResults | None]:
    """Each family's published results, by ``id(spec)``, where every input of that family matches the
    protocol they were measured under."""
    shown: dict[int, PublishedResults | None] = {}
    if not enabled:
        return shown
    for spec, members in group_by_spec(inputs):
        if spec.published is None:
            continue
        paper = spec.published()
        mismatched = [inp for inp in members if not paper.matches(benchmark=inp.benchmark, scoring=inp.scoring)]
        if mismatched:
            wanted = paper.protocol.get("benchmark")
            notes.append(f"published {_family_title(spec, members)} rows are not shown: "
                         + "; ".join(f"{inp.name} is benchmark {inp.benchmark or 'unknown'} with {inp.scoring} "
                                     "scoring" for inp in mismatched)
                         + f" (they need benchmark {wanted} with official scoring)")
            continue
        split = paper.protocol.get("split")
        other = sorted({inp.split for inp in members if inp.split and inp.split != split})
        if other and split:  # a paper that names no split has nothing to compare against
            notes.append(f"the published rows are from the {split} split; this report's inputs use "
                         f"{', '.join(other)}: compare with care")
        shown[id(spec)] = paper
    return shown


def _report_json(inputs: Sequence[ReportInput], tables: list[ResultTable], published: bool) -> dict[str, Any]:
    return {
        "format_version": 1,
        "inputs": [{"name": inp.name, "path": str(inp.path), "kind": inp.kind, "benchmark": inp.benchmark,
                    "scoring": inp.scoring, "split": inp.split, "rows": inp.num_rows,
                    "scores": {**inp.task_scores, **({OVERALL_KEY: inp.overall} if inp.overall else {})},
                    "cells": {t: {"acc": c.acc, "counts": c.counts, "unbinned": c.unbinned}
                              for t, c in inp.cells.items()}}
                   for inp in inputs],
        "tables": [t.key for t in tables],
        "published_shown": published,
    }


def incomplete_notes(inputs: Sequence[ReportInput]) -> list[str]:
    """One line per input whose run is incomplete: its answered / failed / skipped / missing counts."""
    out = []
    for inp in inputs:
        rs = inp.run_status
        if rs is not None and inp.incomplete:
            out.append(f"{inp.name}: {rs.get('answered')} answered, {rs.get('failed')} failed, "
                       f"{rs.get('skipped')} skipped, {rs.get('missing')} missing of {rs.get('total')} samples; "
                       "failed and skipped samples score 0 in its figures, missing ones are left out")
    return out


def gold_missing_notes(inputs: Sequence[ReportInput]) -> list[str]:
    """One line per run input with samples that have no gold answer (``run_status.no_gold``): not scored."""
    out = []
    for inp in inputs:
        missing = (inp.run_status or {}).get("no_gold")
        if isinstance(missing, int) and missing > 0:
            out.append(f"{inp.name}: gold answers are missing for {missing} answered sample(s) (a test split whose "
                       "ground truth is private); they are not scored"
                       + ("" if inp.num_rows else ", so this input has no scores"))
    return out


def judge_injection_notes(inputs: Sequence[ReportInput]) -> list[str]:
    """One line per run whose judge verdicts include some on replies holding judge-like instructions."""
    from niah.benchmarks.protocol import JUDGE_INJECTION_KEY

    out = []
    for inp in inputs:
        flagged = (inp.run_status or {}).get(JUDGE_INJECTION_KEY)
        if isinstance(flagged, int) and flagged > 0:
            out.append(f"{inp.name}: {flagged} judge verdict(s) are on replies holding judge-like instructions "
                       f"(a score or verdict asked of the judge); they may have been steered: see "
                       f"{JUDGE_INJECTION_KEY} in scored.jsonl")
    return out


def _footnotes(inputs: Sequence[ReportInput]) -> list[str]:
    notes: list[str] = []
    for spec, _members in group_by_spec(inputs):
        if spec.footnote and spec.footnote not in notes:
            notes.append(spec.footnote)
    return notes


#: The file in a report folder saying niah wrote it (and which version, when): only such a folder is replaced.
REPORT_MARKER = ".niah-report.json"
#: What a report folder written before the marker existed holds; such a folder is replaced too.
_LEGACY_REPORT_FILES = ("index.html", "tables.md", "report.json", "assets/report.css")


def check_report_out(out: Path) -> None:
    """Refuse an ``--out`` that is not a report folder niah wrote: a file, or a non-empty folder with neither
    the marker nor the files of an older niah report (it may be the user's own), or one with no name of its own
    (``.``, ``/``: the report is swapped in by renaming the folder)."""
    name = Path(os.path.abspath(out)).name
    if not name:
        raise ConfigError(f"report folder {out} is the file system root; choose another --out")
    if not out.exists():
        return
    if not out.is_dir():
        raise ConfigError(f"report folder {out} exists and is not a folder; choose another --out")
    if (out / REPORT_MARKER).is_file() or all((out / name).is_file() for name in _LEGACY_REPORT_FILES):
        return
    if any(out.iterdir()):
        raise ConfigError(f"{out} is not empty and was not written by niah report (no {REPORT_MARKER}); "
                          "it is left alone: choose another --out, or empty it first")


def _files_under(folder: Path) -> list[str]:
    """Every file under ``folder`` (links and empty folders included, nothing followed), as sorted POSIX paths
    relative to it."""
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            found.append(Path(root, name).relative_to(folder).as_posix())
        if not files and not dirs and Path(root) != folder:
            found.append(Path(root).relative_to(folder).as_posix())
    return sorted(found)


def _niah_wrote(out: Path) -> set[str] | None:
    """The files the earlier report in ``out`` wrote, as its marker lists them (None: no list, an older niah)."""
    try:
        recorded = json.loads((out / REPORT_MARKER).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(recorded, list) or not all(isinstance(f, str) for f in recorded):
        return None
    return set(recorded)


#: A thumbnail niah draws: its name is a digest of the source image's path, size and time.
_THUMB_NAME = re.compile(re.escape(THUMBS_DIR) + r"/[0-9a-f]{24}\.jpg")


def _thumb_digests(staging: Path, written: Sequence[str]) -> dict[str, str]:
    """The SHA-256 of each thumbnail the report holds, for the marker: the next report into the folder reuses a
    thumbnail only while it is unchanged."""
    return {rel: hashlib.sha256((staging / rel).read_bytes()).hexdigest() for rel in written
            if _THUMB_NAME.fullmatch(rel)}


def _earlier_thumbs(out: Path) -> dict[str, Path]:
    """The thumbnails the earlier report in ``out`` drew that are unchanged since (their SHA-256 as its marker
    recorded): reused instead of drawn again. A file changed since, or one niah did not draw, is never taken
    for a thumbnail; a report written before the digests were recorded has its thumbnails drawn again."""
    try:
        recorded = json.loads((out / REPORT_MARKER).read_text(encoding="utf-8")).get("thumbs")
    except (OSError, ValueError, AttributeError):
        return {}
    found: dict[str, Path] = {}
    for rel, digest in (recorded.items() if isinstance(recorded, dict) else ()):
        if not (isinstance(rel, str) and isinstance(digest, str) and _THUMB_NAME.fullmatch(rel)):
            continue
        path = out / rel
        try:
            if stat.S_ISREG(os.lstat(path).st_mode) and hashlib.sha256(path.read_bytes()).hexdigest() == digest:
                found[rel] = path
        except OSError:
            continue
    return found


def _niah_drew(rel: str, ours: set[str] | None) -> bool:
    """Whether ``rel`` in an earlier report folder is niah's own file (``ours``: its marker's list; None: an
    older niah that kept no list). In the thumbnail folder only names niah draws are ever its own: a file the
    user put there is kept even where an older marker listed it."""
    if rel.startswith(f"{THUMBS_DIR}/"):
        return _THUMB_NAME.fullmatch(rel) is not None and (ours is None or rel in ours)
    return ours is not None and rel in ours


def _keep_user_files(out: Path, staging: Path, new_files: set[str], moved: list[str]) -> None:
    """Move into ``staging`` every file of the earlier report folder ``out`` that niah did not write there (by
    the marker's list; without one, every file the new report does not write), so that swapping ``staging`` in
    deletes only niah's own files (``moved`` collects each as it goes, for :func:`_put_back`). A file of the
    user's where the new report writes one is refused, not lost."""
    if not out.is_dir():
        return
    ours = _niah_wrote(out)
    moves: list[str] = []
    new_dirs = {parent.as_posix() for f in new_files for parent in Path(f).parents}
    for rel in _files_under(out):
        if rel == REPORT_MARKER or _niah_drew(rel, ours):
            continue
        if rel in new_files or rel in new_dirs:
            if ours is None:
                continue  # an older niah report's own file, written again now
            raise ConfigError(f"{out / rel} was not written by niah report but the new report writes a file of that "
                              "name; move it away and report again (nothing was replaced)")
        if any(parent.as_posix() in new_files for parent in Path(rel).parents):
            raise ConfigError(f"{out / rel} lies where the new report writes a file; move it away and report again")
        moves.append(rel)
    for rel in moves:  # every refusal above came before the first move
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        os.rename(out / rel, staging / rel)
        moved.append(rel)


def _put_back(moved: list[str], staging: Path, out: Path) -> None:
    """Undo :func:`_keep_user_files` when the report fails before the swap: the user's files go home."""
    for rel in moved:
        if os.path.lexists(staging / rel):
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.rename(staging / rel, out / rel)


def build_report(inputs: Sequence[ReportInput], out: str | Path,
                 options: ReportOptions | None = None,
                 progress: Callable[[str], None] | None = None) -> ReportResult:
    """Write the whole report for ``inputs`` into ``out`` and return what was written; ``progress(line)`` hears
    each stage as it starts (the sample browser of a large run takes a while).

    The report is written into a fresh sibling folder, marked (:data:`REPORT_MARKER`) and then swapped in for
    ``out``, so a report killed half-way never leaves new tables beside an old index; ``out`` must be absent,
    empty or a report niah wrote (:func:`check_report_out`). Thumbnails of the old report that are unchanged
    (their SHA-256 as its marker recorded) are reused (they are named by their source's path, size and mtime);
    the user's files there, thumbnail folder included, are kept (:func:`_keep_user_files`)."""
    out = Path(os.path.abspath(out))  # "." and "..": the swap renames the folder by its own name
    check_report_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for stale in out.parent.glob(f".{glob.escape(out.name)}.new-*"):  # left by a killed report
        shutil.rmtree(stale, ignore_errors=True)
    staging: Path | None = None
    kept: list[str] = []
    try:
        with interrupts.deferred():  # a stop between creating the folder and naming it here would leave it
            staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        os.chmod(staging, 0o755)  # mkdtemp makes 0700; a report is meant to be shared
        result = _write_report(inputs, staging, options or ReportOptions(), progress or (lambda _line: None),
                               earlier_thumbs=_earlier_thumbs(out))
        written = _files_under(staging)
        _keep_user_files(out, staging, set(written), kept)
        write_json_atomic(staging / REPORT_MARKER, {"written_by": "niah report", "niah_version": __version__,
                                                    "created": datetime.now(UTC).isoformat(timespec="seconds"),
                                                    "files": written, "thumbs": _thumb_digests(staging, written)})
        replace_dir(staging, out)
    except BaseException:
        if staging is not None:
            _put_back(kept, staging, out)
            shutil.rmtree(staging, ignore_errors=True)
        raise

    def moved(path: Path) -> Path:
        return out / path.relative_to(staging)

    return dataclasses.replace(
        result, out=out, index_html=moved(result.index_html), table_files=[moved(p) for p in result.table_files],
        heatmaps=[moved(p) for p in result.heatmaps], sample_pages=[moved(p) for p in result.sample_pages],
        distributions=[moved(p) for p in result.distributions], charts=[moved(p) for p in result.charts],
        leaderboard_files=[moved(p) for p in result.leaderboard_files],
        compare_heatmaps=[moved(p) for p in result.compare_heatmaps])



def write_compare_heatmaps(out: Path, inputs: Sequence[ReportInput]) -> list[CompareLink]:
    """Per family with two runs or more, one side-by-side figure per task (a panel per run that has the task,
    binned on the same row axis as the first such run): ``assets/heatmaps/compare/<n>-<family>/<task>.png``.
    A run binned on another row axis (one built from its own data) is left out of that figure and named in
    its caption."""
    links: list[CompareLink] = []
    for index, (spec, members) in enumerate(group_by_spec(inputs)):
        binned = [inp for inp in members if inp.cells]
        if len(binned) < 2:
            continue
        family = next((m.benchmark for m in binned if m.benchmark), None) or "family"
        for task in ordered_tasks({t for inp in binned for t in inp.cells}, spec.task_order):
            having = [inp for inp in binned if task in inp.cells]
            axes = [inp.rows_axis if inp.rows_axis is not None else spec.rows for inp in having]
            rows_axis = axes[0]
            # the same bins, labelled alike (an axis made from one input's data is a new object each time)
            shown = [inp for inp, axis in zip(having, axes, strict=True) if axis is not None and rows_axis is not None
                     and (axis.labels, axis.edges, axis.title) == (rows_axis.labels, rows_axis.edges, rows_axis.title)]
            if rows_axis is None or len(shown) < 2:
                continue
            rel = f"assets/heatmaps/compare/{index + 1}-{slugify(family)}/{slugify(task)}.png"
            panels = [HeatmapPanel(inp.name, inp.cells[task].acc, inp.cells[task].counts) for inp in shown]
            title = task_title(spec, task)
            write_compare_heatmap(out / rel, panels, f"{family}: {title}, {len(panels)} models",
                                  x=spec.columns, y=rows_axis, colors=spec.heatmap_colors)
            width, height = heatmap_size_px(compare_figsize(len(panels)))
            links.append(CompareLink(task=task, title=title, src=rel, models=[inp.name for inp in shown],
                                     left_out=[inp.name for inp in having if inp not in shown],
                                     width=width, height=height,
                                     legend=cell_legend([panel.counts for panel in panels])))
    return links


@dataclass(frozen=True)
class _TableFiles:
    """The tables as written: every table file, the download links (label, path), the audits found beside the
    inputs and the incomplete-run notes (the index shows both)."""

    files: list[Path]
    downloads: list[tuple[str, str]]
    audits: list[InputAudit]
    incomplete: list[str]


@dataclass(frozen=True)
class _Heatmaps:
    """Each run's heatmaps (one per task): the index's links and the files written."""

    links: list[HeatmapLink]
    files: list[Path]


@dataclass(frozen=True)
class _ManyModels:
    """The views of two inputs or more (none for one): accuracy-vs-length charts, the leaderboard and its files."""

    charts: list[LengthChart] = field(default_factory=list)
    board: list[LeaderboardRow] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class _Browsers:
    """Each input's summary for the index, and the sample browser pages written."""

    summaries: list[InputSummary]
    pages: list[Path]


def _write_report(inputs: Sequence[ReportInput], out: Path, options: ReportOptions,
                  say: Callable[[str], None], *, earlier_thumbs: Mapping[str, Path]) -> ReportResult:
    """Write every file of the report for ``inputs`` into ``out`` (the staging folder), stage by stage;
    ``earlier_thumbs``: the earlier report's unchanged thumbnails, reused."""
    say(f"report: tables for {len(inputs)} input(s)")
    out.mkdir(parents=True, exist_ok=True)
    notes: list[str] = gold_missing_notes(inputs) + judge_injection_notes(inputs)
    write_atomic(out / "assets" / "report.css", REPORT_CSS)
    write_atomic(out / "assets" / "report.js", REPORT_JS)
    write_atomic(out / "assets" / "samples.js", SAMPLES_JS)
    slugs = [f"{i + 1}-{slugify(inp.name)}" for i, inp in enumerate(inputs)]
    published = _published_for(inputs, options.published, notes)
    tables = build_tables(inputs, published)
    table_files = _write_tables(out, inputs, tables, options.title)
    say("report: heatmaps")
    heatmaps = _write_heatmaps(out, inputs, slugs)
    compare_links = write_compare_heatmaps(out, inputs) if len(inputs) >= 2 else []
    distribution_plots = write_distributions(out, inputs, slugs)  # the family's ReportSpec.distributions
    many = _write_many_model_views(out, inputs, table_files.downloads, say)
    browsers = _write_sample_browsers(out, inputs, slugs, options, notes, say, earlier_thumbs)
    index = out / "index.html"
    write_atomic(index, index_page(title=options.title, inputs=browsers.summaries, tables=tables,
                                   heatmaps=heatmaps.links, compare_heatmaps=compare_links,
                                   downloads=table_files.downloads, notes=notes,
                                   modes_html=scoring_modes_html(inputs) + breakdowns_html(inputs)
                                   + extra_tables_html(inputs) + distributions_html(distribution_plots)
                                   + audit_html(table_files.audits),
                                   footnotes=_footnotes(inputs), reading=INTERVALS_READING if tables else (),
                                   incomplete=table_files.incomplete,
                                   compare_html=(leaderboard_html(many.board, [("Markdown", "tables/leaderboard.md"),
                                                                               ("CSV", "tables/leaderboard.csv")])
                                                 + charts_html(many.charts)) if many.files else ""))
    _write_report_json(out, inputs, tables, bool(published), distribution_plots, many, compare_links)
    return ReportResult(out=out, index_html=index, tables=tables, table_files=table_files.files,
                        heatmaps=heatmaps.files, sample_pages=browsers.pages, notes=notes,
                        distributions=[out / p.src for p in distribution_plots],
                        charts=[out / c.src for c in many.charts], leaderboard_files=many.files,
                        compare_heatmaps=[out / c.src for c in compare_links])


def _write_tables(out: Path, inputs: Sequence[ReportInput], tables: list[ResultTable], title: str) -> _TableFiles:
    """Each table as Markdown, CSV and LaTeX under ``tables/``, and ``tables.md``: every table with the scoring
    modes, breakdowns, family tables and audits, under a banner per incomplete run."""
    files: list[Path] = []
    downloads: list[tuple[str, str]] = []
    for table in tables:
        for ext, render in (("md", to_markdown), ("csv", to_csv), ("tex", to_latex)):
            rel = f"tables/{table.slug}.{ext}"
            write_atomic(out / rel, render(table))
            files.append(out / rel)
            downloads.append((f"{table.title} ({ext})", rel))
    combined = "\n".join(to_markdown(t) for t in tables) + "\n" + scoring_modes_markdown(inputs)
    extra = breakdowns_markdown(inputs)
    if extra:
        combined += "\n" + extra
    family_tables = extra_tables_markdown(inputs)
    if family_tables:
        combined += "\n" + family_tables
    audits = find_audits(inputs)
    audit_md = audit_markdown(audits)
    if audit_md:
        combined += "\n" + audit_md
    incomplete = incomplete_notes(inputs)
    banner = "".join(f"> **INCOMPLETE RUN** {note}\n\n" for note in incomplete)
    legend = f"{INTERVALS_LEGEND}\n\n" if tables else ""
    write_atomic(out / "tables.md", f"# {title}\n\n" + banner + legend + combined)
    downloads.insert(0, ("All tables (Markdown)", "tables.md"))
    return _TableFiles(files, downloads, audits, incomplete)


def _write_heatmaps(out: Path, inputs: Sequence[ReportInput], slugs: Sequence[str]) -> _Heatmaps:
    """One heatmap per task of every input binned on its family's axes: ``assets/heatmaps/<slug>/<task>.png``."""
    links: list[HeatmapLink] = []
    files: list[Path] = []
    for inp, slug in zip(inputs, slugs, strict=True):
        spec = inp.spec
        rows_axis = inp.rows_axis if inp.rows_axis is not None else (spec.rows if spec is not None else None)
        if spec is None or rows_axis is None:
            continue
        for task in ordered_tasks(set(inp.cells), spec.task_order):
            cells = inp.cells[task]
            rel = f"assets/heatmaps/{slug}/{slugify(task)}.png"
            write_heatmap(out / rel, cells.acc, cells.counts, f"{inp.name} - {task_title(spec, task)}",
                          x=spec.columns, y=rows_axis, colors=spec.heatmap_colors)
            files.append(out / rel)
            links.append(HeatmapLink(input_name=inp.name, task=task, src=rel,
                                     samples=sum(map(sum, cells.counts)), unbinned=cells.unbinned,
                                     title=task_title(spec, task), unbinned_note=spec.unbinned_note,
                                     legend=cell_legend([cells.counts])))
    return _Heatmaps(links, files)


def _write_many_model_views(out: Path, inputs: Sequence[ReportInput], downloads: list[tuple[str, str]],
                            say: Callable[[str], None]) -> _ManyModels:
    """Many models, one view: per family, accuracy over the column axis with intervals; across families, the
    leaderboard (its files added to ``downloads``). Only for two inputs or more, so a one-run report stays as it
    was (its tables say it all)."""
    if len(inputs) < 2:
        return _ManyModels()
    say("report: accuracy-vs-length charts and leaderboard")
    groups = group_by_spec(inputs)
    charts = write_length_charts(out, groups)
    board = leaderboard(groups)
    files: list[Path] = []
    for rel, text in (("tables/leaderboard.md", leaderboard_markdown(board)),
                      ("tables/leaderboard.csv", leaderboard_csv(board))):
        write_atomic(out / rel, text)
        files.append(out / rel)
    downloads.append(("Leaderboard (md)", "tables/leaderboard.md"))
    downloads.append(("Leaderboard (csv)", "tables/leaderboard.csv"))
    return _ManyModels(charts, board, files)


def _write_sample_browsers(out: Path, inputs: Sequence[ReportInput], slugs: Sequence[str], options: ReportOptions,
                           notes: list[str], say: Callable[[str], None],
                           earlier_thumbs: Mapping[str, Path]) -> _Browsers:
    """Each input's summary for the index and, for a run with scored rows (unless turned off), its sample
    browser page; media a browser refused is added to ``notes``."""
    summaries: list[InputSummary] = []
    pages: list[Path] = []
    thumbs = ThumbnailWriter(out, max_px=options.browser.thumb_px, earlier=earlier_thumbs)
    for inp, slug in zip(inputs, slugs, strict=True):
        item = InputSummary(name=inp.name, kind=inp.kind, source=str(inp.path), benchmark=inp.benchmark,
                            split=inp.split, rows=inp.num_rows, samples_page=None)
        if inp.kind == "scores":
            item.notes.append("scores file only: tables, no heatmaps or samples")
        if options.sample_browser and inp.scored_path is not None:
            say(f"report: sample browser for {inp.name} ({inp.num_rows} rows)")
            summary = write_sample_browser(inp, out, slug, options.browser, thumbs)
            page = out / summary.page
            write_atomic(page, samples_page(title=f"Samples: {inp.name}", input_name=inp.name,
                                            index_script=f"assets/samples/{slug}/index.js"))
            item.samples_page = summary.page
            item.notes.extend(summary.notes)
            if summary.media_refused:
                notes.append(summary.media_refused)
            pages.append(page)
        summaries.append(item)
    return _Browsers(summaries, pages)


def _write_report_json(out: Path, inputs: Sequence[ReportInput], tables: list[ResultTable], published: bool,
                       distribution_plots: list[DistributionPlot], many: _ManyModels,
                       compare_links: list[CompareLink]) -> None:
    """``report.json``: the numbers behind the tables, the distributions, the many-model views and the tables'
    noise notes."""
    compare_json: dict[str, Any] = ({"length_charts": charts_json(many.charts),
                                     "leaderboard": leaderboard_json(many.board)} if many.files else {})
    if compare_links:
        compare_json["side_by_side_heatmaps"] = [{"task": c.task, "src": c.src, "models": c.models,
                                                  "left_out": c.left_out} for c in compare_links]
    noise = {t.slug: list(t.noise) for t in tables if t.noise}
    write_json_atomic(out / "report.json", {**_report_json(inputs, tables, published),
                                            "distributions": distributions_json(distribution_plots),
                                            **compare_json, **({"noise": noise} if noise else {})})
