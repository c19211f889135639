"""The rule registry and `niah metric`."""

import json
import subprocess
import sys

import pytest

from niah.commands.metric import score_file
from niah.scoring.metrics.registry import RULES, get_rule
from niah.util.errors import ConfigError

EXPECTED_RULES = {
    "mm-niah", "mm-niah/lenient", "mmlongbench/sub_em", "mmlongbench/mc_acc", "mmlongbench/soft_acc",
    "mmlongbench/cls_acc", "mmlongbench/binary_acc", "mmlongbench/doc_qa", "milebench/needle", "milebench/multi-choice",
    "milebench/rouge-l", "milebench/substring",
    "infinibench/mcq-match", "video-niah/contains", "video-niah/count", "video-niah/option", "seq-niah/judge",
}


def test_registry_lists_every_rule_with_description_and_fields():
    assert set(RULES) == EXPECTED_RULES
    for name, rule in RULES.items():
        assert rule.name == name and rule.description and "\n" not in rule.description
        # every rule reads the response and the gold (infinibench/mcq-match: the gold is optional)
        assert "response" in rule.fields and "answer" in rule.fields + rule.optional_fields
    assert get_rule("milebench/multi-choice").fields == ("answer", "response", "choices")
    with pytest.raises(ConfigError):
        get_rule("nope")


def test_rule_row_needs_its_fields():
    with pytest.raises(ValueError) as info:
        get_rule("milebench/multi-choice").score({"answer": "x", "response": "x"})
    assert getattr(info.value, "field", None) == "choices"


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_score_file_adds_score_and_keeps_fields(tmp_path):
    src = _write(tmp_path / "in.jsonl", [
        {"id": "a", "answer": 2, "response": "C"},
        {"id": "b", "answer": 2, "response": "(C)"},
        {"id": "c", "answer": [1, 2], "response": "[1, 2]", "extra": {"k": 1}},
    ])
    result = score_file("mm-niah", src, tmp_path / "out.jsonl")
    rows = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert (result.rows, result.scored, result.refused) == (3, 3, ())
    assert result.mean == pytest.approx(2 / 3)
    assert [r["score"] for r in rows] == [1.0, 0.0, 1.0]
    assert rows[2]["extra"] == {"k": 1}
    score_file("mm-niah/lenient", src, tmp_path / "lenient.jsonl")
    assert [json.loads(x)["score"] for x in (tmp_path / "lenient.jsonl").read_text().splitlines()] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("bad_line", "field"),
    [
        ({"answer": "oak"}, "response"),
        ({"answer": 1.5, "response": "x"}, "answer"),  # the official vqa.evaluate calls 1.5.replace(): a crash
        ({"answer": [], "response": "[]"}, "answer"),  # the official counting score divides by len([])
        ({"answer": "oak", "response": 7}, "response"),
        # str.isdigit() holds but int() raises in the official multiple-choice branch
        ({"answer": 2, "response": "\u00b2"}, "response"),
        ({"answer": 0, "response": "\u2460."}, "response"),
    ],
)
def test_score_file_refuses_only_the_bad_line_naming_file_line_field(tmp_path, bad_line, field):
    src = _write(tmp_path / "in.jsonl", [{"answer": "oak", "response": "oak"}, bad_line,
                                         {"answer": "pine", "response": "oak"}])
    out = tmp_path / "out.jsonl"
    result = score_file("mm-niah", src, out)
    assert [(e.file, e.line, e.field) for e in result.refused] == [(str(src), 2, field)]
    assert (result.rows, result.scored, result.mean) == (3, 2, 0.5)
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["score"] for r in rows] == [1.0, None, 0.0]
    assert rows[1]["refused"].startswith(f"{field}: ")


def test_cli_metric_cls_acc_scores_a_string_gold_zero_like_the_official_code(tmp_path):
    # official: int(extract_class_num(pred) == answers); "3" != 3 in Python, so the line scores 0, not an error
    src = _write(tmp_path / "in.jsonl", [{"answer": 3, "response": "label: 3"}, {"answer": "3", "response": "3"},
                                         {"answer": 3.0, "response": "3"}, {"answer": True, "response": "1"}])
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "mmlongbench/cls_acc", "--input", str(src),
                           "--out", str(tmp_path / "o.jsonl")], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["score"] for x in (tmp_path / "o.jsonl").read_text().splitlines()] == [1.0, 0.0, 1.0, 1.0]


def test_cli_metric_refused_line_is_reported_with_file_line_and_exit_1(tmp_path):
    src = _write(tmp_path / "in.jsonl", [{"answer": [1, 2], "response": "[3]"}, {"answer": ["1"], "response": "1"}])
    out = tmp_path / "o.jsonl"
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "mmlongbench/soft_acc", "--input", str(src),
                           "--out", str(out)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert f"{src}:2, field 'answer'" in proc.stderr
    assert "scored 1 of 2 rows, mean score 1.000000" in proc.stdout
    assert [json.loads(x)["score"] for x in out.read_text().splitlines()] == [1.0, None]


def test_cli_metric_list_and_errors(tmp_path):
    listing = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "--list"],
                             capture_output=True, text=True, check=True).stdout
    assert all(name in listing for name in EXPECTED_RULES)
    src = _write(tmp_path / "in.jsonl", [{"answer": "oak", "response": "oak"}, "{not json"])
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "mm-niah", "--input", str(src),
                           "--out", str(tmp_path / "o.jsonl")], capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and f"{src}:2" in proc.stderr
    src = _write(tmp_path / "ok.jsonl", [{"answer": "yes", "response": "hmm"}] * 4)
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "mmlongbench/binary_acc", "--input",
                           str(src), "--out", str(tmp_path / "o.jsonl")], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["score"] for x in (tmp_path / "o.jsonl").read_text().splitlines()] == [0.0, 1.0, 1.0, 0.0]


def test_scorer_lookup_goes_through_the_family_registry():
    from niah.benchmarks.protocol import Family, SampleScore, Scorer
    from niah.benchmarks.registry import register_family, unregister_family
    from niah.scoring.score import get_scorer

    assert get_scorer("mm-niah").modes == ("official", "lenient")
    with pytest.raises(ConfigError):
        get_scorer("no-such-bench")
    assert get_scorer("mmlongbench").row_fields is not None
    scorer = Scorer(lambda sample, response: SampleScore({"official": 1.0}), lambda rows, name: {"n": len(rows)})
    register_family(Family("plug-bench", "Plug", ("t",), scorer=lambda: scorer))
    try:
        assert get_scorer("plug-bench") is scorer
    finally:
        unregister_family("plug-bench")
    with pytest.raises(ConfigError):
        get_scorer("plug-bench")
