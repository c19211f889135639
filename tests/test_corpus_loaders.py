"""User corpus loaders on small fixtures written here: OBELICS JSONL/Parquet, text folders, long-text JSONL,
format detection, and every bad-input case naming file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from niah.corpus import (
    LongTextJsonlCorpus,
    ObelicsCorpus,
    TextDirCorpus,
    load_corpus,
)
from niah.corpus import loaders as loaders_module
from niah.util.errors import ConfigError, DataError


def _photo(path: Path, colour=(200, 80, 40), size=(40, 30), fmt="JPEG") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path, format=fmt)
    return path


def _write_jsonl(path: Path, rows: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


OBELICS_ROWS = [
    {"id": "doc-a", "title": "First", "texts": ["Intro paragraph one.\n\nIntro paragraph  two\nwraps here.", None,
                                                  "After the picture."],
     "images": [None, "imgs/a.jpg", None]},
    {"texts": [None, "Only text here."], "images": ["imgs/b.png", None]},
    {"texts": [None], "images": ["imgs/a.jpg"]},  # images only: skipped, no paragraphs
]


def _obelics_folder(tmp_path: Path) -> Path:
    _photo(tmp_path / "imgs" / "a.jpg")
    _photo(tmp_path / "imgs" / "b.png", colour=(10, 120, 200), fmt="PNG")
    return tmp_path


def test_obelics_jsonl_documents_paragraphs_and_image_slots(tmp_path):
    folder = _obelics_folder(tmp_path)
    shard = _write_jsonl(folder / "shard.jsonl", OBELICS_ROWS)
    corpus = load_corpus(str(shard), lang="en")
    assert isinstance(corpus, ObelicsCorpus)
    docs = list(corpus.documents())
    assert [d.id for d in docs] == ["doc-a", "shard:2"]
    first = docs[0]
    assert first.title == "First"
    assert first.paragraphs == ("Intro paragraph one.", "Intro paragraph two wraps here.", "After the picture.")
    assert first.image_slots == (2,)
    assert first.images[0].path == (folder / "imgs" / "a.jpg").resolve()
    assert first.images[0].load().size == (40, 30)
    assert first.source.endswith("shard.jsonl:1")
    assert docs[1].image_slots == (0,) and docs[1].images[0].size() == (40, 30)
    pool = corpus.images()
    assert sorted(p.path.name for p in pool) == ["a.jpg", "b.png"]
    # Iterating twice gives the same documents (a fresh stream each time).
    assert list(corpus.documents()) == docs


def test_obelics_parquet_streams_in_batches(tmp_path, monkeypatch):
    folder = _obelics_folder(tmp_path)
    rows = [{"texts": [f"Paragraph of row {i}.", None], "images": [None, "imgs/a.jpg"]} for i in range(7)]
    pq.write_table(pa.Table.from_pylist(rows), folder / "shard.parquet")
    monkeypatch.setattr(loaders_module, "PARQUET_BATCH_ROWS", 2)
    calls = []
    original = pq.ParquetFile.iter_batches

    def spy(self, *args, **kwargs):
        calls.append(kwargs.get("batch_size"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    corpus = load_corpus(str(folder / "shard.parquet"))
    docs = list(corpus.documents())
    assert calls == [2]
    assert [d.paragraphs for d in docs] == [(f"Paragraph of row {i}.",) for i in range(7)]
    assert [d.id for d in docs] == [f"shard:{i + 1}" for i in range(7)]
    assert all(d.image_slots == (1,) for d in docs)


def test_folder_of_obelics_files_mixes_jsonl_and_parquet(tmp_path):
    folder = _obelics_folder(tmp_path)
    _write_jsonl(folder / "a.jsonl", OBELICS_ROWS[:1])
    pq.write_table(pa.Table.from_pylist([{"texts": ["From parquet."], "images": [None]}]), folder / "b.parquet")
    corpus = load_corpus(str(folder))
    assert isinstance(corpus, ObelicsCorpus)
    assert [d.paragraphs[0] for d in corpus.documents()] == ["Intro paragraph one.", "From parquet."]


def test_textdir_corpus(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("Title line.\n\nFirst  paragraph\ncontinues.\n\n\nSecond paragraph.\n",
                                    encoding="utf-8")
    (tmp_path / "sub" / "b.txt").write_text("第一段。\n第二段。\n", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.txt").write_text("ignored", encoding="utf-8")
    corpus = load_corpus(str(tmp_path), lang="zh")
    assert isinstance(corpus, TextDirCorpus)
    docs = list(corpus.documents())
    assert [d.id for d in docs] == ["a.txt", "sub/b.txt"]
    assert docs[0].paragraphs == ("Title line.", "First paragraph continues.", "Second paragraph.")
    assert docs[0].title == "a" and docs[0].lang == "zh"
    assert docs[1].paragraphs == ("第一段。", "第二段。")
    assert len(corpus.images()) >= 60  # text corpora use the embedded image pool
    single = load_corpus(str(tmp_path / "a.txt"))
    assert [d.id for d in single.documents()] == ["a.txt"]


def test_long_text_jsonl_corpus(tmp_path):
    path = _write_jsonl(tmp_path / "long.jsonl", [
        {"id": 7, "title": "Seven", "text": "One.\n\nTwo.", "lang": "en"},
        {"text": "第一行。\n第二行。"},
        {"text": "   "},
    ])
    corpus = load_corpus(str(path), lang="zh")
    assert isinstance(corpus, LongTextJsonlCorpus)
    docs = list(corpus.documents())
    assert [(d.id, d.title, d.lang, d.paragraphs) for d in docs] == [
        ("7", "Seven", "en", ("One.", "Two.")),
        ("long:2", "", "zh", ("第一行。", "第二行。")),
    ]


def test_a_non_string_lang_is_an_error_naming_line_and_field(tmp_path):
    path = _write_jsonl(tmp_path / "long.jsonl", [{"text": "One.", "lang": "en"}, {"text": "Two.", "lang": 7}])
    with pytest.raises(DataError) as info:
        list(load_corpus(str(path), lang="zh").documents())
    assert (info.value.line, info.value.field) == (2, "lang") and "long.jsonl" in str(info.value)


def test_explicit_kind_prefixes(tmp_path):
    folder = _obelics_folder(tmp_path)
    _write_jsonl(folder / "long.jsonl", [{"text": "Long text."}])
    (folder / "notes.txt").write_text("A note.", encoding="utf-8")
    assert isinstance(load_corpus(str(folder)), LongTextJsonlCorpus)
    textdir = load_corpus(f"textdir:{folder}")
    assert isinstance(textdir, TextDirCorpus)
    assert [d.paragraphs for d in textdir.documents()] == [("A note.",)]
    assert isinstance(load_corpus(f"jsonl:{folder / 'long.jsonl'}"), LongTextJsonlCorpus)
    obelics = _write_jsonl(folder / "o" / "x.jsonl", [{"texts": ["T."], "images": [None]}])
    assert isinstance(load_corpus(f"obelics:{obelics}"), ObelicsCorpus)


def test_default_spec_and_missing_paths(tmp_path):
    assert load_corpus("default").name == "default-en"
    assert load_corpus("default", lang="zh").lang == "zh"
    with pytest.raises(ConfigError):
        load_corpus("default", lang="fr")
    with pytest.raises(ConfigError, match="not found"):
        load_corpus(str(tmp_path / "nope.jsonl"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no corpus files"):
        load_corpus(str(tmp_path / "empty"))


# ------------------------------------------------------------------------------------------------ bad input

def _error(corpus) -> DataError:
    with pytest.raises(DataError) as info:
        list(corpus.documents())
    return info.value


def test_long_text_line_missing_text(tmp_path):
    path = _write_jsonl(tmp_path / "long.jsonl", [{"text": "fine."}, {"title": "no text here"}])
    err = _error(LongTextJsonlCorpus([path]))
    assert (err.file, err.line, err.field) == (str(path), 2, "text")
    assert f"{path}:2" in str(err) and "'text'" in str(err)


def test_long_text_non_string_text_and_bad_json(tmp_path):
    path = _write_jsonl(tmp_path / "long.jsonl", [{"text": ["a", "list"]}])
    assert _error(LongTextJsonlCorpus([path])).line == 1
    path = _write_jsonl(tmp_path / "broken.jsonl", [{"text": "ok."}, '{"text": "unterminated'])
    err = _error(LongTextJsonlCorpus([path]))
    assert (err.file, err.line) == (str(path), 2)


@pytest.mark.parametrize(("row", "field", "message"), [
    ({"texts": ["a", None], "images": [None]}, "images", "parallel"),
    ({"texts": ["a", "b"], "images": [None, "imgs/a.jpg"]}, "texts[1]", "exactly one"),
    ({"texts": [None], "images": [None]}, "texts[0]", "exactly one"),
    ({"texts": "not a list", "images": []}, "texts", "texts"),
    ({"texts": [], "images": None}, "images", "images"),
    ({"texts": [None], "images": ["../outside.jpg"]}, "images[0]", "escapes"),
    ({"texts": [None], "images": ["imgs/missing.jpg"]}, "images[0]", "not found"),
    ({"texts": [None], "images": ["https://example.org/x.jpg"]}, "images[0]", "URL"),
    ({"texts": [3], "images": [None]}, "texts[0]", "string"),
])
def test_obelics_jsonl_bad_rows(tmp_path, row, field, message):
    folder = _obelics_folder(tmp_path / "corpus")
    _photo(tmp_path / "outside.jpg")
    shard = _write_jsonl(folder / "shard.jsonl", [OBELICS_ROWS[0], row])
    err = _error(ObelicsCorpus([shard]))
    assert (err.file, err.line, err.field) == (str(shard), 2, field)
    assert message in str(err)


def test_obelics_absolute_path_outside_folder_is_refused(tmp_path):
    folder = _obelics_folder(tmp_path / "corpus")
    outside = _photo(tmp_path / "elsewhere" / "x.jpg")
    inside = folder / "imgs" / "a.jpg"
    shard = _write_jsonl(folder / "shard.jsonl", [
        {"texts": ["ok.", None], "images": [None, str(inside.resolve())]},
        {"texts": ["bad.", None], "images": [None, str(outside.resolve())]},
    ])
    err = _error(ObelicsCorpus([shard]))
    assert (err.line, err.field) == (2, "images[1]")


def test_obelics_parquet_bad_row_names_row(tmp_path):
    folder = _obelics_folder(tmp_path)
    rows = [{"texts": ["fine."], "images": [None]}, {"texts": ["a", "b"], "images": [None]}]
    pq.write_table(pa.Table.from_pylist(rows), folder / "shard.parquet")
    err = _error(load_corpus(str(folder / "shard.parquet")))
    assert (err.file, err.line, err.field) == (str(folder / "shard.parquet"), 2, "images")
    assert "row index 1" in str(err)


def test_obelics_parquet_missing_column(tmp_path):
    pq.write_table(pa.Table.from_pylist([{"text": "long text"}]), tmp_path / "x.parquet")
    err = _error(load_corpus(str(tmp_path / "x.parquet")))
    assert (err.file, err.field) == (str(tmp_path / "x.parquet"), "texts")


def test_corrupt_and_truncated_images_fail_on_load_with_origin(tmp_path):
    folder = _obelics_folder(tmp_path)
    (folder / "imgs" / "garbage.jpg").write_bytes(b"this is not an image at all")
    good = (folder / "imgs" / "a.jpg").read_bytes()
    (folder / "imgs" / "cut.jpg").write_bytes(good[: len(good) // 2])
    shard = _write_jsonl(folder / "shard.jsonl", [
        {"texts": ["one.", None], "images": [None, "imgs/garbage.jpg"]},
        {"texts": [None, "two."], "images": ["imgs/cut.jpg", None]},
    ])
    docs = list(ObelicsCorpus([shard]).documents())  # paths are fine, pixels are checked lazily
    garbage, cut = docs[0].images[0], docs[1].images[0]
    for image, line, field in ((garbage, 1, "images[1]"), (cut, 2, "images[0]")):
        with pytest.raises(DataError) as info:
            image.load()
        err = info.value
        assert (err.file, err.line, err.field) == (str(shard), line, field)
        assert image.path.name in str(err)
        with pytest.raises(DataError):
            image.encoded()
    with pytest.raises(DataError) as info:
        garbage.size()
    assert info.value.line == 1


def test_textdir_invalid_utf8_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Fine first line.\nSecond \xff\xfe line.\n")
    err = _error(TextDirCorpus(tmp_path))
    assert (err.file, err.line) == (str(bad), 2)


def test_undetectable_jsonl_format(tmp_path):
    path = _write_jsonl(tmp_path / "odd.jsonl", [{"content": "neither key"}])
    with pytest.raises(DataError) as info:
        load_corpus(str(path))
    assert (info.value.file, info.value.line) == (str(path), 1)


def test_encoded_copies_jpeg_bytes_and_reencodes_procedural(tmp_path):
    folder = _obelics_folder(tmp_path)
    shard = _write_jsonl(folder / "shard.jsonl", OBELICS_ROWS[:2])
    docs = list(load_corpus(str(shard)).documents())
    data, ext = docs[0].images[0].encoded()
    assert ext == ".jpg" and data == (folder / "imgs" / "a.jpg").read_bytes()
    data, ext = docs[1].images[0].encoded()
    assert ext == ".png" and data == (folder / "imgs" / "b.png").read_bytes()
    procedural = next(i for i in load_corpus("default").images() if i.recipe is not None)
    data, ext = procedural.encoded()
    assert ext == ".jpg" and data[:2] == b"\xff\xd8"


def test_textdir_reads_txt_files_only_and_names_the_file_given(tmp_path):
    _write_jsonl(tmp_path / "long.jsonl", [{"text": "Long text."}])
    (tmp_path / "notes.txt").write_text("A note.", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"textdir: reads \.txt files .* not long\.jsonl"):
        load_corpus(f"textdir:{tmp_path / 'long.jsonl'}")
    one = load_corpus(f"textdir:{tmp_path / 'notes.txt'}")
    assert one.name == f"textdir:{tmp_path / 'notes.txt'}"  # the manifest records what was read
    assert [d.paragraphs for d in one.documents()] == [("A note.",)]
