"""Balanced decks of categorical golds: even counts over the task, even rows, a function of key and grid only."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from niah.build.deck import deal


def _spread(counts: Counter[int], values: range) -> int:
    return max(counts[v] for v in values) - min(counts[v] for v in values)


@pytest.mark.parametrize(("lengths", "depths", "reps", "count"),
                         [(4, 5, 1, 4), (4, 5, 1, 2), (11, 5, 1, 10), (11, 5, 3, 4), (2, 2, 1, 4)])
def test_every_value_as_often_as_the_grid_allows_and_rows_even(lengths: int, depths: int, reps: int,
                                                                 count: int) -> None:
    positions = list(itertools.product(range(lengths), range(depths), range(reps)))
    values = range(count)
    dealt = deal(list(values), positions, f"test/{lengths}/{depths}/{reps}/{count}")
    assert set(dealt) == set(positions)
    assert _spread(Counter(dealt.values()), values) <= 1
    for axis in (0, 1):
        for row in {p[axis] for p in positions}:
            in_row = Counter(v for p, v in dealt.items() if p[axis] == row)
            assert _spread(in_row, values) <= 1, (axis, row, in_row)


def test_the_deal_depends_on_key_and_grid_not_on_the_order_given() -> None:
    positions = list(itertools.product(range(4), range(5), range(1)))
    first = deal([0, 1, 2, 3], positions, "k")
    assert deal([0, 1, 2, 3], list(reversed(positions)), "k") == first
    assert deal([0, 1, 2, 3], positions, "other key") != first


def test_bad_decks_are_refused() -> None:
    with pytest.raises(ValueError):
        deal([], [(0,)], "k")
    with pytest.raises(ValueError):
        deal([1, 1], [(0,)], "k")


@pytest.mark.parametrize(("lengths", "depths", "reps", "count"), [(11, 5, 8, 4), (11, 5, 6, 10)])
def test_large_grids_keep_lengths_and_depths_even_and_cells_near_even(lengths: int, depths: int, reps: int,
                                                                       count: int) -> None:
    """--per-cell 6-8 on the default grid (330-440 positions): the task, each length and each depth as even as
    the deck allows, each cell within two (a cell of 8 samples and 4 values: no value more than twice as often
    as another); the swaps are searched in numpy, so this is a fraction of a second (bench/deck_deal.py)."""
    positions = list(itertools.product(range(lengths), range(depths), range(reps)))
    values = range(count)
    dealt = deal(list(values), positions, f"large/{reps}/{count}")
    assert _spread(Counter(dealt.values()), values) <= 1
    for axis in (0, 1):
        for row in range(positions[-1][axis] + 1):
            assert _spread(Counter(v for p, v in dealt.items() if p[axis] == row), values) <= 1
    for cell in itertools.product(range(lengths), range(depths)):
        assert _spread(Counter(v for p, v in dealt.items() if p[:2] == cell), values) <= 2
