"""Hostile official and user files: every reader refuses them with a DataError naming file, line and field,
before anything is written, and never reads outside the roots it was given.

Covers the readers outside niah's own datasets (issue 7 hardened those): the importers of every family, the
official score inputs, ``niah metric``, the corpus readers, ``niah noise`` and ``niah derive``.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

import niah.util.iox
from niah.cli import app
from niah.sample import Dataset, MediaChecker
from niah.util.errors import ConfigError, DataError
from niah.util.iox import iter_jsonl, read_json_file
from support.infinibench_fixtures import QA, write_videos
from support.mm_niah_official import standard_folder
from support.mmlongbench_fixtures import write_data_root
from support.seq_niah import official_record

runner = CliRunner()


def _cli(*args: object) -> tuple[int, str]:
    """Run the CLI in-process; a traceback (any exception but a clean exit) fails the test."""
    result = runner.invoke(app, [str(a) for a in args], catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback instead of a clear error: {result.exception!r}") from result.exception
    return result.exit_code, result.output


def _refused(out: Path, *args: object) -> str:
    """The command fails with a clear error and leaves neither ``out`` nor a temporary build beside it."""
    code, output = _cli(*args)
    assert code == 2, output
    assert "error:" in output and "Traceback" not in output
    assert not out.exists()
    if out.parent.exists():
        assert not [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    return " ".join(output.split())


def _png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb's header)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


# ------------------------------------------------------------------------------------------- shared readers


def test_iter_jsonl_strict_refuses_what_python_json_accepts(tmp_path):
    path = tmp_path / "x.jsonl"
    for body, expected in [
        ('{"a": 1}\n{"a": NaN}\n', "NaN is not valid JSON"),
        ('{"a": 1}\n{"a": -Infinity}\n', "-Infinity is not valid JSON"),
        ('{"a": 1}\n{"a": "half \\ud800 pair"}\n', "lone UTF-16 surrogate"),
        ('{"a": 1}\n{"a": ' + "7" * 5000 + "}\n", "invalid JSON"),
        ('{"a": 1}\n' + "[" * 100_000 + "\n", "nested too deeply"),
    ]:
        path.write_text(body, encoding="utf-8")
        with pytest.raises(DataError, match=expected) as info:
            list(iter_jsonl(path, strict=True))
        assert (info.value.file, info.value.line) == (str(path), 2)
    # niah's own files may hold what it wrote itself (escaped surrogates of a hostile reply): not strict
    path.write_text('{"a": "half \\ud800 pair"}\n', encoding="utf-8")
    assert list(iter_jsonl(path)) == [(1, {"a": "half \ud800 pair"})]


def test_iter_jsonl_skips_a_bom_and_reads_crlf(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n{"a": 2}\r\n')
    assert list(iter_jsonl(path, strict=True)) == [(1, {"a": 1}), (2, {"a": 2})]
    json_path = tmp_path / "x.json"
    json_path.write_bytes(b'\xef\xbb\xbf[1, 2]')
    assert read_json_file(json_path, strict=True) == [1, 2]


def test_unreadable_files_are_data_errors_not_oserrors(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        list(iter_jsonl(tmp_path / "missing.jsonl"))
    (tmp_path / "folder.jsonl").mkdir()
    with pytest.raises(DataError, match="is a directory"):
        list(iter_jsonl(tmp_path / "folder.jsonl"))
    with pytest.raises(DataError, match="does not exist"):
        read_json_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"a":\n "\xff"}')
    with pytest.raises(DataError, match="not valid UTF-8") as info:
        read_json_file(bad)
    assert info.value.line == 2


def test_an_over_long_line_is_refused_without_holding_it(tmp_path, monkeypatch):
    monkeypatch.setattr(niah.util.iox, "MAX_LINE_BYTES", 1024)
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n{"a": "' + "x" * 10_000 + '"}\n{"a": 3}\n', encoding="utf-8")
    with pytest.raises(DataError, match="longer than 1024 bytes") as info:
        list(iter_jsonl(path))
    assert info.value.line == 2
    with path.open("rb") as fh:  # the bounded reader moves past the long line and keeps counting
        assert [(n, raw is None) for n, raw in niah.util.iox.bounded_lines(fh)] == [(1, False), (2, True), (3, False)]
    # a dataset's validation lists it like any other bad line
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "samples.jsonl").write_text(path.read_text(), encoding="utf-8")
    with pytest.raises(DataError) as invalid:
        Dataset(ds).validate()
    assert "samples.jsonl:2: line is longer than 1024 bytes" in str(invalid.value)


def test_media_checker_refuses_escapes_fakes_and_bombs(tmp_path):
    root = tmp_path / "images"
    root.mkdir()
    Image.new("RGB", (8, 8)).save(root / "ok.png")
    (root / "text.jpg").write_text("not a picture", encoding="utf-8")
    (root / "bomb.png").write_bytes(_png_claiming(60_000, 60_000))
    os.symlink("/etc/passwd", root / "link.png")
    checker = MediaChecker(root)
    assert checker.check("ok.png", "image") == (root / "ok.png").resolve()
    for rel, message in [("../outside.png", "escapes"), ("/etc/passwd", "escapes"), ("link.png", "escapes"),
                         ("text.jpg", "not a decodable image"), ("bomb.png", "too large"),
                         ("missing.png", "file not found")]:
        with pytest.raises(DataError, match=message) as info:
            checker.check(rel, "image", file="records.jsonl", line=4, field="images[0]")
        assert (info.value.file, info.value.line, info.value.field) == ("records.jsonl", 4, "images[0]")
    # a truncated image passes the header check importers make; decoding (what niah run does) refuses it
    Image.new("RGB", (256, 256), (10, 200, 30)).save(root / "whole.png")
    (root / "cut.png").write_bytes((root / "whole.png").read_bytes()[:300])
    assert checker.check("cut.png", "image") == (root / "cut.png").resolve()
    with pytest.raises(DataError, match="not a decodable image"):
        MediaChecker(root, decode=True).check("cut.png", "image")


# ------------------------------------------------------------------------------------------- MM-NIAH


@pytest.fixture(scope="module")
def mm_niah_folder(tmp_path_factory):
    root = standard_folder(tmp_path_factory.mktemp("mmniah") / "mm_niah_val", records=2)
    images = root / "images"
    (images / "fake.png").write_text("hello", encoding="utf-8")
    (images / "bomb.png").write_bytes(_png_claiming(60_000, 60_000))
    return root


def _mm_record(root: Path, **changes: object) -> str:
    record = json.loads((root / "annotations" / "retrieval-text.jsonl").read_text().splitlines()[0])
    for key, value in changes.items():
        if key == "image0":
            record["images_list"][0] = value
        else:
            record[key] = value
    return json.dumps(record)


@pytest.mark.parametrize(("body", "expected"), [
    ("image0=fake.png", "retrieval-text.jsonl:1, field 'images_list[0]': 'fake.png': not a decodable image"),
    ("image0=bomb.png", "retrieval-text.jsonl:1, field 'images_list[0]': 'bomb.png': image too large"),
    ("image0=gone.png", "retrieval-text.jsonl:1, field 'images_list[0]': 'gone.png': file not found"),
    ("image0=../../../../etc/passwd", "escapes the media root"),
    ("surrogate", "retrieval-text.jsonl:1, field 'question[0].text': holds a lone UTF-16 surrogate"),
    ("nan", "retrieval-text.jsonl:1, field 'meta.context_length': must be an integer"),
    ("empty", "retrieval-text.jsonl: the annotation file holds no records"),
    ("needles", "retrieval-text.jsonl:1, field 'meta.needles': must be a list of strings"),
])
def test_import_mm_niah_refuses_bad_images_and_text(tmp_path, mm_niah_folder, body, expected):
    path = tmp_path / "retrieval-text.jsonl"
    if body.startswith("image0="):
        path.write_text(_mm_record(mm_niah_folder, image0=body[7:]) + "\n", encoding="utf-8")
    elif body == "surrogate":
        path.write_text(_mm_record(mm_niah_folder, question="Which \\ud800 one?").replace("\\\\", "\\") + "\n",
                        encoding="utf-8")
    elif body == "nan":
        path.write_text(_mm_record(mm_niah_folder).replace('"context_length": ', '"context_length": NaN, "x": ', 1)
                        + "\n", encoding="utf-8")
    elif body == "needles":
        record = json.loads(_mm_record(mm_niah_folder))
        record["meta"]["needles"] = [{"text": "nested junk"}]
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    else:
        path.write_text("", encoding="utf-8")
    out = tmp_path / "ds"
    message = _refused(out, "import", "mm-niah", path, "--images", mm_niah_folder / "images", "--out", out)
    assert expected in message


def test_import_mm_niah_missing_annotation_file_is_a_clear_error(tmp_path, mm_niah_folder):
    out = tmp_path / "ds"
    message = _refused(out, "import", "mm-niah", tmp_path / "retrieval-text.jsonl", "--images",
                       mm_niah_folder / "images", "--out", out)
    assert "annotation file does not exist" in message


def test_import_mm_niah_accepts_bom_and_crlf(tmp_path, mm_niah_folder):
    lines = (mm_niah_folder / "annotations" / "retrieval-text.jsonl").read_text().splitlines()
    path = tmp_path / "retrieval-text.jsonl"
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8"))
    code, output = _cli("import", "mm-niah", path, "--images", mm_niah_folder / "images", "--out", tmp_path / "ds")
    assert code == 0, output
    assert Dataset(tmp_path / "ds").validate(media=False).samples == len(lines)


def test_import_mm_niah_tolerates_nan_where_nothing_reads_it(tmp_path, mm_niah_folder):
    # Python's reader (the official code's) accepts NaN; in a field no stage reads it is harmless
    record = json.loads(_mm_record(mm_niah_folder))
    record["meta"]["release_note"] = float("nan")
    path = tmp_path / "retrieval-text.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, output = _cli("import", "mm-niah", path, "--images", mm_niah_folder / "images", "--out", tmp_path / "ds")
    assert code == 0, output
    assert "NaN" not in (tmp_path / "ds" / "samples.jsonl").read_text()


def test_a_non_finite_value_never_reaches_a_dataset(tmp_path):
    from niah.sample import DatasetWriter, Sample, TextPart

    sample = Sample(id="a", benchmark="x", task="t", context=[TextPart("c")], question=[TextPart("q")], answer="a",
                    meta={"depth": [0.5, float("inf")]})
    with pytest.raises(DataError, match="not a usable number") as info, DatasetWriter(tmp_path / "ds") as writer:
        writer.write(sample)
    assert info.value.field == "meta.depth[1]" and not (tmp_path / "ds").exists()


def test_score_mm_niah_official_refuses_nan(tmp_path):
    path = tmp_path / "m_retrieval-text-val.jsonl"
    path.write_text('{"question_id": 0, "answer": "oak", "response": "oak", "context_length": NaN, '
                    '"placed_depth": [0.5]}\n', encoding="utf-8")
    code, output = _cli("score", "-f", "mm-niah-official", path, "--out", tmp_path / "s.json")
    assert code == 2 and "m_retrieval-text-val.jsonl:1, field 'context_length': must be a number" in output
    assert not (tmp_path / "s.json").exists()


# ------------------------------------------------------------------------------------------- MMLongBench


@pytest.fixture
def mmlongbench_root(tmp_path):
    return write_data_root(tmp_path / "mlb", datasets=("vh_single", "mmlongdoc", "cars196"))


def _mlb_import(root: Path, out: Path, dataset: str) -> list[object]:
    return ["import", "mmlongbench", root / "data", "--image-root", root / "images", "--out", out,
            "--datasets", dataset]


def test_import_mmlongbench_refuses_undecodable_images(mmlongbench_root, tmp_path):
    path = mmlongbench_root / "data" / "NIAH" / "vh_single_test_1000_K8_dep6.jsonl"
    rows = path.read_text().splitlines()
    (mmlongbench_root / "images" / "text.png").write_text("no image", encoding="utf-8")
    bad = json.loads(rows[0])
    bad["ctxs"][1] = "text.png"
    path.write_text("\n".join([*rows[:2], json.dumps(bad)]) + "\n", encoding="utf-8")
    out = tmp_path / "ds"
    message = _refused(out, *_mlb_import(mmlongbench_root, out, "vh_single"))
    assert "vh_single_test_1000_K8_dep6.jsonl:3, field 'images[1]': 'text.png': not a decodable image" in message


@pytest.mark.parametrize(("answer", "fmt", "expected"), [
    ("not json", "List", "List gold is not valid JSON"),
    (5, "List", "List gold must be a JSON list in a string"),
    ("many", "Integer", "gold 'many' is not a number"),
])
def test_import_mmlongbench_refuses_a_gold_its_rule_cannot_score(mmlongbench_root, tmp_path, answer, fmt,
                                                                 expected):
    path = mmlongbench_root / "data" / "documentQA" / "mmlongdoc_K8.jsonl"
    rows = path.read_text().splitlines()
    bad = json.loads(rows[1])
    bad["answer"], bad["answer_format"] = answer, fmt
    path.write_text(rows[0] + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    out = tmp_path / "ds"
    message = _refused(out, *_mlb_import(mmlongbench_root, out, "mmlongdoc"))
    assert f"mmlongdoc_K8.jsonl:2, field 'answer': {expected}" in message


def test_import_mmlongbench_refuses_duplicate_ids_and_bad_icl_files(mmlongbench_root, tmp_path):
    path = mmlongbench_root / "data" / "documentQA" / "mmlongdoc_K8.jsonl"
    first = path.read_text().splitlines()[0]
    path.write_text(first + "\n" + first + "\n", encoding="utf-8")
    out = tmp_path / "ds"
    assert "mmlongdoc_K8.jsonl:2, field 'id': id 'mmlongdoc_0' appears twice" in _refused(
        out, *_mlb_import(mmlongbench_root, out, "mmlongdoc"))
    icl = mmlongbench_root / "data" / "ICL" / "cars196_K8.json"
    icl.write_bytes(b'{"birds": "\xff"}')
    assert "cars196_K8.json:1: ICL file is not valid UTF-8" in _refused(
        out, *_mlb_import(mmlongbench_root, out, "cars196"))


def test_mmlongbench_metric_refuses_a_prefix_that_is_not_a_regex(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"answer": "oak", "response": "an oak", "prefix": "Answer ("}) + "\n"
                    + json.dumps({"answer": "yes", "response": "yes", "prefix": 5}) + "\n", encoding="utf-8")
    for rule in ("mmlongbench/sub_em", "mmlongbench/binary_acc"):
        code, output = _cli("metric", rule, "--input", rows, "--out", tmp_path / "out.jsonl")
        assert code == 1, output
        assert "field 'prefix'" in output


# ------------------------------------------------------------------------------------------- MileBench


def _milebench_folder(root: Path, data: bytes | dict) -> Path:
    folder = root / "ALFRED"
    (folder / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(folder / "images" / "1.jpg")
    (folder / "images" / "2.jpg").write_text("text, not jpeg", encoding="utf-8")
    (folder / "ALFRED.json").write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return folder


def _milebench_data(images: list[str]) -> dict:
    return {"meta_data": {"task_instruction": ["Look."], "question_type": "multi-choice"},
            "data": [{"sample_id": 1, "task_instruction_id": 0, "response": "a",
                      "task_instance": {"context": "Step {image#1}", "images_path": images, "choice_list": ["a", "b"]}}]}


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"meta_data": "\xff"}', "ALFRED.json:1: MileBench data set file is not valid UTF-8"),
    (_milebench_data(["2.jpg"]), "field 'data[0].task_instance.images_path[0]': '2.jpg': not a decodable image"),
    (_milebench_data(["3.jpg"]), "'3.jpg': file not found"),
    ({**_milebench_data(["1.jpg"]), "data": []}, "field 'data': holds no items"),
])
def test_import_milebench_refuses_bad_files(tmp_path, data, expected):
    folder = _milebench_folder(tmp_path, data)
    out = tmp_path / "ds"
    assert expected in _refused(out, "import", "milebench", folder, "--out", out)


def test_score_milebench_official_refuses_invalid_utf8_predictions(tmp_path):
    folder = _milebench_folder(tmp_path, _milebench_data(["1.jpg"]))
    pred = tmp_path / "pred.json"
    pred.write_bytes(b'[{"sample_id": 1, "pred_response": "\xff"}]')
    code, output = _cli("score", "-f", "milebench-official", folder, pred, "--out", tmp_path / "s.json")
    assert code == 2 and "prediction file is not valid UTF-8" in output


# ------------------------------------------------------------------------------------------- InfiniBench


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    root = tmp_path_factory.mktemp("ib") / "videos"
    write_videos(root)
    episode = (root / "bbt" / "season_1" / "episode_1.mp4").read_bytes()
    (root / "truncated.mp4").write_bytes(episode[: len(episode) // 3])
    (root / "text.mp4").write_text("hello, not a video", encoding="utf-8")
    (root / "bad.srt").write_text("garbage\nnot srt -->\n", encoding="utf-8")
    evil = root / "evil_frames"
    evil.mkdir()
    Image.new("RGB", (8, 8)).save(evil / "frame_0.jpg")
    os.symlink("/etc/passwd", evil / "frame_1.jpg")
    fake = root / "fake_frames"
    fake.mkdir()
    (fake / "frame_0.jpg").write_text("not a jpeg", encoding="utf-8")
    return root


@pytest.mark.parametrize(("change", "prefer", "expected"), [
    ({"video_path_mp4": "truncated.mp4"}, "mp4", "'[0].video_path_mp4': 'truncated.mp4': not a decodable video"),
    ({"video_path_mp4": "text.mp4"}, "mp4", "'text.mp4': not a decodable video"),
    ({"video_subtitles": "bad.srt"}, "mp4", "'[0].video_subtitles': 'bad.srt': not readable subtitles"),
    ({"video_path_frames": "evil_frames"}, "frames", "'[0].video_path_frames[1]': media path "
                                                     "'evil_frames/frame_1.jpg' escapes"),
    ({"video_path_frames": "fake_frames"}, "frames", "'fake_frames/frame_0.jpg': not a decodable image"),
    ({"answer_idx": "9" * 5000}, "mp4", "must be an option index"),
    ({"answer_idx": "\u0661"}, "mp4", "must be an option index"),
])
def test_import_infinibench_refuses_media_that_are_not_what_they_claim(tmp_path, videos, change, prefer,
                                                                       expected):
    records = json.loads(json.dumps(QA["global_appearance"]))
    records[0].update(change)
    qa = tmp_path / "global_appearance.json"
    qa.write_text(json.dumps(records), encoding="utf-8")
    out = tmp_path / "ds"
    message = _refused(out, "import", "infinibench", qa, "--media-root", videos, "--out", out, "--prefer", prefer)
    assert f"global_appearance.json, field {expected}" in message or expected in message


def test_import_infinibench_refuses_empty_files_and_a_missing_videos_root(tmp_path, videos):
    qa = tmp_path / "global_appearance.json"
    qa.write_text("[]", encoding="utf-8")
    out = tmp_path / "ds"
    assert "the QA file holds no records" in _refused(out, "import", "infinibench", qa, "--media-root", videos,
                                                      "--out", out)
    qa.write_text(json.dumps(QA["global_appearance"]), encoding="utf-8")
    assert "the videos root is not a directory" in _refused(out, "import", "infinibench", qa, "--media-root",
                                                            tmp_path / "nowhere", "--out", out)


# ------------------------------------------------------------------------------------------- Sequential-NIAH


def test_import_seq_niah_refuses_empty_and_non_finite_files(tmp_path):
    path = tmp_path / "NIAH_en.jsonl"
    out = tmp_path / "ds"
    path.write_text("", encoding="utf-8")
    assert "NIAH_en.jsonl: the file holds no records" in _refused(out, "import", "seq-niah", path, "--out", out)
    record = json.dumps(official_record(1)).replace('"length": 1235', '"length": Infinity')
    path.write_text(record + "\n", encoding="utf-8")
    assert "NIAH_en.jsonl:1, field 'length'" in _refused(out, "import", "seq-niah", path, "--out", out)


def test_seq_niah_source_files_refuse_invalid_utf8(tmp_path):
    from niah.benchmarks.seq_niah.sources import read_records

    path = tmp_path / "qa.jsonl"
    path.write_bytes(b'{"question": "q"}\n{"question": "\xff"}\n')
    with pytest.raises(DataError, match="invalid UTF-8") as info:
        read_records(path)
    assert info.value.line == 2


def test_seq_niah_judge_file_reports_invalid_utf8_per_line(tmp_path):
    from niah.benchmarks.seq_niah.judge import judge_file

    src = tmp_path / "rows.jsonl"
    src.write_bytes(b'{"question": "\xff"}\n')
    result = judge_file(src, tmp_path / "out.jsonl")
    assert [e.line for e in result.errors] == [1] and "invalid UTF-8" in str(result.errors[0])


def test_noise_and_derive_validate_the_whole_input_first(tmp_path, mm_niah_folder):
    src = tmp_path / "NIAH_en.jsonl"
    src.write_text("".join(json.dumps(official_record(i)) + "\n" for i in range(3)), encoding="utf-8")
    assert _cli("import", "seq-niah", src, "--out", tmp_path / "seq")[0] == 0
    lines = (tmp_path / "seq" / "samples.jsonl").read_text().splitlines()
    last = json.loads(lines[2])
    last["meta"]["depth"] = "deep"  # passes noise itself, crashes every later stage
    (tmp_path / "seq" / "samples.jsonl").write_text("\n".join([*lines[:2], json.dumps(last)]) + "\n")
    out = tmp_path / "noisy"
    assert "samples.jsonl:3: meta.depth: must be a number" in _refused(
        out, "noise", "seq-niah", tmp_path / "seq", "--out", out, "--no-progress")

    annotations = sorted((mm_niah_folder / "annotations").glob("*.jsonl"))
    assert _cli("import", "mm-niah", *annotations, "--images", mm_niah_folder / "images",
                "--out", tmp_path / "mm")[0] == 0
    lines = (tmp_path / "mm" / "samples.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    last["meta"]["context_length"] = -3
    (tmp_path / "mm" / "samples.jsonl").write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    out = tmp_path / "text-only"
    assert f"samples.jsonl:{len(lines)}: meta.context_length: must be a non-negative integer" in _refused(
        out, "derive", "mm-niah-text-only", tmp_path / "mm", "--out", out)


# ------------------------------------------------------------------------------------------- corpora


def _build_with(corpus: str, out: Path) -> list[object]:
    return ["build", "mm-niah", "--tasks", "retrieval-text", "--lengths", "2k", "--per-cell", "1", "--corpus",
            corpus, "--out", out, "--no-progress", "--quiet"]


def test_text_folder_corpus_refuses_a_link_out_of_the_folder(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("A first paragraph.\n\nA second one.", encoding="utf-8")
    os.symlink("/etc/passwd", folder / "b.txt")
    out = tmp_path / "ds"
    assert "b.txt, field 'text': media path 'b.txt' escapes" in _refused(out, *_build_with(f"textdir:{folder}", out))


def test_long_text_corpus_refuses_surrogates_and_nan(tmp_path):
    path = tmp_path / "docs.jsonl"
    out = tmp_path / "ds"
    path.write_text(json.dumps({"text": "Fine text."}) + '\n{"text": "bad \\ud800 text"}\n', encoding="utf-8")
    assert "docs.jsonl:2: holds a lone UTF-16 surrogate" in _refused(out, *_build_with(f"jsonl:{path}", out))
    path.write_text(json.dumps({"text": "Fine text."}) + '\n{"text": "x", "id": NaN}\n', encoding="utf-8")
    assert "docs.jsonl:2: NaN is not valid JSON" in _refused(out, *_build_with(f"jsonl:{path}", out))


def test_dataset_writer_refuses_a_duplicate_sample_id(tmp_path):
    from niah.sample import DatasetWriter, Sample, TextPart

    sample = Sample(id="a", benchmark="x", task="t", context=[TextPart("c")], question=[TextPart("q")], answer="a")
    with pytest.raises(DataError, match="duplicate sample id 'a'"), DatasetWriter(tmp_path / "ds") as writer:
        writer.write(sample)
        writer.write(sample)
    assert not (tmp_path / "ds").exists()


def test_obelics_parquet_with_a_corrupt_page_is_a_data_error(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from niah.corpus import load_corpus

    text = " ".join(f"Sentence {i} about the harbour." for i in range(200))
    pq.write_table(pa.table({"texts": [[text, text]] * 40, "images": [[None, None]] * 40}),
                   tmp_path / "c.parquet", row_group_size=5)
    data = bytearray((tmp_path / "c.parquet").read_bytes())
    data[len(data) // 3: len(data) // 3 + 2000] = b"A" * 2000  # footer intact: the damage shows when read
    (tmp_path / "c.parquet").write_bytes(bytes(data))
    with pytest.raises(DataError, match="unreadable Parquet data") as info:
        list(load_corpus(f"obelics:{tmp_path / 'c.parquet'}").documents())
    assert info.value.file == str(tmp_path / "c.parquet")


def test_an_oversized_subtitle_file_is_refused(tmp_path, monkeypatch):
    import niah.video.subtitles as subtitles

    monkeypatch.setattr(subtitles, "MAX_SUBTITLE_BYTES", 64)
    path = tmp_path / "big.srt"
    path.write_text("1\n00:00:00,000 --> 00:00:01,000\n" + "words " * 40 + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="larger than"):
        subtitles.load_subtitles(path)


def test_seq_niah_sources_refuse_a_needle_given_twice(tmp_path):
    from niah.benchmarks.seq_niah.sources import load_source

    path = tmp_path / "relations.jsonl"
    relation = ["Alice", "met", "Bob", "2020-01-02"]
    path.write_text("\n".join(json.dumps(r) for r in [relation, ["Alice", "met", "Bob", "2021-03-04"], relation])
                    + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="repeats the relation of line 1") as info:
        load_source(path, "real-temporal")
    assert info.value.line == 3
    path.write_text(json.dumps({"question": "How?", "items": ["stir", "bake", "stir"]}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"repeats items\[0\]") as info:
        load_source(path, "real-logical")
    assert info.value.field == "items[2]"


def test_an_import_never_replaces_a_folder_that_is_not_a_dataset(tmp_path, mm_niah_folder):
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (8, 8)).save(images / "keep.png")
    annotations = sorted((mm_niah_folder / "annotations").glob("*.jsonl"))
    # --out pointing at the images folder (a slip of the keyboard) must not delete the images
    code, output = _cli("import", "mm-niah", *annotations, "--images", mm_niah_folder / "images", "--out", images)
    assert code == 2 and "holds something else than a niah dataset" in output
    assert (images / "keep.png").is_file()
    # an empty folder is written; the same import again has nothing to do; another import over the dataset
    # (one annotation file of several) is refused naming what differs, and replaces it only with --overwrite
    assert _cli("import", "mm-niah", *annotations, "--images", mm_niah_folder / "images",
                "--out", tmp_path / "ds")[0] == 0
    assert _cli("import", "mm-niah", *annotations, "--images", mm_niah_folder / "images",
                "--out", tmp_path / "ds")[0] == 0
    code, output = _cli("import", "mm-niah", *annotations[:1], "--images", mm_niah_folder / "images",
                        "--out", tmp_path / "ds")
    assert code == 2 and "holds another dataset" in output and "--overwrite" in output
    assert _cli("import", "mm-niah", *annotations[:1], "--images", mm_niah_folder / "images",
                "--out", tmp_path / "ds", "--overwrite")[0] == 0


def test_an_export_never_replaces_a_folder_it_did_not_write(tmp_path):
    from niah.benchmarks.mm_niah.export import export_official
    from support.datasets import write_mm_niah_like

    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1)
    real = tmp_path / "official"
    (real / "annotations").mkdir(parents=True)
    (real / "annotations" / "retrieval-text.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="was not made by niah"):
        export_official(dataset, real)
    assert (real / "annotations" / "retrieval-text.jsonl").read_text() == "{}\n"
    fresh = tmp_path / "exported"
    for _ in range(2):  # an earlier export (or an empty folder) is replaced
        assert export_official(dataset, fresh)
    assert (fresh / "annotations").is_dir()
