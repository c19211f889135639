"""`niah audit` on every generator's default build and on a larger grid (a benchmark script, not a test).

For each family with a generator it builds the default grid and a larger one (seed 0), a second build with
seed 1 as the question->answer reference, audits each with the settings the docs recommend for running it,
and prints every probe (score, chance, verdict) as a Markdown table, plus the wall time of each audit. The
numbers go into docs/audit.md.

Each audit measures its build on as many samples of the builder as `niah audit` builds by default, or
``--limit N`` a task (0: the build as it is).

    python bench/audit_families.py [--only mm-niah,video-niah] [--out /tmp/niah-audit-bench] [--large] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

# family -> (build verb, default build options, larger grid options, audit options)
FAMILIES: dict[str, tuple[str, list[str], list[str], list[str]]] = {
    "mm-niah": ("mm-niah", ["--per-cell", "1"], ["--per-cell", "3"], []),
    "seq-niah": ("seq-niah", ["--per-cell", "1", "--lengths", "8k-16k,16k-32k"],
                 ["--per-cell", "3", "--lengths", "8k-16k,16k-32k"], []),
    "mmlongbench-vh": ("mmlongbench-vh", [], ["--per-cell", "40", "--lengths", "8k,16k,32k"], []),
    "milebench-niah": ("milebench-niah", [], ["--per-cell", "30"], []),
    "video-niah": ("video-niah", [], ["--per-cell", "3"], ["--max-frames", "64"]),
}


def niah(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True)


def build(family: str, verb: str, options: list[str], out: Path, seed: int) -> None:
    if out.exists():
        shutil.rmtree(out)
    done = niah("build", verb, "--out", str(out), "--seed", str(seed), "--no-progress", *options)
    if done.returncode != 0:
        raise SystemExit(f"{family}: build failed:\n{done.stderr[-2000:]}")


def verdict(probe: dict[str, object]) -> str:
    if probe["passed"]:
        return "ok"
    return "skewed" if probe.get("advisory") else "SHORTCUT"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated families (default: all)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/niah-audit-bench"))
    ap.add_argument("--large", action="store_true", help="also the larger grids")
    ap.add_argument("--limit", type=int, default=None, help="niah audit --limit (default: the audit's own)")
    args = ap.parse_args()
    only = {f for f in args.only.split(",") if f}
    rows: list[str] = ["| family | grid | task | probe | score | chance | verdict |", "|---|---|---|---|---:|---:|---|"]
    timings: list[str] = []
    for family, (verb, default, large, audit_options) in FAMILIES.items():
        if only and family not in only:
            continue
        grids = [("default", default)] + ([("large", large)] if args.large else [])
        for grid, options in grids:
            ds = args.out / f"{family}-{grid}"
            ref = args.out / f"{family}-{grid}-seed1"
            build(family, verb, options, ds, 0)
            build(family, verb, options, ref, 1)
            t0 = time.perf_counter()
            more = [] if args.limit is None else ["--limit", str(args.limit)]
            done = niah("audit", str(ds), "--reference", str(ref), "--no-progress", *more, *audit_options)
            wall = time.perf_counter() - t0
            if done.returncode not in (0, 1):
                raise SystemExit(f"{family}: audit failed:\n{done.stderr[-2000:]}")
            report = json.loads((ds / "audit.json").read_text())
            built = sum(sum(s.get("tasks", {}).values()) for s in report.get("sources", []) if s.get("built"))
            timings.append(f"{family} {grid}: {report['samples']} samples ({built} built), audit {wall:.1f} s, "
                           f"{report['failed']} of {len(report['probes'])} probes failed")
            for p in report["probes"]:
                rows.append(f"| {family} | {grid} | {p['task']} | {p['probe']} | {p['score']:.1f} | "
                            f"{p['chance']:.1f} | {verdict(p)} |")
            print(timings[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))
    print()
    print("\n".join(timings))


if __name__ == "__main__":
    main()
