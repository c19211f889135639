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
    # swaps between positions can stall short of even rows, so a few shuffles are climbed and the best kept
    best: tuple[tuple[int, int], dict[Position, int]] | None = None
    for _restart in range(RESTARTS):
        rng.shuffle(deck)
        dealt = dict(zip(order, deck, strict=True))
        score = _even_out(dealt, order, strata, count, rng)
        if best is None or score < best[0]:
            best = (score, dealt)
        if score[0] == 0:
            break
    assert best is not None
    dealt = best[1]
    return {pos: values[v] for pos, v in dealt.items()}


#: Shuffles climbed per deal (the first whose rows all come out even is kept).
RESTARTS = 8


def _even_out(dealt: dict[Position, int], order: Sequence[Position], strata: Sequence[Sequence[int]],
              count: int, rng: random.Random) -> tuple[int, int]:
    """Swap values between positions while a swap evens out the strata's rows (the sum over rows of each
    value's squared count falls); swaps keep the deck, so the task stays balanced as a whole. Returns (how far
    the rows are from even: the sum of each row's spread beyond one, the sum of squares)."""
    rows = [{tuple(pos[i] for i in group): [0] * count for pos in order} for group in strata]
    for pos in order:
        for row_of, group in zip(rows, strata, strict=True):
            row_of[tuple(pos[i] for i in group)][dealt[pos]] += 1
    pairs = [(p, q) for n, p in enumerate(order) for q in order[n + 1:]]
    improved = True
    while improved:
        improved = False
        rng.shuffle(pairs)
        for p, q in pairs:
            a, b = dealt[p], dealt[q]
            if a == b:
                continue
            change = 0
            touched = []
            for row_of, group in zip(rows, strata, strict=True):
                rp, rq = row_of[tuple(p[i] for i in group)], row_of[tuple(q[i] for i in group)]
                if rp is not rq:
                    change += 2 * (rp[b] - rp[a] + rq[a] - rq[b]) + 4
                    touched.append((rp, rq))
            if change < 0:
                for rp, rq in touched:
                    rp[a] -= 1
                    rp[b] += 1
                    rq[b] -= 1
                    rq[a] += 1
                dealt[p], dealt[q] = b, a
                improved = True
    uneven = sum(max(0, max(r) - min(r) - 1) for row_of in rows for r in row_of.values())
    squares = sum(c * c for row_of in rows for r in row_of.values() for c in r)
    return uneven, squares
