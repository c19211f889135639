"""What a balanced deck (:func:`niah.build.deck.deal`) costs and how even it comes out, by grid size (a benchmark
script, not a test).

Grids are (length, depth, replicate) as MM-NIAH and video-niah deal them: the default 11 x 5 grid, then more
replicates per cell as ``--per-cell`` asks, and a counting-style slot deck (one position per statement, strata
length, depth and slot). For each it prints the seconds of one deal (best of ``--repeat``), the task-wide spread
(the most minus the least dealt value: 0 or 1), and how far the rows of each stratum are from even (the sum of
each row's spread beyond one: 0 is every row as even as a deck allows).

    python bench/deck_deal.py [--repeat 3] [--compare OLD_DECK_MODULE.py]

``--compare`` times another implementation of ``deal`` beside it (e.g. an earlier ``src/niah/build/deck.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from niah.build.deck import deal

Grid = tuple[str, list[tuple[int, ...]], int, list[tuple[int, ...]] | None]


def grids() -> list[Grid]:
    out: list[Grid] = []
    for per_cell, count in [(1, 4), (3, 4), (6, 10), (8, 4), (20, 4), (20, 10)]:
        positions: list[tuple[int, ...]] = list(itertools.product(range(11), range(5), range(per_cell)))
        out.append((f"11x5x{per_cell}, {count} values", positions, count, None))
    # counting-text's slot deck: 1-3 statement slots per position, counts 0..6 over them
    slots: list[tuple[int, ...]] = [(li, di, rep, slot) for li in range(11) for di in range(5) for rep in range(4)
             for slot in range((li + di + rep) % 3 + 1)]
    slot_strata: list[tuple[int, ...]] = [(0,), (1,), (3,)]
    out.append((f"slots of 11x5x4 ({len(slots)}), 7 values", slots, 7, slot_strata))
    return out


def unevenness(dealt: dict[tuple[int, ...], Any], strata: Sequence[Sequence[int]], count: int) -> int:
    total = 0
    for group in strata:
        rows: dict[tuple[int, ...], Counter[Any]] = {}
        for pos, v in dealt.items():
            rows.setdefault(tuple(pos[i] for i in group), Counter())[v] += 1
        for row in rows.values():
            spread = max(row[v] for v in range(count)) - min(row[v] for v in range(count))
            total += max(0, spread - 1)
    return total


def measure(fn: Callable[..., dict[tuple[int, ...], Any]], grid: Grid, repeat: int) -> tuple[float, int, int]:
    name, positions, count, strata = grid
    best = float("inf")
    dealt: dict[tuple[int, ...], Any] = {}
    for _ in range(repeat):
        start = time.perf_counter()
        dealt = fn(list(range(count)), positions, f"bench/{name}", strata)
        best = min(best, time.perf_counter() - start)
    width = len(positions[0])
    groups = strata or [(i,) for i in range(width)] + ([tuple(range(width - 1))] if width > 2 else [])
    task = Counter(dealt.values())
    return best, max(task.values()) - min(task.get(v, 0) for v in range(count)), unevenness(dealt, groups, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", help="a Python file defining another deal() to time beside niah's")
    args = parser.parse_args()
    other = None
    if args.compare:
        spec = importlib.util.spec_from_file_location("compared_deck", args.compare)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        other = module.deal
    print(f"{'grid':34} {'seconds':>8} {'spread':>6} {'uneven':>6}" + ("   compared: s / spread / uneven" if other else ""))
    for grid in grids():
        seconds, spread, uneven = measure(deal, grid, args.repeat)
        line = f"{grid[0]:34} {seconds:8.3f} {spread:6d} {uneven:6d}"
        if other is not None:
            o_seconds, o_spread, o_uneven = measure(other, grid, 1)
            line += f"   {o_seconds:8.3f} / {o_spread} / {o_uneven}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
