"""MM-NIAH official aggregation: bins, depth cells, empty cells, rounding, overall; response-file scoring."""

import json
import subprocess
import sys

import pytest

from niah.benchmarks.mm_niah.official import (
    CONTEXT_RANGES,
    TASKS,
    aggregate_task_scores,
    bin_scores,
    context_bin,
    depth_cell,
    mean_depth,
    parse_response_filename,
    score_response_files,
)
from niah.util.errors import ConfigError, DataError
from support.cli import invoke_ok


def test_context_bins_follow_numpy_digitize():
    assert context_bin(999) == 0  # dropped
    assert context_bin(1000) == 1
    assert context_bin(1999) == 1
    assert context_bin(63999) == 10
    assert context_bin(64000) == 11
    assert context_bin(500000) == 11
    assert CONTEXT_RANGES == ["1k", "2k", "4k", "8k", "12k", "16k", "24k", "32k", "40k", "48k", "64k"]


def test_depth_cells_with_float_quirks():
    assert depth_cell(mean_depth([0.6])) == 2  # 0.6 / 0.2 == 2.9999999999999996
    assert depth_cell(mean_depth([0.2, 0.4])) == 1  # mean 0.30000000000000004 -> 1.5000000000000002
    assert depth_cell(mean_depth(1.0)) == 4  # 1.0 becomes 0.99
    assert depth_cell(mean_depth([0.8])) == 4
    assert depth_cell(mean_depth([0.0])) == 0
    with pytest.raises(DataError):
        mean_depth([1.2])
    with pytest.raises(DataError):
        mean_depth([])


def test_bin_table_hand_computed():
    rows = [
        (1500, [0.1], 1), (1500, [0.1], 0),  # 1k, cell 0: 1/2
        (1500, [0.6], 1),                    # 1k, cell 2 (float quirk): 1/1
        (1500, [0.7], 0),                    # 1k, cell 3: 0/1
        (999, [0.5], 1),                     # under 1000: dropped
        (2500, [0.2, 0.4], 1),               # 2k, mean depth cell 1: 1/1
        (5000, [0.0], 1), (5000, [0.0], 0), (5000, [0.0], 0),  # 4k, cell 0: 1/3
        (64000, [1.0], 1),                   # 64k, depth 0.99 -> cell 4: 1/1
        (100000, [0.0], 0.5),                # 64k, cell 0: 0.5/1 (soft score)
    ]
    expected = [0.0] * 11
    expected[0] = round((0.5 + 0 + 1 + 0 + 0) / 5, 6)  # 0.3 (would be 0.2 if 0.6 went to cell 3)
    expected[1] = 0.2
    expected[2] = round((1 / 3) / 5, 6)  # 0.066667
    expected[10] = round((0.5 + 1) / 5, 6)  # 0.3
    assert bin_scores(rows) == expected
    assert expected[2] == 0.066667


def test_overall_only_with_all_six_tasks():
    scores = {task: [i / 10] * 11 for i, task in enumerate(TASKS)}
    full = aggregate_task_scores(scores)
    assert full["overall"] == [round(sum(i / 10 for i in range(6)) / 6, 6)] * 11
    assert full["context_ranges"] == CONTEXT_RANGES
    del scores["reasoning-image"]
    partial = aggregate_task_scores(scores)
    assert "overall" not in partial
    assert list(partial)[:5] == list(TASKS[:5])


def test_response_filename_parsing():
    name = parse_response_filename("InternVL_2_counting-text-rag-val.jsonl")
    assert (name.model, name.task, name.split, name.task_name) == (
        "InternVL_2", "counting-text", "rag-val", "counting-text-rag-val")
    assert parse_response_filename("m_retrieval-image-test.jsonl").split == "test"
    with pytest.raises(DataError):
        parse_response_filename("m_retrieval-image.jsonl")
    with pytest.raises(DataError):
        parse_response_filename("nounderscore-val.jsonl")


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _response_files(tmp_path, tasks=TASKS):
    files = []
    for task in tasks:
        if task.startswith("counting"):
            rows = [
                {"question_id": 0, "answer": "[1, 2]", "response": "[1, 0]", "context_length": 1500,
                 "placed_depth": [0.1, 0.1]},
                {"question_id": 1, "answer": [3], "response": "```json\n[3]\n```", "context_length": 2500,
                 "placed_depth": [0.5]},
            ]
        elif task.endswith("image"):
            rows = [
                {"question_id": 0, "answer": 2, "response": "C", "context_length": 1500, "placed_depth": [0.1]},
                {"question_id": 1, "answer": 2, "response": "(C)", "context_length": 1500, "placed_depth": [0.1]},
                {"question_id": 2, "answer": 1, "response": None, "context_length": 70000, "placed_depth": 1.0},
            ]
        else:
            rows = [
                {"question_id": 0, "answer": "oak", "response": "an oak tree", "context_length": 1500,
                 "placed_depth": [0.9]},
                {"question_id": 1, "answer": "oak", "response": "None", "context_length": 800, "placed_depth": [0.9]},
            ]
        files.append(_write(tmp_path / f"my_model_{task}-val.jsonl", rows))
    return files


def test_score_response_files_hand_computed(tmp_path):
    result = score_response_files(_response_files(tmp_path))
    zeros = [0.0] * 11
    # counting: 1k cell 0 = 0.5 -> 0.1 ; 2k cell 2 = 1 -> 0.2 (JSON-string answer decoded, fences removed)
    assert result["counting-text-val"] == [0.1, 0.2] + zeros[2:]
    # image MC: 1k cell 0 = (1 + 0) / 2 -> 0.1 ; null response at 64k cell 4 scores 0
    assert result["retrieval-image-val"] == [0.1] + zeros[1:]
    # text: 1k cell 4 = 1 -> 0.2 ; the 800-token sample is dropped
    assert result["retrieval-text-val"] == [0.2] + zeros[1:]
    overall0 = round((0.2 + 0.1 + 0.1 + 0.1 + 0.2 + 0.1) / 6, 6)
    assert result["overall"][0] == overall0
    assert result["overall"][1] == round((0.2 + 0.2) / 6, 6)
    assert list(result)[-2:] == ["overall", "context_ranges"]


def test_score_response_files_rejects_mixed_models_and_bad_lines(tmp_path):
    files = _response_files(tmp_path, tasks=TASKS[:2])
    other = _write(tmp_path / "other_counting-text-val.jsonl", [])
    with pytest.raises(ConfigError):
        score_response_files([*files, other])
    bad = _write(tmp_path / "m_retrieval-text-val.jsonl",
                 [{"answer": "oak", "response": "oak", "context_length": 1500, "placed_depth": [0.1]},
                  {"answer": "oak", "response": "oak", "context_length": "long", "placed_depth": [0.1]}])
    with pytest.raises(DataError) as info:
        score_response_files([bad])
    assert info.value.line == 2 and info.value.field == "context_length"
    assert str(bad) in str(info.value)


def test_cli_mm_niah_official(tmp_path):
    files = _response_files(tmp_path, tasks=TASKS[:3])
    out = tmp_path / "scores.json"
    proc = subprocess.run(
        [sys.executable, "-m", "niah.cli", "score", "--format", "mm-niah-official", *map(str, files),
         "--out", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert set(result) == {"retrieval-text-val", "retrieval-image-val", "counting-text-val", "context_ranges"}
    assert "no overall" in proc.stdout
    # its own earlier scores file is replaced without --overwrite
    invoke_ok(["score", "--format", "mm-niah-official", *map(str, files[:1]), "--out", str(out)])
    assert set(json.loads(out.read_text())) == {"retrieval-text-val", "context_ranges"}
