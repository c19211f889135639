"""``--corpus mm-niah:DIR``: official annotation files read back as documents, old needles removed, images kept
in place and copied into the built dataset; hostile records named by file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.benchmarks.mm_niah.build import BuildConfig
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.benchmarks.registry import corpus_readers
from niah.corpus import load_corpus
from niah.sample import Dataset, ImagePart, parts_text
from niah.util.errors import ConfigError, DataError
from support.mm_niah_official import TEXT_NEEDLES, OfficialFolder, standard_folder


@pytest.fixture(scope="module")
def official(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return standard_folder(tmp_path_factory.mktemp("official") / "mm_niah_val")


def test_documents_split_at_separator_with_images_in_place_and_needles_removed(official: Path) -> None:
    corpus = load_corpus(f"mm-niah:{official}", readers=corpus_readers())
    docs = list(corpus.documents())
    # 8 retrieval-text records x 3 documents + 8 counting-text x 2 + retrieval-image 2 (no document twice)
    assert len(docs) == 8 * 3 + 8 * 2 + 2
    assert len({d.paragraphs for d in docs}) == len(docs)
    text = "\n".join(p for d in docs for p in d.paragraphs)
    for needle, _question, _answer in TEXT_NEEDLES:
        assert needle not in text
    assert "penguin" not in text and "cardamom" not in text and "turquoise" not in text
    assert all("</s>" not in p and "<image>" not in p for d in docs for p in d.paragraphs)
    # images stay where the placeholder stood: after the first paragraph of each document that had one
    # (files are read in name order: counting-text.jsonl first, whose first record has the third image)
    first = docs[0]
    assert first.image_slots == (1,) and first.images[0].path is not None
    assert first.images[0].path.name == "img_0003.png"
    # the picture that carried the old image needle is gone, with its placeholder; choice images never enter
    pool = [im.path for im in corpus.images()]
    assert pool and all(p is not None and "needles" not in p.parts and "choices" not in p.parts for p in pool)
    image_docs = [d for d in docs if "retrieval-image.jsonl" in d.source]
    assert [len(d.images) for d in image_docs] == [1, 1]  # the first lost its needle picture (2nd placeholder)
    assert [d.image_slots for d in image_docs] == [(1,), (1,)]


def test_build_from_official_files_is_self_contained_and_needle_free(official: Path, tmp_path: Path) -> None:
    out = tmp_path / "built"
    counts = build_mm_niah(BuildConfig(lengths=["1k-2k"], depths=[0.0, 0.6], corpus=f"mm-niah:{official}", seed=2),
                           out, progress=False)
    assert sum(counts.values()) == 12
    ds = Dataset(out)
    assert ds.manifest["build"]["corpus"] == f"mm-niah:{official}"
    seen_real_text = False
    for sample in ds.iter_samples(check_media=True):
        context = parts_text(sample.context)
        assert "cardamom" not in context and "turquoise" not in context, sample.id
        seen_real_text |= "in week" in context
        for rel in sample.all_media():
            # every image (haystack copies included) lives in the built dataset's own media folder
            assert rel.startswith("media/") and ds.resolve_media(rel).is_relative_to(out.resolve())
        assert all(str(official) not in json.dumps(p.to_json()) for p in sample.context)
        if sample.task.endswith("-image"):
            assert any(isinstance(p, ImagePart) for p in sample.context)
    assert seen_real_text


def test_a_needle_not_found_verbatim_leaves_its_record_out_and_says_so(tmp_path: Path) -> None:
    folder = OfficialFolder(tmp_path / "mm_niah_val")
    for _ in range(6):
        folder.retrieval_text()
    rec = folder.retrieval_text(needle_index=1)
    rec["meta"]["needles"] = ["A needle that the context does not contain."]
    root = folder.write()
    corpus = load_corpus(f"mm-niah:{root}", readers=corpus_readers())
    assert len(list(corpus.documents())) == 6 * 3
    assert "turquoise" not in "\n".join(p for d in corpus.documents() for p in d.paragraphs)
    assert corpus.notes and "1 record(s) left out" in corpus.notes[0]  # type: ignore[attr-defined]
    out = tmp_path / "built"
    build_mm_niah(BuildConfig(tasks=["retrieval-text"], lengths=["1k"], depths=[0.2], corpus=f"mm-niah:{root}"),
                  out, progress=False)
    assert any("left out" in w for w in Dataset(out).manifest["warnings"])


def test_a_needle_listed_twice_or_inside_another_is_removed_not_refused(tmp_path: Path) -> None:
    # Counting records list one statement per occurrence, so the same count twice is the same needle twice
    # (niah's own export writes such records); a needle may also be a prefix of a longer one.
    folder = OfficialFolder(tmp_path / "mm_niah_val")
    folder.counting_text([2, 2, 7])
    rec = folder.counting_text([1, 3])
    rec["context"] = rec["context"].replace("counted 1 needles.", "counted 1 needles. And one more.")
    rec["meta"]["needles"] = ["The little penguin counted 1 needles.",
                              "The little penguin counted 1 needles. And one more.",
                              "The little penguin counted 3 needles."]
    root = folder.write()
    corpus = load_corpus(f"mm-niah:{root}", readers=corpus_readers())
    docs = list(corpus.documents())
    assert len(docs) == 2 * 2 and not corpus.notes  # type: ignore[attr-defined]
    text = "\n".join(p for d in docs for p in d.paragraphs)
    assert "penguin" not in text and "one more" not in text


def _hostile(tmp_path: Path, change: dict[str, object], meta_change: dict[str, object] | None = None) -> Path:
    folder = OfficialFolder(tmp_path / "mm_niah_val")
    folder.retrieval_text()
    rec = folder.retrieval_text()
    rec.update(change)
    if meta_change:
        rec["meta"].update(meta_change)
    return folder.write()


@pytest.mark.parametrize(("change", "meta_change", "field", "words"), [
    ({"images_list": ["../../outside.png", "obelics/img_0005.png"]}, None, "images_list[0]", "escapes"),
    ({"images_list": ["/etc/passwd", "obelics/img_0005.png"]}, None, "images_list[0]", "escapes"),
    ({"images_list": ["obelics/missing.png", "obelics/img_0005.png"]}, None, "images_list[0]", "not found"),
    ({"images_list": []}, None, "images_list", "placeholders"),
    ({"context": 7}, None, "context", "string"),
    ({"meta": None}, None, "meta", "needles"),
    ({}, {"needles": None}, "meta.needles", "list of strings"),
])
def test_hostile_records_name_file_line_and_field(tmp_path: Path, change: dict[str, object],
                                                  meta_change: dict[str, object] | None, field: str,
                                                  words: str) -> None:
    root = _hostile(tmp_path, change, meta_change)
    corpus = load_corpus(f"mm-niah:{root}", readers=corpus_readers())
    with pytest.raises(DataError) as err:
        list(corpus.documents())
    assert err.value.field == field
    assert err.value.line == 2
    assert err.value.file is not None and Path(err.value.file).name == "retrieval-text.jsonl"
    assert words in err.value.message


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_corpus(f"mm-niah:{tmp_path / 'nope'}", readers=corpus_readers())
    with pytest.raises(ConfigError, match="no MM-NIAH annotation files"):
        load_corpus(f"mm-niah:{tmp_path}", readers=corpus_readers())
    (tmp_path / "x.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="split folder"):
        load_corpus(f"mm-niah:{tmp_path / 'x.jsonl'}", readers=corpus_readers())


def test_cli_build_reads_the_official_folder(official: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    res = CliRunner().invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "ds"), "--corpus",
                                   f"mm-niah:{official}", "--tasks", "retrieval-text,counting-image",
                                   "--lengths", "2k", "--depth-cells", "0.4,0.6", "--no-progress", "--quiet"])
    assert res.exit_code == 0, res.output
    samples = list(Dataset(tmp_path / "ds").iter_samples(check_media=True))
    assert [s.meta["context_length"] for s in samples] == [2000, 2000]
    assert all("in week" in parts_text(s.context) for s in samples)
