"""Can a table learned from one build answer another? (a benchmark script, not a test)

Before niah keyed every draw on the whole build (niah.build.buildkey), a builder's needles, answers and options were
fixed by the seed alone, so a table learned from the public default build answered a build made from another
corpus with the same seed. This script builds, for each generator, a train build (the default corpus), a
build from another corpus with the same seed (video-niah: a subtitle build beside the overlay one) and a build
with another seed, and scores blind replies on them with the family's official rule. The replies read only what
a model is sent (the question, the options), never the context:

* ``table``: the train build's gold for the same question (choice tasks: for the same set of option texts, the
  option it marked right, else the option most often right and least often wrong there; a question the train
  build lacks gets the train task's most frequent gold);
* ``listing``: one reply listing the train build's golds (most frequent first; MMLongBench-NIAH: every value of
  the gold's answer type, the train build's most frequent first) cut to the task's new-token budget (MileBench
  512, MMLongBench 128; cl100k_base tokens), for the rules that accept the gold anywhere in a reply.

Chance is the audit's (what a blind guess scores under the rule). The other corpus is a folder of text files
niah does not ship (``--corpus DIR``; by default one is written from the embedded English documents with their
paragraphs in reverse order, so every sentence is real prose and no haystack matches the default's).

    PYTHONPATH=src python bench/build_keys.py [--only mm-niah,milebench-niah,...] [--out /tmp/niah-build-keys]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MM_TEXT = ["--tasks", "retrieval-text,reasoning-text,counting-text", "--no-images",
           "--lengths", "1k-2k,2k-4k,4k-8k", "--per-cell", "4"]
MLB_TEXT = ["--tasks", "retrieval-text,reasoning-text,counting-text", "--lengths", "8k", "--per-cell", "2"]
#: family -> (build verb, options, {build name: extra options}, probes, tasks listed and their token budget)
EXPERIMENTS: dict[str, tuple[str, list[str], dict[str, list[str]], dict[str, int]]] = {
    "mm-niah": ("mm-niah", MM_TEXT, {}, {}),
    "milebench-niah": ("milebench-niah", ["--lengths", "4096", "--per-cell", "20"], {},
                       {"TextNeedleInAHaystack": 512, "ImageNeedleInAHaystack": 512}),
    "mmlongbench-niah": ("mmlongbench-niah", MLB_TEXT, {},
                         {"mm_niah_retrieval-text": 128, "mm_niah_reasoning-text": 128}),
    "seq-niah": ("seq-niah", ["--lang", "en", "--lengths", "8k-16k", "--per-cell", "4"], {}, {}),
    "video-niah": ("video-niah", ["--tasks", "retrieval,retrieval-choice,ordering", "--per-cell", "10",
                                  "--durations", "5m,15m"],
                   {"other": ["--needle", "subtitle"]}, {}),
}


def niah(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"niah {' '.join(args)} failed:\n{done.stderr[-3000:]}")


def own_corpus(folder: Path) -> Path:
    """A folder of text files: each embedded English document, its paragraphs in reverse order."""
    from niah.corpus import load_corpus

    if folder.exists():
        return folder
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for index, doc in enumerate(load_corpus("default", lang="en").documents()):
        text = "\n\n".join(reversed(doc.paragraphs))
        (tmp / f"doc{index:04d}.txt").write_text(text + "\n", encoding="utf-8")
    tmp.rename(folder)
    return folder


def samples(path: Path) -> list[Any]:
    from niah.sample import Dataset

    return list(Dataset(path).iter_samples())


def _text(parts: Sequence[Any]) -> str:
    from niah.sample import TextPart

    return "".join(p.text if isinstance(p, TextPart) else f"<{p.type}>" for p in parts)


def _options(sample: Any) -> list[str] | None:
    from niah.benchmarks.mmlongbench.audit import options

    if sample.choices:
        return [_text(c) for c in sample.choices]
    folded = options(sample)
    return [body for _letter, body in folded] or None


def chance_of(sample: Any) -> float:
    """The audit's chance for the sample: what a blind guess scores under the family's rule."""
    from niah.audit.dataset import _Hooks

    global _HOOKS
    if _HOOKS is None:
        _HOOKS = _Hooks()
    return _HOOKS.chance(sample)


_HOOKS: Any = None


def _question(sample: Any) -> str:
    from niah.audit.dataset import _question_key

    return _question_key(sample)


def table_scores(train: list[Any], test: list[Any]) -> dict[str, tuple[float, float, int]]:
    """task -> (mean official score of the table's replies, mean chance, samples)."""
    from niah.audit.dataset import _gold_key, _official, _reply_for

    by_question: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    by_options: dict[tuple[str, frozenset[str]], Counter[str]] = defaultdict(Counter)
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    right_words: dict[str, Counter[str]] = defaultdict(Counter)  # option text -> times right minus times wrong
    for s in train:
        by_question[(s.task, _question(s))][_gold_key(s.answer)] += 1
        by_task[s.task][_gold_key(s.answer)] += 1
        opts = _options(s)
        if opts and isinstance(s.answer, int) and 0 <= s.answer < len(opts):
            by_options[(s.task, frozenset(opts))][opts[s.answer]] += 1
            for index, text in enumerate(opts):
                right_words[s.task][text] += 1 if index == s.answer else -1
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for s in test:
        opts = _options(s)
        reply: str | None = None
        if opts and isinstance(s.answer, int) and (s.task, frozenset(opts)) in by_options:
            right = by_options[(s.task, frozenset(opts))].most_common(1)[0][0]
            reply = _reply_for(s, opts.index(right))
        elif opts and isinstance(s.answer, int) and any(right_words[s.task][o] for o in opts):
            # no option set seen: the option most often right (least often wrong) in the train build
            best = max(range(len(opts)), key=lambda i: (right_words[s.task][opts[i]], -i))
            reply = _reply_for(s, best)
        elif (s.task, _question(s)) in by_question:
            reply = _reply_for(s, json.loads(by_question[(s.task, _question(s))].most_common(1)[0][0]))
        elif by_task.get(s.task):
            reply = _reply_for(s, json.loads(by_task[s.task].most_common(1)[0][0]))
        if reply is None:
            continue
        value = _official(s, reply)
        if value is not None:
            out[s.task].append((value, chance_of(s)))
    return {t: (100 * sum(v for v, _ in got) / len(got), 100 * sum(c for _, c in got) / len(got), len(got))
            for t, got in out.items()}


def _type_pools() -> list[tuple[str, ...]]:
    try:
        from niah.benchmarks.mm_niah.templates import load_pools
    except ImportError:
        return []
    return list(load_pools().values())


def listing_scores(train: list[Any], test: list[Any], budgets: dict[str, int]) -> dict[str, tuple[float, float, int]]:
    """task -> (mean official score of one reply listing golds within the task's budget, chance, samples)."""
    from niah.audit.dataset import _official
    from niah.tokens import get_tokenizer

    tok = get_tokenizer("cl100k_base")
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for s in train:
        if isinstance(s.answer, str):
            counts[s.task][s.answer] += 1
    pools = _type_pools()
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for s in test:
        budget = budgets.get(s.task)
        if budget is None or not isinstance(s.answer, str):
            continue
        learned = [g for g, _ in sorted(counts[s.task].items(), key=lambda kv: (-kv[1], kv[0]))]
        typed = next((p for p in pools if s.answer in p), None)
        # the gold's answer type (a reader knows it from the question): its values, the train build's first
        values = [g for g in learned if typed is None or g in typed] + [v for v in typed or () if v not in learned]
        listed: list[str] = []
        for value in values:
            if tok.count(", ".join([*listed, value])) > budget:
                break
            listed.append(value)
        score = _official(s, ", ".join(listed))
        if score is not None:
            out[s.task].append((score, chance_of(s)))
    return {t: (100 * sum(v for v, _ in got) / len(got), 100 * sum(c for _, c in got) / len(got), len(got))
            for t, got in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated families (default: all)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/niah-build-keys"))
    ap.add_argument("--corpus", type=Path, default=None, help="the other corpus: a folder of text files")
    ap.add_argument("--label", default="", help="a column naming the code measured (e.g. before, after)")
    args = ap.parse_args()
    only = {f for f in args.only.split(",") if f}
    args.out.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus or own_corpus(args.out / "own-corpus")
    rows = ["| code | family | probe | task | train -> test | samples | score | chance |",
            "|---|---|---|---|---|---:|---:|---:|"]
    for family, (verb, options, extra, budgets) in EXPERIMENTS.items():
        if only and family not in only:
            continue
        builds = {"default seed 0": ["--seed", "0"],
                  "other seed 0": ["--seed", "0", *(extra.get("other") or ["--corpus", str(corpus)])],
                  "default seed 1": ["--seed", "1"]}
        if family == "video-niah":
            builds = {"overlay seed 0": ["--seed", "0"], "subtitle seed 0": ["--seed", "0", *extra["other"]],
                      "overlay seed 1": ["--seed", "1"]}
        paths: dict[str, Path] = {}
        for name, more in builds.items():
            path = args.out / args.label / family / name.replace(" ", "-")
            if path.exists():
                shutil.rmtree(path)
            print(f"building {family} {name}", file=sys.stderr, flush=True)
            niah("build", verb, "--out", str(path), "--no-progress", *options, *more)
            paths[name] = path
        names = list(builds)
        train = samples(paths[names[0]])
        for test_name in names[1:]:
            test = samples(paths[test_name])
            for task, (score, chance, n) in sorted(table_scores(train, test).items()):
                rows.append(f"| {args.label} | {family} | table | {task} | {names[0]} -> {test_name} | {n} | "
                            f"{score:.1f} | {chance:.1f} |")
            for task, (score, chance, n) in sorted(listing_scores(train, test, budgets).items()):
                rows.append(f"| {args.label} | {family} | listing ({budgets[task]} tokens) | {task} | "
                            f"{names[0]} -> {test_name} | {n} | {score:.1f} | {chance:.1f} |")
        print("\n".join(rows[-8:]), file=sys.stderr, flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
