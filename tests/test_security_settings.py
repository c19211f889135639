"""Issue 44, item 14: sampling settings outside their range are refused before anything is sent, by niah run
and by niah eval --config, in one line naming the setting."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from support.datasets import write_mm_niah_like
from support.openai_server import HeldAfter, OpenAIServer


@pytest.mark.parametrize(("option", "value", "named"), [
    ("--max-tokens", "-5", "--max-tokens"), ("--max-tokens", "0", "--max-tokens"),
    ("--temperature", "-1", "--temperature"), ("--temperature", "7", "--temperature"),
    ("--top-p", "5", "--top-p"), ("--top-p", "0", "--top-p"), ("--top-p", "-0.5", "--top-p"),
])
def test_run_refuses_a_setting_out_of_range_before_any_request(tmp_path: Path, option: str, value: str,
                                                               named: str) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    with OpenAIServer() as server:
        result = CliRunner().invoke(app, ["run", str(dataset), "--model", "openai:echo", "--base-url",
                                          server.base_url, "--out", str(tmp_path / "run"), option, value,
                                          "--no-progress"])
        assert result.exit_code != 0 and named in result.output and "Traceback" not in result.output
        assert server.log == []
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("setting", "value"), [("temperature", "-1.0"), ("temperature", "9.5"), ("top_p", "5.0"),
                                                ("top_p", "0.0"), ("max_tokens", "-5")])
def test_eval_config_refuses_a_setting_out_of_range_naming_file_and_key(tmp_path: Path, setting: str,
                                                                        value: str) -> None:
    config = tmp_path / "eval.toml"
    config.write_text(f'out = "{tmp_path / "out"}"\n[models.m]\nmodel = "baseline:oracle"\n{setting} = {value}\n'
                      '[benchmarks.b]\nfamily = "mm-niah"\nlengths = ["1k-2k"]\n')
    result = CliRunner().invoke(app, ["eval", "--config", str(config), "--no-progress"])
    assert result.exit_code != 0 and f"[models.m] {setting}" in result.output, result.output
    assert not (tmp_path / "out").exists()


def test_settings_in_range_are_sent(tmp_path: Path) -> None:
    dataset = write_mm_niah_like(tmp_path / "ds", per_task=1, tasks=("retrieval-text",))
    with OpenAIServer() as server:
        result = CliRunner().invoke(app, ["run", str(dataset), "--model", "openai:echo", "--base-url",
                                          server.base_url, "--out", str(tmp_path / "run"), "--max-tokens", "1",
                                          "--temperature", "2", "--top-p", "1", "--no-progress"])
        assert result.exit_code == 0, result.output
        body = server.log[0].body
    assert body["max_tokens"] == 1 and body["temperature"] == 2 and body["top_p"] == 1


def test_ctrl_c_records_interrupted_in_run_json_and_says_how_to_resume(tmp_path: Path) -> None:
    """Issue 44, item 13: a run stopped by Ctrl-C (SIGINT) writes interrupted: "SIGINT" in run.json (it wrote
    null), says how to resume, and a rerun finishes the rest."""
    import json
    import signal
    import subprocess
    import sys

    from support.datasets import write_text_prompts
    from support.processes import niah_env, start_niah, stop_with, wait_until

    dataset = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(30)])
    run = tmp_path / "run"
    # four replies, then the server holds every request until the signal: the run cannot finish first on a busy
    # machine
    with HeldAfter(4) as four_then_held, OpenAIServer(delay_s=0.1, responder=four_then_held) as server:
        cmd = [sys.executable, "-m", "niah.cli", "run", str(dataset), "--model", "openai:echo", "--base-url",
               server.base_url, "--out", str(run), "--no-progress", "--concurrency", "2"]
        proc = start_niah(cmd[3:])
        responses = run / "responses.jsonl"
        wait_until(proc, lambda: responses.exists() and responses.read_bytes().count(b"\n") >= 4)
        err, _ = stop_with(proc, signal.SIGINT)
        four_then_held.release()
        assert proc.returncode == 130 and "kept in" in err and "run the same command again" in err, err
        meta = json.loads((run / "run.json").read_text())
        assert meta["interrupted"] == "SIGINT" and meta["complete"] is False
        done = subprocess.run(cmd, capture_output=True, text=True, env=niah_env(), timeout=120)
        assert done.returncode == 0, done.stderr
    meta = json.loads((run / "run.json").read_text())
    assert meta["complete"] is True and meta.get("interrupted") is None
