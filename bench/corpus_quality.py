"""How template-like a built haystack reads: repeated sentences, shared openings, distinct word n-grams.

Builds MM-NIAH retrieval-text samples exactly as the CLI does
(``niah build mm-niah --lengths 64k --depth-cells 0.4,0.6 --seed S --tasks retrieval-text [--lang L]``), takes the
text of each context (needle sentences removed), and reports:

* ``repeated``: number of distinct sentences of >= 6 words that occur twice or more;
* ``shared_open``: share of those sentences whose first four words also open another sentence;
* ``distinct3`` / ``distinct6``: distinct word 3-grams (6-grams) / all 3-grams (6-grams) of the text;
* ``kinds`` (embedded corpus only): the share of the haystack's words that each document kind (genre)
  contributes, found by looking every sentence up in the embedded corpus; ``top_kind`` is the largest share;
* ``structure``: heading lines (a line without end punctuation), list items ("- " / "1. " lines) and
  paragraphs of the haystack text, as a reader of it sees them.

Words are lower-cased ``\\w+`` runs for English; for Chinese every Han character (and every Latin/digit run)
is a word, so Chinese numbers are character n-grams and not comparable with English ones.

    python bench/corpus_quality.py                      # EN seed 3
    python bench/corpus_quality.py --lang zh --seeds 3,7
    python bench/corpus_quality.py --corpus textdir:/some/papers   # a reference corpus
    python bench/corpus_quality.py --samples DIR/samples.jsonl     # an already built dataset
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from niah.corpus.text import split_sentences  # noqa: E402

# Targets of issue 9 (for English): at most this many repeated sentences, at most this share of shared
# four-word openings, at least these shares of distinct 3-grams and 6-grams.
TARGETS = {"repeated": 5, "shared_open": 0.25, "distinct3": 0.70, "distinct6": 0.90}

_EN_WORD = re.compile(r"\w+")
_ZH_WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z0-9]+")


@dataclass(frozen=True)
class Quality:
    sentences: int
    words: int
    repeated: int
    shared_open: float
    distinct3: float
    distinct6: float

    def meets(self) -> dict[str, bool]:
        return {
            "repeated": self.repeated <= TARGETS["repeated"],
            "shared_open": self.shared_open <= TARGETS["shared_open"],
            "distinct3": self.distinct3 >= TARGETS["distinct3"],
            "distinct6": self.distinct6 >= TARGETS["distinct6"],
        }


def words_of(text: str, lang: str) -> list[str]:
    pattern = _ZH_WORD if lang.startswith("zh") else _EN_WORD
    return [w.lower() for w in pattern.findall(text)]


def measure(text: str, lang: str, *, drop: tuple[str, ...] = ()) -> Quality:
    """The four numbers for one text (paragraphs separated by newlines; sentences in ``drop`` skipped)."""
    sentences: list[list[str]] = []
    for para in text.split("\n"):
        for sentence in split_sentences(para.strip(), lang):
            if any(d and d in sentence for d in drop):
                continue
            ws = words_of(sentence, lang)
            if ws:
                sentences.append(ws)
    long = [tuple(s) for s in sentences if len(s) >= 6]
    counts = Counter(long)
    openings = Counter(s[:4] for s in long)
    flat = [w for s in sentences for w in s]

    def distinct(n: int) -> float:
        grams = [tuple(flat[i:i + n]) for i in range(len(flat) - n + 1)]
        return len(set(grams)) / len(grams) if grams else 1.0

    return Quality(
        sentences=len(long), words=len(flat),
        repeated=sum(1 for c in counts.values() if c >= 2),
        shared_open=sum(1 for s in long if openings[s[:4]] >= 2) / max(1, len(long)),
        distinct3=distinct(3), distinct6=distinct(6),
    )


_LIST_ITEM = re.compile(r"^(?:- |\d+\. )")
_ENDS = re.compile(r"[.!?\u3002\uff01\uff1f][\"'\u201d\u2019)\]\u300d\u300f\uff09]*$")


def structure(text: str) -> dict[str, int]:
    """Lines of the haystack text by what they are: headings (no end punctuation, not a list item, not a
    separator), list items and paragraphs."""
    out = {"headings": 0, "list_items": 0, "paragraphs": 0}
    for line in text.split("\n"):
        line = line.strip()
        if not line or line in ("---", "</s>"):
            continue
        if _LIST_ITEM.match(line):
            out["list_items"] += 1
        elif _ENDS.search(line):
            out["paragraphs"] += 1
        else:
            out["headings"] += 1
    return out


def kind_mix(text: str, lang: str) -> dict[str, float]:
    """Share of the text's words by the genre of the embedded-corpus document each sentence comes from
    (sentences found in no document, such as headings, count as ``"?"``), largest first."""
    from niah.corpus.embedded import _raw_documents

    genre_of: dict[str, str] = {}
    for raw in _raw_documents(lang):
        for para in raw["paragraphs"]:
            for sentence in split_sentences(para, lang):
                genre_of.setdefault(sentence, raw["genre"])
    words: Counter[str] = Counter()
    for line in text.split("\n"):
        for sentence in split_sentences(_LIST_ITEM.sub("", line.strip()), lang):
            words[genre_of.get(sentence, "?")] += len(words_of(sentence, lang))
    total = sum(words.values()) or 1
    return {g: n / total for g, n in words.most_common()}


def context_texts(samples_file: Path) -> list[tuple[str, str, tuple[str, ...]]]:
    """(text, lang, needles) of every sample of a built niah dataset."""
    out = []
    with samples_file.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            text = "\n".join(part["text"] for part in rec["context"] if part.get("type") == "text")
            out.append((text, rec["meta"].get("lang", "en"), tuple(rec["meta"].get("needles", ()))))
    return out


def build_haystack(seed: int, lang: str, length: str = "64k", corpus: str = "default") -> tuple[str, tuple[str, ...]]:
    """The text of one retrieval-text context built by the CLI (the way users build it)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "niah.cli", "build", "mm-niah", "--lengths", length, "--depth-cells", "0.4,0.6",
               "--seed", str(seed), "--tasks", "retrieval-text", "--lang", lang, "--corpus", corpus,
               "--out", str(Path(tmp) / "ds"), "--quiet", "--no-progress"]
        env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
        subprocess.run(cmd, check=True, env=env, cwd=ROOT)
        [(text, _lang, needles)] = context_texts(Path(tmp) / "ds" / "samples.jsonl")
    return text, needles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en")
    ap.add_argument("--seeds", default="3", help="comma-separated build seeds")
    ap.add_argument("--length", default="64k")
    ap.add_argument("--corpus", default="default")
    ap.add_argument("--json", action="store_true", help="one JSON object per seed")
    ap.add_argument("--samples", type=Path, help="measure the first sample of this samples.jsonl instead")
    args = ap.parse_args()
    failed = False
    runs: list[tuple[str, str, tuple[str, ...]]] = []
    if args.samples:
        text, lang, needles = context_texts(args.samples)[0]
        runs.append(("file", text, needles))
        args.lang = lang
    else:
        for seed in (int(s) for s in args.seeds.split(",")):
            print(f"building {args.lang} {args.length} seed {seed} ...", file=sys.stderr)
            runs.append((str(seed), *build_haystack(seed, args.lang, args.length, args.corpus)))
    for seed, text, needles in runs:
        q = measure(text, args.lang, drop=needles)
        ok = q.meets()
        failed |= args.lang == "en" and not all(ok.values())
        mix = kind_mix(text, args.lang) if args.corpus == "default" else {}
        shape = structure(text)
        if args.json:
            print(json.dumps({"lang": args.lang, "seed": seed, **q.__dict__, "meets": ok, "kinds": mix,
                              "structure": shape}, ensure_ascii=False))
        else:
            print(f"{args.lang} seed {seed}: {q.sentences} sentences >=6 words, {q.words} words; "
                  f"repeated {q.repeated}, shared 4-word openings {q.shared_open:.1%}, "
                  f"distinct 3-grams {q.distinct3:.1%}, 6-grams {q.distinct6:.1%}"
                  + ("" if all(ok.values()) else f"  (misses: {', '.join(k for k, v in ok.items() if not v)})"))
            print(f"  structure: {shape['headings']} heading lines, {shape['list_items']} list items, "
                  f"{shape['paragraphs']} paragraphs")
            if mix:
                print("  kinds: " + ", ".join(f"{g} {v:.1%}" for g, v in list(mix.items())[:8]))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
