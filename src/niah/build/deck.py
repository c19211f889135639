"""Balanced, seeded decks of categorical golds over a task's grid.

A generator that draws each sample's gold (the correct option's position, a count, a word) independently
leaves a small task unbalanced by chance: 20 draws of four letters put 35% on one of them, and a reply that
always names it beats chance by ten points without reading. A deck deals each value as evenly as the number of
samples allows (the counts differ by at most one) and spreads them over the grid: every grid position is keyed
by its coordinates (length, depth, replicate ...), and values are swapped between positions while that evens out
the rows of each stratum (e.g. each length, each depth, each cell), so that no length or depth is one-sided
either. The deal is a function of the key and the grid alone, never of the order samples are built in.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

Value = TypeVar("Value", bound=Hashable)
Position = tuple[int, ...]


def deal(values: Sequence[Value], positions: Sequence[Position], key: str,
         strata: Sequence[Sequence[int]] | None = None) -> dict[Position, Value]:
    """One value per grid position: each value dealt ``len(positions) // len(values)`` or one more times.

    ``positions`` are distinct coordinate tuples; ``strata`` lists coordinate groups (default: each single
    coordinate, then all of them but the last, e.g. length, depth and the length x depth cell of
    (length, depth, replicate)) whose rows should be balanced too, as far as the deck allows. ``key`` seeds the
    deal (give it the seed, the family, the task and what is dealt)."""
    if not values:
        raise ValueError("a deck needs at least one value")
    if len(set(values)) != len(values):
        raise ValueError("deck values must be distinct")
    if len(set(positions)) != len(positions):
        raise ValueError("deck positions must be distinct")
    rng = random.Random(key)
    width = len(positions[0]) if positions else 0
    if strata is None:
        strata = [(i,) for i in range(width)] + ([tuple(range(width - 1))] if width > 2 else [])
    count = len(values)
    # the deck: every value len // count times, the remainder on values drawn at random (favouring none)
    extra = set(rng.sample(range(count), len(positions) % count))
    deck = [v for v in range(count) for _ in range(len(positions) // count + (v in extra))]
    order = sorted(positions)  # the deal depends on the set of positions, not on the order they were given in
    # row_ids[s][i]: the number of position i's row in stratum s (positions sharing those coordinates share it)
    row_ids = []
    for group in strata:
        numbered: dict[tuple[int, ...], int] = {}
        row_ids.append(np.array([numbered.setdefault(tuple(pos[i] for i in group), len(numbered))
                                 for pos in order], dtype=np.int64))
    # swaps between positions can stall short of even rows, so a few shuffles are climbed and the best kept
    best: tuple[tuple[int, int], list[int]] | None = None
    for _restart in range(RESTARTS):
        rng.shuffle(deck)
        dealt = np.array(deck, dtype=np.int64)
        score = _even_out(dealt, row_ids, count, rng)
        if best is None or score < best[0]:
            best = (score, dealt.tolist())
        if score[0] == 0:
            break
    assert best is not None
    return {pos: values[v] for pos, v in zip(order, best[1], strict=True)}


#: Shuffles climbed per deal (the first whose rows all come out even is kept).
RESTARTS = 8


def _even_out(dealt: np.ndarray, row_ids: Sequence[np.ndarray], count: int,
              rng: random.Random) -> tuple[int, int]:
    """Swap values between positions while a swap evens out the strata's rows (the sum over rows of each
    value's squared count falls); swaps keep the deck, so the task stays balanced as a whole. Each position in
    turn (a seeded order) takes the partner whose swap evens the rows most (ties drawn), the gain of every
    partner at once in numpy: a pass costs O(positions^2) array work instead of as many Python steps (1,100
    positions took 65-100 s per deal that way). Returns (how far the rows are from even: the sum of each row's
    spread beyond one, the sum of squares)."""
    n = len(dealt)
    rows = []  # rows[s][r, v]: how often value v is dealt in row r of stratum s
    for ids in row_ids:
        table = np.zeros((int(ids.max()) + 1 if n else 0, count), dtype=np.int64)
        np.add.at(table, (ids, dealt), 1)
        rows.append(table)
    visit = list(range(n))
    improved = True
    while improved:
        improved = False
        rng.shuffle(visit)
        for p in visit:
            a = int(dealt[p])
            # gain[q]: the change in the sum of squares if p and q swapped values (a at p, dealt[q] at q)
            gain = np.zeros(n, dtype=np.int64)
            for ids, table in zip(row_ids, rows, strict=True):
                rp = int(ids[p])
                term = 2 * (table[rp, dealt] - table[rp, a] + table[ids, a] - table[ids, dealt]) + 4
                gain += np.where(ids != rp, term, 0)
            gain[dealt == a] = 0  # the same value: no swap
            low = int(gain.min())
            if low >= 0:
                continue
            ties = np.flatnonzero(gain == low)
            q = int(ties[rng.randrange(len(ties))])
            b = int(dealt[q])
            for ids, table in zip(row_ids, rows, strict=True):
                rp, rq = int(ids[p]), int(ids[q])
                if rp != rq:
                    table[rp, a] -= 1
                    table[rp, b] += 1
                    table[rq, b] -= 1
                    table[rq, a] += 1
            dealt[p], dealt[q] = b, a
            improved = True
    uneven = sum(int(np.maximum(table.max(axis=1) - table.min(axis=1) - 1, 0).sum()) for table in rows)
    squares = sum(int((table * table).sum()) for table in rows)
    return uneven, squares
