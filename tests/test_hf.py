"""`niah export hf` / `niah import hf`: Parquet shards the real `datasets` package loads (images as Image
features, video as frame lists), a dataset card, and a byte-identical way back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.interop.hf import export_hf, import_hf, parse_size, read_card_niah
from niah.sample import DatasetWriter, ImagePart, Sample, TextPart, VideoPart
from niah.util.errors import ConfigError, DataError
from support.datasets import png_bytes, write_mm_niah_like
from support.videos import barcode_video

datasets = pytest.importorskip("datasets")

SRT = "1\n00:00:00,000 --> 00:00:01,000\nThe cat waves.\n\n"


def _video_dataset(out: Path) -> Path:
    """Video samples of every kind: a frame folder with its rate and subtitles, a video file, an image beside
    them, and a sample without media; meta with nested and non-ASCII values."""
    with DatasetWriter(out) as writer:
        frames = [writer.write_media(f"clip/{k:03d}.png", png_bytes(100 + k, (16, 12))) for k in range(5)]
        subs = writer.write_media("clip/subs.srt", SRT.encode())
        # a real (tiny) video: niah import hf checks every media file as niah run does
        clip = barcode_video(out.parent / f".{out.name}-film.mp4", seconds=0.5, fps=4, width=32, height=32)
        video = writer.write_media("film.mp4", clip.read_bytes())
        clip.unlink()
        still = writer.write_media("still.png", png_bytes(7))
        writer.write(Sample("v/0", "video-niah", "frame-needle",
                            [VideoPart(frames=tuple(frames), fps=2, subtitles=subs), TextPart("Ünïcode — 猫")],
                            [TextPart("What waves?")], answer={"label": "cat", "at": [1, 2.5]},
                            choices=[[TextPart("cat")], [ImagePart(still)]],
                            meta={"context_length": 900, "depth": [0.25], "needles": [{"frame": 3}]}))
        writer.write(Sample("v/1", "video-niah", "file-needle", [VideoPart(path=video), ImagePart(still)],
                            [TextPart("Which film?")], answer="film", meta={"context_length": 10}))
        writer.write(Sample("v/2", "video-niah", "file-needle", [TextPart("nothing to see")], [TextPart("?")],
                            answer=None))
        writer.finish({"benchmark": "video-niah", "build": {"seed": 11}, "source": "tests/test_hf.py"})
    return out


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _dataset_files(root: Path) -> dict[str, bytes]:
    """manifest.json, samples.jsonl and every media file a sample refers to (what an export carries; a file in
    media/ that no sample names is not part of the dataset)."""
    from niah.sample import Dataset

    used = {rel for sample in Dataset(root) for rel in sample.all_media()}
    return {name: data for name, data in _tree(root).items() if not name.startswith("media/") or name in used}


def _load(folder: Path, cache: Path):
    return datasets.load_dataset("parquet", data_dir=str(folder), cache_dir=str(cache))


@pytest.fixture()
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)


def test_export_loads_in_datasets_and_imports_back_byte_identically(tmp_path: Path, offline: None) -> None:
    source = write_mm_niah_like(tmp_path / "ds", per_task=2)
    folder = tmp_path / "hf"
    summary = export_hf(source, folder, row_group_rows=5, max_shard_bytes=parse_size("25kB"))
    assert summary.samples == 12 and len(summary.shards) >= 2  # shards of several row groups
    loaded = _load(folder, tmp_path / "cache")["test"]
    assert loaded.num_rows == 12
    assert isinstance(loaded.features["images"].feature, datasets.Image)
    by_id = {row["id"]: row for row in loaded}
    gold = {json.loads(line)["id"]: json.loads(line) for line in (source / "samples.jsonl").read_text().splitlines()}
    for sid, sample in gold.items():
        row = by_id[sid]
        for name in ("context", "question", "choices", "answer", "meta"):
            assert json.loads(row[name]) == sample[name]
        image_paths = [p["path"] for parts in [sample["context"], sample["question"], *(sample["choices"] or [])]
                       for p in parts if p["type"] == "image"]
        assert len(row["images"]) == len(image_paths)
        for image, path in zip(row["images"], image_paths, strict=True):
            from PIL import Image

            assert image.size == Image.open(source / path).size
    # the card's front matter is what load_dataset(DIR) reads too
    card = read_card_niah(folder)
    assert card is not None and card["num_samples"] == 12 and card["benchmark"] == "mm-niah"
    assert datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "cache2"))["test"].num_rows == 12
    back = tmp_path / "back"
    assert import_hf(folder, back).samples == 12
    assert _tree(back) == _dataset_files(source) and len(_tree(back)) == 2 + summary.media_files
    # same dataset, same settings: the same files
    export_hf(source, tmp_path / "hf2", row_group_rows=5, max_shard_bytes=parse_size("25kB"))
    assert _tree(tmp_path / "hf2") == _tree(folder)


def test_video_as_frame_lists_and_files_round_trip(tmp_path: Path, offline: None) -> None:
    source = _video_dataset(tmp_path / "vds")
    folder = tmp_path / "hf"
    export_hf(source, folder, split="validation")
    loaded = _load(folder, tmp_path / "cache")["validation"]
    rows = {row["id"]: row for row in loaded}
    frames = rows["v/0"]["video_frames"]
    assert len(frames) == 1 and [f.size for f in frames[0]] == [(16, 12)] * 5
    assert [(f["path"], f["bytes"]) for f in rows["v/0"]["video_files"]] == [("media/clip/subs.srt", SRT.encode())]
    assert [f["path"] for f in rows["v/1"]["video_files"]] == ["media/film.mp4"]
    assert rows["v/1"]["video_frames"] == [[]] and len(rows["v/1"]["images"]) == 1
    assert len(rows["v/0"]["images"]) == 1  # the image option
    raw = loaded.cast_column("video_frames", datasets.List(datasets.List(datasets.Image(decode=False))))
    assert raw[0]["video_frames"][0][2]["bytes"] == (source / "media/clip/002.png").read_bytes()
    assert json.loads(rows["v/0"]["answer"]) == {"label": "cat", "at": [1, 2.5]}
    assert json.loads(rows["v/2"]["answer"]) is None
    import_hf(folder, tmp_path / "back")
    assert _tree(tmp_path / "back") == _tree(source)


def test_no_embed_keeps_video_paths_and_imports_with_the_source_media(tmp_path: Path, offline: None) -> None:
    source = _video_dataset(tmp_path / "vds")
    folder = tmp_path / "hf"
    export_hf(source, folder, embed=False)
    loaded = _load(folder, tmp_path / "cache")["test"]
    row = next(r for r in loaded if r["id"] == "v/0")
    assert row["video_frames"] == [[f"media/clip/{k:03d}.png" for k in range(5)]]
    film = next(r for r in loaded if r["id"] == "v/1")["video_files"]
    assert film == [{"path": "media/film.mp4", "bytes": None}]
    assert read_card_niah(folder)["embed"] is False
    with pytest.raises(DataError, match=r"exported without its bytes \(--no-embed\): pass --media-root"):
        import_hf(folder, tmp_path / "back")
    assert not (tmp_path / "back").exists()
    import_hf(folder, tmp_path / "back", media_root=source)
    assert _tree(tmp_path / "back") == _tree(source)


def test_import_refuses_what_niah_did_not_write_and_paths_leaving_the_dataset(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    plain = tmp_path / "plain"
    plain.mkdir()
    pq.write_table(pa.table({"id": ["a"]}), plain / "train-00000-of-00001.parquet")
    with pytest.raises(DataError, match="not a niah export"):
        import_hf(plain, tmp_path / "out")
    with pytest.raises(DataError, match="is not a directory"):
        import_hf(tmp_path / "ds-missing", tmp_path / "out")
    source = _video_dataset(tmp_path / "vds")
    folder = tmp_path / "hf"
    export_hf(source, folder)
    shard = next((folder / "data").glob("*.parquet"))
    table = pq.read_table(shard)
    context = table.column("context").to_pylist()
    context[1] = context[1].replace("media/film.mp4", "../../outside.mp4")
    pq.write_table(table.set_column(table.schema.get_field_index("context"), "context", pa.array(context)), shard)
    with pytest.raises(DataError, match=r"test-00000-of-00001.parquet:2.*media\[0\]"):
        import_hf(folder, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_export_refuses_to_replace_a_folder_it_did_not_write(tmp_path: Path) -> None:
    source = write_mm_niah_like(tmp_path / "ds", per_task=1)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="not a niah export"):
        export_hf(source, precious, overwrite=True)
    with pytest.raises(ConfigError, match="exists"):
        export_hf(source, precious)
    assert (precious / "notes.txt").read_text() == "keep me"
    with pytest.raises(ConfigError, match="not a size"):
        parse_size("lots")
    assert parse_size("500MB") == 500_000_000 and parse_size("1GiB") == 1 << 30


def test_export_names_the_sample_whose_media_is_missing(tmp_path: Path) -> None:
    source = _video_dataset(tmp_path / "vds")
    (source / "media/film.mp4").unlink()
    for embed in (True, False):
        with pytest.raises(DataError, match=r"samples.jsonl:2, field 'part\[0\].path': media file 'media/film.mp4'"):
            export_hf(source, tmp_path / "hf", embed=embed)
    assert not (tmp_path / "hf").exists() and not list(tmp_path.glob(".hf.*"))


def test_cli_export_and_import(tmp_path: Path, offline: None) -> None:
    from typer.testing import CliRunner

    from niah.cli import app

    source = _video_dataset(tmp_path / "vds")
    runner = CliRunner()
    res = runner.invoke(app, ["export", "hf", str(source), "--out", str(tmp_path / "hf"), "--no-progress",
                              "--max-shard-size", "1GB"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert "wrote 3 samples" in res.output and "1 Parquet shard(s)" in res.output
    res = runner.invoke(app, ["import", "hf", str(tmp_path / "hf"), "--out", str(tmp_path / "back"), "--no-progress"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    assert _tree(tmp_path / "back") == _tree(source)
    res = runner.invoke(app, ["import", "hf", str(source), "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "error:" in res.output and "no .parquet files" in res.output
    res = runner.invoke(app, ["export", "hf", str(source), "--out", str(tmp_path / "y"), "--max-shard-size", "big"])
    assert res.exit_code == 2 and "is not a size" in res.output


def test_a_dataset_reading_media_in_place_exports_with_media_root_and_imports_self_contained(tmp_path: Path) -> None:
    images = tmp_path / "official-images"
    images.mkdir()
    (images / "a.png").write_bytes(png_bytes(3))
    source = tmp_path / "ds"
    with DatasetWriter(source) as writer:
        writer.write(Sample("s/0", "mm-niah", "retrieval-image", [ImagePart("a.png"), TextPart("x")],
                            [TextPart("which?")], answer=0, choices=[[ImagePart("a.png")]]))
        writer.finish({"benchmark": "mm-niah", "media_root": "../official-images"})
    with pytest.raises(DataError, match="--media-root"):
        export_hf(source, tmp_path / "hf")
    export_hf(source, tmp_path / "hf", media_roots=(images,))
    back = tmp_path / "back"
    import_hf(tmp_path / "hf", back)
    from niah.sample import Dataset

    assert (back / "a.png").read_bytes() == (images / "a.png").read_bytes()
    assert "media_root" not in json.loads((back / "manifest.json").read_text())
    assert (back / "samples.jsonl").read_bytes() == (source / "samples.jsonl").read_bytes()
    assert Dataset(back).validate().samples == 1


def test_export_and_import_refuse_an_out_that_holds_or_lies_inside_their_input(tmp_path: Path) -> None:
    # --overwrite replaces OUT whole: an OUT holding the input would delete it (the dataset exported, or the
    # export folder imported); an OUT inside the input would go with the input's next replacement
    source = write_mm_niah_like(tmp_path / "ds", per_task=1)
    folder = tmp_path / "hf"
    export_hf(source, folder)
    with pytest.raises(ConfigError, match=r"export folder .*holds it, or lies inside it"):
        import_hf(folder, folder / "niah")
    assert not (folder / "niah").exists()
    with pytest.raises(ConfigError, match="export folder"):
        import_hf(folder, folder, overwrite=True)
    # an export kept inside a dataset, imported over that dataset
    kept = Path(source) / "hf"
    import_hf(folder, tmp_path / "ds2")
    export_hf(tmp_path / "ds2", tmp_path / "ds2-hf")
    (tmp_path / "ds2-hf").rename(tmp_path / "ds2" / "hf")
    with pytest.raises(ConfigError, match="export folder"):
        import_hf(tmp_path / "ds2" / "hf", tmp_path / "ds2", overwrite=True)
    assert (tmp_path / "ds2" / "hf" / "README.md").is_file()
    # a dataset kept inside an earlier export, exported again over that export
    nested = folder / "copy"
    (tmp_path / "ds2").rename(nested)
    with pytest.raises(ConfigError, match="input dataset"):
        export_hf(nested, folder, overwrite=True)
    assert (nested / "samples.jsonl").is_file()
    with pytest.raises(ConfigError, match="input dataset"):
        export_hf(source, kept)
    assert not kept.exists()
