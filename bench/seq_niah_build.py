"""How fast Sequential-NIAH samples are built at exact length (a benchmark script, not a test).

For each language and length (8K, 32K, 64K, 120K tokens, cl100k_base, embedded corpus) builds ``--repeats``
synthetic-temporal samples with 10 needles through the official insertion and reports the median time per
sample; every sample is checked exact (outside the timed region).

    python bench/seq_niah_build.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from niah.benchmarks.seq_niah import synth
from niah.benchmarks.seq_niah.build import LongTextPool, make_sample, prompt_text
from niah.corpus import load_corpus
from niah.tokens import get_tokenizer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    tok = get_tokenizer("cl100k_base")
    for lang in ("en", "zh"):
        t0 = time.perf_counter()
        pool = LongTextPool.build(load_corpus("default", lang=lang), tok, lang)
        print(f"{lang}: pool of {len(pool.units)} paragraphs, {pool.total_tokens} tokens, "
              f"{time.perf_counter() - t0:.2f} s")
        for target in (8000, 32000, 64000, 120000):
            if target > pool.total_tokens - 2000:
                continue
            rng, py_rng = np.random.default_rng(0), random.Random(0)
            times, samples = [], []
            for i in range(args.repeats):
                qa = synth.synthetic_temporal_qa(py_rng, lang, 10)
                t = time.perf_counter()
                samples.append(make_sample(qa, "synthetic-temporal", pool, target, rng, py_rng,
                                           sample_id=str(i), stats={}))
                times.append(time.perf_counter() - t)
            assert all(tok.count(prompt_text(s)) == target for s in samples)
            print(f"  {target:>6} tokens: {1000 * statistics.median(times):7.1f} ms per sample (exact)")


if __name__ == "__main__":
    main()
