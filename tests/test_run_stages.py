"""The run's four stages, each used alone (niah.run.plan, .media, .send, .record), and where sampled frames
are kept: with the run's own files, never in a folder shared under /tmp."""

from __future__ import annotations

import ast
import asyncio
import io
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import niah.run
from niah.models.base import (
    Capabilities,
    GenerationSettings,
    ModelReply,
    ModelRequest,
    ModelSpec,
    RetryableModelError,
)
from niah.models.registry import load_backend, parse_model_spec
from niah.prompts.types import PromptOptions
from niah.run import RESPONSES_JSONL, RetryPolicy, run_dataset_sync
from niah.run.cache import CacheChain, ResponseCache
from niah.run.media import MediaStage
from niah.run.plan import Planner, Step, iter_selected
from niah.run.rundir import RequestLedger, ResponsesLog
from niah.run.send import CallOutcome, Job, Sender
from niah.sample import Dataset, DatasetWriter, Sample, TextPart, VideoPart
from support.datasets import write_text_prompts
from support.videos import barcode_video


def _plan(ds: Dataset, run_dir: Path, model: str = "baseline:random") -> list[Step]:
    """Every step the plan stage decides for ``ds`` against what ``run_dir`` already holds."""
    backend = load_backend(parse_model_spec(model))
    run_dir.mkdir(parents=True, exist_ok=True)
    log = ResponsesLog(run_dir / RESPONSES_JSONL)
    caches = CacheChain([ResponseCache(run_dir / "cache")])

    async def collect() -> list[Step]:
        media = MediaStage(ds.media_root, backend.capabilities, PromptOptions(), run_dir / "cache" / "frames")
        planner = Planner(ds, media, identity=backend.identity(),
                          sample_material=getattr(backend, "sample_key_material", None),
                          generation=GenerationSettings(), log=log, caches=caches,
                          selection=lambda: iter_selected(ds, None, None))
        try:
            return [step async for step in planner.steps()]
        finally:
            media.close()

    try:
        return asyncio.run(collect())
    finally:
        log.close()
        caches.close()


def test_the_plan_decides_send_then_resume_then_cache(tmp_path: Path) -> None:
    ds = Dataset(write_text_prompts(tmp_path / "ds", ["The secret ingredient is oak."] * 3))
    first = _plan(ds, tmp_path / "fresh")
    assert [s.kind for s in first] == ["send"] * 3
    assert all(s.job is not None and s.key and s.req_key for s in first)
    assert len({s.req_key for s in first}) == 3  # one request per sample (its id is in the question)

    run_dataset_sync(ds, "baseline:random", tmp_path / "run", progress=False)
    assert [s.kind for s in _plan(ds, tmp_path / "run")] == ["resumed"] * 3
    # another run folder sharing the first one's cache: nothing to send, every reply from the cache
    (tmp_path / "other" / "cache").mkdir(parents=True)
    log = (tmp_path / "run" / "cache" / "cache.jsonl").read_bytes()  # the index is rebuilt from the log
    (tmp_path / "other" / "cache" / "cache.jsonl").write_bytes(log)
    cached = _plan(ds, tmp_path / "other")
    assert [s.kind for s in cached] == ["cached"] * 3 and all(isinstance(s.hit, dict) for s in cached)


def test_the_plan_records_an_unreadable_image_as_that_samples_failure(tmp_path: Path) -> None:
    from niah.sample import ImagePart

    out = tmp_path / "ds"
    with DatasetWriter(out) as w:
        w.write_media("a.png", b"not a png")
        w.write(Sample("s/0", "vbench", "look", [ImagePart("media/a.png")], [TextPart("?")], answer="x"))
        w.write(Sample("s/1", "vbench", "look", [TextPart("fine")], [TextPart("?")], answer="x"))
        w.finish({"benchmark": "vbench"})
    (out / "media" / "a.png").unlink()  # gone after the build: planning it fails, the next sample goes on
    steps = _plan(Dataset(out), tmp_path / "run")
    assert [s.kind for s in steps] == ["failed", "send"] and "a.png" in (steps[0].error or "")


class _FlakyBackend:
    """Fails each sample's first attempt with a retryable error, then answers; counts what it was sent."""

    spec = ModelSpec(provider="baseline", name="flaky")
    capabilities = Capabilities()

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.in_flight = self.most_in_flight = 0

    def identity(self) -> dict[str, Any]:
        return {"provider": "test", "model": "flaky"}

    def max_in_flight(self, concurrency: int) -> int:
        return concurrency

    async def generate(self, request: ModelRequest) -> ModelReply:
        sid = request.sample.id
        self.seen[sid] = self.seen.get(sid, 0) + 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            if self.seen[sid] == 1:
                raise RetryableModelError("HTTP 503", status=503)
            return ModelReply(text=f"answer {sid}")
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        return None


def _send_all(sender: Sender, steps: list[Step], on_outcome: Callable[[Job, CallOutcome], None],
              on_crash: Callable[[Job, Exception], None]) -> None:
    """Every planned job through ``sender``, as the runner wires the stages."""
    async def produce() -> None:
        for step in steps:
            assert step.job is not None
            await sender.submit(step.job)
        await sender.no_more_jobs()

    asyncio.run(sender.serve(produce, on_outcome, on_crash))


def test_the_sender_retries_bounds_what_is_in_flight_and_logs_every_attempt(tmp_path: Path) -> None:
    ds = Dataset(write_text_prompts(tmp_path / "ds", ["x"] * 6))
    steps = _plan(ds, tmp_path / "plan")
    backend = _FlakyBackend()
    ledger = RequestLedger(tmp_path / "requests.log")
    outcomes: dict[str, CallOutcome] = {}

    def on_outcome(job: Job, outcome: CallOutcome) -> None:
        outcomes[job.sample.id] = outcome

    _send_all(Sender(backend, concurrency=2, retry=RetryPolicy(max_attempts=3, initial_delay=0.0, max_delay=0.0),
                     rpm=None, ledger=ledger, options=PromptOptions()), steps,
              on_outcome, lambda job, exc: pytest.fail(f"{job.sample.id}: {exc}"))
    ledger.close()
    assert {sid: o.attempts for sid, o in outcomes.items()} == {s.sample.id: 2 for s in steps}
    assert all(o.reply is not None and o.reply.text == f"answer {sid}" for sid, o in outcomes.items())
    assert backend.most_in_flight == 2
    lines = [json.loads(line) for line in (tmp_path / "requests.log").read_text().splitlines()]
    assert len(lines) == 12 and sorted(line["attempt"] for line in lines) == [1] * 6 + [2] * 6


def test_a_crash_while_recording_one_reply_fails_that_sample_only(tmp_path: Path) -> None:
    ds = Dataset(write_text_prompts(tmp_path / "ds", ["x"] * 3))
    steps = _plan(ds, tmp_path / "plan")
    ledger = RequestLedger(tmp_path / "requests.log")
    crashed: list[str] = []

    def on_outcome(job: Job, outcome: CallOutcome) -> None:
        if job.sample.id.endswith("1"):
            raise KeyError("a bug in recording")

    _send_all(Sender(load_backend(parse_model_spec("baseline:random")), concurrency=1, retry=RetryPolicy(),
                     rpm=None, ledger=ledger, options=PromptOptions()), steps,
              on_outcome, lambda job, exc: crashed.append(job.sample.id))
    ledger.close()
    assert crashed == ["retrieval-text/00001"]


# ------------------------------------------------------------------------------------------------ frame cache


@pytest.fixture
def video_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("NIAH_FRAME_CACHE", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where a shared default would go
    (tmp_path / "tmp").mkdir()
    ds = tmp_path / "ds"
    with DatasetWriter(ds) as w:
        w.write_media("v.mp4", barcode_video(tmp_path / "v.mp4", seconds=2, fps=8, keyframe_interval=1).read_bytes())
        w.write(Sample("watch/0", "vbench", "watch", [VideoPart(path="media/v.mp4")], [TextPart("?")], answer="x"))
        w.finish({"benchmark": "vbench"})
    return ds


def _frame_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.jpg")) if folder.exists() else []


def test_a_runs_frames_are_kept_in_its_own_folder(video_dataset: Path, tmp_path: Path) -> None:
    run_dataset_sync(video_dataset, "baseline:random", tmp_path / "run", progress=False,
                     prompt_options=PromptOptions(max_frames=4))
    frames = tmp_path / "run" / "cache" / "frames"
    assert len(_frame_files(frames)) == 4
    assert (frames.stat().st_mode & 0o777) == 0o700
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing in the temp folder


def test_frames_under_a_shared_cache_dir_are_sampled_once_for_every_run(video_dataset: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    options = PromptOptions(max_frames=4)
    first = run_dataset_sync(video_dataset, "baseline:random", tmp_path / "a", progress=False, cache_dir=shared,
                             prompt_options=options)
    assert len(_frame_files(shared / "frames")) == 4 and _frame_files(tmp_path / "a") == []

    from niah.video import frames as frames_module

    def no_decoding(*args: object, **kwargs: object) -> None:
        raise AssertionError("the video was decoded again")

    monkeypatch.setattr(frames_module, "sample_video", no_decoding)
    second = run_dataset_sync(video_dataset, "baseline:random", tmp_path / "b", progress=False, cache_dir=shared,
                              prompt_options=options)
    assert second.cached == 1 and second.answered == first.answered == 1


def test_a_dry_run_leaves_no_frames_behind(video_dataset: Path, tmp_path: Path) -> None:
    stream = io.StringIO()
    summary = run_dataset_sync(video_dataset, "baseline:random", tmp_path / "run", progress=False, dry_run=True,
                               dry_run_stream=stream, prompt_options=PromptOptions(max_frames=4))
    assert summary.total == 1 and "images=4" in stream.getvalue()
    assert not (tmp_path / "run").exists() and list((tmp_path / "tmp").iterdir()) == []


# ------------------------------------------------------------------------------------------------ shape


def test_every_function_of_the_runner_is_short() -> None:
    """Each stage's functions stay readable in one screen (about 80 lines, docstring included)."""
    folder = Path(niah.run.__file__).parent
    long = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 80:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({length} lines)")
    assert long == []
