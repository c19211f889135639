"""Frame sampling speed: 128 frames uniformly from a 1-hour 720p H.264 video, seek vs. decoding everything.

The video (1280x720, 24 fps, H.264 in MP4, a keyframe every --keyframe-interval seconds) is generated once with
PyAV and cached under /tmp. Every frame carries its own index as a barcode, so both methods are checked exact:
the frame returned for time t must be frame floor(t * 24), the one on screen at t.

- seek: niah.video.frames_at (seek to the keyframe before each target, decode forward only to it);
- full: decode every frame in order, converting only the frames on screen at the targets.

Each method runs in its own process so that its peak RSS (ru_maxrss) is its own; the kept frames are RGB PIL
images (128 x 1280 x 720 x 3 bytes = 354 MB) or, with --jpeg, JPEG bytes.

    python bench/frame_sampling.py [--keyframe-interval 4] [--frames 128] [--jpeg]

Target (issue #12): seek >= 10x faster than full decoding; memory bounded by the frames kept, not the video.

Measured on the dev machine (2 cores shared with other jobs; PyAV 18.1, libx264 ultrafast, low-complexity
content), best of 3 alternating runs, 128/128 frames exact every time; "full" decodes with FFmpeg's own threads,
the sampler with one decoder per core:
- keyframe every 4 s: seek 1.04 s wall / 1.76 s CPU vs full 15.2 s / 21.0 s: 14.6x wall; peak RSS 536 MB vs
  529 MB (both dominated by the 354 MB of kept RGB frames); --jpeg: 1.09 s vs 15.4 s, 14.2x; 106 MB vs 89 MB;
- keyframe every 10 s, --bframes 3: seek 2.62 s vs full 32.5 s: 12.4x wall (non-reference B-frames skipped);
- keyframe every 10 s, no B-frames: seek 1.79 s vs full 14.6 s: 8.1x wall, below the 10x target: each target
  costs half a GOP of decoding on average (128 x 5 s x 24 fps = 15,360 of 86,400 frames) and P-frames cannot be
  skipped.
Generating a 1-hour video takes 250-750 s (cached under /tmp afterwards).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

WIDTH, HEIGHT, FPS = 1280, 720, 24
BITS, CELL = 17, 48  # frame index barcode: 17 bits of 48x48 blocks (2^17 > 86,400 frames)


def video_path(seconds: int, keyframe_interval: float, bframes: int = 0) -> Path:
    tail = f"_b{bframes}" if bframes else ""
    return Path("/tmp/niah-bench") / f"frame_sampling_{seconds}s_720p_{FPS}fps_k{keyframe_interval:g}{tail}.mp4"


def generate(path: Path, seconds: int, keyframe_interval: float, bframes: int = 0) -> float:
    from niah.video.writer import VideoWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".partial.mp4")
    t0 = time.perf_counter()
    ramp = np.linspace(40, 120, WIDTH, dtype=np.float32).astype(np.uint8)
    background = np.broadcast_to(ramp, (HEIGHT, WIDTH)).copy()
    u = np.full((HEIGHT // 2, WIDTH // 2), 110, np.uint8)
    v = np.full((HEIGHT // 2, WIDTH // 2), 140, np.uint8)
    n = seconds * FPS
    with VideoWriter(tmp, WIDTH, HEIGHT, FPS, keyframe_interval=keyframe_interval, bframes=bframes) as writer:
        for i in range(n):
            y = background.copy()
            for b in range(BITS):
                y[16:16 + CELL, 16 + b * CELL:16 + (b + 1) * CELL] = 235 if i >> b & 1 else 16
            x = (i * 5) % (WIDTH - 160)
            yy = 300 + int(120 * math.sin(i / 50))
            y[yy:yy + 120, x:x + 160] = 200  # a moving block: motion for the encoder
            writer.write_yuv(y, u, v)
            if i % (FPS * 300) == 0 and i:
                print(f"  generated {i / FPS / 60:.0f} min of {seconds / 60:.0f}", file=sys.stderr)
    tmp.replace(path)
    return time.perf_counter() - t0


def read_index(image) -> int:
    a = np.asarray(image.convert("L"))
    return sum(1 << b for b in range(BITS) if a[16 + CELL // 2, 16 + b * CELL + CELL // 2] > 128)


def run_seek(path: Path, times: list[float], jpeg: bool) -> tuple[float, list[int]]:
    from niah.video import frames_at

    t0 = time.perf_counter()
    frames = frames_at(path, times, output="jpeg" if jpeg else "image")
    elapsed = time.perf_counter() - t0
    return elapsed, [read_index(f.to_image()) for f in frames]


def run_full(path: Path, times: list[float], jpeg: bool) -> tuple[float, list[int]]:
    import io

    import av
    from PIL import Image

    from niah.video.frames import encode_jpeg

    t0 = time.perf_counter()
    kept: list = []
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        tb = stream.time_base
        k = 0
        held = None
        for frame in container.decode(stream):
            ft = float(frame.pts * tb)
            while k < len(times) and ft > times[k] + 1e-9 and held is not None:
                img = held.to_image()
                kept.append(encode_jpeg(img) if jpeg else img)
                k += 1
            held = frame
        while k < len(times):
            img = held.to_image()
            kept.append(encode_jpeg(img) if jpeg else img)
            k += 1
    elapsed = time.perf_counter() - t0
    return elapsed, [read_index(Image.open(io.BytesIO(x)) if jpeg else x) for x in kept]


def child(method: str, path: Path, count: int, jpeg: bool) -> None:
    from niah.video import probe, uniform_times

    info = probe(path)
    times = uniform_times(info.duration, count)
    before = resource.getrusage(resource.RUSAGE_SELF)
    elapsed, indices = (run_seek if method == "seek" else run_full)(path, times, jpeg)
    expected = [min(round(info.duration * FPS) - 1, math.floor(t * FPS + 1e-9)) for t in times]
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss_mb = after.ru_maxrss / 1024
    print(json.dumps({"method": method, "seconds": elapsed, "exact": sum(a == b for a, b in zip(indices, expected, strict=True)),
                      "frames": len(times), "cpu_seconds": cpu, "peak_rss_mb": rss_mb}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=3600)
    ap.add_argument("--keyframe-interval", type=float, default=4.0)
    ap.add_argument("--bframes", type=int, default=0,
                    help="B-frames between reference frames (0 = none; 3 = what most encoders' defaults give)")
    ap.add_argument("--frames", type=int, default=128)
    ap.add_argument("--jpeg", action="store_true", help="keep frames as JPEG bytes instead of PIL images")
    ap.add_argument("--skip-full", action="store_true")
    ap.add_argument("--repeats", type=int, default=3,
                    help="alternate the methods this many times and keep each one's fastest run (shared CPUs)")
    ap.add_argument("--child", choices=["seek", "full"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    path = video_path(args.seconds, args.keyframe_interval, args.bframes)
    if args.child:
        child(args.child, path, args.frames, args.jpeg)
        return
    if not path.exists():
        print(f"generating {path} ...", file=sys.stderr)
        took = generate(path, args.seconds, args.keyframe_interval, args.bframes)
        print(f"generated {args.seconds * FPS} frames in {took:.1f} s ({args.seconds * FPS / took:.0f} fps), "
              f"{path.stat().st_size / 1e6:.1f} MB", file=sys.stderr)
    results: dict[str, dict] = {}
    methods = ("seek",) + (() if args.skip_full else ("full",))
    for _ in range(args.repeats):
        for method in methods:
            cmd = [sys.executable, __file__, "--child", method, "--seconds", str(args.seconds),
                   "--keyframe-interval", str(args.keyframe_interval), "--bframes", str(args.bframes),
                   "--frames", str(args.frames)]
            if args.jpeg:
                cmd.append("--jpeg")
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            if r["exact"] != r["frames"]:
                raise SystemExit(f"{method}: only {r['exact']}/{r['frames']} frames exact")
            if method not in results or r["seconds"] < results[method]["seconds"]:
                results[method] = r
    for method, r in results.items():
        print(f"{method:5s} {r['seconds']:7.2f} s wall {r['cpu_seconds']:7.2f} s CPU  exact {r['exact']}/{r['frames']}  peak RSS {r['peak_rss_mb']:.0f} MB")
    if "full" in results:
        wall = results["full"]["seconds"] / results["seek"]["seconds"]
        cpu = results["full"]["cpu_seconds"] / results["seek"]["cpu_seconds"]
        print(f"speed-up {wall:.1f}x wall, {cpu:.1f}x CPU time (target >= 10x)")


if __name__ == "__main__":
    main()
