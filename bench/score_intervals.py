"""What the 95% intervals of scores.json cost `niah score`, per family (a benchmark script, not a test).

For each family with a generator it builds a grid (seed 0; `--per-cell` samples per cell where the family has
cells), runs ``baseline:random`` on it (no server), then times ``score_run`` as `niah score` calls it (every
score mode, every scores file) with the intervals and without them (``headline_intervals`` replaced by one that
returns none), best of ``--repeat``. The difference is what the intervals cost: Wilson's where a figure is a
plain proportion, else the seeded stratified bootstrap of the family's aggregation (1000 resamples), which grows
linearly with the scored rows.

With ``--times K`` it also times the scores of a larger run without building one: each family's scored rows
repeated K times (ids made unique), every score mode through ``benchmark_block``, the function `niah score`
calls per benchmark and mode (aggregation, headline and intervals).

    python bench/score_intervals.py [--only mm-niah,seq-niah] [--per-cell 3] [--times 60] [--out /tmp/niah-score-bench]

Before and after the bootstrap was vectorised (the draws of Python's own generator made at once in numpy, and
MM-NIAH's ``Scorer.resampler`` summing its cells from them instead of building and aggregating 1000 resampled
runs of rows), this 2-core machine with other work on it (load about 9), ``--only mm-niah --per-cell 1
--times 60``:

| | intervals over 330 rows (s) | 19,800 rows, official (s) | 19,800 rows, lenient (s) |
|---|---|---|---|
| before | 7.95 | 190.5 | 335.6 |
| after | 1.96 | 7.1 | 8.6 |

What is left at 19,800 rows is mostly the tasks the random baseline got all wrong: an all-alike figure is
recomputed at 41 points across its common score's interval (scoring/score.py ``_resampled``), rows and all.
The intervals written are the same to the last digit (tests/test_bootstrap_resampler.py pins them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

# family -> (build verb, build options; "{n}" is --per-cell, "{4n}" four times it: the family's default is 4)
FAMILIES: dict[str, tuple[str, list[str]]] = {
    "mm-niah": ("mm-niah", ["--per-cell", "{n}"]),
    "seq-niah": ("seq-niah", ["--per-cell", "{n}", "--lengths", "8k-16k,16k-32k"]),
    "mmlongbench-vh": ("mmlongbench-vh", ["--per-cell", "{4n}", "--lengths", "8k,16k"]),
    "milebench-niah": ("milebench-niah", ["--per-cell", "{4n}"]),
    "video-niah": ("video-niah", ["--per-cell", "{n}"]),
}


def run_niah(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True)
    if done.returncode not in (0, 3):  # 3: some request failed (a baseline never fails; kept for safety)
        raise SystemExit(f"niah {' '.join(args)} failed:\n{done.stderr[-2000:]}")


def best_of(repeat: int, run: Path) -> float:
    from niah.scoring.score import score_run

    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        score_run(run)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated families (default: all)")
    parser.add_argument("--per-cell", type=int, default=1, help="samples per grid cell of each build")
    parser.add_argument("--repeat", type=int, default=3, help="time each scoring this many times, keep the best")
    parser.add_argument("--times", type=int, default=1, help="also time the scores of the rows repeated this often")
    parser.add_argument("--out", type=Path, default=Path("/tmp/niah-score-bench"))
    args = parser.parse_args()

    import niah.scoring.score

    with_intervals = niah.scoring.score.headline_intervals

    def without_intervals(scorer, rows, mode, head, hold=None):  # type: ignore[no-untyped-def]
        return niah.scoring.score.Intervals(None, None, dict.fromkeys(head.by_task))

    only = {name for name in args.only.split(",") if name}
    grown: list[tuple[str, Path]] = []
    print("| family | scored rows | niah score, no intervals (s) | with intervals (s) | intervals (s) |")
    print("|---|---|---|---|---|")
    for family, (verb, options) in FAMILIES.items():
        if only and family not in only:
            continue
        data = args.out / f"{family}-{args.per_cell}" / "data"
        run = args.out / f"{family}-{args.per_cell}" / "run"
        if not (data / "samples.jsonl").is_file():
            shutil.rmtree(data, ignore_errors=True)
            print(f"building {family} ...", file=sys.stderr)
            run_niah("build", verb, "--out", str(data), "--seed", "0", "--no-progress",
                 *(o.replace("{4n}", str(4 * args.per_cell)).replace("{n}", str(args.per_cell)) for o in options))
        if not (run / "responses.jsonl").is_file():
            shutil.rmtree(run, ignore_errors=True)
            run_niah("run", str(data), "--model", "baseline:random", "--out", str(run), "--no-progress")
        niah.scoring.score.headline_intervals = without_intervals  # type: ignore[assignment]
        plain = best_of(args.repeat, run)
        niah.scoring.score.headline_intervals = with_intervals
        full = best_of(args.repeat, run)
        rows = len((run / "scored.jsonl").read_text().splitlines())
        print(f"| {family} | {rows} | {plain:.2f} | {full:.2f} | {full - plain:.2f} |", flush=True)
        if args.times > 1:
            grown.append((family, run))
    for family, run in grown:
        time_grown(family, run, args.times)


def time_grown(family: str, run: Path, times: int) -> None:
    """Time ``benchmark_block`` per score mode on the run's scored rows repeated ``times`` times."""
    from niah.scoring.score import benchmark_block, get_scorer

    scored = [json.loads(line) for line in (run / "scored.jsonl").read_text().splitlines()]
    rows = [({**row, "id": f"{row['id']}/{k}"}, {}) for k in range(times) for row in scored]
    benchmarks = {row["benchmark"] for row in scored}
    for benchmark in sorted(benchmarks):
        mine = [r for r in rows if r[0]["benchmark"] == benchmark]
        for mode in mine[0][0]["scores"]:
            t0 = time.perf_counter()
            benchmark_block(get_scorer(benchmark), benchmark, mine, mode)
            print(f"{family} ({benchmark}), {len(mine)} rows ({times} x the run's), mode {mode}: "
                  f"{time.perf_counter() - t0:.2f} s", flush=True)


if __name__ == "__main__":
    main()
