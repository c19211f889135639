"""`niah score --format infinibench-v1-judged`: the v1 scripts' combined judge outputs scored as those scripts
score them (yes / (yes + no); the mean of int(score)), figures worked out by hand, quirks included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from niah.benchmarks.infinibench.v1_outputs import score_v1_file, score_v1_outputs
from niah.util.errors import DataError
from support.cli import invoke_ok

QA = {"q": "Which outfit?", "a": "blue suit", "pred": "the blue suit"}


def _write(folder: Path, name: str, doc: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _mcq(folder: Path, name: str = "global_appearance.json") -> Path:
    return _write(folder, name, {
        "bbt_s1e1_0": [{"decision": "yes"}, QA],
        "bbt_s1e1_1": [{"decision": "yes"}, QA],
        "bbt_s1e2_0": [{"decision": "no"}, QA],
        "bbt_s1e3_0": [{"decision": "Yes"}, QA],    # neither yes nor no: counted nowhere
        "bbt_s1e4_0": ["{'decision': yes}", QA],   # did not parse: "decision not found"
        "bbt_s1e5_0": [{"verdict": "yes"}, QA],     # no decision key: not found
    })


def _open(folder: Path, name: str = "summarization.json") -> Path:
    return _write(folder, name, {
        "m1_0": [{"score": 4}, QA], "m1_1": [{"score": "3"}, QA], "m2_0": [{"score": 4.9}, QA],
        "m3_0": [{"score": True}, QA], "m4_0": [{"score": "4.5"}, QA], "m5_0": [{"score": None}, QA],
        "m6_0": ["not a dict", QA], "m7_0": [{"score": 7}, QA],  # 7: not range-checked
    })


def test_mcq_accuracy_is_yes_over_yes_and_no(tmp_path: Path) -> None:
    row = score_v1_file(_mcq(tmp_path))
    assert row["kind"] == "mcq" and row["skill"] == "global_appearance"
    assert (row["accuracy"], row["yes"], row["no"], row["not_counted"], row["not_found"]) == (2 / 3, 2, 1, 1, 2)


def test_open_ended_score_is_the_mean_of_int_scores(tmp_path: Path) -> None:
    row = score_v1_file(_open(tmp_path))
    # int(4), int('3'), int(4.9) = 4, int(True) = 1, int(7); '4.5', None and the string verdict are left out
    assert row["kind"] == "open"
    assert (row["average_score"], row["scored"], row["not_found"]) == ((4 + 3 + 4 + 1 + 7) / 5, 5, 3)


def test_the_overall_figures_are_unweighted_means_over_files(tmp_path: Path) -> None:
    _mcq(tmp_path)
    _write(tmp_path, "movienet_scene_transitions.json", {"a": [{"decision": "no"}, QA], "b": [{"decision": "yes"}, QA]})
    _open(tmp_path)
    result = score_v1_outputs([tmp_path])
    assert result["overall"]["mcq_accuracy"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert result["overall"]["open_ended_score"] == pytest.approx(19 / 5)
    assert [r["skill"] for r in result["files"]] == ["global_appearance", "scene_transitions", "summarization"]


def test_a_file_with_no_counted_verdict_has_no_figure(tmp_path: Path) -> None:
    path = _write(tmp_path, "character_actions.json", {"a": [{"decision": "maybe"}, QA]})
    result = score_v1_outputs([path])
    assert result["files"][0]["accuracy"] is None and result["overall"] == {}


@pytest.mark.parametrize(("doc", "field", "message"), [
    ([1, 2], None, "JSON object"),
    ({"k1": [{"decision": "yes"}]}, "k1", "[verdict, {q, a, pred}]"),
    ({"k1": [{"decision": "yes"}, QA], "k2": [{"score": 3}, QA]}, "k2", "both MCQ decisions and open-ended"),
])
def test_hostile_outputs_are_refused_naming_file_and_key(tmp_path: Path, doc: Any, field: str | None,
                                                         message: str) -> None:
    path = _write(tmp_path, "x.json", doc)
    with pytest.raises(DataError) as err:
        score_v1_outputs([path])
    assert err.value.file == str(path) and err.value.field == field and message in err.value.message


def test_the_cli_prints_each_figure_and_what_was_left_out(tmp_path: Path) -> None:
    out = tmp_path / "scores.json"
    printed = invoke_ok(["score", "--format", "infinibench-v1-judged", str(_mcq(tmp_path / "o")), str(_open(tmp_path / "o")),
                         "--out", str(out)])
    assert "2 of 6 verdict(s) left out" not in printed and "3 of 6 verdict(s) left out" in printed
    summary = json.loads(next(line for line in printed.splitlines() if line.startswith("{")))
    assert summary["files"] == {"global_appearance.json": pytest.approx(2 / 3), "summarization.json": 3.8}
    assert json.loads(out.read_text(encoding="utf-8"))["protocol"] == "v1"
    invoke_ok(["score", "--format", "infinibench-v1-judged", str(_mcq(tmp_path / "o")), "--out", str(out)])
    assert len(json.loads(out.read_text(encoding="utf-8"))["files"]) == 1  # its own earlier file is replaced
