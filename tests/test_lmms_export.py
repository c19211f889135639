"""`niah export lmms-eval`: a task folder whose YAML, docs and utils.py give the family's rendered prompts and
score replies exactly as `niah score` does; loaded and scored by lmms-eval's own task registry and aggregation
code where lmms-eval is importable."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from niah.cli import app
from niah.interop.lmms_task import OFFICIAL_METRIC, STRUCTURE_METRIC, export_lmms_eval
from niah.models.baselines import format_gold
from niah.prompts.render import render_prompt
from niah.prompts.types import PromptOptions
from niah.run import RESPONSES_JSONL, run_dataset_sync
from niah.sample import Dataset, ImagePart, TextPart
from niah.scoring.score import NEEDLE_SHOWN_KEY, RUN_STATUS_KEY, score_run
from niah.util.errors import ConfigError
from support.datasets import write_mm_niah_like

BASELINES = ("baseline:oracle", "baseline:random")


class _TaskLoader(yaml.SafeLoader):
    """lmms-eval task YAML: ``!function utils.NAME`` kept as the function's dotted name."""


_TaskLoader.add_constructor("!function", lambda loader, node: ("!function", loader.construct_scalar(node)))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A dataset with two decoding settings (counting tasks answer in 32 tokens, the others in 16), its export,
    and two scored niah runs of baselines on it."""
    root = tmp_path_factory.mktemp("lmms")
    dataset = write_mm_niah_like(root / "ds", per_task=2, filler_repeats=20)  # ~2k tokens: scored bins
    out = root / "task"
    summary = export_lmms_eval(dataset, out, name="niah_toy")
    runs: dict[str, Path] = {}
    for model in BASELINES:
        run = root / model.replace(":", "_")
        run_dataset_sync(dataset, model, run, progress=False)
        score_run(run)
        runs[model] = run
    return {"dataset": dataset, "out": out, "summary": summary, "runs": runs}


def _replies(run: Path) -> dict[str, str | None]:
    return {r["id"]: r["response"] for r in map(json.loads, (run / RESPONSES_JSONL).read_text().splitlines())}


def _niah_scores(run: Path) -> tuple[dict[str, float], dict[str, Any]]:
    """Per-sample official scores (scored.jsonl) and the official structure (scores.json less run bookkeeping)."""
    per_sample = {r["id"]: r["score"] for r in map(json.loads, (run / "scored.jsonl").read_text().splitlines())}
    structure = json.loads((run / "scores.json").read_text())
    for key in (RUN_STATUS_KEY, NEEDLE_SHOWN_KEY):  # not an aggregation of replies; lmms-eval sends its own prompts
        structure.pop(key, None)
    return per_sample, structure


def _load_utils(out: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("niah_lmms_utils", out / "utils.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _docs(out: Path, task: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "docs" / f"{task}.jsonl").read_text().splitlines()]


def test_the_folder_holds_one_task_per_decoding_setting_and_a_group(exported: dict[str, Any]) -> None:
    out, summary = exported["out"], exported["summary"]
    assert summary.tasks == ["niah_toy_1", "niah_toy_2"] and summary.group == "niah_toy" and summary.samples == 12
    group = yaml.load((out / "niah_toy.yaml").read_text(), Loader=_TaskLoader)
    assert group["group"] == "niah_toy" and group["task"] == summary.tasks
    assert group["aggregate_metric_list"] == [{"metric": OFFICIAL_METRIC, "aggregation": "mean",
                                               "weight_by_size": True}]
    utils_functions = set(vars(_load_utils(out)))
    budgets = {}
    for task in summary.tasks:
        config = yaml.load((out / f"{task}.yaml").read_text(), Loader=_TaskLoader)
        assert config["task"] == task and config["output_type"] == "generate_until"
        assert config["dataset_path"] == "json" and config["test_split"] == "test"
        docs_file = config["dataset_kwargs"]["data_files"]["test"]
        assert not Path(docs_file).is_absolute() and (out / docs_file).is_file()  # resolved against the YAML
        for key in ("doc_to_visual", "doc_to_text", "doc_to_messages", "doc_to_target", "process_results"):
            tag, dotted = config[key]
            assert tag == "!function" and dotted.startswith("utils.") and dotted[6:] in utils_functions
        assert [m["metric"] for m in config["metric_list"]] == [OFFICIAL_METRIC, STRUCTURE_METRIC]
        assert all(m["aggregation"][1][6:] in utils_functions for m in config["metric_list"])
        budgets[task] = config["generation_kwargs"]
        tasks = {d["task"] for d in _docs(out, task)}
        assert tasks == ({"counting-text", "counting-image"} if task.endswith("_2") else
                         {"retrieval-text", "reasoning-text", "retrieval-image", "reasoning-image"})
    # the family's official decoding: greedy, 16 new tokens, 32 for counting
    assert budgets == {"niah_toy_1": {"max_new_tokens": 16, "temperature": 0.0, "do_sample": False},
                       "niah_toy_2": {"max_new_tokens": 32, "temperature": 0.0, "do_sample": False}}
    # the docs, in dataset order within each task, cover the dataset once
    ids = [d["niah_id"] for t in summary.tasks for d in _docs(out, t)]
    assert sorted(ids) == sorted(s.id for s in Dataset(exported["dataset"]))


def test_docs_carry_the_rendered_prompt_with_its_images_in_order(exported: dict[str, Any]) -> None:
    out, dataset = exported["out"], exported["dataset"]
    ds = Dataset(dataset)
    utils = _load_utils(out)
    docs = {d["niah_id"]: d for t in exported["summary"].tasks for d in _docs(out, t)}
    checked_images = 0
    for sample in ds:
        doc = docs[sample.id]
        prompt = render_prompt(sample, ds.media_root, PromptOptions())
        assert utils.niah_doc_to_text(doc) == "".join(p.text for p in prompt.parts if isinstance(p, TextPart))
        assert utils.niah_doc_to_target(doc) == format_gold(sample.answer)
        images = utils.niah_doc_to_visual(doc)
        sources = [prompt.resolve(p.path) for p in prompt.parts if isinstance(p, ImagePart)]
        assert len(images) == len(sources) == sample.image_count()
        for image, source in zip(images, sources, strict=True):
            with Image.open(source) as expected:
                assert image.tobytes() == expected.convert("RGB").tobytes()
            checked_images += 1
        # chat form: the same text and images, interleaved in the prompt's order
        (user,) = utils.niah_doc_to_messages(doc)
        assert user["role"] == "user"
        kinds = [c["type"] for c in user["content"]]
        want = [("image" if isinstance(p, ImagePart) else "text") for p in prompt.parts]
        assert kinds == [k for i, k in enumerate(want) if k == "image" or i == 0 or want[i - 1] != "text"]
        assert "".join(c["text"] for c in user["content"] if c["type"] == "text") == utils.niah_doc_to_text(doc)
    assert checked_images > 0
    # the folder holds its media: nothing points back at the dataset
    assert all(not Path(p["path"]).is_absolute() and p["path"].startswith("media/")
               for d in docs.values() for p in json.loads(d["prompt"])["parts"] if p["type"] == "image")


@pytest.mark.parametrize("model", BASELINES)
def test_process_results_and_aggregations_equal_niah_score(exported: dict[str, Any], model: str) -> None:
    out, run = exported["out"], exported["runs"][model]
    utils = _load_utils(out)
    replies = _replies(run)
    per_sample, structure = _niah_scores(run)
    items: list[dict[str, Any]] = []
    for task in exported["summary"].tasks:
        for doc in _docs(out, task):
            result = utils.niah_process_results(doc, [replies[doc["niah_id"]]])
            assert set(result) == {OFFICIAL_METRIC, STRUCTURE_METRIC}
            items.append(result[OFFICIAL_METRIC])
    assert {i["niah_id"]: i["score"] for i in items} == per_sample
    assert utils.niah_official_mean(items) == pytest.approx(sum(per_sample.values()) / len(per_sample))
    assert utils.niah_official_scores(items) == structure
    if model == "baseline:random":  # the comparison can tell right from wrong
        assert 0 < sum(per_sample.values()) < len(per_sample)


def test_samples_without_gold_or_refused_are_left_out(exported: dict[str, Any]) -> None:
    utils = _load_utils(exported["out"])
    doc = _docs(exported["out"], "niah_toy_1")[0]
    sample = json.loads(doc["sample"])
    scored = utils.niah_process_results(doc, [doc["target"]])[OFFICIAL_METRIC]
    no_gold = utils.niah_process_results({**doc, "sample": json.dumps({**sample, "answer": None})},
                                         [doc["target"]])[OFFICIAL_METRIC]
    assert scored["score"] == 1.0 and "score" not in no_gold and no_gold["no_gold"] is True
    assert utils.niah_official_mean([scored, no_gold]) == 1.0
    assert utils.niah_official_scores([scored, no_gold])["gold_missing"] == 1
    assert utils.niah_official_mean([no_gold]) is None


def test_the_cli_writes_the_folder_and_refuses_to_overwrite(exported: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "cli"
    args = ["export", "lmms-eval", str(exported["dataset"]), "--out", str(out), "--name", "niah_cli"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "group niah_cli over niah_cli_1, niah_cli_2" in res.output and (out / "niah_cli.yaml").is_file()
    for task in ("niah_cli_1", "niah_cli_2"):  # the same docs as the API export, whatever the name
        assert (out / "docs" / f"{task}.jsonl").read_bytes() == (
            exported["out"] / "docs" / f"{task.replace('cli', 'toy')}.jsonl").read_bytes()
    again = CliRunner().invoke(app, args)
    assert again.exit_code != 0 and "exists (use --overwrite" in again.output
    assert CliRunner().invoke(app, [*args, "--overwrite"]).exit_code == 0
    with pytest.raises(ConfigError, match="lmms-eval task name"):
        export_lmms_eval(exported["dataset"], tmp_path / "bad", name="Bad-Name")


def test_one_decoding_setting_is_one_task(tmp_path: Path) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text", "retrieval-image"))
    summary = export_lmms_eval(dataset, tmp_path / "out")
    assert summary.tasks == ["niah_ds"] and summary.group is None
    config = yaml.load((tmp_path / "out" / "niah_ds.yaml").read_text(), Loader=_TaskLoader)
    assert config["task"] == "niah_ds" and config["dataset_kwargs"]["data_files"]["test"] == "docs/niah_ds.jsonl"


# ------------------------------------------------------------------------------- lmms-eval's own code path


@pytest.fixture()
def lmms_eval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = pytest.importorskip("lmms_eval.tasks")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)  # the docs resolve against the YAML, not the working directory
    return module


@pytest.mark.parametrize("model", BASELINES)
def test_lmms_eval_loads_the_task_and_its_aggregation_equals_niah_score(exported: dict[str, Any], model: str,
                                                                       lmms_eval: ModuleType) -> None:
    from lmms_eval.evaluator_utils import TaskOutput

    manager = lmms_eval.TaskManager(include_path=str(exported["out"]), include_defaults=False)
    assert {"niah_toy", "niah_toy_1", "niah_toy_2"} <= set(manager.all_tasks) and "niah_toy" in manager.all_groups
    ((group, subtasks),) = manager.load_task_or_group(["niah_toy"]).items()
    assert group.group == "niah_toy" and sorted(subtasks) == ["niah_toy_1", "niah_toy_2"]
    replies = _replies(exported["runs"][model])
    per_sample, structure = _niah_scores(exported["runs"][model])
    got: dict[str, float] = {}
    weighted = 0.0
    for name, task in subtasks.items():
        assert task.config.generation_kwargs["max_new_tokens"] == (32 if name.endswith("_2") else 16)
        output = TaskOutput.from_taskdict(name, task)
        for doc in task.test_docs():
            assert task.doc_to_visual(doc) is not None and task.doc_to_text(doc)
            metrics = task.process_results(doc, [replies[doc["niah_id"]]])
            for metric, value in metrics.items():
                output.sample_metrics[(metric, "none")].append(value)
            got[doc["niah_id"]] = metrics[OFFICIAL_METRIC]["score"]
        output.calculate_aggregate_metric(bootstrap_iters=0)
        n = len(output.sample_metrics[(OFFICIAL_METRIC, "none")])
        weighted += output.agg_metrics[f"{OFFICIAL_METRIC},none"] * n
        # the family's structure over this task's samples: its niah tasks' bin scores as niah score has them;
        # no overall, which needs all six tasks (the README sends users to niah import responses for it)
        task_structure = output.agg_metrics[f"{STRUCTURE_METRIC},none"]
        niah_tasks = {doc["task"] for doc in task.test_docs()}
        assert ({k: task_structure["official"][k] for k in niah_tasks}
                == {k: structure["official"][k] for k in niah_tasks})
        assert "overall" not in task_structure["official"] and "overall" in structure["official"]
    assert got == per_sample
    assert weighted / len(got) == pytest.approx(sum(per_sample.values()) / len(per_sample))


def test_lmms_eval_chat_messages_validate(exported: dict[str, Any], lmms_eval: ModuleType) -> None:
    from lmms_eval.protocol import ChatMessages

    manager = lmms_eval.TaskManager(include_path=str(exported["out"]), include_defaults=False)
    task = manager.load_task_or_group(["niah_toy_1"], task_type="chat")["niah_toy_1"]
    image_docs = [d for d in task.test_docs() if "image" in d["task"]]
    messages = ChatMessages(messages=task.doc_to_messages(image_docs[0]))
    kinds = [c.type for m in messages.messages for c in m.content]
    assert "image" in kinds and "text" in kinds


def test_logged_samples_of_every_task_import_back_to_niah_score(exported: dict[str, Any], tmp_path: Path) -> None:
    """The README's way to the whole-dataset figures: lmms-eval's --log_samples files (one per task, each
    numbering its docs from 0, each doc logged with its text fields) imported as one run score as niah did."""
    from niah.interop.replay import import_responses

    reference = exported["runs"]["baseline:random"]
    replies = _replies(reference)
    logs = []
    for task in exported["summary"].tasks:
        lines = [{"doc_id": k, "doc": doc, "target": doc["target"], "resps": [[replies[doc["niah_id"]]]],
                  "filtered_resps": [replies[doc["niah_id"]]]} for k, doc in enumerate(_docs(exported["out"], task))]
        path = tmp_path / f"20261202_samples_{task}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        logs.append(path)
    import_responses("lmms-eval", logs, exported["dataset"], tmp_path / "run")
    score_run(tmp_path / "run")
    assert _niah_scores(tmp_path / "run") == _niah_scores(reference)


def test_a_video_family_exports_its_sampled_frames_and_scores_like_niah(tmp_path: Path) -> None:
    """InfiniBench: each video becomes the frames niah run samples (--max-frames), copied into the folder, with
    the subtitles in the text; the oracle's replies aggregate to niah score's structure."""
    from support.infinibench_fixtures import write_qa_files, write_videos

    write_videos(tmp_path / "videos")
    write_qa_files(tmp_path / "qa")
    media = ["--media-root", str(tmp_path / "videos")]
    assert CliRunner().invoke(app, ["import", "infinibench", str(tmp_path / "qa"), "--media-root",
                                    str(tmp_path / "videos"), "--out", str(tmp_path / "ds")]).exit_code == 0
    res = CliRunner().invoke(app, ["export", "lmms-eval", str(tmp_path / "ds"), "--out", str(tmp_path / "task"),
                                   "--max-frames", "3", *media])
    assert res.exit_code == 0, res.output
    run = tmp_path / "run"
    assert CliRunner().invoke(app, ["run", str(tmp_path / "ds"), "--model", "baseline:oracle", "--out", str(run),
                                    "--no-progress", "--max-frames", "3", *media]).exit_code == 0
    score_run(run)
    utils = _load_utils(tmp_path / "task")
    replies = _replies(run)
    tasks = sorted(p.stem for p in (tmp_path / "task" / "docs").glob("*.jsonl"))
    assert len(tasks) == 2  # multiple-choice and open questions decode with different budgets
    items, texts = [], []
    for task in tasks:
        for doc in _docs(tmp_path / "task", task):
            frames = [p for p in json.loads(doc["prompt"])["parts"] if p["type"] == "image"]
            assert len(frames) == 3 and all(p["path"].startswith("media/_frames/") for p in frames)
            assert [im.size for im in utils.niah_doc_to_visual(doc)] == [Image.open(tmp_path / "task" / p["path"]).size
                                                                        for p in frames]
            items.append(utils.niah_process_results(doc, [replies[doc["niah_id"]]])[OFFICIAL_METRIC])
            texts.append(utils.niah_doc_to_text(doc))
    assert any("[1.0s] Where are we going tonight?" in text for text in texts)  # subtitles per frame
    per_sample, structure = _niah_scores(run)
    assert {i["niah_id"]: i["score"] for i in items if "score" in i} == per_sample
    assert utils.niah_official_scores(items) == structure
