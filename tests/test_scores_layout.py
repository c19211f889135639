"""The shared scores.json layout: headline keys in percent, intervals, the official structure, old files read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from niah.benchmarks.protocol import OFFICIAL, SCORES_SCHEMA, official_structure
from niah.report import load_input
from niah.run import run_dataset_sync
from niah.scoring.score import combined_block, get_scorer, score_run
from niah.scoring.stats import wilson_interval
from support.cli import invoke_ok
from support.datasets import write_mm_niah_like

SHARED_KEYS = {"schema", "benchmark", "mode", "scale", "metric", "overall", "ci95", "ci_method", "covered", "n",
               "full_grid", "covered_ci95", "covered_ci_method", "by_task", "official", "run_status"}


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    dataset = write_mm_niah_like(root / "ds", per_task=2, filler_repeats=20)  # ~2k tokens: a partial grid
    run_dataset_sync(dataset, "baseline:oracle", root / "oracle", progress=False)
    score_run(root / "oracle")
    return root / "oracle"


def _doc(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_mm_niah_headline_keeps_the_official_zeros_and_covered_does_not(oracle_run: Path) -> None:
    doc = _doc(oracle_run / "scores.json")
    assert set(doc) == SHARED_KEYS and doc["schema"] == SCORES_SCHEMA and doc["scale"] == "percent"
    official = doc["official"]
    filled = [v for v in official["overall"] if v > 0]
    # a perfect model on a small grid (two samples a task, in few context bins and depth cells): officially an
    # empty bin and an empty depth cell count 0 (a task's bin with 2 of 5 cells answered reads 40); the
    # headline is the mean of the 11 bins; covered, over the cells the run holds, is 100
    assert 0 < len(filled) < 11 and max(filled) < 100.0
    assert doc["overall"] == pytest.approx(sum(official["overall"]) / 11, abs=1e-4) and doc["overall"] < 20.0
    assert doc["covered"] == 100.0 and doc["n"] == 12
    # each official task is its 11 bins' mean: 2 of its 5 depth cells answered, in one bin -> 40 / 11
    assert {task: entry["score"] for task, entry in doc["by_task"].items()} == dict.fromkeys(
        ["retrieval-text", "counting-text", "reasoning-text", "retrieval-image", "counting-image",
         "reasoning-image"], pytest.approx(40 / 11, abs=1e-4))
    # not a plain proportion (a mean over bins): the bootstrap of the official rule, outcomes redrawn within a
    # task's context bin onto its own depth cells, so no resample empties a cell. A perfect model's outcomes
    # are all alike (every resample the same figure): its interval is the official rule applied to the Wilson
    # interval of 12 of 12 correct, put in for every sample (the figure scaled by its lower end), not zero width
    low_share = wilson_interval(1.0, 12)[0]
    assert doc["ci_method"] == "wilson"
    assert doc["ci95"] == pytest.approx([doc["overall"] * low_share, doc["overall"]], abs=0.01)
    assert {t: e["ci95"] for t, e in doc["by_task"].items()} == dict.fromkeys(
        doc["by_task"], pytest.approx([40 / 11 * wilson_interval(1.0, 2)[0], 40 / 11], abs=0.01))
    lenient = _doc(oracle_run / "scores.lenient.json")
    assert lenient["mode"] == "lenient" and set(lenient) == SHARED_KEYS


def test_a_guessing_model_gets_an_interval_around_its_figure(oracle_run: Path) -> None:
    random_run = oracle_run.parent / "random"
    run_dataset_sync(oracle_run.parent / "ds", "baseline:random", random_run, progress=False)
    score_run(random_run)
    doc = _doc(random_run / "scores.json")
    low, high = doc["ci95"]
    assert doc["ci_method"] == "bootstrap" and low < high and low <= doc["overall"] <= high
    assert doc["covered"] >= doc["overall"]  # empty cells count 0 in the official figure only
    # graded scores elsewhere in the run (counting) do not make a task whose samples all scored 0 certain: its
    # interval is Wilson's for 0 of n put through the official rule (2 of a bin's 5 depth cells filled, one bin
    # of 11), as the report's tables print it
    zero = {t: e for t, e in doc["by_task"].items() if e["score"] == 0.0}
    assert zero and "counting-text" in doc["by_task"]
    for entry in zero.values():
        high = 100 * wilson_interval(0.0, entry["n"])[1] * 2 / 5 / 11
        assert entry["n"] == 2 and entry["ci95"] == pytest.approx([0.0, high], abs=0.01)


def test_scoring_again_gives_the_same_bytes(oracle_run: Path) -> None:
    before = (oracle_run / "scores.json").read_bytes()
    score_run(oracle_run)
    assert (oracle_run / "scores.json").read_bytes() == before  # the bootstrap is seeded


def test_niah_score_prints_the_headline(oracle_run: Path) -> None:
    doc = _doc(oracle_run / "scores.json")
    out = invoke_ok(["score", str(oracle_run)])
    # a partial grid: the headline is the figure over the part the run holds; the official overall, which
    # counts the empty bins 0, stands labelled beside it (per task too)
    # each with its interval, the one scores.json holds beside it (Wilson's 2 of 2, and 12 of 12, at 100)
    assert not doc["full_grid"] and doc["covered_ci95"] == [75.7506, 100.0] and doc["covered_ci_method"] == "wilson"
    assert (f"mm-niah: accuracy over the part of the grid the run holds 100.0% (95% CI 75.8-100.0, wilson), n=12; "
            f"official overall {doc['overall']:.1f}% counts the parts of the grid the run lacks as 0") in out
    assert doc["by_task"]["retrieval-text"]["covered_ci95"] == [34.238, 100.0]
    assert (f"  retrieval-text: 100.0% (95% CI 34.2-100.0) over its part of the grid, n=2; official "
            f"{doc['overall']:.1f}% counts the parts it lacks as 0") in out


def test_a_file_of_the_older_layout_reports_as_the_current_one(oracle_run: Path, tmp_path: Path) -> None:
    rows = [(json.loads(line), {}) for line in (oracle_run / "scored.jsonl").read_text().splitlines()]
    old = get_scorer("mm-niah").aggregate(rows, OFFICIAL)  # the official structure at the top, on 0-1
    old_file = tmp_path / "old" / "scores.json"
    old_file.parent.mkdir()
    old_file.write_text(json.dumps({**old, "run_status": _doc(oracle_run / "scores.json")["run_status"]}))
    structure, in_percent = official_structure(_doc(old_file))
    assert not in_percent and structure["overall"] == old["overall"]
    current, older = load_input(oracle_run / "scores.json"), load_input(old_file)
    assert older.overall == pytest.approx(current.overall)
    assert older.task_scores.keys() == current.task_scores.keys()
    for task, scores in current.task_scores.items():
        assert older.task_scores[task] == pytest.approx(scores)


def _block(benchmark: str, overall: float | None, covered: float | None, n: int) -> dict:
    return {"schema": SCORES_SCHEMA, "benchmark": benchmark, "mode": OFFICIAL, "scale": "percent", "metric": "m",
            "overall": overall, "ci95": None, "ci_method": None, "covered": covered, "n": n,
            "by_task": {"t": {"score": overall, "n": n, "ci95": None}}, "official": {}}


def test_several_benchmarks_average_their_headlines() -> None:
    both = combined_block({"a": _block("a", 50.0, 50.0, 4), "b": _block("b", 100.0, 80.0, 6)}, OFFICIAL)
    assert (both["overall"], both["covered"], both["n"]) == (75.0, 65.0, 10)
    assert set(both["by_task"]) == {"a/t", "b/t"} and set(both["benchmarks"]) == {"a", "b"}
    assert both["ci95"] is None  # no interval for a mean of different families' figures
    # one undefined headline leaves the mean undefined (never a mean of what happens to be there)
    partial = combined_block({"a": _block("a", None, 40.0, 4), "b": _block("b", 100.0, 80.0, 6)}, OFFICIAL)
    assert partial["overall"] is None and partial["covered"] == 60.0


def test_mm_niah_cell_memo_never_passes_a_bad_field() -> None:
    from niah.benchmarks.mm_niah.score import aggregate
    from niah.util.errors import DataError

    def row(length: object, depth: object) -> tuple[dict, dict]:
        return {"id": "x", "task": "retrieval-text", "context_length": length, "depth": depth,
                "scores": {OFFICIAL: 1.0}}, {}

    good = aggregate([row(1500, [0.5])], OFFICIAL)
    assert good["retrieval-text"][0] == 0.2  # one of five depth cells of the 1k bin answered
    for bad in (row(True, [0.5]), row(1500, [[0.5]]), row(float("nan"), 0.5), row(None, 0.5), row(1500, [2.0])):
        with pytest.raises(DataError):
            aggregate([bad], OFFICIAL)  # the same refusal after a memoised good row (True == 1 in a dict)


def test_strata_each_alike_but_unlike_each_other_get_an_interval_not_a_zero_width() -> None:
    """MM-NIAH, one 1K bin, five samples per task (one per depth cell): the text tasks all right, the image tasks
    all wrong. The bootstrap redraws within each task's bin, where every outcome is the same (it printed
    4.5455 [4.5455-4.5455]). Each task's score gets its Agresti-Coull variance (5 of 5 and 0 of 5 alike:
    0.78277 x 0.21723 / 8.8415 = 0.019232); the official overall is the mean over 11 bins of the mean over six
    tasks (slope 1 / 66 on each), so its sd is sqrt(6 x 0.019232) / 66 = 0.0051469 and 4.5455 +- 1.96 x 0.51469
    = 3.5367 to 5.5543. A task alone has one common score: Wilson's for 5 of 5 through the official rule."""
    from niah.benchmarks.mm_niah.official import TASKS
    from niah.scoring.score import benchmark_block

    rows = [({"id": f"{task}-{cell}", "task": task, "context_length": 1500, "depth": 0.1 + 0.2 * cell,
              "scores": {OFFICIAL: 1.0 if task.endswith("-text") else 0.0}}, {})
            for task in TASKS for cell in range(5)]
    block = benchmark_block(get_scorer("mm-niah"), "mm-niah", rows, OFFICIAL)
    assert block["overall"] == pytest.approx(50 / 11, abs=1e-4) and block["covered"] == 50.0
    assert block["ci95"] == pytest.approx([3.5367, 5.5543], abs=2e-3) and block["ci_method"] == "normal"
    # one task: one common score, Wilson's for 5 of 5 through the official rule, as before
    assert block["by_task"]["retrieval-text"]["ci95"] == pytest.approx(
        [100 / 11 * wilson_interval(1.0, 5)[0], 100 / 11], abs=1e-3)


def test_every_score_file_gets_the_mode_of_the_other_outputs(oracle_run: Path) -> None:
    """scored.jsonl is streamed through its own temporary file; it must not stay private (0600) while scores.json
    and every other output are shared (0644, less the umask)."""
    modes = {p.name: p.stat().st_mode & 0o777 for p in oracle_run.iterdir()
             if p.name in ("scored.jsonl", "scores.json", "responses.jsonl")}
    assert len(modes) == 3 and len(set(modes.values())) == 1, modes
