"""How long ``niah build video-niah`` takes for a 1-hour, 1 fps haystack (a benchmark, not a test).

Builds the default grid for one 60-minute procedural haystack (four tasks x five depth cells, needles placed at
random inside them, one sample per cell, overlay needles, 640x360) and prints wall time, frames written, dataset
size and peak RSS.

    python bench/video_niah_build.py [--durations 60m] [--needle overlay] [--width 640 --height 360]

Measured on the dev machine (2 cores shared with other jobs): 60m: 20 samples, 3,672 frames, 115 MB, 9.4 s
wall, peak RSS 91 MB; 5m,15m,30m,60m: 80 samples, 6,872 frames, 219 MB, 19.0 s wall, peak RSS 101 MB.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from niah.benchmarks.video_niah.build import build


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--durations", default="60m")
    ap.add_argument("--needle", default="overlay")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=360)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ds"
        t0 = time.perf_counter()
        counts = build(out, {"durations": args.durations, "needle": args.needle, "width": args.width,
                             "height": args.height}, True)
        wall = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        frames = len(list((out / "media" / "frames").iterdir()))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{sum(counts.values())} samples, {frames} frames written, {size / 1e6:.0f} MB, {wall:.1f} s wall, "
          f"peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
