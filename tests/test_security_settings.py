"""Issue 44, item 14: sampling settings outside their range are refused before anything is sent, by niah run
and by niah eval --config, in one line naming the setting."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.cli import app
from support.datasets import write_mm_niah_like
from support.openai_server import OpenAIServer


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
