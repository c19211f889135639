"""Regenerate niah's embedded default corpus (package data under src/niah/data/corpus/).

Run from the repository root:  .venv/bin/python tools/make_corpus.py [--check]

What it writes:
  en.jsonl.xz, zh.jsonl.xz   one document a line: {"id","lang","title","genre","paragraphs":[...]}
  images/*.jpg               real photographs copied from scikit-image and matplotlib, longer side <= 768 px
  images.json                source, licence and size of each shipped photograph
  manifest.json              document and token counts (cl100k_base) and SHA-256 of the uncompressed JSONL

Why generated text is shipped rather than generated at import time: datasets built with one niah version must
be byte-identical when rebuilt with a later one, so the text is frozen as data; this script only exists to
show where it came from and to let a maintainer extend it deliberately. ``--check`` regenerates in memory and
fails if the shipped files differ (the test suite runs the same comparison).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import random
import re
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
sys.path.insert(0, str(ROOT / "src"))

from corpus_gen import (  # noqa: E402
    en_essay,
    en_handwritten,
    en_history,
    en_mix,
    en_nature,
    en_place,
    en_story,
    en_travel,
    en_web,
    engine,
    zh,
    zh_mix,
    zh_web,
)

OUT = ROOT / "src" / "niah" / "data" / "corpus"
MIN_TOKENS, MAX_TOKENS = 200, 4000
# How many accepted sentences may open with the same four words (see _prune): template text shows itself
# most plainly in sentences that start alike, so the cap is what keeps a built haystack from doing so.
# Chinese openings are four characters (docs/corpora.md); the same cap holds since zh_mix added slot-rich kinds.
MAX_OPENING_USES = {"en": 4, "zh": 4}

# Words that read like MM-NIAH needles or their questions; generated text must never contain them.
BANNED_EN = re.compile(r"\b(secret|secrets|special|magic|magical|needle|needles|penguin|penguins|count|counts|counted|counting)\b", re.I)
BANNED_ZH = re.compile(r"秘密|神奇|魔法|针|企鹅|数了数|特别的")

# genre -> (number of documents, generator)
EN_PLAN = [
    ("news", 64, en_web.news),
    ("howto", 18, en_web.howto),
    ("review", 40, en_web.review),
    ("obituary", 40, en_web.profile),
    ("encyclopedia", 40, en_web.encyclopedia),
    ("listicle", 40, en_web.listicle),
    ("recipe", 40, en_web.recipe),
    ("letter", 40, en_web.letter),
    ("whats-on", 8, en_web.whats_on),
    ("advice", 30, en_web.advice),
    ("minutes", 30, en_web.minutes),
    ("forum", 60, en_web.forum),
    ("place", 24, en_place.document),
    ("nature-bird", 6, lambda r: en_nature.document(r, "bird")),
    ("nature-tree", 6, lambda r: en_nature.document(r, "tree")),
    ("nature-moth", 5, lambda r: en_nature.document(r, "moth")),
    ("nature-fish", 5, lambda r: en_nature.document(r, "fish")),
    ("nature-plant", 6, lambda r: en_nature.document(r, "plant")),
    ("travel", 22, en_travel.document),
    ("story", 24, en_story.document),
    ("essay", 20, en_essay.document),
    ("history", 18, en_history.document),
    ("match-report", 250, en_mix.match_report),
    ("walk", 190, en_mix.walk),
    ("timeline", 180, en_mix.timeline),
    ("book-review", 120, en_mix.book_review),
    ("allotment-diary", 140, en_mix.diary),
    ("sports-roundup", 180, en_mix.roundup),
    ("sightings", 160, en_mix.sightings),
]
ZH_PLAN = [
    ("forum", 30, zh_web.forum),
    ("news", 30, zh_web.news),
    ("place", 36, zh.GENRES["place"]),
    ("nature", 32, zh.GENRES["nature"]),
    ("travel", 26, zh.GENRES["travel"]),
    ("story", 32, zh.GENRES["story"]),
    ("essay", 28, zh.GENRES["essay"]),
    ("history", 24, zh.GENRES["history"]),
    ("match-report", 120, zh_mix.match_report),
    ("walk", 100, zh_mix.walk),
    ("sightings", 100, zh_mix.sightings),
]

# Real photographs: (file in its package, package, id, description, licence as stated by the package)
PHOTOS = [
    ("skimage/data/astronaut.png", "scikit-image", "astronaut",
     "Astronaut Eileen Collins (NASA Great Images database)", "public domain (no known copyright restrictions)"),
    ("skimage/data/chelsea.png", "scikit-image", "chelsea",
     "Chelsea the cat, photographed by Stefan van der Walt", "CC0"),
    ("skimage/data/coffee.png", "scikit-image", "coffee",
     "Coffee cup, photographed by Rachel Michetti, courtesy of Pikolo Espresso Bar", "CC0"),
    ("skimage/data/rocket.jpg", "scikit-image", "rocket",
     "Launch of DSCOVR on a Falcon 9 (SpaceX)", "public domain (released by SpaceX)"),
    ("skimage/data/hubble_deep_field.jpg", "scikit-image", "hubble_deep_field",
     "Hubble eXtreme Deep Field (NASA)", "public domain (NASA)"),
    ("skimage/data/retina.jpg", "scikit-image", "retina",
     "Fundus photograph of a normal left eye (Mikael Haggstrom, Wikimedia Commons)", "CC0 1.0"),
    ("skimage/data/camera.png", "scikit-image", "camera",
     "A photographer with a tripod camera, black and white (Lav Varshney)", "CC0"),
    ("skimage/data/coins.png", "scikit-image", "coins",
     "Greek coins from Pompeii (Brooklyn Museum collection)", "no known copyright restrictions"),
    ("skimage/data/brick.png", "scikit-image", "brick",
     "A brick wall, close up (CC0Textures, Bricks25)", "CC0"),
    ("skimage/data/grass.png", "scikit-image", "grass",
     "Grass, close up (linolafett, DeviantArt)", "CC0"),
    ("skimage/data/gravel.png", "scikit-image", "gravel",
     "Gravel, close up (CC0Textures, Gravel04)", "CC0"),
    ("skimage/data/text.png", "scikit-image", "street_sign",
     "Corner of a street sign with lettering (Wikipedia, File:Corner.png)", "public domain"),
    ("skimage/data/clock_motion.png", "scikit-image", "wall_clock",
     "A wall clock photographed with the camera moving (Stefan van der Walt)", "public domain"),
    ("skimage/data/ihc.png", "scikit-image", "microscopy",
     "Immunohistochemistry microscope image of stained tissue", "no known copyright restrictions"),
    ("matplotlib/mpl-data/sample_data/grace_hopper.jpg", "matplotlib", "grace_hopper",
     "Rear Admiral Grace Hopper (U.S. Navy photograph)", "public domain (U.S. government work)"),
]
MAX_SIDE = 768
JPEG_QUALITY = 88


def _token_counter():
    import bpe_openai

    enc = bpe_openai.get_encoding("cl100k_base")
    return lambda text: len(enc.encode(text))


_EN_WORD = re.compile(r"\w+")
_ZH_WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z0-9]+")


def _opening(sentence: str, lang: str) -> str | None:
    """The first four words of a sentence of six or more (as bench/corpus_quality.py counts them)."""
    words = [w.lower() for w in (_ZH_WORD if lang == "zh" else _EN_WORD).findall(sentence)]
    return " ".join(words[:4]) if len(words) >= 6 else None


def _prune(blocks: list[str], lang: str, opening_uses: dict[str, int], seen_sentences: set[str]) -> tuple[list[str], list[str], list[str]]:
    """Drop what the corpus already says too often: a sentence of six or more words already in an accepted
    document, or one whose
    four-word opening accepted documents already use MAX_OPENING_USES[lang] times. A paragraph whose first sentence
    goes is dropped whole (its later sentences may lean on it: a forum reply's "X replied:", a quote's
    speaker), and so is a heading left with no paragraph under it. Returns (blocks, openings, sentences)
    for the caller to record if it accepts the document."""
    from niah.corpus.text import split_sentences

    joiner = "" if lang == "zh" else " "
    out: list[str] = []
    openings: list[str] = []
    sentences: list[str] = []
    local: dict[str, int] = {}
    for block in blocks:
        if block.startswith("## "):
            out.append(block)
            continue
        prefix = next((p for p in ("- ", "1. ") if block.startswith(p)), "")
        kept: list[str] = []
        for i, sentence in enumerate(split_sentences(block[len(prefix):], lang)):
            key = sentence.strip().lower()
            op = _opening(sentence, lang)
            used = (opening_uses.get(op, 0) + local.get(op, 0)) if op else 0
            # Short sentences (a list's "Two onions, thinly sliced.") may recur, as in real text.
            repeat = op is not None and (key in seen_sentences or key in sentences)
            if repeat or used >= MAX_OPENING_USES[lang]:
                if i == 0:
                    kept = []
                    break
                continue
            kept.append(sentence)
            if op:
                sentences.append(key)
            if op:
                local[op] = local.get(op, 0) + 1
                openings.append(op)
        if kept:
            out.append(prefix + joiner.join(kept))
    # Headings with nothing under them (followed by another heading or at the end) go.
    pruned = [b for i, b in enumerate(out)
              if not (b.startswith("## ") and (i + 1 == len(out) or out[i + 1].startswith("## ")))]
    return pruned, openings, sentences


def _generate(lang: str, plan, handwritten, count_tokens, limit: int | None = None
              ) -> tuple[list[dict], dict[str, int]]:
    """Every document of ``lang`` in shipping order; with ``limit``, the first ``limit`` of them (generation is
    sequential, so a prefix is exactly the shipped file's first documents)."""
    from niah.corpus.text import normalize_whitespace, split_sentences

    banned = BANNED_ZH if lang == "zh" else BANNED_EN
    seen_paragraphs: set[str] = set()
    seen_sentences: set[str] = set()
    docs: list[dict] = []
    tokens_by_genre: dict[str, int] = {}

    opening_uses: dict[str, int] = {}

    def accept(genre: str, title: str, blocks: list[str], *, prune: bool = True) -> bool:
        if prune:
            blocks, openings, sentences = _prune(blocks, lang, opening_uses, seen_sentences)
        paragraphs, headings, kinds = engine.structure(blocks)
        paragraphs = [normalize_whitespace(p) for p in paragraphs]
        if any(not p for p in paragraphs) or any(p in seen_paragraphs for p in paragraphs):
            return False
        if len(set(paragraphs)) != len(paragraphs):
            return False
        text = "\n\n".join([title, *paragraphs])
        if banned.search(text):
            raise SystemExit(f"banned word in generated {lang} {genre} document {title!r}: {banned.search(text)[0]}")
        for p in paragraphs:
            joiner = "" if lang == "zh" else " "
            if joiner.join(split_sentences(p, lang)) != p:
                raise SystemExit(f"sentence split does not reproduce a paragraph of {title!r}")
            if not re.search(r"[.!?。！？][\"'”’)）]*$", p):
                raise SystemExit(f"paragraph without final punctuation in {title!r}: {p[-40:]!r}")
        n_tokens = sum(count_tokens(p) for p in paragraphs)
        if not MIN_TOKENS <= n_tokens <= MAX_TOKENS:
            return False
        if prune:
            seen_sentences.update(sentences)
            for op in openings:
                opening_uses[op] = opening_uses.get(op, 0) + 1
        seen_paragraphs.update(paragraphs)
        doc: dict = {"id": f"{lang}-{len(docs):04d}", "lang": lang, "title": title, "genre": genre,
                     "paragraphs": paragraphs}
        if headings:
            doc["headings"] = headings
        if "li" in kinds or "ol" in kinds:
            doc["kinds"] = kinds
        docs.append(doc)
        tokens_by_genre[genre] = tokens_by_genre.get(genre, 0) + n_tokens
        return True

    def full() -> bool:
        return limit is not None and len(docs) >= limit

    engine.reset_usage()
    for title, paragraphs in handwritten:
        if full():
            return docs, tokens_by_genre
        if not accept("explainer", title, paragraphs, prune=False):
            raise SystemExit(f"hand-written document {title!r} rejected (length or duplicate)")
    for genre, n_docs, make in plan:
        seed = 0
        made = 0
        while made < n_docs:
            if full():
                return docs, tokens_by_genre
            # One independent stream per (language, genre, attempt): adding documents to one genre never
            # changes the text of another.
            rng = random.Random(f"niah-corpus/{lang}/{genre}/{seed}")
            seed += 1
            if seed > n_docs * 60:
                # The genre's banks cannot give more documents that say something new: ship fewer.
                print(f"{lang} {genre}: {made} of {n_docs} documents (banks used up)", file=sys.stderr)
                break
            title, paragraphs = make(rng)
            if accept(genre, title, paragraphs):
                engine.commit()
                made += 1
            else:
                engine.discard()
    return docs, tokens_by_genre


def _jsonl(docs: list[dict]) -> bytes:
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode("utf-8")


def _photos(photo_roots: list[Path]) -> list[tuple[str, bytes, dict]]:
    from PIL import Image

    site = Path(__import__("PIL").__file__).resolve().parent.parent
    roots = [*photo_roots, site]
    out = []
    for rel, package, image_id, description, licence in PHOTOS:
        found = [root / rel for root in roots if (root / rel).is_file()]
        if not found:
            raise SystemExit(f"{rel} not found under {', '.join(map(str, roots))}; install {package} or pass "
                             "--photo-root with a folder holding its unpacked wheel")
        src = found[0]
        with Image.open(src) as im:
            im = im.convert("RGB")
            w, h = im.size
            scale = min(1.0, MAX_SIDE / max(w, h))
            if scale < 1.0:
                im = im.resize((round(w * scale), round(h * scale)), Image.Resampling.LANCZOS)
            buf = io.BytesIO()
            im.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=True)
            out.append((f"{image_id}.jpg", buf.getvalue(), {
                "id": image_id, "file": f"images/{image_id}.jpg", "width": im.size[0], "height": im.size[1],
                "source": f"{package}: {rel.split('/', 1)[1]}", "description": description, "licence": licence,
            }))
    return out


def build(*, with_photos: bool = True, photo_roots: list[Path] | None = None) -> dict[str, bytes]:
    """Every shipped file, by path relative to the corpus data folder. The photos are copied from
    scikit-image/matplotlib (only needed to write the corpus, not to check its text)."""
    count_tokens = _token_counter()
    files: dict[str, bytes] = {}
    manifest: dict = {"generator": "tools/make_corpus.py", "tokenizer": "cl100k_base", "languages": {}}
    for lang, plan, handwritten in (("en", EN_PLAN, en_handwritten.DOCS), ("zh", ZH_PLAN, [])):
        docs, tokens_by_genre = _generate(lang, plan, handwritten, count_tokens)
        raw = _jsonl(docs)
        files[f"{lang}.jsonl.xz"] = lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)
        manifest["languages"][lang] = {
            "file": f"{lang}.jsonl.xz", "documents": len(docs),
            "paragraphs": sum(len(d["paragraphs"]) for d in docs),
            "tokens": sum(tokens_by_genre.values()), "tokens_by_genre": tokens_by_genre,
            "sha256": hashlib.sha256(raw).hexdigest(),
        }
    photos = _photos(photo_roots or []) if with_photos else []
    for name, data, _meta in photos:
        files[f"images/{name}"] = data
    files["images.json"] = (json.dumps([m for _n, _d, m in photos], indent=2) + "\n").encode()
    files["manifest.json"] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    return files


def check_prefix(n_docs: int) -> list[str]:
    """Generate the first ``n_docs`` documents of each language and compare them with the shipped files' first
    ``n_docs`` lines; returns the differences (empty: they match). A fast sample of ``--check``."""
    count_tokens = _token_counter()
    problems = []
    for lang, plan, handwritten in (("en", EN_PLAN, en_handwritten.DOCS), ("zh", ZH_PLAN, [])):
        docs, _ = _generate(lang, plan, handwritten, count_tokens, limit=n_docs)
        with lzma.open(OUT / f"{lang}.jsonl.xz", "rt", encoding="utf-8") as fh:
            shipped = [line for _, line in zip(range(n_docs), fh, strict=False)]
        made = _jsonl(docs).decode("utf-8").splitlines(keepends=True)
        for i, (a, b) in enumerate(zip(made, shipped, strict=False)):
            if a != b:
                problems.append(f"{lang} document {i}: generated {a[:80]!r}, shipped {b[:80]!r}")
                break
        if len(made) != len(shipped):
            problems.append(f"{lang}: generated {len(made)} documents, shipped has {len(shipped)} of {n_docs}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    parser.add_argument("--check-prefix", type=int, metavar="N",
                        help="compare only the first N documents of each language (fast; the tests run it)")
    parser.add_argument("--text-only", action="store_true",
                        help="rewrite the text and manifest only, keeping the shipped photographs and images.json")
    parser.add_argument("--photo-root", type=Path, action="append", default=[],
                        help="folder holding skimage/ (e.g. an unpacked scikit-image wheel) when it is not installed")
    args = parser.parse_args()
    if args.check_prefix is not None:
        problems = check_prefix(args.check_prefix)
        print("\n".join(problems) or f"the first {args.check_prefix} documents of each language match the generator")
        return 1 if problems else 0
    files = build(with_photos=not (args.check or args.text_only), photo_roots=args.photo_root)
    if args.text_only:
        files = {rel: data for rel, data in files.items() if not rel.startswith("images")}
    if args.check:
        manifest = json.loads(files["manifest.json"])
        shipped = json.loads((OUT / "manifest.json").read_text())
        bad = [lang for lang in manifest["languages"]
               if manifest["languages"][lang]["sha256"] != shipped["languages"][lang]["sha256"]]
        if bad:
            print(f"generated text differs from the shipped corpus for: {', '.join(bad)}")
            return 1
        print("shipped corpus matches the generator")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "images").mkdir(exist_ok=True)
    for rel, data in files.items():
        (OUT / rel).write_bytes(data)
    manifest = json.loads(files["manifest.json"])
    for lang, info in manifest["languages"].items():
        print(f"{lang}: {info['documents']} documents, {info['paragraphs']} paragraphs, {info['tokens']} tokens")
    total = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    print(f"images: {len(PHOTOS)} photographs; total {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
