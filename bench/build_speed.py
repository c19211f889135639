"""How fast niah builds exact-length samples (a benchmark script, not a test).

Measures, on the embedded English corpus with cl100k_base:
1. a fresh text-needle sample (its own haystack selection) at 8K, 32K and 128K tokens;
2. a fresh 32K sample with three text needles and three images (one pinned near a depth): every step of the
   layout (needle positions, paragraph openings and closings, image boundaries), not only the text selection;
3. a depth sweep over one haystack (only the needle moves);
4. a full MM-NIAH grid of the validation set's size (six tasks, 1K-64K, images included) written to disk,
   with peak memory (ru_maxrss).
Every generated sample is checked exact to 0 tokens (outside the timed region); the share of contexts that end on
a whole sentence (rather than a word cut) is printed beside it.

    python bench/build_speed.py [--repeats 200] [--grid-per-cell 10] [--skip-grid]

Targets (issue #2, one core of the dev machine): <= 2.2 ms per fresh 128K sample, <= 0.25 ms per sweep sample,
<= 120 s for a ~3,100-sample grid, memory flat in the number of samples.

The layout split into named steps (issue #46: ``_assemble_once`` wires ``_select_context``, ``_slot_masks``,
``_place_images``, ``_NeedlePlacer``, ``_materialize``) costs nothing measurable: --skip-grid --repeats 500, the
lowest of five rounds alternating the two versions on the shared 2-core dev machine, before -> after:
8K 0.354 -> 0.343 ms, 32K 0.652 -> 0.641 ms, 128K 2.119 -> 2.284 ms (1.88-2.03 ms in quieter rounds),
32K with three needles and three images 0.972 -> 0.885 ms.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from niah.build.haystack import ImageSpec, NeedleSpec, TextPool, assemble, sweep_haystack
from niah.corpus import load_corpus
from niah.corpus.text import split_sentences
from niah.tokens import get_tokenizer

NEEDLE = " The best thing to do in Nanjing is eating hot dry noodles."


def build_pool(tokenizer: str) -> tuple[TextPool, float]:
    t = time.perf_counter()
    corpus = load_corpus("default", lang="en")
    docs = ((d.id, [split_sentences(p, d.lang) for p in d.paragraphs]) for d in corpus.documents())
    pool = TextPool.build(docs, get_tokenizer(tokenizer), "en")
    return pool, time.perf_counter() - t


def bench_fresh(pool: TextPool, length: int, repeats: int) -> tuple[float, int, float]:
    """(median ms per sample, max |error| over 20 samples, share of all samples ending on a sentence)."""
    rng = np.random.default_rng(0)
    times, worst, ends = [], 0, 0
    layouts = []
    for i in range(repeats):
        t = time.perf_counter()
        lay = assemble(pool, length, rng, needles=[NeedleSpec(NEEDLE, (i % 11) / 10)])
        times.append(time.perf_counter() - t)
        ends += lay.sentence_end
        if i < 20:
            layouts.append(lay)
    for lay in layouts:  # exactness, checked outside the timed region
        worst = max(worst, abs(pool.tokenizer.count(lay.text()) - length))
    return statistics.median(times) * 1000, worst, ends / repeats


def bench_placed(pool: TextPool, length: int, repeats: int) -> tuple[float, int]:
    """(median ms per sample, max |error| over 20 samples) of samples with three needles and three images."""
    rng = np.random.default_rng(0)
    times, layouts = [], []
    for i in range(repeats):
        depth = (i % 11) / 10
        needles = [NeedleSpec(NEEDLE, depth), NeedleSpec(NEEDLE, (depth + 0.37) % 1.0),
                   NeedleSpec(NEEDLE, (depth + 0.71) % 1.0)]
        images = [ImageSpec(300), ImageSpec(300), ImageSpec(300, target_depth=1.0 - depth,
                                                            window=(max(0.0, 0.9 - depth), min(1.0, 1.1 - depth)))]
        t = time.perf_counter()
        lay = assemble(pool, length, rng, images=images, needles=needles)
        times.append(time.perf_counter() - t)
        if i < 20:
            layouts.append(lay)
    worst = max(abs(pool.tokenizer.count(lay.text()) - (length - lay.image_tokens)) for lay in layouts)
    return statistics.median(times) * 1000, worst


def bench_sweep(pool: TextPool, length: int, depths: int) -> tuple[float, int]:
    sweep = sweep_haystack(pool, length, np.random.default_rng(1), NEEDLE)
    t = time.perf_counter()
    for i in range(depths):  # each sample is built and dropped, as a writer streaming samples would
        sweep.with_needle(i / (depths - 1))
    per = (time.perf_counter() - t) / depths * 1000
    worst = max(abs(pool.tokenizer.count(sweep.with_needle(i / 10)[0]) - length) for i in range(11))
    return per, worst


def bench_grid(per_cell: int) -> tuple[float, int, float, dict[str, int]]:
    from niah.benchmarks.mm_niah.build import BuildConfig
    from niah.benchmarks.mm_niah.cli import build_mm_niah

    cfg = BuildConfig(lengths=["1k-2k", "2k-4k", "4k-8k", "8k-12k", "12k-16k", "16k-24k", "24k-32k", "32k-40k",
                               "40k-48k", "48k-64k", "64k-72k"], per_cell=per_cell, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        counts = build_mm_niah(cfg, Path(tmp) / "grid", progress=False)
        elapsed = time.perf_counter() - t
        endings = json.loads((Path(tmp) / "grid" / "manifest.json").read_text())["context_endings"]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return elapsed, sum(counts.values()), peak_mb, endings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--tokenizer", default="cl100k_base")
    ap.add_argument("--grid-per-cell", type=int, default=10, help="10 gives 6 x 11 x 5 x 10 = 3,300 samples")
    ap.add_argument("--skip-grid", action="store_true")
    args = ap.parse_args()

    pool, prep = build_pool(args.tokenizer)
    print(f"corpus: {pool.total_tokens} {args.tokenizer} tokens in {pool.num_docs} documents, "
          f"{len(pool.units)} units; tokenized once in {prep:.2f} s")
    print(f"{'what':<44} {'ms/sample':>10} {'max |error|':>12} {'sentence ends':>14}")
    for length in (8_000, 32_000, 128_000):
        ms, err, share = bench_fresh(pool, length, args.repeats)
        print(f"{'fresh text-needle sample ' + str(length // 1000) + 'K':<44} {ms:>10.3f} {err:>12d} {share:>14.1%}")
    ms, err = bench_placed(pool, 32_000, args.repeats)
    print(f"{'fresh 32K sample, 3 needles + 3 images':<44} {ms:>10.3f} {err:>12d}")
    ms, err = bench_sweep(pool, 128_000, 1000)
    print(f"{'depth sweep over one 128K haystack':<44} {ms:>10.4f} {err:>12d}")
    if not args.skip_grid:
        mem_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        elapsed, n, peak, endings = bench_grid(args.grid_per_cell)
        print(f"MM-NIAH grid: {n} samples, six tasks, 1K-72K, images written: {elapsed:.1f} s "
              f"({elapsed / n * 1000:.1f} ms/sample); peak RSS {peak:.0f} MB (before grid {mem_before:.0f} MB); "
              f"endings: {endings['sentence']} on a sentence, {endings['word_cut']} word cuts")


if __name__ == "__main__":
    main()
