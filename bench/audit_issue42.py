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

The private build is the issue's: a seed-0 build from a corpus of our own where the builder reads one (text files
written here; for MileBench, whose image task needs pictures, OBELICS-style documents with images drawn here),
and for video-niah, whose builder reads no corpus, a seed-0 build of subtitle needles against the public seed-0
overlay build (the issue's option-word lookup from an overlay build to a subtitle build). ``mm-niah-jigsaw``
measures the issue's "bluer top" directly: on the two-option jigsaws of a reasoning-image build (four samples a
cell, so that they number some dozens), the option whose top half is bluer than its bottom half (the learned
probe's image feature) picked, against 50.

``--generators COMMIT`` builds with the sources of that commit (``git archive``, into the output folder) and audits
with today's: the issue's "before" (commit 6319171, the generators the issue was filed against).

    python bench/audit_issue42.py [--only mm-niah,milebench-niah] [--out /tmp/niah-issue42] [--limit N]
                                  [--generators 6319171]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TEXT_CORPUS = "textdir:{corpus}"
IMAGE_CORPUS = "{image_corpus}"
# family -> (build verb, default build options, the private build's options (None: none), audit options)
FAMILIES: dict[str, tuple[str, list[str], list[str] | None, list[str]]] = {
    "mm-niah": ("mm-niah", ["--per-cell", "1"], ["--corpus", TEXT_CORPUS], []),
    # the default grid's three text tasks alone, whose figures the issue gives: the audit measures them on 110
    # samples a task where the image tasks' multiple choice would have it build 500 of all six
    "mm-niah-text": ("mm-niah", ["--per-cell", "1", "--tasks", "retrieval-text,counting-text,reasoning-text"],
                     ["--corpus", TEXT_CORPUS], []),
    "mm-niah-jigsaw": ("mm-niah", ["--per-cell", "4", "--tasks", "reasoning-image"], None, []),
    "mmlongbench-niah": ("mmlongbench-niah", ["--lengths", "8k,16k"], ["--corpus", TEXT_CORPUS], []),
    # the own corpus is English: its build is the English half of the default grid
    "seq-niah": ("seq-niah", ["--per-cell", "1", "--lengths", "8k-16k,16k-32k"],
                 ["--corpus", TEXT_CORPUS, "--lang", "en"], []),
    "mmlongbench-vh": ("mmlongbench-vh", [], None, []),
    "milebench-niah": ("milebench-niah", [], ["--corpus", IMAGE_CORPUS], []),
    "video-niah": ("video-niah", [], ["--needle", "subtitle"], ["--max-frames", "64"]),
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


def write_image_corpus(folder: Path, text: Path, images: int = 40, seed: int = 42) -> Path:
    """OBELICS-style documents: the text corpus's files, each with pictures of coloured shapes drawn here."""
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    for k in range(images):
        img = Image.new("RGB", (320, 320), tuple(rng.randrange(256) for _ in range(3)))
        draw = ImageDraw.Draw(img)
        for _ in range(12):
            x, y = rng.randrange(280), rng.randrange(280)
            box = (x, y, x + rng.randint(20, 120), y + rng.randint(20, 120))
            fill = tuple(rng.randrange(256) for _ in range(3))
            (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=fill)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        (folder / "images" / f"shape-{k:03d}.png").write_bytes(buf.getvalue())
    rows = []
    for k, path in enumerate(sorted(text.glob("*.txt"))):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")
        texts: list[str | None] = []
        pictures: list[str | None] = []
        for i, paragraph in enumerate(paragraphs):
            texts.append(paragraph.strip())
            pictures.append(None)
            if i % 12 == 11:
                texts.append(None)
                pictures.append(f"images/shape-{(k * 7 + i) % images:03d}.png")
        rows.append(json.dumps({"id": f"doc-{k}", "texts": texts, "images": pictures}))
    (folder / "docs.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


#: PYTHONPATH of the builds: today's sources, or another commit's (``--generators``)
BUILD_PATH: dict[str, str] = {}


def niah(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, env=env)


def generators_at(commit: str, out: Path) -> Path:
    """The ``src`` folder of ``commit``, extracted under ``out`` (once)."""
    root = out / f"generators-{commit}"
    if not (root / "src" / "niah").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit, "src"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root / "src"


def build(verb: str, options: list[str], out: Path, seed: int) -> None:
    if out.exists():
        shutil.rmtree(out)
    env = {**os.environ, **BUILD_PATH}
    done = niah("build", verb, "--out", str(out), "--seed", str(seed), "--no-progress", *options, env=env)
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


def bluer_top(ds: Path) -> tuple[float, int, float, int]:
    """The issue's "pick the piece whose top is bluer" on the two-option jigsaws of a reasoning-image build: the
    option whose top half is bluer than its bottom half by more; (score, n) on all two-option jigsaws and on those
    whose wrong piece is the right one turned or mirrored."""
    import numpy as np
    from PIL import Image

    def pixels(rel: str) -> Any:
        with Image.open(ds / rel) as img:
            return np.asarray(img.convert("RGB").resize((32, 32)), dtype=np.float64) / 255.0

    def top_blue(arr: Any) -> float:
        blue = arr[:, :, 2] - arr[:, :, :2].mean(axis=2)
        return float(blue[:16].mean() - blue[16:].mean())

    def turned(a: Any, b: Any) -> bool:
        copies = [np.rot90(a, k) for k in (1, 2, 3)] + [a[::-1], a[:, ::-1], np.rot90(a[::-1]), np.rot90(a[:, ::-1])]
        return min(float(np.abs(c - b).mean()) for c in copies) < 0.02

    hits: list[float] = []
    turned_hits: list[float] = []
    for line in (ds / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        kind = str(row.get("meta", {}).get("puzzle_kind", ""))
        choices = row.get("choices") or []
        paths = [[p["path"] for p in choice if p.get("type") == "image"] for choice in choices]
        if row["task"] != "reasoning-image" or not kind.startswith("jigsaw") or len(choices) != 2 or not all(paths):
            continue
        arrays = [pixels(found[0]) for found in paths]
        blues = [top_blue(a) for a in arrays]
        gold = int(row["answer"]) if str(row["answer"]).isdigit() else "AB".index(str(row["answer"]))
        hit = float(int(np.argmax(blues)) == gold)
        hits.append(hit)
        if turned(arrays[0], arrays[1]):
            turned_hits.append(hit)

    def pct(xs: list[float]) -> float:
        return 100.0 * sum(xs) / len(xs) if xs else float("nan")

    return pct(hits), len(hits), pct(turned_hits), len(turned_hits)


def built(report: dict[str, Any]) -> int:
    """Samples the audit built beyond the dataset's own."""
    return sum(sum(s.get("tasks", {}).values()) for s in report.get("sources", []) if s.get("built"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated families (default: all)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/niah-issue42"))
    ap.add_argument("--limit", type=int, default=None, help="niah audit --limit (default: the audit's own)")
    ap.add_argument("--generators", default="", help="build with this commit's sources (e.g. 6319171)")
    args = ap.parse_args()
    only = {f for f in args.only.split(",") if f}
    if args.generators:
        BUILD_PATH["PYTHONPATH"] = str(generators_at(args.generators, args.out))
    corpus = write_corpus(args.out / "corpus")
    corpora = {"corpus": str(corpus), "image_corpus": str(write_image_corpus(args.out / "corpus-images", corpus))}
    rows = ["| family | build | task | probe | score | chance | n | noise | verdict |",
            "|---|---|---|---|---:|---:|---:|---:|---|"]
    timings: list[str] = []
    for family, (verb, options, private, audit_options) in FAMILIES.items():
        if only and family not in only:
            continue
        seed0, seed1, own = (args.out / f"{family}-{name}" for name in ("seed0", "seed1", "own"))
        build(verb, options, seed0, 0)
        build(verb, options, seed1, 1)
        runs = [("seed 0", seed0, seed1), ("seed 1", seed1, seed0)]
        if private is not None:
            build(verb, [*options, *(o.format(**corpora) for o in private)], own, 0)
            runs.append(("own corpus, seed 0" if "--corpus" in private else "own build, seed 0", own, seed0))
        if family == "mm-niah-jigsaw":
            for label, ds in (("seed 0", seed0), ("seed 1", seed1)):
                score, n, turned_score, turned_n = bluer_top(ds)
                rows.append(f"| {family} | {label} | two-option jigsaws | bluer-top | {score:.1f} | 50.0 | {n} | | |")
                rows.append(f"| {family} | {label} | of those, wrong piece turned or mirrored | bluer-top | "
                            f"{turned_score:.1f} | 50.0 | {turned_n} | | |")
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
