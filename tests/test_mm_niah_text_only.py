"""Text-only MM-NIAH (paper Tables 3-5): the same text-needle samples with the images omitted, through the CLI,
with lengths and depths kept so that the runs line up with the multimodal ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.mm_niah.build import BuildConfig
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.benchmarks.mm_niah.official import import_annotations
from niah.benchmarks.mm_niah.text_only import derive_text_only, strip_images
from niah.cli import app
from niah.sample import Dataset, ImagePart, TextPart, parts_text
from niah.tokens import get_tokenizer
from niah.util.errors import ConfigError
from support.mm_niah_official import standard_folder

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("textonly") / "ds"
    build_mm_niah(BuildConfig(tasks=["retrieval-text", "counting-text", "retrieval-image"],
                              lengths=["8k-12k"], depths=[0.2, 0.6], seed=7), out, progress=False)
    return out


def test_strip_images_hand_checked() -> None:
    parts = [TextPart("One."), ImagePart("media/a.jpg"), TextPart(" Two."), ImagePart("media/b.jpg")]
    assert strip_images(parts, "") == ([TextPart("One. Two.")], 2)
    assert strip_images(parts, "\n") == ([TextPart("One.\n Two.\n")], 2)


def test_cli_derives_the_text_needle_tasks_without_images(built: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["derive", "mm-niah-text-only", str(built), "--out", str(tmp_path / "text")])
    assert res.exit_code == 0, res.output
    original = {s.id: s for s in Dataset(built)}
    derived = list(Dataset(tmp_path / "text").iter_samples(check_media=True))
    assert {s.task for s in derived} == {"retrieval-text", "counting-text"}  # image needles need their images
    assert len(derived) == 4
    tok = get_tokenizer("cl100k_base")
    removed_any = False
    for s in derived:
        src = original[s.id]
        assert not s.all_media() and s.meta["num_images"] == 0
        assert parts_text(s.context) == parts_text(src.context)  # nothing replaces an image (the paper)
        assert s.question == src.question and s.answer == src.answer and s.meta["needles"] == src.meta["needles"]
        assert s.meta["context_length"] == src.meta["context_length"] and s.meta["depth"] == src.meta["depth"]
        info = s.meta["text_only"]
        assert info["images_removed"] == src.meta["num_images"]
        assert info["image_tokens_removed"] == src.meta["image_tokens"]
        assert tok.count(parts_text(s.context)) == src.meta["text_tokens"]
        removed_any |= info["images_removed"] > 0
    assert removed_any
    manifest = Dataset(tmp_path / "text").manifest
    assert manifest["derived"]["transform"] == "text-only" and manifest["derived"]["samples_dropped"] == 2
    assert not (tmp_path / "text" / "media").exists() or not any((tmp_path / "text" / "media").iterdir())


def test_length_from_text_and_replacement(built: Path, tmp_path: Path) -> None:
    derive_text_only(built, tmp_path / "a", length_from="text", tasks=["retrieval-text"])
    for s in Dataset(tmp_path / "a"):
        assert s.meta["context_length"] == s.meta["text_tokens"] and s.meta["image_tokens"] == 0
    res = runner.invoke(app, ["derive", "mm-niah-text-only", str(built), "--out", str(tmp_path / "b"),
                              "--replacement", "\\n", "--tasks", "counting-text"])
    assert res.exit_code == 0, res.output
    for s in Dataset(tmp_path / "b"):
        assert parts_text(s.context).count("\n") >= s.meta["text_only"]["images_removed"]
    with pytest.raises(ConfigError, match="need their images"):
        derive_text_only(built, tmp_path / "c", tasks=["retrieval-image"])
    with pytest.raises(ConfigError, match="replacement"):
        derive_text_only(built, tmp_path / "d", length_from="text", replacement="[image]")


def test_imported_official_set_becomes_self_contained(tmp_path: Path) -> None:
    root = standard_folder(tmp_path / "mm_niah_val", records=2)
    imported = tmp_path / "imported"
    import_annotations(sorted((root / "annotations").glob("*.jsonl")), root / "images", imported)
    counts = derive_text_only(imported, tmp_path / "text")
    assert counts == {"retrieval-text": 2, "counting-text": 2}
    ds = Dataset(tmp_path / "text")
    assert "media_root" not in ds.manifest
    ds.validate()  # no images left, so nothing outside the dataset is needed
    assert all("<image>" not in parts_text(s.context) and "</s>" in parts_text(s.context) for s in ds)


def test_noise_variants_of_a_text_only_build_skip_reorder_for_one_needle(tmp_path: Path) -> None:
    # docs/seq-niah.md: MM-NIAH text-only samples take noise, and tasks with one needle take no reorder; the
    # default kinds (all four) used to stop the whole write at the first one-needle sample
    from niah.benchmarks.seq_niah.cli import write_noise_dataset

    src = tmp_path / "text"
    build_mm_niah(BuildConfig(tasks=["retrieval-text", "counting-text", "reasoning-text"], lengths=["2k-4k"],
                              depths=[0.2, 0.4], images=False, seed=3), src, progress=False)
    needles = {s.id: len(s.meta["needles"]) for s in Dataset(src)}
    assert min(needles.values()) == 1 and max(needles.values()) > 1
    counts = write_noise_dataset(src, tmp_path / "noisy", kinds=["tiny-move", "reorder"], variants=2, seed=0,
                                 progress=False)
    noisy = list(Dataset(tmp_path / "noisy"))
    reordered = {s.meta["variant_of"] for s in noisy if s.meta["noise_kind"] == "reorder"}
    moved = {s.meta["variant_of"] for s in noisy if s.meta["noise_kind"] == "tiny-move"}
    assert reordered == {i for i, n in needles.items() if n > 1} and moved == set(needles)
    assert counts == {"base": len(needles), "tiny-move": 2 * len(needles), "reorder": 2 * len(reordered)}
    # the numbering every sample gets: kind after kind, so a one-needle sample's reorder numbers stay unused
    one = next(i for i, n in needles.items() if n == 1)
    assert sorted(s.id for s in noisy if s.meta.get("variant_of") == one) == [f"{one}_1", f"{one}_2"]
