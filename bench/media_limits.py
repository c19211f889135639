"""Frame cache and media limits, tried as an attacker would: what each attack costs (time, memory, bytes sent,
files written) on a given niah source tree. Run it once against the tree before a change and once after:

    python bench/media_limits.py --src /path/to/old/src --work /tmp/ml-old
    python bench/media_limits.py --src src --work /tmp/ml-new [--big /tmp/big.mov]

Each attack runs in its own process, under a memory cap (``--mem-gb``) and a time limit (``--timeout``), so
an attack that succeeds is cut short rather than taking the machine. ``--big`` names a video of four
16000x16000 frames (made once with ``--make-big``: about 40 s and 3 GB of memory to encode).

Attacks:
- ``cache_foreign``: the frame cache folder is owned by another user and holds an entry, keyed for the
  video, whose plan.json names a file outside the entry (a secret): is the secret sent?
- ``cache_open``: the same with a cache folder of ours but open to everyone (mode 0777).
- ``cache_escape``: a private cache, the entry's plan.json naming ``../../secret``.
- ``cache_swap``: a private cache whose first frame is replaced by another JPEG: is the swapped frame sent?
- ``cache_hit``: time of a cache hit for 32 frames (what the entry checks cost).
- ``big_frames``: validation and sampling of the four-16000x16000-frame video.
- ``long_claim``: a tiny MKV claiming 1e6 s, sampled at 1 fps.
- ``folder``: a frame folder of 20,000 frames: the request's size.
- ``sigterm``: ``niah run --video-fps 1 --max-frames 400`` on a 4K video, SIGTERM one second into decoding:
  seconds until the process exits.

On the 2-core development machine (shared; 3 GB memory cap, 30 s limit per attack), before and after the
frame cache checks and media limits:

| attack | before | after |
| --- | --- | --- |
| cache_foreign (uid 65534 owns the cache) | secret sent (204-byte request) | refused: "owned by uid 65534, not by you" |
| cache_open (mode 0777) | secret sent | refused: "open to other users (mode 0777)" |
| cache_escape (``../../secret``) | secret sent | never sent: 32 real frames sampled again (80,320 bytes) |
| cache_swap | swapped frame sent | detected (SHA-256), sampled again |
| cache_hit, 32 frames | 0.4-0.6 ms | 1.3-2.2 ms (hash and stat every frame; decoded once a process) |
| big_frames, 2.9 MB .mov, 4 x 16000x16000 | validation passes; sampling still running at 30 s, 2.6 GB | validation refuses (0.8 s: FFmpeg's stream probe decodes one frame); sampling refused in 0.7 s, 626 MB peak |
| long_claim, 1,281-byte MKV claiming 1e6 s, 1 fps | still running at 30 s (1e6 targets planned) | refused in 0.05 s |
| folder, 20,000 frames | 19.9 MB request, 16.8 s to build | refused in 0.13 s (frame limit 1024) |
| sigterm during decoding | still running 30 s after SIGTERM | exits in 0.2-2.2 s |
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

COMMON = r'''
import base64, json, os, sys, time, resource
from pathlib import Path
work = Path(sys.argv[1])
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
def make_video(path, seconds=4, fps=8, w=320, h=240):
    from niah.video.writer import VideoWriter
    import numpy as np
    with VideoWriter(path, w, h, fps, keyframe_interval=1) as wr:
        for i in range(seconds * fps):
            y = np.full((h, w), (i * 7) % 200 + 20, np.uint8)
            u = np.full((h // 2, w // 2), 128, np.uint8)
            wr.write_yuv(y, u, u)
    return path
def fit_payload(video_rel, root, options=None):
    from niah.models.base import Capabilities
    from niah.models.media import ImageEncoder, openai_messages
    from niah.prompts.types import PromptOptions
    from niah.prompts.render import fit_to_capabilities, render_prompt
    from niah.sample import Sample, TextPart, VideoPart
    part = VideoPart(path=video_rel) if isinstance(video_rel, str) else VideoPart(frames=tuple(video_rel))
    s = Sample(id="s", benchmark="b", task="t", context=[part], question=[TextPart("?")], answer="x")
    fit = fit_to_capabilities(render_prompt(s, root), s, Capabilities(), options or PromptOptions())
    return json.dumps(openai_messages(fit.prompt, ImageEncoder()))
'''

CACHE_ATTACK = COMMON + r'''
mode = sys.argv[2]
from niah.video import expand
root = work / "ds"; (root / "media").mkdir(parents=True, exist_ok=True)
video = make_video(root / "media" / "v.mp4")
secret = work / "secret.txt"; secret.write_text("TOP-SECRET-" + "x" * 40)
cache = work / f"cache-{mode}"
cache.mkdir(exist_ok=True)
os.environ["NIAH_FRAME_CACHE"] = str(cache)
plan = {"count": 32, "fps": None, "max_frames": None, "format": "jpeg", "quality": 90}
entry = cache / expand._plan_key(video, plan)
entry.mkdir(exist_ok=True)
target = str(secret) if mode != "escape" else "../../secret.txt"
(entry / "plan.json").write_text(json.dumps({"files": [target], "times": [0.0], "plan": plan}))
if mode == "foreign":
    os.chown(entry, 65534, 65534); os.chown(entry / "plan.json", 65534, 65534); os.chown(cache, 65534, 65534)
if mode == "open":
    os.chmod(cache, 0o777)
if mode == "escape":
    os.chmod(cache, 0o700)
t = time.perf_counter()
try:
    payload = fit_payload("media/v.mp4", root)
    sent = base64.b64encode(secret.read_bytes()).decode() in payload
    out = {"secret_sent": sent, "error": None, "request_bytes": len(payload)}
except Exception as exc:
    out = {"secret_sent": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
out["s"] = round(time.perf_counter() - t, 3)
print(json.dumps(out))
'''

SWAP_ATTACK = COMMON + r'''
from niah.video import expand
from PIL import Image
import io
root = work / "ds"; (root / "media").mkdir(parents=True, exist_ok=True)
video = make_video(root / "media" / "v.mp4")
cache = work / "cache-swap"
os.environ["NIAH_FRAME_CACHE"] = str(cache)
first = expand.sample_video_frames(video, count=32, fps=None, max_frames=None)
buf = io.BytesIO(); Image.new("RGB", (320, 240), (255, 0, 0)).save(buf, format="JPEG")
swapped = buf.getvalue()
first.paths[0].write_bytes(swapped)
t = time.perf_counter()
again = expand.sample_video_frames(video, count=32, fps=None, max_frames=None)
hit_s = time.perf_counter() - t
print(json.dumps({"swapped_frame_used": again.paths[0].read_bytes() == swapped, "s": round(hit_s, 3)}))
'''

HIT_COST = COMMON + r'''
from niah.video import expand
root = work / "ds"; (root / "media").mkdir(parents=True, exist_ok=True)
video = make_video(root / "media" / "hit.mp4", seconds=60, fps=4, w=640, h=360)
cache = work / "cache-hit"
os.environ["NIAH_FRAME_CACHE"] = str(cache)
t = time.perf_counter(); expand.sample_video_frames(video, count=32, fps=None, max_frames=None)
miss = time.perf_counter() - t
best = 1e9
for _ in range(5):
    t = time.perf_counter(); expand.sample_video_frames(video, count=32, fps=None, max_frames=None)
    best = min(best, time.perf_counter() - t)
print(json.dumps({"miss_s": round(miss, 3), "hit_ms_best_of_5": round(best * 1000, 2)}))
'''

BIG_FRAMES = COMMON + r'''
import shutil
from niah.sample import media_problem
big = Path(sys.argv[2])
t = time.perf_counter()
problem = media_problem(big, "video")
validate_s = time.perf_counter() - t
os.environ["NIAH_FRAME_CACHE"] = str(work / "cache-big")
root = work / "big"; (root / "media").mkdir(parents=True, exist_ok=True)
shutil.copy(big, root / "media" / "big.mov")
print(json.dumps({"validation": problem or "passes", "validate_s": round(validate_s, 3)}), flush=True)
t = time.perf_counter()
try:
    payload = fit_payload("media/big.mov", root)
    out = {"error": None, "request_bytes": len(payload)}
except Exception as exc:
    out = {"error": f"{type(exc).__name__}: {exc}"[:300]}
out.update(s=round(time.perf_counter() - t, 3), peak_rss_mb=rss_mb())
print(json.dumps(out))
'''

LONG_CLAIM = COMMON + r'''
import av, numpy as np
from fractions import Fraction
root = work / "long"; (root / "media").mkdir(parents=True, exist_ok=True)
path = root / "media" / "claim.mkv"
c = av.open(str(path), "w")
s = c.add_stream("libx264", rate=Fraction(1, 1)); s.width = s.height = 64; s.pix_fmt = "yuv420p"
s.options = {"preset": "ultrafast", "g": "1"}
s.codec_context.time_base = Fraction(1, 1)
f = av.VideoFrame.from_ndarray(np.full((96, 64), 100, np.uint8), format="yuv420p")
for pts in (0, 1_000_000):
    f.pts = pts; f.time_base = Fraction(1, 1)
    for p in s.encode(f): c.mux(p)
for p in s.encode(): c.mux(p)
c.close()
cache = work / "cache-long"
os.environ["NIAH_FRAME_CACHE"] = str(cache)
from niah.prompts.types import PromptOptions
print(json.dumps({"file_bytes": path.stat().st_size}), flush=True)
t = time.perf_counter()
try:
    payload = fit_payload("media/claim.mkv", root, PromptOptions(video_fps=1.0))
    out = {"error": None, "request_bytes": len(payload)}
except Exception as exc:
    out = {"error": f"{type(exc).__name__}: {exc}"[:300]}
out.update(s=round(time.perf_counter() - t, 3), peak_rss_mb=rss_mb())
print(json.dumps(out))
'''

FOLDER = COMMON + r'''
from PIL import Image
import io
n = int(sys.argv[2])
root = work / "folder"; (root / "media" / "f").mkdir(parents=True, exist_ok=True)
buf = io.BytesIO(); Image.new("RGB", (64, 64), (20, 90, 160)).save(buf, format="JPEG"); data = buf.getvalue()
rels = []
for i in range(n):
    p = root / "media" / "f" / f"{i:06d}.jpg"
    if not p.exists():
        p.write_bytes(data)
    rels.append(f"media/f/{i:06d}.jpg")
t = time.perf_counter()
try:
    payload = fit_payload(rels, root)
    out = {"frames": n, "error": None, "request_bytes": len(payload)}
except Exception as exc:
    out = {"frames": n, "error": f"{type(exc).__name__}: {exc}"[:300]}
out.update(s=round(time.perf_counter() - t, 3), peak_rss_mb=rss_mb())
print(json.dumps(out))
'''

SIGTERM_VIDEO = COMMON + r'''
import av, numpy as np
from fractions import Fraction
from niah.sample import DatasetWriter, Sample, TextPart, VideoPart
src = work / "4k.mp4"
c = av.open(str(src), "w")
s = c.add_stream("libx264", rate=Fraction(1, 100)); s.width, s.height = 3840, 2160; s.pix_fmt = "yuv420p"
s.options = {"preset": "ultrafast", "g": "1", "threads": "1"}
s.codec_context.time_base = Fraction(1, 1)
for k in range(10):
    y = np.full((2160 * 3 // 2, 3840), 128, np.uint8); y[:2160] = 30 + k * 20
    f = av.VideoFrame.from_ndarray(y, format="yuv420p"); f.pts = k * 100; f.time_base = Fraction(1, 1)
    for p in s.encode(f): c.mux(p)
for p in s.encode(): c.mux(p)
c.close()
ds = work / "sigds"
with DatasetWriter(ds) as w:
    w.write_media("v.mp4", src.read_bytes())
    w.write(Sample(id="s1", benchmark="vbench", task="watch", context=[VideoPart(path="media/v.mp4")],
                   question=[TextPart("?")], answer="x"))
    w.finish({"benchmark": "vbench"})
print(ds)
'''


def run_script(src: str, script: str, args: list[str], *, timeout: float, mem_gb: float) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()))
    limit = int(mem_gb * 1024 ** 3)

    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=cap)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        peak = _peak_rss_mb(proc.pid)
        proc.kill()
        stdout, _ = proc.communicate()
        return {"outcome": f"still running after {timeout:.0f} s (killed)", "peak_rss_mb_at_kill": peak,
                "output": stdout.strip()[-400:]}
    out: dict[str, object] = {"wall_s": round(time.perf_counter() - t, 2), "rc": proc.returncode}
    for line in stdout.splitlines():
        if line.startswith("{"):
            out.update(json.loads(line))
    if proc.returncode != 0:
        out["stderr"] = stderr.strip()[-400:]
    return out


def _peak_rss_mb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def sigterm(src: str, work: Path, *, timeout: float, mem_gb: float) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()), NIAH_FRAME_CACHE=str(work / "cache-sig"))
    made = subprocess.run([sys.executable, "-c", textwrap.dedent(SIGTERM_VIDEO), str(work)], env=env,
                          capture_output=True, text=True, check=True)
    ds = made.stdout.strip().splitlines()[-1]
    out_dir = work / "sigrun"
    subprocess.run(["rm", "-rf", str(out_dir)], check=True)
    proc = subprocess.Popen([sys.executable, "-m", "niah.cli", "run", ds, "--model", "baseline:random", "--out",
                             str(out_dir), "--video-fps", "1", "--max-frames", "400", "--no-progress"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (out_dir / "run.json").exists() and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=timeout)
        return {"exit_after_sigterm_s": round(time.perf_counter() - sent, 2), "rc": proc.returncode,
                "stderr_tail": err.strip()[-200:]}
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"exit_after_sigterm_s": f"> {timeout:.0f} (killed)"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="the niah source tree (its src/ folder)")
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--big", type=Path, help="a video of four 16000x16000 frames")
    ap.add_argument("--make-big", action="store_true", help="make --big first")
    ap.add_argument("--only", help="comma-separated attacks")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--mem-gb", type=float, default=3.0)
    ap.add_argument("--folder-frames", type=int, default=20_000)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    if a.make_big and a.big is not None and not a.big.exists():
        subprocess.run([sys.executable, "-c", textwrap.dedent(MAKE_BIG), str(a.big)], check=True)
    kw = {"timeout": a.timeout, "mem_gb": a.mem_gb}
    attacks = {
        "cache_foreign": lambda: run_script(a.src, CACHE_ATTACK, [str(a.work), "foreign"], **kw),
        "cache_open": lambda: run_script(a.src, CACHE_ATTACK, [str(a.work), "open"], **kw),
        "cache_escape": lambda: run_script(a.src, CACHE_ATTACK, [str(a.work), "escape"], **kw),
        "cache_swap": lambda: run_script(a.src, SWAP_ATTACK, [str(a.work)], **kw),
        "cache_hit": lambda: run_script(a.src, HIT_COST, [str(a.work)], **kw),
        "long_claim": lambda: run_script(a.src, LONG_CLAIM, [str(a.work)], **kw),
        "folder": lambda: run_script(a.src, FOLDER, [str(a.work), str(a.folder_frames)], **kw),
        "sigterm": lambda: sigterm(a.src, a.work, **kw),
    }
    if a.big is not None:
        attacks["big_frames"] = lambda: run_script(a.src, BIG_FRAMES, [str(a.work), str(a.big)], **kw)
    for name, attack in attacks.items():
        if only is None or name in only:
            print(json.dumps({"attack": name, **attack()}), flush=True)


MAKE_BIG = r'''
import sys, av, numpy as np
from fractions import Fraction
c = av.open(sys.argv[1], "w")
s = c.add_stream("libx264", rate=Fraction(1, 1)); s.width = s.height = 16000; s.pix_fmt = "yuv420p"
s.options = {"preset": "ultrafast", "threads": "1", "rc-lookahead": "0", "g": "1"}
y = np.zeros((24000, 16000), np.uint8); y[:16000] = 80; y[16000:] = 128
f = av.VideoFrame.from_ndarray(y, format="yuv420p")
for i in range(4):
    f.pts = i; f.time_base = Fraction(1, 1)
    for p in s.encode(f): c.mux(p)
for p in s.encode(): c.mux(p)
c.close()
'''

if __name__ == "__main__":
    main()
