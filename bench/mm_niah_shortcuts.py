"""Shortcuts in MM-NIAH builds that read only what a model is sent (a benchmark script, not a test).

Builds retrieval-text, reasoning-text and reasoning-image (``--per-cell`` samples per cell of the default
lengths and depths) for each seed, on the embedded corpus and on a folder of text files written here (a corpus
niah does not ship), and prints, per build:

- ``mention-once``: reasoning-text, given the inserted statements (needles and decoys: a perfect finder of
  inserted sentences): of the values of the answer's type in them that the question does not name, reply one
  mentioned exactly once (a tie is broken at random: its expected score); ``context`` does the same over the whole context. ``uniform`` is
  the chance of that pick: one of the same candidates, whatever their mentions. ``best-count`` picks among
  the candidates mentioned k times, k chosen on the other seed's build (any rule that reads how often a value
  is mentioned scores at most this).
- ``pool-16``: retrieval-text and reasoning-text, the golds of another build (the next seed's) listed most
  frequent first, as many as fit in 16 new tokens (cl100k_base), as one reply, scored by the official rule;
  ``pool-all``: every gold of the other build and every value of the shipped closed pools in one reply (no
  length cap, which the official rule allows).
- ``orientation``: two-option jigsaws (reasoning-image), each option judged by its own pixels only: "the
  piece whose top third is bluer than its bottom third", and ``best-pixel``: the best of a few one-piece
  statistics (mean colour, brightness, detail, top-bottom and left-right differences) with its direction,
  both chosen on the other seed's build. A build holds about 50 two-option jigsaws (a figure's noise is about
  7 points), so ``--jigsaws`` also makes that many straight from the embedded images and prints each
  statistic's pick over them.
- ``type scan / outlier``: retrieval-text's diagnostics (``audit.retrieval_diagnostics``): replying a value of
  the answer's type found anywhere in the context, and how often the sentence richest in words no other sample
  holds is the needle; printed again for a retrieval-text build with ``--distractors``.

The value types come from ``niah.benchmarks.mm_niah.templates``: the closed pools, and the generated
vocabularies where the checkout has them (``templates.find_values``), so the same script measures a checkout
before and after the change.

    python bench/mm_niah_shortcuts.py [--seeds 0 1] [--per-cell 2] [--skip-corpus] [--distractors 3] [--jigsaws 600]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from niah.benchmarks.mm_niah import templates
from niah.benchmarks.mm_niah.build import BuildConfig
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.benchmarks.mm_niah.score import score_sample
from niah.sample import Dataset, ImagePart, Sample, parts_text
from niah.tokens.text import get_tokenizer

TASKS = ["retrieval-text", "reasoning-text", "reasoning-image"]
_TOPICS = ("river", "market", "harvest", "library", "weather", "railway", "garden", "bridge", "orchard", "mill")


def write_text_corpus(folder: Path, files: int = 24, seed: int = 5) -> Path:
    """A folder of plain-text documents written here (not a corpus niah ships): topical prose from a small
    grammar, a few hundred sentences a file."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    subjects = ["The council", "A visitor", "The old keeper", "Every farmer", "The committee", "Our neighbour",
                "The surveyor", "A young clerk", "The baker", "The ferryman"]
    verbs = ["described", "measured", "repaired", "argued about", "painted", "counted", "inspected", "praised",
             "photographed", "mapped"]
    extras = ["after the long winter", "before the spring fair", "with great care", "for the third time",
              "without any help", "in the early morning", "during the flood", "as the records show"]
    for i in range(files):
        topic = _TOPICS[i % len(_TOPICS)]
        paragraphs = []
        for _p in range(rng.randint(30, 60)):
            sentences = [f"{rng.choice(subjects)} {rng.choice(verbs)} the {topic} {rng.choice(extras)}."
                         for _ in range(rng.randint(3, 7))]
            paragraphs.append(" ".join(sentences))
        (folder / f"{topic}-{i:02d}.txt").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return folder


def build(out: Path, seed: int, per_cell: int, corpus: str, tasks: list[str] = TASKS, **extra: int) -> list[Sample]:
    cfg = BuildConfig(tasks=tasks, seed=seed, per_cell=per_cell, corpus=corpus, **extra)  # type: ignore[arg-type]
    build_mm_niah(cfg, out, progress=False)
    return list(Dataset(out))


def diagnostics(samples: list[Sample]) -> str:
    """retrieval-text's type scan and vocabulary-outlier figures (where the checkout has them)."""
    try:
        from niah.benchmarks.mm_niah.audit import retrieval_diagnostics
    except ImportError:
        return "- / -"
    found = retrieval_diagnostics(samples)
    return f"{found['type_scan']} / {found['outlier_needle_top1']}"


# ------------------------------------------------------------------------------------------ value types


def _closed_finder(pool: str) -> Callable[[str], list[str]]:
    values = templates.load_pools()[pool]

    def find(text: str) -> list[str]:
        out: list[str] = []
        for v in values:
            words = re.findall(r"\w+", v)
            pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)"
            out.extend(v for _ in re.finditer(pattern, text, flags=re.IGNORECASE))
        return out

    return find


def answer_type(answer: str) -> Callable[[str], list[str]] | None:
    """A finder of every value (with repeats) of the answer's type in a text, or None if the type is unknown."""
    generated = getattr(templates, "find_values", None)
    if generated is not None:
        kind = templates.value_kind(answer)
        if kind is not None:
            return lambda text: generated(text, kind)
    pools = templates.load_pools()
    for pool, values in pools.items():
        if answer in values:
            if pool in ("male_name", "female_name"):  # a person, whichever gender the template needs
                a, b = _closed_finder("male_name"), _closed_finder("female_name")
                return lambda text: a(text) + b(text)
            return _closed_finder(pool)
    return None


def _key(value: str) -> str:
    return " ".join(re.findall(r"\w+", value.lower()))


def _inserted(sample: Sample) -> str:
    """The statements the builder inserted (needles, and decoys where the build has them): what a perfect finder
    of out-of-place sentences returns."""
    texts = [*(sample.meta.get("needles") or []), *(sample.meta.get("distractors") or [])]
    return " ".join(t for t in texts if isinstance(t, str))


def mention_picks(samples: list[Sample], *, context: bool) -> dict[int, tuple[float, float, int]]:
    """Per sample index: (mention-once expected score, uniform-candidate chance, answer's mention count), for
    reasoning-text samples with an open answer of a known type."""
    out: dict[int, tuple[float, float, int]] = {}
    for i, s in enumerate(samples):
        if s.task != "reasoning-text" or not isinstance(s.answer, str):
            continue
        finder = answer_type(s.answer)
        if finder is None:
            continue
        text = parts_text(s.context) if context else _inserted(s)
        question = _key(parts_text(s.question))
        counts = Counter(_key(v) for v in finder(text))
        cands = {v: n for v, n in counts.items() if not re.search(rf"\b{re.escape(v)}\b", question)}
        gold = _key(s.answer)
        once = [v for v, n in cands.items() if n == 1]
        out[i] = ((gold in once) / len(once) if once else 0.0, (gold in cands) / max(len(cands), 1),
                  cands.get(gold, 0))
    return out


def best_count_pick(train: list[Sample], test: list[Sample]) -> float:
    """Pick among the candidates mentioned k times (in the needles), k the best on ``train``; mean on test."""
    def by_k(samples: list[Sample]) -> list[dict[int, float]]:
        rows = []
        for s in samples:
            if s.task != "reasoning-text" or not isinstance(s.answer, str):
                continue
            finder = answer_type(s.answer)
            if finder is None:
                continue
            text = _inserted(s)
            question = _key(parts_text(s.question))
            counts = Counter(_key(v) for v in finder(text))
            cands = {v: n for v, n in counts.items() if not re.search(rf"\b{re.escape(v)}\b", question)}
            gold = _key(s.answer)
            row: dict[int, float] = {}
            for k in set(cands.values()):
                group = [v for v, n in cands.items() if n == k]
                row[k] = (gold in group) / len(group)
            rows.append(row)
        return rows

    train_rows, test_rows = by_k(train), by_k(test)
    ks = {k for r in train_rows for k in r}
    if not ks or not test_rows:
        return float("nan")
    best = max(ks, key=lambda k: sum(r.get(k, 0.0) for r in train_rows))
    return 100 * statistics.fmean(r.get(best, 0.0) for r in test_rows)


# ------------------------------------------------------------------------------------------ pool listing


def pool_listing(train: list[Sample], test: list[Sample], task: str, budget: int | None) -> float:
    """The other build's golds, most frequent first, as one reply within ``budget`` tokens; None: no cap, and
    every value of every shipped closed pool is added (a published pool is listable)."""
    tok = get_tokenizer("cl100k_base")
    golds = Counter(s.answer for s in train if s.task == task and isinstance(s.answer, str))
    listed = [value for value, _n in golds.most_common()]
    if budget is None:
        listed += [v for values in templates.load_pools().values() for v in values]
    reply = ""
    for value in listed:
        longer = f"{reply}, {value}" if reply else value
        if budget is not None and tok.count(longer) > budget:
            break
        reply = longer
    rows = [s for s in test if s.task == task and isinstance(s.answer, str)]
    return 100 * statistics.fmean(score_sample(s, reply).scores["official"] for s in rows) if rows else float("nan")


# ------------------------------------------------------------------------------------------ jigsaw pixels


def _piece_features(path: Path) -> dict[str, float]:
    return _features(np.asarray(Image.open(path).convert("RGB"), dtype=np.float64))


def _features(a: np.ndarray) -> dict[str, float]:
    h, w = a.shape[0] // 3, a.shape[1] // 3
    lum = a.mean(axis=2)
    return {
        "top bluer": a[:h, :, 2].mean() - a[-h:, :, 2].mean(),
        "top brighter": lum[:h].mean() - lum[-h:].mean(),
        "left brighter": lum[:, :w].mean() - lum[:, -w:].mean(),
        "brightness": lum.mean(),
        "red": a[:, :, 0].mean(), "green": a[:, :, 1].mean(), "blue": a[:, :, 2].mean(),
        "detail": (np.abs(np.diff(lum, axis=0)).mean() + np.abs(np.diff(lum, axis=1)).mean()) / 2,
    }


def jigsaw_rows(samples: list[Sample], root: Path) -> list[tuple[list[dict[str, float]], int]]:
    rows = []
    for s in samples:
        if s.task != "reasoning-image" or not s.choices or len(s.choices) != 2:
            continue
        if not all(len(c) == 1 and isinstance(c[0], ImagePart) for c in s.choices):
            continue  # text options (a panel, a camera pair)
        feats = [_piece_features(root / c[0].path) for c in s.choices]  # type: ignore[union-attr]
        rows.append((feats, int(s.answer)))
    return rows


def pixel_pick(rows: list[tuple[list[dict[str, float]], int]], feature: str, sign: float) -> float:
    hits = [float((sign * (f[0][feature] - f[1][feature]) < 0) == bool(answer)) for f, answer in rows]
    return 100 * statistics.fmean(hits) if hits else float("nan")


def best_pixel_rule(train: list[tuple[list[dict[str, float]], int]]) -> tuple[str, float]:
    names = list(train[0][0][0]) if train else ["top bluer"]
    return max(((n, sign) for n in names for sign in (1.0, -1.0)), key=lambda r: pixel_pick(train, *r))


def jigsaw_direct(count: int, seed: int) -> dict[str, float]:
    """Two-option jigsaws made straight from the embedded images (no build: many more than a build holds, so the
    figures' noise is small): each one-piece statistic's pick of the piece where it is larger, in percent."""
    from niah.benchmarks.mm_niah.needle_images import make_reasoning_image
    from niah.corpus import load_corpus
    from niah.util.errors import ConfigError

    images = list(load_corpus("default", lang="en", seed=0).images())
    rng = random.Random(seed)
    rows: list[tuple[list[dict[str, float]], int]] = []
    while len(rows) < count:
        source = rng.choice(images).load()
        try:
            puzzle = make_reasoning_image("jigsaw", source, rng)
        except ConfigError:
            continue
        assert puzzle.choice_images is not None
        rows.append(([_features(np.asarray(o.convert("RGB"), dtype=np.float64)) for o in puzzle.choice_images],
                     puzzle.answer))
    return {name: pixel_pick(rows, name, 1.0) for name in rows[0][0][0]}


# ------------------------------------------------------------------------------------------ main


def measure(label: str, builds: dict[int, tuple[list[Sample], Path]]) -> list[str]:
    seeds = sorted(builds)
    lines = []
    for seed in seeds:
        other = seeds[(seeds.index(seed) + 1) % len(seeds)]
        samples, root = builds[seed]
        train, _ = builds[other]
        needles = mention_picks(samples, context=False)
        whole = mention_picks(samples, context=True)
        once = 100 * statistics.fmean(v[0] for v in needles.values()) if needles else float("nan")
        uniform = 100 * statistics.fmean(v[1] for v in needles.values()) if needles else float("nan")
        ctx_once = 100 * statistics.fmean(v[0] for v in whole.values()) if whole else float("nan")
        ctx_uniform = 100 * statistics.fmean(v[1] for v in whole.values()) if whole else float("nan")
        best_count = best_count_pick(train, samples)
        jig, jig_train = jigsaw_rows(samples, root), jigsaw_rows(train, builds[other][1])
        rule = best_pixel_rule(jig_train)
        cells = [
            f"{once:.1f} / {uniform:.1f}", f"{ctx_once:.1f} / {ctx_uniform:.1f}", f"{best_count:.1f}",
            f"{pool_listing(train, samples, 'retrieval-text', 16):.1f}",
            f"{pool_listing(train, samples, 'reasoning-text', 16):.1f}",
            f"{pool_listing(train, samples, 'retrieval-text', None):.1f}",
            f"{pool_listing(train, samples, 'reasoning-text', None):.1f}",
            f"{pixel_pick(jig, 'top bluer', 1.0):.1f}", f"{pixel_pick(jig, *rule):.1f} ({rule[0]})",
            diagnostics(samples), f"{len(needles)} / {len(jig)}",
        ]
        lines.append(f"| {label}, seed {seed} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--per-cell", type=int, default=2)
    parser.add_argument("--skip-corpus", action="store_true", help="only the embedded corpus")
    parser.add_argument("--jigsaws", type=int, default=600,
                        help="also make this many two-option jigsaws straight from the embedded images (0: skip)")
    parser.add_argument("--distractors", type=int, default=3,
                        help="also build retrieval-text with this many distractors (0: skip)")
    args = parser.parse_args()
    print("| build | mention-once / uniform (needles) | mention-once / uniform (context) | best-count | "
          "pool-16 retrieval | pool-16 reasoning | pool-all retrieval | pool-all reasoning | top bluer | "
          "best-pixel | type scan / outlier | reasoning / jigsaws |")
    print("| --- |" + " ---: |" * 11)
    if args.jigsaws:
        picks = jigsaw_direct(args.jigsaws, args.seeds[0])
        print(f"{args.jigsaws} jigsaws made directly, the piece where each statistic is larger: "
              + ", ".join(f"{name} {score:.1f}" for name, score in picks.items()), flush=True)
    with tempfile.TemporaryDirectory(prefix="niah-mm-shortcuts-") as tmp:
        corpora = [("embedded", "default")]
        if not args.skip_corpus:
            corpora.append(("text folder", "textdir:" + str(write_text_corpus(Path(tmp) / "corpus"))))
        for label, corpus in corpora:
            builds = {}
            for seed in args.seeds:
                start = time.perf_counter()
                out = Path(tmp) / f"{label.replace(' ', '-')}-{seed}"
                builds[seed] = (build(out, seed, args.per_cell, corpus), out)
                print(f"built {label} seed {seed} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
            for line in measure(label, builds):
                print(line, flush=True)
        if args.distractors:
            print(f"\nretrieval-text with --distractors {args.distractors} (type scan / outlier, embedded corpus):")
            for seed in args.seeds:
                out = Path(tmp) / f"distractors-{seed}"
                rows = build(out, seed, args.per_cell, "default", ["retrieval-text"], distractors=args.distractors)
                print(f"| distractors {args.distractors}, seed {seed} | {diagnostics(rows)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
