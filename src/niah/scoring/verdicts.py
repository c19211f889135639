"""Judge verdicts stored in the run directory, reused by every judge verb and applied by ``niah score``.

Judge verbs (``niah judge <family> RUN``) grade responses with a :class:`niah.scoring.judges.Judge`. Their verdicts are
durable run data, kept in two files beside ``responses.jsonl``:

* ``judgments.jsonl``: append-only, one verdict a line, flushed as each verdict arrives (a killed judge run
  resumes without re-asking what it finished; a torn last line is cut on open). A verdict is keyed by what it
  judged: the sample id, the *response key* (the response row's ``request_key`` and a digest of its text, so an
  edited response or a rerun with another model is never covered by an old verdict), the family's judge kind
  (``fluency``, ``open``...) and the judge's fingerprint (model identity, prompt template text, parser,
  generation settings: a changed judge or prompt is never reused). The last line for a key wins.
* ``judged.json`` (written atomically): per benchmark, the judge pass last run: its judges (kind ->
  fingerprint and identity) and settings (e.g. a protocol). ``niah score RUN`` applies the stored verdicts of
  that pass through the family's :class:`~niah.benchmarks.protocol.JudgedScoring`, so it reproduces the
  judged numbers; ``niah score RUN --no-judged`` scores without them.

A verdict whose judge call failed or whose reply did not parse is stored as failed (``score`` null; each
family's protocol says what a failed verdict means: excluded and counted, or wrong). A reply that did not
parse is the judge's answer and is reused until the user asks again with ``--retry-failed``; a call that got
no reply at all (server down, key refused, deadline) is asked again by the next judge run on its own. Stored text is cleaned like a model's reply
(:func:`niah.run.clean_text`: keys masked, no lone surrogates or NULs) and capped. Both files are checked when
read (a row of the wrong shape is a :class:`~niah.util.errors.DataError` with file:line:field, never another verdict).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from niah.run.cache import canonical_json_ascii
from niah.util import interrupts
from niah.util.errors import DataError
from niah.util.iox import dumps_line, open_append, read_append_log, write_json_atomic
from niah.util.redact import redact

STORE_NAME = "judgments.jsonl"
PASSES_NAME = "judged.json"
MAX_RAW_CHARS = 20_000  # a judge reply kept beside its verdict (the verdict was parsed from the whole reply)


@dataclass(frozen=True, slots=True)
class StoredVerdict:
    """One stored verdict: ``score`` None when the judge call failed or its reply did not parse."""

    kind: str
    score: float | None
    raw: str | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.score is None

    @property
    def unanswered(self) -> bool:
        """Failed without a reply (the judge server was down, refused the key, timed out): not the judge's
        answer, so the next judge run asks again, as ``niah run`` re-asks a failed request."""
        return self.score is None and self.raw is None


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One judgement a verb needs: the sample, which of its judges (``kind``), the judge's three inputs and the
    key of the response judged (:func:`response_key`)."""

    sample_id: str
    kind: str
    question: str
    gold: str
    prediction: str | None
    response_key: str


@dataclass(slots=True)
class JudgeStats:
    """What :func:`judge_items` did: verdicts reused from the store, requests made, failures."""

    items: int = 0
    reused: int = 0
    asked: int = 0  # judgements sent to the judge (each may take several requests: retries, re-asks)
    failed_kept: int = 0  # stored failed verdicts reused (not asked again without --retry-failed)
    failed: int = 0  # failed verdicts among all items, stored and new
    verdicts: dict[tuple[str, str], StoredVerdict] = field(default_factory=dict)  # (sample id, kind) -> verdict


def flagged_items(items: Sequence[JudgeItem]) -> list[str]:
    """The samples (each once, in order) whose reply the judge reads holds judge-like instructions
    (:func:`niah.scoring.judges.judge_like_instructions`): their verdicts are flagged, and every judge verb says
    how many (:func:`niah.commands.judge_options.note_flagged`)."""
    from niah.scoring.judges import judge_like_instructions

    return list(dict.fromkeys(item.sample_id for item in items if judge_like_instructions(item.prediction)))


def response_key(row: Mapping[str, Any] | None) -> str:
    """What a response row answers and says: its ``request_key`` and a digest of its text (None: no reply)."""
    if row is None:
        return "no-row"
    response = row.get("response")
    text = response if isinstance(response, str) else None
    payload = {"request_key": row.get("request_key"), "response": text}
    return hashlib.sha256(canonical_json_ascii(payload).encode("ascii")).hexdigest()[:32]


def judge_fingerprint(judge: Any) -> str:
    """The judge's identity for the store: model identity, template name and text, parser, generation."""
    template = judge.template
    payload = {"identity": judge.identity(), "system": template.system, "user": template.user,
               "reminder": template.reminder, "generation": _generation(judge.generation)}
    return hashlib.sha256(canonical_json_ascii(payload).encode("ascii")).hexdigest()[:32]


def _generation(settings: Any) -> Any:
    from dataclasses import asdict, is_dataclass

    return asdict(settings) if is_dataclass(settings) and not isinstance(settings, type) else repr(settings)


def verdict_key(sample_id: str, response: str, kind: str, fingerprint: str) -> str:
    payload = {"id": sample_id, "response": response, "kind": kind, "judge": fingerprint}
    return hashlib.sha256(canonical_json_ascii(payload).encode("ascii")).hexdigest()


def _check_row(row: Any, path: Path, lineno: int) -> None:
    """A stored verdict is applied to scores as it stands, so a row of the wrong shape is refused (file:line:
    field), never read as some other verdict (``true`` as 1.0, ``"1"`` as a failure)."""
    import math

    def bad(field: str, what: str) -> DataError:
        return DataError(what, file=path, line=lineno, field=field)

    if not isinstance(row, dict) or not isinstance(row.get("key"), str):
        raise bad("key", "a verdict row must be an object with a string 'key'")
    for name in ("id", "kind", "response_key", "judge"):
        if not isinstance(row.get(name), str):
            raise bad(name, "must be a string")
    score = row.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                              or not math.isfinite(score)):
        raise bad("score", f"must be a finite number or null, not {score!r}")
    for name in ("raw", "error"):
        if row.get(name) is not None and not isinstance(row[name], str):
            raise bad(name, "must be a string or null")
    status = row.get("status")
    if status not in ("ok", "failed") or (status == "ok") != (score is not None):
        raise bad("score" if status in ("ok", "failed") else "status",
                  f"status {status!r} does not match score {score!r} ('ok' has a score, 'failed' has none)")
    if row["key"] != verdict_key(row["id"], row["response_key"], row["kind"], row["judge"]):
        raise bad("key", "is not the key of this row's id, response_key, kind and judge (edited by hand?)")


class VerdictStore:
    """``judgments.jsonl`` of a run: read on open (last line per key wins), appended to and flushed per verdict."""

    def __init__(self, run_dir: str | Path, *, writable: bool = False) -> None:
        self.path = Path(run_dir) / STORE_NAME
        self.rows: dict[str, dict[str, Any]] = {}
        self._fh: IO[str] | None = None
        if self.path.exists():  # a killed judge run's torn last line is cut when writing
            for lineno, row in read_append_log(self.path, repair=writable):
                _check_row(row, self.path, lineno)
                self.rows[row["key"]] = row
        if writable:
            self._fh = open_append(self.path)

    def get(self, key: str) -> StoredVerdict | None:
        row = self.rows.get(key)
        if row is None:
            return None
        score = row.get("score")
        return StoredVerdict(str(row.get("kind")), float(score) if isinstance(score, (int, float)) else None,
                             row.get("raw"), row.get("error"))

    def append(self, key: str, item: JudgeItem, fingerprint: str, verdict: StoredVerdict, attempts: int) -> None:
        if self._fh is None:
            raise RuntimeError("the verdict store was opened read-only")
        from niah.run import clean_text

        # a judge server's text, made safe like a model's: no lone surrogates or NULs, keys masked, bounded
        raw = clean_text(verdict.raw) if verdict.raw is not None else None
        row = {"key": key, "id": item.sample_id, "kind": item.kind, "response_key": item.response_key,
               "judge": fingerprint, "score": verdict.score, "status": "failed" if verdict.failed else "ok",
               "raw": raw[:MAX_RAW_CHARS] if raw is not None else None,
               "error": clean_text(verdict.error)[:2000] if verdict.error is not None else None,
               "attempts": attempts}
        if raw is not None and len(raw) > MAX_RAW_CHARS:
            row["raw_truncated_from"] = len(raw)
        self._fh.write(dumps_line(row))
        self._fh.flush()
        self.rows[key] = row

    def close(self) -> None:
        if self._fh is not None and not self._fh.closed:
            self._fh.close()


def judge_items(run_dir: str | Path, items: Sequence[JudgeItem], judges: Mapping[str, Any], *,
                concurrency: int = 8, retry_failed: bool = False, progress: bool = True) -> JudgeStats:
    """Verdicts for ``items`` (``judges`` maps each item's kind to a :class:`niah.scoring.judges.Judge`): stored ones
    are reused, the rest are asked (at most ``concurrency`` in flight) and stored as they arrive. Stored failed
    verdicts are asked again only with ``retry_failed``. Says on stderr how many were reused and asked."""
    stats = JudgeStats(items=len(items))
    prints = {kind: judge_fingerprint(judge) for kind, judge in judges.items()}
    load_passes(run_dir)  # a damaged judged.json is refused before any request, not after the last
    store = VerdictStore(run_dir, writable=True)
    todo: list[tuple[str, JudgeItem]] = []
    for item in items:
        key = verdict_key(item.sample_id, item.response_key, item.kind, prints[item.kind])
        stored = store.get(key)
        if stored is not None and not stored.unanswered and not (stored.failed and retry_failed):
            stats.reused += 1
            stats.failed_kept += stored.failed
            stats.verdicts[(item.sample_id, item.kind)] = stored
        else:
            todo.append((key, item))
    # a missing prediction is graded without a request (the judge scores it 0)
    stats.asked = sum(item.prediction is not None for _, item in todo)
    if progress:
        kept = (f"; {stats.failed_kept} of them failed (pass --retry-failed to ask those again)"
                if stats.failed_kept else "")
        print(f"judge: {stats.reused} verdicts reused from {store.path}{kept}, {stats.asked} to ask",
              file=sys.stderr)

    async def go() -> None:
        for judge in judges.values():
            judge.set_concurrency(concurrency)
        semaphore = asyncio.Semaphore(max(1, concurrency))
        done = 0

        async def one(key: str, item: JudgeItem) -> None:
            nonlocal done
            async with semaphore:
                v = await judges[item.kind].judge(item.question, item.gold, item.prediction)
            verdict = StoredVerdict(item.kind, v.score, v.raw, v.error)
            store.append(key, item, prints[item.kind], verdict, v.attempts)
            stats.verdicts[(item.sample_id, item.kind)] = verdict
            done += 1
            if progress:
                from niah.util.console import counter

                counter("judge", done, len(todo), "asked")

        try:
            await asyncio.gather(*(one(key, item) for key, item in todo))
        finally:
            for judge in judges.values():
                await judge.aclose()
            if progress and todo:
                print(file=sys.stderr)

    try:
        interrupts.run_async(go())  # Ctrl-C or SIGTERM: what was stored is kept
    finally:
        store.close()
    stats.failed = sum(v.failed for v in stats.verdicts.values())
    return stats


# ------------------------------------------------------------------------------------------- judge passes


@dataclass(frozen=True, slots=True)
class JudgePass:
    """The judge pass of one benchmark that ``niah score`` applies: kind -> fingerprint, and settings."""

    benchmark: str
    judges: Mapping[str, str]
    identities: Mapping[str, Any]
    settings: Mapping[str, Any]


def record_pass(run_dir: str | Path, benchmark: str, judges: Mapping[str, Any],
                settings: Mapping[str, Any] | None = None) -> JudgePass:
    """Make this pass the one ``niah score`` applies for ``benchmark`` (``judged.json``, written atomically)."""
    path = Path(run_dir) / PASSES_NAME
    passes = _read_passes_file(path)
    entry = {"judges": {kind: {"fingerprint": judge_fingerprint(judge),
                               "identity": json.loads(redact(json.dumps(judge.identity())))}
                        for kind, judge in judges.items()},
             "settings": json.loads(redact(json.dumps(dict(settings or {})))), "store": STORE_NAME}
    passes[benchmark] = entry
    write_json_atomic(path, passes)
    return _pass_of(benchmark, entry, path)


def _read_passes_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        obj = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(f"invalid UTF-8 at byte {exc.start}", file=path) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    if not isinstance(obj, dict):
        raise DataError("must be a JSON object", file=path)
    return obj


def _pass_of(benchmark: str, entry: Any, path: Path) -> JudgePass:
    if not isinstance(entry, dict) or not isinstance(entry.get("judges"), dict):
        raise DataError("must be an object with 'judges'", file=path, field=benchmark)
    judges: dict[str, str] = {}
    identities: dict[str, Any] = {}
    for kind, spec in entry["judges"].items():
        if not isinstance(spec, dict) or not isinstance(spec.get("fingerprint"), str):
            raise DataError("must be an object with a string 'fingerprint'", file=path,
                            field=f"{benchmark}.judges.{kind}")
        judges[kind] = spec["fingerprint"]
        identities[kind] = spec.get("identity")
    settings = entry.get("settings") or {}
    if not isinstance(settings, dict):
        raise DataError("must be an object", file=path, field=f"{benchmark}.settings")
    return JudgePass(benchmark, judges, identities, settings)


def load_passes(run_dir: str | Path) -> dict[str, JudgePass]:
    """The judge passes recorded for a run (empty when no judge verb ran)."""
    path = Path(run_dir) / PASSES_NAME
    return {name: _pass_of(name, entry, path) for name, entry in _read_passes_file(path).items()}


def pass_verdicts(store: VerdictStore, judge_pass: JudgePass, sample_id: str, response: str
                  ) -> dict[str, StoredVerdict]:
    """The stored verdicts of ``judge_pass`` on this sample's response, by kind (absent kinds: not judged)."""
    out: dict[str, StoredVerdict] = {}
    for kind, fingerprint in judge_pass.judges.items():
        verdict = store.get(verdict_key(sample_id, response, kind, fingerprint))
        if verdict is not None:
            out[kind] = verdict
    return out
