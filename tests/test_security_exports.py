"""Issue 44, the same class as items 7 and 8 in the official-format exports: a name a dataset carries never leads
an export out of its --out folder, and an export writes only into a folder niah made for it or an empty one.

Real datasets (built or imported by niah, then rewritten as a hostile download would have them), real folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from niah.sample import SAMPLES_FILE
from support.infinibench_fixtures import write_qa_files, write_videos

runner = CliRunner()


def _niah(*args: object) -> object:
    return runner.invoke(app, [str(a) for a in args])


def _rewrite_meta(dataset: Path, field: str, value: str) -> None:
    path = dataset / SAMPLES_FILE
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["meta"][field] = value
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture(scope="module")
def seq_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("seq") / "ds"
    result = _niah("build", "seq-niah", "--out", out, "--lang", "en", "--lengths", "2k-4k", "--needles", "3-3",
                   "--per-cell", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def infinibench_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ib")
    write_videos(root / "videos")
    write_qa_files(root / "qa", ["character_actions"])
    result = _niah("import", "infinibench", root / "qa", "--media-root", root / "videos", "--out", root / "ds")
    assert result.exit_code == 0, result.output
    return root / "ds"


def _copy(dataset: Path, to: Path) -> Path:
    import shutil

    shutil.copytree(dataset, to)
    return to


def test_a_seq_niah_language_that_climbs_out_of_the_export_is_refused(seq_dataset: Path, tmp_path: Path) -> None:
    hostile = _copy(seq_dataset, tmp_path / "hostile")
    _rewrite_meta(hostile, "lang", "/../../../planted")  # NIAH_/../../../planted.jsonl: a file beside tmp_path
    result = _niah("export", "seq-niah", hostile, "--out", tmp_path / "a" / "b" / "out")
    assert result.exit_code == 2
    assert "meta.lang" in result.output and "cannot be a file name" in result.output
    assert "Traceback" not in result.output
    assert not list(tmp_path.parent.glob("planted*")) and not list(tmp_path.rglob("planted*"))
    assert not (tmp_path / "a").exists()


def test_an_infinibench_file_name_that_climbs_out_of_the_export_is_refused(infinibench_dataset: Path,
                                                                            tmp_path: Path) -> None:
    hostile = _copy(infinibench_dataset, tmp_path / "hostile")
    evil = "../../planted.json"
    manifest = json.loads((hostile / "manifest.json").read_text())
    manifest["official_files"][evil] = manifest["official_files"]["character_actions.json"]
    (hostile / "manifest.json").write_text(json.dumps(manifest))
    _rewrite_meta(hostile, "source_file", evil)
    result = _niah("export", "infinibench", hostile, "--out", tmp_path / "a" / "out")
    assert result.exit_code == 2
    assert "meta.source_file" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "planted.json").exists() and not list(tmp_path.rglob("planted*"))


@pytest.mark.parametrize("family", ["seq-niah", "infinibench", "mm-niah-dataset"])
def test_an_export_into_a_folder_of_the_users_own_is_refused_and_an_earlier_export_replaced(
        family: str, seq_dataset: Path, infinibench_dataset: Path, tmp_path: Path) -> None:
    from support.datasets import write_mm_niah_like

    dataset = {"seq-niah": seq_dataset, "infinibench": infinibench_dataset}.get(family) \
        or write_mm_niah_like(tmp_path / "mm", per_task=1)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    result = _niah("export", family, dataset, "--out", mine)
    assert result.exit_code == 2 and "not empty" in result.output
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"] and (mine / "notes.txt").read_text() == "keep me"
    out = tmp_path / "out"
    assert _niah("export", family, dataset, "--out", out).exit_code == 0
    first = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert len(list(out.iterdir())) > 1
    assert _niah("export", family, dataset, "--out", out).exit_code == 0  # an earlier export is replaced
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == first
    (out / "notes.txt").write_text("mine")  # added by hand to niah's export folder: replacing it would delete it
    result = _niah("export", family, dataset, "--out", out)
    assert result.exit_code == 2 and "notes.txt" in result.output
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == {**first, "notes.txt": b"mine"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left beside it


@pytest.mark.parametrize("export", ["lmms-eval", "mm-niah-dataset"])
def test_a_media_path_that_climbs_out_of_the_export_is_refused(export: str, tmp_path: Path) -> None:
    """``../../ds/media/img.png`` resolves inside the dataset's media root, so the dataset reads it; joined to the
    export's folder it named a file beside the export, where the copy was written (and left)."""
    from niah.sample import DatasetWriter, ImagePart, Sample, TextPart
    from support.datasets import png_bytes

    dataset = tmp_path / "ds"
    with DatasetWriter(dataset) as writer:
        (writer.media_dir / "img.png").write_bytes(png_bytes(1))
        writer.write(Sample("s1", "mm-niah", "retrieval-image", [TextPart("Look."), ImagePart("media/img.png")],
                            [TextPart("Which?")], answer=0, meta={"context_length": 100, "depth": [0.5]}))
        writer.finish({"benchmark": "mm-niah"})
    row = json.loads((dataset / SAMPLES_FILE).read_text())
    # read from the dataset: tmp_path/ds/../../NAME/ds/media/img.png, the image itself; written from the export's
    # media folder: exports/.out.*/media/../../NAME/ds/media/img.png, a new file in exports/NAME/
    row["context"][1]["path"] = f"../../{tmp_path.name}/ds/media/img.png"
    (dataset / SAMPLES_FILE).write_text(json.dumps(row) + "\n")
    parent = tmp_path / "exports"
    parent.mkdir()
    result = _niah("export", export, dataset, "--out", parent / "out")
    assert result.exit_code == 2 and "outside the export's folder" in result.output and "'s1'" in result.output
    assert list(parent.iterdir()) == []  # no copy beside the export, no staging folder left


def test_the_dataset_card_holds_a_hostile_source_and_folder_name_as_text(tmp_path: Path) -> None:
    """The hf export's card shows the dataset's folder name and manifest source in Markdown: a line break or a
    backtick there started Markdown of the dataset's own (an image fetched from elsewhere whenever the card is
    shown, a heading); they are written as one line of text, and the front matter still reads them whole."""
    from niah.interop.hf import export_hf, read_card_niah
    from support.datasets import write_mm_niah_like

    planted = "x`\n\n![seen](http://tracker.invalid/t.png)\n\n## Injected"
    dataset = write_mm_niah_like(tmp_path / "ds\n\n## Heading from the folder name", per_task=1,
                                 tasks=("retrieval-text",))
    manifest = json.loads((dataset / "manifest.json").read_text())
    manifest["source"] = planted
    (dataset / "manifest.json").write_text(json.dumps(manifest))
    export_hf(dataset, tmp_path / "hf")
    card = (tmp_path / "hf" / "README.md").read_text()
    body = card.split("\n---\n", 1)[1]
    assert not [line for line in body.splitlines() if line.startswith(("![", "## Injected", "## Heading"))]
    # inside its code span, on its line: literal text, never an image
    assert "- source: `x ![seen](http://tracker.invalid/t.png) ## Injected`; seed:" in body
    front = read_card_niah(tmp_path / "hf")
    assert front is not None and front["source"] == planted


def test_the_response_files_go_only_into_a_folder_of_their_own(tmp_path: Path) -> None:
    """``niah export mm-niah-responses`` wrote into the current folder by default, and into any folder, over a
    file of the same name: now into a new or empty folder, or one it made (more models' files beside the first)."""
    from niah.run import run_dataset_sync
    from support.datasets import write_mm_niah_like

    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    run = tmp_path / "run"
    run_dataset_sync(dataset, "baseline:oracle", run, progress=False)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    (mine / "m_retrieval-text-val.jsonl").write_text("my own file\n")
    result = _niah("export", "mm-niah-responses", run, "--model-name", "m", "--out", mine)
    assert result.exit_code == 2 and "not empty" in result.output
    assert (mine / "m_retrieval-text-val.jsonl").read_text() == "my own file\n"
    assert sorted(p.name for p in mine.iterdir()) == ["m_retrieval-text-val.jsonl", "notes.txt"]
    out = tmp_path / "responses"
    for model in ("m1", "m2"):
        assert _niah("export", "mm-niah-responses", run, "--model-name", model, "--out", out).exit_code == 0
    assert sorted(p.name for p in out.glob("*.jsonl")) == ["m1_retrieval-text-val.jsonl", "m2_retrieval-text-val.jsonl"]


def test_the_inspect_export_never_replaces_a_file_of_the_users_own(tmp_path: Path) -> None:
    """``--out main.py`` named the user's own code: it was replaced by the task file. Only a task file niah
    wrote is replaced."""
    from support.datasets import write_mm_niah_like

    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    mine = tmp_path / "main.py"
    mine.write_text("print('my own code')\n")
    result = _niah("export", "inspect", dataset, "--out", mine)
    assert result.exit_code == 2 and "not a task file" in result.output
    assert mine.read_text() == "print('my own code')\n"
    task = tmp_path / "task.py"
    for name in ("first", "second"):  # an earlier task file is replaced
        assert _niah("export", "inspect", dataset, "--out", task, "--name", name).exit_code == 0
    assert "def second(" in task.read_text() and "def first(" not in task.read_text()
    assert _niah("export", "inspect", dataset, "--out", mine, "--overwrite").exit_code == 0  # asked: replaced
    assert "def niah(" in mine.read_text()
