"""The response cache: an append-only JSONL log plus a SQLite (WAL) index, keyed by a request fingerprint.

Why both: the JSONL log is the durable record (each response is one line, written and flushed as it
arrives, readable with any tool, as lmms-eval keeps its logs); the SQLite table is the index that answers
"do we already have this request?" in O(1) without reading the log. The log is the source of truth: on open,
lines the index has not seen yet (a process killed between the two writes) are indexed, and a torn last line
(a process killed mid-write) is cut off. Appends hold an exclusive ``flock`` so several runs can share one
cache directory.

The key (:func:`request_fingerprint`) is a SHA-256 over canonical JSON of exactly what determines a reply:
the model identity, the rendered prompt parts (images by the SHA-256 of their bytes, so moving a dataset
keeps its cache valid) and the generation settings. Only successful replies are cached; failures are retried
on the next run. Nothing secret is stored: identities never include API keys or URLs.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from niah.util.errors import ConfigError
from niah.util.iox import (
    file_digest,
    name_failed_file,
    open_append,
    open_lock,
    open_update,
    private_dir,
    real_dir,
    refuse_link,
)

if TYPE_CHECKING:
    from niah.models.base import GenerationSettings
    from niah.prompts.types import RenderedPrompt

CACHE_JSONL = "cache.jsonl"
CACHE_SQLITE = "cache.sqlite"
CACHE_LOCK = "cache.lock"
FINGERPRINT_VERSION = 1
#: Index entries written per SQLite transaction (see :meth:`ResponseCache.put`); 1 commits every reply.
DEFAULT_INDEX_BATCH = 64


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: equal objects give identical strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical_json_ascii(obj: Any) -> str:
    """:func:`canonical_json` with non-ASCII escaped: always encodable, even for lone surrogates."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


class MediaHasher:
    """SHA-256 of media files, remembered by (path, size, mtime) so each file is read once per run."""

    def __init__(self, max_entries: int = 65536) -> None:
        self._known: OrderedDict[tuple[str, int, int], str] = OrderedDict()
        self._max = max_entries

    def __call__(self, path: Path) -> str:
        st = path.stat()
        key = (str(path), st.st_size, st.st_mtime_ns)
        digest = self._known.get(key)
        if digest is None:
            digest = file_digest(path)
            self._known[key] = digest
            if len(self._known) > self._max:
                self._known.popitem(last=False)
        return digest


def prompt_fingerprint_parts(prompt: RenderedPrompt, hasher: MediaHasher) -> list[dict[str, Any]]:
    from niah.sample import ImagePart, TextPart

    out: list[dict[str, Any]] = []
    for part in prompt.parts:
        if isinstance(part, TextPart):
            out.append({"text": part.text})
        elif isinstance(part, ImagePart):
            out.append({"image": hasher(prompt.resolve(part.path))})
        else:
            video: dict[str, Any] = {}
            if part.path is not None:
                video["file"] = hasher(prompt.resolve(part.path))
            if part.frames:
                video["frames"] = [hasher(prompt.resolve(f)) for f in part.frames]
            if part.fps is not None:
                video["fps"] = part.fps
            if part.subtitles is not None:
                video["subtitles"] = hasher(prompt.resolve(part.subtitles))
            out.append({"video": video})
    return out


def request_fingerprint(model_identity: Mapping[str, Any], prompt: RenderedPrompt,
                        generation: GenerationSettings, hasher: MediaHasher | None = None,
                        sample_material: Any = None) -> str:
    """The cache key of one request (hex SHA-256). ``sample_material`` is whatever besides the prompt a
    backend's reply depends on (the oracle's gold answer); None for real models, and then left out."""
    payload: dict[str, Any] = {
        "v": FINGERPRINT_VERSION,
        "model": dict(model_identity),
        "system": prompt.system,
        "parts": prompt_fingerprint_parts(prompt, hasher or MediaHasher()),
        "image_scale": prompt.image_scale,
        "generation": generation.to_json(),
    }
    if sample_material is not None:
        payload["sample"] = sample_material
    text = canonical_json(payload)
    if _SURROGATE.search(text):
        text = canonical_json_ascii(payload)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _filed_record(text: str, key: str) -> dict[str, Any] | None:
    """The cached record ``text`` when it answers ``key``: a JSON object whose own ``key`` is the key it is
    filed under (an index row copied under another request's key, or a line that is not a record, is a miss,
    so the request is sent)."""
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("key") != key:
        return None
    return record


def check_shared_cache_dir(folder: Path, *, create: bool = True) -> None:
    """A ``--cache-dir`` (shared between runs) must be the user's own private folder (:func:`niah.util.iox.private_dir`:
    whoever can write it decides the replies niah scores) and a cache folder: new, empty, or holding niah's cache
    files (never a dataset, a run or a home folder, which niah would write into). ``create=False``: checked
    before any work (``niah eval --config``), a missing folder is left to the run that first uses it."""
    from niah.util.iox import output_dir_problem

    def ours(path: Path) -> bool:
        return any(os.path.lexists(path / name) for name in (CACHE_JSONL, CACHE_SQLITE, CACHE_LOCK))

    why = output_dir_problem(folder, kind="cache", ours=ours)
    if why is not None:
        raise ConfigError(f"--cache-dir {folder} {why}: give a folder of its own for the cache")
    private_dir(folder, what="response cache", fix="give --cache-dir a folder of your own", follow_links=True,
                create=create)


class ResponseCache:
    """One cache directory: ``cache.jsonl`` (append-only log), ``cache.sqlite`` (index), ``cache.lock``."""

    def __init__(self, directory: str | Path, *, index_batch: int | None = None, shared: bool = False) -> None:
        self.directory = Path(directory)
        if shared:
            check_shared_cache_dir(self.directory)
        else:
            try:
                real_dir(self.directory, "cache folder")
            except OSError as exc:
                raise ConfigError(f"cannot create cache directory {self.directory}: {exc}") from None
        self.jsonl_path = self.directory / CACHE_JSONL
        # a run's own cache lives in a folder others may have written (a downloaded run): no link is followed; a
        # shared cache is a private folder of the user's own (checked above), so a link in it is the user's
        self._follow = shared
        if not shared:
            for name in (CACHE_JSONL, CACHE_SQLITE, CACHE_SQLITE + "-wal", CACHE_SQLITE + "-shm"):
                refuse_link(self.directory / name, "cache file")  # SQLite would follow a link
        self._lock_fd = open_lock(self.directory / CACHE_LOCK, follow_links=shared)
        self._db = sqlite3.connect(self.directory / CACHE_SQLITE, timeout=30.0, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, record TEXT NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)")
        self._fh = None
        self.hits = 0
        self.writes = 0
        #: key -> (start offset, end offset, record line) of log lines not yet in the index
        self._pending: dict[str, tuple[int, int, str]] = {}
        self.index_batch = max(1, index_batch or DEFAULT_INDEX_BATCH)
        self._seen_size = 0  # log size as this process last saw it (grows with its own appends)
        self._catch_up()
        self._fh = open_append(self.jsonl_path, binary=True, follow_links=self._follow)

    # -- index maintenance -------------------------------------------------------------------------------

    def _indexed_offset(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE name='jsonl_offset'").fetchone()
        return int(row[0]) if row else 0

    def _catch_up(self) -> None:
        """Index log lines written after the index's last known offset; cut a torn last line."""
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            if not self.jsonl_path.exists():
                open_append(self.jsonl_path, binary=True, follow_links=self._follow).close()
            size = self.jsonl_path.stat().st_size
            offset = self._indexed_offset()
            if offset > size:  # the log was replaced or truncated by hand: rebuild the index from scratch
                self._db.execute("DELETE FROM entries")
                offset = 0
            if offset == size:
                return
            with open_update(self.jsonl_path, follow_links=self._follow) as fh:
                fh.seek(offset)
                tail = fh.read()
                last_newline = tail.rfind(b"\n")
                complete = tail[: last_newline + 1] if last_newline >= 0 else b""
                if len(complete) < len(tail):
                    fh.truncate(offset + len(complete))  # a writer died mid-line: drop the fragment
            self._db.execute("BEGIN")
            for raw in complete.splitlines():
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except json.JSONDecodeError:
                    continue  # never index a line we cannot read back
                key = record.get("key") if isinstance(record, dict) else None
                if isinstance(key, str):
                    self._db.execute("INSERT OR REPLACE INTO entries (key, record) VALUES (?, ?)",
                                     (key, raw.decode("utf-8")))
            self._db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('jsonl_offset', ?)",
                             (offset + len(complete),))
            self._db.execute("COMMIT")
        finally:
            self._seen_size = self.jsonl_path.stat().st_size
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    # -- public API ----------------------------------------------------------------------------------------

    def get(self, key: str) -> dict[str, Any] | None:
        pending = self._pending.get(key)
        if pending is not None:
            self.hits += 1
            return dict(json.loads(pending[2]))
        row = self._db.execute("SELECT record FROM entries WHERE key=?", (key,)).fetchone()
        if row is None and self._log_grew_elsewhere():
            # another process sharing this cache appended lines its index batch may not hold yet
            self.flush_index()
            self._catch_up()
            row = self._db.execute("SELECT record FROM entries WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        record = _filed_record(row[0], key)
        if record is None:
            return None
        self.hits += 1
        return record

    def _log_grew_elsewhere(self) -> bool:
        if self._fh is None:
            return False
        return os.fstat(self._fh.fileno()).st_size != self._seen_size

    def __contains__(self, key: str) -> bool:
        if key in self._pending:
            return True
        return self._db.execute("SELECT 1 FROM entries WHERE key=?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        self.flush_index()
        return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Append one line to the log (flushed to the OS before returning, so ``kill -9`` loses nothing) and
        queue it for the index. The index is written in batches: it only speeds up lookups, and lines it has
        not seen are indexed from the log when the cache is next opened, so batching costs no safety against
        a killed process, only SQLite writes (per-reply WAL commits were most of a run's disk writes)."""
        assert self._fh is not None, "cache is closed"
        entry = {"key": key, **{k: v for k, v in record.items() if k != "key"}}
        text = canonical_json(entry)
        if _SURROGATE.search(text):  # whatever a server sent, the line must be encodable
            text = canonical_json_ascii(entry)
        line = (text + "\n").encode("utf-8")
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            start = self._fh.seek(0, os.SEEK_END)
            self._fh.write(line)
            self._fh.flush()
        except OSError as exc:
            name_failed_file(exc, self.jsonl_path)
            raise
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
        if start == self._seen_size:  # nobody else appended since we last looked
            self._seen_size = start + len(line)
        self._pending[key] = (start, start + len(line), text)
        self.writes += 1
        if len(self._pending) >= self.index_batch:
            self.flush_index()

    def flush_index(self) -> None:
        """Write queued entries to the SQLite index in one transaction."""
        if not self._pending:
            return
        spans = sorted(v[:2] for v in self._pending.values())
        contiguous = all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO entries (key, record) VALUES (?, ?)",
                                 [(k, v[2]) for k, v in self._pending.items()])
            if contiguous:
                # Advance the indexed offset only over lines this batch covers without a gap (another
                # process sharing the cache may have appended between them; catch-up indexes those).
                start, end = spans[0][0], spans[-1][1]
                self._db.execute("UPDATE meta SET value=? WHERE name='jsonl_offset' AND value=?", (end, start))
                self._db.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('jsonl_offset', ?)",
                                 (end if start == 0 else 0,))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            name_failed_file(exc, self.directory / CACHE_SQLITE)
            raise
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
        self._pending.clear()

    def close(self) -> None:
        """Flush the index and close; the files are closed even when the flush fails (a full disk), and
        that failure is raised after: lines the index missed are indexed from the log on the next open."""
        if self._lock_fd < 0:
            return
        try:
            if self._fh is not None:
                self.flush_index()
        finally:
            fh, self._fh = self._fh, None
            lock_fd, self._lock_fd = self._lock_fd, -1
            try:
                if fh is not None:
                    fh.close()
            finally:
                self._db.close()
                os.close(lock_fd)

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CacheChain:
    """The run's own cache plus an optional shared one: look up in order, write to all."""

    def __init__(self, caches: list[ResponseCache]) -> None:
        self.caches = caches

    def get(self, key: str) -> dict[str, Any] | None:
        for i, cache in enumerate(self.caches):
            record = cache.get(key)
            if record is not None:
                for earlier in self.caches[:i]:  # copy a shared hit into the run's own cache
                    earlier.put(key, record)
                return record
        return None

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        for cache in self.caches:
            cache.put(key, record)

    def close(self) -> None:
        failure: BaseException | None = None
        for cache in self.caches:
            try:
                cache.close()
            except (OSError, sqlite3.Error) as exc:  # close every cache, then say what failed
                failure = failure or exc
        if failure is not None:
            raise failure
