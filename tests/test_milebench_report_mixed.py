"""A MileBench report of an imported official run beside a generated passkey run: each kind keeps its own axes
(official: image-count buckets; passkey: context lengths x needle depths), so both kinds of tables appear, and a
task both have (TextNeedleInAHaystack) gets two tables in two files instead of one overwriting the other."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from niah.benchmarks.milebench.build import build_milebench_niah
from niah.benchmarks.milebench.official import write_milebench_dataset
from niah.report import load_inputs
from niah.report.build import ReportOptions, build_report
from niah.run import run_dataset_sync
from niah.scoring.score import score_run
from support.tables import without_intervals


def _official_run(root: Path) -> Path:
    """An imported official TQA set (3 samples: Few, Few, Medium) and TextNeedleInAHaystack set (1 Few sample),
    answered by hand: TQA 2 of 3 right (the Medium one wrong), the needle set right."""
    sets = {
        "TQA": ("multi-choice", [(0, 1, "blue", "B"), (1, 1, "blue", "B"), (2, 7, "green", "A")]),
        "TextNeedleInAHaystack": ("open-ended", [(0, 1, "7421", "7421")]),
    }
    replies = []
    for name, (question_type, items) in sets.items():
        folder = root / "official" / name
        (folder / "images").mkdir(parents=True)
        data = []
        for sample_id, num_images, gold, reply in items:
            images = [f"{sample_id}-{i}.jpg" for i in range(num_images)]
            for rel in images:
                Image.new("RGB", (4, 4)).save(folder / "images" / rel, format="JPEG")
            instance: dict[str, object] = {"context": "q {image#1}", "images_path": images}
            if question_type == "multi-choice":
                instance["choice_list"] = ["red", "blue", "green"]
            data.append({"sample_id": sample_id, "task_instruction_id": 0, "task_instance": instance,
                         "response": gold})
            replies.append({"id": f"{name}/{sample_id}", "response": reply, "error": None})
        meta = {"dataset": name, "split": "test", "num_sample": len(items), "task_instruction": ["Look."],
                "question_type": question_type}
        (folder / f"{name}.json").write_text(json.dumps({"meta_data": meta, "data": data}), encoding="utf-8")
        write_milebench_dataset(folder, root / "ds" / name)
    # one dataset folder per set; the run answers both (the report reads the rows, not the dataset)
    run = root / "official-run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(root / "ds" / "TQA"), "model": "imported"}))
    (run / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in replies if r["id"].startswith("TQA")))
    score_run(run)
    needle_run = root / "official-needle-run"
    needle_run.mkdir()
    (needle_run / "run.json").write_text(json.dumps({"dataset": str(root / "ds" / "TextNeedleInAHaystack"),
                                                     "model": "imported-needle"}))
    (needle_run / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in replies if r["id"].startswith("TextNeedle")))
    score_run(needle_run)
    return root


def test_official_and_passkey_runs_each_keep_their_tables(tmp_path: Path) -> None:
    _official_run(tmp_path)
    build_milebench_niah(tmp_path / "passkey", lengths=(2048, 4096), per_length=1, tasks=("TextNeedleInAHaystack",),
                         images_per_sample=2, seed=1, image_tokens=100)
    run_dataset_sync(tmp_path / "passkey", "baseline:oracle", tmp_path / "passkey-run", progress=False)
    score_run(tmp_path / "passkey-run")
    inputs = load_inputs([tmp_path / "official-run", tmp_path / "official-needle-run", tmp_path / "passkey-run"])
    official, official_needle, passkey = inputs
    assert official.spec is official_needle.spec  # the two official runs share one set of tables
    assert official.spec is not None and official.spec.columns.labels == ("Few", "Medium", "Many")
    assert passkey.spec is not None and passkey.spec.columns.labels == ("2048", "4096")
    build_report(inputs, tmp_path / "rep", ReportOptions(sample_browser=False))
    tables = tmp_path / "rep" / "tables"
    tqa = without_intervals((tables / "milebench_TQA.md").read_text())
    assert "| Model | Few | Medium | Many | Overall |" in tqa
    assert "| imported | 100.0 | 0.0 | - | 66.7 |" in tqa  # 2 Few right, the Medium one wrong: 2 of 3 overall
    official_needle_table = without_intervals((tables / "milebench_TextNeedleInAHaystack.md").read_text())
    assert "| Model | Few | Medium | Many | Overall |" in official_needle_table
    assert "| imported-needle | 100.0 | - | - | 100.0 |" in official_needle_table
    assert "passkey" not in official_needle_table and "oracle" not in official_needle_table
    passkey_table = without_intervals((tables / "milebench_TextNeedleInAHaystack_2.md").read_text())
    assert "| Model | 2048 | 4096 | Overall |" in passkey_table
    assert "| baseline:oracle | 100.0 | 100.0 | 100.0 |" in passkey_table
    md = without_intervals((tmp_path / "rep" / "tables.md").read_text())
    assert "| imported | 100.0 | 0.0 | - | 66.7 |" in md and "| baseline:oracle | 100.0 | 100.0 | 100.0 |" in md
