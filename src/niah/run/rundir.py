"""RUN_DIR's files, which every stage of a run reads or writes: the lock, run.json, responses.jsonl and
requests.log, with the rules for resuming into a folder that holds an earlier run."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from niah.util.errors import ConfigError, DataError
from niah.util.iox import (
    claim_output_dir,
    dumps_line,
    iter_jsonl,
    open_append,
    open_lock,
    open_regular,
    read_append_log,
    read_json_file,
    refuse_link,
    remove_stale_temp_files,
    write_atomic,
)

RUN_JSON = "run.json"
RESPONSES_JSONL = "responses.jsonl"
#: One line per request attempt, appended (and flushed) before the attempt is sent: what run.json counts as
#: requests, so a run killed with ``kill -9`` never under-reports what reached the server (or was billed).
REQUESTS_LOG = "requests.log"
#: The run's response cache; sampled video frames go in its ``frames`` folder (:mod:`niah.run.media`).
CACHE_SUBDIR = "cache"
LOCK_FILE = ".niah-run.lock"

#: What a failed local write raises: the OS's error, or SQLite's for the cache index on a full disk.
LOCAL_WRITE_ERRORS: tuple[type[BaseException], ...] = (OSError, sqlite3.Error)
#: The OS errors that say a disk cannot take more, whichever file was written (the run's, or the frame cache's
#: while a prompt is built): the run stops on them instead of failing sample after sample.
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResponsesLog:
    """``responses.jsonl`` during a run: append-only, flushed per row; a torn last line is cut on open."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, dict[str, Any]] = {}
        if path.exists():
            for _lineno, row in read_append_log(path, repair=True,
                                                hint="; move the file away to start the run again"):
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    previous = self.rows.get(row["id"])
                    if previous is None or previous.get("error") is not None or row.get("error") is None:
                        self.rows[row["id"]] = row
        self._fh: IO[str] = open_append(path)

    def finished(self, sample_id: str, key: str) -> dict[str, Any] | None:
        """The row of a sample that needs no new request: answered (or skipped by policy) for exactly the
        request ``key`` this run would send. A row for another request (the dataset, the model, the settings
        or the capabilities changed) is not reused."""
        row = self.rows.get(sample_id)
        if row is None or row.get("request_key") != key:
            return None
        if row.get("error") is None or row.get("status") == "skipped":
            return row
        return None

    def stale(self, sample_id: str, key: str) -> bool:
        """Whether the sample has a finished row that answers a different request than ``key``."""
        row = self.rows.get(sample_id)
        return row is not None and row.get("request_key") != key and (
            row.get("error") is None or row.get("status") == "skipped")

    def append(self, row: dict[str, Any]) -> None:
        self._fh.write(dumps_line(row))
        self._fh.flush()
        self.rows[row["id"]] = row

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def compact(self, order: list[str]) -> None:
        """Rewrite with one row per sample, in dataset order (rows of samples not in ``order`` follow)."""
        self.close()
        seen = set(order)
        lines = [dumps_line(self.rows[i]) for i in order if i in self.rows]
        lines += [dumps_line(row) for i, row in self.rows.items() if i not in seen]
        write_atomic(self.path, "".join(lines))


def read_request_log(path: Path) -> tuple[int, int]:
    """(attempts, retries) a ``requests.log`` holds: one line per attempt (a torn last line counts: the attempt
    was made), a retry being any attempt after the first; (0, 0) when there is no log."""
    attempts = retries = 0
    if path.exists():
        with open_regular(path, "request log") as fh:
            for line in fh:
                attempts += 1
                retries += b'"attempt": 1}' not in line
    return attempts, retries


class RequestLedger:
    """``requests.log``: one line per request attempt, written and flushed before the attempt is sent.

    It outlives every invocation (only ``--overwrite`` removes it), so its line count is every request the run
    directory ever sent, a killed invocation's included; a torn last line still counts (the attempt was made)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.before, self.before_retries = read_request_log(path)
        self.sent = self.retries = 0
        self._fh: IO[str] = open_append(path)

    def note(self, sample_id: str, attempt: int) -> None:
        self._fh.write(json.dumps({"id": sample_id, "at": now(), "attempt": attempt}, ensure_ascii=True) + "\n")
        self._fh.flush()
        self.sent += 1
        self.retries += attempt > 1

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


def is_run_dir(folder: Path) -> bool:
    """Whether ``folder`` holds a niah run (its lock file, run.json or responses.jsonl, as regular files)."""
    return any((folder / name).is_file() and not (folder / name).is_symlink()
               for name in (LOCK_FILE, RUN_JSON, RESPONSES_JSONL))


def claim_run_dir(out_dir: Path, overwrite: bool) -> int:
    """Lock RUN_DIR for this process (the lock's file descriptor; closing it releases the folder), clear what
    a killed run left half-written and, with ``overwrite``, everything an earlier run wrote."""
    claim_output_dir(out_dir, kind="run", ours=is_run_dir, mark=False)  # the lock file marks a run folder
    fd = open_lock(out_dir / LOCK_FILE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ConfigError(f"another niah run is writing {out_dir}") from None
    # we hold the lock, so temporary files of atomic writes are left from a killed run: remove them
    remove_stale_temp_files(out_dir, (RUN_JSON, RESPONSES_JSONL))
    if overwrite:
        for name in (RUN_JSON, RESPONSES_JSONL, REQUESTS_LOG):
            (out_dir / name).unlink(missing_ok=True)
        if (out_dir / CACHE_SUBDIR).is_symlink():  # the link goes, never what it points at
            (out_dir / CACHE_SUBDIR).unlink()
        shutil.rmtree(out_dir / CACHE_SUBDIR, ignore_errors=True)
    for name in (RUN_JSON, RESPONSES_JSONL, REQUESTS_LOG, CACHE_SUBDIR):
        refuse_link(out_dir / name, "run file")
    return fd


def check_resume(out_dir: Path, config: dict[str, Any]) -> dict[str, Any] | None:
    """The earlier run.json of RUN_DIR (None: a new run); a ConfigError when it ran another configuration."""
    path = out_dir / RUN_JSON
    if not path.exists():
        return None
    previous = read_json_file(path, what="run.json")
    if not isinstance(previous, dict):
        raise DataError("must be a JSON object; move it away to start the run again", file=path)
    old = previous.get("config") or {}
    if not isinstance(old, dict):
        old = {}
    differs = [k for k in config if old.get(k) != config[k]]
    if differs:
        raise ConfigError(
            f"{out_dir} holds a run with a different {', '.join(differs)}; "
            "use another --out, or --overwrite to start it again"
        )
    return previous


# ---------------------------------------------------------------------------------------- reading a run folder


def read_run_json(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "run.json"
    if not path.is_file():
        hint = (": it is a dataset; niah run it, then score the run" if (run_dir / "manifest.json").is_file()
                else "")
        raise DataError(f"no run.json in the run directory{hint}", file=run_dir)
    run = read_json_file(path, what="run.json")
    if not isinstance(run, dict):
        raise DataError("must be a JSON object", file=path)
    return run


def resolve_run_dataset(run_dir: Path, run: dict[str, Any], override: str | Path | None = None) -> Path:
    """The dataset of a run: ``override`` if given, else ``run.json``'s ``dataset`` (absolute, or relative to
    the run directory if it exists there, else relative to the working directory)."""
    if override is not None:
        return Path(override)
    value = run.get("dataset")
    if not isinstance(value, str) or not value:
        raise DataError("missing or not a string", file=run_dir / "run.json", field="dataset")
    path = Path(value)
    if path.is_absolute():
        return path
    beside = run_dir / path
    return beside if beside.exists() else path


def read_responses(path: Path) -> dict[str, dict[str, Any]]:
    """Response rows by sample id (a later row for the same id wins: resumed runs may re-record a sample)."""
    if not path.is_file():
        raise DataError("no responses.jsonl in the run directory", file=path.parent)
    rows: dict[str, dict[str, Any]] = {}
    for lineno, obj in iter_jsonl(path):
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            raise DataError("a response row must be an object with a string 'id'", file=path, line=lineno,
                            field="id")
        response = obj.get("response")
        if response is not None and not isinstance(response, str):
            raise DataError("must be a string or null", file=path, line=lineno, field="response")
        rows[obj["id"]] = obj
    return rows
