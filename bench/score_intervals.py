"""What the 95% intervals of scores.json cost `niah score`, per family (a benchmark script, not a test).

For each family with a generator it builds the default grid (seed 0), runs ``baseline:random`` on it (no server),
then times, in this process:

- ``score_run`` as `niah score` calls it (every score mode, every scores file, intervals included);
- the intervals alone (``headline_intervals``: Wilson where a figure is a plain proportion, else the seeded
  bootstrap of the family's aggregation, 1000 resamples) on the run's rows, and on the rows repeated
  ``--scale`` times (a grid that many times larger: the bootstrap grows linearly with the rows).

    python bench/score_intervals.py [--only mm-niah,seq-niah] [--scale 10] [--out /tmp/niah-score-bench]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

# family -> (build verb, build options)
FAMILIES: dict[str, tuple[str, list[str]]] = {
    "mm-niah": ("mm-niah", ["--per-cell", "1"]),
    "seq-niah": ("seq-niah", ["--per-cell", "1", "--lengths", "8k-16k,16k-32k"]),
    "mmlongbench-vh": ("mmlongbench-vh", []),
    "milebench-niah": ("milebench-niah", []),
    "video-niah": ("video-niah", []),
}


def niah(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True)
    if done.returncode not in (0, 3):  # 3: some request failed (a baseline never fails; kept for safety)
        raise SystemExit(f"niah {' '.join(args)} failed:\n{done.stderr[-2000:]}")


def scored_rows(run_dir: Path) -> tuple[object, list[tuple[dict[str, object], dict[str, object]]]]:
    """The family scorer and the (row, info) pairs score_run aggregates, read back from scored.jsonl."""
    from niah.benchmarks.registry import find_family
    from niah.iox import iter_jsonl

    rows = [(row, {}) for _line, row in iter_jsonl(run_dir / "scored.jsonl")]
    family = find_family(str(rows[0][0]["benchmark"]))
    return family.scorer, rows  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated families (default: all)")
    parser.add_argument("--scale", type=int, default=10, help="also time the intervals on the rows x SCALE")
    parser.add_argument("--out", type=Path, default=Path("/tmp/niah-score-bench"))
    args = parser.parse_args()

    from niah.benchmarks.protocol import OFFICIAL
    from niah.scoring import _headline, headline_intervals, score_run

    only = {name for name in args.only.split(",") if name}
    print(f"| family | samples | niah score (s) | intervals (s) | rows x{args.scale} | intervals x{args.scale} (s) |")
    print("|---|---|---|---|---|---|")
    for family, (verb, options) in FAMILIES.items():
        if only and family not in only:
            continue
        data, run = args.out / family / "data", args.out / family / "run"
        if not (data / "samples.jsonl").is_file():
            shutil.rmtree(data, ignore_errors=True)
            print(f"building {family} ...", file=sys.stderr)
            niah("build", verb, "--out", str(data), "--seed", "0", "--no-progress", *options)
        shutil.rmtree(run, ignore_errors=True)
        niah("run", str(data), "--model", "baseline:random", "--out", str(run), "--no-progress")
        t0 = time.perf_counter()
        score_run(run)
        scoring = time.perf_counter() - t0
        scorer, rows = scored_rows(run)
        timings = []
        for repeat in (1, args.scale):
            many = rows * repeat
            t0 = time.perf_counter()
            headline_intervals(scorer, many, OFFICIAL, _headline(scorer, many, OFFICIAL))  # type: ignore[arg-type]
            timings.append(time.perf_counter() - t0)
        print(f"| {family} | {len(rows)} | {scoring:.2f} | {timings[0]:.2f} | {len(rows) * args.scale} | "
              f"{timings[1]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
