"""How fast niah builds MMLongBench and MileBench samples at exact lengths (a benchmark script, not a test).

Builds visual-haystack samples (single and multi needle) at 8K..128K tokens (llama2-sp + qwen2vl-28px) and
MileBench passkey haystacks, checks every sample exact (outside the timed region) and prints seconds per sample.

    python bench/mmlongbench_build.py [--per-length 4] [--images FOLDER]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from niah.benchmarks.milebench.build import build_milebench_niah, official_length
from niah.benchmarks.mmlongbench.build import build_vh, measure
from niah.sample import Dataset
from niah.tokens import get_tokenizer
from niah.tokens.image import Qwen2VLRule


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-length", type=int, default=4)
    parser.add_argument("--images", type=Path, default=None, help="image folder (default: the embedded pool)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for needles in (1, 3):
            for k in (8, 32, 128):
                out = Path(tmp) / f"vh{needles}-{k}"
                start = time.perf_counter()
                build_vh(out, lengths=(k,), per_length=args.per_length, needles=needles, images=args.images)
                elapsed = time.perf_counter() - start
                ds = Dataset(out)
                exact = all(measure(s, ds.media_root, "llama2-sp", Qwen2VLRule()) == k * 1024 for s in ds)
                print(f"mmlongbench-vh needles={needles} {k}K: {elapsed / args.per_length:.3f} s/sample, "
                      f"exact={exact}")
        tok = get_tokenizer("cl100k_base")
        for length in (4096, 32768):
            out = Path(tmp) / f"mb-{length}"
            start = time.perf_counter()
            build_milebench_niah(out, lengths=(length,), per_length=args.per_length, images_per_sample=4)
            elapsed = time.perf_counter() - start
            ds = Dataset(out)
            exact = all(official_length(s, tok, 576) == length for s in ds)
            print(f"milebench-niah {length}: {elapsed / (2 * args.per_length):.3f} s/sample, exact={exact}")


if __name__ == "__main__":
    main()
