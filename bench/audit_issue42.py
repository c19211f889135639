"""The figures of issue 42 as `niah audit` measures them (a benchmark script, not a test).

For each generator it builds the default grid with seed 0 and seed 1 (each audited with the other as
``--reference``) and, where the builder reads a corpus, a seed-0 build from a corpus written here (a folder of
text files niah does not ship) audited with the public seed-0 build as ``--reference`` (what a model that
memorised the public default build scores on a private one). It prints one Markdown row per figure: the
reading probes (answer pool within the task's new-token budget, the reference build's pool and question table,
mention frequency, the learned probe), the diagnostics (type scan, vocabulary outlier) and the chance each is
read against, with n and the noise allowance.

Each audit measures the build on as many samples of its builder as `niah audit` builds by default (every
probe's allowance within 5 points at 95%, at most 500 a task), or ``--limit N`` a task (0: the build as it is).

    python bench/audit_issue42.py [--only mm-niah,milebench-niah] [--out /tmp/niah-issue42] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# family -> (build verb, default build options, whether it reads --corpus, audit options)
FAMILIES: dict[str, tuple[str, list[str], bool, list[str]]] = {
    "mm-niah": ("mm-niah", ["--per-cell", "1"], True, []),
    # the default grid's three text tasks alone, whose figures the issue gives: the audit measures them on 110
    # samples a task where the image tasks' multiple choice would have it build 500 of all six
    "mm-niah-text": ("mm-niah", ["--per-cell", "1", "--tasks", "retrieval-text,counting-text,reasoning-text"], True, []),
    "mmlongbench-niah": ("mmlongbench-niah", ["--lengths", "8k,16k"], True, []),
    "mmlongbench-vh": ("mmlongbench-vh", [], False, []),
    "milebench-niah": ("milebench-niah", [], False, []),
    "video-niah": ("video-niah", [], False, ["--max-frames", "64"]),
}
#: The probes the issue's figures are about.
FIGURES = ("answer-pool-budget", "reference-pool", "reference-table", "mention-frequency", "learned", "constant",
           "random", "type-scan", "vocabulary-outlier")

_ONSETS = ["b", "br", "d", "f", "g", "gl", "k", "l", "m", "n", "p", "pr", "r", "s", "st", "t", "tr", "v", "w", "z"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ou", "ea"]
_CODAS = ["", "n", "r", "l", "s", "th", "nd", "m", "ck"]
_GLUE = ["the", "a", "of", "and", "in", "to", "was", "on", "by", "with", "for", "as", "that", "from", "at"]


def write_corpus(folder: Path, files: int = 60, words_per_file: int = 6000, seed: int = 42) -> Path:
    """Prose-like text files of made-up content words and English function words: a corpus of our own."""
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice(part) for part in (_ONSETS, _VOWELS, _CODAS)) + rng.choice(["", "a", "er", "ing"])

    lexicon = [word() for _ in range(3000)]
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(files):
        paragraphs = []
        written = 0
        while written < words_per_file:
            sentences = []
            for _ in range(rng.randint(3, 7)):
                n = rng.randint(8, 22)
                words = [rng.choice(_GLUE) if rng.random() < 0.4 else rng.choice(lexicon) for _ in range(n)]
                sentences.append(words[0].capitalize() + " " + " ".join(words[1:]) + ".")
                written += n
            paragraphs.append(" ".join(sentences))
        (folder / f"text-{k:03d}.txt").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return folder


def niah(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True)


def build(verb: str, options: list[str], out: Path, seed: int) -> None:
    if out.exists():
        shutil.rmtree(out)
    done = niah("build", verb, "--out", str(out), "--seed", str(seed), "--no-progress", *options)
    if done.returncode != 0:
        raise SystemExit(f"{verb}: build failed:\n{done.stderr[-2000:]}")


def audit(ds: Path, reference: Path, options: list[str], limit: int | None) -> tuple[dict[str, Any], float]:
    t0 = time.perf_counter()
    more = [] if limit is None else ["--limit", str(limit)]
    done = niah("audit", str(ds), "--reference", str(reference), "--no-progress", *more, *options)
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"{ds}: audit failed:\n{done.stderr[-2000:]}")
    return json.loads((ds / "audit.json").read_text()), wall


def built(report: dict[str, Any]) -> int:
    """Samples the audit built beyond the dataset's own."""
    return sum(sum(s.get("tasks", {}).values()) for s in report.get("sources", []) if s.get("built"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated families (default: all)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/niah-issue42"))
    ap.add_argument("--limit", type=int, default=None, help="niah audit --limit (default: the audit's own)")
    args = ap.parse_args()
    only = {f for f in args.only.split(",") if f}
    corpus = write_corpus(args.out / "corpus")
    rows = ["| family | build | task | probe | score | chance | n | noise | verdict |",
            "|---|---|---|---|---:|---:|---:|---:|---|"]
    timings: list[str] = []
    for family, (verb, options, reads_corpus, audit_options) in FAMILIES.items():
        if only and family not in only:
            continue
        seed0, seed1, own = (args.out / f"{family}-{name}" for name in ("seed0", "seed1", "corpus"))
        build(verb, options, seed0, 0)
        build(verb, options, seed1, 1)
        runs = [("seed 0", seed0, seed1), ("seed 1", seed1, seed0)]
        if reads_corpus:
            build(verb, [*options, "--corpus", f"textdir:{corpus}"], own, 0)
            runs.append(("own corpus, seed 0", own, seed0))
        for label, ds, ref in runs:
            report, wall = audit(ds, ref, audit_options, args.limit)
            timings.append(f"{family} {label}: {report['samples']} samples ({built(report)} built), audit {wall:.1f} s, "
                           f"{report['failed']} failed, {report.get('skewed', 0)} skewed")
            print(timings[-1], file=sys.stderr, flush=True)
            for p in report["probes"]:
                if p["probe"] not in FIGURES:
                    continue
                verdict = "ok" if p["passed"] else ("skewed" if p.get("advisory") else "SHORTCUT")
                rows.append(f"| {family} | {label} | {p['task']} | {p['probe']} | {p['score']:.1f} | "
                            f"{p['chance']:.1f} | {p['n']} | {p['noise']:.1f} | {verdict} |")
    print("\n".join(rows))
    print()
    print("\n".join(timings))


if __name__ == "__main__":
    main()
