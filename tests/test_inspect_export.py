"""`niah export inspect`: a task file that the real inspect_ai runs (`inspect eval task.py --model
mockllm/model`), whose scores equal `niah score` on the same replies."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from niah.models.baselines import format_gold
from niah.sample import Dataset
from niah.scoring.score import score_run
from support.datasets import write_mm_niah_like

inspect_ai = pytest.importorskip("inspect_ai")


@pytest.fixture()
def offline_tiktoken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mockllm counts prompt tokens with tiktoken's o200k_base; give tiktoken the file from its local cache
    directory (the copy bpe-openai ships) so that nothing is downloaded."""
    import bpe_openai

    source = Path(bpe_openai.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    if not source.is_file():
        pytest.skip("no local o200k_base.tiktoken")
    cache = tmp_path / "tiktoken"
    cache.mkdir()
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(gzip.decompress(source.read_bytes()))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def _niah_scores(dataset: Path, replies: dict[str, str], run: Path) -> dict[str, float]:
    """`niah score` of a run whose responses are ``replies``."""
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(dataset), "config": {}}))
    rows = [{"id": sid, "task": sid.split("/")[0], "response": text, "error": None, "status": "ok"}
            for sid, text in replies.items()]
    (run / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    score_run(run)
    return {row["id"]: row["score"] for row in map(json.loads, (run / "scored.jsonl").read_text().splitlines())}


def _log_scores(log: object) -> tuple[dict[str, str], dict[str, float]]:
    replies = {str(s.id): s.output.completion for s in log.samples}  # type: ignore[attr-defined]
    scores = {str(s.id): float(s.scores["niah_rule"].value) for s in log.samples}  # type: ignore[attr-defined]
    return replies, scores


def test_inspect_eval_of_the_exported_task_scores_like_niah(tmp_path: Path, offline_tiktoken: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner
    from inspect_ai._cli.main import inspect as inspect_cli
    from inspect_ai.log import list_eval_logs, read_eval_log

    from niah.commands.harness import export_inspect_command
    from niah.interop.inspect_task import write_task_file

    assert callable(export_inspect_command)
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1)
    write_task_file(dataset, tmp_path / "task.py")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(inspect_cli, ["eval", "task.py", "--model", "mockllm/model", "--log-dir",
                                           str(tmp_path / "logs"), "--display", "none"])
    assert res.exit_code == 0, res.output + repr(res.exception)
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success" and len(log.samples) == 6
    replies, scores = _log_scores(log)
    assert set(replies) == {s.id for s in Dataset(dataset)}
    assert scores == _niah_scores(dataset, replies, tmp_path / "run")
    # the prompt is the family's rendered prompt: the question is in it, images as image content
    first = next(s for s in log.samples if s.id == "retrieval-image/000")
    kinds = [c.type for c in first.input[-1].content]
    assert "image" in kinds and "text" in kinds


def test_scores_follow_the_official_rule_on_real_replies(tmp_path: Path, offline_tiktoken: None) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, get_model

    from niah.interop.inspect_task import niah_task

    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1)
    samples = list(Dataset(dataset))
    # gold replies, except a wrong one and one only the lenient mode accepts
    replies = {s.id: format_gold(s.answer) for s in samples}
    replies["retrieval-text/000"] = "the soup has no secret"
    replies["reasoning-text/000"] = f"({format_gold(samples[2].answer)})"
    outputs = [ModelOutput.from_content("mockllm/model", replies[s.id]) for s in samples]
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    log = inspect_eval(niah_task(dataset), model=model, max_samples=1, display="none",
                       log_dir=str(tmp_path / "logs"))[0]
    got_replies, scores = _log_scores(log)
    assert got_replies == replies
    niah = _niah_scores(dataset, replies, tmp_path / "run")
    assert scores == niah and 0 < sum(scores.values()) < len(scores)
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(sum(niah.values()) / len(niah))


def test_the_readme_line_runs_offline_as_written(tmp_path: Path) -> None:
    """`inspect eval task.py --model mockllm/model`, as the README shows it, in a fresh folder with no tiktoken
    cache: mockllm's token count needs o200k_base, which tiktoken would download (and fails to, offline); the
    task fills a cache from the copy bpe-openai ships."""
    import os
    import subprocess
    import sys

    from niah.interop.inspect_task import write_task_file
    from support.processes import niah_env

    write_task_file(write_mm_niah_like(tmp_path / "data" / "mmniah", per_task=1), tmp_path / "task.py")
    env = {k: v for k, v in niah_env().items() if k not in {"TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"}}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), INSPECT_LOG_DIR=str(tmp_path / "logs"))
    inspect = Path(sys.executable).parent / "inspect"
    done = subprocess.run([str(inspect), "eval", "task.py", "--model", "mockllm/model", "--display", "none"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    from inspect_ai.log import list_eval_logs, read_eval_log

    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success" and len(log.samples) == 6
    assert sorted(os.listdir(tmp_path / "cache" / "niah" / "tiktoken"))  # filled from the shipped copies
