"""MM-NIAH official annotations in, run responses out as official files, and `niah score RUN_DIR`."""

import json
import subprocess
import sys

import pytest

from niah.benchmarks.mm_niah.official import (
    FAILED_RESPONSE,
    import_annotations,
    load_annotations,
    score_response_files,
    write_official_responses,
)
from niah.benchmarks.mm_niah.score import to_percent
from niah.sample import Dataset, ImagePart, TextPart
from niah.scoring.score import score_run
from niah.util.errors import DataError
from support.scores import official_scores


def _record(**overrides):
    record = {
        "id": 7,
        "images_list": ["a/1.jpg", "b/2.jpg", "c/3.jpg"],
        "context": "Doc one <image> text</s>more <image> end.",
        "question": "Which <image> is it?",
        "answer": "oak",
        "meta": {
            "placed_depth": 0.25,
            "context_length": 3000,
            "context_length_text": 2488,
            "context_length_image": 512,
            "num_images": 2,
            "needles": ["The tree is an oak."],
            "choices": None,
            "choices_image_path": None,
            "category": "find-text",
        },
    }
    for key, value in overrides.items():
        if key.startswith("meta."):
            record["meta"][key[5:]] = value
        else:
            record[key] = value
    return record


def _write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def images_root(tmp_path):
    from PIL import Image

    root = tmp_path / "mm_niah_val" / "images"
    for rel in ("a/1.jpg", "b/2.jpg", "c/3.jpg"):  # real images: importing checks that every image decodes
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 8), (len(rel), 90, 40)).save(root / rel)
    return root


def test_load_annotations_interleaves_images_in_placeholder_order(tmp_path, images_root):
    path = _write_jsonl(tmp_path / "retrieval-text.jsonl", [_record()])
    (sample,) = load_annotations(path, images_root)
    assert sample.id == "retrieval-text/000007"
    assert sample.benchmark == "mm-niah" and sample.task == "retrieval-text"
    assert sample.context == [
        TextPart("Doc one "), ImagePart("a/1.jpg"), TextPart(" text</s>more "), ImagePart("b/2.jpg"), TextPart(" end."),
    ]
    assert sample.question == [TextPart("Which "), ImagePart("c/3.jpg"), TextPart(" is it?")]
    assert sample.choices is None
    assert sample.meta["depth"] == [0.25]
    assert sample.meta["context_length"] == 3000
    assert sample.meta["text_tokens"] == 2488 and sample.meta["image_tokens"] == 512
    assert sample.meta["num_images"] == 2 and sample.meta["category"] == "find-text"
    assert sample.meta["needles"] == ["The tree is an oak."] and sample.meta["official_id"] == 7


def test_choices_text_and_image_and_counting_answer(tmp_path, images_root):
    text_mc = _record(answer=1, **{"meta.choices": ["pine", "oak"]})
    image_mc = _record(id=8, answer=0, **{"meta.choices_image_path": ["o/1.png", "o/2.png"]})
    path = _write_jsonl(tmp_path / "reasoning-image.jsonl", [text_mc, image_mc])
    first, second = load_annotations(path, images_root)
    assert first.choices == [[TextPart("pine")], [TextPart("oak")]] and first.answer == 1
    assert second.choices == [[ImagePart("o/1.png")], [ImagePart("o/2.png")]]
    counting = _write_jsonl(tmp_path / "counting-text.jsonl", [_record(answer="[2, 0, 1]",
                                                                       **{"meta.placed_depth": [0.1, 0.5, 0.9]})])
    (sample,) = load_annotations(counting, images_root)
    assert sample.answer == [2, 0, 1] and sample.meta["depth"] == [0.1, 0.5, 0.9]


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"images_list": ["a/1.jpg"]}, "images_list"),
        ({"meta.placed_depth": None}, "meta.placed_depth"),
        ({"meta.context_length": "3000"}, "meta.context_length"),
        ({"images_list": ["../escape.jpg", "b/2.jpg", "c/3.jpg"]}, "images_list[0]"),
        ({"answer": 5, "meta.choices": ["x", "y"]}, "answer"),
        ({"meta.choices": ["x"], "meta.choices_image_path": ["y.png"]}, "meta.choices"),
        ({"id": "seven"}, "id"),
    ],
)
def test_bad_annotation_lines_name_file_line_and_field(tmp_path, images_root, override, field):
    path = _write_jsonl(tmp_path / "retrieval-text.jsonl", [_record(id=1), _record(**override)])
    with pytest.raises(DataError) as info:
        list(load_annotations(path, images_root))
    assert (info.value.file, info.value.line, info.value.field) == (str(path), 2, field)


def test_import_annotations_reads_images_in_place(tmp_path, images_root):
    original = (images_root / "a" / "1.jpg").read_bytes()
    files = [
        _write_jsonl(tmp_path / "retrieval-text.jsonl", [_record(id=0), _record(id=1)]),
        _write_jsonl(tmp_path / "counting-image.jsonl", [_record(id=0, answer=[1, 0])]),
    ]
    dataset = import_annotations(files, images_root, tmp_path / "ds")
    assert dataset.manifest["media_root"] == str(images_root.resolve())
    assert dataset.manifest["counts"] == {"retrieval-text": 2, "counting-image": 1}
    assert not any((tmp_path / "ds" / "media").iterdir())  # nothing copied
    samples = list(Dataset(tmp_path / "ds"))
    assert [s.id for s in samples] == ["retrieval-text/000000", "retrieval-text/000001", "counting-image/000000"]
    assert dataset.resolve_media("a/1.jpg").read_bytes() == original


def test_imported_set_exports_back_with_its_images_given_by_media_root(tmp_path, images_root):
    from typer.testing import CliRunner

    from niah.cli import app

    files = [_write_jsonl(tmp_path / "retrieval-text.jsonl", [_record(id=0)])]
    import_annotations(files, images_root, tmp_path / "ds")
    runner = CliRunner()
    refused = runner.invoke(app, ["export", "mm-niah-dataset", str(tmp_path / "ds"), "--out", str(tmp_path / "x")])
    assert refused.exit_code != 0 and "--media-root" in refused.output + str(refused.exception)
    assert not (tmp_path / "x").exists()
    ok = runner.invoke(app, ["export", "mm-niah-dataset", str(tmp_path / "ds"), "--out", str(tmp_path / "x"),
                             "--media-root", str(images_root)])
    assert ok.exit_code == 0, ok.output + repr(ok.exception)
    exported = [json.loads(line) for line in (tmp_path / "x" / "annotations" / "retrieval-text.jsonl").open()]
    assert len(exported) == 1
    for rel in exported[0]["images_list"]:
        assert (tmp_path / "x" / "images" / rel).is_file()


# ------------------------------------------------------------------------------------------- runs


def _build_run(tmp_path, images_root):
    tasks = {
        "retrieval-text": [(_record(id=0, answer="oak"), "an oak tree"), (_record(id=1, answer="oak"), None)],
        "retrieval-image": [
            (_record(id=0, answer=2, **{"meta.choices": ["x", "y", "z"]}), "(C)"),
            (_record(id=1, answer=2, **{"meta.choices": ["x", "y", "z"], "meta.context_length": 9000}), "C"),
        ],
        "counting-text": [(_record(id=0, answer=[1, 2], **{"meta.placed_depth": [0.2, 0.4]}), "[1, 2]")],
    }
    files, responses = [], []
    for task, items in tasks.items():
        files.append(_write_jsonl(tmp_path / f"{task}.jsonl", [record for record, _ in items]))
        for record, response in items:
            responses.append({"id": f"{task}/{record['id']:06d}", "task": task, "response": response,
                              "error": "timeout" if response is None else None})
    responses.append({"id": "retrieval-text/000000", "task": "retrieval-text", "response": "no idea",
                      "error": None})  # earlier row for the same id, superseded below
    responses.append({"id": "retrieval-text/000000", "task": "retrieval-text", "response": "an oak tree",
                      "error": None})
    import_annotations(files, images_root, tmp_path / "ds")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"dataset": str(tmp_path / "ds"), "model": "fake"}))
    _write_jsonl(run_dir / "responses.jsonl", responses)
    return run_dir


def test_score_run_writes_scored_rows_and_official_structure(tmp_path, images_root):
    run_dir = _build_run(tmp_path, images_root)
    summary = score_run(run_dir)
    assert (summary.scored, summary.failed, summary.missing) == (5, 1, 0)
    assert summary.disagreements == {"lenient": 1}
    rows = {r["id"]: r for r in map(json.loads, (run_dir / "scored.jsonl").read_text().splitlines())}
    assert rows["retrieval-image/000000"]["scores"] == {"official": 0.0, "lenient": 1.0}
    assert rows["retrieval-text/000001"]["score"] == 0.0 and rows["retrieval-text/000001"]["error"] == "timeout"
    assert rows["retrieval-text/000000"]["score"] == 1.0  # the later response row wins
    assert rows["counting-text/000000"]["depth"] == pytest.approx(0.3)
    assert set(rows["retrieval-text/000000"]) >= {"id", "task", "benchmark", "context_length", "depth",
                                                  "num_images", "answer", "response", "error", "score", "scores"}
    scores = official_scores(run_dir / "scores.json")  # in percent
    # depth 0.25 -> cell 1; context 3000 -> 2k bin
    assert scores["retrieval-text"][1] == 100 * round((1 + 0) / 2 / 5, 6)
    assert scores["retrieval-image"][1] == 0.0 and scores["retrieval-image"][3] == 20.0
    assert scores["counting-text"][1] == 20.0  # mean depth 0.3 -> cell 1
    assert "overall" not in scores and scores["context_ranges"][0] == "1k"
    lenient = official_scores(run_dir / "scores.lenient.json")
    assert lenient["retrieval-image"][1] == 20.0


def test_official_response_files_from_a_run_score_like_the_run(tmp_path, images_root):
    run_dir = _build_run(tmp_path, images_root)
    written = write_official_responses(run_dir, tmp_path / "ds", tmp_path / "out", "fake-model", "val")
    assert [p.name for p in written] == [
        "fake-model_retrieval-text-val.jsonl", "fake-model_retrieval-image-val.jsonl",
        "fake-model_counting-text-val.jsonl"]
    lines = [json.loads(x) for x in written[0].read_text().splitlines()]
    assert lines[1] == {
        "question_id": 1, "question": "Which <image> is it?\nAnswer the question using a single word or phrase.",
        "answer": "oak", "response": FAILED_RESPONSE, "context_length": 3000, "placed_depth": [0.25]}
    image_line = json.loads(written[1].read_text().splitlines()[0])
    assert image_line["answer"] == 2 and image_line["question"].endswith(
        "\nA. x\nB. y\nC. z\nAnswer with the option's letter from the given choices directly.")
    counting_line = json.loads(written[2].read_text().splitlines()[0])
    assert counting_line["answer"] == [1, 2]
    official = score_response_files(written)
    score_run(run_dir)
    doc = json.loads((run_dir / "scores.json").read_text())
    assert doc["run_status"]["failed"] == 1  # one request timed out: scored 0, run marked incomplete
    # the official scorer's structure is on 0-1; scores.json keeps it in percent under "official"
    assert to_percent({k.removesuffix("-val"): v for k, v in official.items()}) == doc["official"]



def test_cli_score_run_prints_disagreements(tmp_path, images_root):
    run_dir = _build_run(tmp_path, images_root)
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "score", str(run_dir)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "official and lenient disagree on 1 of 5 samples" in proc.stdout
    assert (run_dir / "scores.json").is_file()


def test_missing_responses_are_counted_not_scored(tmp_path, images_root):
    run_dir = _build_run(tmp_path, images_root)
    lines = (run_dir / "responses.jsonl").read_text().splitlines()
    _write_jsonl(run_dir / "responses.jsonl", [json.loads(x) for x in lines if "counting" not in x])
    summary = score_run(run_dir)
    assert summary.missing == 1 and summary.scored == 4
    with pytest.raises(DataError):
        write_official_responses(run_dir, tmp_path / "ds", tmp_path / "out", "m", "val")
    written = write_official_responses(run_dir, tmp_path / "ds", tmp_path / "out", "m", "val", allow_missing=True)
    assert len(written) == 2


def test_import_records_the_official_split_from_the_folder_names(tmp_path):
    from niah.benchmarks.mm_niah.official import import_annotations

    root = tmp_path / "mm_niah_val"
    (root / "annotations").mkdir(parents=True)
    (root / "images").mkdir()
    rec = {"id": 0, "images_list": [], "context": "Some text. The fact is here.", "question": "What?",
           "answer": "fact", "meta": {"placed_depth": [0.5], "context_length": 1200, "context_length_text": 1200,
                                      "context_length_image": 0, "num_images": 0, "needles": ["The fact"],
                                      "choices": None, "choices_image_path": None, "category": "find-text"}}
    (root / "annotations" / "retrieval-text.jsonl").write_text(json.dumps(rec) + "\n")
    ds = import_annotations([root / "annotations" / "retrieval-text.jsonl"], root / "images", tmp_path / "ds")
    assert ds.manifest["split"] == "val"
