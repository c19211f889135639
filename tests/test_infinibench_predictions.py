"""`niah score --format infinibench-v2-predictions`: an official v2 prediction folder scored as the official
evaluation script scores it (figures worked out by hand below), with niah's matched MCQ accuracy beside it,
and hostile files refused with the file and field named before anything is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from niah.benchmarks.infinibench.predictions import score_prediction_folder
from niah.cli import app
from niah.util.errors import DataError
from support.cli import invoke_ok

OPTIONS = ["Leonard", "Sheldon", "Penny", "I don't know"]


def _write(folder: Path, name: str, records: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(records, indent=4), encoding="utf-8")
    return path


def _folder(root: Path) -> Path:
    preds = root / "preds"
    _write(preds, "character_actions.json", [
        {"question": "q1", "options": OPTIONS, "answer_idx": 1, "pred": "1"},           # right: "1" == "1"
        {"question": "q2", "options": str(OPTIONS), "answer_idx": "2", "pred": 2},      # right: "2" == "2"
        {"question": "q3", "options": OPTIONS, "answer_idx": " 1", "pred": 1},          # wrong: "1" != " 1"
        {"question": "q4", "options": OPTIONS, "answer_idx": 0, "pred": "A) Leonard"},  # wrong officially
        {"question": "q5", "options": OPTIONS, "answer_idx": 0, "pred": "either A or B"},
        {"question": "q6", "options": OPTIONS, "answer_idx": 0},                         # missing: no pred
    ])
    _write(preds, "scene_transitions.json", [
        {"question": "s1", "options": OPTIONS, "answer_idx": 2, "pred": "2"},
        {"question": "s2", "options": OPTIONS, "answer_idx": 2, "pred": 2.0},  # "2.0" != "2"; matched: no number
    ])
    _write(preds, "summarization.json", [
        {"question": "a", "answer": "x", "pred": "y", "gpt_score": 7},
        {"question": "b", "answer": "x", "pred": "y", "gpt_score": 4},
        {"question": "c", "answer": "x", "pred": "y"},  # not judged yet: missing
    ])
    _write(preds, "spoiler_questions.json", [{"question": "d", "answer": "x", "pred": "y"}])
    _write(preds, "chronological_understanding.json", [  # not the official spelling: skipped
        {"question": "t", "options": ["Yes", "No"], "answer_idx": 0, "pred": "0"}])
    _write(preds, "global_appearance.json", [])  # empty: skipped
    (preds / "notes.txt").write_text("not json", encoding="utf-8")
    return preds


def test_a_v2_folder_gives_the_official_figures(tmp_path: Path) -> None:
    result = score_prediction_folder([_folder(tmp_path)])
    actions = result["mcq"]["character_actions"]
    assert actions["accuracy"] == pytest.approx(2 / 6)  # q6 missing still counts in the denominator
    assert (actions["total_items"], actions["missing_predictions"]) == (6, 1)
    # matched: q1, q2, q3 (" 1" is option 1) and q4 ("A) Leonard") right; q5 a hedge, undecided
    assert actions["matched"] == {"accuracy": pytest.approx(4 / 6), "undecided": 1, "without_options": 0}
    assert result["mcq"]["scene_transitions"]["accuracy"] == pytest.approx(1 / 2)
    # the overall MCQ accuracy is the mean of the skills' accuracies (pooled it would be 3/8)
    assert result["overall"]["mcq_accuracy"] == pytest.approx((2 / 6 + 1 / 2) / 2)
    summ = result["open_ended"]["summarization"]
    assert (summ["average_score"], summ["min_score"], summ["max_score"]) == (5.5, 4, 7)
    assert (summ["valid_scores"], summ["missing_scores"]) == (2, 1)
    # a skill with no stored score averages 0.0, and the official overall counts it
    assert result["open_ended"]["spoiler_questions"]["average_score"] == 0.0
    assert result["overall"]["open_ended_score"] == pytest.approx((5.5 + 0.0) / 2)
    assert result["unjudged_open_ended_items"] == 2
    skipped = {Path(s["file"]).name: s["why"] for s in result["skipped"]}
    assert set(skipped) == {"chronological_understanding.json", "global_appearance.json"}
    assert "choronological_understanding.json" in skipped["chronological_understanding.json"]
    assert "chronological_understanding" not in result["mcq"]


def test_the_skill_is_the_name_up_to_its_first_dot_and_files_may_be_given_one_by_one(tmp_path: Path) -> None:
    path = _write(tmp_path, "summarization.v2.json", [{"question": "a", "answer": "x", "pred": "y", "gpt_score": 9}])
    yes_no = _write(tmp_path, "choronological_understanding.json", [
        {"question": "t", "options": ["Yes", "No"], "answer_idx": 1, "pred": "No, it happens after."}])
    result = score_prediction_folder([path, yes_no])
    assert result["open_ended"]["summarization"]["average_score"] == 9
    mcq = result["mcq"]["choronological_understanding"]
    assert (mcq["accuracy"], mcq["matched"]["accuracy"]) == (0.0, 1.0)


def test_v1_options_str_feeds_the_matcher(tmp_path: Path) -> None:
    options_str = "option 0 : Leonard \n option 1 : Sheldon \n option 2 : Penny \n option 3 : I don't know"
    path = _write(tmp_path, "character_actions.json", [
        {"Q": "q", "A": "Penny", "options_str": options_str, "answer_idx": "2", "pred": "It was Penny."},
        {"Q": "q", "A": "Penny", "answer_idx": "2", "pred": "Penny"}])
    mcq = score_prediction_folder([path])["mcq"]["character_actions"]
    assert mcq["accuracy"] == 0.0
    assert mcq["matched"] == {"accuracy": 0.5, "undecided": 0, "without_options": 1}


def test_only_stored_judge_scores_count_and_none_gives_no_overall(tmp_path: Path) -> None:
    path = _write(tmp_path, "linking_multiple_events.json", [{"question": "a", "answer": "x", "pred": "y"}])
    result = score_prediction_folder([path])
    assert "open_ended_score" not in result["overall"]  # the official summary prints none without a score
    assert result["open_ended"]["linking_multiple_events"]["missing_scores"] == 1


@pytest.mark.parametrize(("name", "records", "field", "message"), [
    ("summarization.json", {"a": 1}, None, "JSON list"),
    ("character_actions.json", [{"pred": "1", "answer_idx": 1}, "pred"], "[1]", "JSON object"),
    ("summarization.json", [{"question": "a", "answer": "b", "pred": "c", "gpt_score": "7"}], "[0].gpt_score",
     "must be a number"),
    ("character_actions.json", [{"pred": "1", "answer_idx": 1, "options": "Leonard"}], "[0].options", "options"),
])
def test_hostile_files_are_refused_naming_file_and_field(tmp_path: Path, name: str, records: Any,
                                                         field: str | None, message: str) -> None:
    path = _write(tmp_path / "preds", name, records)
    with pytest.raises(DataError) as err:
        score_prediction_folder([path.parent])
    assert err.value.file == str(path) and err.value.field == field and message in err.value.message


def test_two_files_naming_one_skill_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    preds = _folder(tmp_path)
    _write(preds, "summarization.old.json", [{"question": "a", "answer": "x", "pred": "y", "gpt_score": 1}])
    out = tmp_path / "scores.json"
    res = CliRunner().invoke(app, ["score", "--format", "infinibench-v2-predictions", str(preds), "--out", str(out)])
    assert res.exit_code != 0 and "summarization" in res.output and "one file per skill" in res.output
    assert not out.exists()


def test_the_cli_prints_the_figures_and_writes_the_file(tmp_path: Path) -> None:
    out = tmp_path / "scores.json"
    printed = invoke_ok(["score", "--format", "infinibench-v2-predictions", str(_folder(tmp_path)), "--out", str(out)])
    assert "skipped" in printed and "carry no gpt_score" in printed
    summary = json.loads(next(line for line in printed.splitlines() if line.startswith("{")))
    assert summary["mcq"] == {"character_actions": 0.3333, "scene_transitions": 0.5}
    assert json.loads(out.read_text(encoding="utf-8")) == score_prediction_folder([tmp_path / "preds"])
    # its own earlier scores file is not refused (replaced without --overwrite)
    invoke_ok(["score", "--format", "infinibench-v2-predictions", str(tmp_path / "preds"), "--out", str(out)])
