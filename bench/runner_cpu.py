"""The runner's own cost per request, with no server: `run_dataset` on N text samples of about 1,500 words
with the in-process random baseline, so that what is timed is planning, prompt fitting, cache keys, the
response cache, responses.jsonl and run.json, not a model. Printed: CPU ms and wall s per run, median of
--rounds fresh runs.

On a shared machine a server's timings swing by tens of percent between rounds (bench/runner_overhead.py
shows it); this one varies by a few percent, so it is the one to compare two versions of the runner with:

    .venv/bin/python bench/runner_cpu.py                          # this checkout
    PYTHONPATH=/path/to/other/src .venv/bin/python bench/runner_cpu.py   # another checkout's runner
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the dataset helpers live in tests/support

WORDS = ("oak", "mill", "river", "stone", "field", "lantern", "harbour", "meadow")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=1500)
    parser.add_argument("--words", type=int, default=1500, help="words per sample context")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import niah.run
    from niah.run import run_dataset_sync
    from support.datasets import write_text_prompts

    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ds = write_text_prompts(root / "ds", [" ".join(rng.choice(WORDS) for _ in range(args.words)) + f" {i}."
                                              for i in range(args.samples)])
        cpu, wall = [], []
        for _ in range(args.rounds):
            shutil.rmtree(root / "run", ignore_errors=True)
            c0, w0 = time.process_time(), time.perf_counter()
            run_dataset_sync(ds, "baseline:random", root / "run", progress=False)
            cpu.append((time.process_time() - c0) / args.samples * 1000)
            wall.append(time.perf_counter() - w0)
    print(f"runner: {niah.run.__file__}")
    print(f"{args.samples} samples, rounds {', '.join(f'{c:.3f}' for c in cpu)} CPU ms/request")
    print(f"median: {statistics.median(cpu):.3f} CPU ms/request, {statistics.median(wall):.2f} s wall per run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
