"""Ctrl-C (SIGINT) and SIGTERM in every stage (issue 44, item 13): a real ``python -m niah`` process, sent a real
signal once it is inside the stage, stops soon (measured against generous slack: a busy machine is slow), says in
one line what it was doing and how to go on, exits 130 / 143, and leaves nothing half-written.

The work each test interrupts takes minutes when left alone; the bound on stopping is a few of the process's own
start-ups (importing niah and reaching the stage, as slow as the machine is now) plus ten seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from niah.sample import DatasetWriter, ImagePart, Sample, TextPart
from support.openai_server import OpenAIServer
from support.processes import holds_open, niah_env, start_niah, stop_with, wait_until

SIGNALS = pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
SAID = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "terminated (SIGTERM)"}


def _bound(start_up: float) -> float:
    """How long stopping may take: generous slack over the process's own start-up on this machine now."""
    return 10 + 4 * start_up


@pytest.fixture(scope="module")
def slow_to_validate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset whose validation decodes 600 large PNGs (hard links of one 4000x4000 image, each checked by its
    own name): minutes of work before a run may start."""
    root = tmp_path_factory.mktemp("validate")
    stripes = np.zeros((4000, 4000, 3), np.uint8)
    stripes[::7] = 200
    ds = root / "ds"
    with DatasetWriter(ds) as writer:
        first = writer.media_dir / "img0000.png"
        Image.fromarray(stripes).save(first)
        for i in range(600):
            if i:
                os.link(first, writer.media_dir / f"img{i:04d}.png")
            writer.write(Sample(f"s{i:04d}", "mm-niah", "retrieval-image",
                                [TextPart("Look at this."), ImagePart(f"media/img{i:04d}.png")],
                                [TextPart("What is drawn?")], answer="stripes",
                                meta={"context_length": 1800, "depth": [0.5]}))
        writer.finish({"benchmark": "mm-niah"})
    return ds


@SIGNALS
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="finds the image being checked through /proc")
def test_a_signal_during_the_validation_before_a_run_stops_it(slow_to_validate: Path, tmp_path: Path,
                                                              sig: signal.Signals) -> None:
    """The reported case: Ctrl-C during a 41 s validation was honoured after 47 s (asyncio cancelled the run's
    task only once the validation gave the loop back), SIGTERM killed the process without a word."""
    run = tmp_path / "run"
    proc = start_niah(["run", str(slow_to_validate), "--model", "baseline:oracle", "--out", str(run),
                       "--no-progress"])
    media = slow_to_validate / "media"
    start_up = wait_until(proc, lambda: any(holds_open(proc, media / f"img{i:04d}.png") for i in range(1, 600)))
    err, stopping = stop_with(proc, sig)
    assert proc.returncode == 128 + sig, err
    assert stopping < _bound(start_up), (stopping, start_up)
    assert (f"{SAID[sig]} while validating {slow_to_validate}: nothing of this run was sent or written yet; "
            "run the same command again") in err, err
    assert "Traceback" not in err and not run.exists()


@SIGNALS
def test_a_signal_during_a_build_leaves_no_half_built_dataset(tmp_path: Path, sig: signal.Signals) -> None:
    out = tmp_path / "ds"
    # 300 samples of 64k tokens each: minutes of tokenizing on this machine
    proc = start_niah(["build", "mm-niah", "--out", str(out), "--lengths", "64k", "--per-cell", "20", "--no-images"])

    def writing() -> bool:
        return any(p.stat().st_size > 0 for p in tmp_path.glob(".ds.*.building/samples.jsonl"))

    start_up = wait_until(proc, writing)
    err, stopping = stop_with(proc, sig)
    assert proc.returncode == 128 + sig, err
    assert stopping < _bound(start_up), (stopping, start_up)
    assert (f"{SAID[sig]} during niah build mm-niah: nothing half-written is left (outputs are written whole); "
            "run the same command again") in err, err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # neither the dataset nor its temporary folder



@SIGNALS
def test_a_signal_during_niah_eval_keeps_what_was_answered_and_the_rerun_asks_the_rest(tmp_path: Path,
                                                                                      sig: signal.Signals) -> None:
    """niah eval (build, run, score, report in one): stopped mid-run it says where the answers are kept, exits
    128 + the signal, and the same command again asks only the samples not answered."""
    out = tmp_path / "eval"

    def command(server: OpenAIServer) -> list[str]:
        return ["eval", "--family", "mm-niah", "--out", str(out), "--model", "openai:echo", "--base-url",
                server.base_url, "--lengths", "1k", "--per-cell", "2", "--tasks", "retrieval-text", "--concurrency",
                "1", "--no-audit", "--no-progress"]

    with OpenAIServer(delay_s=3.0) as slow:  # 10 samples one at a time: 30 s and more
        proc = start_niah(command(slow))
        start_up = wait_until(proc, lambda: any(p.read_bytes().count(b"\n") >= 1
                                                for p in out.glob("**/responses.jsonl")))
        err, stopping = stop_with(proc, sig)
        asked = len(slow.log)
    assert proc.returncode == 128 + sig, err
    assert stopping < _bound(start_up), (stopping, start_up)
    assert f"{SAID[sig]} while running: " in err and "answered so far are kept in" in err, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    run_json = json.loads(next(out.glob("**/run.json")).read_text())
    assert run_json["interrupted"] == sig.name and run_json["complete"] is False
    answered = run_json["counts"]["answered"]
    assert 1 <= answered < 10 and asked <= answered + 1
    with OpenAIServer() as fast:
        done = subprocess.run([sys.executable, "-m", "niah", *command(fast)], capture_output=True, text=True,
                              env=niah_env(), timeout=300)
        assert done.returncode == 0, done.stderr
        assert len(fast.log) == 10 - answered  # nothing answered before is asked again


@pytest.fixture(scope="module")
def slow_to_import(slow_to_validate: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same 600 large images as a Hugging Face dataset: importing it checks every image, minutes of work."""
    out = tmp_path_factory.mktemp("hf") / "hf"
    done = subprocess.run([sys.executable, "-m", "niah", "export", "hf", str(slow_to_validate), "--out", str(out)],
                          capture_output=True, text=True, env=niah_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    return out


@SIGNALS
def test_a_signal_during_an_import_leaves_no_half_imported_dataset(slow_to_import: Path, tmp_path: Path,
                                                                   sig: signal.Signals) -> None:
    out = tmp_path / "imported"
    proc = start_niah(["import", "hf", str(slow_to_import), "--out", str(out)])
    start_up = wait_until(proc, lambda: any(tmp_path.glob(".imported.*.building/media/*")))
    err, stopping = stop_with(proc, sig)
    assert proc.returncode == 128 + sig, err
    assert stopping < _bound(start_up), (stopping, start_up)
    assert (f"{SAID[sig]} during niah import hf: nothing half-written is left (outputs are written whole); "
            "run the same command again") in err, err
    assert "Traceback" not in err and sorted(p.name for p in tmp_path.iterdir()) == []
