"""The fast bootstrap of `niah score` gives the intervals the resample-by-resample one gave, to the last digit:
the vectorised draws are Python's own, and a family's ``resampler`` reads the headlines the rows would give."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from niah.benchmarks.mm_niah.official import TASKS
from niah.benchmarks.mm_niah.score import IMAGE_COUNT_TASK, SCORER, aggregate, headline, resampler
from niah.benchmarks.protocol import OFFICIAL, ScoredRows, Scorer
from niah.scoring.score import benchmark_block
from niah.scoring.stats import stratified_draws


@pytest.mark.parametrize(("sizes", "seed", "resamples"), [
    ([5, 0, 17, 1, 300, 3], 0, 75), ([1], 7, 75), ([2, 2, 2], 123, 75), ([], 0, 75),
    ([300_000, 1], 2, 5),  # many rows: blocks of fewer resamples, the same stream
])
def test_stratified_draws_are_those_of_random_choices(sizes: list[int], seed: int, resamples: int) -> None:
    rng = random.Random(seed)
    expected = [[pick for size in sizes for pick in rng.choices(range(size), k=size)] for _ in range(resamples)]
    drawn = [row.tolist() for block in stratified_draws(sizes, resamples, seed=seed) for row in block]
    assert drawn == expected


def mixed_rows(seed: int = 5, per_task: int = 16) -> ScoredRows:
    """MM-NIAH rows of the six tasks and the image-count probe: lengths in several bins (one under 1000
    tokens, which the official rule drops), depths single and listed, 0/1 and graded scores."""
    rng = random.Random(seed)
    rows: ScoredRows = []
    for task in (*TASKS, IMAGE_COUNT_TASK):
        for k in range(per_task):
            length = rng.choice([900, 1500, 3000, 6000, 12000, 50000])
            depth = round(rng.random(), 4) if k % 3 else [round(rng.random(), 3), round(rng.random(), 3)]
            score = rng.choice([0.0, 0.0, 1.0, 0.5, 1 / 3])
            row = {"id": f"{task}/{k}", "task": task, "context_length": length, "depth": depth,
                   "scores": {OFFICIAL: 1.0 if score >= 0.5 else 0.0, "lenient": score}}
            if task == IMAGE_COUNT_TASK:
                row["image_count"] = rng.randint(2, 6)
            rows.append((row, {}))
    return rows


#: The intervals of :func:`mixed_rows` as `niah score` computed them before the bootstrap was vectorised
#: (1000 resamples of rows built and aggregated one at a time).
PINNED = ('{"lenient": {"by_task": {"counting-image": [10.4545, 17.2765], "counting-text": [1.2121, '
          '5.1515], "image-count": [21.875, 36.4583], "reasoning-image": [5.6566, 11.4141], '
          '"reasoning-text": [6.2121, 11.2121], "retrieval-image": [3.9394, 12.4242], "retrieval-text": '
          '[2.2727, 6.9697]}, "ci95": [6.5991, 9.1416], "ci_method": "bootstrap"}, "official": {"by_task": '
          '{"counting-image": [10.0, 18.1818], "counting-text": [1.8182, 9.0909], "image-count": [6.5916, '
          '43.0089], "reasoning-image": [5.4545, 13.6364], "reasoning-text": [6.3636, 15.1515], '
          '"retrieval-image": [3.0303, 13.3333], "retrieval-text": [4.0795, 9.5455]}, "ci95": [7.3731, '
          '10.7329], "ci_method": "bootstrap"}}')


def _intervals(scorer: Scorer, rows: ScoredRows) -> str:
    out = {}
    for mode in (OFFICIAL, "lenient"):
        block = benchmark_block(scorer, "mm-niah", rows, mode)
        out[mode] = {"ci95": block["ci95"], "ci_method": block["ci_method"],
                     "by_task": {key: task["ci95"] for key, task in block["by_task"].items()}}
    return json.dumps(out, sort_keys=True)


def test_the_intervals_are_those_computed_before_the_bootstrap_was_vectorised() -> None:
    rows = mixed_rows()
    assert _intervals(SCORER, rows) == PINNED
    # and the family's resampler agrees with the rows built one resample at a time
    assert _intervals(dataclasses.replace(SCORER, resampler=None), rows) == PINNED


@pytest.mark.parametrize("mode", [OFFICIAL, "lenient"])
@pytest.mark.parametrize("tasks", [(*TASKS, IMAGE_COUNT_TASK), TASKS[:2]])
def test_the_mm_niah_resampler_reads_the_headlines_the_rows_give(mode: str, tasks: tuple[str, ...]) -> None:
    """Each resample's headline (its figures the bootstrap reads), against the rows built as the shared stage
    builds them (the drawn row's outcome at the position, with the position's layout), drawn across tasks too."""
    rows = [r for r in mixed_rows(seed=11, per_task=12) if r[0]["task"] in tasks]
    positions = list(range(len(rows)))[::-1]
    fast = resampler(rows, mode, positions)
    assert fast is not None
    drawn = np.random.default_rng(3).integers(0, len(rows), size=(20, len(rows)))
    for picks, got in zip(drawn.tolist(), fast(drawn), strict=True):
        sample = [({**rows[pick][0], **{k: rows[p][0][k] for k in SCORER.layout_fields}}, {})
                  for p, pick in zip(positions, picks, strict=True)]
        want = headline(aggregate(sample, mode), sample, mode)
        # both grids are partial (few bins, or two of six tasks): the figures over the part held are read too
        assert (got.overall, got.n, got.covered) == (want.overall, want.n, want.covered)
        assert {k: (t.score, t.n, t.plain, t.covered) for k, t in got.by_task.items()} == {
            k: (t.score, t.n, t.plain, t.covered) for k, t in want.by_task.items()}


def test_the_mm_niah_resampler_leaves_rows_it_cannot_bin_to_the_rows_themselves() -> None:
    rows = mixed_rows(per_task=3)
    rows[0][0]["context_length"] = None  # refused by the aggregation, with the row's own message
    assert resampler(rows, OFFICIAL, list(range(len(rows)))) is None


def video_rows(seed: int = 9, count: int = 90) -> ScoredRows:
    """video-niah rows of three tasks at three durations, depth cells interleaved (and some without one), 0/1
    and graded scores."""
    rng = random.Random(seed)
    rows: ScoredRows = []
    for k in range(count):
        task = rng.choice(["retrieval", "counting", "ordering"])
        duration = rng.choice([60, 300, 900])
        lo = rng.choice([0.0, 0.2, 0.4, 0.6, 0.8])
        rows.append(({"id": f"{task}/{k}", "task": task, "context_length": None, "depth": None, "duration_s": duration,
                      "depth_cell": [lo, round(lo + 0.2, 1)] if k % 7 else None,
                      "scores": {OFFICIAL: rng.choice([0.0, 1.0, 1.0, 0.5, 0.25])}}, {}))
    return rows


def test_the_video_intervals_are_those_computed_before_the_bootstrap_was_vectorised() -> None:
    from niah.benchmarks.video_niah.score import SCORER as VIDEO

    pinned = ('{"by_task": {"counting": [27.7458, 62.7521], "ordering": [26.8321, 60.9069], "retrieval": '
              '[44.8312, 75.6701]}, "ci95": [40.3296, 58.3118], "ci_method": "bootstrap"}')
    for scorer in (VIDEO, dataclasses.replace(VIDEO, resampler=None)):
        block = benchmark_block(scorer, "video-niah", video_rows(), OFFICIAL)
        assert json.dumps({"ci95": block["ci95"], "ci_method": block["ci_method"],
                           "by_task": {k: t["ci95"] for k, t in block["by_task"].items()}}, sort_keys=True) == pinned


def test_the_video_resampler_reads_the_headlines_the_rows_give() -> None:
    """Within strata (task and duration kept: the sums alone change) and across them (the rows aggregated)."""
    from niah.benchmarks.video_niah.score import aggregate as video_aggregate
    from niah.benchmarks.video_niah.score import headline as video_headline
    from niah.benchmarks.video_niah.score import resampler as video_resampler

    rows = video_rows(count=40)
    positions = sorted(range(len(rows)), key=lambda k: (rows[k][0]["task"], rows[k][0]["duration_s"], -k))
    fast = video_resampler(rows, OFFICIAL, positions)
    assert fast is not None
    generator = np.random.default_rng(5)
    within = np.array([[generator.choice([q for q in positions if rows[q][0]["task"] == rows[p][0]["task"]
                                          and rows[q][0]["duration_s"] == rows[p][0]["duration_s"]])
                        for p in positions] for _ in range(8)])
    across = generator.integers(0, len(rows), size=(4, len(rows)))
    for drawn in (within, across):
        for picks, got in zip(drawn.tolist(), fast(drawn), strict=True):
            sample = [({**rows[pick][0], "depth_cell": rows[p][0]["depth_cell"]}, {})
                      for p, pick in zip(positions, picks, strict=True)]
            want = video_headline(video_aggregate(sample, OFFICIAL), sample, OFFICIAL)
            assert (got.overall, got.covered, got.n, got.by_task) == (want.overall, want.covered, want.n, want.by_task)
