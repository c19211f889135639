"""NaN and infinities are refused in every numeric option and dataset field before the first request, and every
JSON niah writes is strict (issue 21)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from niah.models.base import GenerationSettings
from niah.run import run_dataset_sync
from niah.util.errors import ConfigError
from niah.util.iox import dumps_line, write_json_atomic
from support.datasets import write_text_prompts
from support.openai_server import OpenAIServer
from support.processes import niah_env


def _niah(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, timeout=120,
                          env=niah_env())


@pytest.mark.parametrize(("option", "flag"), [
    (["--temperature", "nan"], "--temperature"),
    (["--top-p", "inf"], "--top-p"),
    (["--timeout", "-inf"], "--timeout"),
    (["--retry-delay", "nan"], "--retry-delay"),
    (["--video-fps", "inf"], "--video-fps"),
    (["-O", "timeout=NaN"], "timeout=NaN"),
    (["-O", "timeout=1e999"], "timeout=1e999"),
])
def test_a_non_finite_option_is_refused_before_any_request(tmp_path, option, flag):
    ds = write_text_prompts(tmp_path / "ds", ["a", "b"])
    with OpenAIServer() as srv:
        done = _niah("run", str(ds), "--model", "openai:echo", "--base-url", srv.base_url, "--out",
                     str(tmp_path / "run"), "--no-progress", *option)
        assert not srv.log
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "finite" in lines[0], done.stderr
    assert not (tmp_path / "run").exists()


def test_the_api_refuses_non_finite_settings(tmp_path):
    ds = write_text_prompts(tmp_path / "ds", ["a"])
    with pytest.raises(ConfigError, match="temperature must be a finite number"):
        run_dataset_sync(ds, "baseline:oracle", tmp_path / "run", progress=False,
                         generation=GenerationSettings(temperature=math.nan))
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_nan_gold_is_refused_with_its_line_before_any_request(tmp_path, constant):
    ds = write_text_prompts(tmp_path / "ds", ["a", "b", "c"])
    samples = ds / "samples.jsonl"
    lines = samples.read_text().splitlines()
    assert '"answer": "oak"' in lines[1]
    lines[1] = lines[1].replace('"answer": "oak"', f'"answer": {constant}')
    samples.write_text("\n".join(lines) + "\n")
    with OpenAIServer() as srv:
        done = _niah("run", str(ds), "--model", "openai:echo", "--base-url", srv.base_url, "--out",
                     str(tmp_path / "run"), "--no-progress")
        assert not srv.log
    assert done.returncode == 2
    assert f"{samples}:2" in done.stderr and "finite" in done.stderr and "answer" in done.stderr
    assert not (tmp_path / "run").exists()


def test_outputs_are_strict_json(tmp_path):
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            dumps_line({"x": bad})
        with pytest.raises(ValueError):
            write_json_atomic(tmp_path / "x.json", {"x": bad})
    assert not Path(tmp_path / "x.json").exists()
    assert json.loads(dumps_line({"x": 0.5})) == {"x": 0.5}


def test_the_field_holding_a_non_finite_number_is_named():
    from niah.util.iox import non_finite_field

    assert non_finite_field({"a": 0.5, "meta": {"depth": 0.25, "x": [1.0, math.nan]}}) == "meta.x[1]"
    assert non_finite_field({"a": 0.5, "b": [1.5]}) is None


def test_a_non_finite_output_names_its_file_and_field(tmp_path):
    from niah.util.errors import DataError

    with pytest.raises(DataError, match=r"x\.json.*field 'scores\.overall\[1\]'"):
        write_json_atomic(tmp_path / "x.json", {"scores": {"overall": [0.5, math.nan]}})
