"""Ctrl-C (SIGINT) and SIGTERM in every stage (issue 44, item 13): a real ``python -m niah`` process, sent a real
signal once it is inside the stage, stops soon (measured against generous slack: a busy machine is slow), says in
one line what it was doing and how to go on, exits 130 / 143, and leaves nothing half-written.

The work each test interrupts takes minutes when left alone (but a merge, which the test freezes where it is seen
working); the bound on stopping is a few of the process's own start-ups (importing niah and reaching the stage, as
slow as the machine is now) plus ten seconds."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from niah.sample import DatasetWriter, ImagePart, Sample, TextPart
from support.openai_server import OpenAIServer
from support.processes import holds_open, niah_env, signal_while_frozen, start_niah, stop_with, wait_until

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


# ---------------------------------------------------------------- score, report, audit, merge, export


def _niah_ok(*args: str | Path) -> None:
    done = subprocess.run([sys.executable, "-m", "niah", *map(str, args)], capture_output=True, text=True,
                          env=niah_env(), timeout=900)
    assert done.returncode == 0, done.stderr


def _text_dataset(out: Path, count: int, benchmark: str = "mm-niah", task: str = "retrieval-text") -> Path:
    """``count`` short text samples, written row by row (no builder): cheap to make, slow to work through."""
    with DatasetWriter(out) as writer:
        for i in range(count):
            writer.write(Sample(f"{task}/{i:06d}", benchmark, task,
                                [TextPart(f"The secret ingredient of the soup is oak{i}.")],
                                [TextPart("What is the secret ingredient of the soup?")], answer=f"oak{i}",
                                meta={"context_length": 1000 * (1 + i % 3), "depth": [round(i % 5 / 5 + 0.1, 2)]}))
        writer.finish({"benchmark": benchmark, "tasks": [task]})
    return out


def _files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones included) by its path, with its SHA-256: what a stop must not
    change."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def medium_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _text_dataset(tmp_path_factory.mktemp("medium") / "ds", 8000)


@pytest.fixture(scope="module")
def scored_run(medium_dataset: Path) -> Path:
    """A run of 8000 samples, scored: scoring it again takes seconds (8000 rows scored and written one by one,
    then the intervals), a report of it with one browser file a sample minutes."""
    root = medium_dataset.parent
    _niah_ok("run", medium_dataset, "--model", "baseline:oracle", "--out", root / "run", "--no-progress")
    _niah_ok("score", root / "run")
    return root / "run"


@pytest.fixture(scope="module")
def large_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60000 short samples: minutes to audit, and to export one Parquet row group a sample."""
    return _text_dataset(tmp_path_factory.mktemp("large") / "ds", 60000)


def _stopped_whole(err: str, proc: subprocess.Popen[str], sig: signal.Signals, command: str) -> None:
    assert proc.returncode == 128 + sig, err
    assert (f"{SAID[sig]} during niah {command}: nothing half-written is left (outputs are written whole); "
            "run the same command again") in err, err
    assert "Traceback" not in err


@pytest.mark.slow
@SIGNALS
def test_a_signal_during_niah_score_leaves_the_earlier_scores_as_they_were(scored_run: Path, tmp_path: Path,
                                                                           sig: signal.Signals) -> None:
    run = tmp_path / "run"
    shutil.copytree(scored_run, run)
    before = _files(run)
    proc = start_niah(["score", str(run)])
    start_up = wait_until(proc, lambda: any(p.stat().st_size > 0 for p in run.glob(".scored.jsonl.*.tmp")))
    err, stopping = stop_with(proc, sig)
    _stopped_whole(err, proc, sig, "score")
    assert stopping < _bound(start_up), (stopping, start_up)
    assert _files(run) == before  # scores.json, scored.jsonl and the rest as they were; no temporary file left


@pytest.mark.slow
@SIGNALS
def test_a_signal_during_niah_report_leaves_the_earlier_report_as_it_was(scored_run: Path, tmp_path: Path,
                                                                         sig: signal.Signals) -> None:
    out = tmp_path / "report"
    _niah_ok("report", scored_run, "--out", out, "--no-samples", "--no-progress")
    before = _files(out)
    # the run six times over, one browser file a sample: 48000 files, minutes of writing
    names = [arg for i in range(6) for arg in ("--name", f"model{i}")]
    proc = start_niah(["report", *[str(scored_run)] * 6, *names, "--out", str(out), "--chunk-size", "1",
                       "--no-progress"])
    start_up = wait_until(proc, lambda: any(tmp_path.glob(".report.new-*/assets/samples/*")))
    err, stopping = stop_with(proc, sig)
    _stopped_whole(err, proc, sig, "report")
    assert stopping < _bound(start_up), (stopping, start_up)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"] and _files(out) == before


@SIGNALS
def test_a_signal_during_niah_audit_writes_no_audit(large_dataset: Path, tmp_path: Path, sig: signal.Signals) -> None:
    target = tmp_path / "audit.json"
    before = _files(large_dataset)
    proc = start_niah(["audit", str(large_dataset), "--limit", "0", "--out", str(target), "--no-progress"])
    start_up = wait_until(proc, lambda: holds_open(proc, large_dataset / "samples.jsonl"))
    err, stopping = stop_with(proc, sig)
    _stopped_whole(err, proc, sig, "audit")
    assert stopping < _bound(start_up), (stopping, start_up)
    assert list(tmp_path.iterdir()) == [] and _files(large_dataset) == before


@SIGNALS
def test_a_signal_during_niah_export_hf_leaves_the_earlier_export_as_it_was(large_dataset: Path, tmp_path: Path,
                                                                            sig: signal.Signals) -> None:
    out = tmp_path / "hf"
    _niah_ok("export", "hf", _text_dataset(tmp_path / "small", 3), "--out", out)
    before = _files(out)
    proc = start_niah(["export", "hf", str(large_dataset), "--out", str(out), "--overwrite", "--row-group-size", "1"])
    start_up = wait_until(proc, lambda: any(p.stat().st_size > 0
                                            for p in tmp_path.glob(".hf.*.exporting/data/.part-*.parquet")))
    err, stopping = stop_with(proc, sig)
    _stopped_whole(err, proc, sig, "export hf")
    assert stopping < _bound(start_up), (stopping, start_up)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hf", "small"] and _files(out) == before


@pytest.fixture(scope="module")
def shards(medium_dataset: Path) -> list[Path]:
    """The 8000 samples run as two shards."""
    runs = [medium_dataset.parent / f"shard{i}" for i in range(2)]
    for i, run in enumerate(runs):
        _niah_ok("run", medium_dataset, "--model", "baseline:oracle", "--out", run, "--shard", f"{i}/2",
                 "--no-progress")
    return runs


def _signal_where_seen(args: list[str], sig: signal.Signals, inside: Callable[[subprocess.Popen[str]], bool],
                       redone: Callable[[], None], phase: str
                       ) -> tuple[subprocess.Popen[str], tuple[str, float], float]:
    """Start ``niah ARGS`` until one is frozen (SIGSTOP) where ``inside`` sees it and signalled there: a command
    that takes a second or two cannot be signalled mid-way by timing alone. One frozen past that point is left
    to finish (``redone`` checks what it wrote) and started again. Returns the process, what it said and how
    long it took to stop, and its start-up."""
    for _attempt in range(20):
        proc = start_niah(args)
        started = time.monotonic()
        while not inside(proc) and proc.poll() is None:
            time.sleep(0.0005)
        start_up = time.monotonic() - started
        stopped = signal_while_frozen(proc, sig, functools.partial(inside, proc)) if proc.poll() is None else None
        if stopped is not None:
            return proc, stopped, start_up
        proc.communicate(timeout=300)
        assert proc.returncode == 0
        redone()
    raise AssertionError(f"no niah {args[0]} was seen {phase} in 20 tries")


@SIGNALS
@pytest.mark.parametrize("phase", ["reading", "writing"])
@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="freezes the merge mid-way through /proc")
def test_a_signal_during_niah_merge_leaves_the_earlier_merged_run_as_it_was(shards: list[Path], tmp_path: Path,
                                                                            sig: signal.Signals, phase: str) -> None:
    """A merge takes a second or two, too short to be sure of signalling it mid-way by timing alone: the test
    freezes it (SIGSTOP) once it is seen reading the dataset, or writing the merged run beside --out, sends the
    signal only if it is still there, and lets it go on (SIGCONT); a merge frozen past that point is left to
    finish and tried again. The signal then arrives at a point the test saw."""
    out = tmp_path / "merged"
    _niah_ok("merge", *shards, "--out", out)
    before = _files(out)
    samples = shards[0].parent / "ds" / "samples.jsonl"

    def inside(proc: subprocess.Popen[str]) -> bool:
        if phase == "reading":
            return holds_open(proc, samples)
        return any(tmp_path.glob(".merged.*.merging"))

    def redone() -> None:
        assert (out / "run.json").is_file()
        nonlocal before
        before = _files(out)  # the merge done again: the same run, written anew

    proc, stopped, start_up = _signal_where_seen(["merge", *map(str, shards), "--out", str(out), "--overwrite"],
                                                 sig, inside, redone, phase)
    err, stopping = stopped
    _stopped_whole(err, proc, sig, "merge")
    assert stopping < _bound(start_up), (stopping, start_up)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merged"] and _files(out) == before



#: The exports a stop must leave as they were: (verb words, what --out names, the option to replace an earlier one,
#: the fixture of the dataset exported)
EXPORTS = {"mm-niah-dataset": (["export", "mm-niah-dataset"], "official", [], "medium_dataset"),
           "lmms-eval": (["export", "lmms-eval"], "lmms", ["--overwrite"], "medium_dataset"),
           "inspect": (["export", "inspect"], "task.py", [], "medium_dataset"),
           "seq-niah": (["export", "seq-niah"], "official", [], "seq_dataset"),
           "infinibench": (["export", "infinibench"], "official", [], "infinibench_dataset")}


@pytest.fixture(scope="module")
def seq_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8000 Sequential-NIAH samples in the test format (no needle positions): a second or two to export."""
    return _text_dataset(tmp_path_factory.mktemp("seq") / "ds", 8000, "seq-niah", "real-temporal")


@pytest.fixture(scope="module")
def infinibench_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8000 open-ended InfiniBench questions without their videos (the export writes the QA files only)."""
    return _text_dataset(tmp_path_factory.mktemp("infinibench") / "ds", 8000, "infinibench", "summarization")


@SIGNALS
@pytest.mark.parametrize("export", sorted(EXPORTS))
@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="freezes the export mid-way through /proc")
def test_a_signal_during_an_export_leaves_the_earlier_export_as_it_was(request: pytest.FixtureRequest,
                                                                       tmp_path: Path, sig: signal.Signals,
                                                                       export: str) -> None:
    """The official MM-NIAH, Sequential-NIAH and InfiniBench layouts, the lmms-eval task folder and the inspect
    task file, each stopped where it is seen working (in its hidden staging folder: MM-NIAH's and lmms-eval's
    once a file is in it, the Sequential-NIAH and InfiniBench exports, which write one file, once it is made; the
    inspect export, which writes one small file, while it reads the dataset): the earlier export stays as it was
    and nothing else is left beside it."""
    words, name, replace, fixture = EXPORTS[export]
    dataset: Path = request.getfixturevalue(fixture)
    out = tmp_path / name
    _niah_ok(*words, dataset, "--out", out)
    snapshot = (lambda: _files(out)) if out.is_dir() else (lambda: {name: out.read_text()})
    before = snapshot()
    samples = dataset / "samples.jsonl"

    def inside(proc: subprocess.Popen[str]) -> bool:
        if export == "inspect":
            return holds_open(proc, samples)
        staged = [p for p in tmp_path.glob(f".{name}.*.exporting") if p.is_dir()]
        return any(export in ("seq-niah", "infinibench") or any(p.iterdir()) for p in staged)

    def redone() -> None:
        nonlocal before
        before = snapshot()  # exported again: the same files, written anew

    proc, (err, stopping), start_up = _signal_where_seen([*words, str(dataset), "--out", str(out), *replace],
                                                         sig, inside, redone, "writing")
    _stopped_whole(err, proc, sig, " ".join(words))
    assert stopping < _bound(start_up), (stopping, start_up)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name] and snapshot() == before


def test_a_signal_inside_a_deferred_block_is_raised_when_it_ends() -> None:
    """The steps a stop must not cut apart (a temporary file created and its name kept for the clean-up; the
    two renames of a swap) run whole; the signal is raised right after them."""
    from niah.util import interrupts

    done: list[str] = []
    with interrupts.handling_signals(), pytest.raises(interrupts.Interrupted) as stopped:
        try:
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                done.append("after the signal")
        finally:
            interrupts.reset()
    assert stopped.value.signum == signal.SIGTERM and done == ["after the signal"]


def test_a_signal_swallowed_where_exceptions_are_ignored_is_sent_again() -> None:
    """A signal that lands in a weakref callback or a ``__del__`` (run by the garbage collector in the middle of
    a command's code; the report hit one) raises there, where Python prints the exception and goes on; it is
    sent again and stops the command's own code."""
    from niah.util import interrupts

    class SignalsOnCollection:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(1000))  # the handler runs here, inside __del__: an exception Python ignores

    with interrupts.handling_signals(), pytest.raises(interrupts.Interrupted) as stopped:
        try:
            SignalsOnCollection()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # the command's own work
                sum(range(1000))
        finally:
            interrupts.reset()
    assert stopped.value.signum == signal.SIGINT
