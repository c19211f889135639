"""The rule registry and `niah metric`."""

import json
import subprocess
import sys

import pytest

from niah.commands.metric import score_file
from niah.errors import ConfigError, DataError
from niah.metrics.registry import RULES, get_rule

EXPECTED_RULES = {
    "mm-niah", "mm-niah/lenient", "mmlongbench/sub_em", "mmlongbench/mc_acc", "mmlongbench/soft_acc",
    "mmlongbench/cls_acc", "mmlongbench/binary_acc", "milebench/needle", "milebench/multi-choice",
    "milebench/rouge-l", "milebench/substring",
    "infinibench/mcq-match", "video-niah/contains", "video-niah/count", "video-niah/option",
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
    count, mean = score_file("mm-niah", src, tmp_path / "out.jsonl")
    rows = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert count == 3 and mean == pytest.approx(2 / 3)
    assert [r["score"] for r in rows] == [1.0, 0.0, 1.0]
    assert rows[2]["extra"] == {"k": 1}
    score_file("mm-niah/lenient", src, tmp_path / "lenient.jsonl")
    assert [json.loads(x)["score"] for x in (tmp_path / "lenient.jsonl").read_text().splitlines()] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("bad_line", "field"),
    [
        ({"answer": "oak"}, "response"),
        ({"answer": 1.5, "response": "x"}, "answer"),
        ({"answer": "oak", "response": 7}, "response"),
    ],
)
def test_score_file_bad_line_is_an_error_naming_file_line_field(tmp_path, bad_line, field):
    src = _write(tmp_path / "in.jsonl", [{"answer": "oak", "response": "oak"}, bad_line])
    out = tmp_path / "out.jsonl"
    with pytest.raises(DataError) as info:
        score_file("mm-niah", src, out)
    assert (info.value.file, info.value.line, info.value.field) == (str(src), 2, field)
    assert not out.exists()


def test_cli_metric_list_and_errors(tmp_path):
    listing = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "--list"],
                             capture_output=True, text=True, check=True).stdout
    assert all(name in listing for name in EXPECTED_RULES)
    src = _write(tmp_path / "in.jsonl", [{"answer": "oak", "response": "oak"}, "{not json"])
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "mm-niah", "--input", str(src),
                           "--output", str(tmp_path / "o.jsonl")], capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and f"{src}:2" in proc.stderr
    src = _write(tmp_path / "ok.jsonl", [{"answer": "yes", "response": "hmm"}] * 4)
    proc = subprocess.run([sys.executable, "-m", "niah.cli", "metric", "mmlongbench/binary_acc", "--input",
                           str(src), "--output", str(tmp_path / "o.jsonl")], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["score"] for x in (tmp_path / "o.jsonl").read_text().splitlines()] == [0.0, 1.0, 1.0, 0.0]


def test_scorer_lookup_goes_through_the_family_registry():
    from niah.benchmarks.protocol import Family, SampleScore, Scorer
    from niah.benchmarks.registry import register_family, unregister_family
    from niah.scoring import get_scorer

    assert get_scorer("mm-niah").modes == ("official", "lenient")
    with pytest.raises(ConfigError):
        get_scorer("no-such-bench")
    with pytest.raises(ConfigError):
        get_scorer("mmlongbench")  # a family with metric rules only has no run scorer
    scorer = Scorer(lambda sample, response: SampleScore({"official": 1.0}), lambda rows, name: {"n": len(rows)})
    register_family(Family("plug-bench", "Plug", ("t",), scorer=lambda: scorer))
    try:
        assert get_scorer("plug-bench") is scorer
    finally:
        unregister_family("plug-bench")
    with pytest.raises(ConfigError):
        get_scorer("plug-bench")
