"""How long ``niah build video-niah`` takes for a 1-hour haystack (a benchmark, not a test).

Builds the default grid for one 60-minute procedural haystack (four tasks x five depth cells, needles placed at
random inside them, one sample per cell, overlay needles, 640x360, 64 frames per sample unless --frames says
otherwise) and prints wall time, frames written, dataset size and peak RSS.

    python bench/video_niah_build.py [--durations 60m] [--frames 64|all] [--needle overlay] [--width 640 --height 360]

Measured on the dev machine (2 cores shared with other jobs, load average about 4): --frames 64: 60m: 20
samples, 100 frames, 3 MB, 17.6 s wall, peak RSS 84 MB; 5m,15m,30m,60m: 80 samples, 392 frames, 13 MB, 31.0 s,
90 MB. --frames all (every frame at 1 fps): 60m: 3,672 frames, 115 MB, 74.4 s, 87 MB; the four durations:
6,872 frames, 219 MB, 81.1 s, 96 MB.
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
    ap.add_argument("--frames", default="64", help="frames per sample (the default) or 'all' (every frame at 1 fps)")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=360)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ds"
        t0 = time.perf_counter()
        counts = build(out, {"durations": args.durations, "needle": args.needle, "width": args.width,
                             "height": args.height, "frames": args.frames}, True)
        wall = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        frames = len(list((out / "media" / "frames").iterdir()))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{sum(counts.values())} samples, {frames} frames written, {size / 1e6:.0f} MB, {wall:.1f} s wall, "
          f"peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
