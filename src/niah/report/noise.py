"""Whether the difference between two inputs' figures in one table is inside the noise.

With two inputs or more of one family, every table (the Overall and each task) gets a short note comparing each
input with the best one on the table's last column (the Overall, or the Overall over the bins with samples
where bins are empty), the very figures and 95% intervals the table prints. The rule:

* both figures are the share of correct samples of 0/1 scores (the figure equals the mean of the samples behind
  it and each of them scored 0 or 1): the pooled two-proportion z-test (:func:`niah.scoring.stats.two_proportion_p_value`)
  decides, two-sided at 5%: p >= 0.05 is inside the noise. The note also says whether the intervals overlap;
* otherwise (graded scores, a family's aggregation over cells or tasks, a scores file): the 95% intervals do.
  Overlapping intervals are inside the noise; intervals apart are outside it. Overlap is the cruder rule (two
  95% intervals can overlap a little while the difference is significant), so the note names what it used;
* an input whose figure has no interval (a scores file without sample counts) cannot be judged: the note says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from niah.report.inputs import ReportInput
from niah.report.intervals import row_samples
from niah.report.tables import ResultTable, format_pct
from niah.scoring.stats import intervals_overlap, is_binary, two_proportion_p_value

#: The two-sided level of the two-proportion test: p at or above it is inside the noise.
SIGNIFICANCE = 0.05
#: A figure within this (percent) of its samples' mean is that mean (float round-off aside).
_SAME_PERCENT = 1e-6
NOISE_HEADING = "Inside the noise?"


@dataclass(frozen=True, slots=True)
class NoiseVerdict:
    """One input compared with the table's best: the figures (percent), their intervals and the verdict."""

    best: str
    model: str
    best_value: float
    value: float
    overlap: bool | None          # the 95% intervals share a point; None: an interval is unknown
    p_value: float | None         # the two-proportion z-test, where both figures are shares of 0/1 scores
    inside: bool | None           # None: cannot be judged (no interval)

    @property
    def difference(self) -> float:
        return self.best_value - self.value

    def sentence(self) -> str:
        head = (f"{self.best} vs {self.model}: {format_pct(self.best_value)} vs {format_pct(self.value)}, "
                f"difference {format_pct(self.difference)} points")
        if self.inside is None:
            return f"{head} cannot be judged (no 95% interval for one of them)"
        verdict = "inside the noise" if self.inside else "outside the noise"
        overlap = "95% intervals overlap" if self.overlap else "95% intervals do not overlap"
        if self.p_value is not None:
            return f"{head} is {verdict} (two-proportion z-test {format_p(self.p_value)}; {overlap})"
        return f"{head} is {verdict} ({overlap}; no two-proportion test: not both shares of 0/1 scores)"


def format_p(p: float) -> str:
    """``p = 0.31``, ``p = 0.012`` (three decimals below 0.1, so that 0.049 never reads 0.05), ``p < 0.001``."""
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.2f}" if p >= 0.1 else f"p = {p:.3f}"


def _share(inp: ReportInput | None, key: str, value: float, num_bins: int) -> tuple[float, int] | None:
    """(share of correct samples, samples) when ``value`` (percent) is exactly that share of the 0/1 scores
    behind the row ``key``; None otherwise (graded scores, an aggregation that is not a plain share)."""
    if inp is None or not inp.samples:
        return None
    _per_bin, everything = row_samples(inp, key, num_bins)
    if not everything or not is_binary(everything):
        return None
    share = sum(everything) / len(everything)
    return (share, len(everything)) if abs(share * 100.0 - value) <= _SAME_PERCENT else None


def noise_verdicts(table: ResultTable, inputs: Sequence[ReportInput | None]) -> list[NoiseVerdict]:
    """Each row of ``table`` against its best row (the first of the highest last-column figures); ``inputs[i]``
    is the input behind ``table.rows[i]`` (None: unknown, no test). Empty for fewer than two rows with a figure."""
    figures = [(row, inp, *table.last_figure(row)) for row, inp in zip(table.rows, inputs, strict=True)]
    known = [(row, inp, value, ci) for row, inp, value, ci in figures if value is not None]
    if len(known) < 2:
        return []
    best_row, best_inp, best_value, best_ci = max(known, key=lambda f: f[2])  # max keeps the first of equals
    num_bins = len(table.columns)
    best_share = _share(best_inp, table.key, best_value, num_bins)
    out: list[NoiseVerdict] = []
    for row, inp, value, ci in known:
        if row is best_row:
            continue
        overlap = None if best_ci is None or ci is None else intervals_overlap(best_ci, ci)
        share = _share(inp, table.key, value, num_bins)
        p_value = (two_proportion_p_value(best_share[0], best_share[1], share[0], share[1])
                   if best_share is not None and share is not None else None)
        inside = (p_value >= SIGNIFICANCE if p_value is not None else overlap)
        out.append(NoiseVerdict(best=best_row.model, model=row.model, best_value=best_value, value=value,
                                overlap=overlap, p_value=p_value, inside=inside))
    return out


def noise_lines(table: ResultTable, inputs: Sequence[ReportInput | None]) -> tuple[str, ...]:
    """The table's noise note: a heading line naming the column compared and the rule, then one sentence per
    input compared with the best; empty for fewer than two inputs."""
    verdicts = noise_verdicts(table, inputs)
    if not verdicts:
        return ()
    heading = (f'{NOISE_HEADING} Each input against the best on "{table.header[-1]}" (the two-proportion z-test '
               "at 5% where both figures are shares of 0/1 scores, else whether the 95% intervals overlap):")
    return (heading, *(v.sentence() for v in verdicts))
