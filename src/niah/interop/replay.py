"""``niah import responses``: another harness's replies written as a niah run directory.

The replies go through :func:`niah.run.run_dataset` with a backend that answers each sample from the harness
log instead of a model, so the run directory is exactly what ``niah run`` writes (run.json, responses.jsonl with
the same ids, request keys and row fields, in dataset order) and ``niah score`` / ``niah report`` read it
unchanged. The backend's identity names the harness, its model and the SHA-256 of the log, so importing a
changed log into the same directory is refused unless overwritten, as a changed model is for ``niah run``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from niah.interop.content import check_log_content
from niah.interop.logs import HarnessLog, HarnessReply, read_harness_log
from niah.models.base import Capabilities, ModelReply, ModelRequest, ModelSpec, PermanentModelError
from niah.run import RunSummary, run_dataset_sync
from niah.sample import Dataset
from niah.util.errors import ConfigError, DataError
from niah.util.iox import file_digest

#: The row error of a dataset sample the harness log has no reply for (with ``allow_missing``).
NOT_IN_LOG = "no reply in the harness log"


def _file_sha256(path: Path) -> str:
    try:
        return file_digest(path)
    except OSError as exc:
        raise DataError(f"cannot read the harness log: {exc.strerror}", file=path) from None


class HarnessReplayBackend:
    """A model backend that answers each sample with the reply the harness logged for it."""

    def __init__(self, spec: ModelSpec, replies: dict[str, HarnessReply], log_sha256: str, harness: str,
                 model: str | None) -> None:
        self.spec = spec
        # no declared limits: the harness already sent its prompts; nothing may be skipped or cut here
        self.capabilities = Capabilities(vision=True, video=True)
        self._replies = replies
        self._identity = {"provider": "harness", "harness": harness, "model": model, "log_sha256": log_sha256}

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    def max_in_flight(self, concurrency: int) -> int:
        return max(1, concurrency)

    async def generate(self, request: ModelRequest) -> ModelReply:
        sample = request.sample
        reply = self._replies.get(sample.id) if sample is not None else None
        if reply is None:
            raise PermanentModelError(NOT_IN_LOG)
        if reply.error is not None or reply.text is None:
            raise PermanentModelError(reply.error or "harness error")
        return ModelReply(text=reply.text)

    async def aclose(self) -> None:
        return None


@dataclass(slots=True)
class MatchedReplies:
    by_id: dict[str, HarnessReply]
    missing: list[tuple[int, str]]  # (samples.jsonl line, id) of dataset samples without a reply


def _id_field(log: HarnessLog, reply: HarnessReply) -> str:
    if log.harness == "lmms-eval":
        return "doc.niah_id"
    return "metadata.niah_id / id"


def match_replies(log: HarnessLog, dataset: Dataset) -> MatchedReplies:
    """Each reply of ``log`` paired with its dataset sample, by id or by position (lmms-eval ``doc_id``).

    An id the dataset lacks, a position past its end, and two different replies for one sample raise a
    DataError naming the log file and line; a sample logged twice with the same reply (lmms-eval writes one
    line per filter) is kept once."""
    numbered = [(lineno, sample.id) for lineno, sample in dataset.iter_numbered()]
    known = {sid for _, sid in numbered}
    by_id: dict[str, HarnessReply] = {}
    for reply in log.replies:
        if reply.sample_id is not None:
            sid = reply.sample_id
            if sid not in known:
                hint = "; store the niah id in the task's sample metadata as niah_id" if log.harness == "inspect" \
                    else "; run the task niah export lmms-eval wrote for this dataset"
                raise reply.located(f"sample id {sid[:200]!r} is not in the dataset {dataset.root}{hint}",
                                    _id_field(log, reply))
        else:
            assert reply.index is not None
            if reply.index >= len(numbered):
                raise reply.located(f"doc_id {reply.index} is past the end of the dataset {dataset.root} "
                                    f"({len(numbered)} samples; doc_id is the 0-based position in samples.jsonl)",
                                    "doc_id")
            sid = numbered[reply.index][1]
        first = by_id.get(sid)
        if first is not None:
            if (first.text, first.error) != (reply.text, reply.error):
                at = first.file + (f":{first.line}" if first.line is not None else "")
                raise reply.located(f"a second, different reply for sample {sid!r} (the first is at {at})",
                                    _id_field(log, reply))
            continue
        by_id[sid] = reply
    missing = [(lineno, sid) for lineno, sid in numbered if sid not in by_id]
    return MatchedReplies(by_id, missing)


def import_responses(harness: str, log_paths: str | Path | list[str | Path] | list[Path], dataset: str | Path,
                     out: str | Path, *, model: str | None = None, epoch: int = 1, filtered: bool = False,
                     allow_missing: bool = False, overwrite: bool = False,
                     media_roots: tuple[str | Path, ...] = ()) -> tuple[RunSummary, MatchedReplies]:
    """Write the niah run directory ``out`` holding the replies of the harness log(s) for ``dataset``.

    Several logs (a harness writes one per task) are read as one; samples then need their niah id in the log,
    as positions (lmms-eval ``doc_id``) are positions in one file's task only. Every dataset sample must have a
    reply unless ``allow_missing``; those without one are then recorded as failed rows (error
    :data:`NOT_IN_LOG`), as a request that never came back is in ``niah run``."""
    paths = [Path(p) for p in log_paths] if isinstance(log_paths, list) else [Path(log_paths)]
    if not paths:
        raise ConfigError("no harness log given")
    ds = Dataset(dataset, media_roots=media_roots)
    logs = [read_harness_log(harness, path, epoch=epoch, filtered=filtered) for path in paths]
    if len(logs) > 1:
        for log in logs:
            positional = next((r for r in log.replies if r.sample_id is None), None)
            if positional is not None:
                raise positional.located("names its sample by position only, which is ambiguous across several "
                                         "logs; store the niah id in the doc as niah_id, or import one log",
                                         "doc.niah_id")
    merged = HarnessLog(harness, paths[0], next((log.model for log in logs if log.model), None),
                        [reply for log in logs for reply in log.replies])
    matched = match_replies(merged, ds)
    check_log_content(merged, matched.by_id, ds)  # a log of another dataset's samples is refused, not scored
    if matched.missing and not allow_missing:
        lineno, sid = matched.missing[0]
        names = ", ".join(str(p) for p in paths)
        raise DataError(f"{len(matched.missing)} dataset sample(s) have no reply in {names} (first: {sid!r}); "
                        "pass --allow-missing to record them as failed", file=ds.samples_path, line=lineno,
                        field="id")
    label = model or merged.model or "unknown"
    if any(c.isspace() for c in label) or not label:
        raise ConfigError(f"model name {label!r} must be non-empty without spaces")
    spec = ModelSpec(provider="harness", name=f"{harness}:{label}")
    digest = _file_sha256(paths[0]) if len(paths) == 1 else hashlib.sha256(
        "".join(_file_sha256(p) for p in paths).encode("ascii")).hexdigest()
    backend = HarnessReplayBackend(spec, matched.by_id, digest, harness, label)
    summary = run_dataset_sync(ds, backend, out, progress=False, use_cache=False, overwrite=overwrite)
    return summary, matched
