"""What a benchmark family offers the shared stages: one typed record, :class:`Family`.

A family is a package ``niah.benchmarks.<family>`` whose ``family.py`` defines ``FAMILY = Family(...)``; the
registry (:mod:`niah.benchmarks.registry`) lists it by name and imports it only when asked. ``family.py`` must stay
light (no numpy, no matplotlib at import): the CLI loads every family to build its commands, and ``niah --help``
must start fast. So everything heavy is reached through zero-argument loaders (``scorer``, ``report``,
``metric_rules``, ``renderer``, ...) that import the family's own modules when called.

What the shared stages take from a family:

* ``niah build <family>`` / ``niah import <family>`` / ``niah export <name>`` and any extra verbs: :class:`Command`
  records (a typer function whose annotated parameters are its options) from ``commands``; builders also offer
  ``build`` for Python callers such as ``niah eval``;
* ``niah run``: the prompt ``renderer`` and, when the official code truncates over-long inputs its own way,
  ``official_fit``;
* ``niah score``: the :class:`Scorer` (per-sample named scores, ``official`` first, and the official
  aggregation per mode), plus ``score_formats`` for the family's official response files;
* ``niah metric``: the family's :class:`~niah.scoring.metrics.base.MetricRule` list;
* ``niah report``: a :class:`ReportSpec` saying which axes to bin, how bins aggregate, which tasks in which order,
  and the published results to show beside the user's rows;
* ``niah audit``: an :class:`AuditSpec` locating each sample's needles, stating blind chance, adding probes;
* ``--corpus KIND:PATH`` (every builder, through :func:`niah.corpus.load_corpus`): :class:`CorpusReader` records
  from ``corpora`` for corpus formats the family knows (e.g. its official files read as haystack documents).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from niah.corpus.base import CorpusReader as CorpusReader

if TYPE_CHECKING:
    import numpy as np

    from niah.benchmarks.results import PublishedResults, ReportInput
    from niah.prompts.types import OfficialFit, Renderer
    from niah.sample import Sample
    from niah.scoring.metrics.base import MetricRule

def lazy(ref: str) -> Callable[[], Any]:
    """A zero-argument loader for ``"package.module:attribute"`` that imports the module only when called, so a
    ``family.py`` can name its scorer, renderer, report or rules without importing them:
    ``scorer=lazy("niah.benchmarks.toy.score:SCORER")``."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"lazy reference {ref!r} must look like 'package.module:attribute'")

    def load() -> Any:
        return getattr(importlib.import_module(module_name), attr)

    load.__qualname__ = load.__name__ = f"lazy({ref})"
    return load


#: The name of the score every family must produce; other modes ("lenient", ...) are reported beside it.
OFFICIAL = "official"


#: A scored row's flag (and run_status's count): a judge's verdict on a reply that holds judge-like instructions
#: ("give this answer a score of 5"), which may have steered it. Families whose judges read replies set it.
JUDGE_INJECTION_KEY = "judge_injection"


@dataclass(frozen=True)
class SampleScore:
    """Named scores of one sample (``official`` always present), the few facts its aggregation needs (``info``),
    and ``row``: fields added to the sample's scored.jsonl row (e.g. a judge's reason; core fields are never
    overwritten)."""

    scores: dict[str, float]
    info: dict[str, Any] = field(default_factory=dict)
    row: dict[str, Any] = field(default_factory=dict)


#: Rows handed to an aggregation: (scored row as written to scored.jsonl, SampleScore.info).
ScoredRows = list[tuple[dict[str, Any], dict[str, Any]]]


#: ``SampleScore.info`` flag a family's :class:`JudgedScoring` sets when the sample needs a judge verdict that is
#: not stored for its current response (``niah score`` counts them and says to run the judge verb again).
JUDGE_MISSING = "judge_missing"

#: ``SampleScore.row`` field a family sets, with a short reason, when the sample's ``official`` score is a
#: placeholder that no aggregate counts (an open-ended reply waiting for a judge, a judge reply that never
#: parsed): the sample browser shows the sample as "unscored", never as wrong.
UNSCORED = "unscored"

#: ``SampleScore.row`` field a family sets, with a short text, when a judge verb's verdict and the family's own
#: rule judge disagree on the sample (the report marks such samples and counts them).
JUDGES_DISAGREE = "judges_disagree"


@dataclass(frozen=True)
class JudgedScoring:
    """How a family's judge verb's stored verdicts change its scores (see :mod:`niah.scoring.verdicts`).

    ``apply(sample, response, rule_score, verdicts, settings)`` returns the sample's score with the verdicts of
    the recorded judge pass on this response (``verdicts``: kind -> :class:`niah.scoring.verdicts.StoredVerdict`, only the
    kinds stored; ``settings``: the pass's settings, e.g. a protocol). It is called for every sample of a
    benchmark that has a recorded pass, verdicts or not. ``modes`` are the extra score modes it adds (each is
    aggregated over the rows that have it, into ``scores.<mode>.json``)."""

    apply: Callable[[Sample, str | None, SampleScore, Mapping[str, Any], Mapping[str, Any]], SampleScore]
    modes: tuple[str, ...] = ()


#: Decimals kept in the percent scores of scores.json (so no 33.33330000000001).
PERCENT_DECIMALS = 4


def percent(value: float | None, scale: float = 100.0) -> float | None:
    """A score on 0-1 (``scale`` 100) or already in percent (``scale`` 1) as a percent rounded to
    :data:`PERCENT_DECIMALS`; None stays None."""
    return None if value is None else round(float(value) * scale, PERCENT_DECIMALS)


@dataclass(frozen=True)
class TaskHeadline:
    """One ``by_task`` entry of scores.json: the task's score in percent (None: undefined) over ``n`` samples.
    ``plain``: the score is the plain mean of those ``n`` samples' per-sample scores x 100 (so, when every
    score is 0 or 1, a proportion: a Wilson interval applies; otherwise the interval is bootstrapped)."""

    score: float | None
    n: int
    plain: bool = False
    #: the same figure over only the part of the grid the run holds (None: the family gives none, or it is
    #: ``score``); scores.json then carries it as the task's ``covered``
    covered: float | None = None
    #: what a reader must know of this figure beyond its metric (e.g. an official flip applied to it), or ""
    note: str = ""


@dataclass(frozen=True)
class Headline:
    """What a family's official structure says in one number, for the shared keys of scores.json.

    ``overall``: the family's official headline in percent, its quirks kept (e.g. empty bins counted 0);
    ``covered``: the same headline over only what the run holds (no invented zeros; equal to ``overall`` on
    a full grid); ``by_task``: per task (or per key the family reports: data set, skill); ``n``: the samples
    the overall is computed over; ``plain``: the overall is the plain mean of those ``n`` per-sample scores
    x 100 (see :class:`TaskHeadline`)."""

    metric: str
    overall: float | None
    covered: float | None
    n: int
    by_task: dict[str, TaskHeadline]
    plain: bool = False
    #: what a reader must know of the overall beyond its metric (e.g. an official flip in it), or ""
    note: str = ""


@dataclass(frozen=True)
class Scorer:
    """How a family scores one sample and aggregates scored rows into its official structure (per mode).

    ``row_fields`` adds family fields to every scored.jsonl row (e.g. a needle count that a report axis bins);
    they are also handed to ``aggregate`` inside each row (a score's ``row`` fields override them).

    ``headline(structure, rows, mode)`` reads the headline out of what ``aggregate`` returned for those rows;
    the shared stage calls it on the run and on every bootstrap resample of the rows (keep it cheap).
    ``percent(structure)`` returns the official structure with every score in percent (rounded to
    :data:`PERCENT_DECIMALS`), as scores.json's ``official`` holds it.

    ``stratum(row, info)`` and ``layout_fields`` say how the bootstrap of the headline resamples: within each
    stratum (default: the task) it draws as many samples as the stratum holds and puts each at one of the
    stratum's own positions (the drawn sample's outcome, the position's ``layout_fields``: where it sits in
    the grid). So a resample keeps every cell the run filled and the grid's weights, and only the outcomes vary:
    an aggregation that counts an empty cell 0 is never pulled down by a cell the resample happened to miss.

    ``counted(row, info)`` says whether a row's score counts in the headline (default: every row). Rows it
    leaves out (open-ended items beside an MCQ accuracy, items the official rule excludes) are left out when
    the headline's outcomes are checked for being all alike, which decides the interval of a perfect run.

    ``resampler(rows, mode, positions)``, optional, makes the bootstrap fast on many rows: it returns a
    function that takes a block of resamples (an integer array, one row per resample, one column per entry of
    ``positions``: resample ``r`` puts the outcome of row ``drawn[r, i]`` at row ``positions[i]``, with that
    position's ``layout_fields``, the resampled rows listed in the order of ``positions``) and gives each
    resample's headline, its ``overall`` and ``by_task`` scores exactly (to the last bit) as ``headline``
    computes them on those rows after ``aggregate``; or None where it cannot (the rows are then built and
    aggregated one resample at a time). The shared stage checks nothing: the family's tests compare the two.
    """

    score: Callable[[Sample, str | None], SampleScore]
    aggregate: Callable[[ScoredRows, str], dict[str, Any]]
    modes: tuple[str, ...] = (OFFICIAL,)
    row_fields: Callable[[Sample], dict[str, Any]] | None = None
    #: How stored judge verdicts change the scores (families with a judge verb).
    judged: JudgedScoring | None = None
    headline: Callable[[dict[str, Any], ScoredRows, str], Headline] | None = None
    percent: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    stratum: Callable[[dict[str, Any], dict[str, Any]], Any] | None = None
    layout_fields: tuple[str, ...] = ("context_length", "depth")
    counted: Callable[[dict[str, Any], dict[str, Any]], bool] | None = None
    resampler: (Callable[[ScoredRows, str, Sequence[int]], Callable[[np.ndarray], list[Headline]] | None]
                | None) = None


#: ``schema`` of the scores.json layout :mod:`niah.scoring.score` writes (files without one are the older layout:
#: the family's official structure at top level, on the family's own scale).
SCORES_SCHEMA = "niah.scores/2"


def official_structure(doc: Any, benchmark: str | None = None) -> tuple[Any, bool]:
    """The family's official structure inside a scores.json and whether its scores are in percent.

    A current file (``schema``) holds it under ``official`` (in percent; with several benchmarks under
    ``benchmarks[benchmark].official``); an older file (no ``schema``) is that structure itself, on the family's
    own scale (``False``: the reader applies the scale it always did)."""
    if not isinstance(doc, dict) or doc.get("schema") != SCORES_SCHEMA:
        return doc, False
    blocks = doc.get("benchmarks")
    if isinstance(blocks, dict):
        block = blocks.get(benchmark) if benchmark is not None else None
        if block is None and len(blocks) == 1:
            block = next(iter(blocks.values()))
        return (block.get("official") if isinstance(block, dict) else None), True
    return doc.get("official"), True


@dataclass(frozen=True)
class Command:
    """A CLI command a family contributes.

    ``verb`` is the group it joins (``build``, ``import``, ``export``, or a new one such as ``judge-test``, created
    on first use), or None for a top-level command; ``name`` is the command's name in that group. ``function`` is
    a typer command: its annotated parameters are the options, its docstring the help.
    """

    verb: str | None
    name: str
    function: Callable[..., Any]
    help: str | None = None


#: How a builder option is written in an eval config file (``niah eval --config``): ``int``, ``number`` (an int
#: or a float), ``bool``, ``text``; ``value``: a text or a number (``frames = 64`` or ``"all"``); ``texts``: a
#: list of texts or one comma-separated text (``lengths = ["1k-2k", "2k-4k"]``); ``numbers``: a list of numbers;
#: ``items``: a list of texts or numbers, or one comma-separated text (``lengths = [8, 16]`` or ``"8k,16k"``).
OptionKind = Literal["int", "number", "bool", "text", "value", "texts", "numbers", "items"]


@dataclass(frozen=True)
class Builder:
    """A generator of samples, for Python callers (``niah eval``): ``build(out, options, progress)`` writes a
    dataset directory and returns sample counts per task. ``options`` are keyword options by name, missing ones
    take the builder's defaults; ``eval_defaults`` are the options of the small grid ``niah eval`` builds.
    ``option_kinds`` declares every option ``build`` accepts and how it is written, so that an eval config file
    naming an unknown option, or giving one the wrong type, is refused before anything is built (empty: not
    declared, any option is passed through unchecked)."""

    name: str
    build: Callable[[Path, Mapping[str, Any], bool], Mapping[str, int]]
    eval_defaults: Mapping[str, Any] = field(default_factory=dict)
    option_kinds: Mapping[str, OptionKind] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreFormat:
    """``niah score --format NAME PATHS... [--out FILE]``: score a family's official files unchanged.
    ``is_output`` reads a file back as one this format wrote at ``--out`` (only such a file is replaced without
    ``--overwrite``; :func:`niah.util.iox.claim_output_file`)."""

    name: str
    help: str
    function: Callable[[list[Path], Path | None], None]
    is_output: Callable[[Path], bool]


def _not_binned(_value: Any) -> int | None:
    return None


@dataclass(frozen=True)
class DataBins:
    """Bins taken from the data: one bin per distinct ``label(value)`` among the values of the axis's field
    across all inputs of a report of the family (so several runs share one axis and their columns line up),
    labels ordered by the smallest ``order(value)`` behind each (the value itself by default). ``label`` gives
    None for a value the axis does not bin."""

    label: Callable[[Any], str | None]
    order: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Axis:
    """One binned axis of a report: the scored-row ``field`` it reads, its bin labels, and ``bin_of`` mapping a
    field value to a bin index (None: the row is not binned on this axis). ``edges`` (one more than labels)
    label the cell borders instead of the cells, as depth fractions are usually shown. ``from_values``, when
    set, makes the axis per input: the report hands it the distinct values of ``field`` found in that input's
    rows and bins on the axis it returns (bins a user chose at build time, e.g. any list of depth cells).

    Two options make the axis from all inputs of a report at once (:meth:`resolved`, before any table is
    built): ``data_bins`` (the bins are the distinct labels of the values present, see :class:`DataBins`;
    make such an axis with :meth:`from_data`) and ``fallback`` (a fixed axis used instead when no input of the
    report has a value of ``field``, e.g. a family whose generated sets carry a length and whose official sets
    do not). ``grid`` is a fixed axis used instead of the data's bins when every value present bins on it (a
    family's official length grid: data on it keeps every official column, even one it has no sample in, so
    that tables line up with the paper's; data built on other bins gets its own columns)."""

    title: str
    field: str
    labels: tuple[str, ...]
    bin_of: Callable[[Any], int | None]
    edges: tuple[str, ...] | None = None
    from_values: Callable[[Sequence[Any]], Axis] | None = None
    data_bins: DataBins | None = None
    fallback: Axis | None = None
    grid: Axis | None = None

    @classmethod
    def from_data(cls, title: str, field: str, label: Callable[[Any], str | None],
                  order: Callable[[Any], Any] | None = None, fallback: Axis | None = None,
                  grid: Axis | None = None) -> Axis:
        """An axis whose bins are the distinct ``label(value)`` of ``field`` present across a report's inputs."""
        return cls(title, field, (), _not_binned, data_bins=DataBins(label, order), fallback=fallback, grid=grid)

    @property
    def across_inputs(self) -> bool:
        """The axis is made from the values present across all inputs of a report (:meth:`resolved`)."""
        return self.data_bins is not None or self.fallback is not None or self.grid is not None

    def resolved(self, values: Sequence[Any]) -> Axis:
        """The axis a report bins on, given the distinct values of ``field`` across all its inputs: ``fallback``
        when there is none, ``grid`` when every value bins on it (none: too), one bin per distinct label for
        ``data_bins``, else the axis itself."""
        if self.fallback is not None and not values:
            return self.fallback
        if self.grid is not None and all(self.grid.bin_of(value) is not None for value in values):
            return self.grid
        if self.data_bins is None:
            return dataclasses.replace(self, fallback=None, grid=None)
        label_of = self.data_bins.label
        order_of = self.data_bins.order or (lambda value: value)
        first: dict[str, Any] = {}
        for value in values:
            label = label_of(value)
            if label is not None and (label not in first or order_of(value) < first[label]):
                first[label] = order_of(value)
        labels = tuple(sorted(first, key=lambda label: (first[label], label)))
        index = {label: i for i, label in enumerate(labels)}

        def bin_of(value: Any) -> int | None:
            label = label_of(value)
            return None if label is None else index.get(label)

        return Axis(self.title, self.field, labels, bin_of, edges=self.edges)


@dataclass(frozen=True)
class Breakdown:
    """A breakdown table: mean official score per value of one scored-row ``field`` (language, pipeline, skill,
    image count...), over all tasks; ``bucket`` maps a value to its bucket label (None: leave the row out),
    ``order`` lists bucket labels first in that order."""

    title: str
    field: str
    bucket: Callable[[Any], str | None] | None = None
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScoresFile:
    """What a family reads from one of its official scores files: per-task bin scores, overall, split."""

    task_scores: dict[str, list[float]]
    overall: list[float] | None
    split: str | None
    benchmark: str | None
    scoring: str
    #: Samples per column bin of each task, when the file records them (empty bins then print as -).
    bin_counts: dict[str, list[int]] | None = None
    #: Per column bin of the overall, 0 where it is undefined (printed as -); None: summed from ``bin_counts``.
    overall_counts: list[int] | None = None


@dataclass(frozen=True)
class ExtraTable:
    """A table a family computes itself from its report inputs (failure modes, noise consistency...): a title,
    the header, rows of already formatted cells, and a note printed below it."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


@dataclass(frozen=True)
class ReportSpec:
    """What a family's report shows, for the shared renderers (which never name a family).

    ``columns`` is the axis of the per-bin tables and the heatmaps' x axis; ``rows`` the heatmaps' y axis (None:
    no heatmaps). ``per_bin`` turns one task's cell accuracies ``acc[row][column]`` into per-column scores (the
    official aggregation); ``overall`` the per-task scores into the benchmark overall (None when it is not
    defined, e.g. tasks missing). ``published`` loads published results to show beside the user's rows.
    ``distributions`` are axes whose sample counts the report plots per input (what the data is made of:
    lengths, image counts, needle depths), read from the same scored-row fields as the other axes.
    """

    columns: Axis
    rows: Axis | None
    per_bin: Callable[[list[list[float]]], list[float]]
    overall: Callable[[Mapping[str, Sequence[float]]], list[float] | None]
    task_order: tuple[str, ...]
    task_titles: Mapping[str, str]
    overall_title: str = "Overall"
    table_prefix: str = ""
    heatmap_colors: tuple[str, ...] = ("#DC143C", "#FFD700", "#3CB371")
    read_scores: Callable[[Any, Path], ScoresFile] | None = None
    published: Callable[[], PublishedResults] | None = None
    unbinned_note: str = "not binned"
    footnote: str = ""
    breakdowns: tuple[Breakdown, ...] = ()
    distributions: tuple[Axis, ...] = ()
    #: When set, used instead of ``per_bin`` with the cell counts too (``acc, counts``): e.g. a sample-weighted
    #: mean over the row bins, where empty cells must not count.
    per_bin_weighted: Callable[[list[list[float]], list[list[int]]], list[float]] | None = None
    #: A table row's Overall is the sample-weighted mean of its bins (a share of samples) instead of the plain
    #: mean over the bins in which an empty bin counts 0 (the leaderboard rule of the depth-cell families).
    weighted_overall: bool = False
    #: With ``weighted_overall``: a bin weighs its heatmap cells that have samples instead of its samples, so
    #: Overall is the mean over the filled cells when each bin's value is the mean of its filled cells.
    weigh_bins_by_cells: bool = False
    #: When set, used for runs instead of ``overall``, with the samples per bin of each task: returns the overall
    #: per bin and, per bin, a count that is 0 where the overall is undefined (printed as -, never as 0).
    overall_counted: Callable[[Mapping[str, Sequence[float]], Mapping[str, Sequence[int]]],
                              tuple[list[float], list[int]] | None] | None = None
    #: The official rule counts an empty bin as 0 in a row's Overall (MM-NIAH): tables then show that figure,
    #: labelled, beside the Overall over the bins with samples. Otherwise an Overall over an empty bin is missing.
    empty_bins_count_zero: bool = False
    #: With ``empty_bins_count_zero``: a bin's figure over its cells that have samples (``acc, counts``; an empty
    #: cell left out, never counted 0), printed in the tables' bin columns and averaged into the Overall over the
    #: bins with samples; ``per_bin`` (empty cells 0) still makes the labelled official Overall.
    per_bin_covered: Callable[[list[list[float]], list[list[int]]], list[float]] | None = None
    #: With ``per_bin_covered``: the overall per bin from the tasks' covered figures and their samples per bin,
    #: over the tasks with samples in the bin (None where the overall is not defined).
    overall_covered: Callable[[Mapping[str, Sequence[float]], Mapping[str, Sequence[int]]],
                              list[float] | None] | None = None
    #: A task's per-bin figures as its official score gives them, from the per-bin means ``per_bin`` returns
    #: (``task, scores``; e.g. a yes/no set flipped below 50): the tables, charts and scores.json agree.
    per_bin_of_task: Callable[[str, list[float]], list[float]] | None = None
    #: Tables the family computes from its inputs (this family's only), shown after the breakdowns.
    extra_tables: Callable[[Sequence[ReportInput]], Sequence[ExtraTable]] | None = None


@dataclass(frozen=True)
class BaselineAnswers:
    """How the model-free baselines answer this family's samples, in the form its official scorer reads.

    ``oracle(sample)`` writes the gold answer as a reply (default: :func:`niah.models.baselines.format_gold`:
    an int option index as its letter, a string as is, anything else as JSON); ``random(sample, rng)`` gives a
    chance-level reply from the sample's shape only, never its gold (default: a random option letter, else a
    random context word); ``extractive(sample, sentences, scores)`` is the rag baseline's model-free reader for
    this family, given the retrieved context's text sentences and their BM25 scores against the question
    (default: :func:`niah.models.rag.extractive_answer`'s option matching, else the best sentence's new words). Each
    may return None to fall back to the default."""

    oracle: Callable[[Sample], str | None] | None = None
    random: Callable[[Sample, Any], str | None] | None = None
    extractive: Callable[[Sample, Sequence[str], Sequence[float]], str | None] | None = None


@dataclass(frozen=True)
class NeedleSpot:
    """Where one needle stands in a sample's context, for ``niah audit`` and the runner's delivery check.

    ``kind`` says what the needle is: ``text`` (``text`` is the needle as it stands in the context text),
    ``image`` (``part`` is the index of its image part in ``sample.context``), or ``video`` (``part`` is the
    video part; ``frames`` are the needle's frame paths when the video is a frame list, else ``start``/``end``
    its time span in seconds). A needle counts as delivered when what the runner sends holds it: its text,
    its image, or at least one of its frames (one frame time inside its span)."""

    kind: str
    part: int | None = None
    text: str | None = None
    frames: tuple[str, ...] = ()
    start: float | None = None
    end: float | None = None


@dataclass(frozen=True)
class ProbeResult:
    """One audit probe on one task: its ``score`` and the blind ``chance`` level (both 0-100, the family's
    official score or a probe's own hit rate), ``n`` samples, and ``passed`` when the probe stays within what a
    model that does not do the task could reach (``detail`` says what it measured and why it passed or not).
    ``kind`` groups probes in the table: ``no-read``, ``layout``, ``leak``, ``delivery`` or a family's own.
    ``noise`` is the sampling-noise allowance the verdict granted beyond the audit's margin."""

    probe: str
    task: str
    kind: str
    score: float
    chance: float
    n: int
    passed: bool
    detail: str = ""
    #: Points of sampling noise allowed beyond the margin (a one-sided 99% bound from the per-sample scores).
    noise: float = 0.0
    #: A diagnostic: reported with its verdict, but not a shortcut by itself (the audit's exit status ignores it).
    advisory: bool = False


@dataclass(frozen=True)
class AuditSpec:
    """What a family adds to ``niah audit`` (:mod:`niah.audit.dataset`), which otherwise knows no family.

    ``locate(sample)`` lists the sample's needles (default: :func:`niah.audit.dataset.default_locate`, reading
    ``meta.needles`` strings as needle text or image paths and ``meta.needle_times`` for video);
    ``chance(sample)`` is the expected official score (0-1) of a blind guess at this sample (default: one over
    the number of choices for multiple choice, else 0); ``probes(samples, options)`` adds the family's own
    probes (``samples``: the family's samples without their context, so that the audit never holds a
    dataset's haystacks in memory; ``options``: the audit's settings by name); ``pool(task, samples)`` names a
    closed answer pool a model could list (default: the distinct golds of open-answer tasks with at most 50 of
    them); ``group(sample)`` names the samples that are one item asked several ways (a base sample and its
    noise variants, which share its question and gold): the cross-fitted probes leave a sample's whole group
    out, not the sample alone (default: every sample is its own group). ``needles_in_lists``: the generator
    may place a text needle where a list item stands (a line of its own that a bullet or a number opens); when
    False, the text skews compare needles with the sentences of plain paragraphs only, since a list item is a
    place no needle takes."""

    locate: Callable[[Sample], Sequence[NeedleSpot]] | None = None
    chance: Callable[[Sample], float] | None = None
    probes: Callable[[Sequence[Sample], Mapping[str, Any]], Sequence[ProbeResult]] | None = None
    pool: Callable[[str, Sequence[Sample]], Sequence[str] | None] | None = None
    group: Callable[[Sample], str] | None = None
    needles_in_lists: bool = True


@dataclass(frozen=True)
class Family:
    """Everything a benchmark family offers; see the module docstring. Only ``name``, ``title`` and ``tasks`` are
    required: a family may offer metric rules alone, or a builder without a scorer."""

    name: str
    title: str
    tasks: tuple[str, ...]
    description: str = ""
    commands: Callable[[], Sequence[Command]] | None = None
    builders: Callable[[], Sequence[Builder]] | None = None
    renderer: Callable[[], Renderer] | None = None
    official_fit: Callable[[], OfficialFit] | None = None
    scorer: Callable[[], Scorer] | None = None
    score_formats: Callable[[], Sequence[ScoreFormat]] | None = None
    metric_rules: Callable[[], Sequence[MetricRule]] | None = None
    report: Callable[[], ReportSpec] | None = None
    baselines: Callable[[], BaselineAnswers] | None = None
    corpora: Callable[[], Sequence[CorpusReader]] | None = None
    audit: Callable[[], AuditSpec] | None = None
    #: ``niah run -P KEY=VALUE`` switches its renderer or official fit reads (``PromptOptions.extra``): key ->
    #: what it does; ``niah list`` shows them.
    prompt_switches: tuple[tuple[str, str], ...] = ()
