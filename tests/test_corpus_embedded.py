"""The embedded default corpus: size, shape, uniqueness, images, determinism, and that it needs no network."""

from __future__ import annotations

import hashlib
import json
import lzma
import re
import socket
import subprocess
import sys
from pathlib import Path

import bpe_openai
import pytest

from niah.corpus import default_images, load_corpus, split_sentences
from niah.corpus.embedded import _raw_documents, data_dir, manifest, photo_records
from niah.corpus.procedural import KINDS

ROOT = Path(__file__).resolve().parents[1]
ENC = bpe_openai.get_encoding("cl100k_base")
NEEDLE_LIKE_EN = re.compile(r"\b(secret|special|magic|needles?|penguins?|count(s|ed|ing)?)\b", re.I)
NEEDLE_LIKE_ZH = re.compile(r"秘密|神奇|魔法|针|企鹅|数了数")


@pytest.fixture(scope="module")
def corpora():
    return {lang: list(load_corpus("default", lang=lang).documents()) for lang in ("en", "zh")}


def test_loads_without_network(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("the embedded corpus must not touch the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    _raw_documents.cache_clear()
    for lang in ("en", "zh"):
        corpus = load_corpus("default", lang=lang)
        assert sum(1 for _ in corpus.documents()) > 0
        corpus.images()[0].load()
        corpus.images()[-1].load()


def test_text_is_read_once_per_language():
    """Loading is cached: a second corpus of the same language reads nothing again (load times are measured
    in bench/corpus_embedded.py, not asserted here)."""
    _raw_documents.cache_clear()
    first = list(load_corpus("default", lang="en").documents())
    second = list(load_corpus("default", lang="en").documents())
    info = _raw_documents.cache_info()
    assert first and [d.id for d in first] == [d.id for d in second]
    assert (info.misses, info.hits) == (1, 1)


@pytest.mark.parametrize(("lang", "min_tokens", "min_docs"), [("en", 400_000, 1_000), ("zh", 180_000, 200)])
def test_token_and_document_counts(corpora, lang, min_tokens, min_docs):
    docs = corpora[lang]
    per_doc = [sum(len(ENC.encode(p)) for p in d.paragraphs) for d in docs]
    assert len(docs) >= min_docs
    assert sum(per_doc) >= min_tokens
    # Web-style documents (news items, forum threads) are shorter than articles and stories.
    assert min(per_doc) >= 200 and max(per_doc) <= 4000
    # The manifest written by the generator reports the same totals.
    assert manifest()["languages"][lang]["tokens"] == sum(per_doc)
    assert manifest()["languages"][lang]["documents"] == len(docs)


def test_documents_are_well_formed(corpora):
    ids = set()
    for lang, docs in corpora.items():
        for doc in docs:
            assert doc.id not in ids
            ids.add(doc.id)
            assert doc.lang == lang
            assert doc.title and doc.title == doc.title.strip()
            assert doc.paragraphs
            for p in doc.paragraphs:
                assert p == p.strip() and "\n" not in p and "  " not in p and "\t" not in p
                assert re.search(r"[.!?。！？][\"'”’)）]*$", p), p[-30:]
            assert 1 <= len(doc.images) == len(doc.image_slots) <= 3
            assert all(0 <= s <= len(doc.paragraphs) for s in doc.image_slots)


def test_structure_markers_are_consistent():
    """Headings sit between paragraphs and end without a full stop; list items are marked per paragraph."""
    n_headings = n_items = n_steps = 0
    for lang in ("en", "zh"):
        for raw in _raw_documents(lang):
            for index, text in raw.get("headings", ()):
                assert 0 <= index <= len(raw["paragraphs"]) and text == text.strip() and text
                assert not re.search(r"[.。]$", text)  # a question ("Is it worth it?") is a fine heading
                n_headings += 1
            if "kinds" in raw:
                assert len(raw["kinds"]) == len(raw["paragraphs"]) and set(raw["kinds"]) <= {"p", "li", "ol"}
                n_items += raw["kinds"].count("li")
                n_steps += raw["kinds"].count("ol")
    assert n_headings > 50 and n_items > 20 and n_steps > 20


def test_no_duplicate_paragraphs(corpora):
    paragraphs = [p for docs in corpora.values() for d in docs for p in d.paragraphs]
    assert len(paragraphs) == len(set(paragraphs))


def test_no_needle_like_text(corpora):
    for lang, docs in corpora.items():
        pattern = NEEDLE_LIKE_ZH if lang == "zh" else NEEDLE_LIKE_EN
        for doc in docs:
            text = doc.title + "\n" + "\n".join(doc.paragraphs)
            assert not pattern.search(text), (doc.id, pattern.search(text)[0])


def test_sentence_split_reproduces_every_paragraph(corpora):
    n_sentences = 0
    for lang, docs in corpora.items():
        joiner = "" if lang == "zh" else " "
        for doc in docs:
            for p in doc.paragraphs:
                pieces = split_sentences(p, lang)
                assert joiner.join(pieces) == p
                assert all(piece for piece in pieces)
                n_sentences += len(pieces)
    # Splitting must actually split: real prose averages well under 60 tokens a sentence.
    total_tokens = sum(info["tokens"] for info in manifest()["languages"].values())
    assert n_sentences > 6_000 and total_tokens / n_sentences < 60


def test_image_pool_has_60_distinct_images_with_sane_sizes():
    pool = default_images(0)
    hashes = set()
    for image in pool:
        img = image.load()
        assert img.mode == "RGB"
        assert img.size == image.size()
        if image.recipe is not None:
            assert min(img.size) >= 320 and max(img.size) <= 1024
        else:
            assert max(img.size) <= 768
        hashes.add(hashlib.sha256(img.tobytes()).hexdigest())
    assert len(hashes) >= 60
    assert {image.recipe.kind for image in pool if image.recipe is not None} == set(KINDS)


def test_images_are_deterministic():
    first = [img for img in default_images(0) if img.recipe is not None][: len(KINDS)]
    second = [img for img in default_images(0) if img.recipe is not None][: len(KINDS)]
    for a, b in zip(first, second, strict=True):
        assert a == b
        assert a.encoded() == b.encoded()
        assert a.load().tobytes() == b.load().tobytes()
    photo_a, photo_b = default_images(0)[0], default_images(0)[0]
    assert photo_a.encoded() == photo_b.encoded()
    # A different pool seed gives different procedural images, the photographs stay.
    other = default_images(1)
    assert other[0] == default_images(0)[0]
    assert other[-1].recipe != default_images(0)[-1].recipe


def test_document_image_assignment_depends_only_on_seed():
    def assignment(seed):
        return [tuple(i.id for i in d.images) for d in load_corpus("default", seed=seed).documents()]

    assert assignment(0) == assignment(0)
    assert assignment(0) != assignment(5)


def test_photos_have_recorded_source_and_licence():
    records = photo_records()
    shipped = sorted(p.name for p in (data_dir() / "images").iterdir())
    assert sorted(Path(r["file"]).name for r in records) == shipped
    for rec in records:
        assert rec["source"] and rec["licence"] and rec["description"]
        assert re.search(r"public domain|CC0|no known copyright restrictions", rec["licence"])


def test_package_data_is_small():
    total = sum(p.stat().st_size for p in data_dir().rglob("*") if p.is_file())
    assert total <= 6_000_000


def test_shipped_text_matches_generator():
    """The first documents of each language, generated again, are the shipped ones byte for byte (generation is
    sequential, so a prefix is exact), and the shipped files are the ones the manifest describes. The full
    regeneration takes minutes: bench/corpus_embedded.py runs it."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "make_corpus.py"), "--check-prefix", "20"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "match the generator" in out.stdout
    shipped = json.loads((data_dir() / "manifest.json").read_text())
    assert set(shipped["languages"]) == {"en", "zh"}
    for lang, info in shipped["languages"].items():
        raw = lzma.decompress((data_dir() / info["file"]).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == info["sha256"], lang


def test_documents_carry_headings_and_list_items(corpora):
    """The generator's structure reaches CorpusDocument: headings before paragraphs, "li" for bulleted list
    items, "ol" for numbered ones (a walk's route, a guide's or recipe's steps)."""
    docs = corpora["en"]
    with_headings = [d for d in docs if d.headings]
    with_lists = [d for d in docs if {"li", "ol"} & set(d.kinds)]
    assert len(with_headings) > 300 and len(with_lists) > 300
    for d in with_headings + with_lists:
        assert all(0 <= i <= len(d.paragraphs) and text.strip() == text != "" for i, text in d.headings)
        assert not d.kinds or len(d.kinds) == len(d.paragraphs)
    walk = next(d for d in docs if d.genre == "walk")
    route = {text: i for i, text in walk.headings}["Route"]
    assert walk.kinds[route] == "ol" and walk.kinds[route - 1] == "p"
    sightings = next(d for d in docs if d.genre == "sightings")
    assert "li" in sightings.kinds and "ol" not in sightings.kinds
    shown = [d.title for d in docs if d.title_in_text]
    assert len(shown) == len(set(shown)) == len({d.title for d in docs}) > 1000


def test_document_structure_is_validated():
    from niah.corpus.base import CorpusDocument

    with pytest.raises(ValueError, match="kinds"):
        CorpusDocument(id="d", lang="en", title="t", paragraphs=("A.", "B."), kinds=("p",))
    with pytest.raises(ValueError, match="heading"):
        CorpusDocument(id="d", lang="en", title="t", paragraphs=("A.",), headings=((2, "Later"),))
