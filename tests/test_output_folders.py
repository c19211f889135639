"""Every verb that writes a dataset, a run or a report folder: a folder holding something else is refused
(even with --overwrite), the same command again resumes exactly what was asked, another one is refused naming
what differs, and only --overwrite replaces (niah build, niah import, niah derive, niah eval)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from niah.cli import app
from support.cli import invoke_ok

runner = CliRunner()
SMALL = ["--tasks", "retrieval-text", "--no-progress"]


def _refused(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    return " ".join(res.output.split())


def test_build_resumes_the_same_build_refuses_another_and_replaces_only_with_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    invoke_ok(["build", "mm-niah", "--out", str(out), "--lengths", "1k", *SMALL])
    samples = (out / "samples.jsonl").read_bytes()
    first = out.stat().st_mtime_ns
    said = invoke_ok(["build", "mm-niah", "--out", str(out), "--lengths", "1k", *SMALL])
    assert "already holds this build" in said and out.stat().st_mtime_ns == first
    said = _refused(["build", "mm-niah", "--out", str(out), "--lengths", "2k", *SMALL])
    assert "holds another dataset: --lengths was ['1k'], now ['2k']" in said and "--overwrite" in said
    assert (out / "samples.jsonl").read_bytes() == samples  # untouched
    invoke_ok(["build", "mm-niah", "--out", str(out), "--lengths", "2k", "--overwrite", *SMALL])
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["meta"]["context_length"] > 1500 for r in rows)  # 2K, not 1K
    assert (out / "samples.jsonl").read_bytes() != samples


def test_a_dataset_verb_never_replaces_a_folder_holding_something_else(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    for extra in ([], ["--overwrite"]):
        said = _refused(["build", "mm-niah", "--out", str(out), "--lengths", "1k", *SMALL, *extra])
        assert "holds something else than a niah dataset" in said
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_a_dataset_another_command_wrote_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    invoke_ok(["build", "seq-niah", "--out", str(out), "--no-progress"])
    said = _refused(["build", "mm-niah", "--out", str(out), "--lengths", "1k", *SMALL])
    assert "written by `niah build seq-niah`, not `niah build mm-niah`" in said


def test_eval_resumes_the_same_build_and_refuses_another_naming_what_differs(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    base = ["eval", "--out", str(out), "--model", "baseline:oracle", "--no-audit", "--no-published",
            "--no-progress", "--tasks", "retrieval-text"]
    invoke_ok([*base, "--lengths", "1k"])
    said = " ".join(invoke_ok([*base, "--lengths", "1k"]).split())
    assert "0 requests sent" in said and "resumed" in said
    said = _refused([*base, "--lengths", "2k"])
    assert "holds an eval of another build: --lengths was ['1k'], now ['2k']" in said
    said = _refused([*base[:-2], "--family", "seq-niah"])
    assert "--family was 'mm-niah', now 'seq-niah'" in said
    said = " ".join(invoke_ok([*base, "--lengths", "2k", "--overwrite"]).split())
    assert "0 resumed" in said
    lengths = {json.loads(line)["meta"]["context_length"] // 1000
               for line in (out / "dataset" / "samples.jsonl").read_text(encoding="utf-8").splitlines()}
    assert min(lengths) >= 2  # rebuilt at 2K
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    said = _refused(["eval", "--out", str(foreign), "--overwrite", "--no-progress"])
    assert "holds something else than a niah eval folder" in said


def test_an_import_over_changed_files_is_refused_not_taken_for_the_import_already_there(tmp_path: Path) -> None:
    """The same `niah import` command over files whose content changed since is another dataset: refused,
    naming what changed (it said "nothing to do" and kept the samples of the old files)."""
    invoke_ok(["build", "mm-niah", "--out", str(tmp_path / "built"), "--lengths", "1k", "--no-images", *SMALL])
    invoke_ok(["export", "mm-niah-dataset", str(tmp_path / "built"), "--out", str(tmp_path / "official")])
    annotations = tmp_path / "official" / "annotations" / "retrieval-text.jsonl"
    (tmp_path / "images").mkdir()
    command = ["import", "mm-niah", str(annotations), "--media-root", str(tmp_path / "images"),
               "--out", str(tmp_path / "ds")]
    invoke_ok(command)
    assert "already holds this build" in invoke_ok(command)
    lines = annotations.read_text(encoding="utf-8").splitlines(keepends=True)
    annotations.write_text("".join(lines[:2]), encoding="utf-8")
    said = _refused(command)
    assert "holds another dataset: the files of annotations changed since it was written" in said
    assert len((tmp_path / "ds" / "samples.jsonl").read_text(encoding="utf-8").splitlines()) == len(lines)
    invoke_ok([*command, "--overwrite"])
    assert len((tmp_path / "ds" / "samples.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def _write_corpus(folder: Path, topic: str) -> None:
    folder.mkdir(exist_ok=True)
    for doc in range(3):
        sentences = [f"The {topic} report {doc} notes that shelf {n} of the archive holds {n * 7 % 31} ledgers "
                     f"bound in {('red', 'green', 'grey')[n % 3]} cloth." for n in range(120)]
        paragraphs = [" ".join(sentences[k:k + 6]) for k in range(0, len(sentences), 6)]
        (folder / f"doc{doc}.txt").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")


def test_a_build_over_a_changed_corpus_is_refused_not_taken_for_the_build_already_there(tmp_path: Path) -> None:
    """The same `niah build` over a --corpus folder whose files changed since is another build: refused, naming
    the option (it said "nothing to do" and kept the samples of the old texts)."""
    corpus = tmp_path / "texts"
    _write_corpus(corpus, "harbour")
    out = tmp_path / "ds"
    command = ["build", "mm-niah", "--out", str(out), "--lengths", "2k", "--no-images", "--corpus",
               f"textdir:{corpus}", *SMALL]
    invoke_ok(command)
    samples = (out / "samples.jsonl").read_bytes()
    assert "already holds this build" in invoke_ok(command)
    _write_corpus(corpus, "orchard")  # same names, same options: only the content differs
    said = _refused(command)
    assert "holds another dataset: the files of --corpus changed since it was written" in said and "--overwrite" in said
    assert (out / "samples.jsonl").read_bytes() == samples  # untouched
    invoke_ok([*command, "--overwrite"])
    rebuilt = (out / "samples.jsonl").read_text(encoding="utf-8")
    assert "orchard" in rebuilt and "harbour" not in rebuilt
    assert "already holds this build" in invoke_ok(command)


def test_an_eval_over_a_changed_corpus_is_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "texts"
    _write_corpus(corpus, "harbour")
    command = ["eval", "--out", str(tmp_path / "ev"), "--model", "baseline:oracle", "--no-audit", "--no-published",
               "--no-progress", "--tasks", "retrieval-text", "--lengths", "2k", "--corpus", f"textdir:{corpus}"]
    invoke_ok(command)
    _write_corpus(corpus, "orchard")
    said = _refused(command)
    assert "holds an eval of another build: the files of --corpus changed since it was written" in said
