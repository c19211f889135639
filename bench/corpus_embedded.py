"""The embedded corpus: how long loading its text takes, and whether the whole shipped text still matches the
generator (``tools/make_corpus.py --check``, minutes on a small machine; the tests check the first documents of
each language only).

    python bench/corpus_embedded.py              # load timings (cold and cached), then the full check
    python bench/corpus_embedded.py --no-check   # load timings only
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-check", action="store_true", help="skip the full generator check")
    args = parser.parse_args()
    from niah.corpus import load_corpus
    from niah.corpus.embedded import _raw_documents

    for lang in ("en", "zh"):
        _raw_documents.cache_clear()
        start = time.perf_counter()
        n = sum(1 for _ in load_corpus("default", lang=lang).documents())
        cold = time.perf_counter() - start
        start = time.perf_counter()
        sum(1 for _ in load_corpus("default", lang=lang).documents())
        warm = time.perf_counter() - start
        print(f"{lang}: {n} documents; load {cold:.3f} s cold, {warm:.3f} s cached")
    if args.no_check:
        return 0
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_corpus.py"), "--check"], check=False)
    print(f"full generator check: {'match' if done.returncode == 0 else 'DIFFERS'} in "
          f"{time.perf_counter() - start:.1f} s")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
