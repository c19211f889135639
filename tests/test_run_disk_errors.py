"""A full disk stops `niah run` at once (issue 21): no producer left waiting on a full queue, one line on stderr,
run.json finalized as failed, and a rerun after space frees resumes without asking a finished sample again.

The disk error is injected at the cache's write (the first local write of every reply) in a real `niah run`
process, so nothing here fills a real disk."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from niah.run import RESPONSES_JSONL, RUN_JSON
from support.datasets import write_text_prompts
from support.openai_server import OpenAIServer
from support.processes import niah_env

#: Runs `niah ARGS` with ResponseCache.put (or ResponsesLog.append) raising ENOSPC after WRITES good writes; the
#: first failed write touches MARKER so the test can time the stop from there.
_DRIVER = """
import errno, pathlib, sys
from niah import run
from niah.run import cache
target, writes, marker = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
cls, name = (cache.ResponseCache, "put") if target == "cache" else (run.ResponsesLog, "append")
real = getattr(cls, name)
count = [0]
def failing(self, *args):
    count[0] += 1
    if count[0] > writes:
        marker.touch()
        raise OSError(errno.ENOSPC, "No space left on device")
    return real(self, *args)
setattr(cls, name, failing)
from niah.cli import main
sys.argv = ["niah", *sys.argv[4:]]
main()
"""


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / RESPONSES_JSONL).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("target", ["cache", "responses"])
def test_a_full_disk_stops_the_run_at_once_and_a_rerun_resumes_exactly(tmp_path, target):
    n = 60
    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(n)])
    run_dir, marker = tmp_path / "run", tmp_path / "first-failed-write"
    with OpenAIServer(delay_s=0.01) as srv:
        args = ["run", str(ds), "--model", "openai:echo", "--base-url", srv.base_url, "--out", str(run_dir),
                "--no-progress", "--concurrency", "2"]
        proc = subprocess.Popen([sys.executable, "-c", _DRIVER, target, "5", str(marker), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=niah_env())
        try:
            deadline = time.monotonic() + 300  # a hang guard, not a measurement
            while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert marker.exists(), "the injected disk error never happened"
            # today's main: the workers stop, the producer waits on the full queue forever
            _, err = proc.communicate(timeout=120)  # a hang guard too: before the fix it waited forever
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        lines = [line for line in err.splitlines() if line.strip()]
        assert proc.returncode == 2
        assert len(lines) == 1, err
        assert "disk error" in lines[0] and "No space left on device" in lines[0] and "rerun" in lines[0]
        meta = json.loads((run_dir / RUN_JSON).read_text())
        assert meta["status"] == "failed" and meta["interrupted"] == "disk error" and meta["complete"] is False
        assert "No space left on device" in meta["error"]
        first = srv.requests_by_marker()
        done_first = {r["id"] for r in _rows(run_dir) if r["status"] == "ok"}
        assert 0 < len(done_first) < n

        resumed = subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True,
                                 timeout=120, env=niah_env())
        assert resumed.returncode == 0, resumed.stderr
        total = srv.requests_by_marker()
    meta = json.loads((run_dir / RUN_JSON).read_text())
    assert meta["complete"] is True and meta["counts"]["answered"] == n and "status" not in meta
    again = {m for m, c in total.items() if c > first.get(m, 0)}
    assert not again & done_first  # nothing finished before the disk filled was asked again
    assert {r["id"] for r in _rows(run_dir)} == {f"retrieval-text/{i:05d}" for i in range(n)}


def test_a_full_disk_under_the_frame_cache_stops_the_run_and_names_the_cache(tmp_path, monkeypatch):
    """The frame cache (by default in /tmp, often another disk than the run's) filling up is a disk error too:
    the run stops at the first failed frame write, naming the cache, instead of recording every later video
    sample as a failed "data error" after decoding it; a rerun once space frees resumes exactly."""
    import errno

    from niah.run import RunDiskError, run_dataset_sync
    from niah.sample import DatasetWriter, Sample, TextPart, VideoPart
    from niah.util.iox import write_atomic
    from niah.video import expand
    from support.videos import barcode_video

    ds, cache = tmp_path / "ds", tmp_path / "frames"
    monkeypatch.setenv("NIAH_FRAME_CACHE", str(cache))
    with DatasetWriter(ds) as w:
        for i in range(6):
            video = barcode_video(tmp_path / f"v{i}.mp4", seconds=1 + i / 4, fps=8, keyframe_interval=1)
            w.write_media(f"v{i}.mp4", video.read_bytes())
            w.write(Sample(id=f"watch/{i}", benchmark="vbench", task="watch",
                           context=[VideoPart(path=f"media/v{i}.mp4")], question=[TextPart("?")], answer="x"))
        w.finish({"benchmark": "vbench"})
    plans, failed = [0], [0]

    def full_after_two_videos(path, data):
        if plans[0] == 2:  # two videos' frames and plan.json written, then the disk is full
            failed[0] += 1
            raise OSError(errno.ENOSPC, "No space left on device")
        plans[0] += path.name == "plan.json"
        return write_atomic(path, data)

    monkeypatch.setattr(expand, "write_atomic", full_after_two_videos)
    run_dir = tmp_path / "run"
    with pytest.raises(RunDiskError, match=rf"disk error writing {cache}.*No space left on device.*rerun") as info:
        run_dataset_sync(ds, "baseline:random", run_dir, progress=False)
    assert failed[0] == 1  # stopped at the first failed write: no later video was decoded
    rows = _rows(run_dir)
    assert [r["status"] for r in rows] == ["ok", "ok"] and "data error" not in str(info.value)
    meta = json.loads((run_dir / RUN_JSON).read_text())
    assert meta["status"] == "failed" and meta["interrupted"] == "disk error" and meta["complete"] is False

    monkeypatch.setattr(expand, "write_atomic", write_atomic)  # space freed
    again = run_dataset_sync(ds, "baseline:random", run_dir, progress=False)
    assert again.resumed == 2 and again.answered == 6 and again.failed == 0
    assert json.loads((run_dir / RUN_JSON).read_text())["complete"] is True


def test_a_full_disk_under_a_shared_response_cache_names_the_cache(tmp_path):
    """A shared ``--cache-dir`` on another disk filling up: the stop names the cache file (a write to a full disk
    carries no path, so the line used to send the user to the run folder, which had space)."""
    from niah.run import RunDiskError, run_dataset_sync
    from niah.run.cache import CACHE_JSONL

    ds = write_text_prompts(tmp_path / "ds", [f"Prompt {i}" for i in range(4)])
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    (shared / CACHE_JSONL).symlink_to("/dev/full")  # every write to it fails with ENOSPC, as on a full disk
    run_dir = tmp_path / "run"
    with pytest.raises(RunDiskError, match=rf"disk error writing {shared / CACHE_JSONL} .*No space left") as info:
        run_dataset_sync(ds, "baseline:random", run_dir, progress=False, cache_dir=shared, concurrency=1)
    assert f"writing {run_dir} " not in str(info.value)
    meta = json.loads((run_dir / RUN_JSON).read_text())
    assert meta["status"] == "failed" and meta["interrupted"] == "disk error"
