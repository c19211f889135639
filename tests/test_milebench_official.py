"""MileBench data loading (placeholders, choices, instruction) and official-format scoring."""

import json
import subprocess
import sys

import pytest

from niah.benchmarks.milebench.official import (
    context_parts,
    load_milebench,
    metric_rule_name,
    render_choice_suffix,
    score_milebench_official,
    write_milebench_dataset,
)
from niah.sample import Dataset, ImagePart, TextPart
from niah.scoring.score import score_run
from niah.util.errors import DataError
from support.cli import invoke_ok
from support.scores import official_scores
from support.tables import without_intervals


def _make_dataset(root, name, question_type, items, instructions=("Look at the images.",)):
    folder = root / name
    (folder / "images").mkdir(parents=True)
    data = {
        "meta_data": {"dataset": name, "split": "test", "num_sample": len(items),
                      "task_instruction": list(instructions), "question_type": question_type},
        "data": items,
    }
    (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    from PIL import Image

    for item in items:  # real images: importing checks that each one decodes
        for rel in item["task_instance"]["images_path"]:
            if not (folder / "images" / rel).exists() and ".." not in rel:
                (folder / "images" / rel).parent.mkdir(parents=True, exist_ok=True)
                Image.new("RGB", (4, 4)).save(folder / "images" / rel, format="JPEG")
    return folder


def _item(sample_id, context, images, response, level=None, choices=None):
    item = {"sample_id": sample_id, "task_instruction_id": 0,
            "task_instance": {"context": context, "images_path": images}, "response": response}
    if choices is not None:
        item["task_instance"]["choice_list"] = choices
    if level is not None:
        item["image_quantity_level"] = level
    return item


def test_context_parts_placeholders_in_order_and_tables():
    parts, dropped = context_parts("A {image#1} then {table#2} end", ["1.jpg", "2.jpg"])
    assert parts == [TextPart("A "), ImagePart("1.jpg"), TextPart(" then "), ImagePart("2.jpg"), TextPart(" end")]
    assert dropped == []


def test_context_parts_pairs_images_from_the_end_like_the_official_loader():
    # placeholder numbers do not choose the image: the k-th marker gets the k-th image
    parts, _ = context_parts("{image#2} x {image#1}", ["1.jpg", "2.jpg"])
    assert parts == [ImagePart("1.jpg"), TextPart(" x "), ImagePart("2.jpg")]
    # a placeholder beyond the image count stays literal text
    parts, _ = context_parts("see {image#3} and {image#1}", ["1.jpg"])
    assert parts == [TextPart("see {image#3} and "), ImagePart("1.jpg")]
    # more images than markers: one extra image goes first, the rest are dropped (and reported)
    parts, dropped = context_parts("q {image#1}?", ["1.jpg", "2.jpg", "3.jpg", "4.jpg"])
    assert parts == [ImagePart("3.jpg"), TextPart("q "), ImagePart("4.jpg"), TextPart("?")]
    assert dropped == ["1.jpg", "2.jpg"]
    with pytest.raises(DataError):
        context_parts("{image#1}{image#1}", ["1.jpg"])


def test_choice_suffix_with_and_without_letters():
    assert render_choice_suffix(["cat", "dog"], "ALFRED") == "\nChoice list: \nA. cat\nB. dog\nYour answer is: "
    assert render_choice_suffix(["cat", "dog"], "GPR1200") == "\nChoice list: \ncat\ndog\nYour answer is: "


def test_metric_rule_choice():
    assert metric_rule_name("TextNeedleInAHaystack", "open-ended") == "milebench/needle"
    assert metric_rule_name("MMCoQA", "open-ended") == "milebench/substring"
    assert metric_rule_name("WebQA", "open-ended") == "milebench/rouge-l"
    assert metric_rule_name("ALFRED", "multi-choice") == "milebench/multi-choice"


def test_load_and_write_dataset(tmp_path):
    folder = _make_dataset(tmp_path, "ALFRED", "multi-choice", [
        _item(1, "Step {image#1} next {image#2} Which?", ["1.jpg", "2.jpg"], "turn left", "Few",
              ["turn left", "turn right"]),
    ], instructions=("Instr zero.", "Instr one."))
    (sample,) = load_milebench(folder)
    assert sample.id == "ALFRED/1" and sample.benchmark == "milebench" and sample.task == "ALFRED"
    assert sample.context[1] == ImagePart("1.jpg") and sample.question == []
    assert sample.choices == [[TextPart("turn left")], [TextPart("turn right")]]
    assert sample.answer == "turn left"
    assert sample.meta["instruction"] == "Instr zero." and sample.meta["choice_labels"] == "letters"
    assert sample.meta["metric"] == "milebench/multi-choice" and sample.meta["image_quantity_level"] == "Few"
    dataset = write_milebench_dataset(folder, tmp_path / "ds")
    assert dataset.manifest["media_root"] == str((folder / "images").resolve())
    assert [s.id for s in Dataset(tmp_path / "ds")] == ["ALFRED/1"]
    assert dataset.resolve_media("1.jpg") == (folder / "images" / "1.jpg").resolve()


def test_bad_dataset_file_names_the_field(tmp_path):
    folder = _make_dataset(tmp_path, "X", "open-ended", [_item(1, "c", ["../../etc/passwd"], "a")])
    with pytest.raises(DataError) as info:
        list(load_milebench(folder))
    assert info.value.field == "data[0].task_instance.images_path[0]"
    folder = _make_dataset(tmp_path, "Y", "open-ended", [_item(1, "c", [], "a"), _item(1, "d", [], "b")])
    with pytest.raises(DataError) as info:
        list(load_milebench(folder))
    assert info.value.field == "data[1].sample_id"


def _preds(path, pairs):
    path.write_text(json.dumps([{"sample_id": s, "gen_model_id": "m", "pred_response": p} for s, p in pairs]))
    return path


def test_multi_choice_accuracy_and_buckets_from_the_image_count(tmp_path):
    options = ["red", "blue", "green", "black"]
    many = [f"{i}.jpg" for i in range(32)]
    folder = _make_dataset(tmp_path, "TQA", "multi-choice", [
        _item(0, "q {image#1}", ["0.jpg"], "blue", "Few", options),
        _item(1, "q {image#1}", ["1.jpg"], "blue", "Few", options),
        # a stored level that disagrees with the image count is ignored (the current evaluate.py counts images)
        _item(2, "q {image#1}", many, "green", "Few", options),
    ])
    preds = _preds(tmp_path / "pred.json", [(0, "B"), (1, "The answer is B"), (2, "")])
    result = score_milebench_official(folder, preds)
    assert result["result"] == {"Accuracy": 2 / 3,
                                "image_quantity_level-Accuracy": {"Few": 0.5, "Medium": 0.0, "Many": 1.0},
                                "image_quantity_level-Result": {"Few": [1.0, 2], "Medium": [0, 0], "Many": [1.0, 1]}}
    assert result["eval_score"] == [{"id": "0", "score": "1"}, {"id": "1", "score": "0"}, {"id": "2", "score": "1"}]


def test_open_ended_buckets_per_sample(tmp_path):
    six = [f"{i}.jpg" for i in range(6)]
    folder = _make_dataset(tmp_path, "WebQA", "open-ended", [
        _item(0, "q", [], "red car", "Few"),
        _item(1, "q", six, "blue bus", "Medium"),
    ])
    preds = _preds(tmp_path / "pred.json", [(1, "blue bus"), (0, "nothing")])
    result = score_milebench_official(folder, preds)
    assert result["result"]["Rouge-L f"] == pytest.approx(0.5, abs=1e-7)
    assert result["result"]["image_quantity_level-Accuracy"]["Few"] == 0.0
    assert result["result"]["image_quantity_level-Accuracy"]["Medium"] == pytest.approx(1.0, abs=1e-7)


def test_needle_dataset_and_missing_or_foreign_predictions(tmp_path):
    folder = _make_dataset(tmp_path, "TextNeedleInAHaystack", "open-ended", [
        _item(0, "long text", [], "4821"), _item(1, "long text", [], "oak")])
    preds = _preds(tmp_path / "pred.json", [(0, "The password is 4821."), (1, "oaks")])
    assert score_milebench_official(folder, preds)["result"]["Accuracy"] == 0.5
    with pytest.raises(DataError) as info:
        score_milebench_official(folder, _preds(tmp_path / "p2.json", [(0, "4821")]))
    assert "have no prediction" in str(info.value)
    foreign = tmp_path / "p3.json"
    foreign.write_text(json.dumps([{"sample_id": 0, "pred_response": "x", "gt_response": "9999"},
                                   {"sample_id": 1, "pred_response": "x"}]))
    with pytest.raises(DataError):
        score_milebench_official(folder, foreign)


def test_cli_milebench_official(tmp_path):
    folder = _make_dataset(tmp_path, "ImageNeedleInAHaystack", "open-ended", [_item(0, "q", [], "7")])
    preds = _preds(tmp_path / "pred.json", [(0, "7")])
    out = tmp_path / "eval.json"
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "score", "--format", "milebench-official",
                           str(folder), str(preds), "--out", str(out)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["result"]["Accuracy"] == 1.0
    assert '"Accuracy": 1.0' in proc.stdout
    preds = _preds(tmp_path / "pred.json", [(0, "8")])
    # its own earlier scores file is replaced without --overwrite
    invoke_ok(["score", "--format", "milebench-official", str(folder), str(preds), "--out", str(out)])
    assert json.loads(out.read_text())["result"]["Accuracy"] == 0.0


def test_score_run_on_milebench_dataset(tmp_path):
    options = ["red", "blue", "green"]
    folder = _make_dataset(tmp_path, "TQA", "multi-choice", [
        _item(0, "q {image#1}", ["0.jpg"], "blue", "Few", options),
        _item(1, "q {image#1}", ["1.jpg"], "green", "Few", options),
    ])
    write_milebench_dataset(folder, tmp_path / "ds")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"dataset": str(tmp_path / "ds")}))
    (run_dir / "responses.jsonl").write_text(
        json.dumps({"id": "TQA/0", "response": "B", "error": None}) + "\n"
        + json.dumps({"id": "TQA/1", "response": None, "error": "HTTP 500"}) + "\n")
    summary = score_run(run_dir)
    assert summary.scored == 2 and summary.failed == 1
    doc = json.loads((run_dir / "scores.json").read_text())
    assert doc["run_status"] == {"complete": False, "answered": 1, "failed": 1, "skipped": 0,
                                 "missing": 0, "total": 2}
    # one data set: the headline is its accuracy, a plain proportion (1 of 2: Wilson's 9.5-90.5)
    assert (doc["overall"], doc["n"], doc["ci95"], doc["ci_method"]) == (50.0, 2, [9.4531, 90.5469], "wilson")
    assert doc["by_task"] == {"TQA": {"score": 50.0, "n": 2, "ci95": [9.4531, 90.5469]}}
    assert doc["official"] == {"TQA": {"Accuracy": 50.0, "image_quantity_level-Accuracy": {
        "Few": 50.0, "Medium": 0.0, "Many": 0.0},
        "image_quantity_level-Result": {"Few": [1.0, 2], "Medium": [0, 0], "Many": [0, 0]}}}


def test_report_has_per_dataset_image_bucket_tables(tmp_path):
    options = ["red", "blue", "green"]
    seven = [f"{i}.jpg" for i in range(7)]
    many = [f"{i}.jpg" for i in range(33)]
    folder = _make_dataset(tmp_path, "TQA", "multi-choice", [
        _item(0, "q {image#1}", ["0.jpg"], "blue", "Few", options),
        _item(1, "q {image#1}", seven, "green", "Medium", options),
        _item(2, "q {image#1}", many, "red", "Many", options),
        _item(3, "q {image#1}", many, "red", "Many", options),
    ])
    write_milebench_dataset(folder, tmp_path / "ds")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"dataset": str(tmp_path / "ds"), "model": {"spec": "m"}}))
    replies = {0: "B", 1: "A", 2: "A", 3: "C"}
    (run_dir / "responses.jsonl").write_text("".join(
        json.dumps({"id": f"TQA/{i}", "response": r, "error": None}) + "\n" for i, r in replies.items()))
    score_run(run_dir)
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "report", str(run_dir), "--out", str(tmp_path / "rep"),
                           "--media-root", str(folder / "images")], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    table = without_intervals((tmp_path / "rep" / "tables" / "milebench_TQA.md").read_text())
    assert "| Model | Few | Medium | Many | Overall |" in table
    assert "| 100.0 | 0.0 | 50.0 | 50.0 |" in table
    md = (tmp_path / "rep" / "tables.md").read_text()
    assert "By image count (all data sets)" in md and "100.0 (1) | 0.0 (1) | 50.0 (2)" in md


def test_report_overall_is_the_data_sets_score_when_buckets_are_empty(tmp_path):
    # three Few samples, two right: eval.json's Accuracy is 2/3; the Overall column must say 66.7, not 22.2
    options = ["red", "blue", "green"]
    folder = _make_dataset(tmp_path, "TQA", "multi-choice",
                           [_item(i, "q {image#1}", ["0.jpg"], "blue", "Few", options) for i in range(3)])
    write_milebench_dataset(folder, tmp_path / "ds")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"dataset": str(tmp_path / "ds"), "model": {"spec": "m"}}))
    (run_dir / "responses.jsonl").write_text("".join(
        json.dumps({"id": f"TQA/{i}", "response": r, "error": None}) + "\n" for i, r in enumerate("BBA")))
    score_run(run_dir)
    assert official_scores(run_dir / "scores.json")["TQA"]["Accuracy"] == pytest.approx(200 / 3, abs=1e-4)
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "report", str(run_dir), "--out", str(tmp_path / "rep"),
                           "--media-root", str(folder / "images"), "--no-samples"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    table = without_intervals((tmp_path / "rep" / "tables" / "milebench_TQA.md").read_text())
    assert "| 66.7 | - | - | 66.7 |" in table
